#include "plexus/data.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "plexus/autograd.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

namespace plexus::data {

std::pair<Indices, Indices> train_test_split(int64_t n, double test_fraction, Generator& gen) {
  PLEXUS_CHECK(test_fraction > 0 && test_fraction < 1, ErrorCode::InvalidArgument,
               "train_test_split: test_fraction must be in (0, 1), got {}", test_fraction);
  Indices p = randperm(n, gen);
  auto n_test = static_cast<int64_t>(std::ceil(test_fraction * static_cast<double>(n)));
  PLEXUS_CHECK(n_test < n, ErrorCode::InvalidArgument,
               "train_test_split: {} samples leave none to train on with test_fraction {}", n,
               test_fraction);
  return {Indices(p.begin(), p.end() - n_test), Indices(p.end() - n_test, p.end())};
}

std::vector<Fold> kfold(int64_t n, int64_t n_splits, Generator* shuffle) {
  PLEXUS_CHECK(n_splits >= 2 && n_splits <= n, ErrorCode::InvalidArgument,
               "kfold: n_splits must be in [2, {}] for {} samples, got {}", n, n, n_splits);
  Indices order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (shuffle) order = randperm(n, *shuffle);
  std::vector<Fold> folds;
  int64_t start = 0;
  for (int64_t k = 0; k < n_splits; ++k) {
    int64_t size = n / n_splits + (k < n % n_splits ? 1 : 0);
    Fold f;
    for (int64_t i = 0; i < n; ++i)
      (i >= start && i < start + size ? f.validation : f.train).push_back(order[size_t(i)]);
    folds.push_back(std::move(f));
    start += size;
  }
  return folds;
}

Tensor take_rows(const Tensor& x, const Indices& rows) {
  PLEXUS_CHECK(x.dim() >= 1, ErrorCode::InvalidArgument, "take_rows: {} has no rows", x.str());
  for (int64_t r : rows)
    PLEXUS_CHECK(r >= 0 && r < x.size(0), ErrorCode::InvalidArgument,
                 "take_rows: row {} is out of range for {} rows", r, x.size(0));
  NoGradGuard no_grad;
  Tensor index = empty({static_cast<int64_t>(rows.size())}, TensorOptions(DType::I64));
  std::copy(rows.begin(), rows.end(), index.data<int64_t>());
  // One gather on x's device (index_select), not a round trip through the host.
  return index_select(x, 0, index.to(x.device()));
}

StandardScaler& StandardScaler::fit(const Tensor& x) {
  PLEXUS_CHECK(x.dim() == 2 && x.size(0) > 0, ErrorCode::InvalidArgument,
               "StandardScaler.fit: expected a non-empty [samples, features] tensor, got {}",
               x.str());
  NoGradGuard no_grad;
  mean_ = plexus::mean(x, std::vector<int64_t>{0}, true);
  Tensor centred = sub(x, mean_);
  Tensor var = plexus::mean(mul(centred, centred), std::vector<int64_t>{0}, true);
  Tensor sd = sqrt(var);
  scale_ = where(eq(sd, Scalar(0)), Scalar(1.0), sd).to(x.dtype());
  return *this;
}

Tensor StandardScaler::transform(const Tensor& x) const {
  PLEXUS_CHECK(mean_.defined(), ErrorCode::InvalidArgument,
               "StandardScaler.transform before fit");
  PLEXUS_CHECK(x.dim() == 2 && x.size(1) == mean_.size(1), ErrorCode::InvalidArgument,
               "StandardScaler.transform: expected [n, {}], got {}", mean_.size(1),
               shape_str(x.sizes()));
  return div(sub(x, mean_.to(x.device())), scale_.to(x.device()));
}

double mse(const Tensor& prediction, const Tensor& target) {
  NoGradGuard no_grad;
  return mse_loss(prediction.to(DType::F64), target.to(DType::F64)).item<double>();
}

double r2_score(const Tensor& prediction, const Tensor& target) {
  NoGradGuard no_grad;
  Tensor y = target.to(DType::F64), p = prediction.to(DType::F64);
  Tensor d = sub(y, mean(y));
  double ss_tot = sum(mul(d, d)).item<double>();
  Tensor e = sub(y, p);
  double ss_res = sum(mul(e, e)).item<double>();
  return ss_tot == 0 ? (ss_res == 0 ? 1.0 : 0.0) : 1.0 - ss_res / ss_tot;
}

}  // namespace plexus::data
