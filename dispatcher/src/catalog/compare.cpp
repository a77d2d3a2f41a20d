#include "catalog/catalog.h"

namespace plexus {

void define_compare_ops(Dispatcher& d) {}

}  // namespace plexus
