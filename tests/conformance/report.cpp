#include "report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>

namespace plexus::conformance {

Counts count(const std::vector<Result>& results) {
  Counts c;
  for (const Result& r : results) {
    switch (r.status) {
      case Status::Pass: ++c.passed; break;
      case Status::Fail: ++c.failed; break;
      case Status::Unsupported: ++c.unsupported; break;
      case Status::XFail: ++c.xfail; break;
      case Status::XPass: ++c.xpass; break;
    }
  }
  return c;
}

std::pair<size_t, size_t> coverage(const ReportInfo& info) {
  size_t covered = 0, total = 0;
  for (const auto& [key, cell] : info.cells) {
    if (!cell.in_catalog) continue;
    ++total;
    covered += cell.registered && cell.ran;
  }
  return {covered, total};
}

namespace {

const char* kDTypeColumns[kNumDTypes] = {"bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};

// The worst status among the results of each (op, dtype), and of each runtime check.
std::map<std::pair<std::string, std::string>, Status> worst(const std::vector<Result>& results) {
  auto rank = [](Status s) {
    switch (s) {
      case Status::Fail: return 4;
      case Status::XPass: return 3;
      case Status::XFail: return 2;
      case Status::Unsupported: return 1;
      default: return 0;
    }
  };
  std::map<std::pair<std::string, std::string>, Status> w;
  for (const Result& r : results) {
    auto key = r.op == "runtime" ? std::make_pair(r.op, r.name) : std::make_pair(r.op, r.dtype);
    auto it = w.find(key);
    if (it == w.end() || rank(r.status) > rank(it->second)) w[key] = r.status;
  }
  return w;
}

const char* cell_text(Status s) {
  switch (s) {
    case Status::Pass: return "ok";
    case Status::Fail: return "FAIL";
    case Status::Unsupported: return "-";
    case Status::XFail: return "xfail";
    case Status::XPass: return "XPASS";
  }
  return "?";
}

// Text safe inside XML attributes and elements: escaped, control characters dropped.
std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      case '\n': o += "&#10;"; break;
      case '\t': o += "&#9;"; break;
      default:
        if (c >= 0x20) o += static_cast<char>(c);
    }
  }
  return o;
}

}  // namespace

void print_summary(std::FILE* f, const ReportInfo& info, const std::vector<Result>& results) {
  auto w = worst(results);
  std::fprintf(f, "\n%-24s", "op");
  for (const char* c : kDTypeColumns) std::fprintf(f, " %-5s", c);
  std::fprintf(f, "\n");
  for (const std::string& op : info.op_order) {
    // Rows of ops this run did not touch (a --filter left them out) are not shown.
    bool touched = false;
    for (int d = 0; d < kNumDTypes; ++d) {
      std::string dn(dtype_name(static_cast<DType>(d)));
      auto cell = info.cells.find({op, dn});
      touched |= w.count({op, dn}) || (cell != info.cells.end() && cell->second.ran);
    }
    if (!touched) continue;
    std::fprintf(f, "%-24s", op.c_str());
    for (int d = 0; d < kNumDTypes; ++d) {
      std::string dn(dtype_name(static_cast<DType>(d)));
      auto cell = info.cells.find({op, dn});
      std::string text;
      if (cell != info.cells.end() && cell->second.in_catalog) {
        auto it = w.find({op, dn});
        if (!cell->second.registered && !cell->second.composite) text = "-";
        else if (it != w.end()) text = cell_text(it->second);
        else if (cell->second.ran) text = "ok";
        else text = ".";  // registered, but no case ran (filtered out, or the suite has none)
      }
      std::fprintf(f, " %-5s", text.c_str());
    }
    std::fprintf(f, "\n");
  }
  std::string runtime;
  for (const auto& [key, s] : w)
    if (key.first == "runtime") runtime += fmt::format("{}{} {}", runtime.empty() ? "" : ", ", key.second, cell_text(s));
  if (!runtime.empty()) std::fprintf(f, "runtime checks: %s\n", runtime.c_str());
  if (info.composites)
    std::fprintf(f, "(--composites: each cell ran through the catalog's composite default, not a kernel)\n");
  std::fprintf(f, "(ok: every case passed; FAIL: a case failed; -: no kernel registered; xfail: expected failure;\n"
                  " XPASS: listed as expected failure but passed; .: no case ran; blank: not in the catalog)\n");
  auto [covered, total] = coverage(info);
  double pct = total ? 100.0 * static_cast<double>(covered) / static_cast<double>(total) : 0.0;
  if (info.filter == "*")
    std::fprintf(f, "coverage: %.1f%% of the catalog's op/dtype pairs (%zu of %zu) on %s, in %.1f s\n", pct,
                 covered, total, info.device.c_str(), info.seconds);
  else  // the pairs the filter left out did not run: this is not the plugin's coverage
    std::fprintf(f, "--filter '%s' ran %zu of the catalog's %zu op/dtype pairs on %s, in %.1f s "
                    "(a run without --filter gives the coverage)\n",
                 info.filter.c_str(), covered, total, info.device.c_str(), info.seconds);
  Counts c = count(results);
  std::fprintf(f, "skipped: %zu unsupported, %zu expected failures; failed: %zu, of them %zu unexpected passes\n",
               c.unsupported, c.xfail, c.failed + c.xpass, c.xpass);
  std::fprintf(f, "%zu passed, %zu failed, %zu skipped\n", c.passed, c.failed + c.xpass, c.skipped());
}

std::string json_report(const ReportInfo& info, const std::vector<Result>& results) {
  using nlohmann::json;
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json cases = json::array();
  for (const Result& r : results) {
    json j = {{"id", r.id()},           {"op", r.op},       {"dtype", r.dtype},
              {"case", r.name},         {"variant", r.variant}, {"shape", r.shape},
              {"status", status_name(r.status)}, {"max_abs_err", num(r.max_abs_err)},
              {"max_ulp_err", num(r.max_ulp_err)}, {"seconds", r.seconds}};
    if (!r.message.empty()) j["message"] = r.message;
    if (r.status == Status::Fail || r.status == Status::XPass)
      j["rerun"] = info.rerun + " --filter " + shell_quote(r.id());
    cases.push_back(std::move(j));
  }
  Counts c = count(results);
  auto [covered, total] = coverage(info);
  json summary = {{"passed", c.passed},
                  {"failed", c.failed + c.xpass},
                  {"skipped", c.skipped()},
                  {"unsupported", c.unsupported},
                  {"xfail", c.xfail},
                  {"xpass", c.xpass},
                  {"covered_pairs", covered},
                  {"catalog_pairs", total},
                  {"coverage_percent", total ? 100.0 * static_cast<double>(covered) / static_cast<double>(total) : 0.0},
                  {"seconds", info.seconds}};
  if (!info.skip_reason.empty()) summary["skip_reason"] = info.skip_reason;
  json doc = {{"plugin", info.plugin},   {"plugin_version", info.plugin_version},
              {"backend", info.backend}, {"device", info.device},
              {"device_name", info.device_name}, {"seed", info.seed},
              {"cases", std::move(cases)}, {"summary", std::move(summary)}};
  return doc.dump(2) + "\n";
}

std::string junit_xml(const ReportInfo& info, const std::vector<Result>& results) {
  // One <testsuite> per op (and one for the runtime checks), in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Result*>> by_op;
  for (const Result& r : results) {
    if (!by_op.count(r.op)) order.push_back(r.op);
    by_op[r.op].push_back(&r);
  }
  Counts all = count(results);
  double total_time = 0;
  for (const Result& r : results) total_time += r.seconds;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"plexus-conformance {}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                   xml_escape(info.plugin), results.size() + (info.skip_reason.empty() ? 0 : 1),
                   all.failed + all.xpass, all.skipped() + (info.skip_reason.empty() ? 0 : 1), total_time);
  std::string prefix = xml_escape(info.plugin) + ".";
  if (!info.skip_reason.empty()) {
    x += fmt::format("  <testsuite name=\"{}device\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n", prefix);
    x += fmt::format("    <testcase classname=\"{}device\" name=\"{}\"><skipped message=\"{}\"/></testcase>\n",
                     prefix, xml_escape(info.device), xml_escape(info.skip_reason));
    x += "  </testsuite>\n";
  }
  for (const std::string& op : order) {
    const auto& rs = by_op[op];
    size_t fails = 0, skips = 0;
    double t = 0;
    for (const Result* r : rs) {
      fails += r->status == Status::Fail || r->status == Status::XPass;
      skips += r->status == Status::Unsupported || r->status == Status::XFail;
      t += r->seconds;
    }
    std::string cls = prefix + xml_escape(op);
    x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                     cls, rs.size(), fails, skips, t);
    for (const Result* r : rs) {
      std::string id = r->id();
      std::string name = id.substr(std::min(id.size(), op.size() + 1));
      if (name.empty()) name = r->dtype;
      x += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\"", cls, xml_escape(name), r->seconds);
      if (r->status == Status::Pass) {
        x += "/>\n";
        continue;
      }
      x += ">\n";
      if (r->status == Status::Fail || r->status == Status::XPass) {
        std::string body = r->message;
        if (!r->shape.empty()) body = "inputs: " + r->shape + "\n" + body;
        body += "\nre-run: " + info.rerun + " --filter " + shell_quote(id);
        x += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml_escape(r->message),
                         status_name(r->status), xml_escape(body));
      } else {
        x += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(r->message));
      }
      x += "    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

void write_reports(const Options& opts, const ReportInfo& info, const std::vector<Result>& results) {
  auto write = [](const std::string& path, const std::string& text) {
    if (path.empty()) return;
    std::string tmp = path + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary);
      f << text;
      if (!f.flush()) {
        std::fprintf(stderr, "plexus-conformance: cannot write %s\n", tmp.c_str());
        return;
      }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      std::fprintf(stderr, "plexus-conformance: cannot write %s\n", path.c_str());
  };
  write(opts.junit, junit_xml(info, results));
  write(opts.json, json_report(info, results));
}

}  // namespace plexus::conformance
