// Moving values between plexus and libtorch tensors in tests (through host
// memory, row-major). Include it before Catch: libtorch's glog defines a
// CHECK macro (which aborts), and Catch's must be the one the tests use.
#pragma once

#include <torch/torch.h>
#undef CHECK
#ifdef CATCH_VERSION_MAJOR
#error "include parity/torch_bridge.h before catch2/catch.hpp"
#endif

#include <vector>

#include "plexus/factories.h"
#include "plexus/tensor.h"

namespace plexus::testing {

inline torch::Tensor to_torch(const Tensor& t) {
  Tensor c = t.detach().cpu().to(DType::F64).contiguous();
  std::vector<int64_t> sizes(c.sizes().begin(), c.sizes().end());
  torch::Tensor r = torch::from_blob(c.data_ptr(), sizes, torch::kFloat64).clone();
  return t.dtype() == DType::F32 ? r.to(torch::kFloat32) : r;
}

inline std::vector<double> values(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
inline std::vector<double> values(const Tensor& t) {
  return t.detach().cpu().to(DType::F64).contiguous().tolist<double>();
}

}  // namespace plexus::testing
