#pragma once
// DefaultDRAManager (upstream dynamicresources/dra_manager.go): the SharedDRAManager over the informers.
// Claims come from an assume cache over the claim informer (PreBind assumes the claims it wrote, so the
// next pods' PreFilter sees their allocation before the informer does), plus a map of in-flight
// allocations (Reserve -> PreBind) so that two pods never get the same device, and the set of allocated
// devices maintained from the cache's events. Slices come from the slice informer with the DeviceTaintRules
// applied (upstream's slice tracker, ListPatchedResourceSlices) while DRADeviceTaintRules is on. Classes come
// from the class informer.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/api/resource.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/dra_manager.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/allocated_devices.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/extended_resource_cache.h"
#include "pkg/scheduler/util/assume_cache.h"

namespace ks::plugins::dynamicresources {

using ClaimAssumeCache = assumecache::AssumeCache<api::ResourceClaim>;

// Upstream tracker.applyPatches: `slice` with each rule's taint appended to the devices its selector picks
// (driver, pool and device name, each when set; a rule without a selector picks none), in the order of
// `rules`. Returns `slice` itself when no rule applies.
framework::ResourceSlicePtr applyDeviceTaintRules(
    const framework::ResourceSlicePtr& slice,
    const std::vector<std::shared_ptr<const api::DeviceTaintRule>>& rules);

class DefaultDRAManager final : public framework::SharedDRAManager,
                                private framework::ResourceClaimTracker,
                                private framework::ResourceSliceLister {
 public:
  // Registers on the factory's claim, slice and class informers (and the DeviceTaintRule one with
  // `enableDeviceTaintRules`, the DRADeviceTaintRules gate, on by default in v1.37); call before the factory
  // starts (the extended-resource cache's class handler then runs before the scheduler's). The factory must
  // outlive the manager. enableExtendedResource (DRAExtendedResource): keep the extended-resource cache.
  DefaultDRAManager(informer::SharedInformerFactory& factory, bool enableConsumableCapacity = false,
                    bool enableDeviceTaintRules = true, bool enableExtendedResource = true);

  framework::ResourceClaimTracker& resourceClaims() override { return *this; }
  const framework::ResourceSliceLister& resourceSlices() const override { return *this; }
  std::shared_ptr<const framework::DeviceClassLister> deviceClasses() const override { return classes_; }
  const framework::DeviceClassResolver* deviceClassResolver() const override {
    return extendedResources_.get();
  }

  // The claims' assume cache: the scheduler takes the ResourceClaim cluster events from it.
  ClaimAssumeCache& claimsCache() { return *claims_; }
  // The in-flight claims (tests).
  std::vector<framework::ResourceClaimPtr> inFlightClaimsForTest() const;

 private:
  // ResourceClaimTracker
  Result<framework::ResourceClaimPtr> get(const std::string& ns, const std::string& name) const override;
  std::vector<framework::ResourceClaimPtr> list() const override;
  Result<std::set<dra::structured::DeviceID>> listAllAllocatedDevices() const override;
  Result<dra::structured::AllocatedState> gatherAllocatedState() const override;
  bool claimHasPendingAllocation(const std::string& claimUid) const override;
  Result<void> signalClaimPendingAllocation(const std::string& claimUid,
                                            framework::ResourceClaimPtr allocatedClaim) override;
  bool removeClaimPendingAllocation(const std::string& claimUid) override;
  Result<void> assumeClaimAfterAPICall(framework::ResourceClaimPtr claim) override;
  void assumedClaimRestore(const std::string& ns, const std::string& name) override;

  // ResourceSliceLister: every slice, each device carrying the taints of the rules that select it.
  Result<std::vector<framework::ResourceSlicePtr>> listWithDeviceTaintRules() const override;

  const bool enableConsumableCapacity_;
  std::unique_ptr<ClaimAssumeCache> claims_;
  std::unique_ptr<AllocatedDevices> allocatedDevices_;
  informer::SharedInformer<api::ResourceSlice>& slices_;
  informer::SharedInformer<api::DeviceTaintRule>* taintRules_ = nullptr;  // null: DRADeviceTaintRules off
  std::shared_ptr<const framework::DeviceClassLister> classes_;
  std::unique_ptr<ExtendedResourceCache> extendedResources_;  // null without DRAExtendedResource

  // Claims allocated in Reserve whose allocation PreBind has not written yet, by claim UID. While a
  // claim is here, another pod using it waits (PreFilter): otherwise that pod's PreBind could find the
  // claim unallocated, or a failed PreBind of the first pod could drop an allocation the second relies on.
  mutable std::mutex inFlightMu_;
  std::map<std::string, framework::ResourceClaimPtr> inFlight_;
};

}  // namespace ks::plugins::dynamicresources
