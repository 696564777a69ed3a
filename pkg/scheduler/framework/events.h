#pragma once
// Cluster events that can make an unschedulable pod schedulable, and the queueing hints plugins attach
// to them (upstream's EventResource / ActionType / ClusterEvent / QueueingHint).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::framework {

// The kind of object an event is about.
enum class EventResource : uint8_t {
  // Any pod: a registration of Pod matches AssignedPod, UnscheduledPod and TargetPod events. Plugins
  // register the specific ones, so that their hints run only for the events they can act on.
  Pod,
  // A scheduled pod (spec.nodeName set) was added, updated or deleted.
  AssignedPod,
  // An unscheduled pod other than the one being evaluated changed.
  UnscheduledPod,
  // The unscheduled pod being evaluated was itself updated (the queue's update of a queued pod).
  TargetPod,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  CSINode,
  CSIDriver,
  VolumeAttachment,
  CSIStorageCapacity,
  StorageClass,
  ResourceClaim,
  ResourceSlice,
  DeviceClass,
  // scheduling.k8s.io PodGroup (GenericWorkload).
  PodGroup,
  // Any resource; only meaningful with ActionType::All.
  WildCard,
};

// Upstream's resource string ("Pod", "storage.k8s.io/CSINode", "*", ...).
std::string_view eventResourceName(EventResource r);

// A bitmask of what happened to the object. Update is split into the specific updates the scheduler
// can tell apart, so plugins can register narrowly (e.g. only node label changes).
using ActionType = uint32_t;
namespace action {
inline constexpr ActionType None = 0;
inline constexpr ActionType Add = 1u << 0;
inline constexpr ActionType Delete = 1u << 1;
// Node updates.
inline constexpr ActionType UpdateNodeAllocatable = 1u << 2;
inline constexpr ActionType UpdateNodeLabel = 1u << 3;
inline constexpr ActionType UpdateNodeTaint = 1u << 4;
inline constexpr ActionType UpdateNodeCondition = 1u << 5;
inline constexpr ActionType UpdateNodeAnnotation = 1u << 6;
// status.declaredFeatures changed (NodeDeclaredFeatures).
inline constexpr ActionType UpdateNodeDeclaredFeature = 1u << 7;
// Pod updates: a resource request lowered (ScaleDown) or raised or added (ScaleUp).
inline constexpr ActionType UpdatePodLabel = 1u << 8;
inline constexpr ActionType UpdatePodScaleDown = 1u << 9;
inline constexpr ActionType UpdatePodScaleUp = 1u << 10;
inline constexpr ActionType UpdatePodToleration = 1u << 11;
inline constexpr ActionType UpdatePodSchedulingGatesEliminated = 1u << 12;
inline constexpr ActionType UpdatePodGeneratedResourceClaim = 1u << 13;
// Any other update of a pod that none of the specific types covers.
inline constexpr ActionType UpdatePodOther = 1u << 14;
inline constexpr ActionType All = (1u << 15) - 1;
inline constexpr ActionType Update =
    UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdateNodeAnnotation |
    UpdateNodeDeclaredFeature | UpdatePodLabel | UpdatePodScaleDown | UpdatePodScaleUp | UpdatePodToleration |
    UpdatePodSchedulingGatesEliminated | UpdatePodGeneratedResourceClaim | UpdatePodOther;
}  // namespace action

// Upstream's ActionType.String(): the name of a single flag, "Update" for Update or UpdatePodOther,
// "All" for All; other combinations join the flag names with "|".
std::string actionTypeName(ActionType a);

struct ClusterEvent {
  EventResource resource = EventResource::WildCard;
  ActionType actionType = action::None;
  // Optional custom label for metrics; when empty label() is "<resource><action>".
  std::string customLabel;

  // e.g. "NodeAdd", "AssignedPodDelete", "NodeUpdateNodeLabel".
  std::string label() const;
  bool isWildCard() const { return resource == EventResource::WildCard && actionType == action::All; }
  bool operator==(const ClusterEvent& o) const {
    return resource == o.resource && actionType == o.actionType && customLabel == o.customLabel;
  }
};

// The pod events the event handlers and the queue raise (upstream framework/events.go).
inline const ClusterEvent kEventAssignedPodAdd{EventResource::AssignedPod, action::Add, {}};
inline const ClusterEvent kEventAssignedPodUpdate{EventResource::AssignedPod, action::Update, {}};
inline const ClusterEvent kEventAssignedPodDelete{EventResource::AssignedPod, action::Delete, {}};
inline const ClusterEvent kEventUnscheduledPodAdd{EventResource::UnscheduledPod, action::Add, {}};
inline const ClusterEvent kEventUnscheduledPodUpdate{EventResource::UnscheduledPod, action::Update, {}};
inline const ClusterEvent kEventUnscheduledPodDelete{EventResource::UnscheduledPod, action::Delete, {}};

// Special events that are not API events.
inline const ClusterEvent kEventUnschedulableTimeout{EventResource::WildCard, action::All,
                                                     "UnschedulableTimeout"};
inline const ClusterEvent kEventForceActivate{EventResource::WildCard, action::All, "ForceActivate"};

// True if `incoming` is the same as, or more specific than, the registered event `registered`
// (upstream MatchClusterEvents). Pod matches AssignedPod, UnscheduledPod and TargetPod; a wildcard
// incoming event matches only a wildcard registration.
bool matchClusterEvents(const ClusterEvent& registered, const ClusterEvent& incoming);
bool matchAnyClusterEvent(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered);

// The API object an event carries (old or new side); monostate when absent (Add has no old object,
// Delete no new one).
using EventObject =
    std::variant<std::monostate, api::PodPtr, api::NodePtr, std::shared_ptr<const api::PersistentVolume>,
                 std::shared_ptr<const api::PersistentVolumeClaim>, std::shared_ptr<const api::StorageClass>,
                 std::shared_ptr<const api::CSINode>, std::shared_ptr<const api::CSIDriver>,
                 std::shared_ptr<const api::CSIStorageCapacity>, std::shared_ptr<const api::VolumeAttachment>,
                 std::shared_ptr<const api::ResourceClaim>, std::shared_ptr<const api::ResourceSlice>,
                 std::shared_ptr<const api::DeviceClass>, std::shared_ptr<const api::PodGroup>>;

// Whether an event may make the pod schedulable.
enum class QueueingHint : uint8_t {
  // The event cannot help this pod: leave it where it is.
  QueueSkip = 0,
  // The event may make the pod schedulable: move it to activeQ/backoffQ.
  Queue = 1,
};

// Called by the queue (on the informer event thread) for each pod rejected by the plugin that
// registered it; must be cheap and must not block. An error is treated as Queue.
using QueueingHintFn = std::function<Result<QueueingHint>(const api::Pod& pod, const EventObject& oldObj,
                                                          const EventObject& newObj)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  // Empty means "always Queue".
  QueueingHintFn queueingHintFn;
};

// The events registered for plugins that don't implement EnqueueExtensions (every resource, All; PodGroup
// only with the GenericWorkload gate, as upstream UnrollWildCardResource).
std::vector<ClusterEventWithHint> unrollWildCardResource(bool genericWorkload = false);

}  // namespace ks::framework
