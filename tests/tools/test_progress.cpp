// The progress bar of the command-line tools: a bar redrawn in place on a
// terminal, only plain lines otherwise.
#include <catch2/catch.hpp>
#include <sstream>

#include "progress.h"

using plexus::cli::Progress;
using plexus::cli::progress_line;

TEST_CASE("progress without a terminal prints only plain lines") {
  std::ostringstream out;
  {
    Progress p(out, /*tty=*/false);
    p.update(1, 4, "add.out");
    p.line("first");
    p.update(2, 4, "mul.out");
    p.line("second");
    p.clear();
  }
  CHECK(out.str() == "first\nsecond\n");
}

TEST_CASE("progress on a terminal redraws one bar and keeps lines above it") {
  std::ostringstream out;
  {
    Progress p(out, /*tty=*/true, 80);
    p.update(1, 4, "add.out");
    p.line("a row");
    p.update(2, 4, "mul.out");
    p.update(2, 4, "mul.out");  // unchanged: not drawn again
  }  // the destructor clears the bar
  const std::string erase = "\r\033[K";
  CHECK(out.str() == erase + "[######..................] 1/4  add.out" + erase + "a row\n" + erase +
                         "[############............] 2/4  mul.out" + erase);
}

TEST_CASE("a line on a terminal without a bar drawn is a plain line") {
  std::ostringstream out;
  Progress p(out, /*tty=*/true, 80);
  p.line("header");
  p.clear();
  CHECK(out.str() == "header\n");
}

TEST_CASE("the bar line fills in proportion and fits the terminal") {
  CHECK(progress_line(0, 3, "", 80) == "[........................] 0/3");
  CHECK(progress_line(3, 3, "x", 80) == "[########################] 3/3  x");
  CHECK(progress_line(5, 3, "", 80) == "[########################] 3/3");  // clamped to total
  CHECK(progress_line(0, 0, "", 80) == "[########################] 0/0");  // nothing to do is done
  std::string narrow = progress_line(1, 2, "a long description of the step", 40);
  CHECK(narrow.size() == 39);  // the last column stays free: no wrap
  CHECK(narrow == std::string("[############............] 1/2  a long description").substr(0, 39));
}
