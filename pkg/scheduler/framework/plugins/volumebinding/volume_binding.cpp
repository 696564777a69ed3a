#include "pkg/scheduler/framework/plugins/volumebinding/volume_binding.h"

#include <cmath>
#include <map>

#include <spdlog/spdlog.h>

#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::plugins::volumebinding {

namespace {

constexpr int64_t kMaxUtilization = 100;
constexpr int64_t kMaxCustomPriorityScore = 10;

// The plugin's cycle state. As upstream, a clone (preemption's dry runs) shares the data: Filter on a
// clone only adds per-node results, which the original may use as well.
struct StateData final : framework::StateData {
  struct Data {
    std::mutex mu;  // guards podVolumesByNode and hasStaticBindings (Filter runs in parallel)
    bool allBound = false;
    std::map<std::string, std::shared_ptr<PodVolumes>> podVolumesByNode;
    PodVolumeClaims podVolumeClaims;
    bool hasStaticBindings = false;
  };
  explicit StateData(std::shared_ptr<Data> d) : data(std::move(d)) {}
  std::unique_ptr<framework::StateData> clone() const override { return std::make_unique<StateData>(data); }
  std::shared_ptr<Data> data;
};

Result<StateData::Data*> stateOf(framework::CycleState& cs) {
  auto* s = cs.read<StateData>();
  if (s == nullptr) return Error("not found");  // upstream returns fwk.ErrNotFound as is
  return s->data.get();
}

template <class T>
std::shared_ptr<const T> storeGet(informer::SharedInformer<T>& informer, const std::string& key) {
  return informer.store().get(key);
}

// Per storage class, the requested and offered bytes of a node's static bindings (upstream
// classResourceMap).
struct StorageResource {
  int64_t requested = 0;
  int64_t capacity = 0;
};

}  // namespace

VolumeBinding::VolumeBinding(std::unique_ptr<SchedulerVolumeBinder> binder, framework::Handle& handle,
                             Features features, const config::VolumeBindingArgs& args)
    : binder_(std::move(binder)), handle_(handle), features_(features) {
  if (features_.enableStorageCapacityScoring) {
    helper::FunctionShape shape;
    for (const auto& point : args.shape) {
      shape.push_back({point.utilization, int64_t{point.score} * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
    }
    scorer_ = helper::buildBrokenLinearFunction(std::move(shape));
  }
  if (auto* factory = handle.sharedInformerFactory()) {
    auto* pvcs = &factory->persistentVolumeClaims();
    pvcLister_ = [pvcs](const std::string& key) { return storeGet(*pvcs, key); };
  }
}

Result<std::unique_ptr<framework::Plugin>> VolumeBinding::create(const config::PluginArgs* args,
                                                                 framework::Handle& handle, Features features) {
  config::FeatureGates gates;
  gates.storageCapacityScoring = features.enableStorageCapacityScoring;
  // No args: the defaulted ones, as the framework would pass (the shape only with StorageCapacityScoring).
  const std::shared_ptr<config::PluginArgs> defaults =
      args == nullptr ? config::newDefaultPluginArgs("VolumeBinding", gates) : nullptr;
  const auto* typed = dynamic_cast<const config::VolumeBindingArgs*>(args != nullptr ? args : defaults.get());
  if (typed == nullptr) return Error("want args to be of type VolumeBindingArgs");
  if (const auto errs = config::validateVolumeBindingArgs("", *typed, gates); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  if (handle.client() == nullptr) return Error("VolumeBinding needs an API client");

  auto pvCache = std::make_shared<PVAssumeCache>();
  auto pvcCache = std::make_shared<PVCAssumeCache>();
  pvCache->watch(factory->persistentVolumes());
  pvcCache->watch(factory->persistentVolumeClaims());
  auto* classes = &factory->storageClasses();
  auto* nodes = &factory->nodes();
  auto* csiNodes = &factory->csiNodes();
  auto* pods = &factory->pods();
  auto* csiDrivers = &factory->csiDrivers();
  auto* capacities = &factory->csiStorageCapacities();
  VolumeBinderListers listers{
      .storageClass = [classes](const std::string& name) { return storeGet(*classes, name); },
      .node = [nodes](const std::string& name) { return storeGet(*nodes, name); },
      .csiNode = [csiNodes](const std::string& name) { return storeGet(*csiNodes, name); },
      .pod = [pods](const std::string& ns, const std::string& name) { return storeGet(*pods, ns + "/" + name); },
      .csiDriver = [csiDrivers](const std::string& name) { return storeGet(*csiDrivers, name); },
      .csiStorageCapacities = [capacities] { return capacities->store().list(); },
  };
  VolumeBinderOptions options;
  options.bindTimeout = std::chrono::seconds(typed->bindTimeoutSeconds);
  options.enableVolumeAttributesClass = features.enableVolumeAttributesClass;
  options.enableCSIMigrationPortworx = features.enableCSIMigrationPortworx;
  options.assumeBindingCompletes = features.assumeBindingCompletes;
  auto binder = newVolumeBinder(*handle.client(), std::move(listers), std::move(pvCache), std::move(pvcCache),
                                newInTreeToCSITranslator(), handle.metrics(), options);
  return std::unique_ptr<framework::Plugin>(new VolumeBinding(std::move(binder), handle, features, *typed));
}

Result<bool> VolumeBinding::podHasPVCs(const api::Pod& pod) const {
  bool hasPVC = false;
  for (const api::Volume& vol : pod.spec.volumes) {
    const auto claimOf = volume::podVolumeClaim(pod, vol);
    if (!claimOf) continue;
    const auto& [claimName, isEphemeral] = *claimOf;
    hasPVC = true;
    auto pvc = pvcLister_ ? pvcLister_(pod.metadata.namespace_ + "/" + claimName) : nullptr;
    if (!pvc) {
      if (isEphemeral) {
        return Error("waiting for ephemeral volume controller to create the persistentvolumeclaim \"" + claimName +
                     "\"");
      }
      return Error(volume::listerNotFound("persistentvolumeclaim", claimName));
    }
    if (pvc->status.phase == volume::kClaimLost) {
      return Error("persistentvolumeclaim \"" + pvc->metadata.name + "\" bound to non-existent persistentvolume \"" +
                   pvc->spec.volumeName + "\"");
    }
    if (pvc->metadata.deletionTimestamp) {
      return Error("persistentvolumeclaim \"" + pvc->metadata.name + "\" is being deleted");
    }
    if (isEphemeral) {
      if (auto r = volume::ephemeralVolumeIsForPod(pod, *pvc); !r.ok()) return r.error();
    }
  }
  return hasPVC;
}

framework::Status VolumeBinding::preFilter(framework::CycleState& state, const framework::PodInfo& podInfo,
                                           std::span<const framework::NodeInfoPtr>, framework::PreFilterResult&) {
  const api::Pod& pod = podInfo.pod();
  auto hasPVC = podHasPVCs(pod);
  if (!hasPVC.ok()) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::vector<std::string>{hasPVC.error().message()});
  }
  if (!*hasPVC) {
    state.write(std::make_unique<StateData>(std::make_shared<StateData::Data>()));
    return framework::Status(framework::Code::Skip);
  }
  auto claims = binder_->getPodVolumeClaims(pod);
  if (!claims.ok()) return framework::Status::fromError(claims.error());
  if (!claims->unboundClaimsImmediate.empty()) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::vector<std::string>{"pod has unbound immediate PersistentVolumeClaims"});
  }
  auto data = std::make_shared<StateData::Data>();
  data->podVolumeClaims.boundClaims = std::move(claims->boundClaims);
  data->podVolumeClaims.unboundClaimsDelayBinding = std::move(claims->unboundClaimsDelayBinding);
  data->podVolumeClaims.unboundVolumesDelayBinding = std::move(claims->unboundVolumesDelayBinding);
  state.write(std::make_unique<StateData>(std::move(data)));
  return framework::Status::success();
}

framework::Status VolumeBinding::filter(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                        const framework::NodeInfo& nodeInfo) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  std::vector<std::string> reasons;
  auto podVolumes = binder_->findPodVolumes(podInfo.pod(), (*state)->podVolumeClaims, *node, reasons);
  if (!podVolumes.ok()) return framework::Status::fromError(podVolumes.error());
  if (!reasons.empty()) return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::move(reasons));
  auto volumes = std::make_shared<PodVolumes>(std::move(podVolumes).value());
  std::lock_guard lock((*state)->mu);
  (*state)->hasStaticBindings = (*state)->hasStaticBindings || !volumes->staticBindings.empty();
  (*state)->podVolumesByNode[node->metadata.name] = std::move(volumes);
  return framework::Status::success();
}

framework::Status VolumeBinding::preScore(framework::CycleState& cs, const framework::PodInfo&,
                                          std::span<const framework::NodeInfoPtr>) {
  if (!scorer_) return framework::Status(framework::Code::Skip);
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  if ((*state)->hasStaticBindings || features_.enableStorageCapacityScoring) return framework::Status::success();
  return framework::Status(framework::Code::Skip);
}

framework::Status VolumeBinding::score(framework::CycleState& cs, const framework::PodInfo&,
                                       const framework::NodeInfo& nodeInfo, int64_t& score) {
  score = 0;
  if (!scorer_) return framework::Status::success();
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  std::shared_ptr<PodVolumes> podVolumes;
  {
    std::lock_guard lock((*state)->mu);
    auto it = (*state)->podVolumesByNode.find(nodeInfo.node()->metadata.name);
    if (it == (*state)->podVolumesByNode.end()) return framework::Status::success();
    podVolumes = it->second;
  }
  std::map<std::string, StorageResource> classResources;
  if (!podVolumes->staticBindings.empty() || !features_.enableStorageCapacityScoring) {
    for (const BindingInfo& b : podVolumes->staticBindings) {
      StorageResource& r = classResources[b.pv->spec.storageClassName];
      r.requested += volume::claimStorageRequest(*b.pvc).value();
      r.capacity += volume::volumeStorageCapacity(*b.pv).value();
    }
  } else {
    for (const DynamicProvision& p : podVolumes->dynamicProvisions) {
      if (!p.nodeCapacity || !p.nodeCapacity->capacity) continue;
      StorageResource& r = classResources[p.pvc->spec.storageClassName.value_or("")];
      r.capacity = p.nodeCapacity->capacity->value();
      r.requested += volume::claimStorageRequest(*p.pvc).value();
    }
  }
  if (classResources.empty()) return framework::Status::success();
  int64_t sum = 0;
  for (const auto& [cls, r] : classResources) {
    // All classes weigh the same (alpha).
    sum += (r.capacity == 0 || r.requested > r.capacity) ? (*scorer_)(kMaxUtilization)
                                                         : (*scorer_)(r.requested * kMaxUtilization / r.capacity);
  }
  score = static_cast<int64_t>(std::llround(static_cast<double>(sum) / static_cast<double>(classResources.size())));
  return framework::Status::success();
}

framework::Status VolumeBinding::reserve(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                         const std::string& nodeName) {
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  auto it = (*state)->podVolumesByNode.find(nodeName);
  if (it == (*state)->podVolumesByNode.end()) {
    (*state)->allBound = true;
    return framework::Status::success();
  }
  auto allBound = binder_->assumePodVolumes(podInfo.pod(), nodeName, *it->second);
  if (!allBound.ok()) return framework::Status::fromError(allBound.error());
  (*state)->allBound = *allBound;
  return framework::Status::success();
}

framework::Status VolumeBinding::preBindPreFlight(framework::CycleState& cs, const framework::PodInfo&,
                                                  const std::string& nodeName,
                                                  framework::PreBindPreFlightResult& result) {
  result.allowParallel = true;
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  if ((*state)->allBound) return framework::Status(framework::Code::Skip);
  if (!(*state)->podVolumesByNode.contains(nodeName)) {
    return framework::Status::error("no pod volume found for node \"" + nodeName + "\"");
  }
  return framework::Status::success();
}

framework::Status VolumeBinding::preBind(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                         const std::string& nodeName, std::stop_token stop) {
  auto state = stateOf(cs);
  if (!state.ok()) return framework::Status::fromError(state.error());
  if ((*state)->allBound) return framework::Status::success();
  auto it = (*state)->podVolumesByNode.find(nodeName);
  if (it == (*state)->podVolumesByNode.end()) {
    return framework::Status::error("no pod volume found for node \"" + nodeName + "\"");
  }
  const api::Pod& pod = podInfo.pod();
  if (auto r = binder_->bindPodVolumes(pod, nodeName, *it->second, stop); !r.ok()) {
    spdlog::debug("Failed to bind volumes for pod {}/{}: {}", pod.metadata.namespace_, pod.metadata.name,
                  r.error().message());
    return framework::Status::fromError(r.error());
  }
  return framework::Status::success();
}

void VolumeBinding::unreserve(framework::CycleState& cs, const framework::PodInfo&, const std::string& nodeName) {
  auto state = stateOf(cs);
  if (!state.ok()) return;
  auto it = (*state)->podVolumesByNode.find(nodeName);
  if (it == (*state)->podVolumesByNode.end()) return;
  binder_->revertAssumedPodVolumes(*it->second);
}

Result<std::vector<framework::ClusterEventWithHint>> VolumeBinding::eventsToRegister() {
  using namespace framework::action;
  using framework::ClusterEvent;
  using framework::EventResource;
  // With queueing hints the taint update is left to TaintToleration's own registration.
  const framework::ActionType nodeActions =
      features_.enableSchedulingQueueHint ? (Add | UpdateNodeLabel) : (Add | UpdateNodeLabel | UpdateNodeTaint);
  return std::vector<framework::ClusterEventWithHint>{
      // A new class or a change of its allowed topologies.
      {ClusterEvent{EventResource::StorageClass, Add | Update, {}}, isSchedulableAfterStorageClassChange},
      // The pod's claims were created or bound; PVs appeared or changed (no hint: any PV may match).
      {ClusterEvent{EventResource::PersistentVolumeClaim, Add | Update, {}},
       isSchedulableAfterPersistentVolumeClaimChange},
      {ClusterEvent{EventResource::PersistentVolume, Add | Update, {}}, {}},
      // A node may now match a PV's node affinity or a class's topology.
      {ClusterEvent{EventResource::Node, nodeActions, {}}, {}},
      // The node's migrated plugins changed, which changes translated PVs' node affinity.
      {ClusterEvent{EventResource::CSINode, Add | Update, {}}, isSchedulableAfterCSINodeChange},
      // Capacity tracking turned off, or more capacity.
      {ClusterEvent{EventResource::CSIDriver, Update, {}}, isSchedulableAfterCSIDriverChange},
      {ClusterEvent{EventResource::CSIStorageCapacity, Add | Update, {}}, isSchedulableAfterCSIStorageCapacityChange},
  };
}

Result<framework::QueueingHint> VolumeBinding::isSchedulableAfterCSINodeChange(const api::Pod&,
                                                                               const framework::EventObject& oldObj,
                                                                               const framework::EventObject& newObj) {
  if (std::holds_alternative<std::monostate>(oldObj)) return framework::QueueingHint::Queue;
  auto objs = helper::asTyped<api::CSINode>(oldObj, newObj);
  if (!objs.ok()) return objs.error();
  auto migrated = [](const api::CSINode* n) {
    auto it = n->metadata.annotations.find(std::string(volume::kMigratedPluginsAnnotation));
    return it == n->metadata.annotations.end() ? std::string() : it->second;
  };
  if (migrated(objs->first) != migrated(objs->second)) return framework::QueueingHint::Queue;
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> VolumeBinding::isSchedulableAfterPersistentVolumeClaimChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::PersistentVolumeClaim>(oldObj, newObj);
  if (!objs.ok()) return objs.error();
  const api::PersistentVolumeClaim* pvc = objs->second;
  if (pvc == nullptr || pod.metadata.namespace_ != pvc->metadata.namespace_) return framework::QueueingHint::QueueSkip;
  for (const api::Volume& vol : pod.spec.volumes) {
    const auto claimOf = volume::podVolumeClaim(pod, vol);
    if (claimOf && claimOf->name == pvc->metadata.name) return framework::QueueingHint::Queue;
  }
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> VolumeBinding::isSchedulableAfterStorageClassChange(
    const api::Pod&, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::StorageClass>(oldObj, newObj);
  if (!objs.ok()) return objs.error();
  if (objs->first == nullptr) return framework::QueueingHint::Queue;
  if (objs->second != nullptr && objs->second->allowedTopologies != objs->first->allowedTopologies) {
    return framework::QueueingHint::Queue;
  }
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> VolumeBinding::isSchedulableAfterCSIStorageCapacityChange(
    const api::Pod&, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::CSIStorageCapacity>(oldObj, newObj);
  if (!objs.ok()) return objs.error();
  if (objs->first == nullptr) return framework::QueueingHint::Queue;
  if (objs->second == nullptr) return framework::QueueingHint::QueueSkip;
  const auto& oldLimit = volumeLimit(*objs->first);
  const auto& newLimit = volumeLimit(*objs->second);
  if (newLimit && (!oldLimit || newLimit->value() > oldLimit->value())) return framework::QueueingHint::Queue;
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> VolumeBinding::isSchedulableAfterCSIDriverChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto objs = helper::asTyped<api::CSIDriver>(oldObj, newObj);
  if (!objs.ok()) return objs.error();
  const api::CSIDriver* oldDriver = objs->first;
  const api::CSIDriver* newDriver = objs->second;
  if (oldDriver == nullptr || newDriver == nullptr) return framework::QueueingHint::QueueSkip;
  for (const api::Volume& vol : pod.spec.volumes) {
    if (!vol.csi || vol.csi->driver != newDriver->metadata.name) continue;
    if (oldDriver->spec.storageCapacity.value_or(false) && !newDriver->spec.storageCapacity.value_or(false)) {
      return framework::QueueingHint::Queue;
    }
  }
  return framework::QueueingHint::QueueSkip;
}

framework::Status VolumeBinding::signPod(const api::Pod& pod,
                                         std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kVolumesSignerName), framework::volumesSigner(pod)});
  return {};
}

}  // namespace ks::plugins::volumebinding
