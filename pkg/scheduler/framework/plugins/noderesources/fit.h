#pragma once
// NodeResourcesFit (upstream plugins/noderesources/fit.go, v1.34): a pod fits a node when the node has room
// for one more pod and, for every resource the pod requests (cpu, memory, ephemeral-storage, hugepages-*,
// extended resources), allocatable - requested >= the pod's request. A request larger than the node's
// whole allocatable makes the rejection UnschedulableAndUnresolvable (preemption can't help).
// Scores feasible nodes with the configured strategy (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) over the configured resources; with DRAExtendedResource (v1.37), a scored
// extended resource that a DeviceClass backs is counted from the node's devices (dra_scoring.h).

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/dra_manager.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/noderesources/features.h"
#include "pkg/scheduler/framework/plugins/noderesources/resource_allocation.h"
#include "pkg/util/result.h"

namespace ks::plugins::noderesources {

// Why a pod doesn't fit a node, per resource (upstream InsufficientResource).
struct InsufficientResource {
  std::string resourceName;
  std::string reason;  // "Too many pods", "Insufficient cpu", "Insufficient example.com/gpu", ...
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The request exceeds the node's allocatable: no preemption can make room.
  bool unresolvable = false;
  bool operator==(const InsufficientResource&) const = default;
};

inline constexpr std::string_view kReasonTooManyPods = "Too many pods";
inline constexpr std::string_view kReasonInsufficientCPU = "Insufficient cpu";
inline constexpr std::string_view kReasonInsufficientMemory = "Insufficient memory";
inline constexpr std::string_view kReasonInsufficientEphemeralStorage = "Insufficient ephemeral-storage";
inline constexpr std::string_view kReasonSidecarsDisabled =
    "Pod has a restartable init container and the SidecarContainers feature is disabled";

struct ResourceRequestsOptions {
  bool enablePodLevelResources = true;
  bool enableDRAExtendedResource = false;
};

// resource.PodRequests with zero options (as the DRA extended-resource code calls it): the spec only, no
// status resources.
api::ResourceList podRequestsSpecOnly(const api::Pod& pod);

// Whether NodeResourcesFit leaves `resourceName` to DynamicResources (upstream
// shouldDelegateResourceToDRA): DRAExtendedResource is on, the node (when given) has none of it in its
// allocatable, and `deviceClasses` (the SharedDRAManager's resolver; null maps nothing) maps it to a class.
bool shouldDelegateResourceToDRA(std::string_view resourceName, const framework::NodeInfo* nodeInfo,
                                 const framework::DeviceClassResolver* deviceClasses,
                                 const ResourceRequestsOptions& opts);

// v1helper.IsExtendedResourceName: not native (no '/' or a "kubernetes.io/" name), not "requests.*", and
// "requests.<name>" is a qualified name.
bool isExtendedResourceName(std::string_view name);

// The pod's request as NodeResourcesFit checks it: PodRequests (max of init containers, sidecars
// accumulated, overhead, pod-level resources when enabled) as a Resource (upstream
// computePodResourceRequest).
framework::Resource computePodResourceRequest(const api::Pod& pod, const ResourceRequestsOptions& opts);

// A scalar resource the pod requests (non-zero and not ignored), checked in Filter.
struct ScalarRequest {
  std::string name;
  int64_t quantity = 0;
};

// PreFilter's result: the pod's request and the scalar requests Filter must check. Immutable.
class PreFilterState final : public framework::StateData {
 public:
  PreFilterState(framework::Resource request, std::vector<ScalarRequest> scalars)
      : request_(std::move(request)), scalars_(std::move(scalars)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  const framework::Resource& request() const { return request_; }
  const std::vector<ScalarRequest>& scalars() const { return scalars_; }

 private:
  framework::Resource request_;
  std::vector<ScalarRequest> scalars_;
};

// The scalar requests of `request` to check: non-zero, and extended ones not in ignoredResources nor in a
// group (the part before '/') of ignoredResourceGroups.
std::vector<ScalarRequest> checkedScalarRequests(
    const framework::Resource& request, const std::set<std::string, std::less<>>& ignoredResources,
    const std::set<std::string, std::less<>>& ignoredResourceGroups);

// SignPod of NodeResourcesFit and BalancedAllocation: the pod's request as the resources fragment;
// Unschedulable (not signable) when a requested extended resource is left to DRA on some node.
framework::Status signPodResources(const api::Pod& pod, const ResourceRequestsOptions& opts,
                                   const framework::DeviceClassResolver* deviceClasses,
                                   std::vector<framework::SignFragment>& fragments);

// Everything that doesn't fit, in upstream order: pods, cpu, memory, ephemeral-storage, scalars by name.
// Scalars shouldDelegateResourceToDRA gives to DynamicResources are not checked.
std::vector<InsufficientResource> fitsRequest(const PreFilterState& podRequest,
                                              const framework::NodeInfo& nodeInfo,
                                              const framework::DeviceClassResolver* deviceClasses = nullptr,
                                              const ResourceRequestsOptions& opts = {});

// Fits with nothing ignored (upstream Fits).
std::vector<InsufficientResource> fits(const api::Pod& pod, const framework::NodeInfo& nodeInfo,
                                       const ResourceRequestsOptions& opts,
                                       const framework::DeviceClassResolver* deviceClasses = nullptr);

// Whether the pod fits an empty node `node`; false for a null node (upstream isFit).
bool isFit(const api::Pod& pod, const api::Node* node, const ResourceRequestsOptions& opts,
           const framework::DeviceClassResolver* deviceClasses = nullptr);

// Whether the update raised the allowed pod number or the allocatable of any resource the pod requests
// (or a requested resource is left to DRA on the modified node).
bool haveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& originalNode,
                                        const api::Node& modifiedNode, const ResourceRequestsOptions& opts,
                                        const framework::DeviceClassResolver* deviceClasses = nullptr);

// The pod's per-resource scoring requests and the cycle's DRA data (DRAExtendedResource; null when DRA
// backs none of the scored resources), computed in PreScore. Also BalancedAllocation's.
class ScoringPreScoreState : public framework::StateData {
 public:
  ScoringPreScoreState(std::vector<int64_t> podRequests, std::shared_ptr<const DRAPreScoreState> dra)
      : podRequests_(std::move(podRequests)), dra_(std::move(dra)) {}
  const std::vector<int64_t>& podRequests() const { return podRequests_; }
  const DRAPreScoreState* dra() const { return dra_.get(); }

 private:
  std::vector<int64_t> podRequests_;
  std::shared_ptr<const DRAPreScoreState> dra_;
};

class PreScoreState final : public ScoringPreScoreState {
 public:
  using ScoringPreScoreState::ScoringPreScoreState;
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// Score with the state PreScore wrote (type S), or, when PreScore didn't run, with the pod's requests and
// the DRA data gathered here (upstream's Score fallbacks). `skipBestEffort`: a pod requesting none of the
// scored resources scores 0 (BalancedAllocation).
template <class S>
framework::Status scoreWithPreScoreState(const ResourceAllocationScorer& scorer, framework::CycleState& state,
                                         const api::Pod& pod, const framework::NodeInfo& nodeInfo,
                                         bool skipBestEffort, int64_t& score) {
  score = 0;
  if (const auto* s = state.read<S>(); s != nullptr) {
    return scorer.score(nodeInfo, s->podRequests(), s->dra(), score);
  }
  const std::vector<int64_t> requests = scorer.podRequests(pod);
  if (skipBestEffort && ResourceAllocationScorer::isBestEffortPod(requests)) return framework::Status();
  auto dra = scorer.draPreScoreState();
  if (!dra.ok()) return framework::Status::error(dra.error().message());
  return scorer.score(nodeInfo, requests, dra->get(), score);
}

class Fit final : public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin,
                  public framework::EnqueueExtensions,
                  public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeResourcesFit";

  // Validates args with config::validateNodeResourcesFitArgs (as upstream NewFit); nullptr args means
  // the defaults. Errors carry the aggregated field errors.
  // `deviceClasses`: the SharedDRAManager's extended-resource resolver (DRAExtendedResource), may be null.
  // `draManager`: where scoring reads DRA-backed extended resources (DRAExtendedResource), may be null.
  static Result<std::unique_ptr<Fit>> create(const config::NodeResourcesFitArgs& args,
                                             const Features& features = {},
                                             const framework::DeviceClassResolver* deviceClasses = nullptr,
                                             framework::SharedDRAManager* draManager = nullptr);
  // The registry factory; takes the resolver from Handle::sharedDRAManager().
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle,
                                                           const Features& features = {});

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the request computePodResourceRequest gives; Unschedulable
  // (not signable) when a requested extended resource is mapped to a DeviceClass.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Stores the pod's request; UnschedulableAndUnresolvable when the pod has sidecars and they are disabled.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // Unschedulable (or UnschedulableAndUnresolvable) with one reason per insufficient resource; Error when
  // PreFilter didn't run. Allocates nothing when the pod fits.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Stores the pod's requests and, with DRAExtendedResource and a scored resource backed by a DeviceClass,
  // the cycle's DRA data; Error when that can't be gathered.
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // The strategy's score; computes the pod's requests (and DRA data) itself when PreScore didn't run.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }

  // AssignedPod Delete, Node Add | UpdateNodeAllocatable (plus UpdateNodeTaint | UpdateNodeLabel without
  // queueing hints), with DRAExtendedResource DeviceClass Add | Update and, with in-place resize,
  // AssignedPod and TargetPod UpdatePodScaleDown (upstream v1.37; the alpha scale-up ones are not
  // registered).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when the deleted pod was scheduled or nominated.
  Result<framework::QueueingHint> isSchedulableAfterAssignedPodDelete(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Always Queue: the pod itself asks for less now.
  Result<framework::QueueingHint> isSchedulableAfterTargetPodScaleDown(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Queue when a scheduled pod scaled down a resource the pod requests.
  Result<framework::QueueingHint> isSchedulableAfterAssignedPodScaleDown(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;
  // Queue when a node was added that fits the pod, or updated so that it fits and a resource the pod
  // requests (or the pod count) increased.
  Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                               const framework::EventObject& oldObj,
                                                               const framework::EventObject& newObj) const;

  // Queue when an added class's implicit name, or an added or changed explicit extendedResourceName, is
  // a resource the pod requests.
  Result<framework::QueueingHint> isSchedulableAfterDeviceClassEvent(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;

  const ResourceAllocationScorer& scorer() const { return scorer_; }

 private:
  Fit(const config::NodeResourcesFitArgs& args, const Features& features, ResourceAllocationScorer scorer,
      const framework::DeviceClassResolver* deviceClasses);
  ResourceRequestsOptions requestsOptions() const {
    return {features_.enablePodLevelResources, features_.enableDRAExtendedResource};
  }
  bool haveEnoughRelevantResourcesDecreased(const api::Pod& targetPod, const api::Pod& originalPod,
                                            const api::Pod& modifiedPod) const;

  std::set<std::string, std::less<>> ignoredResources_;
  std::set<std::string, std::less<>> ignoredResourceGroups_;
  Features features_;
  ResourceAllocationScorer scorer_;
  const framework::DeviceClassResolver* deviceClasses_ = nullptr;  // null without DRAExtendedResource
};

}  // namespace ks::plugins::noderesources
