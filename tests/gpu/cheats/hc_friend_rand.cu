// expect: host_code
// kernel: vector_add
// Class: 1 (host code in a device disguise, session 52): a friend defined in a class is a
// function of the enclosing namespace; declared before by <cstdlib> (C linkage), `friend int
// rand()` is an inline definition of the C library's rand: every call of rand() in host code
// compiled with it runs it (nvcc -c with a caller appended: `nm` shows `W rand`; with
// `int main() { return rand(); }` appended the program exits 4), so a program's "random"
// inputs are one fixed value a table can answer.
// The class is plain host code (no device word); a type definition is allowed and a friend
// was read only for a name on the host_lib_names list, where rand was not. Since session 52
// a friend compiled for the host needs a parameter of a class of the candidate's own (a
// hidden friend), or a namespace of the candidate's own around it: host_code.
#include <cstdlib>
struct Seed {
    int v;
    friend int rand() throw() { return 4; }
};

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
