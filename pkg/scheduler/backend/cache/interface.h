#pragma once
// The scheduler cache's contract (upstream pkg/scheduler/backend/cache/interface.go).
//
// The cache collects the pods bound (or being bound) to nodes and keeps node-level aggregates
// (framework::NodeInfo) up to date incrementally from pod and node events, so that each scheduling
// cycle only copies what changed into its Snapshot. Its operations are pod-centric. Events come from
// informers over the network and delivery is not guaranteed (a relist may skip some), so the cache
// tolerates missing ones.
//
// State machine of a pod in the cache:
//
//                +-------------------------------------------+  +----+
//                |                            Add            |  |    |
//                |                                           |  |    | Update
//                +      Assume                Add            v  v    |
//     Initial +--------> Assumed +------------+---> Added <--+
//        ^                +   +               |       +
//        |                |   |               |       |
//        |                |   |           Add |       | Remove
//        |                |   |               |       |
//        |                |   |               +       |
//        +----------------+   +-----------> Expired   +----> Deleted
//              Forget             Expire
//
// An assumed pod expires only when the cache has a TTL > 0 (upstream runs with 0: never), its binding
// has finished (finishBinding) and the TTL has passed since: without an Add event for that long,
// something went wrong and the pod shouldn't hold resources any more.
//
// "Initial", "Expired" and "Deleted" pods are not in the cache. Assumptions, as upstream:
//   - No pod is assumed twice.
//   - A pod can be added without going through the scheduler (Add without Assume).
//   - A pod that wasn't added is never removed or updated.
//   - "Expired" and "Deleted" are both valid end states: after e.g. a network issue a pod may have
//     changed state (added and deleted) without the cache hearing about it.
//
// Pod groups (GenericWorkload; only with CacheOptions::genericWorkload, every call below is a no-op
// without it): the cache keeps one framework::PodGroupState per group the scheduler knows a member or the
// PodGroup object of (upstream podGroupStates), and is the framework::PodGroupManager plugins read live.
// Bound and assumed members reach it through the pod operations above (assumePod: assumed; forgetPod:
// unscheduled again; addPod of a bound pod: assigned; removePod, removeAssumedPod and expiry: gone);
// unassigned members through addPodGroupMember / updatePodGroupMember / removePodGroupMember, which the
// scheduler's pod handlers call for pods of its profiles; the objects through addPodGroup /
// updatePodGroup / removePodGroup. A state with no member and no object is dropped.
//
// Pods are keyed by UID; every pod operation fails with "cannot get cache key for pod with empty UID"
// for a pod without one. Node-removal semantics: see removeNode.
//
// Threads: every method may be called from any thread (informer handlers, the scheduling thread, the
// binding pool); each takes the cache's single lock for its whole duration.

#include <map>
#include <memory>
#include <set>
#include <string>

#include "pkg/api/core.h"
#include "pkg/api/scheduling.h"
#include "pkg/scheduler/backend/cache/snapshot.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/util/result.h"

namespace ks::cache {

// A point-in-time copy of the cache, for debugging only (expensive).
struct Dump {
  // Keys (UIDs) of the assumed pods.
  std::set<std::string> assumedPods;
  // Node name -> a snapshot copy of its NodeInfo (incl. node-less infos of removed nodes with pods).
  std::map<std::string, framework::NodeInfoPtr> nodes;
};

class Cache {
 public:
  virtual ~Cache() = default;

  // Number of NodeInfos (incl. removed nodes whose pods are still cached). Tests only.
  virtual int nodeCount() const = 0;
  // Number of pods over all NodeInfos (incl. assumed pods and pods of removed nodes). Tests only.
  virtual int podCount() const = 0;

  // Adds the pod (spec.nodeName set to the chosen node) to its node's aggregates as if it were bound.
  // Called by the scheduling thread after choosing a node. Error "pod <uid>(<ns>/<name>) is in the
  // cache, so can't be assumed" when the pod is already assumed or added.
  virtual VoidResult assumePod(api::PodPtr pod) = 0;
  // Marks an assumed pod's binding as finished, starting its TTL (if any). Called by the binding pool.
  // A pod that isn't assumed is ignored.
  virtual VoidResult finishBinding(const api::Pod& pod) = 0;
  // Removes an assumed pod (binding failed, Reserve/Permit rejected); a pod no longer in the cache (its
  // deletion removed it meanwhile) is no error. Errors: "pod <uid>(<ns>/<name>) was assumed on <pod's
  // node> but assigned to <cached node>", "pod <uid>(<ns>/<name>) is not assumed, so it cannot be removed
  // or forgotten".
  virtual VoidResult forgetPod(const api::Pod& pod) = 0;
  // Removes an assumed pod whose API object was deleted while it was being bound (upstream
  // RemoveAssumedPod), with forgetPod's rules.
  virtual VoidResult removeAssumedPod(const api::Pod& pod) = 0;

  // A bound pod was observed (informer add). Confirms an assumed pod (replacing its object, on the node
  // it was actually bound to), re-adds an expired one, else error "pod <uid>(<ns>/<name>) was already
  // in added state".
  virtual VoidResult addPod(api::PodPtr pod) = 0;
  // A bound pod changed (informer update). Errors: "pod <uid>(<ns>/<name>) is not added to scheduler
  // cache, so cannot be updated", "assumed pod <uid>(<ns>/<name>) should not be updated". A pod that
  // moved to another node means the cache is corrupt: the process aborts, as upstream exits.
  virtual VoidResult updatePod(const api::Pod& oldPod, api::PodPtr newPod) = 0;
  // A bound pod was deleted (informer delete). Error "pod <uid>(<ns>/<name>) is not found in scheduler
  // cache, so cannot be removed from it". The cached object (not the argument) is removed; a
  // different non-empty nodeName aborts the process (corrupt cache), as upstream.
  virtual VoidResult removePod(const api::Pod& pod) = 0;
  // Whether the pod (by UID) is assumed.
  virtual Result<bool> isAssumedPod(const api::Pod& pod) const = 0;
  // The cached object for the pod's UID, even if its node was removed; error "pod <uid>(<ns>/<name>)
  // does not exist in scheduler cache".
  virtual Result<api::PodPtr> getPod(const api::Pod& pod) const = 0;

  // Adds the node, or replaces its object if present (incl. a removed node whose pods are still cached).
  // Returns a snapshot copy of its NodeInfo.
  virtual framework::NodeInfoPtr addNode(api::NodePtr node) = 0;
  // Replaces the node's object (adding it if unknown). Returns a snapshot copy of its NodeInfo.
  virtual framework::NodeInfoPtr updateNode(const api::Node& oldNode, api::NodePtr newNode) = 0;
  // Removes the node from the node tree (so from snapshots) at once. If pods are still cached on it
  // (their delete events may arrive later, on another watch) a node-less NodeInfo keeps them until they
  // are removed. Error "node <name> is not found" when unknown.
  virtual VoidResult removeNode(const api::Node& node) = 0;

  // An unassigned pod of a group was observed (informer add of a pending pod, or its update into a
  // member): unscheduled in its group's state (created if needed). Pods without spec.schedulingGroup are
  // ignored. Informer threads.
  virtual void addPodGroupMember(api::PodPtr pod) = 0;
  // An unassigned member changed (informer update of a pending pod): its object is replaced (assigned
  // when it got a nodeName). Without a state (a missed add) the error is logged and nothing happens.
  virtual void updatePodGroupMember(const api::Pod& oldPod, api::PodPtr newPod) = 0;
  // An unassigned member was deleted (or stopped being pending): removed from its group's state, which
  // is dropped when empty.
  virtual void removePodGroupMember(const api::Pod& pod) = 0;
  // A PodGroup was observed: set on its state (created if needed).
  virtual void addPodGroup(framework::PodGroupPtr podGroup) = 0;
  // A PodGroup changed: the new object replaces the old; without a state (a missed add) logged, ignored.
  virtual void updatePodGroup(const api::PodGroup& oldPodGroup, framework::PodGroupPtr newPodGroup) = 0;
  // A PodGroup was deleted: unset; the state is dropped when no member is left. Unknown: logged.
  virtual void removePodGroup(const api::PodGroup& podGroup) = 0;

  // Brings `snapshot` up to date, copying only NodeInfos changed since its generation; lists are
  // rebuilt when nodes were added or removed or a node's affinity / anti-affinity / PVC membership
  // changed, and the pod group states whose generation moved (only with CacheOptions::genericWorkload);
  // pods the snapshot still has assumed are forgotten first (logged). Only nodes with a node object are
  // included. Called by the scheduling thread at the start
  // of each cycle. On an inconsistency it rebuilds everything and returns "snapshot state is not
  // consistent, ..." (the cycle should fail; the next one sees a good snapshot).
  virtual VoidResult updateSnapshot(Snapshot& snapshot) = 0;

  // A copy of the cache for debugging.
  virtual Dump dump() const = 0;
};

}  // namespace ks::cache
