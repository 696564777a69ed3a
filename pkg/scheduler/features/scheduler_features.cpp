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
    {"CoordinatedLeaderElection", true,
     "leader election would go through LeaseCandidates; kube-scheduler-cpp only takes the Lease directly"},
    {"InOrderInformers", false,
     "informers would stop delivering events in order; kube-scheduler-cpp's informers always keep the order"},
    {"InPlacePodVerticalScaling", false,
     "a pod's requests would be its spec only (not the resized status); kube-scheduler-cpp's node accounting "
     "always takes the larger of spec and status"},
    {"PodLevelResources", false,
     "pod-level spec.resources would be ignored; kube-scheduler-cpp's node accounting always honours them"},
    {"SchedulerAsyncAPICalls", true,
     "status patches, bindings and evictions would go through the asynchronous API dispatcher, which "
     "kube-scheduler-cpp does not implement"},
    {"WatchListClient", true,
     "informers would list through a streaming watch; kube-scheduler-cpp's informers list and then watch"},
});

}  // namespace

std::span<const UnsupportedGateValue> unsupportedGateValues() { return kUnsupported; }

Result<SchedulerFeatures> schedulerFeatures(const FeatureGate& gates) {
  for (const auto& u : kUnsupported) {
    if (gates.enabled(u.gate) == u.value) {
      const std::string value = u.value ? "true" : "false";
      std::string via;
      if (gates.explicitlySet().count(u.gate) == 0) {
        // Turned by AllAlpha / AllBeta: say so, and how to keep it as it was.
        const FeatureSpec* spec = findFeature(u.gate);
        const char* all = spec != nullptr && spec->stage == Stage::Alpha ? "AllAlpha" : "AllBeta";
        via = std::string(" (set through ") + all + "=" + value + "; add " + std::string(u.gate) + "=" +
              (u.value ? "false" : "true") + " to keep it off)";
        if (!u.value) via = std::string(" (set through ") + all + "=false; add " + std::string(u.gate) + "=true)";
      }
      return Error("feature gate " + std::string(u.gate) + "=" + value + " is not supported by kube-scheduler-cpp: " +
                   std::string(u.effect) + via);
    }
  }
  SchedulerFeatures f;
  f.config.dynamicResourceAllocation = gates.enabled("DynamicResourceAllocation");
  f.config.draSchedulerFilterTimeout = gates.enabled("DRASchedulerFilterTimeout");
  f.config.storageCapacityScoring = gates.enabled("StorageCapacityScoring");
  f.config.draDeviceBindingConditions = gates.enabled("DRADeviceBindingConditions");
  f.config.draResourceClaimDeviceStatus = gates.enabled("DRAResourceClaimDeviceStatus");
  f.plugins.enableAsyncPreemption = gates.enabled("SchedulerAsyncPreemption");
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
  // On in v1.37 (GA); the v1.34.4 table still says alpha and off, so only an explicit value counts.
  if (gates.explicitlySet().count("DRADeviceTaints") != 0) {
    f.plugins.enableDRADeviceTaints = gates.enabled("DRADeviceTaints");
  }
  // GA and locked on in v1.37; alpha and off in the v1.34.4 table, so only an explicit value counts until
  // the table moves.
  if (gates.explicitlySet().count("DRAExtendedResource") > 0) {
    f.plugins.enableDRAExtendedResource = gates.enabled("DRAExtendedResource");
  }
  f.popFromBackoffQ = gates.enabled("SchedulerPopFromBackoffQ");
  f.nominatedNodeNameForExpectation = gates.enabled("NominatedNodeNameForExpectation");
  if (findFeature("DRAFractionalCapacityRange") != nullptr) {
    f.plugins.enableDRAFractionalCapacityRange = gates.enabled("DRAFractionalCapacityRange");
  }
  if (findFeature("OpportunisticBatching") != nullptr) {
    f.enableOpportunisticBatching = gates.enabled("OpportunisticBatching");
  }
  return f;
}

}  // namespace ks::features
