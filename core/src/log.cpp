#include "plexus/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "plexus/env.h"
#include "plexus/error.h"

namespace plexus::logging {
namespace {

struct Loggers {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<spdlog::logger>, std::less<>> all;
  spdlog::level::level_enum level = default_level();
  std::shared_ptr<spdlog::sinks::stderr_color_sink_mt> sink =
      std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
};

Loggers& loggers() {
  static Loggers* l = new Loggers;  // outlives static destructors that may still log
  return *l;
}

}  // namespace

spdlog::logger& get(std::string_view component) {
  Loggers& l = loggers();
  std::lock_guard lock(l.mutex);
  auto it = l.all.find(component);
  if (it != l.all.end()) return *it->second;
  auto logger = std::make_shared<spdlog::logger>("plexus." + std::string(component), l.sink);
  logger->set_level(l.level);
  logger->set_pattern("[%H:%M:%S.%e] [%n] [%l] %v");
  return *l.all.emplace(std::string(component), std::move(logger)).first->second;
}

void set_level(spdlog::level::level_enum level) {
  Loggers& l = loggers();
  std::lock_guard lock(l.mutex);
  l.level = level;
  for (auto& [name, logger] : l.all) logger->set_level(level);
}

spdlog::level::level_enum parse_level(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace},       {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},         {"warn", spdlog::level::warn},
      {"warning", spdlog::level::warn},      {"error", spdlog::level::err},
      {"critical", spdlog::level::critical}, {"off", spdlog::level::off}};
  for (auto& [name, level] : kLevels)
    if (name == text) return level;
  fail(
      ErrorCode::InvalidArgument,
      "log level '{}' is not known: expected one of trace, debug, info, warn, error, critical, off",
      text);
}

spdlog::level::level_enum default_level() {
  if (auto v = env_var("PLEXUS_LOG_LEVEL")) {
    try {
      return parse_level(*v);
    } catch (const Error&) {
      // An unusable level must not stop the program; say so once on stderr.
      fprintf(stderr,
              "plexus: ignoring PLEXUS_LOG_LEVEL='%s' (expected trace, debug, info, "
              "warn, error, critical or off)\n",
              v->c_str());
    }
  }
  return spdlog::level::warn;
}

}  // namespace plexus::logging
