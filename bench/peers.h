// Peers for plexus-bench: the same work written directly, outside plexus.
#pragma once

#include <cstdint>

#include "cases.h"

namespace plexus::bench {

// c[i] = a[i] + b[i] over n floats: a plain loop on 2 OpenMP threads.
Op omp_add_loop(int64_t n);
// The sum of n floats: a plain reduction loop on 2 OpenMP threads.
Op omp_sum_loop(int64_t n);
// An f32 [n, n] @ [n, n] product by a oneDNN matmul primitive made once.
Op onednn_sgemm(int64_t n);

}  // namespace plexus::bench
