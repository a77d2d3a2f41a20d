// The PLEXUS_PROFILE hook (plexus/profiler.h): called once, by Dispatcher::get()
// while it builds the dispatcher.
#pragma once

namespace plexus {
class Dispatcher;
namespace profiler {

// When PLEXUS_PROFILE names a directory: turns the profiler on and writes its
// records there at exit.
void start_from_environment(Dispatcher& d);

}  // namespace profiler
}  // namespace plexus
