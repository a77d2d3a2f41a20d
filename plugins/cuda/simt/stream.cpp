// Streams: each an ordered queue drained by its own worker thread. Live
// handles are tracked so a destroyed or foreign stream is an error, not a crash.
#include <dlfcn.h>

#include <memory>
#include <set>

#include "internal.h"

namespace simt::detail {
namespace {

std::mutex g_streams_mutex;
std::set<Stream*> g_streams;  // live user streams

void serve(Stream* s) {
  std::unique_lock lock(s->mutex);
  for (;;) {
    s->changed.wait(lock, [&] { return s->stopping || !s->queue.empty(); });
    if (s->queue.empty()) return;  // stopping, and everything ran
    auto work = std::move(s->queue.front());
    s->queue.pop_front();
    lock.unlock();
    if (work.always || !has_launch_failure()) work.run();
    lock.lock();
    ++s->completed;
    s->changed.notify_all();
  }
}

Stream* start_stream() {
  stay_resident();
  auto* s = new Stream();
  s->worker = std::thread(serve, s);
  return s;
}

Stream& null_stream() {
  static Stream* s = start_stream();  // never destroyed; the library stays mapped
  return *s;
}

}  // namespace

void stay_resident() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&stay_resident), &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  });
}

Stream* resolve(simtStream_t stream) {
  if (!stream) return &null_stream();
  std::lock_guard lock(g_streams_mutex);
  return g_streams.count(stream) ? stream : nullptr;
}

void enqueue(Stream& s, std::function<void()> work, bool always) {
  std::lock_guard lock(s.mutex);
  s.queue.push_back({std::move(work), always});
  ++s.submitted;
  s.changed.notify_all();
}

void drain(Stream& s) {
  std::unique_lock lock(s.mutex);
  uint64_t target = s.submitted;
  s.changed.wait(lock, [&] { return s.completed >= target; });
}

// Every live stream, the NULL stream included, for device-wide waits.
std::vector<Stream*> all_streams() {
  std::lock_guard lock(g_streams_mutex);
  std::vector<Stream*> all(g_streams.begin(), g_streams.end());
  all.push_back(&null_stream());
  return all;
}

}  // namespace simt::detail

using namespace simt;
using namespace simt::detail;

simtError_t simtStreamCreate(simtStream_t* stream) {
  return simtStreamCreateWithFlags(stream, 0);
}

simtError_t simtStreamCreateWithFlags(simtStream_t* stream, unsigned flags) {
  if (!stream || flags > simtStreamNonBlocking) return fail(simtErrorInvalidValue);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  Stream* s = start_stream();
  std::lock_guard lock(g_streams_mutex);
  g_streams.insert(s);
  *stream = s;
  return simtSuccess;
}

simtError_t simtStreamDestroy(simtStream_t stream) {
  {
    std::lock_guard lock(g_streams_mutex);
    if (!stream || !g_streams.erase(stream)) return fail(simtErrorInvalidResourceHandle);
  }
  {
    std::lock_guard lock(stream->mutex);
    stream->stopping = true;
    stream->changed.notify_all();
  }
  stream->worker.join();
  delete stream;
  return simtSuccess;
}

simtError_t simtStreamSynchronize(simtStream_t stream) {
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  drain(*s);
  return has_launch_failure() ? fail(simtErrorLaunchFailure) : simtSuccess;
}

simtError_t simtStreamQuery(simtStream_t stream) {
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  std::lock_guard lock(s->mutex);
  return s->completed == s->submitted ? simtSuccess : simtErrorNotReady;
}

simtError_t simtDeviceSynchronize() {
  for (Stream* s : all_streams()) drain(*s);
  return has_launch_failure() ? fail(simtErrorLaunchFailure) : simtSuccess;
}
