#pragma once
// Snapshot (upstream pkg/scheduler/backend/cache/snapshot.go): the scheduling cycle's read-only view of
// the cluster. The cache fills it with Cache::updateSnapshot at the start of every cycle, copying only
// the NodeInfos whose generation moved since the last update; plugins read it through the framework's
// SharedLister / NodeInfoLister / StorageInfoLister interfaces.
//
// Threads: updated by the scheduling thread (under the cache's lock); read by the scheduling thread and
// the Filter/Score workers between updates. Not synchronised itself.
//
// Pod groups (GenericWorkload): the snapshot also holds a copy of the cache's pod group states (copied by
// generation in updateSnapshot) and is the cycle's framework::PodGroupManager. The pod-group cycle places
// its members one after the other in the snapshot with assumePod and takes them out again with forgetPod
// (in reverse order) before the next updateSnapshot, which forgets what was left (and logs it).
//
// Mutation sessions (framework::MutableSharedLister, for pod-group preemption): between startMutations
// and endMutations, addPod / removePod (and assumePod / forgetPod) change the snapshot freely and
// endMutations puts back exactly what was there at startMutations, NodeInfo generations included, so the
// next updateSnapshot copies nothing more than it would have. Upstream copies every NodeInfo and group
// state at startMutations and swaps the originals back at the end; here each NodeInfo and group state is
// copied the first time the session changes it and restored in place (the lists and the cycle's
// holders keep pointing at the same objects), and the changes to the affinity lists and PVC counts are
// recorded and undone. Two differences follow, neither visible to the preemption code: holders of a
// NodeInfo see the session's changes (upstream's old objects don't), and the affinity lists keep their
// order (upstream rebuilds them in list() order at startMutations). endMutations also restores the
// assumed-pod bookkeeping (upstream keeps it, which only matters if a session assumes a pod it doesn't
// forget).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/backend/cache/pod_group_state.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::cache {

// Heterogeneous-lookup hash so string_view keys need no allocation.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Pod group states by "namespace/name".
using PodGroupStateSnapshots = std::map<std::string, std::shared_ptr<PodGroupStateSnapshot>, std::less<>>;

using NodeInfoMap = std::unordered_map<std::string, framework::NodeInfoPtr, StringHash, std::equal_to<>>;

class Snapshot final : public framework::MutableSharedLister,
                       public framework::NodeInfoLister,
                       public framework::StorageInfoLister,
                       public framework::PodGroupManager {
 public:
  // An empty snapshot (upstream NewEmptySnapshot), generation 0.
  Snapshot() = default;
  // Copies would share NodeInfos with the original and be corrupted by its next update.
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  Snapshot(Snapshot&&) = default;
  Snapshot& operator=(Snapshot&&) = default;

  // SharedLister.
  const framework::NodeInfoLister& nodeInfos() const override { return *this; }
  const framework::StorageInfoLister& storageInfos() const override { return *this; }
  const framework::PodGroupManager* podGroupManager() const override { return this; }

  // NodeInfoLister. Lists are in the cache's nodeTree order (zones round-robin).
  const std::vector<framework::NodeInfoPtr>& list() const override { return nodeInfoList_; }
  const std::vector<framework::NodeInfoPtr>& havePodsWithAffinityList() const override {
    return havePodsWithAffinityNodeInfoList_;
  }
  const std::vector<framework::NodeInfoPtr>& havePodsWithRequiredAntiAffinityList() const override {
    return havePodsWithRequiredAntiAffinityNodeInfoList_;
  }
  // The node's info; error "nodeinfo not found for node name \"<name>\"" when absent or node-less.
  Result<framework::NodeInfoPtr> get(std::string_view nodeName) const override;

  // StorageInfoLister: whether a scheduled (or assumed) pod uses the PVC "namespace/name".
  bool isPVCUsedByPods(std::string_view key) const override { return usedPVCs_.contains(key); }

  // PodGroupManager: the groups as of the last updateSnapshot plus what assumePod / forgetPod changed.
  framework::PodGroupPtr podGroup(std::string_view ns, std::string_view name) const override;
  framework::PodGroupStatePtr podGroupState(std::string_view ns, std::string_view name) const override;

  // Places the pod (spec.nodeName set) in the snapshot for the rest of a pod-group cycle (upstream
  // Snapshot.AssumePod): on its node's NodeInfo (a node-less one is created for an unknown node) without
  // moving the node's generation, into the affinity lists and the used PVCs, and assumed in its group's
  // state (a group the snapshot doesn't know is left alone). Errors: "cannot get cache key for pod with
  // empty UID"; "pod <uid> is already assumed in the snapshot" (a pod is assumed at most once). Called by
  // the scheduling thread only, with no reader running.
  VoidResult assumePod(framework::PodInfoPtr podInfo);
  // Undoes assumePod exactly (upstream Snapshot.ForgetPod). Pods are forgotten in reverse order of their
  // assumption (the lists are reverted from their ends; a violation is logged and the list left as it
  // is). Errors: "cannot get cache key for pod with empty UID", "assumed pod \"<uid>\" not found in the
  // snapshot", NodeInfo::removePod's.
  VoidResult forgetPod(const api::Pod& pod);
  // forgetAllAssumedPods (what updateSnapshot does first), for tests.
  void forgetAllAssumedPodsForTest(const std::function<void(std::string_view)>& logError) {
    forgetAllAssumedPods(logError);
  }
  // Number of pods assumed and not forgotten.
  std::size_t assumedPodCount() const { return assumedPodKeys_.size(); }

  // MutableSharedLister (upstream StartMutations / EndMutations / AddPod / RemovePod); see the file
  // comment. addPod and removePod keep the node's info, the affinity lists, the used PVCs and the pod's
  // group state (added / deleted; a group the snapshot doesn't know is left alone) up to date; a
  // node-less info is created for an unknown node and erased when its last pod goes. Scheduling thread
  // only, with no reader running.
  VoidResult startMutations() override;
  VoidResult endMutations() override;
  VoidResult addPod(framework::PodInfoPtr podInfo, std::string_view nodeName) override;
  VoidResult removePod(const api::Pod& pod, std::string_view nodeName) override;
  bool inMutationSession() const { return session_ != nullptr; }
  // Ends a session left open, reporting it through logError (updateSnapshot calls it first: copying the
  // cache into a snapshot mid-session would be undone by a later endMutations).
  void endMutationsLeftOpen(const std::function<void(std::string_view)>& logError);

  // Number of entries in list().
  int numNodes() const { return static_cast<int>(nodeInfoList_.size()); }
  // The newest NodeInfo generation copied into this snapshot (0 when never updated).
  int64_t generation() const { return generation_; }

  const NodeInfoMap& nodeInfoMapForTest() const { return nodeInfoMap_; }
  std::set<std::string, std::less<>> usedPVCSetForTest() const;
  // Each used PVC with the number of nodes whose pods use it.
  std::map<std::string, int32_t> usedPVCCountsForTest() const { return {usedPVCs_.begin(), usedPVCs_.end()}; }
  // The group states by "namespace/name".
  const PodGroupStateSnapshots& podGroupStatesForTest() const {
    return podGroupStates_;
  }

 private:
  friend class CacheImpl;
  friend Snapshot newSnapshot(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes);
  friend Snapshot newSnapshotWithPodGroups(const std::vector<api::PodPtr>& pods,
                                           const std::vector<api::NodePtr>& nodes,
                                           const std::vector<framework::PodGroupPtr>& podGroups);

  // What assumePod added to the snapshot-wide lists, so forgetPod reverts exactly that.
  struct AssumedPodState {
    api::PodPtr pod;
    bool addedToAffinityList = false;
    bool addedToAntiAffinityList = false;
  };
  using NodeInfoList = std::vector<framework::NodeInfoPtr>;
  // What a mutation session must put back. Sized by what the session touched, not by the cluster.
  struct MutationSession {
    // The NodeInfo each touched name mapped to at the start (null: none) and its content then.
    struct NodeBackup {
      framework::NodeInfoPtr info;
      std::optional<framework::NodeInfo> content;
    };
    std::unordered_map<std::string, NodeBackup, StringHash, std::equal_to<>> nodes;
    // The touched group states and their data at the start.
    std::unordered_map<const PodGroupStateSnapshot*,
                       std::pair<std::shared_ptr<PodGroupStateSnapshot>, PodGroupStateData>>
        podGroupStates;
    // Changes to the affinity lists, oldest first: an append (removed == null) or the swap-removal of
    // `removed` from `index`.
    struct ListChange {
      NodeInfoList Snapshot::*list;
      std::size_t index;
      framework::NodeInfoPtr removed;
    };
    std::vector<ListChange> listChanges;
    // The count of each touched PVC key at the start (0: absent).
    std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> usedPVCs;
    // The assumed-pod bookkeeping at the start (usually empty: the pod-group cycle forgets its pods
    // before PodGroupPostFilter).
    std::unordered_map<std::string, AssumedPodState> assumedPodStates;
    std::vector<std::string> assumedPodKeys;
  };

  // Moves the PVC users of one node from its claims `before` to `after`.
  void updateUsedPVCs(const std::map<std::string, int>& before, const std::map<std::string, int>& after);
  // The NodeInfo for nodeName, created (without a node) when absent; backed up first in a session.
  const framework::NodeInfoPtr& nodeInfoForWrite(std::string_view nodeName);
  // Backs up the map entry and content of nodeName, the first time a session touches it.
  void backupNode(std::string_view nodeName);
  // Backs up a group state the first time a session touches it.
  void backupPodGroupState(const std::shared_ptr<PodGroupStateSnapshot>& state);
  // The affinity lists change only through these, which record the change in a session.
  void appendToList(NodeInfoList Snapshot::*list, const framework::NodeInfoPtr& info);
  // Removes the entry at index by moving the last one there (upstream removeNodeInfoFromList).
  void swapRemoveFromList(NodeInfoList Snapshot::*list, std::size_t index);
  // The pod's group state in this snapshot, or null.
  std::shared_ptr<PodGroupStateSnapshot> podGroupStateOf(const api::Pod& pod) const;
  // Forgets every pod still assumed, newest first, reporting them through logError (upstream
  // forgetAllAssumedPods; updateSnapshot calls it first).
  void forgetAllAssumedPods(const std::function<void(std::string_view)>& logError);

  // Node name -> info. Entries keep their address across updates (the lists point at them).
  NodeInfoMap nodeInfoMap_;
  std::vector<framework::NodeInfoPtr> nodeInfoList_;
  std::vector<framework::NodeInfoPtr> havePodsWithAffinityNodeInfoList_;
  std::vector<framework::NodeInfoPtr> havePodsWithRequiredAntiAffinityNodeInfoList_;
  // PVC keys ("namespace/name") used by at least one pod in the snapshot, with the number of nodes
  // whose pods use it: kept up to date from the changed nodes alone (upstream rebuilds the whole set
  // whenever one node's claims change, i.e. for every pod with a claim).
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> usedPVCs_;
  int64_t generation_ = 0;
  // Pod group states by "namespace/name" (ordered: tests compare them).
  PodGroupStateSnapshots podGroupStates_;
  // Pods assumed by the running pod-group cycle, by UID, and their UIDs in assume order.
  std::unordered_map<std::string, AssumedPodState> assumedPodStates_;
  std::vector<std::string> assumedPodKeys_;
  // The open mutation session, or null.
  std::unique_ptr<MutationSession> session_;
};

// A snapshot of these pods and nodes without a cache (upstream NewSnapshot), for tests and tools.
// Pods are grouped by spec.nodeName; list() holds the nodes in the given order, followed by (as
// upstream, which lists every map entry) a node-less info for each nodeName that names no given node,
// in name order. usedPVCSet holds the persistentVolumeClaim volumes of pods with a nodeName (not
// generic ephemeral volumes, as upstream). Image summaries count the nodes that have each image.
Snapshot newSnapshot(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes);
// newSnapshot plus pod group states (upstream NewSnapshot with GenericWorkload on, and
// NewTestSnapshotWithPodGroups): every pod with spec.schedulingGroup added to its group's state, and
// each PodGroup's object set on its state.
Snapshot newSnapshotWithPodGroups(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes,
                                  const std::vector<framework::PodGroupPtr>& podGroups);

// Helpers of newSnapshot, exposed for tests (upstream createImageExistenceMap / getNodeImageStates /
// createUsedPVCSet).
using ImageExistenceMap = std::map<std::string, std::set<std::string>>;
ImageExistenceMap createImageExistenceMap(const std::vector<api::NodePtr>& nodes);
std::map<std::string, framework::ImageStateSummary> getNodeImageStates(const api::Node& node,
                                                                       const ImageExistenceMap& existence);
std::set<std::string, std::less<>> createUsedPVCSet(const std::vector<api::PodPtr>& pods);

}  // namespace ks::cache
