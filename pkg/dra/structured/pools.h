#pragma once
// Resource pools as the allocator sees them for one node (upstream pools_experimental.go): the slices
// that are available on the node, grouped by driver and pool, keeping only each pool's newest generation.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resource.h"
#include "pkg/dra/structured/types.h"
#include "pkg/util/result.h"

namespace ks::dra::structured {

using ResourceSlicePtr = std::shared_ptr<const api::ResourceSlice>;

struct PoolID {
  std::string driver;
  std::string pool;

  std::string toString() const { return driver + "/" + pool; }
  auto operator<=>(const PoolID&) const = default;
  bool operator==(const PoolID&) const = default;
};

struct Pool {
  PoolID id;
  bool isIncomplete = false;  // fewer slices than the pool's resourceSliceCount
  bool isInvalid = false;     // e.g. a device name repeated across slices
  std::string invalidReason;
  std::vector<ResourceSlicePtr> slices;
};

// An optional string's value as a view, empty when absent.
inline std::string_view orEmpty(const std::optional<std::string>& s) {
  return s ? std::string_view(*s) : std::string_view{};
}

// Whether a node-selection triple (nodeName, allNodes, nodeSelector; the first one set wins) selects `node`.
// `node` may be null: then only allNodes matches. Fails when the node selector does not parse.
Result<bool> nodeMatches(const api::Node* node, std::string_view nodeName, bool allNodes,
                         const api::NodeSelector* nodeSelector);

// The pools with at least one slice available on `node`. Slices whose node selection is unknown (or
// per-device without the PartitionableDevices feature) are skipped. Pools with devices that have binding
// conditions come last, so that simpler devices are preferred. Pools are otherwise in the order their
// first slice appears in `slices` (upstream iterates a Go map here, i.e. in random order).
Result<std::vector<Pool>> gatherPools(const std::vector<ResourceSlicePtr>& slices, const api::Node* node,
                                      const Features& features);

}  // namespace ks::dra::structured
