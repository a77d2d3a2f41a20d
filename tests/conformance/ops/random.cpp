// Conformance cases of the random ops: uniform_, normal_, bernoulli_.float.
// Each writes self in place from the stream (seed, offset); the reference
// computes that stream from its definition (reference/random.h), so a kernel
// must give the very values, not just the distribution: element k of self in
// row-major order whatever its layout, the offset added to k, 64-bit seeds
// and offsets, and the 24- and 53-bit uniforms.
#include "reference/random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "suite.h"

namespace plexus::conformance {
namespace {

// Seeds and offsets that reach every word of the counter and the key.
struct Stream {
  const char* name;
  uint64_t seed, offset;
};
constexpr Stream kStreams[] = {
    {"seed0", 0, 0},
    {"seed_offset", 2024, 12345},
    {"high_words", (uint64_t{0x9E3779B9} << 32) | 0x7F4A7C15u, (uint64_t{1} << 32) - 3},
    {"seed_all_ones", ~uint64_t{0}, (uint64_t{1} << 62) + 1},
};

// Shapes and layouts: the element number is the row-major position in self.
struct Shape {
  const char* name;
  ref::Sizes sizes;
  uint32_t layout;
};
const Shape kShapes[] = {
    {"0d", {}, Contiguous},
    {"empty", {0}, Contiguous},
    {"one", {1}, Contiguous},
    {"prime_2d", {13, 17}, Contiguous},
    {"transposed", {13, 17}, Transposed | Offset},
    {"strided_3d", {3, 5, 7}, Transposed | Strided},
    {"pitched", {9, 31}, Pitched},
    {"large", {262147}, Contiguous},
};

// self's old values, which the op must overwrite entirely.
ref::Tensor old_self(Case& c, DType d, const ref::Sizes& sizes) {
  return random(c.rng, d, sizes);
}

// Rounding: from + u * (to - from) in the compute type (float for float32
// and narrower, double for float64), with or without a fused multiply-add,
// against the reference in double: a rounding or two of the compute type at
// the scale of the bounds (the sum may cancel); float16 and bfloat16 then
// round once more. [0, 1) has nothing to round in the compute type.
Tolerance uniform_tolerance(DType d, double from, double to) {
  if (from == 0 && to == 1) return {};
  const double eps = d == DType::F64 ? 0x1p-52 : 0x1p-23;
  return {.ulps = 1, .atol = 2 * eps * std::max(std::abs(from), std::abs(to))};
}

void uniform_cases(CaseSet& set) {
  const DType d = set.dtype();
  auto add = [&](std::string name, const ref::Sizes& sizes, uint32_t layout, double from, double to,
                 const Stream& s) -> Case& {
    Case& c = set.add(std::move(name));
    c.tensor("self", old_self(c, d, sizes), layout)
        .arg("from", from)
        .arg("to", to)
        .arg("seed", static_cast<int64_t>(s.seed))
        .arg("offset", static_cast<int64_t>(s.offset));
    c.ref([=](const Inputs& in) {
      return expect(ref::uniform(d, in["self"].sizes, from, to, s.seed, s.offset));
    });
    c.tolerance(uniform_tolerance(d, from, to));
    return c;
  };
  for (const Shape& sh : kShapes) add(sh.name, sh.sizes, sh.layout, 0, 1, kStreams[1]);
  for (const Stream& s : kStreams) add(std::string("unit_") + s.name, {1031}, Contiguous, 0, 1, s);
  add("range", {4099}, Contiguous, -2, 3, kStreams[2]);
  add("narrow_range", {4099}, Contiguous, 1e3, 1e3 + 1e-3, kStreams[3]);
  add("point", {64}, Contiguous, 7.5, 7.5, kStreams[0]);
  add("stress", {64, 257}, Contiguous, 0, 1, kStreams[1]).stress = true;
  for (auto [name, from, to] : {std::tuple{"reversed_error", 1.0, 0.0}}) {
    Case& c = set.add(name);
    c.tensor("self", old_self(c, d, {4}))
        .arg("from", from)
        .arg("to", to)
        .arg("seed", int64_t{0})
        .arg("offset", int64_t{0});
    c.expect_error = "from <= to";
  }
  Case& c = set.add("negative_offset_error");
  c.tensor("self", old_self(c, d, {4})).arg("seed", int64_t{0}).arg("offset", int64_t{-1});
  c.expect_error = "must be >= 0";
}

void normal_cases(CaseSet& set) {
  const DType d = set.dtype();
  // float32 and narrower: log, sqrt and cos in float against double, at most
  // a few float32 ulps of values up to about 5.7 standard deviations.
  const Tolerance tol = d == DType::F64   ? Tolerance{.atol = 1e-13, .rtol = 1e-13}
                        : d == DType::F32 ? Tolerance{.atol = 1e-5, .rtol = 1e-5}
                                          : Tolerance{.ulps = 1, .atol = 1e-5, .rtol = 1e-5};
  auto add = [&](std::string name, const ref::Sizes& sizes, uint32_t layout, double mean,
                 double std, const Stream& s) -> Case& {
    Case& c = set.add(std::move(name));
    c.tensor("self", old_self(c, d, sizes), layout)
        .arg("mean", mean)
        .arg("std", std)
        .arg("seed", static_cast<int64_t>(s.seed))
        .arg("offset", static_cast<int64_t>(s.offset));
    c.ref([=](const Inputs& in) {
      return expect(ref::normal(d, in["self"].sizes, mean, std, s.seed, s.offset));
    });
    Tolerance t = tol;
    t.atol *= std > 1 ? std : 1;
    c.tolerance(t);
    return c;
  };
  for (const Shape& sh : kShapes) add(sh.name, sh.sizes, sh.layout, 0, 1, kStreams[1]);
  for (const Stream& s : kStreams) add(std::string("std_") + s.name, {1031}, Contiguous, 0, 1, s);
  add("shifted", {4099}, Contiguous, 3, 0.5, kStreams[2]);
  add("zero_std", {64}, Contiguous, -1.25, 0, kStreams[3]);
  add("stress", {64, 257}, Contiguous, 0, 1, kStreams[1]).stress = true;
  Case& c = set.add("negative_std_error");
  c.tensor("self", old_self(c, d, {4}))
      .arg("std", -1.0)
      .arg("seed", int64_t{0})
      .arg("offset", int64_t{0});
  c.expect_error = "std";
}

void bernoulli_cases(CaseSet& set) {
  const DType d = set.dtype();
  auto add = [&](std::string name, const ref::Sizes& sizes, uint32_t layout, double p,
                 const Stream& s) -> Case& {
    Case& c = set.add(std::move(name));
    c.tensor("self", old_self(c, d, sizes), layout)
        .arg("p", p)
        .arg("seed", static_cast<int64_t>(s.seed))
        .arg("offset", static_cast<int64_t>(s.offset));
    c.ref([=](const Inputs& in) {
      return expect(ref::bernoulli(d, in["self"].sizes, p, s.seed, s.offset));
    });
    c.tolerance({.signed_zero = true});  // exact, and +0 (not -0) for a miss
    return c;
  };
  for (const Shape& sh : kShapes) add(sh.name, sh.sizes, sh.layout, 0.3, kStreams[1]);
  for (const Stream& s : kStreams) add(std::string("half_") + s.name, {1031}, Contiguous, 0.5, s);
  // p at the edges, and p between two 24-bit steps (the threshold rounds up).
  add("p0", {1031}, Contiguous, 0, kStreams[0]);
  add("p1", {1031}, Contiguous, 1, kStreams[0]);
  add("p_between_steps", {65537}, Contiguous, 0.1 + 0x1p-30, kStreams[2]);
  add("p_on_step", {65537}, Contiguous, 0.25, kStreams[3]);
  add("stress", {64, 257}, Contiguous, 0.7, kStreams[1]).stress = true;
  Case& c = set.add("p_error");
  c.tensor("self", old_self(c, d, {4}))
      .arg("p", 1.5)
      .arg("seed", int64_t{0})
      .arg("offset", int64_t{0});
  c.expect_error = "probability";
}

}  // namespace

void add_random_ops(std::vector<OpInfo>& v) {
  v.push_back({"uniform_", uniform_cases});
  v.push_back({"normal_", normal_cases});
  v.push_back({"bernoulli_.float", bernoulli_cases});
}

}  // namespace plexus::conformance
