#pragma once
// pkg/dra/structured: DRA's structured-parameters allocator, i.e. which devices from which ResourceSlices
// a pod's unallocated ResourceClaims get on a given node.
//
// A port of k8s.io/dynamic-resource-allocation/structured v0.37.2, the *incubating* implementation
// (structured/internal/incubating): with kube-scheduler v1.37's default feature gates upstream's
// NewAllocator picks that one (the first whose supported features cover the enabled ones; stable lacks
// ConsumableCapacity, DeviceBindingAndStatus and FractionalCapacityRange, which are on by default). It is
// an exhaustive depth-first search that takes the first solution: claims in order, requests in order, for
// each wanted device the pools' devices in order (pools sorted by driver and pool name, those with binding
// conditions last; slices by name), with backtracking; the devices of one request are tried as combinations,
// not permutations; prioritized lists try their subrequests in order. Every feature the incubating
// implementation knows is carried in Features and can be switched: AdminAccess, PrioritizedList,
// PartitionableDevices (shared counters, possibly in other slices of the pool), DeviceTaints (tolerations),
// DeviceBindingAndStatus (binding conditions), ConsumableCapacity (multi-allocatable devices) and
// FractionalCapacityRange. A feature set beyond that (upstream's experimental-only CompatibilityGroups,
// DerivedAttributes, ListTypeAttributes, OptionalNodeOperations) makes every allocate() fail with upstream's
// "no allocator available for feature set ..." error.
//
// Upstream quirks kept on purpose, because they change results: in "All" mode a device's remaining
// capacity is only checked when it is allocated, so a capacity-blocked device makes the request fail;
// available counters are cached per pool for the allocator's lifetime. The v0.34 quirks (distinct
// attributes compared by pointer, the capacity check at the request's device index, the subrequest
// selector cache key) are fixed upstream and here.
//
// Deviations: where upstream would panic, this does not (a null node is a node without name or labels;
// a request with neither exactly nor firstAvailable is reported as missing its device class); errors that
// print a Go struct (an unparsable node selector) print a similar but not identical text; no logging.
// With ConsumableCapacity off, upstream's CEL environment lacks device.allowMultipleAllocations, so such
// selectors fail to compile there; ks::cel always declares it. The model has no derivedAttributes on
// requests and no list-typed attribute values, so upstream's handling of those with the features off
// (reject such requests; list values that match no constraint) cannot arise.
//
// Tests: test/dra/structured runs upstream's shared test tables (allocatortesting, the allocator and
// lexicographical tables), evaluated from the Go source into allocator_cases.json by
// test/dra/structured/gen/gen_cases.py, and 400 random problems whose answers (results or error texts)
// come from running upstream's incubating Go allocator.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/resource.h"
#include "pkg/dra/cel/compile.h"
#include "pkg/dra/structured/pools.h"
#include "pkg/dra/structured/types.h"
#include "pkg/util/result.h"

namespace ks::dra::structured {

// resourceapi.AllocationResultsMaxSize: at most this many devices per claim.
inline constexpr int64_t kAllocationResultsMaxSize = 32;

using ResourceClaimPtr = std::shared_ptr<const api::ResourceClaim>;

// The device as CEL selectors see it: driver, allowMultipleAllocations, attributes and capacities.
cel::Device celDevice(const api::Device& device, const std::string& driver);

// An allocate() error. failedOnNode(): the error concerns only this node's view of the cluster (invalid
// resource pools), so the scheduler treats it as the node being unschedulable, not as a broken claim
// (upstream's errors wrapping ErrFailedAllocationOnNode).
class AllocationError : public Error {
 public:
  explicit AllocationError(Error error, bool failedOnNode = false)
      : Error(std::move(error)), failedOnNode_(failedOnNode) {}
  bool failedOnNode() const { return failedOnNode_; }

 private:
  bool failedOnNode_;
};

using AllocateResult = Result<std::vector<api::AllocationResult>, AllocationError>;

// Allocates claims on one node at a time. Built once per scheduling cycle from the cluster state; allocate()
// may then run concurrently for different nodes (Filter runs nodes in parallel).
class Allocator {
 public:
  Allocator(Features features, AllocatedState allocatedState,
            std::shared_ptr<const DeviceClassLister> classLister, std::vector<ResourceSlicePtr> slices,
            std::shared_ptr<cel::Cache> celCache);

  // The features upstream's incubating allocator supports; others are refused.
  static Features supportedFeatures();

  // One allocation result per claim, in the order of `claims`, when all of them fit on `node`; an empty
  // vector when they do not (including when a pool is being updated); an error when the inputs are broken
  // (bad CEL, unknown class, too many devices, unsupported features, ...), when no device fits and some
  // pool is invalid (failedOnNode()), or when `ctx` is cancelled / past its deadline ("filter operation
  // aborted: context deadline exceeded"). `node` may be null (only slices for all nodes apply then). The
  // claims and slices are not modified. Thread-safe.
  AllocateResult allocate(const api::Node* node, const std::vector<ResourceClaimPtr>& claims,
                          const AllocateContext& ctx = {}) const;
  AllocateResult allocate(const api::Node& node, const std::vector<ResourceClaimPtr>& claims,
                          const AllocateContext& ctx = {}) const {
    return allocate(&node, claims, ctx);
  }

  // Work done so far by all allocate() calls.
  Stats stats() const;

  const Features& features() const { return features_; }

 private:
  friend class AllocationRun;
  // Counters still available per counter set, after what allocated claims consume.
  using CounterSets = std::map<std::string, std::map<std::string, api::Quantity>>;

  Features features_;
  std::optional<Error> unsupported_;  // set when features_ is beyond supportedFeatures()
  AllocatedState allocatedState_;
  std::shared_ptr<const DeviceClassLister> classLister_;
  std::vector<ResourceSlicePtr> allSlices_;
  std::map<std::string, std::vector<ResourceSlicePtr>, std::less<>> slicesOnNode_;  // by spec.nodeName
  std::vector<ResourceSlicePtr> slicesShared_;  // slices without spec.nodeName
  std::shared_ptr<cel::Cache> celCache_;

  // By pool, filled on first use and never changed afterwards (the inputs are fixed).
  mutable std::shared_mutex countersMutex_;
  mutable std::map<PoolID, std::shared_ptr<const CounterSets>> availableCounters_;
  mutable std::atomic<int64_t> numAllocateOneInvocations_{0};
};

}  // namespace ks::dra::structured
