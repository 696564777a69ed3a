#include "pkg/scheduler/framework/events.h"

#include <array>
#include <utility>

namespace ks::framework {

std::string_view eventResourceName(EventResource r) {
  switch (r) {
    case EventResource::Pod:
      return "Pod";
    case EventResource::AssignedPod:
      return "AssignedPod";
    case EventResource::UnscheduledPod:
      return "UnscheduledPod";
    case EventResource::TargetPod:
      return "TargetPod";
    case EventResource::Node:
      return "Node";
    case EventResource::PersistentVolume:
      return "PersistentVolume";
    case EventResource::PersistentVolumeClaim:
      return "PersistentVolumeClaim";
    case EventResource::CSINode:
      return "storage.k8s.io/CSINode";
    case EventResource::CSIDriver:
      return "storage.k8s.io/CSIDriver";
    case EventResource::VolumeAttachment:
      return "storage.k8s.io/VolumeAttachment";
    case EventResource::CSIStorageCapacity:
      return "storage.k8s.io/CSIStorageCapacity";
    case EventResource::StorageClass:
      return "storage.k8s.io/StorageClass";
    case EventResource::ResourceClaim:
      return "resource.k8s.io/ResourceClaim";
    case EventResource::ResourceSlice:
      return "resource.k8s.io/ResourceSlice";
    case EventResource::DeviceClass:
      return "resource.k8s.io/DeviceClass";
    case EventResource::PodGroup:
      return "scheduling.k8s.io/PodGroup";
    case EventResource::WildCard:
      return "*";
  }
  return "";
}

std::string actionTypeName(ActionType a) {
  if (a == action::All) return "All";
  if (a == action::Update || a == action::UpdatePodOther) return "Update";
  static constexpr std::array<std::pair<ActionType, std::string_view>, 14> kNames{{
      {action::Add, "Add"},
      {action::Delete, "Delete"},
      {action::UpdateNodeAllocatable, "UpdateNodeAllocatable"},
      {action::UpdateNodeLabel, "UpdateNodeLabel"},
      {action::UpdateNodeTaint, "UpdateNodeTaint"},
      {action::UpdateNodeCondition, "UpdateNodeCondition"},
      {action::UpdateNodeAnnotation, "UpdateNodeAnnotation"},
      {action::UpdateNodeDeclaredFeature, "UpdateNodeDeclaredFeature"},
      {action::UpdatePodLabel, "UpdatePodLabel"},
      {action::UpdatePodScaleDown, "UpdatePodScaleDown"},
      {action::UpdatePodScaleUp, "UpdatePodScaleUp"},
      {action::UpdatePodToleration, "UpdatePodToleration"},
      {action::UpdatePodSchedulingGatesEliminated, "UpdatePodSchedulingGatesEliminated"},
      {action::UpdatePodGeneratedResourceClaim, "UpdatePodGeneratedResourceClaim"},
  }};
  std::string out;
  for (const auto& [flag, name] : kNames) {
    if ((a & flag) == 0) continue;
    if (!out.empty()) out += "|";
    out += name;
  }
  if ((a & action::UpdatePodOther) != 0) {
    if (!out.empty()) out += "|";
    out += "Update";
  }
  return out;
}

std::string ClusterEvent::label() const {
  if (!customLabel.empty()) return customLabel;
  std::string out(eventResourceName(resource));
  out += actionTypeName(actionType);
  return out;
}

namespace {
bool matchEventResources(EventResource registered, EventResource incoming) {
  return registered == EventResource::WildCard || registered == incoming ||
         (registered == EventResource::Pod &&
          (incoming == EventResource::AssignedPod || incoming == EventResource::UnscheduledPod ||
           incoming == EventResource::TargetPod));
}
}  // namespace

bool matchClusterEvents(const ClusterEvent& registered, const ClusterEvent& incoming) {
  return registered.isWildCard() ||
         (matchEventResources(registered.resource, incoming.resource) &&
          (registered.actionType & incoming.actionType) != 0 && incoming.actionType <= registered.actionType);
}

bool matchAnyClusterEvent(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered) {
  for (const auto& e : registered) {
    if (matchClusterEvents(e, incoming)) return true;
  }
  return false;
}

std::vector<ClusterEventWithHint> unrollWildCardResource(bool genericWorkload) {
  std::vector<ClusterEventWithHint> out;
  for (EventResource r :
       {EventResource::AssignedPod, EventResource::UnscheduledPod, EventResource::TargetPod,
        EventResource::Node, EventResource::PersistentVolume, EventResource::PersistentVolumeClaim,
        EventResource::CSINode, EventResource::CSIDriver, EventResource::CSIStorageCapacity,
        EventResource::StorageClass, EventResource::ResourceClaim, EventResource::DeviceClass}) {
    out.push_back(ClusterEventWithHint{ClusterEvent{r, action::All, {}}, {}});
  }
  if (genericWorkload) out.push_back(ClusterEventWithHint{ClusterEvent{EventResource::PodGroup, action::All, {}}, {}});
  return out;
}

}  // namespace ks::framework
