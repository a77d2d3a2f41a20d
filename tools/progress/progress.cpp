#include "progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace plexus::cli {

std::string progress_line(size_t done, size_t total, std::string_view what, size_t width) {
  done = std::min(done, total);
  constexpr size_t kBar = 24;
  size_t filled = total ? done * kBar / total : kBar;
  std::string s = fmt::format("[{}{}] {}/{}", std::string(filled, '#'),
                              std::string(kBar - filled, '.'), done, total);
  if (!what.empty()) s += fmt::format("  {}", what);
  if (width > 0 && s.size() > width - 1) s.resize(width - 1);
  return s;
}

Progress::Progress(std::ostream& out, bool tty, size_t width)
    : out_(out), tty_(tty), width_(width) {}

Progress::~Progress() {
  clear();
}

void Progress::update(size_t done, size_t total, std::string_view what) {
  if (!tty_) return;
  std::string line = progress_line(done, total, what, width_);
  if (drawn_ && line == shown_) return;  // the terminal already shows it
  // \r and "erase to end of line" redraw in place without scrolling.
  out_ << "\r\033[K" << line;
  out_.flush();
  shown_ = std::move(line);
  drawn_ = true;
}

void Progress::line(std::string_view text) {
  clear();
  out_ << text << '\n';
  out_.flush();
}

void Progress::clear() {
  if (!drawn_) return;
  out_ << "\r\033[K";
  out_.flush();
  drawn_ = false;
}

bool Progress::stdout_is_tty() {
  return isatty(STDOUT_FILENO) != 0;
}

size_t Progress::terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace plexus::cli
