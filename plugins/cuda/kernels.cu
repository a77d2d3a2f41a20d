// register_kernels: every kernel family of the gpu plugins.
#include "kernels.h"

namespace plexus::gpu {

void register_kernels(const Registrar& r) {
  register_copy(r);
  register_binary(r);
  register_unary(r);
  register_compare(r);
  register_pointwise(r);
  register_reduce(r);
  register_matmul(r);
  register_softmax(r);
  register_layer_norm(r);
  register_pool(r);
  register_embedding(r);
  register_conv(r);
  register_shape(r);
}

}  // namespace plexus::gpu
