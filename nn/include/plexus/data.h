// Data utilities of a training loop: index splits (train/test, K-fold),
// selecting rows, standard scaling, and regression metrics. Splits are
// seeded: the same seed gives the same split on every run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "plexus/random.h"
#include "plexus/tensor.h"

namespace plexus::data {

using Indices = std::vector<int64_t>;

// Shuffles 0 .. n-1 and cuts off the last test_fraction of them (rounded up,
// as scikit-learn does): {train, test}.
std::pair<Indices, Indices> train_test_split(int64_t n, double test_fraction, Generator& gen);

// K-fold cross-validation: fold k validates on the k-th of n_splits nearly
// equal parts (the first n % n_splits parts one larger) and trains on the
// rest. With a generator the indices are shuffled first.
struct Fold {
  Indices train, validation;
};
std::vector<Fold> kfold(int64_t n, int64_t n_splits, Generator* shuffle = nullptr);

// The rows of x (dim 0) at `rows`, in that order, on x's device.
Tensor take_rows(const Tensor& x, const Indices& rows);

// Standardizes features (columns) to mean 0 and standard deviation 1, with
// the statistics of the data it was fit on (population std, as scikit-learn;
// a constant column is left centred, not divided by 0).
class StandardScaler {
 public:
  StandardScaler& fit(const Tensor& x);
  Tensor transform(const Tensor& x) const;
  Tensor fit_transform(const Tensor& x) { return fit(x).transform(x); }
  const Tensor& mean() const { return mean_; }
  const Tensor& scale() const { return scale_; }

 private:
  Tensor mean_, scale_;
};

// Mean squared error and the coefficient of determination of predictions.
double mse(const Tensor& prediction, const Tensor& target);
double r2_score(const Tensor& prediction, const Tensor& target);

}  // namespace plexus::data
