// Elementwise push constants (mirrored by launch.h): up to four tensors of
// one shape (t[0] the output), n elements, and their strides. With ndim <= 1
// the strides are st[]; otherwise meta holds sizes[ndim] then ndim strides
// per tensor. Each invocation walks the elements grid-stride.
//
// Compiled with -DPACKED (the "<family>_packed" modules, float32 only), the
// same shader runs the packed path instead (launch.cpp: contiguous tensors
// whose data start on 16 bytes): every invocation handles PACKED_QUADS groups
// of four elements; inputs are read as 16-byte texels from uniform texel
// buffers (whole-block R32G32B32A32_UINT views; t[1], t[2] hold each input's
// first texel), the output is written as 16-byte stores to the storage buffer
// at binding 0, which starts at the output's first element; n counts elements
// and is a multiple of 4. On lavapipe a texel fetch is a branchless vector
// gather, while a storage-buffer or device-address load is a loop over the
// lanes, so this path is several times faster there (plugins/vulkan/README.md).
#ifdef PACKED
#define PACKED_LOCAL 1024
#define PACKED_QUADS 4
layout(local_size_x = PACKED_LOCAL) in;
#else
layout(local_size_x = 256) in;
#endif

layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t t[4];
  uint64_t s0;
  uint64_t s1;
  uint n;
  int ndim;
  int st[4];
} pc;

// The push constants the element loop needs, copied before it: on lavapipe
// a push-constant read inside a loop or branch is a loop over the lanes.
uint64_t el_t[4];
uint64_t el_s0;
uint el_n;
int el_ndim;
ivec4 el_st;
uint64_t el_meta;
void read_push() {
  el_t = pc.t;
  el_s0 = pc.s0;
  el_n = pc.n;
  el_ndim = pc.ndim;
  el_st = ivec4(pc.st[0], pc.st[1], pc.st[2], pc.st[3]);
  el_meta = pc.meta;
}

// Element offsets of linear index i in each of the four tensors.
ivec4 offsets(uint i) {
  if (el_ndim <= 1) return int(i) * el_st;
  Meta m = Meta(el_meta);
  int nd = el_ndim;
  ivec4 o = ivec4(0);
  for (int d = nd - 1; d >= 0; --d) {
    uint size = uint(m.v[d]);
    int idx = int(i % size);
    i /= size;
    o += idx * ivec4(m.v[nd + d], m.v[2 * nd + d], m.v[3 * nd + d], m.v[4 * nd + d]);
  }
  return o;
}

// The statement after it runs for each element i this invocation owns (in
// el_t, el_s0 the tensors and first scalar). It expands to two statements:
// use it at the top level of main.
#define FOR_EACH_ELEMENT(i) \
  read_push();              \
  for (uint i = gl_GlobalInvocationID.x; i < el_n; i += gl_NumWorkGroups.x * 256u)

#ifdef PACKED
#extension GL_EXT_control_flow_attributes : require
layout(std430, binding = 0) writeonly buffer PackedOut { u64vec2 q[]; } packed_out;
layout(binding = 1) uniform usamplerBuffer packed_in1;
layout(binding = 2) uniform usamplerBuffer packed_in2;

// Bit k set: input k + 1 is a row broadcast, whose quad q is its quad
// q % st[k + 1] (launch.cpp starts every dispatch on a row).
layout(constant_id = 2) const int PACKED_PERIODIC = 0;
// Each input's first texel and period, read from the push constants once,
// before any branch: on lavapipe a push-constant read inside a branch (or
// after an early return) is a loop over the lanes, which cost 20% of a
// large add.
int packed_first1, packed_first2;
uint packed_period1, packed_period2;
vec4 packed_load1(uint q) {
  uint t = (PACKED_PERIODIC & 1) != 0 ? q % packed_period1 : q;
  return uintBitsToFloat(texelFetch(packed_in1, packed_first1 + int(t)));
}
vec4 packed_load2(uint q) {
  uint t = (PACKED_PERIODIC & 2) != 0 ? q % packed_period2 : q;
  return uintBitsToFloat(texelFetch(packed_in2, packed_first2 + int(t)));
}
void packed_store(uint q, vec4 v) {
  uvec4 u = floatBitsToUint(v);
  packed_out.q[q] = u64vec2(packUint2x32(u.xy), packUint2x32(u.zw));
}
// The statement after it runs for each of this invocation's quads q < n / 4
// (unrolled straight-line code: lavapipe runs loops slower than masked ifs).
// It expands to several statements: use it at the top level of main.
#define FOR_EACH_QUAD(q)                                                                 \
  packed_first1 = int(pc.t[1]);                                                          \
  packed_first2 = int(pc.t[2]);                                                          \
  packed_period1 = uint(pc.st[1]);                                                       \
  packed_period2 = uint(pc.st[2]);                                                       \
  const uint packed_quads = pc.n / 4u;                                                   \
  [[unroll]] for (uint packed_k = 0u, q = 0u; packed_k < PACKED_QUADS; ++packed_k)       \
    if ((q = gl_WorkGroupID.x * (PACKED_LOCAL * PACKED_QUADS) + gl_LocalInvocationID.x + \
             packed_k * PACKED_LOCAL) < packed_quads)
#endif
