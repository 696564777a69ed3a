#pragma once
// Read-only views of the scheduler's snapshot given to plugins (upstream listers.go). The cache's
// Snapshot implements them; they are valid for the current scheduling cycle and are only read from the
// scheduling thread and the Filter/Score workers.

#include <string_view>
#include <vector>

#include "pkg/api/core.h"
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

// A SharedLister whose snapshot can be changed for a while and then put back (upstream
// MutableSnapshotSharedLister): pod-group preemption removes victims and adds pods inside one mutation
// session to see whether the group would fit. Only PodGroupPostFilter uses it, on the scheduling thread,
// with no reader running; a session started in a cycle must be ended in the same cycle.
class MutableSharedLister : public SharedLister {
 public:
  // Starts a session; error "cannot stack mutations" when one is already open.
  virtual VoidResult startMutations() = 0;
  // Ends the session, putting the snapshot back as it was at startMutations; error "no mutation session
  // started" when none is open.
  virtual VoidResult endMutations() = 0;
  // Adds the pod to the node's info (one without a node is created for an unknown name) and to the
  // snapshot-wide indexes. Error "AddPod() called outside of mutation session".
  virtual VoidResult addPod(PodInfoPtr podInfo, std::string_view nodeName) = 0;
  // Removes the pod (by UID) from the node's info and the snapshot-wide indexes. Errors "RemovePod()
  // called outside of mutation session", "node \"<name>\" not found in the snapshot", NodeInfo's.
  virtual VoidResult removePod(const api::Pod& pod, std::string_view nodeName) = 0;
};

}  // namespace ks::framework
