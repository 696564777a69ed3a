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
  // decodeConfig validates by calling validateConfig on what it decoded, so decoding once without
  // validation and validating here covers both steps at the cost of one parse.
  DecodeOptions noValidation;
  noValidation.validate = false;
  auto decoded = decodeConfig(yaml, noValidation);
  if (!decoded.ok()) {
    FUZZ_CHECK(!decoded.error().message().empty());
    return 0;
  }
  if (auto valid = validateConfig(*decoded); !valid.ok()) {
    FUZZ_CHECK(!valid.error().message().empty());
    return 0;
  }

  const std::string written = encodeConfig(*decoded);
  auto again = decodeConfig(written);
  if (!again.ok())
    ks::fuzz::checkFailed("decode(encode(c)) ok", __FILE__, __LINE__, written, again.error().message());
  FUZZ_CHECK(*again == *decoded);
  FUZZ_CHECK_EQ_STR(written, encodeConfig(*again));
  return 0;
}
