#include "crash.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace plexus::conformance {

namespace {
// Written before each case by the main thread, read by the handler: plain
// buffers, since only async-signal-safe calls may run in a handler.
char g_message[8192];
std::atomic<size_t> g_length{0};

void on_signal(int sig) {
  const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGILL ? "SIGILL" : "SIGABRT";
  const char head[] = "\nplexus-conformance: the process crashed with ";
  ssize_t ignored = write(STDOUT_FILENO, head, sizeof head - 1);
  ignored = write(STDOUT_FILENO, name, std::strlen(name));
  size_t n = g_length.load();
  if (n) {
    ignored = write(STDOUT_FILENO, g_message, n);
  } else {
    const char none[] = " outside any case\n";
    ignored = write(STDOUT_FILENO, none, sizeof none - 1);
  }
  (void)ignored;
  _exit(1);
}
}  // namespace

void install_crash_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void crash_context(const char* id, const char* rerun) {
  g_length.store(0);
  if (!id) return;
  size_t n = 0;
  auto add = [&](const char* s) {
    size_t l = std::strlen(s);
    if (n + l >= sizeof g_message) l = sizeof g_message - 1 - n;
    std::memcpy(g_message + n, s, l);
    n += l;
  };
  add(" in case ");
  add(id);
  add("\n     re-run: ");
  add(rerun);
  add("\n");
  g_length.store(n);
}

}  // namespace plexus::conformance
