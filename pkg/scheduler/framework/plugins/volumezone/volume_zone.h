#pragma once
// VolumeZone (upstream plugins/volumezone, v1.34): a pod whose PersistentVolumeClaims are bound to PVs
// labelled with a zone or region (stable or deprecated beta labels) only fits nodes with the same label
// values. A PV label may list several zones separated by "__". A node without any zone/region label
// accepts every pod (single-zone clusters), and a PV's beta label also matches the node's stable label.
// Unbound claims of a WaitForFirstConsumer class are skipped: VolumeBinding picks their PV later.
// Inline (non-PVC) volumes and PV nodeAffinity are not looked at (the latter is VolumeBinding's).

#include <memory>
#include <set>
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

namespace ks::plugins::volumezone {

inline constexpr std::string_view kErrReasonConflict = "node(s) had no available volume zone";

inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
inline constexpr std::string_view kLabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region";

// One zone/region label of a bound PV (upstream pvTopology).
struct PVTopology {
  std::string pvName;
  std::string key;
  std::set<std::string> values;
  bool operator==(const PVTopology&) const = default;
};

// The PV's zone/region labels in upstream's label order (beta zone, beta region, zone, region); a value
// that does not parse as a "__"-separated zone list (an empty element) is ignored, as upstream.
std::vector<PVTopology> getPVTopologies(const api::PersistentVolume& pv);

// The bound PVs' topologies of the pod being scheduled, computed at PreFilter. Immutable: clones share it.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(std::shared_ptr<const std::vector<PVTopology>> topologies)
      : podPVTopologies(std::move(topologies)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(podPVTopologies);
  }
  std::shared_ptr<const std::vector<PVTopology>> podPVTopologies;
};

// The feature gates the plugin reads (upstream feature.Features), with their v1.34 defaults.
struct Features {
  bool enableSchedulingQueueHint = true;  // beta, on by default since v1.32
};

class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions,
                         public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "VolumeZone";

  // Takes no args. Needs Handle::sharedInformerFactory() (PersistentVolumes, PersistentVolumeClaims,
  // StorageClasses); error "SharedInformerFactory is nil" without it.
  static Result<std::unique_ptr<VolumeZone>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                    Features features = {});

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the volume sources.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Stores the topologies of the PVs bound to the pod's claims; Skip when there are none. Rejections
  // (UnschedulableAndUnresolvable): a claim, PV or StorageClass that does not exist, an unnamed claim,
  // an unbound claim without class, whose class has no volumeBindingMode or binds Immediate.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // UnschedulableAndUnresolvable kErrReasonConflict when the node has a zone/region label and some PV
  // label's values don't include the node's value for it. Without PreFilter state the topologies are
  // recomputed (with PreFilter's rejections). Allocates nothing on the PreFilter path.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // StorageClass/Add, Node/Add|UpdateNodeLabel (|UpdateNodeTaint without queueing hints),
  // PersistentVolumeClaim/Add|Update and PersistentVolume/Add|Update.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when the added/updated claim is one of the pod's (same namespace and name).
  static Result<framework::QueueingHint> isSchedulableAfterPersistentVolumeClaimChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  // Queue when the added class binds WaitForFirstConsumer.
  static Result<framework::QueueingHint> isSchedulableAfterStorageClassAdded(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  // Queue when a PV was added or its topology labels changed.
  static Result<framework::QueueingHint> isSchedulableAfterPersistentVolumeChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);

 private:
  VolumeZone(informer::Store<api::PersistentVolume>& pvs, informer::Store<api::PersistentVolumeClaim>& pvcs,
             informer::Store<api::StorageClass>& classes, Features features)
      : pvs_(pvs), pvcs_(pvcs), classes_(classes), features_(features) {}

  // Upstream getPVbyPod: the topologies of the PVs bound to the pod's claims into `out`, or a rejection.
  framework::Status getPVbyPod(const api::Pod& pod, std::vector<PVTopology>& out) const;

  informer::Store<api::PersistentVolume>& pvs_;
  informer::Store<api::PersistentVolumeClaim>& pvcs_;
  informer::Store<api::StorageClass>& classes_;
  const Features features_;
};

}  // namespace ks::plugins::volumezone
