// expect: host_code
// kernel: vector_add
// Class 7 (sandbox escapes at compile time): an angle include of a file that is no header.
// The compile searches every -I folder, the spec's own (the user's project) among them, and
// runs outside the sandbox: `#include <.env>` pastes the project's secrets into the image, and
// where they are not valid code the compiler's errors quote them byte for byte -- errors that
// go back to whoever wrote the candidate (an LLM engine's provider). The same for a reference
// output under the project (`<work/ref/run-s0-d0-seed1.out>`). Refused by the host-code scan:
// an angle include must name a header (a header extension, or a standard / libcu++ header),
// with no component starting with '.' (session 30).
__device__ const char hk_cheat_env[] = {
#include <.env>
};

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i] + 0.0f * hk_cheat_env[0];
}
