#include "../scale_kernel.cuh"

void ScaleForwardLauncher(Tensor input, Tensor output)
{
    int n = output.numel();
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "scale_forward", [&] {
        scale_forward_kernel<scalar_t><<<GET_BLOCKS(n), 512>>>(n, input.data_ptr<scalar_t>(),
                                                                output.data_ptr<scalar_t>());
    });
}

// Outside any dispatch macro scalar_t is whatever this file says: not known.
template <typename scalar_t>
void ScaleBackwardLauncher(Tensor grad, Tensor grad_input)
{
    int n = grad.numel();
    scale_backward_kernel<scalar_t><<<GET_BLOCKS(n), 512>>>(n, grad.data_ptr<scalar_t>(),
                                                             grad_input.data_ptr<scalar_t>());
}
