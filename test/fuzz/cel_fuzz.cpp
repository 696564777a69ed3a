// Fuzzes DRA's CEL (pkg/dra/cel): every DeviceClass and ResourceClaim selector a user writes is compiled and
// evaluated by the scheduler, so no expression may crash it, hang it or leak. What compiles is evaluated
// against one device with attributes of each type and capacities; evaluation ends with a bool or an error
// with a message, within the runtime cost limit, and evaluating the program again gives the same outcome.
// (Compiling twice to compare was dropped: formatting up to 100 error reports with their source lines is
// most of a compile, and the compiler keeps no state between calls.)

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/dra/cel/compile.h"
#include "test/fuzz/fuzz_check.h"

namespace {

const ks::cel::Device& device() {
  static const ks::cel::Device d = [] {
    ks::cel::Device dev;
    dev.driver = "dra.example.com";
    dev.attributes["model"].stringValue = "a100";
    dev.attributes["cores"].intValue = 108;
    dev.attributes["healthy"].boolValue = true;
    dev.attributes["driverVersion"].versionValue = "1.2.3-rc.1+build";
    dev.attributes["other.example.com/zone"].stringValue = "zone-a";
    dev.capacity["memory"] = *ks::api::Quantity::parse("40Gi");
    dev.capacity["other.example.com/slots"] = *ks::api::Quantity::parse("1500m");
    return dev;
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ks::cel::CompilationResult r = ks::cel::compileExpression(text);
  if (r.error()) {
    FUZZ_CHECK(!r.error()->empty());
    return 0;
  }
  const auto m = r.deviceMatches(device());
  FUZZ_CHECK(ks::cel::CompilationResult::lastActualCost() <= ks::cel::EvalOptions{}.costLimit ||
             (!m.ok() && m.error().message().find("cost limit") != std::string::npos));
  if (!m.ok()) FUZZ_CHECK(!m.error().message().empty());
  // Evaluation is deterministic.
  const auto m2 = r.deviceMatches(device());
  FUZZ_CHECK(m.ok() == m2.ok());
  if (m.ok()) {
    FUZZ_CHECK(*m == *m2);
  } else {
    FUZZ_CHECK_EQ_STR(m.error().message(), m2.error().message());
  }
  return 0;
}
