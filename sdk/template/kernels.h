// Kernel registration, one function per source file; files are named like the
// host's op catalog (binary, unary, copy, reduce) so a missing op is easy to spot.
#pragma once

#include "backend.h"

namespace toydev {

void register_binary_kernels(ToyBackend& backend);  // add.out, mul.out
void register_unary_kernels(ToyBackend& backend);   // neg.out
void register_copy_kernels(ToyBackend& backend);    // fill_.Scalar (not bool), copy_
void register_reduce_kernels(ToyBackend& backend);  // sum.IntList_out

}  // namespace toydev
