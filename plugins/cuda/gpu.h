// gpu.h: one spelling of the GPU runtime API and kernel language for the three
// builds of the same sources: CUDA (nvcc, PLEXUS_GPU_CUDA), HIP (hipcc,
// PLEXUS_GPU_HIP) and the SIMT emulation on the host (g++, PLEXUS_GPU_SIMT).
//
// Runtime code calls gpu*() names; kernels use CUDA's kernel language plus the
// few PLEXUS_* macros below where CUDA and HIP differ or where plain C++
// cannot express CUDA syntax (<<<>>>, extern __shared__).
//
// Only what is mapped here may be used by shared sources. On SIMT,
// gpuDeviceProp holds only the fields listed in simt/runtime.h.
#pragma once

// The device type the plugin registers: its name, except in the hip
// plugin's kernel library (plugins/hip), which the "hip" plugin opens.
#ifndef PLEXUS_GPU_DEVICE_TYPE
#define PLEXUS_GPU_DEVICE_TYPE PLEXUS_PLUGIN_NAME
#endif

#if (defined(PLEXUS_GPU_CUDA) + defined(PLEXUS_GPU_HIP) + defined(PLEXUS_GPU_SIMT)) != 1
#error "gpu.h: define exactly one of PLEXUS_GPU_CUDA, PLEXUS_GPU_HIP, PLEXUS_GPU_SIMT"
#endif

#include <cstdint>

#if defined(PLEXUS_GPU_CUDA)
#include <cuda_runtime.h>
#define PLEXUS_GPU_API(name) cuda##name
#define PLEXUS_GPU_PREFIX "cuda"
#elif defined(PLEXUS_GPU_HIP)
#include <hip/hip_runtime.h>
#define PLEXUS_GPU_API(name) hip##name
#define PLEXUS_GPU_PREFIX "hip"
#else
#include "simt/simt.h"
#define PLEXUS_GPU_API(name) simt##name
#define PLEXUS_GPU_PREFIX "simt"
#endif

// ---- Runtime API: gpuX is cudaX / hipX / simtX ----------------------------
using gpuError_t = PLEXUS_GPU_API(Error_t);
using gpuStream_t = PLEXUS_GPU_API(Stream_t);
using gpuEvent_t = PLEXUS_GPU_API(Event_t);
#if defined(PLEXUS_GPU_HIP)
using gpuDeviceProp = hipDeviceProp_t;
#else
using gpuDeviceProp = PLEXUS_GPU_API(DeviceProp);
#endif

#define gpuSuccess PLEXUS_GPU_API(Success)
#define gpuErrorNotReady PLEXUS_GPU_API(ErrorNotReady)
#define gpuErrorNoDevice PLEXUS_GPU_API(ErrorNoDevice)
#define gpuErrorInvalidValue PLEXUS_GPU_API(ErrorInvalidValue)
#define gpuErrorInvalidDevice PLEXUS_GPU_API(ErrorInvalidDevice)
#define gpuErrorMemoryAllocation PLEXUS_GPU_API(ErrorMemoryAllocation)
#define gpuErrorInvalidConfiguration PLEXUS_GPU_API(ErrorInvalidConfiguration)
#define gpuErrorInvalidResourceHandle PLEXUS_GPU_API(ErrorInvalidResourceHandle)
#define gpuErrorLaunchFailure PLEXUS_GPU_API(ErrorLaunchFailure)
#define gpuMemcpyHostToDevice PLEXUS_GPU_API(MemcpyHostToDevice)
#define gpuMemcpyDeviceToHost PLEXUS_GPU_API(MemcpyDeviceToHost)
#define gpuMemcpyDeviceToDevice PLEXUS_GPU_API(MemcpyDeviceToDevice)
#define gpuMemcpyHostToHost PLEXUS_GPU_API(MemcpyHostToHost)
#define gpuStreamNonBlocking PLEXUS_GPU_API(StreamNonBlocking)
#define gpuEventDefault PLEXUS_GPU_API(EventDefault)
#define gpuEventDisableTiming PLEXUS_GPU_API(EventDisableTiming)

#define gpuGetDeviceCount PLEXUS_GPU_API(GetDeviceCount)
#define gpuGetDeviceProperties PLEXUS_GPU_API(GetDeviceProperties)
#define gpuSetDevice PLEXUS_GPU_API(SetDevice)
#define gpuGetDevice PLEXUS_GPU_API(GetDevice)
#define gpuDeviceSynchronize PLEXUS_GPU_API(DeviceSynchronize)
#define gpuDriverGetVersion PLEXUS_GPU_API(DriverGetVersion)
#define gpuRuntimeGetVersion PLEXUS_GPU_API(RuntimeGetVersion)
#define gpuMemGetInfo PLEXUS_GPU_API(MemGetInfo)
#define gpuGetErrorString PLEXUS_GPU_API(GetErrorString)
#define gpuGetErrorName PLEXUS_GPU_API(GetErrorName)
#define gpuGetLastError PLEXUS_GPU_API(GetLastError)
#define gpuPeekAtLastError PLEXUS_GPU_API(PeekAtLastError)

#define gpuMalloc PLEXUS_GPU_API(Malloc)
#define gpuFree PLEXUS_GPU_API(Free)
#if defined(PLEXUS_GPU_HIP)  // hipMallocHost/hipFreeHost are deprecated
#define gpuMallocHost(ptr, size) hipHostMalloc(ptr, size, 0)
#define gpuFreeHost hipHostFree
#else
#define gpuMallocHost PLEXUS_GPU_API(MallocHost)
#define gpuFreeHost PLEXUS_GPU_API(FreeHost)
#endif
#define gpuMemcpy PLEXUS_GPU_API(Memcpy)
#define gpuMemcpyAsync PLEXUS_GPU_API(MemcpyAsync)
#define gpuMemset PLEXUS_GPU_API(Memset)
#define gpuMemsetAsync PLEXUS_GPU_API(MemsetAsync)

#define gpuStreamCreate PLEXUS_GPU_API(StreamCreate)
#define gpuStreamCreateWithFlags PLEXUS_GPU_API(StreamCreateWithFlags)
#define gpuStreamDestroy PLEXUS_GPU_API(StreamDestroy)
#define gpuStreamSynchronize PLEXUS_GPU_API(StreamSynchronize)
#define gpuStreamQuery PLEXUS_GPU_API(StreamQuery)
#define gpuStreamWaitEvent PLEXUS_GPU_API(StreamWaitEvent)

#define gpuEventCreate PLEXUS_GPU_API(EventCreate)
#define gpuEventCreateWithFlags PLEXUS_GPU_API(EventCreateWithFlags)
#define gpuEventDestroy PLEXUS_GPU_API(EventDestroy)
#define gpuEventRecord PLEXUS_GPU_API(EventRecord)
#define gpuEventSynchronize PLEXUS_GPU_API(EventSynchronize)
#define gpuEventQuery PLEXUS_GPU_API(EventQuery)
#define gpuEventElapsedTime PLEXUS_GPU_API(EventElapsedTime)

// ---- Launching kernels ------------------------------------------------------
// PLEXUS_LAUNCH(kernel, grid, block, shmem_bytes, stream, args...): launches
// kernel asynchronously on stream; check gpuGetLastError() afterwards for a bad
// configuration. A template kernel with several arguments needs an alias or
// parentheses-free name (the macro splits on commas).
#if defined(PLEXUS_GPU_SIMT)
#define PLEXUS_LAUNCH(kernel, grid, block, shmem, stream, ...) \
  ::simt::launch_named(#kernel, kernel, grid, block, shmem, stream, ##__VA_ARGS__)
#else
#define PLEXUS_LAUNCH(kernel, grid, block, shmem, stream, ...) \
  kernel<<<grid, block, shmem, stream>>>(__VA_ARGS__)
#endif

// ---- Kernel language differences --------------------------------------------
// PLEXUS_DYNAMIC_SHARED(T, name): `T* name` pointing at the block's dynamic
// shared memory (the launch's shmem_bytes); `extern __shared__` on CUDA/HIP.
#if defined(PLEXUS_GPU_SIMT)
#define PLEXUS_DYNAMIC_SHARED(T, name) T* name = ::simt::dynamic_shared<T>()
#else
#define PLEXUS_DYNAMIC_SHARED(T, name)                           \
  extern __shared__ __align__(16) unsigned char name##_bytes_[]; \
  T* name = reinterpret_cast<T*>(name##_bytes_)
#endif

// A mask of lanes (64 bits: AMD wavefronts and SIMT warps may have 64 lanes)
// and the all-lanes mask the *_sync intrinsics take.
using gpu_lane_mask = unsigned long long;
#if defined(PLEXUS_GPU_CUDA)
#define PLEXUS_FULL_MASK 0xffffffffu
#else
#define PLEXUS_FULL_MASK (~0ull)
#endif

// HIP 5.2 has the warp intrinsics without *_sync; all lanes take part.
#if defined(PLEXUS_GPU_HIP)
#define __shfl_sync(mask, v, lane, ...) __shfl(v, lane, ##__VA_ARGS__)
#define __shfl_xor_sync(mask, v, lane, ...) __shfl_xor(v, lane, ##__VA_ARGS__)
#define __shfl_down_sync(mask, v, d, ...) __shfl_down(v, d, ##__VA_ARGS__)
#define __shfl_up_sync(mask, v, d, ...) __shfl_up(v, d, ##__VA_ARGS__)
#define __ballot_sync(mask, p) __ballot(p)
#define __any_sync(mask, p) __any(p)
#define __all_sync(mask, p) __all(p)
#endif
