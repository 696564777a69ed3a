#pragma once
// storage/v1 types used by the volume plugins: StorageClass, CSINode, CSIDriver, CSIStorageCapacity,
// VolumeAttachment.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/api/quantity.h"

namespace ks::api {

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;
  bool operator==(const TopologySelectorLabelRequirement&) const = default;
};

struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> matchLabelExpressions;
  bool operator==(const TopologySelectorTerm&) const = default;
};

struct StorageClass {
  static constexpr std::string_view kKind = "StorageClass";
  static constexpr std::string_view kApiVersion = "storage.k8s.io/v1";
  ObjectMeta metadata;
  std::string provisioner;
  std::map<std::string, std::string> parameters;
  std::optional<std::string> reclaimPolicy;
  std::optional<std::string> volumeBindingMode;  // Immediate (default) or WaitForFirstConsumer
  std::optional<bool> allowVolumeExpansion;
  std::vector<TopologySelectorTerm> allowedTopologies;
  bool operator==(const StorageClass&) const = default;
};

struct VolumeNodeResources {
  std::optional<int32_t> count;
  bool operator==(const VolumeNodeResources&) const = default;
};

struct CSINodeDriver {
  std::string name;
  std::string nodeID;
  std::vector<std::string> topologyKeys;
  std::optional<VolumeNodeResources> allocatable;
  bool operator==(const CSINodeDriver&) const = default;
};

struct CSINode {
  static constexpr std::string_view kKind = "CSINode";
  static constexpr std::string_view kApiVersion = "storage.k8s.io/v1";
  ObjectMeta metadata;
  std::vector<CSINodeDriver> drivers;  // spec.drivers
  bool operator==(const CSINode&) const = default;
};

struct CSIDriverSpec {
  std::optional<bool> attachRequired;
  std::optional<bool> podInfoOnMount;
  std::optional<bool> storageCapacity;
  std::optional<std::string> fsGroupPolicy;
  std::vector<std::string> volumeLifecycleModes;
  // VolumeLimitScaling (beta in v1.37): when true, NodeVolumeLimits rejects nodes whose CSINode does not
  // list the driver.
  std::optional<bool> preventPodSchedulingIfMissing;
  bool operator==(const CSIDriverSpec&) const = default;
};

struct CSIDriver {
  static constexpr std::string_view kKind = "CSIDriver";
  static constexpr std::string_view kApiVersion = "storage.k8s.io/v1";
  ObjectMeta metadata;
  CSIDriverSpec spec;
  bool operator==(const CSIDriver&) const = default;
};

struct CSIStorageCapacity {
  static constexpr std::string_view kKind = "CSIStorageCapacity";
  static constexpr std::string_view kApiVersion = "storage.k8s.io/v1";
  ObjectMeta metadata;
  std::optional<LabelSelector> nodeTopology;
  std::string storageClassName;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximumVolumeSize;
  bool operator==(const CSIStorageCapacity&) const = default;
};

// A volume attached (or being attached) to a node by an external attacher; NodeVolumeLimits counts
// the CSI volumes attached to a node that no pod there uses any more.
struct VolumeAttachment {
  static constexpr std::string_view kKind = "VolumeAttachment";
  static constexpr std::string_view kApiVersion = "storage.k8s.io/v1";
  ObjectMeta metadata;
  std::string attacher;                            // spec.attacher: the CSI driver
  std::string nodeName;                            // spec.nodeName
  std::optional<std::string> persistentVolumeName;  // spec.source.persistentVolumeName
  bool attached = false;                           // status.attached
  bool operator==(const VolumeAttachment&) const = default;
};

}  // namespace ks::api
