#include "plexus/error.h"

namespace plexus {

std::string_view error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::Ok:
      return "ok";
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::OutOfMemory:
      return "out of memory";
    case ErrorCode::Unsupported:
      return "unsupported";
    case ErrorCode::NotFound:
      return "not found";
    case ErrorCode::DeviceError:
      return "device error";
    case ErrorCode::VersionMismatch:
      return "version mismatch";
    case ErrorCode::Internal:
      return "internal error";
    case ErrorCode::IoError:
      return "i/o error";
  }
  return "unknown error";
}

namespace {
// "add.Tensor(argument 'other', on vulkan:0): message"
std::string render(const std::string& message, const ErrorContext& c) {
  std::string where;
  auto add = [&](std::string_view part) {
    if (!where.empty()) where += ", ";
    where += part;
  };
  if (!c.argument.empty()) add(fmt::format("argument '{}'", c.argument));
  if (!c.device.empty())
    add(fmt::format("on {}", c.device));
  else if (!c.backend.empty())
    add(fmt::format("backend {}", c.backend));
  if (c.op.empty() && where.empty()) return message;
  if (c.op.empty()) return fmt::format("{}: {}", where, message);
  if (where.empty()) return fmt::format("{}: {}", c.op, message);
  return fmt::format("{} ({}): {}", c.op, where, message);
}
}  // namespace

Error::Error(ErrorCode code, std::string message, ErrorContext context)
    : std::runtime_error(render(message, context)),
      code_(code),
      message_(std::move(message)),
      context_(std::move(context)) {}

Error Error::with_context(const ErrorContext& outer) const {
  ErrorContext c = context_;
  if (c.op.empty()) c.op = outer.op;
  if (c.argument.empty()) c.argument = outer.argument;
  if (c.backend.empty()) c.backend = outer.backend;
  if (c.device.empty()) c.device = outer.device;
  return Error(code_, message_, std::move(c));
}

}  // namespace plexus
