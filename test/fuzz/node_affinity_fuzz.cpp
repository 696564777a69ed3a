// Fuzzes node selector terms and node affinity matching (pkg/api/nodeselector.h) as the NodeAffinity
// plugin runs them: the input is one JSON object {"pod": <Pod>, "node": <Node>}; both are decoded with
// the API codec, then the pod's required affinity (with spec.nodeSelector), its required terms compiled
// lazily and strictly, and its preferred terms are matched against the node.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/api/nodeselector.h"
#include "test/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ks::api;
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("pod") || !j.contains("node")) return 0;
  auto pod = fromJson<Pod>(j["pod"]);
  auto node = fromJson<Node>(j["node"]);
  if (!pod.ok() || !node.ok()) return 0;

  std::string error;
  const bool required = RequiredNodeAffinity::fromPod(*pod).match(*node, &error);
  if (required) FUZZ_CHECK(error.empty());

  const auto& affinity = pod->spec.affinity;
  if (!affinity || !affinity->nodeAffinity) return 0;
  const NodeAffinity& na = *affinity->nodeAffinity;
  if (const auto& terms = na.requiredDuringSchedulingIgnoredDuringExecution) {
    std::string lazyError;
    const bool lazy = LazyErrorNodeSelector::create(*terms, "spec.affinity").match(*node, &lazyError);
    std::string helperError;
    FUZZ_CHECK(matchNodeSelectorTerms(*node, *terms, &helperError) == lazy);
    auto strict = CompiledNodeSelector::create(*terms);
    // A selector that compiles strictly matches exactly when the lazy one does.
    if (strict.ok()) FUZZ_CHECK(strict->match(*node) == lazy);
  }
  auto preferred = PreferredSchedulingTerms::create(na.preferredDuringSchedulingIgnoredDuringExecution);
  if (preferred.ok()) (void)preferred->score(*node);
  return 0;
}
