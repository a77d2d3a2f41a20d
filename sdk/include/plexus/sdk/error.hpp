// Errors in plugin code: sdk::Error carries the plexus_status the host gets;
// guard() turns any exception into a status and a message, so none crosses
// the C ABI. Messages are formatted where they are raised, with fmt:
//
//   sdk::fail(PLEXUS_ERROR_INVALID_ARGUMENT, "index {} is out of range [0, {})", i, n);
//
// A kernel's message need not name its op or device: the host adds both
// ("embedding.out (on vulkan:0): plugin 'vulkan': index 7 is out of range [0, 5)").
// Say which argument, what was expected and what came.
//
// nvcc (CUDA 13) cannot evaluate fmt 9's compile-time format checks, so in a
// translation unit nvcc compiles only fail(status, message) exists: the gpu
// kernel sources, which nvcc, hipcc and the host compiler all build, build
// their messages as strings.
#pragma once

#if defined(__CUDACC__) && !defined(__clang__)
#define PLEXUS_SDK_FORMAT 0
#else
#define PLEXUS_SDK_FORMAT 1
#include <fmt/format.h>
#endif

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "plexus/plugin.h"

namespace plexus::sdk {

// An error with the status the host receives for it.
class Error : public std::runtime_error {
 public:
  Error(plexus_status status, const std::string& message, bool host_reported = false)
      : std::runtime_error(message), status_(status), host_reported_(host_reported) {}
  plexus_status status() const noexcept { return status_; }
  // True when the status came from a host function, which has already set
  // the message the caller will see; guard() then leaves it alone.
  bool host_reported() const noexcept { return host_reported_; }

 private:
  plexus_status status_;
  bool host_reported_;
};

// Throws Error(status, message).
[[noreturn]] inline void fail(plexus_status status, const std::string& message) {
  throw Error(status, message);
}

// From a kernel: declines the call (PLEXUS_KERNEL_DECLINED, ABI 1.2), so the
// host runs the op's composite or its fallback instead. Only before the
// kernel has written anything. `why` appears in the host's fallback warning.
[[noreturn]] inline void decline(const std::string& why) {
  throw Error(PLEXUS_KERNEL_DECLINED, why);
}

#if PLEXUS_SDK_FORMAT
// Throws Error(status, fmt::format(format, args...)).
template <typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
[[noreturn]] void fail(plexus_status status, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(status, fmt::format(format, std::forward<Args>(args)...));
}
// decline(fmt::format(format, args...)).
template <typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
[[noreturn]] void decline(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(PLEXUS_KERNEL_DECLINED, fmt::format(format, std::forward<Args>(args)...));
}
#endif

// The name of a status code, e.g. "out of memory".
inline const char* status_name(plexus_status status) noexcept {
  switch (status) {
    case PLEXUS_OK:
      return "ok";
    case PLEXUS_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case PLEXUS_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case PLEXUS_ERROR_UNSUPPORTED:
      return "unsupported";
    case PLEXUS_ERROR_NOT_FOUND:
      return "not found";
    case PLEXUS_ERROR_DEVICE:
      return "device error";
    case PLEXUS_ERROR_VERSION_MISMATCH:
      return "version mismatch";
    case PLEXUS_ERROR_INTERNAL:
      return "internal error";
    case PLEXUS_ERROR_IO:
      return "i/o error";
    case PLEXUS_KERNEL_DECLINED:
      return "declined";
    default:
      return "unknown status";
  }
}

// For the status a host function returned: throws Error(status, "<what>
// failed: <status name>") unless it is PLEXUS_OK. The host has already set the
// real reason for the caller, so guard() keeps that one.
inline void check(plexus_status status, const std::string& what) {
  if (status != PLEXUS_OK) throw Error(status, what + " failed: " + status_name(status), true);
}

// Hands `message` to the host for the error status about to be returned.
inline void set_error_message(const plexus_host_api* host, const char* message) noexcept {
  if (host && host->set_error_message) host->set_error_message(host->host_ctx, message);
}

// Runs f() and returns PLEXUS_OK, or the status f returns if it returns one.
// An exception becomes its status (Error), OUT_OF_MEMORY (std::bad_alloc) or
// INTERNAL (anything else), with its message handed to host (may be NULL).
template <typename F>
plexus_status guard(const plexus_host_api* host, F&& f) noexcept {
  using R = std::invoke_result_t<F&>;
  static_assert(std::is_void_v<R> || std::is_convertible_v<R, plexus_status>,
                "guard(): f must return void or a plexus_status");
  try {
    if constexpr (std::is_void_v<R>) {
      f();
      return PLEXUS_OK;
    } else {
      return static_cast<plexus_status>(f());
    }
  } catch (const Error& e) {
    if (!e.host_reported()) set_error_message(host, e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_error_message(host, "out of host memory");
    return PLEXUS_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_error_message(host, e.what());
    return PLEXUS_ERROR_INTERNAL;
  } catch (...) {
    set_error_message(host, "unknown exception in plugin code");
    return PLEXUS_ERROR_INTERNAL;
  }
}

}  // namespace plexus::sdk
