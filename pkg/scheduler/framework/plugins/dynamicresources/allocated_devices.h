#pragma once
// The devices allocated to ResourceClaims, kept up to date from the claims' assume cache (upstream
// dynamicresources/allocateddevices.go): cheaper than listing all claims in every PreFilter.
//
// Each change bumps a revision, so that a caller can tell whether what it gathered in several steps is
// still consistent (the DRA manager retries otherwise). Thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <tuple>

#include "pkg/api/resource.h"
#include "pkg/dra/structured/types.h"
#include "pkg/informer/shared_informer.h"

namespace ks::plugins::dynamicresources {

// Calls `dedicated` for each device of the claim's allocation that the claim has to itself; devices
// with admin access are shared and skipped. With consumable capacity, a result with a share ID goes to
// `shared` (and its consumed capacity, if any, to `consumed`) instead. Nothing when unallocated.
void foreachAllocatedDevice(
    const api::ResourceClaim& claim, const std::function<void(const dra::structured::DeviceID&)>& dedicated,
    bool enableConsumableCapacity, const std::function<void(const dra::structured::SharedDeviceID&)>& shared,
    const std::function<void(const dra::structured::DeviceConsumedCapacity&)>& consumed);

class AllocatedDevices {
 public:
  explicit AllocatedDevices(bool enableConsumableCapacity)
      : enableConsumableCapacity_(enableConsumableCapacity) {}

  // A copy of the dedicated devices and the revision it belongs to.
  std::pair<std::set<dra::structured::DeviceID>, int64_t> get() const;
  // A copy of the shares of multi-allocatable devices (only kept with consumable capacity).
  std::pair<std::set<dra::structured::SharedDeviceID>, int64_t> sharedDeviceIDs() const;
  std::pair<dra::structured::ConsumedCapacityCollection, int64_t> capacities() const;
  int64_t revision() const;

  // The handlers to register on the claims' assume cache.
  informer::EventHandlerFuncs<api::ResourceClaim> handlers();

 private:
  void addDevices(const api::ResourceClaim& claim);
  void removeDevices(const api::ResourceClaim& claim);

  const bool enableConsumableCapacity_;
  mutable std::shared_mutex mu_;
  int64_t revision_ = 0;
  std::set<dra::structured::DeviceID> ids_;
  std::set<dra::structured::SharedDeviceID> shareIds_;
  dra::structured::ConsumedCapacityCollection capacities_;
};

}  // namespace ks::plugins::dynamicresources
