#version 460
// Fused optimizer steps over contiguous float32 tensors (optim.cpp): OP 0 is
// one Adam update (AMSGrad when vmax is set; the step count read, plus one), OP 1 adds one to the step
// count (a second dispatch, after every invocation of the first has read it),
// OP 2 one SGD update. Formulas and rounding order follow the catalog's
// composite (dispatcher/src/catalog/optim_steps.cpp).
#include "common.glsl"

layout(local_size_x = 256) in;

// Mirrored by OptimPush in optim.cpp (104 bytes).
layout(push_constant, scalar) uniform Push {
  uint64_t meta;  // unused (the dispatch writes its metadata address here)
  uint64_t p, g, m, v, step, lr;  // m: SGD's momentum buffer (0 without)
  uint n;
  float beta1, beta2, w1, w2, eps, wd;  // SGD: momentum, -, 1 - dampening, -, -, wd
  float log_beta1, log_beta2;           // Adam: log(beta), from the host in double
  int decoupled;  // Adam: AdamW's decay; SGD: bit 0 nesterov, bit 1 first step
  uint64_t vmax;  // Adam: AMSGrad's running maximum of v (0 without AMSGrad)
} pc;

layout(constant_id = 0) const int OP = 0;

// 1 - beta^t from x = t log(beta) <= 0. pow's error grows a thousandfold in
// 1 - pow(0.999, t), so small |x| takes the series of -expm1(x).
float one_minus_pow(float x) {
  if (x < -0.5) return 1.0 - exp(x);
  float s = 1.0;
  for (int k = 9; k >= 2; --k) s = 1.0 + x / float(k) * s;
  return -x * s;
}

void adam() {
  const float t = BufF32(pc.step).v[0] + 1.0, lr = BufF32(pc.lr).v[0];
  const float bc1 = one_minus_pow(t * pc.log_beta1);
  const float bc2_sqrt = sqrt(one_minus_pow(t * pc.log_beta2));
  const float step_size = lr / bc1, decay = 1.0 - lr * pc.wd;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * 256u) {
    float x = BufF32(pc.p).v[i], g = BufF32(pc.g).v[i];
    if (pc.wd != 0.0) {
      if (pc.decoupled != 0) x = x * decay;
      else g = g + pc.wd * x;
    }
    const float m0 = BufF32(pc.m).v[i];
    const float m = m0 + pc.w1 * (g - m0);
    const float v = BufF32(pc.v).v[i] * pc.beta2 + pc.w2 * g * g;
    BufF32(pc.m).v[i] = m;
    BufF32(pc.v).v[i] = v;
    float second = v;
    if (pc.vmax != 0ul) {  // maximum(vmax, v): a NaN wins, as in the composite
      const float old = BufF32(pc.vmax).v[i];
      second = v > old || isnan(v) ? v : old;
      BufF32(pc.vmax).v[i] = second;
    }
    const float denom = sqrt(second) / bc2_sqrt + pc.eps;
    BufF32(pc.p).v[i] = x - (m / denom) * step_size;
  }
}

void sgd() {
  const float lr = BufF32(pc.lr).v[0];
  const bool nesterov = (pc.decoupled & 1) != 0, first = (pc.decoupled & 2) != 0;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * 256u) {
    float g = BufF32(pc.g).v[i];
    if (pc.wd != 0.0) g = g + pc.wd * BufF32(pc.p).v[i];
    if (pc.m != 0ul) {
      const float b = first ? g : BufF32(pc.m).v[i] * pc.beta1 + pc.w1 * g;
      BufF32(pc.m).v[i] = b;
      g = nesterov ? g + pc.beta1 * b : b;
    }
    BufF32(pc.p).v[i] = BufF32(pc.p).v[i] - g * lr;
  }
}

void main() {
  if (OP == 0) adam();
  else if (OP == 1) { if (gl_GlobalInvocationID.x == 0u) BufF32(pc.step).v[0] += 1.0; }
  else sgd();
}
