// Runs ops on toydev:0 through the installed libplexus, with the toydev
// template plugin loaded from the directory in argv[1]: kernels toydev has
// (add, mul, neg, sum, fill_, copy_), one it lacks for a dtype (fill_ of bool:
// the host's cpu fallback) and copies between devices. Prints each failed
// check; exits 1 if any failed.
#include <plexus/device_backend.h>
#include <plexus/dispatcher.h>
#include <plexus/ops.h>
#include <plexus/plugins.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace plexus;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// Checks the device of make()'s result, and its values (read back to the
// host) against `want`; an exception fails this check only.
template <typename T, typename Make>
void expect_values(const std::string& what, Make&& make, Device device,
                   const std::vector<T>& want) {
  std::vector<T> got;
  try {
    Tensor t = make();
    expect(t.device() == device,
           what + ": result on " + t.device().str() + ", not " + device.str());
    got = t.template tolist<T>();
  } catch (const std::exception& e) {
    expect(false, what + ": " + e.what());
    return;
  }
  bool same = got.size() == want.size();
  for (size_t i = 0; same && i < got.size(); ++i)
    same = std::fabs(double(got[i]) - double(want[i])) <= 1e-5 * (1 + std::fabs(double(want[i])));
  std::string text;
  for (T v : got) text += std::to_string(double(v)) + " ";
  expect(same, what + ": got [ " + text + "]");
}

bool fell_back(const std::string& op) {
  for (const FallbackCount& f : Dispatcher::get().fallback_counts())
    if (f.backend == "toydev" && f.op.find(op) != std::string::npos && f.count > 0) return true;
  return false;
}

void run_ops() {
  Device dev0 = Device::parse("toydev:0"), dev1 = Device::parse("toydev:1");
  expect(device_backend(dev0.type).device_count() == 2, "toydev has 2 devices");

  Tensor a = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).to(dev0);
  Tensor b = tensor<float>({10, 20, 30}).to(dev0);
  expect_values<float>("to(toydev:0)", [&] { return a; }, dev0, {1, 2, 3, 4, 5, 6});
  // Kernels, with broadcasting and the alpha argument handled by the host.
  expect_values<float>("add", [&] { return add(a, b, 2); }, dev0, {21, 42, 63, 24, 45, 66});
  expect_values<float>("mul", [&] { return mul(a, b); }, dev0, {10, 40, 90, 40, 100, 180});
  expect_values<float>("neg", [&] { return neg(a); }, dev0, {-1, -2, -3, -4, -5, -6});
  expect_values<float>("sum dim 1", [&] { return sum(a, std::vector<int64_t>{1}); }, dev0, {6, 15});
  expect_values<float>("sum all", [&] { return sum(a, std::nullopt, true); }, dev0, {21});
  expect_values<float>("fill_", [&] { return full({3}, 2.5, TensorOptions(DType::F32, dev0)); },
                       dev0, {2.5, 2.5, 2.5});
  // copy_ on the device: a strided view made contiguous, and a dtype change.
  expect_values<float>("copy_ of a transposed view", [&] { return a.t().contiguous(); }, dev0,
                       {1, 4, 2, 5, 3, 6});
  expect_values<int64_t>("copy_ to int64", [&] { return a.to(DType::I64); }, dev0,
                         {1, 2, 3, 4, 5, 6});
  expect_values<int64_t>("add int64", [&] { return add(a.to(DType::I64), a.to(DType::I64)); }, dev0,
                         {2, 4, 6, 8, 10, 12});
  // toydev has no fill_ kernel for bool: the host fills on the cpu and copies
  // the bytes back with toydev's copy functions.
  expect_values<uint8_t>(
      "fill_ bool (cpu fallback)",
      [&] { return full({2}, true, TensorOptions(DType::Bool, dev0)).to(DType::U8); }, dev0,
      {1, 1});
  expect(fell_back("fill_"), "fill_ of bool was counted as a cpu fallback for toydev");
  expect(!fell_back("add"), "add ran on toydev, not through the fallback");
  // The second device, and copies between the two.
  Tensor c = a.to(dev1);
  expect_values<float>("add on toydev:1", [&] { return add(c, c); }, dev1, {2, 4, 6, 8, 10, 12});
  expect_values<float>("toydev:1 -> toydev:0", [&] { return c.to(dev0); }, dev0,
                       {1, 2, 3, 4, 5, 6});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <directory with toydev.json>\n", argv[0]);
    return 2;
  }
  PluginLoadOptions options;
  options.search_paths = {argv[1]};
  options.use_environment = false;
  options.use_default_paths = false;
  bool loaded = false;
  for (const PluginRecord& r : load_plugins(options)) {
    std::printf("plugin %s: %s %s\n", r.name.c_str(), plugin_state_name(r.state), r.reason.c_str());
    loaded = loaded || (r.name == "toydev" && r.state == PluginRecord::State::Loaded);
  }
  if (!loaded) {
    std::fprintf(stderr, "FAIL: toydev did not load from %s\n", argv[1]);
    return 1;
  }
  try {
    run_ops();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    ++failures;
  }
  unload_plugins();
  std::printf("%s\n", failures ? "toydev checks FAILED" : "toydev checks passed");
  return failures ? 1 : 0;
}
