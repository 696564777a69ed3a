#include "pkg/volume/volume_helpers.h"

#include <algorithm>

#include "pkg/api/labels.h"
#include "pkg/api/nodeselector.h"

namespace ks::volume {

namespace {

std::string annotation(const api::ObjectMeta& meta, std::string_view key, bool* found = nullptr) {
  auto it = meta.annotations.find(std::string(key));
  if (found) *found = it != meta.annotations.end();
  return it == meta.annotations.end() ? std::string() : it->second;
}

api::Quantity storageOf(const api::ResourceList& list) {
  auto it = list.find("storage");
  return it == list.end() ? api::Quantity() : it->second;
}

}  // namespace

std::string listerNotFound(std::string_view resource, std::string_view name) {
  return std::string(resource) + " \"" + std::string(name) + "\" not found";
}

std::string claimKey(const api::PersistentVolumeClaim& claim) {
  return claim.metadata.namespace_ + "/" + claim.metadata.name;
}

std::string persistentVolumeClaimClass(const api::PersistentVolumeClaim& claim) {
  bool found = false;
  std::string beta = annotation(claim.metadata, kBetaStorageClassAnnotation, &found);
  if (found) return beta;
  return claim.spec.storageClassName.value_or("");
}

bool persistentVolumeClaimHasClass(const api::PersistentVolumeClaim& claim) {
  return claim.metadata.annotations.contains(std::string(kBetaStorageClassAnnotation)) ||
         claim.spec.storageClassName.has_value();
}

std::string persistentVolumeClass(const api::PersistentVolume& pv) {
  bool found = false;
  std::string beta = annotation(pv.metadata, kBetaStorageClassAnnotation, &found);
  return found ? beta : pv.spec.storageClassName;
}

Result<void> checkNodeAffinity(const api::PersistentVolume& pv, const api::Labels& nodeLabels) {
  if (!pv.spec.nodeAffinity || !pv.spec.nodeAffinity->required) return {};
  api::Node node;
  node.metadata.labels = nodeLabels;
  std::string error;
  if (api::matchNodeSelectorTerms(node, *pv.spec.nodeAffinity->required, &error)) return {};
  if (!error.empty()) return Error(error);
  return Error("no matching NodeSelectorTerms");
}

bool isDelayBindingProvisioning(const api::PersistentVolumeClaim& claim) {
  return claim.metadata.annotations.contains(std::string(kAnnSelectedNode));
}

Result<bool> isDelayBindingMode(const api::PersistentVolumeClaim& claim, const StorageClassGetter& classes) {
  const std::string className = persistentVolumeClaimClass(claim);
  if (className.empty()) return false;
  auto cls = classes(className);
  if (!cls) return false;
  if (!cls->volumeBindingMode) {
    return Error("VolumeBindingMode not set for StorageClass \"" + className + "\"");
  }
  return *cls->volumeBindingMode == kVolumeBindingWaitForFirstConsumer;
}

bool isVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
  if (!pv.spec.claimRef) return false;
  const api::ObjectReference& ref = *pv.spec.claimRef;
  if (claim.metadata.name != ref.name || claim.metadata.namespace_ != ref.namespace_) return false;
  return ref.uid.empty() || claim.metadata.uid == ref.uid;
}

std::pair<api::PersistentVolume, bool> bindVolumeToClaim(const api::PersistentVolume& pv,
                                                          const api::PersistentVolumeClaim& claim) {
  const bool shouldSetBoundByController = !isVolumeBoundToClaim(pv, claim);
  api::PersistentVolume out = pv;
  bool dirty = false;
  const auto& ref = pv.spec.claimRef;
  if (!ref || ref->name != claim.metadata.name || ref->namespace_ != claim.metadata.namespace_ ||
      ref->uid != claim.metadata.uid) {
    // reference.GetReference of the claim.
    api::ObjectReference claimRef;
    claimRef.kind = "PersistentVolumeClaim";
    claimRef.apiVersion = "v1";
    claimRef.namespace_ = claim.metadata.namespace_;
    claimRef.name = claim.metadata.name;
    claimRef.uid = claim.metadata.uid;
    claimRef.resourceVersion = claim.metadata.resourceVersion;
    out.spec.claimRef = std::move(claimRef);
    dirty = true;
  }
  if (shouldSetBoundByController && !out.metadata.annotations.contains(std::string(kAnnBoundByController))) {
    out.metadata.annotations[std::string(kAnnBoundByController)] = "yes";
    dirty = true;
  }
  return {std::move(out), dirty};
}

bool volumeModeMismatches(const api::PersistentVolumeClaimSpec& claim, const api::PersistentVolumeSpec& pv) {
  return claim.volumeMode.value_or("Filesystem") != pv.volumeMode.value_or("Filesystem");
}

bool containsAccessMode(const std::vector<std::string>& modes, std::string_view mode) {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

bool accessModesMatch(const api::PersistentVolumeClaim& claim, const api::PersistentVolume& pv) {
  return std::all_of(claim.spec.accessModes.begin(), claim.spec.accessModes.end(),
                     [&](const std::string& m) { return containsAccessMode(pv.spec.accessModes, m); });
}

api::Quantity claimStorageRequest(const api::PersistentVolumeClaim& claim) {
  return storageOf(claim.spec.resources.requests);
}

api::Quantity volumeStorageCapacity(const api::PersistentVolume& pv) { return storageOf(pv.spec.capacity); }

Result<std::shared_ptr<const api::PersistentVolume>> findMatchingVolume(
    const api::PersistentVolumeClaim& claim, const std::vector<std::shared_ptr<const api::PersistentVolume>>& volumes,
    const api::Node* node, const std::map<std::string, std::shared_ptr<const api::PersistentVolume>>& excluded,
    bool delayBinding, bool volumeAttributesClassEnabled) {
  const std::string claimVAC = claim.spec.volumeAttributesClassName.value_or("");
  if (!volumeAttributesClassEnabled && !claimVAC.empty()) {
    return Error("unsupported volumeAttributesClassName is set on claim " + claimKey(claim) +
                 " when the feature-gate VolumeAttributesClass is disabled");
  }
  const api::Quantity requested = claimStorageRequest(claim);
  const std::string requestedClass = persistentVolumeClaimClass(claim);
  std::optional<api::Selector> selector;
  if (claim.spec.selector) {
    auto s = api::Selector::fromLabelSelector(*claim.spec.selector);
    if (!s.ok()) {
      return Error("error creating internal label selector for claim: " + claimKey(claim) + ": " +
                   s.error().message());
    }
    selector = std::move(s).value();
  }

  std::shared_ptr<const api::PersistentVolume> smallest;
  api::Quantity smallestQty;
  for (const auto& volume : volumes) {
    if (excluded.contains(volume->metadata.name)) continue;
    const bool boundToClaim = isVolumeBoundToClaim(*volume, claim);
    if (volume->spec.claimRef && !boundToClaim) continue;
    const api::Quantity volumeQty = volumeStorageCapacity(*volume);
    if (volumeQty.compare(requested) < 0) continue;
    if (volumeModeMismatches(claim.spec, volume->spec)) continue;
    const std::string volumeVAC = volume->spec.volumeAttributesClassName.value_or("");
    if (volumeAttributesClassEnabled && claimVAC != volumeVAC) continue;
    if (!volumeAttributesClassEnabled && !volumeVAC.empty()) continue;
    if (volume->metadata.deletionTimestamp) continue;

    // The most expensive check; upstream evaluates it before the cheaper ones below as well.
    const bool nodeAffinityValid = node == nullptr || checkNodeAffinity(*volume, node->metadata.labels).ok();
    if (boundToClaim) {
      // A pre-bound PV that does not fit the node means the claim does not fit it.
      if (!nodeAffinityValid) return std::shared_ptr<const api::PersistentVolume>();
      return volume;
    }
    if (node == nullptr && delayBinding) continue;  // the scheduler binds these
    if (volume->phase != kVolumeAvailable) continue;
    if (selector && !selector->matches(volume->metadata.labels)) continue;
    if (persistentVolumeClass(*volume) != requestedClass) continue;
    if (!nodeAffinityValid) continue;
    if (node != nullptr && !accessModesMatch(claim, *volume)) continue;
    if (!smallest || smallestQty.compare(volumeQty) > 0) {
      smallest = volume;
      smallestQty = volumeQty;
    }
  }
  return smallest;
}

std::optional<PodVolumeClaim> podVolumeClaim(const api::Pod& pod, const api::Volume& volume) {
  if (volume.persistentVolumeClaim) return PodVolumeClaim{volume.persistentVolumeClaim->claimName, false};
  if (volume.ephemeral) return PodVolumeClaim{ephemeralVolumeClaimName(pod, volume), true};
  return std::nullopt;
}

std::string ephemeralVolumeClaimName(const api::Pod& pod, const api::Volume& volume) {
  return pod.metadata.name + "-" + volume.name;
}

Result<void> ephemeralVolumeIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& claim) {
  bool controlledByPod = false;
  for (const api::OwnerReference& ref : claim.metadata.ownerReferences) {
    if (ref.controller.value_or(false)) {
      controlledByPod = ref.uid == pod.metadata.uid;
      break;
    }
  }
  if (claim.metadata.namespace_ != pod.metadata.namespace_ || !controlledByPod) {
    return Error("PVC " + claim.metadata.namespace_ + "/" + claim.metadata.name + " was not created for pod " +
                 pod.metadata.namespace_ + "/" + pod.metadata.name + " (pod is not owner)");
  }
  return {};
}

bool matchTopologySelectorTerms(const std::vector<api::TopologySelectorTerm>& terms, const api::Labels& labels) {
  if (terms.empty()) return true;
  for (const api::TopologySelectorTerm& term : terms) {
    if (term.matchLabelExpressions.empty()) continue;  // an empty term selects nothing
    bool all = true;
    for (const api::TopologySelectorLabelRequirement& req : term.matchLabelExpressions) {
      auto r = api::Requirement::create(req.key, api::SelectionOp::In, req.values);
      if (!r.ok() || !r->matches(labels)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace ks::volume
