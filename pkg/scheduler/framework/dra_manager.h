#pragma once
// What the DynamicResources plugin reads and tracks of the DRA objects (upstream framework/listers.go
// SharedDRAManager, ResourceClaimTracker, ResourceSliceLister, DeviceClassLister). The scheduler creates
// one manager (pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h) shared by all profiles and
// hands it to plugins through Handle::sharedDRAManager(); another implementation could simulate the
// objects (upstream's Cluster Autoscaler does). All methods are thread-safe.

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/resource.h"
#include "pkg/dra/structured/types.h"
#include "pkg/util/result.h"

namespace ks::framework {

using ResourceClaimPtr = std::shared_ptr<const api::ResourceClaim>;
using ResourceSlicePtr = std::shared_ptr<const api::ResourceSlice>;

// The claims as the informer delivered them, plus what the scheduler assumed or has in flight.
class ResourceClaimTracker {
 public:
  virtual ~ResourceClaimTracker() = default;
  // The claim (assumed version if any); an error when there is none.
  virtual Result<ResourceClaimPtr> get(const std::string& ns, const std::string& name) const = 0;
  virtual std::vector<ResourceClaimPtr> list() const = 0;
  // Devices allocated to claims, by the API or in flight. Fails with kConcurrentModification when the
  // set changed while it was gathered (try again).
  virtual Result<std::set<dra::structured::DeviceID>> listAllAllocatedDevices() const = 0;
  // As above, with shares and consumed capacity (DRAConsumableCapacity).
  virtual Result<dra::structured::AllocatedState> gatherAllocatedState() const = 0;
  // Whether Reserve allocated the claim and PreBind has not written the allocation yet.
  virtual bool claimHasPendingAllocation(const std::string& claimUid) const = 0;
  // Records the claim with its allocation as in flight (Reserve).
  virtual Result<void> signalClaimPendingAllocation(const std::string& claimUid,
                                                    ResourceClaimPtr allocatedClaim) = 0;
  // Forgets the in-flight allocation; true when there was one.
  virtual bool removeClaimPendingAllocation(const std::string& claimUid) = 0;
  // The claim as the API returned it after a write in PreBind: seen by get()/list() until the informer
  // catches up.
  virtual Result<void> assumeClaimAfterAPICall(ResourceClaimPtr claim) = 0;
  // Drops an assumption: the informer's version is seen again.
  virtual void assumedClaimRestore(const std::string& ns, const std::string& name) = 0;
};

// The error text of a gather that must be retried.
inline constexpr std::string_view kConcurrentModification = "conflicting concurrent modification";

class ResourceSliceLister {
 public:
  virtual ~ResourceSliceLister() = default;
  // All slices, with DeviceTaintRules applied (there are none without the DRADeviceTaints gate).
  virtual Result<std::vector<ResourceSlicePtr>> listWithDeviceTaintRules() const = 0;
};

class DeviceClassLister : public dra::structured::DeviceClassLister {
 public:
  // get(): the class, or an error `deviceclass.resource.k8s.io "<name>" not found`.
  virtual std::vector<std::shared_ptr<const api::DeviceClass>> list() const = 0;
};

// A DeviceClass's implicit extended resource name is this prefix + its name (DRAExtendedResource;
// resourceapi.ResourceDeviceClassPrefix).
inline constexpr std::string_view kResourceDeviceClassPrefix = "deviceclass.resource.kubernetes.io/";
// Set to "true" on the ResourceClaim the scheduler creates for a pod's DRA-backed extended resources
// (resourceapi.ExtendedResourceClaimAnnotation).
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";

// Which DeviceClass an extended resource name stands for (upstream fwk.DeviceClassResolver, implemented by
// the extended-resource cache of pkg/scheduler/framework/plugins/dynamicresources).
class DeviceClassResolver {
 public:
  virtual ~DeviceClassResolver() = default;
  // The class whose spec.extendedResourceName is `resourceName`, or whose implicit name
  // "deviceclass.resource.kubernetes.io/<class>" it is; null when none.
  virtual std::shared_ptr<const api::DeviceClass> getDeviceClass(std::string_view resourceName) const = 0;
};

class SharedDRAManager {
 public:
  virtual ~SharedDRAManager() = default;
  virtual ResourceClaimTracker& resourceClaims() = 0;
  virtual const ResourceSliceLister& resourceSlices() const = 0;
  // Shared: the allocator of a scheduling cycle keeps it.
  virtual std::shared_ptr<const DeviceClassLister> deviceClasses() const = 0;
  // The extended-resource mapping (DRAExtendedResource); null when the manager keeps none, which maps no
  // resource to a class.
  virtual const DeviceClassResolver* deviceClassResolver() const { return nullptr; }
};

}  // namespace ks::framework
