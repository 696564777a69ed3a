#include "pkg/scheduler/framework/plugins/dynamicresources/allocated_devices.h"

#include <vector>

namespace ks::plugins::dynamicresources {

using dra::structured::DeviceConsumedCapacity;
using dra::structured::DeviceID;
using dra::structured::SharedDeviceID;

void foreachAllocatedDevice(const api::ResourceClaim& claim,
                            const std::function<void(const DeviceID&)>& dedicated,
                            bool enableConsumableCapacity,
                            const std::function<void(const SharedDeviceID&)>& shared,
                            const std::function<void(const DeviceConsumedCapacity&)>& consumed) {
  if (!claim.status.allocation) return;
  for (const auto& result : claim.status.allocation->devices.results) {
    // Results written by v1.31 lack adminAccess; such results are not worth supporting (as upstream).
    if (result.adminAccess.value_or(false)) continue;
    DeviceID id{result.driver, result.pool, result.device};
    if (enableConsumableCapacity && result.shareID) {
      shared(SharedDeviceID::make(id, result.shareID));
      if (!result.consumedCapacity.empty()) {
        dra::structured::ConsumedCapacity c;
        for (const auto& [name, q] : result.consumedCapacity) c.emplace(name, q);
        consumed(DeviceConsumedCapacity{id, std::move(c)});
      }
      continue;
    }
    dedicated(id);
  }
}

std::pair<std::set<DeviceID>, int64_t> AllocatedDevices::get() const {
  std::shared_lock lock(mu_);
  return {ids_, revision_};
}

std::pair<std::set<SharedDeviceID>, int64_t> AllocatedDevices::sharedDeviceIDs() const {
  std::shared_lock lock(mu_);
  return {shareIds_, revision_};
}

std::pair<dra::structured::ConsumedCapacityCollection, int64_t> AllocatedDevices::capacities() const {
  std::shared_lock lock(mu_);
  return {capacities_, revision_};
}

int64_t AllocatedDevices::revision() const {
  std::shared_lock lock(mu_);
  return revision_;
}

informer::EventHandlerFuncs<api::ResourceClaim> AllocatedDevices::handlers() {
  using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;
  informer::EventHandlerFuncs<api::ResourceClaim> h;
  h.onAdd = [this](const ClaimPtr& claim, bool) {
    if (claim->status.allocation) addDevices(*claim);
  };
  h.onUpdate = [this](const ClaimPtr& oldClaim, const ClaimPtr& newClaim) {
    // An allocation is immutable: only its appearance or removal matters.
    if (!oldClaim->status.allocation && newClaim->status.allocation) {
      addDevices(*newClaim);
    } else if (oldClaim->status.allocation && !newClaim->status.allocation) {
      removeDevices(*oldClaim);
    }
  };
  h.onDelete = [this](const informer::DeletedObject<api::ResourceClaim>& d) {
    if (d.object) removeDevices(*d.object);
  };
  return h;
}

namespace {

// What one claim's allocation holds, gathered before taking the lock.
struct ClaimDevices {
  std::vector<DeviceID> ids;
  std::vector<SharedDeviceID> shares;
  std::vector<DeviceConsumedCapacity> consumed;
  bool empty() const { return ids.empty() && shares.empty() && consumed.empty(); }
};

ClaimDevices claimDevices(const api::ResourceClaim& claim, bool enableConsumableCapacity) {
  ClaimDevices d;
  foreachAllocatedDevice(
      claim, [&](const DeviceID& id) { d.ids.push_back(id); }, enableConsumableCapacity,
      [&](const SharedDeviceID& id) { d.shares.push_back(id); },
      [&](const DeviceConsumedCapacity& c) { d.consumed.push_back(c); });
  return d;
}

}  // namespace

void AllocatedDevices::addDevices(const api::ResourceClaim& claim) {
  const ClaimDevices d = claimDevices(claim, enableConsumableCapacity_);
  if (d.empty()) return;
  std::unique_lock lock(mu_);
  ++revision_;
  ids_.insert(d.ids.begin(), d.ids.end());
  shareIds_.insert(d.shares.begin(), d.shares.end());
  for (const auto& c : d.consumed) capacities_.insert(c);
}

void AllocatedDevices::removeDevices(const api::ResourceClaim& claim) {
  const ClaimDevices d = claimDevices(claim, enableConsumableCapacity_);
  if (d.empty()) return;
  std::unique_lock lock(mu_);
  ++revision_;
  for (const auto& id : d.ids) ids_.erase(id);
  for (const auto& id : d.shares) shareIds_.erase(id);
  for (const auto& c : d.consumed) capacities_.remove(c);
}

}  // namespace ks::plugins::dynamicresources
