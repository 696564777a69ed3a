#include "pkg/scheduler/framework/plugins/gangscheduling/gang_scheduling.h"

#include <string>
#include <utility>

#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/util/strings.h"

namespace ks::plugins::gangscheduling {

using framework::Code;
using framework::QueueingHint;
using framework::Status;

Result<std::unique_ptr<framework::Plugin>> GangScheduling::create(const config::PluginArgs* /*args*/,
                                                                  framework::Handle& handle) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<GangScheduling>(handle));
}

Status GangScheduling::preEnqueue(const framework::PodInfo& podInfo) {
  const api::Pod& pod = podInfo.pod();
  const std::string* groupName = framework::podGroupNameOf(pod);
  if (groupName == nullptr) return Status();
  const framework::PodGroupManager* manager = handle_.podGroupManager();
  const framework::PodGroupPtr group =
      manager == nullptr ? nullptr : manager->podGroup(pod.metadata.namespace_, *groupName);
  if (group == nullptr) {
    return Status(Code::UnschedulableAndUnresolvable,
                  "waiting for pods's pod group " + quote(*groupName) + " to appear in scheduling queue");
  }
  if (!group->spec.schedulingPolicy.gang) return Status();
  const framework::PodGroupStatePtr state = manager->podGroupState(pod.metadata.namespace_, *groupName);
  if (state == nullptr) {
    return Status::error("pod group state not found for pod group " + pod.metadata.namespace_ + "/" + *groupName);
  }
  if (state->allPodsCount() < group->spec.schedulingPolicy.gang->minCount) {
    return Status(Code::UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return Status();
}

Status GangScheduling::permit(framework::CycleState& /*state*/, const framework::PodInfo& podInfo,
                              const std::string& /*nodeName*/, std::chrono::milliseconds& timeout) {
  const api::Pod& pod = podInfo.pod();
  const std::string* groupName = framework::podGroupNameOf(pod);
  if (groupName == nullptr) return Status();
  const std::string& ns = pod.metadata.namespace_;
  const std::string key = framework::podGroupKey(ns, *groupName);
  // The object as the cycle's snapshot has it; the members as the cache has them now.
  const framework::SharedLister* lister = handle_.snapshotSharedLister();
  const framework::PodGroupManager* snapshot = lister == nullptr ? nullptr : lister->podGroupManager();
  if (snapshot == nullptr) {
    return Status::error("failed to get podGroup " + key + ": generic workload feature gate is disabled");
  }
  if (snapshot->podGroupState(ns, *groupName) == nullptr) {
    return Status::error("failed to get podGroup " + key + ": pod group state not found for pod group " + key);
  }
  const framework::PodGroupPtr group = snapshot->podGroup(ns, *groupName);
  if (group == nullptr) {
    return Status::error("failed to get podGroup " + key + ": pod group object not found for pod group " + key);
  }
  const framework::PodGroupManager* live = handle_.podGroupManager();
  const framework::PodGroupStatePtr state = live == nullptr ? nullptr : live->podGroupState(ns, *groupName);
  if (state == nullptr) return Status::error("pod group state not found for pod group " + key);

  if (!group->spec.schedulingPolicy.gang) return Status();
  if (state->scheduledPodsCount() < group->spec.schedulingPolicy.gang->minCount) {
    // Bring the rest of the gang forward: they may be backing off or parked as unschedulable.
    handle_.activate(state->unscheduledPods());
    timeout = kPermitTimeout;
    return Status(Code::Wait, "waiting for minCount pods from a gang to be scheduled");
  }
  for (const std::string& uid : state->assumedPodUids()) {
    if (auto waiting = handle_.getWaitingPod(uid)) waiting->allow(std::string(kName));
  }
  return Status();
}

Status GangScheduling::placementFeasible(framework::CycleState& /*placementState*/,
                                         const framework::PodGroupInfo& group,
                                         const framework::PlacementProgress& progress) {
  const int minCount = group.podGroup == nullptr ? 1 : framework::podGroupMinCount(*group.podGroup);
  const std::string counts = std::to_string(progress.scheduled) + " scheduled, " +
                             std::to_string(progress.remaining) + " remaining";
  if (progress.remaining + progress.scheduled < minCount) {
    return Status(Code::Unschedulable,
                  "minCount (" + std::to_string(minCount) + ") cannot be satisfied: " + counts);
  }
  if (progress.scheduled < minCount) {
    return Status(Code::Wait, "minCount (" + std::to_string(minCount) + ") is not yet satisfied: " + counts);
  }
  return Status();
}

Result<std::vector<framework::ClusterEventWithHint>> GangScheduling::eventsToRegister() {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back({ClusterEvent{EventResource::UnscheduledPod, action::Add, {}},
                    helper::bindHint(this, &GangScheduling::isSchedulableAfterPodAdded)});
  events.push_back({ClusterEvent{EventResource::AssignedPod, action::Add, {}},
                    helper::bindHint(this, &GangScheduling::isSchedulableAfterPodAdded)});
  events.push_back({ClusterEvent{EventResource::PodGroup, action::Add, {}},
                    helper::bindHint(this, &GangScheduling::isSchedulableAfterPodGroupAdded)});
  events.push_back({ClusterEvent{EventResource::PodGroup, action::Update, {}},
                    helper::bindHint(this, &GangScheduling::isSchedulableAfterPodGroupUpdated)});
  return events;
}

namespace {

// Whether the group `ns`/`name` is the pod's own.
bool isPodsGroup(const api::Pod& pod, const std::string& ns, const std::string& name) {
  const std::string* groupName = framework::podGroupNameOf(pod);
  return groupName != nullptr && pod.metadata.namespace_ == ns && *groupName == name;
}

}  // namespace

Result<QueueingHint> GangScheduling::isSchedulableAfterPodAdded(const api::Pod& pod,
                                                                const framework::EventObject& oldObj,
                                                                const framework::EventObject& newObj) const {
  auto objs = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!objs) return objs.error();
  const api::Pod* added = objs->second;
  if (added == nullptr || !framework::isPodGroupMember(pod)) return QueueingHint::QueueSkip;
  const std::string* addedGroup = framework::podGroupNameOf(*added);
  if (addedGroup == nullptr) return QueueingHint::QueueSkip;
  return isPodsGroup(pod, added->metadata.namespace_, *addedGroup) ? QueueingHint::Queue : QueueingHint::QueueSkip;
}

Result<QueueingHint> GangScheduling::isSchedulableAfterPodGroupAdded(const api::Pod& pod,
                                                                     const framework::EventObject& oldObj,
                                                                     const framework::EventObject& newObj) const {
  auto objs = helper::asTyped<api::PodGroup>(oldObj, newObj);
  if (!objs) return objs.error();
  const api::PodGroup* added = objs->second;
  if (added == nullptr) return QueueingHint::QueueSkip;
  return isPodsGroup(pod, added->metadata.namespace_, added->metadata.name) ? QueueingHint::Queue
                                                                            : QueueingHint::QueueSkip;
}

Result<QueueingHint> GangScheduling::isSchedulableAfterPodGroupUpdated(const api::Pod& pod,
                                                                       const framework::EventObject& oldObj,
                                                                       const framework::EventObject& newObj) const {
  auto objs = helper::asTyped<api::PodGroup>(oldObj, newObj);
  if (!objs) return objs.error();
  const auto [oldGroup, newGroup] = *objs;
  if (oldGroup == nullptr || newGroup == nullptr) return QueueingHint::QueueSkip;
  if (!isPodsGroup(pod, newGroup->metadata.namespace_, newGroup->metadata.name)) return QueueingHint::QueueSkip;
  const auto& oldGang = oldGroup->spec.schedulingPolicy.gang;
  const auto& newGang = newGroup->spec.schedulingPolicy.gang;
  if (!oldGang || !newGang) return QueueingHint::QueueSkip;
  // Only a lower minCount can let a gang that wasn't complete through.
  if (newGang->minCount >= oldGang->minCount) return QueueingHint::QueueSkip;
  return QueueingHint::Queue;
}

}  // namespace ks::plugins::gangscheduling
