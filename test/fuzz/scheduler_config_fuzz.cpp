// Fuzzes KubeSchedulerConfiguration loading (pkg/scheduler/apis/config): strict YAML decoding,
// defaulting and validation, as --config does. A configuration that loads is written back
// (--write-config-to) and must load again to an equal configuration (config.h's promise).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ks::config;
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  DecodeOptions noValidation;
  noValidation.validate = false;
  auto decoded = decodeConfig(yaml, noValidation);
  auto validated = decodeConfig(yaml);
  if (!decoded.ok()) {
    FUZZ_CHECK(!validated.ok());
    FUZZ_CHECK(!decoded.error().message().empty());
    return 0;
  }
  // Validation on its own agrees with the loader's validation step.
  const bool valid = validateConfig(*decoded).ok();
  FUZZ_CHECK(valid == validated.ok());
  if (!valid) return 0;
  FUZZ_CHECK(*validated == *decoded);

  const std::string written = encodeConfig(*validated);
  auto again = decodeConfig(written);
  if (!again.ok())
    ks::fuzz::checkFailed("decode(encode(c)) ok", __FILE__, __LINE__, written, again.error().message());
  FUZZ_CHECK(*again == *validated);
  FUZZ_CHECK_EQ_STR(written, encodeConfig(*again));
  return 0;
}
