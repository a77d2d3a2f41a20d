// Runs files through the fuzz target without libFuzzer, so every build (and
// ctest) replays the committed corpus: plexus-fuzz-replay FILE_OR_DIR...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {
int run_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", p.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  std::printf("%s\n", p.c_str());  // before running it: a crash names its input
  std::fflush(stdout);
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());  // aborts on a bug
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> inputs;
      for (const auto& e : fs::directory_iterator(arg))
        if (e.is_regular_file()) inputs.push_back(e.path());
      std::sort(inputs.begin(), inputs.end());  // the same order every run
      for (const fs::path& p : inputs) failures += run_file(p);
      files += static_cast<int>(inputs.size());
    } else {
      failures += run_file(arg);
      ++files;
    }
  }
  if (files == 0) {
    std::fprintf(stderr, "no input files found in the arguments\n");
    return 1;
  }
  std::printf("%d inputs replayed, %d unreadable\n", files, failures);
  return failures == 0 ? 0 : 1;
}
