#pragma once
// Read-only views of the scheduler's snapshot given to plugins (upstream listers.go). The cache's
// Snapshot implements them; they are valid for the current scheduling cycle and are only read from the
// scheduling thread and the Filter/Score workers.

#include <string_view>
#include <vector>

#include "pkg/scheduler/framework/types.h"
#include "pkg/util/result.h"

namespace ks::framework {

class NodeInfoLister {
 public:
  virtual ~NodeInfoLister() = default;
  // All nodes in the snapshot, in the snapshot's (zone-interleaved) order.
  virtual const std::vector<NodeInfoPtr>& list() const = 0;
  // The nodes that have at least one pod with (anti-)affinity.
  virtual const std::vector<NodeInfoPtr>& havePodsWithAffinityList() const = 0;
  // The nodes that have at least one pod with required anti-affinity.
  virtual const std::vector<NodeInfoPtr>& havePodsWithRequiredAntiAffinityList() const = 0;
  // The node named `nodeName`, or an error "nodeinfo not found for node name \"<name>\"".
  virtual Result<NodeInfoPtr> get(std::string_view nodeName) const = 0;
};

// Whether a PVC ("namespace/name") is used by any scheduled or assumed pod.
class StorageInfoLister {
 public:
  virtual ~StorageInfoLister() = default;
  virtual bool isPVCUsedByPods(std::string_view key) const = 0;
};

class PodGroupManager;

class SharedLister {
 public:
  virtual ~SharedLister() = default;
  virtual const NodeInfoLister& nodeInfos() const = 0;
  virtual const StorageInfoLister& storageInfos() const = 0;
  // The pod groups as of the cycle's start plus what a pod-group cycle assumed (upstream
  // PodGroups()/PodGroupStates() of the snapshot); null when the lister keeps none (GenericWorkload off).
  virtual const PodGroupManager* podGroupManager() const { return nullptr; }
};

}  // namespace ks::framework
