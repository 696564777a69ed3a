#pragma once
// Helpers shared by the cache tests: upstream's makeBasePod, NodeInfo diffs, and the
// compareCacheWithNodeInfoSnapshot check.

#include <map>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/backend/cache/cache.h"
#include "pkg/scheduler/backend/cache/snapshot.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::cache::testing {

// A pod in namespace "node_info_cache_test" with uid = name, bound to nodeName, with one container
// requesting cpu/mem (only when cpu is non-empty) plus "name:qty" of an extended resource, and ports.
api::PodPtr makeBasePod(const std::string& nodeName, const std::string& objName, const std::string& cpu,
                        const std::string& mem, const std::string& extended,
                        const std::vector<api::ContainerPort>& ports);

api::ContainerPort hostPort(const std::string& ip, int32_t port, const std::string& protocol = "TCP");

framework::HostPortInfo portsOf(const std::vector<api::ContainerPort>& ports);

// What upstream's newNodeInfo(requested, nonzero, pods, usedPorts, imageStates) describes.
struct ExpectedNodeInfo {
  framework::Resource requested;
  framework::Resource nonZeroRequested;
  std::vector<api::PodPtr> pods;  // in order
  framework::HostPortInfo usedPorts;
  std::map<std::string, framework::ImageStateSummary> imageStates;
};

framework::Resource cpuMem(int64_t milliCPU, int64_t memory);

std::string toString(const framework::Resource& r);

// "" when equal, else a description of the differences. Pods are compared by object (value) and order.
std::string diffNodeInfo(const ExpectedNodeInfo& want, const framework::NodeInfo& got);
// Every field of the two NodeInfos; generation only if checkGeneration.
std::string diffNodeInfo(const framework::NodeInfo& want, const framework::NodeInfo& got,
                         bool checkGeneration);

// Upstream compareCacheWithNodeInfoSnapshot: the snapshot holds exactly the cache's nodes with a node
// object (equal NodeInfos incl. generation; image numNodes as the cache's index says, unless
// !exactImageCounts: numNodes of nodes not copied by the last update may be stale, as upstream), its list
// follows the cache's nodeTree order (ListOrder::Tree; ListOrder::Any: the same nodes in any order, as after
// a node was removed and re-added, which upstream does not reorder), and the derived lists / PVC set match.
// "" when consistent.
enum class ListOrder { Tree, Any };
std::string compareCacheWithSnapshot(const CacheImpl& cache, const Snapshot& snapshot,
                                     bool exactImageCounts = true, ListOrder listOrder = ListOrder::Tree);

std::vector<std::string> names(const std::vector<framework::NodeInfoPtr>& infos);

}  // namespace ks::cache::testing
