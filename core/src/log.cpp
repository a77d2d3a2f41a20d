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

const std::vector<std::string>& level_names() {
  static const std::vector<std::string> names = {"trace", "debug",    "info", "warn",
                                                 "error", "critical", "off"};
  return names;
}

spdlog::level::level_enum parse_level(std::string_view text) {
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::trace, spdlog::level::debug,    spdlog::level::info, spdlog::level::warn,
      spdlog::level::err,   spdlog::level::critical, spdlog::level::off};
  const std::vector<std::string>& names = level_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return kLevels[i];
  fail(ErrorCode::InvalidArgument, "log level '{}' is not known: expected one of {}", text,
       fmt::join(names, ", "));
}

spdlog::level::level_enum default_level() {
  if (auto v = env_var("PLEXUS_LOG_LEVEL")) {
    try {
      return parse_level(*v);
    } catch (const Error&) {
      // An unusable level must not stop the program; say so once on stderr.
      fprintf(stderr,
              "plexus: PLEXUS_LOG_LEVEL='%s' is not a log level (trace, debug, info, warn, "
              "error, critical or off): logging at warn; opening a Runtime fails on it\n",
              v->c_str());
    }
  }
  return spdlog::level::warn;
}

}  // namespace plexus::logging
