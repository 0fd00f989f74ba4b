/* The CLI's human tables: rows collected first, then every column padded to its widest
 * cell in terminal columns (UTF-8 decoded, East Asian wide characters two), so a long
 * label pushes its column out instead of shifting the rest of its row. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/hk.h"

/* Code points a terminal draws two columns wide (East Asian Wide and Fullwidth, emoji). */
static int wide(uint32_t c)
{
    return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
           (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
           (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
           (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
           (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

size_t cli_display_width(const char *s)
{
    size_t w = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t c = *p;
        int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (c >= 0x80 && c < 0xc0) { /* a stray continuation byte: one column, as ? */
            w++;
            p++;
            continue;
        }
        c &= extra ? 0x3fu >> extra : 0x7fu;
        p++;
        for (int i = 0; i < extra && (*p & 0xc0) == 0x80; i++)
            c = c << 6 | (*p++ & 0x3fu);
        if (c >= 0x300 && c <= 0x36f) /* combining marks take no column */
            continue;
        w += wide(c) ? 2 : 1;
    }
    return w;
}

void cli_table_init(cli_table *t, size_t ncols)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols > CLI_TABLE_MAX_COLS ? CLI_TABLE_MAX_COLS : ncols;
}

static int add(cli_table *t, char **cells, bool note)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        struct cli_table_row *rows = hk_realloc(t->rows, cap * sizeof *rows);
        if (!rows)
            return HK_ENOMEM;
        t->rows = rows;
        t->cap = cap;
    }
    struct cli_table_row *r = &t->rows[t->nrows++];
    memcpy(r->cells, cells, sizeof r->cells);
    r->note = note;
    return HK_OK;
}

int cli_table_row(cli_table *t, const char *const *cells)
{
    char *copy[CLI_TABLE_MAX_COLS] = {0};
    int rc = HK_OK;
    for (size_t i = 0; rc == HK_OK && i < t->ncols; i++)
        if (!(copy[i] = hk_strdup(cells[i] ? cells[i] : "")))
            rc = HK_ENOMEM;
    rc = rc ? rc : add(t, copy, false);
    if (rc)
        for (size_t i = 0; i < t->ncols; i++)
            hk_free(copy[i]);
    return rc;
}

int cli_table_note(cli_table *t, const char *text)
{
    char *copy[CLI_TABLE_MAX_COLS] = {hk_strdup(text ? text : "")};
    int rc = copy[0] ? add(t, copy, true) : HK_ENOMEM;
    if (rc)
        hk_free(copy[0]);
    return rc;
}

void cli_table_print(const cli_table *t, FILE *out, const char *indent)
{
    size_t width[CLI_TABLE_MAX_COLS] = {0};
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; !t->rows[r].note && c + 1 < t->ncols; c++) {
            size_t w = cli_display_width(t->rows[r].cells[c]);
            if (w > width[c])
                width[c] = w;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        const struct cli_table_row *row = &t->rows[r];
        fputs(indent ? indent : "", out);
        if (row->note) {
            fprintf(out, "%s\n", row->cells[0]);
            continue;
        }
        /* the last column is not padded: no trailing blanks */
        size_t last = t->ncols;
        while (last > 1 && !*row->cells[last - 1])
            last--;
        for (size_t c = 0; c < last; c++) {
            fputs(row->cells[c], out);
            if (c + 1 < last)
                fprintf(out, "%*s", (int)(width[c] - cli_display_width(row->cells[c]) + 2), "");
        }
        fputc('\n', out);
    }
}

void cli_table_free(cli_table *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < CLI_TABLE_MAX_COLS; c++)
            hk_free(t->rows[r].cells[c]);
    hk_free(t->rows);
    memset(t, 0, sizeof *t);
}
