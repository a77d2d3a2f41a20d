// Every collective against a serial computation of what all ranks passed:
// each rank makes every rank's input (a function of the rank), so it knows
// the exact answer. Integer-valued inputs make sums exact in every dtype.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "plexus/distributed.h"
#include "plexus/error.h"
#include "plexus/factories.h"
#include "plexus/ops.h"
#include "plexus/random.h"
#include "serial.h"

using namespace plexus;
using namespace plexus::distributed;
using namespace plexus::distributed::testing;

namespace {

const std::vector<DType> kAll = {DType::Bool, DType::U8,   DType::I8,  DType::I16, DType::I32,
                                 DType::I64,  DType::F16,  DType::BF16, DType::F32, DType::F64};

}  // namespace

TEST_CASE("all_reduce matches a serial reduction for every dtype, op and shape", "[distributed]") {
  ProcessGroup& pg = default_group();
  for (DType dt : kAll)
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Average}) {
      if (op == ReduceOp::Average && !is_floating(dt)) continue;
      for (const auto& shape : kShapes) {
        CAPTURE(dtype_name(dt), reduce_op_name(op), shape);
        std::vector<Tensor> ins;
        for (int r = 0; r < pg.size(); ++r) ins.push_back(input_of(r, dt, shape));
        Tensor t = ins[size_t(pg.rank())].clone();
        pg.all_reduce(t, op);
        CHECK(t.dtype() == dt);
        CHECK(values(t) == values(serial(ins, op).to(dt)));
      }
    }
}

TEST_CASE("all_reduce of random floats equals the serial sum in that dtype", "[distributed]") {
  ProcessGroup& pg = default_group();
  for (DType dt : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    std::vector<Tensor> ins;
    for (int r = 0; r < pg.size(); ++r) {
      Generator gen(100 + uint64_t(r));
      ins.push_back(randn({257}, gen).to(dt));
    }
    Tensor expected = ins[0];
    for (size_t r = 1; r < ins.size(); ++r) expected = add(expected, ins[r]);  // rounds per step
    Tensor t = ins[size_t(pg.rank())].clone();
    pg.all_reduce(t);
    CAPTURE(dtype_name(dt));
    CHECK(values(t) == values(expected));
  }
}

TEST_CASE("all_reduce writes through non-contiguous views and leaves the rest alone",
          "[distributed]") {
  ProcessGroup& pg = default_group();
  Tensor base = full({6, 8}, -100.0);
  Tensor view = base.slice(0, 1, 6).slice(1, 0, 8, 2).t();  // [4, 5], strided
  REQUIRE_FALSE(view.is_contiguous());
  std::vector<Tensor> ins;
  for (int r = 0; r < pg.size(); ++r) ins.push_back(input_of(r, DType::F32, {4, 5}));
  view.copy_(ins[size_t(pg.rank())]);
  pg.all_reduce(view, ReduceOp::Max);
  CHECK(values(view) == values(serial(ins, ReduceOp::Max)));
  Tensor untouched = base.select(0, 0);
  CHECK(values(untouched) == std::vector<double>(8, -100.0));
  CHECK(values(base.slice(1, 1, 8, 2)) == std::vector<double>(24, -100.0));
}

TEST_CASE("broadcast copies the root's tensor to every rank", "[distributed]") {
  ProcessGroup& pg = default_group();
  for (DType dt : kAll)
    for (int root = 0; root < pg.size(); ++root) {
      CAPTURE(dtype_name(dt), root);
      Tensor t = input_of(pg.rank(), dt, {3, 5}).t();  // non-contiguous
      pg.broadcast(t, root);
      CHECK(values(t) == values(input_of(root, dt, {3, 5}).t()));
    }
  Tensor empty0 = zeros({0});
  pg.broadcast(empty0, 1);
  CHECK(empty0.numel() == 0);
}

TEST_CASE("all_gather stacks every rank's tensor in rank order", "[distributed]") {
  ProcessGroup& pg = default_group();
  for (DType dt : kAll)
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {0}, {5}, {3, 4}}) {
      CAPTURE(dtype_name(dt), shape);
      Tensor out = pg.all_gather(input_of(pg.rank(), dt, shape));
      std::vector<int64_t> expect_shape{pg.size()};
      expect_shape.insert(expect_shape.end(), shape.begin(), shape.end());
      CHECK(std::vector<int64_t>(out.sizes().begin(), out.sizes().end()) == expect_shape);
      for (int r = 0; r < pg.size(); ++r) CHECK(values(out.select(0, r)) == values(input_of(r, dt, shape)));
    }
  // Into a caller's tensor, from a non-contiguous input.
  Tensor in = input_of(pg.rank(), DType::I32, {4, 3}).t();
  Tensor out = zeros({3 * pg.size(), 4}, {DType::I32});
  pg.all_gather(out, in);
  for (int r = 0; r < pg.size(); ++r)
    CHECK(values(out.narrow(0, 3 * r, 3)) == values(input_of(r, DType::I32, {4, 3}).t()));
}

TEST_CASE("reduce_scatter gives each rank the reduction of its block", "[distributed]") {
  ProcessGroup& pg = default_group();
  for (DType dt : kAll)
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Average}) {
      if (op == ReduceOp::Average && !is_floating(dt)) continue;
      CAPTURE(dtype_name(dt), reduce_op_name(op));
      std::vector<Tensor> ins;
      for (int r = 0; r < pg.size(); ++r) ins.push_back(input_of(r, dt, {3 * pg.size(), 2}, 1));
      Tensor out = empty({3, 2}, {dt});
      pg.reduce_scatter(out, ins[size_t(pg.rank())], op);
      CHECK(values(out) == values(serial(ins, op).to(dt).narrow(0, 3 * pg.rank(), 3)));
    }
}

TEST_CASE("send and recv move a tensor between two ranks; barrier waits for all",
          "[distributed]") {
  ProcessGroup& pg = default_group();
  pg.barrier();
  Tensor t = input_of(pg.rank(), DType::F64, {6});
  Tensor got = zeros({6}, {DType::F64});
  if (pg.rank() == 0) {
    pg.send(t, 1, 7);
    pg.recv(got, 1, 8);
    CHECK(values(got) == values(input_of(1, DType::F64, {6})));
  } else if (pg.rank() == 1) {
    pg.recv(got, 0, 7);
    pg.send(t, 0, 8);
    CHECK(values(got) == values(input_of(0, DType::F64, {6})));
  }
  // A message of the wrong size is an error on the receiver, not a silent truncation.
  if (pg.rank() == 0) {
    pg.send(zeros({5}), 1, 9);
  } else if (pg.rank() == 1) {
    Tensor seven = zeros({7});
    CHECK_THROWS_WITH(pg.recv(seven, 0, 9), Catch::Contains("got 5 elements, the receiving tensor has 7"));
  }
  pg.barrier();
}

TEST_CASE("async operations complete in issue order and can be waited in any order",
          "[distributed]") {
  ProcessGroup& pg = default_group();
  std::vector<Tensor> ts;
  std::vector<WorkPtr> works;
  for (int k = 0; k < 8; ++k) {
    ts.push_back(full({100}, double(pg.rank() + k)));
    works.push_back(pg.all_reduce_async(ts.back()));
  }
  for (int k = 7; k >= 0; --k) {
    works[size_t(k)]->wait();
    CHECK(works[size_t(k)]->is_completed());
    double expect = 0;
    for (int r = 0; r < pg.size(); ++r) expect += r + k;
    CHECK(values(ts[size_t(k)]) == std::vector<double>(100, expect));
  }
  works[0]->wait();  // again: a no-op
}

TEST_CASE("tensors on another device go through host memory", "[distributed]") {
  ProcessGroup& pg = default_group();
  std::optional<DeviceType> simt = find_device_type("simt");
  if (!simt) {
    WARN("the simt plugin is not loaded: staging through the host is not tested");
    return;
  }
  Device dev(*simt, 0);
  CHECK(pg.backend_for(*simt) == "mpi");
  std::vector<Tensor> ins;
  for (int r = 0; r < pg.size(); ++r) ins.push_back(input_of(r, DType::F32, {9, 4}));
  Tensor t = ins[size_t(pg.rank())].to(dev);
  pg.all_reduce(t);
  CHECK(t.device() == dev);
  CHECK(values(t) == values(serial(ins, ReduceOp::Sum)));
  Tensor view = ins[size_t(pg.rank())].to(dev).t();
  pg.broadcast(view, 1);
  CHECK(values(view) == values(ins[1].t()));
  Tensor gathered = pg.all_gather(ins[size_t(pg.rank())].to(dev));
  CHECK(gathered.device() == dev);
  for (int r = 0; r < pg.size(); ++r) CHECK(values(gathered.select(0, r)) == values(ins[size_t(r)]));
}

TEST_CASE("ranks that pass different tensors all get an error naming both", "[distributed]") {
  ProcessGroup& pg = default_group();
  REQUIRE(pg.checks_consistency());
  Tensor t = zeros({4, pg.rank() == 0 ? 3 : 5});
  CHECK_THROWS_WITH(pg.all_reduce(t),
                    Catch::Contains("rank 0: all_reduce") && Catch::Contains("float32 [4, 3]") &&
                        Catch::Contains("rank 1: all_reduce") && Catch::Contains("float32 [4, 5]"));
  Tensor d = zeros({4}, {pg.rank() == 0 ? DType::F32 : DType::F64});
  CHECK_THROWS_WITH(pg.broadcast(d), Catch::Contains("float32 [4]") && Catch::Contains("float64 [4]"));
  Tensor same = full({2}, 1.0);
  CHECK_THROWS_WITH(pg.all_reduce(same, pg.rank() == 0 ? ReduceOp::Sum : ReduceOp::Max),
                    Catch::Contains("sum") && Catch::Contains("max"));
  // The group is still good after a caught mismatch.
  pg.all_reduce(same);
  CHECK(values(same) == std::vector<double>(2, double(pg.size())));
}

TEST_CASE("bad arguments are refused before anything is sent", "[distributed]") {
  ProcessGroup& pg = default_group();
  Tensor i = zeros({3}, {DType::I64});
  CHECK_THROWS_WITH(pg.all_reduce(i, ReduceOp::Average), Catch::Contains("only floating tensors average"));
  CHECK_THROWS_WITH(pg.broadcast(zeros({2}), pg.size()), Catch::Contains("is not a rank of this group"));
  CHECK_THROWS_WITH(pg.all_gather(zeros({5}), zeros({2})), Catch::Contains("must hold"));
  CHECK_THROWS_WITH(pg.reduce_scatter(zeros({2}), zeros({3})), Catch::Contains("must hold"));
  CHECK_THROWS_WITH(pg.send(zeros({2}), pg.rank()), Catch::Contains("sending to itself"));
  CHECK_THROWS_WITH(pg.all_reduce(Tensor()), Catch::Contains("undefined tensor"));
  CHECK(pg.broken().empty());
}

TEST_CASE("distributed_indices splits an epoch evenly across ranks", "[distributed]") {
  for (int64_t n : {0, 1, 10, 11}) {
    for (bool drop_last : {false, true}) {
      std::vector<int64_t> all;
      size_t count = 0;
      for (int r = 0; r < 3; ++r) {
        std::vector<int64_t> mine = distributed_indices(n, r, 3, 5, true, 42, drop_last);
        if (r == 0) count = mine.size();
        CHECK(mine.size() == count);  // the same number on every rank
        all.insert(all.end(), mine.begin(), mine.end());
      }
      std::sort(all.begin(), all.end());
      std::vector<int64_t> distinct = all;
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      if (drop_last) {
        CHECK(all.size() == size_t(n / 3 * 3));
        CHECK(distinct.size() == all.size());
      } else {
        CHECK(all.size() == size_t((n + 2) / 3 * 3));
        CHECK(distinct.size() == size_t(n));  // every sample, some twice to pad
      }
    }
  }
  // Same seed and epoch: the same split; another epoch: another order.
  CHECK(distributed_indices(100, 1, 4, 3, true, 7) == distributed_indices(100, 1, 4, 3, true, 7));
  CHECK(distributed_indices(100, 1, 4, 3, true, 7) != distributed_indices(100, 1, 4, 4, true, 7));
  CHECK(distributed_indices(6, 1, 2, 0, false) == std::vector<int64_t>{1, 3, 5});
  CHECK_THROWS_WITH(distributed_indices(6, 2, 2, 0), Catch::Contains("rank 2 is not in 0 .. 1"));
}
