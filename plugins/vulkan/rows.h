// The rows runner shared by softmax.cpp and layer_norm.cpp: one normalization
// per row of a tensor, the row being the dims `in_row` marks.
#pragma once

#include <vector>

#include "backend.h"

namespace plexus::vulkan {

// Records shaders/<family>.comp (a row shader: "softmax", "layer_norm") over
// x into y, row by row: the dims `in_row` marks make the row, the others are
// kept. `op` is the shader's constant 0 (softmax: 1 for log_softmax;
// layer_norm has none: 0). w and b (layer_norm's weight and bias, or
// nullptr) have the row's dims; eps is layer_norm's. Records on call.stream.
void run_rows(VulkanBackend& be, const plexus_kernel_call& call, const char* family, int32_t op,
              const plexus_tensor& x, const plexus_tensor& y, const std::vector<bool>& in_row,
              const plexus_tensor* w, const plexus_tensor* b, double eps);

}  // namespace plexus::vulkan
