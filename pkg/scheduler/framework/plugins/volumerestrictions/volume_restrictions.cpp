#include "pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.h"

#include <algorithm>

#include "pkg/informer/factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::plugins::volumerestrictions {

namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;

bool haveOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&b](const std::string& v) { return std::find(b.begin(), b.end(), v) != b.end(); });
}

// The sources isVolumeConflict knows about.
bool needsRestrictionsCheck(const api::Volume& v) {
  return v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi;
}

// Whether none of the pod's restricted volumes conflicts with a volume of `existing`.
template <class Pods, class PodOf>
bool satisfyVolumeConflicts(const api::Pod& pod, const Pods& existing, PodOf podOf) {
  for (const auto& v : pod.spec.volumes) {
    if (!needsRestrictionsCheck(v)) continue;
    for (const auto& e : existing) {
      if (isVolumeConflict(v, podOf(e))) return false;
    }
  }
  return true;
}

Status missingState() {
  return Status::error("cannot read \"PreFilter" + std::string(VolumeRestrictions::kName) +
                       "\" from cycleState");
}

}  // namespace

bool isVolumeConflict(const api::Volume& volume, const api::Pod& pod) {
  for (const auto& existing : pod.spec.volumes) {
    // The same GCE disk may be mounted by several pods only if all mount it read-only.
    if (volume.gcePersistentDisk && existing.gcePersistentDisk) {
      const auto& disk = *volume.gcePersistentDisk;
      const auto& existingDisk = *existing.gcePersistentDisk;
      if (disk.pdName == existingDisk.pdName && !(disk.readOnly && existingDisk.readOnly)) return true;
    }
    if (volume.awsElasticBlockStore && existing.awsElasticBlockStore) {
      if (volume.awsElasticBlockStore->volumeID == existing.awsElasticBlockStore->volumeID) return true;
    }
    // iSCSI volumes are the same when they share the IQN; they are RWO or ROX, so one writer at most.
    if (volume.iscsi && existing.iscsi) {
      if (volume.iscsi->iqn == existing.iscsi->iqn && !(volume.iscsi->readOnly && existing.iscsi->readOnly)) {
        return true;
      }
    }
    // RBD images are the same when they share a Ceph monitor, the pool and the image name.
    if (volume.rbd && existing.rbd) {
      const auto& rbd = *volume.rbd;
      const auto& existingRbd = *existing.rbd;
      if (haveOverlap(rbd.monitors, existingRbd.monitors) && rbd.pool == existingRbd.pool &&
          rbd.image == existingRbd.image && !(rbd.readOnly && existingRbd.readOnly)) {
        return true;
      }
    }
  }
  return false;
}

void PreFilterState::updateWithPod(const api::Pod& pod, int multiplier) {
  int refs = 0;
  for (const auto& v : pod.spec.volumes) {
    if (v.persistentVolumeClaim && readWriteOncePodPVCs->contains(v.persistentVolumeClaim->claimName)) ++refs;
  }
  conflictingPVCRefCount += multiplier * refs;
}

Result<std::unique_ptr<VolumeRestrictions>> VolumeRestrictions::create(const config::PluginArgs* /*args*/,
                                                                       framework::Handle& handle,
                                                                       Features features) {
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  return std::unique_ptr<VolumeRestrictions>(
      new VolumeRestrictions(handle, factory->persistentVolumeClaims().store(), features));
}

Status VolumeRestrictions::preFilter(framework::CycleState& state, const framework::PodInfo& podInfo,
                                     std::span<const framework::NodeInfoPtr> /*nodes*/,
                                     framework::PreFilterResult& /*result*/) {
  const api::Pod& pod = podInfo.pod();
  // Most pods have neither kind of volume: Skip without allocating.
  if (pod.spec.volumes.empty()) return Status(Code::Skip);
  const bool needsCheck =
      std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), needsRestrictionsCheck);

  auto rwopPVCs = std::make_shared<std::set<std::string>>();
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistentVolumeClaim) continue;
    const std::string& claimName = v.persistentVolumeClaim->claimName;
    const auto pvc = pvcs_.get(pod.metadata.namespace_ + "/" + claimName);
    if (!pvc) {
      return Status(Code::UnschedulableAndUnresolvable, volume::listerNotFound("persistentvolumeclaim", claimName));
    }
    if (volume::containsAccessMode(pvc->spec.accessModes, volume::kReadWriteOncePod)) {
      rwopPVCs->insert(pvc->metadata.name);
    }
  }

  int conflictingPVCRefCount = 0;
  if (!rwopPVCs->empty()) {
    const framework::SharedLister* lister = handle_.snapshotSharedLister();
    if (lister == nullptr) return Status::error("no snapshot lister");
    for (const auto& name : *rwopPVCs) {
      // At most one pod can use a ReadWriteOncePod claim, so one per claim.
      if (lister->storageInfos().isPVCUsedByPods(pod.metadata.namespace_ + "/" + name)) {
        ++conflictingPVCRefCount;
      }
    }
  }

  if (!needsCheck && conflictingPVCRefCount == 0) return Status(Code::Skip);
  auto s = std::make_unique<PreFilterState>();
  s->readWriteOncePodPVCs = std::move(rwopPVCs);
  s->conflictingPVCRefCount = conflictingPVCRefCount;
  state.write(std::move(s));
  return Status();
}

Status VolumeRestrictions::addPod(framework::CycleState& state, const framework::PodInfo& /*podToSchedule*/,
                                  const framework::PodInfo& podInfoToAdd,
                                  const framework::NodeInfo& /*nodeInfo*/) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return missingState();
  s->updateWithPod(podInfoToAdd.pod(), 1);
  return Status();
}

Status VolumeRestrictions::removePod(framework::CycleState& state,
                                     const framework::PodInfo& /*podToSchedule*/,
                                     const framework::PodInfo& podInfoToRemove,
                                     const framework::NodeInfo& /*nodeInfo*/) {
  auto* s = state.read<PreFilterState>();
  if (s == nullptr) return missingState();
  s->updateWithPod(podInfoToRemove.pod(), -1);
  return Status();
}

Status VolumeRestrictions::filter(framework::CycleState& state, const framework::PodInfo& pod,
                                  const framework::NodeInfo& nodeInfo) {
  if (!satisfyVolumeConflicts(pod.pod(), nodeInfo.pods(),
                              [](const framework::PodInfoPtr& p) -> const api::Pod& { return p->pod(); })) {
    return Status(Code::Unschedulable, std::string(kErrReasonDiskConflict));
  }
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr) return missingState();
  if (s->conflictingPVCRefCount > 0) {
    return Status(Code::Unschedulable, std::string(kErrReasonReadWriteOncePodConflict));
  }
  return Status();
}

Result<std::vector<framework::ClusterEventWithHint>> VolumeRestrictions::eventsToRegister() {
  using framework::EventResource;
  namespace action = framework::action;
  // No Node update can change this plugin's answer; without queueing hints the queue's preCheck may drop
  // Node/Add, so label and taint updates are registered too (kubernetes#109437).
  framework::ActionType nodeActions = action::Add | action::UpdateNodeTaint | action::UpdateNodeLabel;
  if (features_.enableSchedulingQueueHint) nodeActions = action::Add;

  std::vector<framework::ClusterEventWithHint> events;
  // A deleted pod releases its volumes; spec.volumes is immutable, so pod updates are not registered.
  events.push_back({framework::ClusterEvent{EventResource::AssignedPod, action::Delete, {}},
                    &VolumeRestrictions::isSchedulableAfterAssignedPodDeleted});
  // Any new node may fit: no hint.
  events.push_back({framework::ClusterEvent{EventResource::Node, nodeActions, {}}, {}});
  // PreFilter rejects a pod whose claim does not exist yet (its access modes are needed).
  events.push_back({framework::ClusterEvent{EventResource::PersistentVolumeClaim, action::Add, {}},
                    &VolumeRestrictions::isSchedulableAfterPersistentVolumeClaimAdded});
  return events;
}

Result<QueueingHint> VolumeRestrictions::isSchedulableAfterPersistentVolumeClaimAdded(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  // Upstream's message names the hint "...Change".
  static constexpr std::string_view kContext =
      "unexpected objects in isSchedulableAfterPersistentVolumeClaimChange";
  auto pvcs = helper::asTyped<api::PersistentVolumeClaim>(oldObj, newObj);
  if (!pvcs.ok()) return pvcs.error().wrap(kContext);
  const api::PersistentVolumeClaim* added = pvcs->second;
  if (added == nullptr) return Error("expected *v1.PersistentVolumeClaim, but got <nil>").wrap(kContext);
  if (added->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::QueueSkip;
  for (const auto& v : pod.spec.volumes) {
    if (v.persistentVolumeClaim && v.persistentVolumeClaim->claimName == added->metadata.name) {
      return QueueingHint::Queue;
    }
  }
  return QueueingHint::QueueSkip;
}

Result<QueueingHint> VolumeRestrictions::isSchedulableAfterAssignedPodDeleted(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  static constexpr std::string_view kContext = "unexpected objects in isSchedulableAfterAssignedPodDeleted";
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error().wrap(kContext);
  const api::Pod* deleted = pods->first;
  if (deleted == nullptr) return Error("expected *v1.Pod, but got <nil>").wrap(kContext);
  if (deleted->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::QueueSkip;

  const api::Pod* deletedPods[] = {deleted};
  if (!satisfyVolumeConflicts(pod, deletedPods, [](const api::Pod* p) -> const api::Pod& { return *p; })) {
    return QueueingHint::Queue;
  }
  // The pod may have been rejected for a ReadWriteOncePod claim the deleted pod used.
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistentVolumeClaim) continue;
    for (const auto& dv : deleted->spec.volumes) {
      if (dv.persistentVolumeClaim &&
          dv.persistentVolumeClaim->claimName == v.persistentVolumeClaim->claimName) {
        return QueueingHint::Queue;
      }
    }
  }
  return QueueingHint::QueueSkip;
}

framework::Status VolumeRestrictions::signPod(const api::Pod& pod,
                                              std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kVolumesSignerName), framework::volumesSigner(pod)});
  return {};
}

}  // namespace ks::plugins::volumerestrictions
