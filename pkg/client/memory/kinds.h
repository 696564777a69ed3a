#pragma once
// Per-kind knowledge the in-memory API needs beyond pkg/api/kinds.h (resource name, scope): the storage
// key, and the field selectors the apiserver supports for each kind (pkg/registry/*/strategy.go:
// *ToSelectableFields). Internal to pkg/client/memory.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/kinds.h"
#include "pkg/api/meta.h"

namespace ks::client::memory {

using api::KindInfo;
using api::qualifiedResource;

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
