// parse_config_string / parse_config_file: plexus.toml read with toml++ and
// checked key by key. Every problem is collected with its file:line:column, so
// one run of `plexus config check` shows them all.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "config/config_names.h"
#include "plexus/config.h"
#include "plexus/error.h"
#include "plexus/log.h"

namespace plexus {
namespace {

namespace fs = std::filesystem;

// "an integer (3)": what a node is, for "found ..." in messages.
std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return fmt::format("a string (\"{}\")", *n.value<std::string>());
    case toml::node_type::integer:
      return fmt::format("an integer ({})", *n.value<int64_t>());
    case toml::node_type::floating_point:
      return fmt::format("a float ({})", *n.value<double>());
    case toml::node_type::boolean:
      return fmt::format("a boolean ({})", *n.value<bool>());
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

// What a plugin option's get_option returns: strings as they are, booleans
// "true"/"false", numbers in decimal; nullopt for arrays, tables and dates.
std::optional<std::string> option_string(const toml::node& n) {
  if (n.is_string()) return *n.value<std::string>();
  if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
  if (n.is_integer()) return std::to_string(*n.value<int64_t>());
  if (n.is_floating_point()) return fmt::format("{}", *n.value<double>());
  return std::nullopt;
}

std::string join(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

// One section's handler for one key: the key's dotted name and its node.
using KeyHandler = std::function<void(const std::string& dotted, const toml::node&)>;

class Parser {
 public:
  Parser(std::string name, fs::path dir) : name_(std::move(name)), dir_(std::move(dir)) {
    config_.path = name_;
  }

  Config run(const std::string& text) {
    toml::table root;
    try {
      root = toml::parse(text, name_);
    } catch (const toml::parse_error& e) {
      fail(ErrorCode::InvalidArgument, "{}: malformed TOML: {}", position(e.source()),
           e.description());
    }
    for (auto&& [key, node] : root) section(std::string(key.str()), key, node);
    check_one_choice();
    if (!errors_.empty()) {
      // toml++ iterates tables in key order; report in file order.
      std::stable_sort(errors_.begin(), errors_.end(), [](const Problem& a, const Problem& b) {
        return std::tie(a.line, a.column) < std::tie(b.line, b.column);
      });
      std::vector<std::string> lines;
      for (const Problem& p : errors_) lines.push_back(p.text);
      fail(ErrorCode::InvalidArgument, "{}", fmt::join(lines, "\n"));
    }
    return std::move(config_);
  }

 private:
  std::string position(const toml::source_region& r) const {
    return fmt::format("{}:{}:{}", name_, r.begin.line, r.begin.column);
  }
  void error(const toml::source_region& r, const std::string& message) {
    errors_.push_back({r.begin.line, r.begin.column, position(r) + ": " + message});
  }
  void wrong_type(const std::string& dotted, const toml::node& n, const std::string& expected) {
    error(n.source(), fmt::format("{} must be {}; found {}", dotted, expected, describe(n)));
  }
  // Where a key was set: the key's own position.
  void remember(const std::string& dotted, const toml::key& key) {
    const auto& b = key.source().begin;
    config_.origins[dotted] = {ConfigOrigin::Kind::File, name_, static_cast<int>(b.line),
                               static_cast<int>(b.column)};
  }

  void section(const std::string& name, const toml::key& key, const toml::node& node) {
    static const std::vector<std::string> kSections = {"plugins", "options", "runtime",
                                                       "allocator"};
    if (std::find(kSections.begin(), kSections.end(), name) == kSections.end()) {
      error(key.source(),
            fmt::format("unknown section '{}'; valid sections: {}", name, join(kSections)));
      return;
    }
    const toml::table* table = node.as_table();
    if (!table) return wrong_type(name, node, fmt::format("a table ([{}])", name));
    if (name == "plugins") return plugins(*table);
    if (name == "options") return options(*table);
    if (name == "runtime") return runtime(*table);
    allocator(*table);
  }

  // Calls the handler of each key of `table`; unknown keys are errors naming the valid ones.
  void keys(const toml::table& table, const std::string& section,
            const std::vector<std::pair<std::string, KeyHandler>>& handlers) {
    for (auto&& [key, node] : table) {
      std::string k(key.str());
      auto h = std::find_if(handlers.begin(), handlers.end(),
                            [&](const auto& entry) { return entry.first == k; });
      if (h == handlers.end()) {
        std::vector<std::string> valid;
        for (const auto& entry : handlers) valid.push_back(entry.first);
        error(key.source(),
              fmt::format("unknown key '{}' in [{}]; valid keys: {}", k, section, join(valid)));
        continue;
      }
      std::string dotted = section + "." + k;
      size_t before = errors_.size();
      h->second(dotted, node);
      if (errors_.size() == before) remember(dotted, key);
    }
  }

  // ---- typed values --------------------------------------------------------
  std::optional<std::string> string(const std::string& dotted, const toml::node& n,
                                    const std::string& expected = "a string") {
    if (auto v = n.value<std::string>(); v && n.is_string()) return *v;
    wrong_type(dotted, n, expected);
    return std::nullopt;
  }
  void boolean(const std::string& dotted, const toml::node& n, bool& out) {
    if (n.is_boolean())
      out = *n.value<bool>();
    else
      wrong_type(dotted, n, "true or false");
  }
  // An array of strings, each checked by `valid` (which returns why not, or "").
  void strings(const std::string& dotted, const toml::node& n, std::vector<std::string>& out,
               const std::function<std::string(const std::string&)>& valid = {}) {
    const toml::array* a = n.as_array();
    if (!a) return wrong_type(dotted, n, "an array of strings");
    std::vector<std::string> items;
    std::set<std::string> seen;
    for (const toml::node& item : *a) {
      auto s = string(dotted + " item", item, "a string");
      if (!s) continue;
      if (std::string why = valid ? valid(*s) : ""; !why.empty())
        error(item.source(), fmt::format("{}: {}", dotted, why));
      else if (!seen.insert(*s).second)
        error(item.source(), fmt::format("{}: '{}' is listed twice", dotted, *s));
      else
        items.push_back(*s);
    }
    out = std::move(items);
  }
  // A string that must be one of `choices`.
  std::optional<std::string> choice(const std::string& dotted, const toml::node& n,
                                    const std::vector<std::string>& choices) {
    std::string expected = "one of " + join(choices);
    auto s = string(dotted, n, "a string, " + expected);
    if (!s) return std::nullopt;
    if (std::find(choices.begin(), choices.end(), *s) != choices.end()) return s;
    error(n.source(),
          fmt::format("{} = \"{}\" is not valid; valid values: {}", dotted, *s, join(choices)));
    return std::nullopt;
  }

  // ---- sections ------------------------------------------------------------
  void plugins(const toml::table& t) {
    keys(t, "plugins",
         {{"paths",
           [&](const std::string& d, const toml::node& n) {
             strings(d, n, config_.plugin_paths, [](const std::string& s) {
               return s.empty() ? std::string("an empty path") : std::string();
             });
             for (std::string& p : config_.plugin_paths)
               if (fs::path(p).is_relative()) p = (dir_ / p).lexically_normal().string();
           }},
          {"use_environment",
           [&](const std::string& d, const toml::node& n) {
             boolean(d, n, config_.use_plugin_path_env);
           }},
          {"use_default_paths",
           [&](const std::string& d, const toml::node& n) {
             boolean(d, n, config_.use_default_plugin_paths);
           }},
          {"allow", [&](const std::string& d,
                        const toml::node& n) { strings(d, n, config_.allow, plugin_name_error); }},
          {"deny", [&](const std::string& d,
                       const toml::node& n) { strings(d, n, config_.deny, plugin_name_error); }},
          {"allow_writable_by_others",
           [&](const std::string& d, const toml::node& n) {
             boolean(d, n, config_.allow_writable_by_others);
           }},
          {"init_timeout_ms",
           [&](const std::string& d, const toml::node& n) {
             std::optional<int64_t> v = n.is_integer() ? n.value<int64_t>() : std::nullopt;
             if (!v || *v < 0 || *v > int64_t{86'400'000})
               return wrong_type(d, n, "an integer of milliseconds from 0 (no limit) to 86400000");
             config_.plugin_init_timeout_ms = *v;
           }},
          {"probe", [&](const std::string& d,
                        const toml::node& n) { boolean(d, n, config_.probe_plugins); }},
          {"sha256", [&](const std::string& d, const toml::node& n) { pins(d, n); }}});
  }

  void pins(const std::string& dotted, const toml::node& n) {
    const toml::table* t = n.as_table();
    if (!t) return wrong_type(dotted, n, "a table of plugin name = \"SHA-256 in hex\"");
    for (auto&& [key, value] : *t) {
      std::string name(key.str()), item = dotted + "." + name;
      if (std::string why = plugin_name_error(name); !why.empty()) {
        error(key.source(), fmt::format("{}: {}", item, why));
        continue;
      }
      auto hex = string(item, value, "a string of 64 hex digits");
      if (!hex) continue;
      if (hex->size() != 64 ||
          hex->find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        error(value.source(),
              fmt::format("{} = \"{}\" is not a SHA-256: expected 64 hex digits", item, *hex));
        continue;
      }
      config_.sha256[name] = *hex;
      remember(item, key);
    }
  }

  // [options.NAME]: each value becomes the string the plugin reads with get_option.
  void options(const toml::table& t) {
    for (auto&& [key, node] : t) {
      std::string plugin(key.str());
      if (std::string why = plugin_name_error(plugin); !why.empty()) {
        error(key.source(), fmt::format("[options.{}]: {}", plugin, why));
        continue;
      }
      const toml::table* opts = node.as_table();
      if (!opts) {
        wrong_type("options." + plugin, node,
                   fmt::format("a table ([options.{}]) of the plugin's options", plugin));
        continue;
      }
      auto& out = config_.plugin_options[plugin];
      for (auto&& [okey, value] : *opts) {
        std::string dotted = fmt::format("options.{}.{}", plugin, okey.str());
        if (auto s = option_string(value)) {
          out[std::string(okey.str())] = *s;
          remember(dotted, okey);
        } else {
          wrong_type(dotted, value, "a string, integer, float or boolean");
        }
      }
    }
  }

  void runtime(const toml::table& t) {
    keys(t, "runtime",
         {{"device",
           [&](const std::string& d, const toml::node& n) {
             auto s = string(d, n, "a string such as \"vulkan:0\"");
             if (!s) return;
             if (std::string why = device_name_error(*s); !why.empty())
               error(n.source(), fmt::format("{} = \"{}\": {}", d, *s, why));
             else
               config_.device = *s;
           }},
          {"prefer",
           [&](const std::string& d, const toml::node& n) {
             strings(d, n, config_.prefer, type_name_error);
             if (const toml::array* a = n.as_array(); a && a->empty())
               error(n.source(), d + " is empty; list device types, best first, e.g. "
                                     "[\"cuda\", \"vulkan\", \"cpu\"]");
           }},
          {"policy",
           [&](const std::string& d, const toml::node& n) {
             if (auto s = choice(d, n, {"prefer_gpu", "prefer_cpu", "most_memory"}))
               config_.policy = *s == "prefer_gpu"   ? DevicePolicy::PreferGpu
                                : *s == "prefer_cpu" ? DevicePolicy::PreferCpu
                                                     : DevicePolicy::MostMemory;
           }},
          {"fallback",
           [&](const std::string& d, const toml::node& n) {
             if (auto s = choice(d, n, {"cpu", "error"}))
               config_.fallback = *s == "cpu" ? FallbackPolicy::Cpu : FallbackPolicy::Error;
           }},
          {"log_level", [&](const std::string& d, const toml::node& n) {
             if (auto s = choice(d, n, log_levels())) config_.log_level = *s;
           }}});
  }

  void allocator(const toml::table& t) {
    keys(t, "allocator",
         {{"caching", [&](const std::string& d,
                          const toml::node& n) { boolean(d, n, config_.allocator_caching); }},
          {"max_cached_mb", [&](const std::string& d, const toml::node& n) {
             // Only an integer node is read as one: toml++ converts a float
             // by a cast, undefined beyond int64 (found by tests/fuzz).
             std::optional<int64_t> v = n.is_integer() ? n.value<int64_t>() : std::nullopt;
             if (!v || *v < 0 || *v > (int64_t{1} << 40))
               return wrong_type(d, n, "an integer of MiB from 0 (no limit) to 2^40");
             config_.allocator_max_cached_bytes = static_cast<size_t>(*v) << 20;
           }}});
  }

  // device, prefer and policy are three ways to say one thing: only one may be set.
  void check_one_choice() {
    std::vector<std::string> set;
    for (const char* k : {"runtime.device", "runtime.prefer", "runtime.policy"})
      if (config_.origins.count(k)) set.push_back(k);
    if (set.size() < 2) return;
    std::vector<std::string> where;
    for (const std::string& k : set) where.push_back(k + " at " + config_.origins[k].str());
    const ConfigOrigin& second = config_.origins[set[1]];
    errors_.push_back({static_cast<toml::source_index>(second.line),
                       static_cast<toml::source_index>(second.column),
                       fmt::format("{}:{}:{}: set only one of runtime.device, runtime.prefer and "
                                   "runtime.policy; found {}",
                                   name_, second.line, second.column, join(where))});
  }

  struct Problem {
    toml::source_index line, column;
    std::string text;
  };

  std::string name_;
  fs::path dir_;
  Config config_;
  std::vector<Problem> errors_;
};

}  // namespace

Config parse_config_string(const std::string& text, const std::string& name) {
  fs::path dir = fs::absolute(fs::path(name)).parent_path();
  return Parser(name, dir).run(text);
}

Config parse_config_file(const std::string& path) {
  std::error_code ec;
  PLEXUS_CHECK(fs::exists(path, ec), ErrorCode::NotFound, "config file {} does not exist", path);
  PLEXUS_CHECK(!fs::is_directory(path, ec), ErrorCode::InvalidArgument,
               "config file {} is a directory; expected a TOML file", path);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  PLEXUS_CHECK(in.good() || in.eof(), ErrorCode::IoError, "cannot read config file {}", path);
  return parse_config_string(text.str(), path);
}

}  // namespace plexus
