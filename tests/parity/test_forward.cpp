// Forward semantics of every catalog op against libtorch 1.13: every case of
// the conformance suite, in every dtype the op takes and every form it has
// (functional, out=, in-place, out aliasing an input), on the cpu plugin and
// through aten's op of the same schema name on the same bytes. Deliberate
// differences and ops aten lacks are listed in forward_differences.cpp.
#include <cstdlib>
#include <fstream>
#include <set>

#include "parity/aten_call.h"  // first: libtorch before Catch
#include "parity/forward_parity.h"

#include <catch2/catch.hpp>
#include "plexus/dispatcher.h"
#include "plexus/device_backend.h"

using namespace plexus;
using namespace plexus::parity;

namespace {

conformance::Target cpu_target() {
  conformance::Target tg;
  tg.device = Device(kCPU, 0);
  tg.backend = find_device_backend(tg.device.type);
  tg.backend_name = "cpu";
  return tg;
}

// While debugging: PLEXUS_PARITY_FILTER narrows a run to an "op/dtype" glob,
// and PLEXUS_PARITY_DUMP names a file that gets every mismatch, listed or not.
const ParityReport& report() {
  static const ParityReport r = [] {
    torch::set_num_threads(1);
    const char* f = std::getenv("PLEXUS_PARITY_FILTER");
    ParityReport rep = run_forward_parity(cpu_target(), f ? f : "*");
    if (const char* dump = std::getenv("PLEXUS_PARITY_DUMP")) {
      std::ofstream out(dump);
      for (const Mismatch& m : rep.mismatches)
        out << (listed(m) ? "listed " : "NEW ") << m.id() << ": " << m.message << "\n";
    }
    return rep;
  }();
  return r;
}

void check_agreement(const ParityReport& r) {
  int total = 0, unlisted = 0;
  for (const auto& [op, n] : r.compared) total += n;
  for (const Mismatch& m : r.mismatches) {
    if (listed(m)) continue;
    ++unlisted;
    if (unlisted <= 80) UNSCOPED_INFO(m.id() << ": " << m.message);
  }
  INFO(total << " case variants compared over " << r.compared.size() << " forms; "
             << r.mismatches.size() << " differ, " << unlisted << " of them not listed");
  int rounding = 0, upcast = 0;
  for (const auto& [k, n] : r.accuracy) rounding += n;
  for (const auto& [k, n] : r.upcast) upcast += n;
  WARN(total << " case variants compared over " << r.compared.size() << " forms: "
             << r.mismatches.size() << " differ as listed, " << rounding
             << " differ only in libtorch's rounding (plexus matches the float64 reference), "
             << upcast << " ran in libtorch in float32 (no 16-bit cpu kernel there)");
  CHECK(total > 0);
  CHECK(unlisted == 0);
}

void check_differences_used(const ParityReport& r) {
  for (const Difference& d : differences()) {
    bool used = false;
    for (const Mismatch& m : r.mismatches) used |= listed(m) == &d;
    INFO("difference '" << d.kind << "' (" << d.op << " " << d.dtype << " " << d.name << " "
                        << d.variant << ") covers no mismatch: remove or narrow it");
    CHECK(used);
  }
}

void check_crashes_used(const ParityReport& r) {
  for (const Difference& d : torch_crashes()) {
    INFO("libtorch crash entry '" << d.kind << "' covers no case: remove or narrow it");
    CHECK(r.crashes_skipped.count(&d));
  }
}

void check_every_op(const ParityReport& r) {
  std::set<std::string> unmatched;
  for (const Unmatched& u : unmatched_ops()) unmatched.insert(u.op);
  for (const Operator* op : Dispatcher::get().ops()) {
    if (op->name().find("::") != std::string::npos) continue;  // a plugin's own op
    const bool compared = r.compared.count(op->name()) && find_aten(op->name());
    INFO(op->name() << (compared ? " is compared and also listed as unmatched: remove the line"
                                 : " is neither compared with aten nor listed in unmatched_ops()"));
    CHECK(compared != (unmatched.count(op->name()) != 0));
  }
  for (const std::string& note : r.notes) UNSCOPED_INFO(note);
}

}  // namespace

// One test case: its sections share one run of every case.
TEST_CASE("forward parity with libtorch 1.13") {
  const ParityReport& r = report();
  SECTION("every op's forward agrees with libtorch, except the listed differences") {
    check_agreement(r);
  }
  SECTION("every listed difference covers a case that differs") {
    check_differences_used(r);
    check_crashes_used(r);
  }
  SECTION("every catalog op is compared with libtorch or listed with why it is not") {
    check_every_op(r);
  }
}
