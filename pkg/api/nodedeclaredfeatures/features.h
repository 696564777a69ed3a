#pragma once
// The declared features of this release (k8s.io/component-helpers/nodedeclaredfeatures/features,
// v0.37.2 AllFeatures): their names and what scheduling a pod needs of them. Only three constrain
// scheduling; the others matter to pod updates or node-local operations only.

#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/nodedeclaredfeatures/framework.h"

namespace ks::api::nodedeclaredfeatures::features {

inline constexpr std::string_view kRestartAllContainersOnContainerExits =
    "RestartAllContainersOnContainerExits";
inline constexpr std::string_view kInPlacePodLevelResourcesVerticalScaling =
    "InPlacePodLevelResourcesVerticalScaling";
inline constexpr std::string_view kExtendWebSocketsToKubelet = "ExtendWebSocketsToKubelet";
inline constexpr std::string_view kInPlacePodVerticalScalingInitContainers =
    "InPlacePodVerticalScalingInitContainers";
inline constexpr std::string_view kInPlacePodVerticalScalingMemoryBackedVolumes =
    "InPlacePodVerticalScalingMemoryBackedVolumes";
inline constexpr std::string_view kUserNamespacesHostNetworkSupport = "UserNamespacesHostNetworkSupport";
inline constexpr std::string_view kDRANodeAllocatableResources = "DRANodeAllocatableResources";
inline constexpr std::string_view kVolumeBindMountOptions = "VolumeBindMountOptions";
inline constexpr std::string_view kDRAOptionalNodeOperations = "DRAOptionalNodeOperations";

// A container or init container has a restart rule with action RestartAllContainers.
bool restartAllContainersInferForScheduling(const PodSpec& spec);
// The pod uses the host network from a user namespace (hostNetwork and hostUsers=false).
bool userNamespacesHostNetworkInferForScheduling(const PodSpec& spec);
// A container, init container or ephemeral container mounts a volume with bind mount options.
bool volumeBindMountOptionsInferForScheduling(const PodSpec& spec);

// Every feature, in upstream's order (Framework sorts them).
std::vector<Feature> allFeatures();

}  // namespace ks::api::nodedeclaredfeatures::features
