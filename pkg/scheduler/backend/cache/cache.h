#pragma once
// The scheduler cache implementation (upstream cacheImpl in pkg/scheduler/backend/cache/cache.go).
//
// Data:
//   nodes_ / nodeList_  every NodeInfo, in a doubly-linked list ordered by most recent update (head =
//                       newest generation), so updateSnapshot walks only the nodes changed since the
//                       snapshot's generation and stops at the first older one.
//   nodeTree_           names of the nodes that exist (node object present), grouped by zone; the
//                       snapshot's list order.
//   podStates_          every cached pod by UID; assumedPods_ the UIDs still assumed.
//   podGroupStates_     "namespace/name" -> the group's live PodGroupStateImpl (GenericWorkload only); each
//                       state has its own lock for readers outside the cache (plugins), taken after mu_.
//   imageStates_        image name -> size and the set of nodes that have it. NodeInfo::imageStates() in
//                       the cache holds {size} only; snapshot copies (updateSnapshot, dump, addNode,
//                       updateNode) get numNodes filled in from this index at copy time, as upstream's
//                       ImageStateSummary.Snapshot().
//
// Lock discipline: one std::shared_mutex mu_ guards all of the above. Public methods take it (shared for
// read-only ones, exclusive otherwise) for their whole duration and never call each other; "...Locked"
// helpers require it held exclusively. No callback runs under mu_. The cleanup loop's own mutex
// (CleanupLoop::mu) is taken before mu_, never after.

#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/scheduler/backend/cache/interface.h"
#include "pkg/scheduler/backend/cache/node_tree.h"
#include "pkg/scheduler/backend/cache/pod_group_state.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/util/clock.h"

namespace ks::cache {

struct CacheOptions {
  // How long an assumed pod may stay after its binding finished without an Add event; 0 (upstream's
  // value) means assumed pods never expire.
  std::chrono::nanoseconds ttl{0};
  // Period of the background cleanup started by run() (upstream cleanAssumedPeriod).
  std::chrono::nanoseconds cleanupPeriod = std::chrono::seconds(1);
  // Time source for TTL deadlines and the cleanup timer; the real clock when null. Must outlive the cache.
  Clock* clock = nullptr;
  // Receives the errors upstream logs and carries on after (e.g. "Node not found when trying to remove
  // pod"); stderr when empty. Called under the cache's lock: must not call back into the cache.
  std::function<void(std::string_view)> logError;
  // The GenericWorkload gate: pod group states are kept (and copied into snapshots); off, every pod
  // group call is a no-op and pods' schedulingGroup is ignored.
  bool genericWorkload = false;
};

class CacheImpl final : public Cache, public framework::PodGroupManager {
 public:
  explicit CacheImpl(CacheOptions options = {});
  ~CacheImpl() override;
  CacheImpl(const CacheImpl&) = delete;
  CacheImpl& operator=(const CacheImpl&) = delete;

  // Cache.
  int nodeCount() const override;
  int podCount() const override;
  VoidResult assumePod(api::PodPtr pod) override;
  VoidResult finishBinding(const api::Pod& pod) override;
  VoidResult forgetPod(const api::Pod& pod) override;
  VoidResult addPod(api::PodPtr pod) override;
  VoidResult updatePod(const api::Pod& oldPod, api::PodPtr newPod) override;
  VoidResult removePod(const api::Pod& pod) override;
  VoidResult removeAssumedPod(const api::Pod& pod) override;
  Result<bool> isAssumedPod(const api::Pod& pod) const override;
  Result<api::PodPtr> getPod(const api::Pod& pod) const override;
  framework::NodeInfoPtr addNode(api::NodePtr node) override;
  framework::NodeInfoPtr updateNode(const api::Node& oldNode, api::NodePtr newNode) override;
  VoidResult removeNode(const api::Node& node) override;
  void addPodGroupMember(api::PodPtr pod) override;
  void updatePodGroupMember(const api::Pod& oldPod, api::PodPtr newPod) override;
  void removePodGroupMember(const api::Pod& pod) override;
  void addPodGroup(framework::PodGroupPtr podGroup) override;
  void updatePodGroup(const api::PodGroup& oldPodGroup, framework::PodGroupPtr newPodGroup) override;
  void removePodGroup(const api::PodGroup& podGroup) override;
  VoidResult updateSnapshot(Snapshot& snapshot) override;
  Dump dump() const override;

  // framework::PodGroupManager, live (what PreEnqueue and Permit read); thread-safe. Null without
  // genericWorkload or when the group is unknown (upstream's "pod group state not found" errors).
  framework::PodGroupPtr podGroup(std::string_view ns, std::string_view name) const override;
  framework::PodGroupStatePtr podGroupState(std::string_view ns, std::string_view name) const override;

  // Expires assumed pods whose binding finished and whose deadline is before `now` (only with ttl > 0).
  // Called every cleanupPeriod by the loop run() starts; callable directly (tests).
  void cleanupAssumedPods(Clock::TimePoint now);

  // Starts the periodic cleanup on the clock's timer thread (upstream New() does this). Idempotent.
  void run();
  // Stops it; when this returns no cleanup is running or will run. Idempotent; the destructor calls it.
  void stop();

  // Test accessors (each takes the lock).
  // A full copy of the cached NodeInfo for `name` (imageStates as stored), or null.
  framework::NodeInfoPtr nodeInfoForTest(const std::string& name) const;
  // Node names from the head of the most-recently-updated list ("" for none: never happens).
  std::vector<std::string> nodeListOrderForTest() const;
  NodeTree nodeTreeForTest() const;
  // Image index with numNodes = number of nodes.
  std::map<std::string, framework::ImageStateSummary> imageStatesForTest() const;
  // Number of cached pod states and of assumed pods.
  std::size_t podStateCountForTest() const;
  std::size_t assumedPodCount() const;
  // Copies of the pod group states' data by "namespace/name".
  std::map<std::string, PodGroupStateData> podGroupStatesForTest() const;

 private:
  struct PodState {
    api::PodPtr pod;
    // When the assumed pod expires; unset = never (ttl 0 or binding not finished).
    std::optional<Clock::TimePoint> deadline;
    // Blocks expiry while the binding still runs.
    bool bindingFinished = false;
  };
  struct NodeInfoListItem {
    std::string name;
    framework::NodeInfo info;
  };
  using NodeList = std::list<NodeInfoListItem>;
  struct CleanupLoop;

  // All require mu_ held exclusively.
  NodeList::iterator getOrCreateNodeLocked(const std::string& name);
  void moveNodeInfoToHeadLocked(const std::string& name);
  void removeNodeInfoFromListLocked(const std::string& name);
  void addPodLocked(api::PodPtr pod, bool assumed);
  VoidResult updatePodLocked(const api::Pod& oldPod, api::PodPtr newPod);
  // forget: an assumed pod goes back to unscheduled in its group (forgetPod); otherwise it leaves it.
  VoidResult removePodLocked(const api::Pod& pod, bool forget = false);
  VoidResult removeAssumedPodImpl(const api::Pod& pod, bool forget);
  // Pod group members (upstream addPodGroupMember ... forgetPodGroupMember); no-ops for non-members.
  bool isPodGroupMember(const api::Pod& pod) const;
  // "namespace/podGroupName" of a member.
  static std::string podGroupKeyOf(const api::Pod& pod);
  // Require mu_ held (shared is enough for find).
  PodGroupStateImpl* findPodGroupStateLocked(const std::string& key) const;
  PodGroupStateImpl& getOrCreatePodGroupStateLocked(const std::string& key);
  void addPodGroupMemberLocked(const api::PodPtr& pod);
  void removePodGroupMemberLocked(const api::Pod& pod);
  void assumePodGroupMemberLocked(const api::PodPtr& pod);
  void forgetPodGroupMemberLocked(const api::Pod& pod);
  // Drops the state under `key` when it is empty.
  void dropPodGroupStateIfEmptyLocked(const std::string& key);
  void updatePodGroupStateSnapshotLocked(Snapshot& snapshot) const;
  void addNodeImageStatesLocked(const api::Node& node, framework::NodeInfo& info);
  void removeNodeImageStatesLocked(const api::Node* node);
  void updateNodeInfoSnapshotListLocked(Snapshot& snapshot, bool updateAll);
  void removeDeletedNodesFromSnapshotLocked(Snapshot& snapshot);
  // Requires mu_ held (shared is enough).
  std::unique_ptr<framework::NodeInfo> snapshotNodeInfoLocked(const framework::NodeInfo& info) const;

  void logError(std::string_view msg) const;
  void armCleanup(const std::shared_ptr<CleanupLoop>& loop);

  const std::chrono::nanoseconds ttl_;
  const std::chrono::nanoseconds period_;
  Clock* const clock_;
  const std::function<void(std::string_view)> logError_;

  mutable std::shared_mutex mu_;
  std::unordered_set<std::string> assumedPods_;                                // guarded by mu_
  std::unordered_map<std::string, PodState> podStates_;                        // guarded by mu_
  NodeList nodeList_;                                                          // guarded by mu_; front = head
  std::unordered_map<std::string, NodeList::iterator> nodes_;                  // guarded by mu_
  NodeTree nodeTree_;                                                          // guarded by mu_
  std::unordered_map<std::string, framework::ImageStateSummary> imageStates_;  // guarded by mu_
  const bool genericWorkload_;
  std::unordered_map<std::string, std::shared_ptr<PodGroupStateImpl>> podGroupStates_;  // guarded by mu_

  std::mutex runMu_;                   // guards loop_
  std::shared_ptr<CleanupLoop> loop_;  // guarded by runMu_
};

// A cache with its cleanup loop running (upstream New).
std::unique_ptr<CacheImpl> newCache(CacheOptions options = {});

// The pod's cache key (its UID); error "cannot get cache key for pod with empty UID".
Result<std::string> getPodKey(const api::Pod& pod);

}  // namespace ks::cache
