// Upstream plugins/nodevolumelimits/csi.go.
#include "pkg/scheduler/framework/plugins/nodevolumelimits/csi.h"

#include <algorithm>
#include <random>

#include "pkg/api/resources.h"
#include "pkg/informer/factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/nodevolumelimits/utils.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/volume/csitranslation/csi_translation.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::plugins::nodevolumelimits {

namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;

// apimachinery's rand.String: `n` characters of an alphabet without vowels and confusable digits.
std::string randomString(size_t n) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device seed;
  std::mt19937_64 rng(seed());
  std::uniform_int_distribution<size_t> pick(0, kAlphanums.size() - 1);
  std::string out;
  for (size_t i = 0; i < n; ++i) out += kAlphanums[pick(rng)];
  return out;
}

std::string volumeUniqueName(std::string_view driverName, std::string_view volumeHandle) {
  std::string out(driverName);
  out += '/';
  out += volumeHandle;
  return out;
}

// The drivers with a limit on the node (a driver absent here is unlimited).
std::map<std::string, int64_t> getVolumeLimits(const api::CSINode* csiNode) {
  std::map<std::string, int64_t> limits;
  if (csiNode == nullptr) return limits;
  for (const auto& d : csiNode->drivers) {
    if (d.allocatable && d.allocatable->count) limits[d.name] = *d.allocatable->count;
  }
  return limits;
}

std::string storeKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

// Stateless; shared by the plugin and its (static) queueing hints.
const volume::csitranslation::Translator kTranslator;

// The VolumeAttachment index by node (upstream volumeAttachmentIndexer).
std::vector<std::string> volumeAttachmentIndexer(const api::VolumeAttachment& va) {
  return {va.nodeName};
}

}  // namespace

CSILimits::CSILimits(Features features, const informer::Store<api::CSINode>& csiNodes,
                     const informer::Store<api::CSIDriver>& csiDrivers,
                     const informer::Store<api::PersistentVolume>& pvs,
                     const informer::Store<api::PersistentVolumeClaim>& pvcs,
                     const informer::Store<api::StorageClass>& storageClasses,
                     const informer::Store<api::VolumeAttachment>& volumeAttachments,
                     std::string randomVolumeIDPrefix)
    : features_(features),
      csiNodes_(csiNodes),
      csiDrivers_(csiDrivers),
      pvs_(pvs),
      pvcs_(pvcs),
      storageClasses_(storageClasses),
      volumeAttachments_(volumeAttachments),
      randomVolumeIDPrefix_(std::move(randomVolumeIDPrefix)) {}

Result<std::unique_ptr<CSILimits>> CSILimits::create(const config::PluginArgs* /*args*/,
                                                     framework::Handle& handle, Features features) {
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  auto& vaStore = factory->volumeAttachments().store();
  const std::string vaIndex(kVAIndexKey);
  if (auto added = vaStore.addIndexer(vaIndex, &volumeAttachmentIndexer); !added.ok()) {
    // Another profile's instance added it already.
    if (!vaStore.byIndex(vaIndex, "").ok()) {
      return Error("failed to add index to VA informer: " + added.error().message());
    }
  }
  return std::unique_ptr<CSILimits>(
      new CSILimits(features, factory->csiNodes().store(), factory->csiDrivers().store(),
                    factory->persistentVolumes().store(), factory->persistentVolumeClaims().store(),
                    factory->storageClasses().store(), vaStore, randomString(32)));
}

// ---- Events and queueing hints ----

Result<std::vector<framework::ClusterEventWithHint>> CSILimits::eventsToRegister() {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back({ClusterEvent{EventResource::CSINode, action::Add, {}}, nullptr});
  events.push_back(
      {ClusterEvent{EventResource::CSINode, action::Update, {}}, &isSchedulableAfterCSINodeUpdated});
  events.push_back(
      {ClusterEvent{EventResource::AssignedPod, action::Delete, {}}, &isSchedulableAfterAssignedPodDeleted});
  events.push_back(
      {ClusterEvent{EventResource::PersistentVolumeClaim, action::Add, {}}, &isSchedulableAfterPVCAdded});
  events.push_back({ClusterEvent{EventResource::VolumeAttachment, action::Delete, {}},
                    &isSchedulableAfterVolumeAttachmentDeleted});
  return events;
}

Result<QueueingHint> CSILimits::isSchedulableAfterAssignedPodDeleted(const api::Pod& /*pod*/,
                                                                     const framework::EventObject& oldObj,
                                                                     const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!objs.ok())
    return Error("unexpected objects in isSchedulableAfterAssignedPodDeleted: " + objs.error().message());
  const api::Pod* deleted = objs->first;
  if (deleted == nullptr || deleted->spec.volumes.empty()) return QueueingHint::QueueSkip;
  // Only a pod that held (or was about to hold) a node's volumes frees any.
  if (deleted->spec.nodeName.empty() && deleted->status.nominatedNodeName.empty())
    return QueueingHint::QueueSkip;
  for (const auto& vol : deleted->spec.volumes) {
    if (vol.persistentVolumeClaim || vol.ephemeral || kTranslator.isInlineMigratable(vol))
      return QueueingHint::Queue;
  }
  return QueueingHint::QueueSkip;
}

Result<QueueingHint> CSILimits::isSchedulableAfterPVCAdded(const api::Pod& pod,
                                                           const framework::EventObject& oldObj,
                                                           const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::PersistentVolumeClaim>(oldObj, newObj);
  if (!objs.ok()) return Error("unexpected objects in isSchedulableAfterPVCAdded: " + objs.error().message());
  const api::PersistentVolumeClaim* added = objs->second;
  if (added == nullptr || added->metadata.namespace_ != pod.metadata.namespace_)
    return QueueingHint::QueueSkip;
  for (const auto& vol : pod.spec.volumes) {
    const auto claimOf = volume::podVolumeClaim(pod, vol);
    if (claimOf && claimOf->name == added->metadata.name) return QueueingHint::Queue;
  }
  return QueueingHint::QueueSkip;
}

Result<QueueingHint> CSILimits::isSchedulableAfterVolumeAttachmentDeleted(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::VolumeAttachment>(oldObj, newObj);
  if (!objs.ok()) {
    return Error("unexpected objects in isSchedulableAfterVolumeAttachmentDeleted: " +
                 objs.error().message());
  }
  const api::VolumeAttachment* deleted = objs->first;
  for (const auto& vol : pod.spec.volumes) {
    // Any claim may be bound to the detached volume.
    if (vol.persistentVolumeClaim) return QueueingHint::Queue;
    if (!kTranslator.isInlineMigratable(vol)) continue;
    auto translated = kTranslator.translateInTreeInlineVolumeToCSI(vol, pod.metadata.namespace_);
    if (!translated.ok()) {
      return Error("converting volume(" + vol.name + ") from inline to csi: " + translated.error().message());
    }
    if (deleted != nullptr && translated->spec.csi && translated->spec.csi->driver == deleted->attacher) {
      return QueueingHint::Queue;
    }
  }
  return QueueingHint::QueueSkip;
}

Result<QueueingHint> CSILimits::isSchedulableAfterCSINodeUpdated(const api::Pod& /*pod*/,
                                                                 const framework::EventObject& oldObj,
                                                                 const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::CSINode>(oldObj, newObj);
  if (!objs.ok())
    return Error("unexpected objects in isSchedulableAfterCSINodeUpdated: " + objs.error().message());
  const auto [oldCSINode, newCSINode] = *objs;
  auto count = [](const api::CSINodeDriver& d) -> int32_t {
    return d.allocatable && d.allocatable->count ? *d.allocatable->count : 0;
  };
  std::map<std::string, int32_t> oldLimits;
  if (oldCSINode != nullptr) {
    for (const auto& d : oldCSINode->drivers) oldLimits[d.name] = count(d);
  }
  if (newCSINode == nullptr) return QueueingHint::QueueSkip;
  for (const auto& d : newCSINode->drivers) {
    auto it = oldLimits.find(d.name);
    if (count(d) > (it == oldLimits.end() ? 0 : it->second)) return QueueingHint::Queue;
  }
  return QueueingHint::QueueSkip;
}

// ---- PreFilter / Filter ----

Status CSILimits::preFilter(framework::CycleState& /*state*/, const framework::PodInfo& pod,
                            std::span<const framework::NodeInfoPtr> /*nodes*/,
                            framework::PreFilterResult& /*result*/) {
  // A deferred resize is of a pod already running on its node.
  if (features_.enableInPlacePodVerticalScalingSchedulerPreemption && api::isPodResizeDeferred(pod.pod())) {
    return Status(Code::Skip);
  }
  for (const auto& vol : pod.pod().spec.volumes) {
    if (vol.persistentVolumeClaim || vol.ephemeral || kTranslator.isInlineMigratable(vol)) return Status();
  }
  return Status(Code::Skip);
}

Status CSILimits::filter(framework::CycleState& /*state*/, const framework::PodInfo& podInfo,
                         const framework::NodeInfo& nodeInfo) {
  const api::Pod& pod = podInfo.pod();
  if (features_.enableInPlacePodVerticalScalingSchedulerPreemption && api::isPodResizeDeferred(pod)) {
    return Status();
  }
  if (pod.spec.volumes.empty()) return Status();
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return Status::error("node not found");

  // A node without CSINode (yet) has no limits; migrated in-tree volumes are then not counted either.
  const auto csiNode = csiNodes_.get(node->metadata.name);

  VolumeDrivers newVolumes;
  if (auto r = filterAttachableVolumes(pod, csiNode.get(), true, newVolumes); !r.ok()) {
    const auto& e = r.error();
    return e.claimNotFound ? Status(Code::UnschedulableAndUnresolvable, e.message) : Status::error(e.message);
  }
  if (newVolumes.empty()) return Status();

  if (features_.enableVolumeLimitScaling) {
    // Upstream ranges over a Go map: with two missing drivers it names either; this names the driver of
    // the first volume by unique name.
    for (const auto& [uniqueName, driver] : newVolumes) {
      if (!checkCSIDriverOnNode(driver, csiNode.get())) {
        return Status(Code::Unschedulable, driver + " CSI driver is not installed on the node");
      }
    }
  }

  const auto limits = getVolumeLimits(csiNode.get());
  if (limits.empty()) return Status();

  VolumeDrivers attachedVolumes;
  for (const auto& existing : nodeInfo.pods()) {
    if (auto r = filterAttachableVolumes(existing->pod(), csiNode.get(), false, attachedVolumes); !r.ok()) {
      return Status::error(r.error().message);
    }
  }
  std::map<std::string, int64_t> attachedVolumeCount;
  for (const auto& [uniqueName, driver] : attachedVolumes) {
    // A volume the node already has is not new, however many pods share it.
    newVolumes.erase(uniqueName);
    ++attachedVolumeCount[driver];
  }
  auto attachments = getNodeVolumeAttachmentInfo(node->metadata.name);
  if (!attachments.ok()) return Status::error(attachments.error().message());
  for (const auto& [uniqueName, driver] : *attachments) {
    if (!attachedVolumes.contains(uniqueName)) ++attachedVolumeCount[driver];
  }

  std::map<std::string, int64_t> newVolumeCount;
  for (const auto& [uniqueName, driver] : newVolumes) ++newVolumeCount[driver];
  for (const auto& [driver, count] : newVolumeCount) {
    auto limit = limits.find(driver);
    if (limit != limits.end() && attachedVolumeCount[driver] + count > limit->second) {
      return Status(Code::Unschedulable, std::string(kErrReasonMaxVolumeCountExceeded));
    }
  }
  return Status();
}

Result<void, CSILimits::VolumeError> CSILimits::filterAttachableVolumes(const api::Pod& pod,
                                                                        const api::CSINode* csiNode,
                                                                        bool newPod,
                                                                        VolumeDrivers& result) const {
  for (const auto& vol : pod.spec.volumes) {
    std::string claimName;
    bool isEphemeral = false;
    if (vol.persistentVolumeClaim) {
      // CSI volumes other than inline migrated ones come through claims.
      claimName = vol.persistentVolumeClaim->claimName;
    } else if (vol.ephemeral) {
      // A generic ephemeral volume's claim has a computed name and must be owned by the pod.
      claimName = volume::ephemeralVolumeClaimName(pod, vol);
      isEphemeral = true;
    } else {
      if (auto r = checkAttachableInlineVolume(vol, csiNode, pod, result); !r.ok()) {
        return VolumeError{r.error().message()};
      }
      continue;
    }
    if (claimName.empty()) return VolumeError{"PersistentVolumeClaim had no name"};

    const auto pvc = pvcs_.get(storeKey(pod.metadata.namespace_, claimName));
    if (pvc == nullptr) {
      // The pod being scheduled cannot run without its claim; a claim of a pod already on the node that
      // can't be found may not belong to it, so it is not counted.
      if (newPod) {
        return VolumeError{"looking up PVC " + pod.metadata.namespace_ + "/" + claimName + ": " +
                               volume::listerNotFound("persistentvolumeclaim", claimName),
                           true};
      }
      continue;
    }
    if (isEphemeral) {
      if (auto owned = volume::ephemeralVolumeIsForPod(pod, *pvc); !owned.ok()) {
        return VolumeError{owned.error().message()};
      }
    }
    auto [driverName, volumeHandle] = getCSIDriverInfo(csiNode, *pvc);
    if (driverName.empty() || volumeHandle.empty()) continue;
    std::string uniqueName = volumeUniqueName(driverName, volumeHandle);
    result[std::move(uniqueName)] = std::move(driverName);
  }
  return {};
}

Result<void> CSILimits::checkAttachableInlineVolume(const api::Volume& vol, const api::CSINode* csiNode,
                                                    const api::Pod& pod, VolumeDrivers& result) const {
  // Non-migratable inline volumes have no CSI driver to count against.
  if (!kTranslator.isInlineMigratable(vol)) return {};
  auto pluginName = kTranslator.getInTreePluginNameFromSpec(nullptr, &vol);
  if (!pluginName.ok()) {
    return Error("looking up provisioner name for volume " + vol.name + ": " + pluginName.error().message());
  }
  if (!isCSIMigrationOn(csiNode, *pluginName)) return {};
  auto translated = kTranslator.translateInTreeInlineVolumeToCSI(vol, pod.metadata.namespace_);
  if (!translated.ok()) {
    return Error("converting volume(" + vol.name + ") from inline to csi: " + translated.error().message());
  }
  auto driverName = kTranslator.getCSINameFromInTreeName(*pluginName);
  if (!driverName.ok()) {
    return Error("looking up CSI driver name for provisioner " + *pluginName + ": " +
                 driverName.error().message());
  }
  // A plugin that cannot express the volume inline leaves the CSI source unset: nothing to count.
  if (!translated->spec.csi) return {};
  result[volumeUniqueName(*driverName, translated->spec.csi->volumeHandle)] = *driverName;
  return {};
}

std::pair<std::string, std::string> CSILimits::getCSIDriverInfo(const api::CSINode* csiNode,
                                                                const api::PersistentVolumeClaim& pvc) const {
  const std::string& pvName = pvc.spec.volumeName;
  if (pvName.empty()) return getCSIDriverInfoFromSC(csiNode, pvc);
  const auto pv = pvs_.get(pvName);
  // The PV may have been deleted, or the claim pre-bound to a PV not created yet: count the claim as
  // its StorageClass would provision it.
  if (pv == nullptr) return getCSIDriverInfoFromSC(csiNode, pvc);

  if (pv->spec.csi) return {pv->spec.csi->driver, pv->spec.csi->volumeHandle};
  if (!kTranslator.isPVMigratable(*pv)) return {};
  auto pluginName = kTranslator.getInTreePluginNameFromSpec(pv.get(), nullptr);
  if (!pluginName.ok()) return {};
  if (!isCSIMigrationOn(csiNode, *pluginName)) return {};
  auto csiPV = kTranslator.translateInTreePVToCSI(*pv);
  if (!csiPV.ok() || !csiPV->spec.csi) return {};
  return {csiPV->spec.csi->driver, csiPV->spec.csi->volumeHandle};
}

std::pair<std::string, std::string> CSILimits::getCSIDriverInfoFromSC(
    const api::CSINode* csiNode, const api::PersistentVolumeClaim& pvc) const {
  // Without a (known) class the claim binds immediately, so it must be bound before the pod schedules:
  // not counting it is safe.
  const std::string scName = volume::persistentVolumeClaimClass(pvc);
  if (scName.empty()) return {};
  const auto storageClass = storageClasses_.get(scName);
  if (storageClass == nullptr) return {};

  // The random prefix keeps the ID apart from real volume handles. Should the claim bind while this
  // runs and another pod on the node use the same volume, it is counted twice (over-, never under-).
  std::string volumeHandle = randomVolumeIDPrefix_ + "-" + pvc.metadata.namespace_ + "/" + pvc.metadata.name;
  const std::string& provisioner = storageClass->provisioner;
  if (kTranslator.isMigratableIntreePluginByName(provisioner)) {
    if (!isCSIMigrationOn(csiNode, provisioner)) return {};
    auto driverName = kTranslator.getCSINameFromInTreeName(provisioner);
    if (!driverName.ok()) return {};
    return {std::move(driverName).value(), std::move(volumeHandle)};
  }
  return {provisioner, std::move(volumeHandle)};
}

bool CSILimits::checkCSIDriverOnNode(const std::string& driverName, const api::CSINode* csiNode) const {
  const auto csiDriver = csiDrivers_.get(driverName);
  if (csiDriver == nullptr || !csiDriver->spec.preventPodSchedulingIfMissing.value_or(false)) return true;
  if (csiNode == nullptr) return false;
  return std::any_of(csiNode->drivers.begin(), csiNode->drivers.end(),
                     [&](const api::CSINodeDriver& d) { return d.name == driverName; });
}

Result<CSILimits::VolumeDrivers> CSILimits::getNodeVolumeAttachmentInfo(const std::string& nodeName) const {
  auto vas = volumeAttachments_.byIndex(std::string(kVAIndexKey), nodeName);
  if (!vas.ok()) return vas.error();
  VolumeDrivers attached;
  for (const auto& va : *vas) {
    if (va->nodeName != nodeName) continue;
    // Attachments of inline volumes (no PV) and PVs that are gone or not CSI are not counted.
    if (va->attacher.empty() || !va->persistentVolumeName) continue;
    const auto pv = pvs_.get(*va->persistentVolumeName);
    if (pv == nullptr || !pv->spec.csi) continue;
    attached[volumeUniqueName(va->attacher, pv->spec.csi->volumeHandle)] = va->attacher;
  }
  return attached;
}

framework::Status CSILimits::signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kVolumesSignerName), framework::volumesSigner(pod)});
  return {};
}

}  // namespace ks::plugins::nodevolumelimits
