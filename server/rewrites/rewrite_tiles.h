/* uniform_tiles' core, shared with the rewrites that stage more than reads (module-internal:
 * rewrite_tiles.c, rewrite_hoist.c). */
#ifndef HK_REWRITES_REWRITE_TILES_H
#define HK_REWRITES_REWRITE_TILES_H

#include <stddef.h>

#include "rewrites/registry.h"

#define RW_TILE_MAX_COLUMNS 4

/* Values the block computes once per element of the table, beside the staged reads (borrowed
 * for the call). Column c is a name that the kernel's text uses in the all-pairs loop's body
 * (an identifier nothing declares there, e.g. hk_c0) for a value of type[c]; staging is code
 * run by the element's loader, with the loop's counter declared and in range, that assigns
 * every name[c] (declared for it as `type[c] name[c];`). Each use of name[c] in the body then
 * reads the element's value from a __shared__ tile of type[c]. */
typedef struct {
    const char *name[RW_TILE_MAX_COLUMNS];
    const char *type[RW_TILE_MAX_COLUMNS];
    size_t n;
    const char *staging;
} rw_tile_columns;

/* uniform_tiles (tile, unroll: its parameters) with the columns cols (NULL: none) staged
 * too; its fallback through a call's reads included. rewrite.h's contract. */
int rw_tiles_with_columns(const rw_context *ctx, int tile, int unroll, const rw_tile_columns *cols, rw_result *out);

/* The tiles' parameters (tile, unroll), shared by every rewrite built on them. */
extern const rw_param rw_tiles_params[2];

#endif
