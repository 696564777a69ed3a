#pragma once
// Builders for the VolumeBinding tests, after upstream volumebinding/test_utils.go:
//   makePV("pv-a", "wait-sc").withPhase("Available").withCapacity(mustParse("1Gi")).pv
//   makePVC("pvc-a", "wait-sc").withBoundPV("pv-a").pvc
//   makePod("pod-a").withPVCVolume("pvc-a", "").pod
// Each with* call changes the builder and returns it, so calls chain on a temporary.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/quantity.h"
#include "pkg/api/storage.h"
#include "pkg/volume/volume_helpers.h"
#include "test/support/wrappers.h"

namespace ks::volumebinding::testutil {

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
// The node label the binder tests' PVs, classes and capacities select on.
inline const std::string kNodeLabelKey = "nodeKey";

struct NodeBuilder {
  api::Node node;

  NodeBuilder& withLabel(const std::string& key, const std::string& value) {
    node.metadata.labels[key] = value;
    return *this;
  }
  api::NodePtr ptr() const { return std::make_shared<const api::Node>(node); }
};

// A node labelled with its hostname.
inline NodeBuilder makeNode(const std::string& name) {
  NodeBuilder b;
  b.node.metadata.name = name;
  b.node.metadata.labels[std::string(kLabelHostname)] = name;
  return b;
}

struct PVBuilder {
  api::PersistentVolume pv;

  // One required term with a key In values requirement per entry (in key order).
  PVBuilder& withNodeAffinity(const std::map<std::string, std::vector<std::string>>& keyValues) {
    api::NodeSelectorTerm term;
    for (const auto& [key, values] : keyValues) {
      term.matchExpressions.push_back(api::NodeSelectorRequirement{key, "In", values});
    }
    api::NodeSelector required;
    required.nodeSelectorTerms.push_back(std::move(term));
    pv.spec.nodeAffinity = api::VolumeNodeAffinity{std::move(required)};
    return *this;
  }
  PVBuilder& withVersion(const std::string& version) {
    pv.metadata.resourceVersion = version;
    return *this;
  }
  PVBuilder& withCapacity(const api::Quantity& capacity) {
    pv.spec.capacity = api::ResourceList{{"storage", capacity}};
    return *this;
  }
  PVBuilder& withPhase(const std::string& phase) {
    pv.phase = phase;
    return *this;
  }
  std::shared_ptr<const api::PersistentVolume> ptr() const {
    return std::make_shared<const api::PersistentVolume>(pv);
  }
};

inline PVBuilder makePV(const std::string& name, const std::string& className) {
  PVBuilder b;
  b.pv.metadata.name = name;
  b.pv.spec.storageClassName = className;
  return b;
}

struct PVCBuilder {
  api::PersistentVolumeClaim pvc;

  PVCBuilder& withBoundPV(const std::string& pvName) {
    pvc.spec.volumeName = pvName;
    pvc.metadata.annotations[std::string(volume::kAnnBindCompleted)] = "true";
    return *this;
  }
  PVCBuilder& withRequestStorage(const api::Quantity& request) {
    pvc.spec.resources = api::ResourceRequirements{{}, api::ResourceList{{"storage", request}}};
    return *this;
  }
  PVCBuilder& withPhase(const std::string& phase) {
    pvc.status.phase = phase;
    return *this;
  }
  std::shared_ptr<const api::PersistentVolumeClaim> ptr() const {
    return std::make_shared<const api::PersistentVolumeClaim>(pvc);
  }
};

// A claim in namespace "default" with the given storageClassName (set even when empty).
inline PVCBuilder makePVC(const std::string& name, const std::string& storageClassName) {
  PVCBuilder b;
  b.pvc.metadata.name = name;
  b.pvc.metadata.namespace_ = "default";
  b.pvc.spec.storageClassName = storageClassName;
  return b;
}

struct PodBuilder {
  api::Pod pod;

  PodBuilder& withNodeName(const std::string& name) {
    pod.spec.nodeName = name;
    return *this;
  }
  PodBuilder& withNamespace(const std::string& ns) {
    pod.metadata.namespace_ = ns;
    return *this;
  }
  PodBuilder& withPVCVolume(const std::string& pvcName, const std::string& name) {
    api::Volume v;
    v.name = name;
    v.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{pvcName, false};
    pod.spec.volumes.push_back(std::move(v));
    return *this;
  }
  // One volume "vol<i>" per claim.
  PodBuilder& withPVCSVolume(const std::vector<api::PersistentVolumeClaim>& pvcs) {
    for (size_t i = 0; i < pvcs.size(); ++i) withPVCVolume(pvcs[i].metadata.name, "vol" + std::to_string(i));
    return *this;
  }
  PodBuilder& withEmptyDirVolume() {
    api::Volume v;
    v.otherSource = "emptyDir";
    pod.spec.volumes.push_back(std::move(v));
    return *this;
  }
  PodBuilder& withGenericEphemeralVolume(const std::string& name) {
    api::Volume v;
    v.name = name;
    v.ephemeral = api::EphemeralVolumeSource{};
    pod.spec.volumes.push_back(std::move(v));
    return *this;
  }
  PodBuilder& withCSI(const std::string& driver) {
    api::Volume v;
    v.csi = api::CSIVolumeSource{driver};
    pod.spec.volumes.push_back(std::move(v));
    return *this;
  }
  api::PodPtr ptr() const { return std::make_shared<const api::Pod>(pod); }
};

// A pod in namespace "default" without volumes.
inline PodBuilder makePod(const std::string& name) {
  PodBuilder b;
  b.pod.metadata.name = name;
  b.pod.metadata.namespace_ = "default";
  return b;
}

// A CSIStorageCapacity of the class, for the node's kNodeLabelKey label (any node when null); empty
// quantities stay unset (upstream binder_test.go makeCapacity).
inline api::CSIStorageCapacity makeCapacity(const std::string& name, const std::string& storageClassName,
                                            const api::Node* node, const std::string& capacity,
                                            const std::string& maximumVolumeSize) {
  api::CSIStorageCapacity c;
  c.metadata.name = name;
  c.storageClassName = storageClassName;
  c.nodeTopology = api::LabelSelector{};
  if (node != nullptr) {
    auto it = node->metadata.labels.find(kNodeLabelKey);
    c.nodeTopology->matchLabels[kNodeLabelKey] = it == node->metadata.labels.end() ? "" : it->second;
  }
  if (!capacity.empty()) c.capacity = ks::testing::mustParse(capacity);
  if (!maximumVolumeSize.empty()) c.maximumVolumeSize = ks::testing::mustParse(maximumVolumeSize);
  return c;
}

}  // namespace ks::volumebinding::testutil
