#include "pkg/scheduler/framework/plugins/noderesources/fit.h"

#include <optional>
#include <utility>

#include "pkg/api/resources.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::noderesources {

namespace {

constexpr std::string_view kInsufficientPrefix = "Insufficient ";

helper::FunctionShape rtcrShape(const config::ScoringStrategy& s) {
  helper::FunctionShape shape;
  if (!s.requestedToCapacityRatio) return shape;
  shape.reserve(s.requestedToCapacityRatio->shape.size());
  for (const auto& p : s.requestedToCapacityRatio->shape) {
    // The shape's scores are in [0, MaxCustomPriorityScore]; scale them to [0, MaxNodeScore].
    shape.push_back({p.utilization, p.score * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  return shape;
}

bool hasRestartableInitContainer(const api::Pod& pod) {
  for (const auto& c : pod.spec.initContainers) {
    if (c.restartPolicy && *c.restartPolicy == "Always") return true;
  }
  return false;
}

int64_t scalarOf(const framework::Resource& r, const std::string& name) {
  auto it = r.scalarResources.find(name);
  return it == r.scalarResources.end() ? 0 : it->second;
}

// Calls sink(resourceName, fixedReason, requested, used, capacity, unresolvable) for every resource that
// doesn't fit; fixedReason is empty for scalar resources ("Insufficient <name>" is built by the sink).
template <class Sink>
void visitInsufficient(const PreFilterState& s, const framework::NodeInfo& nodeInfo,
                       const framework::DeviceClassResolver* deviceClasses,
                       const ResourceRequestsOptions& opts, Sink&& sink) {
  const framework::Resource& alloc = nodeInfo.allocatable();
  const framework::Resource& used = nodeInfo.requested();
  const auto numPods = static_cast<int64_t>(nodeInfo.pods().size());
  if (numPods + 1 > alloc.allowedPodNumber) {
    sink(api::kResourcePods, kReasonTooManyPods, 1, numPods, alloc.allowedPodNumber, false);
  }
  const framework::Resource& req = s.request();
  if (req.milliCPU == 0 && req.memory == 0 && req.ephemeralStorage == 0 && req.scalarResources.empty())
    return;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) {
    sink(api::kResourceCPU, kReasonInsufficientCPU, req.milliCPU, used.milliCPU, alloc.milliCPU,
         req.milliCPU > alloc.milliCPU);
  }
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) {
    sink(api::kResourceMemory, kReasonInsufficientMemory, req.memory, used.memory, alloc.memory,
         req.memory > alloc.memory);
  }
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    sink(api::kResourceEphemeralStorage, kReasonInsufficientEphemeralStorage, req.ephemeralStorage,
         used.ephemeralStorage, alloc.ephemeralStorage, req.ephemeralStorage > alloc.ephemeralStorage);
  }
  for (const auto& sr : s.scalars()) {
    if (shouldDelegateResourceToDRA(sr.name, &nodeInfo, deviceClasses, opts)) continue;
    const int64_t a = scalarOf(alloc, sr.name);
    const int64_t u = scalarOf(used, sr.name);
    if (sr.quantity > a - u)
      sink(std::string_view(sr.name), std::string_view(), sr.quantity, u, a, sr.quantity > a);
  }
}

std::string reasonFor(std::string_view resourceName, std::string_view fixedReason) {
  if (!fixedReason.empty()) return std::string(fixedReason);
  std::string r(kInsufficientPrefix);
  r += resourceName;
  return r;
}

std::vector<InsufficientResource> collect(const PreFilterState& s, const framework::NodeInfo& nodeInfo,
                                          const framework::DeviceClassResolver* deviceClasses,
                                          const ResourceRequestsOptions& opts) {
  std::vector<InsufficientResource> out;
  visitInsufficient(
      s, nodeInfo, deviceClasses, opts,
      [&](std::string_view name, std::string_view fixed, int64_t req, int64_t used, int64_t cap,
          bool unresolvable) {
        out.push_back({std::string(name), reasonFor(name, fixed), req, used, cap, unresolvable});
      });
  return out;
}

}  // namespace

bool isExtendedResourceName(std::string_view name) {
  const bool native =
      name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
  if (native || name.starts_with("requests.")) return false;
  std::string quotaName = "requests.";
  quotaName += name;
  return config::isQualifiedName(quotaName).empty();
}

framework::Resource computePodResourceRequest(const api::Pod& pod, const ResourceRequestsOptions& opts) {
  // The pod isn't scheduled yet, so there are no status (allocated) resources to consider.
  api::PodRequestsOptions o;
  o.useStatusResources = false;
  o.skipPodLevelResources = !opts.enablePodLevelResources;
  framework::Resource r;
  r.setMaxResource(api::podRequests(pod, o));
  return r;
}

std::vector<ScalarRequest> checkedScalarRequests(
    const framework::Resource& request, const std::set<std::string, std::less<>>& ignoredResources,
    const std::set<std::string, std::less<>>& ignoredResourceGroups) {
  std::vector<ScalarRequest> out;
  for (const auto& [name, quantity] : request.scalarResources) {
    if (quantity == 0) continue;
    if (isExtendedResourceName(name)) {
      if (ignoredResources.contains(name)) continue;
      if (!ignoredResourceGroups.empty()) {
        const std::string_view prefix = std::string_view(name).substr(0, name.find('/'));
        if (ignoredResourceGroups.contains(prefix)) continue;
      }
    }
    out.push_back({name, quantity});
  }
  return out;
}

api::ResourceList podRequestsSpecOnly(const api::Pod& pod) {
  api::PodRequestsOptions opts;
  opts.useStatusResources = false;
  opts.inPlacePodLevelResourcesVerticalScalingEnabled = false;
  return api::podRequests(pod, opts);
}

bool shouldDelegateResourceToDRA(std::string_view resourceName, const framework::NodeInfo* nodeInfo,
                                 const framework::DeviceClassResolver* deviceClasses,
                                 const ResourceRequestsOptions& opts) {
  if (!opts.enableDRAExtendedResource) return false;
  // The device plugin provides it on this node.
  if (nodeInfo != nullptr) {
    const auto& scalars = nodeInfo->allocatable().scalarResources;
    if (auto it = scalars.find(std::string(resourceName)); it != scalars.end() && it->second > 0)
      return false;
  }
  return deviceClasses != nullptr && deviceClasses->getDeviceClass(resourceName) != nullptr;
}

std::vector<InsufficientResource> fitsRequest(const PreFilterState& podRequest,
                                              const framework::NodeInfo& nodeInfo,
                                              const framework::DeviceClassResolver* deviceClasses,
                                              const ResourceRequestsOptions& opts) {
  return collect(podRequest, nodeInfo, deviceClasses, opts);
}

std::vector<InsufficientResource> fits(const api::Pod& pod, const framework::NodeInfo& nodeInfo,
                                       const ResourceRequestsOptions& opts,
                                       const framework::DeviceClassResolver* deviceClasses) {
  framework::Resource request = computePodResourceRequest(pod, opts);
  auto scalars = checkedScalarRequests(request, {}, {});
  return collect(PreFilterState(std::move(request), std::move(scalars)), nodeInfo, deviceClasses, opts);
}

bool isFit(const api::Pod& pod, const api::Node* node, const ResourceRequestsOptions& opts,
           const framework::DeviceClassResolver* deviceClasses) {
  if (node == nullptr) return false;
  framework::NodeInfo nodeInfo;
  nodeInfo.setNode(std::make_shared<const api::Node>(*node));
  return fits(pod, nodeInfo, opts, deviceClasses).empty();
}

bool haveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& originalNode,
                                        const api::Node& modifiedNode, const ResourceRequestsOptions& opts,
                                        const framework::DeviceClassResolver* deviceClasses) {
  const framework::Resource podRequest = computePodResourceRequest(pod, opts);
  const framework::Resource original = framework::Resource::fromResourceList(originalNode.status.allocatable);
  const framework::Resource modified = framework::Resource::fromResourceList(modifiedNode.status.allocatable);
  if (modified.allowedPodNumber > original.allowedPodNumber) return true;
  if (podRequest.milliCPU == 0 && podRequest.memory == 0 && podRequest.ephemeralStorage == 0 &&
      podRequest.scalarResources.empty()) {
    return false;
  }
  if ((podRequest.milliCPU > 0 && modified.milliCPU > original.milliCPU) ||
      (podRequest.memory > 0 && modified.memory > original.memory) ||
      (podRequest.ephemeralStorage > 0 && modified.ephemeralStorage > original.ephemeralStorage)) {
    return true;
  }
  std::optional<framework::NodeInfo> modifiedNodeInfo;
  for (const auto& [name, quantity] : podRequest.scalarResources) {
    if (quantity == 0) continue;
    if (scalarOf(modified, name) > scalarOf(original, name)) return true;
    if (opts.enableDRAExtendedResource && deviceClasses != nullptr) {
      if (!modifiedNodeInfo) {
        modifiedNodeInfo.emplace();
        modifiedNodeInfo->setNode(std::make_shared<const api::Node>(modifiedNode));
      }
      if (shouldDelegateResourceToDRA(name, &*modifiedNodeInfo, deviceClasses, opts)) return true;
    }
  }
  return false;
}

// ---- Fit ----

Fit::Fit(const config::NodeResourcesFitArgs& args, const Features& features, ResourceAllocationScorer scorer,
         const framework::DeviceClassResolver* deviceClasses)
    : ignoredResources_(args.ignoredResources.begin(), args.ignoredResources.end()),
      ignoredResourceGroups_(args.ignoredResourceGroups.begin(), args.ignoredResourceGroups.end()),
      features_(features),
      scorer_(std::move(scorer)),
      deviceClasses_(features.enableDRAExtendedResource ? deviceClasses : nullptr) {}

Result<std::unique_ptr<Fit>> Fit::create(const config::NodeResourcesFitArgs& args, const Features& features,
                                         const framework::DeviceClassResolver* deviceClasses,
                                         framework::SharedDRAManager* draManager) {
  if (auto errs = config::validateNodeResourcesFitArgs("", args); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  const auto& s = args.scoringStrategy;
  ScoringStrategyType type;
  if (s.type == "LeastAllocated") {
    type = ScoringStrategyType::LeastAllocated;
  } else if (s.type == "MostAllocated") {
    type = ScoringStrategyType::MostAllocated;
  } else if (s.type == "RequestedToCapacityRatio") {
    type = ScoringStrategyType::RequestedToCapacityRatio;
  } else {
    return Error("scoring strategy " + s.type + " is not supported");
  }
  // As upstream v1.34, the Fit scorer is built without the feature gates: scoring reads the pod's spec
  // requests only (no status resources, no pod-level resources), with the non-zero cpu/memory defaults.
  ResourceAllocationScorer::Options opts;
  opts.useRequested = false;
  opts.useStatusResources = false;
  opts.skipPodLevelResources = true;
  ResourceAllocationScorer scorer(s.type, type, s.resources, opts, rtcrShape(s));
  if (features.enableDRAExtendedResource) scorer.enableDRAExtendedResource(draManager, deviceClasses);
  return std::unique_ptr<Fit>(new Fit(args, features, std::move(scorer), deviceClasses));
}

Result<std::unique_ptr<framework::Plugin>> Fit::create(const config::PluginArgs* args,
                                                       framework::Handle& handle, const Features& features) {
  static const config::NodeResourcesFitArgs kDefaults{};
  const config::NodeResourcesFitArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::NodeResourcesFitArgs*>(args);
    if (typed == nullptr) return Error("want args to be of type NodeResourcesFitArgs");
  }
  framework::SharedDRAManager* dra = handle.sharedDRAManager();
  auto p = create(*typed, features, dra != nullptr ? dra->deviceClassResolver() : nullptr, dra);
  if (!p.ok()) return p.error();
  return std::unique_ptr<framework::Plugin>(std::move(p).value());
}

framework::Status Fit::preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                 std::span<const framework::NodeInfoPtr> /*nodes*/,
                                 framework::PreFilterResult& /*result*/) {
  if (!features_.enableSidecarContainers && hasRestartableInitContainer(pod.pod())) {
    // Avoid inconsistent accounting with kubelets older than v1.28.
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::string(kReasonSidecarsDisabled));
  }
  framework::Resource request = computePodResourceRequest(pod.pod(), requestsOptions());
  auto scalars = checkedScalarRequests(request, ignoredResources_, ignoredResourceGroups_);
  state.write(std::make_unique<PreFilterState>(std::move(request), std::move(scalars)));
  return framework::Status();
}

framework::Status Fit::filter(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                              const framework::NodeInfo& nodeInfo) {
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr) {
    return framework::Status::error("error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
  }
  framework::Status status;
  visitInsufficient(
      *s, nodeInfo, deviceClasses_, requestsOptions(),
      [&](std::string_view name, std::string_view fixed, int64_t, int64_t, int64_t, bool unresolvable) {
        if (status.isSuccess()) status = framework::Status(framework::Code::Unschedulable);
        status.appendReason(reasonFor(name, fixed));
        if (unresolvable && status.code() != framework::Code::UnschedulableAndUnresolvable) {
          framework::Status upgraded(framework::Code::UnschedulableAndUnresolvable, status.reasons());
          status = std::move(upgraded);
        }
      });
  return status;
}

framework::Status Fit::preScore(framework::CycleState& state, const framework::PodInfo& pod,
                                std::span<const framework::NodeInfoPtr> /*nodes*/) {
  std::vector<int64_t> requests = scorer_.podRequests(pod.pod());
  auto dra = scorer_.draPreScoreState();
  if (!dra.ok()) return framework::Status::error(dra.error().message());
  state.write(std::make_unique<PreScoreState>(std::move(requests), std::move(*dra)));
  return framework::Status();
}

framework::Status Fit::score(framework::CycleState& state, const framework::PodInfo& pod,
                             const framework::NodeInfo& nodeInfo, int64_t& score) {
  return scoreWithPreScoreState<PreScoreState>(scorer_, state, pod.pod(), nodeInfo, false, score);
}

Result<std::vector<framework::ClusterEventWithHint>> Fit::eventsToRegister() {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  // Without queueing hints, Node/Add may be missed by the queue's pre-check; upstream then also registers
  // taint and label updates (kubernetes#109437).
  framework::ActionType nodeActions =
      action::Add | action::UpdateNodeAllocatable | action::UpdateNodeTaint | action::UpdateNodeLabel;
  if (features_.enableSchedulingQueueHint) nodeActions = action::Add | action::UpdateNodeAllocatable;
  std::vector<framework::ClusterEventWithHint> events{
      {ClusterEvent{EventResource::AssignedPod, action::Delete, {}},
       helper::bindHint(this, &Fit::isSchedulableAfterAssignedPodDelete)},
      {ClusterEvent{EventResource::Node, nodeActions, {}},
       helper::bindHint(this, &Fit::isSchedulableAfterNodeChange)},
  };
  // A pod may wait for a class that maps an extended resource it requests.
  if (features_.enableDRAExtendedResource) {
    events.push_back({ClusterEvent{EventResource::DeviceClass, action::Add | action::Update, {}},
                      helper::bindHint(this, &Fit::isSchedulableAfterDeviceClassEvent)});
  }
  // With in-place resize, a scheduled pod scaling down may free room, and the pod itself may now fit.
  if (features_.enableInPlacePodVerticalScaling) {
    events.push_back({ClusterEvent{EventResource::AssignedPod, action::UpdatePodScaleDown, {}},
                      helper::bindHint(this, &Fit::isSchedulableAfterAssignedPodScaleDown)});
    events.push_back({ClusterEvent{EventResource::TargetPod, action::UpdatePodScaleDown, {}},
                      helper::bindHint(this, &Fit::isSchedulableAfterTargetPodScaleDown)});
  }
  return events;
}

Result<framework::QueueingHint> Fit::isSchedulableAfterAssignedPodDelete(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj,
    const framework::EventObject& newObj) const {
  auto typed = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!typed.ok()) return typed.error();
  const api::Pod* deletedPod = typed->first;
  if (deletedPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  // Deleting a pod that was neither scheduled nor nominated frees nothing.
  if (deletedPod->spec.nodeName.empty() && deletedPod->status.nominatedNodeName.empty()) {
    return framework::QueueingHint::QueueSkip;
  }
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> Fit::isSchedulableAfterTargetPodScaleDown(
    const api::Pod& /*pod*/, const framework::EventObject& /*oldObj*/,
    const framework::EventObject& /*newObj*/) const {
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> Fit::isSchedulableAfterAssignedPodScaleDown(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto typed = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!typed.ok()) return typed.error();
  const auto [originalPod, modifiedPod] = *typed;
  if (originalPod == nullptr || modifiedPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  return haveEnoughRelevantResourcesDecreased(pod, *originalPod, *modifiedPod)
             ? framework::QueueingHint::Queue
             : framework::QueueingHint::QueueSkip;
}

bool Fit::haveEnoughRelevantResourcesDecreased(const api::Pod& targetPod, const api::Pod& originalPod,
                                               const api::Pod& modifiedPod) const {
  // An unscheduled pod holds nothing.
  if (modifiedPod.spec.nodeName.empty()) return false;
  api::PodRequestsOptions opts;
  opts.useStatusResources = features_.enableInPlacePodVerticalScaling;
  opts.inPlacePodLevelResourcesVerticalScalingEnabled =
      features_.enableInPlacePodLevelResourcesVerticalScaling;
  opts.skipPodLevelResources = false;
  framework::Resource original;
  framework::Resource modified;
  original.setMaxResource(api::podRequests(originalPod, opts));
  modified.setMaxResource(api::podRequests(modifiedPod, opts));
  for (const auto& [name, q] : api::podRequests(targetPod, opts)) {
    if (q.isZero()) continue;
    if (name == api::kResourceCPU) {
      if (original.milliCPU > modified.milliCPU) return true;
    } else if (name == api::kResourceMemory) {
      if (original.memory > modified.memory) return true;
    } else if (name == api::kResourceEphemeralStorage) {
      if (original.ephemeralStorage > modified.ephemeralStorage) return true;
    } else if (framework::isScalarResourceName(name) && scalarOf(original, name) > scalarOf(modified, name)) {
      return true;
    }
  }
  return false;
}

Result<framework::QueueingHint> Fit::isSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto typed = helper::asTyped<api::Node>(oldObj, newObj);
  if (!typed.ok()) return typed.error();
  const auto [originalNode, modifiedNode] = *typed;
  const ResourceRequestsOptions opts = requestsOptions();
  // The pod doesn't fit the node even when it's empty: nothing to do.
  if (!isFit(pod, modifiedNode, opts, deviceClasses_)) return framework::QueueingHint::QueueSkip;
  if (originalNode == nullptr) return framework::QueueingHint::Queue;
  // It fits, but if nothing the pod asks for grew, the update didn't change the outcome.
  if (!haveAnyRequestedResourcesIncreased(pod, *originalNode, *modifiedNode, opts, deviceClasses_)) {
    return framework::QueueingHint::QueueSkip;
  }
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> Fit::isSchedulableAfterDeviceClassEvent(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto typed = helper::asTyped<api::DeviceClass>(oldObj, newObj);
  if (!typed.ok()) return typed.error();
  const auto [originalClass, modifiedClass] = *typed;
  if (modifiedClass == nullptr) return framework::QueueingHint::QueueSkip;
  const std::string modifiedName = modifiedClass->spec.extendedResourceName.value_or("");
  if (originalClass != nullptr) {
    if (originalClass->spec.extendedResourceName.value_or("") == modifiedName) {
      return framework::QueueingHint::QueueSkip;
    }
  } else {
    // The implicit name only matters on Add: a class keeps its name.
    if (podRequestsSpecOnly(pod).count(std::string(framework::kResourceDeviceClassPrefix) +
                                       modifiedClass->metadata.name) > 0) {
      return framework::QueueingHint::Queue;
    }
  }
  if (modifiedClass->spec.extendedResourceName) {
    if (podRequestsSpecOnly(pod).count(modifiedName) > 0) return framework::QueueingHint::Queue;
  }
  return framework::QueueingHint::QueueSkip;
}

framework::Status signPodResources(const api::Pod& pod, const ResourceRequestsOptions& opts,
                                   const framework::DeviceClassResolver* deviceClasses,
                                   std::vector<framework::SignFragment>& fragments) {
  framework::Resource request = computePodResourceRequest(pod, opts);
  if (opts.enableDRAExtendedResource) {
    for (const auto& [name, quantity] : request.scalarResources) {
      if (quantity == 0) continue;
      if (shouldDelegateResourceToDRA(name, nullptr, deviceClasses, opts)) {
        return framework::Status(framework::Code::Unschedulable,
                                 "signature disabled when dra extended resources are used in the cluster");
      }
    }
  }
  fragments.push_back({std::string(framework::kResourcesSignerName), framework::resourceSigner(request)});
  return {};
}

framework::Status Fit::signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) {
  return signPodResources(pod, requestsOptions(), deviceClasses_, fragments);
}

}  // namespace ks::plugins::noderesources
