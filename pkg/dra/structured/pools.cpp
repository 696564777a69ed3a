#include "pkg/dra/structured/pools.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "pkg/api/nodeselector.h"

namespace ks::dra::structured {
namespace {

bool poolHasBindingConditions(const Pool& pool) {
  for (const auto& slice : pool.deviceSlicesTargetingNode)
    for (const auto& device : slice->spec.devices)
      if (!device.bindingConditions.empty()) return true;
  return false;
}

// Whether some device's counter consumption declares compatibility groups. Without the
// DRADeviceCompatibilityGroups feature such slices are ignored, whether or not their devices are in use:
// co-allocation cannot be validated, and the pool, now incomplete, gives none of its other devices either.
bool usesCompatibilityGroups(const api::ResourceSlice& slice) {
  for (const auto& device : slice.spec.devices)
    for (const auto& consumption : device.consumesCounters)
      if (!consumption.compatibilityGroups.empty()) return true;
  return false;
}

// The newest generation's slices of each pool, by pool ID.
using SlicesByPool = std::map<PoolID, std::vector<ResourceSlicePtr>>;

void addSlice(SlicesByPool& pools, const ResourceSlicePtr& slice) {
  auto& slices = pools[PoolID{slice->spec.driver, slice->spec.pool.name}];
  if (!slices.empty()) {
    const int64_t current = slices.front()->spec.pool.generation;
    if (slice->spec.pool.generation < current) return;          // out-dated
    if (slice->spec.pool.generation > current) slices.clear();  // newer generation replaces all
  }
  slices.push_back(slice);
}

// All of the pool's slices of `generation`, or nullopt when some slice has a newer one (the pool is being
// replaced and the caller's view is obsolete) (upstream checkSlicesInPool).
std::optional<std::vector<ResourceSlicePtr>> checkSlicesInPool(const std::vector<ResourceSlicePtr>& slices,
                                                               const PoolID& id, int64_t generation) {
  std::vector<ResourceSlicePtr> result;
  for (const auto& slice : slices) {
    if (slice->spec.driver != id.driver || slice->spec.pool.name != id.pool) continue;
    if (slice->spec.pool.generation == generation)
      result.push_back(slice);
    else if (slice->spec.pool.generation > generation)
      return std::nullopt;
  }
  return result;
}

std::optional<std::string> validateDeviceNames(const std::vector<ResourceSlicePtr>& slices) {
  std::set<std::string_view> names;
  for (const auto& slice : slices)
    for (const auto& device : slice->spec.devices)
      if (!names.insert(device.name).second) return "duplicate device name " + device.name;
  return std::nullopt;
}

std::optional<std::string> validateDeviceCounterConsumption(
    const std::map<std::string, const api::CounterSet*>& counterSets,
    const std::vector<ResourceSlicePtr>& slices) {
  for (const auto& slice : slices)
    for (const auto& device : slice->spec.devices)
      for (const auto& consumption : device.consumesCounters) {
        auto set = counterSets.find(consumption.counterSet);
        if (set == counterSets.end()) return "counter set " + consumption.counterSet + " not found";
        for (const auto& [name, counter] : consumption.counters)
          if (!set->second->counters.contains(name))
            return "counter " + name + " not found in counter set " + set->second->name;
      }
  return std::nullopt;
}

Pool invalidPool(PoolID id, std::string reason) {
  return Pool{.id = std::move(id), .isInvalid = true, .invalidReason = std::move(reason)};
}

// `slices` are the pool's slices relevant for the node, `allSlicesForPool` (possibly empty) all of its
// current slices.
Pool buildPool(PoolID id, std::vector<ResourceSlicePtr> slices, const Features& features,
               const std::vector<ResourceSlicePtr>& allSlicesForPool) {
  // By name, so that driver authors can steer the first-fit search by naming.
  std::stable_sort(slices.begin(), slices.end(),
                   [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
  auto isCounterSetSlice = [&](const ResourceSlicePtr& slice) {
    return features.partitionableDevices && !slice->spec.sharedCounters.empty();
  };
  std::vector<ResourceSlicePtr> deviceSlices;
  std::vector<ResourceSlicePtr> counterSetSlices;
  std::vector<ResourceSlicePtr> notTargetingNode;
  for (auto& slice : slices) (isCounterSetSlice(slice) ? counterSetSlices : deviceSlices).push_back(slice);
  if (slices.size() < allSlicesForPool.size()) {
    std::set<std::string_view> targeting;
    for (const auto& slice : slices) targeting.insert(slice->metadata.name);
    for (const auto& slice : allSlicesForPool) {
      if (targeting.contains(slice->metadata.name)) continue;
      (isCounterSetSlice(slice) ? counterSetSlices : notTargetingNode).push_back(slice);
    }
  }

  if (auto err = validateDeviceNames(deviceSlices)) return invalidPool(std::move(id), std::move(*err));
  if (!features.partitionableDevices)
    return Pool{.id = std::move(id), .deviceSlicesTargetingNode = std::move(deviceSlices)};

  std::map<std::string, const api::CounterSet*> counterSets;
  for (const auto& slice : counterSetSlices)
    for (const auto& set : slice->spec.sharedCounters)
      if (!counterSets.emplace(set.name, &set).second)
        return invalidPool(std::move(id), "duplicate counter set name " + set.name);
  if (auto err = validateDeviceCounterConsumption(counterSets, deviceSlices))
    return invalidPool(std::move(id), std::move(*err));
  if (auto err = validateDeviceCounterConsumption(counterSets, notTargetingNode))
    return invalidPool(std::move(id), std::move(*err));
  return Pool{.id = std::move(id),
              .deviceSlicesTargetingNode = std::move(deviceSlices),
              .deviceSlicesNotTargetingNode = std::move(notTargetingNode),
              .counterSets = std::move(counterSets)};
}

// Go's %v of a v1.NodeSelector is its protobuf text form; this keeps the same shape for error messages.
std::string nodeSelectorString(const api::NodeSelector& selector) {
  auto requirements = [](const char* field, const std::vector<api::NodeSelectorRequirement>& reqs) {
    std::string s = std::string(field) + ":[]NodeSelectorRequirement{";
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (i) s += ",";
      s += "NodeSelectorRequirement{Key:" + reqs[i].key + ",Operator:" + reqs[i].op + ",Values:[";
      for (size_t j = 0; j < reqs[i].values.size(); ++j) s += (j ? " " : "") + reqs[i].values[j];
      s += "],}";
    }
    return s + "},";
  };
  std::string s = "&NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{";
  for (size_t i = 0; i < selector.nodeSelectorTerms.size(); ++i) {
    if (i) s += ",";
    s += "NodeSelectorTerm{" +
         requirements("MatchExpressions", selector.nodeSelectorTerms[i].matchExpressions) +
         requirements("MatchFields", selector.nodeSelectorTerms[i].matchFields) + "}";
  }
  return s + "},}";
}

}  // namespace

Result<bool> nodeMatches(const api::Node* node, std::string_view nodeName, bool allNodes,
                         const api::NodeSelector* nodeSelector) {
  if (!nodeName.empty()) return node != nullptr && node->metadata.name == nodeName;
  if (allNodes) return true;
  if (nodeSelector) {
    auto compiled = api::CompiledNodeSelector::create(*nodeSelector);
    if (!compiled.ok())
      return Error("failed to parse node selector " + nodeSelectorString(*nodeSelector) + ": " +
                   compiled.error().message());
    return node != nullptr && compiled->match(*node);
  }
  return false;
}

Result<std::vector<Pool>> gatherPools(const std::vector<ResourceSlicePtr>& slicesForNode,
                                      const api::Node* node, const Features& features,
                                      const std::vector<ResourceSlicePtr>& allSlices) {
  SlicesByPool pools;
  for (const auto& slice : slicesForNode) {
    const auto& spec = slice->spec;
    if (!features.partitionableDevices &&
        (spec.perDeviceNodeSelection.has_value() || !spec.sharedCounters.empty()))
      continue;
    if (!features.compatibilityGroups && usesCompatibilityGroups(*slice)) continue;
    // Slices with counter sets for other nodes are skipped here; a device that needs one makes the pool
    // look incomplete, and then all of its slices are collected below.
    bool relevant = false;
    // A view, not a copy: this runs for every slice on every node Filter visits.
    const std::string_view nodeName = orEmpty(spec.nodeName);
    const bool allNodes = spec.allNodes.value_or(false);
    if (!nodeName.empty() || allNodes || spec.nodeSelector) {
      auto match = nodeMatches(node, nodeName, allNodes, spec.nodeSelector ? &*spec.nodeSelector : nullptr);
      if (!match.ok())
        return Error("failed to perform node selection for slice " + slice->metadata.name + ": " +
                     match.error().message());
      relevant = *match;
    } else if (spec.perDeviceNodeSelection.value_or(false)) {
      for (const auto& device : spec.devices) {
        auto match = nodeMatches(node, orEmpty(device.nodeName), device.allNodes.value_or(false),
                                 device.nodeSelector ? &*device.nodeSelector : nullptr);
        if (!match.ok())
          return Error("failed to perform node selection for device " + device.name + " in slice " +
                       slice->metadata.name + ": " + match.error().message());
        if (*match) {
          relevant = true;
          break;
        }
      }
    } else {
      continue;  // some future node selection we cannot interpret; other pools may do
    }
    if (relevant) addSlice(pools, slice);
  }

  std::vector<Pool> result;
  std::vector<Pool> withBindingConditions;
  result.reserve(pools.size());
  auto add = [&](Pool pool) {
    (poolHasBindingConditions(pool) ? withBindingConditions : result).push_back(std::move(pool));
  };
  // The map is ordered by driver and pool name: the order upstream sorts the pools into.
  for (auto& [id, slices] : pools) {
    const int64_t sliceCount = slices.front()->spec.pool.resourceSliceCount;
    if (static_cast<int64_t>(slices.size()) == sliceCount) {
      add(buildPool(id, std::move(slices), features, {}));
      continue;
    }
    // Slices for other nodes may complete the pool (allocation mode All rejects incomplete pools).
    auto allSlicesForPool = checkSlicesInPool(allSlices, id, slices.front()->spec.pool.generation);
    if (!allSlicesForPool) continue;  // a newer generation is being published: ignore the old one
    // Ignored slices do not count towards completeness either.
    if (!features.compatibilityGroups)
      std::erase_if(*allSlicesForPool, [](const auto& slice) { return usesCompatibilityGroups(*slice); });
    if (static_cast<int64_t>(allSlicesForPool->size()) != sliceCount) {
      result.push_back(Pool{.id = id, .isIncomplete = true});
      continue;
    }
    add(buildPool(id, std::move(slices), features, *allSlicesForPool));
  }
  for (auto& pool : withBindingConditions) result.push_back(std::move(pool));
  return result;
}

}  // namespace ks::dra::structured
