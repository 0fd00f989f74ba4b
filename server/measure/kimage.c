/* Reads the symbol table of an ELF kernel image (a cubin; or a hipcc --genco code object: a
 * clang offload bundle holding an AMDGPU ELF) and matches a spec's kernel name
 * against its entries. Only what is needed: section headers, one SHT_SYMTAB and its string
 * table; every offset is checked against the file's size before it is read. */
#include "measure/kimage.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

/* why no entry was found: stored in English (a compile's details), said again where shown */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define SHT_SYMTAB_ 2
#define STT_FUNC_ 2
#define STO_CUDA_ENTRY_ 0x10 /* st_other bit nvcc sets on __global__ functions */
#define STT_OBJECT_ 1
#define STB_GLOBAL_ 1
#define EM_AMDGPU_ 224

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int read_all(const char *path, unsigned char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!f)
        return HK_ENOENT;
    struct hk_buf b;
    hk_buf_init(&b, KIMAGE_MAX_BYTES);
    char chunk[65536];
    size_t n;
    int rc = HK_OK;
    while (rc == HK_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = hk_buf_append(&b, chunk, n);
    if (rc == HK_OK && ferror(f))
        rc = HK_EIO;
    fclose(f);
    if (rc != HK_OK) {
        hk_buf_free(&b);
        return rc;
    }
    if (!b.len) {
        hk_buf_free(&b);
        return HK_EPARSE;
    }
    *len = b.len;
    *data = (unsigned char *)hk_buf_steal(&b);
    return *data ? HK_OK : HK_ENOMEM;
}

void kimage_names_free(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        hk_free(names[i]);
    hk_free(names);
}

/* A clang offload bundle (hipcc --genco): "__CLANG_OFFLOAD_BUNDLE__", a uint64 count, then
 * per entry uint64 offset, size, triple length and the triple ("hipv4-amdgcn-amd-amdhsa--gfx906",
 * "host-x86_64-unknown-linux"). *elf and *elf_len: the first amdgcn entry's bytes, an AMDGPU ELF.
 * HK_OK, HK_EPARSE (no such entry, or an offset outside the file). */
#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
static int bundle_device_elf(const unsigned char *d, size_t len, const unsigned char **elf,
                             size_t *elf_len)
{
    size_t at = sizeof BUNDLE_MAGIC - 1;
    if (len < at + 8)
        return HK_EPARSE;
    uint64_t n = rd64(d + at);
    at += 8;
    for (uint64_t i = 0; i < n && i < 1024; i++) {
        if (len - at < 24)
            return HK_EPARSE;
        uint64_t off = rd64(d + at), size = rd64(d + at + 8), tlen = rd64(d + at + 16);
        at += 24;
        if (tlen > len - at)
            return HK_EPARSE;
        const char *triple = (const char *)d + at;
        at += (size_t)tlen;
        if (!memmem(triple, (size_t)tlen, "amdgcn", 6))
            continue;
        if (off > len || size > len - off || size == 0)
            return HK_EPARSE;
        *elf = d + off;
        *elf_len = (size_t)size;
        return HK_OK;
    }
    return HK_EPARSE;
}

/* Whether symbol name (nl bytes) of type type names a kernel entry in an ELF of machine
 * mach; *entry_len: the length of the kernel's name in it. nvcc's cubin marks entries with
 * STO_CUDA_ENTRY; an AMDGPU code object gives every kernel a descriptor object "NAME.kd". */
static bool is_entry(uint16_t mach, const unsigned char *sym, const char *name, size_t nl,
                     size_t *entry_len)
{
    if (mach == EM_AMDGPU_) {
        if ((sym[4] & 0xf) != STT_OBJECT_ || (sym[4] >> 4) != STB_GLOBAL_ || nl <= 3 ||
            memcmp(name + nl - 3, ".kd", 3) != 0)
            return false;
        *entry_len = nl - 3;
        return true;
    }
    *entry_len = nl;
    return (sym[4] & 0xf) == STT_FUNC_ && (sym[5] & STO_CUDA_ENTRY_);
}

int kimage_entries(const char *path, char ***names)
{
    unsigned char *data = NULL;
    size_t len = 0, n = 0, cap = 0;
    char **v = NULL;
    *names = NULL;
    int rc = read_all(path, &data, &len);
    if (rc)
        return rc;
    const unsigned char *d = data;
    if (len >= sizeof BUNDLE_MAGIC - 1 && !memcmp(d, BUNDLE_MAGIC, sizeof BUNDLE_MAGIC - 1) &&
        (rc = bundle_device_elf(data, len, &d, &len)))
        goto out;
    rc = HK_EPARSE;
    if (len < 64 || memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 /* 64-bit */ || d[5] != 1 /* LE */)
        goto out;
    uint16_t mach = rd16(d + 0x12);
    uint64_t shoff = rd64(d + 0x28);
    uint16_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c);
    if (shentsize < 64 || shoff > len || (uint64_t)shnum * shentsize > len - shoff)
        goto out;
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = d + shoff + (uint64_t)i * shentsize;
        if (rd32(sh + 4) != SHT_SYMTAB_)
            continue;
        uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20), entsize = rd64(sh + 0x38);
        uint32_t link = rd32(sh + 0x28);
        if (entsize < 24 || off > len || size > len - off || link >= shnum)
            goto out;
        const unsigned char *strh = d + shoff + (uint64_t)link * shentsize;
        uint64_t stroff = rd64(strh + 0x18), strsize = rd64(strh + 0x20);
        if (stroff > len || strsize > len - stroff)
            goto out;
        for (uint64_t k = 0; k + entsize <= size; k += entsize) {
            const unsigned char *sym = d + off + k;
            uint32_t name = rd32(sym);
            if (name >= strsize)
                continue;
            const char *s = (const char *)d + stroff + name;
            size_t sl = strnlen(s, strsize - name), el = 0;
            if (sl == strsize - name || sl == 0)
                continue; /* not terminated inside the table */
            if (!is_entry(mach, sym, s, sl, &el))
                continue;
            if (n + 1 >= cap) {
                size_t nc = cap ? cap * 2 : 8;
                char **nv = hk_realloc(v, nc * sizeof *nv);
                if (!nv) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                v = nv;
                cap = nc;
            }
            if (!(v[n] = hk_strndup(s, el))) {
                rc = HK_ENOMEM;
                goto out;
            }
            v[++n] = NULL;
        }
        if (!v && !(v = hk_calloc(1, sizeof *v))) {
            rc = HK_ENOMEM;
            goto out;
        }
        *names = v;
        v = NULL;
        rc = HK_OK;
        goto out;
    }
out:
    kimage_names_free(v);
    hk_free(data);
    return rc;
}

/* s without whitespace, into a new string. */
static char *squeeze(const char *s)
{
    char *o = hk_malloc(strlen(s) + 1), *w = o;
    if (!o)
        return NULL;
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n')
            *w++ = *s;
    *w = '\0';
    return o;
}

/* qualified without its trailing template argument list ("ns::k<1, 2>" -> "ns::k"). */
static void drop_targs(char *q)
{
    char *lt = strchr(q, '<');
    if (lt)
        *lt = '\0';
}

int kimage_find(char *const *names, const char *kernel, char *const *targs, size_t n_targs,
                char **out, char **why)
{
    struct hk_buf want, list;
    char *w = NULL;
    int rc = HK_OK, loose = -1, n_loose = 0;
    *out = NULL;
    *why = NULL;
    hk_buf_init(&want, 4096);
    hk_buf_init(&list, 4096);
    if ((rc = hk_buf_appends(&want, kernel)))
        goto out;
    for (size_t i = 0; i < n_targs && rc == HK_OK; i++)
        rc = hk_buf_printf(&want, "%s%s", i ? "," : "<", targs[i]);
    if (rc == HK_OK && n_targs)
        rc = hk_buf_appends(&want, ">");
    if (rc || !(w = squeeze(want.data ? want.data : ""))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    bool qualified_kernel = strstr(kernel, "::") != NULL;
    for (size_t i = 0; names && names[i]; i++) {
        char *q = NULL, *base = NULL, *sq = NULL;
        if (cc_demangle(names[i], &q, &base) == HK_ENOMEM) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (!q) { /* not decodable: compare the raw name */
            q = hk_strdup(names[i]);
            base = hk_strdup(names[i]);
        }
        sq = q ? squeeze(q) : NULL;
        if (!sq || !base) {
            hk_free(q);
            hk_free(base);
            hk_free(sq);
            rc = HK_ENOMEM;
            goto out;
        }
        (void)hk_buf_printf(&list, "%s%s", list.len ? ", " : "", q);
        bool exact = !strcmp(sq, w);
        drop_targs(sq);
        bool fits = qualified_kernel ? !strcmp(sq, kernel) : !strcmp(base, kernel);
        hk_free(q);
        hk_free(base);
        hk_free(sq);
        if (exact) {
            rc = (*out = hk_strdup(names[i])) ? HK_OK : HK_ENOMEM;
            goto out;
        }
        if (fits) {
            loose = (int)i;
            n_loose++;
        }
    }
    if (n_loose == 1) {
        rc = (*out = hk_strdup(names[loose])) ? HK_OK : HK_ENOMEM;
    } else {
        rc = n_loose ? HK_EINVAL : HK_ENOENT;
        *why = hk_asprintf(n_loose ? EN(KIMG_MANY_FIT) : EN(KIMG_NONE_FIT), w,
                           list.len ? list.data : "none");
    }
out:
    hk_buf_free(&want);
    hk_buf_free(&list);
    hk_free(w);
    return rc;
}

/* ---- clock reads in PTX ---- */

/* The most functions and calls the PTX scan follows; past either, KIMAGE_RECURSION. nvcc's
 * whole-program PTX has a few (ptxas inlines the rest of the calls). */
#define KIMAGE_PTX_FUNCS 256
#define KIMAGE_PTX_CALLS 1024

/* A streaming scan: PTX can be hundreds of MB (an initialised __device__ array is written
 * out element by element), so the file is fed in chunks and nothing grows with it. */
typedef struct {
    kimage_clocks *out;
    enum { PS_CODE, PS_LINE_COMMENT, PS_BLOCK_COMMENT, PS_STRING } mode;
    bool star;       /* PS_BLOCK_COMMENT: the previous character was '*' */
    bool slash;      /* PS_CODE: the previous character was '/' */
    bool line_start; /* PS_CODE: only blanks so far on this line */
    bool in_tok;     /* reading the name after a '%' */
    char tok[24];
    size_t tok_len;
    long line;
    char cur[160]; /* the current line's first bytes */
    size_t cur_len;
    unsigned pending; /* bits first found on the current line: their text is filled at its end */
    /* local memory (KIMAGE_LOCAL_BITS) */
    bool in_id;       /* reading a name (not a register) */
    bool id_dot;      /* the name follows a '.' (a state space, a type, a directive) */
    char id[48];      /* its first bytes */
    size_t id_len;    /* its length (may exceed sizeof id) */
    unsigned long long id_hash; /* the whole name's (FNV-1a), for a function's name */
    char prev;        /* the last code character before the current one (blanks skipped) */
    bool depot_size;  /* reading the [SIZE] after a __local_depot name */
    long depot_bytes; /* that size so far */
    long depot_total; /* the sizes of every depot declared (capped) */
    bool seen_begin;  /* a `// begin inline asm` line was seen */
    long last_end;    /* the line of the last `// end inline asm`; 0: none */
    /* calls: the function headers and the call graph, in fixed tables */
    int braces;       /* '{' depth */
    int parens;       /* '(' depth */
    int header;       /* 1: after .func/.entry, before its name */
    unsigned long long pending_fn; /* the name of that header (hash); 0: none */
    char pending_name[48];
    int cur_fn;       /* index of the function whose body the scan is in; -1: none */
    int call;         /* 1: after `call`, before its target */
    int call_parens;  /* the '(' depth the call started at */
    long call_line;
    size_t n_fns, n_edges;
    struct {
        unsigned long long hash;
        char name[48];
    } fns[KIMAGE_PTX_FUNCS];
    struct {
        int from;
        unsigned long long to;
        long line;
    } edges[KIMAGE_PTX_CALLS];
} ptx_scan;

int kimage_clocks_first(unsigned bits)
{
    for (int i = 0; i < KIMAGE_CLOCK_KINDS; i++)
        if (bits & (1u << i))
            return i;
    return -1;
}

static unsigned ptx_register_bit(const char *name, size_t n)
{
    static const char *const clocks[] = {"clock", "clock_hi", "clock64"};
    static const char *const timers[] = {"globaltimer", "globaltimer_lo", "globaltimer_hi"};
    for (size_t i = 0; i < 3; i++) {
        if (strlen(clocks[i]) == n && !memcmp(name, clocks[i], n))
            return KIMAGE_READS_CLOCK;
        if (strlen(timers[i]) == n && !memcmp(name, timers[i], n))
            return KIMAGE_READS_GLOBALTIMER;
    }
    /* %pm0..%pm7 and their 64-bit forms %pm0_64..%pm7_64 */
    if ((n == 3 || (n == 6 && !memcmp(name + 3, "_64", 3))) && !memcmp(name, "pm", 2) &&
        name[2] >= '0' && name[2] <= '7')
        return KIMAGE_READS_PMCOUNTER;
    if (n == 6 && !memcmp(name, "gridid", 6))
        return KIMAGE_READS_GRIDID;
    return 0;
}

/* The first read of bit's kind recorded in out at line, named what: its slot, or -1 when
 * bit names no slot or one of its kind was recorded already. */
static int clocks_mark(kimage_clocks *out, unsigned bit, long line, const char *what)
{
    int i = kimage_clocks_first(bit);
    if (i < 0 || (out->reads & bit))
        return -1;
    out->reads |= bit;
    out->line[i] = line;
    snprintf(out->what[i], sizeof out->what[i], "%s", what);
    return i;
}

static void ptx_found(ptx_scan *s, unsigned bit, const char *what)
{
    if (clocks_mark(s->out, bit, s->line, what) >= 0)
        s->pending |= bit;
}

static void ptx_found_text(ptx_scan *s, unsigned bit, long line, const char *what, const char *text);

static void ptx_end_token(ptx_scan *s)
{
    if (!s->in_tok)
        return;
    s->in_tok = false;
    unsigned bit = ptx_register_bit(s->tok, s->tok_len);
    if (s->call == 2) { /* the target of a call: a register, so a function pointer */
        char text[48];
        s->call = 0;
        snprintf(text, sizeof text, "call %%%.*s", (int)s->tok_len, s->tok);
        ptx_found_text(s, KIMAGE_RECURSION, s->call_line, "call", text);
    }
    if (!bit && s->seen_begin &&
        ((s->tok_len == 2 && !memcmp(s->tok, "SP", 2)) || (s->tok_len == 3 && !memcmp(s->tok, "SPL", 3))))
        bit = KIMAGE_LOCAL_ASM; /* the stack pointer, inside the inline asm span */
    if (bit) {
        char what[sizeof s->tok + 1];
        snprintf(what, sizeof what, "%%%.*s", (int)s->tok_len, s->tok);
        ptx_found(s, bit, what);
    }
}

static void ptx_end_id(ptx_scan *s);

static bool span_is(const char *p, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(p, word, n);
}

static void ptx_end_line(ptx_scan *s)
{
    ptx_end_token(s);
    ptx_end_id(s);
    size_t a = 0, b = s->cur_len;
    while (a < b && (s->cur[a] == ' ' || s->cur[a] == '\t'))
        a++;
    while (b > a && (s->cur[b - 1] == ' ' || s->cur[b - 1] == '\t' || s->cur[b - 1] == '\r'))
        b--;
    /* nvcc's marks around inline asm, read on the raw line whatever the comment state (the
     * asm text can open a comment over them, but not hide them from this) */
    if (span_is(s->cur + a, b - a, "// begin inline asm")) /* i18n: not for people */
        s->seen_begin = true;
    else if (span_is(s->cur + a, b - a, "// end inline asm")) /* i18n: not for people */
        s->last_end = s->line;
    for (int i = 0; i < KIMAGE_CLOCK_KINDS; i++)
        if (s->pending & (1u << i)) {
            /* tabs (nvcc's PTX aligns operands with them) read as one space in a message */
            size_t o = 0;
            for (size_t k = a; k < b && o + 1 < sizeof s->out->text[i]; k++)
                if (s->cur[k] != '\t')
                    s->out->text[i][o++] = s->cur[k];
                else if (o && s->out->text[i][o - 1] != ' ')
                    s->out->text[i][o++] = ' ';
            s->out->text[i][o] = '\0';
        }
    s->pending = 0;
    s->cur_len = 0;
    s->line++;
    s->line_start = true;
    s->slash = false;
    s->star = false;
    if (s->mode == PS_LINE_COMMENT || s->mode == PS_STRING)
        s->mode = PS_CODE;
}

static bool ptx_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

/* A finding whose text is not the current line: set now. */
static void ptx_found_text(ptx_scan *s, unsigned bit, long line, const char *what, const char *text)
{
    int i = clocks_mark(s->out, bit, line, what);
    if (i >= 0)
        snprintf(s->out->text[i], sizeof s->out->text[i], "%s", text);
}

/* Whether a call's target is the device heap's: malloc, free, the aligned malloc, or C++'s
 * operator new / delete in any form (their mangled names start _Znw, _Zna, _Zdl, _Zda). A
 * longer name (n 0) is none of them. */
static bool ptx_heap_function(const char *w, size_t n)
{
    if (span_is(w, n, "malloc") || span_is(w, n, "free") ||
        span_is(w, n, "__nv_aligned_device_malloc"))
        return true;
    return n > 4 && (!memcmp(w, "_Znw", 4) || !memcmp(w, "_Zna", 4) || !memcmp(w, "_Zdl", 4) ||
                     !memcmp(w, "_Zda", 4));
}

/* A name ended: the local-memory words, function headers and call targets. */
static void ptx_end_id(ptx_scan *s)
{
    if (!s->in_id)
        return;
    s->in_id = false;
    const char *w = s->id;
    bool whole = s->id_len <= sizeof s->id; /* every word looked for is shorter */
    size_t n = whole ? s->id_len : 0; /* a longer name matches no word, but counts by its hash */
    unsigned long long hash = s->id_hash ? s->id_hash : 1;
    if (s->seen_begin && s->id_dot && span_is(w, n, "local"))
        ptx_found(s, KIMAGE_LOCAL_ASM, ".local");
    if (n >= 13 && !memcmp(w, "__local_depot", 13)) {
        if (s->seen_begin)
            ptx_found(s, KIMAGE_LOCAL_ASM, "__local_depot");
        s->depot_size = true; /* a `[SIZE]` right after it declares the depot */
        s->depot_bytes = -1;
    }
    if (!s->id_dot && (span_is(w, n, "alloca") || span_is(w, n, "stacksave") ||
                       span_is(w, n, "stackrestore"))) {
        char what[16];
        snprintf(what, sizeof what, "%.*s", (int)n, w);
        ptx_found(s, KIMAGE_DYNAMIC_STACK, what);
    }
    if (s->id_dot && (span_is(w, n, "func") || span_is(w, n, "entry")) && s->braces == 0) {
        s->header = 1;
        s->pending_fn = 0;
        return;
    }
    if (!s->id_dot && s->header == 1 && s->parens == 0) {
        s->header = 0;
        s->pending_fn = hash;
        snprintf(s->pending_name, sizeof s->pending_name, "%.*s",
                 (int)(whole ? s->id_len : sizeof s->id), w); /* cut to fit, for messages */
        return;
    }
    if (!s->id_dot && s->call == 0 && s->braces > 0 && span_is(w, n, "call")) {
        s->call = 1;
        s->call_parens = s->parens;
        s->call_line = s->line;
        return;
    }
    if (!s->id_dot && s->call == 1 && s->parens == s->call_parens) {
        s->call = 0; /* the target: a function's name */
        if (ptx_heap_function(w, n)) {
            char what[40], text[48];
            snprintf(what, sizeof what, "%.*s", (int)n, w);
            snprintf(text, sizeof text, "call %s", what);
            ptx_found_text(s, KIMAGE_DEVICE_HEAP, s->call_line, what, text);
        }
        if (s->cur_fn < 0 || s->n_edges == KIMAGE_PTX_CALLS) {
            ptx_found(s, KIMAGE_RECURSION, "call"); /* outside any function; or too many */
        } else {
            s->edges[s->n_edges].from = s->cur_fn;
            s->edges[s->n_edges].to = hash;
            s->edges[s->n_edges].line = s->call_line;
            s->n_edges++;
        }
    }
}

/* A function body opens with the pending header's name. */
static void ptx_enter_function(ptx_scan *s)
{
    s->cur_fn = -1;
    if (!s->pending_fn)
        return;
    for (size_t i = 0; i < s->n_fns; i++)
        if (s->fns[i].hash == s->pending_fn) {
            s->cur_fn = (int)i; /* defined twice: one node */
            break;
        }
    if (s->cur_fn < 0) {
        if (s->n_fns == KIMAGE_PTX_FUNCS) {
            ptx_found(s, KIMAGE_RECURSION, "call"); /* more functions than the scan follows */
        } else {
            s->fns[s->n_fns].hash = s->pending_fn;
            memcpy(s->fns[s->n_fns].name, s->pending_name, sizeof s->pending_name);
            s->cur_fn = (int)s->n_fns++;
        }
    }
    s->pending_fn = 0;
}

/* The end of the text: the call graph's cycles, the asm span's end. */
static void ptx_finish(ptx_scan *s)
{
    ptx_end_line(s);
    kimage_clocks *o = s->out;
    int k = kimage_clocks_first(KIMAGE_LOCAL_ASM);
    if ((o->reads & KIMAGE_LOCAL_ASM) && o->line[k] > s->last_end) {
        /* the first use after the first begin line lies past the last end line: none in the span */
        o->reads &= ~KIMAGE_LOCAL_ASM;
        o->line[k] = 0;
        o->what[k][0] = o->text[k][0] = '\0';
    }
    /* cycles: depth-first from every function; state 0 new, 1 on the path, 2 done. The
     * graph is small (KIMAGE_PTX_FUNCS nodes), so an explicit stack of (node, next edge). */
    unsigned char state[KIMAGE_PTX_FUNCS];
    int stack_fn[KIMAGE_PTX_FUNCS];
    size_t stack_edge[KIMAGE_PTX_FUNCS];
    memset(state, 0, sizeof state);
    for (size_t root = 0; root < s->n_fns && !(o->reads & KIMAGE_RECURSION); root++) {
        if (state[root])
            continue;
        size_t depth = 0;
        stack_fn[0] = (int)root;
        stack_edge[0] = 0;
        state[root] = 1;
        depth = 1;
        while (depth) {
            int f = stack_fn[depth - 1];
            size_t e = stack_edge[depth - 1];
            while (e < s->n_edges && s->edges[e].from != f)
                e++;
            if (e == s->n_edges) {
                state[f] = 2;
                depth--;
                continue;
            }
            stack_edge[depth - 1] = e + 1;
            int to = -1;
            for (size_t i = 0; i < s->n_fns; i++)
                if (s->fns[i].hash == s->edges[e].to) {
                    to = (int)i;
                    break;
                }
            if (to < 0 || state[to] == 2)
                continue; /* not defined here (vprintf ...): a leaf */
            if (state[to] == 1) {
                char text[80];
                snprintf(text, sizeof text, "call %s", s->fns[to].name);
                ptx_found_text(s, KIMAGE_RECURSION, s->edges[e].line, "call", text);
                break;
            }
            state[to] = 1;
            stack_fn[depth] = to;
            stack_edge[depth] = 0;
            depth++;
        }
    }
}

static void ptx_feed(ptx_scan *s, const char *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char c = p[k];
        if (c == '\n') {
            ptx_end_line(s);
            continue;
        }
        if (s->cur_len < sizeof s->cur)
            s->cur[s->cur_len++] = c;
        switch (s->mode) {
        case PS_LINE_COMMENT:
            continue;
        case PS_BLOCK_COMMENT:
            if (s->star && c == '/')
                s->mode = PS_CODE;
            s->star = c == '*';
            continue;
        case PS_STRING:
            /* ptxas knows no escapes: a string ends at the next '"', backslash or not
             * (`.pragma "x\"; mov.u64 %rd1, %globaltimer; //";` assembles the mov, with a
             * warning "Pragma 'x\' unsupported": session 51) */
            if (c == '"')
                s->mode = PS_CODE;
            continue;
        case PS_CODE:
            break;
        }
        if (s->in_tok) {
            if (ptx_name_char(c)) {
                if (s->tok_len < sizeof s->tok)
                    s->tok[s->tok_len++] = c;
                else
                    s->tok_len = sizeof s->tok; /* too long for any register: no match */
                continue;
            }
            ptx_end_token(s);
        }
        if (s->in_id) {
            if (ptx_name_char(c)) {
                if (s->id_len < sizeof s->id)
                    s->id[s->id_len] = c;
                s->id_len++;
                s->id_hash = (s->id_hash ^ (unsigned char)c) * 1099511628211ull;
                continue;
            }
            ptx_end_id(s);
        }
        if (s->depot_size) { /* __local_depotN[SIZE] */
            if (c == '[' && s->depot_bytes < 0) {
                s->depot_bytes = 0;
                continue;
            }
            if (s->depot_bytes >= 0 && c >= '0' && c <= '9') {
                if (s->depot_bytes <= KIMAGE_LOCAL_SCRUB_MOST * 16)
                    s->depot_bytes = s->depot_bytes * 10 + (c - '0');
                continue;
            }
            if (s->depot_bytes >= 0 && c == ']') {
                s->depot_size = false;
                if (s->depot_total <= KIMAGE_LOCAL_SCRUB_MOST * 16)
                    s->depot_total += s->depot_bytes;
                if (s->depot_total > KIMAGE_LOCAL_SCRUB_MOST)
                    ptx_found(s, KIMAGE_LARGE_FRAME, "__local_depot");
                continue;
            }
            if (c != ' ' && c != '\t' && c != '\r')
                s->depot_size = false;
        }
        if (s->slash && (c == '/' || c == '*')) {
            s->mode = c == '/' ? PS_LINE_COMMENT : PS_BLOCK_COMMENT;
            s->star = false;
            s->slash = false;
            continue;
        }
        s->slash = c == '/';
        if (c == '"') {
            s->mode = PS_STRING;
        } else if (c == '%') {
            s->in_tok = true;
            s->tok_len = 0;
            if (s->call == 1 && s->parens == s->call_parens)
                s->call = 2; /* a call's target in a register */
        } else if (c == '#' && s->line_start) {
            ptx_found(s, KIMAGE_PTX_DIRECTIVE, "#");
        } else if (ptx_name_char(c)) {
            s->in_id = true;
            s->id_dot = s->prev == '.';
            s->id[0] = c;
            s->id_len = 1;
            s->id_hash = (1469598103934665603ull ^ (unsigned char)c) * 1099511628211ull;
        } else if (c == '{') {
            if (s->braces++ == 0)
                ptx_enter_function(s);
        } else if (c == '}') {
            if (s->braces > 0 && --s->braces == 0)
                s->cur_fn = -1;
        } else if (c == '(') {
            s->parens++;
        } else if (c == ')') {
            s->parens -= s->parens > 0;
        } else if (c == ';') {
            s->call = 0;
            if (s->braces == 0) { /* a declaration, not a definition */
                s->header = 0;
                s->pending_fn = 0;
            }
        }
        if (c != ' ' && c != '\t' && c != '\r') {
            s->line_start = false;
            s->prev = c;
        }
    }
}

static void ptx_scan_init(ptx_scan *s, kimage_clocks *out)
{
    memset(out, 0, sizeof *out);
    memset(s, 0, sizeof *s);
    s->out = out;
    s->mode = PS_CODE;
    s->line = 1;
    s->line_start = true;
    s->cur_fn = -1;
}

void kimage_ptx_clocks(const char *text, size_t len, kimage_clocks *out)
{
    ptx_scan s;
    ptx_scan_init(&s, out);
    ptx_feed(&s, text, len);
    ptx_finish(&s);
}

/* The file at path fed to a scanner in chunks (feed(scan, bytes, n)); HK_ENOENT, HK_EIO. */
static int feed_file(const char *path, void (*feed)(void *, const char *, size_t), void *scan)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return HK_ENOENT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        feed(scan, chunk, n);
    int rc = ferror(f) ? HK_EIO : HK_OK;
    fclose(f);
    return rc;
}

static void ptx_feed_any(void *s, const char *p, size_t n)
{
    ptx_feed(s, p, n);
}

int kimage_ptx_clocks_file(const char *path, kimage_clocks *out)
{
    ptx_scan s;
    ptx_scan_init(&s, out);
    int rc = feed_file(path, ptx_feed_any, &s);
    if (rc == HK_ENOENT)
        return rc;
    ptx_finish(&s);
    return rc;
}

/* ---- clock reads in AMDGPU assembly ---- */

/* A streaming statement scan of clang's AMDGPU assembly (hipcc -save-temps), lexed the way
 * LLVM's assembler lexes it (AsmLexer, AMDGPUMCAsmInfo): a statement ends at a line end, LF
 * or CR (SeparatorString "\n"; the lexer ends a statement at '\r' too); comments are `;`
 * and `//` to the end of the line and `/ * ... * /` anywhere, across lines too; none of
 * them inside a string ("..." with backslash escapes), and a label -- a name or a quoted
 * string, then ':' -- may start the statement of an instruction. Inline asm can write all
 * of those (session 52: `/ * * / s_memtime`, `"x;y": s_memtime`, 600 blanks before the
 * mnemonic, `s_nop 0\rs_memtime` each hid a clock read from the line reader before), so the
 * reader keeps only what the assembler reads: comments dropped, blanks squeezed, labels
 * dropped; the mnemonic is then the statement's first word whatever came before it. A
 * statement is judged on its first KIMAGE_ASM_LINE bytes so kept (a mnemonic and its
 * operands fit; data lines of a huge array are cut, harmlessly, and an s_getreg whose
 * operand is cut counts as one by number). Mnemonics in any case; inline asm may also build
 * an instruction from pieces (.macro, .rept ...) or raw words (.long in a code section), so
 * all of those count. */
#define KIMAGE_ASM_LINE 512

enum { LBL_EMPTY, LBL_NAME, LBL_STRING, LBL_AFTER, LBL_OTHER };
enum { ASM_SGPRS = 128, ASM_CALLS = 64, ASM_FUNCS = 4096 };
enum { SR_OTHER, SR_GETPC, SR_REL }; /* what last wrote an SGPR */

typedef struct {
    kimage_clocks *out;
    long line;
    char cur[KIMAGE_ASM_LINE];
    size_t cur_len;
    char cmt[16];   /* the start of the statement's first `;` comment (the asm markers) */
    size_t cmt_len;
    bool in_asm;    /* between the compiler's ;;#ASMSTART and ;;#ASMEND (inline asm) */
    bool in_exec;   /* the current section holds code */
    bool in_block;  /* inside a block comment (they span lines) */
    bool in_string; /* inside "..." (ends at the line's end, as far as this reader goes) */
    bool escaped;   /* the previous string byte was a backslash */
    bool in_line_cmt; /* after `;` or `//`: the rest of the line is a comment */
    bool semi_cmt;    /* that comment began with `;` (its text goes to cmt) */
    bool space;       /* blanks since the last kept byte */
    int lbl;          /* LBL_*: what the statement so far is, for a label's ':' */
    char prev;        /* the previous byte of code (for "//" and "/ *") */
    /* calls (session 52): what last wrote each SGPR, so that a call or jump through a
     * register pair is known for a direct one (s_getpc_b64, then SYM@rel32@lo / @hi added
     * to the pair) or not; each direct call's SYM must be a function of the file */
    unsigned char sreg[ASM_SGPRS];
    uint64_t sym[ASM_SGPRS];
    struct {
        uint64_t h;
        long line;
        char text[160];
    } calls[ASM_CALLS];
    size_t ncalls;
    uint64_t funcs[ASM_FUNCS];
    size_t nfuncs;
    bool calls_over;
} asm_scan;

static bool asm_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '$';
}

static bool ieq(const char *a, size_t n, const char *b)
{
    return strlen(b) == n && !strncasecmp(a, b, n);
}

static bool iin(const char *a, size_t n, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (ieq(a, n, set[i]))
            return true;
    return false;
}

static void asm_found(asm_scan *s, unsigned bit, const char *what, const char *text, size_t len)
{
    int i = clocks_mark(s->out, bit, s->line, what);
    if (i < 0)
        return;
    size_t a = 0, o = 0;
    while (a < len && (text[a] == ' ' || text[a] == '\t'))
        a++;
    while (len > a && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r'))
        len--;
    for (size_t k = a; k < len && o + 1 < sizeof s->out->text[i]; k++)
        if (text[k] != '\t')
            s->out->text[i][o++] = text[k];
        else if (o && s->out->text[i][o - 1] != ' ')
            s->out->text[i][o++] = ' ';
    s->out->text[i][o] = '\0';
}

/* What the operands of s_getreg_b32 read: hwreg(HW_REG_NAME ...) is judged by its name;
 * anything else -- a raw simm16, hwreg(N), or an expression the assembler evaluates
 * (hwreg(+29), hwreg((29)), hwreg(SYM) after `.set SYM, 29`: session 52) -- names a
 * register by number, which cannot be judged. */
static unsigned getreg_bit(const char *ops, size_t n, char *what, size_t what_len)
{
    const char *h = memmem(ops, n, "hwreg(", 6);
    if (!h) /* a raw simm16: any register */
        return snprintf(what, what_len, "s_getreg_b32"), KIMAGE_PTX_DIRECTIVE;
    h += 6;
    size_t rest = n - (size_t)(h - ops), k = 0;
    while (k < rest && (h[k] == ' ' || h[k] == '\t'))
        k++;
    size_t e = k;
    while (e < rest && asm_name_char(h[e]))
        e++;
    snprintf(what, what_len, "hwreg(%.*s)", (int)(e - k), h + k);
    size_t after = e;
    while (after < rest && (h[after] == ' ' || h[after] == '\t'))
        after++;
    if (e - k < 7 || strncmp(h + k, "HW_REG_", 7) || after >= rest ||
        (h[after] != ',' && h[after] != ')'))
        return KIMAGE_PTX_DIRECTIVE; /* a register by number or expression: no name to judge */
    for (size_t i = k; i + 5 <= e; i++)
        if (!strncasecmp(h + i, "CYCLE", 5))
            return KIMAGE_READS_CLOCK; /* HW_REG_SHADER_CYCLES(_HI) */
    for (size_t i = k; i + 4 <= e; i++)
        if (!strncasecmp(h + i, "PERF", 4))
            return KIMAGE_READS_PMCOUNTER; /* HW_REG_PERF_SNAPSHOT_* */
    for (size_t i = k; i + 4 <= e; i++)
        if (!strncasecmp(h + i, "TIME", 4))
            return KIMAGE_READS_GLOBALTIMER;
    return 0;
}

/* Does the directive's operand list [ops, ops + n) have a second operand (a fill value)? */
static bool has_fill(const char *ops, size_t n)
{
    const char *c = memchr(ops, ',', n);
    if (!c)
        return false;
    for (c++; c < ops + n; c++)
        if (*c != ' ' && *c != '\t')
            return *c != ',';
    return false;
}

static uint64_t asm_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h | 1; /* never 0 */
}

/* The SGPR range an operand at p names (sN, s[N:M], any case): *lo, *hi; false if none. */
static bool asm_sreg(const char *p, size_t n, size_t *lo, size_t *hi)
{
    if (n < 2 || (p[0] != 's' && p[0] != 'S'))
        return false;
    size_t k = 1;
    bool range = p[1] == '[';
    k += range;
    size_t a = 0, b, digits = 0;
    while (k < n && p[k] >= '0' && p[k] <= '9' && digits < 4)
        a = a * 10 + (size_t)(p[k++] - '0'), digits++;
    if (!digits)
        return false;
    b = a;
    if (range) {
        if (k >= n || p[k] != ':')
            return false;
        k++;
        b = 0;
        digits = 0;
        while (k < n && p[k] >= '0' && p[k] <= '9' && digits < 4)
            b = b * 10 + (size_t)(p[k++] - '0'), digits++;
        if (!digits || k >= n || p[k] != ']' || b < a)
            return false;
    } else if (k < n && asm_name_char(p[k])) {
        return false; /* s_..., a symbol */
    }
    *lo = a;
    *hi = b;
    return true;
}

static void asm_sreg_set(asm_scan *s, size_t lo, size_t hi, unsigned char st, uint64_t sym)
{
    for (size_t r = lo; r <= hi && r < ASM_SGPRS; r++) {
        s->sreg[r] = st;
        s->sym[r] = sym;
    }
}

/* SYM of an operand `SYM@rel32@lo+4` / `SYM@rel32@hi+12` in ops, hashed; 0 if none. */
static uint64_t asm_rel32(const char *ops, size_t n, const char *part)
{
    const char *at = memmem(ops, n, part, strlen(part));
    if (!at)
        return 0;
    const char *b = at;
    while (b > ops && (asm_name_char(b[-1])))
        b--;
    return b < at ? asm_hash(b, (size_t)(at - b)) : 0;
}

/* Calls and register tracking for one statement (mnemonic m, n bytes; operands ops). */
static void asm_calls(asm_scan *s, const char *m, size_t n, const char *ops, size_t nops,
                      const char *t, size_t len)
{
    static const char *const transfers[] = {"s_setpc", "s_swappc", "s_call", "s_rfe",
                                            "s_cbranch", "s_branch", "s_getpc", NULL};
    char what[40];
    if (s->in_asm)
        for (size_t i = 0; transfers[i]; i++)
            if (n >= strlen(transfers[i]) && !strncasecmp(m, transfers[i], strlen(transfers[i]))) {
                /* inline asm that jumps or calls can enter another instruction's middle or
                 * data; one that takes its own address can hand it to a call */
                snprintf(what, sizeof what, "%.*s", (int)(n < 30 ? n : 30), m);
                asm_found(s, KIMAGE_PTX_DIRECTIVE, what, t, len);
                break;
            }
    size_t q = 0;
    while (q < nops && ops[q] == ' ')
        q++;
    size_t lo, hi;
    bool first = asm_sreg(ops + q, nops - q, &lo, &hi);
    if (ieq(m, n, "s_swappc_b64") || ieq(m, n, "s_setpc_b64")) {
        size_t c = ieq(m, n, "s_swappc_b64") ? 1 : 0, l2 = lo, h2 = hi;
        bool ok = first;
        if (c) { /* the target is the second operand */
            const char *comma = memchr(ops, ',', nops);
            ok = comma && first;
            if (ok) {
                size_t r = (size_t)(comma + 1 - ops);
                while (r < nops && ops[r] == ' ')
                    r++;
                ok = asm_sreg(ops + r, nops - r, &l2, &h2);
            }
        }
        bool ret = !c && ok && l2 == 30 && h2 == 31;
        bool direct = ok && h2 == l2 + 1 && h2 < ASM_SGPRS && s->sreg[l2] == SR_REL &&
                      s->sreg[h2] == SR_REL && s->sym[l2] == s->sym[h2];
        if (!ret && !direct) {
            snprintf(what, sizeof what, "%.*s", (int)(n < 30 ? n : 30), m);
            asm_found(s, KIMAGE_PTX_DIRECTIVE, what, t, len); /* through a register */
        } else if (direct) {
            size_t i = 0;
            while (i < s->ncalls && s->calls[i].h != s->sym[l2])
                i++;
            if (i == s->ncalls && s->ncalls < ASM_CALLS) {
                s->calls[i].h = s->sym[l2];
                s->calls[i].line = s->line;
                snprintf(s->calls[i].text, sizeof s->calls[i].text, "%.*s",
                         (int)(len < 150 ? len : 150), t);
                s->ncalls++;
            } else if (i == s->ncalls) {
                s->calls_over = true;
            }
        }
        if (c && first)
            asm_sreg_set(s, lo, hi, SR_OTHER, 0);
        return;
    }
    if (ieq(m, n, "s_getpc_b64") && first) {
        asm_sreg_set(s, lo, hi, SR_GETPC, 0);
        return;
    }
    if (first && lo == hi && lo < ASM_SGPRS && s->sreg[lo] == SR_GETPC &&
        (ieq(m, n, "s_add_u32") || ieq(m, n, "s_addc_u32"))) {
        uint64_t h = asm_rel32(ops, nops, ieq(m, n, "s_add_u32") ? "@rel32@lo" : "@rel32@hi");
        asm_sreg_set(s, lo, hi, h ? SR_REL : SR_OTHER, h);
        return;
    }
    if (first && !s->in_asm && (ieq(m, n, "s_mov_b64") || ieq(m, n, "s_mov_b32"))) {
        /* a copy keeps what its source holds (a callee's address moved to another pair) */
        const char *comma = memchr(ops, ',', nops);
        size_t l2, h2;
        if (comma) {
            size_t r = (size_t)(comma + 1 - ops);
            while (r < nops && ops[r] == ' ')
                r++;
            if (asm_sreg(ops + r, nops - r, &l2, &h2) && h2 - l2 == hi - lo && h2 < ASM_SGPRS &&
                hi < ASM_SGPRS) {
                unsigned char st[2];
                uint64_t sy[2];
                for (size_t d = 0; d <= hi - lo && d < 2; d++) {
                    st[d] = s->sreg[l2 + d];
                    sy[d] = s->sym[l2 + d];
                }
                for (size_t d = 0; d <= hi - lo && d < 2; d++)
                    asm_sreg_set(s, lo + d, lo + d, st[d], sy[d]);
                return;
            }
        }
    }
    if (first)
        asm_sreg_set(s, lo, hi, SR_OTHER, 0);
    /* inline asm may write any register it names (a carry-out is a second operand) */
    for (size_t k = 0; s->in_asm && k < nops; k++)
        if ((k == 0 || !asm_name_char(ops[k - 1])) && asm_sreg(ops + k, nops - k, &lo, &hi))
            asm_sreg_set(s, lo, hi, SR_OTHER, 0);
}

/* A `.type NAME,@function` directive: NAME is a function of the file. */
static void asm_type(asm_scan *s, const char *ops, size_t nops)
{
    size_t q = 0;
    while (q < nops && ops[q] == ' ')
        q++;
    size_t e = q;
    while (e < nops && asm_name_char(ops[e]))
        e++;
    if (e == q || !memmem(ops + e, nops - e, "@function", 9))
        return;
    if (s->nfuncs < ASM_FUNCS)
        s->funcs[s->nfuncs++] = asm_hash(ops + q, e - q);
    else
        s->calls_over = true;
}

/* The end of the text: every direct call's symbol must be a function of the file (a call
 * to a data symbol, `code@rel32`, runs its words). */
static void asm_finish(asm_scan *s)
{
    for (size_t i = 0; i < s->ncalls; i++) {
        bool fn = false;
        for (size_t j = 0; j < s->nfuncs && !fn; j++)
            fn = s->funcs[j] == s->calls[i].h;
        if (!fn || s->calls_over) {
            long line = s->line;
            s->line = s->calls[i].line;
            asm_found(s, KIMAGE_PTX_DIRECTIVE, "s_swappc_b64", s->calls[i].text,
                      strlen(s->calls[i].text));
            s->line = line;
            return;
        }
    }
}

/* The statement kept so far (comments dropped, blanks squeezed, labels dropped), judged. */
static void asm_end_statement(asm_scan *s)
{
    const char *t = s->cur;
    size_t len = s->cur_len, k = 0;
    /* the compiler's inline-asm markers are comments, read as such */
    if (s->cmt_len >= 11 && !memcmp(s->cmt, ";;#ASMSTART", 11))
        s->in_asm = true;
    else if (s->cmt_len >= 9 && !memcmp(s->cmt, ";;#ASMEND", 9))
        s->in_asm = false;
    /* The device heap (session 38): hipcc's malloc and free are ockl's __ockl_dm_alloc and
     * __ockl_dm_dealloc, called (s_swappc to name@rel32) and defined in the same assembly;
     * a code object v5 kernel that uses the heap also takes the hidden_heap_v1 argument.
     * Any of the names as a whole word on a line outside comments counts. */
    static const char *const heap_names[] = {"__ockl_dm_alloc", "__ockl_dm_dealloc",
                                             "hidden_heap_v1", NULL};
    for (size_t h = 0; heap_names[h] && !(s->out->reads & KIMAGE_DEVICE_HEAP); h++) {
        size_t hl = strlen(heap_names[h]);
        for (const char *f = t; len && (f = memmem(f, len - (size_t)(f - t), heap_names[h], hl));
             f++)
            if ((f == t || !asm_name_char(f[-1])) &&
                ((size_t)(f - t) + hl == len || !asm_name_char(f[hl]))) {
                asm_found(s, KIMAGE_DEVICE_HEAP, heap_names[h], t, len);
                break;
            }
    }
    /* .reloc patches bytes of any section at link time; .base64 writes raw bytes */
    static const char *const builders[] = {
        ".macro", ".rept", ".irp", ".irpc", ".include", ".incbin", ".inst", ".purgem",
        ".pushsection", ".popsection", ".previous", ".subsection", ".reloc", NULL};
    /* every directive that writes chosen bytes: integers, floats (.float 0x..., .double),
     * LEB128, the sized .dc/.dcb/.ds families (.dc.a, .dcb.l, ...: any `.dc` or `.ds`
     * prefix), strings (session 52 added the floats, LEB128, .base64 and the families) */
    static const char *const raw[] = {
        ".long", ".byte", ".short", ".word", ".int", ".quad", ".2byte", ".4byte", ".8byte",
        ".hword", ".fill", ".ascii", ".asciz", ".string", ".zero", ".space", ".skip",
        ".octa", ".value", ".float", ".single", ".double", ".sleb128", ".uleb128", ".base64",
        ".inst.n", ".inst.w", ".nops", NULL};
    /* alignment and .org with a fill value: the value is written into the section */
    static const char *const fills[] = {".align", ".balign", ".balignw", ".balignl", ".p2align",
                                        ".p2alignw", ".p2alignl", ".org", NULL};
    for (;;) {
        while (k < len && (t[k] == ' ' || t[k] == '\t'))
            k++;
        size_t a = k;
        while (k < len && asm_name_char(t[k]))
            k++;
        if (k == a)
            break;
        if (k < len && t[k] == ':') { /* a label: an instruction may follow on its line */
            k++;
            continue;
        }
        const char *m = t + a;
        size_t n = k - a;
        const char *ops = t + k;
        size_t nops = len - k;
        char what[40];
        /* the assembler takes an encoding suffix on any mnemonic and strips it before it
         * matches (llvm-mc 14, gfx906: `s_memtime_e32 s[0:1]` is s_memtime; session 52) */
        static const char *const suffixes[] = {"_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp", NULL};
        for (size_t q = 0; *m != '.' && suffixes[q]; q++) {
            size_t sl = strlen(suffixes[q]);
            if (n > sl && !strncasecmp(m + n - sl, suffixes[q], sl)) {
                n -= sl;
                break;
            }
        }
        if (*m == '.' && ieq(m, n, ".type"))
            asm_type(s, ops, nops);
        if (*m != '.')
            asm_calls(s, m, n, ops, nops, t, len);
        if (*m == '.') {
            if (ieq(m, n, ".text"))
                s->in_exec = true;
            else if (ieq(m, n, ".data") || ieq(m, n, ".bss") || ieq(m, n, ".rodata"))
                s->in_exec = false;
            else if (ieq(m, n, ".section")) {
                size_t q = 0;
                while (q < nops && (ops[q] == ' ' || ops[q] == '\t' || ops[q] == '"'))
                    q++;
                const char *comma = memchr(ops + q, ',', nops - q);
                size_t nl = comma ? (size_t)(comma - ops - q) : nops - q;
                s->in_exec = (nl >= 5 && !strncmp(ops + q, ".text", 5)) ||
                             (comma && memchr(comma, 'x', (size_t)(ops + nops - comma)));
            }
            bool rawd = iin(m, n, raw) || (n >= 3 && (!strncasecmp(m, ".dc", 3) ||
                                                      !strncasecmp(m, ".ds", 3)));
            if (s->in_asm || iin(m, n, builders) || (s->in_exec && rawd) ||
                (s->in_exec && iin(m, n, fills) && has_fill(ops, nops))) {
                snprintf(what, sizeof what, "%.*s", (int)(n < 20 ? n : 20), m);
                asm_found(s, KIMAGE_PTX_DIRECTIVE, what, t, len);
            }
        } else if (ieq(m, n, "s_memtime")) {
            asm_found(s, KIMAGE_READS_CLOCK, "s_memtime", t, len);
        } else if (ieq(m, n, "s_memrealtime")) {
            asm_found(s, KIMAGE_READS_GLOBALTIMER, "s_memrealtime", t, len);
        } else if (n >= 13 && !strncasecmp(m, "s_sendmsg_rtn", 13)) {
            /* returns MSG_RTN_GET_REALTIME, among others */
            asm_found(s, KIMAGE_READS_GLOBALTIMER, "s_sendmsg_rtn", t, len);
        } else if (n >= 8 && !strncasecmp(m, "s_getreg", 8)) {
            unsigned bit = getreg_bit(ops, nops, what, sizeof what);
            if (bit)
                asm_found(s, bit, what, t, len);
        }
        break;
    }
    s->cur_len = 0;
    s->cmt_len = 0;
    s->in_string = s->escaped = s->in_line_cmt = s->semi_cmt = s->space = false;
    s->lbl = LBL_EMPTY;
    s->prev = 0;
}

/* One byte of code (outside comments) into the statement: blanks squeezed, none first. */
static void asm_keep(asm_scan *s, char c)
{
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
        s->space = s->cur_len > 0;
        if (s->lbl == LBL_NAME)
            s->lbl = LBL_AFTER;
        return;
    }
    if (s->space && s->cur_len < sizeof s->cur)
        s->cur[s->cur_len++] = ' ';
    s->space = false;
    if (s->cur_len < sizeof s->cur)
        s->cur[s->cur_len++] = c;
}

static void asm_byte(asm_scan *s, char c)
{
    if (c == '\n' || c == '\r') { /* both end a statement; only LF counts a line */
        asm_end_statement(s);
        if (c == '\n')
            s->line++;
        return;
    }
    if (s->in_line_cmt) {
        if (s->semi_cmt && s->cmt_len < sizeof s->cmt)
            s->cmt[s->cmt_len++] = c;
        return;
    }
    if (s->in_block) {
        if (s->prev == '*' && c == '/') {
            s->in_block = false;
            s->prev = 0;
            asm_keep(s, ' ');
            return;
        }
        s->prev = c;
        return;
    }
    if (s->in_string) {
        asm_keep(s, c);
        if (s->escaped)
            s->escaped = false;
        else if (c == '\\')
            s->escaped = true;
        else if (c == '"') {
            s->in_string = false;
            if (s->lbl == LBL_STRING)
                s->lbl = LBL_AFTER;
        }
        return;
    }
    if (s->prev == '/' && (c == '*' || c == '/')) {
        s->cur_len--; /* the '/' kept a byte ago is the comment's */
        s->prev = 0;
        if (c == '*')
            s->in_block = true;
        else
            s->in_line_cmt = true;
        return;
    }
    if (c == ';') {
        s->in_line_cmt = s->semi_cmt = true;
        s->cmt[s->cmt_len++] = c;
        return;
    }
    if (c == '"') {
        s->in_string = true;
        s->lbl = s->lbl == LBL_EMPTY ? LBL_STRING : LBL_OTHER;
    } else if (c == ':' && (s->lbl == LBL_NAME || s->lbl == LBL_AFTER)) {
        s->cur_len = 0; /* a label, however long: dropped */
        s->space = false;
        s->lbl = LBL_EMPTY;
        s->prev = 0;
        return;
    } else if (asm_name_char(c)) {
        s->lbl = s->lbl == LBL_EMPTY || s->lbl == LBL_NAME ? LBL_NAME : LBL_OTHER;
    } else if (c != ' ' && c != '\t' && c != '\f' && c != '\v') {
        s->lbl = LBL_OTHER;
    }
    size_t before = s->cur_len;
    asm_keep(s, c);
    /* a '/' counts as a comment's first byte only when it was kept (room in cur) */
    s->prev = (c == '/' && s->cur_len > before) ? '/' : (c == '/' ? 0 : c);
}

static void asm_feed(asm_scan *s, const char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        asm_byte(s, p[k]);
}

void kimage_asm_clocks(const char *text, size_t len, kimage_clocks *out)
{
    asm_scan s;
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    s.out = out;
    s.line = 1;
    asm_feed(&s, text, len);
    asm_end_statement(&s);
    asm_finish(&s);
}

static void asm_feed_any(void *s, const char *p, size_t n)
{
    asm_feed(s, p, n);
}

int kimage_asm_clocks_file(const char *path, kimage_clocks *out)
{
    asm_scan s;
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    s.out = out;
    s.line = 1;
    int rc = feed_file(path, asm_feed_any, &s);
    if (rc == HK_ENOENT)
        return rc;
    asm_end_statement(&s);
    asm_finish(&s);
    return rc;
}
