// The fast paths' claims (fast_path.h): which kernel the host gets for an op.
#include "fast_path.h"

#include <deque>
#include <string>

namespace plexus::gpu {
namespace {

// A claimed op: the fast path, and the own kernel once the family registers it.
struct Claim {
  FastPath fast;
  KernelRef own;
  const plexus_host_api* host = nullptr;
};
std::deque<Claim> g_claims;  // deque: registered user_data pointers stay valid

Claim* find_claim(const char* op) {
  for (Claim& c : g_claims)
    if (std::string(c.fast.op) == op) return &c;
  return nullptr;
}

plexus_status claimed_kernel(void* user_data, const plexus_kernel_call* call) noexcept {
  auto& c = *static_cast<Claim*>(user_data);
  return sdk::guard(c.host, [&]() -> plexus_status {
    if ((c.fast.dtypes & PLEXUS_DTYPE_BIT(call->dtype)) && c.fast.run(*call)) return PLEXUS_OK;
    return c.own(*call);
  });
}

}  // namespace

void claim(const FastPath& fp) {
  if (find_claim(fp.op)) sdk::fail(PLEXUS_ERROR_INTERNAL, "fast path for {} claimed twice", fp.op);
  g_claims.push_back(Claim{fp, {}, nullptr});
}

void clear_fast_paths() {
  g_claims.clear();
}

KernelRef route(const char* op, KernelRef own, const plexus_host_api* host) {
  Claim* c = find_claim(op);
  if (!c) return own;
  c->own = own;
  c->host = host;
  return KernelRef{claimed_kernel, c};
}

}  // namespace plexus::gpu
