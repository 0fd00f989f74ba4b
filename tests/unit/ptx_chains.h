/* ptx_chains: the floating-point operation chains of one kernel's PTX, as text, for
 * comparing what nvcc made of an original kernel and of a rewrite of it (test code only).
 *
 * nvcc contracts `a * b + c` into one fma by heuristics of its own (which product of a sum
 * of products it fuses depends on the surrounding code): two sources that are the same
 * expression in C++ may round differently. A chain is a tree of float instructions (add,
 * sub, mul, fma, div, neg, abs, min, max, sqrt, rcp; .f32 and .f64) whose result no float
 * instruction reads: the instruction with its modifiers, then its operands, each the float
 * instruction that defined it (the register's only definition in the kernel, nvcc's PTX
 * being in SSA form but for loop-carried registers, which are followed only within their
 * block), `L` for a global load, `M` another load, an immediate as written, `R` anything
 * else (a loop-carried value, a select, a conversion), `T` an operand whose tree is longer
 * than PXC_TEXT. `mov` between registers is followed; add.rn, sub.rn and mul.rn read as add,
 * sub and mul (the same rounding: .rn only keeps them out of a contraction). Operands of a
 * commutative operation (add, mul, min, max, the two factors of an fma) are sorted, since
 * a*b and b*a round alike. A rewrite that changes no float computation has no chain the
 * original lacks (ptx_chains_extra); the fma that fuses another product of a sum is another
 * chain. The rewrite may have fewer distinct chains (code the original duplicates). */
#ifndef HK_TESTS_PTX_CHAINS_H
#define HK_TESTS_PTX_CHAINS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PXC_LINES 40000
#define PXC_OPS 6
#define PXC_DEPTH 24
#define PXC_TEXT 4096 /* the longest operand kept whole */

typedef struct {
    char op[48];            /* the opcode with its modifiers */
    char dst[24];
    char src[PXC_OPS][48];
    int n_src;
    int block;
    bool arith;             /* a float instruction of the chains */
} pxc_ins;

typedef struct {
    pxc_ins *in;
    size_t n;
    char **chains;          /* distinct, sorted */
    size_t n_chains;
} pxc_kernel;

static inline bool pxc_is_arith(const char *op)
{
    static const char *const base[] = {"add.", "sub.", "mul.", "fma.", "div.", "neg.", "abs.",
                                       "min.", "max.", "sqrt.", "rcp.", "rsqrt."};
    const char *dot = strrchr(op, '.');
    if (!dot || (strcmp(dot, ".f32") && strcmp(dot, ".f64")))
        return false;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        if (!strncmp(op, base[i], strlen(base[i])))
            return true;
    return false;
}

static inline bool pxc_commutes(const char *op)
{
    return !strncmp(op, "add.", 4) || !strncmp(op, "mul.", 4) || !strncmp(op, "min.", 4) || !strncmp(op, "max.", 4);
}

/* The body of the .entry whose name contains `entry` (NULL: the first), split into
 * instructions. 0, or -1 when there is no such entry. */
static inline int pxc_parse(const char *ptx, const char *entry, pxc_kernel *k)
{
    memset(k, 0, sizeof *k);
    const char *p = ptx;
    for (;;) {
        p = strstr(p, ".entry ");
        if (!p)
            return -1;
        const char *paren = strchr(p, '(');
        if (!paren)
            return -1;
        if (!entry || (size_t)(paren - p) > strlen(entry)) {
            char name[512];
            size_t l = (size_t)(paren - p) < sizeof name - 1 ? (size_t)(paren - p) : sizeof name - 1;
            memcpy(name, p, l);
            name[l] = '\0';
            if (!entry || strstr(name, entry))
                break;
        }
        p = paren;
    }
    const char *body = strstr(p, "\n{");
    if (!body)
        return -1;
    const char *end = strstr(body, "\n}");
    if (!end)
        return -1;
    k->in = calloc(PXC_LINES, sizeof *k->in);
    if (!k->in)
        return -1;
    int block = 0;
    bool ended = false; /* the last instruction branched: the next one starts a block */
    for (const char *l = body + 2; l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        if (!nl)
            nl = end;
        char line[512];
        size_t len = (size_t)(nl - l) < sizeof line - 1 ? (size_t)(nl - l) : sizeof line - 1;
        memcpy(line, l, len);
        line[len] = '\0';
        l = nl + 1;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *cm = strstr(s, "//");
        if (cm)
            *cm = '\0';
        if (!*s || *s == '.' || *s == '{' || *s == '}')
            continue;
        size_t sl = strlen(s);
        while (sl && (s[sl - 1] == ' ' || s[sl - 1] == '\t'))
            s[--sl] = '\0';
        if (sl && s[sl - 1] == ':') {
            block++;
            ended = false;
            continue;
        }
        if (ended) {
            block++;
            ended = false;
        }
        if (*s == '@') {
            while (*s && *s != ' ' && *s != '\t')
                s++;
            while (*s == ' ' || *s == '\t')
                s++;
        }
        if (k->n >= PXC_LINES)
            return -1;
        pxc_ins *in = &k->in[k->n++];
        in->block = block;
        size_t ol = strcspn(s, " \t;");
        snprintf(in->op, sizeof in->op, "%.*s", (int)ol, s);
        /* add.rn / sub.rn / mul.rn round as add / sub / mul: .rn only forbids contracting them */
        if ((!strncmp(in->op, "add.rn.", 7) || !strncmp(in->op, "sub.rn.", 7) || !strncmp(in->op, "mul.rn.", 7)) &&
            (!strcmp(in->op + 7, "f32") || !strcmp(in->op + 7, "f64")))
            memmove(in->op + 3, in->op + 6, strlen(in->op + 6) + 1);
        in->arith = pxc_is_arith(in->op);
        if (!strncmp(in->op, "bra", 3) || !strncmp(in->op, "ret", 3) || !strncmp(in->op, "exit", 4))
            ended = true;
        char *a = s + ol;
        char *semi = strchr(a, ';');
        if (semi)
            *semi = '\0';
        int idx = 0;
        for (char *tok = strtok(a, ","); tok; tok = strtok(NULL, ",")) {
            while (*tok == ' ' || *tok == '\t')
                tok++;
            size_t tl = strlen(tok);
            while (tl && (tok[tl - 1] == ' ' || tok[tl - 1] == '\t'))
                tok[--tl] = '\0';
            if (idx == 0)
                snprintf(in->dst, sizeof in->dst, "%s", tok);
            else if (in->n_src < PXC_OPS)
                snprintf(in->src[in->n_src++], sizeof in->src[0], "%s", tok);
            idx++;
        }
    }
    return 0;
}

/* The instruction whose value r holds at i: its only definition in the kernel (nvcc's PTX
 * is in SSA form but for the registers of loop-carried values), else the last one before i
 * in i's block; -1 for none (a value from another block). */
static inline long pxc_def(const pxc_kernel *k, size_t i, const char *r)
{
    long only = -1;
    int n = 0;
    for (size_t j = 0; j < k->n && n < 2; j++)
        if (!strcmp(k->in[j].dst, r) && strncmp(k->in[j].op, "st.", 3))
            only = (long)j, n++;
    if (n == 1)
        return only;
    for (size_t j = i; j-- > 0 && k->in[j].block == k->in[i].block;)
        if (!strcmp(k->in[j].dst, r) && strncmp(k->in[j].op, "st.", 3))
            return (long)j;
    return -1;
}

static inline int pxc_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The chain of instruction i (malloc'd). */
static inline char *pxc_tree(const pxc_kernel *k, size_t i, int depth)
{
    const pxc_ins *in = &k->in[i];
    char *kid[PXC_OPS] = {0};
    size_t total = strlen(in->op) + 3;
    for (int o = 0; o < in->n_src; o++) {
        const char *r = in->src[o];
        long d = r[0] == '%' ? pxc_def(k, i, r) : -1;
        while (d >= 0 && !strncmp(k->in[d].op, "mov.", 4) && k->in[d].n_src == 1 && k->in[d].src[0][0] == '%')
            d = pxc_def(k, (size_t)d, k->in[d].src[0]);
        const char *leaf = "R";
        if (r[0] != '%')
            leaf = r;
        else if (d >= 0 && k->in[d].arith && depth < PXC_DEPTH)
            kid[o] = pxc_tree(k, (size_t)d, depth + 1);
        else if (d >= 0 && !strncmp(k->in[d].op, "mov.", 4) && k->in[d].n_src == 1)
            leaf = k->in[d].src[0];
        else if (d >= 0 && !strncmp(k->in[d].op, "ld.global", 9))
            leaf = "L";
        else if (d >= 0 && !strncmp(k->in[d].op, "ld.", 3))
            leaf = "M";
        if (kid[o] && strlen(kid[o]) > PXC_TEXT) {
            /* a value read many times over (a product of products): its tree cut, as `T` */
            free(kid[o]);
            kid[o] = NULL;
            leaf = "T";
        }
        if (!kid[o])
            kid[o] = strdup(leaf);
        if (!kid[o])
            abort();
        total += strlen(kid[o]) + 1;
    }
    if (pxc_commutes(in->op))
        qsort(kid, (size_t)in->n_src, sizeof kid[0], pxc_cmp);
    else if (!strncmp(in->op, "fma.", 4) && in->n_src == 3)
        qsort(kid, 2, sizeof kid[0], pxc_cmp);
    char *t = malloc(total);
    if (!t)
        abort();
    size_t n = (size_t)sprintf(t, "%s(", in->op);
    for (int o = 0; o < in->n_src; o++) {
        n += (size_t)sprintf(t + n, "%s%s", o ? "," : "", kid[o]);
        free(kid[o]);
    }
    sprintf(t + n, ")");
    return t;
}

/* Whether a float instruction reads i's result (through copies). */
static inline bool pxc_inner(const pxc_kernel *k, size_t i)
{
    for (size_t j = 0; j < k->n; j++) {
        if (j == i || !(k->in[j].arith || !strncmp(k->in[j].op, "mov.", 4)))
            continue;
        for (int o = 0; o < k->in[j].n_src; o++)
            if (!strcmp(k->in[j].src[o], k->in[i].dst) && pxc_def(k, j, k->in[i].dst) == (long)i &&
                (k->in[j].arith || pxc_inner(k, j)))
                return true;
    }
    return false;
}

/* The kernel's distinct chains (sorted). 0, or -1 when ptx has no such entry. */
static inline int ptx_chains(const char *ptx, const char *entry, pxc_kernel *k)
{
    if (pxc_parse(ptx, entry, k))
        return -1;
    k->chains = calloc(k->n + 1, sizeof *k->chains);
    if (!k->chains)
        return -1;
    for (size_t i = 0; i < k->n; i++)
        if (k->in[i].arith && !pxc_inner(k, i))
            k->chains[k->n_chains++] = pxc_tree(k, i, 0);
    qsort(k->chains, k->n_chains, sizeof *k->chains, pxc_cmp);
    size_t w = 0;
    for (size_t i = 0; i < k->n_chains; i++) {
        if (w && !strcmp(k->chains[w - 1], k->chains[i])) {
            free(k->chains[i]);
            continue;
        }
        k->chains[w++] = k->chains[i];
    }
    k->n_chains = w;
    return 0;
}

static inline void ptx_chains_free(pxc_kernel *k)
{
    for (size_t i = 0; i < k->n_chains; i++)
        free(k->chains[i]);
    free(k->chains);
    free(k->in);
    memset(k, 0, sizeof *k);
}

/* How many chains of cand the original orig lacks; each printed to `to` (NULL: silent). */
static inline size_t ptx_chains_extra(const pxc_kernel *orig, const pxc_kernel *cand, FILE *to)
{
    size_t n = 0;
    for (size_t i = 0; i < cand->n_chains; i++)
        if (!bsearch(&cand->chains[i], orig->chains, orig->n_chains, sizeof *orig->chains, pxc_cmp)) {
            if (to)
                fprintf(to, "  not in the original: %s\n", cand->chains[i]);
            n++;
        }
    return n;
}

#endif
