#include "pkg/scheduler/backend/cache/node_tree.h"

#include <algorithm>

#include "pkg/util/strings.h"

namespace ks::cache {

namespace {
// labels[primary] if present, else labels[fallback] (or "").
std::string labelWithFallback(const api::Labels& labels, std::string_view primary,
                              std::string_view fallback) {
  if (auto it = labels.find(std::string(primary)); it != labels.end()) return it->second;
  if (auto it = labels.find(std::string(fallback)); it != labels.end()) return it->second;
  return {};
}
}  // namespace

std::string getZoneKey(const api::Node& node) {
  const api::Labels& labels = node.metadata.labels;
  const std::string zone = labelWithFallback(labels, kLabelFailureDomainBetaZone, kLabelTopologyZone);
  const std::string region = labelWithFallback(labels, kLabelFailureDomainBetaRegion, kLabelTopologyRegion);
  if (region.empty() && zone.empty()) return {};
  std::string key = region;
  key += ':';
  key += '\0';
  key += ':';
  key += zone;
  return key;
}

NodeTree::NodeTree(const std::vector<api::NodePtr>& nodes) {
  for (const auto& n : nodes) addNode(*n);
}

void NodeTree::addNode(const api::Node& node) {
  const std::string zone = getZoneKey(node);
  const std::string& name = node.metadata.name;
  if (auto it = tree_.find(zone); it != tree_.end()) {
    if (std::find(it->second.begin(), it->second.end(), name) != it->second.end()) return;
    it->second.push_back(name);
  } else {
    zones_.push_back(zone);
    tree_.emplace(zone, std::vector<std::string>{name});
  }
  ++numNodes_;
  ++version_;
}

VoidResult NodeTree::removeNode(const api::Node& node) {
  const std::string zone = getZoneKey(node);
  const std::string& name = node.metadata.name;
  if (auto it = tree_.find(zone); it != tree_.end()) {
    auto& names = it->second;
    if (auto pos = std::find(names.begin(), names.end(), name); pos != names.end()) {
      names.erase(pos);
      if (names.empty()) removeZone(zone);
      --numNodes_;
      ++version_;
      return {};
    }
  }
  return Error("node " + quote(name) + " in group " + quote(zone) + " was not found");
}

void NodeTree::removeZone(const std::string& zone) {
  tree_.erase(zone);
  if (auto it = std::find(zones_.begin(), zones_.end(), zone); it != zones_.end()) zones_.erase(it);
}

void NodeTree::updateNode(const api::Node* oldNode, const api::Node& newNode) {
  const std::string oldZone = oldNode ? getZoneKey(*oldNode) : std::string();
  const std::string newZone = getZoneKey(newNode);
  // The name can't change in an update, so an unchanged zone means nothing to do.
  if (oldZone == newZone) return;
  if (oldNode) (void)removeNode(*oldNode);  // ignored whether the old node existed, as upstream
  addNode(newNode);
}

std::vector<std::string> NodeTree::list(std::optional<Error>* error) const {
  std::vector<std::string> out;
  if (zones_.empty()) return out;
  out.reserve(static_cast<std::size_t>(std::max(numNodes_, 0)));
  std::size_t exhaustedZones = 0;
  std::size_t nodeIndex = 0;
  while (out.size() < static_cast<std::size_t>(std::max(numNodes_, 0))) {
    if (exhaustedZones >= zones_.size()) {
      if (error) *error = Error("all zones exhausted before reaching count of nodes expected");
      return out;
    }
    for (const auto& zone : zones_) {
      const auto& names = tree_.at(zone);
      if (nodeIndex >= names.size()) {
        if (nodeIndex == names.size()) ++exhaustedZones;  // first time this zone ran out
        continue;
      }
      out.push_back(names[nodeIndex]);
    }
    ++nodeIndex;
  }
  return out;
}

}  // namespace ks::cache
