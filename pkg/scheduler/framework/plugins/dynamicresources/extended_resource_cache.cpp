#include "pkg/scheduler/framework/plugins/dynamicresources/extended_resource_cache.h"

namespace ks::plugins::dynamicresources {

namespace {

std::string implicitName(const api::DeviceClass& c) {
  return std::string(framework::kResourceDeviceClassPrefix) + c.metadata.name;
}

// Upstream compares CreationTimestamp.UnixNano(); an unset timestamp is the zero time.
int64_t createdNanos(const api::DeviceClass& c) {
  if (!c.metadata.creationTimestamp) return 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             c.metadata.creationTimestamp->time_since_epoch())
      .count();
}

}  // namespace

ExtendedResourceCache::DeviceClassPtr ExtendedResourceCache::getDeviceClass(
    std::string_view resourceName) const {
  std::lock_guard lock(mu_);
  auto it = resourceName2Class_.find(resourceName);
  return it == resourceName2Class_.end() ? nullptr : it->second;
}

std::string ExtendedResourceCache::getExtendedResource(std::string_view className) const {
  std::lock_guard lock(mu_);
  auto it = class2ResourceName_.find(className);
  return it == class2ResourceName_.end() ? std::string() : it->second;
}

void ExtendedResourceCache::onAdd(const DeviceClassPtr& deviceClass) {
  if (!deviceClass) return;
  updateResourceName2Class(deviceClass, nullptr);
  updateClass2ResourceName(*deviceClass);
}

void ExtendedResourceCache::onUpdate(const DeviceClassPtr& oldDeviceClass,
                                     const DeviceClassPtr& newDeviceClass) {
  if (!newDeviceClass || !oldDeviceClass) return;
  updateResourceName2Class(newDeviceClass, oldDeviceClass.get());
  updateClass2ResourceName(*newDeviceClass);
}

void ExtendedResourceCache::onDelete(const DeviceClassPtr& deviceClass) {
  if (!deviceClass) return;
  std::lock_guard lock(mu_);
  resourceName2Class_.erase(implicitName(*deviceClass));
  if (deviceClass->spec.extendedResourceName)
    resourceName2Class_.erase(*deviceClass->spec.extendedResourceName);
  class2ResourceName_.erase(deviceClass->metadata.name);
}

void ExtendedResourceCache::updateResourceName2Class(const DeviceClassPtr& newClass,
                                                     const api::DeviceClass* oldClass) {
  std::lock_guard lock(mu_);
  const auto& explicitName = newClass->spec.extendedResourceName;
  // Another class already maps the same explicit name: only a newer one (or an equally old one with a
  // smaller name) takes it over; the loser changes nothing, not even its implicit name (as upstream).
  if (explicitName) {
    if (auto it = resourceName2Class_.find(*explicitName); it != resourceName2Class_.end() && it->second) {
      const int64_t mine = createdNanos(*newClass);
      const int64_t theirs = createdNanos(*it->second);
      if (mine < theirs) return;
      if (mine == theirs && newClass->metadata.name >= it->second->metadata.name) return;
    }
  }
  if (oldClass != nullptr) {
    resourceName2Class_.erase(implicitName(*oldClass));
    if (oldClass->spec.extendedResourceName) resourceName2Class_.erase(*oldClass->spec.extendedResourceName);
  }
  if (explicitName) resourceName2Class_[*explicitName] = newClass;
  resourceName2Class_[implicitName(*newClass)] = newClass;
}

void ExtendedResourceCache::updateClass2ResourceName(const api::DeviceClass& deviceClass) {
  std::lock_guard lock(mu_);
  if (!deviceClass.spec.extendedResourceName) {
    class2ResourceName_.erase(deviceClass.metadata.name);
    return;
  }
  class2ResourceName_[deviceClass.metadata.name] = *deviceClass.spec.extendedResourceName;
}

}  // namespace ks::plugins::dynamicresources
