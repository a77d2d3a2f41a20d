// Recording elementwise shaders from kernel calls: the push constants of
// shaders/elementwise.glsl, tensor addresses, dim collapsing and the scalar
// encoding every elementwise kernel file uses.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "backend.h"

namespace plexus::vulkan {

// Mirrors `Push` in shaders/elementwise.glsl (80 bytes).
struct ElementwisePush {
  uint64_t meta = 0;
  uint64_t t[4] = {0, 0, 0, 0};
  uint64_t s0 = 0;
  uint64_t s1 = 0;
  uint32_t n = 0;
  int32_t ndim = 0;
  int32_t st[4] = {0, 0, 0, 0};
};
static_assert(sizeof(ElementwisePush) == 80);

// The device address of element [0, ..., 0] of t.
uint64_t address_of(const plexus_tensor& t);

// Number of elements of t.
int64_t numel(const plexus_tensor& t);

// The short dtype name shaders are compiled under ("f32", "bool", ...).
const char* shader_dtype(plexus_dtype d);

// "<family>.<dtype>", the module name of a per-dtype shader.
std::string module_name(const char* family, plexus_dtype d);

// A scalar as the 64 bits SCALAR() in shaders/types.glsl reads for dtype d:
// float bits for float16/bfloat16/float32, double bits for float64, the value
// converted to d (wrapping) and sign-extended for integers and bool.
uint64_t scalar_bits(const sdk::Scalar& s, plexus_dtype d);

// scalar_bits of s after converting it to dtype d's element (rounding to
// float16/bfloat16 first), as a comparison's scalar operand is.
uint64_t element_scalar_bits(const sdk::Scalar& s, plexus_dtype d);

// The raw bits of s converted to dtype d (what fill_ stores).
uint64_t element_bits(const sdk::Scalar& s, plexus_dtype d);

// Copies the bytes spanned by t's elements to `host`, after the stream's
// earlier work (it submits and waits), and returns t's view of them (offset 0),
// for checks a shader cannot report (embedding's indices, zero divisors).
plexus_tensor read_back(Device& dev, void* stream, const plexus_tensor& t,
                        std::vector<uint8_t>& host);

// ---- the packed path (float32 through 16-byte texels; see launch.cpp) ----

// Byte offset of t's element 0 within its allocation's block.
VkDeviceSize block_offset(const plexus_tensor& t);

// Whether t's elements are dense in row-major order (size-1 dims ignored).
bool is_contiguous(const plexus_tensor& t);

// When the device has the packed path and t is float32 starting on a 16-byte
// boundary: its block's texel view and the texel of its element 0, true.
bool texel_source(Device& dev, const plexus_tensor& t, VkBufferView& view, uint64_t& first);

// Mirrors `Push` in shaders/matmul_packed.comp (matmul.cpp and conv.cpp record it).
struct SgemmPush {
  uint64_t a0, b0, c0;              // first texels: a, b (16-byte), c (4-byte)
  uint32_t M, N4, K4;               // N and K in 16-byte texels
  uint32_t as, ab, bs, bb, os, ob;  // row and batch strides of a, b, out, in texels
  int32_t cs[3];                    // c's batch, row, column strides, in elements
  float alpha, beta;
  int32_t use_c;
};
static_assert(sizeof(SgemmPush) == 88);

// The number of elements in the dims `in_row` marks, and whether they are
// t's trailing dims (every other dim before them, size-1 dims aside).
int64_t trailing_extent(const plexus_tensor& t, const std::vector<bool>& in_row, bool& trailing);

// Records `module` over the elements of tensors[0] (the output) with up to
// three more tensors of the same shape, after collapsing dims every tensor
// keeps contiguous. `push` carries the scalars; its tensor fields are filled here.
void launch_elementwise(Device& dev, void* stream, const char* module,
                        std::initializer_list<int32_t> spec,
                        std::initializer_list<const plexus_tensor*> tensors,
                        ElementwisePush push = {});

}  // namespace plexus::vulkan
