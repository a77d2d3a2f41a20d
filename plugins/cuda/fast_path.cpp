// Registrar::add and the fast paths' claims: which kernel the host gets for an op.
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
  if (find_claim(fp.op))
    sdk::fail(PLEXUS_ERROR_INTERNAL, std::string("fast path for ") + fp.op + " claimed twice");
  g_claims.push_back(Claim{fp, {}, nullptr});
}

void clear_fast_paths() {
  g_claims.clear();
}

void Registrar::add(const char* op, uint32_t dtypes, KernelRef own) const {
  plexus_kernel_fn fn = own.fn;
  void* user_data = own.user_data;
  if (Claim* c = find_claim(op)) {
    c->own = own;
    c->host = host_;
    fn = claimed_kernel;
    user_data = c;
  }
  sdk::check(host_->register_kernel(host_->host_ctx, slot_, op, dtypes, fn, user_data),
             std::string("register_kernel(\"") + op + "\")");
}

}  // namespace plexus::gpu
