#include "pkg/scheduler/features/scheduler_features.h"

#include <array>
#include <string>

namespace ks::features {
namespace {

constexpr auto kUnsupported = std::to_array<UnsupportedGateValue>({
    {"ClientsAllowCBOR", true,
     "the API client would accept CBOR responses; kube-scheduler-cpp speaks JSON and protobuf, not CBOR"},
    {"ClientsPreferCBOR", true,
     "the API client would send CBOR; kube-scheduler-cpp speaks JSON and protobuf, not CBOR"},
    {"CompositePodGroup", true, "CompositePodGroups would be scheduled as gangs; not implemented yet"},
    {"CoordinatedLeaderElection", true,
     "leader election would go through LeaseCandidates; kube-scheduler-cpp only takes the Lease directly"},
    {"DRADerivedAttributes", true, "device classes could derive attributes; the DRA allocator does not"},
    {"DRADeviceCompatibilityGroups", true,
     "devices of incompatible counter groups would be kept apart; the DRA allocator does not"},
    {"DRAListTypeAttributes", true, "device attributes could be lists; the API model and CEL do not have them"},
    {"DRANodeAllocatableResources", true,
     "DRA devices would count towards node allocatable resources; not implemented"},
    {"DRAOptionalNodeOperations", true, "the DRA allocator would skip optional node operations; not implemented"},
    {"DRAWorkloadResourceClaims", true, "PodGroups could own ResourceClaims; gang scheduling is not implemented yet"},
    {"InPlacePodVerticalScalingSchedulerPreemption", true,
     "preemption would count resizes in progress; not implemented"},
    {"InterPodAffinityHostnameFastPath", true, "InterPodAffinity's hostname fast path is not implemented"},
    {"PodGroupPreemptionPolicy", true, "PodGroups would carry a preemption policy; gang scheduling is not implemented yet"},
    {"PodLevelResources", false,
     "pod-level spec.resources would be ignored; kube-scheduler-cpp's node accounting always honours them"},
    {"SchedulerAsyncAPICalls", true,
     "status patches, bindings and evictions would go through the asynchronous API dispatcher, which "
     "kube-scheduler-cpp does not implement"},
    {"SchedulerPreQueueingHints", true, "PreEnqueue plugins would get queueing hints; not implemented"},
    {"TaintTolerationComparisonOperators", true,
     "tolerations could compare taint values (Lt, Gt); TaintToleration only knows Equal and Exists"},
    {"TopologyAwareWorkloadScheduling", true,
     "PodGroups would be placed by topology (the placement cycle); not implemented yet"},
});

}  // namespace

std::span<const UnsupportedGateValue> unsupportedGateValues() { return kUnsupported; }

Result<SchedulerFeatures> schedulerFeatures(const FeatureGate& gates) {
  for (const auto& u : kUnsupported) {
    if (gates.enabled(u.gate) == u.value) {
      const std::string value = u.value ? "true" : "false";
      std::string via;
      if (gates.explicitlySet().count(u.gate) == 0) {
        const FeatureSpec* spec = gates.spec(u.gate);
        const std::string all = spec != nullptr && spec->stage == Stage::Alpha ? "AllAlpha" : "AllBeta";
        if (gates.explicitlySet().count(all) != 0 && spec != nullptr &&
            (spec->stage == Stage::Alpha || spec->stage == Stage::Beta)) {
          // Turned by AllAlpha / AllBeta: say so, and how to keep it as it was.
          via = " (set through " + all + "=" + value + "; add " + std::string(u.gate) + "=" +
                (u.value ? "false" : "true") + " to keep it off)";
          if (!u.value) via = " (set through " + all + "=false; add " + std::string(u.gate) + "=true)";
        } else {
          // The default at the emulated / min compatibility version.
          via = " (its default at --emulated-version=" + std::to_string(kBinaryMajor) + "." +
                std::to_string(gates.emulationMinor()) + ", --min-compatibility-version=" +
                std::to_string(kBinaryMajor) + "." + std::to_string(gates.minCompatibilityMinor()) + ")";
        }
      }
      return Error("feature gate " + std::string(u.gate) + "=" + value + " is not supported by kube-scheduler-cpp: " +
                   std::string(u.effect) + via);
    }
  }
  SchedulerFeatures f;
  f.config.dynamicResourceAllocation = gates.enabled("DynamicResourceAllocation");
  f.config.genericWorkload = gates.enabled("GenericWorkload");
  f.config.draSchedulerFilterTimeout = gates.enabled("DRASchedulerFilterTimeout");
  f.config.storageCapacityScoring = gates.enabled("StorageCapacityScoring");
  f.config.draDeviceBindingConditions = gates.enabled("DRADeviceBindingConditions");
  f.config.draResourceClaimDeviceStatus = gates.enabled("DRAResourceClaimDeviceStatus");
  f.plugins.enableAsyncPreemption = gates.enabled("SchedulerAsyncPreemption");
  f.plugins.enableGenericWorkload = gates.enabled("GenericWorkload");
  f.plugins.enableStorageCapacityScoring = gates.enabled("StorageCapacityScoring");
  f.plugins.enableVolumeAttributesClass = gates.enabled("VolumeAttributesClass");
  f.plugins.enableMatchLabelKeysInPodTopologySpread = gates.enabled("MatchLabelKeysInPodTopologySpread");
  f.plugins.enableDynamicResourceAllocation = gates.enabled("DynamicResourceAllocation");
  f.plugins.enableDRASchedulerFilterTimeout = gates.enabled("DRASchedulerFilterTimeout");
  f.plugins.enableDRAAdminAccess = gates.enabled("DRAAdminAccess");
  f.plugins.enableDRAPrioritizedList = gates.enabled("DRAPrioritizedList");
  f.plugins.enableDRAResourceClaimDeviceStatus = gates.enabled("DRAResourceClaimDeviceStatus");
  f.plugins.enableDRAPartitionableDevices = gates.enabled("DRAPartitionableDevices");
  f.plugins.enableDRADeviceBindingConditions = gates.enabled("DRADeviceBindingConditions");
  f.plugins.enableDRAConsumableCapacity = gates.enabled("DRAConsumableCapacity");
  f.plugins.enableDRADeviceTaints = gates.enabled("DRADeviceTaints");
  f.plugins.enableDRADeviceTaintRules = gates.enabled("DRADeviceTaintRules");
  f.plugins.enableDRAExtendedResource = gates.enabled("DRAExtendedResource");  // GA, locked on
  f.plugins.enableInPlacePodLevelResourcesVerticalScaling = gates.enabled("InPlacePodLevelResourcesVerticalScaling");
  f.plugins.enableDRAFractionalCapacityRange = gates.enabled("DRAFractionalCapacityRange");
  f.plugins.enableNodeDeclaredFeatures = gates.enabled("NodeDeclaredFeatures");  // GA, locked on
  f.plugins.enableVolumeLimitScaling = gates.enabled("VolumeLimitScaling");
  f.popFromBackoffQ = gates.enabled("SchedulerPopFromBackoffQ");
  f.watchListClient = gates.enabled("WatchListClient");
  f.nominatedNodeNameForExpectation = gates.enabled("NominatedNodeNameForExpectation");
  f.enableOpportunisticBatching = gates.enabled("OpportunisticBatching");
  return f;
}

Result<SchedulerFeatures> schedulerFeaturesFromFlags(const std::vector<std::string>& flagValues,
                                                     std::vector<std::string>* warnings) {
  FeatureGate gates;
  if (auto r = applyFeatureGatesFlags(flagValues, gates, warnings); !r.ok()) return r.error();
  if (auto r = gates.validateDependencies(); !r.ok()) return r.error();
  return schedulerFeatures(gates);
}

}  // namespace ks::features
