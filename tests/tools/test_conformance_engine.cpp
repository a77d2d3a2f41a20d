// The conformance suite's own machinery: comparison, ULPs, the reference
// tensor's conversions, case ids, globbing, the xfail format and the reports.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "engine.h"
#include "plexus/error.h"
#include "report.h"
#include "suite.h"

using namespace plexus;
using namespace plexus::conformance;

namespace {
ref::Tensor floats(DType t, std::vector<double> v) {
  ref::Tensor r(t, {static_cast<int64_t>(v.size())});
  for (size_t k = 0; k < v.size(); ++k) r.set_float(static_cast<int64_t>(k), v[k]);
  return r;
}
ref::Tensor ints(DType t, std::vector<int64_t> v) {
  ref::Tensor r(t, {static_cast<int64_t>(v.size())});
  for (size_t k = 0; k < v.size(); ++k) r.set_int(static_cast<int64_t>(k), v[k]);
  return r;
}
}  // namespace

TEST_CASE("ulp_of gives the spacing of each floating dtype, subnormals included", "[conformance]") {
  CHECK(ulp_of(DType::F32, 1.0) == std::ldexp(1.0, -23));
  CHECK(ulp_of(DType::F32, 1.5) == std::ldexp(1.0, -23));
  CHECK(ulp_of(DType::F32, 2.0) == std::ldexp(1.0, -22));
  CHECK(ulp_of(DType::F16, 1.0) == std::ldexp(1.0, -10));
  CHECK(ulp_of(DType::BF16, 1.0) == std::ldexp(1.0, -7));
  CHECK(ulp_of(DType::F64, 1.0) == std::ldexp(1.0, -52));
  // Below the smallest normal the spacing stays that of the subnormals.
  CHECK(ulp_of(DType::F32, 0.0) == std::ldexp(1.0, -149));
  CHECK(ulp_of(DType::F32, 1e-40) == std::ldexp(1.0, -149));
  CHECK(ulp_of(DType::F16, 1e-6) == std::ldexp(1.0, -24));
  CHECK(dtype_eps(DType::F16) == std::ldexp(1.0, -10));
  CHECK(dtype_eps(DType::I32) == 0.0);
}

TEST_CASE("compare passes within the tolerance and names the first element outside it", "[conformance]") {
  double one_ulp = std::ldexp(1.0, -23);
  Expected want{floats(DType::F32, {1.0, 2.0, 3.0}), {}};
  SECTION("one ulp off passes with ulps = 1, fails with ulps = 0") {
    ref::Tensor got = floats(DType::F32, {1.0 + one_ulp, 2.0, 3.0});
    CHECK(compare(want, got, {.ulps = 1}).ok);
    Comparison c = compare(want, got, {});
    CHECK_FALSE(c.ok);
    CHECK(c.max_ulp_err == Approx(1.0));
    CHECK(c.message.find("1 of 3 elements differ; first at [0]") != std::string::npos);
  }
  SECTION("two ulps off fails with ulps = 1") {
    ref::Tensor got = floats(DType::F32, {1.0, 2.0, 3.0 + 4 * one_ulp});  // 3 has spacing 2 ulp(1)
    Comparison c = compare(want, got, {.ulps = 1});
    CHECK_FALSE(c.ok);
    CHECK(c.max_ulp_err == Approx(2.0));
    CHECK(c.message.find("first at [2] (flat 2)") != std::string::npos);
  }
  SECTION("the accumulation term scales with Expected::scale") {
    Expected scaled = want;
    scaled.scale = {0, 0, 1000};
    ref::Tensor got = floats(DType::F32, {1.0, 2.0, 3.0 + 1e-5});
    CHECK_FALSE(compare(want, got, {.ulps = 1, .acc = 1}).ok);
    CHECK(compare(scaled, got, {.ulps = 1, .acc = 1}).ok);  // 1000 * 2^-23 > 1e-5
  }
  SECTION("expected values are rounded to the dtype first") {
    Expected third{floats(DType::F32, {1.0 / 3.0}), {}};
    CHECK(compare(third, floats(DType::F32, {static_cast<float>(1.0 / 3.0)}), {}).ok);
  }
}

TEST_CASE("compare: NaN meets NaN, infinities match exactly, signed zero on request", "[conformance]") {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Expected want{floats(DType::F32, {nan, inf, -0.0}), {}};
  CHECK(compare(want, floats(DType::F32, {nan, inf, 0.0}), {}).ok);
  CHECK_FALSE(compare(want, floats(DType::F32, {1.0, inf, 0.0}), {.atol = 1e30}).ok);
  CHECK_FALSE(compare(want, floats(DType::F32, {nan, -inf, 0.0}), {.atol = 1e30}).ok);
  CHECK_FALSE(compare(want, floats(DType::F32, {nan, 3e38, 0.0}), {.atol = 1e30}).ok);
  CHECK_FALSE(compare(want, floats(DType::F32, {nan, inf, 0.0}), {.signed_zero = true}).ok);
  CHECK(compare(want, floats(DType::F32, {nan, inf, -0.0}), {.signed_zero = true}).ok);
}

TEST_CASE("compare: integers match exactly after wrapping; shape and dtype must agree", "[conformance]") {
  Expected want{ints(DType::I8, {127, 300}), {}};  // 300 wraps to 44 in int8
  CHECK(compare(want, ints(DType::I8, {127, 44}), {}).ok);
  Comparison c = compare(want, ints(DType::I8, {127, 45}), {.ulps = 100, .atol = 100});
  CHECK_FALSE(c.ok);
  CHECK(c.message.find("got 45, expected 44") != std::string::npos);
  CHECK(compare(want, ints(DType::I16, {127, 44}), {}).message.find("int16") != std::string::npos);
  CHECK_FALSE(compare(want, ints(DType::I8, {127, 44, 0}), {}).ok);
  // A bool byte other than 0/1 is not "true".
  ref::Tensor bad(DType::Bool, {1});
  bad.i[0] = 2;
  bad.f[0] = 2;
  CHECK_FALSE(compare(Expected{ints(DType::Bool, {1}), {}}, bad, {}).ok);
}

TEST_CASE("the reference converts like plexus: truncation, NaN to 0, saturation, wrap", "[conformance]") {
  ref::Tensor f = floats(DType::F32, {2.9, -2.9, std::nan(""), 1e10, -1e10});
  ref::Tensor i8 = ref::convert(f, DType::I8);
  CHECK(i8.i == std::vector<int64_t>{2, -2, 0, 127, -128});
  ref::Tensor w = ref::convert(ints(DType::I32, {300, -129}), DType::I8);
  CHECK(w.i == std::vector<int64_t>{44, 127});
  ref::Tensor h = ref::convert(floats(DType::F64, {1.0 + std::ldexp(1.0, -11)}), DType::F16);
  CHECK(h.f[0] == 1.0);  // a tie rounds to even
  CHECK(ref::wrapping_mul(std::numeric_limits<int64_t>::max(), 2) == -2);
}

TEST_CASE("case ids, globs and the seeding of cases", "[conformance]") {
  Result r;
  r.op = "add.out";
  r.dtype = "float32";
  r.name = "odd";
  r.variant = "out";
  CHECK(r.id() == "add.out/float32/odd/out");
  Result rt;
  rt.op = "runtime";
  rt.dtype = "-";
  rt.name = "streams";
  CHECK(rt.id() == "runtime/streams");

  CHECK(glob_match("*", "add.out/float32/odd/out"));
  CHECK(glob_match("add.out/*/odd/*", "add.out/float32/odd/out"));
  CHECK(glob_match("add.out/float?2/*", "add.out/float32/odd/out"));
  CHECK_FALSE(glob_match("add.out/float16/*", "add.out/float32/odd/out"));
  CHECK_FALSE(glob_match("add.out", "add.out/float32/odd/out"));
  CHECK(glob_match("*odd*", "add.out/float32/odd/out"));

  // A case's values depend on the seed, the op, the dtype and its name only.
  CaseSet a(1, "add.out", DType::F32), b(1, "add.out", DType::F32), c(2, "add.out", DType::F32);
  a.add("x");
  b.add("other");
  b.add("x");
  c.add("x");
  Rng ra = a.cases()[0].rng, rb = b.cases()[1].rng, rc = c.cases()[0].rng;
  uint64_t va = ra.bits();
  CHECK(va == rb.bits());
  CHECK(va != rc.bits());
  CHECK_THROWS(a.add("x"));
}

TEST_CASE("the expected-failures file: entries, comments, and errors naming the line", "[conformance]") {
  auto e = parse_xfail("# comment\n\nadd.out float16  rounds twice (issue 12)\nruntime streams no streams yet\n"
                       "* bfloat16 not implemented\n",
                       "x.txt");
  REQUIRE(e.size() == 3);
  CHECK(e[0].op == "add.out");
  CHECK(e[0].dtype == "float16");
  CHECK(e[0].reason == "rounds twice (issue 12)");
  CHECK(e[0].line == 3);
  CHECK(e[1].op == "runtime");
  CHECK(e[2].op == "*");
  try {
    parse_xfail("add.out float32\n", "x.txt");
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(std::string(err.what()).find("x.txt:1") != std::string::npos);
  }
  CHECK_THROWS_AS(parse_xfail("add.out floaty32 because\n", "x.txt"), Error);
}

TEST_CASE("the elementwise generator covers the shapes and layouts the issue asks for", "[conformance]") {
  CaseSet set(7, "add.out", DType::F32);
  ElementwiseSpec s;
  s.inputs = {"self", "other"};
  s.reference = [](const Inputs& in) { return expect(in["self"]); };
  elementwise_cases(set, s);
  std::vector<std::string> names;
  bool stress = false;
  for (const Case& c : set.cases()) {
    names.push_back(c.name);
    stress |= c.stress;
  }
  for (const char* want : {"0d", "empty", "one", "odd", "prime_2d", "large", "bcast_lhs", "bcast_rhs",
                           "bcast_0d", "transposed", "strided", "offset", "expanded", "aliased", "special"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  CHECK(stress);
  // Expanded inputs repeat index 0 along the broadcast dim for the reference.
  for (const Case& c : set.cases()) {
    if (c.name != "expanded") continue;
    Inputs in = logical_inputs(c);
    const ref::Tensor& t = in["self"];
    for (int64_t k = 0; k < t.numel(); ++k) CHECK(t.at(k) == t.at(k % t.sizes[1]));
  }
}

TEST_CASE("the JUnit report escapes text and counts failures and skips", "[conformance]") {
  ReportInfo info;
  info.plugin = "cpu";
  info.rerun = "plexus-conformance --plugin cpu";
  std::vector<Result> rs(3);
  rs[0].op = rs[1].op = rs[2].op = "add.out";
  rs[0].dtype = rs[1].dtype = rs[2].dtype = "float32";
  rs[0].name = "odd";
  rs[0].variant = "out";
  rs[1].name = "special";
  rs[1].variant = "out";
  rs[1].status = Status::Fail;
  rs[1].message = "got <1> & \"2\"\x01";
  rs[2].name = "";
  rs[2].status = Status::Unsupported;
  rs[2].message = "no kernel";
  std::string x = junit_xml(info, rs);
  CHECK(x.find("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\"") != std::string::npos);
  CHECK(x.find("got &lt;1&gt; &amp; &quot;2&quot;") != std::string::npos);
  CHECK(x.find('\x01') == std::string::npos);
  CHECK(x.find("re-run: plexus-conformance --plugin cpu --filter add.out/float32/special/out") != std::string::npos);
  std::string j = json_report(info, rs);
  CHECK(j.find("\"coverage_percent\"") != std::string::npos);
  CHECK(j.find("\"max_ulp_err\"") != std::string::npos);
}
