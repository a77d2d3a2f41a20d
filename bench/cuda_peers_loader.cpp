// Opens the CUDA peer library and wraps its C interface (bench/cuda_peers.h).
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cuda_peers.h"

namespace plexus::bench {
namespace {

struct Library {
  const char* (*peers)(const char*) = nullptr;
  void* (*make)(const char*, const char*, int, char*, size_t) = nullptr;
  int (*run)(void*) = nullptr;
  int (*sync)(void*, char*, size_t) = nullptr;
  void (*free)(void*) = nullptr;
  std::string error;  // why the library cannot be used

  Library() {
    std::string path;
    if (const char* env = std::getenv("PLEXUS_BENCH_CUDA_PEERS")) {
      path = env;
    } else {
      char exe[PATH_MAX];
      ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
      if (n <= 0) {
        error = "cannot find this executable's directory";
        return;
      }
      path.assign(exe, size_t(n));
      path = path.substr(0, path.rfind('/')) + "/../lib/libplexus-bench-cuda-peers.so";
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      error = e ? e : path + ": cannot be opened";
      return;
    }
    peers = reinterpret_cast<decltype(peers)>(dlsym(h, "pbcp_peers"));
    make = reinterpret_cast<decltype(make)>(dlsym(h, "pbcp_make"));
    run = reinterpret_cast<decltype(run)>(dlsym(h, "pbcp_run"));
    sync = reinterpret_cast<decltype(sync)>(dlsym(h, "pbcp_sync"));
    free = reinterpret_cast<decltype(free)>(dlsym(h, "pbcp_free"));
    if (!peers || !make || !run || !sync || !free) error = path + ": a pbcp_ function is missing";
  }
};

const Library& library() {
  static Library lib;  // never closed: cudart's exit handlers live in it
  return lib;
}

}  // namespace

std::vector<Peer> cuda_peers(const std::string& case_name, int device, std::string& why_absent) {
  const Library& lib = library();
  std::vector<Peer> out;
  if (!lib.error.empty()) {
    why_absent = lib.error;
    return out;
  }
  std::istringstream names(lib.peers(case_name.c_str()));
  for (std::string name; names >> name;) {
    Peer p{name, [case_name, name, device, &lib]() -> PeerOp {
             char why[512] = "";
             void* h = lib.make(case_name.c_str(), name.c_str(), device, why, sizeof why);
             if (!h) throw std::runtime_error(why);
             std::shared_ptr<void> handle(h, lib.free);
             Op op = [handle, &lib] {
               if (int e = lib.run(handle.get()))
                 throw std::runtime_error("CUDA peer launch failed with code " + std::to_string(e));
             };
             // The peer runs on its own stream: the bench waits for that one.
             auto sync = [handle, &lib] {
               char err[512] = "";
               if (lib.sync(handle.get(), err, sizeof err)) throw std::runtime_error(err);
             };
             return {op, sync};
           }};
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace plexus::bench
