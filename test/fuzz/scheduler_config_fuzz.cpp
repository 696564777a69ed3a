// Fuzzes KubeSchedulerConfiguration loading (pkg/scheduler/apis/config): strict YAML decoding,
// defaulting and validation, as --config does. A configuration that loads is written back
// (--write-config-to) and must load again, and, unless a profile enables a plugin twice at one extension
// point (which the framework refuses), to an equal configuration (config.h's promise).

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "test/fuzz/fuzz_check.h"

namespace {

// A plugin enabled twice at one extension point (after defaulting). The scheduler refuses such a profile
// when it builds the framework ("plugin X already registered as ..."), and upstream's mergePluginSet is not
// idempotent on it: a reconfigured default plugin listed twice swaps its weights each time the written
// config is loaded again (MergePluginSetTest.MergingAMergedDuplicateSwapsItsWeights).
bool enablesAPluginTwice(const ks::config::KubeSchedulerConfiguration& config) {
  for (const auto& profile : config.profiles) {
    for (const auto& field : ks::config::kPluginsFields) {
      std::set<std::string_view> seen;
      for (const auto& plugin : (profile.plugins.*field.set).enabled) {
        if (!seen.insert(plugin.name).second) return true;
      }
    }
  }
  return false;
}

}  // namespace

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
  if (enablesAPluginTwice(*decoded)) return 0;
  FUZZ_CHECK(*again == *decoded);
  FUZZ_CHECK_EQ_STR(written, encodeConfig(*again));
  return 0;
}
