#pragma once
// Resource pools as the allocator sees them for one node (upstream pools_incubating.go): the slices
// that are available on the node, grouped by driver and pool, keeping only each pool's newest generation,
// plus what the pool's other slices contribute (counter sets, counter consumption of devices elsewhere).

#include <map>
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
  bool isIncomplete = false;  // fewer slices than the pool's resourceSliceCount; nothing else is set then
  bool isInvalid = false;     // e.g. a device name repeated across slices; nothing else is set then
  std::string invalidReason;
  // Slices with devices for the node, by name (with PartitionableDevices: those without counter sets).
  std::vector<ResourceSlicePtr> deviceSlicesTargetingNode;
  // With PartitionableDevices: the pool's device slices for other nodes, whose allocated devices also
  // consume the shared counters.
  std::vector<ResourceSlicePtr> deviceSlicesNotTargetingNode;
  // With PartitionableDevices: the pool's counter sets by name, pointing into the slices.
  std::map<std::string, const api::CounterSet*> counterSets;
};

// An optional string's value as a view, empty when absent.
inline std::string_view orEmpty(const std::optional<std::string>& s) {
  return s ? std::string_view(*s) : std::string_view{};
}

// Whether a node-selection triple (nodeName, allNodes, nodeSelector; the first one set wins) selects `node`.
// `node` may be null: then only allNodes matches. Fails when the node selector does not parse.
Result<bool> nodeMatches(const api::Node* node, std::string_view nodeName, bool allNodes,
                         const api::NodeSelector* nodeSelector);

// The pools with at least one slice in `slicesForNode` available on `node`. Slices whose node selection
// is unknown (or per-device or with counter sets, without the PartitionableDevices feature) are skipped.
// A pool that looks incomplete is checked against `allSlices`: slices for other nodes may complete it,
// and a newer generation elsewhere drops it. Pools are sorted by driver and pool name, those with devices
// that have binding conditions last (so that simpler devices are preferred).
Result<std::vector<Pool>> gatherPools(const std::vector<ResourceSlicePtr>& slicesForNode,
                                      const api::Node* node, const Features& features,
                                      const std::vector<ResourceSlicePtr>& allSlices);

}  // namespace ks::dra::structured
