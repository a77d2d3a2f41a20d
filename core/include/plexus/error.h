// plexus::Error: every failure plexus reports, with a code and the context
// (op, argument, backend, device) it was raised in.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace plexus {

// Status codes. The numeric values are shared with the plugin ABI
// (plexus_status in sdk/include/plexus/plugin.h) and never change.
enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1,  // the caller passed something wrong
  OutOfMemory = 2,      // an allocation failed
  Unsupported = 3,      // no kernel, dtype or feature for this request
  NotFound = 4,         // unknown op, device, plugin or file
  DeviceError = 5,      // the device or its driver failed
  VersionMismatch = 6,  // ABI or format version not accepted
  Internal = 7,         // a bug in plexus or a plugin
  IoError = 8,          // reading or writing a file failed
};

std::string_view error_code_name(ErrorCode c);

// Where an error happened; empty fields are not known.
struct ErrorContext {
  std::string op;        // "add.Tensor"
  std::string argument;  // "other"
  std::string backend;   // "vulkan"
  std::string device;    // "vulkan:0"
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, ErrorContext context = {});

  ErrorCode code() const noexcept { return code_; }
  // The message without the context prefix.
  const std::string& message() const noexcept { return message_; }
  const ErrorContext& context() const noexcept { return context_; }
  // Copy of this error with the empty fields of its context filled from `outer`.
  Error with_context(const ErrorContext& outer) const;

 private:
  ErrorCode code_;
  std::string message_;
  ErrorContext context_;
};

// Throws Error(code, formatted message). The one way plexus code raises errors.
template <typename... Args>
[[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> f, Args&&... args) {
  throw Error(code, fmt::format(f, std::forward<Args>(args)...));
}
// Throws Error with the named argument in its context.
template <typename... Args>
[[noreturn]] void fail_arg(std::string_view argument, fmt::format_string<Args...> f,
                           Args&&... args) {
  throw Error(ErrorCode::InvalidArgument, fmt::format(f, std::forward<Args>(args)...),
              ErrorContext{{}, std::string(argument), {}, {}});
}

}  // namespace plexus

// PLEXUS_CHECK(cond, code, "fmt", args...): raise an Error when cond is false.
#define PLEXUS_CHECK(cond, code, ...)                           \
  do {                                                          \
    if (!(cond)) [[unlikely]] ::plexus::fail((code), __VA_ARGS__); \
  } while (0)
// PLEXUS_CHECK_ARG(cond, "argname", "fmt", args...): InvalidArgument naming the argument.
#define PLEXUS_CHECK_ARG(cond, arg, ...)                         \
  do {                                                           \
    if (!(cond)) [[unlikely]] ::plexus::fail_arg((arg), __VA_ARGS__); \
  } while (0)
