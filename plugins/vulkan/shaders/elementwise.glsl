// Elementwise push constants (mirrored by launch.h): up to four tensors of
// one shape (t[0] the output), n elements, and their strides. With ndim <= 1
// the strides are st[]; otherwise meta holds sizes[ndim] then ndim strides
// per tensor. Each invocation walks the elements grid-stride.
layout(local_size_x = 256) in;

layout(push_constant, scalar) uniform Push {
  uint64_t meta;
  uint64_t t[4];
  uint64_t s0;
  uint64_t s1;
  uint n;
  int ndim;
  int st[4];
} pc;

// Element offsets of linear index i in each of the four tensors.
ivec4 offsets(uint i) {
  if (pc.ndim <= 1) return int(i) * ivec4(pc.st[0], pc.st[1], pc.st[2], pc.st[3]);
  Meta m = Meta(pc.meta);
  int nd = pc.ndim;
  ivec4 o = ivec4(0);
  for (int d = nd - 1; d >= 0; --d) {
    uint size = uint(m.v[d]);
    int idx = int(i % size);
    i /= size;
    o += idx * ivec4(m.v[nd + d], m.v[2 * nd + d], m.v[3 * nd + d], m.v[4 * nd + d]);
  }
  return o;
}

#define FOR_EACH_ELEMENT(i) \
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * 256u)
