#include "library.h"

#include <dlfcn.h>

namespace plexus::gpu {

Library::Library(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    // RTLD_LOCAL: the library's symbols stay out of the host's namespace.
    handle_ = dlopen(n, RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      name_ = n;
      error_.clear();
      return;
    }
    const char* e = dlerror();
    if (!error_.empty()) error_ += "; ";
    error_ += e ? e : std::string(n) + ": cannot be loaded";
  }
}

Library::~Library() {
  if (handle_) dlclose(handle_);
}

void* Library::find(const char* symbol) {
  if (!handle_) return nullptr;
  void* p = dlsym(handle_, symbol);
  if (!p) error_ = name_ + ": symbol " + symbol + " not found";
  return p;
}

}  // namespace plexus::gpu
