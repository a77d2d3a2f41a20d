#include "runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <barrier>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "crash.h"
#include "engine.h"
#include "plexus/autograd.h"
#include "plexus/device_backend.h"
#include "plexus/dispatcher.h"
#include "plexus/error.h"
#include "plexus/plugins.h"
#include "progress.h"
#include "report.h"
#include "runtime_checks.h"

namespace plexus::conformance {

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::Unsupported: return "unsupported";
    case Status::XFail: return "xfail";
    case Status::XPass: return "xpass";
  }
  return "?";
}

std::string Result::id() const {
  if (op == "runtime") return op + "/" + name;
  std::string s = op + "/" + dtype;
  if (!name.empty()) s += "/" + name;
  if (!variant.empty()) s += "/" + variant;
  return s;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+,@") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with one backtrack point for the last '*'.
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool XFailEntry::covers(const std::string& op_name, const std::string& dt, const std::string& name) const {
  return glob_match(op_glob(), op_name) && glob_match(dtype, dt) && (name.empty() || glob_match(case_glob(), name));
}

std::vector<XFailEntry> parse_xfail(const std::string& text, const std::string& path) {
  std::vector<XFailEntry> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    std::istringstream fields(line.substr(b));
    XFailEntry e;
    e.line = n;
    fields >> e.op >> e.dtype;
    std::getline(fields, e.reason);
    size_t r = e.reason.find_first_not_of(" \t");
    e.reason = r == std::string::npos ? "" : e.reason.substr(r);
    while (!e.reason.empty() && (e.reason.back() == '\r' || e.reason.back() == ' ')) e.reason.pop_back();
    if (e.dtype.empty() || e.reason.empty())
      fail(ErrorCode::InvalidArgument,
           "{}:{}: expected '<op> <dtype> <reason>' (the reason says why the case fails), got '{}'",
           path, n, line.substr(b));
    if (e.dtype != "*" && e.op != "runtime" && e.dtype.find_first_of("*?") == std::string::npos &&
        !dtype_from_name(e.dtype))
      fail(ErrorCode::InvalidArgument, "{}:{}: '{}' is not a dtype name (float32, int64, ... or *)",
           path, n, e.dtype);
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

// Finds the plugin the user named and loads it alone.
struct Loaded {
  PluginRecord record;
  std::string error;  // why it could not be loaded
  bool usage = false; // the error is the user's (no such plugin), not the plugin's
};

Loaded load(const std::string& spec) {
  namespace fs = std::filesystem;
  PluginLoadOptions lo;
  std::string name = spec;
  // A path: with a slash, a manifest or library name, or a directory here
  // that holds a manifest (`--plugin build`); otherwise a plugin name.
  auto holds_manifest = [](const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return false;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".json") return true;
    return false;
  };
  bool is_path = spec.find('/') != std::string::npos || spec.ends_with(".json") ||
                 spec.ends_with(".so") || holds_manifest(spec);
  if (is_path) {
    fs::path p(spec);
    std::error_code ec;
    if (!fs::exists(p, ec)) return {{}, "no file or directory '" + spec + "'", true};
    fs::path manifest;
    if (fs::is_directory(p)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.path().extension() == ".json") found.push_back(e.path());
      if (found.size() != 1)
        return {{}, fmt::format("'{}' holds {} plugin manifests (*.json); name one of them", spec, found.size()), true};
      manifest = found[0];
    } else if (p.extension() == ".json") {
      manifest = p;
    } else {
      // libplexus-<name>.so beside <name>.json
      std::string stem = p.stem().string();
      if (stem.rfind("libplexus-", 0) == 0) stem = stem.substr(10);
      manifest = p.parent_path() / (stem + ".json");
      if (!fs::exists(manifest, ec))
        return {{}, "no manifest " + manifest.string() + " beside " + spec, true};
    }
    try {
      std::ifstream f(manifest);
      nlohmann::json j = nlohmann::json::parse(f);
      name = j.at("name").get<std::string>();
    } catch (const std::exception& e) {
      return {{}, "cannot read the plugin name from " + manifest.string() + ": " + e.what(), false};
    }
    lo.search_paths = {fs::absolute(manifest.parent_path()).string()};
    lo.use_environment = false;
    lo.use_default_paths = false;
  }
  lo.allow = {name};
  std::vector<PluginRecord> records = load_plugins(lo);
  for (const PluginRecord& r : records) {
    if (r.name != name || r.state == PluginRecord::State::Shadowed) continue;
    if (r.state == PluginRecord::State::Loaded) return {r, "", false};
    return {r, fmt::format("plugin '{}' ({}) did not load: {}", name, r.manifest, r.reason), false};
  }
  std::string where;
  for (const std::string& d : plugin_search_path(lo)) where += "\n  " + d;
  return {{}, fmt::format("no plugin named '{}' on the search path:{}", name, where), true};
}

// Prints failures as they happen (a few per op and dtype), and the progress:
// a bar on a terminal, one line per op otherwise.
class Printer {
 public:
  Printer(const Options& o, std::string rerun_prefix)
      : rerun_(std::move(rerun_prefix)),
        limit_(o.failures_shown),
        progress_(std::cout, o.progress_tty, cli::Progress::terminal_width()) {}

  void failure(const Result& r) {
    std::string key = r.op + "/" + r.dtype;
    int& n = shown_[key];
    if (limit_ > 0 && ++n > limit_) {
      if (n == limit_ + 1)
        print(fmt::format("     (more failures of {} follow; only the first {} are printed: "
                          "--failures 0 prints all, --json holds all)",
                          key, limit_));
      return;
    }
    std::string s = fmt::format("{} {}", r.status == Status::XPass ? "XPASS" : "FAIL", r.id());
    if (!r.shape.empty()) s += "  " + r.shape;
    s += "\n     " + r.message;
    if (!r.name.empty() || r.op == "runtime")
      s += "\n     re-run: " + rerun_ + " --filter " + shell_quote(r.id());
    print(s);
  }

  // The bar (a terminal only): `done` of `total` ops, and what runs now.
  void step(size_t done, size_t total, const std::string& what) { progress_.update(done, total, what); }
  // One op's summary: a line of its own without a terminal, else on the bar.
  void op_done(size_t done, size_t total, const std::string& summary) {
    if (progress_.tty()) progress_.update(done, total, summary);
    else progress_.line(summary);
  }
  void print(const std::string& s) { progress_.line(s); }
  void finish() { progress_.clear(); }

 private:
  std::string rerun_;
  int limit_;  // failures printed per op and dtype; 0: all
  std::map<std::string, int> shown_;
  cli::Progress progress_;
};

// The case with the elements of each tensor input shuffled: the same kinds
// of values (valid indices stay valid, positive inputs positive), different
// results, so that threads computing at once do not write equal values.
Case shuffled(const Case& c, uint64_t seed) {
  Case s = c;
  Rng rng(seed);
  auto shuffle = [&](ref::Tensor& v) {
    for (int64_t k = v.numel() - 1; k > 0; --k) {
      auto j = static_cast<size_t>(rng.integer(0, k));
      std::swap(v.f[static_cast<size_t>(k)], v.f[j]);
      if (!v.i.empty()) std::swap(v.i[static_cast<size_t>(k)], v.i[j]);
    }
  };
  for (auto& [name, a] : s.args) {
    if (auto* t = std::get_if<TensorArg>(&a)) shuffle(t->values);
    else if (auto* l = std::get_if<std::vector<TensorArg>>(&a))
      for (TensorArg& e : *l) shuffle(e.values);
  }
  return s;
}

// The threads variant: 8 threads run the case at once, each with its own
// values (thread 0 the case's own, the others shuffled), starting each of
// several rounds together.
// `partner`: for threads_mixed, the case the odd threads run instead (another
// shape of the same op and dtype), so that calls of different shapes overlap.
void run_threads(const Target& tg, const OpForms& forms, const Case& base, uint64_t seed, Result& r,
                 const Case* partner = nullptr) {
  // Mixed shapes need overlap, not repetition: half the rounds (the suite's
  // time on the cpu plugin grows by a third with 6).
  constexpr int kThreads = 8;
  const int kRounds = partner ? 3 : 6;
  std::vector<std::string> errors(kThreads);
  std::vector<double> abs_err(kThreads), ulp_err(kThreads);
  std::barrier sync(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::optional<Case> c;
      std::optional<Expected> want;
      std::string variant;
      try {
        const Case& mine = partner && t % 2 == 1 ? *partner : base;
        c = t == 0 ? base : shuffled(mine, seed * 0x100000001b3ull + static_cast<uint64_t>(t));
        want = c->reference(logical_inputs(*c));
        variant = variants_of(forms, *c, &*want).front();
      } catch (const std::exception& e) {
        errors[t] = fmt::format("thread {}: {}", t, e.what());
      }
      for (int round = 0; round < kRounds; ++round) {
        sync.arrive_and_wait();  // every round starts together
        if (!errors[t].empty()) continue;
        try {
          Result one;
          run_variant(tg, forms, *c, variant, &*want, one);
          abs_err[t] = std::max(abs_err[t], one.max_abs_err);
          ulp_err[t] = std::max(ulp_err[t], one.max_ulp_err);
          if (one.status != Status::Pass)
            errors[t] = fmt::format("thread {} of {}, round {}: {}", t, kThreads, round, one.message);
        } catch (const std::exception& e) {
          errors[t] = fmt::format("thread {}, round {}: {}", t, round, e.what());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  r.status = Status::Pass;
  for (int t = 0; t < kThreads; ++t) {
    r.max_abs_err = std::max(r.max_abs_err, abs_err[t]);
    if (partner && !errors[t].empty() && t % 2 == 1)
      errors[t] += fmt::format(" (this thread ran {}, the even threads {})", partner->name, base.name);
    r.max_ulp_err = std::max(r.max_ulp_err, ulp_err[t]);
    if (!errors[t].empty() && r.status == Status::Pass) {
      r.status = Status::Fail;
      r.message = "wrong under " + std::to_string(kThreads) + " concurrent threads: " + errors[t];
    }
  }
}

// Marks failures covered by the xfail file and adds xpass/stale results.
void apply_xfail(std::vector<XFailEntry>& entries, std::vector<Result>& results,
                 const std::set<std::pair<std::string, std::string>>& pairs_run,
                 const std::set<std::pair<std::string, std::string>>& pairs_known, bool full_run,
                 bool report_stale, const std::string& path) {
  auto matches = [](const XFailEntry& e, const std::string& op, const std::string& dt) {
    return e.covers(op, dt, "");
  };
  for (Result& r : results) {
    std::string key_dt = r.op == "runtime" ? r.name : r.dtype;
    for (XFailEntry& e : entries) {
      if (!e.covers(r.op, key_dt, r.op == "runtime" ? "" : r.name)) continue;
      e.matched = true;
      if (r.status == Status::Fail) {
        r.status = Status::XFail;
        r.message = fmt::format("expected failure ({}:{}: {}): {}", path, e.line, e.reason, r.message);
        e.failed = true;
      }
      break;
    }
  }
  for (XFailEntry& e : entries) {
    if (e.failed || !report_stale) continue;
    bool known = false, run = false;
    for (const auto& [op, dt] : pairs_known) known |= matches(e, op, dt);
    for (const auto& [op, dt] : pairs_run) run |= matches(e, op, dt);
    // With --filter an entry's other cases did not run: only a line naming
    // nothing at all can be judged.
    if (known && !full_run) continue;
    Result x;
    x.op = e.op;
    x.dtype = e.dtype;
    x.status = Status::XPass;
    if (!known)
      x.message = fmt::format("{}:{}: '{} {}' names no op and dtype of the catalog or runtime check; remove or fix the line",
                              path, e.line, e.op, e.dtype);
    else if (!run)
      x.message = fmt::format("{}:{}: '{} {}' is listed as an expected failure, but the plugin registers no kernel for it; remove the line",
                              path, e.line, e.op, e.dtype);
    else
      x.message = fmt::format("{}:{}: '{} {}' is listed as an expected failure ({}), but every case passed; remove the line",
                              path, e.line, e.op, e.dtype, e.reason);
    results.push_back(x);
  }
}

}  // namespace

std::string device_report_path(const std::string& path, int device) {
  if (path.empty() || device == 0) return path;
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  return path.substr(0, dot) + ".device" + std::to_string(device) + path.substr(dot);
}

int run(const Options& opts, int* device_count) {
  if (device_count) *device_count = 0;
  auto t0 = Clock::now();
  Loaded loaded = load(opts.plugin);
  if (!loaded.error.empty()) {
    std::fprintf(stderr, "plexus-conformance: %s\n", loaded.error.c_str());
    return loaded.usage ? 2 : 1;
  }
  // The expected failures: given, or shipped beside the plugin's manifest
  // (plexus_add_plugin's XFAIL). A shipped list is about results: --grad and
  // --composites runs, which check other things, leave it alone.
  std::string xfail_path = opts.xfail;
  bool shipped = false;
  if (xfail_path.empty() && !opts.no_xfail && !opts.grad && !opts.composites) {
    std::error_code ec;
    auto beside = std::filesystem::path(loaded.record.manifest).parent_path() /
                  (loaded.record.name + ".xfail");
    if (std::filesystem::exists(beside, ec)) xfail_path = beside.string(), shipped = true;
  }
  std::vector<XFailEntry> xfail;
  if (!xfail_path.empty()) {
    std::ifstream f(xfail_path);
    if (!f) {
      std::fprintf(stderr, "plexus-conformance: cannot read the xfail file '%s'\n", xfail_path.c_str());
      return 2;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    try {
      xfail = parse_xfail(ss.str(), xfail_path);
    } catch (const Error& e) {
      std::fprintf(stderr, "plexus-conformance: %s\n", e.what());
      return 2;
    }
  }

  const PluginRecord& rec = loaded.record;
  if (rec.device_types.empty()) {
    std::fprintf(stderr, "plexus-conformance: plugin '%s' registered no backend\n", rec.name.c_str());
    return 1;
  }
  Dispatcher& disp = Dispatcher::get();
  disp.set_fallback_policy(FallbackPolicy::Error);

  std::string rerun = shell_quote(opts.executable) + " --plugin " + shell_quote(opts.plugin) +
                      " --device " + std::to_string(opts.device) + " --seed " + std::to_string(opts.seed);
  if (!shipped && !xfail_path.empty()) rerun += " --xfail " + shell_quote(xfail_path);
  if (opts.no_xfail) rerun += " --no-xfail";
  if (opts.grad) rerun += " --grad";
  if (opts.composites) rerun += " --composites";
  Printer printer(opts, rerun);

  // The plugin's first backend is the one under test (plugins register one).
  Target tg;
  tg.backend_name = rec.device_types.front();
  DeviceType type = *find_device_type(tg.backend_name);
  tg.backend = find_device_backend(type);
  tg.device = Device(type, static_cast<int16_t>(opts.device));
  int count = tg.backend ? tg.backend->device_count() : 0;
  if (device_count) *device_count = count;

  std::vector<Result> results;
  ReportInfo info;
  info.plugin = rec.name;
  info.plugin_version = rec.version;
  info.backend = tg.backend_name;
  info.device = tg.device.str();
  info.seed = opts.seed;

  if (count == 0) {
    std::string reason = tg.backend ? tg.backend->unavailable_reason() : "no device backend";
    if (reason.empty()) reason = "the backend reports no devices";
    info.skip_reason = fmt::format("plugin '{}' has no {} device on this machine: {}", rec.name,
                                   tg.backend_name, reason);
    std::printf("%s\n", info.skip_reason.c_str());
    std::printf("0 passed, 0 failed, 1 skipped\n");
    write_reports(opts, info, results);
    return 77;
  }
  if (opts.device < 0 || opts.device >= count) {
    std::fprintf(stderr, "plexus-conformance: --device %d: plugin '%s' has %d %s device(s) (0..%d)\n",
                 opts.device, rec.name.c_str(), count, tg.backend_name.c_str(), count - 1);
    return 2;
  }
  DeviceProperties props = tg.backend->properties(opts.device);
  info.device_name = props.name;
  info.composites = opts.composites;
  info.filter = opts.filter;
  tg.composites = opts.composites;
  if (!opts.list && !opts.progress_tty) {
    std::printf("plexus-conformance: plugin %s %s, device %s (%s), seed %llu\n", rec.name.c_str(),
                rec.version.c_str(), tg.device.str().c_str(), props.name.c_str(),
                static_cast<unsigned long long>(opts.seed));
    if (shipped)
      std::printf("expected failures: %s (shipped with the plugin; --no-xfail ignores them)\n",
                  xfail_path.c_str());
  }

  std::map<std::string, const OpInfo*> infos;
  std::vector<OpInfo> all = all_op_infos();
  for (const OpInfo& oi : all) infos[oi.op] = &oi;

  // Kernel ops, and the direct composites (matmul, mse_loss) the suite has
  // cases for: a --composites run checks them on the plugin's device, a plain
  // run only where the plugin registers a kernel for one.
  std::vector<const Operator*> kernel_ops;
  for (const Operator* op : disp.ops()) {
    if (&op->kernel_op() != op) continue;
    if (op->kind() == OpKind::Direct &&
        (!infos.count(op->name()) || !(op->kernel(type) || (opts.composites && op->composite()))))
      continue;
    kernel_ops.push_back(op);
  }

  std::set<std::pair<std::string, std::string>> pairs_run, pairs_known;
  size_t op_no = 0;
  for (const Operator* kop : kernel_ops) {
    ++op_no;
    const std::string& opname = kop->name();
    const KernelEntry* entry = kop->kernel(type);
    OpForms forms = forms_of(*kop);
    auto it = infos.find(opname);
    auto op_t0 = Clock::now();
    size_t before = results.size();
    for (int d = 0; d < kNumDTypes; ++d) {
      DType dt = static_cast<DType>(d);
      // Direct composites have no catalog dtypes: the suite's entry lists them.
      const DTypeSet dtypes = kop->catalog_dtypes().empty() && it != infos.end()
                                  ? it->second->dtypes
                                  : kop->catalog_dtypes();
      if (!dtypes.contains(dt)) continue;
      // --grad: float32 and float64 of the ops autograd has rules for.
      if (opts.grad && ((dt != DType::F32 && dt != DType::F64) || !forms.functional ||
                        autograd::differentiable(*forms.functional) != autograd::Differentiable::Yes))
        continue;
      bool registered = entry && entry->dtypes.contains(dt);
      // --composites: only the pairs the catalog's composite serves.
      if (opts.composites && (registered || !kop->composite())) continue;
      std::string dname(dtype_name(dt));
      pairs_known.insert({opname, dname});
      CoverageCell& cell = info.cells[{opname, dname}];
      cell.in_catalog = true;
      cell.composite = opts.composites;
      if (!registered && !opts.composites) {
        cell.registered = false;
        if (opts.list) continue;
        if (!glob_match(opts.filter, opname + "/" + dname) && !glob_match(opts.filter, opname + "/" + dname + "/*/*"))
          continue;
        Result r;
        r.op = opname;
        r.dtype = dname;
        r.status = Status::Unsupported;
        r.message = fmt::format("plugin registers no {} kernel for {}", opname, dname);
        results.push_back(r);
        continue;
      }
      cell.registered = registered;
      if (it == infos.end()) continue;  // the suite has no cases for this op: uncovered
      CaseSet set(opts.seed, opname, dt);
      try {
        it->second->generate(set);
      } catch (const std::exception& e) {
        Result r;
        r.op = opname;
        r.dtype = dname;
        r.name = "generate";
        r.status = Status::Fail;
        r.message = std::string("the suite could not generate the cases (a bug in the suite): ") + e.what();
        results.push_back(r);
        printer.failure(results.back());
        continue;
      }
      // The partner of threads_mixed: a case of another shape that runs
      // without error, the first of these names the set has.
      const Case* partner = nullptr;
      for (const char* name : {"prime_2d", "large", "rows", "odd", "prime", "square"})
        for (const Case& p : set.cases())
          if (!partner && p.name == name && !p.expect_error && !p.stress) partner = &p;
      for (const Case& c : set.cases()) {
        std::string prefix = opname + "/" + dname + "/" + c.name + "/";
        const bool mixed = c.stress && partner && describe_inputs(*partner) != describe_inputs(c);
        // The variants are only known once the expected result is; compute it lazily.
        std::optional<Expected> want;
        std::string ref_error;
        auto expected = [&]() -> const Expected* {
          if (c.expect_error) return nullptr;
          if (!want && ref_error.empty()) {
            try {
              want = c.reference(logical_inputs(c));
            } catch (const std::exception& e) {
              ref_error = e.what();
            }
          }
          return want ? &*want : nullptr;
        };
        std::vector<std::string> variants = {"functional", "out", "inplace", "out_self",
                                             "out_other", "direct"};
        if (opts.grad) variants = {"grad"};
        bool any = false;
        for (const std::string& v : variants) any |= glob_match(opts.filter, prefix + v);
        if (c.stress) any |= glob_match(opts.filter, prefix + "threads");
        if (mixed) any |= glob_match(opts.filter, prefix + "threads_mixed");
        if (!any) continue;
        if (opts.list) {
          for (const std::string& v : opts.grad ? (grad_applies(forms, c, dt) ? variants
                                                                            : std::vector<std::string>{})
                                                : variants_of(forms, c, expected()))
            if (glob_match(opts.filter, prefix + v)) std::printf("%s%s\n", prefix.c_str(), v.c_str());
          if (c.stress && glob_match(opts.filter, prefix + "threads")) std::printf("%sthreads\n", prefix.c_str());
          if (mixed && glob_match(opts.filter, prefix + "threads_mixed"))
            std::printf("%sthreads_mixed\n", prefix.c_str());
          continue;
        }
        const Expected* want_p = opts.grad ? nullptr : expected();
        std::vector<std::string> run_variants;
        if (opts.grad) {
          if (grad_applies(forms, c, dt)) run_variants = {"grad"};
        } else {
          run_variants = variants_of(forms, c, want_p);
          if (c.stress && !run_variants.empty()) run_variants.push_back("threads");
          if (mixed && !run_variants.empty()) run_variants.push_back("threads_mixed");
        }
        for (const std::string& v : run_variants) {
          if (!glob_match(opts.filter, prefix + v)) continue;
          Result r;
          r.op = opname;
          r.dtype = dname;
          r.name = c.name;
          r.variant = v;
          r.shape = describe_inputs(c);
          if (v == "out" && c.out_layout != Contiguous) r.shape += ", out " + layout_str(c.out_layout);
          auto c0 = Clock::now();
          if (!ref_error.empty()) {
            r.status = Status::Fail;
            r.message = "the reference failed (a bug in the suite): " + ref_error;
          } else {
            std::string id = prefix + v;
            crash_context(id.c_str(), (rerun + " --filter " + shell_quote(id)).c_str());
            try {
              if (v == "threads") run_threads(tg, forms, c, opts.seed, r);
              else if (v == "threads_mixed") run_threads(tg, forms, c, opts.seed, r, partner);
              else if (v == "grad") run_grad(tg, forms, c, r);
              else run_variant(tg, forms, c, v, want_p, r);
            } catch (const std::exception& e) {
              r.status = Status::Fail;
              r.message = std::string("the harness failed: ") + e.what();
            }
          }
          r.seconds = std::chrono::duration<double>(Clock::now() - c0).count();
          pairs_run.insert({opname, dname});
          cell.ran = true;
          results.push_back(r);
          // --composites: a composite that cannot run here fails every variant alike.
          if (opts.composites && r.status == Status::Unsupported) break;
          if (r.status == Status::Fail) {
            bool expected_fail = false;
            for (const XFailEntry& e : xfail)
              expected_fail |= e.covers(opname, dname, c.name);
            if (!expected_fail) printer.failure(results.back());
          }
          printer.step(op_no - 1, kernel_ops.size(), fmt::format("{} {} {}", opname, dname, c.name));
        }
      }
    }
    crash_context(nullptr, nullptr);
    if (!opts.list) {
      size_t n = 0, f = 0;
      for (size_t k = before; k < results.size(); ++k) {
        if (results[k].name.empty()) continue;
        ++n;
        f += results[k].status == Status::Fail;
      }
      if (n)
        printer.op_done(op_no, kernel_ops.size(),
                        fmt::format("[{:2}/{}] {:<22} {:5} cases, {} failed ({:.1f} s)", op_no,
                                    kernel_ops.size(), opname, n, f,
                                    std::chrono::duration<double>(Clock::now() - op_t0).count()));
    }
  }
  if (opts.list) {
    for (const std::string& id : opts.grad || opts.composites ? std::vector<std::string>{} : runtime_check_ids())
      if (glob_match(opts.filter, id)) std::printf("%s\n", id.c_str());
    return 0;
  }

  // The runtime checks (not in --grad or --composites runs).
  printer.step(kernel_ops.size(), kernel_ops.size(), "runtime checks");
  const bool runtime_checks = !opts.grad && !opts.composites;
  for (Result& r : runtime_checks ? run_runtime_checks(tg, opts.filter) : std::vector<Result>{}) {
    pairs_run.insert({"runtime", r.name});
    results.push_back(r);
    bool expected_fail = false;
    for (const XFailEntry& e : xfail) expected_fail |= e.covers("runtime", r.name, "");
    if (r.status == Status::Fail && !expected_fail) printer.failure(results.back());
  }
  if (runtime_checks)
    for (const std::string& id : runtime_check_ids())
      pairs_known.insert({"runtime", id.substr(id.find('/') + 1)});

  // A --composites run sees only some pairs: it cannot tell a stale line.
  apply_xfail(xfail, results, pairs_run, pairs_known, opts.filter == "*", !opts.composites,
              xfail_path);
  for (const Result& r : results)
    if (r.status == Status::XPass) printer.failure(r);
  info.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const Operator* op : kernel_ops) info.op_order.push_back(op->name());
  info.rerun = rerun;
  printer.finish();
  print_summary(stdout, info, results);
  write_reports(opts, info, results);
  for (const Result& r : results)
    if (r.status == Status::Fail || r.status == Status::XPass) return 1;
  return 0;
}

}  // namespace plexus::conformance
