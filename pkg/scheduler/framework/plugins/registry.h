#pragma once
// The in-tree plugin registry (upstream plugins/registry.go NewInTreeRegistry), filled in one explicit
// function: static libraries would silently drop self-registering initialisers.

#include <string>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/runtime/registry.h"

namespace ks::plugins {

// The feature gates in-tree plugins read (upstream plugins/feature.Features), v1.37.2 defaults. Only the gates
// whose both values kube-scheduler-cpp implements are here (pkg/scheduler/features refuses the others at a
// non-default value).
struct Features {
  // SchedulerAsyncPreemption (beta, on): DefaultPreemption evicts off the scheduling thread.
  bool enableAsyncPreemption = true;
  // GenericWorkload (beta, off): DefaultPreemption's victims are pod-group aware (a group with
  // disruptionMode `all` is evicted whole, at the group's priority) and its PreEnqueue gates a group's
  // members while the group's preemption runs.
  bool enableGenericWorkload = false;
  // StorageCapacityScoring (beta, on): VolumeBinding scores nodes by the capacity of their storage.
  bool enableStorageCapacityScoring = true;
  // VolumeAttributesClass (GA, locked): VolumeBinding matches the claim's volumeAttributesClassName.
  bool enableVolumeAttributesClass = true;
  // MatchLabelKeysInPodTopologySpread (beta, on): PodTopologySpread ANDs matchLabelKeys into the selector.
  bool enableMatchLabelKeysInPodTopologySpread = true;
  // DynamicResourceAllocation (GA, locked) and the DRA gates the DynamicResources plugin reads (its
  // allocator's features).
  bool enableDynamicResourceAllocation = true;
  bool enableDRASchedulerFilterTimeout = true;
  bool enableDRAAdminAccess = true;
  bool enableDRAPrioritizedList = true;
  bool enableDRAResourceClaimDeviceStatus = true;
  bool enableDRAPartitionableDevices = true;
  bool enableDRADeviceBindingConditions = true;
  bool enableDRAConsumableCapacity = true;
  // DRAFractionalCapacityRange (beta, but on only with --min-compatibility-version >= 1.37).
  bool enableDRAFractionalCapacityRange = false;
  // DRADeviceTaints (GA): the allocator skips devices with NoSchedule/NoExecute taints the request does not
  // tolerate.
  bool enableDRADeviceTaints = true;
  // DRADeviceTaintRules (GA): DeviceTaintRules taint devices.
  bool enableDRADeviceTaintRules = true;
  // DRAExtendedResource (GA, locked): extended resources a DeviceClass maps and the node does not advertise
  // are allocated by DynamicResources through a ResourceClaim the scheduler creates; NodeResourcesFit leaves
  // them alone.
  bool enableDRAExtendedResource = true;
  // NodeDeclaredFeatures (GA, locked): the NodeDeclaredFeatures plugin filters; off, it does nothing.
  bool enableNodeDeclaredFeatures = true;
  // InPlacePodVerticalScalingSchedulerPreemption (alpha, off; refused on): NodeDeclaredFeatures and
  // NodeVolumeLimits don't check a pod whose resize is Deferred.
  bool enableInPlacePodVerticalScalingSchedulerPreemption = false;
  // InPlacePodLevelResourcesVerticalScaling (beta, on since v1.36): NodeResourcesFit and BalancedAllocation
  // read a pod's pod-level status resources.
  bool enableInPlacePodLevelResourcesVerticalScaling = true;
  // VolumeLimitScaling (beta, on): NodeVolumeLimits rejects a node whose CSINode lacks a driver whose
  // CSIDriver sets preventPodSchedulingIfMissing.
  bool enableVolumeLimitScaling = true;
  // Not a gate: simulate has no PV controller, so VolumeBinding takes the bindings it writes as done.
  bool assumeVolumeBindingCompletes = false;
};

framework::runtime::Registry newInTreeRegistry(const Features& features = {});

namespace dynamicresources {
struct DynamicResourcesFeatures;
}  // namespace dynamicresources
// The DynamicResources plugin's switches from `features`.
dynamicresources::DynamicResourcesFeatures dynamicResourcesFeatures(const Features& features);

// Upstream v1.34 in-tree plugins that kube-scheduler-cpp does not implement yet.
const std::vector<std::string>& notYetImplementedPlugins();

// Fails with a clear message when the profile enables a plugin of notYetImplementedPlugins() (in any
// extension point or multiPoint, and not disabled), naming the plugins and how to disable them.
Result<void> checkProfileImplemented(const config::KubeSchedulerProfile& profile,
                                     const framework::runtime::Registry& registry);

}  // namespace ks::plugins
