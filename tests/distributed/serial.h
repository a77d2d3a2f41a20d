// What the distributed tests compare collectives with: each rank makes every
// rank's input (a function of the rank), so it can compute the exact answer
// serially. Integer-valued inputs make sums exact in every dtype. Training
// runs are compared parameter by parameter.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "plexus/distributed.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::distributed::testing {

// Rank r's input: small integers (booleans for bool), different per rank and element.
inline Tensor input_of(int r, DType dt, const std::vector<int64_t>& shape, int salt = 0) {
  Tensor t = empty(shape, {DType::F64});
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t v = (i * 3 + r * 7 + salt) % 11;
    p[i] = dt == DType::Bool ? double(v % 3 == 0) : is_signed(dt) ? double(v - 5) : double(v);
  }
  return t.to(dt);
}

// A tensor's values on the host, as doubles in row-major order.
inline std::vector<double> values(const Tensor& t) {
  Tensor h = t.detach().to(Device()).to(DType::F64).contiguous();
  return std::vector<double>(h.data<double>(), h.data<double>() + h.numel());
}

// The reduction of every rank's input, in float64.
inline Tensor serial(const std::vector<Tensor>& ins, ReduceOp op) {
  Tensor acc = ins[0].to(DType::F64);
  for (size_t r = 1; r < ins.size(); ++r) {
    Tensor x = ins[r].to(DType::F64);
    acc = op == ReduceOp::Max ? maximum(acc, x) : op == ReduceOp::Min ? minimum(acc, x) : add(acc, x);
  }
  if (op == ReduceOp::Average) acc = div(acc, double(ins.size()));
  return acc;
}

// ||a - b|| / ||b|| over every parameter of two modules, the largest, in
// float64 on the host; infinity when they have different parameters.
inline double max_relative_difference(const nn::Module& a, const nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  if (pa.size() != pb.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    Tensor x = pa[i].second.detach().to(Device()).to(DType::F64);
    Tensor y = pb[i].second.detach().to(Device()).to(DType::F64);
    double diff = std::sqrt(sum(mul(sub(x, y), sub(x, y))).item<double>());
    double norm = std::sqrt(sum(mul(y, y)).item<double>());
    worst = std::max(worst, diff / norm);
  }
  return worst;
}

// Shapes every collective is checked on: 0-d, empty, one element, odd sizes.
inline const std::vector<std::vector<int64_t>> kShapes = {{}, {0, 3}, {1}, {7}, {1000}, {13, 17}};

}  // namespace plexus::distributed::testing
