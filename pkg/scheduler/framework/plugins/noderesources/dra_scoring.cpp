#include "pkg/scheduler/framework/plugins/noderesources/dra_scoring.h"

#include <optional>

#include "pkg/dra/structured/allocator.h"
#include "pkg/dra/structured/pools.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"

namespace ks::plugins::noderesources {

// ---- DeviceClassMatchCache ----

std::vector<std::shared_ptr<const DeviceClassMatchCache::Matches>> DeviceClassMatchCache::get(
    const api::DeviceClass& deviceClass, std::span<const framework::ResourceSlicePtr> slices) const {
  std::vector<std::shared_ptr<const Matches>> out(slices.size());
  std::lock_guard lock(mu_);
  auto byClass = entries_.find(deviceClass.metadata.uid);
  if (byClass == entries_.end()) return out;
  for (std::size_t j = 0; j < slices.size(); j++) {
    const api::ResourceSlice& slice = *slices[j];
    auto it = byClass->second.find(slice.metadata.uid);
    if (it != byClass->second.end() && it->second.classVersion == deviceClass.metadata.resourceVersion &&
        it->second.sliceVersion == slice.metadata.resourceVersion) {
      out[j] = it->second.matches;
    }
  }
  return out;
}

void DeviceClassMatchCache::put(const api::DeviceClass& deviceClass, const api::ResourceSlice& slice,
                                std::shared_ptr<const Matches> matches) {
  std::lock_guard lock(mu_);
  entries_[deviceClass.metadata.uid][slice.metadata.uid] =
      Entry{deviceClass.metadata.resourceVersion, slice.metadata.resourceVersion, std::move(matches)};
}

void DeviceClassMatchCache::prune(std::span<const framework::ResourceSlicePtr> live, std::size_t classes) {
  std::lock_guard lock(mu_);
  std::size_t size = 0;
  for (const auto& [uid, slices] : entries_) size += slices.size();
  if (size <= 2 * live.size() * classes + 16) return;
  std::set<std::string_view> uids;
  for (const auto& s : live) uids.insert(s->metadata.uid);
  for (auto& [uid, slices] : entries_) {
    std::erase_if(slices, [&](const auto& e) { return !uids.contains(e.first); });
  }
  std::erase_if(entries_, [](const auto& e) { return e.second.empty(); });
}

std::size_t DeviceClassMatchCache::sizeForTest() const {
  std::lock_guard lock(mu_);
  std::size_t size = 0;
  for (const auto& [uid, slices] : entries_) size += slices.size();
  return size;
}

// ---- DRAPreScoreState ----

Result<std::shared_ptr<const DRAPreScoreState>> DRAPreScoreState::gather(
    framework::SharedDRAManager* draManager, const framework::DeviceClassResolver* classes,
    std::span<const std::string> resourceNames, cel::Cache& celCache,
    std::shared_ptr<DeviceClassMatchCache> matchCache) {
  if (draManager == nullptr || classes == nullptr) return std::shared_ptr<const DRAPreScoreState>();
  bool anyBackedByDRA = false;
  for (const auto& name : resourceNames) {
    const bool draName = isExtendedResourceName(name) ||
                         std::string_view(name).starts_with(framework::kResourceDeviceClassPrefix);
    if (draName && classes->getDeviceClass(name) != nullptr) {
      anyBackedByDRA = true;
      break;
    }
  }
  if (!anyBackedByDRA) return std::shared_ptr<const DRAPreScoreState>();

  auto allocatedState = draManager->resourceClaims().gatherAllocatedState();
  if (!allocatedState.ok()) return allocatedState.error();
  auto slices = draManager->resourceSlices().listWithDeviceTaintRules();
  if (!slices.ok()) return slices.error();

  std::shared_ptr<DRAPreScoreState> state(new DRAPreScoreState());
  state->matchCache_ = std::move(matchCache);
  state->allocatedState_ = std::move(*allocatedState);
  const auto& as = state->allocatedState_;
  for (const auto& id : as.allocatedDevices) state->inUse_.emplace(id.driver, id.pool, id.device);
  for (const auto& id : as.allocatedSharedDeviceIDs) state->inUse_.emplace(id.driver, id.pool, id.device);
  for (const auto& [id, capacity] : as.aggregatedCapacity) state->inUse_.emplace(id.driver, id.pool, id.device);

  state->slices_ = std::move(*slices);
  for (uint32_t j = 0; j < state->slices_.size(); j++) {
    const auto& spec = state->slices_[j]->spec;
    if (!spec.perDeviceNodeSelection.value_or(false) && !spec.allNodes.value_or(false) && spec.nodeName &&
        !spec.nodeName->empty()) {
      state->slicesByNodeName_[*spec.nodeName].push_back(j);
    } else {
      state->otherSlices_.push_back(j);
    }
  }

  // The class of each resource, resolved once per cycle (upstream resolves it per node).
  state->backing_.resize(resourceNames.size());
  std::size_t withSelectors = 0;
  for (std::size_t i = 0; i < resourceNames.size(); i++) {
    BackingClass& b = state->backing_[i];
    b.deviceClass = classes->getDeviceClass(resourceNames[i]);
    if (b.deviceClass == nullptr || b.deviceClass->spec.selectors.empty()) continue;
    for (const auto& selector : b.deviceClass->spec.selectors) {
      b.selectors.push_back(selector.cel ? celCache.getOrCompile(selector.cel->expression) : nullptr);
    }
    withSelectors++;
    b.matches = std::make_unique<SliceMatches[]>(state->slices_.size());
    if (state->matchCache_ == nullptr) continue;
    auto cached = state->matchCache_->get(*b.deviceClass, state->slices_);
    for (std::size_t j = 0; j < cached.size(); j++) b.matches[j].cached = std::move(cached[j]);
  }
  if (state->matchCache_ != nullptr && withSelectors > 0) state->matchCache_->prune(state->slices_, withSelectors);
  return std::shared_ptr<const DRAPreScoreState>(std::move(state));
}

DeviceClassMatchCache::Matches DRAPreScoreState::computeMatches(const BackingClass& backing,
                                                                const api::ResourceSlice& slice) const {
  DeviceClassMatchCache::Matches out(slice.spec.devices.size(), 1);
  for (std::size_t d = 0; d < slice.spec.devices.size(); d++) {
    std::optional<cel::Device> input;  // built for the first selector that needs it
    for (const auto& expr : backing.selectors) {
      if (expr == nullptr) continue;
      if (expr->error()) {
        out[d] = -1;
        break;
      }
      if (!input) {
        input = dra::structured::celDevice(slice.spec.devices[d], slice.spec.driver);
        // Upstream's scorer leaves it out of the CEL device, so selectors see false.
        input->allowMultipleAllocations.reset();
      }
      auto matches = expr->deviceMatches(*input);
      if (!matches.ok() || !*matches) {
        out[d] = matches.ok() ? 0 : -1;
        break;
      }
    }
  }
  return out;
}

const DeviceClassMatchCache::Matches& DRAPreScoreState::sliceMatches(const BackingClass& backing,
                                                                     std::size_t j) const {
  SliceMatches& m = backing.matches[j];
  if (m.cached != nullptr) return *m.cached;
  std::call_once(m.once, [&] {
    const api::ResourceSlice& slice = *slices_[j];
    m.computed = std::make_shared<const DeviceClassMatchCache::Matches>(computeMatches(backing, slice));
    if (matchCache_ != nullptr) matchCache_->put(*backing.deviceClass, slice, m.computed);
  });
  return *m.computed;
}

bool DRAPreScoreState::countSlice(const api::Node& node, const BackingClass& backing, std::size_t j,
                                  int64_t& capacity, int64_t& allocated) const {
  const auto& spec = slices_[j]->spec;
  const std::string_view nodeName = node.metadata.name;
  const bool perDevice = spec.perDeviceNodeSelection.value_or(false);
  if (!perDevice) {
    const bool allNodes = spec.allNodes.value_or(false);
    const std::string_view sliceNodeName = dra::structured::orEmpty(spec.nodeName);
    if (!allNodes && sliceNodeName != nodeName && spec.nodeSelector) {
      auto matches = dra::structured::nodeMatches(&node, sliceNodeName, false, &*spec.nodeSelector);
      if (!matches.ok()) return false;
      if (!*matches) return true;
    } else if (!allNodes && !sliceNodeName.empty() && sliceNodeName != nodeName) {
      return true;
    }
    // As upstream, a slice that names no node, no selector and not all nodes counts everywhere.
  }
  const DeviceClassMatchCache::Matches* matches = backing.selectors.empty() ? nullptr : &sliceMatches(backing, j);
  for (std::size_t d = 0; d < spec.devices.size(); d++) {
    const api::Device& device = spec.devices[d];
    if (perDevice) {
      const std::string_view deviceNodeName = dra::structured::orEmpty(device.nodeName);
      const bool deviceAllNodes = device.allNodes.value_or(false);
      if (!deviceAllNodes && (deviceNodeName.empty() || deviceNodeName != nodeName)) {
        if (!device.nodeSelector) continue;
        auto selected = dra::structured::nodeMatches(&node, deviceNodeName, deviceAllNodes, &*device.nodeSelector);
        if (!selected.ok()) return false;
        if (!*selected) continue;
      }
    }
    if (matches != nullptr) {
      if ((*matches)[d] < 0) return false;
      if ((*matches)[d] == 0) continue;
    }
    capacity++;
    if (inUse_.contains(DeviceKey(spec.driver, spec.pool.name, device.name))) allocated++;
  }
  return true;
}

std::pair<int64_t, int64_t> DRAPreScoreState::allocatableRequest(const api::Node& node, std::size_t i) const {
  if (i >= backing_.size() || backing_[i].deviceClass == nullptr) return {0, 0};
  const BackingClass& backing = backing_[i];
  int64_t capacity = 0;
  int64_t allocated = 0;
  auto count = [&](const std::vector<uint32_t>& slices) {
    for (uint32_t j : slices) {
      if (!countSlice(node, backing, j, capacity, allocated)) return false;
    }
    return true;
  };
  if (auto it = slicesByNodeName_.find(node.metadata.name); it != slicesByNodeName_.end()) {
    if (!count(it->second)) return {0, 0};
  }
  if (!count(otherSlices_)) return {0, 0};
  return {capacity, allocated};
}

}  // namespace ks::plugins::noderesources
