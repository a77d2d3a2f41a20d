// Moving tensor bytes between devices with only the backends' raw copies.
#pragma once

#include "plexus/tensor.h"

namespace plexus {

// A host tensor with t's sizes, strides and values: copies the byte range the
// view spans (not the whole storage). Returns t itself when it is on the cpu.
Tensor host_copy_of(const Tensor& t);
// Writes host tensor `src` (same shape as dst) into dst on any device,
// converting dtype and layout; needs no kernel on dst's device.
void write_from_host(const Tensor& dst, const Tensor& src);
// dst.copy_(src) where src (already dst's shape) lives on another device.
void cross_device_copy(const Tensor& dst, const Tensor& src);
// [first, last) byte range a view spans within its storage.
std::pair<size_t, size_t> byte_extent(const Tensor& t);

}  // namespace plexus
