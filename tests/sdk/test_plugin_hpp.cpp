// plexus/plugin.hpp, the vendor's C++ helpers, tested on their own: no plugin
// is loaded; a fake host table records what the helpers hand to the host.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "plexus/plugin.hpp"

namespace sdk = plexus::sdk;

namespace {

// ---- A fake host: records registrations and error messages --------------

struct FakeHost {
  plexus_host_api api{};
  std::string last_error;
  const plexus_backend* backend = nullptr;
  plexus_kernel_fn kernel = nullptr;
  void* kernel_user_data = nullptr;
  plexus_status refuse = PLEXUS_OK;  // what register_* return

  FakeHost() {
    api.struct_size = sizeof(api);
    api.abi_major = PLEXUS_ABI_MAJOR;
    api.abi_minor = PLEXUS_ABI_MINOR;
    api.host_ctx = this;
    api.set_error_message = [](void* ctx, const char* m) { self(ctx).last_error = m; };
    api.register_backend = [](void* ctx, const plexus_backend* b, int32_t* slot) {
      self(ctx).backend = b;
      *slot = 7;
      return self(ctx).refuse;
    };
    api.register_kernel = [](void* ctx, int32_t, const char*, uint32_t, plexus_kernel_fn fn,
                             void* ud) {
      self(ctx).kernel = fn;
      self(ctx).kernel_user_data = ud;
      return self(ctx).refuse;
    };
  }
  static FakeHost& self(void* ctx) { return *static_cast<FakeHost*>(ctx); }
};

// A call whose args the test fills in.
plexus_kernel_call make_call(const char* op, const std::vector<plexus_value>& args) {
  plexus_kernel_call call{};
  call.struct_size = sizeof(call);
  call.op = op;
  call.args = args.data();
  call.num_args = static_cast<int64_t>(args.size());
  call.dtype = PLEXUS_DTYPE_F32;
  return call;
}

plexus_tensor make_tensor(void* data, plexus_dtype dtype, const std::vector<int64_t>& sizes,
                          const std::vector<int64_t>& strides, int64_t offset = 0) {
  plexus_tensor t{};
  t.storage = data;
  t.offset = offset;
  t.sizes = sizes.data();
  t.strides = strides.data();
  t.ndim = static_cast<int32_t>(sizes.size());
  t.dtype = dtype;
  return t;
}

}  // namespace

// ---- Half and BFloat16 ----------------------------------------------------

TEST_CASE("sdk::Half converts from float with round-to-nearest-even", "[sdk]") {
  CHECK(sdk::Half(1.0f).bits == 0x3c00);
  CHECK(sdk::Half(-2.0f).bits == 0xc000);
  CHECK(sdk::Half(65504.0f).bits == 0x7bff);               // the largest finite half
  CHECK(sdk::Half(65519.0f).bits == 0x7bff);               // below the midpoint to infinity
  CHECK(sdk::Half(65520.0f).bits == 0x7c00);               // the midpoint rounds to even: infinity
  CHECK(sdk::Half(std::ldexp(1.0f, -24)).bits == 0x0001);  // smallest subnormal
  CHECK(sdk::Half(std::ldexp(1.0f, -25)).bits == 0x0000);  // tie between 0 and it: even
  CHECK(sdk::Half(std::ldexp(3.0f, -25)).bits == 0x0002);  // tie between 1 and 2 ulps: even
  CHECK(sdk::Half(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);  // tie: stays even
  CHECK(sdk::Half(1.0f + std::ldexp(3.0f, -11)).bits == 0x3c02);  // tie: up to even
  CHECK(sdk::Half(-0.0f).bits == 0x8000);
  CHECK(sdk::Half(std::numeric_limits<float>::infinity()).bits == 0x7c00);
  CHECK(std::isnan(float(sdk::Half(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("sdk::Half rounds doubles directly, not through float", "[sdk]") {
  // Through float this would first become the tie 1 + 2^-11, then round down.
  CHECK(sdk::Half(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits == 0x3c01);
  CHECK(sdk::Half(int64_t{2049}).bits == sdk::Half(2048.0f).bits);  // integers via double
}

TEST_CASE("sdk::Half to float is exact and every half survives the round trip", "[sdk]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    sdk::Half h = sdk::Half::from_bits(uint16_t(b));
    float f = h;
    if (std::isnan(f)) continue;
    REQUIRE(sdk::Half(f).bits == b);
  }
  CHECK(float(sdk::Half::from_bits(0x0001)) == std::ldexp(1.0f, -24));
  CHECK(float(sdk::Half::from_bits(0x3555)) == 0.333251953125f);
}

TEST_CASE("sdk::BFloat16 is the rounded upper half of a float", "[sdk]") {
  CHECK(sdk::BFloat16(1.0f).bits == 0x3f80);
  CHECK(float(sdk::BFloat16(1.0f / 3)) == 0.333984375f);
  CHECK(sdk::BFloat16(1.0f + std::ldexp(1.0f, -8)).bits == 0x3f80);        // tie: stays even
  CHECK(sdk::BFloat16(1.0f + std::ldexp(3.0f, -8)).bits == 0x3f82);        // tie: up to even
  CHECK(sdk::BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80);  // overflows to inf
  CHECK(std::isnan(float(sdk::BFloat16(std::numeric_limits<float>::quiet_NaN()))));
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = sdk::BFloat16::from_bits(uint16_t(b));
    if (!std::isnan(f)) REQUIRE(sdk::BFloat16(f).bits == b);
  }
}

// ---- dtypes -----------------------------------------------------------------

TEST_CASE("sdk::visit_dtype calls f with the C++ type of each dtype", "[sdk]") {
  for (plexus_dtype d = 0; d < PLEXUS_NUM_DTYPES; ++d) {
    sdk::visit_dtype(d, [&](auto tag) {
      using T = typename decltype(tag)::type;
      CHECK(sdk::dtype_of<T>() == d);
      CHECK(sizeof(T) == sdk::dtype_size(d));
    });
  }
  CHECK(std::string(sdk::dtype_name(PLEXUS_DTYPE_BF16)) == "bfloat16");
  CHECK_THROWS_WITH(sdk::visit_dtype(42, [](auto) {}), "invalid dtype value 42");
}

TEST_CASE("sdk::convert is defined for every value, as the host's conversion", "[sdk]") {
  CHECK(sdk::convert<int32_t>(std::nan("")) == 0);
  CHECK(sdk::convert<int8_t>(1000.0f) == 127);
  CHECK(sdk::convert<int8_t>(-1000.0) == -128);
  CHECK(sdk::convert<int64_t>(1e30) == std::numeric_limits<int64_t>::max());
  CHECK(sdk::convert<int32_t>(-2.9) == -2);
  CHECK(sdk::convert<bool>(0.5f));
  CHECK_FALSE(sdk::convert<bool>(sdk::Half(0.0f)));
  CHECK(sdk::convert<uint8_t>(int32_t{257}) == 1);
  CHECK(sdk::convert<sdk::Half>(2.5).bits == 0x4100);
  CHECK(sdk::convert<float>(sdk::BFloat16(1.5f)) == 1.5f);
}

// ---- TensorView and iteration ---------------------------------------------

TEST_CASE("sdk::TensorView addresses strided elements by index and in row-major order", "[sdk]") {
  std::vector<float> data = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<int64_t> sizes = {3, 2}, strides = {1, 3};  // a transposed 2x3 at offset 1
  sdk::TensorView<float> v(make_tensor(data.data(), PLEXUS_DTYPE_F32, sizes, strides, 1));
  CHECK(v.ndim() == 2);
  CHECK(v.numel() == 6);
  CHECK(v.data() == data.data() + 1);
  CHECK(v(0, 1) == 4);
  CHECK(v(2, 0) == 3);
  const int64_t index[] = {1, 1};
  CHECK(v.at(index) == 5);
  std::vector<float> linear;
  for (int64_t i = 0; i < v.numel(); ++i) linear.push_back(v[i]);
  CHECK(linear == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_FALSE(v.is_contiguous());
  CHECK_THROWS_WITH(v(1), "TensorView: 1 indices for a view of 2 dims");
  CHECK_THROWS_WITH(
      sdk::TensorView<double>(make_tensor(data.data(), PLEXUS_DTYPE_F32, sizes, strides)),
      "TensorView of float64 over a tensor of float32");
}

TEST_CASE("sdk::for_each_row merges dims that are contiguous in every operand", "[sdk]") {
  std::vector<int64_t> sizes = {2, 3, 4}, dense = {12, 4, 1}, bcast = {0, 4, 1};
  std::vector<int64_t> rows;
  auto count = [&](const auto& strides) {
    rows.clear();
    sdk::for_each_row<2>(3, sizes.data(), strides,
                         [&](const std::array<int64_t, 2>&, int64_t n,
                             const std::array<int64_t, 2>&) { rows.push_back(n); });
  };
  count(std::array<const int64_t*, 2>{dense.data(), dense.data()});
  CHECK(rows == std::vector<int64_t>{24});  // one row
  count(std::array<const int64_t*, 2>{dense.data(), bcast.data()});
  CHECK(rows == std::vector<int64_t>{12, 12});  // the broadcast dim stays a loop
  std::vector<int64_t> empty_sizes = {2, 0};
  int calls = 0;
  sdk::for_each_row<1>(2, empty_sizes.data(), std::array<const int64_t*, 1>{dense.data()},
                       [&](const auto&, int64_t, const auto&) { ++calls; });
  CHECK(calls == 0);
  sdk::for_each_row<1>(0, nullptr, std::array<const int64_t*, 1>{nullptr},
                       [&](const auto&, int64_t n, const auto&) { calls += int(n); });
  CHECK(calls == 1);  // a 0-d shape is one element
}

TEST_CASE("sdk::elementwise combines broadcast and strided views", "[sdk]") {
  std::vector<sdk::Half> a = {sdk::Half(1.0f), sdk::Half(2.0f), sdk::Half(3.0f)};
  std::vector<float> b = {10, 20};
  std::vector<double> out(6, -1);
  std::vector<int64_t> sizes = {2, 3};
  std::vector<int64_t> a_strides = {0, 1}, b_strides = {1, 0}, out_strides = {1, 2};
  sdk::TensorView<const sdk::Half> va(a.data(), 2, sizes.data(), a_strides.data());
  sdk::TensorView<const float> vb(b.data(), 2, sizes.data(), b_strides.data());
  sdk::TensorView<double> vo(out.data(), 2, sizes.data(), out_strides.data());
  sdk::elementwise(vo, va, vb, [](float x, float y) { return x + y; });
  CHECK(out == std::vector<double>{11, 21, 12, 22, 13, 23});  // out is column-major

  int64_t total = 0;
  sdk::for_each(vo, [&](double& x) { total += int64_t(x); });
  CHECK(total == 102);
  std::vector<int64_t> other = {3, 3};
  sdk::TensorView<double> wrong(out.data(), 2, other.data(), out_strides.data());
  CHECK_THROWS_AS(sdk::elementwise(wrong, va, [](float x) { return x; }), sdk::Error);
}

// ---- Arguments ----------------------------------------------------------------

TEST_CASE("sdk::Args reads arguments by position and names wrong kinds", "[sdk]") {
  float x = 1;
  std::vector<int64_t> sizes, strides;
  plexus_tensor t = make_tensor(&x, PLEXUS_DTYPE_F32, sizes, strides);
  int64_t dims[] = {0, 2};
  std::vector<plexus_value> v(6);
  v[0].tag = PLEXUS_VALUE_TENSOR;
  v[0].u.tensor = &t;
  v[1].tag = PLEXUS_VALUE_SCALAR;
  v[1].u.scalar.kind = PLEXUS_SCALAR_FLOAT;
  v[1].u.scalar.v.f = 2.5;
  v[2].tag = PLEXUS_VALUE_INT_LIST;
  v[2].u.int_list.items = dims;
  v[2].u.int_list.count = 2;
  v[3].tag = PLEXUS_VALUE_NONE;
  v[4].tag = PLEXUS_VALUE_STRING;
  v[4].u.string.data = "tanhXX";
  v[4].u.string.size = 4;
  v[5].tag = PLEXUS_VALUE_BOOL;
  v[5].u.b = 1;
  plexus_kernel_call call = make_call("myop.out", v);
  sdk::Args args(call);

  CHECK(args.size() == 6);
  CHECK(args.tensor(0).storage == &x);
  CHECK(args.scalar(1).to_double() == 2.5);
  CHECK(args.scalar(1).to_int() == 2);
  CHECK(args.scalar(1).to<sdk::Half>().bits == 0x4100);
  CHECK(args.int_list(2).size() == 2);
  CHECK(args.int_list(2)[1] == 2);
  CHECK(args.optional_int_list(3) == std::nullopt);
  CHECK(args.optional_tensor(3) == nullptr);
  CHECK(args.string(4) == "tanh");
  CHECK(args.boolean(5));
  CHECK_THROWS_WITH(args.scalar(0), "myop.out: argument 0 is Tensor, expected Scalar");
  CHECK_THROWS_WITH(args.integer(3), "myop.out: argument 3 is None, expected int");
  CHECK_THROWS_WITH(args.tensor(9), "myop.out: argument 9 requested, but the call has 6");
  try {
    args.int_list(1);
  } catch (const sdk::Error& e) {
    CHECK(e.status() == PLEXUS_ERROR_INVALID_ARGUMENT);
  }
}

// ---- Errors and registration -------------------------------------------------

TEST_CASE("sdk::guard turns exceptions into statuses and messages for the host", "[sdk]") {
  FakeHost host;
  CHECK(sdk::guard(&host.api, [] {}) == PLEXUS_OK);
  CHECK(sdk::guard(&host.api, [] { return PLEXUS_ERROR_IO; }) == PLEXUS_ERROR_IO);
  CHECK(sdk::guard(&host.api, [] { sdk::fail(PLEXUS_ERROR_NOT_FOUND, "no such thing"); }) ==
        PLEXUS_ERROR_NOT_FOUND);
  CHECK(host.last_error == "no such thing");
  CHECK(sdk::guard(&host.api, [] { throw std::bad_alloc(); }) == PLEXUS_ERROR_OUT_OF_MEMORY);
  CHECK(sdk::guard(&host.api, [] { throw std::runtime_error("oops"); }) == PLEXUS_ERROR_INTERNAL);
  CHECK(host.last_error == "oops");
  CHECK(sdk::guard(&host.api, [] { throw 42; }) == PLEXUS_ERROR_INTERNAL);
  CHECK(host.last_error == "unknown exception in plugin code");
  CHECK(sdk::guard(nullptr, [] { throw 42; }) == PLEXUS_ERROR_INTERNAL);  // no host: no message
}

TEST_CASE("sdk::fail formats its message where the error is raised", "[sdk]") {
  FakeHost host;
  int64_t index = 7, rows = 5;
  CHECK(sdk::guard(&host.api, [&] {
          sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "index {} is out of range [0, {})", index, rows);
        }) == PLEXUS_ERROR_INVALID_ARGUMENT);
  CHECK(host.last_error == "index 7 is out of range [0, 5)");
  // Without arguments the message is taken as it is, braces and all.
  CHECK(sdk::guard(&host.api, [] { sdk::fail(PLEXUS_ERROR_IO, "a {} b"); }) == PLEXUS_ERROR_IO);
  CHECK(host.last_error == "a {} b");
}

namespace {
void throwing_kernel(const plexus_kernel_call& call) {
  sdk::fail(PLEXUS_ERROR_UNSUPPORTED, std::string(call.op) + " is not done yet");
}
}  // namespace

TEST_CASE("sdk::register_kernel hands the host a trampoline that catches", "[sdk]") {
  FakeHost host;
  sdk::register_kernel<&throwing_kernel>(&host.api, 7, "add.out", sdk::kFloatingDTypes);
  REQUIRE(host.kernel != nullptr);
  std::vector<plexus_value> none;
  plexus_kernel_call call = make_call("add.out", none);
  CHECK(host.kernel(host.kernel_user_data, &call) == PLEXUS_ERROR_UNSUPPORTED);
  CHECK(host.last_error == "add.out is not done yet");

  host.refuse = PLEXUS_ERROR_NOT_FOUND;
  CHECK_THROWS_WITH(sdk::register_kernel<&throwing_kernel>(&host.api, 7, "nope.out", 1),
                    "register_kernel(\"nope.out\") failed: not found");
}

namespace {

// A device type with one device and streams: memory is a counter of bytes.
class CountingBackend : public sdk::Backend<CountingBackend> {
 public:
  size_t live = 0;
  int32_t device_count() { return 1; }
  void properties(int32_t, plexus_device_properties& p) { sdk::copy_string(p.name, "counter"); }
  void* allocate(int32_t, size_t n) {
    if (n > 100) sdk::fail(PLEXUS_ERROR_OUT_OF_MEMORY, "only 100 bytes");
    live += n;
    return &live;
  }
  void deallocate(int32_t, void*, size_t n) { live -= n; }
  void memset(int32_t, void*, size_t, int32_t, size_t, void*) {}
  void copy_host_to_device(int32_t, void*, size_t, const void*, size_t, void*) {}
  void copy_device_to_host(int32_t, void*, const void*, size_t, size_t, void*) {}
  void copy_device_to_device(int32_t, void*, size_t, const void*, size_t, size_t, void*) {}
  void synchronize(int32_t) { throw std::runtime_error("device lost"); }
  void* stream_create(int32_t) { return this; }
  void stream_destroy(int32_t, void*) {}
  void stream_synchronize(int32_t, void*) {}
  void* event_create(int32_t) { return this; }
  void event_destroy(int32_t, void*) {}
  void event_record(int32_t, void*, void*) {}
  void event_wait(int32_t, void*, void*) {}
  void event_synchronize(int32_t, void*) {}
};

void counting_kernel(CountingBackend& b, const plexus_kernel_call&) {
  b.live += 1000;
}

int plain_kernel_calls = 0;
void plain_kernel(const plexus_kernel_call&) { ++plain_kernel_calls; }

// Events without streams: the groups of plugin.h's rule are independent.
class EventsOnlyBackend : public sdk::Backend<EventsOnlyBackend> {
 public:
  int32_t device_count() { return 1; }
  void properties(int32_t, plexus_device_properties&) {}
  void* allocate(int32_t, size_t) { return nullptr; }
  void deallocate(int32_t, void*, size_t) {}
  void memset(int32_t, void*, size_t, int32_t, size_t, void*) {}
  void copy_host_to_device(int32_t, void*, size_t, const void*, size_t, void*) {}
  void copy_device_to_host(int32_t, void*, const void*, size_t, size_t, void*) {}
  void copy_device_to_device(int32_t, void*, size_t, const void*, size_t, size_t, void*) {}
  void synchronize(int32_t) {}
  void* event_create(int32_t) { return this; }
  void event_destroy(int32_t, void*) {}
  void event_record(int32_t, void*, void*) {}
  void event_wait(int32_t, void*, void*) {}
  void event_synchronize(int32_t, void*) {}
};

}  // namespace

TEST_CASE("sdk::Backend fills streams and events as separate groups", "[sdk]") {
  FakeHost host;
  EventsOnlyBackend b;
  b.register_backend(&host.api, "events_only");
  const plexus_backend* t = host.backend;
  REQUIRE(t != nullptr);
  CHECK(t->stream_create == nullptr);
  CHECK(t->stream_destroy == nullptr);
  CHECK(t->stream_synchronize == nullptr);
  CHECK(t->event_create != nullptr);
  CHECK(t->event_synchronize != nullptr);
}

TEST_CASE("sdk::Backend registers kernels with and without the backend object", "[sdk]") {
  FakeHost host;
  CountingBackend b;
  b.register_backend(&host.api, "counter");
  std::vector<plexus_value> none;
  plexus_kernel_call call = make_call("neg.out", none);

  plain_kernel_calls = 0;
  b.register_kernel<&plain_kernel>("neg.out", 1);
  CHECK(host.kernel(host.kernel_user_data, &call) == PLEXUS_OK);
  CHECK(plain_kernel_calls == 1);

  b.register_kernel<&throwing_kernel>("abs.out", 1);
  CHECK(host.kernel(host.kernel_user_data, &call) == PLEXUS_ERROR_UNSUPPORTED);
  CHECK(host.last_error == "neg.out is not done yet");

  int raw_calls = 0;
  auto raw = [](void* ud, const plexus_kernel_call*) noexcept -> plexus_status {
    ++*static_cast<int*>(ud);
    return PLEXUS_ERROR_DEVICE;
  };
  b.register_kernel("exp.out", 1, raw, &raw_calls);
  CHECK(host.kernel(host.kernel_user_data, &call) == PLEXUS_ERROR_DEVICE);
  CHECK(raw_calls == 1);

  host.refuse = PLEXUS_ERROR_NOT_FOUND;
  CHECK_THROWS_WITH(b.register_kernel<&plain_kernel>("nope.out", 1),
                    "register_kernel(\"nope.out\") failed: not found");
}

TEST_CASE("sdk::Backend fills the backend table from a class's members", "[sdk]") {
  FakeHost host;
  CountingBackend b;
  b.register_backend(&host.api, "counter");
  CHECK(b.slot() == 7);
  const plexus_backend* t = host.backend;
  REQUIRE(t != nullptr);
  CHECK(t->struct_size == sizeof(plexus_backend));
  CHECK(std::string(t->name) == "counter");
  CHECK(t->device_count(t->user_data) == 1);
  CHECK(t->unavailable_reason == nullptr);  // CountingBackend has none
  CHECK(t->stream_create != nullptr);
  CHECK(t->event_wait != nullptr);

  plexus_device_properties p{};
  CHECK(t->get_properties(t->user_data, 0, &p) == PLEXUS_OK);
  CHECK(std::string(p.name) == "counter");
  void* ptr = nullptr;
  CHECK(t->allocate(t->user_data, 0, 40, &ptr) == PLEXUS_OK);
  CHECK(b.live == 40);
  CHECK(t->allocate(t->user_data, 0, 400, &ptr) == PLEXUS_ERROR_OUT_OF_MEMORY);
  CHECK(host.last_error == "only 100 bytes");
  t->deallocate(t->user_data, 0, ptr, 40);
  CHECK(b.live == 0);
  CHECK(t->synchronize(t->user_data, 0) == PLEXUS_ERROR_INTERNAL);
  CHECK(host.last_error == "device lost");

  b.register_kernel<&counting_kernel>("add.out", 1);
  std::vector<plexus_value> none;
  plexus_kernel_call call = make_call("add.out", none);
  CHECK(host.kernel(host.kernel_user_data, &call) == PLEXUS_OK);
  CHECK(b.live == 1000);
}

TEST_CASE("sdk::guard keeps the host's reason when a host call was refused", "[sdk]") {
  FakeHost host;
  host.refuse = PLEXUS_ERROR_NOT_FOUND;
  // The host sets its reason as it refuses; guard must not replace it.
  host.api.register_kernel = [](void* ctx, int32_t, const char* op, uint32_t, plexus_kernel_fn,
                                void*) {
    FakeHost::self(ctx).last_error = std::string("unknown op '") + op + "'";
    return FakeHost::self(ctx).refuse;
  };
  plexus_status st = sdk::guard(&host.api, [&] {
    sdk::register_kernel<&throwing_kernel>(&host.api, 1, "no_such.out", 1u);
  });
  CHECK(st == PLEXUS_ERROR_NOT_FOUND);
  CHECK(host.last_error == "unknown op 'no_such.out'");
}

TEST_CASE("sdk::check_cat refuses inputs that do not fit out, naming them", "[sdk]") {
  float buf[64] = {};
  std::vector<int64_t> out_sizes{2, 5}, out_strides{5, 1};
  std::vector<int64_t> a_sizes{2, 2}, b_sizes{2, 3}, bad_sizes{3, 3}, strides{8, 1};
  plexus_tensor out = make_tensor(buf, PLEXUS_DTYPE_F32, out_sizes, out_strides, 4);
  plexus_tensor a = make_tensor(buf, PLEXUS_DTYPE_F32, a_sizes, strides);
  plexus_tensor b = make_tensor(buf, PLEXUS_DTYPE_F32, b_sizes, strides);
  plexus_tensor bad = make_tensor(buf, PLEXUS_DTYPE_F32, bad_sizes, strides);
  auto message_of = [&](std::vector<plexus_tensor> in, int64_t dim) -> std::string {
    try {
      sdk::check_cat({in.data(), static_cast<int64_t>(in.size())}, dim, out);
    } catch (const sdk::Error& e) {
      CHECK(e.status() == PLEXUS_ERROR_INVALID_ARGUMENT);
      return e.what();
    }
    return "";
  };
  std::vector<plexus_tensor> good{a, b};
  CHECK(sdk::check_cat({good.data(), 2}, 1, out));
  CHECK_THAT(message_of({a, bad}, 1), Catch::Contains("tensors[1] does not fit out along dim 1"));
  CHECK_THAT(message_of({a, a}, 1), Catch::Contains("add up to 4, but out has 5"));
  CHECK_THAT(message_of({a, b}, 2), Catch::Contains("dim 2 is not a dim of out"));
  plexus_tensor f16 = b;
  f16.dtype = PLEXUS_DTYPE_F16;
  CHECK_THAT(message_of({a, f16}, 1), Catch::Contains("tensors[1]"));
  // An empty out needs nothing, whatever dim says.
  std::vector<int64_t> empty_sizes{0, 5};
  plexus_tensor empty = make_tensor(buf, PLEXUS_DTYPE_F32, empty_sizes, out_strides);
  CHECK_FALSE(sdk::check_cat({good.data(), 2}, 7, empty));
}

TEST_CASE("sdk::cat_slice is the part of out one input fills", "[sdk]") {
  float buf[64] = {};
  std::vector<int64_t> out_sizes{2, 5}, out_strides{5, 1}, b_sizes{2, 3}, strides{3, 1};
  plexus_tensor out = make_tensor(buf, PLEXUS_DTYPE_F32, out_sizes, out_strides, 4);
  plexus_tensor b = make_tensor(buf, PLEXUS_DTYPE_F32, b_sizes, strides);
  plexus_tensor s = sdk::cat_slice(out, b, 1, 2);
  CHECK(s.offset == 4 + 2);
  CHECK(s.sizes == b.sizes);
  CHECK(s.strides == out.strides);
  CHECK(s.storage == out.storage);
  CHECK(sdk::cat_slice(out, b, 0, 1).offset == 4 + 5);
}
