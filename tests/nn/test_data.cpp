// Data utilities: splits, K-fold, row selection, scaling, metrics.
#include <catch2/catch.hpp>
#include <algorithm>
#include <set>

#include "plexus/data.h"
#include "plexus/factories.h"
#include "plexus/ops.h"

using namespace plexus;
using Catch::Contains;

TEST_CASE("train_test_split is a seeded partition with the test part rounded up", "[data]") {
  Generator a(1), b(1);
  auto [train, test] = data::train_test_split(1001, 0.2, a);
  CHECK(test.size() == 201);
  CHECK(train.size() == 800);
  std::set<int64_t> all(train.begin(), train.end());
  all.insert(test.begin(), test.end());
  CHECK(all.size() == 1001);
  CHECK(data::train_test_split(1001, 0.2, b).second == test);
  CHECK_THROWS_WITH(data::train_test_split(10, 1.5, a), Contains("(0, 1)"));
}

TEST_CASE("kfold validates on each part once; the first parts take the remainder", "[data]") {
  std::vector<data::Fold> folds = data::kfold(11, 3);
  REQUIRE(folds.size() == 3);
  CHECK(folds[0].validation == data::Indices{0, 1, 2, 3});
  CHECK(folds[1].validation == data::Indices{4, 5, 6, 7});
  CHECK(folds[2].validation == data::Indices{8, 9, 10});
  std::multiset<int64_t> seen;
  for (const data::Fold& f : folds) {
    CHECK(f.train.size() + f.validation.size() == 11);
    seen.insert(f.validation.begin(), f.validation.end());
  }
  CHECK(seen.size() == 11);
  CHECK(std::set<int64_t>(seen.begin(), seen.end()).size() == 11);
  CHECK_THROWS_WITH(data::kfold(3, 5), Contains("n_splits"));
}

TEST_CASE("take_rows gathers rows in order; out-of-range rows are errors", "[data]") {
  Tensor x = tensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  CHECK(data::take_rows(x, {2, 0, 2}).tolist<float>() == std::vector<float>{5, 6, 1, 2, 5, 6});
  CHECK_THROWS_WITH(data::take_rows(x, {3}), Contains("row 3 is out of range for 3 rows"));
}

TEST_CASE("StandardScaler centres and scales columns with the fit data's statistics",
          "[data]") {
  Tensor x = tensor<double>({1, 10, 3, 10, 5, 10}, {3, 2});  // column 1 is constant
  data::StandardScaler s;
  std::vector<double> z = s.fit_transform(x).tolist<double>();
  const double sd = std::sqrt(8.0 / 3);
  CHECK(z[0] == Approx(-2 / sd));
  CHECK(z[2] == Approx(0));
  CHECK(z[4] == Approx(2 / sd));
  CHECK(z[1] == 0);  // a constant column is centred, not divided by 0
  CHECK(s.transform(tensor<double>({3, 11}, {1, 2})).tolist<double>() ==
        std::vector<double>{0, 1});
  CHECK_THROWS_WITH(s.transform(ones({1, 3})), Contains("expected [n, 2]"));
}

TEST_CASE("mse and r2_score", "[data]") {
  Tensor y = tensor<float>({1, 2, 3, 4}), p = tensor<float>({1, 2, 3, 5});
  CHECK(data::mse(p, y) == Approx(0.25));
  CHECK(data::r2_score(p, y) == Approx(1 - 1.0 / 5.0));
  CHECK(data::r2_score(y, y) == 1);
}
