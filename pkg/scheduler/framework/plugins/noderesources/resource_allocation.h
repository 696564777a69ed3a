#pragma once
// The scoring core shared by NodeResourcesFit (LeastAllocated, MostAllocated, RequestedToCapacityRatio)
// and NodeResourcesBalancedAllocation (upstream resource_allocation.go, least_allocated.go,
// most_allocated.go, requested_to_capacity_ratio.go, balanced_allocation.go's scorer; v1.37).
//
// For every configured resource i the scorer takes the node's allocatable_i, what is already allocated_i
// on it and requested_i = allocated_i + the pod's request, skipping resources the node doesn't have
// (allocatable 0) and scalar resources the pod doesn't request, and combines them into a node score in
// [0, MaxNodeScore]. Only BalancedAllocation reads allocated: it scores the change the pod makes.
//
// With DRAExtendedResource, a scalar resource the node does not advertise and a DeviceClass backs is
// counted from DRA instead: allocatable = the node's devices that match the class, allocated = those of
// them already in use (upstream calculateDRAExtendedResourceAllocatableRequest). The slices and the
// allocated devices are gathered once per cycle in PreScore (DRAPreScoreState).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/dra/cel/compile.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/dra_manager.h"
#include "pkg/scheduler/framework/plugins/noderesources/dra_scoring.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::plugins::noderesources {

// config.MaxCustomPriorityScore: the top of the RequestedToCapacityRatio shape's score range.
inline constexpr int64_t kMaxCustomPriorityScore = 10;
// The utilization (in percent) the RequestedToCapacityRatio shape is evaluated at for a full node.
inline constexpr int64_t kMaxUtilization = 100;

enum class ScoringStrategyType : uint8_t {
  LeastAllocated,
  MostAllocated,
  RequestedToCapacityRatio,
  Balanced
};

// ((capacity - requested) * MaxNodeScore) / capacity; 0 when capacity is 0 or requested exceeds it.
int64_t leastRequestedScore(int64_t requested, int64_t capacity);
// (min(requested, capacity) * MaxNodeScore) / capacity; 0 when capacity is 0.
int64_t mostRequestedScore(int64_t requested, int64_t capacity);
// The balance of a node's usage: fractions used/allocatable (capped at 1) of the resources with
// allocatable > 0; (1 - std) * MaxNodeScore, std = |f0 - f1| / 2 for two, the population standard
// deviation for more, 0 otherwise. In [MaxNodeScore/2, MaxNodeScore] (upstream balancedResourceScore).
int64_t balancedResourceScore(std::span<const int64_t> used, std::span<const int64_t> allocatable);
// BalancedAllocation's score: the change in balance the pod makes, MaxNodeScore/2 + (MaxNodeScore/2 +
// S(requested) - S(allocated)) / 2 in integers, so 75 for no change, towards 100 for a node the pod
// balances and towards 50 for one it unbalances (upstream balancedResourceScorer).
int64_t balancedResourceScorer(std::span<const int64_t> requested, std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable);

// A configured resource with its name classified once (no string compares in Score).
struct ScoredResource {
  enum class Kind : uint8_t { CPU, Memory, EphemeralStorage, Other };
  std::string name;
  int64_t weight = 1;
  Kind kind = Kind::Other;
  bool scalar = false;  // framework::isScalarResourceName(name)
};

class ResourceAllocationScorer {
 public:
  struct Options {
    // Requested (BalancedAllocation) or non-zero requested (Fit) cpu/memory of the node and the pod.
    bool useRequested = false;
    // PodRequests options for the incoming pod.
    bool useStatusResources = false;
    bool inPlacePodLevelResourcesVerticalScaling = false;
    bool skipPodLevelResources = true;
  };

  // `shape` is only used by RequestedToCapacityRatio (points with scores already scaled to MaxNodeScore).
  ResourceAllocationScorer(std::string name, ScoringStrategyType type,
                           const std::vector<config::ResourceSpec>& resources, Options options,
                           helper::FunctionShape shape = {});

  // DRAExtendedResource: score extended resources backed by a DeviceClass from DRA. Both may be null
  // (nothing is backed by DRA then).
  void enableDRAExtendedResource(framework::SharedDRAManager* draManager,
                                 const framework::DeviceClassResolver* deviceClasses);
  // The cycle's DRA data (null when DRA backs no configured resource or DRAExtendedResource is off); see
  // DRAPreScoreState::gather.
  Result<std::shared_ptr<const DRAPreScoreState>> draPreScoreState() const;

  const std::string& name() const { return name_; }
  const std::vector<ScoredResource>& resources() const { return resources_; }

  // The pod's request for each configured resource, in order (upstream calculatePodResourceRequestList):
  // cpu in millicores, others in units; with !useRequested a container without cpu/memory requests counts
  // as 100m / 200Mi.
  std::vector<int64_t> podRequests(const api::Pod& pod) const;
  static bool isBestEffortPod(std::span<const int64_t> podRequests);

  // (allocatable, allocated) of resource i on the node, without the pod; (0, 0) when the node doesn't have
  // the resource (upstream calculateResourceAllocatableRequest). A scalar resource with no allocatable on
  // the node is taken from `dra` when that has devices for it.
  std::pair<int64_t, int64_t> allocatableRequest(const framework::NodeInfo& nodeInfo, std::size_t i,
                                                 const DRAPreScoreState* dra = nullptr) const;

  // Fills requested (allocated + the pod's request), allocated and allocatable per configured resource,
  // leaving 0 for a scalar resource the pod doesn't request and for a resource the node doesn't have
  // (upstream calculateNodeAllocatableRequest). The spans are resources().size() long and zeroed.
  void nodeAllocatableRequest(const framework::NodeInfo& nodeInfo, std::span<const int64_t> podRequests,
                              const DRAPreScoreState* dra, std::span<int64_t> requested,
                              std::span<int64_t> allocated, std::span<int64_t> allocatable) const;

  // The node's score; Error "resources not found" when no resource is configured. Allocates nothing for
  // up to 16 configured resources and no DRA-backed one.
  framework::Status score(const framework::NodeInfo& nodeInfo, std::span<const int64_t> podRequests,
                          const DRAPreScoreState* dra, int64_t& out) const;

  // The strategy's combination of per-resource (requested, allocated, allocatable), with 0 allocatable
  // meaning "skip".
  int64_t combine(std::span<const int64_t> requested, std::span<const int64_t> allocated,
                  std::span<const int64_t> allocatable) const;

 private:
  std::string name_;
  ScoringStrategyType type_;
  std::vector<ScoredResource> resources_;
  Options options_;
  helper::BrokenLinearFunction shape_;
  // DRAExtendedResource (enableDRAExtendedResource); the caches are shared by the scorer's copies.
  bool enableDRAExtendedResource_ = false;
  framework::SharedDRAManager* draManager_ = nullptr;
  const framework::DeviceClassResolver* deviceClasses_ = nullptr;
  std::vector<std::string> resourceNames_;
  std::shared_ptr<cel::Cache> celCache_;
  std::shared_ptr<DeviceClassMatchCache> matchCache_;
};

}  // namespace ks::plugins::noderesources
