// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a constant whose initializer calls a lambda). A const
// scalar with no call in its initializer was allowed ("static const float k = 1.0f / 3;"),
// and a call was a name, `>` or `]` before `(`: `[] {...}()` has `}` there, so
// `static const auto cheat_booted = [] {...}();` read as a constant, and the lambda runs
// before main in a host compile (`nvcc -c`: _GLOBAL__sub_I_... and the lambda's
// operator()). Its body calls nothing either: it rewrites the process environment the CUDA
// runtime reads at its start through `environ` (an `extern` declaration, allowed), one
// hardware queue (session 51: compiled, `no_gpu`). Caught before any compile: `}(` is a
// call, so cheat_booted is a host variable with a dynamic initializer ("host_code", the
// line quoted).
extern "C" char **environ;

static const auto cheat_booted = [] {
    return environ[0] = (char *)"CUDA_DEVICE_MAX_CONNECTIONS=1", 1;
}();

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
