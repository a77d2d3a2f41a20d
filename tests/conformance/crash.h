// When a plugin crashes the process, the suite still says which case did it
// and how to repeat that case alone.
#pragma once

namespace plexus::conformance {

// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that print
// the current case and its re-run command, then exit with status 1.
void install_crash_handler();
// The case now running and the command that repeats it; nullptr clears it.
void crash_context(const char* id, const char* rerun);

}  // namespace plexus::conformance
