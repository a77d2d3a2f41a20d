#include "catalog/catalog.h"

namespace plexus {

void define_catalog(Dispatcher& d) {
  define_copy_ops(d);
  define_binary_ops(d);
  define_unary_ops(d);
  define_compare_ops(d);
  define_reduce_ops(d);
  define_matmul_ops(d);
  define_softmax_ops(d);
  define_layer_norm_ops(d);
  define_conv_ops(d);
  define_pool_ops(d);
  define_embedding_ops(d);
  define_loss_ops(d);
  define_pointwise_ops(d);
  define_shape_ops(d);
  define_optim_ops(d);
  define_random_ops(d);
}

}  // namespace plexus
