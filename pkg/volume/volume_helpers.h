#pragma once
// Storage helpers shared by the volume plugins and the volume binder: upstream's
// k8s.io/component-helpers/storage/{volume,ephemeral} and the topology-selector match of
// pkg/apis/core/v1/helper. Pure functions over API objects.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::volume {

// Annotations the PV controller, the scheduler and provisioners exchange.
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by";
inline constexpr std::string_view kAnnStorageProvisioner = "volume.kubernetes.io/storage-provisioner";
inline constexpr std::string_view kAnnBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner";
inline constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";
// CSINode annotation listing the in-tree plugins migrated to CSI on that node.
inline constexpr std::string_view kMigratedPluginsAnnotation = "storage.alpha.kubernetes.io/migrated-plugins";
// A StorageClass provisioner that means "no dynamic provisioning".
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";

inline constexpr std::string_view kReadWriteOnce = "ReadWriteOnce";
inline constexpr std::string_view kReadOnlyMany = "ReadOnlyMany";
inline constexpr std::string_view kReadWriteMany = "ReadWriteMany";
inline constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";

inline constexpr std::string_view kVolumeBindingWaitForFirstConsumer = "WaitForFirstConsumer";
inline constexpr std::string_view kVolumeAvailable = "Available";
inline constexpr std::string_view kClaimLost = "Lost";

// What an informer lister answers for a missing object (errors.NewNotFound), e.g.
// `persistentvolumeclaim "data" not found`; `resource` is the singular (qualified) resource.
std::string listerNotFound(std::string_view resource, std::string_view name);

// "namespace/name" of a claim (upstream claimToClaimKey / getPVCName).
std::string claimKey(const api::PersistentVolumeClaim& claim);

// The claim's class: the beta annotation first, then spec.storageClassName; "" when neither is set.
std::string persistentVolumeClaimClass(const api::PersistentVolumeClaim& claim);
// Whether either of them is set (an empty class counts as set).
bool persistentVolumeClaimHasClass(const api::PersistentVolumeClaim& claim);
// The volume's class: the beta annotation first, then spec.storageClassName.
std::string persistentVolumeClass(const api::PersistentVolume& pv);

// OK when the PV has no required node affinity or `nodeLabels` match one of its terms; otherwise
// "no matching NodeSelectorTerms" or the term's parse error, as upstream CheckNodeAffinity.
Result<void> checkNodeAffinity(const api::PersistentVolume& pv, const api::Labels& nodeLabels);

// Whether the claim was handed to provisioning by the scheduler (has the selected-node annotation).
bool isDelayBindingProvisioning(const api::PersistentVolumeClaim& claim);

// A lookup of StorageClasses by name; nullptr when there is none.
using StorageClassGetter = std::function<std::shared_ptr<const api::StorageClass>(const std::string& name)>;

// Whether the claim's class binds WaitForFirstConsumer. A claim without class or with a class that
// does not exist is not delayed; a class without volumeBindingMode is an error, as upstream.
Result<bool> isDelayBindingMode(const api::PersistentVolumeClaim& claim, const StorageClassGetter& classes);

// Whether the PV's claimRef names this claim (and its uid, when the claimRef carries one).
bool isVolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim);

// The PV bound to `claim` (claimRef set to the claim, bound-by-controller annotation added when the
// binding is new) and whether anything changed, as upstream GetBindVolumeToClaim.
std::pair<api::PersistentVolume, bool> bindVolumeToClaim(const api::PersistentVolume& pv,
                                                          const api::PersistentVolumeClaim& claim);

// True when the claim's and the PV's volumeMode differ (unset means Filesystem on both sides).
bool volumeModeMismatches(const api::PersistentVolumeClaimSpec& claim, const api::PersistentVolumeSpec& pv);
// Whether the PV offers every access mode the claim asks for.
bool accessModesMatch(const api::PersistentVolumeClaim& claim, const api::PersistentVolume& pv);
bool containsAccessMode(const std::vector<std::string>& modes, std::string_view mode);

// Upstream FindMatchingVolume on the scheduler's path (node != nullptr) or the controller's (nullptr):
// the PV pre-bound to the claim if any (nullptr when its node affinity does not fit), otherwise the
// smallest Available PV of the claim's class whose capacity, volumeMode, volumeAttributesClass,
// selector, node affinity and access modes fit, skipping `excluded` PV names. Errors: a bad claim
// selector, or a volumeAttributesClassName on the claim when the gate is off.
Result<std::shared_ptr<const api::PersistentVolume>> findMatchingVolume(
    const api::PersistentVolumeClaim& claim, const std::vector<std::shared_ptr<const api::PersistentVolume>>& volumes,
    const api::Node* node, const std::map<std::string, std::shared_ptr<const api::PersistentVolume>>& excluded,
    bool delayBinding, bool volumeAttributesClassEnabled);

// The storage request of a claim (spec.resources.requests["storage"]); zero when absent.
api::Quantity claimStorageRequest(const api::PersistentVolumeClaim& claim);
// The capacity of a PV (spec.capacity["storage"]); zero when absent.
api::Quantity volumeStorageCapacity(const api::PersistentVolume& pv);

// The claim a pod volume uses: a persistentVolumeClaim's, or a generic ephemeral volume's (whose claim
// must also be owned by the pod); nullopt for volumes without claim.
struct PodVolumeClaim {
  std::string name;
  bool ephemeral = false;
};
std::optional<PodVolumeClaim> podVolumeClaim(const api::Pod& pod, const api::Volume& volume);

// ephemeral.VolumeClaimName: "<pod name>-<volume name>".
std::string ephemeralVolumeClaimName(const api::Pod& pod, const api::Volume& volume);
// ephemeral.VolumeIsForPod: OK when the claim is in the pod's namespace and controlled by the pod;
// otherwise "PVC ns/name was not created for pod ns/name (pod is not owner)".
Result<void> ephemeralVolumeIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& claim);

// v1helper.MatchTopologySelectorTerms: no terms match everything; a term with no expressions matches
// nothing; otherwise any term whose expressions (key In values) all match.
bool matchTopologySelectorTerms(const std::vector<api::TopologySelectorTerm>& terms, const api::Labels& labels);

}  // namespace ks::volume
