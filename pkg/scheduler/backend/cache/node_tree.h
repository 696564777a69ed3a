#pragma once
// nodeTree (upstream pkg/scheduler/backend/cache/node_tree.go): node names grouped by zone, listed
// round-robin across zones so that the first nodes the scheduler evaluates are spread over zones.
// Not thread-safe: only the cache uses it, under the cache's lock.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/util/result.h"

namespace ks::cache {

// Zone and region labels, stable and deprecated (beta) forms.
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
inline constexpr std::string_view kLabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region";

// The node's zone key, as upstream component-helpers GetZoneKey: "" when the node has neither a
// region nor a zone label, else "<region>:\x00:<zone>". The deprecated beta labels win over the
// stable ones when present (even if empty), as upstream.
std::string getZoneKey(const api::Node& node);

class NodeTree {
 public:
  NodeTree() = default;
  explicit NodeTree(const std::vector<api::NodePtr>& nodes);

  // Adds the node to its zone (appending the zone if new). A node already in that zone is ignored.
  void addNode(const api::Node& node);
  // Removes the node from the zone its labels name; error "node \"<n>\" in group \"<zone>\" was not
  // found" when it isn't there. An emptied zone is removed.
  VoidResult removeNode(const api::Node& node);
  // Moves the node when its zone changed (oldNode may be null: treated as zone ""). Errors from removing
  // the old entry are ignored, as upstream.
  void updateNode(const api::Node* oldNode, const api::Node& newNode);

  // Node names, one per zone in turn (zone order = order the zones were first added): the first node
  // of every zone, then the second of every zone, ... If numNodes() disagrees with the zones' contents
  // (can't happen unless corrupted), returns what it found and sets *error to "all zones exhausted
  // before reaching count of nodes expected".
  std::vector<std::string> list(std::optional<Error>* error = nullptr) const;

  int numNodes() const { return numNodes_; }
  const std::map<std::string, std::vector<std::string>>& tree() const { return tree_; }
  const std::vector<std::string>& zones() const { return zones_; }
  // Bumped whenever a node is actually added or removed, i.e. whenever list() may change.
  uint64_t version() const { return version_; }

  void setNumNodesForTest(int n) { numNodes_ = n; }

 private:
  void removeZone(const std::string& zone);

  std::map<std::string, std::vector<std::string>> tree_;  // zone -> node names in insertion order
  std::vector<std::string> zones_;                        // zones in insertion order
  int numNodes_ = 0;
  uint64_t version_ = 0;
};

}  // namespace ks::cache
