// Fuzzes the kubeconfig parser (pkg/client/rest/config.h parseKubeconfig, what --kubeconfig and
// --master load): YAML, contexts, clusters, users, base64 data fields. Relative file references resolve
// against a directory that does not exist, so they fail to read; inputs naming device or kernel files
// (/dev, /proc, /sys) are skipped, since reading /dev/zero never ends in any kubeconfig loader and says
// nothing about the parser.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/client/rest/config.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view special : {"/dev", "/proc", "/sys"}) {
    if (text.find(special) != std::string_view::npos) return 0;
  }
  const std::string baseDir = "/nonexistent/ks-fuzz";
  auto config = ks::client::rest::parseKubeconfig(text, baseDir, "fuzz");
  if (!config.ok()) {
    FUZZ_CHECK(!config.error().message().empty());
    return 0;
  }
  FUZZ_CHECK(config->server.rfind("http", 0) == 0);
  // An explicit context name is looked up instead of current-context.
  (void)ks::client::rest::parseKubeconfig(text, baseDir, "fuzz", "ctx");
  return 0;
}
