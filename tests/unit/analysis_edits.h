/* Shared by the analysis tests (included, not compiled alone): field-by-field model
 * equality and seeded random edits applied to a text and recorded in documents.
 * Needs <cmocka.h>, <string.h>, <stdlib.h> and analysis/analysis.h first. */
#ifndef HK_TEST_ANALYSIS_EDITS_H
#define HK_TEST_ANALYSIS_EDITS_H

/* ------------------------------------------------------------ model comparison */

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

static bool span_eq(an_span a, an_span b)
{
    return !memcmp(&a, &b, sizeof(a));
}

/* Field-by-field equality; on a difference, says which into why. */
static bool model_eq(const an_model *a, const an_model *b, char *why, size_t wn)
{
#define DIFF(...) do { snprintf(why, wn, __VA_ARGS__); return false; } while (0)
    if (a->n_funcs != b->n_funcs) DIFF("n_funcs %zu vs %zu", a->n_funcs, b->n_funcs);
    if (a->n_launches != b->n_launches) DIFF("n_launches %zu vs %zu", a->n_launches, b->n_launches);
    if (a->n_tunables != b->n_tunables) DIFF("n_tunables %zu vs %zu", a->n_tunables, b->n_tunables);
    if (a->has_errors != b->has_errors) DIFF("has_errors");
    for (size_t i = 0; i < a->n_funcs; i++) {
        const an_function *x = &a->funcs[i], *y = &b->funcs[i];
        if (x->kind != y->kind || !str_eq(x->name, y->name) ||
            !str_eq(x->signature, y->signature) || !str_eq(x->template_params, y->template_params) ||
            !str_eq(x->launch_bounds, y->launch_bounds) || x->recovered != y->recovered)
            DIFF("func %zu (%s / %s) header", i, x->name, y->name);
        if (!span_eq(x->span, y->span) || !span_eq(x->name_span, y->name_span) ||
            !span_eq(x->body_span, y->body_span))
            DIFF("func %zu (%s) spans %u-%u vs %u-%u", i, x->name, x->span.start_byte,
                 x->span.end_byte, y->span.start_byte, y->span.end_byte);
        if (x->n_params != y->n_params || x->n_shared != y->n_shared ||
            x->n_launches != y->n_launches)
            DIFF("func %zu (%s) counts", i, x->name);
        for (size_t k = 0; k < x->n_params; k++) {
            const an_param *p = &x->params[k], *q = &y->params[k];
            if (!str_eq(p->name, q->name) || !str_eq(p->type, q->type) ||
                !str_eq(p->elem_type, q->elem_type) || p->pointer_depth != q->pointer_depth ||
                p->is_const != q->is_const || p->is_restrict != q->is_restrict ||
                !span_eq(p->span, q->span))
                DIFF("func %zu (%s) param %zu", i, x->name, k);
        }
        for (size_t k = 0; k < x->n_shared; k++) {
            const an_shared *p = &x->shared[k], *q = &y->shared[k];
            if (!str_eq(p->name, q->name) || !str_eq(p->type, q->type) ||
                !str_eq(p->size_expr, q->size_expr) || p->is_extern != q->is_extern ||
                !span_eq(p->span, q->span))
                DIFF("func %zu (%s) shared %zu", i, x->name, k);
        }
        for (size_t k = 0; k < x->n_launches; k++)
            if (x->launches[k] != y->launches[k])
                DIFF("func %zu (%s) launch index %zu", i, x->name, k);
    }
    for (size_t i = 0; i < a->n_launches; i++) {
        const an_launch *x = &a->launches[i], *y = &b->launches[i];
        if (x->form != y->form || !str_eq(x->kernel, y->kernel) ||
            !str_eq(x->template_args, y->template_args) || !str_eq(x->grid, y->grid) ||
            !str_eq(x->block, y->block) || !str_eq(x->shmem, y->shmem) ||
            !str_eq(x->stream, y->stream) || x->n_args != y->n_args || x->caller != y->caller ||
            !span_eq(x->span, y->span))
            DIFF("launch %zu (%s)", i, x->kernel);
        for (size_t k = 0; k < x->n_args; k++)
            if (!str_eq(x->args[k], y->args[k]))
                DIFF("launch %zu arg %zu", i, k);
    }
    for (size_t i = 0; i < a->n_tunables; i++) {
        const an_tunable *x = &a->tunables[i], *y = &b->tunables[i];
        if (x->kind != y->kind || !str_eq(x->name, y->name) || !str_eq(x->value, y->value) ||
            x->owner != y->owner || x->in_launch != y->in_launch || x->in_array != y->in_array ||
            !span_eq(x->span, y->span) || !span_eq(x->value_span, y->value_span))
            DIFF("tunable %zu (%s): launch %d/%d array %d/%d owner %ld/%ld", i, x->name,
                 x->in_launch, y->in_launch, x->in_array, y->in_array, x->owner, y->owner);
    }
    return true;
#undef DIFF
}

/* ------------------------------------------------------------ edits */

struct text {
    char *p;
    size_t len, cap;
    size_t max;          /* past this length edits only delete; 0: 16 KB */
};

static void point_of(const char *t, size_t byte, uint32_t *row, uint32_t *col)
{
    uint32_t r = 0, c = 0;
    for (size_t i = 0; i < byte; i++) {
        if (t[i] == '\n') {
            r++;
            c = 0;
        } else {
            c++;
        }
    }
    *row = r;
    *col = c;
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static const char *const snippets[] = {
    "__global__ void knew(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 0; }\n",
    "kfresh<<<(n + 127) / 128, 128>>>(p, n);\n",
    "hipLaunchKernelGGL(HIP_KERNEL_NAME(t<float, 4>), dim3(g), dim3(NEWB), 0, 0, p);\n",
    "#define NEWB 64\n",
    "#define KERNEL __global__\n",
    "constexpr int CT = 16;\n",
    "__shared__ float sm[NEWB][CT + 1];\n",
    "template <int TB>\n",
    "dim3 block(NEWB, CT);\n",
    "}", "{", ";", "(", ")", "<<<", ">>>", "/*", "*/", "//", "\n", " ", "x", "__global__",
    "\xe5\x85\xb1\xe4\xba\xab\xe5\x86\x85\xe5\xad\x98 ",   /* 共享内存 */
    "\"", "#if 0\n", "#endif\n", "extern \"C\" {\n", "namespace q {\n",
    "R\"x(", "u8R\"x(", ")x\"", "'", "1'000", "#else\n", "\\\n", "#ifdef Q\n", "struct S {}\n",
};

/* Applies one random edit to t and records it in both documents. */
static void random_edit(struct text *t, unsigned *seed, an_doc **docs, size_t n_docs)
{
    size_t start = t->len ? rnd(seed) % (t->len + 1) : 0;
    size_t del = 0;
    unsigned kind = rnd(seed) % 10;
    if (t->len > (t->max ? t->max : 2 * 8192))
        kind = 0;                   /* keep the text small: delete */
    if (kind < 3 && t->len > start)
        del = 1 + rnd(seed) % (kind == 0 ? 64 : 4);
    if (start + del > t->len)
        del = t->len - start;
    const char *ins = "";
    char one[2] = {0, 0};
    if (kind >= 2) {
        if (kind == 9) {
            one[0] = (char)(' ' + rnd(seed) % 95);
            ins = one;
        } else {
            ins = snippets[rnd(seed) % (sizeof(snippets) / sizeof(snippets[0]))];
        }
    }
    size_t il = strlen(ins);
    uint32_t sr, sc, oer, oec, ner, nec;
    point_of(t->p, start, &sr, &sc);
    point_of(t->p, start + del, &oer, &oec);
    if (t->len - del + il + 1 > t->cap) {
        t->cap = (t->len - del + il + 1) * 2;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
    memmove(t->p + start + il, t->p + start + del, t->len - start - del);
    memcpy(t->p + start, ins, il);
    t->len = t->len - del + il;
    t->p[t->len] = '\0';
    point_of(t->p, start + il, &ner, &nec);
    for (size_t i = 0; i < n_docs; i++)
        assert_int_equal(an_doc_edit(docs[i], (uint32_t)start, (uint32_t)(start + del),
                                     (uint32_t)(start + il), sr, sc, oer, oec, ner, nec),
                         HK_OK);
}

#endif
