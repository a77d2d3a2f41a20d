// libFuzzer entry point for the operator schema parser (plexus::parse_schema),
// which reads the catalog's schemas and every schema a plugin defines
// (define_op). Any input must either parse, or be refused with a
// plexus::Error; a parsed schema must print as text that parses back to the
// same schema. Anything else (a crash, a sanitizer report, another exception,
// a schema that does not survive its own printing) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "plexus/error.h"
#include "plexus/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  plexus::Schema s;
  try {
    s = plexus::parse_schema(text);
  } catch (const plexus::Error&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  std::string printed = s.str();
  try {
    if (!(plexus::parse_schema(printed) == s)) {
      std::fprintf(stderr, "'%s' printed as '%s', which parses to another schema\n",
                   std::string(text).c_str(), printed.c_str());
      std::abort();
    }
  } catch (const plexus::Error& e) {
    std::fprintf(stderr, "'%s' printed as '%s', which does not parse: %s\n",
                 std::string(text).c_str(), printed.c_str(), e.what());
    std::abort();
  }
  return 0;
}
