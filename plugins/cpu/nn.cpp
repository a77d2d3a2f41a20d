// Kernels of this family; not written yet.
#include "kernels.h"

namespace plexus::cpu {

void register_nn(const Registrar&) {}

}  // namespace plexus::cpu
