// How a library fast path (cuBLAS, cuDNN) takes over an op's registration
// and hands calls back to the own kernel (plugins/cuda/fast_path.cpp), with a
// fake host table: the routing cannot run on a GPU here, so it is checked on
// its own.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fast_path.h"

using namespace plexus;

namespace {

std::string g_error;
std::vector<std::string> g_ran;  // "own" / "fast", in call order
bool g_fast_takes = true;

void fake_set_error(void*, const char* message) {
  g_error = message;
}

plexus_host_api fake_host() {
  plexus_host_api h{};
  h.struct_size = sizeof(h);
  h.set_error_message = fake_set_error;
  return h;
}

void own_mm(const plexus_kernel_call&) {
  g_ran.push_back("own");
}
void own_relu(const plexus_kernel_call&) {
  g_ran.push_back("own relu");
}
bool fast_mm(const plexus_kernel_call& call) {
  if (call.device_index == 7) sdk::fail(PLEXUS_ERROR_DEVICE, "cublasGemmEx failed: test");
  if (!g_fast_takes) return false;
  g_ran.push_back("fast");
  return true;
}

// A family's kernel as GpuBackend::register_kernel passes it on.
template <void (*Fn)(const plexus_kernel_call&)>
gpu::KernelRef own(plexus_host_api& host) {
  return {&sdk::kernel_trampoline<Fn>, &host};
}

plexus_status call(const gpu::KernelRef& k, const char* op, plexus_dtype dtype,
                   int32_t device = 0) {
  plexus_kernel_call c{};
  c.struct_size = sizeof(c);
  c.op = op;
  c.dtype = dtype;
  c.device_index = device;
  return k(c);
}

}  // namespace

TEST_CASE("fast paths: a claimed op runs the fast path, and the own kernel for what it declines") {
  g_ran.clear();
  plexus_host_api host = fake_host();
  gpu::claim(
      {"mm.out", PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F16), fast_mm});
  gpu::KernelRef mm = gpu::route("mm.out", own<&own_mm>(host), &host);
  gpu::KernelRef relu = gpu::route("relu.out", own<&own_relu>(host), &host);
  // An op nobody claimed keeps its own kernel, unwrapped.
  CHECK(relu.fn == own<&own_relu>(host).fn);
  CHECK(mm.fn != own<&own_mm>(host).fn);

  g_fast_takes = true;
  CHECK(call(mm, "mm.out", PLEXUS_DTYPE_F32) == PLEXUS_OK);  // fast path's dtype
  CHECK(call(mm, "mm.out", PLEXUS_DTYPE_I32) == PLEXUS_OK);  // not the fast path's: own
  g_fast_takes = false;
  CHECK(call(mm, "mm.out", PLEXUS_DTYPE_F32) == PLEXUS_OK);      // declined (layout): own
  CHECK(call(relu, "relu.out", PLEXUS_DTYPE_F32) == PLEXUS_OK);  // unclaimed op: own, directly
  CHECK(g_ran == std::vector<std::string>{"fast", "own", "own", "own relu"});

  // A fast path's failure reaches the host as a status and its message.
  g_error.clear();
  CHECK(call(mm, "mm.out", PLEXUS_DTYPE_F32, 7) == PLEXUS_ERROR_DEVICE);
  CHECK(g_error == "cublasGemmEx failed: test");

  // A second claim of one op is a bug in the plugin, refused.
  CHECK_THROWS_WITH(gpu::claim({"mm.out", 0, fast_mm}), Catch::Contains("claimed twice"));
  gpu::clear_fast_paths();
}
