// A progress bar for long command-line work (plexus-conformance, plexus-bench):
// redrawn in place when the output is a terminal; otherwise only the lines
// the tool prints, so logs and pipes get plain, complete lines.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace plexus::cli {

class Progress {
 public:
  // `tty`: draw the bar (the output is a terminal); `width`: its columns.
  Progress(std::ostream& out, bool tty, size_t width = 80);
  // Clears a bar still drawn.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Shows `done` of `total` steps and what runs now; draws nothing without a tty.
  void update(size_t done, size_t total, std::string_view what);
  // Prints a line that stays: above the bar on a terminal, as it is otherwise.
  void line(std::string_view text);
  // Removes the bar, leaving the cursor at the start of an empty line.
  void clear();
  bool tty() const { return tty_; }

  // Whether stdout is a terminal, and its width (80 when unknown).
  static bool stdout_is_tty();
  static size_t terminal_width();

 private:
  std::ostream& out_;
  bool tty_;
  size_t width_;
  bool drawn_ = false;  // a bar is on the current line
  std::string shown_;   // the bar drawn last
};

// The bar line for `done` of `total` with `what`, at most `width` - 1 columns
// (the last column stays free so the terminal never wraps the line).
std::string progress_line(size_t done, size_t total, std::string_view what, size_t width);

}  // namespace plexus::cli
