// The SIMT emulation's runtime API: CUDA's runtime calls for one emulated
// device whose memory is host memory, spelled simt* so that gpu.h can map
// gpu* onto it as it maps it onto cuda* and hip*.
//
// Streams are ordered queues, each served by its own worker thread, so work
// really runs asynchronously to the host: runtime code that forgets a
// synchronization, frees memory still in use or reads a copy too early fails
// here as it would on a GPU, instead of passing because everything ran
// eagerly. The NULL stream is one more such stream (no legacy implicit
// synchronization with the others; CUDA's per-thread default stream semantics).
// Errors raised while work runs (a kernel's divergent barrier) are sticky, like
// CUDA's: every later call returns simtErrorLaunchFailure.
//
// Environment: PLEXUS_SIMT_DEVICE_COUNT=0 makes simtGetDeviceCount report no
// device (simtErrorNoDevice), to exercise a plugin's "no device" path;
// PLEXUS_SIMT_WARP_SIZE=64 runs kernels with AMD-sized warps (default 32);
// PLEXUS_SIMT_THREADS sets how many OS threads run blocks (default: cores).
#pragma once

#include <cstddef>

enum simtError_t {
  simtSuccess = 0,
  simtErrorInvalidValue = 1,
  simtErrorMemoryAllocation = 2,
  simtErrorInvalidConfiguration = 9,
  simtErrorInvalidDevicePointer = 17,
  simtErrorInvalidMemcpyDirection = 21,
  simtErrorInvalidResourceHandle = 400,
  simtErrorNotReady = 600,
  simtErrorNoDevice = 100,
  simtErrorInvalidDevice = 101,
  simtErrorLaunchFailure = 719,
};

enum simtMemcpyKind {
  simtMemcpyHostToHost = 0,
  simtMemcpyHostToDevice = 1,
  simtMemcpyDeviceToHost = 2,
  simtMemcpyDeviceToDevice = 3,
};

enum : unsigned { simtStreamDefault = 0, simtStreamNonBlocking = 1 };
enum : unsigned { simtEventDefault = 0, simtEventDisableTiming = 2 };

namespace simt {
struct Stream;
struct Event;
}  // namespace simt
using simtStream_t = simt::Stream*;
using simtEvent_t = simt::Event*;

// The subset of cudaDeviceProp the emulation fills; shared code reads no other field.
struct simtDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int multiProcessorCount;
  int major;
  int minor;
};

// Devices. Only device 0 exists (unless PLEXUS_SIMT_DEVICE_COUNT=0).
simtError_t simtGetDeviceCount(int* count);
simtError_t simtGetDeviceProperties(simtDeviceProp* prop, int device);
simtError_t simtSetDevice(int device);
simtError_t simtGetDevice(int* device);
simtError_t simtDeviceSynchronize();
simtError_t simtDriverGetVersion(int* version);
simtError_t simtRuntimeGetVersion(int* version);
simtError_t simtMemGetInfo(size_t* free_bytes, size_t* total_bytes);

// Errors.
const char* simtGetErrorString(simtError_t error);
const char* simtGetErrorName(simtError_t error);
simtError_t simtGetLastError();  // returns and clears this thread's last error
simtError_t simtPeekAtLastError();

// Memory. Device memory is tracked, so copies and memsets check that their
// device side lies inside one allocation (simtErrorInvalidValue otherwise).
simtError_t simtMalloc(void** ptr, size_t size);
simtError_t simtFree(void* ptr);
simtError_t simtMallocHost(void** ptr, size_t size);
simtError_t simtFreeHost(void* ptr);
// Synchronous: waits for all earlier work on the NULL stream.
simtError_t simtMemcpy(void* dst, const void* src, size_t count, simtMemcpyKind kind);
simtError_t simtMemset(void* ptr, int value, size_t count);
// Queued on stream; src is read when the copy runs, so it must stay valid
// until then (pinned-memory semantics, the strictest of CUDA's).
simtError_t simtMemcpyAsync(void* dst, const void* src, size_t count, simtMemcpyKind kind,
                            simtStream_t stream = nullptr);
simtError_t simtMemsetAsync(void* ptr, int value, size_t count, simtStream_t stream = nullptr);

// Streams.
simtError_t simtStreamCreate(simtStream_t* stream);
simtError_t simtStreamCreateWithFlags(simtStream_t* stream, unsigned flags);
// Waits for the stream's work, then ends its worker.
simtError_t simtStreamDestroy(simtStream_t stream);
simtError_t simtStreamSynchronize(simtStream_t stream);
simtError_t simtStreamQuery(simtStream_t stream);  // simtSuccess or simtErrorNotReady
simtError_t simtStreamWaitEvent(simtStream_t stream, simtEvent_t event, unsigned flags = 0);

// Events: markers of the work a stream had queued when they were recorded.
simtError_t simtEventCreate(simtEvent_t* event);
simtError_t simtEventCreateWithFlags(simtEvent_t* event, unsigned flags);
simtError_t simtEventDestroy(simtEvent_t event);
simtError_t simtEventRecord(simtEvent_t event, simtStream_t stream = nullptr);
simtError_t simtEventSynchronize(simtEvent_t event);
simtError_t simtEventQuery(simtEvent_t event);  // simtSuccess or simtErrorNotReady
simtError_t simtEventElapsedTime(float* ms, simtEvent_t start, simtEvent_t end);

namespace simt {
// Clears a sticky launch failure, for tests that provoke one on purpose
// (CUDA needs cudaDeviceReset and a new context for that).
void clear_launch_failure();
}  // namespace simt
