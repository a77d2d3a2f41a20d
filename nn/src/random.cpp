#include "plexus/random.h"

#include <algorithm>
#include <numeric>

#include "plexus/error.h"
#include "plexus/factories.h"

namespace plexus {
namespace {

template <typename Dist>
Tensor draw(IntArrayRef sizes, Generator& gen, TensorOptions options, Dist dist) {
  PLEXUS_CHECK(is_floating(options.dtype), ErrorCode::InvalidArgument,
               "random tensors are floating, got {}", dtype_name(options.dtype));
  Tensor host = empty(sizes, TensorOptions(DType::F64));
  double* p = host.data<double>();
  for (int64_t i = 0; i < host.numel(); ++i) p[i] = dist(gen.engine());
  return host.to(options.device, options.dtype);
}

}  // namespace

Tensor rand(IntArrayRef sizes, Generator& gen, TensorOptions options, double lo, double hi) {
  PLEXUS_CHECK(lo < hi, ErrorCode::InvalidArgument, "rand: lo {} must be below hi {}", lo, hi);
  return draw(sizes, gen, options, std::uniform_real_distribution<double>(lo, hi));
}

Tensor randn(IntArrayRef sizes, Generator& gen, TensorOptions options, double mean,
             double stddev) {
  PLEXUS_CHECK(stddev >= 0, ErrorCode::InvalidArgument, "randn: negative stddev {}", stddev);
  return draw(sizes, gen, options, std::normal_distribution<double>(mean, stddev));
}

std::vector<int64_t> randperm(int64_t n, Generator& gen) {
  PLEXUS_CHECK(n >= 0, ErrorCode::InvalidArgument, "randperm: negative n {}", n);
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), gen.engine());
  return p;
}

}  // namespace plexus
