#pragma once
// ExtendedResourceCache (upstream k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache,
// v0.37.2): which DeviceClass an extended resource name stands for, kept up to date from DeviceClass
// events. Each class maps its implicit name "deviceclass.resource.kubernetes.io/<class>" and, when set,
// its spec.extendedResourceName. Several classes with the same extendedResourceName: the newest
// (creationTimestamp) wins, and among equally old ones the smallest name. A class that loses keeps its
// implicit name. The scheduler's DefaultDRAManager owns one and updates it before the scheduler's own
// DeviceClass handlers run, so a DeviceClass event requeues pods against the updated mapping.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/api/resource.h"
#include "pkg/scheduler/framework/dra_manager.h"

namespace ks::plugins::dynamicresources {

class ExtendedResourceCache final : public framework::DeviceClassResolver {
 public:
  using DeviceClassPtr = std::shared_ptr<const api::DeviceClass>;

  DeviceClassPtr getDeviceClass(std::string_view resourceName) const override;
  // The class's explicit extendedResourceName, "" when it has none (or is unknown).
  std::string getExtendedResource(std::string_view className) const;

  // DeviceClass events (informer thread).
  void onAdd(const DeviceClassPtr& deviceClass);
  void onUpdate(const DeviceClassPtr& oldDeviceClass, const DeviceClassPtr& newDeviceClass);
  void onDelete(const DeviceClassPtr& deviceClass);

 private:
  void updateResourceName2Class(const DeviceClassPtr& newClass, const api::DeviceClass* oldClass);
  void updateClass2ResourceName(const api::DeviceClass& deviceClass);

  mutable std::mutex mu_;
  std::map<std::string, DeviceClassPtr, std::less<>> resourceName2Class_;
  std::map<std::string, std::string, std::less<>> class2ResourceName_;
};

}  // namespace ks::plugins::dynamicresources
