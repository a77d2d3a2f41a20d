// The fixed cases of plexus-bench, each through the public C++ API on the
// chosen device; tensors are made once, outside the timed operation.
#include "cases.h"

#include "peers.h"
#include "plexus/ops.h"

namespace plexus::bench {
namespace {

constexpr int64_t k16M = int64_t(16) << 20;

Tensor f32(IntArrayRef sizes, Device dev, double value = 1.0) {
  return full(sizes, value, TensorOptions(DType::F32, dev));
}

Case sgemm(int64_t n) {
  return {"sgemm_" + std::to_string(n),
          0,
          2.0 * double(n) * double(n) * double(n),
          [n](Device dev) -> Op {
            Tensor a = f32({n, n}, dev, 0.5), b = f32({n, n}, dev, 0.25),
                   c = empty({n, n}, {DType::F32, dev});
            return [=] { mm_out(c, a, b); };
          },
          {{"onednn_direct", [n] { return PeerOp{onednn_sgemm(n), {}}; }}}};
}

}  // namespace

std::vector<Case> cases() {
  std::vector<Case> all;
  all.push_back({"add_1elem_out", 0, 0, [](Device dev) -> Op {
                   Tensor a = f32({1}, dev), b = f32({1}, dev), out = f32({1}, dev);
                   return [=] { add_out(out, a, b); };
                 }});
  all.push_back({"add_1elem_alloc", 0, 0, [](Device dev) -> Op {
                   Tensor a = f32({1}, dev), b = f32({1}, dev);
                   return [=] { Tensor c = add(a, b); };
                 }});
  all.push_back({"empty_1elem", 0, 0, [](Device dev) -> Op {
                   return [=] { Tensor c = empty({1}, {DType::F32, dev}); };
                 }});
  all.push_back({"add_16M_f32",
                 3.0 * 4 * k16M,
                 0,
                 [](Device dev) -> Op {
                   Tensor a = f32({k16M}, dev), b = f32({k16M}, dev), out = f32({k16M}, dev);
                   return [=] { add_out(out, a, b); };
                 },
                 {{"omp_loop_2t", [] { return PeerOp{omp_add_loop(k16M), {}}; }}}});
  // A contiguous copy: the bandwidth a device shows to a plain copy (the
  // yardstick of the elementwise goal on GPUs).
  all.push_back({"copy_16M_f32", 2.0 * 4 * k16M, 0, [](Device dev) -> Op {
                   Tensor x = f32({k16M}, dev), out = f32({k16M}, dev);
                   return [=] { out.copy_(x); };
                 }});
  all.push_back({"transpose_copy_4096", 2.0 * 4 * 4096 * 4096, 0, [](Device dev) -> Op {
                   Tensor x = f32({4096, 4096}, dev), out = f32({4096, 4096}, dev);
                   return [=] { out.copy_(x.t()); };
                 }});
  for (int64_t n : {256, 1024, 2048}) all.push_back(sgemm(n));
  // The large mul_mat shape issue 6 quotes for ggml (M 4096, N 512, K 14336).
  all.push_back({"sgemm_4096x512x14336", 0, 2.0 * 4096 * 512 * 14336, [](Device dev) -> Op {
                   Tensor a = f32({4096, 14336}, dev, 0.5), b = f32({14336, 512}, dev, 0.25),
                          c = empty({4096, 512}, {DType::F32, dev});
                   return [=] { mm_out(c, a, b); };
                 }});
  all.push_back({"softmax_4096x1024", 2.0 * 4 * 4096 * 1024, 0, [](Device dev) -> Op {
                   Tensor x = f32({4096, 1024}, dev, 0.5), out = f32({4096, 1024}, dev);
                   return [=] { softmax_out(out, x, -1); };
                 }});
  all.push_back({"sum_16M_f32",
                 4.0 * k16M,
                 0,
                 [](Device dev) -> Op {
                   Tensor x = f32({k16M}, dev), out = f32({}, dev);
                   return [=] { sum_out(out, x); };
                 },
                 {{"omp_loop_2t", [] { return PeerOp{omp_sum_loop(k16M), {}}; }}}});
  // A ResNet-50 stage-1 3x3 convolution: N=8, 64 -> 64 channels, 56x56, padding 1.
  all.push_back({"conv2d_resnet", 0, 2.0 * 8 * 64 * 56 * 56 * 64 * 3 * 3, [](Device dev) -> Op {
                   Tensor x = f32({8, 64, 56, 56}, dev, 0.5), w = f32({64, 64, 3, 3}, dev, 0.1);
                   Tensor bias = f32({64}, dev), out = f32({8, 64, 56, 56}, dev);
                   return [=] { conv2d_out(out, x, w, bias, {1, 1}, {1, 1}); };
                 }});
  all.push_back(
      {"layer_norm_4096x1024", 2.0 * 4 * 4096 * 1024, 0, [](Device dev) -> Op {
         Tensor x = f32({4096, 1024}, dev, 0.5), w = f32({1024}, dev), b = f32({1024}, dev, 0.0);
         Tensor out = f32({4096, 1024}, dev);
         return [=] { layer_norm_out(out, x, {1024}, w, b); };
       }});
  // Kernels off the fast contiguous-float32 paths: other dtypes, a broadcast,
  // an index reduction, pooling and a grouped convolution.
  constexpr int64_t k4M = int64_t(4) << 20;
  all.push_back({"add_4M_i32", 3.0 * 4 * k4M, 0, [](Device dev) -> Op {
                   TensorOptions o(DType::I32, dev);
                   Tensor a = full({k4M}, 3, o), b = full({k4M}, 2, o), out = empty({k4M}, o);
                   return [=] { add_out(out, a, b); };
                 }});
  all.push_back({"mul_4M_f16", 3.0 * 2 * k4M, 0, [](Device dev) -> Op {
                   TensorOptions o(DType::F16, dev);
                   Tensor a = full({k4M}, 1.5, o), b = full({k4M}, 0.5, o), out = empty({k4M}, o);
                   return [=] { mul_out(out, a, b); };
                 }});
  all.push_back({"add_row_broadcast_2048", 2.0 * 4 * k4M, 0, [](Device dev) -> Op {
                   Tensor a = f32({2048, 2048}, dev), row = f32({2048}, dev, 2.0),
                          out = f32({2048, 2048}, dev);
                   return [=] { add_out(out, a, row); };
                 }});
  all.push_back({"argmax_2048x2048", 4.0 * k4M, 0, [](Device dev) -> Op {
                   Tensor x = f32({2048, 2048}, dev), out = empty({2048}, {DType::I64, dev});
                   return [=] { argmax_out(out, x, 1, false); };
                 }});
  // ResNet-50's stem pooling: 3x3, stride 2, padding 1 over [8, 64, 112, 112].
  all.push_back(
      {"max_pool2d_resnet", 4.0 * 8 * 64 * (112 * 112 + 56 * 56), 0, [](Device dev) -> Op {
         Tensor x = f32({8, 64, 112, 112}, dev, 0.5), out = f32({8, 64, 56, 56}, dev);
         return [=] { max_pool2d_out(out, x, {3, 3}, {2, 2}, {1, 1}); };
       }});
  // A MobileNet depthwise 3x3 convolution: 128 groups of one channel, 56x56, N=8.
  all.push_back({"conv2d_depthwise", 0, 2.0 * 8 * 128 * 56 * 56 * 3 * 3, [](Device dev) -> Op {
                   Tensor x = f32({8, 128, 56, 56}, dev, 0.5), w = f32({128, 1, 3, 3}, dev, 0.1);
                   Tensor out = f32({8, 128, 56, 56}, dev);
                   return [=] { conv2d_out(out, x, w, {}, {1, 1}, {1, 1}, {1, 1}, 128); };
                 }});
  return all;
}

}  // namespace plexus::bench
