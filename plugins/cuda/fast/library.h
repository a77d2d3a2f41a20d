// A vendor library opened at run time (cuBLAS, cuDNN): the plugin then loads,
// and runs its own kernels, on machines that have the driver but not the
// library, and needs no static copy of libraries of hundreds of megabytes.
#pragma once

#include <initializer_list>
#include <string>

namespace plexus::gpu {

class Library {
 public:
  // Opens the first of `names` (sonames, e.g. "libcublas.so.13") that loads.
  explicit Library(std::initializer_list<const char*> names);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool ok() const { return handle_ != nullptr; }
  // Why it did not load, or which symbol was missing ("" when all is well).
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }

  // Sets fn to the symbol `symbol`; false (and error()) when it is missing.
  template <typename F>
  bool bind(F& fn, const char* symbol) {
    fn = reinterpret_cast<F>(find(symbol));
    return fn != nullptr;
  }

 private:
  void* find(const char* symbol);

  void* handle_ = nullptr;
  std::string name_;
  std::string error_;
};

}  // namespace plexus::gpu
