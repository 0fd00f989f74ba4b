/* Kernel images: the device-only files (nvcc -cubin, hipcc --genco) a candidate is compiled into, and the
 * entry a launcher must look up in one. The launcher loads an image by path and a kernel
 * by its mangled name; this module finds that name from the image's own symbol table, so
 * the name always matches what the compiler emitted (templates, namespaces, extern "C").
 * Pure functions over files, any thread. */
#ifndef HK_ENGINE_KIMAGE_H
#define HK_ENGINE_KIMAGE_H

#include <stddef.h>

#define KIMAGE_MAX_BYTES ((size_t)256 << 20) /* cap on an image read into memory */

/* The kernel entries of the image at path: in a cubin, the ELF symbols marked as CUDA entry
 * functions; in an AMDGPU code object (alone, or the amdgcn entry of a clang offload bundle,
 * which hipcc --genco writes), the kernels that have a kernel descriptor (NAME.kd).
 * *names: new NULL-terminated array of new strings (kimage_names_free), mangled as in the
 * image. HK_OK, HK_ENOENT/HK_EIO (unreadable), HK_EPARSE (not a 64-bit little-endian ELF
 * with a symbol table, or a bundle without an amdgcn entry), HK_ETOOBIG, HK_ENOMEM. */
int kimage_entries(const char *path, char ***names);

void kimage_names_free(char **names);

/* The mangled entry of kernel (as a spec names it: "k", "ns::k") with template arguments
 * targs (n_targs may be 0) among names: the entry whose demangled name equals
 * kernel<targs> (whitespace ignored); failing that, the only entry whose demangled name
 * without template arguments is kernel (or whose bare name is, for an unqualified kernel).
 * *out: new string. HK_OK, HK_ENOENT (none: *why says which entries there are),
 * HK_EINVAL (several fit: *why lists them), HK_ENOMEM. *why: new string or NULL. */
int kimage_find(char *const *names, const char *kernel, char *const *targs, size_t n_targs,
                char **out, char **why);

/* ---- clock reads in an image's PTX ----
 * A kernel that reads a clock can tell being timed, checked or instrumented apart from
 * anything else (the gap since its last launch, its own slowdown under compute-sanitizer)
 * and behave differently in each; the referee therefore lets a candidate read no clock the
 * baseline does not (measure_clock_check). The PTX of an image names every such read: the
 * only ways device code reads time or a hardware counter are these special registers. */
enum {
    KIMAGE_READS_CLOCK = 1u << 0,       /* %clock, %clock_hi, %clock64 (clock(), clock64()) */
    KIMAGE_READS_GLOBALTIMER = 1u << 1, /* %globaltimer, %globaltimer_lo, %globaltimer_hi */
    KIMAGE_READS_PMCOUNTER = 1u << 2,   /* %pm0..%pm7, %pm0_64..%pm7_64 */
    KIMAGE_PTX_DIRECTIVE = 1u << 3,     /* a '#' line (inline asm using ptxas's preprocessor,
                                         * which could spell a register out of pieces);
                                         * nvcc itself writes none */
    KIMAGE_READS_GRIDID = 1u << 4,      /* %gridid: the context's temporal launch number, a
                                         * logical clock that tells a process's first launch
                                         * (the checked and sanitized ones) from its later,
                                         * timed ones without any state of the kernel's own */
    /* Local memory the launcher's scrub (hk_lmem_scrub in include/hk_harness.h: the kernel's
     * frame, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, up to KIMAGE_LOCAL_SCRUB_MOST) does not
     * cover, where a kernel can keep a mark from one launch for the next (measure_local_check): */
    KIMAGE_LOCAL_ASM = 1u << 5,         /* inline asm that names local memory: a `.local` state
                                         * space (ld/st/atom.local, cvta[.to].local, a .local
                                         * declaration), %SP, %SPL or __local_depot*. Its text
                                         * lies between nvcc's
                                         * `// begin inline asm` and `// end inline asm` lines,
                                         * which the asm text can forge, so the whole span from
                                         * the file's first begin line to its last end line counts
                                         * (compiler code between two asm statements included) */
    KIMAGE_DYNAMIC_STACK = 1u << 6,     /* `alloca`, `stacksave`, `stackrestore` anywhere */
    KIMAGE_RECURSION = 1u << 7,         /* a call cycle among the file's functions, a call
                                         * through a register (a function pointer), a call from
                                         * outside any function, or more calls or functions than
                                         * the scan follows: stack frames the kernel's does not
                                         * include */
    KIMAGE_LARGE_FRAME = 1u << 8,       /* local depots (__local_depotN[SIZE]) adding up to more
                                         * than KIMAGE_LOCAL_SCRUB_MOST: the scrub's largest frame */
    /* The device heap (measure_heap_check): nothing resets it between launches, and malloc
     * hands a freed block back with what an earlier launch wrote in it, so a kernel can find
     * its own mark there with no pointer kept in any global the launcher restores: */
    KIMAGE_DEVICE_HEAP = 1u << 9,       /* a call of malloc, free, __nv_aligned_device_malloc, or
                                         * device new/delete (_Znw*, _Zna*, _Zdl*, _Zda*) */
};
enum { KIMAGE_CLOCK_KINDS = 10 }; /* the bits above, each with a slot below */
#define KIMAGE_CLOCK_BITS 0x1fu  /* the clock kinds (measure_clock_check judges these) */
#define KIMAGE_LOCAL_BITS 0x1e0u /* the local-memory kinds (measure_local_check) */
#define KIMAGE_HEAP_BITS 0x200u  /* the device heap (measure_heap_check) */
#define KIMAGE_LOCAL_SCRUB_MOST 65536L /* bytes: the largest frame hk_lmem_scrub writes over */

/* The first read of each kind and the kinds seen. Value struct. */
typedef struct {
    unsigned reads;   /* KIMAGE_READS_* / KIMAGE_PTX_DIRECTIVE / KIMAGE_LOCAL_BITS bits found */
    long line[KIMAGE_CLOCK_KINDS]; /* per bit (in bit order): line of its first occurrence, 1-based; 0: none */
    char what[KIMAGE_CLOCK_KINDS][40]; /* per bit: the register as written ("%globaltimer"), "#", or in
                       * assembly the instruction or directive ("s_memtime", ".long") */
    char text[KIMAGE_CLOCK_KINDS][160]; /* per bit: that line, blanks trimmed, cut to fit */
} kimage_clocks;

/* The clock reads and local-memory uses of a PTX text (len bytes; comments and string
 * literals skipped). Pure. */
void kimage_ptx_clocks(const char *text, size_t len, kimage_clocks *out);

/* The same for the PTX file at path, read in chunks (no size cap: a PTX made huge by an
 * initialised array is scanned whole). HK_OK, HK_ENOENT (no such file), HK_EIO. */
int kimage_ptx_clocks_file(const char *path, kimage_clocks *out);

/* The same kinds in a DCU (AMDGPU) image's assembly, clang's `.s` as hipcc -save-temps
 * writes it and then assembles into the code object: s_memtime (KIMAGE_READS_CLOCK; what
 * clock64() and llvm.readcyclecounter become on gfx9), s_memrealtime and s_sendmsg_rtn
 * (KIMAGE_READS_GLOBALTIMER: wall_clock64(), MSG_RTN_GET_REALTIME), s_getreg of a cycle,
 * time or performance register (HW_REG_SHADER_CYCLES: CLOCK, *PERF*: PMCOUNTER); mnemonics
 * in any case, after labels (names or quoted, any length), blanks and comments (`;`, `//`,
 * block comments across lines; a CR ends a statement as a LF does): read as LLVM's
 * assembler lexes the text. KIMAGE_PTX_DIRECTIVE here: an assembler line that can
 * spell an instruction out of pieces or raw words -- any directive inside inline asm (the
 * compiler's ;;#ASMSTART .. ;;#ASMEND), .macro/.rept/.irp/.include/.incbin/.inst/.reloc and
 * section stacking anywhere, data directives (.long, .byte, .float, .dc.* ...) and fills
 * (.p2align N, FILL) in a code section, an s_getreg of a register by number or expression
 * (anything but hwreg(HW_REG_NAME ...)), an s_swappc/s_setpc that is neither a return
 * (s_setpc_b64 s[30:31]) nor a direct call (its pair last written by s_getpc_b64 and
 * SYM@rel32@lo/@hi, SYM a `.type SYM,@function` of the text: a function pointer or a data
 * array called runs words the scan cannot see), and any jump, call or s_getpc in inline
 * asm. Pure; the file form reads in chunks, no size cap.
 * HK_OK, HK_ENOENT, HK_EIO. */
void kimage_asm_clocks(const char *text, size_t len, kimage_clocks *out);
int kimage_asm_clocks_file(const char *path, kimage_clocks *out);

/* The bit's index (0..KIMAGE_CLOCK_KINDS-1) of the first bit set in bits; -1 when none. */
int kimage_clocks_first(unsigned bits);

#endif
