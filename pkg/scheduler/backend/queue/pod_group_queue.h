#pragma once
// The scheduling queue's pod-group parts (GenericWorkload; composite pod groups are not modelled):
//
//   WorkloadForest      the PodGroup objects the queue has observed (upstream workloadForest without
//                       CompositePodGroups: every PodGroup is a root). A member pod is queued in its group's
//                       entity only once the group is observed.
//   PodGroupMemberPods  member pods held outside the sub-queues, by group (upstream podGroupMemberPods):
//                       the queue keeps two, "incomplete" (the group object is not observed yet) and
//                       "pending" (the group was popped and its cycle runs; they rejoin it when it comes back).
//   QueuedPodGroupInfo  members are kept in upstream's PodGroupMemberPodsOrderingFunc order: priority desc,
//                       attempts desc, timestamp asc, name asc (addPodToGroup, removePodFromGroup,
//                       updatePodInGroup keep group.unscheduledPods equal to the members' pods).
//
// Not thread-safe: PriorityQueue guards them with its own mutex.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::queue {

// "namespace/podGroupName" of the pod's group; the pod must be a member.
inline std::string podGroupKeyOfPod(const api::Pod& pod) {
  return framework::podGroupKey(pod.metadata.namespace_, *framework::podGroupNameOf(pod));
}

// <0 when a is tried before b, >0 after, 0 when equal (upstream PodGroupMemberPodsOrderingFunc).
int comparePodGroupMemberPods(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b);

// Adds the member in order (upstream QueuedPodGroupInfo.AddPod). Ignored, returning false, when the pod
// is of another namespace or group, or the group object is not known.
bool addPodToGroup(framework::QueuedPodGroupInfo& group, framework::QueuedPodInfo pInfo);
// Removes the member (namespace/name) and returns it (upstream RemovePod).
std::optional<framework::QueuedPodInfo> removePodFromGroup(framework::QueuedPodGroupInfo& group, const api::Pod& pod);
// Replaces the member's pod in place, keeping its position (upstream Update); null when not a member.
framework::QueuedPodInfo* updatePodInGroup(framework::QueuedPodGroupInfo& group, const api::PodPtr& pod);
// The member (namespace/name); null when not a member.
const framework::QueuedPodInfo* findPodInGroup(const framework::QueuedPodGroupInfo& group, std::string_view ns,
                                               std::string_view name);

class WorkloadForest {
 public:
  void addPodGroup(framework::PodGroupPtr pg);
  void updatePodGroup(framework::PodGroupPtr pg) { addPodGroup(std::move(pg)); }
  void deletePodGroup(const api::PodGroup& pg);
  // The observed group object; null when not observed.
  framework::PodGroupPtr podGroup(std::string_view ns, std::string_view name) const;
  // The key of the pod's root group (its own group), when that group is observed.
  std::optional<std::string> rootKeyForPod(const api::Pod& pod) const;
  std::optional<std::string> rootKeyForPodGroup(const api::PodGroup& pg) const;
  // A new entity of the observed group, without members (upstream buildQueuedPodGroupInfo); nullopt
  // when the group is not observed.
  std::optional<framework::QueuedPodGroupInfo> buildQueuedPodGroupInfo(std::string_view rootKey) const;
  size_t size() const { return podGroups_.size(); }

 private:
  std::unordered_map<std::string, framework::PodGroupPtr> podGroups_;
};

class PodGroupMemberPods {
 public:
  // `gauge` (optional) follows the number of pods held (scheduler_pending_pods{queue=...}).
  explicit PodGroupMemberPods(metrics::GaugeRef gauge = {}) : gauge_(gauge) {}
  // Adds (or replaces) the member.
  void add(framework::QueuedPodInfo pInfo);
  bool has(const api::Pod& pod) const { return get(pod) != nullptr; }
  const framework::QueuedPodInfo* get(const api::Pod& pod) const;
  // Replaces the held member's pod; null when not held.
  framework::QueuedPodInfo* update(const api::PodPtr& newPod);
  std::optional<framework::QueuedPodInfo> remove(const api::Pod& pod);
  // Removes and returns the members of the group (namespace/name).
  std::vector<framework::QueuedPodInfo> clear(std::string_view ns, std::string_view name);
  std::vector<api::PodPtr> list() const;
  size_t size() const { return size_; }
  template <typename F>
  void forEach(F&& f) const {
    for (const auto& [group, pods] : byGroup_)
      for (const auto& [key, p] : pods) f(p);
  }

 private:
  // group key -> pod key -> member
  std::unordered_map<std::string, std::map<std::string, framework::QueuedPodInfo>> byGroup_;
  size_t size_ = 0;
  metrics::GaugeRef gauge_;
};

}  // namespace ks::queue
