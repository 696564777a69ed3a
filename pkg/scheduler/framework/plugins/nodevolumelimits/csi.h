#pragma once
// NodeVolumeLimits (upstream plugins/nodevolumelimits/csi.go, v1.37): a node fits when, for every CSI
// driver, the volumes the node already has attached plus the pod's new ones stay within the driver's
// limit in the node's CSINode (drivers[].allocatable.count). Counted per driver, each distinct
// "<driver>/<volumeHandle>" once:
//  - PVC volumes (and generic ephemeral volumes, through their "<pod>-<volume>" claim): the bound PV's
//    CSI source; an in-tree PV translated to its CSI driver when migration is on for the plugin and the
//    node (see isCSIMigrationOn); an unbound claim (or one whose PV is missing) counts against its
//    StorageClass provisioner (translated likewise) under a random per-plugin volume ID, so it is never
//    mistaken for a bound one;
//  - inline in-tree volumes of migrated plugins, translated to CSI;
//  - CSI volumes attached to the node per VolumeAttachment objects that no pod on the node uses.
// A driver without a limit on the node, or a node without CSINode, is not limited.
// With VolumeLimitScaling (beta, on in v1.37), a driver whose CSIDriver object sets
// spec.preventPodSchedulingIfMissing=true must also be listed in the node's CSINode (a node without
// CSINode lists none): otherwise the node is Unschedulable "<driver> CSI driver is not installed on the
// node", checked before any limit.
// CSINode allocatable counts are mutable (MutableCSINodeAllocatableCount, GA in v1.37): a CSINode update
// that raises a driver's count requeues the pods this plugin rejected.
// Upstream v1.37 reads CSINodes through the framework's SharedCSIManager, a seam for embedders (cluster
// autoscaler) that the scheduler builds over the same CSINode lister; this reads the CSINode store.

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/storage.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::plugins::nodevolumelimits {

inline constexpr std::string_view kErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count";
// The VolumeAttachment store's index by spec.nodeName (upstream vaIndexKey).
inline constexpr std::string_view kVAIndexKey = "va.spec.nodename";

class CSILimits final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions,
                        public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeVolumeLimits";

  // The feature gates the plugin reads, with their v1.37 defaults.
  struct Features {
    // VolumeLimitScaling (beta, on in v1.37): honour CSIDriver spec.preventPodSchedulingIfMissing.
    bool enableVolumeLimitScaling = true;
    // InPlacePodVerticalScalingSchedulerPreemption (alpha, off in v1.37): a pod whose resize is Deferred
    // (it already runs on its node) is not checked.
    bool enableInPlacePodVerticalScalingSchedulerPreemption = false;
  };

  // Takes no args. Needs the handle's SharedInformerFactory (CSINodes, CSIDrivers, PVs, PVCs,
  // StorageClasses, VolumeAttachments); the informers it asks for must be started and synced before
  // scheduling. Adds the by-node index kVAIndexKey to the VolumeAttachment store (shared by every
  // profile's instance).
  static Result<std::unique_ptr<CSILimits>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                   Features features);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the volume sources.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Skip unless the pod has a PVC, a generic ephemeral or a migratable inline in-tree volume (and, with
  // InPlacePodVerticalScalingSchedulerPreemption, Skip for a pod whose resize is Deferred).
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // Unschedulable "<driver> CSI driver is not installed on the node" (VolumeLimitScaling, see above);
  // Unschedulable kErrReasonMaxVolumeCountExceeded when a driver's limit would be exceeded;
  // UnschedulableAndUnresolvable `looking up PVC <ns>/<name>: persistentvolumeclaims "<name>" not found`
  // when a claim of the pod is missing; Error for an ephemeral claim not owned by its pod, a claim-less
  // volume name or an inline volume that fails to translate (of this pod or one on the node).
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // CSINode Add (no hint: a new CSINode may lift any limit), CSINode Update, AssignedPod Delete, PVC Add
  // and VolumeAttachment Delete, each with its hint below.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when the deleted pod was bound or nominated to a node and had a PVC, ephemeral or
  // migratable inline volume.
  static Result<framework::QueueingHint> isSchedulableAfterAssignedPodDeleted(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  // Queue when the added claim is one the pod uses (by name in the pod's namespace).
  static Result<framework::QueueingHint> isSchedulableAfterPVCAdded(const api::Pod& pod,
                                                                    const framework::EventObject& oldObj,
                                                                    const framework::EventObject& newObj);
  // Queue when the pod has a PVC volume, or an inline migratable volume whose CSI driver is the
  // deleted attachment's attacher.
  static Result<framework::QueueingHint> isSchedulableAfterVolumeAttachmentDeleted(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  // Queue when some driver's limit grew (an absent driver or count counts as 0).
  static Result<framework::QueueingHint> isSchedulableAfterCSINodeUpdated(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);

 private:
  CSILimits(Features features, const informer::Store<api::CSINode>& csiNodes,
            const informer::Store<api::CSIDriver>& csiDrivers,
            const informer::Store<api::PersistentVolume>& pvs,
            const informer::Store<api::PersistentVolumeClaim>& pvcs,
            const informer::Store<api::StorageClass>& storageClasses,
            const informer::Store<api::VolumeAttachment>& volumeAttachments,
            std::string randomVolumeIDPrefix);

  // Volume unique name ("<driver>/<handle>") -> driver.
  using VolumeDrivers = std::map<std::string, std::string>;
  // Why a pod's volumes cannot be counted. A missing claim of the pod being scheduled makes the pod
  // UnschedulableAndUnresolvable (it cannot run until the claim exists); anything else is an Error.
  struct VolumeError {
    std::string message;
    bool claimNotFound = false;
  };

  // Adds the pod's countable volumes to `result`. For the pod being scheduled (newPod) a missing claim
  // is an error; for pods already on the node such a volume is not counted.
  Result<void, VolumeError> filterAttachableVolumes(const api::Pod& pod, const api::CSINode* csiNode,
                                                    bool newPod, VolumeDrivers& result) const;
  Result<void> checkAttachableInlineVolume(const api::Volume& volume, const api::CSINode* csiNode,
                                           const api::Pod& pod, VolumeDrivers& result) const;
  // The claim's CSI driver and volume handle; empty strings when the volume is not counted.
  std::pair<std::string, std::string> getCSIDriverInfo(const api::CSINode* csiNode,
                                                       const api::PersistentVolumeClaim& pvc) const;
  std::pair<std::string, std::string> getCSIDriverInfoFromSC(const api::CSINode* csiNode,
                                                             const api::PersistentVolumeClaim& pvc) const;
  // Whether the node may take volumes of `driverName`: true unless the driver's CSIDriver (a driver
  // without one may not be a CSI driver) sets preventPodSchedulingIfMissing and the node's CSINode
  // (none: false) does not list the driver.
  bool checkCSIDriverOnNode(const std::string& driverName, const api::CSINode* csiNode) const;
  // The CSI volumes VolumeAttachments attach to the node (looked up through kVAIndexKey).
  Result<VolumeDrivers> getNodeVolumeAttachmentInfo(const std::string& nodeName) const;

  const Features features_;
  const informer::Store<api::CSINode>& csiNodes_;
  const informer::Store<api::CSIDriver>& csiDrivers_;
  const informer::Store<api::PersistentVolume>& pvs_;
  const informer::Store<api::PersistentVolumeClaim>& pvcs_;
  const informer::Store<api::StorageClass>& storageClasses_;
  const informer::Store<api::VolumeAttachment>& volumeAttachments_;
  // Prefixes the volume ID of unbound claims so it never equals a real volume handle.
  const std::string randomVolumeIDPrefix_;
};

}  // namespace ks::plugins::nodevolumelimits
