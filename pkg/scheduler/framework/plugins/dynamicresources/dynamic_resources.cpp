#include "pkg/scheduler/framework/plugins/dynamicresources/dynamic_resources.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <set>
#include <stop_token>
#include <string_view>
#include <thread>

#include <spdlog/spdlog.h>

#include "pkg/api/nodeselector.h"
#include "pkg/dra/structured/allocator.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::plugins::dynamicresources {

using framework::Code;
using framework::ResourceClaimPtr;
using framework::Status;

namespace {

// How long a pod waits in PreBind for its devices' binding conditions when args leave bindingTimeout unset
// (upstream's default), polling them every 5 s.
constexpr std::chrono::seconds kBindingTimeoutDefault{600};
constexpr std::chrono::seconds kBindingPollInterval{5};
// Upstream ErrDeviceBindingTimeout / ErrDeviceBindingFailed: the prefixes PreBind's errors start with, which
// also pick the binding-conditions metrics' status label.
constexpr std::string_view kErrDeviceBindingTimeout = "device binding timeout";
constexpr std::string_view kErrDeviceBindingFailed = "device binding failed";

// The status label of the binding-conditions metrics for PreBind's wait outcome.
std::string_view bindingConditionsStatusLabel(const std::optional<Error>& err) {
  if (!err) return metrics::Metrics::kBindingConditionsSuccess;
  if (err->message().starts_with(kErrDeviceBindingTimeout))
    return metrics::Metrics::kBindingConditionsTimeout;
  if (err->message().starts_with(kErrDeviceBindingFailed)) return metrics::Metrics::kBindingConditionsFailed;
  return metrics::Metrics::kBindingConditionsError;
}

std::string kobj(const api::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

// Upstream statusUnschedulable: the pod cannot be scheduled and preemption will not help.
Status statusUnschedulable(std::string reason) {
  return Status(Code::UnschedulableAndUnresolvable, std::move(reason));
}

// resourceclaim.Name: the claim's name (nullopt when none was generated because none was needed) and
// whether the claim must be checked to belong to the pod.
Result<std::pair<std::optional<std::string>, bool>> claimName(const api::Pod& pod,
                                                              const api::PodResourceClaim& podClaim) {
  if (podClaim.resourceClaimName) return std::make_pair(podClaim.resourceClaimName, false);
  if (podClaim.resourceClaimTemplateName) {
    for (const auto& status : pod.status.resourceClaimStatuses) {
      if (status.name == podClaim.name) return std::make_pair(status.resourceClaimName, true);
    }
    return Error("pod \"" + kobj(pod.metadata) + "\": ResourceClaim not created yet");
  }
  return Error("pod \"" + kobj(pod.metadata) + "\", spec.resourceClaim \"" + podClaim.name +
               "\": none of the supported fields are set");
}

// resourceclaim.IsForPod: same namespace and the pod is the claim's controller.
Result<void> isForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  bool controlled = false;
  for (const auto& ref : claim.metadata.ownerReferences) {
    if (ref.controller.value_or(false)) {
      controlled = ref.uid == pod.metadata.uid;
      break;
    }
  }
  if (claim.metadata.namespace_ != pod.metadata.namespace_ || !controlled) {
    return Error("ResourceClaim " + kobj(claim.metadata) + " was not created for pod " + kobj(pod.metadata) +
                 " (pod is not owner)");
  }
  return {};
}

bool isReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  return std::any_of(claim.status.reservedFor.begin(), claim.status.reservedFor.end(),
                     [&](const auto& r) { return r.uid == pod.metadata.uid; });
}

const api::Condition* findCondition(const std::vector<api::Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const api::AllocatedDeviceStatus* allocatedDeviceStatus(const api::ResourceClaim& claim,
                                                        const api::DeviceRequestAllocationResult& result) {
  for (const auto& d : claim.status.devices) {
    if (d.device == result.device && d.driver == result.driver && d.pool == result.pool) return &d;
  }
  return nullptr;
}

bool hasBindingConditions(const std::vector<ResourceClaimPtr>& claims) {
  for (const auto& claim : claims) {
    if (!claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      if (!r.bindingConditions.empty()) return true;
    }
  }
  return false;
}

}  // namespace

// The cycle state, written in PreFilter. As upstream, a clone (preemption's dry runs) shares it.
struct DynamicResources::StateData final : framework::StateData {
  struct Info {
    // From the allocation's node selector, for allocated claims.
    std::optional<api::CompiledNodeSelector> availableOnNodes;
    // Set by Reserve, written by PreBind; none when nothing had to be allocated.
    std::optional<api::AllocationResult> allocation;
  };
  struct Data {
    // The pod's claims, as found at the start of the cycle (1:1 with spec.resourceClaims that have a
    // claim); PreBind replaces the ones it updates. Empty: the plugin has nothing to do for the pod.
    std::vector<ResourceClaimPtr> claims;
    // Set when some claim must be allocated.
    std::shared_ptr<const dra::structured::Allocator> allocator;
    // One per claim; Filter only reads it (Reserve writes the allocations).
    std::vector<Info> informationsForClaim;
    std::mutex mu;  // guards what Filter writes (it runs for several nodes at once), below
    // Indices of allocated claims that were not available on some node (for PostFilter).
    std::set<size_t> unavailableClaims;
    // Filter's allocation results per node, in the order of the claims to allocate.
    std::map<std::string, std::vector<api::AllocationResult>> nodeAllocations;
    // The extended-resource claim, when there is one, is the last of `claims`.
    ExtendedResourceState extended;

    ResourceClaimPtr extendedResourceClaim() const { return extended.hasClaim ? claims.back() : nullptr; }
    bool isExtendedResourceClaim(size_t index) const {
      return extended.hasClaim && index + 1 == claims.size();
    }
    size_t numUserOwned() const { return claims.size() - (extended.hasClaim ? 1 : 0); }
  };
  explicit StateData(std::shared_ptr<Data> d) : data(std::move(d)) {}
  std::unique_ptr<framework::StateData> clone() const override { return std::make_unique<StateData>(data); }
  std::shared_ptr<Data> data;
};

namespace {

Result<DynamicResources::StateData::Data*> stateOf(framework::CycleState& cs) {
  auto* s = cs.read<DynamicResources::StateData>();
  if (s == nullptr) return Error("not found");  // upstream returns fwk.ErrNotFound as is
  return s->data.get();
}

// Filter's and Score's start: the cycle's state and the node, or (data null, Success) nothing to do
// because the pod has no claims.
Status claimsOnNode(framework::CycleState& cs, const framework::NodeInfo& nodeInfo,
                    DynamicResources::StateData::Data*& data, const api::Node*& node) {
  data = nullptr;
  auto stateResult = stateOf(cs);
  if (!stateResult.ok()) return Status::fromError(stateResult.error());
  if ((*stateResult)->claims.empty()) return {};
  node = nodeInfo.node();
  if (node == nullptr) return Status::error("node not found");
  data = *stateResult;
  return {};
}

}  // namespace

DynamicResources::DynamicResources(framework::Handle& handle) : handle_(handle) {}

DynamicResources::DynamicResources(framework::Handle& handle, Features features,
                                   std::chrono::nanoseconds filterTimeout,
                                   std::chrono::nanoseconds bindingTimeout,
                                   framework::SharedDRAManager* draManager,
                                   std::unique_ptr<DefaultDRAManager> ownManager)
    : enabled_(true),
      features_(features),
      filterTimeout_(filterTimeout),
      bindingTimeout_(bindingTimeout),
      handle_(handle),
      client_(handle.client()),
      // Upstream's LRU of compiled CEL expressions, reused across scheduling cycles.
      celCache_(std::make_shared<cel::Cache>(10)),
      draManager_(draManager),
      ownManager_(std::move(ownManager)) {}

DynamicResources::~DynamicResources() = default;

Result<std::unique_ptr<framework::Plugin>> DynamicResources::create(const config::PluginArgs* args,
                                                                    framework::Handle& handle,
                                                                    Features features) {
  if (!features.enableDynamicResourceAllocation) {
    return std::unique_ptr<framework::Plugin>(new DynamicResources(handle));
  }
  config::FeatureGates gates;
  gates.dynamicResourceAllocation = true;
  gates.draSchedulerFilterTimeout = features.enableDRASchedulerFilterTimeout;
  gates.draDeviceBindingConditions = features.enableDRADeviceBindingConditions;
  gates.draResourceClaimDeviceStatus = features.enableDRAResourceClaimDeviceStatus;
  config::DynamicResourcesArgs defaults;
  config::setDefaultsPluginArgs(defaults, gates);
  const config::DynamicResourcesArgs* typed = &defaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::DynamicResourcesArgs*>(args);
    if (typed == nullptr) return Error("got args of unexpected type, want *DynamicResourcesArgs");
  }
  if (const auto errs = config::validateDynamicResourcesArgs("", *typed, gates); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  if (handle.client() == nullptr) return Error("DynamicResources needs an API client");
  framework::SharedDRAManager* manager = handle.sharedDRAManager();
  std::unique_ptr<DefaultDRAManager> own;
  if (manager == nullptr) {
    informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
    if (factory == nullptr) return Error("SharedInformerFactory is nil");
    own = std::make_unique<DefaultDRAManager>(*factory, features.enableConsumableCapacity,
                                              features.enableDRADeviceTaintRules, features.enableDRAExtendedResource);
    manager = own.get();
  }
  const auto filterTimeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      typed->filterTimeout.value_or(std::chrono::milliseconds(0)));
  const auto bindingTimeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      typed->bindingTimeout.value_or(kBindingTimeoutDefault));
  return std::unique_ptr<framework::Plugin>(
      new DynamicResources(handle, features, filterTimeout, bindingTimeout, manager, std::move(own)));
}

Result<std::vector<framework::ClusterEventWithHint>> DynamicResources::eventsToRegister() {
  if (!enabled_) return std::vector<framework::ClusterEventWithHint>{};
  using namespace framework::action;
  using framework::ClusterEvent;
  using framework::EventResource;
  // Topology in slices and allocations may depend on node labels. UpdateNodeTaint only without queueing
  // hints, where preCheck could drop a node add (upstream issue 109437).
  const framework::ActionType nodeActions =
      features_.enableSchedulingQueueHint ? (Add | UpdateNodeLabel | UpdateNodeAllocatable)
                                          : (Add | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeAllocatable);
  auto claimHint = [this](const api::Pod& pod, const framework::EventObject& o,
                          const framework::EventObject& n) {
    return isSchedulableAfterClaimChange(pod, o, n);
  };
  return std::vector<framework::ClusterEventWithHint>{
      {ClusterEvent{EventResource::Node, nodeActions, {}}, {}},
      // Allocations live in the claims: any change may free or provide what the pod waits for.
      // Deletes too: PostFilter deletes an extended-resource claim left by an earlier attempt.
      {ClusterEvent{EventResource::ResourceClaim, Add | Update | Delete, {}}, claimHint},
      // The claim controller recorded a generated claim in the pod's status.
      {ClusterEvent{EventResource::TargetPod, UpdatePodGeneratedResourceClaim, {}},
       helper::bindHint(this, &DynamicResources::isSchedulableAfterTargetPodUpdate)},
      {ClusterEvent{EventResource::DeviceClass, Add | Update, {}}, {}},
      // New or changed slices may offer devices.
      {ClusterEvent{EventResource::ResourceSlice, Add | Update, {}}, {}},
  };
}

Result<void> DynamicResources::foreachPodResourceClaim(
    const api::Pod& pod, const std::function<void(const ResourceClaimPtr&)>& cb) const {
  for (const auto& podClaim : pod.spec.resourceClaims) {
    auto name = claimName(pod, podClaim);
    if (!name.ok()) return name.error();
    const auto& [claimName, mustCheckOwner] = *name;
    // No claim was generated because none was needed: nothing to check.
    if (!claimName) continue;
    auto claim = draManager_->resourceClaims().get(pod.metadata.namespace_, *claimName);
    if (!claim.ok()) return claim.error();
    if ((*claim)->metadata.deletionTimestamp) {
      return Error("resourceclaim \"" + (*claim)->metadata.name + "\" is being deleted");
    }
    if (mustCheckOwner) {
      if (auto r = isForPod(pod, **claim); !r.ok()) return r.error();
    }
    if (cb) cb(*claim);
  }
  return {};
}

Status DynamicResources::preEnqueue(const framework::PodInfo& pod) {
  if (!enabled_) return {};
  if (auto r = foreachPodResourceClaim(pod.pod(), nullptr); !r.ok())
    return statusUnschedulable(r.error().message());
  return {};
}

Result<framework::QueueingHint> DynamicResources::isSchedulableAfterClaimChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto objs = helper::asTyped<api::ResourceClaim>(oldObj, newObj);
  if (!objs.ok()) return objs.error().wrap("unexpected object in isSchedulableAfterClaimChange");
  const auto [originalClaim, modifiedClaim] = *objs;
  // A deleted claim that was allocated frees its devices (normally its deallocation was seen before).
  if (modifiedClaim == nullptr) {
    return originalClaim != nullptr && originalClaim->status.allocation ? framework::QueueingHint::Queue
                                                                        : framework::QueueingHint::QueueSkip;
  }
  bool usesClaim = false;
  auto r = foreachPodResourceClaim(pod, [&](const ResourceClaimPtr& claim) {
    if (claim->metadata.uid == modifiedClaim->metadata.uid) usesClaim = true;
  });
  // Only "not schedulable" reasons come back from there.
  if (!r.ok()) return framework::QueueingHint::QueueSkip;
  // A deallocation may have freed devices for any pod.
  if (originalClaim != nullptr && originalClaim->status.allocation && !modifiedClaim->status.allocation) {
    return framework::QueueingHint::Queue;
  }
  if (!usesClaim) return framework::QueueingHint::QueueSkip;
  if (originalClaim == nullptr) return framework::QueueingHint::Queue;
  // Only a status change matters (typically the driver adding its finalizer changes nothing).
  if (originalClaim->status == modifiedClaim->status) return framework::QueueingHint::QueueSkip;
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> DynamicResources::isSchedulableAfterTargetPodUpdate(
    const api::Pod& /*pod*/, const framework::EventObject& /*oldObj*/,
    const framework::EventObject& newObj) const {
  auto objs = helper::asTyped<api::Pod>(framework::EventObject{}, newObj);
  if (!objs.ok()) return objs.error().wrap("unexpected object in isSchedulableAfterTargetPodUpdate");
  const api::Pod* modifiedPod = objs->second;
  if (modifiedPod == nullptr) return framework::QueueingHint::QueueSkip;
  if (!foreachPodResourceClaim(*modifiedPod, nullptr).ok()) return framework::QueueingHint::QueueSkip;
  return framework::QueueingHint::Queue;
}

Status DynamicResources::preFilter(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                   std::span<const framework::NodeInfoPtr>, framework::PreFilterResult&) {
  if (!enabled_) return Status(Code::Skip);
  const api::Pod& pod = podInfo.pod();
  // An empty state records "no claims" for the later points; filled below once we get that far.
  auto data = std::make_shared<StateData::Data>();
  cs.write(std::make_unique<StateData>(data));

  std::vector<ResourceClaimPtr> claims;
  if (auto r = foreachPodResourceClaim(pod, [&](const ResourceClaimPtr& c) { claims.push_back(c); });
      !r.ok()) {
    return statusUnschedulable(r.error().message());
  }
  ResourceClaimPtr extendedClaim;
  if (Status s = preFilterExtendedResources(pod, data->extended, extendedClaim); !s.isSuccess()) return s;
  if (extendedClaim) claims.push_back(extendedClaim);
  if (claims.empty()) return Status(Code::Skip);

  int numClaimsToAllocate = 0;
  data->informationsForClaim.resize(claims.size());
  for (size_t index = 0; index < claims.size(); ++index) {
    const api::ResourceClaim& claim = *claims[index];
    // resourceclaim.CanBeReserved is always true in v1.34 (no limit on reservedFor), so an allocated
    // claim is never "in use" here.
    if (claim.status.allocation) {
      if (claim.status.allocation->nodeSelector) {
        auto selector = api::CompiledNodeSelector::create(*claim.status.allocation->nodeSelector);
        if (!selector.ok()) return Status::fromError(selector.error());
        data->informationsForClaim[index].availableOnNodes = std::move(selector).value();
      }
      continue;
    }
    ++numClaimsToAllocate;
    // Another pod's allocation of this claim is in flight: wait for it (see DefaultDRAManager).
    if (draManager_->resourceClaims().claimHasPendingAllocation(claim.metadata.uid)) {
      return statusUnschedulable("resource claim " + kobj(claim.metadata) +
                                 " is in the process of being allocated");
    }
    // The extended-resource claim has no requests yet (or, from an earlier attempt, Filter rejects it).
    if (claims[index] == extendedClaim) continue;
    // A missing class blocks the claim however it gets allocated.
    for (const auto& request : claim.spec.devices.requests) {
      if (request.exactly) {
        if (Status s = validateDeviceClass(request.exactly->deviceClassName, request.name); !s.isSuccess())
          return s;
      } else if (!request.firstAvailable.empty()) {
        if (!features_.enableDRAPrioritizedList) {
          return statusUnschedulable("resource claim " + kobj(claim.metadata) + ", request " + request.name +
                                     ": has subrequests, but the DRAPrioritizedList feature is disabled");
        }
        for (const auto& sub : request.firstAvailable) {
          if (Status s = validateDeviceClass(sub.deviceClassName, request.name + "/" + sub.name);
              !s.isSuccess()) {
            return s;
          }
        }
      } else {
        return statusUnschedulable("resource claim " + kobj(claim.metadata) + ", request " + request.name +
                                   ": unknown request type");
      }
    }
  }

  if (numClaimsToAllocate > 0) {
    // Allocated devices are those of claims in the assume cache and in flight; fixed for the cycle. A
    // concurrent change while gathering is retried (upstream polls for up to 5s).
    std::optional<dra::structured::AllocatedState> allocatedState;
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (;;) {
      if (features_.enableConsumableCapacity) {
        auto s = draManager_->resourceClaims().gatherAllocatedState();
        if (s.ok()) {
          allocatedState = std::move(s).value();
          break;
        }
        if (s.error().message() != framework::kConcurrentModification) {
          return Status::fromError(s.error().wrap("gather allocation state"));
        }
      } else {
        auto devices = draManager_->resourceClaims().listAllAllocatedDevices();
        if (devices.ok()) {
          allocatedState.emplace();
          allocatedState->allocatedDevices = std::move(devices).value();
          break;
        }
        if (devices.error().message() != framework::kConcurrentModification) {
          return Status::fromError(devices.error().wrap("gather allocation state"));
        }
      }
      if (std::chrono::steady_clock::now() >= giveUp) {
        return Status::error("gather allocation state: context deadline exceeded");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(1));
    }
    auto slices = draManager_->resourceSlices().listWithDeviceTaintRules();
    if (!slices.ok()) return Status::fromError(slices.error());
    dra::structured::Features f;
    f.adminAccess = features_.enableDRAAdminAccess;
    f.prioritizedList = features_.enableDRAPrioritizedList;
    f.partitionableDevices = features_.enablePartitionableDevices;
    f.deviceTaints = features_.enableDRADeviceTaints;
    f.deviceBindingAndStatus =
        features_.enableDRADeviceBindingConditions && features_.enableDRAResourceClaimDeviceStatus;
    f.consumableCapacity = features_.enableConsumableCapacity;
    f.fractionalCapacityRange = features_.enableDRAFractionalCapacityRange;
    data->allocator = std::make_shared<const dra::structured::Allocator>(
        f, std::move(*allocatedState), draManager_->deviceClasses(), std::move(slices).value(), celCache_);
  }
  data->claims = std::move(claims);
  if (extendedClaim) {
    data->extended.hasClaim = true;
    data->extended.initialClaimUid = extendedClaim->metadata.uid;
  }
  return {};
}

Status DynamicResources::validateDeviceClass(const std::string& className,
                                             const std::string& requestName) const {
  if (className.empty()) return Status::error("request " + requestName + ": unsupported request type");
  // The lister only fails for a missing class: the pod waits for a DeviceClass event.
  if (!draManager_->deviceClasses()->get(className).ok()) {
    return statusUnschedulable("request " + requestName + ": device class " + className + " does not exist");
  }
  return {};
}

Status DynamicResources::filter(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                const framework::NodeInfo& nodeInfo) {
  if (!enabled_) return {};
  StateData::Data* data = nullptr;
  const api::Node* node = nullptr;
  if (Status s = claimsOnNode(cs, nodeInfo, data, node); data == nullptr) return s;
  StateData::Data& state = *data;
  ExtendedResourceState::NodeClaim nodeExtended;
  if (Status s = filterExtendedResources(state.extended, state.extendedResourceClaim(),
                                         state.numUserOwned() == 0, podInfo.pod(), nodeInfo, nodeExtended);
      !s.isSuccess()) {
    return s;
  }
  // Only extended resources, and this node's device plugins provide them: NodeResourcesFit checks them.
  if (nodeExtended.claim == nullptr && state.numUserOwned() == 0) return {};

  std::vector<size_t> unavailableClaims;
  for (size_t index = 0; index < state.claims.size(); ++index) {
    const api::ResourceClaim& claim = *state.claims[index];
    // Only allocated claims have a node selector.
    if (const auto& selector = state.informationsForClaim[index].availableOnNodes;
        selector && !selector->match(*node)) {
      unavailableClaims.push_back(index);
      continue;
    }
    if (!claim.status.allocation) continue;
    // An allocated claim whose binding failed or timed out is a candidate for deallocation in PostFilter.
    if (features_.enableDRADeviceBindingConditions && features_.enableDRAResourceClaimDeviceStatus) {
      auto ready = isClaimReadyForBinding(claim);
      if (!ready.ok() || (!*ready && isClaimTimeout(claim))) unavailableClaims.push_back(index);
    }
  }

  std::vector<api::AllocationResult> allocations;
  if (state.allocator) {
    std::vector<ResourceClaimPtr> claimsToAllocate;
    for (size_t index = 0; index < state.claims.size(); ++index) {
      const ResourceClaimPtr& claim = state.claims[index];
      if (claim->status.allocation) continue;
      // This node's variant of the extended-resource claim.
      const bool nodeVariant = state.isExtendedResourceClaim(index) && nodeExtended.claim != nullptr;
      claimsToAllocate.push_back(nodeVariant ? nodeExtended.claim : claim);
    }
    // The scheduler's shutdown cancels the search as upstream's context does.
    const std::stop_token stop = handle_.stopToken();
    std::atomic<bool> cancelled{stop.stop_requested()};
    std::stop_callback onStop(stop, [&cancelled] { cancelled.store(true); });
    dra::structured::AllocateContext allocCtx;
    allocCtx.cancelled = &cancelled;
    if (features_.enableDRASchedulerFilterTimeout && filterTimeout_ > std::chrono::nanoseconds::zero()) {
      allocCtx.deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(filterTimeout_);
    }
    auto a = state.allocator->allocate(*node, claimsToAllocate, allocCtx);
    if (!a.ok() && !cancelled.load() &&
        allocCtx.err() == std::optional<std::string>("context deadline exceeded")) {
      return statusUnschedulable("timed out trying to allocate devices");
    }
    if (cancelled.load())
      return statusUnschedulable("asked by caller to stop allocating devices: context canceled");
    // Not fatal (invalid pools): other nodes may do; surfaced only if all fail.
    if (!a.ok() && a.error().failedOnNode()) return statusUnschedulable(a.error().message());
    // Only a broken claim or class (bad CEL, ...) fails here: an error aborts this pod's scheduling
    // attempt rather than leaving it waiting for an event that fixes the object.
    if (!a.ok()) return Status::fromError(a.error());
    // All or nothing in practice; checked for the exact length anyway.
    if (a->size() != claimsToAllocate.size()) return statusUnschedulable("cannot allocate all claims");
    allocations = std::move(a).value();
  }

  std::lock_guard lock(state.mu);
  if (!unavailableClaims.empty()) {
    state.unavailableClaims.insert(unavailableClaims.begin(), unavailableClaims.end());
    return statusUnschedulable("resourceclaim not available on the node");
  }
  if (state.allocator) {
    state.nodeAllocations[node->metadata.name] = std::move(allocations);
    state.extended.nodeClaims[node->metadata.name] = std::move(nodeExtended);
  }
  return {};
}

Status DynamicResources::postFilter(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                    const framework::NodeToStatus&, framework::PostFilterResult&) {
  // Nothing to deallocate: Unschedulable without a reason, so that the FitError carries only the other
  // PostFilter plugins' reasons (v1.37; v1.34 added "no new claims to deallocate").
  if (!enabled_) return Status(Code::Unschedulable);
  auto stateResult = stateOf(cs);
  if (!stateResult.ok()) return Status::fromError(stateResult.error());
  StateData::Data& state = **stateResult;
  if (state.claims.empty()) return Status(Code::Unschedulable);
  return deallocateOrDeletePodClaims(podInfo.pod(), *cs.read<StateData>());
}

Status DynamicResources::podGroupPostFilter(framework::CycleState& groupState, const framework::PodGroupInfo& group,
                                            const framework::PodGroupSchedulingFunc&,
                                            framework::PodGroupPostFilterResult&) {
  if (!enabled_) return Status(Code::Unschedulable);
  if (const auto* members = groupState.read<framework::PodGroupMemberStates>()) {
    for (const api::PodPtr& pod : group.unscheduledPods) {
      auto it = members->byPod.find(framework::podGroupKey(pod->metadata.namespace_, pod->metadata.name));
      if (it == members->byPod.end() || !it->second) continue;
      auto* state = it->second->read<StateData>();
      if (state == nullptr) continue;  // the member's PreFilter did not run
      if (Status s = deallocateOrDeletePodClaims(*pod, *state); s.code() == Code::Error) return s;
    }
  }
  return Status(Code::Unschedulable, "deallocation and deletion of ResourceClaims completed");
}

Status DynamicResources::deallocateOrDeletePodClaims(const api::Pod& pod, StateData& stateData) {
  StateData::Data& state = *stateData.data;
  // Upstream picks a random unavailable claim (Go map order); this takes the first one that qualifies.
  std::set<size_t> unavailable;
  {
    std::lock_guard lock(state.mu);
    unavailable = state.unavailableClaims;
  }
  // The extended-resource claim from an earlier attempt (one PreBind created) is deleted, not deallocated.
  const ResourceClaimPtr extendedClaim = state.extendedResourceClaim();
  const bool extendedClaimInAPI = extendedClaim && !isSpecialClaimName(extendedClaim->metadata.name);
  for (size_t index : unavailable) {
    if (state.isExtendedResourceClaim(index)) {
      if (extendedClaimInAPI) break;
      continue;
    }
    const api::ResourceClaim& claim = *state.claims[index];
    const auto& reservedFor = claim.status.reservedFor;
    if (reservedFor.empty() || (reservedFor.size() == 1 && reservedFor[0].uid == pod.metadata.uid)) {
      api::ResourceClaim deallocated = claim;
      deallocated.status.reservedFor.clear();
      deallocated.status.allocation.reset();
      deallocated.status.devices.clear();
      auto r = client_->updateResourceClaimStatus(deallocated);
      if (!r.ok()) return Status::error(r.error().message());
      return Status(Code::Unschedulable, "deallocation of ResourceClaim completed");
    }
  }
  if (extendedClaimInAPI) {
    if (auto r = deleteClaim(*extendedClaim); !r.ok()) return Status::error(r.error().message());
    return Status(Code::Unschedulable, "deletion of ResourceClaim completed");
  }
  return Status(Code::Unschedulable);
}

Result<int64_t> computeScore(std::span<const ResourceClaimPtr> claims,
                             std::span<const api::AllocationResult> allocations) {
  // resource.k8s.io FirstAvailableDeviceRequestMaxSize: the first alternative scores 8, the last 1.
  constexpr int64_t kFirstAvailableDeviceRequestMaxSize = 8;
  int64_t score = 0;
  size_t unallocatedIndex = 0;
  for (const auto& claim : claims) {
    // Claims allocated before this cycle carry their allocation; Filter's results follow claim order.
    const api::AllocationResult* allocation = nullptr;
    if (claim->status.allocation) {
      allocation = &*claim->status.allocation;
    } else {
      if (unallocatedIndex >= allocations.size()) {
        return Error("number of allocations " + std::to_string(allocations.size()) +
                     " is smaller than number of claims needing allocation");
      }
      allocation = &allocations[unallocatedIndex++];
    }
    std::set<std::string_view> allocatedSubRequests;
    for (const auto& r : allocation->devices.results) {
      if (r.request.find('/') != std::string::npos) allocatedSubRequests.insert(r.request);
    }
    for (const auto& req : claim->spec.devices.requests) {
      if (req.exactly) continue;
      for (size_t i = 0; i < req.firstAvailable.size(); ++i) {
        if (allocatedSubRequests.count(req.name + "/" + req.firstAvailable[i].name) != 0) {
          score += kFirstAvailableDeviceRequestMaxSize - static_cast<int64_t>(i);
        }
      }
    }
  }
  return score;
}

Status DynamicResources::score(framework::CycleState& cs, const framework::PodInfo&,
                               const framework::NodeInfo& nodeInfo, int64_t& score) {
  score = 0;
  if (!enabled_ || !features_.enableDRAPrioritizedList) return {};
  StateData::Data* data = nullptr;
  const api::Node* node = nullptr;
  if (Status s = claimsOnNode(cs, nodeInfo, data, node); data == nullptr) return s;
  StateData::Data& state = *data;
  // Filter is done with the node; the lock only guards the map against Filter's concurrent inserts.
  std::lock_guard lock(state.mu);
  auto it = state.nodeAllocations.find(node->metadata.name);
  if (it == state.nodeAllocations.end()) return {};
  auto computed = computeScore(state.claims, it->second);
  if (!computed.ok()) return Status::fromError(computed.error());
  score = *computed;
  return {};
}

Status DynamicResources::normalizeScore(framework::CycleState&, const framework::PodInfo&,
                                        framework::NodeScoreList& scores) {
  if (!enabled_) return {};
  return helper::defaultNormalizeScore(framework::kMaxNodeScore, false, scores);
}

Status DynamicResources::reserve(framework::CycleState& cs, const framework::PodInfo&,
                                 const std::string& nodeName) {
  if (!enabled_) return {};
  auto stateResult = stateOf(cs);
  if (!stateResult.ok()) return Status::fromError(stateResult.error());
  StateData::Data& state = **stateResult;
  if (state.claims.empty()) return {};

  // Allocated claims are not reserved here: PreBind adds the pod to reservedFor and finds out then if
  // another pod was faster.
  size_t numClaimsToAllocate = 0;
  for (const auto& claim : state.claims) {
    if (!claim->status.allocation) ++numClaimsToAllocate;
  }
  if (numClaimsToAllocate == 0 || !state.allocator) return {};

  auto it = state.nodeAllocations.find(nodeName);
  if (it == state.nodeAllocations.end() || it->second.empty()) {
    // Only the extended-resource claim is unallocated and the node's device plugins provide it all.
    bool needToAllocateUserClaims = false;
    for (size_t index = 0; index < state.numUserOwned(); ++index) {
      if (!state.claims[index]->status.allocation) needToAllocateUserClaims = true;
    }
    if (!needToAllocateUserClaims) return {};
    // Filter found the node suitable, so this cannot fail.
    return Status::error("claim allocation not found for node");
  }
  const auto& allocations = it->second;
  if (allocations.size() != numClaimsToAllocate) {
    return Status::error("internal error, have " + std::to_string(allocations.size()) + " allocations, " +
                         std::to_string(numClaimsToAllocate) + " claims to allocate, want " +
                         std::to_string(numClaimsToAllocate) + " claims");
  }
  size_t allocIndex = 0;
  for (size_t index = 0; index < state.claims.size(); ++index) {
    const api::ResourceClaim& claim = *state.claims[index];
    if (claim.status.allocation) continue;
    const api::AllocationResult& allocation = allocations[allocIndex++];
    state.informationsForClaim[index].allocation = allocation;
    // The allocation alone would do; the whole claim is useful for the allocator, debugging and tests.
    // The extended-resource claim is this node's variant (same temporary UID).
    const ResourceClaimPtr& nodeVariant =
        state.isExtendedResourceClaim(index) ? state.extended.nodeClaims[nodeName].claim : nullptr;
    auto allocated = std::make_shared<api::ResourceClaim>(nodeVariant ? *nodeVariant : claim);
    auto& finalizers = allocated->metadata.finalizers;
    if (std::find(finalizers.begin(), finalizers.end(), api::kResourceClaimFinalizer) == finalizers.end()) {
      finalizers.emplace_back(api::kResourceClaimFinalizer);
    }
    allocated->status.allocation = allocation;
    if (!draManager_->resourceClaims()
             .signalClaimPendingAllocation(claim.metadata.uid, std::move(allocated))
             .ok()) {
      return Status::error("internal error, couldn't signal allocation for claim " + claim.metadata.name);
    }
  }
  return {};
}

void DynamicResources::unreserve(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                 const std::string&) {
  if (!enabled_) return;
  auto stateResult = stateOf(cs);
  if (!stateResult.ok()) return;
  StateData::Data& state = **stateResult;
  const api::Pod& pod = podInfo.pod();
  // The user's claims; the extended-resource claim is cleaned up below.
  for (size_t index = 0; index < state.numUserOwned(); ++index) {
    const ResourceClaimPtr& claim = state.claims[index];
    // An allocation that was in flight is not any more: the cache goes back to the informer's claim.
    if (draManager_->resourceClaims().removeClaimPendingAllocation(claim->metadata.uid)) {
      draManager_->resourceClaims().assumedClaimRestore(claim->metadata.namespace_, claim->metadata.name);
    }
    if (claim->status.allocation && isReservedForPod(pod, *claim)) {
      // A patch removes just this pod's entry, without needing the latest claim.
      auto r = client_->removeResourceClaimReservation(claim->metadata.namespace_, claim->metadata.name,
                                                       claim->metadata.uid, pod.metadata.uid);
      // The next scheduling attempt gets here again.
      if (!r.ok())
        spdlog::error("unreserve resourceclaim {}: {}", kobj(claim->metadata), r.error().message());
    }
  }
  unreserveExtendedResourceClaim(pod, state.extended, state.extendedResourceClaim());
}

Status DynamicResources::preBindPreFlight(framework::CycleState& cs, const framework::PodInfo&,
                                          const std::string&, framework::PreBindPreFlightResult& result) {
  result.allowParallel = true;
  if (!enabled_) return Status(Code::Skip);
  auto stateResult = stateOf(cs);
  if (!stateResult.ok()) return Status::fromError(stateResult.error());
  if ((*stateResult)->claims.empty()) return Status(Code::Skip);
  return {};
}

Result<ResourceClaimPtr> DynamicResources::bindClaim(StateData& stateData, size_t index, const api::Pod& pod,
                                                     const std::string& nodeName, std::stop_token stop,
                                                     std::vector<std::string>& inFlightWhenBound) {
  StateData::Data& state = *stateData.data;
  const ResourceClaimPtr original = state.claims[index];
  const std::optional<api::AllocationResult>& allocation = state.informationsForClaim[index].allocation;
  const bool isExtendedResourceClaim = state.isExtendedResourceClaim(index);
  // Extended resources all provided by the node's device plugins: no claim.
  if (isExtendedResourceClaim && !allocation && original->spec.devices.requests.empty()) return original;
  auto claim = std::make_shared<api::ResourceClaim>(*original);
  if (isExtendedResourceClaim && isSpecialClaimName(original->metadata.name)) {
    auto created = createExtendedResourceClaimInAPI(pod, nodeName, state.extended);
    if (!created.ok()) return created.error();
    // From now on the cycle tracks the real claim (Unreserve deletes it).
    state.claims[index] = *created;
    claim = std::make_shared<api::ResourceClaim>(**created);
  }

  // Benign concurrent changes cause conflicts: read the claim again and retry (retry.DefaultRetry).
  std::optional<Error> failure;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      auto fresh = client_->getResourceClaim(claim->metadata.namespace_, claim->metadata.name);
      if (!fresh.ok()) {
        failure = Error("get updated claim " + kobj(claim->metadata) +
                        " after conflict: " + fresh.error().message());
        break;
      }
      claim = std::make_shared<api::ResourceClaim>(std::move(fresh).value());
    }
    if (claim->metadata.deletionTimestamp) {
      failure = Error("claim " + kobj(claim->metadata) + " got deleted in the meantime");
      break;
    }
    bool conflict = false;
    if (allocation) {
      if (claim->status.allocation) {
        failure = Error("claim " + kobj(claim->metadata) + " got allocated elsewhere in the meantime");
        break;
      }
      // The finalizer needs a normal update; an interrupted earlier attempt may have set it already.
      auto& finalizers = claim->metadata.finalizers;
      if (std::find(finalizers.begin(), finalizers.end(), api::kResourceClaimFinalizer) == finalizers.end()) {
        finalizers.emplace_back(api::kResourceClaimFinalizer);
        auto updated = client_->updateResourceClaim(*claim);
        if (!updated.ok()) {
          failure =
              Error("add finalizer to claim " + kobj(claim->metadata) + ": " + updated.error().message());
          if (updated.error().isConflict()) continue;
          break;
        }
        claim = std::make_shared<api::ResourceClaim>(std::move(updated).value());
      }
      claim->status.allocation = *allocation;
    }
    // The apiserver refuses (not with a conflict) when the pod cannot be added.
    claim->status.reservedFor.push_back(
        api::ResourceClaimConsumerReference{"", "pods", pod.metadata.name, pod.metadata.uid});
    if (features_.enableDRADeviceBindingConditions && features_.enableDRAResourceClaimDeviceStatus &&
        claim->status.allocation && !claim->status.allocation->allocationTimestamp) {
      claim->status.allocation->allocationTimestamp = handle_.clock().now();
    }
    auto updated = client_->updateResourceClaimStatus(*claim);
    if (!updated.ok()) {
      failure =
          Error((allocation ? "add allocation and reservation to claim " : "add reservation to claim ") +
                kobj(claim->metadata) + ": " + updated.error().message());
      conflict = updated.error().isConflict();
      if (conflict) continue;
      break;
    }
    claim = std::make_shared<api::ResourceClaim>(std::move(updated).value());
    failure.reset();
    break;
  }

  if (allocation) {
    // Allocation by the scheduler is over, successfully or not. Assuming can only fail for benign reasons
    // (a concurrent delete or update).
    if (!failure && isExtendedResourceClaim) {
      // Created just now: the informer may not have it yet.
      waitForExtendedClaimInAssumeCache(claim, stop);
    } else if (!failure) {
      if (auto r = draManager_->resourceClaims().assumeClaimAfterAPICall(claim); !r.ok()) {
        spdlog::debug("claim {} not stored in assume cache: {}", kobj(claim->metadata), r.error().message());
      }
    }
    // Under the in-memory extended-resource claim's temporary UID for that claim.
    inFlightWhenBound.push_back(original->metadata.uid);
  }
  if (failure) return *failure;
  // Where the pod finds its extended resources' claim and requests.
  if (isExtendedResourceClaim) {
    if (auto r = patchPodExtendedResourceClaimStatus(pod, *claim, nodeName, state.extended); !r.ok()) {
      return r.error();
    }
  }
  return ResourceClaimPtr(claim);
}

Result<bool> DynamicResources::isClaimReadyForBinding(const api::ResourceClaim& claim) const {
  if (!claim.status.allocation) return false;
  for (const auto& result : claim.status.allocation->devices.results) {
    if (result.bindingConditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = allocatedDeviceStatus(claim, result);
    if (status == nullptr) return false;
    for (const auto& cond : result.bindingFailureConditions) {
      const api::Condition* failed = findCondition(status->conditions, cond);
      if (failed != nullptr && failed->status == "True") {
        return Error(std::string(kErrDeviceBindingFailed) + ": claim=" + claim.metadata.name +
                     ", reason=" + failed->reason + ", message=" + config::goQuote(failed->message));
      }
    }
    for (const auto& cond : result.bindingConditions) {
      const api::Condition* c = findCondition(status->conditions, cond);
      if (c == nullptr || c->status != "True") return false;
    }
  }
  return true;
}

bool DynamicResources::isClaimTimeout(const api::ResourceClaim& claim) const {
  if (!features_.enableDRADeviceBindingConditions || !features_.enableDRAResourceClaimDeviceStatus)
    return false;
  if (!claim.status.allocation || !claim.status.allocation->allocationTimestamp) return false;
  for (const auto& result : claim.status.allocation->devices.results) {
    if (result.bindingConditions.empty()) continue;
    if (*claim.status.allocation->allocationTimestamp + bindingTimeout_ < handle_.clock().now()) {
      return true;
    }
  }
  return false;
}

Result<bool> DynamicResources::isPodReadyForBinding(StateData& stateData) const {
  StateData::Data& state = *stateData.data;
  for (auto& claim : state.claims) {
    auto latest = draManager_->resourceClaims().get(claim->metadata.namespace_, claim->metadata.name);
    if (!latest.ok()) return latest.error();
    claim = *latest;
    auto ready = isClaimReadyForBinding(*claim);
    if (!ready.ok()) return ready.error();
    if (!*ready) {
      if (isClaimTimeout(*claim)) {
        return Error(std::string(kErrDeviceBindingTimeout) + ": claim=" + claim->metadata.name);
      }
      return false;
    }
  }
  return true;
}

Status DynamicResources::preBind(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                 const std::string& nodeName, std::stop_token stop) {
  std::vector<std::string> inFlightWhenBound;
  Status status = bindClaimsAndWait(cs, podInfo, nodeName, stop, inFlightWhenBound);
  if (status.isSuccess()) {
    for (const auto& uid : inFlightWhenBound) draManager_->resourceClaims().removeClaimPendingAllocation(uid);
  }
  return status;
}

Status DynamicResources::bindClaimsAndWait(framework::CycleState& cs, const framework::PodInfo& podInfo,
                                           const std::string& nodeName, std::stop_token stop,
                                           std::vector<std::string>& inFlightWhenBound) {
  if (!enabled_) return {};
  auto* stateData = cs.read<StateData>();
  if (stateData == nullptr) return Status::error("not found");
  StateData::Data& state = *stateData->data;
  if (state.claims.empty()) return {};
  const api::Pod& pod = podInfo.pod();

  for (size_t index = 0; index < state.claims.size(); ++index) {
    if (isReservedForPod(pod, *state.claims[index])) continue;
    auto claim = bindClaim(*stateData, index, pod, nodeName, stop, inFlightWhenBound);
    if (!claim.ok()) return Status::fromError(claim.error());
    // Unreserve then works with the claim as written.
    state.claims[index] = *claim;
  }

  if (!features_.enableDRADeviceBindingConditions || !features_.enableDRAResourceClaimDeviceStatus) return {};
  if (!hasBindingConditions(state.claims)) return {};

  // Wait until the devices are attached to the node (binding conditions), at most bindingTimeout.
  if (auto* recorder = handle_.eventRecorder()) {
    recorder->eventf(framework::podReference(pod), nullptr, "Normal", "BindingConditionsPending",
                     "Scheduling", "waiting for binding conditions for device on node " + nodeName);
  }
  Clock& clock = handle_.clock();
  const auto start = clock.now();
  const auto deadline = start + bindingTimeout_;
  std::optional<Error> err;
  for (;;) {
    auto ready = isPodReadyForBinding(*stateData);
    if (!ready.ok()) {
      err = ready.error();
      break;
    }
    if (*ready) break;
    if (stop.stop_requested()) {
      err = Error("context canceled");
      break;
    }
    if (clock.now() + kBindingPollInterval > deadline) {
      err = Error(std::string(kErrDeviceBindingTimeout) + ": context deadline exceeded");
      break;
    }
    // Released by the next poll's timer (shared with it: it may fire later) or by the shutdown.
    auto wake = std::make_shared<std::counting_semaphore<>>(0);
    const std::unique_ptr<Timer> timer = clock.afterFunc(kBindingPollInterval, [wake] { wake->release(); });
    const std::stop_callback onStop(stop, [&wake] { wake->release(); });
    wake->acquire();
    timer->stop();
  }
  recordBindingConditionsMetrics(state.claims, bindingConditionsStatusLabel(err),
                                 std::chrono::duration<double>(clock.now() - start).count());
  // The next attempt's PreFilter notices the timeout or failure and recovers.
  if (err) return Status::fromError(*err);
  return {};
}

void DynamicResources::recordBindingConditionsMetrics(const std::vector<ResourceClaimPtr>& claims,
                                                      std::string_view statusLabel, double seconds) const {
  metrics::Metrics* m = handle_.metrics();
  if (m == nullptr) return;
  const std::string& profile = handle_.profileName();
  for (const auto& claim : claims) {
    if (!claim->status.allocation) continue;
    // The wait is observed once per allocated device, the count once per device with binding conditions.
    for (const auto& r : claim->status.allocation->devices.results) {
      m->draBindingConditionsWaitRef(profile, r.driver, statusLabel).observe(seconds);
    }
    for (const auto& r : claim->status.allocation->devices.results) {
      if (!r.bindingConditions.empty())
        m->draBindingConditionsAllocationsRef(profile, r.driver, statusLabel).inc();
    }
  }
}

framework::Status DynamicResources::signPod(const api::Pod& pod,
                                            std::vector<framework::SignFragment>& /*fragments*/) {
  if (!pod.spec.resourceClaims.empty()) {
    return framework::Status(framework::Code::Unschedulable,
                             "pods with dra resource claims are not signable");
  }
  return {};
}

}  // namespace ks::plugins::dynamicresources
