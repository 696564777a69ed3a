#include "pkg/dra/structured/pools.h"

#include <map>
#include <set>
#include <tuple>

#include "pkg/api/nodeselector.h"

namespace ks::dra::structured {
namespace {

bool hasBindingConditions(const api::ResourceSlice& slice) {
  for (const auto& device : slice.spec.devices)
    if (!device.bindingConditions.empty()) return true;
  return false;
}

bool poolHasBindingConditions(const Pool& pool) {
  for (const auto& slice : pool.slices)
    if (hasBindingConditions(*slice)) return true;
  return false;
}

// Pools by ID, remembering the order in which they were first seen.
struct PoolSet {
  std::map<PoolID, size_t> index;
  std::vector<Pool> pools;

  void addSlice(const ResourceSlicePtr& slice) {
    PoolID id{slice->spec.driver, slice->spec.pool.name};
    auto [it, inserted] = index.emplace(id, pools.size());
    if (inserted) {
      pools.push_back(Pool{.id = std::move(id), .slices = {slice}});
      return;
    }
    Pool& pool = pools[it->second];
    const int64_t current = pool.slices.front()->spec.pool.generation;
    if (slice->spec.pool.generation < current) return;               // out-dated
    if (slice->spec.pool.generation > current) pool.slices.clear();  // newer generation replaces all
    pool.slices.push_back(slice);
  }
};

std::pair<bool, std::string> poolIsInvalid(const Pool& pool) {
  std::set<std::string> names;
  for (const auto& slice : pool.slices)
    for (const auto& device : slice->spec.devices)
      if (!names.insert(device.name).second) return {true, "duplicate device name " + device.name};
  return {false, ""};
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

Result<std::vector<Pool>> gatherPools(const std::vector<ResourceSlicePtr>& slices, const api::Node* node,
                                      const Features& features) {
  PoolSet pools;
  std::vector<ResourceSlicePtr> slicesWithBindingConditions;
  for (const auto& slice : slices) {
    const auto& spec = slice->spec;
    if (!features.partitionableDevices && spec.perDeviceNodeSelection.has_value()) continue;
    // A view, not a copy: this runs for every slice on every node Filter visits.
    const std::string_view nodeName = orEmpty(spec.nodeName);
    const bool allNodes = spec.allNodes.value_or(false);
    if (!nodeName.empty() || allNodes || spec.nodeSelector) {
      auto match = nodeMatches(node, nodeName, allNodes, spec.nodeSelector ? &*spec.nodeSelector : nullptr);
      if (!match.ok())
        return Error("failed to perform node selection for slice " + slice->metadata.name + ": " +
                     match.error().message());
      if (!*match) continue;
      if (hasBindingConditions(*slice))
        slicesWithBindingConditions.push_back(slice);
      else
        pools.addSlice(slice);
    } else if (spec.perDeviceNodeSelection.value_or(false)) {
      for (const auto& device : spec.devices) {
        auto match = nodeMatches(node, orEmpty(device.nodeName), device.allNodes.value_or(false),
                                 device.nodeSelector ? &*device.nodeSelector : nullptr);
        if (!match.ok())
          return Error("failed to perform node selection for device " + device.name + " in slice " +
                       slice->metadata.name + ": " + match.error().message());
        if (!*match) continue;
        if (hasBindingConditions(*slice))
          slicesWithBindingConditions.push_back(slice);
        else
          pools.addSlice(slice);
        break;
      }
    }
    // Otherwise the node selection is some future extension we cannot interpret; other pools may do.
  }
  for (const auto& slice : slicesWithBindingConditions) pools.addSlice(slice);

  std::vector<Pool> result;
  std::vector<Pool> withBindingConditions;
  result.reserve(pools.pools.size());
  for (auto& pool : pools.pools) {
    pool.isIncomplete =
        static_cast<int64_t>(pool.slices.size()) != pool.slices.front()->spec.pool.resourceSliceCount;
    std::tie(pool.isInvalid, pool.invalidReason) = poolIsInvalid(pool);
    if (poolHasBindingConditions(pool))
      withBindingConditions.push_back(std::move(pool));
    else
      result.push_back(std::move(pool));
  }
  for (auto& pool : withBindingConditions) result.push_back(std::move(pool));
  return result;
}

}  // namespace ks::dra::structured
