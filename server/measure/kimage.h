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

#endif
