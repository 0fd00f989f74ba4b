// A kernel header in the style of a PyTorch extension: the launch is in pytorch/, inside
// AT_DISPATCH_FLOATING_TYPES_AND_HALF, with scalar_t as the template argument.
template <typename T>
__global__ void scale_forward_kernel(const int n, const T *input, T *output)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        output[i] = input[i] * (T)2;
}

template <typename T>
__global__ void scale_backward_kernel(const int n, const T *grad, T *grad_input)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        grad_input[i] = grad[i] * (T)2;
}
