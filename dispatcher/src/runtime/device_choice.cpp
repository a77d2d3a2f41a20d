#include "runtime/device_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "plexus/coverage.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"

namespace plexus {
namespace {

using State = DeviceCandidate::State;

// The backends every user may look for; named "not installed" when absent.
const std::vector<std::string> kStandardTypes = {"cpu", "cuda", "hip", "vulkan"};

// How many of the catalog's ops that need a kernel (no composite) a backend
// has one for. Note [Partial backends]: a backend with fewer than half of
// them (a two-op plugin declared as an accelerator) is never a policy's
// choice over one with more, and explain() says so when it is chosen anyway.
struct KernelShare {
  size_t native = 0, needed = 0;
  bool partial() const { return native * 2 < needed; }
  std::string str() const {
    return partial() ? fmt::format("kernels for {} of the {} ops that need one", native, needed)
                     : std::string();
  }
};

KernelShare kernel_share(DeviceType type) {
  KernelShare k;
  for (const Operator* op : Dispatcher::get().ops()) {
    if (&op->kernel_op() != op || op->name().find("::") != std::string::npos) continue;
    Route r = coverage(*op, type).route();
    if (r == Route::Composite) continue;
    ++k.needed;
    if (r == Route::Native) ++k.native;
  }
  return k;
}

// A device some backend offers.
struct Offer {
  Device device;
  std::string type;
  DeviceProperties props;
  KernelShare share;
};

std::string gib(size_t bytes) {
  return fmt::format("{:.1f} GiB", bytes / double(1ull << 30));
}

// The loaded plugin that registered `type`, if any.
const PluginRecord* provider(const std::vector<PluginRecord>& plugins, const std::string& type) {
  for (const PluginRecord& p : plugins)
    if (p.state == PluginRecord::State::Loaded &&
        std::find(p.device_types.begin(), p.device_types.end(), type) != p.device_types.end())
      return &p;
  return nullptr;
}

// What is known about the device types and plugins of this process.
struct Survey {
  std::vector<Offer> offers;                 // every device, in slot then index order
  std::vector<DeviceCandidate> unavailable;  // types without devices, plugins not loaded
  std::set<std::string> known;               // names of types and plugins seen
};

// Plugins that were found but not loaded (failed, denied, shadowed), as candidates.
void add_unloaded_plugins(const std::vector<PluginRecord>& plugins, Survey& s) {
  for (const PluginRecord& p : plugins) {
    if (p.state == PluginRecord::State::Loaded) continue;
    std::string name = p.name.empty() ? p.manifest : p.name;
    s.known.insert(name);
    State state = p.state == PluginRecord::State::Failed ? State::Failed : State::Excluded;
    std::string reason =
        p.state == PluginRecord::State::Failed ? "plugin failed to load: " + p.reason : p.reason;
    s.unavailable.push_back({name, std::nullopt, "", state, reason});
  }
}

Survey survey(const std::vector<PluginRecord>& plugins) {
  Survey s;
  std::vector<std::string> names = registered_device_types();
  for (size_t slot = 0; slot < names.size(); ++slot) {
    DeviceBackend* b = find_device_backend(static_cast<DeviceType>(slot));
    if (!b) continue;
    const std::string& type = names[slot];
    s.known.insert(type);
    const PluginRecord* p = provider(plugins, type);
    std::string source = p ? "plugin " + p->name + " loaded" : "registered in-process";
    int n = 0;
    std::string why;
    std::vector<Offer> offers;  // all of the type's devices, or none if one fails
    try {
      n = b->device_count();
      if (n == 0) why = b->unavailable_reason();
      KernelShare share = n > 0 ? kernel_share(static_cast<DeviceType>(slot)) : KernelShare{};
      for (int i = 0; i < n; ++i)
        offers.push_back({Device(static_cast<DeviceType>(slot), static_cast<int16_t>(i)), type,
                          b->properties(i), share});
    } catch (const std::exception& e) {
      n = 0;
      why = e.what();
    }
    if (n > 0) s.offers.insert(s.offers.end(), offers.begin(), offers.end());
    if (n == 0)
      s.unavailable.push_back({type, std::nullopt, "", State::NoDevices,
                               fmt::format("{}, 0 devices: {}", source,
                                           why.empty() ? "the backend reports none" : why)});
  }
  add_unloaded_plugins(plugins, s);
  return s;
}

// 0 is best. prefer_cpu puts cpu first; otherwise gpu, accelerator, cpu, emulated:
// emulated devices run on the host, slower than the cpu plugin's native kernels.
int kind_rank(const std::string& kind, DevicePolicy policy) {
  if (policy == DevicePolicy::PreferCpu && kind == "cpu") return -1;
  if (kind == "gpu") return 0;
  if (kind == "accelerator") return 1;
  if (kind == "cpu") return 2;
  return 3;
}

// Whether `a` ranks before `b` under `policy`; `why` (if given) gets the
// reason `b` lost to `a`.
bool ranks_before(const Offer& a, const Offer& b, DevicePolicy policy, std::string* why = nullptr) {
  auto say = [&](std::string text) {
    if (why) *why = std::move(text);
    return true;
  };
  if (a.share.partial() != b.share.partial()) {  // Note [Partial backends]
    if (a.share.partial()) return false;
    return say(fmt::format("its backend has only {}; policies rank such devices below those "
                           "with more",
                           b.share.str()));
  }
  if (policy == DevicePolicy::MostMemory && a.props.total_memory != b.props.total_memory) {
    if (a.props.total_memory < b.props.total_memory) return false;
    return say(fmt::format("less memory ({}) than {} ({})", gib(b.props.total_memory),
                           a.device.str(), gib(a.props.total_memory)));
  }
  int ra = kind_rank(a.props.kind, policy), rb = kind_rank(b.props.kind, policy);
  const char* name = device_policy_name(policy);
  if (ra != rb) {
    if (ra > rb) return false;
    return say(
        fmt::format("{} ranks {} devices above {} devices", name, a.props.kind, b.props.kind));
  }
  if (a.device.type != b.device.type) {
    if (b.device.type == kCPU || (a.device.type != kCPU && a.device.type > b.device.type))
      return false;
    return say(
        a.device.type == kCPU
            ? fmt::format("both are {} devices; the host cpu comes first (no copies)", a.props.kind)
            : fmt::format("both are {} devices; {} was registered first", a.props.kind, a.type));
  }
  if (a.device.index >= b.device.index) return false;
  return say(fmt::format("{} comes first among the {} devices", a.device.str(), a.type));
}

// "TYPE" or "TYPE:INDEX", checked by the config parser already.
std::pair<std::string, int> split_device(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, 0};
  return {text.substr(0, colon), std::stoi(text.substr(colon + 1))};
}

// Why no device of `type` (at `index`, or any when index < 0) is available.
std::string why_unavailable(const Survey& s, const std::string& type, int index,
                            const std::vector<PluginRecord>& plugins) {
  std::vector<std::string> of_type;
  for (const Offer& o : s.offers)
    if (o.type == type) of_type.push_back(o.device.str());
  if (!of_type.empty())
    return fmt::format("index {} is out of range: {} has {} device(s) ({})", index, type,
                       of_type.size(), fmt::join(of_type, ", "));
  for (const DeviceCandidate& c : s.unavailable)
    if (c.name == type) return c.reason;
  std::vector<std::string> types;
  for (const Offer& o : s.offers)
    if (std::find(types.begin(), types.end(), o.type) == types.end()) types.push_back(o.type);
  return fmt::format(
      "not installed: no plugin on the search path provides '{}' ({} plugin(s) "
      "found; types with devices: {})",
      type, plugins.size(), types.empty() ? "none" : fmt::format("{}", fmt::join(types, ", ")));
}

std::string origin_of(const Config& c, const std::string& key) {
  auto it = c.origins.find(key);
  return it == c.origins.end() ? "the built-in default" : it->second.str();
}

// The candidates in order, with the chosen one's reason and every other's.
DeviceChoice finish(Survey& s, const std::vector<Offer>& ranked, const std::string& chosen_why,
                    const std::function<std::string(const Offer&)>& why_not) {
  DeviceChoice out;
  out.device = ranked.front().device;
  for (const Offer& o : ranked) {
    bool chosen = o.device == out.device;
    out.candidates.push_back({o.device.str(), o.device, o.props.kind,
                              chosen ? State::Chosen : State::NotChosen,
                              chosen ? chosen_why : why_not(o), o.props.name, o.share.str()});
  }
  for (DeviceCandidate& c : s.unavailable) out.candidates.push_back(std::move(c));
  for (const std::string& type : kStandardTypes)
    if (!s.known.count(type))
      out.candidates.push_back({type, std::nullopt, "", State::NotInstalled,
                                "not installed (no plugin on the search path provides it)"});
  return out;
}

DeviceChoice explicit_device(const Config& c, Survey& s, const std::vector<PluginRecord>& plugins) {
  auto [type, index] = split_device(c.device);
  std::string origin = origin_of(c, "runtime.device");
  auto hit = std::find_if(s.offers.begin(), s.offers.end(),
                          [&, &type = type, &index = index](const Offer& o) {
                            return o.type == type && o.device.index == index;
                          });
  if (hit == s.offers.end())
    fail(ErrorCode::NotFound, "device {} (set by {}) is not available: {}: {}", c.device, origin,
         type, why_unavailable(s, type, index, plugins));
  std::vector<Offer> ranked = {*hit};
  for (const Offer& o : s.offers)
    if (!(o.device == hit->device)) ranked.push_back(o);
  std::string chosen = hit->device.str();
  return finish(
      s, ranked, fmt::format("runtime.device = \"{}\" ({})", c.device, origin),
      [&](const Offer&) { return fmt::format("not the configured device ({})", chosen); });
}

DeviceChoice preferred(const Config& c, Survey& s, const std::vector<PluginRecord>& plugins) {
  std::string origin = origin_of(c, "runtime.prefer");
  auto position = [&](const std::string& type) {
    return std::find(c.prefer.begin(), c.prefer.end(), type) - c.prefer.begin();
  };
  std::vector<Offer> ranked = s.offers;
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Offer& a, const Offer& b) {
    return position(a.type) < position(b.type);
  });
  if (ranked.empty() || position(ranked.front().type) == static_cast<long>(c.prefer.size())) {
    std::vector<std::string> why;
    for (const std::string& type : c.prefer)
      why.push_back(type + ": " + why_unavailable(s, type, -1, plugins));
    fail(ErrorCode::NotFound,
         "no device type in runtime.prefer ({}) has a device; {}. Add \"cpu\" to the list to "
         "fall back to the host",
         origin, fmt::join(why, "; "));
  }
  const Offer& best = ranked.front();
  // Earlier types in the list that had no device, said once in the chosen reason.
  std::vector<std::string> skipped;
  for (const std::string& type : c.prefer) {
    if (type == best.type) break;
    skipped.push_back(type);
  }
  std::string why = fmt::format("first device of '{}' in runtime.prefer ({})", best.type, origin);
  if (!skipped.empty())
    why += fmt::format("; earlier types have no device: {}", fmt::join(skipped, ", "));
  return finish(s, ranked, why, [&](const Offer& o) {
    if (position(o.type) == static_cast<long>(c.prefer.size()))
      return std::string("not in runtime.prefer");
    if (o.type != best.type)
      return fmt::format("{} is lower in runtime.prefer than {}", o.type, best.type);
    return fmt::format("{} comes first among the {} devices", best.device.str(), o.type);
  });
}

DeviceChoice by_policy(const Config& c, Survey& s) {
  std::vector<Offer> ranked = s.offers;
  PLEXUS_CHECK(!ranked.empty(), ErrorCode::NotFound, "no device is available at all");
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const Offer& a, const Offer& b) { return ranks_before(a, b, c.policy); });
  const Offer& best = ranked.front();
  std::string why =
      fmt::format("policy {} ({})", device_policy_name(c.policy), origin_of(c, "runtime.policy"));
  if (c.policy == DevicePolicy::MostMemory)
    why += fmt::format(": it has the most memory ({})", gib(best.props.total_memory));
  else if (c.policy == DevicePolicy::PreferCpu)
    why += " ranks it first (the host cpu, then gpu, accelerator, cpu, emulated devices)";
  else
    why += " ranks it first (gpu, then accelerator, cpu, emulated devices)";
  return finish(s, ranked, why, [&](const Offer& o) {
    std::string reason;
    ranks_before(best, o, c.policy, &reason);
    return reason;
  });
}

}  // namespace

DeviceChoice choose_device(const Config& config, const std::vector<PluginRecord>& plugins) {
  Survey s = survey(plugins);
  DeviceChoice choice = !config.device.empty()   ? explicit_device(config, s, plugins)
                        : !config.prefer.empty() ? preferred(config, s, plugins)
                                                 : by_policy(config, s);
  // Host memory is the core's; without the cpu plugin, ops on the cpu have no kernels.
  if (!provider(plugins, "cpu"))
    for (DeviceCandidate& c : choice.candidates)
      if (c.device && c.device->type == kCPU)
        c.reason += " (host memory only: no cpu plugin is loaded, so ops on it have no kernels)";
  return choice;
}

}  // namespace plexus
