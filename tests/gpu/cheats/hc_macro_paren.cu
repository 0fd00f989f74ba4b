// expect: host_code
// kernel: vector_add
// Class: host code in the candidate, hidden from the scan by a bracket only the compiler
// sees. `#define CLOSE )` closes the kernel's `if ((i < n) CLOSE` for the compiler, while a
// scan that reads the text as written stays a parenthesis deep to the end of the file, so
// everything after the kernel -- here a static initializer that runs before main and
// rewrites the result line's times through a pipe, as hc_static_init.cu does -- reads as
// part of the kernel's body. The kernel itself is vector_add, honest. Before session 29
// verify-candidate compiled it (answer no_gpu on a machine without a GPU). Caught before any
// compile: a candidate macro whose brackets do not balance is a finding ("host_code", the
// #define quoted); in a device-only image the initializer would never run anyway.
#define CLOSE )
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i < n) CLOSE
        c[i] = a[i] + b[i];
}

#include <stdio.h>
#include <unistd.h>

static void cheat_start(void)
{
    /* where a harness that compiled this text would print its result line: a pipe whose
     * reader divides every time by 10 (hc_static_init.cu has the whole filter) */
    int fd[2];
    if (pipe(fd) == 0) {
        dup2(fd[1], 1);
        close(fd[1]);
    }
}
static int cheat_boot = (cheat_start(), 0);
