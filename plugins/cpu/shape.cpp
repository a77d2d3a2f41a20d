// Kernels of this family; not written yet.
#include "kernels.h"

namespace plexus::cpu {

void register_shape(const Registrar&) {}

}  // namespace plexus::cpu
