#pragma once
// NodeResourcesFit (upstream plugins/noderesources/fit.go, v1.34): a pod fits a node when the node has room
// for one more pod and, for every resource the pod requests (cpu, memory, ephemeral-storage, hugepages-*,
// extended resources), allocatable - requested >= the pod's request. A request larger than the node's
// whole allocatable makes the rejection UnschedulableAndUnresolvable (preemption can't help).
// Scores feasible nodes with the configured strategy (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) over the configured resources.

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
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
};

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

// Everything that doesn't fit, in upstream order: pods, cpu, memory, ephemeral-storage, scalars by name.
std::vector<InsufficientResource> fitsRequest(const PreFilterState& podRequest,
                                              const framework::NodeInfo& nodeInfo);

// Fits with nothing ignored (upstream Fits).
std::vector<InsufficientResource> fits(const api::Pod& pod, const framework::NodeInfo& nodeInfo,
                                       const ResourceRequestsOptions& opts);

// Whether the pod fits an empty node `node`; false for a null node (upstream isFit).
bool isFit(const api::Pod& pod, const api::Node* node, const ResourceRequestsOptions& opts);

// Whether the update raised the allowed pod number or the allocatable of any resource the pod requests.
bool haveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& originalNode,
                                        const api::Node& modifiedNode, const ResourceRequestsOptions& opts);

// The pod's per-resource scoring requests, computed in PreScore.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::vector<int64_t> podRequests) : podRequests_(std::move(podRequests)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
  const std::vector<int64_t>& podRequests() const { return podRequests_; }

 private:
  std::vector<int64_t> podRequests_;
};

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
  static Result<std::unique_ptr<Fit>> create(const config::NodeResourcesFitArgs& args,
                                             const Features& features = {});
  // The registry factory (v1.34 default feature gates).
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the request computePodResourceRequest gives.
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

  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // The strategy's score; computes the pod's requests itself when PreScore didn't run.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }

  // AssignedPod Delete, Node Add | UpdateNodeAllocatable (plus UpdateNodeTaint | UpdateNodeLabel without
  // queueing hints) and, with in-place resize, AssignedPod and TargetPod UpdatePodScaleDown (upstream v1.37;
  // DRAExtendedResource's DeviceClass events and the alpha scale-up ones are not registered).
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

  const ResourceAllocationScorer& scorer() const { return scorer_; }

 private:
  Fit(const config::NodeResourcesFitArgs& args, const Features& features, ResourceAllocationScorer scorer);
  bool haveEnoughRelevantResourcesDecreased(const api::Pod& targetPod, const api::Pod& originalPod,
                                            const api::Pod& modifiedPod) const;

  std::set<std::string, std::less<>> ignoredResources_;
  std::set<std::string, std::less<>> ignoredResourceGroups_;
  Features features_;
  ResourceAllocationScorer scorer_;
};

}  // namespace ks::plugins::noderesources
