// Events: a record queues a marker; the event is complete once the stream
// has run everything queued before its latest record. State is shared with
// queued work, so destroying an event with work pending is safe (as on CUDA).
#include <chrono>
#include <memory>

#include "internal.h"

namespace simt {

struct EventState {
  std::mutex mutex;
  std::condition_variable changed;
  uint64_t recorded = 0, completed = 0;
  std::chrono::steady_clock::time_point when;
  bool timing = true;
};

struct Event {
  std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

}  // namespace simt

using namespace simt;
using namespace simt::detail;

simtError_t simtEventCreate(simtEvent_t* event) {
  return simtEventCreateWithFlags(event, 0);
}

simtError_t simtEventCreateWithFlags(simtEvent_t* event, unsigned flags) {
  if (!event || (flags & ~unsigned(simtEventDisableTiming))) return fail(simtErrorInvalidValue);
  *event = new Event();
  (*event)->state->timing = !(flags & simtEventDisableTiming);
  return simtSuccess;
}

simtError_t simtEventDestroy(simtEvent_t event) {
  if (!event) return fail(simtErrorInvalidResourceHandle);
  delete event;
  return simtSuccess;
}

simtError_t simtEventRecord(simtEvent_t event, simtStream_t stream) {
  if (!event) return fail(simtErrorInvalidResourceHandle);
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  auto state = event->state;
  uint64_t target;
  {
    std::lock_guard lock(state->mutex);
    target = ++state->recorded;
  }
  enqueue(
      *s,
      [state, target] {
        std::lock_guard lock(state->mutex);
        if (target > state->completed)
          state->completed = target, state->when = std::chrono::steady_clock::now();
        state->changed.notify_all();
      },
      true);
  return simtSuccess;
}

simtError_t simtStreamWaitEvent(simtStream_t stream, simtEvent_t event, unsigned flags) {
  if (!event || flags != 0)
    return fail(!event ? simtErrorInvalidResourceHandle : simtErrorInvalidValue);
  Stream* s = resolve(stream);
  if (!s) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  auto state = event->state;
  uint64_t target;
  {
    std::lock_guard lock(state->mutex);
    target = state->recorded;
  }
  enqueue(
      *s,
      [state, target] {
        std::unique_lock lock(state->mutex);
        state->changed.wait(lock, [&] { return state->completed >= target; });
      },
      true);
  return simtSuccess;
}

simtError_t simtEventSynchronize(simtEvent_t event) {
  if (!event) return fail(simtErrorInvalidResourceHandle);
  auto& state = *event->state;
  std::unique_lock lock(state.mutex);
  uint64_t target = state.recorded;
  state.changed.wait(lock, [&] { return state.completed >= target; });
  return has_launch_failure() ? fail(simtErrorLaunchFailure) : simtSuccess;
}

simtError_t simtEventQuery(simtEvent_t event) {
  if (!event) return fail(simtErrorInvalidResourceHandle);
  if (has_launch_failure()) return fail(simtErrorLaunchFailure);
  std::lock_guard lock(event->state->mutex);
  return event->state->completed >= event->state->recorded ? simtSuccess : simtErrorNotReady;
}

simtError_t simtEventElapsedTime(float* ms, simtEvent_t start, simtEvent_t end) {
  if (!ms || !start || !end) return fail(simtErrorInvalidValue);
  for (simtEvent_t e : {start, end}) {
    std::lock_guard lock(e->state->mutex);
    if (!e->state->timing || e->state->recorded == 0) return fail(simtErrorInvalidResourceHandle);
    if (e->state->completed < e->state->recorded) return fail(simtErrorNotReady);
  }
  *ms = std::chrono::duration<float, std::milli>(end->state->when - start->state->when).count();
  return simtSuccess;
}
