#pragma once
// A pod group's member state as the scheduler tracks it (upstream backend/cache/podgroupstate.go, without
// composite groups): the live state the cache keeps per group (PodGroupStateImpl, thread-safe) and the
// snapshot's copy of it (PodGroupStateSnapshot, mutated only by the scheduling thread during a pod-group
// cycle).
//
// A state exists while the scheduler knows the PodGroup object or at least one member pod; it is dropped
// when both are gone (empty()). The pod lists come from pod events, the object from PodGroup events: either
// may come first.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/framework/pod_group.h"

namespace ks::cache {

// Returns a new process-wide generation for pod group states (upstream nextPodGroupGeneration): never
// reused, so a group deleted and re-created under the same name can't be mistaken for its old copy.
int64_t nextPodGroupGeneration();

// The data of one group (upstream podGroupStateData). Every mutation bumps `generation`, which
// updateSnapshot compares to skip copying unchanged groups. Pods are keyed by UID.
struct PodGroupStateData {
  int64_t generation = 0;
  // Every member known to the scheduler.
  std::map<std::string, api::PodPtr> allPods;
  // Members neither assumed nor assigned.
  std::set<std::string> unscheduledPods;
  // Members assumed (Reserve passed; the object with the chosen nodeName), not yet bound.
  std::map<std::string, api::PodPtr> assumedPods;
  // Members bound (spec.nodeName set in the observed object).
  std::set<std::string> assignedPods;
  // The PodGroup object; null while not observed.
  framework::PodGroupPtr podGroup;

  // A member was observed: assigned when it has a nodeName (leaving unscheduled / assumed), else
  // unscheduled.
  void addPod(api::PodPtr pod);
  // A member changed: replaces the object; a pod that got a nodeName becomes assigned.
  void updatePod(const api::Pod& oldPod, api::PodPtr newPod);
  // A member is gone: removed from every set.
  void deletePod(const std::string& uid);
  // The member was assumed: assigned if the stored object already has a nodeName, else assumed with
  // `pod`'s object. A pod not in allPods is ignored (it was deleted meanwhile).
  void assumePod(api::PodPtr pod);
  // Undoes assumePod: back to unscheduled (or assigned when the stored object has a nodeName). A pod
  // not in allPods is ignored.
  void forgetPod(const std::string& uid);
  void setPodGroup(framework::PodGroupPtr pg);
  void removePodGroup();

  // No member and no PodGroup object: the state can go.
  bool empty() const { return allPods.empty() && podGroup == nullptr; }
  int allPodsCount() const { return static_cast<int>(allPods.size()); }
  int scheduledPodsCount() const { return static_cast<int>(assumedPods.size() + assignedPods.size()); }
  // Unscheduled members by name (upstream returns a map keyed by name).
  std::vector<api::PodPtr> unscheduledPodList() const;
  std::vector<std::string> assumedPodUids() const;
  // Assigned members (by UID), then assumed ones (by UID).
  std::vector<api::PodPtr> scheduledPods() const;
};

// The cache's live state of one group. Reads (from plugins, on any thread) take its own lock; the cache
// mutates it under the cache's lock and then this one.
class PodGroupStateImpl final : public framework::PodGroupState {
 public:
  int allPodsCount() const override;
  int scheduledPodsCount() const override;
  std::vector<api::PodPtr> unscheduledPods() const override;
  std::vector<std::string> assumedPodUids() const override;
  std::vector<api::PodPtr> scheduledPods() const override;
  framework::PodGroupPtr podGroup() const;

  // Runs fn(PodGroupStateData&) under the state's exclusive lock.
  template <class Fn>
  auto mutate(Fn&& fn) {
    std::unique_lock lock(mu_);
    return fn(data_);
  }
  // Runs fn(const PodGroupStateData&) under the state's shared lock.
  template <class Fn>
  auto read(Fn&& fn) const {
    std::shared_lock lock(mu_);
    return fn(static_cast<const PodGroupStateData&>(data_));
  }

 private:
  mutable std::shared_mutex mu_;
  PodGroupStateData data_;  // guarded by mu_
};

// The snapshot's copy of a group's state (upstream podGroupStateSnapshot): what the cycle reads, and what
// Snapshot::assumePod / forgetPod change during a pod-group cycle. Not synchronised.
class PodGroupStateSnapshot final : public framework::PodGroupState {
 public:
  PodGroupStateSnapshot() = default;
  explicit PodGroupStateSnapshot(PodGroupStateData data) : data_(std::move(data)) {}

  int allPodsCount() const override { return data_.allPodsCount(); }
  int scheduledPodsCount() const override { return data_.scheduledPodsCount(); }
  std::vector<api::PodPtr> unscheduledPods() const override { return data_.unscheduledPodList(); }
  std::vector<std::string> assumedPodUids() const override { return data_.assumedPodUids(); }
  std::vector<api::PodPtr> scheduledPods() const override { return data_.scheduledPods(); }

  PodGroupStateData& data() { return data_; }
  const PodGroupStateData& data() const { return data_; }

 private:
  PodGroupStateData data_;
};

}  // namespace ks::cache
