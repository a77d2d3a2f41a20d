// Conversions between the dispatcher's types and the plugin ABI's, and the
// per-thread error message a plugin attaches to a failing status.
#pragma once

#include <string>

#include <boost/container/small_vector.hpp>

#include "plexus/error.h"
#include "plexus/kernel.h"
#include "plexus/plugin.h"

namespace plexus {

// The ABI's description of a tensor; its sizes and strides point into `t`,
// valid while t is alive.
plexus_tensor to_abi_tensor(const Tensor& t);

// A kernel call's arguments as plexus_values, with the plexus_tensors they
// point to; valid while the KernelCall is.
class AbiArgs {
 public:
  explicit AbiArgs(const KernelCall& call);
  const plexus_value* values() const { return values_.data(); }
  size_t size() const { return values_.size(); }

 private:
  boost::container::small_vector<plexus_value, 12> values_;
  boost::container::small_vector<plexus_tensor, 8> tensors_;
};

// Keeps a message for the error status the plugin returns next on this thread.
void set_plugin_error_message(std::string message);
// The kept message (empty when none), cleared.
std::string take_plugin_error_message();
// The Error for a plugin's failing status: its code, and the plugin's message
// or, without one, what failed ("plugin 'toydev': init returned out of memory").
Error plugin_error(plexus_status status, const std::string& plugin, const std::string& what);

}  // namespace plexus
