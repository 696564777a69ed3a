#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"

#include <algorithm>

namespace ks::plugins::dynamicresources {

namespace {

class InformerDeviceClassLister final : public framework::DeviceClassLister {
 public:
  explicit InformerDeviceClassLister(informer::SharedInformer<api::DeviceClass>& informer)
      : informer_(informer) {}

  Result<std::shared_ptr<const api::DeviceClass>> get(const std::string& name) const override {
    auto c = informer_.store().get(name);
    if (!c) return Error("deviceclass.resource.k8s.io \"" + name + "\" not found");
    return c;
  }
  std::vector<std::shared_ptr<const api::DeviceClass>> list() const override {
    return informer_.store().list();
  }

 private:
  informer::SharedInformer<api::DeviceClass>& informer_;
};

}  // namespace

framework::ResourceSlicePtr applyDeviceTaintRules(
    const framework::ResourceSlicePtr& slice,
    const std::vector<std::shared_ptr<const api::DeviceTaintRule>>& rules) {
  std::shared_ptr<api::ResourceSlice> patched;  // copied when the first rule applies
  for (const auto& rule : rules) {
    const auto& selector = rule->spec.deviceSelector;
    if (!selector) continue;
    if (selector->driver && *selector->driver != slice->spec.driver) continue;
    if (selector->pool && *selector->pool != slice->spec.pool.name) continue;
    for (size_t i = 0; i < slice->spec.devices.size(); ++i) {
      if (selector->device && *selector->device != slice->spec.devices[i].name) continue;
      if (!patched) patched = std::make_shared<api::ResourceSlice>(*slice);
      patched->spec.devices[i].taints.push_back(rule->spec.taint);
    }
  }
  if (!patched) return slice;
  return patched;
}

DefaultDRAManager::DefaultDRAManager(informer::SharedInformerFactory& factory, bool enableConsumableCapacity,
                                     bool enableDeviceTaintRules, bool enableExtendedResource)
    : enableConsumableCapacity_(enableConsumableCapacity),
      claims_(std::make_unique<ClaimAssumeCache>("ResourceClaim")),
      allocatedDevices_(std::make_unique<AllocatedDevices>(enableConsumableCapacity)),
      slices_(factory.resourceSlices()),
      taintRules_(enableDeviceTaintRules ? &factory.deviceTaintRules() : nullptr),
      classes_(std::make_shared<InformerDeviceClassLister>(factory.deviceClasses())) {
  claims_->watch(factory.resourceClaims());
  claims_->addEventHandler(allocatedDevices_->handlers());
  if (enableExtendedResource) {
    extendedResources_ = std::make_unique<ExtendedResourceCache>();
    ExtendedResourceCache* cache = extendedResources_.get();
    informer::EventHandlerFuncs<api::DeviceClass> h;
    h.onAdd = [cache](const auto& obj, bool) { cache->onAdd(obj); };
    h.onUpdate = [cache](const auto& oldObj, const auto& newObj) { cache->onUpdate(oldObj, newObj); };
    h.onDelete = [cache](const informer::DeletedObject<api::DeviceClass>& d) { cache->onDelete(d.object); };
    factory.deviceClasses().addEventHandler(std::move(h));
  }
}

Result<framework::ResourceClaimPtr> DefaultDRAManager::get(const std::string& ns,
                                                           const std::string& name) const {
  return claims_->get(ns + "/" + name);
}

std::vector<framework::ResourceClaimPtr> DefaultDRAManager::list() const {
  return claims_->list();
}

// A claim can move from in flight to the cache between reading the allocated devices and reading the
// in-flight map, and then be missed; the revision tells (upstream errClaimTrackerConcurrentModification).
// The reverse (first in the cache, then only in flight) cannot happen.
Result<std::set<dra::structured::DeviceID>> DefaultDRAManager::listAllAllocatedDevices() const {
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  auto snapshot = allocatedDevices_->get();
  std::set<dra::structured::DeviceID>& allocated = snapshot.first;
  const auto revision = snapshot.second;
  {
    std::lock_guard lock(inFlightMu_);
    for (const auto& [uid, claim] : inFlight_) {
      foreachAllocatedDevice(
          *claim, [&](const dra::structured::DeviceID& id) { allocated.insert(id); }, false,
          [](const dra::structured::SharedDeviceID&) {},
          [](const dra::structured::DeviceConsumedCapacity&) {});
    }
  }
  if (revision == allocatedDevices_->revision()) return allocated;
  return Error(std::string(framework::kConcurrentModification));
}

Result<dra::structured::AllocatedState> DefaultDRAManager::gatherAllocatedState() const {
  auto [allocated, revision1] = allocatedDevices_->get();
  auto [shared, revision2] = allocatedDevices_->sharedDeviceIDs();
  auto [capacity, revision3] = allocatedDevices_->capacities();
  if (revision1 != revision2 || revision2 != revision3)
    return Error(std::string(framework::kConcurrentModification));
  // Without consumable capacity the tracker keeps no shares (a share ID then counts as the whole device).
  dra::structured::AllocatedState state;
  state.allocatedDevices = std::move(allocated);
  state.allocatedSharedDeviceIDs = std::move(shared);
  state.aggregatedCapacity = std::move(capacity);
  {
    std::lock_guard lock(inFlightMu_);
    for (const auto& [uid, claim] : inFlight_) {
      foreachAllocatedDevice(
          *claim, [&](const dra::structured::DeviceID& id) { state.allocatedDevices.insert(id); },
          enableConsumableCapacity_,
          [&](const dra::structured::SharedDeviceID& id) { state.allocatedSharedDeviceIDs.insert(id); },
          [&](const dra::structured::DeviceConsumedCapacity& c) { state.aggregatedCapacity.insert(c); });
    }
  }
  if (revision1 == allocatedDevices_->revision()) return state;
  return Error(std::string(framework::kConcurrentModification));
}

bool DefaultDRAManager::claimHasPendingAllocation(const std::string& claimUid) const {
  std::lock_guard lock(inFlightMu_);
  return inFlight_.count(claimUid) != 0;
}

Result<void> DefaultDRAManager::signalClaimPendingAllocation(const std::string& claimUid,
                                                             framework::ResourceClaimPtr allocatedClaim) {
  std::lock_guard lock(inFlightMu_);
  inFlight_[claimUid] = std::move(allocatedClaim);
  return {};
}

bool DefaultDRAManager::removeClaimPendingAllocation(const std::string& claimUid) {
  std::lock_guard lock(inFlightMu_);
  return inFlight_.erase(claimUid) != 0;
}

Result<void> DefaultDRAManager::assumeClaimAfterAPICall(framework::ResourceClaimPtr claim) {
  return claims_->assume(std::move(claim));
}

void DefaultDRAManager::assumedClaimRestore(const std::string& ns, const std::string& name) {
  claims_->restore(ns + "/" + name);
}

Result<std::vector<framework::ResourceSlicePtr>> DefaultDRAManager::listWithDeviceTaintRules() const {
  std::vector<framework::ResourceSlicePtr> slices = slices_.store().list();
  if (taintRules_ == nullptr) return slices;
  auto rules = taintRules_->store().list();
  if (rules.empty()) return slices;
  // Upstream applies the rules in its informer's (map) order; by name here, so that a device's taints
  // have one order.
  std::sort(rules.begin(), rules.end(),
            [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
  for (auto& slice : slices) slice = applyDeviceTaintRules(slice, rules);
  return slices;
}

std::vector<framework::ResourceClaimPtr> DefaultDRAManager::inFlightClaimsForTest() const {
  std::lock_guard lock(inFlightMu_);
  std::vector<framework::ResourceClaimPtr> out;
  for (const auto& [uid, claim] : inFlight_) out.push_back(claim);
  return out;
}

}  // namespace ks::plugins::dynamicresources
