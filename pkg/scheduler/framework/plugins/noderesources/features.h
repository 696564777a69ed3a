#pragma once
// The feature gates the noderesources plugins read (upstream plugins/feature.Features), with their
// kube-scheduler defaults.

namespace ks::plugins::noderesources {

struct Features {
  bool enableInPlacePodVerticalScaling = true;  // beta, on by default since v1.33
  bool enableSidecarContainers = true;          // GA in v1.33
  bool enableSchedulingQueueHint = true;        // beta, on by default since v1.32
  bool enablePodLevelResources = true;          // beta, on by default in v1.34
  // InPlacePodLevelResourcesVerticalScaling (beta, on by default since v1.36): a running pod's requests
  // also read the pod-level status.allocatedResources / status.resources.
  bool enableInPlacePodLevelResourcesVerticalScaling = true;
  // DRAExtendedResource (GA and locked on in v1.37): an extended resource the node does not advertise and a
  // DeviceClass maps is left to DynamicResources.
  bool enableDRAExtendedResource = true;
};

}  // namespace ks::plugins::noderesources
