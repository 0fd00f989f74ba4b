/* Reads the symbol table of an ELF kernel image (a cubin; or a hipcc --genco code object: a
 * clang offload bundle holding an AMDGPU ELF) and matches a spec's kernel name
 * against its entries. Only what is needed: section headers, one SHT_SYMTAB and its string
 * table; every offset is checked against the file's size before it is read. */
#include "measure/kimage.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"

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
 * "host-x86_64-unknown-linux"). *elf/*elf_len: the first amdgcn entry's bytes, an AMDGPU ELF.
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
        *why = hk_asprintf("%s kernel entry fits %s in the image (its entries: %s)",
                           n_loose ? "more than one" : "no", w, list.len ? list.data : "none");
    }
out:
    hk_buf_free(&want);
    hk_buf_free(&list);
    hk_free(w);
    return rc;
}
