#include "pkg/dra/structured/types.h"

namespace ks::dra::structured {

namespace {

// Field name, gate name and member, in upstream's (alphabetical) field order.
struct FeatureField {
  const char* field;
  const char* gate;
  bool Features::*member;
};

constexpr FeatureField kFeatureFields[] = {
    {"AdminAccess", "DRAAdminAccess", &Features::adminAccess},
    {"CompatibilityGroups", "DRADeviceCompatibilityGroups", &Features::compatibilityGroups},
    {"ConsumableCapacity", "DRAConsumableCapacity", &Features::consumableCapacity},
    {"DerivedAttributes", "DRADerivedAttributes", &Features::derivedAttributes},
    {"DeviceBindingAndStatus", "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus",
     &Features::deviceBindingAndStatus},
    {"DeviceTaints", "DRADeviceTaints", &Features::deviceTaints},
    {"FractionalCapacityRange", "DRAFractionalCapacityRange", &Features::fractionalCapacityRange},
    {"ListTypeAttributes", "DRAListTypeAttributes", &Features::listTypeAttributes},
    {"OptionalNodeOperations", "DRAOptionalNodeOperations", &Features::optionalNodeOperations},
    {"PartitionableDevices", "DRAPartitionableDevices", &Features::partitionableDevices},
    {"PrioritizedList", "DRAPrioritizedList", &Features::prioritizedList},
};

}  // namespace

std::set<std::string> Features::enabledGates() const {
  std::set<std::string> s;
  for (const auto& f : kFeatureFields)
    if (this->*f.member) s.insert(f.gate);
  return s;
}

std::string Features::toString() const {
  std::string s = "{";
  for (const auto& f : kFeatureFields) {
    if (s.size() > 1) s += " ";
    s += std::string(f.field) + ":" + (this->*f.member ? "true" : "false");
  }
  return s + "}";
}

Features Features::all() {
  Features f;
  for (const auto& field : kFeatureFields) f.*field.member = true;
  return f;
}

Result<Features> Features::fromFieldNames(const std::map<std::string, bool>& fields) {
  Features f;
  for (const auto& [name, value] : fields) {
    const FeatureField* field = nullptr;
    for (const auto& candidate : kFeatureFields)
      if (name == candidate.field) field = &candidate;
    if (!field) return Error("unknown allocator feature " + name);
    f.*field->member = value;
  }
  return f;
}

Features Features::schedulerDefaults() {
  // v1.37: DRAAdminAccess, DRAPrioritizedList, DRAPartitionableDevices, DRADeviceTaints,
  // DRAConsumableCapacity and the binding-condition/device-status pair are on; DRAFractionalCapacityRange
  // only with --min-compatibility-version >= 1.37 (the default is 1.36).
  return Features{.adminAccess = true,
                  .consumableCapacity = true,
                  .deviceBindingAndStatus = true,
                  .deviceTaints = true,
                  .partitionableDevices = true,
                  .prioritizedList = true};
}

bool isDeviceAllocated(const DeviceID& id, const AllocatedState& state) {
  if (state.allocatedDevices.contains(id)) return true;
  for (const auto& shared : state.allocatedSharedDeviceIDs)
    if (shared.driver == id.driver && shared.pool == id.pool && shared.device == id.device) return true;
  return state.aggregatedCapacity.contains(id);
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
