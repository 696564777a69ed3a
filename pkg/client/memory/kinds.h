#pragma once
// Per-kind knowledge the in-memory API needs: the resource name used in error messages, whether the
// kind is namespaced, the storage key, and the field selectors the apiserver supports for it
// (pkg/registry/*/strategy.go: *ToSelectableFields). Internal to pkg/client/memory.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/coordination.h"
#include "pkg/api/core.h"
#include "pkg/api/events.h"
#include "pkg/api/meta.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/storage.h"

namespace ks::client::memory {

template <typename T>
struct KindInfo;

#define KS_MEMORY_KIND(Type, resourceName, groupName, isNamespaced) \
  template <>                                                       \
  struct KindInfo<api::Type> {                                      \
    static constexpr std::string_view kResource = resourceName;     \
    static constexpr std::string_view kGroup = groupName;           \
    static constexpr bool kNamespaced = isNamespaced;               \
  };

KS_MEMORY_KIND(Pod, "pods", "", true)
KS_MEMORY_KIND(Node, "nodes", "", false)
KS_MEMORY_KIND(Namespace, "namespaces", "", false)
KS_MEMORY_KIND(PersistentVolume, "persistentvolumes", "", false)
KS_MEMORY_KIND(PersistentVolumeClaim, "persistentvolumeclaims", "", true)
KS_MEMORY_KIND(StorageClass, "storageclasses", "storage.k8s.io", false)
KS_MEMORY_KIND(CSINode, "csinodes", "storage.k8s.io", false)
KS_MEMORY_KIND(CSIDriver, "csidrivers", "storage.k8s.io", false)
KS_MEMORY_KIND(CSIStorageCapacity, "csistoragecapacities", "storage.k8s.io", true)
KS_MEMORY_KIND(VolumeAttachment, "volumeattachments", "storage.k8s.io", false)
KS_MEMORY_KIND(PodDisruptionBudget, "poddisruptionbudgets", "policy", true)
KS_MEMORY_KIND(Service, "services", "", true)
KS_MEMORY_KIND(ReplicationController, "replicationcontrollers", "", true)
KS_MEMORY_KIND(ReplicaSet, "replicasets", "apps", true)
KS_MEMORY_KIND(StatefulSet, "statefulsets", "apps", true)
KS_MEMORY_KIND(Event, "events", "events.k8s.io", true)
KS_MEMORY_KIND(Lease, "leases", "coordination.k8s.io", true)
KS_MEMORY_KIND(DeviceClass, "deviceclasses", "resource.k8s.io", false)
KS_MEMORY_KIND(ResourceClaim, "resourceclaims", "resource.k8s.io", true)
KS_MEMORY_KIND(ResourceClaimTemplate, "resourceclaimtemplates", "resource.k8s.io", true)
KS_MEMORY_KIND(ResourceSlice, "resourceslices", "resource.k8s.io", false)

#undef KS_MEMORY_KIND

// "pods", "leases.coordination.k8s.io": the qualified resource of upstream's error messages.
template <typename T>
std::string qualifiedResource() {
  std::string r(KindInfo<T>::kResource);
  if (!KindInfo<T>::kGroup.empty()) {
    r += '.';
    r += KindInfo<T>::kGroup;
  }
  return r;
}

// "namespace/name" for namespaced kinds, "name" for cluster-scoped ones (cache.MetaNamespaceKeyFunc).
template <typename T>
std::string storageKey(const std::string& ns, const std::string& name) {
  if constexpr (KindInfo<T>::kNamespaced) {
    return ns + "/" + name;
  } else {
    (void)ns;
    return name;
  }
}

// The value of a selectable field of `obj`, or nullopt when the kind does not support the field
// (the apiserver answers 400 "field label not supported").
inline std::optional<std::string> metaFieldValue(const api::ObjectMeta& m, std::string_view field,
                                                 bool namespaced) {
  if (field == "metadata.name") return m.name;
  if (namespaced && field == "metadata.namespace") return m.namespace_;
  return std::nullopt;
}

template <typename T>
std::optional<std::string> fieldValue(const T& obj, std::string_view field) {
  return metaFieldValue(obj.metadata, field, KindInfo<T>::kNamespaced);
}

template <>
inline std::optional<std::string> fieldValue(const api::Pod& pod, std::string_view field) {
  if (field == "spec.nodeName") return pod.spec.nodeName;
  if (field == "spec.schedulerName") return pod.spec.schedulerName;
  if (field == "spec.restartPolicy") return pod.spec.restartPolicy;
  if (field == "spec.serviceAccountName") return pod.spec.serviceAccountName;
  if (field == "spec.hostNetwork") return std::string(pod.spec.hostNetwork ? "true" : "false");
  if (field == "status.phase") return pod.status.phase;
  if (field == "status.nominatedNodeName") return pod.status.nominatedNodeName;
  return metaFieldValue(pod.metadata, field, true);
}

template <>
inline std::optional<std::string> fieldValue(const api::Node& node, std::string_view field) {
  if (field == "spec.unschedulable") return std::string(node.spec.unschedulable ? "true" : "false");
  return metaFieldValue(node.metadata, field, false);
}

template <>
inline std::optional<std::string> fieldValue(const api::Namespace& ns, std::string_view field) {
  if (field == "status.phase") return ns.phase;
  return metaFieldValue(ns.metadata, field, false);
}

template <>
inline std::optional<std::string> fieldValue(const api::PersistentVolumeClaim& pvc, std::string_view field) {
  if (field == "spec.volumeName") return pvc.spec.volumeName;
  return metaFieldValue(pvc.metadata, field, true);
}

// ResourceSliceSelectorNodeName and ResourceSliceSelectorDriver; an absent nodeName selects as "".
template <>
inline std::optional<std::string> fieldValue(const api::ResourceSlice& slice, std::string_view field) {
  if (field == "spec.nodeName") return slice.spec.nodeName.value_or("");
  if (field == "spec.driver") return slice.spec.driver;
  return metaFieldValue(slice.metadata, field, false);
}

}  // namespace ks::client::memory
