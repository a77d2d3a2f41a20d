// Reductions sum, mean, amax, amin over a list of dims, argmax, argmin over
// one dim or all: shaders/reduce.comp over strided inputs (shared-memory
// combining; no subgroup operations yet).
#include <algorithm>
#include <optional>
#include <vector>

#include "kernels.h"
#include "launch.h"
#include "plexus/sdk/op_args.hpp"

namespace plexus::vulkan {
namespace {

enum ReduceOp { kSum, kMean, kAmax, kAmin, kArgmax, kArgmin };

// Mirrors `Push` in shaders/reduce.comp.
struct ReducePush {
  uint64_t meta;
  uint64_t t[2];
  uint32_t n_out;
  uint32_t count;
  int32_t rstride;  // the reduced dim's stride, when there is one
};
static_assert(sizeof(ReducePush) == 40);

// Kept dims (self's and out's strides) and reduced dims (self's strides),
// each collapsed (plexus/sdk/layout.hpp), for the shader's meta block.
struct Plan {
  sdk::CollapsedDims<2> kept;
  sdk::CollapsedDims<1> reduced;
};

Plan plan(const plexus_kernel_call& call, const plexus_tensor& self, const plexus_tensor& out,
          const std::vector<bool>& reduced) {
  Plan p;
  bool keepdim = out.ndim == self.ndim, fits = true;
  for (int32_t d = 0, od = 0; d < self.ndim; ++d) {
    if (reduced[size_t(d)]) {
      fits = fits && p.reduced.push(self.sizes[d], {self.strides[d]});
      if (keepdim) ++od;
    } else {
      fits = fits && p.kept.push(self.sizes[d], {self.strides[d], out.strides[od++]});
    }
  }
  if (!fits)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "{} dims (at most {})", self.ndim, sdk::kMaxIterDims);
  return p;
}

// Mirrors `Push` of the PACKED form of shaders/reduce.comp.
struct ReducePackedPush {
  uint64_t x;
  uint32_t rows, n4, parts, per, count;
};
static_assert(sizeof(ReducePackedPush) == 32);

// The packed form of sum and mean (shaders/reduce.comp): float32, self
// contiguous and reduced over its trailing dims in rows of a multiple of 4
// elements, out contiguous, both starting on 16 bytes. Returns false,
// recording nothing, when it does not apply.
bool run_packed(VulkanBackend& b, const plexus_kernel_call& call, int op, const plexus_tensor& self,
                const plexus_tensor& out, const std::vector<bool>& reduced) {
  if (op != kSum && op != kMean) return false;
  Device& dev = b.device(call.device_index);
  bool trailing;
  const int64_t count = trailing_extent(self, reduced, trailing);
  const int64_t rows = count ? numel(self) / count : 0, n4 = count / 4;
  ReducePackedPush p{};
  VkBufferView xv;
  if (!trailing || count % 4 != 0 || count == 0 || count > INT32_MAX || rows > INT32_MAX ||
      out.dtype != PLEXUS_DTYPE_F32 || !is_contiguous(self) || !is_contiguous(out) ||
      !out.storage || block_offset(out) % 16 != 0 || !texel_source(dev, self, xv, p.x))
    return false;
  // About 16K partial sums in all (enough invocations for every core), each
  // over at least 64 texels, an even number per row.
  int64_t parts = std::clamp<int64_t>((16384 + rows - 1) / rows, 1, (n4 + 63) / 64);
  parts += parts & 1;
  const int64_t per = (n4 + parts - 1) / parts;
  if (rows * parts > int64_t{65535} * 64 ||
      rows * parts * 8 > int64_t(dev.info().max_storage_range) ||
      rows * 4 > int64_t(dev.info().max_storage_range))
    return false;
  Allocation* scratch = dev.allocate(size_t(rows * parts * 8));
  VkBufferView sv = dev.texel_view(scratch);
  if (!sv) {
    dev.deallocate(scratch);
    return false;
  }
  p.rows = uint32_t(rows);
  p.n4 = uint32_t(n4);
  p.parts = uint32_t(parts);
  p.per = uint32_t(per);
  p.count = uint32_t(count);
  const std::string module = module_name("reduce_packed", self.dtype);
  try {
    dev.dispatch_packed(call.stream, module.c_str(), {op, 0}, &p, sizeof p, scratch, 0,
                        VkDeviceSize(rows * parts * 8), {xv}, uint32_t((rows * parts + 63) / 64));
    p.x = (scratch->offset) / 16;
    dev.dispatch_packed(call.stream, module.c_str(), {op, 1}, &p, sizeof p,
                        static_cast<const Allocation*>(out.storage), VkDeviceSize(out.offset) * 4,
                        VkDeviceSize(rows) * 4, {sv}, uint32_t((rows + 63) / 64));
  } catch (...) {
    dev.deallocate(scratch);  // freed once the work recorded so far is done
    throw;
  }
  dev.deallocate(scratch);
  return true;
}

void run(VulkanBackend& b, const plexus_kernel_call& call, int op, const plexus_tensor& self,
         const plexus_tensor& out, const std::vector<bool>& reduced) {
  Plan p = plan(call, self, out, reduced);
  if (numel(out) == 0) return;
  if (run_packed(b, call, op, self, out, reduced)) return;
  const int64_t n_out = p.kept.numel, count = p.reduced.numel;
  if (count > INT32_MAX || n_out > INT32_MAX)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "more than 2^31 - 1 elements reduced or kept");
  // The meta block: kept and reduced ndim, then the kept sizes, self strides
  // and out strides, then the reduced sizes and self strides.
  std::vector<int32_t> meta{p.kept.ndim, p.reduced.ndim};
  for (const int64_t* v : {p.kept.sizes, p.kept.strides[0], p.kept.strides[1]})
    meta.insert(meta.end(), v, v + p.kept.ndim);
  for (const int64_t* v : {p.reduced.sizes, p.reduced.strides[0]})
    meta.insert(meta.end(), v, v + p.reduced.ndim);
  ReducePush push{};
  push.t[0] = address_of(out);
  push.t[1] = address_of(self);
  push.n_out = uint32_t(n_out);
  push.count = uint32_t(count);
  const int32_t one_reduced = p.reduced.ndim == 1 ? 1 : 0;
  if (one_reduced) push.rstride = int32_t(p.reduced.strides[0][0]);
  // Few elements per output: one invocation each; else a workgroup each.
  bool per_thread = count < 64;
  uint32_t groups = per_thread ? uint32_t(std::min<int64_t>((n_out + 255) / 256, 4096))
                               : uint32_t(std::min<int64_t>(n_out, 65535));
  b.device(call.device_index)
      .dispatch(call.stream, module_name("reduce", self.dtype).c_str(),
                {op, per_thread ? 1 : 0, one_reduced}, &push, sizeof push, meta.data(), meta.size(),
                groups);
}

// The dims `dim` names, as flags (plexus/sdk/op_args.hpp's reduced_dims).
std::vector<bool> reduced_dims(const sdk::Args& a, const plexus_tensor& self) {
  std::vector<bool> r(size_t(self.ndim), false);
  for (int64_t d : sdk::reduced_dims(a, 1, self)) r[size_t(d)] = true;
  return r;
}

// sum.IntList_out / mean.out(self, dim, keepdim, dtype, out)
template <int Op>
void sum_mean_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(4);
  sdk::check_same_dtype(self, out);
  run(b, call, Op, self, out, reduced_dims(a, self));
}

// amax.out / amin.out(self, dim, keepdim, out)
template <int Op>
void extreme_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  sdk::check_same_dtype(self, out);
  run(b, call, Op, self, out, reduced_dims(a, self));
}

// argmax.out / argmin.out(self, dim, keepdim, out): one dim, or all in row-major order.
template <int Op>
void arg_extreme_out(VulkanBackend& b, const plexus_kernel_call& call) {
  sdk::Args a(call);
  const plexus_tensor &self = a.tensor(0), &out = a.tensor(3);
  std::optional<int64_t> dim = a.optional_integer(1);
  std::vector<bool> reduced(size_t(self.ndim), !dim);
  if (dim) reduced[size_t(*dim)] = true;
  if (numel(self) == 0) return;
  run(b, call, Op, self, out, reduced);
}

}  // namespace

void register_reduce(VulkanBackend& b) {
  b.register_kernel<&sum_mean_out<kSum>>("sum.IntList_out", sdk::kNumericDTypes);
  b.register_kernel<&sum_mean_out<kMean>>("mean.out", sdk::kFloatingDTypes);
  b.register_kernel<&extreme_out<kAmax>>("amax.out", sdk::kAllDTypes);
  b.register_kernel<&extreme_out<kAmin>>("amin.out", sdk::kAllDTypes);
  b.register_kernel<&arg_extreme_out<kArgmax>>("argmax.out", sdk::kNumericDTypes);
  b.register_kernel<&arg_extreme_out<kArgmin>>("argmin.out", sdk::kNumericDTypes);
}

}  // namespace plexus::vulkan
