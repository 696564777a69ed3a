// Ported from k8s.io/component-helpers/nodedeclaredfeatures/features (v0.37.2): registry.go and each
// feature's Name, InferForScheduling and MaxVersion.

#include "pkg/api/nodedeclaredfeatures/features.h"

#include <algorithm>
#include <string>

namespace ks::api::nodedeclaredfeatures::features {

namespace {

bool hasRestartAllContainersRule(const std::vector<Container>& containers) {
  return std::any_of(containers.begin(), containers.end(), [](const Container& c) {
    return std::any_of(c.restartPolicyRules.begin(), c.restartPolicyRules.end(),
                       [](const ContainerRestartRule& r) {
                         return r.action == kContainerRestartRuleActionRestartAllContainers;
                       });
  });
}

template <class C>
bool hasBindMountOptions(const std::vector<C>& containers) {
  return std::any_of(containers.begin(), containers.end(), [](const C& c) {
    return std::any_of(c.volumeMounts.begin(), c.volumeMounts.end(),
                       [](const VolumeMount& m) { return !m.bindMountOptions.empty(); });
  });
}

// The features whose inference for scheduling is always false: they concern pod updates (in-place
// resize), node-local operations (DRA, exec/attach over websockets), or, for DRAOptionalNodeOperations,
// claims allocated only at PreBind, which the DynamicResources plugin checks itself.
bool never(const PodSpec& /*spec*/) {
  return false;
}

Feature feature(std::string_view name, bool (*infer)(const PodSpec&)) {
  return Feature{std::string(name), infer, std::nullopt};
}

}  // namespace

bool restartAllContainersInferForScheduling(const PodSpec& spec) {
  return hasRestartAllContainersRule(spec.containers) || hasRestartAllContainersRule(spec.initContainers);
}

bool userNamespacesHostNetworkInferForScheduling(const PodSpec& spec) {
  return spec.hostNetwork && spec.hostUsers.has_value() && !*spec.hostUsers;
}

bool volumeBindMountOptionsInferForScheduling(const PodSpec& spec) {
  return hasBindMountOptions(spec.containers) || hasBindMountOptions(spec.initContainers) ||
         hasBindMountOptions(spec.ephemeralContainers);
}

std::vector<Feature> allFeatures() {
  return {
      feature(kRestartAllContainersOnContainerExits, restartAllContainersInferForScheduling),
      feature(kInPlacePodLevelResourcesVerticalScaling, never),
      feature(kExtendWebSocketsToKubelet, never),
      feature(kInPlacePodVerticalScalingInitContainers, never),
      feature(kInPlacePodVerticalScalingMemoryBackedVolumes, never),
      feature(kUserNamespacesHostNetworkSupport, userNamespacesHostNetworkInferForScheduling),
      feature(kDRANodeAllocatableResources, never),
      feature(kVolumeBindMountOptions, volumeBindMountOptionsInferForScheduling),
      feature(kDRAOptionalNodeOperations, never),
  };
}

}  // namespace ks::api::nodedeclaredfeatures::features
