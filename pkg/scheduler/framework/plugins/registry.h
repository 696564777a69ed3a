#pragma once
// The in-tree plugin registry (upstream plugins/registry.go NewInTreeRegistry), filled in one explicit
// function: static libraries would silently drop self-registering initialisers.

#include <string>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/runtime/registry.h"

namespace ks::plugins {

// The feature gates in-tree plugins read (upstream plugins/feature.Features), v1.34 defaults. Only the gates
// whose both values kube-scheduler-cpp implements are here (pkg/app/gates.h refuses the others at a
// non-default value); the gates locked in v1.34 keep the plugins' defaults.
struct Features {
  // SchedulerAsyncPreemption: DefaultPreemption evicts off the scheduling thread.
  bool enableAsyncPreemption = true;
  // StorageCapacityScoring (alpha, off): VolumeBinding scores nodes by the capacity of their storage.
  bool enableStorageCapacityScoring = false;
  // VolumeAttributesClass (GA, not locked): VolumeBinding matches the claim's volumeAttributesClassName.
  bool enableVolumeAttributesClass = true;
  // MatchLabelKeysInPodTopologySpread (beta, on): PodTopologySpread ANDs matchLabelKeys into the selector.
  bool enableMatchLabelKeysInPodTopologySpread = true;
  // DynamicResourceAllocation (GA, not locked) and the DRA gates the DynamicResources plugin reads (its
  // allocator's features).
  bool enableDynamicResourceAllocation = true;
  bool enableDRASchedulerFilterTimeout = true;
  bool enableDRAAdminAccess = true;
  bool enableDRAPrioritizedList = true;
  bool enableDRAResourceClaimDeviceStatus = true;
  bool enableDRAPartitionableDevices = false;
  bool enableDRADeviceBindingConditions = false;
  bool enableDRAConsumableCapacity = false;
  // DRAFractionalCapacityRange (not in the v1.34.4 gate table yet).
  bool enableDRAFractionalCapacityRange = false;  // v1.37: Beta, off unless --min-compatibility-version >= 1.37
  // DRADeviceTaints (GA, on in v1.37; alpha and off in the v1.34.4 gate table, so only an explicit setting
  // reaches it): the allocator skips devices with NoSchedule/NoExecute taints the request does not tolerate.
  bool enableDRADeviceTaints = true;
  // DRADeviceTaintRules (GA, on in v1.37; not in the v1.34.4 gate table): DeviceTaintRules taint devices.
  bool enableDRADeviceTaintRules = true;
  // DRAExtendedResource (GA and locked on in v1.37; alpha and off in the v1.34.4 gate table, so not read
  // from it yet): extended resources a DeviceClass maps and the node does not advertise are allocated by
  // DynamicResources through a ResourceClaim the scheduler creates; NodeResourcesFit leaves them alone.
  bool enableDRAExtendedResource = true;
  // NodeDeclaredFeatures (GA, locked on in v1.37): the NodeDeclaredFeatures plugin filters; off, it does
  // nothing.
  bool enableNodeDeclaredFeatures = true;
  // InPlacePodVerticalScalingSchedulerPreemption (alpha, off in v1.37): NodeDeclaredFeatures and
  // NodeVolumeLimits don't check a pod whose resize is Deferred.
  bool enableInPlacePodVerticalScalingSchedulerPreemption = false;
  // VolumeLimitScaling (beta, on in v1.37; not in the v1.34.4 gate table yet): NodeVolumeLimits rejects a
  // node whose CSINode lacks a driver whose CSIDriver sets preventPodSchedulingIfMissing.
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
