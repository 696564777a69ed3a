#include "pkg/scheduler/backend/cache/cache.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace ks::cache {

namespace {

// klog.KObj: "namespace/name", or "name" without a namespace.
std::string kObj(const api::Pod& pod) {
  if (pod.metadata.namespace_.empty()) return pod.metadata.name;
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

// "pod <key>(<ns>/<name>)", the prefix of upstream's "pod %v(%v) ..." messages.
std::string podRef(const std::string& key, const api::Pod& pod) {
  return "pod " + key + "(" + kObj(pod) + ")";
}

// Upstream exits (klog.FlushAndExit) when the cache is found corrupt; so do we.
[[noreturn]] void fatal(const std::string& msg) {
  std::fprintf(stderr, "scheduler cache: %s\n", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace

Result<std::string> getPodKey(const api::Pod& pod) {
  if (pod.metadata.uid.empty()) return Error("cannot get cache key for pod with empty UID");
  return pod.metadata.uid;
}

// ---- construction, cleanup loop ----

struct CacheImpl::CleanupLoop {
  std::mutex mu;
  bool stopped = false;                     // guarded by mu
  std::unique_ptr<Timer> timer;  // guarded by mu
};

CacheImpl::CacheImpl(CacheOptions options)
    : ttl_(options.ttl),
      period_(options.cleanupPeriod),
      clock_(options.clock ? options.clock : &realClock()),
      logError_(std::move(options.logError)),
      genericWorkload_(options.genericWorkload) {}

CacheImpl::~CacheImpl() {
  stop();
}

std::unique_ptr<CacheImpl> newCache(CacheOptions options) {
  auto c = std::make_unique<CacheImpl>(std::move(options));
  c->run();
  return c;
}

void CacheImpl::run() {
  std::lock_guard lock(runMu_);
  if (loop_) return;
  loop_ = std::make_shared<CleanupLoop>();
  std::lock_guard loopLock(loop_->mu);
  armCleanup(loop_);
}

// Requires loop->mu held.
void CacheImpl::armCleanup(const std::shared_ptr<CleanupLoop>& loop) {
  loop->timer = clock_->afterFunc(period_, [this, loop] {
    std::lock_guard lock(loop->mu);
    if (loop->stopped) return;  // `this` may be gone: touch nothing
    cleanupAssumedPods(clock_->now());
    armCleanup(loop);
  });
}

void CacheImpl::stop() {
  std::lock_guard lock(runMu_);
  if (!loop_) return;
  {
    // Waits for a running cleanup to finish; later firings see `stopped`.
    std::lock_guard loopLock(loop_->mu);
    loop_->stopped = true;
    if (loop_->timer) loop_->timer->stop();
  }
  loop_.reset();
}

void CacheImpl::logError(std::string_view msg) const {
  if (logError_) {
    logError_(msg);
  } else {
    std::fprintf(stderr, "scheduler cache: %.*s\n", static_cast<int>(msg.size()), msg.data());
  }
}

// ---- node list ----

CacheImpl::NodeList::iterator CacheImpl::getOrCreateNodeLocked(const std::string& name) {
  if (auto it = nodes_.find(name); it != nodes_.end()) return it->second;
  // New items start at the head: their generation is the newest.
  nodeList_.push_front(NodeInfoListItem{name, framework::NodeInfo()});
  nodes_.emplace(name, nodeList_.begin());
  return nodeList_.begin();
}

void CacheImpl::moveNodeInfoToHeadLocked(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    logError("No node info with given name found in the cache: node=" + name);
    return;
  }
  if (it->second != nodeList_.begin()) nodeList_.splice(nodeList_.begin(), nodeList_, it->second);
}

void CacheImpl::removeNodeInfoFromListLocked(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    logError("No node info with given name found in the cache: node=" + name);
    return;
  }
  nodeList_.erase(it->second);
  nodes_.erase(it);
}

// ---- counts ----

int CacheImpl::nodeCount() const {
  std::shared_lock lock(mu_);
  return static_cast<int>(nodes_.size());
}

// len(podStates) as upstream's cache_size{type="pods"}: O(1), since the scheduler reads it after every
// attempt (walking every node's pod list here was 6% of the daemon's CPU at 5000 nodes).
int CacheImpl::podCount() const {
  std::shared_lock lock(mu_);
  return static_cast<int>(podStates_.size());
}

// ---- pods ----

void CacheImpl::addPodLocked(api::PodPtr pod, bool assumed) {
  const std::string key = pod->metadata.uid;
  const std::string nodeName = pod->spec.nodeName;
  auto it = getOrCreateNodeLocked(nodeName);
  it->info.addPod(pod);
  moveNodeInfoToHeadLocked(nodeName);
  podStates_[key] = PodState{pod, std::nullopt, false};
  if (assumed) assumedPods_.insert(key);
  if (!isPodGroupMember(*pod)) return;
  if (assumed) {
    assumePodGroupMemberLocked(pod);
  } else {
    addPodGroupMemberLocked(pod);
  }
}

VoidResult CacheImpl::updatePodLocked(const api::Pod& oldPod, api::PodPtr newPod) {
  if (auto r = removePodLocked(oldPod); !r) return r;
  addPodLocked(std::move(newPod), false);
  return {};
}

VoidResult CacheImpl::removePodLocked(const api::Pod& pod, bool forget) {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  const std::string& nodeName = pod.spec.nodeName;
  if (auto it = nodes_.find(nodeName); it == nodes_.end()) {
    logError("Node not found when trying to remove pod: node=" + nodeName + " podKey=" + *key +
             " pod=" + kObj(pod));
  } else {
    framework::NodeInfo& info = it->second->info;
    if (auto r = info.removePod(pod); !r) return r;
    if (info.pods().empty() && info.node() == nullptr) {
      removeNodeInfoFromListLocked(nodeName);
    } else {
      moveNodeInfoToHeadLocked(nodeName);
    }
  }
  podStates_.erase(*key);
  assumedPods_.erase(*key);
  if (!isPodGroupMember(pod)) return {};
  if (forget) {
    forgetPodGroupMemberLocked(pod);
  } else {
    removePodGroupMemberLocked(pod);
  }
  return {};
}

VoidResult CacheImpl::assumePod(api::PodPtr pod) {
  auto key = getPodKey(*pod);
  if (!key) return key.error();
  std::unique_lock lock(mu_);
  if (podStates_.contains(*key)) return Error(podRef(*key, *pod) + " is in the cache, so can't be assumed");
  addPodLocked(std::move(pod), true);
  return {};
}

VoidResult CacheImpl::finishBinding(const api::Pod& pod) {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  const auto now = clock_->now();
  std::unique_lock lock(mu_);
  auto it = podStates_.find(*key);
  if (it != podStates_.end() && assumedPods_.contains(*key)) {
    if (ttl_ == std::chrono::nanoseconds::zero()) {
      it->second.deadline.reset();
    } else {
      it->second.deadline = now + std::chrono::duration_cast<Clock::Duration>(ttl_);
    }
    it->second.bindingFinished = true;
  }
  return {};
}

VoidResult CacheImpl::forgetPod(const api::Pod& pod) { return removeAssumedPodImpl(pod, /*forget=*/true); }

VoidResult CacheImpl::removeAssumedPod(const api::Pod& pod) { return removeAssumedPodImpl(pod, /*forget=*/false); }

// forgetPod and removeAssumedPod differ only for pod group members: a forgotten pod goes back to
// unscheduled in its group, a removed one (deleted from the cluster) leaves it.
VoidResult CacheImpl::removeAssumedPodImpl(const api::Pod& pod, bool forget) {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  std::unique_lock lock(mu_);
  auto it = podStates_.find(*key);
  // Gone already: the pod's deletion removed it while it was being bound.
  if (it == podStates_.end()) return {};
  if (it->second.pod->spec.nodeName != pod.spec.nodeName) {
    return Error(podRef(*key, pod) + " was assumed on " + pod.spec.nodeName + " but assigned to " +
                 it->second.pod->spec.nodeName);
  }
  if (!assumedPods_.contains(*key)) return Error(podRef(*key, pod) + " is not assumed, so it cannot be removed or forgotten");
  return removePodLocked(pod, forget);
}

VoidResult CacheImpl::addPod(api::PodPtr pod) {
  auto key = getPodKey(*pod);
  if (!key) return key.error();
  std::unique_lock lock(mu_);
  auto it = podStates_.find(*key);
  if (it != podStates_.end() && assumedPods_.contains(*key)) {
    // Assumed: already accounted for; replace the object so its status is current, on the node it was
    // actually bound to.
    const api::PodPtr assumed = it->second.pod;  // the state is erased by updatePodLocked
    if (auto r = updatePodLocked(*assumed, pod); !r) {
      logError("Error occurred while updating pod: " + r.error().message());
    }
    // A different node than assumed is only logged upstream ("Pod was added to a different node than
    // it was assumed").
    return {};
  }
  if (it == podStates_.end()) {
    // Expired (or never assumed): add it back.
    addPodLocked(std::move(pod), false);
    return {};
  }
  return Error(podRef(*key, *pod) + " was already in added state");
}

VoidResult CacheImpl::updatePod(const api::Pod& oldPod, api::PodPtr newPod) {
  auto key = getPodKey(oldPod);
  if (!key) return key.error();
  std::unique_lock lock(mu_);
  auto it = podStates_.find(*key);
  if (it == podStates_.end()) {
    return Error(podRef(*key, oldPod) + " is not added to scheduler cache, so cannot be updated");
  }
  // An assumed pod gets no Update/Remove event before its Add, which moves it to Added.
  if (assumedPods_.contains(*key)) return Error("assumed " + podRef(*key, oldPod) + " should not be updated");
  if (it->second.pod->spec.nodeName != newPod->spec.nodeName) {
    fatal(
        "Pod updated on a different node than previously added to. Scheduler cache is corrupted and can "
        "badly affect scheduling decisions: podKey=" +
        *key + " pod=" + kObj(oldPod));
  }
  return updatePodLocked(oldPod, std::move(newPod));
}

VoidResult CacheImpl::removePod(const api::Pod& pod) {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  std::unique_lock lock(mu_);
  auto it = podStates_.find(*key);
  if (it == podStates_.end()) {
    return Error(podRef(*key, pod) + " is not found in scheduler cache, so cannot be removed from it");
  }
  const api::PodPtr cached = it->second.pod;  // keeps the object alive while its state is erased
  if (cached->spec.nodeName != pod.spec.nodeName) {
    logError("Pod was added to a different node than it was assumed: podKey=" + *key + " pod=" + kObj(pod) +
             " assumedNode=" + pod.spec.nodeName + " currentNode=" + cached->spec.nodeName);
    // An empty nodeName is possible when the scheduler missed a Delete event and got the last known
    // state from the informer's cache.
    if (!pod.spec.nodeName.empty()) {
      fatal("Scheduler cache is corrupted and can badly affect scheduling decisions: podKey=" + *key);
    }
  }
  return removePodLocked(*cached);
}

Result<bool> CacheImpl::isAssumedPod(const api::Pod& pod) const {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  std::shared_lock lock(mu_);
  return assumedPods_.contains(*key);
}

Result<api::PodPtr> CacheImpl::getPod(const api::Pod& pod) const {
  auto key = getPodKey(pod);
  if (!key) return key.error();
  std::shared_lock lock(mu_);
  auto it = podStates_.find(*key);
  if (it == podStates_.end()) return Error(podRef(*key, pod) + " does not exist in scheduler cache");
  return it->second.pod;
}

void CacheImpl::cleanupAssumedPods(Clock::TimePoint now) {
  std::unique_lock lock(mu_);
  // Collected first: removing a pod erases it from assumedPods_.
  std::vector<api::PodPtr> expired;
  for (const auto& key : assumedPods_) {
    auto it = podStates_.find(key);
    if (it == podStates_.end())
      fatal("Key found in assumed set but not in podStates, potentially a logical error");
    const PodState& ps = it->second;
    if (!ps.bindingFinished) continue;  // binding still in progress
    if (ttl_ != std::chrono::nanoseconds::zero() && ps.deadline && now > *ps.deadline)
      expired.push_back(ps.pod);
  }
  for (const auto& pod : expired) {
    if (auto r = removePodLocked(*pod); !r) logError("ExpirePod failed: " + r.error().message());
  }
}

// ---- nodes ----

framework::NodeInfoPtr CacheImpl::addNode(api::NodePtr node) {
  std::unique_lock lock(mu_);
  const std::string name = node->metadata.name;
  const bool existed = nodes_.contains(name);
  auto it = getOrCreateNodeLocked(name);
  if (existed) removeNodeImageStatesLocked(it->info.node());
  moveNodeInfoToHeadLocked(name);
  nodeTree_.addNode(*node);
  addNodeImageStatesLocked(*node, it->info);
  it->info.setNode(std::move(node));
  return snapshotNodeInfoLocked(it->info);
}

framework::NodeInfoPtr CacheImpl::updateNode(const api::Node& oldNode, api::NodePtr newNode) {
  std::unique_lock lock(mu_);
  const std::string name = newNode->metadata.name;
  const bool existed = nodes_.contains(name);
  auto it = getOrCreateNodeLocked(name);
  if (existed) {
    removeNodeImageStatesLocked(it->info.node());
  } else {
    nodeTree_.addNode(*newNode);
  }
  moveNodeInfoToHeadLocked(name);
  nodeTree_.updateNode(&oldNode, *newNode);
  addNodeImageStatesLocked(*newNode, it->info);
  it->info.setNode(std::move(newNode));
  return snapshotNodeInfoLocked(it->info);
}

VoidResult CacheImpl::removeNode(const api::Node& node) {
  std::unique_lock lock(mu_);
  const std::string& name = node.metadata.name;
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return Error("node " + name + " is not found");
  framework::NodeInfo& info = it->second->info;
  info.removeNode();
  // The NodeInfo goes only when no pods are left: pod events come on another watch and may arrive after
  // the node's deletion although they happened before it.
  if (info.pods().empty()) {
    removeNodeInfoFromListLocked(name);
  } else {
    moveNodeInfoToHeadLocked(name);
  }
  if (auto r = nodeTree_.removeNode(node); !r) return r;
  removeNodeImageStatesLocked(&node);
  return {};
}

void CacheImpl::addNodeImageStatesLocked(const api::Node& node, framework::NodeInfo& info) {
  std::map<std::string, framework::ImageStateSummary> summaries;
  for (const auto& image : node.status.images) {
    for (const auto& name : image.names) {
      auto [it, inserted] = imageStates_.try_emplace(name);
      if (inserted) it->second.size = image.sizeBytes;
      it->second.nodes.insert(node.metadata.name);
      if (!summaries.contains(name)) {
        framework::ImageStateSummary s;
        s.size = it->second.size;
        summaries.emplace(name, std::move(s));
      }
    }
  }
  info.setImageStates(std::move(summaries));
}

void CacheImpl::removeNodeImageStatesLocked(const api::Node* node) {
  if (node == nullptr) return;
  for (const auto& image : node->status.images) {
    for (const auto& name : image.names) {
      auto it = imageStates_.find(name);
      if (it == imageStates_.end()) continue;
      it->second.nodes.erase(node->metadata.name);
      // Drop unused images so imageStates_.size() is the number of distinct images on all nodes.
      if (it->second.nodes.empty()) imageStates_.erase(it);
    }
  }
}

std::unique_ptr<framework::NodeInfo> CacheImpl::snapshotNodeInfoLocked(
    const framework::NodeInfo& info) const {
  std::unique_ptr<framework::NodeInfo> clone = info.snapshot();
  if (!clone->imageStates().empty()) {
    std::map<std::string, framework::ImageStateSummary> states = clone->imageStates();
    for (auto& [name, s] : states) {
      auto it = imageStates_.find(name);
      s.numNodes = it == imageStates_.end() ? 0 : static_cast<int>(it->second.nodes.size());
      s.nodes.clear();
    }
    clone->setImageStates(std::move(states));
  }
  return clone;
}

// ---- snapshot ----

VoidResult CacheImpl::updateSnapshot(Snapshot& snapshot) {
  std::unique_lock lock(mu_);
  // A pod-group cycle should have ended its mutation session and forgotten what it assumed; this keeps
  // the snapshot equal to the cache.
  snapshot.endMutationsLeftOpen([this](std::string_view msg) { logError(msg); });
  snapshot.forgetAllAssumedPods([this](std::string_view msg) { logError(msg); });
  const int64_t snapshotGeneration = snapshot.generation_;

  // The node list and every derived list must be rebuilt when a node was added or removed.
  bool updateAllLists = false;
  // The affinity list must be rebuilt when a node gained its first or lost its last pod with affinity.
  bool updateNodesHavePodsWithAffinity = false;
  // Likewise for pods with required anti-affinity.
  bool updateNodesHavePodsWithRequiredAntiAffinity = false;

  // From the head, copy the NodeInfos updated after the snapshot; the rest are older.
  for (const auto& item : nodeList_) {
    if (item.info.generation() <= snapshotGeneration) break;
    if (item.info.node() == nullptr) continue;
    const std::string& name = item.info.nodeName();
    auto [mapIt, inserted] = snapshot.nodeInfoMap_.try_emplace(name);
    if (inserted) {
      updateAllLists = true;
      mapIt->second = std::make_shared<framework::NodeInfo>();
    }
    framework::NodeInfo& existing = *mapIt->second;
    std::unique_ptr<framework::NodeInfo> clone = snapshotNodeInfoLocked(item.info);
    if (existing.podsWithAffinity().empty() != clone->podsWithAffinity().empty()) {
      updateNodesHavePodsWithAffinity = true;
    }
    if (existing.podsWithRequiredAntiAffinity().empty() != clone->podsWithRequiredAntiAffinity().empty()) {
      updateNodesHavePodsWithRequiredAntiAffinity = true;
    }
    snapshot.updateUsedPVCs(existing.pvcRefCounts(), clone->pvcRefCounts());
    // Assign in place: the lists hold this NodeInfo's address and may not be rebuilt.
    existing = std::move(*clone);
  }
  if (!nodeList_.empty()) snapshot.generation_ = nodeList_.front().info.generation();

  // Removed nodes leave the tree at once but may stay in nodes_ while they have pods.
  if (static_cast<int>(snapshot.nodeInfoMap_.size()) > nodeTree_.numNodes()) {
    removeDeletedNodesFromSnapshotLocked(snapshot);
    updateAllLists = true;
  }
  // As upstream: a node removed and re-added (or moved to another zone) between two updates keeps its
  // place in the list until the next full rebuild, although the tree's order changed. This decides which
  // nodes are examined first when not all are (numFeasibleNodesToFind).

  if (updateAllLists || updateNodesHavePodsWithAffinity || updateNodesHavePodsWithRequiredAntiAffinity) {
    updateNodeInfoSnapshotListLocked(snapshot, updateAllLists);
  }

  if (static_cast<int>(snapshot.nodeInfoList_.size()) != nodeTree_.numNodes()) {
    std::string msg = "snapshot state is not consistent, length of NodeInfoList=" +
                      std::to_string(snapshot.nodeInfoList_.size()) +
                      " not equal to length of nodes in tree=" + std::to_string(nodeTree_.numNodes()) +
                      " , length of NodeInfoMap=" + std::to_string(snapshot.nodeInfoMap_.size()) +
                      ", length of nodes in cache=" + std::to_string(nodes_.size()) + ", trying to recover";
    logError(msg);
    // Rebuild for the next cycle, but fail this one.
    updateNodeInfoSnapshotListLocked(snapshot, true);
    return Error(std::move(msg));
  }
  if (genericWorkload_) updatePodGroupStateSnapshotLocked(snapshot);
  return {};
}

void CacheImpl::updatePodGroupStateSnapshotLocked(Snapshot& snapshot) const {
  // Drop the groups the cache no longer has, copy those whose generation moved.
  std::erase_if(snapshot.podGroupStates_,
                [this](const auto& entry) { return !podGroupStates_.contains(entry.first); });
  for (const auto& [key, state] : podGroupStates_) {
    auto& slot = snapshot.podGroupStates_[key];
    state->read([&slot](const PodGroupStateData& data) {
      if (slot && slot->data().generation == data.generation) return;
      slot = std::make_shared<PodGroupStateSnapshot>(data);
    });
  }
}

// ---- pod groups ----

bool CacheImpl::isPodGroupMember(const api::Pod& pod) const {
  return genericWorkload_ && framework::isPodGroupMember(pod);
}

std::string CacheImpl::podGroupKeyOf(const api::Pod& pod) {
  return framework::podGroupKey(pod.metadata.namespace_, *framework::podGroupNameOf(pod));
}

PodGroupStateImpl* CacheImpl::findPodGroupStateLocked(const std::string& key) const {
  auto it = podGroupStates_.find(key);
  return it == podGroupStates_.end() ? nullptr : it->second.get();
}

PodGroupStateImpl& CacheImpl::getOrCreatePodGroupStateLocked(const std::string& key) {
  auto& slot = podGroupStates_[key];
  if (!slot) slot = std::make_shared<PodGroupStateImpl>();
  return *slot;
}

void CacheImpl::dropPodGroupStateIfEmptyLocked(const std::string& key) {
  auto it = podGroupStates_.find(key);
  if (it == podGroupStates_.end()) return;
  // A state lives while it has members or its PodGroup object.
  if (it->second->read([](const PodGroupStateData& d) { return d.empty(); })) podGroupStates_.erase(it);
}

void CacheImpl::addPodGroupMemberLocked(const api::PodPtr& pod) {
  getOrCreatePodGroupStateLocked(podGroupKeyOf(*pod)).mutate([&pod](PodGroupStateData& d) { d.addPod(pod); });
}

void CacheImpl::removePodGroupMemberLocked(const api::Pod& pod) {
  const std::string key = podGroupKeyOf(pod);
  PodGroupStateImpl* state = findPodGroupStateLocked(key);
  if (state == nullptr) return;
  state->mutate([&pod](PodGroupStateData& d) { d.deletePod(pod.metadata.uid); });
  dropPodGroupStateIfEmptyLocked(key);
}

void CacheImpl::assumePodGroupMemberLocked(const api::PodPtr& pod) {
  const std::string key = podGroupKeyOf(*pod);
  const bool existed = podGroupStates_.contains(key);
  getOrCreatePodGroupStateLocked(key).mutate([&pod, existed](PodGroupStateData& d) {
    // Assumed before any event of it reached the cache: known from now on.
    if (!existed) d.allPods[pod->metadata.uid] = pod;
    d.assumePod(pod);
  });
}

void CacheImpl::forgetPodGroupMemberLocked(const api::Pod& pod) {
  PodGroupStateImpl* state = findPodGroupStateLocked(podGroupKeyOf(pod));
  if (state == nullptr) {
    logError("Pod group state not found for forget, this indicates a missed add or assume event: pod=" + kObj(pod) +
             " podGroup=" + podGroupKeyOf(pod));
    return;
  }
  state->mutate([&pod](PodGroupStateData& d) { d.forgetPod(pod.metadata.uid); });
}

void CacheImpl::addPodGroupMember(api::PodPtr pod) {
  if (!isPodGroupMember(*pod)) return;
  std::unique_lock lock(mu_);
  addPodGroupMemberLocked(pod);
}

void CacheImpl::updatePodGroupMember(const api::Pod& oldPod, api::PodPtr newPod) {
  if (!isPodGroupMember(*newPod)) return;
  std::unique_lock lock(mu_);
  PodGroupStateImpl* state = findPodGroupStateLocked(podGroupKeyOf(*newPod));
  if (state == nullptr) {
    logError("Pod group state not found for update, this indicates a missed add event: pod=" + kObj(*newPod) +
             " podGroup=" + podGroupKeyOf(*newPod));
    return;
  }
  state->mutate([&](PodGroupStateData& d) { d.updatePod(oldPod, std::move(newPod)); });
}

void CacheImpl::removePodGroupMember(const api::Pod& pod) {
  if (!isPodGroupMember(pod)) return;
  std::unique_lock lock(mu_);
  removePodGroupMemberLocked(pod);
}

namespace {
std::string podGroupRef(const api::PodGroup& pg) {
  return framework::podGroupKey(pg.metadata.namespace_, pg.metadata.name);
}
}  // namespace

void CacheImpl::addPodGroup(framework::PodGroupPtr podGroup) {
  if (!genericWorkload_) return;
  std::unique_lock lock(mu_);
  getOrCreatePodGroupStateLocked(podGroupRef(*podGroup)).mutate([&](PodGroupStateData& d) {
    d.setPodGroup(std::move(podGroup));
  });
}

void CacheImpl::updatePodGroup(const api::PodGroup& /*oldPodGroup*/, framework::PodGroupPtr newPodGroup) {
  if (!genericWorkload_) return;
  std::unique_lock lock(mu_);
  PodGroupStateImpl* state = findPodGroupStateLocked(podGroupRef(*newPodGroup));
  if (state == nullptr) {
    logError("Pod group state not found for update, this indicates a missed add event: podGroup=" +
             podGroupRef(*newPodGroup));
    return;
  }
  state->mutate([&](PodGroupStateData& d) { d.setPodGroup(std::move(newPodGroup)); });
}

void CacheImpl::removePodGroup(const api::PodGroup& podGroup) {
  if (!genericWorkload_) return;
  std::unique_lock lock(mu_);
  const std::string key = podGroupRef(podGroup);
  PodGroupStateImpl* state = findPodGroupStateLocked(key);
  if (state == nullptr) {
    logError("Pod group state not found for removal: podGroup=" + key);
    return;
  }
  state->mutate([](PodGroupStateData& d) { d.removePodGroup(); });
  dropPodGroupStateIfEmptyLocked(key);
}

framework::PodGroupPtr CacheImpl::podGroup(std::string_view ns, std::string_view name) const {
  if (!genericWorkload_) return nullptr;
  std::shared_lock lock(mu_);
  PodGroupStateImpl* state = findPodGroupStateLocked(framework::podGroupKey(ns, name));
  return state == nullptr ? nullptr : state->podGroup();
}

framework::PodGroupStatePtr CacheImpl::podGroupState(std::string_view ns, std::string_view name) const {
  if (!genericWorkload_) return nullptr;
  std::shared_lock lock(mu_);
  auto it = podGroupStates_.find(framework::podGroupKey(ns, name));
  if (it == podGroupStates_.end()) return nullptr;
  return it->second;
}

void CacheImpl::updateNodeInfoSnapshotListLocked(Snapshot& snapshot, bool updateAll) {
  const auto n = static_cast<std::size_t>(nodeTree_.numNodes());
  snapshot.havePodsWithAffinityNodeInfoList_.clear();
  snapshot.havePodsWithAffinityNodeInfoList_.reserve(n);
  snapshot.havePodsWithRequiredAntiAffinityNodeInfoList_.clear();
  snapshot.havePodsWithRequiredAntiAffinityNodeInfoList_.reserve(n);
  // The node set changed: count the PVC users afresh rather than track removed nodes.
  if (updateAll) snapshot.usedPVCs_.clear();
  auto collect = [&snapshot, updateAll](const framework::NodeInfoPtr& info) {
    if (!info->podsWithAffinity().empty()) snapshot.havePodsWithAffinityNodeInfoList_.push_back(info);
    if (!info->podsWithRequiredAntiAffinity().empty()) {
      snapshot.havePodsWithRequiredAntiAffinityNodeInfoList_.push_back(info);
    }
    if (updateAll) {
      for (const auto& [key, _] : info->pvcRefCounts()) ++snapshot.usedPVCs_[key];
    }
  };
  if (updateAll) {
    // Take the nodes in the tree's order.
    snapshot.nodeInfoList_.clear();
    snapshot.nodeInfoList_.reserve(n);
    std::optional<Error> err;
    const std::vector<std::string> names = nodeTree_.list(&err);
    if (err) {
      logError("Error occurred while retrieving the list of names of the nodes from node tree: " +
               err->message());
    }
    for (const auto& name : names) {
      auto it = snapshot.nodeInfoMap_.find(name);
      if (it == snapshot.nodeInfoMap_.end() || !it->second) {
        logError("Node exists in nodeTree but not in NodeInfoMap, this should not happen: node=" + name);
        continue;
      }
      snapshot.nodeInfoList_.push_back(it->second);
      collect(it->second);
    }
  } else {
    for (const auto& info : snapshot.nodeInfoList_) collect(info);
  }
}

void CacheImpl::removeDeletedNodesFromSnapshotLocked(Snapshot& snapshot) {
  auto toDelete = static_cast<int>(snapshot.nodeInfoMap_.size()) - nodeTree_.numNodes();
  for (auto it = snapshot.nodeInfoMap_.begin(); it != snapshot.nodeInfoMap_.end() && toDelete > 0;) {
    auto cached = nodes_.find(it->first);
    if (cached == nodes_.end() || cached->second->info.node() == nullptr) {
      it = snapshot.nodeInfoMap_.erase(it);
      --toDelete;
    } else {
      ++it;
    }
  }
}

Dump CacheImpl::dump() const {
  std::shared_lock lock(mu_);
  Dump d;
  for (const auto& item : nodeList_) d.nodes.emplace(item.name, snapshotNodeInfoLocked(item.info));
  d.assumedPods.insert(assumedPods_.begin(), assumedPods_.end());
  return d;
}

// ---- test accessors ----

framework::NodeInfoPtr CacheImpl::nodeInfoForTest(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return nullptr;
  return std::make_shared<framework::NodeInfo>(it->second->info);
}

std::vector<std::string> CacheImpl::nodeListOrderForTest() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& item : nodeList_) out.push_back(item.name);
  return out;
}

NodeTree CacheImpl::nodeTreeForTest() const {
  std::shared_lock lock(mu_);
  return nodeTree_;
}

std::map<std::string, framework::ImageStateSummary> CacheImpl::imageStatesForTest() const {
  std::shared_lock lock(mu_);
  std::map<std::string, framework::ImageStateSummary> out;
  for (const auto& [name, s] : imageStates_) {
    framework::ImageStateSummary c = s;
    c.numNodes = static_cast<int>(s.nodes.size());
    out.emplace(name, std::move(c));
  }
  return out;
}

std::size_t CacheImpl::podStateCountForTest() const {
  std::shared_lock lock(mu_);
  return podStates_.size();
}

std::size_t CacheImpl::assumedPodCount() const {
  std::shared_lock lock(mu_);
  return assumedPods_.size();
}

std::map<std::string, PodGroupStateData> CacheImpl::podGroupStatesForTest() const {
  std::shared_lock lock(mu_);
  std::map<std::string, PodGroupStateData> out;
  for (const auto& [key, state] : podGroupStates_) {
    out.emplace(key, state->read([](const PodGroupStateData& d) { return d; }));
  }
  return out;
}

}  // namespace ks::cache
