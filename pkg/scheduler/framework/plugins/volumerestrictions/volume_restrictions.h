#pragma once
// VolumeRestrictions (upstream plugins/volumerestrictions, v1.34): two restrictions on shared volumes.
//   - Disk conflicts with the pods already on the node, for the in-tree sources that allow one writer:
//     the same GCE PD unless every mount is read-only; the same AWS EBS volume ID, always; the same iSCSI
//     IQN unless every mount is read-only; the same RBD image (a shared Ceph monitor, same pool and
//     image) unless every mount is read-only.
//   - ReadWriteOncePod: a pod whose claim has that access mode does not fit while any scheduled or
//     assumed pod (on any node) uses the claim. PreFilter counts those pods once; AddPod/RemovePod keep
//     the count right for preemption's "what if" runs, so removing the user of the claim helps.

#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::plugins::volumerestrictions {

inline constexpr std::string_view kErrReasonDiskConflict = "node(s) had no available disk";
inline constexpr std::string_view kErrReasonReadWriteOncePodConflict =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by "
    "another pod";

// Whether `volume` (GCE PD, AWS EBS, iSCSI or RBD) conflicts with one of `pod`'s volumes.
bool isVolumeConflict(const api::Volume& volume, const api::Pod& pod);

// Computed at PreFilter, read by Filter, updated by AddPod/RemovePod (upstream preFilterState).
class PreFilterState final : public framework::StateData {
 public:
  // Names of the pod's claims with the ReadWriteOncePod access mode; immutable, shared by clones.
  std::shared_ptr<const std::set<std::string>> readWriteOncePodPVCs;
  // References to those claims by scheduled pods; > 0 means the pod does not fit anywhere.
  int conflictingPVCRefCount = 0;

  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  // Adds (multiplier 1) or removes (-1) `pod`'s references to the claims.
  void updateWithPod(const api::Pod& pod, int multiplier);
};

// The feature gates the plugin reads (upstream feature.Features), with their v1.34 defaults.
struct Features {
  bool enableSchedulingQueueHint = true;  // beta, on by default since v1.32
};

class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions,
                                 public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "VolumeRestrictions";

  // Takes no args. Needs Handle::sharedInformerFactory() (PersistentVolumeClaims); error
  // "SharedInformerFactory is nil" without it. Reads Handle::snapshotSharedLister() at PreFilter.
  static Result<std::unique_ptr<VolumeRestrictions>> create(const config::PluginArgs* args,
                                                            framework::Handle& handle,
                                                            Features features = {});

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the volume sources.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Skip when the pod has no GCE PD/AWS EBS/iSCSI/RBD volume and none of its ReadWriteOncePod claims is
  // in use. UnschedulableAndUnresolvable `persistentvolumeclaim "<name>" not found` for a missing claim.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return this; }
  // Error without PreFilter state.
  framework::Status addPod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                           const framework::PodInfo& podInfoToAdd,
                           const framework::NodeInfo& nodeInfo) override;
  framework::Status removePod(framework::CycleState& state, const framework::PodInfo& podToSchedule,
                              const framework::PodInfo& podInfoToRemove,
                              const framework::NodeInfo& nodeInfo) override;

  // Unschedulable kErrReasonDiskConflict, then Unschedulable kErrReasonReadWriteOncePodConflict;
  // Error without PreFilter state.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // AssignedPod/Delete, Node/Add (|UpdateNodeTaint|UpdateNodeLabel without queueing hints) and
  // PersistentVolumeClaim/Add.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when the deleted pod (same namespace) had a volume conflicting with the pod's or used one of
  // its claims (whatever the claim's access mode: looking it up is left out of the hint, as upstream).
  static Result<framework::QueueingHint> isSchedulableAfterAssignedPodDeleted(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  // Queue when the added claim is one of the pod's.
  static Result<framework::QueueingHint> isSchedulableAfterPersistentVolumeClaimAdded(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);

 private:
  VolumeRestrictions(framework::Handle& handle, informer::Store<api::PersistentVolumeClaim>& pvcs,
                     Features features)
      : handle_(handle), pvcs_(pvcs), features_(features) {}

  framework::Handle& handle_;
  informer::Store<api::PersistentVolumeClaim>& pvcs_;
  const Features features_;
};

}  // namespace ks::plugins::volumerestrictions
