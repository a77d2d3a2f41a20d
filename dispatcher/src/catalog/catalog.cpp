#include "catalog/catalog.h"

namespace plexus {

void define_catalog(Dispatcher& d) {
  define_copy_ops(d);
  define_binary_ops(d);
  define_unary_ops(d);
  define_compare_ops(d);
  define_reduce_ops(d);
  define_matmul_ops(d);
  define_nn_ops(d);
  define_pointwise_ops(d);
  define_shape_ops(d);
}

}  // namespace plexus
