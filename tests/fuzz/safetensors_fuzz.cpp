// libFuzzer entry point for the safetensors parser. Any input must either
// parse into tensors that fit in it, or be refused with a plexus::Error;
// anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "plexus/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  plexus::Safetensors s;
  try {
    s = plexus::parse_safetensors({data, size}, "fuzz input");
  } catch (const plexus::Error&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  // Accepted: the tensors' bytes came from the input, so together they fit in it.
  size_t total = 0;
  for (const auto& [name, t] : s.tensors) {
    if (!t.device().is_cpu() || !t.is_contiguous() || t.storage()->nbytes() != t.nbytes()) {
      std::fprintf(stderr, "tensor '%s' loaded with an inconsistent layout\n", name.c_str());
      std::abort();
    }
    total += t.nbytes();
  }
  if (total > size) {
    std::fprintf(stderr, "tensors hold %zu bytes, more than the %zu bytes of input\n", total, size);
    std::abort();
  }
  return 0;
}
