#include "pkg/dra/structured/types.h"

namespace ks::dra::structured {

std::set<std::string> Features::enabledGates() const {
  std::set<std::string> s;
  if (adminAccess) s.insert("DRAAdminAccess");
  if (consumableCapacity) s.insert("DRAConsumableCapacity");
  if (deviceTaints) s.insert("DRADeviceTaints");
  if (partitionableDevices) s.insert("DRAPartitionableDevices");
  if (prioritizedList) s.insert("DRAPrioritizedList");
  if (deviceBinding) s.insert("DRADeviceBindingConditions");
  if (deviceStatus) s.insert("DRAResourceClaimDeviceStatus");
  return s;
}

Features Features::all() {
  return Features{.adminAccess = true,
                  .consumableCapacity = true,
                  .deviceBinding = true,
                  .deviceStatus = true,
                  .deviceTaints = true,
                  .partitionableDevices = true,
                  .prioritizedList = true};
}

Features Features::schedulerDefaults() {
  return Features{.adminAccess = true, .deviceStatus = true, .prioritizedList = true};
}

SharedDeviceID SharedDeviceID::make(const DeviceID& id, const std::optional<std::string>& shareID) {
  return SharedDeviceID{id.driver, id.pool, id.device, shareID.value_or("")};
}

std::string SharedDeviceID::toString() const {
  std::string s = driver + "/" + pool + "/" + device;
  if (!shareID.empty()) s += "/" + shareID;
  return s;
}

void ConsumedCapacity::add(const ConsumedCapacity& other) {
  for (const auto& [name, q] : other) {
    auto it = find(name);
    if (it == end())
      emplace(name, q);
    else
      it->second.add(q);
  }
}

void ConsumedCapacity::sub(const ConsumedCapacity& other) {
  for (const auto& [name, q] : other)
    if (auto it = find(name); it != end()) it->second.sub(q);
}

bool ConsumedCapacity::allZero() const {
  for (const auto& [name, q] : *this)
    if (!q.isZero()) return false;
  return true;
}

void ConsumedCapacityCollection::insert(const DeviceConsumedCapacity& c) {
  auto it = find(c.deviceID);
  if (it == end())
    emplace(c.deviceID, c.consumedCapacity);
  else
    it->second.add(c.consumedCapacity);
}

void ConsumedCapacityCollection::remove(const DeviceConsumedCapacity& c) {
  auto it = find(c.deviceID);
  if (it == end()) return;
  it->second.sub(c.consumedCapacity);
  if (it->second.allZero()) erase(it);
}

std::optional<std::string> AllocateContext::err() const {
  if (cancelled && cancelled->load(std::memory_order_relaxed)) return "context canceled";
  if (deadline && std::chrono::steady_clock::now() >= *deadline) return "context deadline exceeded";
  return std::nullopt;
}

}  // namespace ks::dra::structured
