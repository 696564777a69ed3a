#pragma once
// NodeVolumeLimits (upstream plugins/nodevolumelimits/csi.go, v1.34): a node fits when, for every CSI
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

class CSILimits final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "NodeVolumeLimits";

  // The feature gates the plugin reads, with their v1.34 defaults.
  struct Features {
    // CSIMigrationPortworx (beta, on by default since v1.31): Portworx volumes count against
    // pxd.portworx.com on nodes whose CSINode lists the plugin as migrated.
    bool enableCSIMigrationPortworx = true;
  };

  // Takes no args. Needs the handle's SharedInformerFactory (CSINodes, PVs, PVCs, StorageClasses,
  // VolumeAttachments); the informers it asks for must be started and synced before scheduling.
  static Result<std::unique_ptr<CSILimits>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                   Features features);

  std::string_view name() const override { return kName; }

  // Skip unless the pod has a PVC, a generic ephemeral or a migratable inline in-tree volume.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

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
  // The CSI volumes VolumeAttachments attach to the node.
  VolumeDrivers getNodeVolumeAttachmentInfo(const std::string& nodeName) const;

  const Features features_;
  const informer::Store<api::CSINode>& csiNodes_;
  const informer::Store<api::PersistentVolume>& pvs_;
  const informer::Store<api::PersistentVolumeClaim>& pvcs_;
  const informer::Store<api::StorageClass>& storageClasses_;
  const informer::Store<api::VolumeAttachment>& volumeAttachments_;
  // Prefixes the volume ID of unbound claims so it never equals a real volume handle.
  const std::string randomVolumeIDPrefix_;
};

}  // namespace ks::plugins::nodevolumelimits
