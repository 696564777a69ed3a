#include "pkg/scheduler/framework/plugins/volumezone/volume_zone.h"

#include <array>
#include <optional>

#include "pkg/informer/factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::plugins::volumezone {

namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;

// Upstream topologyLabels, in its order (getPVTopologies lists a PV's labels in this order).
const std::array<std::string, 4>& topologyLabels() {
  static const std::array<std::string, 4> kLabels = {
      std::string(kLabelFailureDomainBetaZone), std::string(kLabelFailureDomainBetaRegion),
      std::string(kLabelTopologyZone), std::string(kLabelTopologyRegion)};
  return kLabels;
}

// A PV labelled with a deprecated beta key also matches a node labelled with the stable key.
const std::string& translateToGALabel(const std::string& label) {
  const auto& labels = topologyLabels();
  if (label == labels[0]) return labels[2];
  if (label == labels[1]) return labels[3];
  return label;
}

// Upstream volumehelpers.LabelZonesToSet: "__"-separated zones, each trimmed; an empty element is an
// error (nullopt).
std::optional<std::set<std::string>> labelZonesToSet(std::string_view value) {
  static constexpr std::string_view kDelimiter = "__";
  static constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::set<std::string> zones;
  for (;;) {
    const std::size_t end = value.find(kDelimiter);
    std::string_view zone = value.substr(0, end);
    const std::size_t first = zone.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return std::nullopt;
    zone = zone.substr(first, zone.find_last_not_of(kSpace) - first + 1);
    zones.emplace(zone);
    if (end == std::string_view::npos) return zones;
    value.remove_prefix(end + kDelimiter.size());
  }
}

// What upstream's informer listers answer for a missing object (errors.NewNotFound).
Status notFound(std::string_view qualifiedResource, const std::string& name) {
  return Status(Code::UnschedulableAndUnresolvable, volume::listerNotFound(qualifiedResource, name));
}

bool isPVCRequestedFromPod(const api::PersistentVolumeClaim* pvc, const api::Pod& pod) {
  if (pvc == nullptr || pod.metadata.namespace_ != pvc->metadata.namespace_) return false;
  for (const auto& volume : pod.spec.volumes) {
    if (volume.persistentVolumeClaim && volume.persistentVolumeClaim->claimName == pvc->metadata.name) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<PVTopology> getPVTopologies(const api::PersistentVolume& pv) {
  std::vector<PVTopology> out;
  for (const auto& key : topologyLabels()) {
    const auto it = pv.metadata.labels.find(key);
    if (it == pv.metadata.labels.end()) continue;
    auto zones = labelZonesToSet(it->second);
    if (!zones) continue;
    out.push_back(PVTopology{pv.metadata.name, key, std::move(*zones)});
  }
  return out;
}

Result<std::unique_ptr<VolumeZone>> VolumeZone::create(const config::PluginArgs* /*args*/,
                                                       framework::Handle& handle, Features features) {
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  return std::unique_ptr<VolumeZone>(new VolumeZone(factory->persistentVolumes().store(),
                                                    factory->persistentVolumeClaims().store(),
                                                    factory->storageClasses().store(), features));
}

Status VolumeZone::getPVbyPod(const api::Pod& pod, std::vector<PVTopology>& out) const {
  for (const auto& volume : pod.spec.volumes) {
    if (!volume.persistentVolumeClaim) continue;
    const std::string& pvcName = volume.persistentVolumeClaim->claimName;
    if (pvcName.empty())
      return Status(Code::UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name");
    const auto pvc = pvcs_.get(pod.metadata.namespace_ + "/" + pvcName);
    if (!pvc) return notFound("persistentvolumeclaim", pvcName);

    const std::string& pvName = pvc->spec.volumeName;
    if (pvName.empty()) {
      const std::string scName = volume::persistentVolumeClaimClass(*pvc);
      if (scName.empty()) {
        return Status(Code::UnschedulableAndUnresolvable,
                      "PersistentVolumeClaim had no pv name and storageClass name");
      }
      const auto cls = classes_.get(scName);
      if (!cls) return notFound("storageclass.storage.k8s.io", scName);
      if (!cls->volumeBindingMode) {
        return Status(Code::UnschedulableAndUnresolvable,
                      "VolumeBindingMode not set for StorageClass \"" + scName + "\"");
      }
      // The PV of a delayed-binding claim is chosen by VolumeBinding, which checks its topology.
      if (*cls->volumeBindingMode == volume::kVolumeBindingWaitForFirstConsumer) continue;
      return Status(Code::UnschedulableAndUnresolvable, "PersistentVolume had no name");
    }

    const auto pv = pvs_.get(pvName);
    if (!pv) return notFound("persistentvolume", pvName);
    auto topologies = getPVTopologies(*pv);
    out.insert(out.end(), std::make_move_iterator(topologies.begin()),
               std::make_move_iterator(topologies.end()));
  }
  return Status();
}

Status VolumeZone::preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> /*nodes*/,
                             framework::PreFilterResult& /*result*/) {
  auto topologies = std::make_shared<std::vector<PVTopology>>();
  if (Status s = getPVbyPod(pod.pod(), *topologies); !s.isSuccess()) return s;
  if (topologies->empty()) return Status(Code::Skip);
  state.write(std::make_unique<PreFilterState>(std::move(topologies)));
  return Status();
}

Status VolumeZone::filter(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo) {
  // Without volumes nothing can conflict; skips the state lookup for most pods.
  if (pod.pod().spec.volumes.empty()) return Status();
  std::vector<PVTopology> recomputed;
  const std::vector<PVTopology>* topologies = nullptr;
  if (const auto* s = state.read<PreFilterState>(); s != nullptr) {
    topologies = s->podPVTopologies.get();
  } else {
    if (Status st = getPVbyPod(pod.pod(), recomputed); !st.isSuccess()) return st;
    topologies = &recomputed;
  }

  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return Status::error("node not found");
  const api::Labels& labels = node->metadata.labels;
  bool hasAnyNodeConstraint = false;
  for (const auto& key : topologyLabels()) {
    if (labels.contains(key)) {
      hasAnyNodeConstraint = true;
      break;
    }
  }
  // A node without zone labels (single-zone clusters) accepts every volume.
  if (!hasAnyNodeConstraint) return Status();

  for (const auto& topology : *topologies) {
    auto it = labels.find(topology.key);
    if (it == labels.end()) it = labels.find(translateToGALabel(topology.key));
    if (it == labels.end() || !topology.values.contains(it->second)) {
      return Status(Code::UnschedulableAndUnresolvable, std::string(kErrReasonConflict));
    }
  }
  return Status();
}

Result<std::vector<framework::ClusterEventWithHint>> VolumeZone::eventsToRegister() {
  using framework::EventResource;
  namespace action = framework::action;
  // Without queueing hints the queue's preCheck may drop Node/Add, so label and taint updates are also
  // registered (kubernetes#109437); with hints preCheck is off.
  framework::ActionType nodeActions = action::Add | action::UpdateNodeLabel | action::UpdateNodeTaint;
  if (features_.enableSchedulingQueueHint) nodeActions = action::Add | action::UpdateNodeLabel;

  std::vector<framework::ClusterEventWithHint> events;
  // volumeBindingMode is immutable, so only a new class can turn a claim's binding WaitForFirstConsumer.
  events.push_back({framework::ClusterEvent{EventResource::StorageClass, action::Add, {}},
                    &VolumeZone::isSchedulableAfterStorageClassAdded});
  events.push_back({framework::ClusterEvent{EventResource::Node, nodeActions, {}}, {}});
  // A claim that appears or gets its volumeName set.
  events.push_back(
      {framework::ClusterEvent{EventResource::PersistentVolumeClaim, action::Add | action::Update, {}},
       &VolumeZone::isSchedulableAfterPersistentVolumeClaimChange});
  // A PV that appears or whose zone labels change.
  events.push_back(
      {framework::ClusterEvent{EventResource::PersistentVolume, action::Add | action::Update, {}},
       &VolumeZone::isSchedulableAfterPersistentVolumeChange});
  return events;
}

Result<QueueingHint> VolumeZone::isSchedulableAfterPersistentVolumeClaimChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto pvcs = helper::asTyped<api::PersistentVolumeClaim>(oldObj, newObj);
  if (!pvcs.ok()) {
    return pvcs.error().wrap("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange");
  }
  return isPVCRequestedFromPod(pvcs->second, pod) ? QueueingHint::Queue : QueueingHint::QueueSkip;
}

Result<QueueingHint> VolumeZone::isSchedulableAfterStorageClassAdded(const api::Pod& /*pod*/,
                                                                     const framework::EventObject& /*oldObj*/,
                                                                     const framework::EventObject& newObj) {
  // Upstream passes no old object: an Add has none.
  auto classes = helper::asTyped<api::StorageClass>(std::monostate{}, newObj);
  if (!classes.ok()) return classes.error().wrap("unexpected objects in isSchedulableAfterStorageClassAdded");
  const api::StorageClass* added = classes->second;
  if (added == nullptr) {
    return Error("expected *v1.StorageClass, but got <nil>")
        .wrap("unexpected objects in isSchedulableAfterStorageClassAdded");
  }
  if (!added->volumeBindingMode || *added->volumeBindingMode != volume::kVolumeBindingWaitForFirstConsumer) {
    return QueueingHint::QueueSkip;
  }
  return QueueingHint::Queue;
}

Result<QueueingHint> VolumeZone::isSchedulableAfterPersistentVolumeChange(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto pvs = helper::asTyped<api::PersistentVolume>(oldObj, newObj);
  if (!pvs.ok()) return pvs.error().wrap("unexpected objects in isSchedulableAfterPersistentVolumeChange");
  const auto [originalPV, modifiedPV] = *pvs;
  if (originalPV == nullptr) return QueueingHint::Queue;  // a new PV
  if (modifiedPV == nullptr) {
    return Error("expected *v1.PersistentVolume, but got <nil>")
        .wrap("unexpected objects in isSchedulableAfterPersistentVolumeChange");
  }
  // nodeAffinity is immutable (and NodeAffinity's concern): only the labels can change the answer.
  return getPVTopologies(*originalPV) != getPVTopologies(*modifiedPV) ? QueueingHint::Queue
                                                                      : QueueingHint::QueueSkip;
}

framework::Status VolumeZone::signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kVolumesSignerName), framework::volumesSigner(pod)});
  return {};
}

}  // namespace ks::plugins::volumezone
