/* Shared-memory races read in PTX (ptxrace.h). One function body at a time: its statements
 * are parsed once, every register is evaluated once in text order (nvcc's PTX assigns almost
 * every virtual register once; one assigned twice is a loop variable or a merge, and reads
 * as unknown), and two facts are followed over the body's basic blocks to a fixed point:
 * which tid.x values surely reach a block (a set of PR_T bits, meet = intersection), and
 * which tracked stores may reach it with no barrier since (union). A last sweep pairs every
 * resolved load with the stores live before it. */
#include "measure/ptxrace.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "measure/ptxdata.h"

#define PR_T 1024                /* tid.x values followed (the most threads of a block in x) */
#define PR_W (PR_T / 64)
#define PR_LINE 4096             /* bytes of a line kept (statements are far shorter) */
#define PR_OPS 12                /* operands of a statement kept */
#define PR_MAX_STMTS (1L << 20)  /* statements of one body judged */
#define PR_MAX_SWEEPS 200        /* fixed-point sweeps before a body counts as not judged */
#define PR_MAX_LIVE_WORDS (1L << 22) /* live-store bitsets over all blocks (32 MiB per set) */
#define PR_FILES 64              /* .file entries kept */
#define PR_ROUNDS 8              /* optimistic uniformity rounds before the pessimistic one */
#define PR_UNROLL 64             /* trips of one loop judged unrolled (a shape known) */
#define PR_UNROLL_STMTS (1L << 17) /* statements of one unrolled body */
#define PR_STORED 16             /* module variables whose stores a launch is asked about */
#define PR_FIX 3                 /* registers of a few values judged at each value (body_choices) */
#define PR_SENSE_FN 64            /* device functions whose value senses, remembered */
#define PR_QUIET 64              /* device functions without a barrier, remembered (REF13) */
#define PR_DECL 256              /* names declared in the launched entry's body (REF13) */
#define PR_CHOICES 8             /* combinations of their values judged, at most */
#define PR_SHARED 64             /* .shared declarations of the module and a body kept (REF19) */
#define PR_SWORD 8               /* shared words one body's loads ask about (REF19) */

/* (REF19) A `.shared` variable declared in the module or in the body being read: its name,
 * its size in bytes (-1: not known -- `.extern`, `[]`, a list of names, a type not read),
 * and how many declarations give that name (more than one: which is meant is not known). */
typedef struct {
    char name[256];
    long size;
    int count;
    bool in_body;
} shdecl;

typedef struct {
    uint64_t w[PR_W];
} tset;

static void tset_fill(tset *s, long n)
{
    memset(s, 0, sizeof *s);
    for (long t = 0; t < n && t < PR_T; t++)
        s->w[t >> 6] |= 1ull << (t & 63);
}

static bool tset_any(const tset *s)
{
    for (int i = 0; i < PR_W; i++)
        if (s->w[i])
            return true;
    return false;
}

static bool tset_has(const tset *s, long t)
{
    return t >= 0 && t < PR_T && (s->w[t >> 6] >> (t & 63)) & 1;
}

static void tset_and(tset *d, const tset *s)
{
    for (int i = 0; i < PR_W; i++)
        d->w[i] &= s->w[i];
}

static int64_t floor_div(int64_t x, int64_t d) /* d > 0 */
{
    int64_t q = x / d;
    return (x % d != 0 && x < 0) ? q - 1 : q;
}

/* some t in a with t + k in b */
static bool tset_pair(const tset *a, const tset *b, long k)
{
    for (long t = 0; t < PR_T; t++)
        if (tset_has(a, t) && tset_has(b, t + k))
            return true;
    return false;
}

/* A register's value: known: c + a[0]*tid.x + a[1]*tid.y + a[2]*tid.z + sym (sym 0: none; else
 * one block-uniform unknown quantity). Not known: anything, maybe different per thread. */
typedef struct {
    bool known;
    bool data;  /* not known, but computed from memory contents and block-uniform values
                 * alone, no %tid arithmetic (in[i], a mark from local memory) */
    int sym;
    int64_t c;
    int64_t a[3];
} aval;

static const aval unknown_val;

/* What is known of an integer value of w bits (8, 16, 32, 64), whatever the data (REF15's
 * ranges, REF16's known bits): rk, its value read as its type (signed or not) lies in [lo,
 * hi] -- for 8-32 bits always (at worst the type's range); a 64-bit range only where int64
 * holds it (an unsigned value that can pass 2^63 - 1: rk false) -- and kz / ko, the bits
 * (within the w) known to be 0 / 1. */
typedef struct {
    bool rk;
    int64_t lo, hi;
    uint64_t kz, ko;
} ival;

/* (REF19) A register's integer value as an evaluation judged it (reg's irng, iv, iw, isg). */
struct swsnap {
    bool irng;
    bool isg;
    unsigned char iw;
    ival iv;
    bool bot; /* (REF20) no value yet: a late store of it adds nothing to its word's union */
};

/* Two's-complement arithmetic on the forms' numbers (addresses wrap; C's signed overflow must
 * not happen). */
static int64_t wadd(int64_t x, int64_t y)
{
    return (int64_t)((uint64_t)x + (uint64_t)y);
}

static int64_t wmul(int64_t x, int64_t y)
{
    return (int64_t)((uint64_t)x * (uint64_t)y);
}

static bool val_uniform(const aval *v)
{
    return v->known && !v->a[0] && !v->a[1] && !v->a[2];
}

static bool val_const(const aval *v)
{
    return val_uniform(v) && !v->sym;
}

enum { SP_OTHER, SP_SHARED, SP_GENERIC }; /* what a uniform unknown is: a shared-window
                                           * offset, a generic address into it, or else */

enum { P_NONE, P_UNIFORM, P_TID, P_DATA, P_VARY }; /* a predicate register: uniform over
                                                    * the block, a function of tid.x alone
                                                    * (its set), of data alone, or else */

typedef struct {
    char *name;
    int defs;
    aval v;
    int pkind;
    tset ptrue; /* P_TID: the tid.x values for which it is true */
    bool uni;   /* written more than once, every time to the same value in every thread that
                 * reaches it (uni_solve): reads as uval */
    bool uni_new;
    aval uval;
    signed char pc; /* a predicate written once whose value is a constant: 0, 1; -1: not */
    unsigned char fset; /* an .f32 register written once (unguarded): the classes its value
                         * can be in for any data (float_set_def; FS_*), 0: every class */
    double flo, fhi;    /* the same register: every value it holds that is not a NaN lies in
                         * [flo, fhi] (float_set_def; -inf, +inf: nothing known) */
    unsigned char fw;   /* (REF18) the float width (32, 64) of the write that set them; 0: none */
    bool irng;          /* (REF15, REF16) an integer register of 8-64 bits written once, where
                         * the write surely runs (guard_holds): what is known of its value,
                         * read as the type iw/isg (int_value_def) */
    bool isg;
    unsigned char iw;
    ival iv;
    const char *tname; /* (REF17) written once, surely: the address of the module's .const
                        * variable tname plus a byte offset of what toff knows (64-bit, signed;
                        * a mov of the name, an add of an integer judged); NULL: not so */
    ival toff;
    const char *tname2; /* (REF20) the same: or the address of tname2 plus toff2 (a selp of
                         * two such addresses, and an add of an integer to that); NULL: one */
    ival toff2;
    const char *lbase; /* (REF18) written once: the address of the .local variable lbase (the
                        * depot) plus loff, where local_proof holds; NULL: not so */
    int64_t loff;
    bool mbad;   /* (REF19) written twice or more, and not a merge merge_value reads: a write
                  * with another destination too, under a guard, or reading it itself */
    int mseen;   /* (REF19) its writes this evaluation has judged so far (merge_value: all);
                  * mbad too where one of them wrote a value not known */
    bool mhard;  /* (REF20) a write of it with another destination too, under a guard, cut or
                  * a call: no hypothesis (eval_all) */
} reg;

enum {
    I_OTHER,
    I_LABEL,
    I_BRA,    /* bra / bra.uni */
    I_BRX,    /* brx.idx: targets unknown */
    I_RET,    /* ret / exit */
    I_BAR,    /* a barrier of the whole block: after it every thread is there */
    I_BARN,   /* a barrier of some threads, or a call: orders nothing we can name */
    I_WBAR,   /* a warp barrier: bar.warp.sync and the .sync warp operations */
    I_LD,
    I_ST,
};

typedef struct {
    int kind;
    long line, src;
    int src_file;
    int guard;       /* predicate register index, -1: none */
    bool guard_neg;
    int label;       /* I_LABEL: its id; I_BRA: the target's id (-1: not in this body) */
    char *text;      /* the statement, blanks trimmed (new) */
    char *buf;       /* a copy the operands point into (new) */
    char op[64];
    char *ops[PR_OPS];
    int nops;
    bool ops_cut;    /* it had more operands than PR_OPS */
    /* I_LD / I_ST */
    int width;       /* bytes */
    bool generic;    /* no state space: shared only when its address is */
    bool tracked;    /* its address resolved: a base, coefficients and a constant */
    int base;        /* the base's uniform symbol */
    int64_t c, a[3];
    int store_id;    /* I_ST tracked: index among tracked stores */
    bool def_full;   /* every thread that can reach it executes it (its guard uniform) */
    int def_sym;     /* the uniform unknown it (re)defines each time it runs, 0: none: the
                      * stores based on it are no longer where a later load's address is */
    int mreg;        /* (REF19) the register written twice or more that it writes alone, -1:
                      * none; mok: the integer value it writes, as this evaluation judged it
                      * (mv of mw / msg) */
    bool mok;
    bool msg;
    unsigned char mw;
    ival mv;
} stmt;

typedef struct {
    /* the body */
    stmt *st;
    long n, cap;
    char func[96];
    long maxx;       /* tid.x values possible (.reqntid / .maxntid, the shape), else PR_T */
    long ntid[3];    /* the block shape judged (%ntid.x/y/z as constants); 0: not known */
    long unroll_ovf; /* an unrolled body (body_unroll): the label index past its last copy
                      * (reached: the loop runs longer than unrolled), -1: none */
    bool ovf_reached; /* body_judge: that label's block was reached */
    /* body_judge with want_run: run[i] 0 when statement i runs in no thread (its block not
     * reached over the edges the launch's constants leave, or its guard a constant false), 2
     * when it is also reached past no branch on memory data and its guard is none such (1:
     * only past one, or under one: data_taint); NULL: not judged (the body skipped) */
    bool want_run;
    unsigned char *run;
    /* (REF15) eval_all: the statement whose integer value was just judged (int_value_def), so
     * that its value (eval_stmt_value) reads it without a second pass: ir_ok, ir_v of the type
     * ir_w / ir_sg */
    const stmt *ir_stmt;
    bool lok; /* (REF18) local_proof: every register holding a local variable's address is read
               * only as an ld.local / st.local address (loads forwarded, local_forward) */
    bool ldone; /* local_proof ran on this body (it reads the statements alone: once) */
    /* (REF19) the shared words its loads asked about (shared_word): the .shared declarations
     * seen (the module's and this body's, the scan's table), whether the body writes shared
     * memory only by st/atom/red of .shared at addresses it can name (swbody), and per word
     * whether every mention of it is a whole-word ld.shared / st.shared (ok) and, for the
     * round epoch, the statement of the barrier its cover precedes (-1: none) */
    const shdecl *sh;
    int nsh;          /* -1: the table overflowed (nothing is read) */
    bool entry;       /* the body is an .entry's (a .func's may be called by one that writes
                       * the module's shared words too) */
    const stmt *at;   /* (REF19) the statement eval_all is judging: an operand of its own that
                       * names a merge's register reads merge_value there */
    bool sw_late;     /* this evaluation met a store of a word whose value is written after the
                       * load in the text (not judged yet): eval_all evaluates again with... */
    const struct swsnap *snap; /* ...every register as the first evaluation judged it (NULL:
                                * none; set only during that second evaluation) */
    const struct swsnap *mhyp; /* (REF20) per register, a merge's hypothesis (eval_all): where
                                * .bot is false and .irng true, a read of it (merge_value) is
                                * that value on every way in; NULL: none */
    int nlate;        /* (REF20) the registers such late stores write (the first evaluation's) */
    int late[16];
    bool late_over;   /* more than 16 of them */
    bool sw_hyp;      /* (REF20) evaluating under eval_sw's hypothesis (snap its h) */
    bool sw_unlisted; /* ...and a late store met whose register the first evaluation did not
                       * list (a cover that changed): the round does not hold */
    long epoch;       /* eval_all rounds */
    signed char swbody; /* 0: not asked yet, 1: so, 2: not */
    int nsw;
    struct {
        char name[256];
        bool ok;
        long epoch;
        long bar;
    } sw[PR_SWORD];
    bool ir_ok;
    ival ir_v;
    int ir_w;
    bool ir_sg;
    /* the launched entry's parameters, in declaration order, and the launch's values of its
     * integer scalars (ptxrace_launch): an ld.param of one reads as that number */
    /* registers of a few values (body_choices) judged at one value each: eval_all reads the
     * register named fixname[k] as the constant fixval[k] */
    int nfix;
    char fixname[2 * PR_FIX][64]; /* a selp's register and its predicate (0, 1) */
    int64_t fixval[2 * PR_FIX];
    int nparams;
    /* the module's data that nothing writes (ptxdata.h; NULL: none known): an ld.global /
     * ld.const of it reads as its initial value */
    const ptxdata *data;
    /* body_judge: where a barrier that data decides is written (bar_judge; NULL: not looked
     * for -- the unrolled copies and the stores pass) */
    ptxrace_result *bar_out;
    /* the module's device functions judged before this body whose value senses (REF12):
     * fn_name[k] returns a sensed value (fn_how[k] & 1) or stores one to memory (& 2), or
     * (REF13) holds a barrier of the whole block, itself or in a function it calls (& 4), one
     * that a value of its parameters decides (& 8), or memory they point to (& 16); set
     * with bar_out; bar_judge writes what this body does, in fn_out */
    int nfn;
    const char (*fn_name)[96];
    const unsigned char *fn_how;
    unsigned char fn_out;
    /* the stores pass (REF13): the module's device functions read before this body that hold
     * no barrier and end only by `ret` (quiet_fn): a call of one does not end store_cover */
    int nquiet;
    const char (*quiet)[96];
    char pname[PTXRACE_ARGS][96];
    bool pknown[PTXRACE_ARGS];
    int64_t pval[PTXRACE_ARGS];
    /* names */
    reg *regs;
    long nregs, regcap;
    int *hash;       /* open addressing over regs, size hashcap */
    long hashcap;
    char **labels;
    long nlabels, labcap;
    /* uniform unknowns */
    int nsym;
    int *sym_space;  /* per sym: SP_* */
    int *sym_gen;    /* per sym: its generic (cvta.shared) twin, 0: none yet */
    long symcap;
    char **sym_names; /* symbols named in the PTX (a shared variable, a parameter) */
    int *sym_named;
    long nnamed, namedcap;
} body;

/* ---- small parsing helpers ---- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static void cut_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static unsigned long hash_str(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static int grow(void **p, long *cap, long need, size_t elem)
{
    if (need <= *cap)
        return HK_OK;
    long nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = hk_realloc(*p, (size_t)nc * elem);
    if (!q)
        return HK_ENOMEM;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *p = q;
    *cap = nc;
    return HK_OK;
}

/* The register named name (created when new). -1: out of memory. */
static int reg_of(body *b, const char *name)
{
    if (b->nregs * 2 >= b->hashcap) {
        long nc = b->hashcap ? b->hashcap * 2 : 256;
        int *h = hk_malloc((size_t)nc * sizeof *h);
        if (!h)
            return -1;
        for (long i = 0; i < nc; i++)
            h[i] = -1;
        for (long r = 0; r < b->nregs; r++) {
            unsigned long i = hash_str(b->regs[r].name) % (unsigned long)nc;
            while (h[i] >= 0)
                i = (i + 1) % (unsigned long)nc;
            h[i] = (int)r;
        }
        hk_free(b->hash);
        b->hash = h;
        b->hashcap = nc;
    }
    unsigned long i = hash_str(name) % (unsigned long)b->hashcap;
    while (b->hash[i] >= 0) {
        if (!strcmp(b->regs[b->hash[i]].name, name))
            return b->hash[i];
        i = (i + 1) % (unsigned long)b->hashcap;
    }
    if (grow((void **)&b->regs, &b->regcap, b->nregs + 1, sizeof *b->regs))
        return -1;
    reg *r = &b->regs[b->nregs];
    memset(r, 0, sizeof *r);
    r->pc = -1;
    r->flo = -INFINITY;
    r->fhi = INFINITY;
    if (!(r->name = hk_strdup(name)))
        return -1;
    b->hash[i] = (int)b->nregs;
    return (int)b->nregs++;
}

/* The register named name, -1 when the body never writes or guards with it: a lookup that
 * never grows the table (callers hold pointers into it). */
static int reg_find(const body *b, const char *name)
{
    if (!b->hashcap)
        return -1;
    unsigned long i = hash_str(name) % (unsigned long)b->hashcap;
    while (b->hash[i] >= 0) {
        if (!strcmp(b->regs[b->hash[i]].name, name))
            return b->hash[i];
        i = (i + 1) % (unsigned long)b->hashcap;
    }
    return -1;
}

static int label_of(body *b, const char *name)
{
    for (long i = 0; i < b->nlabels; i++)
        if (!strcmp(b->labels[i], name))
            return (int)i;
    if (grow((void **)&b->labels, &b->labcap, b->nlabels + 1, sizeof *b->labels))
        return -1;
    if (!(b->labels[b->nlabels] = hk_strdup(name)))
        return -1;
    return (int)b->nlabels++;
}

/* A new uniform unknown of space sp. 0: out of memory. */
static int sym_new(body *b, int sp)
{
    long cap = b->symcap;
    if (grow((void **)&b->sym_space, &b->symcap, b->nsym + 2, sizeof *b->sym_space))
        return 0;
    if (cap != b->symcap) {
        int *g = hk_realloc(b->sym_gen, (size_t)b->symcap * sizeof *g);
        if (!g) {
            b->symcap = cap; /* sym_space grew alone: harmless, its tail is unused */
            return 0;
        }
        memset(g + cap, 0, (size_t)(b->symcap - cap) * sizeof *g);
        b->sym_gen = g;
    }
    int s = ++b->nsym;
    b->sym_space[s] = sp;
    b->sym_gen[s] = 0;
    return s;
}

/* The uniform unknown a name stands for (a symbol, a special register), the same each time. */
static int sym_named(body *b, const char *name, int sp)
{
    for (long i = 0; i < b->nnamed; i++)
        if (!strcmp(b->sym_names[i], name))
            return b->sym_named[i];
    long cap = b->namedcap;
    if (grow((void **)&b->sym_names, &b->namedcap, b->nnamed + 1, sizeof *b->sym_names))
        return 0;
    if (cap != b->namedcap) {
        int *q = hk_realloc(b->sym_named, (size_t)b->namedcap * sizeof *q);
        if (!q)
            return 0;
        b->sym_named = q;
    }
    int s = sym_new(b, sp);
    if (!s || !(b->sym_names[b->nnamed] = hk_strdup(name)))
        return 0;
    b->sym_named[b->nnamed++] = s;
    return s;
}

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* An integer literal, as ptxdata reads one. */
static bool parse_int(const char *s, int64_t *out)
{
    return ptxdata_int(s, strlen(s), out);
}

/* ---- statements ---- */

static void split_ops(stmt *s, char *rest)
{
    s->nops = 0;
    char *p = rest;
    while (*p && s->nops < PR_OPS) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *start = p;
        int depth = 0;
        while (*p && (depth || *p != ',')) {
            if (*p == '{' || *p == '[' || *p == '(')
                depth++;
            else if ((*p == '}' || *p == ']' || *p == ')') && depth)
                depth--;
            p++;
        }
        if (*p)
            *p++ = '\0';
        s->ops[s->nops++] = trim(start);
    }
    while (*p == ' ' || *p == '\t')
        p++;
    s->ops_cut = *p != '\0'; /* more operands than kept: read as unknown */
}

static bool op_is(const char *op, const char *base)
{
    size_t n = strlen(base);
    return !strncmp(op, base, n) && (op[n] == '\0' || op[n] == '.');
}

static bool op_has(const char *op, const char *q)
{
    size_t n = strlen(q);
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, q, n) && (p[1 + n] == '\0' || p[1 + n] == '.'))
            return true;
    return false;
}

/* Whether op names a float rounding modifier (.rn, .rz, .rm, .rp). */
static bool op_rounded(const char *op)
{
    return op_has(op, "rn") || op_has(op, "rz") || op_has(op, "rm") || op_has(op, "rp");
}

/* bytes of one element of a load or store's type qualifier, times its vector count */
static int access_width(const char *op)
{
    int w = 0, vec = 1;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *q = p + 1;
        if (q[0] == 'v' && isdigit((unsigned char)q[1]))
            vec = atoi(q + 1);
        else if ((q[0] == 'b' || q[0] == 'u' || q[0] == 's' || q[0] == 'f') && isdigit((unsigned char)q[1]))
            w = atoi(q + 1) / 8;
        else if (!strncmp(q, "bf16", 4))
            w = 2;
        if (!strncmp(q, "f16x2", 5) || !strncmp(q, "bf16x2", 6))
            w = 4;
    }
    return w > 0 ? w * vec : 0;
}

/* Parse one statement of a body: text is the statement, blanks trimmed. */
static int stmt_parse(body *b, const char *text, long line, long src, int src_file)
{
    if (grow((void **)&b->st, &b->cap, b->n + 1, sizeof *b->st))
        return HK_ENOMEM;
    stmt *s = &b->st[b->n];
    memset(s, 0, sizeof *s);
    s->line = line;
    s->src = src;
    s->src_file = src_file;
    s->guard = -1;
    s->label = -1;
    s->store_id = -1;
    s->base = 0;
    if (!(s->text = hk_strdup(text)) || !(s->buf = hk_strdup(text)))
        goto oom;
    b->n++; /* owned from here: body_clear frees it */
    char *p = s->buf;
    size_t n = strlen(p);
    if (n && p[n - 1] == ':') { /* a label */
        p[n - 1] = '\0';
        s->kind = I_LABEL;
        s->label = label_of(b, trim(p));
        return s->label < 0 ? HK_ENOMEM : HK_OK;
    }
    if (n && p[n - 1] == ';')
        p[--n] = '\0';
    if (*p == '@') {
        p++;
        if (*p == '!') {
            s->guard_neg = true;
            p++;
        }
        char *e = p;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        char c = *e;
        *e = '\0';
        s->guard = reg_of(b, p);
        *e = c;
        if (s->guard < 0)
            return HK_ENOMEM;
        p = trim(e);
    }
    char *e = p;
    while (*e && *e != ' ' && *e != '\t')
        e++;
    size_t ol = (size_t)(e - p);
    if (ol >= sizeof s->op)
        ol = sizeof s->op - 1;
    memcpy(s->op, p, ol);
    s->op[ol] = '\0';
    split_ops(s, *e ? e + 1 : e);
    return HK_OK;
oom:
    if (s->text) {
        hk_free(s->text);
        s->text = NULL;
    }
    return HK_ENOMEM;
}

/* The registers a statement writes: its first operand when that is a register or a vector of
 * them ({%f1, %f2}; `%p|%q` for the two predicates of setp), a call's return group. Every other
 * operand is read. */
static int stmt_dests(body *b, stmt *s, int *out, int cap)
{
    int n = 0;
    if (s->kind == I_LABEL || !s->nops)
        return 0;
    const char *d = s->ops[0];
    if (op_is(s->op, "call")) {
        if (*d != '(')
            return 0;
    } else if (op_is(s->op, "bra") || op_is(s->op, "brx") || op_is(s->op, "bar") ||
               op_is(s->op, "barrier") || op_is(s->op, "ret") || op_is(s->op, "exit")) {
        return 0;
    }
    if (*d == '[')
        return 0;
    char tmp[PR_LINE];
    cut_copy(tmp, sizeof tmp, d);
    for (char *p = tmp; *p && n < cap;) {
        while (*p && *p != '%')
            p++;
        if (!*p)
            break;
        char *st = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '%' || *p == '_' || *p == '$' || *p == '.'))
            p++;
        char c = *p;
        *p = '\0';
        int r = reg_of(b, st);
        if (r < 0)
            return -1;
        out[n++] = r;
        *p = c;
    }
    return n;
}

/* ---- values ---- */

/* The value of a source operand: a register, a special register, an integer, a symbol. */
static aval operand_val(body *b, const char *o)
{
    aval v = unknown_val;
    int64_t k;
    if (parse_int(o, &k)) {
        v.known = true;
        v.c = k;
        return v;
    }
    if (!strcmp(o, "%tid.x") || !strcmp(o, "%tid.y") || !strcmp(o, "%tid.z")) {
        v.known = true;
        v.a[o[5] - 'x'] = 1;
        return v;
    }
    if (!strncmp(o, "%ntid.", 6) && o[6] >= 'x' && o[6] <= 'z' && !o[7] && b->ntid[o[6] - 'x'] > 0) {
        v.known = true; /* judged at a block shape: blockDim is that constant */
        v.c = b->ntid[o[6] - 'x'];
        return v;
    }
    if (!strncmp(o, "%ntid.", 6) || !strncmp(o, "%ctaid.", 7) || !strncmp(o, "%nctaid.", 8) ||
        !strncmp(o, "%cluster_ctaid.", 15) || !strncmp(o, "%cluster_nctaid.", 16) ||
        !strncmp(o, "%clusterid.", 11) || !strncmp(o, "%nclusterid.", 12) ||
        !strcmp(o, "%cluster_ctarank") || !strcmp(o, "%cluster_nctarank") ||
        !strncmp(o, "%dynamic_smem_size", 18) || !strncmp(o, "%total_smem_size", 16) ||
        !strcmp(o, "%gridid") || !strcmp(o, "%nsmid") || !strcmp(o, "%nwarpid")) {
        v.sym = sym_named(b, o, SP_OTHER);
        v.known = v.sym != 0;
        return v;
    }
    if (*o == '%') {
        if (strchr(o, '.')) /* another special register (%laneid is not dotted but varies) */
            return v;
        int r = reg_find(b, o);
        if (r >= 0 && b->regs[r].defs > 1 && b->regs[r].uni)
            return b->regs[r].uval;
        if (r < 0 || b->regs[r].defs != 1)
            return v; /* never written here (an %laneid, %warpid ...), or written twice */
        return b->regs[r].v;
    }
    if (is_ident_start(*o)) { /* a symbol: its address, uniform */
        char name[128];
        cut_copy(name, sizeof name, o);
        char *plus = strchr(name, '+');
        int64_t off = 0;
        if (plus) {
            *plus = '\0';
            if (!parse_int(trim(plus + 1), &off))
                return v;
        }
        v.sym = sym_named(b, trim(name), SP_SHARED);
        v.known = v.sym != 0;
        v.c = off;
        return v;
    }
    return v;
}

static bool all_uniform(body *b, stmt *s, int first)
{
    if (s->ops_cut)
        return false;
    for (int i = first; i < s->nops; i++) {
        const char *o = s->ops[i];
        if (*o == '{' || *o == '[' || *o == '(')
            return false;
        aval v = operand_val(b, o);
        if (!val_uniform(&v))
            return false;
    }
    return true;
}

static aval fresh(body *b, int sp)
{
    aval v = unknown_val;
    v.sym = sym_new(b, sp);
    v.known = v.sym != 0;
    return v;
}

/* x + sign*y */
static aval val_add(body *b, aval x, aval y, int sign)
{
    if (!x.known || !y.known)
        return unknown_val;
    aval r = x;
    r.c = wadd(x.c, wmul(sign, y.c));
    for (int i = 0; i < 3; i++)
        r.a[i] = wadd(x.a[i], wmul(sign, y.a[i]));
    if (!y.sym)
        return r;
    if (!x.sym && sign > 0) {
        r.sym = y.sym;
        return r;
    }
    if (sign < 0 && x.sym == y.sym) {
        r.sym = 0;
        return r;
    }
    /* a shared offset plus a uniform amount stays in the window; two bases do not add */
    int sp = SP_OTHER;
    int xs = x.sym ? b->sym_space[x.sym] : SP_OTHER, ys = b->sym_space[y.sym];
    if (sign > 0 && (xs == SP_OTHER) != (ys == SP_OTHER))
        sp = xs == SP_OTHER ? ys : xs;
    else if (sign < 0 && ys == SP_OTHER)
        sp = xs;
    r.sym = sym_new(b, sp);
    r.known = r.sym != 0;
    return r;
}

static aval val_scale(body *b, aval x, int64_t k)
{
    if (!x.known)
        return unknown_val;
    aval r = x;
    r.c = wmul(x.c, k);
    for (int i = 0; i < 3; i++)
        r.a[i] = wmul(x.a[i], k);
    if (x.sym && k != 1) {
        r.sym = k ? sym_new(b, SP_OTHER) : 0;
        r.known = !k || r.sym != 0;
    }
    return r;
}

static aval val_mul(body *b, aval x, aval y)
{
    if (val_const(&y))
        return val_scale(b, x, y.c);
    if (val_const(&x))
        return val_scale(b, y, x.c);
    if (val_uniform(&x) && val_uniform(&y))
        return fresh(b, SP_OTHER);
    return unknown_val;
}

/* The tid.x values (0..maxx-1) for which `lhs CMP rhs` holds, when lhs - rhs depends on tid.x
 * alone: the comparison is evaluated at each (32-bit operands wrap as the hardware's do). */
static int setp_info_tid(body *b, stmt *s, tset *when);
static bool all_data(body *b, stmt *s, int first);

/* A setp's predicate kind: as setp_info_tid, and P_DATA where that says P_VARY but every
 * operand is data or block-uniform. */
static int setp_info(body *b, stmt *s, tset *when)
{
    int pk = setp_info_tid(b, s, when);
    if (pk == P_VARY && all_data(b, s, 1))
        pk = P_DATA;
    return pk;
}

/* l CMP r for an integer setp's comparison (l, r already cut to its width); false: not one
 * decided here. */
static bool cmp_eval(const char *cmp, bool sgn, int64_t l, int64_t r, bool *res)
{
    if (!strcmp(cmp, "eq"))
        *res = l == r;
    else if (!strcmp(cmp, "ne"))
        *res = l != r;
    else if (!strcmp(cmp, "lt"))
        *res = sgn ? l < r : (uint64_t)l < (uint64_t)r;
    else if (!strcmp(cmp, "le"))
        *res = sgn ? l <= r : (uint64_t)l <= (uint64_t)r;
    else if (!strcmp(cmp, "gt"))
        *res = sgn ? l > r : (uint64_t)l > (uint64_t)r;
    else if (!strcmp(cmp, "ge"))
        *res = sgn ? l >= r : (uint64_t)l >= (uint64_t)r;
    else if (!strcmp(cmp, "lo"))
        *res = (uint64_t)l < (uint64_t)r;
    else if (!strcmp(cmp, "ls"))
        *res = (uint64_t)l <= (uint64_t)r;
    else if (!strcmp(cmp, "hi"))
        *res = (uint64_t)l > (uint64_t)r;
    else if (!strcmp(cmp, "hs"))
        *res = (uint64_t)l >= (uint64_t)r;
    else
        return false;
    return true;
}

/* The integer type of an operation: bits (16, 32, 64) and signedness of its last integer type
 * qualifier (cvt: its first, the destination's; src: the second). 0: a float, a predicate or
 * no such qualifier. */
static int int_type(const char *op, bool *sgn, bool src)
{
    int bits = 0, seen = 0;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *q = p + 1;
        if (q[0] == 'f' && isdigit((unsigned char)q[1]))
            return 0;
        if (!strncmp(q, "bf16", 4) || !strncmp(q, "pred", 4))
            return 0;
        if ((q[0] == 'u' || q[0] == 's' || q[0] == 'b') && isdigit((unsigned char)q[1])) {
            int n = atoi(q + 1);
            const char *e = q + 1;
            while (isdigit((unsigned char)*e))
                e++;
            if ((n != 16 && n != 32 && n != 64) || (*e && *e != '.'))
                continue;
            bits = n;
            *sgn = q[0] == 's';
            if (op_is(op, "cvt") && seen++ == (src ? 1 : 0))
                return bits;
        }
    }
    return op_is(op, "cvt") ? 0 : bits;
}

/* v as a bits-wide integer, sign- or zero-extended. */
static int64_t int_norm(int64_t v, int bits, bool sgn)
{
    if (bits == 32)
        return sgn ? (int64_t)(int32_t)(uint32_t)v : (int64_t)(uint32_t)v;
    if (bits == 16)
        return sgn ? (int64_t)(int16_t)(uint16_t)v : (int64_t)(uint16_t)v;
    return v;
}

/* An integer operation of constant operands (with the block shape known, blockDim arithmetic
 * such as `blockDim.x >> 3` is one): *out its value. false: not folded here. */
static bool fold_const(const stmt *s, const aval *x, const aval *y, aval *out)
{
    const char *op = s->op;
    bool sgn = false;
    int bits = int_type(op, &sgn, false);
    if (!bits || s->ops_cut || !val_const(x))
        return false;
    int64_t a = int_norm(x->c, bits, sgn), r;
    if (s->nops == 2) {
        if (op_is(op, "not"))
            r = ~a;
        else if (op_is(op, "cvt") && !op_has(op, "sat")) {
            bool ssg = false;
            int sb = int_type(op, &ssg, true);
            if (!sb)
                return false;
            r = int_norm(x->c, sb, ssg);
        } else
            return false;
    } else if (s->nops == 3 && val_const(y)) {
        int64_t c = int_norm(y->c, bits, sgn);
        if (op_is(op, "shr")) {
            int64_t k = y->c; /* the shift amount: .u32, clamped as the hardware does */
            if (k < 0 || k >= bits)
                r = sgn && a < 0 ? -1 : 0;
            else
                r = sgn ? (a < 0 ? ~((~a) >> k) : a >> k) : (int64_t)((uint64_t)a >> k);
        } else if (op_is(op, "and"))
            r = a & c;
        else if (op_is(op, "or"))
            r = a | c;
        else if (op_is(op, "xor"))
            r = a ^ c;
        else if (op_is(op, "min"))
            r = (sgn ? a < c : (uint64_t)a < (uint64_t)c) ? a : c;
        else if (op_is(op, "max"))
            r = (sgn ? a > c : (uint64_t)a > (uint64_t)c) ? a : c;
        else if (op_is(op, "div") || op_is(op, "rem")) {
            if (!c || (sgn && c == -1))
                return false;
            if (sgn)
                r = op_is(op, "div") ? a / c : a % c;
            else
                r = (int64_t)(op_is(op, "div") ? (uint64_t)a / (uint64_t)c
                                               : (uint64_t)a % (uint64_t)c);
        } else
            return false;
    } else
        return false;
    *out = unknown_val;
    out->known = true;
    out->c = int_norm(r, bits, sgn);
    return true;
}

static int setp_info_tid(body *b, stmt *s, tset *when)
{
    /* setp.CMP[.BOOLOP].TYPE d[|q], a, b[, c] */
    if (s->nops < 3 || s->nops > 3)
        return all_uniform(b, s, 1) ? P_UNIFORM : P_VARY;
    aval x = operand_val(b, s->ops[1]), y = operand_val(b, s->ops[2]);
    if (!x.known || !y.known)
        return P_VARY;
    if (val_uniform(&x) && val_uniform(&y))
        return P_UNIFORM;
    if (x.sym != y.sym || x.a[1] != y.a[1] || x.a[2] != y.a[2])
        return P_VARY;
    char cmp[8] = "";
    const char *d = strchr(s->op, '.');
    if (!d)
        return P_VARY;
    cut_copy(cmp, sizeof cmp, d + 1);
    char *e = strchr(cmp, '.');
    if (e)
        *e = '\0';
    bool sgn = op_has(s->op, "s32") || op_has(s->op, "s64") || op_has(s->op, "s16");
    bool w32 = op_has(s->op, "s32") || op_has(s->op, "u32") || op_has(s->op, "b32");
    bool w64 = op_has(s->op, "s64") || op_has(s->op, "u64") || op_has(s->op, "b64");
    if (!w32 && !w64)
        return P_VARY; /* a float or 16-bit comparison */
    memset(when, 0, sizeof *when);
    for (long t = 0; t < b->maxx && t < PR_T; t++) {
        int64_t l = wadd(x.c, wmul(x.a[0], t)), r = wadd(y.c, wmul(y.a[0], t)); /* the common sym cancels */
        bool res = false;
        if (w32) {
            if (sgn) {
                int32_t L = (int32_t)(uint32_t)l, R = (int32_t)(uint32_t)r;
                l = L;
                r = R;
            } else {
                l = (int64_t)(uint32_t)l;
                r = (int64_t)(uint32_t)r;
            }
        }
        if (x.sym) /* both carry the same unknown: only equality is decided */
            if (strcmp(cmp, "eq") && strcmp(cmp, "ne"))
                return P_VARY;
        if (!cmp_eval(cmp, sgn, l, r, &res))
            return P_VARY;
        if (res)
            when->w[t >> 6] |= 1ull << (t & 63);
    }
    return P_TID;
}

/* Parse [X], [X+imm], [X+-imm] into a value. */
static aval address_val(body *b, const char *o)
{
    char tmp[256];
    size_t n = strlen(o);
    if (n < 2 || o[0] != '[' || o[n - 1] != ']' || n - 2 >= sizeof tmp)
        return unknown_val;
    memcpy(tmp, o + 1, n - 2);
    tmp[n - 2] = '\0';
    char *x = trim(tmp);
    int64_t off = 0;
    char *plus = strchr(x + 1, '+');
    if (plus) {
        *plus = '\0';
        if (!parse_int(trim(plus + 1), &off))
            return unknown_val;
    } else {
        char *minus = strchr(x + 1, '-');
        if (minus) {
            *minus = '\0';
            if (!parse_int(trim(minus + 1), &off))
                return unknown_val;
            off = wmul(off, -1);
        }
    }
    aval v = operand_val(b, trim(x));
    if (v.known)
        v.c = wadd(v.c, off);
    return v;
}

/* Classify a statement (kind, width, space). */
static void stmt_classify(stmt *s)
{
    const char *op = s->op;
    if (s->kind == I_LABEL)
        return;
    if (op_is(op, "bra"))
        s->kind = I_BRA;
    else if (op_is(op, "brx"))
        s->kind = I_BRX;
    else if (op_is(op, "ret") || op_is(op, "exit") || op_is(op, "trap"))
        s->kind = I_RET;
    else if (op_is(op, "bar") || op_is(op, "barrier")) {
        if (op_has(op, "warp"))
            s->kind = I_WBAR;
        else if (op_has(op, "arrive") || op_has(op, "cluster"))
            s->kind = I_BARN;
        /* bar.sync a, b / barrier.sync a, b: only b threads take part */
        else
            s->kind = s->nops >= 2 ? I_BARN : I_BAR;
    } else if (op_is(op, "call") || op_is(op, "mbarrier") || op_is(op, "griddepcontrol"))
        s->kind = I_BARN;
    else if (op_has(op, "sync") && (op_is(op, "shfl") || op_is(op, "vote") || op_is(op, "match") ||
                                    op_is(op, "redux") || op_is(op, "wmma") || op_is(op, "mma") ||
                                    op_is(op, "wgmma") || op_is(op, "activemask")))
        s->kind = I_WBAR; /* conservative: a warp-wide operation counts as a warp barrier */
    else if (op_is(op, "ld") || op_is(op, "st")) {
        /* weak (plain or volatile) accesses only: .relaxed/.acquire/.release are strong */
        if (op_has(op, "relaxed") || op_has(op, "acquire") || op_has(op, "release") ||
            op_has(op, "mmio") || op_has(op, "async"))
            return;
        bool shared = op_has(op, "shared") || op_has(op, "shared::cta");
        bool other = op_has(op, "global") || op_has(op, "local") || op_has(op, "param") ||
                     op_has(op, "const") || op_has(op, "shared::cluster");
        if (other && !shared)
            return;
        if (op_has(op, "shared::cluster"))
            return;
        s->generic = !shared;
        s->width = access_width(op);
        if (s->width)
            s->kind = op_is(op, "ld") ? I_LD : I_ST;
    }
}

/* The operations whose result is a function of their operands alone. */
static bool eval_pure(const char *op)
{
    static const char *const pure[] = {"add", "sub", "mul", "mad", "shl", "neg", "cvt", "cvta",
                                       "and", "or", "xor", "not", "shr", "div", "rem", "min",
                                       "max", "selp", "abs", "bfe", "bfi", "popc", "clz",
                                       "brev", "prmt", "sad", "cnot", "slct", "set", "copysign",
                                       "mul24", "mad24", "fma", "sqrt", "rsqrt", "rcp", "ex2",
                                       "lg2", "sin", "cos", "tanh", "testp", "shf", "dp4a",
                                       "dp2a", "lop3", "mov", NULL};
    for (int i = 0; pure[i]; i++)
        if (op_is(op, pure[i]))
            return true;
    return false;
}

static bool op_float(const char *op)
{
    return op_has(op, "f32") || op_has(op, "f64") || op_has(op, "f16") || op_has(op, "bf16") ||
           op_has(op, "f16x2") || op_has(op, "bf16x2") || op_has(op, "rn") || op_has(op, "rz") ||
           op_has(op, "approx") || op_has(op, "ftz");
}

static bool op_int_cvt(const char *op)
{
    /* cvt.DST.SRC between integers of 32 or 64 bits (a widening of a small index) */
    int ints = 0;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *q = p + 1;
        if ((q[0] == 'u' || q[0] == 's') && (!strncmp(q + 1, "32", 2) || !strncmp(q + 1, "64", 2)) &&
            (q[3] == '\0' || q[3] == '.'))
            ints++;
        else
            return false;
    }
    return ints == 2;
}

/* Whether every operand from the first on is block-uniform or data (aval.data). */
static bool all_data(body *b, stmt *s, int first)
{
    if (s->ops_cut)
        return false;
    for (int i = first; i < s->nops; i++) {
        const char *o = s->ops[i];
        if (*o == '{' || *o == '(')
            return false;
        aval v = *o == '[' ? address_val(b, o) : operand_val(b, o);
        if (*o == '[')
            continue; /* an address: what is loaded from it is data whatever it is */
        if (!val_uniform(&v) && !(!v.known && v.data))
            return false;
    }
    return true;
}

static aval eval_stmt_value(body *b, stmt *s);

/* The value an instruction gives its (first) destination: as eval_stmt_value, and an unknown
 * result marked data when it comes from memory or from data and uniform values alone. */
static aval eval_stmt(body *b, stmt *s)
{
    aval r = eval_stmt_value(b, s);
    if (!r.known)
        r.data = op_is(s->op, "ld") || (op_is(s->op, "atom") && s->nops >= 2) ||
                 (eval_pure(s->op) && all_data(b, s, 1));
    return r;
}

/* An integer load of a module variable at `[name]` or `[name+K]` (`ld.global.u32 %r,
 * [hk_zero]`, `ld.const.s8 %rs, [tab+3]`): its name (into nm, cap bytes), offset, state space,
 * width and sign. false: not such a load. */
static bool module_data_addr(const stmt *s, char *nm, size_t cap, int64_t *off, bool *konst,
                             int *bytes, bool *sgn)
{
    const char *op = s->op;
    *konst = op_has(op, "const");
    if (!*konst && !op_has(op, "global"))
        return false;
    if (s->nops != 2 || *s->ops[0] != '%' || op_has(op, "v2") || op_has(op, "v4") ||
        op_has(op, "v8") || s->ops_cut)
        return false;
    *bytes = 0;
    *sgn = false;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *q = p + 1;
        if ((q[0] == 'u' || q[0] == 's' || q[0] == 'b') && isdigit((unsigned char)q[1])) {
            int w = atoi(q + 1);
            if (w == 8 || w == 16 || w == 32 || w == 64) {
                *bytes = w / 8;
                *sgn = q[0] == 's';
            }
        } else if (q[0] == 'f' && isdigit((unsigned char)q[1]))
            return false; /* a float: not folded (no float arithmetic is) */
    }
    char buf[128];
    cut_copy(buf, sizeof buf, s->ops[1]);
    size_t l = strlen(buf);
    if (!*bytes || l < 3 || buf[0] != '[' || buf[l - 1] != ']')
        return false;
    buf[l - 1] = '\0';
    char *x = trim(buf + 1);
    *off = 0;
    char *plus = strchr(x, '+');
    if (plus) {
        *plus = '\0';
        if (!parse_int(trim(plus + 1), off))
            return false;
    }
    x = trim(x);
    if (!is_ident_start(*x) || *x == '%')
        return false;
    cut_copy(nm, cap, x);
    return true;
}

/* Whether a load may read the value a store every block makes before its barrier
 * (ptxdata_load_values_at): a plain or volatile ld with no cache operator and no `::`
 * qualifier. `.nc` goes through the read-only path, which a store in the same kernel need not
 * update; `.ca` / `.lu` through an L1 that another SM's store does not reach; the rest left
 * out with them, since no honest text was seen to need one (docs/referee.md). */
static bool cover_load(const char *op)
{
    static const char *const cache[] = {"nc", "ca", "cg", "cs", "lu", "cv"};
    for (size_t i = 0; i < sizeof cache / sizeof *cache; i++)
        if (op_has(op, cache[i]))
            return false;
    return !strstr(op, "::");
}

/* An integer load of a module variable that nothing writes (module_data_addr): *v its
 * initial value (ptxdata.h says why that is the value in every launch). false: not such a
 * load. */
static bool module_data_load(const body *b, const stmt *s, aval *v)
{
    char nm[128];
    int64_t off, c;
    bool konst, sgn;
    int bytes;
    if (!module_data_addr(s, nm, sizeof nm, &off, &konst, &bytes, &sgn) ||
        ptxdata_load_values_at(b->data, nm, off, konst, bytes, sgn,
                               cover_load(s->op) ? b->func : NULL, s->line, &c, 1) != 1)
        return false; /* its initializer, the one value its stores and it agree on, or the
                       * value a store every block makes before its barrier wrote */
    *v = unknown_val;
    v->known = true;
    v->c = c;
    return true;
}

/* A load of a module variable that holds one of a few values in a launch (its initializer,
 * or a value its stores that can run write: ptxdata_allow_values): the values a load of it
 * gives, into vals (cap): their count, 0 when not such a load or not two values or more. */
static int module_data_values(const body *b, const stmt *s, int64_t *vals, int cap)
{
    char nm[128];
    int64_t off;
    bool konst, sgn;
    int bytes;
    if (!b->data || !op_is(s->op, "ld") ||
        !module_data_addr(s, nm, sizeof nm, &off, &konst, &bytes, &sgn))
        return 0;
    int n = ptxdata_load_values_at(b->data, nm, off, konst, bytes, sgn,
                                   cover_load(s->op) ? b->func : NULL, s->line, vals, cap);
    return n >= 2 ? n : 0;
}

/* The op's type components (.s32, .f32 ...) in order, up to cap: their count. */
static int op_types(const char *op, char (*t)[8], int cap)
{
    int n = 0;
    for (const char *p = strchr(op, '.'); p && n < cap; p = strchr(p + 1, '.')) {
        const char *q = p + 1;
        size_t l = strcspn(q, ".");
        if (l < 8 && (q[0] == 's' || q[0] == 'u' || q[0] == 'f' || q[0] == 'b') &&
            isdigit((unsigned char)q[1])) {
            memcpy(t[n], q, l);
            t[n][l] = '\0';
            n++;
        }
    }
    return n;
}

/* ---- the values an .f32 register can hold (classes) ---- */

/* A set of .f32 values as classes: a register's fset is the union of the classes its value
 * can be in, whatever the data (0 there: not known, every class). */
enum {
    FS_PZ = 1,    /* +0 */
    FS_NZ = 2,    /* -0 */
    FS_NAN = 4,   /* any NaN */
    FS_PINF = 8,  /* +inf */
    FS_NINF = 16, /* -inf */
    FS_FIN = 32,  /* a finite nonzero number, normal or subnormal */
    FS_ALL = 63,
    FS_Z = FS_PZ | FS_NZ,
    FS_INF = FS_PINF | FS_NINF,
};

/* (REF18) An .f64 immediate `0dXXXXXXXXXXXXXXXX` (16 hex digits, the IEEE 754 bits): its
 * value into *v; false: another form. */
static bool fd_imm(const char *o, double *v)
{
    char *e;
    if (strlen(o) != 18)
        return false;
    for (int i = 2; i < 18; i++)
        if (!isxdigit((unsigned char)o[i]))
            return false;
    unsigned long long bits = strtoull(o + 2, &e, 16);
    if (e != o + 18 || *e)
        return false;
    uint64_t w = (uint64_t)bits;
    memcpy(v, &w, sizeof *v);
    return true;
}

/* The classes of an .f32 operand: an immediate (0fXXXXXXXX) exactly, a register written once
 * with its fset, anything else every class. */
static unsigned fs_operand(const body *b, const char *o)
{
    double dv;
    if (o[0] == '0' && (o[1] == 'd' || o[1] == 'D')) { /* (REF18) an .f64 immediate */
        if (!fd_imm(o, &dv))
            return FS_ALL;
        return isnan(dv) ? FS_NAN : isinf(dv) ? (dv < 0 ? FS_NINF : FS_PINF)
               : dv == 0  ? (signbit(dv) ? FS_NZ : FS_PZ)
                          : FS_FIN;
    }
    if (o[0] == '0' && (o[1] == 'f' || o[1] == 'F')) {
        char *e;
        unsigned long bits = strtoul(o + 2, &e, 16);
        if (e != o + 10 || *e || strlen(o) != 10)
            return FS_ALL;
        unsigned ex = (unsigned)(bits >> 23) & 0xff, man = (unsigned)bits & 0x7fffff;
        bool neg = bits >> 31;
        if (ex == 0xff)
            return man ? FS_NAN : neg ? FS_NINF : FS_PINF;
        if (!ex && !man)
            return neg ? FS_NZ : FS_PZ;
        return FS_FIN;
    }
    int r = *o == '%' ? reg_find(b, o) : -1;
    if (r < 0 || b->regs[r].defs != 1 || !b->regs[r].fset)
        return FS_ALL;
    return b->regs[r].fset;
}

/* ---- the values an .f32 register can hold (ranges) ---- */

/* A range [lo, hi] of .f32 values (doubles, infinities allowed) holds every value an operand
 * or a result can take that is not a NaN (whether a NaN can come is the classes' part, FS_NAN);
 * -inf, +inf: nothing known. -0 and +0 are both 0 in it. */

/* The range of an .f32 operand: an immediate exactly, a register written once with its range,
 * anything else all of it. */
static void fr_operand(const body *b, const char *o, double *lo, double *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    double dv;
    if (o[0] == '0' && (o[1] == 'd' || o[1] == 'D')) { /* (REF18) an .f64 immediate */
        if (fd_imm(o, &dv) && !isnan(dv))
            *lo = *hi = dv;
        return;
    }
    if (o[0] == '0' && (o[1] == 'f' || o[1] == 'F')) {
        char *e;
        unsigned long bits = strtoul(o + 2, &e, 16);
        if (e != o + 10 || *e || strlen(o) != 10)
            return;
        uint32_t w = (uint32_t)bits;
        float f;
        memcpy(&f, &w, sizeof f);
        if (!isnan(f))
            *lo = *hi = (double)f;
        return;
    }
    int r = *o == '%' ? reg_find(b, o) : -1;
    if (r < 0 || b->regs[r].defs != 1)
        return;
    *lo = b->regs[r].flo;
    *hi = b->regs[r].fhi;
}

/* A bound of an exact (real) result computed in double, moved outward past the float rounding
 * of any mode (at most an ulp of float, 2^-23 relative, or 2^-149 near zero) and past the
 * double rounding of its computation; past FLT_MAX, the infinity (a float overflows to it). A
 * double sum or product of floats is 0 only when the real one is (no double underflows
 * there), and a float rounds 0 to 0. */
static double fr_out(double d, bool up)
{
    if (d == 0 || isinf(d) || isnan(d))
        return d;
    double m = fabs(d) * 0x1p-22 + 0x1p-149;
    d = up ? d + m : d - m;
    if (d > FLT_MAX)
        return up ? INFINITY : FLT_MAX;
    if (d < -FLT_MAX)
        return up ? -FLT_MAX : -INFINITY;
    return d;
}

/* x rounded to the nearest integer, a tie to the even one (cvt's .rni), whatever the
 * process's rounding mode. */
static double round_even(double x)
{
    double f = floor(x), d = x - f;
    return d < 0.5 ? f : d > 0.5 ? f + 1 : fmod(f, 2) == 0 ? f : f + 1;
}

/* x rounded to an integer as cvt's .rzi (0), .rni (1), .rmi (2), .rpi (3); infinities kept. */
static double fround(double x, int mode)
{
    if (isinf(x))
        return x;
    return mode == 0 ? trunc(x) : mode == 1 ? round_even(x) : mode == 2 ? floor(x) : ceil(x);
}

/* x * y of two ranges, exact (the corners; a float times a float is exact in double): false
 * where a corner is 0 * inf (then nothing is known). */
static bool fr_mul(double alo, double ahi, double blo, double bhi, double *lo, double *hi)
{
    double c[4] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < 4; i++) {
        if (isnan(c[i]))
            return false;
        *lo = fmin(*lo, c[i]);
        *hi = fmax(*hi, c[i]);
    }
    return true;
}

/* Each class c of x and d of y through f(c, d), united. */
static unsigned fs_pairs(unsigned x, unsigned y, unsigned (*f)(unsigned, unsigned))
{
    unsigned r = 0;
    for (unsigned c = 1; c <= FS_FIN; c <<= 1)
        for (unsigned d = 1; d <= FS_FIN; d <<= 1)
            if ((x & c) && (y & d))
                r |= f(c, d);
    return r;
}

static unsigned fs_neg(unsigned x)
{
    return (x & (FS_NAN | FS_FIN)) | (x & FS_PZ ? FS_NZ : 0) | (x & FS_NZ ? FS_PZ : 0) |
           (x & FS_PINF ? FS_NINF : 0) | (x & FS_NINF ? FS_PINF : 0);
}

/* IEEE 754 addition of one class and another: NaN in, NaN out; +inf + -inf NaN; an infinity
 * plus anything finite that infinity; a zero plus a zero a zero (its sign by the rounding);
 * a zero plus a finite x is x; two finite numbers anything but NaN (exact zero, overflow). */
static unsigned fs_add1(unsigned c, unsigned d)
{
    if (c == FS_NAN || d == FS_NAN)
        return FS_NAN;
    if ((c | d) == FS_INF)
        return FS_NAN;
    if (c & FS_INF)
        return c;
    if (d & FS_INF)
        return d;
    if ((c & FS_Z) && (d & FS_Z))
        return c == d ? c : FS_Z;
    if (c & FS_Z)
        return d;
    if (d & FS_Z)
        return c;
    return FS_ALL & ~FS_NAN;
}

/* IEEE 754 multiplication (division when div): NaN in, NaN out; 0 * inf, 0 / 0 and
 * inf / inf NaN; a zero times a zero or a finite number a zero; an infinity times a finite
 * number or an infinity an infinity; x / 0 (x not 0) an infinity, x / inf (x finite) a zero;
 * two finite numbers anything but NaN (underflow, overflow). */
static unsigned fs_mul1(unsigned c, unsigned d)
{
    if (c == FS_NAN || d == FS_NAN)
        return FS_NAN;
    if (((c & FS_Z) && (d & FS_INF)) || ((c & FS_INF) && (d & FS_Z)))
        return FS_NAN;
    if ((c | d) & FS_Z)
        return FS_Z;
    if ((c | d) & FS_INF)
        return FS_INF;
    return FS_ALL & ~FS_NAN;
}

static unsigned fs_div1(unsigned c, unsigned d)
{
    if (c == FS_NAN || d == FS_NAN)
        return FS_NAN;
    if (((c & FS_Z) && (d & FS_Z)) || ((c & FS_INF) && (d & FS_INF)))
        return FS_NAN;
    if ((c & FS_Z) || (d & FS_INF))
        return FS_Z; /* 0 / x, x / inf */
    if ((c & FS_INF) || (d & FS_Z))
        return FS_INF; /* inf / x, x / 0 */
    return FS_ALL & ~FS_NAN;
}

static unsigned fs_add(unsigned x, unsigned y)
{
    return fs_pairs(x, y, fs_add1);
}

static unsigned fs_mul(unsigned x, unsigned y)
{
    return fs_pairs(x, y, fs_mul1);
}

/* (REF18) Whether a float operand can be read as a `want`-bit float (32, 64): an immediate of
 * that width (0f: 32, 0d: 64), or a register whose classes and range, where known, a write of
 * that width set (an .f32 register named by an .f64 op, a form ptxas refuses: not read). */
static bool fw_ok(const body *b, const char *o, int want)
{
    if (o[0] == '0' && (o[1] == 'f' || o[1] == 'F'))
        return want == 32;
    if (o[0] == '0' && (o[1] == 'd' || o[1] == 'D'))
        return want == 64;
    int r = *o == '%' ? reg_find(b, o) : -1;
    return r < 0 || b->regs[r].defs != 1 || !b->regs[r].fw || b->regs[r].fw == want;
}

static int ir_type(const char *t, bool *sgn);
static ival ir_operand(const body *b, const char *o, int w, bool sgn);
static ival iv_as(const ival *iv, int iw, bool isg, int w, bool sgn);
static ival merge_value(const body *b, int r, const stmt *u, int w, bool sgn);
static int op_regs(const char *o, char *buf, size_t cap, const char **out, int nmax);
static int64_t ir_min(int w, bool sgn);
static int64_t ir_max(int w, bool sgn);

/* (REF18) `cvt.RND.F.I d, a` (RND: rn, rz, rm, rp; F: .f32 or .f64; I: an integer of 8 to
 * 64 bits): a's range (ir_operand; the type's own where none) as the float, rounded once --
 * exact where every value of it is (|v| <= 2^53 for .f64, 2^24 for .f32), else within
 * fr_out's margin of it (each rounding is monotone); the classes +0 (where 0 is in the range:
 * an integer 0 is +0.0) and finite. `.sat` (clamped to [0.0, 1.0]) is not read. */
static unsigned cvt_int_float(const body *b, const stmt *s, bool f64, double *flo, double *fhi)
{
    char t[4][8];
    bool sg = false;
    if (s->nops != 2 || s->ops_cut || op_types(s->op, t, 4) != 2 || !ir_type(t[1], &sg) ||
        op_has(s->op, "sat") ||
        !op_rounded(s->op))
        return 0;
    int w = ir_type(t[1], &sg);
    ival a = ir_operand(b, s->ops[1], w, sg);
    double lo = a.rk ? (double)a.lo : (double)ir_min(w, sg);
    double hi = a.rk ? (double)a.hi : w >= 64 && !sg ? 0x1p64 : (double)ir_max(w, sg);
    double lim = f64 ? 0x1p53 : 0x1p24;
    if (!(fabs(lo) <= lim && fabs(hi) <= lim)) /* rounded (the bounds' double too) */
        lo = fr_out(lo, false), hi = fr_out(hi, true);
    *flo = lo;
    *fhi = hi;
    return (lo <= 0 && hi >= 0 ? FS_PZ : 0) | (lo != 0 || hi != 0 ? FS_FIN : 0);
}

/* Whether ptxas may contract sub `op` of x and x into an fma with the mul that wrote x: a
 * sub or mul with no rounding modifier may be fused (the PTX ISA leaves contraction to the
 * assembler unless .rn/.rz/.rm/.rp is written), and fma(a, b, -(a * b)) is the product's
 * rounding error, not 0 (session 45 review: x - x of a product would read as always 0). */
static bool sub_may_fuse(const body *b, const char *op, const char *x)
{
    if (op_rounded(op))
        return false;
    /* x, and the registers it was copied from (`mov %f3, %f2`: ptxas removes the copy) */
    const char *names[8] = {x};
    size_t nn = 1;
    for (size_t j = 0; j < nn; j++)
        for (long i = 0; i < b->n; i++) {
            const stmt *t = &b->st[i];
            if (t->kind == I_LABEL || !t->nops || strcmp(t->ops[0], names[j]))
                continue;
            if (op_is(t->op, "mov") && t->nops == 2 && *t->ops[1] == '%') {
                if (nn == 8)
                    return true; /* a chain too long to follow: may be a product's */
                names[nn++] = t->ops[1];
                continue;
            }
            if (!op_is(t->op, "mul"))
                continue;
            if (!op_rounded(t->op))
                return true;
        }
    return false;
}

/* The classes an unguarded .f32 statement gives its destination, from its operands' classes
 * (0: not such a statement, every class). PTX ISA 9.1, "Floating Point Instructions" (add,
 * sub, mul, fma, mad, div, neg, abs): the IEEE 754 operations, any rounding modifier (.rn,
 * .rz, .rm, .rp: the classes do not depend on it, but the sign of an exact zero does: IEEE 754
 * gives x - x = +0 except under round toward -inf, -0); `.ftz` flushes a subnormal operand
 * (and result) to a zero of its sign, so a finite operand or result may be a zero; `.sat`
 * clamps the result to [0.0, 1.0] and makes a NaN +0.0. `div` only with a rounding modifier
 * (IEEE division; `.approx` and `.full` are not), `mad.f32` only with one (it is fma then).
 * `sub d, a, a` (one register twice) is x - x: +0 (-0 under .rm) for a finite x, NaN for an
 * infinite or NaN one. `mov` copies, `selp` is either operand. */
static unsigned float_set_def(const body *b, const stmt *s, double *flo, double *fhi)
{
    *flo = -INFINITY;
    *fhi = INFINITY;
    if (s->guard >= 0 || s->ops_cut || s->nops < 2)
        return 0;
    char t[4][8];
    int nt = op_types(s->op, t, 4);
    if (nt < 1 || (strcmp(t[0], "f32") && strcmp(t[0], "f64")))
        return 0; /* every form below writes an .f32 or an .f64 */
    /* `cvt{.irnd}{.ftz}{.sat}.f32.f32` (nvcc's __saturatef, truncf...): the value, rounded to
     * an integer with .rzi/.rni/.rmi/.rpi; a float rounding (.rn ...) is not read. (REF18)
     * The same of .f64 (`cvt.rzi.f64.f64`), and besides: `cvt{.ftz}.f64.f32` (exact),
     * `cvt.rn/rz/rm/rp{.ftz}{.sat}.f32.f64` (one float rounding), a cvt of an integer to .f64
     * or .f32 (cvt_int_float); `.f64` ops that are exact or one rounding of an exact sum (mov,
     * neg, abs, min, max, selp, add, sub): an .f64 result differs from the exact one by less
     * than fr_out's margin (2^-22 relative), and a double sum is 0 only when the exact one is.
     * A double product or quotient can underflow to 0 where the real one is not: not read.
     * (REF19) A double product is, with its corners widened (mul below): the host's corner
     * products are rounded to nearest, and one that underflows to 0 or overflows to an
     * infinity holds no margin; a quotient still is not read. (REF20) A quotient (`div` with a
     * rounding modifier, .f32 or .f64) and a double fma (`fma.f64`, `mad.rn.f64`) are read:
     * the quotient where the divisor's range holds no 0, the fma's corner products widened by
     * the host's rounding of them (a sum can cancel them, leaving it whole). */
    bool f64 = nt >= 1 && !strcmp(t[0], "f64");
    bool fcvt = op_is(s->op, "cvt") && nt == 2 && (!strcmp(t[0], "f32") || f64) &&
                !strcmp(t[1], t[0]);
    bool widen = op_is(s->op, "cvt") && nt == 2 && f64 && !strcmp(t[1], "f32");
    bool narrow = op_is(s->op, "cvt") && nt == 2 && !strcmp(t[0], "f32") &&
                  !strcmp(t[1], "f64");
    if (op_is(s->op, "cvt") && nt == 2 && (f64 || !strcmp(t[0], "f32")) && t[1][0] != 'f')
        return cvt_int_float(b, s, f64, flo, fhi); /* (REF18) an integer to a float */
    int irnd = !fcvt                   ? -1
               : op_has(s->op, "rzi") ? 0
               : op_has(s->op, "rni") ? 1
               : op_has(s->op, "rmi") ? 2
               : op_has(s->op, "rpi") ? 3
                                      : -1;
    if (fcvt && irnd < 0 && op_rounded(s->op))
        return 0;
    if (widen && (op_rounded(s->op) || op_has(s->op, "sat")))
        return 0; /* not a form ptxas takes: not read */
    if (narrow && !op_rounded(s->op))
        return 0;
    if (!fcvt && !widen && !narrow &&
        (nt != 1 || (strcmp(t[0], "f32") && !f64) || op_has(s->op, "f32x2")))
        return 0;
    if (f64 && !fcvt && !widen &&
        !(op_is(s->op, "mov") || op_is(s->op, "neg") || op_is(s->op, "abs") ||
          op_is(s->op, "min") || op_is(s->op, "max") || op_is(s->op, "selp") ||
          op_is(s->op, "add") || op_is(s->op, "sub") || op_is(s->op, "mul") ||
          op_is(s->op, "fma") || op_is(s->op, "mad") || op_is(s->op, "div")))
        return 0;
    const char *op = s->op;
    bool ftz = op_has(op, "ftz"), sat = op_has(op, "sat"), rm = op_has(op, "rm");
    bool rnd = op_rounded(op);
    unsigned a[3];
    double lo[3], hi[3];
    int n = s->nops - 1;
    if (n > 3)
        return 0;
    int want = widen ? 32 : narrow || f64 ? 64 : 32; /* the operands' float width */
    for (int i = 0; i < n; i++) {
        if (!fw_ok(b, s->ops[i + 1], want))
            return 0;
        a[i] = fs_operand(b, s->ops[i + 1]);
        fr_operand(b, s->ops[i + 1], &lo[i], &hi[i]);
        if (ftz && (a[i] & FS_FIN))
            a[i] |= FS_Z; /* a subnormal operand flushed to a zero of its sign */
        if (ftz) {
            lo[i] = fmin(lo[i], 0.0);
            hi[i] = fmax(hi[i], 0.0);
        }
    }
    unsigned r;
    double rl = -INFINITY, rh = INFINITY; /* the exact result's range, before rounding */
    bool exact = false;                    /* [rl, rh] needs no rounding (a copy, a sign) */
    if (widen && n == 1) { /* every float is a double */
        r = a[0];
        rl = lo[0], rh = hi[0], exact = true;
    } else if (narrow && n == 1) { /* one rounding: a double past the float range overflows (or
                                    * stops at FLT_MAX), a tiny one underflows to a zero */
        r = a[0] & FS_FIN ? a[0] | FS_Z | FS_INF : a[0];
        rl = lo[0], rh = hi[0];
    } else if (fcvt && n == 1) {
        r = irnd >= 0 && (a[0] & FS_FIN) ? a[0] | FS_Z : a[0]; /* a fraction rounds to 0 */
        rl = irnd < 0 ? lo[0] : fround(lo[0], irnd);
        rh = irnd < 0 ? hi[0] : fround(hi[0], irnd);
        exact = true;
    } else if (op_is(op, "mov") && n == 1) {
        r = a[0];
        rl = lo[0], rh = hi[0], exact = true;
    } else if (op_is(op, "neg") && n == 1) {
        r = fs_neg(a[0]);
        rl = -hi[0], rh = -lo[0], exact = true;
    } else if (op_is(op, "abs") && n == 1) {
        r = (a[0] & (FS_NAN | FS_FIN)) | (a[0] & FS_Z ? FS_PZ : 0) | (a[0] & FS_INF ? FS_PINF : 0);
        rl = lo[0] >= 0 ? lo[0] : hi[0] <= 0 ? -hi[0] : 0;
        rh = fmax(fabs(lo[0]), fabs(hi[0]));
        exact = true;
    } else if ((op_is(op, "min") || op_is(op, "max")) && n == 2 && !op_has(op, "xorsign") &&
               !op_has(op, "abs")) {
        /* the smaller (larger) operand; a NaN operand: the other one, or a NaN (with .NaN,
         * and by either reading of a NaN among the operands: both are covered) */
        r = a[0] | a[1];
        bool mn = op_is(op, "min");
        rl = mn ? fmin(lo[0], lo[1]) : fmax(lo[0], lo[1]);
        rh = mn ? fmin(hi[0], hi[1]) : fmax(hi[0], hi[1]);
        for (int i = 0; i < 2; i++)
            if (a[i] & FS_NAN) { /* the other operand as it is */
                rl = fmin(rl, lo[1 - i]);
                rh = fmax(rh, hi[1 - i]);
            }
        exact = true;
    } else if (op_is(op, "add") && n == 2) {
        r = fs_add(a[0], a[1]);
        rl = lo[0] + lo[1], rh = hi[0] + hi[1];
    } else if (op_is(op, "sub") && n == 2 && !strcmp(s->ops[1], s->ops[2]) && *s->ops[1] == '%' &&
               !sub_may_fuse(b, op, s->ops[1])) {
        r = (a[0] & (FS_Z | FS_FIN) ? (rm ? FS_NZ : FS_PZ) : 0) |
            (a[0] & (FS_INF | FS_NAN) ? FS_NAN : 0); /* x - x */
        rl = rh = 0, exact = true;
    } else if (op_is(op, "sub") && n == 2) {
        r = fs_add(a[0], fs_neg(a[1]));
        rl = lo[0] - hi[1], rh = hi[0] - lo[1];
    } else if (op_is(op, "mul") && n == 2) {
        r = fs_mul(a[0], a[1]);
        if (!fr_mul(lo[0], hi[0], lo[1], hi[1], &rl, &rh))
            rl = -INFINITY, rh = INFINITY;
        else if (f64) {
            /* (REF19) a double's corners are the host's products rounded to nearest: within
             * fr_out's margin of the exact ones, but for a corner that underflowed to 0 (the
             * device's .rp / .rm may give the least subnormal) or overflowed to an infinity (its
             * .rz gives DBL_MAX): those bounds widened past what either can be */
            if (rl == 0)
                rl = -0x1p-1074;
            if (rh == 0)
                rh = 0x1p-1074;
            if (rl == INFINITY)
                rl = DBL_MAX;
            if (rh == -INFINITY)
                rh = -DBL_MAX;
        }
    } else if ((op_is(op, "fma") || (op_is(op, "mad") && rnd)) && n == 3) {
        r = fs_add(fs_mul(a[0], a[1]), a[2]);
        if (!fr_mul(lo[0], hi[0], lo[1], hi[1], &rl, &rh))
            rl = -INFINITY, rh = INFINITY;
        else if (!f64)
            rl += lo[2], rh += hi[2]; /* one rounding, of the exact a * b + c */
        else if (isfinite(lo[0]) && isfinite(hi[0]) && isfinite(lo[1]) && isfinite(hi[1]) &&
                 isfinite(lo[2]) && isfinite(hi[2]) && isfinite(rl) && isfinite(rh)) {
            /* (REF20) a double fma: the host's corner products are rounded (to nearest, 2^-53
             * of each, or 2^-1075 below the normals), and a sum that cancels them leaves that
             * error whole: each product bound moved out by 2^-51 of itself (its error and the
             * move's own rounding, twice over) and the least subnormal first, then the sums
             * (each one rounding, fr_out's margin below) */
            rl = (rl - (fabs(rl) * 0x1p-51 + 0x1p-1074)) + lo[2];
            rh = (rh + (fabs(rh) * 0x1p-51 + 0x1p-1074)) + hi[2];
            if (!isfinite(rl) || !isfinite(rh))
                rl = -INFINITY, rh = INFINITY;
        } else
            rl = -INFINITY, rh = INFINITY; /* an operand's bound or a product past the doubles */
    } else if (op_is(op, "div") && rnd && n == 2) {
        r = fs_pairs(a[0], a[1], fs_div1);
        /* (REF20) the quotient of two ranges where the divisor's holds no 0: monotone in each
         * operand, so between its corner quotients (computed on the host, rounded to nearest:
         * fr_out's margin covers them, as it covers the device's one rounding); a corner that
         * underflowed to 0 or overflowed widened as a double product's; a NaN corner (an
         * infinity over an infinity) leaves nothing known */
        if (lo[1] > 0 || hi[1] < 0) {
            double c[4] = {lo[0] / lo[1], lo[0] / hi[1], hi[0] / lo[1], hi[0] / hi[1]};
            rl = INFINITY, rh = -INFINITY;
            for (int i = 0; i < 4; i++) {
                rl = fmin(rl, c[i]);
                rh = fmax(rh, c[i]);
                if (isnan(c[i]))
                    rl = -INFINITY, rh = INFINITY, i = 4;
            }
            if (rl == 0)
                rl = -0x1p-1074;
            if (rh == 0)
                rh = 0x1p-1074;
            if (rl == INFINITY)
                rl = DBL_MAX;
            if (rh == -INFINITY)
                rh = -DBL_MAX;
        }
    } else if (op_is(op, "selp") && n == 3) {
        r = a[0] | a[1];
        rl = fmin(lo[0], lo[1]), rh = fmax(hi[0], hi[1]), exact = true;
    } else
        return 0;
    if (isnan(rl) || isnan(rh)) /* inf - inf at a bound */
        rl = -INFINITY, rh = INFINITY;
    if (!exact) /* rounded to a float in any mode: monotone, so within the bounds' roundings */
        rl = fr_out(rl, false), rh = fr_out(rh, true);
    if (ftz && (r & FS_FIN))
        r |= FS_Z; /* a subnormal result flushed */
    if (ftz) /* to 0 */
        rl = fmin(rl, 0.0), rh = fmax(rh, 0.0);
    if (sat) { /* clamped to [0.0, 1.0], NaN made +0.0 */
        rl = fmin(fmax(rl, 0.0), 1.0);
        rh = fmin(fmax(rh, 0.0), 1.0);
        if (r & FS_NAN)
            rl = 0;
        r = (r & FS_NAN ? FS_PZ : 0) | (r & FS_PINF ? FS_FIN : 0) | (r & FS_NINF ? FS_PZ : 0) |
            (r & FS_FIN ? FS_FIN | FS_PZ : 0) | (r & FS_Z) | (r & FS_NZ ? FS_PZ : 0);
    }
    if (rl > rh) /* no value but a NaN */
        rl = rh = 0;
    *flo = rl;
    *fhi = rh;
    return r & FS_ALL;
}

/* `cvt.RI.D.f32 d, a` (RI: rzi, rni, rmi, rpi; D: an integer of 8 to 64 bits) of an a
 * whose range is [lo, hi]: an integer in [RI(lo), RI(hi)] (each rounding is monotone), and 0
 * where a can be a NaN or, with `.ftz`, a subnormal flushed to a zero: PTX ISA, "cvt" (Data
 * Movement and Conversion Instructions): in a float-to-integer conversion a NaN input gives 0
 * where the source is not .f64 and the destination not .s64 / .u64, else 1 << (width - 1):
 * .f64 sources are left out; (REF17) a .s64 / .u64 destination is judged for a range inside
 * (-2^62, 2^62), *nan64 set where a can be a NaN (the result then that range or 1 << 63: the
 * caller keeps the bits they share with 0 as well). An integer range that leaves D's range is
 * not judged (no reliance on the clamping). True, with [*rlo, *rhi], that integer range: a
 * (+0, -0 or NaN only) gives [0, 0], `(int)fminf(fabsf(x), 0.5f)` [0, 0] for every x,
 * `(int)fminf(fabsf(x), 1.0f)` [0, 1]. */
static bool cvt_float_range(const body *b, const stmt *s, int64_t *rlo, int64_t *rhi,
                            bool *nan64)
{
    *nan64 = false;
    if (s->nops != 2 || s->ops_cut)
        return false;
    int rnd = op_has(s->op, "rzi") ? 0 : op_has(s->op, "rni") ? 1 : op_has(s->op, "rmi") ? 2
              : op_has(s->op, "rpi")                            ? 3
                                                                : -1;
    if (rnd < 0)
        return false;
    char t[4][8];
    if (op_types(s->op, t, 4) != 2 || (strcmp(t[1], "f32") && strcmp(t[1], "f64")))
        return false;
    bool src64 = !strcmp(t[1], "f64");
    if (!fw_ok(b, s->ops[1], src64 ? 64 : 32))
        return false;
    /* (REF17) also .s64 / .u64, for a range inside (-2^62, 2^62): int64 holds every bound */
    static const char *const ints[] = {"s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"};
    static const double imin[] = {-128, 0, -32768, 0, -2147483648.0, 0, -0x1p62, 0};
    static const double imax[] = {127, 255, 32767, 65535, 2147483647.0, 4294967295.0, 0x1p62,
                                  0x1p62};
    int di = -1;
    for (int i = 0; i < (int)(sizeof ints / sizeof *ints); i++)
        if (!strcmp(t[0], ints[i]))
            di = i;
    if (di < 0)
        return false;
    unsigned cls = fs_operand(b, s->ops[1]);
    /* (REF17) a NaN to .s64 / .u64: 1 << 63, not 0; (REF18) from an .f64 source, 1 << (width
     * - 1) at every width */
    *nan64 = (di >= 6 || src64) && (cls & FS_NAN);
    double lo, hi;
    fr_operand(b, s->ops[1], &lo, &hi);
    bool zero = (di < 6 && !src64 && (cls & FS_NAN)) || op_has(s->op, "ftz");
    if (!(cls & ~(FS_Z | FS_NAN))) /* zeros and NaNs only: 0 */
        lo = hi = 0;
    if (isinf(lo) || isinf(hi))
        return false;
    double r[2] = {fround(lo, rnd), fround(hi, rnd)};
    if (zero)
        r[0] = fmin(r[0], 0.0), r[1] = fmax(r[1], 0.0);
    if (r[0] < imin[di] || r[1] > imax[di])
        return false;
    *rlo = (int64_t)r[0];
    *rhi = (int64_t)r[1];
    return true;
}

/* ---- the values an integer register can hold (ranges, REF15; known bits, REF16) ---- */

/* An integer type component (s8 .. u64, b8 .. b64): its bits, *sgn for .s (.u and .b read
 * unsigned); 0: another (a float, a predicate, a packed s16x2). */
static int ir_type(const char *t, bool *sgn)
{
    if (t[0] != 's' && t[0] != 'u' && t[0] != 'b')
        return 0;
    char *e;
    long n = strtol(t + 1, &e, 10);
    if (*e || (n != 8 && n != 16 && n != 32 && n != 64)) /* s16x2, u8x4 (packed): not one */
        return 0;
    *sgn = t[0] == 's';
    return (int)n;
}

/* The least and the greatest value of the type that int64 holds (u64: up to 2^63 - 1). */
static int64_t ir_min(int w, bool sgn)
{
    return w >= 64 ? (sgn ? INT64_MIN : 0) : sgn ? -((int64_t)1 << (w - 1)) : 0;
}

static int64_t ir_max(int w, bool sgn)
{
    return w >= 64 ? INT64_MAX : sgn ? ((int64_t)1 << (w - 1)) - 1 : ((int64_t)1 << w) - 1;
}

static uint64_t iv_mask(int w)
{
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* The w-bit pattern u read as the type: sign-extended when sg (a u64 past 2^63 - 1 wraps to a
 * negative int64: the caller reads it so only as a pattern). */
static int64_t iv_read(uint64_t u, int w, bool sg)
{
    u &= iv_mask(w);
    if (sg && w < 64 && ((u >> (w - 1)) & 1))
        u |= ~iv_mask(w);
    return (int64_t)u;
}

/* Nothing known: every value of the type (a u64: no range). */
static ival iv_full(int w, bool sg)
{
    ival v = {w < 64 || sg, ir_min(w, sg), ir_max(w, sg), 0, 0};
    return v;
}

/* The range and the bits made to agree (each tells the other what it knows), for the type w /
 * sg: the bits every value of the range shares (above the highest bit where its bounds'
 * patterns differ, where the range is one run of patterns: both bounds of one sign), and the
 * least and greatest pattern the bits allow; a value whose bits are all known is that point.
 * A contradiction (no value) cannot come from a sound step: it gives nothing known. */
static void iv_norm(ival *v, int w, bool sg)
{
    uint64_t m = iv_mask(w);
    v->kz &= m;
    v->ko &= m;
    if (v->rk && !(v->lo < 0 && v->hi >= 0)) {
        uint64_t ul = (uint64_t)v->lo & m, d = ul ^ ((uint64_t)v->hi & m), same = m;
        if (d) {
            int top = 63 - __builtin_clzll(d);
            same = top >= 63 ? 0 : m & ~(((uint64_t)2 << top) - 1);
        }
        v->kz |= ~ul & same;
        v->ko |= ul & same;
    }
    if (v->kz & v->ko) {
        *v = iv_full(w, sg);
        return;
    }
    uint64_t plo = v->ko, phi = ~v->kz & m; /* the least and greatest pattern, unsigned */
    int64_t blo, bhi;
    if (sg) {
        uint64_t sb = (uint64_t)1 << (w - 1);
        if (!(v->kz & sb))
            plo |= sb; /* it can be negative: the least has the sign */
        if (!(v->ko & sb))
            phi &= ~sb;
        blo = iv_read(plo, w, true);
        bhi = iv_read(phi, w, true);
    } else if (w >= 64 && (phi >> 63)) {
        return; /* a u64 that can pass int64: the bits give no range (rk stays as it is) */
    } else {
        blo = (int64_t)plo;
        bhi = (int64_t)phi;
    }
    if (!v->rk) {
        v->rk = true;
        v->lo = blo;
        v->hi = bhi;
    } else {
        v->lo = v->lo > blo ? v->lo : blo;
        v->hi = v->hi < bhi ? v->hi : bhi;
    }
    if (v->lo > v->hi) {
        *v = iv_full(w, sg);
        return;
    }
    if (v->lo == v->hi) {
        v->ko = (uint64_t)v->lo & m;
        v->kz = ~(uint64_t)v->lo & m;
    }
}

/* Whether every bit is known: the value is one constant, *c (read as the type). */
static bool iv_point(const ival *v, int w, bool sg, int64_t *c)
{
    if (((v->kz | v->ko) & iv_mask(w)) != iv_mask(w))
        return false;
    *c = iv_read(v->ko, w, sg);
    return true;
}

/* (REF19) The value a register written twice or more (r) holds where statement u reads it: the
 * writes that reach u -- read backward from u over every way in (the statement before a label
 * unless an unguarded bra or ret, every bra to it), each statement once, to the nearest write
 * of r on each way -- each judged in this evaluation (mok), united (the union of their ranges,
 * the bits they all know, as w / sgn). Sound as the text order is: every write of r must be
 * judged already (mseen: all of them before u in the text -- a later one, not judged yet, is
 * any value), none reads r itself, has another destination or is guarded (mbad), and a way
 * from the body's start with no write (r never written: any value) or through a brx, a label
 * defined twice, a write not judged: every value of the type. */
static ival merge_value(const body *b, int r, const stmt *u, int w, bool sgn)
{
    ival out = iv_full(w, sgn);
    const reg *g = &b->regs[r];
    long n = b->n, at = u - b->st;
    /* (REF20) a hypothesis (eval_all): every write's value lies in it, so a read that every way
     * in reaches through a write reads it (the walk below, no write's value asked) */
    const struct swsnap *h = b->mhyp && !b->mhyp[r].bot && b->mhyp[r].irng ? &b->mhyp[r] : NULL;
    if ((!h && (g->mbad || g->mseen != g->defs)) || at <= 0 || at > n)
        return out;
    long i = at - 1;
    for (; i >= 0 && b->st[i].kind != I_LABEL && b->st[i].mreg != r; i--)
        if (b->st[i].kind == I_BRX)
            return out;
    if (i < 0)
        return out; /* the body's start: r never written on this way */
    if (b->st[i].mreg == r && h) /* in u's block: a write whose value lies in the hypothesis */
        return iv_as(&h->iv, h->iw, h->isg, w, sgn);
    if (b->st[i].mreg == r) /* in u's block: the one write that reaches it */
        return b->st[i].mok ? iv_as(&b->st[i].mv, b->st[i].mw, b->st[i].msg, w, sgn) : out;
    char *seen = hk_calloc((size_t)n + 1, 1);
    long *todo = hk_malloc(((size_t)n + 1) * sizeof *todo);
    bool ok = seen && todo, any = false;
    ival acc = out;
    long nt = 0, steps = 1L << 16;
    if (ok)
        todo[nt++] = i;
    while (ok && nt > 0) {
        for (long k = todo[--nt]; ok; k--) {
            if (k < 0 || --steps < 0) {
                ok = false; /* the body's start: a way on which r is never written */
                break;
            }
            if (seen[k])
                break;
            seen[k] = 1;
            const stmt *t = &b->st[k];
            if (t->kind == I_BRX) {
                ok = false;
                break;
            }
            if (t->kind == I_LABEL) {
                if ((steps -= n) < 0 || k == 0) {
                    ok = false;
                    break;
                }
                const stmt *p = &b->st[k - 1];
                bool falls = !((p->kind == I_BRA || p->kind == I_RET) && p->guard < 0);
                if (falls && nt > n)
                    ok = false;
                else if (falls)
                    todo[nt++] = k - 1;
                int dup = 0;
                for (long j = 0; ok && j < n; j++) {
                    const stmt *x = &b->st[j];
                    if (x->kind == I_BRX)
                        ok = false;
                    else if (x->kind == I_LABEL && x->label == t->label)
                        dup++;
                    else if (x->kind == I_BRA && x->nops >= 1 && t->label >= 0 &&
                             t->label < b->nlabels && !strcmp(x->ops[0], b->labels[t->label]) &&
                             !seen[j]) {
                        if (nt > n)
                            ok = false;
                        else
                            todo[nt++] = j;
                    }
                }
                if (dup != 1)
                    ok = false; /* a label defined twice: which one a branch means? */
                break;
            }
            if (t->mreg != r)
                continue;
            if (h) { /* (REF20) a write on this way: its value in the hypothesis */
                any = true;
                break;
            }
            if (!t->mok) { /* a write not judged: any value */
                ok = false;
                break;
            }
            ival x = iv_as(&t->mv, t->mw, t->msg, w, sgn);
            if (!any) {
                acc = x;
                any = true;
            } else {
                acc.rk = acc.rk && x.rk;
                if (x.lo < acc.lo)
                    acc.lo = x.lo;
                if (x.hi > acc.hi)
                    acc.hi = x.hi;
                acc.kz &= x.kz;
                acc.ko &= x.ko;
            }
            break;
        }
    }
    hk_free(seen);
    hk_free(todo);
    if (!ok || !any)
        return out;
    if (h)
        return iv_as(&h->iv, h->iw, h->isg, w, sgn);
    iv_norm(&acc, w, sgn);
    return acc;
}

/* What is known of an integer operand read as a w-bit integer (signed when sgn): an immediate
 * exactly; a register written once with a value judged (irng): as written, or, read under
 * another type or width, its low bits (those above its own width unknown) and its range where
 * that lies in [0, 2^(w'-1)) of the narrower width w' (the same value under either reading).
 * Otherwise every value of the type. */
static ival ir_operand(const body *b, const char *o, int w, bool sgn)
{
    ival v = iv_full(w, sgn);
    if (*o == '-' || isdigit((unsigned char)*o)) {
        char *e;
        errno = 0;
        uint64_t u = *o == '-' ? (uint64_t)strtoll(o, &e, 0) : (uint64_t)strtoull(o, &e, 0);
        if (*e == 'U' || *e == 'u')
            e++;
        if (errno || e == o || *e)
            return v;
        v.kz = ~u;
        v.ko = u;
        v.rk = false;
        iv_norm(&v, w, sgn);
        return v;
    }
    int r = *o == '%' ? reg_find(b, o) : -1;
    if (r >= 0 && b->regs[r].defs > 1 && b->at) {
        for (int i = 0; i < b->at->nops; i++)
            if (o == b->at->ops[i]) /* this very operand of the statement judged (not another
                                     * statement's, read from there: a store's value, a carry's
                                     * producer) */
                return merge_value(b, r, b->at, w, sgn);
        return v;
    }
    if (r < 0 || b->regs[r].defs != 1 || !b->regs[r].irng)
        return v;
    const reg *g = &b->regs[r];
    return iv_as(&g->iv, g->iw, g->isg, w, sgn);
}

/* A value judged as the type iw / isg, read as w / sgn: the same, or the bits both widths hold
 * (and the range, where it lies in both). */
static ival iv_as(const ival *iv, int iw, bool isg, int w, bool sgn)
{
    if (iw == w && isg == sgn)
        return *iv;
    ival v = iv_full(w, sgn);
    int nw = iw < w ? iw : w;
    v.kz = iv->kz & iv_mask(nw);
    v.ko = iv->ko & iv_mask(nw);
    if (iv->rk && iv->lo >= 0 && iv->hi <= ir_max(nw, true)) {
        v.rk = true;
        v.lo = iv->lo;
        v.hi = iv->hi;
    }
    iv_norm(&v, w, sgn);
    return v;
}

/* x >> k rounded toward -inf (shr.s), whatever C's >> does with a negative x. */
static int64_t ir_sar(int64_t x, int k)
{
    return x >= 0 ? x >> k : -1 - ((-(x + 1)) >> k);
}

/* The known bits of a + c + cin (mod 2^w, mask m): bit i is known where both operands' bits
 * are and the carry into it is -- the carry into bit i is monotone in the operands' lower
 * bits, so it is known where it is the same with every unknown bit 0 (the least operands) and
 * with every unknown bit 1 (the greatest); it is that sum's bit i xor the operands'. */
static void iv_add_bits(const ival *a, uint64_t ckz, uint64_t cko, int cin, uint64_t m,
                        uint64_t *kz, uint64_t *ko)
{
    uint64_t amin = a->ko & m, amax = ~a->kz & m, cmin = cko & m, cmax = ~ckz & m;
    uint64_t smin = amin + cmin + (uint64_t)cin, smax = amax + cmax + (uint64_t)cin;
    uint64_t carry_min = smin ^ amin ^ cmin, carry_max = smax ^ amax ^ cmax;
    uint64_t known = (a->kz | a->ko) & (ckz | cko) & ~(carry_min ^ carry_max) & m;
    *ko = smin & known;
    *kz = ~smin & known;
}

/* The number of low bits known 0. */
static int iv_low_zeros(const ival *v, int w)
{
    uint64_t z = ~v->kz & iv_mask(w);
    return z ? __builtin_ctzll(z) : w;
}

/* (REF17) A load `ld.const.T %r, [%a]` or `[%a+K]` of a w-bit integer where %a is a .const
 * variable's address plus an offset whose range (and bits) the rule knows (reg.tname): every
 * offset that range and those bits allow lies inside the variable, and each one's bytes are
 * its initializer's (ptxdata_load: a .const nothing in the module can write); *lo / *hi the
 * least and greatest value read there, as the type. false: not such a load (an offset not
 * known to lie inside, more than 65536 offsets, a byte not known). */
static bool const_table_range(const body *b, const stmt *s, int w, bool sg, int64_t *lo,
                              int64_t *hi)
{
    bool konst = op_has(s->op, "const"); /* (REF18) or a .global ptxdata proved read-only */
    if (!b->data || s->ops_cut || op_has(s->op, "v2") || op_has(s->op, "v4") ||
        op_has(s->op, "v8") || (!konst && !op_has(s->op, "global")))
        return false;
    char buf[128];
    cut_copy(buf, sizeof buf, s->ops[1]);
    size_t l = strlen(buf);
    if (l < 3 || buf[0] != '[' || buf[l - 1] != ']')
        return false;
    buf[l - 1] = '\0';
    char *x = trim(buf + 1);
    int64_t k = 0;
    char *plus = strchr(x, '+');
    if (plus) {
        *plus = '\0';
        if (!parse_int(trim(plus + 1), &k) || k < 0 || k > ((int64_t)1 << 20))
            return false;
    }
    int r = reg_find(b, trim(x));
    if (r < 0 || b->regs[r].defs != 1 || !b->regs[r].tname || !b->regs[r].toff.rk)
        return false;
    const reg *g = &b->regs[r];
    int bytes = w / 8;
    bool any = false;
    /* (REF20) each table the register can hold the address of (tname, and tname2 where it is
     * a selp's), every value of each united */
    for (int a = 0; a < 2; a++) {
        const char *tn = a ? g->tname2 : g->tname;
        const ival *to = a ? &g->toff2 : &g->toff;
        size_t size;
        if (!tn)
            break;
        if (!to->rk || !ptxdata_size(b->data, tn, &size) || to->lo < 0 ||
            to->hi > (int64_t)size || to->hi - to->lo >= 65536 ||
            to->hi + k + bytes > (int64_t)size)
            return false;
        for (int64_t o = to->lo; o <= to->hi; o++) {
            if (((uint64_t)o & to->kz) || ((uint64_t)o & to->ko) != to->ko)
                continue; /* not an offset the bits allow */
            int64_t v;
            if (!ptxdata_load(b->data, tn, o + k, konst, bytes, sg, &v))
                return false;
            if (!any || v < *lo)
                *lo = v;
            if (!any || v > *hi)
                *hi = v;
            any = true;
        }
    }
    return any;
}

/* (REF17) Whether statement s (written once, surely) makes the address of a .const variable
 * plus an offset: `mov.u64 %a, NAME` (offset 0) or `add.s64 / .u64 %a, %t, X` (either order)
 * of such an address and an integer of a known range; *name and *off as reg.tname, toff. */
static bool const_table_addr(const body *b, const stmt *s, const char **name, ival *off,
                             const char **name2, ival *off2)
{
    const char *op = s->op;
    *name2 = NULL;
    if (s->ops_cut || s->guard >= 0 || !b->data)
        return false;
    /* (REF20) `selp.b64 / .u64 %a, %x, %y, %p` of two such addresses (each of one table):
     * either of them, whatever %p */
    if ((!strcmp(op, "selp.b64") || !strcmp(op, "selp.u64")) && s->nops == 4) {
        const reg *x[2];
        for (int i = 0; i < 2; i++) {
            int r = *s->ops[i + 1] == '%' ? reg_find(b, s->ops[i + 1]) : -1;
            if (r < 0 || b->regs[r].defs != 1 || !b->regs[r].tname || b->regs[r].tname2 ||
                !b->regs[r].toff.rk)
                return false;
            x[i] = &b->regs[r];
        }
        *name = x[0]->tname, *off = x[0]->toff;
        *name2 = x[1]->tname, *off2 = x[1]->toff;
        return true;
    }
    if ((!strcmp(op, "mov.u64") || !strcmp(op, "mov.b64")) && s->nops == 2 &&
        is_ident_start(*s->ops[1]) && *s->ops[1] != '%') {
        size_t size;
        const char *nm = s->ops[1];
        for (const char *p = nm; *p; p++)
            if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
                return false; /* NAME+K, a vector: not read */
        if (!ptxdata_size(b->data, nm, &size))
            return false;
        *name = nm;
        *off = (ival){true, 0, 0, ~(uint64_t)0, 0};
        return true;
    }
    if ((!strcmp(op, "add.s64") || !strcmp(op, "add.u64")) && s->nops == 3) {
        for (int i = 1; i <= 2; i++) {
            int r = *s->ops[i] == '%' ? reg_find(b, s->ops[i]) : -1;
            if (r < 0 || b->regs[r].defs != 1 || !b->regs[r].tname || !b->regs[r].toff.rk)
                continue;
            ival c = ir_operand(b, s->ops[3 - i], 64, true);
            for (int a = 0; a < 2; a++) { /* (REF20) each table it can hold */
                const char *tn = a ? b->regs[r].tname2 : b->regs[r].tname;
                const ival *t = a ? &b->regs[r].toff2 : &b->regs[r].toff;
                ival o = {true, 0, 0, 0, 0};
                if (!tn)
                    break;
                if (!c.rk || !t->rk || __builtin_add_overflow(t->lo, c.lo, &o.lo) ||
                    __builtin_add_overflow(t->hi, c.hi, &o.hi))
                    return *name2 = NULL, false;
                iv_add_bits(t, c.kz, c.ko, 0, ~(uint64_t)0, &o.kz, &o.ko);
                iv_norm(&o, 64, true);
                if (a)
                    *name2 = tn, *off2 = o;
                else
                    *name = tn, *off = o;
            }
            return true;
        }
    }
    return false;
}

static bool guard_holds(const body *b, const stmt *s);

/* (REF18) The register names (%...) an operand mentions, into out (at most cap; each NUL-cut
 * into buf, cap bytes). The count, -1: more than cap or buf too small. */
static int op_regs(const char *o, char *buf, size_t cap, const char **out, int nmax)
{
    int n = 0;
    size_t used = 0;
    for (const char *p = o; *p;) {
        if (*p != '%') {
            p++;
            continue;
        }
        size_t l = 1;
        while (isalnum((unsigned char)p[l]) || p[l] == '_' || p[l] == '$' || p[l] == '.')
            l++;
        if (n == nmax || used + l + 1 > cap)
            return -1;
        memcpy(buf + used, p, l);
        buf[used + l] = '\0';
        out[n++] = buf + used;
        used += l + 1;
        p += l;
    }
    return n;
}

/* (REF18) An address operand `[%t]` or `[%t+K]` (K an integer): the register (a name into
 * buf) and K; false: another form. */
static bool addr_reg(const char *o, char *buf, size_t cap, int64_t *k)
{
    cut_copy(buf, cap, o);
    size_t l = strlen(buf);
    if (l < 3 || buf[0] != '[' || buf[l - 1] != ']')
        return false;
    buf[l - 1] = '\0';
    char *x = trim(buf + 1), *plus = strchr(x, '+');
    *k = 0;
    if (plus) {
        *plus = '\0';
        if (!parse_int(trim(plus + 1), k) || *k < -((int64_t)1 << 30) || *k > ((int64_t)1 << 30))
            return false;
    }
    x = trim(x);
    memmove(buf, x, strlen(x) + 1);
    return *buf == '%';
}

/* (REF18) Which registers hold the address of a `.local` variable (nvcc's __local_depot) plus
 * a known offset, and whether local_forward may read loads through them: `mov.u64/.b64 %a,
 * NAME` (NAME not a register: its offset 0), `add.u64/.s64 %b, %a, K` (either order, K an
 * integer) and `mov` of such a register, each written once and unguarded (a mov of the depot
 * into any other register: nothing local is read) (NAME: nvcc's depot,
 * `__local_depot<N>`; a local variable of another name is not followed, so a st.local to it
 * is a store at an address not known); every other mention of such a
 * register must be the address of an `ld.local` / `st.local` (`[%a]`, `[%a+K]`), and the body
 * may have no `cvta` to or from the local window (a generic pointer into it, which a generic
 * store or a call could write through). Then local memory only this body's `st.local`s at
 * known addresses and those at unknown ones can write, and b->lok is set; otherwise nothing
 * local is read. Were the name not a .local, no matter: only `.local` accesses are read,
 * and the local window is the thread's own. */
static void local_proof(body *b)
{
    if (b->ldone)
        return;
    b->ldone = true;
    b->lok = false;
    for (long r = 0; r < b->nregs; r++)
        b->regs[r].lbase = NULL;
    bool any = false;
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL || s->ops_cut)
            continue;
        if (op_is(s->op, "cvta") && op_has(s->op, "local"))
            return;
        if ((!strcmp(s->op, "mov.u64") || !strcmp(s->op, "mov.b64")) && s->nops == 2 &&
            !strncmp(s->ops[1], "__local_depot", 13) && *s->ops[0] == '%') {
            /* the depot itself only: `__local_depot0+8` named a second "variable" whose
             * stores the forwarding skipped (session 45 review) */
            if (s->ops[1][strspn(s->ops[1], "_abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$")])
                return;
            int r = reg_find(b, s->ops[0]);
            if (r < 0 || b->regs[r].defs != 1 || s->guard >= 0)
                return; /* an address the rule does not follow, whose uses it does not see */
            b->regs[r].lbase = s->ops[1];
            b->regs[r].loff = 0;
            any = true;
        }
    }
    if (!any)
        return;
    for (bool grew = true; grew;) { /* the adds and moves, to a fixed point */
        grew = false;
        for (long i = 0; i < b->n; i++) {
            const stmt *s = &b->st[i];
            bool add = (!strcmp(s->op, "add.u64") || !strcmp(s->op, "add.s64")) && s->nops == 3;
            bool mov = (!strcmp(s->op, "mov.u64") || !strcmp(s->op, "mov.b64")) && s->nops == 2;
            if (s->kind == I_LABEL || s->ops_cut || s->guard >= 0 || (!add && !mov) ||
                *s->ops[0] != '%')
                continue;
            int d = reg_find(b, s->ops[0]);
            if (d < 0 || b->regs[d].defs != 1 || b->regs[d].lbase)
                continue;
            for (int j = 1; j < s->nops; j++) {
                int a = *s->ops[j] == '%' ? reg_find(b, s->ops[j]) : -1;
                int64_t k = 0;
                if (a < 0 || !b->regs[a].lbase ||
                    (add && !parse_int(s->ops[3 - j], &k)) ||
                    __builtin_add_overflow(b->regs[a].loff, k, &k) || k < -((int64_t)1 << 40) ||
                    k > ((int64_t)1 << 40))
                    continue;
                b->regs[d].lbase = b->regs[a].lbase;
                b->regs[d].loff = k;
                grew = true;
                break;
            }
        }
    }
    /* every mention of such a register */
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL)
            continue;
        bool lds = (op_is(s->op, "ld") || op_is(s->op, "st")) && op_has(s->op, "local");
        int at = op_is(s->op, "st") ? 0 : 1; /* the address operand */
        for (int j = 0; j < s->nops; j++) {
            char buf[PR_LINE], ab[128];
            const char *rs[16];
            int nr = op_regs(s->ops[j], buf, sizeof buf, rs, 16);
            if (nr < 0)
                return;
            for (int q = 0; q < nr; q++) {
                int r = reg_find(b, rs[q]);
                if (r < 0 || !b->regs[r].lbase)
                    continue;
                int64_t k;
                bool dest = j == 0 && !op_is(s->op, "st") && nr == 1 && !strcmp(s->ops[0], rs[q]);
                bool addr = lds && j == at && addr_reg(s->ops[j], ab, sizeof ab, &k) &&
                            !strcmp(ab, rs[q]);
                bool step = j > 0 && s->guard < 0 && !s->ops_cut && *s->ops[0] == '%' &&
                            (((!strcmp(s->op, "add.u64") || !strcmp(s->op, "add.s64")) &&
                              s->nops == 3 && !strcmp(s->ops[j], rs[q])) ||
                             ((!strcmp(s->op, "mov.u64") || !strcmp(s->op, "mov.b64")) &&
                              s->nops == 2)) &&
                            reg_find(b, s->ops[0]) >= 0 && b->regs[reg_find(b, s->ops[0])].lbase;
                if (!dest && !addr && !step)
                    return;
            }
            if (s->ops_cut)
                return;
        }
    }
    b->lok = true;
}

/* (REF18) The value a load `ld.local.T %r, [%a+K]` of a w-bit integer reads, where local_proof
 * holds and %a is a local variable's address plus a known offset: the statements before it in
 * the body, back to the nearest label (no other way in), are read backward to the nearest
 * `st.local` that can write its bytes: that store must surely run (guard_holds), write exactly
 * those bytes (the same address, as many bytes, no vector) at a known address, and its value
 * (an immediate, or a register written once that no statement between writes) is then what
 * the load reads -- the thread's own local memory, which no other thread and no store of this
 * body but a st.local can write (local_proof). A `st.local` at an address not known, one that
 * overlaps the bytes otherwise, a call between (a callee handed a raw local address, however
 * the caller got it, writes it with st.local), or no store before the label: false. (REF19)
 * No store before the label: the stores on every way into it (local_join). */

/* (REF19) Whether the value operand v of a store t is written where every way to t passes: a
 * register written by a statement of t's block before it (no label between), surely
 * (guard_holds); an immediate. */
static bool value_before(const body *b, const stmt *t, const char *v)
{
    if (*v != '%')
        return true;
    int vr = reg_find(b, v);
    if (vr < 0 || b->regs[vr].defs != 1)
        return false;
    for (const stmt *u = t - 1; u >= b->st && u->kind != I_LABEL; u--) {
        int d[4];
        int nd = stmt_dests((body *)b, (stmt *)u, d, 4); /* the dests exist: nothing is made */
        for (int q = 0; q < nd && q < 4; q++)
            if (d[q] == vr)
                return guard_holds(b, u);
    }
    return false;
}

/* (REF18) One statement t read backward from a local load of bytes [lo, lo + bytes) of base
 * (local_forward): 0 nothing of it, 1 the store that writes exactly them (*v its value), -1 a
 * statement after which nothing is known (a call, a generic write, a local store that could
 * be anywhere or writes part of them, a guarded one). */
static int local_step(const body *b, const stmt *t, const char *base, int64_t lo, int64_t bytes,
                      const char **v)
{
    char ab[128];
    if (op_is(t->op, "call"))
        return -1; /* a callee handed a local address writes st.local */
    bool spaced = op_has(t->op, "global") || op_has(t->op, "shared") || op_has(t->op, "param") ||
                  op_has(t->op, "local");
    if ((op_is(t->op, "st") || op_is(t->op, "atom") || op_is(t->op, "red")) && !spaced)
        return -1; /* generic: a pointer from a call, memory or a parameter may point into the
                    * thread's local window (session 45 review) */
    if (!(op_is(t->op, "st") && op_has(t->op, "local")))
        return 0;
    int64_t tk;
    int tr = t->nops == 2 && !t->ops_cut && addr_reg(t->ops[0], ab, sizeof ab, &tk)
                 ? reg_find(b, ab)
                 : -1;
    if (tr < 0 || !b->regs[tr].lbase)
        return -1; /* a local store that could be anywhere */
    int tw = access_width(t->op);
    int64_t tlo = b->regs[tr].loff + tk;
    if (strcmp(b->regs[tr].lbase, base))
        return 0; /* another variable */
    if (tlo + tw <= lo || lo + bytes <= tlo)
        return 0; /* other bytes */
    if (tlo != lo || tw != bytes || op_has(t->op, "v2") || op_has(t->op, "v4") ||
        op_has(t->op, "v8") || !guard_holds(b, t))
        return -1;
    *v = t->ops[1];
    return 1;
}

/* (REF19) A local word across a label (local_forward): read backward from the label at
 * statement lab over every way in -- the statement before it where it falls into the label
 * (not an unguarded bra or ret), every bra to it -- to the nearest store of those bytes on
 * each (local_step), through further labels the same way, each statement once; what is known
 * is what all of their values share (the union of their ranges, the bits they all know). Each
 * value must be written where every way to its store passes (value_before), as the ways
 * from it to the load are not read. Not so: a way that reaches the body's start with no
 * store (the word never written), a step after which nothing is known, a brx in the body
 * (targets not known), a label defined twice, more than 2^20 statements read (n more for each
 * label's ways asked). */
static bool local_join(const body *b, long lab, const char *base, int64_t lo, int64_t bytes, int w,
                       bool sg, ival *out)
{
    long n = b->n;
    char *seen = hk_calloc((size_t)n + 1, 1);
    char *defd = hk_calloc((size_t)b->nlabels + 1, 1);
    long *todo = hk_malloc(((size_t)n + 1) * sizeof *todo);
    bool ok = seen && defd && todo, any = false;
    long nt = 0, steps = 1L << 20; /* statements read, and n per label's ways asked */
    for (long i = 0; ok && i < n; i++) {
        const stmt *x = &b->st[i];
        if (x->kind == I_BRX)
            ok = false;
        else if (x->kind == I_LABEL) {
            if (x->label < 0 || x->label >= b->nlabels || defd[x->label])
                ok = false; /* defined twice (or not known) */
            else
                defd[x->label] = 1;
        }
    }
    if (ok)
        todo[nt++] = lab;
    while (ok && nt > 0) {
        for (long i = todo[--nt]; ok; i--) {
            if (i < 0 || --steps < 0) {
                ok = false; /* the body's start: a way with no store */
                break;
            }
            if (seen[i])
                break;
            seen[i] = 1;
            const stmt *t = &b->st[i];
            if (t->kind == I_LABEL) {
                if ((steps -= n) < 0) {
                    ok = false;
                    break;
                }
                if (i > 0) {
                    const stmt *p = &b->st[i - 1];
                    bool falls = !((p->kind == I_BRA || p->kind == I_RET) && p->guard < 0);
                    if (falls && nt > n)
                        ok = false;
                    else if (falls)
                        todo[nt++] = i - 1;
                } else
                    ok = false; /* the entry falls into it */
                for (long j = 0; ok && j < n; j++)
                    if (b->st[j].kind == I_BRA && b->st[j].nops >= 1 && t->label >= 0 &&
                        t->label < b->nlabels && !strcmp(b->st[j].ops[0], b->labels[t->label]) &&
                        !seen[j]) {
                        if (nt > n)
                            ok = false; /* (cannot be: each is asked for once) */
                        else
                            todo[nt++] = j;
                    }
                break;
            }
            const char *v = NULL;
            int st = local_step(b, t, base, lo, bytes, &v);
            if (st < 0 || (st > 0 && !value_before(b, t, v))) {
                ok = false;
                break;
            }
            if (st == 0)
                continue;
            ival x = ir_operand(b, v, w, sg);
            if (!any) {
                *out = x;
                any = true;
            } else {
                out->rk = out->rk && x.rk;
                if (x.lo < out->lo)
                    out->lo = x.lo;
                if (x.hi > out->hi)
                    out->hi = x.hi;
                out->kz &= x.kz;
                out->ko &= x.ko;
            }
            break;
        }
    }
    hk_free(seen);
    hk_free(defd);
    hk_free(todo);
    if (!ok || !any)
        return false;
    iv_norm(out, w, sg);
    return true;
}

static bool local_forward(const body *b, const stmt *s, int w, bool sg, ival *out)
{
    char ab[128];
    int64_t k;
    if (!b->lok || s->nops != 2 || s->ops_cut || op_has(s->op, "v2") || op_has(s->op, "v4") ||
        op_has(s->op, "v8") || !addr_reg(s->ops[1], ab, sizeof ab, &k))
        return false;
    int r = reg_find(b, ab);
    if (r < 0 || !b->regs[r].lbase || s < b->st || s >= b->st + b->n)
        return false;
    const char *base = b->regs[r].lbase;
    int64_t lo = b->regs[r].loff + k, bytes = w / 8;
    const char *v = NULL;
    const stmt *t = s - 1;
    for (; t >= b->st && t->kind != I_LABEL; t--) {
        int st = local_step(b, t, base, lo, bytes, &v);
        if (st < 0)
            return false;
        if (st > 0)
            break;
    }
    if (t >= b->st && t->kind != I_LABEL) { /* in the load's block, REF18's form */
        if (*v == '%') {
            int vr = reg_find(b, v);
            if (vr < 0 || b->regs[vr].defs != 1)
                return false;
            for (const stmt *u = t + 1; u < s; u++) { /* written between: not the stored value
                                                        * (any mention in a first operand) */
                char rb[PR_LINE];
                const char *rs[16];
                int nr = u->nops ? op_regs(u->ops[0], rb, sizeof rb, rs, 16) : 0;
                if (nr < 0)
                    return false;
                for (int q = 0; q < nr; q++)
                    if (reg_find(b, rs[q]) == vr)
                        return false;
            }
        }
        *out = ir_operand(b, v, w, sg);
        return true;
    }
    if (t < b->st)
        return false; /* no store before it: the word never written */
    return local_join(b, t - b->st, base, lo, bytes, w, sg, out);
}

/* (REF19) The size in bytes of the .shared variable name as the body's table gives it: -1 when
 * not declared there, declared more than once, of a size not read, the module's and the body
 * a .func's (its caller may write it too), or the table overflowed. */
static long shared_size(const body *b, const char *name)
{
    if (!b->sh || b->nsh < 0)
        return -1;
    for (int k = 0; k < b->nsh; k++)
        if (!strcmp(b->sh[k].name, name))
            return b->sh[k].count == 1 && (b->entry || b->sh[k].in_body) ? b->sh[k].size : -1;
    return -1;
}

/* (REF19) An address operand `[NAME]` (NAME an identifier, no register, no offset): NAME into
 * buf. */
static bool addr_name(const char *o, char *buf, size_t cap)
{
    cut_copy(buf, cap, o);
    size_t l = strlen(buf);
    if (l < 3 || buf[0] != '[' || buf[l - 1] != ']')
        return false;
    buf[l - 1] = '\0';
    char *x = trim(buf + 1);
    if (!is_ident_start(*x) || *x == '%')
        return false;
    for (const char *p = x; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '$')
            return false;
    memmove(buf, x, strlen(x) + 1);
    return true;
}

/* (REF19) Whether operand o names the identifier name (bounded by characters no name holds). */
static bool mentions(const char *o, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(o, name); p; p = strstr(p + 1, name)) {
        bool l = p == o || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '$' ||
                             p[-1] == '%' || p[-1] == '.');
        bool r = !(isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '$');
        if (l && r)
            return true;
    }
    return false;
}

/* (REF19) Whether the body writes shared memory only through `st`, `atom` or `red` of the
 * .shared window (whose addresses shared_word then reads): no call (a callee may write any
 * shared word it is handed), no cvta to or from the shared window (a generic pointer into
 * it), no mapa or `::cluster` op (another block's shared memory, or this block's by another),
 * no other op of shared memory but a load (cp.async, mbarrier, stmatrix ...: not read), and
 * no op that may write memory through a generic address (st, atom, red, cp, mbarrier,
 * stmatrix, wmma, multimem, tensormap, tcgen05, surface ops ... without a state space of
 * global, local, param or const). */
static bool sw_body(body *b)
{
    if (b->swbody)
        return b->swbody == 1;
    static const char *const writes[] = {"st",       "atom",      "red",     "cp",
                                         "mbarrier", "stmatrix",  "wmma",    "multimem",
                                         "tensormap", "tcgen05",  "sust",    "sured",
                                         "suatom",   "discard",   "applypriority",
                                         "clusterlaunchcontrol"};
    b->swbody = 2;
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL)
            continue;
        const char *op = s->op;
        if (s->ops_cut || !isalpha((unsigned char)op[0]) || strstr(op, "cluster") ||
            op_is(op, "call") || op_is(op, "mapa") || (op_is(op, "cvta") && strstr(op, "shared")))
            return false;
        if (strstr(op, "shared")) {
            if (op_is(op, "ld") || op_is(op, "ldu") || op_is(op, "ldmatrix") ||
                op_is(op, "isspacep") || op_is(op, "st") || op_is(op, "atom") || op_is(op, "red"))
                continue; /* a load, or a write shared_word reads the address of */
            return false;
        }
        bool spaced = op_has(op, "global") || op_has(op, "local") || op_has(op, "param") ||
                      op_has(op, "const");
        for (size_t k = 0; k < sizeof writes / sizeof *writes && !spaced; k++)
            if (op_is(op, writes[k]))
                return false;
    }
    b->swbody = 1;
    return true;
}

/* (REF19) An address or offset sw_aff reads: c + a . tid, plus the address of the .shared
 * variable base where base is set. */
typedef struct {
    int64_t c, a[3];
    const char *base;
    int64_t ulo, uhi; /* (REF20) plus a term of any value in [ulo, uhi] (an `and` of anything
                       * with a mask: 0 .. mask), [0, 0]: none */
} saff;

/* (REF19) Its least and greatest value at the block's shape (no base): false where a tid term's
 * extent is not known. */
static bool saff_range(const body *b, const saff *x, int64_t *lo, int64_t *hi)
{
    *lo = x->c + x->ulo;
    *hi = x->c + x->uhi;
    for (int d = 0; d < 3; d++) {
        if (!x->a[d])
            continue;
        if (b->ntid[d] <= 0)
            return false;
        int64_t e = x->a[d] * (b->ntid[d] - 1); /* |a| <= 2^40 (sw_aff), ntid <= 2^31 */
        if (e < 0)
            *lo += e;
        else
            *hi += e;
    }
    return true;
}

/* (REF19) Operand o as an affine form of the thread's tid, read from the statements that make
 * it alone -- not the values eval_all gave (they follow the text, and may hang on the very word
 * shared_word asks about): an integer, a .shared variable's name, %tid.x/y/z, %ntid at a
 * known shape, or a register written once by one unguarded statement (defat) that is a mov of
 * such an operand, add or sub (not .cc/.sat; one base at most, none subtracted), shl by an
 * immediate, mul.lo by an immediate, mad.lo by one plus another, or a widening cvt /
 * mul.wide / mad.wide of a 32-bit form whose values at the shape lie in [0, 2^31) (where its
 * wrap and its sign extension change nothing). Coefficients stay within 2^40. (REF20) And an
 * `and` of anything with an immediate mask m (0 <= m < 2^31 at 32 bits, 2^40 at 64): a term of
 * any value in [0, m] (saff.ulo/uhi), carried through the adds, subs and scalings: the
 * 32-bit register's value is that term's exactly (it lies in [0, 2^31)), and each op above is
 * exact modulo 2^32, so a form whose range lies in [0, 2^32) is the register's value. */
static bool sw_aff(const body *b, const long *defat, const char *o, int depth, saff *out)
{
    memset(out, 0, sizeof *out);
    int64_t k;
    if (depth > 24)
        return false;
    if (parse_int(o, &k))
        return out->c = k, k > -((int64_t)1 << 40) && k < ((int64_t)1 << 40);
    if (!strcmp(o, "%tid.x") || !strcmp(o, "%tid.y") || !strcmp(o, "%tid.z"))
        return out->a[o[5] - 'x'] = 1, true;
    if (!strncmp(o, "%ntid.", 6) && o[6] >= 'x' && o[6] <= 'z' && !o[7])
        return out->c = b->ntid[o[6] - 'x'], b->ntid[o[6] - 'x'] > 0;
    if (*o != '%') {
        if (!is_ident_start(*o))
            return false;
        for (const char *p = o; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != '$')
                return false;
        out->base = o;
        return true;
    }
    int r = reg_find(b, o);
    if (r < 0 || b->regs[r].defs != 1 || defat[r] < 0)
        return false;
    const stmt *s = &b->st[defat[r]];
    const char *op = s->op;
    int n = s->nops;
    char ty[4][8];
    int nty = op_types(op, ty, 4);
    bool sg;
    for (int q = 0; q < nty; q++)
        if (!ir_type(ty[q], &sg))
            return false; /* a float's (or a predicate's) arithmetic: no address */
    if (s->guard >= 0 || s->ops_cut || nty < 1 || op_has(op, "cc") || op_has(op, "sat"))
        return false;
    saff x, y;
    if (op_is(op, "mov") && n == 2)
        return sw_aff(b, defat, s->ops[1], depth + 1, out);
    if ((op_is(op, "add") || op_is(op, "sub")) && n == 3) {
        int sgn = op_is(op, "add") ? 1 : -1;
        if (!sw_aff(b, defat, s->ops[1], depth + 1, &x) ||
            !sw_aff(b, defat, s->ops[2], depth + 1, &y) || (y.base && (sgn < 0 || x.base)))
            return false; /* a base subtracted, or two */
        out->base = x.base ? x.base : y.base;
        out->c = x.c + sgn * y.c;
        out->ulo = x.ulo + (sgn > 0 ? y.ulo : -y.uhi);
        out->uhi = x.uhi + (sgn > 0 ? y.uhi : -y.ulo);
        for (int d = 0; d < 3; d++)
            out->a[d] = x.a[d] + sgn * y.a[d];
    } else if ((op_is(op, "shl") || (op_is(op, "mul") && op_has(op, "lo")) ||
                (op_is(op, "mul") && op_has(op, "wide"))) && n == 3) {
        int64_t m;
        bool shl = op_is(op, "shl");
        int xi = !shl && parse_int(s->ops[1], &m) ? 2 : 1;
        if (!parse_int(s->ops[3 - xi], &m) || (shl && (m < 0 || m > 16)) ||
            (!shl && (m < -65536 || m > 65536)) || !sw_aff(b, defat, s->ops[xi], depth + 1, &x) ||
            x.base)
            return false;
        if (shl)
            m = (int64_t)1 << m;
        int64_t lo, hi;
        if (op_has(op, "wide") && (!saff_range(b, &x, &lo, &hi) || lo < 0 ||
                                   hi >= ((int64_t)1 << 31)))
            return false;
        out->c = x.c * m;
        out->ulo = m >= 0 ? x.ulo * m : x.uhi * m;
        out->uhi = m >= 0 ? x.uhi * m : x.ulo * m;
        for (int d = 0; d < 3; d++)
            out->a[d] = x.a[d] * m;
    } else if (op_is(op, "mad") && (op_has(op, "lo") || op_has(op, "wide")) && n == 4) {
        int64_t m;
        int xi = parse_int(s->ops[1], &m) ? 2 : 1;
        if (!parse_int(s->ops[3 - xi], &m) || m < -65536 || m > 65536 ||
            !sw_aff(b, defat, s->ops[xi], depth + 1, &x) || x.base ||
            !sw_aff(b, defat, s->ops[3], depth + 1, &y))
            return false;
        int64_t lo, hi;
        if (op_has(op, "wide") && (!saff_range(b, &x, &lo, &hi) || lo < 0 ||
                                   hi >= ((int64_t)1 << 31)))
            return false;
        out->base = y.base;
        out->c = x.c * m + y.c;
        out->ulo = (m >= 0 ? x.ulo * m : x.uhi * m) + y.ulo;
        out->uhi = (m >= 0 ? x.uhi * m : x.ulo * m) + y.uhi;
        for (int d = 0; d < 3; d++)
            out->a[d] = x.a[d] * m + y.a[d];
    } else if (op_is(op, "cvt") && n == 2) {
        bool s0, s1;
        if (nty != 2 || ir_type(ty[0], &s0) != 64 || ir_type(ty[1], &s1) != 32 ||
            !sw_aff(b, defat, s->ops[1], depth + 1, &x))
            return false;
        int64_t lo, hi;
        if ((x.base && s1) || !saff_range(b, &x, &lo, &hi) || lo < 0 || hi >= ((int64_t)1 << 31))
            return false; /* (a shared address plus such an offset zero-extended: the same) */
        *out = x;
    } else if (op_is(op, "and") && n == 3 && nty == 1 &&
               (ir_type(ty[0], &sg) == 32 || ir_type(ty[0], &sg) == 64)) {
        /* (REF20) x & m of any x with an immediate mask m >= 0 (below 2^31 at 32 bits: bit 31
         * clear, the same value signed or not): a value in [0, m] (chain[t & 255]) */
        int64_t m;
        int w = ir_type(ty[0], &sg);
        if (!parse_int(s->ops[2], &m) && !parse_int(s->ops[1], &m))
            return false;
        if (m < 0 || m >= ((int64_t)1 << (w == 32 ? 31 : 40)))
            return false;
        out->ulo = 0;
        out->uhi = m;
    } else
        return false;
    if (out->c <= -((int64_t)1 << 40) || out->c >= ((int64_t)1 << 40) ||
        out->ulo <= -((int64_t)1 << 40) || out->uhi >= ((int64_t)1 << 40))
        return false;
    for (int d = 0; d < 3; d++)
        if (out->a[d] <= -((int64_t)1 << 40) || out->a[d] >= ((int64_t)1 << 40))
            return false;
    return true;
}

/* (REF19) Whether every mention of the .shared word name (size bytes: 1, 2, 4, 8) in the body
 * is the whole word read or written: `ld.shared.T %r, [name]` or `st.shared.T [name], x` of
 * size bytes, no vector, no offset -- so its address is nowhere else (no mov of it, no
 * `[name+K]`, no atomic): only those stores write it by name. Cached per body. */
static bool sw_word(body *b, const char *name, long size)
{
    for (int k = 0; k < b->nsw; k++)
        if (!strcmp(b->sw[k].name, name))
            return b->sw[k].ok;
    if (b->nsw == PR_SWORD || strlen(name) >= sizeof b->sw[0].name)
        return false;
    int at = b->nsw++;
    cut_copy(b->sw[at].name, sizeof b->sw[at].name, name);
    b->sw[at].ok = false;
    b->sw[at].epoch = -1;
    b->sw[at].bar = -1;
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL)
            continue;
        for (int j = 0; j < s->nops; j++) {
            if (!mentions(s->ops[j], name))
                continue;
            char nb[256];
            bool ld = op_is(s->op, "ld") && j == 1, st = op_is(s->op, "st") && j == 0;
            if ((!ld && !st) || !op_has(s->op, "shared") || s->nops != 2 ||
                op_has(s->op, "v2") || op_has(s->op, "v4") || op_has(s->op, "v8") ||
                access_width(s->op) != size || !addr_name(s->ops[j], nb, sizeof nb) ||
                strcmp(nb, name) || (st && mentions(s->ops[1], name)))
                return false;
        }
    }
    /* every other write of shared memory (sw_body: st, atom, red of .shared) inside another
     * declared variable, all its bytes, at every tid of the shape */
    long *defat = hk_malloc(((size_t)b->nregs + 1) * sizeof *defat);
    if (!defat)
        return false;
    for (long r = 0; r <= b->nregs; r++)
        defat[r] = -1;
    for (long i = 0; i < b->n; i++) {
        int d[4];
        int nd = b->st[i].kind == I_LABEL ? 0 : stmt_dests(b, &b->st[i], d, 4);
        for (int q = 0; q < nd && q < 4; q++)
            if (d[q] >= 0 && d[q] < b->nregs)
                defat[d[q]] = defat[d[q]] == -1 ? i : -2;
    }
    bool ok = true;
    for (long i = 0; i < b->n && ok; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL || !strstr(s->op, "shared") ||
            !(op_is(s->op, "st") || op_is(s->op, "atom") || op_is(s->op, "red")))
            continue;
        int ai = op_is(s->op, "atom") ? 1 : 0;
        char nb[256], ab[256];
        if (op_is(s->op, "st") && s->nops == 2 && addr_name(s->ops[0], nb, sizeof nb) &&
            !strcmp(nb, name))
            continue; /* the word's own store (its mentions: above) */
        int bytes = access_width(s->op);
        ok = false;
        if (s->nops <= ai || !bytes)
            break;
        cut_copy(ab, sizeof ab, s->ops[ai]);
        size_t l = strlen(ab);
        if (l < 3 || ab[0] != '[' || ab[l - 1] != ']')
            break;
        ab[l - 1] = '\0';
        char *x = trim(ab + 1), *plus = strchr(x, '+');
        int64_t k = 0;
        if (plus) {
            *plus = '\0';
            if (!parse_int(trim(plus + 1), &k) || k < 0 || k > ((int64_t)1 << 30))
                break;
        }
        saff f;
        int64_t lo, hi;
        long vs;
        if (!sw_aff(b, defat, trim(x), 0, &f) || !f.base || !strcmp(f.base, name) ||
            (vs = shared_size(b, f.base)) <= 0 || !saff_range(b, &f, &lo, &hi) ||
            lo + k < 0 || hi + k + bytes > vs)
            break;
        ok = true;
    }
    hk_free(defat);
    b->sw[at].ok = ok;
    return ok;
}

static long cover_at(body *b, const char *name, size_t size, const bool *clk, bool any,
                     int64_t *v, long *line);

/* (REF19) The value a load `ld.shared.T %r, [W]` of a w-bit integer reads, where W is a
 * .shared word handed over from one thread to the block (`if (t == 0) w = x;
 * __syncthreads(); ... = w;`): shared memory starts undefined, so W must surely be written
 * in every block before the load, and nothing but W's own stores may write its bytes. Then
 * the load reads a value one of them wrote, and what is known is what all of their values
 * share (the union of their ranges, the bits they all know). Holds where:
 * - W is declared once (the module's and the body's .shared declarations), of w / 8 bytes, and
 *   every mention of it is a whole-word ld.shared / st.shared (sw_word);
 * - the body writes shared memory only by st / atom / red of .shared (sw_body), and every such
 *   write not to [W] has an address this reading knows: another declared .shared variable V
 *   plus c + a . tid, which at the block's shape (%ntid known wherever a tid term is) stays
 *   inside V with all its bytes; an address not known: not so;
 * - a store to [W] is one every block makes before a barrier (cover_at, store_cover's rule:
 *   a barrier of the whole block, before it no exit, no partial barrier, no call; no branch
 *   over it or back across it; thread 0 cannot reach it without executing the store), and the
 *   load comes after that barrier in the text (reached only through it).
 * The stores' values are read as they stand when the load is judged (text order): a value
 * not yet judged is any value, and the word is then not known. */
static bool shared_word(body *b, const stmt *s, int w, bool sg, ival *out)
{
    char nm[256];
    long size;
    if (s->nops != 2 || s->ops_cut || !op_has(s->op, "shared") || op_has(s->op, "v2") ||
        op_has(s->op, "v4") || op_has(s->op, "v8") || !addr_name(s->ops[1], nm, sizeof nm) ||
        (size = shared_size(b, nm)) != w / 8 || s < b->st || s >= b->st + b->n ||
        !sw_body(b) || !sw_word(b, nm, size))
        return false;
    int k = 0;
    while (k < b->nsw && strcmp(b->sw[k].name, nm))
        k++;
    if (k == b->nsw)
        return false;
    if (b->sw[k].epoch != b->epoch) {
        int64_t v;
        long line;
        b->sw[k].bar = cover_at(b, nm, (size_t)size, NULL, true, &v, &line);
        b->sw[k].epoch = b->epoch;
    }
    if (b->sw[k].bar < 0 || s - b->st <= b->sw[k].bar)
        return false;
    bool any = false;
    for (long i = 0; i < b->n; i++) {
        const stmt *t = &b->st[i];
        if (t->kind == I_LABEL || t->nops < 2 || !strstr(t->op, "shared") || !op_is(t->op, "st"))
            continue;
        char tn[256];
        if (!addr_name(t->ops[0], tn, sizeof tn) || strcmp(tn, nm))
            continue; /* another variable's (sw_word) */
        int vr = *t->ops[1] == '%' ? reg_find(b, t->ops[1]) : -1;
        if (*t->ops[1] == '%') { /* its value written where every way to the store passes: in
                                  * its block, before it, surely (else it may store a register
                                  * never written: any value) */
            const stmt *u = t - 1;
            for (; u >= b->st && u->kind != I_LABEL; u--) {
                int d[4];
                int nd = stmt_dests(b, (stmt *)u, d, 4), q = 0;
                while (q < nd && q < 4 && d[q] != vr)
                    q++;
                if (q < nd && q < 4)
                    break;
            }
            if (vr < 0 || u < b->st || u->kind == I_LABEL || !guard_holds(b, u))
                return false;
        }
        ival x = ir_operand(b, t->ops[1], w, sg); /* the bytes it writes, read as the load's
                                                    * type (sw_word: as many) */
        if (vr >= 0 && t > s) { /* written after the load in the text: not judged yet in this
                                 * evaluation -- the first's value, in a second (eval_all) */
            const struct swsnap *p = b->snap ? &b->snap[vr] : NULL;
            if (b->snap && b->sw_hyp) {
                int q = 0;
                while (q < b->nlate && b->late[q] != vr)
                    q++;
                if (q == b->nlate)
                    b->sw_unlisted = true;
            }
            if (p && p->bot)
                continue; /* (REF20) a hypothesis with no value of it yet (eval_all) */
            x = p && p->irng ? iv_as(&p->iv, p->iw, p->isg, w, sg) : iv_full(w, sg);
            if (!b->snap) {
                b->sw_late = true;
                int q = 0;
                while (q < b->nlate && b->late[q] != vr)
                    q++;
                if (q == b->nlate && q < 16)
                    b->late[b->nlate++] = vr;
                else if (q == b->nlate)
                    b->late_over = true;
            }
        }
        if (!any) {
            *out = x;
            any = true;
        } else {
            out->rk = out->rk && x.rk;
            if (x.lo < out->lo)
                out->lo = x.lo;
            if (x.hi > out->hi)
                out->hi = x.hi;
            out->kz &= x.kz;
            out->ko &= x.ko;
        }
    }
    if (!any)
        return false;
    iv_norm(out, w, sg); /* a range not known (rk false) is read from the bits */
    return true;
}

/* The exact product's range of two ranges, from its corners, each under 2^62 in magnitude
 * (checked in double before the exact int64 product): false where a range is not known or a
 * corner is not under it (mul.lo, mul.hi, mul.wide, mad.lo, mad.hi, mad.wide). */
static bool iv_mul_range(const ival *a, const ival *c, int64_t *lo, int64_t *hi)
{
    if (!a->rk || !c->rk)
        return false;
    int64_t cs[4] = {a->lo, a->lo, a->hi, a->hi}, ds[4] = {c->lo, c->hi, c->lo, c->hi};
    *lo = INT64_MAX, *hi = INT64_MIN;
    for (int i = 0; i < 4; i++) {
        if (fabs((double)cs[i]) * fabs((double)ds[i]) >= 0x1p62)
            return false;
        int64_t p = cs[i] * ds[i];
        *lo = p < *lo ? p : *lo;
        *hi = p > *hi ? p : *hi;
    }
    return true;
}

/* A bit field's start and length (bfe, bfi): both known, the length at least 1 and the field
 * inside the w bits; false otherwise (other starts and lengths are not read). */
static bool iv_field(const ival *ps, const ival *ln, int w, int64_t *pos, int64_t *len)
{
    return iv_point(ps, 32, false, pos) && iv_point(ln, 32, false, len) && *pos >= 0 &&
           *len >= 1 && *pos <= w - *len;
}

/* (REF19) The family of a `.cc` op that writes the carry flag: 1 a carry (add.cc, addc.cc,
 * mad.cc, madc.cc), 2 a borrow (sub.cc, subc.cc); 0 none. */
static int cc_family(const char *op)
{
    if (!op_has(op, "cc"))
        return 0;
    if (op_is(op, "add") || op_is(op, "addc") || op_is(op, "mad") || op_is(op, "madc"))
        return 1;
    return op_is(op, "sub") || op_is(op, "subc") ? 2 : 0;
}

/* (REF19) The unsigned range of the product half a `mad.lo` / `mad.hi` (madc) adds, into
 * [*lo, *hi]: the exact product of the operands' unsigned ranges (iv_mul_range), all of it
 * where it lies under 2^w (.lo), its high w bits where the type is unsigned (.hi; a signed
 * high half is another number). false: not known. */
static bool mad_half(const body *b, const stmt *s, int w, bool sg, int64_t *lo, int64_t *hi)
{
    ival a = ir_operand(b, s->ops[1], w, false), c = ir_operand(b, s->ops[2], w, false);
    if (!a.rk || !c.rk || !iv_mul_range(&a, &c, lo, hi))
        return false;
    if (op_has(s->op, "lo"))
        return w == 64 || *hi < ((int64_t)1 << 32);
    if (!op_has(s->op, "hi") || sg)
        return false;
    if (w == 64) /* a product under 2^62 (iv_mul_range): the high half 0 */
        return *lo = *hi = 0, true;
    *lo >>= 32;
    *hi >>= 32;
    return true;
}

/* (REF18) The carry flag (CC.CF) statement s reads (addc; REF19: subc, madc): 0 or 1 where
 * the statement right before it in the body (no label between, so no other way in) is a
 * `.cc` op of s's family (cc_family: a carry for addc / madc, a borrow for subc; another
 * family's flag is not read) of the same width w as s (a 32-bit carry into an addc.s64 is no
 * 64-bit addition's: the session 45 review's wrapped range) that surely runs (guard_holds)
 * whose carry (borrow) out is known from its operands' unsigned ranges (and its own flag in,
 * for an addc.cc / subc.cc / madc.cc, up to 8 links back); -1: not known. The carry of add
 * and mad is that of the sum a + c + cin (mad: the product's half for a), read as unsigned
 * w-bit numbers: 1 where it reaches 2^w; the borrow of sub, 1 where a < c + bin. */
static int cc_carry(const body *b, const stmt *s, int w_want, int depth)
{
    if (s <= b->st || s >= b->st + b->n || depth > 8)
        return -1;
    const stmt *p = s - 1;
    int fam = op_is(s->op, "subc") ? 2 : 1;
    bool mad = op_is(p->op, "mad") || op_is(p->op, "madc");
    char t[4][8];
    bool sg;
    if (p->kind == I_LABEL || p->ops_cut || p->nops != (mad ? 4 : 3) || !guard_holds(b, p) ||
        cc_family(p->op) != fam || op_has(p->op, "sat") || op_types(p->op, t, 4) != 1)
        return -1;
    int w = ir_type(t[0], &sg);
    if ((w != 32 && w != 64) || w != w_want)
        return -1;
    int cin = 0;
    if ((op_is(p->op, "addc") || op_is(p->op, "subc") || op_is(p->op, "madc")) &&
        (cin = cc_carry(b, p, w, depth + 1)) < 0)
        return -1;
    ival a = ir_operand(b, p->ops[1], w, false), c = ir_operand(b, p->ops[2], w, false);
    if (mad) {
        int64_t plo, phi;
        if (!mad_half(b, p, w, sg, &plo, &phi))
            return -1;
        a.rk = true, a.lo = plo, a.hi = phi;
        c = ir_operand(b, p->ops[3], w, false);
    }
    if (!a.rk || !c.rk)
        return -1;
    __int128 top = (__int128)1 << w;
    if (fam == 2) /* the borrow of a - (c + bin): unsigned ranges (a u64's under 2^63) */
        return (__int128)a.lo - c.hi - cin >= 0 ? 0 : (__int128)a.hi - c.lo - cin < 0 ? 1 : -1;
    return (__int128)a.hi + c.hi + cin < top ? 0 : (__int128)a.lo + c.lo + cin >= top ? 1 : -1;
}

/* What is known of the integer value statement s computes, whatever the data, with its type
 * (*w bits of 8, 16, 32, 64, *sgn): a cvt to an integer of 8-32 bits of an .f32 range
 * (cvt_float_range), an immediate, a register judged, and from those mov, shr/shl by a known
 * amount below the width (shr.s rounds toward -inf and copies the sign bit, shr.u/.b reads
 * unsigned), and, or, xor, not, min, max, add, sub, mul.lo, mul.hi, mul.wide, mad.lo, neg,
 * abs, selp, cvt between integers (sign- or zero-extended as the source type, cut to the
 * destination), div and rem by a known positive number, popc, clz. A range holds the exact
 * result: where it could leave the type (a wrap, a cut), the range is the type's (none for a
 * u64) and the bits alone say what is known (they follow the wrap: add, sub, mul.lo and shl
 * are exact modulo 2^w). false: an op not read (.cc, .sat but a float cvt's, .relu, a float
 * or predicate type, a shift by a value not known). */
static bool int_value_def(const body *b, const stmt *s, ival *out, int *rw, bool *rsg)
{
    if (s->ops_cut || s->nops < 2)
        return false;
    const char *op = s->op;
    int n = s->nops;
    char t[4][8];
    int nt = op_types(op, t, 4);
    bool sg = false;
    int w = nt >= 1 ? ir_type(t[0], &sg) : 0;
    bool fcvt = op_is(op, "cvt") && nt == 2 && (!strcmp(t[1], "f32") || !strcmp(t[1], "f64"));
    /* (REF18) `.cc` only on add (its value is add's; the carry it writes, cc_carry) and addc;
     * (REF19) sub, subc, mad, madc too */
    if (!w || (op_has(op, "cc") && (!cc_family(op) || op_has(op, "sat"))) ||
        (op_has(op, "sat") && !fcvt) || op_has(op, "relu"))
        return false;
    uint64_t m = iv_mask(w), kz = 0, ko = 0;
    bool rng = false; /* [lo, hi]: the exact result's bounds, computed without overflow */
    int64_t lo = 0, hi = 0;
    ival a, c;
    if (op_is(op, "cvt")) {
        if (n != 2 || nt != 2)
            return false;
        if (fcvt) {
            bool nan64;
            if (!cvt_float_range(b, s, &lo, &hi, &nan64))
                return false;
            rng = !nan64;
            if (nan64) { /* [lo, hi], or from a NaN 1 << (w - 1) (or 0, as the older ISA
                          * text reads): the bits all three share, no range */
                ival fv = {true, lo, hi, 0, 0};
                iv_norm(&fv, w, sg);
                kz = fv.kz & ~((uint64_t)1 << (w - 1));
            }
        } else {
            bool ss = false;
            int sw = ir_type(t[1], &ss);
            if (!sw)
                return false;
            a = ir_operand(b, s->ops[1], sw, ss);
            uint64_t sm = iv_mask(sw), up = m & ~sm, sb = (uint64_t)1 << (sw - 1);
            kz = a.kz & sm;
            ko = a.ko & sm;
            if (!ss || (a.kz & sb)) /* zero-extended, or a sign known 0 */
                kz |= up;
            else if (a.ko & sb) /* a sign known 1, copied up */
                ko |= up;
            rng = a.rk, lo = a.lo, hi = a.hi; /* the value, where the destination holds it */
        }
    } else if (nt != 1) {
        return false;
    } else if (op_is(op, "mov") && n == 2) {
        a = ir_operand(b, s->ops[1], w, sg);
        kz = a.kz, ko = a.ko, rng = a.rk, lo = a.lo, hi = a.hi;
    } else if (op_is(op, "ld") && n == 2) {
        /* (REF17) a .const word at an index of a known range: the least and greatest entry;
         * (REF18) a .global's, where ptxdata proved every use of its address a load's; a
         * local word the store right before it wrote (local_forward) */
        if (op_has(op, "local")) {
            if (!local_forward(b, s, w, sg, &a))
                return false;
            kz = a.kz, ko = a.ko, rng = a.rk, lo = a.lo, hi = a.hi;
        } else if (op_has(op, "shared") && shared_word((body *)b, s, w, sg, &a)) {
            /* (REF19) a shared word handed over to the block; the cast: shared_word keeps its
             * caches in the body, and names the addresses it reads (sym_named) */
            kz = a.kz, ko = a.ko, rng = a.rk, lo = a.lo, hi = a.hi;
        } else {
            if (!const_table_range(b, s, w, sg, &lo, &hi))
                return false;
            rng = true;
        }
    } else if (op_is(op, "prmt") && n == 4 && !strcmp(op, "prmt.b32")) {
        /* (REF17) the default mode only (no .f4e, .b4e, .rc8, .ecl, .ecr, .rc16): each result
         * byte is the byte its selector nibble names among a's four and c's four (bit 3: that
         * byte's top bit copied to all eight); the selector must be known */
        a = ir_operand(b, s->ops[1], 32, false);
        c = ir_operand(b, s->ops[2], 32, false);
        ival sel = ir_operand(b, s->ops[3], 32, false);
        int64_t sv;
        if (!iv_point(&sel, 32, false, &sv))
            return false;
        uint64_t sz = (a.kz & 0xffffffffu) | (c.kz & 0xffffffffu) << 32;
        uint64_t so = (a.ko & 0xffffffffu) | (c.ko & 0xffffffffu) << 32;
        for (int i = 0; i < 4; i++) {
            int nib = (int)((uint64_t)sv >> (4 * i)) & 15, sb = nib & 7;
            uint64_t bz = (sz >> (8 * sb)) & 0xff, bo = (so >> (8 * sb)) & 0xff;
            if (nib & 8) { /* the byte's sign, replicated */
                bz = (bz & 0x80) ? 0xff : 0;
                bo = (bo & 0x80) ? 0xff : 0;
            }
            kz |= bz << (8 * i);
            ko |= bo << (8 * i);
        }
    } else if (op_is(op, "lop3") && n == 5 && !strcmp(op, "lop3.b32")) {
        /* (REF17) per bit, the immediate's entry (a b c read as 4a + 2b + c) at every
         * combination of the inputs' bits that can be: known where they all agree */
        a = ir_operand(b, s->ops[1], 32, false);
        c = ir_operand(b, s->ops[2], 32, false);
        ival d = ir_operand(b, s->ops[3], 32, false), lut = ir_operand(b, s->ops[4], 32, false);
        int64_t lv;
        if (!iv_point(&lut, 32, false, &lv) || lv < 0 || lv > 255)
            return false;
        uint64_t can1 = 0, can0 = 0;
        for (int i = 0; i < 8; i++) {
            uint64_t pa = (i & 4) ? ~a.kz : ~a.ko, pb = (i & 2) ? ~c.kz : ~c.ko,
                     pc = (i & 1) ? ~d.kz : ~d.ko, poss = pa & pb & pc & m;
            if ((lv >> i) & 1)
                can1 |= poss;
            else
                can0 |= poss;
        }
        kz = ~can1 & m, ko = ~can0 & m;
    } else if (op_is(op, "bfe") && n == 4 && (w == 32 || w == 64)) {
        /* (REF17) a field of known start and length inside the width: its bits moved down,
         * the rest zero (.u) or the field's top bit (.s); other starts and lengths not read */
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], 32, false);
        ival ln = ir_operand(b, s->ops[3], 32, false);
        int64_t pos, len;
        if (!iv_field(&c, &ln, w, &pos, &len))
            return false;
        uint64_t fm = iv_mask((int)len), up = m & ~fm, tb = (uint64_t)1 << (len - 1);
        kz = ((a.kz & m) >> pos) & fm;
        ko = ((a.ko & m) >> pos) & fm;
        if (!sg || (kz & tb))
            kz |= up;
        else if (ko & tb)
            ko |= up;
    } else if (op_is(op, "bfi") && n == 5 && (w == 32 || w == 64)) {
        /* (REF17) a's low len bits put into b at a known start: the same bounds as bfe */
        a = ir_operand(b, s->ops[1], w, false);
        c = ir_operand(b, s->ops[2], w, false);
        ival ps = ir_operand(b, s->ops[3], 32, false), ln = ir_operand(b, s->ops[4], 32, false);
        int64_t pos, len;
        if (!iv_field(&ps, &ln, w, &pos, &len))
            return false;
        uint64_t fm = iv_mask((int)len) << pos;
        kz = (c.kz & ~fm) | ((a.kz << pos) & fm);
        ko = (c.ko & ~fm) | ((a.ko << pos) & fm);
    } else if (op_is(op, "brev") && n == 2 && (w == 32 || w == 64)) {
        a = ir_operand(b, s->ops[1], w, false);
        for (int i = 0; i < w; i++) {
            kz |= ((a.kz >> i) & 1) << (w - 1 - i);
            ko |= ((a.ko >> i) & 1) << (w - 1 - i);
        }
    } else if (op_is(op, "shf") && n == 4 && w == 32 && (op_has(op, "l") || op_has(op, "r")) &&
               (op_has(op, "wrap") || op_has(op, "clamp"))) {
        /* (REF17) the funnel (b:a) shifted by a known amount (.wrap: mod 32, .clamp: at most
         * 32): .r its low word, .l its high word */
        a = ir_operand(b, s->ops[1], 32, false);
        c = ir_operand(b, s->ops[2], 32, false);
        ival sh = ir_operand(b, s->ops[3], 32, false);
        int64_t k;
        if (!iv_point(&sh, 32, false, &k))
            return false;
        k = op_has(op, "wrap") ? (k & 31) : ((uint64_t)k > 32 ? 32 : k);
        uint64_t fz = (a.kz & m) | (c.kz & m) << 32, fo = (a.ko & m) | (c.ko & m) << 32;
        if (op_has(op, "r")) {
            kz = (fz >> k) & m, ko = (fo >> k) & m;
        } else {
            kz = ((fz << k) >> 32) & m, ko = ((fo << k) >> 32) & m;
        }
    } else if ((op_is(op, "shr") || op_is(op, "shl")) && n == 3) {
        c = ir_operand(b, s->ops[2], 32, false);
        if (!c.rk || c.lo != c.hi || c.lo >= w)
            return false;
        int k = (int)c.lo;
        a = ir_operand(b, s->ops[1], w, sg);
        uint64_t top = m & ~(m >> k); /* the k bits a right shift fills */
        if (op_is(op, "shl")) {
            kz = (a.kz << k) | (((uint64_t)1 << k) - 1);
            ko = a.ko << k;
            rng = a.rk && k < 62 && !__builtin_mul_overflow(a.lo, (int64_t)1 << k, &lo) &&
                  !__builtin_mul_overflow(a.hi, (int64_t)1 << k, &hi);
        } else {
            kz = (a.kz & m) >> k;
            ko = (a.ko & m) >> k;
            uint64_t sb = (uint64_t)1 << (w - 1);
            if (!sg || (a.kz & sb))
                kz |= top;
            else if (a.ko & sb)
                ko |= top;
            rng = a.rk;
            lo = sg ? ir_sar(a.lo, k) : a.lo >> k, hi = sg ? ir_sar(a.hi, k) : a.hi >> k;
        }
    } else if ((op_is(op, "and") || op_is(op, "or") || op_is(op, "xor")) && n == 3) {
        if (sg)
            return false;
        a = ir_operand(b, s->ops[1], w, false);
        c = ir_operand(b, s->ops[2], w, false);
        if (op_is(op, "and")) {
            kz = a.kz | c.kz, ko = a.ko & c.ko;
            rng = a.rk && c.rk, lo = 0, hi = a.hi < c.hi ? a.hi : c.hi;
        } else if (op_is(op, "or")) {
            kz = a.kz & c.kz, ko = a.ko | c.ko;
        } else {
            uint64_t known = (a.kz | a.ko) & (c.kz | c.ko), x = a.ko ^ c.ko;
            kz = ~x & known, ko = x & known;
        }
    } else if (op_is(op, "not") && n == 2 && !sg) {
        a = ir_operand(b, s->ops[1], w, false);
        kz = a.ko, ko = a.kz;
    } else if ((op_is(op, "min") || op_is(op, "max") || op_is(op, "add") || op_is(op, "sub") ||
                op_is(op, "mul")) && n == 3) {
        bool wide = op_is(op, "mul") && op_has(op, "wide");
        bool mhi = op_is(op, "mul") && op_has(op, "hi");
        if (op_is(op, "mul") && ((!op_has(op, "lo") && !wide && !mhi) || (wide && w > 32) ||
                                 (mhi && w > 32)))
            return false;
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        bool both = a.rk && c.rk;
        if (op_is(op, "min")) {
            rng = both, lo = a.lo < c.lo ? a.lo : c.lo, hi = a.hi < c.hi ? a.hi : c.hi;
        } else if (op_is(op, "max")) {
            rng = both, lo = a.lo > c.lo ? a.lo : c.lo, hi = a.hi > c.hi ? a.hi : c.hi;
        } else if (op_is(op, "add")) {
            iv_add_bits(&a, c.kz, c.ko, 0, m, &kz, &ko);
            rng = both && !__builtin_add_overflow(a.lo, c.lo, &lo) &&
                  !__builtin_add_overflow(a.hi, c.hi, &hi);
        } else if (op_is(op, "sub")) {
            iv_add_bits(&a, c.ko, c.kz, 1, m, &kz, &ko); /* a + ~c + 1 */
            rng = both && !__builtin_sub_overflow(a.lo, c.hi, &lo) &&
                  !__builtin_sub_overflow(a.hi, c.lo, &hi);
        } else {
            /* the exact product's corners, each under 2^62 in magnitude (checked in double
             * before the exact int64 product); mul.hi its high w bits (floor, monotone),
             * mul.wide all 2w of them */
            rng = iv_mul_range(&a, &c, &lo, &hi);
            if (mhi && rng) {
                lo = ir_sar(lo, w), hi = ir_sar(hi, w);
            } else if (wide) {
                w *= 2; /* the destination: twice the operands' width */
                m = iv_mask(w);
            }
            if (!mhi) { /* the low bits: the operands' low zeros add up; two constants exact */
                uint64_t am = iv_mask(wide ? w / 2 : w);
                int z = iv_low_zeros(&a, wide ? w / 2 : w) + iv_low_zeros(&c, wide ? w / 2 : w);
                kz = z >= w ? m : ((uint64_t)1 << z) - 1;
                if (!wide && ((a.kz | a.ko) & am) == am && ((c.kz | c.ko) & am) == am)
                    ko = (a.ko * c.ko) & m, kz = ~ko & m;
            }
        }
    } else if (op_is(op, "mad") && (op_has(op, "lo") || (op_has(op, "hi") && w <= 32)) &&
               n == 4) {
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        ival d = ir_operand(b, s->ops[3], w, sg);
        rng = d.rk && iv_mul_range(&a, &c, &lo, &hi);
        if (rng && op_has(op, "hi")) /* (REF17) the product's high w bits, then the add */
            lo = ir_sar(lo, w), hi = ir_sar(hi, w);
        rng = rng && !__builtin_add_overflow(lo, d.lo, &lo) &&
              !__builtin_add_overflow(hi, d.hi, &hi);
    } else if ((op_is(op, "div") || op_is(op, "rem")) && n == 3) {
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        if (!c.rk || c.lo != c.hi || c.lo <= 0)
            return false;
        int64_t d = c.lo;
        if (op_is(op, "div")) { /* truncated toward 0: monotone for d > 0 */
            if (a.rk)
                rng = true, lo = a.lo / d, hi = a.hi / d;
            else if (!sg && d >= 2) /* a u64: under 2^64 / d */
                rng = true, lo = 0, hi = (int64_t)(UINT64_MAX / (uint64_t)d);
        } else {
            /* the remainder takes the dividend's sign and is smaller than d in magnitude;
             * a dividend already smaller is itself; a non-negative one by a power of two is
             * its low bits */
            bool nonneg = !sg || (a.rk && a.lo >= 0);
            if (nonneg) {
                rng = true, lo = 0, hi = d - 1;
                if (a.rk && a.hi < d)
                    lo = a.lo, hi = a.hi;
                if (!(d & (d - 1)))
                    kz = a.kz | (m & ~(uint64_t)(d - 1)), ko = a.ko & (uint64_t)(d - 1);
            } else if (a.rk) {
                rng = true;
                lo = a.lo > -(d - 1) ? a.lo : -(d - 1);
                hi = a.hi < d - 1 ? a.hi : d - 1;
                if (a.hi <= 0)
                    hi = 0;
            }
        }
    } else if ((op_is(op, "popc") || op_is(op, "clz")) && n == 2 && !sg) {
        /* popc.b32/.b64 and clz: a .u32 count, at least (most) the bits known 1 (leading the
         * least / greatest pattern) */
        a = ir_operand(b, s->ops[1], w, false);
        uint64_t plo = a.ko & m, phi = ~a.kz & m;
        if (op_is(op, "popc")) {
            lo = __builtin_popcountll(plo), hi = __builtin_popcountll(phi);
        } else {
            lo = phi ? __builtin_clzll(phi) - (64 - w) : w;
            hi = plo ? __builtin_clzll(plo) - (64 - w) : w;
        }
        rng = true;
        w = 32, sg = false, m = iv_mask(32);
    } else if (op_is(op, "neg") && n == 2 && sg) {
        a = ir_operand(b, s->ops[1], w, sg);
        rng = a.rk && a.lo != INT64_MIN;
        if (rng)
            lo = -a.hi, hi = -a.lo;
    } else if (op_is(op, "abs") && n == 2 && sg) {
        a = ir_operand(b, s->ops[1], w, sg);
        rng = a.rk && a.lo != INT64_MIN;
        if (rng) {
            lo = a.lo >= 0 ? a.lo : a.hi <= 0 ? -a.hi : 0;
            hi = a.lo >= 0 ? a.hi : a.hi <= 0 ? -a.lo : (-a.lo > a.hi ? -a.lo : a.hi);
        }
    } else if (op_is(op, "selp") && n == 4) {
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        kz = a.kz & c.kz, ko = a.ko & c.ko;
        rng = a.rk && c.rk, lo = a.lo < c.lo ? a.lo : c.lo, hi = a.hi > c.hi ? a.hi : c.hi;
    } else if (op_is(op, "mad") && op_has(op, "wide") && w <= 32 && n == 4) {
        /* (REF18) the 2w-bit product (exact: iv_mul_range) plus the 2w-bit c: its range, and
         * its low bits where the product's low zeros and c's bits say (iv_add_bits) */
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        int z = iv_low_zeros(&a, w) + iv_low_zeros(&c, w);
        w *= 2;
        m = iv_mask(w);
        ival d = ir_operand(b, s->ops[3], w, sg);
        ival pz = {false, 0, 0, z >= w ? m : ((uint64_t)1 << z) - 1, 0};
        iv_add_bits(&pz, d.kz, d.ko, 0, m, &kz, &ko);
        rng = d.rk && iv_mul_range(&a, &c, &lo, &hi) && !__builtin_add_overflow(lo, d.lo, &lo) &&
              !__builtin_add_overflow(hi, d.hi, &hi);
    } else if (op_is(op, "sad") && n == 4) {
        /* (REF18) c + |a - b|: the difference's range (exact), its absolute value, plus c */
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        ival d = ir_operand(b, s->ops[3], w, sg);
        int64_t dl, dh;
        rng = a.rk && c.rk && d.rk && !__builtin_sub_overflow(a.lo, c.hi, &dl) &&
              !__builtin_sub_overflow(a.hi, c.lo, &dh) && dl != INT64_MIN;
        if (rng) {
            lo = dl >= 0 ? dl : dh <= 0 ? -dh : 0;
            hi = dl >= 0 ? dh : dh <= 0 ? -dl : (-dl > dh ? -dl : dh);
            rng = !__builtin_add_overflow(lo, d.lo, &lo) && !__builtin_add_overflow(hi, d.hi, &hi);
        }
    } else if (op_is(op, "subc") && n == 3) {
        /* (REF19) a - (c + the borrow in), where cc_carry knows it: a + ~c + 1 - bin */
        int bin = cc_carry(b, s, w, 0);
        if (bin < 0)
            return false;
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        iv_add_bits(&a, c.ko, c.kz, 1 - bin, m, &kz, &ko);
        int64_t cl, ch;
        rng = a.rk && c.rk && !__builtin_add_overflow(c.lo, (int64_t)bin, &cl) &&
              !__builtin_add_overflow(c.hi, (int64_t)bin, &ch) &&
              !__builtin_sub_overflow(a.lo, ch, &lo) && !__builtin_sub_overflow(a.hi, cl, &hi);
    } else if (op_is(op, "madc") && (op_has(op, "lo") || (op_has(op, "hi") && w <= 32)) &&
               n == 4) {
        /* (REF19) mad's value (the product's half plus d) plus the carry in */
        int cin = cc_carry(b, s, w, 0);
        if (cin < 0)
            return false;
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        ival d = ir_operand(b, s->ops[3], w, sg);
        rng = d.rk && iv_mul_range(&a, &c, &lo, &hi);
        if (rng && op_has(op, "hi"))
            lo = ir_sar(lo, w), hi = ir_sar(hi, w);
        rng = rng && !__builtin_add_overflow(lo, d.lo, &lo) &&
              !__builtin_add_overflow(hi, d.hi, &hi) &&
              !__builtin_add_overflow(lo, (int64_t)cin, &lo) &&
              !__builtin_add_overflow(hi, (int64_t)cin, &hi);
    } else if (op_is(op, "addc") && n == 3) {
        /* (REF18) a + c + the carry in, where cc_carry knows it */
        int cin = cc_carry(b, s, w, 0);
        if (cin < 0)
            return false;
        a = ir_operand(b, s->ops[1], w, sg);
        c = ir_operand(b, s->ops[2], w, sg);
        iv_add_bits(&a, c.kz, c.ko, cin, m, &kz, &ko);
        int64_t cl, ch;
        rng = a.rk && c.rk && !__builtin_add_overflow(c.lo, (int64_t)cin, &cl) &&
              !__builtin_add_overflow(c.hi, (int64_t)cin, &ch) &&
              !__builtin_add_overflow(a.lo, cl, &lo) && !__builtin_add_overflow(a.hi, ch, &hi);
    } else {
        return false;
    }
    ival r = iv_full(w, sg);
    if (rng && lo >= ir_min(w, sg) && hi <= ir_max(w, sg))
        r.rk = true, r.lo = lo, r.hi = hi; /* else it could wrap or be cut: the bits alone */
    r.kz = kz;
    r.ko = ko;
    iv_norm(&r, w, sg);
    *out = r;
    *rw = w;
    *rsg = sg;
    return true;
}

/* Whether statement s surely runs where it is reached: no guard, or one that is a constant
 * true at this launch. A register written once under another guard holds, where the guard
 * fails, what it held before: nothing written, any value. */
static bool guard_holds(const body *b, const stmt *s)
{
    if (s->guard < 0)
        return true;
    const reg *g = &b->regs[s->guard];
    return g->defs == 1 && g->pc >= 0 && (!g->pc) == s->guard_neg;
}

static aval eval_stmt_value(body *b, stmt *s)
{
    const char *op = s->op;
    int n = s->nops;
    aval x = n > 1 ? operand_val(b, s->ops[1]) : unknown_val;
    aval y = n > 2 ? operand_val(b, s->ops[2]) : unknown_val;
    if (op_is(op, "mov"))
        return n == 2 && *s->ops[1] != '{' ? x : unknown_val;
    if (op_is(op, "ld") && op_has(op, "param") && n == 2 && b->nparams) {
        /* a scalar argument of the launch: its value (ld.param.u32 %r, [K_param_2]) */
        char nm[128];
        cut_copy(nm, sizeof nm, s->ops[1]);
        char *q = trim(nm[0] == '[' ? nm + 1 : nm);
        size_t ql = strlen(q);
        while (ql && (q[ql - 1] == ']' || q[ql - 1] == ' ' || q[ql - 1] == '\t'))
            q[--ql] = '\0';
        bool sgn = false;
        int bits = int_type(op, &sgn, false);
        for (int k = 0; bits && nm[0] == '[' && k < b->nparams; k++)
            if (b->pknown[k] && !strcmp(b->pname[k], q)) {
                aval v = unknown_val;
                v.known = true;
                v.c = int_norm(b->pval[k], bits, sgn);
                return v;
            }
    }
    if (op_is(op, "ld") && n == 2 && b->data) {
        aval v;
        if (module_data_load(b, s, &v))
            return v;
    }
    if (op_is(op, "ld") && (op_has(op, "const") || op_has(op, "global") || op_has(op, "shared")) &&
        b->ir_stmt == s && b->ir_ok) {
        int64_t ic;
        if (iv_point(&b->ir_v, b->ir_w, b->ir_sg, &ic)) { /* (REF17) a table's equal entries;
                                                            * (REF19) a shared word's one value */
            aval z = unknown_val;
            z.known = true;
            z.c = ic;
            return z;
        }
    }
    if (op_is(op, "ld")) {
        aval a = address_val(b, s->ops[n > 1 ? 1 : 0]);
        return val_uniform(&a) && !op_has(op, "local") ? fresh(b, SP_OTHER) : unknown_val;
    }
    if (!eval_pure(op))
        return unknown_val;
    aval k;
    if (fold_const(s, &x, &y, &k))
        return k;
    if (op_is(op, "selp") && n == 4 && *s->ops[3] == '%') { /* a constant predicate picks */
        int pr = reg_find(b, s->ops[3]);
        if (pr >= 0 && b->regs[pr].defs == 1 && b->regs[pr].pc >= 0)
            return b->regs[pr].pc ? x : y;
    }
    aval u = all_uniform(b, s, 1) ? fresh(b, SP_OTHER) : unknown_val;
    ival iv;
    int iw = 0;
    bool isg = false;
    bool irk = b->ir_stmt == s ? (iv = b->ir_v, iw = b->ir_w, isg = b->ir_sg, b->ir_ok)
                               : int_value_def(b, s, &iv, &iw, &isg);
    int64_t ic;
    if (irk && iv_point(&iv, iw, isg, &ic)) {
        /* (int)(x * 0.0f), (int)fminf(fabsf(x), 0.5f), (int)fminf(fabsf(x), 1.0f) >> 1 and
         * & 2: 0 for every x (REF14's cvt of a float range, REF15's integer ranges, REF16's
         * known bits) */
        aval z = unknown_val;
        z.known = true;
        z.c = ic;
        return z;
    }
    if (op_float(op) && !op_is(op, "cvta"))
        return u;
    if (op_is(op, "add") && n == 3 && !op_has(op, "cc") && !op_has(op, "sat"))
        return val_add(b, x, y, 1);
    if (op_is(op, "sub") && n == 3 && !op_has(op, "cc") && !op_has(op, "sat"))
        return val_add(b, x, y, -1);
    if ((op_is(op, "mul") && (op_has(op, "lo") || op_has(op, "wide"))) && n == 3)
        return val_mul(b, x, y);
    if ((op_is(op, "mad") && (op_has(op, "lo") || op_has(op, "wide"))) && n == 4 &&
        !op_has(op, "cc") && !op_has(op, "sat"))
        return val_add(b, val_mul(b, x, y), operand_val(b, s->ops[3]), 1);
    if (op_is(op, "shl") && n == 3 && val_const(&y) && y.c >= 0 && y.c < 31)
        return val_scale(b, x, (int64_t)1 << y.c);
    if (op_is(op, "neg") && n == 2)
        return val_scale(b, x, -1);
    if (op_is(op, "cvt") && n == 2 && op_int_cvt(op) && !op_has(op, "sat"))
        return x;
    if (op_is(op, "cvta") && n == 2 && x.known) {
        if (!op_has(op, "shared"))
            return u;
        aval r = x;
        if (!x.sym)
            return u;
        int sp = b->sym_space[x.sym];
        if (op_has(op, "to")) { /* generic to a shared-window offset */
            if (sp != SP_GENERIC || !b->sym_gen[x.sym])
                return val_uniform(&x) ? fresh(b, SP_SHARED) : unknown_val;
            r.sym = b->sym_gen[x.sym];
            return r;
        }
        if (sp != SP_SHARED)
            return val_uniform(&x) ? fresh(b, SP_GENERIC) : unknown_val;
        if (!b->sym_gen[x.sym]) {
            int g = sym_new(b, SP_GENERIC);
            if (!g)
                return unknown_val;
            b->sym_gen[x.sym] = g;
            b->sym_gen[g] = x.sym;
        }
        r.sym = b->sym_gen[x.sym];
        return r;
    }
    return u;
}

/* ---- the body's judgement ---- */

typedef struct {
    long first, last; /* statements [first, last] */
    int succ[2];      /* fall-through, taken; -1 none */
    bool vis;         /* run at least once: reached */
    bool has_fall, has_taken; /* its last run left by these edges */
    tset fall_m, taken_m;     /* the tid.x values leaving by each */
    tset mend;        /* the tid.x values that reach its end (before its branch) */
    long idom;        /* its immediate dominator, -1: none */
    bool restore;     /* it post-dominates idom and heads no loop: every thread that reaches
                       * idom reaches it (mend of idom holds at its start) */
} block;

/* A statement as quoted: blanks collapsed to one space, no final ';'. */
static void quote_stmt(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    bool blank = false;
    for (const char *p = src; *p && n + 1 < cap; p++) {
        if (*p == ' ' || *p == '\t') {
            blank = true;
            continue;
        }
        if (blank && n)
            dst[n++] = ' ';
        blank = false;
        if (n + 1 < cap)
            dst[n++] = *p;
    }
    while (n && (dst[n - 1] == ';' || dst[n - 1] == ' '))
        n--;
    dst[n] = '\0';
}

static void result_take(ptxrace_result *out, const body *b, const stmt *ld, const stmt *st, long k)
{
    if (out->found && !out->barrier && out->ld_line <= ld->line)
        return; /* a pair read replaces a barrier that data decides: it stays the reason */
    out->found = true;
    out->barrier = false;
    out->k = k;
    out->ld_line = ld->line;
    out->st_line = st->line;
    out->ld_src = ld->src;
    out->st_src = st->src;
    out->src_file[0] = '\0';
    snprintf(out->src_file, sizeof out->src_file, "#%d", ld->src_file); /* named at the end */
    cut_copy(out->func, sizeof out->func, b->func);
    quote_stmt(out->ld_text, sizeof out->ld_text, ld->text);
    quote_stmt(out->st_text, sizeof out->st_text, st->text);
}

/* The guard's set: *g = the tid.x values that execute s (given m). false: it depends on
 * something the scan does not follow. */
static bool guard_set(const body *b, const stmt *s, const tset *m, tset *g, bool data_all)
{
    *g = *m;
    if (s->guard < 0)
        return true;
    const reg *r = &b->regs[s->guard];
    if (r->defs == 1 && r->pc >= 0) { /* decided: every thread or none */
        if (!r->pc != s->guard_neg)
            memset(g, 0, sizeof *g);
        return true;
    }
    if (r->defs > 1 && r->uni)
        return true;
    if (r->defs != 1 || r->pkind == P_VARY || r->pkind == P_NONE ||
        (r->pkind == P_DATA && !data_all))
        return false;
    if (r->pkind == P_UNIFORM || (r->pkind == P_DATA && data_all))
        return true;
    tset p = r->ptrue;
    if (s->guard_neg)
        for (int i = 0; i < PR_W; i++)
            p.w[i] = ~p.w[i];
    tset_and(g, &p);
    return true;
}

typedef struct {
    long nb;
    block *blk;
    long ns;          /* tracked stores */
    long *store_stmt; /* per tracked store: its statement */
    tset *store_m;    /* per tracked store: the tid.x values that execute it */
    long words;       /* per block, per set */
    uint64_t *live_a; /* per block: stores live with no barrier since */
    uint64_t *live_w; /* per block: stores live across a warp barrier only */
    long *pred_at;    /* per block: its predecessors are pred[pred_at[b] .. pred_at[b+1]) */
    long *pred;
    long *base_head;  /* per uniform unknown: its first tracked store (-1: none) */
    long *base_next;  /* per tracked store: the next with the same base */
    long nbase;
    bool data_all;    /* a branch on data (P_DATA) keeps every thread on both ways: the race
                       * pass (a race under `if (in[i] == in[i])` is a race); never in the
                       * rounds that decide uniformity, where it would make a register written
                       * on both sides of such a branch look uniform */
} flow;

/* The tid.x values that surely reach block bi's start, from its predecessors' last runs:
 * the intersection over the edges in (threads of a block split by a uniform branch all go
 * one way, so only what every way in brings is sure), joined with its immediate dominator's
 * end when every thread there comes here (if-then-else on tid.x rejoining). false: not
 * reached yet. */
static bool block_entry(const flow *f, long bi, const tset *full, tset *m)
{
    bool any = bi == 0;
    tset acc = *full;
    if (bi == 0)
        *m = *full;
    for (long i = f->pred_at[bi]; i < f->pred_at[bi + 1]; i++) {
        const block *p = &f->blk[f->pred[i]];
        if (!p->vis)
            continue;
        if (p->succ[0] == bi && p->has_fall) {
            tset_and(&acc, &p->fall_m);
            any = true;
        }
        if (p->succ[1] == bi && p->has_taken) {
            tset_and(&acc, &p->taken_m);
            any = true;
        }
    }
    if (!any)
        return false;
    const block *bk = &f->blk[bi];
    if (bk->restore && bk->idom >= 0 && f->blk[bk->idom].vis)
        for (int k = 0; k < PR_W; k++)
            acc.w[k] |= f->blk[bk->idom].mend.w[k];
    *m = acc;
    return true;
}

#define BIT(set, i) (((set)[(i) >> 6] >> ((i) & 63)) & 1)
#define SETBIT(set, i) ((set)[(i) >> 6] |= 1ull << ((i) & 63))

/* Run block bi from its entry facts. pass 0: propagate; 1: record each store's thread set;
 * 2: judge the loads. Returns whether a successor changed (pass 0). */
static bool block_run(body *b, flow *f, long bi, int pass, uint64_t *a, uint64_t *w,
                      ptxrace_result *out)
{
    block *bk = &f->blk[bi];
    tset m, full;
    tset_fill(&full, b->maxx);
    if (!block_entry(f, bi, &full, &m))
        return false;
    memcpy(a, f->live_a + bi * f->words, (size_t)f->words * 8);
    memcpy(w, f->live_w + bi * f->words, (size_t)f->words * 8);
    tset taken = m, fall = m;
    bool has_taken = false, has_fall = true;
    for (long i = bk->first; i <= bk->last; i++) {
        stmt *s = &b->st[i];
        tset g;
        if (pass == 1) {
            const reg *gr = s->guard >= 0 ? &b->regs[s->guard] : NULL;
            s->def_full = !memcmp(&m, &full, sizeof m) &&
                          (!gr || (gr->defs > 1 && gr->uni) ||
                           (gr->defs == 1 && gr->pkind == P_UNIFORM));
        }
        switch (s->kind) {
        case I_BAR:
            m = full;
            memset(a, 0, (size_t)f->words * 8);
            memset(w, 0, (size_t)f->words * 8);
            break;
        case I_BARN:
            memset(a, 0, (size_t)f->words * 8);
            memset(w, 0, (size_t)f->words * 8);
            break;
        case I_WBAR:
            for (long k = 0; k < f->words; k++) {
                w[k] |= a[k];
                a[k] = 0;
            }
            break;
        case I_ST:
            if (s->store_id >= 0) {
                if (pass == 1 && guard_set(b, s, &m, &g, f->data_all))
                    f->store_m[s->store_id] = g;
                SETBIT(a, s->store_id);
            }
            break;
        case I_LD:
            if (pass == 2 && s->tracked && guard_set(b, s, &m, &g, f->data_all) && tset_any(&g)) {
                /* a word this thread stored itself is not another's (two stores of one word
                 * with no barrier between would race anyway) */
                bool own = false;
                long head = s->base >= 0 && s->base < f->nbase ? f->base_head[s->base] : -1;
                for (long j = head; j >= 0 && !own; j = f->base_next[j]) {
                    if (!BIT(a, j) && !BIT(w, j))
                        continue;
                    const stmt *t = &b->st[f->store_stmt[j]];
                    if (t->base == s->base && t->a[0] == s->a[0] && t->a[1] == s->a[1] &&
                        t->a[2] == s->a[2] && t->c < wadd(s->c, s->width) &&
                        s->c < wadd(t->c, t->width))
                        own = true;
                }
                for (long j = head; j >= 0 && !own; j = f->base_next[j]) {
                    bool in_a = BIT(a, j), in_w = BIT(w, j);
                    if (!in_a && !in_w)
                        continue;
                    const stmt *t = &b->st[f->store_stmt[j]];
                    if (t->base != s->base || t->a[1] != s->a[1] || t->a[2] != s->a[2] ||
                        t->a[0] != s->a[0] || !s->a[0])
                        continue;
                    /* lane t+k's store covers [A*k + c_S, +w_S) past lane t's A*t: overlap with
                     * [c_L, c_L + w_L) iff A*k lies strictly between lo and hi */
                    /* far-apart constants (more than 2^40 bytes) are no address pair to solve */
                    const int64_t far = (int64_t)1 << 40;
                    if (s->c > far || s->c < -far || t->c > far || t->c < -far ||
                        s->a[0] > far || s->a[0] < -far)
                        continue;
                    int64_t A = s->a[0], lo = s->c - t->c - t->width, hi = s->c - t->c + s->width;
                    /* the k with lo < A*k < hi: A*k = |A|*kk with kk = sign(A)*k, and
                     * kk runs over floor(lo/|A|)+1 .. ceil(hi/|A|)-1 */
                    int64_t sg = A > 0 ? 1 : -1, aa = A * sg;
                    int64_t kmin = floor_div(lo, aa) + 1, kmax = -floor_div(-hi, aa) - 1;
                    if (kmin < -(PR_T - 1))
                        kmin = -(PR_T - 1);
                    if (kmax > PR_T - 1)
                        kmax = PR_T - 1;
                    for (int64_t kk = kmin; kk <= kmax; kk++) {
                        long k = (long)(kk * sg);
                        if (!k)
                            continue;
                        if (!in_a && (k < 32 && k > -32))
                            continue; /* a warp barrier lies between: only other warps race */
                        if (tset_pair(&g, &f->store_m[j], k)) {
                            result_take(out, b, s, t, k);
                            break;
                        }
                    }
                }
            }
            break;
        case I_RET:
            if (s->guard < 0) {
                has_fall = false;
            } else if (guard_set(b, s, &m, &g, f->data_all)) {
                for (int k = 0; k < PR_W; k++)
                    m.w[k] &= ~g.w[k];
            } else {
                memset(&m, 0, sizeof m);
            }
            break;
        case I_BRA:
            if (s->guard < 0) {
                has_fall = false;
                has_taken = true;
                taken = m;
            } else if (b->regs[s->guard].defs == 1 && b->regs[s->guard].pc >= 0) {
                /* decided (the block shape known): one way only */
                if (!b->regs[s->guard].pc == s->guard_neg) {
                    has_fall = false;
                    has_taken = true;
                    taken = m;
                } else {
                    memset(&taken, 0, sizeof taken);
                    fall = m;
                }
                goto branched;
            } else {
                has_taken = true;
                const reg *r = &b->regs[s->guard];
                bool whole = (r->defs > 1 && r->uni) ||
                             (r->defs == 1 && (r->pkind == P_UNIFORM ||
                                               (r->pkind == P_DATA && f->data_all)));
                if (!whole) {
                    if (r->defs == 1 && r->pkind == P_TID) {
                        guard_set(b, s, &m, &taken, f->data_all);
                        fall = m;
                        for (int k = 0; k < PR_W; k++)
                            fall.w[k] &= ~taken.w[k];
                        goto branched;
                    }
                    memset(&taken, 0, sizeof taken);
                    memset(&fall, 0, sizeof fall);
                    goto branched;
                }
                taken = m;
            }
            fall = m;
        branched:
            break;
        default:
            break;
        }
        /* a base made anew (the next trip of a loop): its old stores are elsewhere now */
        if (s->def_sym > 0 && s->def_sym < f->nbase)
            for (long j = f->base_head[s->def_sym]; j >= 0; j = f->base_next[j]) {
                a[j >> 6] &= ~(1ull << (j & 63));
                w[j >> 6] &= ~(1ull << (j & 63));
            }
    }
    if (!(bk->last >= bk->first && b->st[bk->last].kind == I_BRA))
        fall = m;
    if (pass)
        return false;
    bool changed = !bk->vis || bk->has_fall != has_fall || bk->has_taken != has_taken ||
                   memcmp(&bk->fall_m, &fall, sizeof fall) ||
                   memcmp(&bk->taken_m, &taken, sizeof taken) || memcmp(&bk->mend, &m, sizeof m);
    bk->vis = true;
    bk->has_fall = has_fall;
    bk->has_taken = has_taken;
    bk->fall_m = fall;
    bk->taken_m = taken;
    bk->mend = m;
    for (int e = 0; e < 2; e++) {
        long to = bk->succ[e];
        if (to < 0 || (e == 0 && !has_fall) || (e == 1 && !has_taken))
            continue;
        uint64_t *ta = f->live_a + to * f->words, *tw = f->live_w + to * f->words;
        for (long k = 0; k < f->words; k++) {
            if ((ta[k] | a[k]) != ta[k] || (tw[k] | w[k]) != tw[k])
                changed = true;
            ta[k] |= a[k];
            tw[k] |= w[k];
        }
    }
    return changed;
}

/* Dominators and post-dominators (bitsets, iterated), for each block's idom and restore.
 * Skipped (no restore anywhere) above PR_MAX_DOM blocks. HK_OK, HK_ENOMEM. */
#define PR_MAX_DOM 4096
static int flow_dominators(flow *f)
{
    long n = f->nb, words = (n + 63) / 64;
    for (long i = 0; i < n; i++) {
        f->blk[i].idom = -1;
        f->blk[i].restore = false;
    }
    if (n > PR_MAX_DOM)
        return HK_OK;
    uint64_t *dom = hk_malloc((size_t)(n * words) * 8), *pdom = hk_malloc((size_t)(n * words) * 8);
    uint64_t *tmp = hk_malloc((size_t)words * 8);
    bool *exits = hk_calloc((size_t)n, 1);
    if (!dom || !pdom || !tmp || !exits) {
        hk_free(dom);
        hk_free(pdom);
        hk_free(tmp);
        hk_free(exits);
        return HK_ENOMEM;
    }
    /* dom(0) = {0}; dom(b) = {b} + intersection of dom(preds) */
    for (long i = 0; i < n; i++) {
        memset(dom + i * words, i ? 0xff : 0, (size_t)words * 8);
        if (!i)
            SETBIT(dom, 0);
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (long bi = 1; bi < n; bi++) {
            memset(tmp, 0xff, (size_t)words * 8);
            for (long i = f->pred_at[bi]; i < f->pred_at[bi + 1]; i++)
                for (long k = 0; k < words; k++)
                    tmp[k] &= dom[f->pred[i] * words + k];
            SETBIT(tmp, bi);
            if (memcmp(tmp, dom + bi * words, (size_t)words * 8)) {
                memcpy(dom + bi * words, tmp, (size_t)words * 8);
                changed = true;
            }
        }
    }
    /* the blocks that can reach a return: only they have post-dominators that mean anything */
    for (long i = 0; i < n; i++)
        exits[i] = f->blk[i].succ[0] < 0 && f->blk[i].succ[1] < 0;
    changed = true;
    while (changed) {
        changed = false;
        for (long i = 0; i < n; i++)
            for (int e = 0; e < 2; e++)
                if (!exits[i] && f->blk[i].succ[e] >= 0 && exits[f->blk[i].succ[e]] &&
                    (f->blk[i].succ[e] != i)) {
                    /* reuse exits[] as "reaches a return" after the seed */
                    exits[i] = true;
                    changed = true;
                }
    }
    for (long i = 0; i < n; i++) {
        bool is_exit = f->blk[i].succ[0] < 0 && f->blk[i].succ[1] < 0;
        memset(pdom + i * words, is_exit ? 0 : 0xff, (size_t)words * 8);
        if (is_exit)
            SETBIT(pdom + i * words, i);
    }
    changed = true;
    while (changed) {
        changed = false;
        for (long bi = n - 1; bi >= 0; bi--) {
            if (f->blk[bi].succ[0] < 0 && f->blk[bi].succ[1] < 0)
                continue;
            memset(tmp, 0xff, (size_t)words * 8);
            for (int e = 0; e < 2; e++)
                if (f->blk[bi].succ[e] >= 0)
                    for (long k = 0; k < words; k++)
                        tmp[k] &= pdom[f->blk[bi].succ[e] * words + k];
            SETBIT(tmp, bi);
            if (memcmp(tmp, pdom + bi * words, (size_t)words * 8)) {
                memcpy(pdom + bi * words, tmp, (size_t)words * 8);
                changed = true;
            }
        }
    }
    for (long j = 1; j < n; j++) {
        /* idom: the strict dominator dominated by every other strict dominator */
        long best = -1, best_count = -1;
        for (long d = 0; d < n; d++) {
            if (d == j || !BIT(dom + j * words, d))
                continue;
            long count = 0;
            for (long k = 0; k < words; k++)
                count += __builtin_popcountll(dom[d * words + k]);
            if (count > best_count) {
                best = d;
                best_count = count;
            }
        }
        f->blk[j].idom = best;
        if (best < 0 || !exits[best] || !exits[j] || !BIT(pdom + best * words, j))
            continue;
        bool header = false; /* a predecessor it dominates: a back edge into it */
        for (long i = f->pred_at[j]; i < f->pred_at[j + 1]; i++)
            if (BIT(dom + f->pred[i] * words, j))
                header = true;
        f->blk[j].restore = !header;
    }
    hk_free(dom);
    hk_free(pdom);
    hk_free(tmp);
    hk_free(exits);
    return HK_OK;
}

static void body_clear(body *b)
{
    for (long i = 0; i < b->n; i++) {
        hk_free(b->st[i].text);
        hk_free(b->st[i].buf);
    }
    for (long i = 0; i < b->nregs; i++)
        hk_free(b->regs[i].name);
    for (long i = 0; i < b->nlabels; i++)
        hk_free(b->labels[i]);
    for (long i = 0; i < b->nnamed; i++)
        hk_free(b->sym_names[i]);
    hk_free(b->st);
    hk_free(b->regs);
    hk_free(b->hash);
    hk_free(b->labels);
    hk_free(b->sym_space);
    hk_free(b->sym_gen);
    hk_free(b->sym_names);
    hk_free(b->sym_named);
    hk_free(b->run);
    char func[sizeof b->func];
    memcpy(func, b->func, sizeof func);
    long maxx = b->maxx, ntid[3] = {b->ntid[0], b->ntid[1], b->ntid[2]};
    memset(b, 0, sizeof *b);
    memcpy(b->func, func, sizeof func);
    b->maxx = maxx;
    memcpy(b->ntid, ntid, sizeof ntid);
    b->unroll_ovf = -1;
}

/* Whether every register the operand names reads the same in every thread (uni_new), or
 * it names only immediates, symbols and uniform special registers. */
static bool operand_uni(body *b, const char *o)
{
    for (const char *p = o; *p; p++) {
        if (*p != '%')
            continue;
        char name[64];
        size_t n = 0;
        while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '%' || p[n] == '_' || p[n] == '$' ||
                        p[n] == '.') && n + 1 < sizeof name) {
            name[n] = p[n];
            n++;
        }
        name[n] = '\0';
        p += n - 1;
        if (strchr(name, '.')) {
            aval v = operand_val(b, name);
            if (!val_uniform(&v))
                return false;
            continue;
        }
        int r = reg_find(b, name);
        if (r < 0 || b->regs[r].defs < 1) { /* a special register without a dot (%gridid) */
            aval v = operand_val(b, name);
            if (!val_uniform(&v))
                return false;
            continue;
        }
        if (!b->regs[r].uni_new)
            return false;
    }
    return true;
}

/* The registers written more than once that hold one value across the block wherever read
 * (a loop bound halved each trip: `s = blockDim.x / 2 ... s >>= 1`): every write is
 * executed by every thread that reaches it (def_full, from the last flow) and computes a
 * pure function of such values. Greatest fixed point over the body, starting from the
 * registers still taken as uniform (uni). Sets uni_new. */
static void uni_solve(body *b)
{
    static const char *const pure[] = {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and",
                                       "or", "xor", "not", "neg", "cvt", "cvta", "div", "rem",
                                       "min", "max", "selp", "setp", "abs", "bfe", "bfi", "popc",
                                       "clz", "brev", "prmt", "sad", "cnot", "slct", "set",
                                       "ld", NULL};
    for (long r = 0; r < b->nregs; r++)
        b->regs[r].uni_new = b->regs[r].defs == 1 || (b->regs[r].defs > 1 && b->regs[r].uni);
    bool changed = true;
    while (changed) {
        changed = false;
        for (long i = 0; i < b->n; i++) {
            stmt *s = &b->st[i];
            int d[64];
            int nd = stmt_dests(b, s, d, 64);
            if (nd <= 0)
                continue;
            bool ok = false;
            for (int k = 0; pure[k]; k++)
                if (op_is(s->op, pure[k]))
                    ok = true;
            if (op_is(s->op, "ld") && (op_has(s->op, "local") || op_has(s->op, "volatile") ||
                                       op_has(s->op, "relaxed") || op_has(s->op, "acquire") ||
                                       op_has(s->op, "mmio")))
                ok = false; /* a value that may change between two threads' reads */
            if ((s->guard >= 0 && !b->regs[s->guard].uni_new) || s->ops_cut)
                ok = false;
            for (int k = 1; ok && k < s->nops; k++)
                if (!operand_uni(b, s->ops[k]))
                    ok = false;
            for (int k = 0; k < nd; k++) {
                reg *r = &b->regs[d[k]];
                bool keep = ok && (r->defs == 1 || s->def_full);
                if (r->uni_new && !keep) {
                    r->uni_new = false;
                    changed = true;
                }
            }
        }
    }
}

/* The constant a predicate operand reads (a predicate register written once to one, `!` it
 * negated), -1: none. */
static int pred_operand(const body *b, const char *o)
{
    bool neg = *o == '!';
    int r = reg_find(b, neg ? o + 1 : o);
    if (r < 0 || b->regs[r].defs != 1 || b->regs[r].pc < 0)
        return -1;
    return neg ? !b->regs[r].pc : b->regs[r].pc;
}

/* The constant a predicate-writing statement gives its (first) destination: an integer setp of
 * two constants, and/or/xor/not/mov.pred decided by their constant operands. -1: not one. */
static int pred_const(body *b, stmt *s)
{
    if (s->ops_cut)
        return -1;
    if (op_is(s->op, "setp")) {
        if (s->nops != 3)
            return -1;
        bool sgn = false;
        int bits = int_type(s->op, &sgn, false);
        aval x = operand_val(b, s->ops[1]), y = operand_val(b, s->ops[2]);
        if (!bits || !val_const(&x) || !val_const(&y))
            return -1;
        char cmp[8];
        cut_copy(cmp, sizeof cmp, strchr(s->op, '.') + 1);
        char *e = strchr(cmp, '.');
        if (e)
            *e = '\0';
        bool res;
        return cmp_eval(cmp, sgn, int_norm(x.c, bits, sgn), int_norm(y.c, bits, sgn), &res) ? res
                                                                                           : -1;
    }
    if (!op_has(s->op, "pred"))
        return -1;
    int p = s->nops > 1 ? pred_operand(b, s->ops[1]) : -1;
    int q = s->nops > 2 ? pred_operand(b, s->ops[2]) : -1;
    if ((op_is(s->op, "mov") || op_is(s->op, "not")) && s->nops == 2)
        return p < 0 ? -1 : op_is(s->op, "not") ? !p : p;
    if (s->nops != 3)
        return -1;
    if (op_is(s->op, "and"))
        return !p || !q ? 0 : p == 1 && q == 1 ? 1 : -1;
    if (op_is(s->op, "or"))
        return p == 1 || q == 1 ? 1 : !p && !q ? 0 : -1;
    if (op_is(s->op, "xor"))
        return p < 0 || q < 0 ? -1 : p ^ q;
    return -1;
}

static void eval_once(body *b, flow *f, ptxrace_result *out);

/* (REF20) Whether what register r now holds (its irng, iw, isg, iv) is inside hypothesis h:
 * h any value, or both known at one type with r's range inside h's and every bit h knows
 * known alike in r. */
static bool sw_within(const reg *r, const struct swsnap *h)
{
    if (h->bot)
        return false;
    if (!h->irng)
        return true;
    if (!r->irng || r->iw != h->iw || r->isg != h->isg)
        return false;
    if (h->iv.rk && (!r->iv.rk || r->iv.lo < h->iv.lo || r->iv.hi > h->iv.hi))
        return false;
    return !(h->iv.kz & ~r->iv.kz) && !(h->iv.ko & ~r->iv.ko);
}

/* (REF20) h widened to hold what register r now holds too. */
static void sw_join(struct swsnap *h, const reg *r)
{
    if (h->bot) {
        *h = (struct swsnap){r->irng, r->isg, r->iw, r->iv, false};
        return;
    }
    if (!h->irng || !r->irng || r->iw != h->iw || r->isg != h->isg) {
        h->irng = false;
        return;
    }
    h->iv.rk = h->iv.rk && r->iv.rk;
    if (r->iv.lo < h->iv.lo)
        h->iv.lo = r->iv.lo;
    if (r->iv.hi > h->iv.hi)
        h->iv.hi = r->iv.hi;
    h->iv.kz &= r->iv.kz;
    h->iv.ko &= r->iv.ko;
    iv_norm(&h->iv, h->iw, h->isg);
}

/* Evaluate every register and shared access in text order (one round). (REF19) Where a shared
 * word's store writes a register the text writes after the word's load (shared_word:
 * sw_late), once more, that store's value now the first evaluation's: a judgement made with
 * that load not known (or read from earlier stores alone), so it holds whatever the word
 * holds; the counts in out are the second's alone. (REF20) Before that, a hypothesis: each
 * such register (the late stores' values) holds h(r), at first nothing (the word reads its
 * earlier stores alone); the body is evaluated with the word's loads reading the union of its
 * stores so, and where every late register then holds a value inside h(r) the hypothesis is
 * an invariant (the first store outside it would have been computed from loads inside it)
 * and that evaluation stands; else h(r) widened to hold it, for at most SW_ROUNDS rounds,
 * after which REF19's second evaluation runs. A late value made from the word itself
 * (spin_int_swordloop_evade.cu: ((z << 1) | z) * 3 of z = w) is so read. */
#define SW_ROUNDS 3
static void eval_sw(body *b, flow *f, ptxrace_result *out)
{
    long counts[5] = {0};
    if (out) {
        counts[0] = out->shared_loads, counts[1] = out->shared_stores;
        counts[2] = out->resolved_loads, counts[3] = out->resolved_stores;
        counts[4] = out->data_loads;
    }
    b->sw_late = false;
    b->nlate = 0;
    b->late_over = false;
    b->sw_hyp = false;
    eval_once(b, f, out);
    if (!b->sw_late || b->nregs <= 0)
        return;
    struct swsnap *snap = hk_malloc((size_t)b->nregs * sizeof *snap);
    if (!snap)
        return; /* the first evaluation stands: its stores after a load are not known */
    for (long r = 0; r < b->nregs; r++)
        snap[r] = (struct swsnap){b->regs[r].irng, b->regs[r].isg, b->regs[r].iw, b->regs[r].iv,
                                  false};
    struct swsnap *hyp = !b->late_over && b->nlate > 0
                             ? hk_malloc((size_t)b->nregs * sizeof *hyp)
                             : NULL;
    if (hyp) {
        memcpy(hyp, snap, (size_t)b->nregs * sizeof *hyp);
        for (int q = 0; q < b->nlate; q++)
            hyp[b->late[q]].bot = true;
        for (int round = 0; round < SW_ROUNDS; round++) {
            if (out) {
                out->shared_loads = counts[0], out->shared_stores = counts[1];
                out->resolved_loads = counts[2], out->resolved_stores = counts[3];
                out->data_loads = counts[4];
            }
            b->snap = hyp;
            b->sw_hyp = true;
            b->sw_unlisted = false;
            eval_once(b, f, out);
            b->snap = NULL;
            b->sw_hyp = false;
            bool inside = !b->sw_unlisted;
            for (int q = 0; q < b->nlate; q++)
                if (!sw_within(&b->regs[b->late[q]], &hyp[b->late[q]])) {
                    inside = false;
                    sw_join(&hyp[b->late[q]], &b->regs[b->late[q]]);
                }
            if (inside) {
                hk_free(hyp);
                hk_free(snap);
                return;
            }
        }
        hk_free(hyp);
    }
    if (out) {
        out->shared_loads = counts[0], out->shared_stores = counts[1];
        out->resolved_loads = counts[2], out->resolved_stores = counts[3];
        out->data_loads = counts[4];
    }
    b->snap = snap;
    eval_once(b, f, out);
    b->snap = NULL;
    hk_free(snap);
}

/* (REF20) Whether write t's value (mok, mv at mw / msg) lies inside hypothesis h. */
static bool mh_within(const stmt *t, const struct swsnap *h)
{
    if (!t->mok || t->mw != h->iw || t->msg != h->isg)
        return false;
    if (h->iv.rk && (!t->mv.rk || t->mv.lo < h->iv.lo || t->mv.hi > h->iv.hi))
        return false;
    return !(h->iv.kz & ~t->mv.kz) && !(h->iv.ko & ~t->mv.ko);
}

/* (REF20) A merge of a loop (a register written before a loop and in it, each write in the
 * loop made from the register itself, directly or through others: `z = v & 2; for (...) if
 * (c) z = (z << 2) | (z * 3);`): after an evaluation (eval_sw), each register written twice
 * or more whose writes are each one unguarded statement writing it alone, none an add or sub
 * of the register itself (a counter: it grows), some of whose writes were judged a known value
 * and others not, gets the hypothesis h(r): the union of those known values. The body is
 * evaluated again with every read of r that every way in reaches through a write of r reading
 * h(r) (merge_value); where each write of r then has a value judged inside h(r), h(r) holds in
 * every run (the first write outside it would have been computed from reads inside it); a
 * register where one does not loses its hypothesis and the body is evaluated again (at most
 * MH_ROUNDS times; then once with none, as before). */
#define MH_ROUNDS 3
static void eval_all(body *b, flow *f, ptxrace_result *out)
{
    long counts[5] = {0};
    if (out) {
        counts[0] = out->shared_loads, counts[1] = out->shared_stores;
        counts[2] = out->resolved_loads, counts[3] = out->resolved_stores;
        counts[4] = out->data_loads;
    }
    b->mhyp = NULL;
    eval_sw(b, f, out);
    if (b->nregs <= 0)
        return;
    struct swsnap *h = NULL;
    long nh = 0;
    for (long i = 0; i < b->n; i++) {
        const stmt *t = &b->st[i];
        if (t->mreg < 0 || !t->mok)
            continue;
        const reg *g = &b->regs[t->mreg];
        if (!g->mbad || g->mhard || g->defs < 2)
            continue; /* every write known: read as REF19 reads it; or one not of this form */
        if (!h) {
            h = hk_calloc((size_t)b->nregs, sizeof *h);
            if (!h)
                return;
            for (long r = 0; r < b->nregs; r++)
                h[r].bot = true;
        }
        struct swsnap *x = &h[t->mreg];
        if (x->bot) {
            *x = (struct swsnap){true, t->msg, t->mw, t->mv, false};
            nh++;
        } else if (x->irng && x->iw == t->mw && x->isg == t->msg) {
            x->iv.rk = x->iv.rk && t->mv.rk;
            if (t->mv.lo < x->iv.lo)
                x->iv.lo = t->mv.lo;
            if (t->mv.hi > x->iv.hi)
                x->iv.hi = t->mv.hi;
            x->iv.kz &= t->mv.kz;
            x->iv.ko &= t->mv.ko;
            iv_norm(&x->iv, x->iw, x->isg);
        } else
            x->irng = false;
    }
    if (!h)
        return;
    /* every write of each: one unguarded statement writing it alone (mhard: none other; so
     * each is a statement with mreg set), not its counter; and (the cost: a round that cannot
     * hold is two evaluations more) each write not known in that evaluation reads it, or a
     * register written once from it, and no other register not known, no memory */
    long *defat = NULL;
    for (long i = 0; i < b->n; i++) {
        const stmt *t = &b->st[i];
        if (t->mreg < 0 || h[t->mreg].bot || !h[t->mreg].irng)
            continue;
        int me = t->mreg;
        bool bad = false;
        if (op_is(t->op, "add") || op_is(t->op, "sub"))
            for (int j = 1; j < t->nops; j++)
                bad = bad || reg_find(b, t->ops[j]) == me;
        if (!bad && !t->mok) {
            bad = t->kind == I_LD || t->kind == I_ST || op_is(t->op, "ld") ||
                  op_is(t->op, "atom") || t->nops < 2;
            if (!bad && !defat) { /* where each register written once is written */
                defat = hk_malloc((size_t)b->nregs * sizeof *defat);
                if (!defat) {
                    hk_free(h);
                    return;
                }
                for (long r = 0; r < b->nregs; r++)
                    defat[r] = -1;
                for (long q = 0; q < b->n; q++) {
                    int d[4];
                    int nd = b->st[q].kind == I_LABEL ? 0 : stmt_dests(b, &b->st[q], d, 4);
                    for (int k = 0; k < nd && k < 4; k++)
                        if (b->regs[d[k]].defs == 1)
                            defat[d[k]] = q;
                }
            }
            bool reads = false;
            for (int j = 1; j < t->nops && !bad; j++) {
                char rb[PR_LINE];
                const char *rs[16];
                int nr = op_regs(t->ops[j], rb, sizeof rb, rs, 16);
                if (nr < 0)
                    bad = true;
                for (int q = 0; q < nr && !bad; q++) {
                    int y = reg_find(b, rs[q]);
                    if (y == me) {
                        reads = true;
                        continue;
                    }
                    if (y < 0 || b->regs[y].defs != 1 || defat[y] < 0) {
                        bad = true; /* another merge, a special register */
                        continue;
                    }
                    const stmt *u = &b->st[defat[y]];
                    bool from = false;
                    for (int m = 1; m < u->nops; m++)
                        from = from || mentions(u->ops[m], b->regs[me].name);
                    if (from && (op_is(u->op, "add") || op_is(u->op, "sub")))
                        bad = true; /* a counter through another register */
                    else if (from)
                        reads = true;
                    else if (!b->regs[y].irng)
                        bad = true; /* a value not known, not made from it */
                }
            }
            bad = bad || !reads;
        }
        if (bad)
            h[me].irng = false;
    }
    hk_free(defat);
    bool held = false, ran = false;
    for (int round = 0; round < MH_ROUNDS; round++) {
        bool any = false;
        for (long r = 0; r < b->nregs; r++)
            any = any || (!h[r].bot && h[r].irng);
        if (!any)
            break;
        if (out) {
            out->shared_loads = counts[0], out->shared_stores = counts[1];
            out->resolved_loads = counts[2], out->resolved_stores = counts[3];
            out->data_loads = counts[4];
        }
        b->mhyp = h;
        eval_sw(b, f, out);
        b->mhyp = NULL;
        held = ran = true;
        for (long i = 0; i < b->n; i++) {
            const stmt *t = &b->st[i];
            if (t->mreg >= 0 && !h[t->mreg].bot && h[t->mreg].irng && !mh_within(t, &h[t->mreg])) {
                h[t->mreg].irng = false; /* a write outside it: no hypothesis */
                held = false;
            }
        }
        if (held)
            break;
    }
    if (!held) { /* none held: the evaluation with none (REF19's reading) */
        if (ran) {
            if (out) {
                out->shared_loads = counts[0], out->shared_stores = counts[1];
                out->resolved_loads = counts[2], out->resolved_stores = counts[3];
                out->data_loads = counts[4];
            }
            eval_sw(b, f, out);
        }
    }
    hk_free(h);
}

static void eval_once(body *b, flow *f, ptxrace_result *out)
{
    for (long r = 0; r < b->nregs; r++) {
        reg *g = &b->regs[r];
        g->v = unknown_val;
        g->pkind = P_NONE;
        g->pc = -1;
        g->fset = 0;
        g->fw = 0;
        g->flo = -INFINITY;
        g->fhi = INFINITY;
        g->irng = false; /* (REF16) a read before the write in text order: nothing known (a
                          * guard known true at another launch may not be here) */
        g->tname = NULL;
        g->tname2 = NULL;
        if (g->defs > 1 && g->uni)
            g->uval = fresh(b, SP_OTHER);
    }
    f->ns = 0;
    b->epoch++; /* (REF19) shared_word's covers: asked again with this round's predicates */
    local_proof(b);
    for (long i = 0; i < b->n; i++) { /* (REF19) a merge's writes: judged anew, in text order */
        b->st[i].mok = false;
        b->st[i].mreg = -1;
    }
    for (long r = 0; r < b->nregs; r++) {
        b->regs[r].mbad = false;
        b->regs[r].mhard = false;
        b->regs[r].mseen = 0;
    }
    int fixr[2 * PR_FIX];
    for (int k = 0; k < b->nfix; k++)
        fixr[k] = reg_find(b, b->fixname[k]);
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        b->at = s; /* (REF19) its own operands read a merge's register there */
        s->tracked = false;
        s->store_id = -1;
        s->def_sym = 0;
        if ((s->kind == I_LD || s->kind == I_ST) && (s->nops >= 1)) {
            aval v = address_val(b, s->ops[s->kind == I_LD ? (s->nops > 1 ? 1 : 0) : 0]);
            bool gen_shared = v.known && v.sym && b->sym_space[v.sym] == SP_GENERIC;
            if (!s->generic || gen_shared) {
                bool ld = s->kind == I_LD;
                if (out) {
                    if (ld)
                        out->shared_loads++;
                    else
                        out->shared_stores++;
                }
                if (v.known && v.a[0]) {
                    s->tracked = true;
                    s->base = gen_shared ? b->sym_gen[v.sym] : v.sym;
                    s->c = v.c;
                    memcpy(s->a, v.a, sizeof s->a);
                    if (out) {
                        if (ld)
                            out->resolved_loads++;
                        else
                            out->resolved_stores++;
                    }
                    if (!ld)
                        s->store_id = (int)f->ns++;
                }
            }
        }
        int d[64];
        int nd = stmt_dests(b, s, d, 64);
        if (nd <= 0)
            continue;
        aval dv;
        int64_t few[8];
        if (out && b->data && nd == 1 && s->nops == 2 && op_is(s->op, "ld") &&
            (module_data_load(b, s, &dv) || module_data_values(b, s, few, 8)))
            out->data_loads++;
        bool gh = guard_holds(b, s); /* (REF16) the write surely runs where it is reached */
        int pcv = gh ? pred_const(b, s) : -1;
        if (pcv >= 0)
            for (int k = 0; k < nd && k < 2; k++)
                if (b->regs[d[k]].defs == 1)
                    b->regs[d[k]].pc = (signed char)(k ? !pcv : pcv); /* %p|%q: q negated */
        if (op_is(s->op, "setp")) {
            tset t;
            int pk = gh ? setp_info(b, s, &t) : P_VARY;
            for (int k = 0; k < nd && k < 2; k++) {
                reg *r = &b->regs[d[k]];
                r->pkind = pk;
                if (pk == P_UNIFORM && r->defs == 1)
                    r->v = fresh(b, SP_OTHER); /* so and.pred/selp of it read as uniform */
                if (pk == P_DATA && r->defs == 1)
                    r->v = unknown_val, r->v.data = true;
                for (int fi = 0; fi < b->nfix; fi++)
                    if (fixr[fi] == d[k] && r->defs == 1) {
                        r->pc = (signed char)(b->fixval[fi] != 0); /* as its selp was judged */
                        r->pkind = P_UNIFORM;
                        r->v = fresh(b, SP_OTHER);
                    }
                if (pk == P_TID) {
                    r->ptrue = t;
                    if (k == 1) /* %p|%q: q is the negation */
                        for (int j = 0; j < PR_W; j++)
                            r->ptrue.w[j] = ~t.w[j];
                    /* (REF12) false for every tid.x the block has, or true for every one: a
                     * constant at this shape, as `t >= blockDim.x` is (maxx bounds tid.x, so
                     * a smaller block than .maxntid's agrees) */
                    if (r->defs == 1 && r->pc < 0) {
                        tset full;
                        tset_fill(&full, b->maxx);
                        bool none = true, all = true;
                        for (int j = 0; j < PR_W; j++) {
                            if (r->ptrue.w[j] & full.w[j])
                                none = false;
                            if ((r->ptrue.w[j] & full.w[j]) != full.w[j])
                                all = false;
                        }
                        if (none || all)
                            r->pc = (signed char)all;
                    }
                }
            }
            continue;
        }
        bool ld = op_is(s->op, "ld");
        int before = b->nsym;
        for (int k = 0; k < nd; k++) {
            reg *r = &b->regs[d[k]];
            if (r->defs > 1 && r->uni && !s->def_sym)
                s->def_sym = r->uval.sym; /* a new value of the same unknown */
            if (r->defs > 1) { /* (REF19) a merge's write: noted, judged (merge_value) */
                r->mseen++;
                if (nd != 1 || s->guard >= 0 || s->ops_cut || op_is(s->op, "call"))
                    r->mbad = r->mhard = true;
                for (int j = 1; j < s->nops && !r->mbad; j++) {
                    char rb[PR_LINE];
                    const char *rs[16];
                    int nr = op_regs(s->ops[j], rb, sizeof rb, rs, 16);
                    if (nr < 0)
                        r->mbad = true;
                    for (int q = 0; q < nr; q++)
                        if (reg_find(b, rs[q]) == d[k] &&
                            !(b->mhyp && !b->mhyp[d[k]].bot && b->mhyp[d[k]].irng))
                            r->mbad = true; /* it reads itself: a loop's counter (REF20: read
                                             * under a hypothesis, the value checked after) */
                }
                if (nd == 1) {
                    s->mreg = d[k];
                    int mw = 0;
                    bool msg = false;
                    s->mok = !r->mbad && gh && int_value_def(b, s, &s->mv, &mw, &msg);
                    s->mw = (unsigned char)mw;
                    s->msg = msg;
                }
                if (s->mok) { /* a write of any value of its type: nothing to read */
                    uint64_t m = iv_mask(s->mw);
                    bool some = ((s->mv.kz | s->mv.ko) & m) != 0 ||
                                (s->mv.rk && (s->mv.lo != ir_min(s->mw, s->msg) ||
                                              s->mv.hi != ir_max(s->mw, s->msg)));
                    s->mok = some;
                }
                if (!s->mok)
                    r->mbad = true; /* a write whose value is not known: none read */
            }
            if (r->defs != 1)
                continue;
            double flo = -INFINITY, fhi = INFINITY;
            r->fset = nd == 1 && gh ? (unsigned char)float_set_def(b, s, &flo, &fhi) : 0;
            char ft[4][8];
            r->fw = r->fset && op_types(s->op, ft, 4) >= 1 && !strcmp(ft[0], "f64") ? 64
                    : r->fset                                                      ? 32
                                                                                   : 0;
            r->flo = flo;
            r->fhi = fhi;
            b->ir_w = 0;
            b->ir_sg = false;
            b->ir_ok = nd == 1 && gh && int_value_def(b, s, &b->ir_v, &b->ir_w, &b->ir_sg);
            b->ir_stmt = nd == 1 ? s : NULL; /* eval_stmt_value reads it */
            r->irng = b->ir_ok;
            r->iv = b->ir_v;
            r->iw = (unsigned char)b->ir_w;
            r->isg = b->ir_sg;
            if (nd == 1 && gh &&
                !const_table_addr(b, s, &r->tname, &r->toff, &r->tname2, &r->toff2))
                r->tname = NULL, r->tname2 = NULL;
            /* (REF16) a write that may not run (a guard not known true) leaves the register,
             * where it does not, as it was: never written, any value -- not the value the
             * statement computes */
            r->v = (nd == 1 || ld) && gh ? eval_stmt(b, s) : unknown_val;
            b->ir_stmt = NULL;
            for (int fi = 0; fi < b->nfix; fi++)
                if (fixr[fi] == d[k]) { /* judged at one of its few values */
                    r->v = unknown_val;
                    r->v.known = true;
                    r->v.c = b->fixval[fi];
                }
            r->pkind = val_uniform(&r->v)            ? P_UNIFORM
                       : !r->v.known && r->v.data ? P_DATA
                                                  : P_VARY;
            if (r->v.known && r->v.sym > before && !s->def_sym)
                s->def_sym = r->v.sym; /* made here: in a loop, made anew each trip */
        }
    }
    b->at = NULL;
}

/* After a round's values: each tracked store's statement, and the stores per base. HK_OK,
 * HK_ENOMEM. */
static int flow_bases(body *b, flow *f)
{
    hk_free(f->base_head);
    hk_free(f->base_next);
    f->nbase = b->nsym + 1;
    f->base_head = hk_malloc((size_t)f->nbase * sizeof *f->base_head);
    f->base_next = hk_malloc((size_t)(f->ns + 1) * sizeof *f->base_next);
    if (!f->base_head || !f->base_next)
        return HK_ENOMEM;
    for (long i = 0; i < f->nbase; i++)
        f->base_head[i] = -1;
    for (long i = b->n - 1; i >= 0; i--) {
        const stmt *s = &b->st[i];
        if (s->store_id < 0)
            continue;
        f->store_stmt[s->store_id] = i;
        f->base_next[s->store_id] = -1;
        if (s->base >= 0 && s->base < f->nbase) {
            f->base_next[s->store_id] = f->base_head[s->base];
            f->base_head[s->base] = s->store_id;
        }
    }
    return HK_OK;
}

/* Judge one parsed body into out. */
/* Per register: whether its value depends on memory contents -- written by a load (not of a
 * parameter) or an atomic, or computed from such a register (the whole body, to a fixed
 * point; a register in braces or an address is not followed: fewer registers marked). */
static void data_taint(body *b, bool *dt)
{
    for (int pass = 0; pass < 8; pass++) {
        bool grew = false;
        for (long i = 0; i < b->n; i++) {
            stmt *s = &b->st[i];
            int d[64];
            int nd = stmt_dests(b, s, d, 64);
            if (nd <= 0)
                continue;
            bool t = (op_is(s->op, "ld") && !op_has(s->op, "param")) || op_is(s->op, "atom");
            for (int k = 1; k < s->nops && !t && !s->ops_cut; k++) {
                int r = *s->ops[k] == '%' ? reg_find(b, s->ops[k]) : -1;
                t = r >= 0 && dt[r];
            }
            for (int k = 0; k < nd && t; k++)
                if (!dt[d[k]])
                    dt[d[k]] = grew = true;
        }
        if (!grew)
            break;
    }
}

/* ---- a barrier that data decides ---- */

/* Whether s is a barrier of the whole block: bar.sync / barrier.sync with no thread count
 * (I_BAR), or bar.red / barrier.red with none (__syncthreads_count/_and/_or). */
static bool whole_barrier(const stmt *s)
{
    if (s->kind == I_BAR)
        return true;
    return (op_is(s->op, "bar") || op_is(s->op, "barrier")) && op_has(s->op, "red") &&
           !op_has(s->op, "warp") && s->nops == 3;
}

/* A special register whose value no launch constant decides: a clock, a timer, the SM or warp
 * slot the block runs on, a performance counter. */
static bool sense_special(const char *o)
{
    return !strcmp(o, "%clock") || !strcmp(o, "%clock64") || !strncmp(o, "%clock_hi", 9) ||
           !strncmp(o, "%globaltimer", 12) || !strcmp(o, "%smid") || !strcmp(o, "%nsmid") ||
           !strcmp(o, "%warpid") || !strcmp(o, "%nwarpid") || !strncmp(o, "%pm", 3);
}

/* The destination registers of s, with bar.red's (its first operand) added. */
static int bar_dests(body *b, stmt *s, int *d, int cap)
{
    if ((op_is(s->op, "bar") || op_is(s->op, "barrier")) && op_has(s->op, "red") && s->nops >= 1 &&
        *s->ops[0] == '%') {
        int r = reg_find(b, s->ops[0]);
        if (r < 0)
            return 0;
        d[0] = r;
        return 1;
    }
    return stmt_dests(b, s, d, cap);
}

/* Per register, the first statement that makes it depend on a seed: src[r] the seed's statement
 * (seed[i] >= 0: statement i's destinations are seeded with that origin), -1: none; carried
 * through every statement's operands (only those in[i] when in is given), to a fixed point. */
static void taint_run(body *b, const long *seed, const bool *in, long *src)
{
    for (long r = 0; r < b->nregs; r++)
        src[r] = -1;
    for (int pass = 0; pass < 16; pass++) {
        bool grew = false;
        for (long i = 0; i < b->n; i++) {
            stmt *s = &b->st[i];
            if (in && !in[i])
                continue;
            int d[64];
            int nd = bar_dests(b, s, d, 64);
            if (nd <= 0)
                continue;
            long from = seed[i];
            for (int k = 1; k < s->nops && from < 0 && !s->ops_cut; k++) {
                int r = *s->ops[k] == '%' ? reg_find(b, s->ops[k]) : -1;
                if (r >= 0 && src[r] >= 0)
                    from = src[r];
            }
            for (int k = 0; k < nd && from >= 0; k++)
                if (src[d[k]] < 0) {
                    src[d[k]] = from;
                    grew = true;
                }
        }
        if (!grew)
            break;
    }
}

/* The memory a load or store names: 1 shared, 2 global / local / const, 3 generic (either). */
static int mem_space(const char *op)
{
    if (op_has(op, "shared") || op_has(op, "shared::cta"))
        return 1;
    if (op_has(op, "global") || op_has(op, "local") || op_has(op, "const"))
        return 2;
    return 3;
}

/* The variable an address operand names (`[name]`, `[name+8]`), into dst; "" when it names a
 * register or nothing. */
static void mem_name(const char *o, char *dst, size_t cap)
{
    dst[0] = '\0';
    if (*o != '[')
        return;
    o++;
    while (*o == ' ')
        o++;
    if (!is_ident_start(*o))
        return;
    size_t k = 0;
    while (o[k] && (isalnum((unsigned char)o[k]) || o[k] == '_' || o[k] == '$') && k + 1 < cap) {
        dst[k] = o[k];
        k++;
    }
    dst[k] = '\0';
}

/* Whether s, in a loop, polls: a volatile, relaxed or acquire load or an atomic (a word read
 * again each trip, for another thread or launch to change; the address may move, as a walk
 * over several flags does), or a read of a sensing special register. */
static bool poll_seed(const stmt *s)
{
    for (int k = 1; k < s->nops && !s->ops_cut; k++)
        if (sense_special(s->ops[k]))
            return true;
    bool ld = op_is(s->op, "ld") && (op_has(s->op, "volatile") || op_has(s->op, "relaxed") ||
                                     op_has(s->op, "acquire"));
    return ld || op_is(s->op, "atom");
}

/* Whether block x is dominated by h (the idom chain; x == h counts). */
static bool dominated_by(const flow *f, long x, long h)
{
    for (long k = 0; x >= 0 && k <= f->nb; k++, x = f->blk[x].idom)
        if (x == h)
            return true;
    return false;
}

/* The tid.x values that surely execute statement i (in block bi) at the race pass: the block's
 * entry set (block_entry), less the threads a guarded return before it lets go, a whole-block
 * barrier gathering all again, then its guard (guard_set). false: not known. */
static bool stmt_tids(const body *b, const flow *f, long bi, long i, tset *g)
{
    tset m, full;
    tset_fill(&full, b->maxx);
    if (!block_entry(f, bi, &full, &m))
        return false;
    for (long j = f->blk[bi].first; j < i; j++) {
        const stmt *s = &b->st[j];
        tset r;
        if (s->kind == I_BAR)
            m = full;
        else if (s->kind == I_RET && s->guard >= 0) {
            if (!guard_set(b, s, &m, &r, true))
                return false;
            for (int k = 0; k < PR_W; k++)
                m.w[k] &= ~r.w[k];
        }
    }
    return guard_set(b, &b->st[i], &m, g, true);
}

/* Whether two threads of a block, of different tid.x, surely run one each (a in one, b in the
 * other). */
static bool tids_apart(const tset *a, const tset *b)
{
    long na = 0, nb = 0, ta = -1, tb = -1;
    for (long t = 0; t < PR_T; t++) {
        if (tset_has(a, t)) {
            na++;
            ta = t;
        }
        if (tset_has(b, t)) {
            nb++;
            tb = t;
        }
    }
    return na && nb && (na > 1 || nb > 1 || ta != tb);
}

/* The address operand of a load, store, atomic or reduction ("" where none is written). */
static const char *mem_operand(const stmt *s)
{
    for (int k = 0; k < s->nops && !s->ops_cut; k++)
        if (*s->ops[k] == '[')
            return s->ops[k];
    return "";
}

/* The loads that read a word a thread of the same block writes with no barrier of the whole
 * block between (a race on a word of any space): a load (not of a parameter or of constant
 * memory) and a store, atomic or reduction whose addresses are one uniform word at the launch
 * (the same block-uniform value, no tid term, the bytes overlapping), that two threads of
 * different tid.x surely run, and that some barrier interval holds both (a way from the entry
 * or a whole-block barrier to each that passes no other such barrier). What such a load reads
 * is the outcome of a race -- how far another thread has got -- and no data of the kernel's:
 * seeded as sensed (seed[j] = j). */
static int race_seeds(body *b, const flow *f, const long *blk_of, long *seed)
{
    long n = b->n, nbar = 1;
    for (long i = 0; i < n; i++)
        nbar += whole_barrier(&b->st[i]);
    long words = (nbar + 63) / 64;
    uint64_t *in = hk_calloc((size_t)(f->nb * words + 1), 8);
    uint64_t *cur = hk_calloc((size_t)(words + 1), 8);
    long *bid = hk_malloc((size_t)(n + 1) * sizeof *bid);
    long *acc = hk_malloc((size_t)(n + 1) * sizeof *acc);
    aval *av = hk_malloc((size_t)(n + 1) * sizeof *av); /* per acc entry: its address */
    uint64_t *orig = NULL;
    if (!in || !cur || !bid || !acc || !av) {
        hk_free(in);
        hk_free(cur);
        hk_free(bid);
        hk_free(acc);
        hk_free(av);
        return HK_ENOMEM;
    }
    for (long i = 0, k = 1; i < n; i++)
        bid[i] = whole_barrier(&b->st[i]) ? k++ : -1;
    /* the loads and stores to pair: one uniform word */
    long na = 0;
    for (long i = 0; i < n; i++) {
        const stmt *s = &b->st[i];
        bool ld = op_is(s->op, "ld") && !op_has(s->op, "param") && !op_has(s->op, "const");
        bool st = op_is(s->op, "st") || op_is(s->op, "atom") || op_is(s->op, "red");
        if ((!ld && !st) || s->ops_cut || blk_of[i] < 0 || !f->blk[blk_of[i]].vis ||
            op_has(s->op, "param") || op_has(s->op, "local"))
            continue;
        aval v = address_val(b, mem_operand(s));
        if (val_uniform(&v) && access_width(s->op) > 0) {
            av[na] = v;
            acc[na++] = i;
        }
    }
    if (na >= 2) {
        /* the barrier intervals reaching each block's entry */
        if (f->nb > 0)
            SETBIT(in, 0);
        for (bool changed = true; changed;) {
            changed = false;
            for (long bi = 0; bi < f->nb; bi++) {
                if (!f->blk[bi].vis)
                    continue;
                memcpy(cur, in + bi * words, (size_t)words * 8);
                for (long i = f->blk[bi].first; i <= f->blk[bi].last; i++)
                    if (bid[i] >= 0) {
                        memset(cur, 0, (size_t)words * 8);
                        SETBIT(cur, bid[i]);
                    }
                for (int e = 0; e < 2; e++) {
                    long to = f->blk[bi].succ[e];
                    if (to < 0 || !f->blk[to].vis ||
                        !(e == 0 ? f->blk[bi].has_fall : f->blk[bi].has_taken))
                        continue;
                    for (long k = 0; k < words; k++)
                        if ((in[to * words + k] | cur[k]) != in[to * words + k]) {
                            in[to * words + k] |= cur[k];
                            changed = true;
                        }
                }
            }
        }
        orig = hk_calloc((size_t)(na * words + 1), 8);
        if (!orig) {
            hk_free(in);
            hk_free(cur);
            hk_free(bid);
            hk_free(acc);
            hk_free(av);
            return HK_ENOMEM;
        }
        for (long q = 0; q < na; q++) {
            long i = acc[q], bi = blk_of[i];
            uint64_t *o = orig + q * words;
            memcpy(o, in + bi * words, (size_t)words * 8);
            for (long j = f->blk[bi].first; j < i; j++)
                if (bid[j] >= 0) {
                    memset(o, 0, (size_t)words * 8);
                    SETBIT(o, bid[j]);
                }
        }
    }
    for (long q = 0; q < na; q++) {
        const stmt *l = &b->st[acc[q]];
        if (!op_is(l->op, "ld") || seed[acc[q]] >= 0)
            continue;
        aval lv = av[q];
        int lw = access_width(l->op);
        tset lt;
        bool lt_known = false, raced = false;
        for (long p = 0; p < na && !raced; p++) {
            const stmt *s = &b->st[acc[p]];
            if (av[p].sym != lv.sym || op_is(s->op, "ld") || !(mem_space(l->op) & mem_space(s->op)))
                continue;
            aval sv = av[p];
            int sw = access_width(s->op);
            if (sv.sym != lv.sym || !(sv.c < wadd(lv.c, lw) && lv.c < wadd(sv.c, sw)))
                continue;
            bool shared = false;
            for (long k = 0; k < words && !shared; k++)
                shared = (orig[q * words + k] & orig[p * words + k]) != 0;
            if (!shared)
                continue;
            if (!lt_known && !(lt_known = stmt_tids(b, f, blk_of[acc[q]], acc[q], &lt)))
                break;
            tset stt;
            raced = stmt_tids(b, f, blk_of[acc[p]], acc[p], &stt) && tids_apart(&lt, &stt);
        }
        if (raced)
            seed[acc[q]] = acc[q];
    }
    hk_free(orig);
    hk_free(in);
    hk_free(cur);
    hk_free(bid);
    hk_free(acc);
    hk_free(av);
    return HK_OK;
}

/* What statement i calls, as the module's functions judged before it sense (fn_how: 1 it
 * returns a sensed value, 2 it stores one to memory; REF13: 4 it holds a barrier of the whole
 * block, 8 one its parameters decide, 16 one memory they point to decides; an indirect call,
 * through a register: what any of
 * them does), 0: not a call, or not to one of those.
 * nvcc writes `call.uni (retval0), NAME, (param0, ...);` over several lines: the name is then
 * the next statement's op. */
static unsigned char call_how(const body *b, long i)
{
    const stmt *s = &b->st[i];
    if (!op_is(s->op, "call") || !b->nfn)
        return 0;
    char nm[96] = "";
    for (int k = 0; k < s->nops && !nm[0]; k++)
        if (is_ident_start(*s->ops[k]))
            cut_copy(nm, sizeof nm, s->ops[k]);
    if (!nm[0] && i + 1 < b->n && is_ident_start(b->st[i + 1].op[0]))
        cut_copy(nm, sizeof nm, b->st[i + 1].op);
    size_t n = strlen(nm);
    while (n && (nm[n - 1] == ',' || nm[n - 1] == ' '))
        nm[--n] = '\0';
    unsigned char any = 0; /* (REF13) an indirect call (`call (retval0), %rd11, (param0),
                            * prototype_0;`): any function of the module -- what every one
                            * judged senses */
    for (int k = 0; k < b->nfn; k++) {
        if (!strcmp(nm, b->fn_name[k]))
            return b->fn_how[k];
        any |= b->fn_how[k];
    }
    return nm[0] == '%' ? any : 0;
}

/* Per register, the statement its value senses (src[r], -1: none): what a candidate reads to
 * tell a checked or timed run from another, as opposed to the data it computes on --
 *   - a clock, a timer, the SM or warp slot (sense_special);
 *   - a loop that polls memory: a natural loop (a back edge to a block that dominates its
 *     source) one of whose exits is a branch on a value a volatile / relaxed / acquire load
 *     or an atomic of the loop reads (poll_seed), on that trip (carried through the loop's statements alone): every register the loop
 *     writes, a count of its trips included, depends on when the polled word changed;
 *   - a load from memory (shared; global, local or const; generic: either) that some store
 *     or atomic writes a sensed value to (a word set from polling, read by other threads);
 * and whatever is computed from those (taint_run). Plain loads, atomics and loops over data
 * do not sense: a decision on them is a decision on the data the kernel computes on. */
static int sense_taint(body *b, const flow *f, const long *blk_of, long *src, long *csrc)
{
    long n = b->n;
    long *seed = hk_malloc((size_t)(n + 1) * sizeof *seed);
    long *lt = hk_malloc((size_t)(b->nregs + 1) * sizeof *lt);
    bool *in = hk_calloc((size_t)n + 1, sizeof *in);
    bool *inb = hk_calloc((size_t)f->nb + 1, sizeof *inb);
    long *todo = hk_malloc((size_t)(f->nb + 1) * sizeof *todo);
    if (!seed || !lt || !in || !inb || !todo) {
        hk_free(seed);
        hk_free(lt);
        hk_free(in);
        hk_free(inb);
        hk_free(todo);
        return HK_ENOMEM;
    }
    for (long i = 0; i < n; i++) {
        const stmt *s = &b->st[i];
        seed[i] = -1;
        for (int k = 1; k < s->nops && !s->ops_cut; k++)
            if (sense_special(s->ops[k]))
                seed[i] = i;
    }
    /* the loops that poll memory */
    for (long x = 0; x < f->nb; x++)
        for (int e = 0; e < 2; e++) {
            long h = f->blk[x].succ[e];
            if (h < 0 || !f->blk[x].vis || !dominated_by(f, x, h))
                continue;
            memset(inb, 0, (size_t)f->nb);
            long nt = 0;
            inb[h] = true;
            if (!inb[x]) {
                inb[x] = true;
                todo[nt++] = x;
            }
            while (nt > 0) {
                long y = todo[--nt];
                for (long k = f->pred_at[y]; k < f->pred_at[y + 1]; k++)
                    if (!inb[f->pred[k]]) {
                        inb[f->pred[k]] = true;
                        todo[nt++] = f->pred[k];
                    }
            }
            for (long i = 0; i < n; i++)
                in[i] = blk_of[i] >= 0 && inb[blk_of[i]];
            long *ls = hk_malloc((size_t)(n + 1) * sizeof *ls);
            if (!ls) {
                hk_free(seed);
                hk_free(lt);
                hk_free(in);
                hk_free(inb);
                hk_free(todo);
                return HK_ENOMEM;
            }
            for (long i = 0; i < n; i++)
                ls[i] = in[i] && poll_seed(&b->st[i]) ? i : -1;
            taint_run(b, ls, in, lt);
            hk_free(ls);
            long polled = -1;
            for (long y = 0; y < f->nb && polled < 0; y++) {
                if (!inb[y])
                    continue;
                const stmt *l = &b->st[f->blk[y].last];
                if (l->kind != I_BRA || l->guard < 0 || lt[l->guard] < 0)
                    continue;
                bool exits = y == x;
                for (int e2 = 0; e2 < 2; e2++)
                    exits |= f->blk[y].succ[e2] >= 0 && !inb[f->blk[y].succ[e2]];
                if (exits)
                    polled = lt[l->guard];
            }
            for (long i = 0; i < n && polled >= 0; i++)
                if (in[i] && seed[i] < 0)
                    seed[i] = polled;
        }
    /* a call of a function whose return value senses: the caller's load of that value (the
     * first ld.param of `retval` after it in its block) senses, from the call */
    for (long i = 0; i < n; i++) {
        if (!(call_how(b, i) & 1) || blk_of[i] < 0)
            continue;
        for (long j = i + 1; j < n && blk_of[j] == blk_of[i]; j++) {
            const stmt *l = &b->st[j];
            if (op_is(l->op, "call"))
                break;
            if (op_is(l->op, "ld") && op_has(l->op, "param") && l->nops > 1 &&
                strstr(l->ops[1], "retval")) {
                if (seed[j] < 0)
                    seed[j] = i;
                break;
            }
        }
    }
    /* a race on a word: what the load reads is how far another thread has got */
    if (race_seeds(b, f, blk_of, seed)) {
        hk_free(seed);
        hk_free(lt);
        hk_free(in);
        hk_free(inb);
        hk_free(todo);
        return HK_ENOMEM;
    }
    /* through memory: a sensed value stored makes sensed the loads of that memory that can
     * run after it (its block reaches theirs; later in its own block), unless both name a
     * variable and not the same one */
    unsigned char *reach = hk_malloc((size_t)f->nb + 1);
    if (!reach) {
        hk_free(seed);
        hk_free(lt);
        hk_free(in);
        hk_free(inb);
        hk_free(todo);
        return HK_ENOMEM;
    }
    for (int round = 0; round < 8; round++) {
        taint_run(b, seed, NULL, src);
        bool grew = false;
        for (long i = 0; i < n; i++) {
            const stmt *s = &b->st[i];
            bool st = op_is(s->op, "st") || op_is(s->op, "atom") || op_is(s->op, "red");
            /* a call of a function that stores a sensed value: to memory of any space */
            bool call = !st && (call_how(b, i) & 2);
            if ((!st && !call) || s->ops_cut || blk_of[i] < 0 || !f->blk[blk_of[i]].vis)
                continue;
            bool sensed = call;
            for (int k = 1; k < s->nops && !sensed; k++) {
                int r = *s->ops[k] == '%' ? reg_find(b, s->ops[k]) : -1;
                sensed = r >= 0 && src[r] >= 0;
            }
            if (!sensed)
                continue;
            char sn[96];
            mem_name(call ? "" : op_is(s->op, "st") ? s->ops[0] : s->nops > 1 ? s->ops[1] : "", sn,
                     sizeof sn);
            int sp = call ? 3 : mem_space(s->op);
            memset(reach, 0, (size_t)f->nb);
            long nt = 0;
            for (int e = 0; e < 2; e++) { /* the blocks after it */
                long to = f->blk[blk_of[i]].succ[e];
                if (to >= 0 && f->blk[to].vis && !reach[to]) {
                    reach[to] = 1;
                    todo[nt++] = to;
                }
            }
            while (nt > 0) {
                long y = todo[--nt];
                for (int e = 0; e < 2; e++) {
                    long to = f->blk[y].succ[e];
                    if (to >= 0 && f->blk[to].vis && !reach[to]) {
                        reach[to] = 1;
                        todo[nt++] = to;
                    }
                }
            }
            for (long j = 0; j < n; j++) {
                const stmt *l = &b->st[j];
                /* (REF13) a call of a function whose barrier memory its parameters point to
                 * decides (how & 16): a load of any memory there, whose address is unknown --
                 * a sensed store that can run before it decides that barrier (csrc) */
                if (csrc && csrc[j] < 0 && (call_how(b, j) & 16) && blk_of[j] >= 0 &&
                    (reach[blk_of[j]] || (blk_of[j] == blk_of[i] && j > i)))
                    csrc[j] = i;
                if (seed[j] >= 0 || !(op_is(l->op, "ld") || op_is(l->op, "atom")) ||
                    op_has(l->op, "param") || !(mem_space(l->op) & sp) ||
                    blk_of[j] < 0 || !(reach[blk_of[j]] || (blk_of[j] == blk_of[i] && j > i)))
                    continue;
                char ln[96];
                mem_name(l->nops > 1 ? l->ops[1] : "", ln, sizeof ln);
                if (sn[0] && ln[0] && strcmp(sn, ln))
                    continue;
                seed[j] = j;
                grew = true;
            }
        }
        if (!grew)
            break;
    }
    hk_free(reach);
    hk_free(seed);
    hk_free(lt);
    hk_free(in);
    hk_free(inb);
    hk_free(todo);
    return HK_OK;
}

/* Whether t writes (load 0: a store, atomic or reduction) or reads (load 1: a load or atomic)
 * shared memory, or generic memory that may be shared. */
static bool shared_access(const stmt *t, int load)
{
    bool kind = load ? op_is(t->op, "ld") || op_is(t->op, "atom")
                     : op_is(t->op, "st") || op_is(t->op, "atom") || op_is(t->op, "red");
    return kind && !op_has(t->op, "param") && (mem_space(t->op) & 1);
}

/* Walks statements from..to of one block (either way, by step) until a barrier of the whole
 * block: sets *found at a shared access of the kind load names; whether the way stays open
 * (no such barrier met). */
static bool scan_to_barrier(const body *b, long from, long to, int step, int load, bool *found)
{
    for (long j = from; step > 0 ? j <= to : j >= to; j += step) {
        const stmt *t = &b->st[j];
        if (whole_barrier(t))
            return false;
        if (shared_access(t, load))
            *found = true;
    }
    return true;
}

/* Queues the reachable, unseen successors (dir 1) or predecessors (dir 0) of block y. */
static void queue_next(const flow *f, long y, int dir, unsigned char *seen, long *todo, long *nt)
{
    if (dir) {
        for (int e = 0; e < 2; e++) {
            long to = f->blk[y].succ[e];
            if (to >= 0 && f->blk[to].vis && !seen[to]) {
                seen[to] = 1;
                todo[(*nt)++] = to;
            }
        }
        return;
    }
    for (long k = f->pred_at[y]; k < f->pred_at[y + 1]; k++)
        if (f->blk[f->pred[k]].vis && !seen[f->pred[k]]) {
            seen[f->pred[k]] = 1;
            todo[(*nt)++] = f->pred[k];
        }
}

/* Whether statement i is a warp barrier (bar.warp.sync / barrier.warp.sync: __syncwarp) with
 * shared memory to order around it: a store to shared (or generic) memory that can run before
 * it and a load of shared (or generic) memory that can run after it, on ways that pass no
 * barrier of the whole block (REF12: without it, those accesses of the warp's lanes would meet
 * unordered; a warp barrier with nothing of shared memory about it orders nothing the rule
 * reads). */
static bool warp_barrier_between(const body *b, const flow *f, long i)
{
    const stmt *s = &b->st[i];
    if (!(op_is(s->op, "bar") || op_is(s->op, "barrier")) || !op_has(s->op, "warp") ||
        !op_has(s->op, "sync"))
        return false;
    long bi = -1;
    for (long x = 0; x < f->nb && bi < 0; x++)
        if (f->blk[x].first <= i && i <= f->blk[x].last)
            bi = x;
    if (bi < 0)
        return false;
    bool found[2] = {false, false}; /* 0: a shared store before, 1: a shared load after */
    unsigned char *seen = hk_calloc((size_t)f->nb + 1, 1);
    long *todo = hk_malloc((size_t)(f->nb + 1) * sizeof *todo);
    for (int dir = 0; dir < 2 && seen && todo; dir++) {
        memset(seen, 0, (size_t)f->nb);
        /* its own block first: the statements before it (dir 0) or after it (dir 1) */
        bool open = dir ? scan_to_barrier(b, i + 1, f->blk[bi].last, 1, 1, &found[1])
                        : scan_to_barrier(b, i - 1, f->blk[bi].first, -1, 0, &found[0]);
        long nt = 0;
        if (open && !found[dir])
            queue_next(f, bi, dir, seen, todo, &nt);
        while (nt > 0 && !found[dir]) {
            long y = todo[--nt];
            bool pass = dir ? scan_to_barrier(b, f->blk[y].first, f->blk[y].last, 1, 1, &found[1])
                            : scan_to_barrier(b, f->blk[y].last, f->blk[y].first, -1, 0, &found[0]);
            if (pass && !found[dir])
                queue_next(f, y, dir, seen, todo, &nt);
        }
    }
    hk_free(seen);
    hk_free(todo);
    return found[0] && found[1];
}

static void bar_take(body *b, const stmt *bar, const stmt *dat)
{
    ptxrace_result *o = b->bar_out;
    if (o->found && o->st_line <= bar->line)
        return;
    o->found = true;
    o->barrier = true;
    o->k = 0;
    o->st_line = bar->line; /* the barrier */
    o->st_src = bar->src;
    o->ld_line = dat->line; /* what decides it */
    o->ld_src = dat->src;
    snprintf(o->src_file, sizeof o->src_file, "#%d", bar->src_file);
    cut_copy(o->func, sizeof o->func, b->func);
    quote_stmt(o->ld_text, sizeof o->ld_text, dat->text);
    quote_stmt(o->st_text, sizeof o->st_text, bar->text);
}

/* A barrier of the whole block that data decides (docs/referee.md "A barrier that data
 * decides"): control-dependent, over the edges the launch leaves, on a branch whose predicate
 * is no constant at the launch and depends on memory or a sensing register (bar_taint), or
 * guarded by such a predicate. Into b->bar_out. */
static int bar_judge(body *b, flow *f)
{
    long n = f->nb, words = (n + 63) / 64;
    if (n > PR_MAX_DOM) /* as flow_dominators */
        return HK_OK;
    long *src = hk_malloc((size_t)(b->nregs + 1) * sizeof *src);
    uint64_t *pd = hk_malloc((size_t)(n * words + 1) * 8), *tmp = hk_malloc((size_t)(words + 1) * 8);
    if (!src || !pd || !tmp) {
        hk_free(src);
        hk_free(pd);
        hk_free(tmp);
        return HK_ENOMEM;
    }
    long *blk_of = hk_malloc((size_t)(b->n + 1) * sizeof *blk_of);
    int rc = blk_of ? HK_OK : HK_ENOMEM;
    for (long i = 0; blk_of && i < b->n; i++)
        blk_of[i] = -1;
    for (long bi = 0; blk_of && bi < n; bi++)
        for (long i = f->blk[bi].first; i <= f->blk[bi].last; i++)
            blk_of[i] = bi;
    long *csrc = hk_malloc((size_t)(b->n + 1) * sizeof *csrc);
    if (!csrc)
        rc = HK_ENOMEM;
    for (long i = 0; csrc && i < b->n; i++)
        csrc[i] = -1;
    if (rc == HK_OK)
        rc = sense_taint(b, f, blk_of, src, csrc);
    /* what a caller gets from this body, as a device function (REF12): a sensed value returned
     * (stored to its func_retval parameter), or stored to memory (any space but the parameters':
     * a pointer argument to the caller's stack is written with st.local) */
    for (long i = 0; rc == HK_OK && i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (!op_is(s->op, "st") && !op_is(s->op, "atom") && !op_is(s->op, "red"))
            continue;
        if (s->ops_cut || blk_of[i] < 0 || !f->blk[blk_of[i]].vis)
            continue;
        bool sensed = false;
        for (int k = 1; k < s->nops && !sensed; k++) {
            int r = *s->ops[k] == '%' ? reg_find(b, s->ops[k]) : -1;
            sensed = r >= 0 && src[r] >= 0;
        }
        if (!sensed)
            continue;
        if (op_has(s->op, "param"))
            b->fn_out |= strstr(s->ops[0], "func_retval") ? 1 : 0;
        else
            b->fn_out |= 2;
    }
    /* (REF13) a barrier of the whole block in this body, or in a function it calls: a call of
     * it is judged as that barrier in its caller (below) */
    for (long i = 0; rc == HK_OK && i < b->n; i++)
        if (whole_barrier(&b->st[i]) || (call_how(b, i) & 4))
            b->fn_out |= 4;
    /* (REF13) and, for a device function holding one, what its own parameters decide: per
     * register the `ld.param` of a parameter (not a callee's `retval`) it comes from (psrc) */
    long *psrc = NULL, *p2src = NULL;
    if (rc == HK_OK && (b->fn_out & 4)) {
        long *pseed = hk_malloc((size_t)(b->n + 1) * sizeof *pseed);
        psrc = hk_malloc((size_t)(b->nregs + 1) * sizeof *psrc);
        if (!pseed || !psrc)
            rc = HK_ENOMEM;
        for (long i = 0; rc == HK_OK && i < b->n; i++) {
            const stmt *s = &b->st[i];
            const char *a = s->nops >= 2 ? s->ops[1] : "";
            while (*a == '[' || *a == ' ')
                a++;
            pseed[i] = op_is(s->op, "ld") && op_has(s->op, "param") && strncmp(a, "retval", 6)
                           ? i
                           : -1;
        }
        if (rc == HK_OK)
            taint_run(b, pseed, NULL, psrc);
        /* and (p2src) what memory a parameter points to holds: the loads (not of a
         * parameter) whose address a parameter's value gives, and what they compute */
        p2src = hk_malloc((size_t)(b->nregs + 1) * sizeof *p2src);
        if (rc == HK_OK && !p2src)
            rc = HK_ENOMEM;
        for (long i = 0; rc == HK_OK && i < b->n; i++) {
            const stmt *s = &b->st[i];
            pseed[i] = -1;
            if (!(op_is(s->op, "ld") || op_is(s->op, "atom")) || op_has(s->op, "param") ||
                s->nops < 2)
                continue;
            const char *a = s->ops[1];
            while (*a == '[' || *a == ' ')
                a++;
            char rn[64];
            size_t k = 0;
            while (a[k] && a[k] != ']' && a[k] != '+' && a[k] != ' ' && k + 1 < sizeof rn)
                k++;
            memcpy(rn, a, k);
            rn[k] = '\0';
            int r = rn[0] == '%' ? reg_find(b, rn) : -1;
            if (r >= 0 && psrc[r] >= 0)
                pseed[i] = i;
        }
        if (rc == HK_OK)
            taint_run(b, pseed, NULL, p2src);
        hk_free(pseed);
    }
    hk_free(blk_of);
    if (rc) {
        hk_free(csrc);
        hk_free(psrc);
        hk_free(p2src);
        hk_free(src);
        hk_free(pd);
        hk_free(tmp);
        return rc;
    }
#define BAR_EDGE(bi, e)                                                                            \
    (f->blk[bi].vis && f->blk[bi].succ[e] >= 0 && f->blk[f->blk[bi].succ[e]].vis &&               \
     ((e) == 0 ? f->blk[bi].has_fall : f->blk[bi].has_taken))
    /* post-dominators over the reached blocks and the edges the launch leaves; a block that
     * leaves by none is an exit */
    for (long i = 0; i < n; i++) {
        bool ex = !BAR_EDGE(i, 0) && !BAR_EDGE(i, 1);
        memset(pd + i * words, ex ? 0 : 0xff, (size_t)words * 8);
        if (ex)
            SETBIT(pd + i * words, i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (long i = n - 1; i >= 0; i--) {
            if (!BAR_EDGE(i, 0) && !BAR_EDGE(i, 1))
                continue;
            memset(tmp, 0xff, (size_t)words * 8);
            for (int e = 0; e < 2; e++)
                if (BAR_EDGE(i, e))
                    for (long k = 0; k < words; k++)
                        tmp[k] &= pd[f->blk[i].succ[e] * words + k];
            SETBIT(tmp, i);
            if (memcmp(tmp, pd + i * words, (size_t)words * 8)) {
                memcpy(pd + i * words, tmp, (size_t)words * 8);
                changed = true;
            }
        }
    }
    for (long bb = 0; bb < n; bb++) {
        if (!f->blk[bb].vis)
            continue;
        for (long i = f->blk[bb].first; i <= f->blk[bb].last; i++) {
            const stmt *s = &b->st[i];
            unsigned char how = call_how(b, i);
            if (!whole_barrier(s) && !(how & 4) && !warp_barrier_between(b, f, i))
                continue; /* (REF13) a call of a function holding a barrier: as the barrier */
            /* (REF13) a call of a function whose barrier its parameters decide (how & 8): an
             * argument (a `st.param` of the callseq before the call) of a sensed value decides
             * it here; of a value of this function's own parameters, this one's too */
            for (long j = i - 1; (how & 8) && j >= 0 && op_is(b->st[j].op, "st") &&
                                 op_has(b->st[j].op, "param");
                 j--) {
                const stmt *a = &b->st[j];
                int r = a->nops >= 2 && *a->ops[1] == '%' ? reg_find(b, a->ops[1]) : -1;
                if (r >= 0 && src[r] >= 0 && b->regs[r].pc < 0)
                    bar_take(b, s, &b->st[src[r]]);
                if (r >= 0 && psrc && psrc[r] >= 0)
                    b->fn_out |= 8;
            }
            /* (REF13) a call of a function whose barrier memory its parameters point to
             * decides (how & 16), after a sensed store to memory (csrc: sense_taint); one
             * passing its own parameter on marks this function so too */
            if ((how & 16) && csrc[i] >= 0)
                bar_take(b, s, &b->st[csrc[i]]);
            for (long j = i - 1; (how & 16) && psrc && j >= 0 && op_is(b->st[j].op, "st") &&
                                 op_has(b->st[j].op, "param");
                 j--) {
                const stmt *a = &b->st[j];
                int r = a->nops >= 2 && *a->ops[1] == '%' ? reg_find(b, a->ops[1]) : -1;
                if (r >= 0 && psrc[r] >= 0)
                    b->fn_out |= 16;
            }
            for (int pass = 0; pass < (psrc ? 3 : 1); pass++) {
                /* pass 1: the parameters' values, 2: the memory they point to (REF13) */
                const long *from = pass == 2 ? p2src : pass ? psrc : src;
#define BAR_FROM(g) ((g) >= 0 && from[g] >= 0 && b->regs[g].pc < 0)
                long d = -1;
                if (s->guard >= 0) {
                    if (BAR_FROM(s->guard))
                        d = from[s->guard];
                } else
                    /* the branches on data it is control-dependent on: it post-dominates one
                     * of the branch's successors and does not strictly post-dominate the
                     * branch (a guard of the launch's constants or tid: not data's) */
                    for (long x = 0; x < n && d < 0; x++) {
                        const stmt *l = &b->st[f->blk[x].last];
                        if (l->kind != I_BRA || !BAR_FROM(l->guard) || !BAR_EDGE(x, 0) ||
                            !BAR_EDGE(x, 1))
                            continue;
                        if (x != bb && BIT(pd + x * words, bb))
                            continue;
                        if (BIT(pd + f->blk[x].succ[0] * words, bb) ||
                            BIT(pd + f->blk[x].succ[1] * words, bb))
                            d = from[l->guard];
                    }
#undef BAR_FROM
                if (d >= 0 && !pass)
                    bar_take(b, s, &b->st[d]);
                else if (d >= 0 && (whole_barrier(s) || (how & 4)))
                    b->fn_out |= pass == 2 ? 16 : 8; /* a barrier of the whole block its
                                                      * parameters (or their memory) decide */
            }
        }
    }
#undef BAR_EDGE
    hk_free(csrc);
    hk_free(psrc);
    hk_free(p2src);
    hk_free(src);
    hk_free(pd);
    hk_free(tmp);
    return HK_OK;
}

static int body_judge(body *b, ptxrace_result *out)
{
    int rc = HK_OK;
    flow f = {0};
    long *label_block = NULL;
    uint64_t *a = NULL, *w = NULL;
    out->functions++;
    /* kinds, and how often each register is written */
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        stmt_classify(s);
        if (s->kind == I_BRX) {
            out->skipped++;
            goto out;
        }
        int d[64];
        int nd = stmt_dests(b, s, d, 64);
        if (nd < 0)
            goto oom;
        for (int k = 0; k < nd; k++)
            b->regs[d[k]].defs++;
    }
    if (b->n > PR_MAX_STMTS) {
        out->skipped++;
        goto out;
    }
    /* blocks: a label starts one, a branch or a return ends one */
    if (!(label_block = hk_malloc((size_t)(b->nlabels + 1) * sizeof *label_block)))
        goto oom;
    for (long i = 0; i <= b->nlabels; i++)
        label_block[i] = -1;
    long cap = 0;
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        bool start = i == 0 || s->kind == I_LABEL || b->st[i - 1].kind == I_BRA ||
                     (b->st[i - 1].kind == I_RET && b->st[i - 1].guard < 0);
        if (start) {
            if (grow((void **)&f.blk, &cap, f.nb + 1, sizeof *f.blk))
                goto oom;
            f.blk[f.nb].first = i;
            f.blk[f.nb].succ[0] = f.blk[f.nb].succ[1] = -1;
            f.nb++;
        }
        f.blk[f.nb - 1].last = i;
        if (s->kind == I_LABEL && s->label >= 0)
            label_block[s->label] = f.nb - 1;
    }
    if (!f.nb)
        goto out;
    for (long bi = 0; bi < f.nb; bi++) {
        stmt *l = &b->st[f.blk[bi].last];
        bool ends = l->kind == I_RET && l->guard < 0;
        if (!ends && !(l->kind == I_BRA && l->guard < 0) && bi + 1 < f.nb)
            f.blk[bi].succ[0] = (int)(bi + 1);
        if (l->kind == I_BRA && l->nops >= 1) {
            int lab = -1;
            for (long k = 0; k < b->nlabels; k++)
                if (!strcmp(b->labels[k], l->ops[0]))
                    lab = (int)k;
            if (lab < 0 || label_block[lab] < 0) {
                out->skipped++; /* a branch out of the body: not followed */
                goto out;
            }
            f.blk[bi].succ[1] = (int)label_block[lab];
        }
    }
    if (!(f.pred_at = hk_calloc((size_t)(f.nb + 1), sizeof *f.pred_at)) ||
        !(f.pred = hk_malloc((size_t)(2 * f.nb + 1) * sizeof *f.pred)))
        goto oom;
    for (long bi = 0; bi < f.nb; bi++)
        for (int e = 0; e < 2; e++)
            if (f.blk[bi].succ[e] >= 0 && !(e == 1 && f.blk[bi].succ[1] == f.blk[bi].succ[0]))
                f.pred_at[f.blk[bi].succ[e] + 1]++;
    for (long bi = 0; bi < f.nb; bi++)
        f.pred_at[bi + 1] += f.pred_at[bi];
    {
        long *fill = hk_calloc((size_t)f.nb + 1, sizeof *fill);
        if (!fill)
            goto oom;
        for (long bi = 0; bi < f.nb; bi++)
            for (int e = 0; e < 2; e++) {
                long to = f.blk[bi].succ[e];
                if (to >= 0 && !(e == 1 && f.blk[bi].succ[1] == f.blk[bi].succ[0]))
                    f.pred[f.pred_at[to] + fill[to]++] = bi;
            }
        hk_free(fill);
    }
    if ((rc = flow_dominators(&f)))
        goto out;
    long ns_most = 0;
    for (long i = 0; i < b->n; i++)
        ns_most += b->st[i].kind == I_ST;
    f.words = (ns_most + 63) / 64;
    if (!f.words)
        f.words = 1;
    if (f.nb * f.words > PR_MAX_LIVE_WORDS) {
        out->skipped++;
        goto out;
    }
    if (!(f.live_a = hk_calloc((size_t)(f.nb * f.words), 8)) ||
        !(f.live_w = hk_calloc((size_t)(f.nb * f.words), 8)) ||
        !(a = hk_malloc((size_t)f.words * 8)) || !(w = hk_malloc((size_t)f.words * 8)) ||
        !(f.store_stmt = hk_malloc((size_t)(ns_most + 1) * sizeof *f.store_stmt)) ||
        !(f.store_m = hk_calloc((size_t)(ns_most + 1), sizeof *f.store_m)))
        goto oom;
    /* rounds: values, the flow, then which twice-written registers are uniform. Optimistic,
     * as a divergence analysis is: every such register is taken as uniform first, and each
     * round keeps only those whose every write the last round's flow shows executed by all
     * the threads that reach it, from uniform operands (a loop's own counter decides its
     * exit branch, so a pessimistic start would never see the loop as uniform). Stops when
     * nothing more drops; past PR_ROUNDS, none is uniform (the pessimistic answer). */
    for (long r = 0; r < b->nregs; r++)
        b->regs[r].uni = b->regs[r].defs > 1;
    for (int round = 0;; round++) {
        eval_all(b, &f, NULL);
        if ((rc = flow_bases(b, &f)))
            goto out;
        for (long bi = 0; bi < f.nb; bi++)
            f.blk[bi].vis = false;
        memset(f.live_a, 0, (size_t)(f.nb * f.words) * 8);
        memset(f.live_w, 0, (size_t)(f.nb * f.words) * 8);
        bool changed = true;
        int sweeps = 0;
        while (changed) {
            if (++sweeps > PR_MAX_SWEEPS) {
                out->skipped++;
                goto out;
            }
            changed = false;
            for (long bi = 0; bi < f.nb; bi++)
                if (block_run(b, &f, bi, 0, a, w, out))
                    changed = true;
        }
        for (long bi = 0; bi < f.nb; bi++)
            if (f.blk[bi].vis)
                block_run(b, &f, bi, 1, a, w, out);
        if (round == PR_ROUNDS + 1)
            break; /* the pessimistic round */
        uni_solve(b);
        bool dropped = false;
        for (long r = 0; r < b->nregs; r++)
            if (b->regs[r].defs > 1 && b->regs[r].uni && !b->regs[r].uni_new) {
                b->regs[r].uni = false;
                dropped = true;
            }
        if (!dropped)
            break;
        if (round == PR_ROUNDS)
            for (long r = 0; r < b->nregs; r++)
                b->regs[r].uni = false;
    }
    /* the race pass: the last round's values (counted), the flow again with a branch on data
     * keeping every thread, each store's threads, then the loads */
    eval_all(b, &f, out);
    if ((rc = flow_bases(b, &f)))
        goto out;
    f.data_all = true;
    for (long bi = 0; bi < f.nb; bi++)
        f.blk[bi].vis = false;
    memset(f.live_a, 0, (size_t)(f.nb * f.words) * 8);
    memset(f.live_w, 0, (size_t)(f.nb * f.words) * 8);
    for (int sweeps = 0, changed = 1; changed; sweeps++) {
        if (sweeps > PR_MAX_SWEEPS) {
            out->skipped++;
            goto out;
        }
        changed = 0;
        for (long bi = 0; bi < f.nb; bi++)
            if (block_run(b, &f, bi, 0, a, w, out))
                changed = 1;
    }
    for (int pass = 1; pass <= 2; pass++)
        for (long bi = 0; bi < f.nb; bi++)
            if (f.blk[bi].vis)
                block_run(b, &f, bi, pass, a, w, out);
    if (b->want_run) { /* which statements can run at all: the reached blocks (an edge is
                        * left out only where a branch's predicate is a constant) */
        if (!(b->run = hk_malloc((size_t)b->n + 1)))
            goto oom;
        for (long bi = 0; bi < f.nb; bi++)
            for (long i = f.blk[bi].first; i <= f.blk[bi].last; i++) {
                const stmt *s = &b->st[i];
                const reg *g = s->guard >= 0 ? &b->regs[s->guard] : NULL;
                bool never = g && g->defs == 1 && g->pc >= 0 && !g->pc != s->guard_neg;
                b->run[i] = f.blk[bi].vis && !never;
            }
        /* 2 where a statement is also reached with no branch on data taken or not taken: the
         * reached blocks from the first over the edges the launch leaves, less both edges of
         * a branch whose predicate depends on memory (data_taint) and is no constant at the
         * launch, and its own guard not such a predicate either */
        long *todo = hk_malloc((size_t)(f.nb + 1) * sizeof *todo);
        unsigned char *seen = hk_calloc((size_t)f.nb + 1, 1);
        bool *dt = hk_calloc((size_t)b->nregs + 1, sizeof *dt);
        if (!todo || !seen || !dt) {
            hk_free(todo);
            hk_free(seen);
            hk_free(dt);
            goto oom;
        }
        data_taint(b, dt);
        long nt = 0;
        if (f.nb > 0 && f.blk[0].vis) {
            todo[nt++] = 0;
            seen[0] = 1;
        }
        while (nt > 0) {
            long bi = todo[--nt];
            const stmt *l = &b->st[f.blk[bi].last];
            if (l->kind == I_BRA && l->guard >= 0 && dt[l->guard] && b->regs[l->guard].pc < 0)
                continue; /* a branch on data: what lies past it is data's doing */
            for (int e = 0; e < 2; e++) {
                long nb2 = f.blk[bi].succ[e];
                if (nb2 >= 0 && nb2 < f.nb && f.blk[nb2].vis && !seen[nb2]) {
                    seen[nb2] = 1;
                    todo[nt++] = nb2;
                }
            }
        }
        for (long bi = 0; bi < f.nb; bi++)
            for (long i = f.blk[bi].first; i <= f.blk[bi].last; i++) {
                const stmt *s = &b->st[i];
                bool dg = s->guard >= 0 && dt[s->guard] && b->regs[s->guard].pc < 0;
                if (b->run[i] && seen[bi] && !dg)
                    b->run[i] = 2;
            }
        hk_free(todo);
        hk_free(seen);
        hk_free(dt);
    }
    if (b->bar_out && (rc = bar_judge(b, &f)))
        goto out;
    if (b->unroll_ovf >= 0 && b->unroll_ovf < b->nlabels && label_block[b->unroll_ovf] >= 0 &&
        f.blk[label_block[b->unroll_ovf]].vis)
        b->ovf_reached = true;
    goto out;
oom:
    rc = HK_ENOMEM;
out:
    hk_free(label_block);
    hk_free(f.blk);
    hk_free(f.store_stmt);
    hk_free(f.store_m);
    hk_free(f.live_a);
    hk_free(f.live_w);
    hk_free(f.pred_at);
    hk_free(f.pred);
    hk_free(f.base_head);
    hk_free(f.base_next);
    hk_free(a);
    hk_free(w);
    return rc;
}

/* ---- loops judged unrolled (a block shape known) ---- */

/* The body's blocks as body_judge cuts them: *blk_of per statement, succ per block (-1: none).
 * HK_OK, HK_ENOMEM, HK_EINVAL (a branch to no label of the body). */
static int cut_blocks(const body *b, const long *lab_at, long **blk_of, long *nb, long (**succ)[2])
{
    *blk_of = hk_malloc((size_t)(b->n + 1) * sizeof **blk_of);
    *succ = NULL;
    if (!*blk_of)
        return HK_ENOMEM;
    long n = 0;
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (i == 0 || s->kind == I_LABEL || b->st[i - 1].kind == I_BRA ||
            (b->st[i - 1].kind == I_RET && b->st[i - 1].guard < 0))
            n++;
        (*blk_of)[i] = n - 1;
    }
    *nb = n;
    if (!(*succ = hk_malloc((size_t)(n + 1) * sizeof **succ)))
        return HK_ENOMEM;
    for (long k = 0; k < n; k++)
        (*succ)[k][0] = (*succ)[k][1] = -1;
    for (long i = 0; i < b->n; i++) {
        const stmt *l = &b->st[i];
        long k = (*blk_of)[i];
        if (i + 1 < b->n && (*blk_of)[i + 1] == k)
            continue; /* not its block's last */
        bool ends = (l->kind == I_RET && l->guard < 0) || (l->kind == I_BRA && l->guard < 0);
        if (!ends && k + 1 < n)
            (*succ)[k][0] = k + 1;
        if (l->kind == I_BRA) {
            if (l->label < 0 || lab_at[l->label] < 0)
                return HK_EINVAL;
            (*succ)[k][1] = (*blk_of)[lab_at[l->label]];
        }
    }
    return HK_OK;
}

/* A register token at p (as stmt_dests reads one): its length. */
static size_t reg_token(const char *p)
{
    size_t n = 0;
    while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '%' || p[n] == '_' || p[n] == '$' ||
                    p[n] == '.'))
        n++;
    return n;
}

typedef struct {
    const body *b;
    long h, e, copies;  /* the loop: statements [h, e], e its back edge; copies made */
    long *blk_of;
    uint64_t *dom;      /* dom[x * words + y]: block x dominates block y */
    long words;
    long *def_at;       /* per register: its one defining statement in [h, e] (renamed), -1 */
    bool *outside;      /* per register: written before the loop too (its value in trip 0) */
    bool *every;        /* per renamed register: its write is in a block every trip passes */
    long (*succ)[2];    /* per block: its successors */
    uint64_t *reach;    /* per block x (its row once reach_done[x]): the blocks of the loop a
                         * path from x reaches in the same trip (no edge back to the head) */
    bool *reach_done;
} unroll;

/* Whether block y follows block x in one trip of the loop (x != y). */
static bool reaches(unroll *u, long x, long y)
{
    uint64_t *row = u->reach + x * u->words;
    if (!u->reach_done[x]) {
        long hb = u->blk_of[u->h], eb = u->blk_of[u->e];
        memset(row, 0, (size_t)u->words * 8);
        SETBIT(row, x);
        for (bool changed = true; changed;) { /* blocks of one trip, to a fixed point */
            changed = false;
            for (long z = hb; z <= eb; z++) {
                if (!BIT(row, z))
                    continue;
                for (int k = 0; k < 2; k++) {
                    long t = u->succ[z][k];
                    if (t > hb && t <= eb && !BIT(row, t)) {
                        SETBIT(row, t);
                        changed = true;
                    }
                }
            }
        }
        u->reach_done[x] = true;
    }
    return BIT(row, y);
}

static bool dominates(const unroll *u, long x, long y)
{
    return BIT(u->dom + y * u->words, x);
}

/* The name a register read at statement i of copy j (-1: before the loop, -2: after) takes:
 * into dst. */
static void read_name(unroll *u, int r, long i, long j, char *dst, size_t cap)
{
    const char *name = u->b->regs[r].name;
    long d = u->def_at[r];
    if (d < 0 || j == -1) {
        snprintf(dst, cap, "%s", name);
        return;
    }
    long cur = 0; /* 1: this trip's write, 0: the last trip's, -1: not known */
    long bi = u->blk_of[i], bd = u->blk_of[d];
    if (j == -2)
        cur = -1; /* after the loop: which trip wrote it last is not followed */
    else if (bi == bd)
        cur = i > d;
    else if (dominates(u, bd, bi))
        cur = 1; /* every way to bi passes the write */
    else if (!reaches(u, bd, bi))
        cur = 0; /* no way to bi in this trip passes it */
    else
        cur = -1;
    if (cur == 1)
        snprintf(dst, cap, "%s$%ld", name, j);
    else if (cur == 0 && j > 0 && u->every[r])
        snprintf(dst, cap, "%s$%ld", name, j - 1); /* the last trip's (it wrote it) */
    else if (cur == 0 && u->outside[r])
        snprintf(dst, cap, "%s", name); /* trip 0: the value from before the loop */
    else
        snprintf(dst, cap, "%s$u", name); /* written nowhere: unknown */
}

/* Statement i of copy j (-1: before the loop, -2: after) with its registers renamed, into
 * dst (cap bytes). false: it does not fit. */
static bool rename_stmt(unroll *u, long i, long j, char *dst, size_t cap)
{
    const body *b = u->b;
    const stmt *s = &b->st[i];
    const char *t = s->text;
    /* the first operand's span: the registers a writing statement writes */
    const char *def_lo = NULL, *def_hi = NULL;
    int d[64];
    if (stmt_dests((body *)b, (stmt *)s, d, 64) > 0) {
        const char *p = t;
        if (*p == '@')
            while (*p && *p != ' ' && *p != '\t')
                p++;
        while (*p == ' ' || *p == '\t')
            p++;
        while (*p && *p != ' ' && *p != '\t')
            p++; /* the operation */
        while (*p == ' ' || *p == '\t')
            p++;
        def_lo = p;
        int depth = 0;
        while (*p && (depth || *p != ',')) {
            if (*p == '{' || *p == '(')
                depth++;
            else if ((*p == '}' || *p == ')') && depth)
                depth--;
            p++;
        }
        def_hi = p;
    }
    size_t n = 0;
    for (const char *p = t; *p;) {
        char tok[PR_LINE];
        size_t k = *p == '%' ? reg_token(p) : 0;
        const char *out = NULL;
        size_t ol = 0;
        if (k && k < 128) {
            memcpy(tok, p, k);
            tok[k] = '\0';
            int r = reg_find(b, tok);
            char nm[160];
            if (r >= 0 && u->def_at[r] >= 0) {
                if (def_lo && p >= def_lo && p < def_hi)
                    snprintf(nm, sizeof nm, j >= 0 ? "%s$%ld" : "%s", tok, j); /* a write */
                else
                    read_name(u, r, i, j, nm, sizeof nm);
                out = nm;
                ol = strlen(nm);
                if (n + ol + 1 >= cap)
                    return false;
                memcpy(dst + n, out, ol);
                n += ol;
                p += k;
                continue;
            }
        }
        if (!k)
            k = 1;
        if (n + k + 1 >= cap)
            return false;
        memcpy(dst + n, p, k);
        n += k;
        p += k;
    }
    dst[n] = '\0';
    return true;
}

/* The label name a branch of statement i in copy j (or outside: -1, -2) goes to. */
static void label_name(const unroll *u, const long *lab_at, int lab, long j, char *dst, size_t cap)
{
    const char *name = u->b->labels[lab];
    long at = lab_at[lab];
    if (at == u->h && j < 0)
        snprintf(dst, cap, "%s$0", name); /* into the loop: its first trip */
    else if (at >= u->h && at <= u->e && j >= 0)
        snprintf(dst, cap, "%s$%ld", name, j);
    else
        snprintf(dst, cap, "%s", name);
}

/* The body b with its loop [h, e] unrolled into copies trips, each trip's registers renamed,
 * into nb (cleared by the caller). HK_OK, HK_ENOMEM, HK_EINVAL (a statement did not fit). */
static int unroll_build(unroll *u, const long *lab_at, body *nb)
{
    const body *b = u->b;
    char buf[PR_LINE + 512], nm[256], gd[300];
    int rc = HK_OK;
    /* before the loop, each copy of it in turn, the exit, after it */
    const long len = u->e - u->h + 1;
    for (long step = 0; step < b->n - len + u->copies * len && !rc; step++) {
        long i, j; /* the statement, its copy (-1: before the loop, -2: after) */
        if (step < u->h) {
            i = step;
            j = -1;
        } else if (step < u->h + u->copies * len) {
            j = (step - u->h) / len;
            i = u->h + (step - u->h) % len;
        } else {
            i = step - u->copies * len + len;
            j = -2;
        }
        if (j == -2 && i == u->e + 1)
            rc = stmt_parse(nb, "$hk_unroll_exit:", b->st[u->e].line, b->st[u->e].src,
                            b->st[u->e].src_file);
        if (rc)
            break;
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL) {
            if (j >= 0)
                snprintf(buf, sizeof buf, "%s$%ld:", b->labels[s->label], j);
            else
                snprintf(buf, sizeof buf, "%s:", b->labels[s->label]);
        } else if (s->kind == I_BRA) {
            gd[0] = '\0';
            if (s->guard >= 0) {
                read_name(u, s->guard, i, j, nm, sizeof nm);
                snprintf(gd, sizeof gd, "@%s%s ", s->guard_neg ? "!" : "", nm);
            }
            if (i == u->e && j < u->copies - 1) {
                /* the back edge: taken, the next copy follows; not taken, the loop ends */
                if (s->guard >= 0) {
                    snprintf(gd, sizeof gd, "@%s%s ", s->guard_neg ? "" : "!", nm);
                    snprintf(buf, sizeof buf, "%s%s $hk_unroll_exit", gd, s->op);
                } else
                    buf[0] = '\0';
            } else if (i == u->e) {
                snprintf(buf, sizeof buf, "%s%s $hk_unroll_ovf", gd, s->op);
            } else {
                label_name(u, lab_at, s->label, j, nm, sizeof nm);
                snprintf(buf, sizeof buf, "%s%s %s", gd, s->op, nm);
            }
        } else if (!rename_stmt(u, i, j, buf, sizeof buf)) {
            rc = HK_EINVAL;
            break;
        }
        if (buf[0])
            rc = stmt_parse(nb, buf, s->line, s->src, s->src_file);
    }
    if (!rc && u->e + 1 >= b->n)
        rc = stmt_parse(nb, "$hk_unroll_exit:", 0, 0, 0);
    if (!rc)
        rc = stmt_parse(nb, "$hk_unroll_ovf:", 0, 0, 0);
    if (!rc)
        rc = stmt_parse(nb, "trap", 0, 0, 0);
    if (!rc)
        nb->unroll_ovf = label_of(nb, "$hk_unroll_ovf");
    return rc < 0 ? HK_ENOMEM : rc;
}

/* A finding of a second judgement (a trip-by-trip copy, a value of a few) into *out: what was
 * read stays the body's own count. */
static void take_finding(ptxrace_result *out, const ptxrace_result *found)
{
    long fn = out->functions, sk = out->skipped, sl = out->shared_loads,
         ss = out->shared_stores, rl = out->resolved_loads, rs = out->resolved_stores,
         dl = out->data_loads;
    *out = *found;
    out->data_loads = dl;
    out->functions = fn;
    out->skipped = sk;
    out->shared_loads = sl;
    out->shared_stores = ss;
    out->resolved_loads = rl;
    out->resolved_stores = rs;
}

/* Judge b's innermost loops unrolled (b judged already, its shape known): each loop holding
 * a shared load, entered only at its head and inside no other loop, is copied once per trip
 * (PR_UNROLL at most), the registers it writes once in a block every trip passes renamed per
 * trip, so that the constants of the shape decide each trip's values and its exit; judged as a
 * body of its own, its finding joins out's. A loop still running after the last copy gives
 * nothing (a path that does not exist would be judged). HK_OK, HK_ENOMEM. */
static int body_unroll(body *b, ptxrace_result *out)
{
    if (b->ntid[0] <= 0 || b->n < 2 || b->n > PR_UNROLL_STMTS)
        return HK_OK;
    int rc = HK_OK;
    long *lab_at = hk_malloc((size_t)(b->nlabels + 1) * sizeof *lab_at);
    unroll u = {.b = b};
    long nbk = 0, (*succ)[2] = NULL;
    if (!lab_at)
        return HK_ENOMEM;
    for (long k = 0; k < b->nlabels; k++)
        lab_at[k] = -1;
    bool any = false;
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        if (s->kind == I_LABEL && s->label >= 0)
            lab_at[s->label] = i;
        if (s->kind == I_BRX)
            goto done;
        if (s->kind == I_BRA) {
            s->label = -1; /* its target's id, for cut_blocks */
            for (long k = 0; k < b->nlabels && s->nops >= 1; k++)
                if (!strcmp(b->labels[k], s->ops[0]))
                    s->label = (int)k;
        }
    }
    for (long i = 0; i < b->n; i++)
        if (b->st[i].kind == I_BRA && (b->st[i].label < 0 || lab_at[b->st[i].label] < 0))
            goto done; /* a branch out of the body: body_judge skipped it too */
    for (long i = 0; i < b->n && !any; i++)
        any = b->st[i].kind == I_BRA && lab_at[b->st[i].label] < i;
    if (!any)
        goto done;
    if ((rc = cut_blocks(b, lab_at, &u.blk_of, &nbk, &succ)) == HK_EINVAL) {
        rc = HK_OK;
        goto done;
    }
    if (rc || nbk > PR_MAX_DOM)
        goto done;
    /* dominators over the blocks */
    u.words = (nbk + 63) / 64;
    if (!(u.dom = hk_malloc((size_t)(nbk * u.words) * 8)) ||
        !(u.def_at = hk_malloc((size_t)(b->nregs + 1) * sizeof *u.def_at)) ||
        !(u.outside = hk_calloc((size_t)b->nregs + 1, 1)) ||
        !(u.every = hk_calloc((size_t)b->nregs + 1, 1)) ||
        !(u.reach = hk_malloc((size_t)(nbk * u.words) * 8)) ||
        !(u.reach_done = hk_calloc((size_t)nbk, 1))) {
        rc = HK_ENOMEM;
        goto done;
    }
    for (long k = 0; k < nbk; k++) {
        memset(u.dom + k * u.words, k ? 0xff : 0, (size_t)u.words * 8);
        if (!k)
            SETBIT(u.dom, 0);
    }
    /* dom(y) = {y} + the intersection over y's predecessors x; kept as dom[x][y] bits */
    {
        uint64_t *in = hk_malloc((size_t)(nbk * u.words) * 8);
        if (!in) {
            rc = HK_ENOMEM;
            goto done;
        }
        for (bool changed = true; changed;) {
            changed = false;
            for (long y = 1; y < nbk; y++) {
                uint64_t *t = in + y * u.words;
                memset(t, 0xff, (size_t)u.words * 8);
                bool pred = false;
                for (long x = 0; x < nbk; x++)
                    if (succ[x][0] == y || succ[x][1] == y) {
                        pred = true;
                        for (long k = 0; k < u.words; k++)
                            t[k] &= u.dom[x * u.words + k];
                    }
                if (!pred)
                    memset(t, 0, (size_t)u.words * 8); /* unreachable: dominated by none */
                SETBIT(t, y);
                if (memcmp(t, u.dom + y * u.words, (size_t)u.words * 8)) {
                    memcpy(u.dom + y * u.words, t, (size_t)u.words * 8);
                    changed = true;
                }
            }
        }
        /* u.dom holds per block y the set of its dominators x: dominates() reads bit x of row y */
        hk_free(in);
    }
    for (long e = 0; e < b->n && !rc; e++) {
        const stmt *be = &b->st[e];
        if (be->kind != I_BRA || lab_at[be->label] >= e)
            continue;
        long h = lab_at[be->label];
        bool ok = true, ld = false;
        for (long i = 0; i < b->n && ok; i++) {
            const stmt *s = &b->st[i];
            if (i >= h && i <= e && s->kind == I_LD)
                ld = true;
            if (s->kind != I_BRA)
                continue;
            long to = lab_at[s->label];
            if (i >= h && i < e && to <= i)
                ok = false; /* another loop inside: not innermost */
            if ((i < h || i > e) && to > h && to <= e)
                ok = false; /* entered elsewhere than at its head */
            if (i > e && to <= h)
                ok = false; /* inside another loop */
        }
        long len = e - h + 1;
        if (!ok || !ld || len * PR_UNROLL + b->n > PR_UNROLL_STMTS)
            continue;
        /* the registers renamed per trip: written once in the loop, unguarded; read in the
         * trip after, only when that write is in a block every trip passes (it dominates the
         * back edge's) */
        for (long r = 0; r < b->nregs; r++) {
            u.def_at[r] = -1;
            u.outside[r] = false;
        }
        long *cnt = hk_calloc((size_t)b->nregs + 1, sizeof *cnt);
        if (!cnt) {
            rc = HK_ENOMEM;
            break;
        }
        for (long i = 0; i < b->n; i++) {
            int d[64];
            int nd = stmt_dests(b, &b->st[i], d, 64);
            for (int k = 0; k < nd; k++) {
                if (i < h || i > e) {
                    u.outside[d[k]] |= i < h; /* after the loop: its reads there are unknown */
                    continue;
                }
                cnt[d[k]]++;
                u.def_at[d[k]] = i;
            }
        }
        for (long r = 0; r < b->nregs; r++) {
            long d = u.def_at[r];
            if (d >= 0 && (cnt[r] != 1 || b->st[d].guard >= 0 || b->st[d].ops_cut))
                u.def_at[r] = -1;
            u.every[r] = u.def_at[r] >= 0 && dominates(&u, u.blk_of[d], u.blk_of[e]);
        }
        hk_free(cnt);
        u.h = h;
        u.e = e;
        u.succ = succ;
        memset(u.reach_done, 0, (size_t)nbk);
        for (long copies = 16;; copies = PR_UNROLL) {
            body nb;
            memset(&nb, 0, sizeof nb);
            cut_copy(nb.func, sizeof nb.func, b->func);
            nb.maxx = b->maxx;
            memcpy(nb.ntid, b->ntid, sizeof nb.ntid);
            nb.nfix = b->nfix;
            memcpy(nb.fixname, b->fixname, sizeof nb.fixname);
            memcpy(nb.fixval, b->fixval, sizeof nb.fixval);
            nb.nparams = b->nparams;
            nb.data = b->data;
            nb.sh = b->sh;
            nb.nsh = b->nsh;
            nb.entry = b->entry;
            memcpy(nb.pname, b->pname, sizeof nb.pname);
            memcpy(nb.pknown, b->pknown, sizeof nb.pknown);
            memcpy(nb.pval, b->pval, sizeof nb.pval);
            nb.unroll_ovf = -1;
            u.copies = copies;
            ptxrace_result tmp;
            memset(&tmp, 0, sizeof tmp);
            rc = unroll_build(&u, lab_at, &nb);
            if (rc == HK_OK)
                rc = body_judge(&nb, &tmp);
            bool ovf = nb.ovf_reached, decided = true;
            if (rc == HK_OK && ovf && b->st[e].guard >= 0) {
                /* the last copy's exit not a constant: more copies would not decide it */
                char nm[256];
                read_name(&u, b->st[e].guard, e, copies - 1, nm, sizeof nm);
                int g = reg_find(&nb, nm);
                decided = g >= 0 && nb.regs[g].defs == 1 && nb.regs[g].pc >= 0;
            }
            body_clear(&nb);
            if (rc == HK_EINVAL) {
                rc = HK_OK;
                break;
            }
            if (rc)
                break;
            if (!ovf) {
                if (tmp.found && (!out->found || out->barrier || tmp.ld_line < out->ld_line)) {
                    take_finding(out, &tmp);
                    for (long i = 0; i < b->n; i++) { /* quoted as the PTX has them */
                        const stmt *q = &b->st[i];
                        if (q->line == tmp.ld_line && q->kind == I_LD)
                            quote_stmt(out->ld_text, sizeof out->ld_text, q->text);
                        if (q->line == tmp.st_line && q->kind == I_ST)
                            quote_stmt(out->st_text, sizeof out->st_text, q->text);
                    }
                }
                break;
            }
            if (copies == PR_UNROLL || !decided)
                break; /* longer than judged, or not decided by the shape: nothing */
        }
    }
done:
    hk_free(lab_at);
    hk_free(u.blk_of);
    hk_free(succ);
    hk_free(u.dom);
    hk_free(u.def_at);
    hk_free(u.outside);
    hk_free(u.every);
    hk_free(u.reach);
    hk_free(u.reach_done);
    return rc;
}

/* ---- values of a few choices (a block shape known) ---- */

/* Per register: read from a clock (mov %r, %clock / %clock64 / %globaltimer...), directly or
 * through an integer cvt, written once. */
static void clock_regs(body *b, bool *clk)
{
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->nops != 2 || s->ops_cut || *s->ops[0] != '%')
            continue;
        int d = reg_find(b, s->ops[0]);
        if (d < 0 || b->regs[d].defs != 1)
            continue;
        if (op_is(s->op, "mov"))
            clk[d] = !strcmp(s->ops[1], "%clock") || !strcmp(s->ops[1], "%clock64") ||
                     !strncmp(s->ops[1], "%globaltimer", 12);
        else if (op_is(s->op, "cvt") && op_int_cvt(s->op) && *s->ops[1] == '%') {
            int r = reg_find(b, s->ops[1]);
            clk[d] = r >= 0 && clk[r];
        }
    }
}

/* The values a register written once by s can take when it depends on data (a loaded word, a
 * clock) or a block-uniform unknown only through one bit or a few: selp of two constants on a predicate of data or of a
 * uniform unknown ({A, B}), a sign bit (shr by the width less one: {0, 1}, or {0, -1} signed),
 * and with a mask of 1..7 (its subsets). Into vals; the count, 0: not such a value. */
static int few_values(body *b, stmt *s, const bool *clk, int64_t *vals, int *pred)
{
    *pred = -1;
    if (s->ops_cut || s->guard >= 0)
        return 0;
    bool sgn = false;
    int bits = int_type(s->op, &sgn, false);
    if (!bits)
        return 0;
    if (op_is(s->op, "ld")) /* module data of a few values (ptxdata_allow_values) */
        return module_data_values(b, s, vals, 8);
    if (op_is(s->op, "selp") && s->nops == 4 && *s->ops[3] == '%') {
        aval x = operand_val(b, s->ops[1]), y = operand_val(b, s->ops[2]);
        int p = reg_find(b, s->ops[3]);
        if (!val_const(&x) || !val_const(&y) || p < 0 || b->regs[p].defs != 1 ||
            b->regs[p].pc >= 0 || (b->regs[p].pkind != P_DATA && b->regs[p].pkind != P_UNIFORM))
            return 0;
        vals[0] = int_norm(x.c, bits, sgn); /* p true */
        vals[1] = int_norm(y.c, bits, sgn);
        *pred = p;
        return vals[0] == vals[1] ? 0 : 2;
    }
    if (s->nops != 3)
        return 0;
    aval x = operand_val(b, s->ops[1]), y = operand_val(b, s->ops[2]);
    bool uni = val_uniform(&x) && x.sym; /* a block-uniform unknown (an argument not known) */
    int xr = *s->ops[1] == '%' ? reg_find(b, s->ops[1]) : -1;
    if ((x.known && !uni) || !val_const(&y) || !(uni || x.data || (xr >= 0 && clk[xr])))
        return 0;
    if (op_is(s->op, "shr") && y.c == bits - 1) {
        vals[0] = 0;
        vals[1] = sgn ? -1 : 1;
        return 2;
    }
    if (op_is(s->op, "and") && y.c >= 1 && y.c <= 7) {
        int n = 0;
        for (int64_t v = 0; v <= y.c; v++)
            if ((v & y.c) == v)
                vals[n++] = v;
        return n;
    }
    return 0;
}

/* b judged already, its shape known, no finding: the registers of a few values (few_values)
 * on which a loop's exit depends (through the registers computed from them) are judged at
 * each combination of their values (PR_FIX registers, PR_CHOICES combinations at most), as a
 * branch on data is judged both ways: `s = (blockDim.x >> 1) + (in[0] != in[0])` is 128 or
 * 129, and each is judged unrolled. More than that: nothing more (a value it cannot bound). */
static int body_choices(body *b, ptxrace_result *out)
{
    b->bar_out = NULL; /* the body judged at a value of a few: no barrier looked for again */
    if (b->ntid[0] <= 0 || b->n < 2 || b->n > PR_UNROLL_STMTS || b->nfix)
        return HK_OK;
    int cand[PR_FIX], cpred[PR_FIX], nc = 0, ncand = 0;
    int64_t vals[PR_FIX][8];
    int nv[PR_FIX];
    long combos = 1;
    bool *in = NULL, *clk = hk_calloc((size_t)b->nregs + 1, sizeof *clk);
    int rc = HK_OK;
    if (!clk)
        return HK_ENOMEM;
    clock_regs(b, clk);
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        int d[4];
        int64_t v[8];
        if (s->kind != I_OTHER || stmt_dests(b, s, d, 4) != 1 || b->regs[d[0]].defs != 1 ||
            val_const(&b->regs[d[0]].v))
            continue;
        int pr;
        int n = few_values(b, s, clk, v, &pr);
        if (!n)
            continue;
        /* does a loop's exit (a backward branch's guard) depend on it? */
        if (!in && !(in = hk_calloc((size_t)b->nregs, sizeof *in))) {
            hk_free(clk);
            return HK_ENOMEM;
        }
        memset(in, 0, (size_t)b->nregs * sizeof *in);
        in[d[0]] = true;
        bool loop = false;
        for (int pass = 0; pass < 4 && !loop; pass++) {
            bool grew = false;
            for (long j = 0; j < b->n && !loop; j++) {
                stmt *t = &b->st[j];
                if (t->kind == I_BRA && t->guard >= 0 && in[t->guard] && t->label >= 0) {
                    for (long q = 0; q < j; q++) /* its target before it: a loop's edge */
                        if (b->st[q].kind == I_LABEL && b->st[q].label == t->label)
                            loop = true;
                    continue;
                }
                bool reads = false;
                for (int k = 1; k < t->nops && !reads && !t->ops_cut; k++) {
                    int r = *t->ops[k] == '%' ? reg_find(b, t->ops[k]) : -1;
                    reads = r >= 0 && in[r];
                }
                if (!reads)
                    continue;
                int td[64];
                int tn = stmt_dests(b, t, td, 64);
                for (int k = 0; k < tn; k++)
                    if (!in[td[k]])
                        in[td[k]] = grew = true;
            }
            if (!grew)
                break;
        }
        if (!loop)
            continue;
        ncand++;
        if (nc < PR_FIX && combos * n <= PR_CHOICES) {
            cand[nc] = d[0];
            cpred[nc] = pr;
            memcpy(vals[nc], v, sizeof v);
            nv[nc++] = n;
            combos *= n;
        }
    }
    hk_free(in);
    hk_free(clk);
    if (!nc || ncand > nc)
        return HK_OK; /* none, or more than can be judged: not bounded, nothing more */
    for (long c = 0; c < combos && rc == HK_OK && (!out->found || out->barrier); c++) {
        long rest = c;
        b->nfix = 0;
        for (int k = 0; k < nc; k++) {
            int at = (int)(rest % nv[k]);
            rest /= nv[k];
            cut_copy(b->fixname[b->nfix], sizeof b->fixname[0], b->regs[cand[k]].name);
            b->fixval[b->nfix++] = vals[k][at];
            if (cpred[k] >= 0) { /* the selp's predicate too, so its branches agree */
                cut_copy(b->fixname[b->nfix], sizeof b->fixname[0], b->regs[cpred[k]].name);
                b->fixval[b->nfix++] = at == 0;
            }
        }
        for (long r = 0; r < b->nregs; r++)
            b->regs[r].defs = 0; /* judged anew */
        ptxrace_result tmp;
        memset(&tmp, 0, sizeof tmp);
        rc = body_judge(b, &tmp);
        if (rc == HK_OK && !tmp.found)
            rc = body_unroll(b, &tmp);
        if (rc == HK_OK && tmp.found) {
            take_finding(out, &tmp);
        }
    }
    b->nfix = 0;
    return rc;
}

/* ---- the text: function bodies, .loc, .file ---- */

typedef struct {
    ptxrace_result *out;
    body b;
    enum { OUTSIDE, HEADER, BODY } state;
    int depth;
    long line;
    long src;
    int src_file;
    char files[PR_FILES][96];
    long ntid[3]; /* the block shape judged, 0: not known */
    const char *entry; /* the kernel launched at that shape (NULL: every .entry) */
    const ptxrace_launch *launch; /* its arguments (NULL: none known) */
    ptxdata *data;     /* the module's data nothing writes (launch->module_data; else NULL) */
    bool launched;     /* the body is the launched entry's */
    bool is_func;      /* the body is a .func's */
    bool fwd;          /* (REF13) a .func declared without its body (`.func ... f(...);`, not
                        * .extern): its body comes later, after a caller may have been judged */
    bool fn_changed;   /* this reading added to fn_name / fn_how */
    int nfn;           /* the .func bodies judged so far whose value senses (body's fn_*) */
    char fn_name[PR_SENSE_FN][96];
    unsigned char fn_how[PR_SENSE_FN];
    int rc;
    /* the stores pass (REF13): a call continued over lines, joined (npend bytes) */
    char pend[PR_LINE];
    size_t npend;
    /* the .func bodies read so far with no barrier that end only by ret (quiet_fn) */
    int nquiet;
    char quiet[PR_QUIET][96];
    bool is_weak;      /* the body's header says .weak / .extern: another body may be linked */
    /* the launched entry's declarations (REF13): names at the body's level (outer) and the
     * `.reg` names of its nested scopes (inner, nvcc's callseq `{ .reg .b32 temp_param_reg;
     * .param .b32 retval0; call ... }`), one reading of them sound only when no inner name
     * can be another declaration's register (decl_judge) */
    int nouter, ninner;
    char outer[PR_DECL][64];
    char inner[PR_DECL][64];
    /* (REF19) the .shared declarations of the module and of the body being read (shdecl) */
    int nsh;
    bool sh_over;      /* more than PR_SHARED: none is read */
    shdecl sh[PR_SHARED];
    /* the stores pass (stores_pass): which module variables' stores can run at this launch */
    bool reach;        /* this scan is that pass: only the launched entry is judged */
    bool odd;          /* a text it does not read as ptxdata does (stores_pass says which) */
    bool in_comment;   /* inside a block comment that an earlier line opened */
    int judged;        /* launched bodies judged */
    int nsv;
    struct {
        const char *name; /* ptxdata's */
        long nst, seen;   /* its stores in the text (ptxdata), and seen in the entry */
        bool live;        /* one of them can run */
        bool many;        /* one that can run writes other than the whole variable with a
                           * value of a few (stored_values) */
        bool sure;        /* one that can run is reached with no branch on data */
        int nv;           /* the values the ones that can run write, without repeats */
        int64_t v[PTXDATA_VALS];
        bool cover;       /* one is a store every block makes before its barrier
                           * (store_cover): of cover_v, the barrier at line cover_line */
        int64_t cover_v;
        long cover_line;
    } sv[PR_STORED];
} scan;

/* A `.param TYPE NAME` declaration in s (a header line of a function): the parameter's name,
 * in order, and its value when the body is the launched entry and the launch knows it. */
static void param_note(scan *sc, const char *s)
{
    for (const char *p = strstr(s, ".param"); p; p = strstr(p + 6, ".param")) {
        char nm[128] = "";
        const char *q = p + 6; /* the last word of the declaration: its name */
        const char *end = q;
        while (*end && *end != ',' && *end != ')')
            end++;
        const char *w = end;
        while (w > q && (w[-1] == ' ' || w[-1] == '\t'))
            w--;
        const char *w0 = w;
        while (w0 > q && w0[-1] != ' ' && w0[-1] != '\t')
            w0--;
        size_t n = (size_t)(w - w0);
        if (n >= sizeof nm)
            n = sizeof nm - 1;
        memcpy(nm, w0, n);
        nm[n] = '\0';
        char *br = strchr(nm, '[');
        if (br)
            *br = '\0';
        body *b = &sc->b;
        int k = b->nparams;
        if (k >= PTXRACE_ARGS || !nm[0]) {
            b->nparams = PTXRACE_ARGS; /* past the table: the order no longer known */
            continue;
        }
        cut_copy(b->pname[k], sizeof b->pname[k], nm);
        b->pknown[k] = sc->launched && sc->launch && k < sc->launch->nargs && sc->launch->known[k];
        b->pval[k] = b->pknown[k] ? sc->launch->arg[k] : 0;
        b->nparams = k + 1;
        p = end;
        if (!*p)
            break;
    }
}

/* the first whitespace-separated word after `key` in s, into dst */
static void word_after(const char *s, const char *key, char *dst, size_t cap)
{
    dst[0] = '\0';
    const char *p = strstr(s, key);
    if (!p)
        return;
    p += strlen(key);
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '(') { /* .func (.param ...) name */
        int d = 0;
        for (; *p; p++) {
            if (*p == '(')
                d++;
            else if (*p == ')' && --d == 0) {
                p++;
                break;
            }
        }
        while (*p == ' ' || *p == '\t')
            p++;
    }
    size_t n = 0;
    while (p[n] && !strchr(" \t(", p[n]) && n + 1 < cap)
        n++;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || p[-1] == ' ' || p[-1] == '\t') && (!p[n] || p[n] == ' ' || p[n] == '\t' || p[n] == '('))
            return true;
    return false;
}

/* The values the store s (`st.global.u32 [name], %r`) writes, when it writes the whole
 * variable (no offset, its size, at most 8 bytes) with a constant at this launch -- an integer
 * immediate, a register written once whose value the launch's constants decide -- or with a
 * register of a few values (few_values: a selp of two constants on data, a sign bit, a small
 * mask): into vals (cap), their count; 0: not so. */
static int stored_values(body *b, const stmt *s, size_t size, const bool *clk, int64_t *vals,
                         int cap)
{
    if (s->nops != 2 || s->ops_cut || size == 0 || size > 8 || op_has(s->op, "v2") ||
        op_has(s->op, "v4") || op_has(s->op, "v8") || (size_t)access_width(s->op) != size)
        return 0;
    if (strchr(s->ops[0], '+'))
        return 0; /* [name+K]: part of it */
    const char *o = s->ops[1];
    int64_t c;
    if (*o != '%')
        return ptxdata_int(o, strlen(o), &c) && cap >= 1 ? (vals[0] = c, 1) : 0;
    int r = reg_find(b, o);
    uint64_t lm = iv_mask(8 * (int)size);
    if (r >= 0 && b->regs[r].defs > 1) { /* (REF19) a merge's register: every write that reaches
                                           * the store, as the last evaluation judged them */
        ival x = merge_value(b, r, s, 8 * (int)size, false);
        if (((x.kz | x.ko) & lm) != lm || cap < 1)
            return 0;
        vals[0] = (int64_t)(x.ko & lm);
        return 1;
    }
    if (r < 0 || b->regs[r].defs != 1)
        return 0;
    if (val_const(&b->regs[r].v)) {
        vals[0] = b->regs[r].v.c;
        return cap >= 1;
    }
    if (b->regs[r].irng && ((b->regs[r].iv.kz | b->regs[r].iv.ko) & lm) == lm) {
        vals[0] = (int64_t)(b->regs[r].iv.ko & lm); /* (REF17) the bytes stored all known (a
                                                       * wider register: its low ones) */
        return cap >= 1;
    }
    for (long i = 0; i < b->n; i++) { /* its one definition */
        stmt *t = &b->st[i];
        int d[4];
        if (t->kind != I_OTHER || stmt_dests(b, t, d, 4) != 1 || d[0] != r)
            continue;
        int64_t v[8];
        int pr;
        int n = few_values(b, t, clk, v, &pr);
        if (n < 1 || n > cap)
            return 0;
        memcpy(vals, v, (size_t)n * sizeof *v);
        return n;
    }
    return 0;
}

/* Whether thread tid.x = 0 (there is one in every block) executes s when it reaches it: no
 * guard, or one written once that is a constant or a function of tid.x alone (P_TID) true
 * at 0 (want: true for a store to run, false for a branch not to be taken). */
static bool tid0_guard(const body *b, const stmt *s, bool want)
{
    if (s->guard < 0)
        return want;
    const reg *r = &b->regs[s->guard];
    bool at0;
    if (r->defs == 1 && r->pc >= 0)
        at0 = r->pc != 0;
    else if (r->defs == 1 && r->pkind == P_TID)
        at0 = tset_has(&r->ptrue, 0);
    else
        return false;
    return (at0 != s->guard_neg) == want;
}

/* The function a direct `call` names (`call.uni (retval0), NAME, (args);`, `call NAME;`): its
 * first operand outside parentheses that is an identifier and not a register (`call %rd4,
 * (...), prototype`: an indirect call, none). */
static bool call_target(const body *b, const stmt *s, char *nm, size_t cap)
{
    nm[0] = '\0';
    if (!op_is(s->op, "call") || s->ops_cut)
        return false;
    for (int k = 0; k < s->nops; k++) {
        const char *o = s->ops[k];
        if (*o == '(')
            continue;
        if (!is_ident_start(*o) || *o == '%' || reg_find(b, o) >= 0)
            return false;
        for (const char *q = o; *q; q++)
            if (!isalnum((unsigned char)*q) && *q != '_' && *q != '$')
                return false;
        cut_copy(nm, cap, o);
        return true;
    }
    return false;
}

/* Whether s is a call of a quiet function (REF13): one whose body was read before this one
 * (b->quiet) -- it holds no barrier of any kind, no call but of a quiet function, no exit or
 * trap, so the calling thread comes back from it having passed no barrier. */
static bool quiet_call(const body *b, const stmt *s)
{
    char nm[96];
    if (!b->nquiet || !call_target(b, s, nm, sizeof nm))
        return false;
    for (int k = 0; k < b->nquiet; k++)
        if (!strcmp(nm, b->quiet[k]))
            return true;
    return false;
}

/* Whether the body just read (a .func's, in the stores pass) is quiet: every statement one
 * this reading takes apart (its op a word), none a barrier (`bar`/`barrier` of the block or
 * some threads, `bar.arrive`, `mbarrier`, `griddepcontrol`; a warp barrier orders nothing
 * store_cover counts on), no exit or trap, no call but of a quiet function read before. */
static bool quiet_fn(body *b)
{
    for (long i = 0; i < b->n; i++) {
        stmt *s = &b->st[i];
        if (s->kind == I_LABEL)
            continue;
        stmt_classify(s); /* the stores pass reads a .func without judging it */
        if (!isalpha((unsigned char)s->op[0]) || s->kind == I_BAR)
            return false;
        if (s->kind == I_BARN && !quiet_call(b, s))
            return false;
        if (s->kind == I_RET && !op_is(s->op, "ret"))
            return false;
    }
    return true;
}

/* The walks of store_cover over the statements of the region before its barrier. */
typedef struct {
    body *b;
    const long *tgt;  /* a branch's target statement */
    const long *defat; /* a register's one defining statement, -1: none or several */
    signed char *dom; /* per statement: its guard's definition is on every way to it (1), not
                       * (0), not asked yet (-1) */
    char *seen;
    long *stack;
    long steps;       /* left to spend over all walks: 0, the answer is "reachable" */
} cover_walk;

static bool cover_reaches(cover_walk *w, long stop, long goal, bool tid0);

/* Whether thread tid.x = 0 takes the branch s (index j) one way only, the way its guard says
 * (tid0_guard), its predicate computed before on every way there: 1 taken, 0 not, -1 either. */
static int tid0_way(cover_walk *w, long j)
{
    const stmt *s = &w->b->st[j];
    if (s->guard < 0)
        return 1;
    if (!tid0_guard(w->b, s, true) && !tid0_guard(w->b, s, false))
        return -1;
    if (w->dom[j] < 0) {
        long d = w->defat[s->guard];
        w->dom[j] = (signed char)(d >= 0 && d < j && !cover_reaches(w, d, j, false));
    }
    if (!w->dom[j])
        return -1;
    return tid0_guard(w->b, s, true) ? 1 : 0;
}

/* Whether some way from the first statement reaches goal without executing stop: every
 * branch both ways, or (tid0) as a thread with tid.x = 0 takes it where tid0_way decides. A
 * ret ends a way (the caller has none in the region); a statement falls into the next. */
static bool cover_reaches(cover_walk *w, long stop, long goal, bool tid0)
{
    body *b = w->b;
    char *seen = w->seen;
    long *stack = w->stack;
    if (!tid0) { /* the nested walk of tid0_way: its own marks */
        seen = hk_calloc((size_t)b->n + 1, 1);
        stack = hk_malloc(((size_t)b->n + 1) * sizeof *stack);
        if (!seen || !stack) {
            hk_free(seen);
            hk_free(stack);
            return true;
        }
    } else
        memset(seen, 0, (size_t)b->n + 1);
    long top = 0;
    bool hit = false;
    stack[top++] = 0;
    seen[0] = 1;
    while (top > 0 && !hit) {
        if (w->steps <= 0) {
            hit = true; /* out of budget: as if reached (nothing concluded) */
            break;
        }
        w->steps--;
        long k = stack[--top];
        if (k == goal) {
            hit = true;
            break;
        }
        if (k == stop || k >= b->n)
            continue;
        const stmt *s = &b->st[k];
        long nx[2];
        int nn = 0;
        if (s->kind == I_BRA) {
            int way = tid0 ? tid0_way(w, k) : (s->guard < 0 ? 1 : -1);
            if (way != 0)
                nx[nn++] = w->tgt[k];
            if (way != 1)
                nx[nn++] = k + 1;
        } else if (s->kind == I_RET) {
            if (s->guard >= 0)
                nx[nn++] = k + 1;
        } else
            nx[nn++] = k + 1;
        for (int q = 0; q < nn; q++)
            if (nx[q] >= 0 && nx[q] <= b->n && !seen[nx[q]]) {
                seen[nx[q]] = 1;
                stack[top++] = nx[q];
            }
    }
    if (!tid0) {
        hk_free(seen);
        hk_free(stack);
    }
    return hit;
}

/* A store every block makes before a barrier (docs/referee.md, "A store every block makes
 * before its barrier"): in b (the launched entry, judged), B is a barrier of the whole block
 * (`bar.sync` / `barrier.sync` of an immediate barrier number, no thread count), unguarded,
 * over which no branch of the entry jumps or loops back, and so is every barrier before it
 * (each executed once by every thread, in text order); before B there is no ret / exit /
 * trap, no partial barrier, no call but of a quiet function (quiet_call, REF13: read before,
 * no barrier in it), and the entry has no brx and no label defined twice. A
 * plain `st` of name before B, whose guard lets a thread with tid.x = 0 through, writing the
 * whole variable with one constant (stored_values), with no branch between it and B going
 * back (to it or before it) and every branch between them forward, and which a thread with
 * tid.x = 0 cannot pass by on its way to B: from the entry, each branch taken as that thread
 * takes it where its guard is a constant or a function of tid.x alone computed before on every
 * way there, both ways otherwise, B is not reached without executing the store. Then every
 * thread that passes B passed it in the same round as that thread's arrival after the store,
 * in its block, and whatever follows B in the text is reached only through B. The first such
 * B: *v the constant, *line B's line. */
static long cover_at(body *b, const char *name, size_t size, const bool *clk, bool any,
                     int64_t *v, long *line);

static bool store_cover(body *b, const char *name, size_t size, const bool *clk, int64_t *v,
                        long *line)
{
    return cover_at(b, name, size, clk, false, v, line) >= 0;
}

/* store_cover's search: the statement index of B (-1: none). any (REF19, shared_word): a store
 * of name whatever it writes, and whether it can run not asked (b->run is not there while a
 * body is judged: thread 0's walk alone says it runs); *v then not set. */
static long cover_at(body *b, const char *name, size_t size, const bool *clk, bool any,
                     int64_t *v, long *line)
{
    if (b->nlabels < 0 || b->n <= 0)
        return -1;
    long *lab_at = hk_malloc(((size_t)b->nlabels + 1) * sizeof *lab_at);
    long *tgt = hk_malloc((size_t)b->n * sizeof *tgt);
    long *defat = hk_malloc(((size_t)b->nregs + 1) * sizeof *defat);
    signed char *dom = hk_malloc((size_t)b->n);
    char *seen = hk_calloc((size_t)b->n + 1, 1);
    long *stack = hk_malloc(((size_t)b->n + 1) * sizeof *stack);
    bool found = false;
    long at = -1;
    bool ok = lab_at && tgt && defat && dom && seen && stack;
    for (long k = 0; ok && k < b->nlabels; k++)
        lab_at[k] = -1;
    for (long r = 0; ok && r <= b->nregs; r++)
        defat[r] = -1;
    for (long i = 0; ok && i < b->n; i++) {
        stmt *s = &b->st[i];
        dom[i] = -1;
        tgt[i] = -1;
        if (s->kind == I_LABEL && s->label >= 0 && s->label < b->nlabels) {
            if (lab_at[s->label] >= 0)
                ok = false; /* defined twice */
            lab_at[s->label] = i;
        }
        int d[4];
        int nd = s->kind == I_LABEL ? 0 : stmt_dests(b, s, d, 4);
        for (int q = 0; q < nd && q < 4; q++)
            if (d[q] >= 0 && d[q] < b->nregs)
                defat[d[q]] = defat[d[q]] == -1 ? i : -2; /* -2: several */
    }
    for (long r = 0; ok && r <= b->nregs; r++)
        if (defat[r] < 0)
            defat[r] = -1;
    for (long i = 0; i < b->n && ok; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_BRX)
            ok = false;
        else if (s->kind == I_BRA) {
            for (long k = 0; k < b->nlabels && s->nops >= 1; k++) /* by name, as body_judge */
                if (!strcmp(b->labels[k], s->ops[0]))
                    tgt[i] = lab_at[k];
            if (tgt[i] < 0)
                ok = false;
        }
    }
    cover_walk w = {b, tgt, defat, dom, seen, stack, 1L << 24};
    size_t n = strlen(name);
    int bars = 0;
    for (long bar = 0; bar < b->n && ok && !found; bar++) {
        const stmt *B = &b->st[bar];
        if (B->kind == I_RET || (B->kind == I_BARN && !quiet_call(b, B)))
            break; /* nothing past it: a thread may leave, a round may differ (REF13: a call
                    * of a quiet function -- no barrier in it, back by ret -- does not end it) */
        if (B->kind != I_BAR)
            continue;
        int64_t id;
        if (B->guard >= 0 || B->nops != 1 || !ptxdata_int(B->ops[0], strlen(B->ops[0]), &id) ||
            ++bars > 64)
            break;
        bool over = false; /* a branch jumps over it or loops back over it (REF12: one that
                            * no thread takes at this launch -- its guard a constant the other
                            * way, as `t >= blockDim.x` is at the shape -- does not) */
        for (long j = 0; j < b->n && !over; j++) {
            const stmt *J = &b->st[j];
            if (J->kind != I_BRA)
                continue;
            const reg *g = J->guard >= 0 ? &b->regs[J->guard] : NULL;
            if (g && g->defs == 1 && g->pc >= 0 && (!g->pc) != J->guard_neg)
                continue;
            over = (j < bar && tgt[j] > bar) || (j > bar && tgt[j] < bar);
        }
        if (over)
            break; /* not executed once by every thread: no later one either */
        for (long i = 0; i < bar && !found; i++) {
            const stmt *s = &b->st[i];
            if (!op_is(s->op, "st") || s->nops != 2 || (!any && (!b->run || !b->run[i])))
                continue;
            const char *p = s->ops[0];
            if (*p != '[')
                continue;
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (strncmp(p, name, n))
                continue;
            const char *q = p + n;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q != ']' || !tid0_guard(b, s, true))
                continue;
            if (s->guard >= 0 && !(defat[s->guard] >= 0 && defat[s->guard] < i &&
                                   !cover_reaches(&w, defat[s->guard], i, false)))
                continue; /* its guard not computed before it on every way */
            bool straight = true; /* from it to B: branches forward only, so none back over it
                                   * (one from past B would jump back over B: refused above) */
            for (long j = i + 1; j < bar && straight; j++)
                if (b->st[j].kind == I_BRA && tgt[j] <= j)
                    straight = false;
            if (!straight || cover_reaches(&w, i, bar, true))
                continue; /* thread 0 may reach B without it */
            int64_t vals[PTXDATA_VALS];
            if (any) {
                *line = B->line;
                at = bar;
                found = true;
            } else if (stored_values(b, s, size, clk, vals, PTXDATA_VALS) == 1) {
                *v = vals[0];
                if (size < 8)
                    *v = (int64_t)((uint64_t)*v & ((1ull << (8 * size)) - 1));
                *line = B->line;
                at = bar;
                found = true;
            }
        }
    }
    hk_free(lab_at);
    hk_free(tgt);
    hk_free(defat);
    hk_free(dom);
    hk_free(seen);
    hk_free(stack);
    return at;
}

/* The stores pass, at the launched entry's end: judge it at the launch and note, for each
 * variable asked about, its plain stores in the body and whether one can run. */
static void stores_judge(scan *sc)
{
    body *b = &sc->b;
    ptxrace_result scratch;
    memset(&scratch, 0, sizeof scratch);
    b->want_run = true;
    sc->judged++;
    if ((sc->rc = body_judge(b, &scratch)) != HK_OK)
        return;
    if (!b->run) {
        sc->odd = true; /* not judged (skipped): nothing is known not to run */
        return;
    }
    bool *clk = hk_calloc((size_t)b->nregs + 1, sizeof *clk);
    if (!clk) {
        sc->rc = HK_ENOMEM;
        return;
    }
    clock_regs(b, clk);
    for (long i = 0; i < b->n; i++) {
        const stmt *s = &b->st[i];
        if (s->kind == I_LABEL) {
            for (long j = 0; j < i; j++)
                if (b->st[j].kind == I_LABEL && b->st[j].label == s->label)
                    sc->odd = true; /* a label defined twice: which one a branch means? */
            continue;
        }
        /* an op or a guard this reading does not take apart (`@ %p bra`): a branch it may miss */
        if (!isalpha((unsigned char)s->op[0]))
            sc->odd = true;
        if (s->guard >= 0) {
            const char *g = b->regs[s->guard].name;
            if (!g || !(*g == '%' || *g == '_' || *g == '$' || isalpha((unsigned char)*g)))
                sc->odd = true;
        }
        if (!op_is(s->op, "st") || s->nops < 1)
            continue;
        const char *p = s->ops[0];
        if (*p != '[')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = 0;
        while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '$' || p[n] == '%'))
            n++;
        for (int k = 0; k < sc->nsv; k++)
            if (strlen(sc->sv[k].name) == n && !strncmp(sc->sv[k].name, p, n)) {
                sc->sv[k].seen++;
                if (!b->run[i])
                    continue;
                sc->sv[k].live = true;
                if (b->run[i] == 2)
                    sc->sv[k].sure = true; /* runs whatever the data: the initializer may
                                            * never be seen */
                size_t size = 0;
                int64_t v[PTXDATA_VALS];
                int nv = sc->sv[k].many || !ptxdata_size(sc->data, sc->sv[k].name, &size)
                             ? 0
                             : stored_values(b, s, size, clk, v, PTXDATA_VALS);
                if (!nv)
                    sc->sv[k].many = true;
                for (int j = 0; j < nv && !sc->sv[k].many; j++) {
                    int64_t x = v[j];
                    if (size < 8) /* as the bytes stored: the low ones */
                        x = (int64_t)((uint64_t)x & ((1ull << (8 * size)) - 1));
                    bool seen = false;
                    for (int q = 0; q < sc->sv[k].nv && !seen; q++)
                        seen = sc->sv[k].v[q] == x;
                    if (seen)
                        continue;
                    if (sc->sv[k].nv == PTXDATA_VALS)
                        sc->sv[k].many = true;
                    else
                        sc->sv[k].v[sc->sv[k].nv++] = x;
                }
            }
    }
    for (int k = 0; k < sc->nsv; k++) {
        size_t size = 0;
        if (!sc->sv[k].many && sc->sv[k].nv == 1 &&
            ptxdata_size(sc->data, sc->sv[k].name, &size) &&
            store_cover(b, sc->sv[k].name, size, clk, &sc->sv[k].cover_v, &sc->sv[k].cover_line))
            sc->sv[k].cover = sc->sv[k].cover_v == sc->sv[k].v[0];
    }
    hk_free(clk);
}

/* A declaration of the launched entry's body (the stores pass, REF13), depth its scope's:
 * the names it declares noted (outer: the body's level; inner: a nested scope's `.reg`). A
 * nested scope may declare `.reg` and `.param` (not one of the entry's parameters: an
 * `ld.param` of that name reads as the launch's value) and hold `.pragma`; anything else it
 * declares (`.local`, `.shared`...) the reading does not follow: odd. */
static void decl_note(scan *sc, const char *s, int depth)
{
    char buf[PR_LINE];
    cut_copy(buf, sizeof buf, s);
    for (char *piece = buf; piece && *piece;) {
        char *semi = strchr(piece, ';');
        if (semi)
            *semi = '\0';
        char *t = trim(piece);
        piece = semi ? semi + 1 : NULL;
        if (!*t)
            continue;
        char w0[16] = "";
        size_t n0 = 0;
        while (t[n0] && !isspace((unsigned char)t[n0]) && n0 + 1 < sizeof w0)
            n0++;
        memcpy(w0, t, n0);
        w0[n0] = '\0';
        bool is_reg = !strcmp(w0, ".reg"), param = !strcmp(w0, ".param");
        if (depth > 1 && !strcmp(w0, ".pragma"))
            continue;
        if (depth > 1 && !is_reg && !param) {
            sc->odd = true;
            continue;
        }
        /* the names: every word past the directives (.b32, .align 8) up to an initializer */
        for (char *p = t; *p && *p != '=';) {
            while (*p && (isspace((unsigned char)*p) || *p == ','))
                p++;
            if (!*p || *p == '=')
                break;
            char *w = p;
            while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '=')
                p++;
            size_t n = (size_t)(p - w);
            if (*w == '.' || isdigit((unsigned char)*w))
                continue;
            char nm[64];
            if (n >= sizeof nm) {
                sc->odd = true;
                continue;
            }
            memcpy(nm, w, n);
            nm[n] = '\0';
            char *br = strchr(nm, '[');
            if (br)
                *br = '\0';
            if (depth > 1 && param) {
                for (int k = 0; k < sc->b.nparams && k < PTXRACE_ARGS; k++)
                    if (!strcmp(nm, sc->b.pname[k]))
                        sc->odd = true;
                continue;
            }
            int *cnt = depth > 1 ? &sc->ninner : &sc->nouter;
            char (*list)[64] = depth > 1 ? sc->inner : sc->outer;
            if (*cnt >= PR_DECL)
                sc->odd = true;
            else
                cut_copy(list[(*cnt)++], sizeof list[0], nm);
        }
    }
}

/* Whether two declared names can be one register: equal, or one a range (`%r<79>`) whose
 * prefix starts the other. */
static bool decl_meet(const char *x, const char *y)
{
    const char *lx = strchr(x, '<'), *ly = strchr(y, '<');
    size_t px = lx ? (size_t)(lx - x) : strlen(x), py = ly ? (size_t)(ly - y) : strlen(y);
    if (!lx && !ly)
        return !strcmp(x, y);
    if (lx && !strncmp(y, x, px))
        return true;
    return ly && !strncmp(x, y, py);
}

/* The launched entry's nested scopes read as one (REF13): sound when no register a nested
 * scope declares can be another declaration's (the body's own, or another scope's) while a
 * statement writes or guards with it -- else a read inside the scope of its own, unwritten
 * register would take the other's value here. nvcc's callseq declares `temp_param_reg` in
 * each scope and never writes it. odd otherwise. */
static void decl_judge(scan *sc)
{
    for (int i = 0; i < sc->ninner && !sc->odd; i++) {
        const char *x = sc->inner[i];
        bool meet = false;
        for (int j = 0; j < sc->ninner && !meet; j++)
            meet = j != i && decl_meet(x, sc->inner[j]);
        for (int j = 0; j < sc->nouter && !meet; j++)
            meet = decl_meet(x, sc->outer[j]);
        if (meet && (strchr(x, '<') || reg_find(&sc->b, x) >= 0))
            sc->odd = true;
    }
}

/* (REF19) One name of a .shared declaration into the scan's table (shdecl); poison: a
 * declaration whose scope this reading does not follow (a nested one), which makes the name
 * not read. */
static void shared_put(scan *sc, const char *name, size_t n, long size, bool in_body, bool poison)
{
    if (!n || n >= sizeof sc->sh[0].name) {
        sc->sh_over = true;
        return;
    }
    for (int k = 0; k < sc->nsh; k++)
        if (strlen(sc->sh[k].name) == n && !strncmp(sc->sh[k].name, name, n)) {
            sc->sh[k].count += poison ? 2 : 1;
            return;
        }
    if (sc->nsh == PR_SHARED) {
        sc->sh_over = true;
        return;
    }
    shdecl *d = &sc->sh[sc->nsh++];
    memcpy(d->name, name, n);
    d->name[n] = '\0';
    d->size = size;
    d->count = poison ? 2 : 1;
    d->in_body = in_body;
}

/* (REF19) A declaration line holding `.shared` (`.shared .align 4 .b8 NAME[1024];`, `.extern
 * .shared ... NAME[];`): each name it declares, with its size where one name of an integer or
 * float type of 8-128 bits (a vector of them too) and known dimensions is declared, not
 * .extern; else -1. */
static void shared_note(scan *sc, const char *s, bool in_body, bool poison)
{
    long elem = 0, vec = 1;
    bool ext = has_word(s, ".extern"), sure = true;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '.')
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if ((p[1] == 'b' || p[1] == 'u' || p[1] == 's' || p[1] == 'f') &&
            isdigit((unsigned char)p[2])) {
            long bits = strtol(p + 2, NULL, 10);
            elem = bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 128 ? bits / 8 : 0;
            sure = sure && elem;
        } else if (p[1] == 'v' && isdigit((unsigned char)p[2]))
            vec = strtol(p + 2, NULL, 10);
        else if (!strncmp(p, ".align", 6) && e - p == 6) {
            while (*e == ' ' || *e == '\t')
                e++;
            while (isdigit((unsigned char)*e))
                e++;
        } else if (strncmp(p, ".shared", 7) && strncmp(p, ".extern", 7) &&
                   strncmp(p, ".visible", 8) && strncmp(p, ".weak", 5))
            sure = false; /* another qualifier: not read */
        p = e;
    }
    bool one = !strchr(p, ',') && !strchr(p, '=');
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *nm = p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
            p++;
        size_t n = (size_t)(p - nm);
        if (!n)
            break;
        long size = sure && one && !ext && elem ? elem * vec : -1;
        while (*p == '[') {
            char *e;
            long d = strtol(p + 1, &e, 10);
            if (e == p + 1 || *e != ']' || d <= 0 || d > (1L << 24) || size < 0)
                size = -1;
            else
                size *= d;
            p = *e == ']' ? e + 1 : e;
            if (size > (1L << 30))
                size = -1;
        }
        shared_put(sc, nm, n, size, in_body, poison);
        while (*p && *p != ',')
            p++;
    }
}

static void scan_line(scan *sc, char *raw)
{
    sc->line++;
    if (sc->rc)
        return;
    /* Comments as ptxas reads them (session 51): `//` starts one outside a string and a
     * block comment (`/ * // * / st.shared ...` hid the store), which may span lines, is
     * blanked; a string ends at the next quote (ptxas knows no escapes), so
     * `.pragma "//"; st.shared.f32 [%r1], %f1;` is a pragma and a store, and a `{` or `}`
     * in a string is no scope (blanked below, once .file has read its name). */
    bool str = false, commented = sc->in_comment;
    for (char *p = raw; *p; p++) {
        if (sc->in_comment) {
            if (p[0] == '*' && p[1] == '/') {
                *p++ = ' ';
                sc->in_comment = false;
            }
            *p = ' ';
        } else if (*p == '"') {
            str = !str;
        } else if (str) {
            continue;
        } else if (p[0] == '/' && p[1] == '/') {
            *p = '\0';
            break;
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ';
            *p = ' ';
            sc->in_comment = commented = true;
        }
    }
    if (sc->reach && commented)
        sc->odd = true; /* a block comment: read as ptxdata reads it, still noted */
    char *s = trim(raw);
    if (!*s)
        return;
    if (!strncmp(s, ".file", 5) && (s[5] == ' ' || s[5] == '\t')) {
        long idx = strtol(s + 5, NULL, 10);
        const char *q = strchr(s, '"');
        if (idx > 0 && idx < PR_FILES && q) {
            const char *e = strchr(q + 1, '"');
            const char *base = q + 1;
            for (const char *p = q + 1; e && p < e; p++)
                if (*p == '/')
                    base = p + 1;
            size_t n = e ? (size_t)(e - base) : 0;
            if (n >= sizeof sc->files[0])
                n = sizeof sc->files[0] - 1;
            memcpy(sc->files[idx], base, n);
            sc->files[idx][n] = '\0';
        }
        return;
    }
    for (char *p = s, *open = NULL; *p; p++) { /* what a string holds is no statement */
        if (*p == '"')
            open = open ? NULL : p;
        else if (open)
            *p = '_';
    }
    /* the stores pass (REF13): a call over several lines (`call.uni (retval0),` then its
     * target, its arguments, `);`) read as one statement, as ptxdata reads it */
    char joined[PR_LINE];
    if (sc->reach && sc->state == BODY && (sc->launched || sc->is_func)) {
        size_t n = strlen(s);
        const char *op = s;
        if (*op == '@') { /* a guard before the op */
            while (*op && !isspace((unsigned char)*op))
                op++;
            while (isspace((unsigned char)*op))
                op++;
        }
        /* a call alone: the main reading takes its lines apart the same (the op, then its
         * target as a statement of its own, call_how); any other statement over lines is odd
         * (below): the main reading would take `@%p` and `bra L;` as two */
        bool open = (sc->npend || (!strncmp(op, "call", 4) && (op[4] == '.' ||
                                                                isspace((unsigned char)op[4])))) &&
                    *s != '.' && !strchr(";{}:", s[n - 1]);
        if (sc->npend && *s == '.') {
            sc->odd = true; /* a directive inside a statement */
            sc->npend = 0;
        } else if (open || sc->npend) {
            if (sc->npend + n + 2 > sizeof sc->pend) {
                sc->odd = true;
                sc->npend = 0;
                return;
            }
            if (sc->npend)
                sc->pend[sc->npend++] = ' ';
            memcpy(sc->pend + sc->npend, s, n + 1);
            sc->npend += n;
            if (open)
                return;
            memcpy(joined, sc->pend, sc->npend + 1);
            sc->npend = 0;
            s = joined;
        }
    }
    if (sc->state == OUTSIDE) {
        if (*s == '.' && has_word(s, ".shared"))
            shared_note(sc, s, false, false);
        if (has_word(s, ".entry") || has_word(s, ".func")) {
            int keep = 0; /* (REF19) the last body's .shared declarations dropped */
            for (int k = 0; k < sc->nsh; k++)
                if (!sc->sh[k].in_body)
                    sc->sh[keep++] = sc->sh[k];
            sc->nsh = keep;
            body_clear(&sc->b);
            word_after(s, has_word(s, ".entry") ? ".entry" : ".func", sc->b.func, sizeof sc->b.func);
            sc->b.maxx = PR_T;
            memset(sc->b.ntid, 0, sizeof sc->b.ntid);
            /* the shape is the launched kernel's: another entry, or a device function (which
             * may be called from anywhere), is judged at no shape */
            sc->launched = has_word(s, ".entry") && (!sc->entry || !strcmp(sc->entry, sc->b.func));
            sc->is_func = !has_word(s, ".entry");
            sc->is_weak = has_word(s, ".weak") || has_word(s, ".extern");
            sc->nouter = sc->ninner = 0;
            sc->npend = 0;
            if (sc->launched)
                memcpy(sc->b.ntid, sc->ntid, sizeof sc->ntid);
            if (sc->b.ntid[0] > 0 && sc->b.ntid[0] < sc->b.maxx)
                sc->b.maxx = sc->b.ntid[0]; /* tid.x < blockDim.x */
            sc->b.unroll_ovf = -1;
            sc->b.data = sc->data; /* in every function: nothing writes it anywhere */
            sc->state = HEADER;
            sc->src = 0;
            sc->src_file = 0;
            const char *paren = strchr(s, '(');
            if (paren && has_word(s, ".entry"))
                param_note(sc, paren); /* .entry K(.param ... on one line */
        }
        if (sc->state == OUTSIDE)
            return;
    }
    if (sc->state == HEADER) {
        if (!strncmp(s, ".reqntid", 8) || !strncmp(s, ".maxntid", 8)) {
            /* .reqntid X[, Y, Z]: tid.x < X; .maxntid bounds the product of the three, so
             * tid.x < X*Y*Z only */
            char *e;
            long x = strtol(s + 8, &e, 10);
            if (s[1] == 'm')
                for (int k = 0; k < 2 && *e == ','; k++) {
                    long y = strtol(e + 1, &e, 10);
                    if (y > 0 && x < PR_T)
                        x *= y;
                }
            if (x > 0 && x < sc->b.maxx)
                sc->b.maxx = x;
            return;
        }
        if (!strncmp(s, ".param", 6))
            param_note(sc, s); /* then as any header line */
        size_t n = strlen(s);
        if (*s == '{') {
            sc->state = BODY;
            sc->depth = 1;
            s = trim(s + 1);
            if (!*s)
                return;
        } else {
            if (n && s[n - 1] == ';') { /* a declaration without a body */
                sc->state = OUTSIDE;
                if (sc->is_func && !sc->is_weak)
                    sc->fwd = true;
            }
            return;
        }
    }
    /* in a body */
    bool brace = false;
    for (const char *p = s; *p; p++) {
        if (*p == '{')
            sc->depth++, brace = true; /* a nested scope or a vector operand (REF13: a nested
                                        * scope's declarations are judged by decl_judge in the
                                        * stores pass) */
        else if (*p == '}')
            sc->depth--;
    }
    sc->b.sh = sc->sh; /* (REF19) the declarations seen so far, for shared_word */
    sc->b.nsh = sc->sh_over ? -1 : sc->nsh;
    sc->b.entry = !sc->is_func;
    if (sc->reach && sc->launched && sc->depth > 0 && *s != '.') {
        char e = s[strlen(s) - 1];
        if (e != ';' && e != '{' && e != '}' && e != ':')
            sc->odd = true; /* a statement continued on the next line (`@%p` then `bra L;`) */
    }
    if (sc->reach && sc->launched && sc->depth > 0 && *s == '.') {
        if (strchr(s, '{') || strchr(s, '}'))
            sc->odd = true; /* a declaration and a scope on one line: which scope is whose */
        decl_note(sc, s, sc->depth);
    }
    if (sc->depth <= 0 && sc->reach) {
        sc->state = OUTSIDE;
        sc->b.nquiet = sc->nquiet;
        sc->b.quiet = (const char (*)[96])sc->quiet;
        if (sc->npend)
            sc->odd = sc->launched || sc->odd; /* a statement left open */
        if (sc->launched) {
            decl_judge(sc);
            stores_judge(sc);
        } else if (sc->is_func && !sc->is_weak && !sc->npend && sc->nquiet < PR_QUIET &&
                   quiet_fn(&sc->b))
            cut_copy(sc->quiet[sc->nquiet++], sizeof sc->quiet[0], sc->b.func);
        sc->npend = 0;
        body_clear(&sc->b);
        return;
    }
    if (sc->reach && !sc->launched && !sc->is_func)
        return; /* the stores pass reads the launched entry and the device functions (REF13:
                 * which hold no barrier) alone */
    if (sc->depth <= 0) {
        sc->state = OUTSIDE;
        bool before = sc->out->found && !sc->out->barrier;
        ptxrace_result bar;
        memset(&bar, 0, sizeof bar);
        sc->b.bar_out = &bar;
        sc->b.nfn = sc->nfn;
        sc->b.fn_name = (const char (*)[96])sc->fn_name;
        sc->b.fn_how = sc->fn_how;
        sc->b.fn_out = 0;
        if ((sc->rc = body_judge(&sc->b, sc->out)) == HK_OK && sc->is_func && sc->b.fn_out) {
            int k = 0; /* a later reading (rescan) finds it there: what it adds */
            while (k < sc->nfn && strcmp(sc->fn_name[k], sc->b.func))
                k++;
            if (k < sc->nfn && (sc->fn_how[k] | sc->b.fn_out) != sc->fn_how[k]) {
                sc->fn_how[k] |= sc->b.fn_out;
                sc->fn_changed = true;
            } else if (k == sc->nfn && sc->nfn < PR_SENSE_FN) {
                cut_copy(sc->fn_name[sc->nfn], sizeof sc->fn_name[0], sc->b.func);
                sc->fn_how[sc->nfn++] = sc->b.fn_out;
                sc->fn_changed = true;
            }
        }
        if (sc->rc == HK_OK)
            sc->rc = body_unroll(&sc->b, sc->out); /* a shape known: its loops unrolled */
        if (sc->rc == HK_OK && !before && (!sc->out->found || sc->out->barrier))
            sc->rc = body_choices(&sc->b, sc->out); /* at each value of a few */
        if (sc->rc == HK_OK && !sc->out->found && bar.found) { /* a pair read stays the reason */
            ptxrace_result *o = sc->out;
            o->found = o->barrier = true;
            o->k = 0;
            o->ld_line = bar.ld_line;
            o->st_line = bar.st_line;
            o->ld_src = bar.ld_src;
            o->st_src = bar.st_src;
            memcpy(o->src_file, bar.src_file, sizeof o->src_file);
            memcpy(o->func, bar.func, sizeof o->func);
            memcpy(o->ld_text, bar.ld_text, sizeof o->ld_text);
            memcpy(o->st_text, bar.st_text, sizeof o->st_text);
        }
        body_clear(&sc->b);
        return;
    }
    const char *line_start = s;
    while (*s == '{' || *s == '}')
        s = trim(s + 1);
    if (s != line_start && *s == '.' && sc->reach && sc->launched)
        sc->odd = true; /* `{ .reg .pred p; ...`: a declaration decl_note did not see */
    if (!strncmp(s, ".loc", 4) && (s[4] == ' ' || s[4] == '\t')) {
        /* .loc FILE LINE COL[, function_name ..., inlined_at FILE LINE COL]: the outermost */
        const char *in = strstr(s, "inlined_at");
        const char *q = in ? in + 10 : s + 4;
        char *e;
        long fi = strtol(q, &e, 10);
        long ln = strtol(e, NULL, 10);
        if (ln > 0) {
            sc->src = ln;
            sc->src_file = (int)fi;
        }
        return;
    }
    /* one statement per ';' (inline asm may put several on a line, in a `{ ... }` scope), a
     * label before one on its line */
    for (char *piece = s; piece && *piece && !sc->rc;) {
        char *next = NULL;
        int depth = 0;
        for (char *p = piece; *p; p++) {
            if (*p == '[' || *p == '(')
                depth++;
            else if ((*p == ']' || *p == ')') && depth)
                depth--;
            else if (*p == ';' && !depth) {
                if (p[1])
                    next = p + 1;
                *p = '\0';
                break;
            }
        }
        char *t = trim(piece);
        while (*t == '{' || *t == '}')
            t = trim(t + 1);
        size_t n = strlen(t);
        while (n && t[n - 1] == '}')
            t[--n] = '\0';
        t = trim(t);
        char *colon = strchr(t, ':');
        if (colon && colon > t && colon[1] != ':' && (colon == t || colon[-1] != ':')) {
            bool label = is_ident_start(*t);
            for (char *q = t + 1; label && q < colon; q++)
                label = isalnum((unsigned char)*q) || *q == '_' || *q == '$';
            if (label) {
                char after = colon[1];
                colon[1] = '\0';
                sc->rc = stmt_parse(&sc->b, t, sc->line, sc->src, sc->src_file);
                colon[1] = after;
                t = trim(colon + 1);
            }
        }
        if (*t == '.' && has_word(t, ".shared")) /* (REF19) in a nested scope: not read */
            shared_note(sc, t, true, brace || sc->depth > 1 || t != s);
        if (*t && *t != '.' && !sc->rc)
            sc->rc = stmt_parse(&sc->b, t, sc->line, sc->src, sc->src_file); /* not a declaration */
        else if (*t == '.' && *s != '.' && sc->reach && sc->launched)
            sc->odd = true; /* a declaration after a statement or a scope's `{` on its line
                             * (`{ .reg .pred p; ...`): not noted by decl_note */
        piece = next;
    }
}

static void scan_finish(scan *sc)
{
    body_clear(&sc->b);
    ptxrace_result *o = sc->out;
    if (o->found && o->src_file[0] == '#') {
        int idx = atoi(o->src_file + 1);
        if (idx > 0 && idx < PR_FILES)
            cut_copy(o->src_file, sizeof o->src_file, sc->files[idx]);
        else
            o->src_file[0] = '\0';
    }
}

/* (REF13) A function's body may come after a caller's (a .func declared first: nvcc writes
 * mutually recursive functions so, and libdevice's slow paths): a caller judged before it did
 * not know what it senses. Then the text is read again, what every function senses (fn_name,
 * fn_how) kept from the reading before, until a reading adds nothing (at most PR_READINGS in
 * all); the last reading's finding is the result. */
#define PR_READINGS 4
static void scan_feed(scan *sc, const char *text, size_t len, FILE *fp, bool *cut);
static void scan_again(scan *sc, const char *text, size_t len, FILE *fp, bool *cut)
{
    for (int r = 1; r < PR_READINGS && sc->rc == HK_OK && sc->fwd && sc->fn_changed; r++) {
        body_clear(&sc->b);
        memset(sc->out, 0, sizeof *sc->out);
        sc->state = OUTSIDE;
        sc->depth = 0;
        sc->line = 0;
        sc->src = 0;
        sc->src_file = 0;
        sc->fn_changed = false;
        scan_feed(sc, text, len, fp, cut);
    }
}

static void scan_shape(scan *sc, const long *shape)
{
    for (int d = 0; shape && d < 3; d++)
        sc->ntid[d] = shape[d] > 0 && shape[d] <= PR_T ? shape[d] : 0;
    if (shape && sc->ntid[0] > 0 && (!sc->ntid[1] || !sc->ntid[2]))
        sc->ntid[0] = sc->ntid[1] = sc->ntid[2] = 0; /* not a shape: judged as unknown */
}

/* The launch's filled names as C strings, into out (PTXRACE_FILLED): their count. */
static int filled_names(const ptxrace_launch *l, const char **out)
{
    int n = l->nfilled < 0 ? 0 : l->nfilled < PTXRACE_FILLED ? l->nfilled : PTXRACE_FILLED;
    for (int i = 0; i < n; i++)
        out[i] = l->filled[i];
    return n;
}

/* Every line of the text (len bytes), or of the file fp from its start, into scan_line. A
 * line longer than PR_LINE is cut (its rest dropped): *cut set. */
static void scan_feed(scan *sc, const char *text, size_t len, FILE *fp, bool *cut)
{
    char line[PR_LINE];
    if (fp) {
        rewind(fp);
        bool cont = false; /* the rest of a line longer than the buffer: dropped */
        while (!sc->rc && fgets(line, sizeof line, fp)) {
            size_t n = strlen(line);
            bool whole = n && line[n - 1] == '\n';
            if (!cont)
                scan_line(sc, line);
            else
                *cut = true;
            cont = !whole;
            if (cont && feof(fp))
                cont = false;
        }
        return;
    }
    size_t i = 0;
    while (i < len && !sc->rc) {
        size_t n = 0;
        while (i < len && text[i] != '\n') {
            if (n + 1 < sizeof line)
                line[n++] = text[i];
            else
                *cut = true;
            i++;
        }
        i++;
        line[n] = '\0';
        scan_line(sc, line);
    }
}

/* Module data that only the launched entry's plain stores write (ptxdata_stored): the entry
 * judged at this launch (its shape, its scalar arguments, the module data already known), and
 * each such variable none of whose stores can run -- every one in a block no branch reaches
 * once the launch's constants decide the branches, or under a guard that is a constant false
 * -- read from then on as its initializer (docs/referee.md "Stores no launch runs"). Nothing
 * is allowed when the text is not read here as ptxdata reads it: a line cut, a block
 * comment, a nested scope or a statement across lines in the entry, an op or guard not taken
 * apart, a label defined twice, the entry not judged (or found other than once), or a count
 * of stores that differs from ptxdata's. HK_OK, HK_ENOMEM. */
static int stores_pass(scan *sc, const char *text, size_t len, FILE *fp)
{
    if (!sc->data || !sc->entry)
        return HK_OK;
    scan *r = hk_calloc(1, sizeof *r);
    if (!r)
        return HK_ENOMEM;
    for (long k = 0, nk = ptxdata_names(sc->data); k < nk && r->nsv < PR_STORED; k++) {
        const char *name, *entry;
        long nst;
        if (ptxdata_stored(sc->data, k, &name, &entry, &nst) && !strcmp(entry, sc->entry)) {
            r->sv[r->nsv].name = name;
            r->sv[r->nsv].nst = nst;
            r->nsv++;
        }
    }
    if (!r->nsv) {
        hk_free(r);
        return HK_OK;
    }
    ptxrace_result scratch;
    memset(&scratch, 0, sizeof scratch);
    r->out = &scratch;
    memcpy(r->ntid, sc->ntid, sizeof r->ntid);
    r->launch = sc->launch;
    r->entry = sc->entry;
    r->data = sc->data;
    r->reach = true;
    bool cut = false;
    scan_feed(r, text, len, fp, &cut);
    body_clear(&r->b);
    int rc = r->rc;
    if (fp && ferror(fp))
        rc = HK_EIO;
    if (rc == HK_OK && !cut && !r->odd && r->judged == 1 && r->state == OUTSIDE) {
        for (int k = 0; k < r->nsv; k++) {
            if (r->sv[k].seen != r->sv[k].nst)
                continue;
            if (!r->sv[k].live)
                ptxdata_allow(sc->data, r->sv[k].name);
            else if (!r->sv[k].many && r->sv[k].nv) { /* stores of a few values */
                ptxdata_allow_values(sc->data, r->sv[k].name, r->sv[k].v, r->sv[k].nv,
                                     !r->sv[k].sure);
                if (r->sv[k].cover) /* and past the barrier they precede, only theirs */
                    ptxdata_allow_cover(sc->data, r->sv[k].name, r->sv[k].cover_line,
                                        r->sv[k].cover_v);
            }
        }
    }
    hk_free(r);
    return rc;
}

int ptxrace_scan(const char *text, size_t len, ptxrace_result *out)
{
    return ptxrace_scan_shape(text, len, NULL, out);
}

int ptxrace_scan_shape(const char *text, size_t len, const long *shape, ptxrace_result *out)
{
    return ptxrace_scan_entry_shape(text, len, shape, NULL, out);
}

int ptxrace_scan_entry_shape(const char *text, size_t len, const long *shape, const char *entry,
                             ptxrace_result *out)
{
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    if (shape)
        memcpy(l.shape, shape, sizeof l.shape);
    return ptxrace_scan_launch(text, len, shape ? &l : NULL, entry, out);
}

int ptxrace_scan_launch(const char *text, size_t len, const ptxrace_launch *l, const char *entry,
                        ptxrace_result *out)
{
    scan *sc = hk_calloc(1, sizeof *sc);
    if (!sc)
        return HK_ENOMEM;
    memset(out, 0, sizeof *out);
    sc->out = out;
    scan_shape(sc, l ? l->shape : NULL);
    sc->launch = l;
    sc->entry = entry;
    if (l && l->module_data && l->nfilled <= PTXRACE_FILLED) {
        const char *filled[PTXRACE_FILLED];
        int nf = filled_names(l, filled);
        if ((sc->rc = ptxdata_read(text, len, filled, nf, &sc->data)) != HK_OK) {
            int rc = sc->rc;
            hk_free(sc);
            return rc;
        }
        if ((sc->rc = stores_pass(sc, text, len, NULL)) != HK_OK) {
            int rc = sc->rc;
            ptxdata_free(sc->data);
            hk_free(sc);
            return rc;
        }
    }
    bool cut = false;
    scan_feed(sc, text, len, NULL, &cut);
    scan_again(sc, text, len, NULL, &cut);
    scan_finish(sc);
    int rc = sc->rc;
    ptxdata_free(sc->data);
    hk_free(sc);
    return rc;
}

int ptxrace_file(const char *path, ptxrace_result *out)
{
    return ptxrace_file_shape(path, NULL, out);
}

int ptxrace_file_shape(const char *path, const long *shape, ptxrace_result *out)
{
    return ptxrace_file_entry_shape(path, shape, NULL, out);
}

int ptxrace_file_entry_shape(const char *path, const long *shape, const char *entry,
                             ptxrace_result *out)
{
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    if (shape)
        memcpy(l.shape, shape, sizeof l.shape);
    return ptxrace_file_launch(path, shape ? &l : NULL, entry, out);
}

int ptxrace_file_launch(const char *path, const ptxrace_launch *l, const char *entry,
                        ptxrace_result *out)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return errno == ENOENT ? HK_ENOENT : HK_EIO;
    scan *sc = hk_calloc(1, sizeof *sc);
    if (!sc) {
        fclose(fp);
        return HK_ENOMEM;
    }
    sc->out = out;
    scan_shape(sc, l ? l->shape : NULL);
    sc->launch = l;
    sc->entry = entry;
    if (l && l->module_data && l->nfilled <= PTXRACE_FILLED) { /* a first reading of the whole file: who mentions what */
        const char *filled[PTXRACE_FILLED];
        int nf = filled_names(l, filled);
        int rc = ptxdata_read_file(path, filled, nf, &sc->data);
        if (rc == HK_OK)
            rc = stores_pass(sc, NULL, 0, fp);
        if (rc != HK_OK) {
            fclose(fp);
            ptxdata_free(sc->data);
            hk_free(sc);
            return rc;
        }
    }
    bool cut = false;
    scan_feed(sc, NULL, 0, fp, &cut);
    scan_again(sc, NULL, 0, fp, &cut);
    int rc = ferror(fp) ? HK_EIO : sc->rc;
    fclose(fp);
    scan_finish(sc);
    ptxdata_free(sc->data);
    hk_free(sc);
    return rc;
}
