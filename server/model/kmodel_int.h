/* Module-internal parts of the kernel model shared by kform.c (arena, atoms, forms),
 * kbuild.c (the tree walk) and kquery.c (queries and the dump). */
#ifndef HK_MODEL_KMODEL_INT_H
#define HK_MODEL_KMODEL_INT_H

#include <setjmp.h>

#include "model/kmodel.h"

/* Caps on what one kernel may grow into (the text comes from users). */
#define KM_TERMS_MAX 48     /* terms in one form; a larger one becomes an opaque atom */
#define KM_ATOMS_MAX 8192
#define KM_ITEMS_MAX 4096   /* accesses, loops, guards, locals, accumulators */
#define KM_TEXT_MAX 8192    /* canonical text of one atom */

typedef struct km_block {
    struct km_block *next;
    size_t used, cap;
    max_align_t data[];
} km_block;

/* A growable array of items of one type, in the arena's owner (hk_realloc). */
typedef struct {
    void *v;
    size_t n, cap;
} km_vec;

struct km_kernel {
    char *name;
    km_block *arena;       /* every string and form of the model */
    km_vec atoms;          /* km_atom */
    km_vec params, loops, accesses, guards, accs, updates, locals, sites;
    size_t barriers;
    /* While building: where an allocation failure or a cap jumps to (km_build's one
     * failure exit, which frees the whole model). */
    jmp_buf *fail;
    int fail_rc;
    char *scratch;         /* a heap string the failure exit frees (see km__atom) */
    uint32_t n_unnamed;    /* km__unnamed atoms made */
};

/* Fails the build: longjmp to km_build with rc. */
_Noreturn void km__fail(km_kernel *k, int rc);
void *km__alloc(km_kernel *k, size_t n);
char *km__strndup(km_kernel *k, const char *s, size_t n);
char *km__strdup(km_kernel *k, const char *s);
/* Appends one zeroed item of size sz; returns it. Fails over KM_ITEMS_MAX. */
void *km__push(km_kernel *k, km_vec *v, size_t sz);
void km__vecs_free(km_kernel *k);

/* Atom of that canonical text (interned: an existing atom with the same text is
 * returned). The fields other than text are taken only when the atom is new. */
uint32_t km__atom(km_kernel *k, const km_atom *proto);
const km_atom *km__atom_at(const km_kernel *k, uint32_t id);

km_form km__const(km_kernel *k, int64_t c);
km_form km__of_atom(km_kernel *k, uint32_t id);
km_form km__add(km_kernel *k, km_form a, km_form b);
km_form km__sub(km_kernel *k, km_form a, km_form b);
km_form km__scale(km_kernel *k, km_form a, int64_t c);
km_form km__mul(km_kernel *k, km_form a, km_form b);
/* An opaque atom op(args...) (op "call" with name for calls), as a form. Commutative ops
 * ("max", "min", "==", "&", "|", "^") order their operands canonically. */
km_form km__opaque(km_kernel *k, const char *op, const char *name, const km_form *args,
                   uint32_t n_args);
km_form km__read_atom(km_kernel *k, const char *buffer, km_form index);
/* A fresh unknown ($big<n>, kind VAR) standing for an opaque or read atom whose canonical
 * text would pass KM_TEXT_MAX: two such are never equal, so nothing is claimed of it. */
km_form km__unnamed(km_kernel *k);
/* Substitutes 0 for every counter atom of a grid-stride loop (top-level terms only). */
km_form km__drop_grid_counters(km_kernel *k, km_form f);
bool km__is_const(km_form f, int64_t *c);
/* x / d and x % d (integer when both are; constants folded): opaque `/` and `%` atoms.
 * A quotient of a quotient is one quotient, (y / a) / d is y / (a*d), so every spelling
 * of a split index (`i / W / H`, `i / (W*H)`) names the same atom. */
km_form km__div(km_kernel *k, km_form x, km_form d);
km_form km__mod(km_kernel *k, km_form x, km_form d);
/* f with each `x % d` factor written x - d*(x / d) when that leaves fewer terms or fewer
 * `/` and `%` factors and no more of either: the split of a flat index into coordinates
 * put back together (n*C*H*W + c*H*W + h*W + w with n = i / (C*H*W), c = i / (H*W) % C,
 * h = i / W % H, w = i % W) is i again; a permuted one stays as it is. */
km_form km__recombine(km_kernel *k, km_form f);
/* Puts caller-owned terms in canonical order in place, merging equal products and
 * dropping zeros (*n shrinks); for forms built outside the arena (kclass.c). */
void km__canon(const km_kernel *k, km_term *t, uint32_t *n);
/* Canonical text into a fixed buffer (truncated at size); for comparisons. */
void km__form_text(const km_kernel *k, km_form f, char *out, size_t size);
/* A term's sign as printed: " - " or " + " between terms, "-" before a negative first
 * one; *mag gets the coefficient's magnitude. HK_OK or HK_ENOMEM. */
int km__term_sign(struct hk_buf *b, int64_t coef, bool first, uint64_t *mag);

#endif
