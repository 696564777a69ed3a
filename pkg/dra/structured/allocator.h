#pragma once
// pkg/dra/structured: DRA's structured-parameters allocator, i.e. which devices from which ResourceSlices
// a pod's unallocated ResourceClaims get on a given node.
//
// A port of k8s.io/dynamic-resource-allocation/structured v0.34.4, the *experimental* implementation
// (structured/internal/experimental): with kube-scheduler v1.34's default feature gates
// (DRAResourceClaimDeviceStatus on) upstream's NewAllocator picks that one, since it is the only
// implementation that lists DeviceStatus. It is an exhaustive depth-first search that takes the first
// solution: claims in order, requests in order, for each wanted device the pools' devices in order, with
// backtracking; prioritized lists try their subrequests in order. Every feature the experimental
// implementation knows is carried in Features and can be switched: AdminAccess, PrioritizedList,
// PartitionableDevices (shared counters), DeviceTaints (tolerations), DeviceBinding (binding conditions,
// needs DeviceStatus too) and ConsumableCapacity (multi-allocatable devices).
//
// Upstream quirks kept on purpose, because they change results: the distinct-attribute constraint only
// rejects the very same device attribute (Go compares value pointers); a capacity check inside
// allocateDevice looks at the slice's device at the request's device index, and when it fails leaves that
// device's constraint and in-use bookkeeping behind; prioritized subrequests in
// "All" mode reuse the previous subrequest's selector cache while being validated; available counters are
// cached per slice name for the allocator's lifetime.
//
// Deviations: pools are searched in the order their first slice appears in the slice list (upstream ranges
// over a Go map, so its order is random); where upstream would panic, this does not: a capacity check that
// indexes past the slice's devices makes the device unusable, a request with neither exactly nor
// firstAvailable is reported as missing its device class; errors that print a Go struct (an unparsable
// node selector) print a similar but not identical text; no logging. (That capacity check does panic
// upstream when ConsumableCapacity is on and a request's n-th device comes from a slice with fewer than n
// devices; about one in five of the differential test's random problems hit it.) With ConsumableCapacity off,
// upstream's CEL environment lacks device.allowMultipleAllocations, so such selectors fail to compile there;
// ks::cel always declares it.
//
// Tests: test/dra/structured runs upstream's whole shared test table (allocatortesting, 151 cases),
// evaluated from the Go source into allocator_cases.json by test/dra/structured/gen/gen_cases.py, and 400
// random problems whose answers (results or error texts) come from running upstream's Go allocator.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
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

// Allocates claims on one node at a time. Built once per scheduling cycle from the cluster state; allocate()
// may then run concurrently for different nodes (Filter runs nodes in parallel).
class Allocator {
 public:
  Allocator(Features features, AllocatedState allocatedState,
            std::shared_ptr<const DeviceClassLister> classLister, std::vector<ResourceSlicePtr> slices,
            std::shared_ptr<cel::Cache> celCache);

  // One allocation result per claim, in the order of `claims`, when all of them fit on `node`; an empty
  // vector when they do not (including when a pool is being updated); an error when the inputs are broken
  // (bad CEL, unknown class, too many devices, ...) or `ctx` is cancelled / past its deadline
  // ("filter operation aborted: context deadline exceeded"). `node` may be null (only slices for all nodes
  // apply then). The claims and slices are not modified. Thread-safe.
  Result<std::vector<api::AllocationResult>> allocate(const api::Node* node,
                                                      const std::vector<ResourceClaimPtr>& claims,
                                                      const AllocateContext& ctx = {}) const;
  Result<std::vector<api::AllocationResult>> allocate(const api::Node& node,
                                                      const std::vector<ResourceClaimPtr>& claims,
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
  AllocatedState allocatedState_;
  std::shared_ptr<const DeviceClassLister> classLister_;
  std::vector<ResourceSlicePtr> slices_;
  std::shared_ptr<cel::Cache> celCache_;

  // By slice name, filled on first use and never changed afterwards (the inputs are fixed).
  mutable std::shared_mutex countersMutex_;
  mutable std::map<std::string, std::shared_ptr<const CounterSets>> availableCounters_;
  mutable std::atomic<int64_t> numAllocateOneInvocations_{0};
};

}  // namespace ks::dra::structured
