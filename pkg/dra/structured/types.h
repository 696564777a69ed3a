#pragma once
// The allocator's inputs besides claims, slices and classes: the feature switches, device identities and
// what is already allocated (upstream's structured/internal types.go and allocatedstate.go).

#include <atomic>
#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/quantity.h"
#include "pkg/api/resource.h"
#include "pkg/util/result.h"

namespace ks::dra::structured {

// Optional functionality of the allocation, mostly one feature gate each (upstream's v0.37 Features). The
// scheduler's v1.37 defaults are in schedulerDefaults(). The allocator implements the incubating variant's
// set (Allocator::supportedFeatures()); compatibilityGroups, derivedAttributes, listTypeAttributes and
// optionalNodeOperations only exist in upstream's experimental variant (alpha, off by default) and are
// refused.
struct Features {
  bool adminAccess = false;
  bool compatibilityGroups = false;  // DRADeviceCompatibilityGroups
  bool consumableCapacity = false;
  bool derivedAttributes = false;  // DRADerivedAttributes
  // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, which only work together.
  bool deviceBindingAndStatus = false;
  bool deviceTaints = false;
  bool fractionalCapacityRange = false;  // DRAFractionalCapacityRange
  bool listTypeAttributes = false;       // DRAListTypeAttributes
  bool optionalNodeOperations = false;   // DRAOptionalNodeOperations
  bool partitionableDevices = false;
  bool prioritizedList = false;

  // The Kubernetes feature gate names of the enabled features ("DRAAdminAccess", ...; deviceBindingAndStatus
  // is "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus").
  std::set<std::string> enabledGates() const;
  // Upstream's %+v of the struct: "{AdminAccess:true CompatibilityGroups:false ...}".
  std::string toString() const;
  bool operator==(const Features&) const = default;

  static Features all();
  static Features schedulerDefaults();
  // From upstream's field names ("AdminAccess": true, ...); an error names an unknown field.
  static Result<Features> fromFieldNames(const std::map<std::string, bool>& fields);
};

struct DeviceID {
  std::string driver;
  std::string pool;
  std::string device;

  std::string toString() const { return driver + "/" + pool + "/" + device; }
  auto operator<=>(const DeviceID&) const = default;
  bool operator==(const DeviceID&) const = default;
};

// A device plus the share of it handed to one allocation (empty shareID: the whole device).
struct SharedDeviceID {
  std::string driver;
  std::string pool;
  std::string device;
  std::string shareID;

  static SharedDeviceID make(const DeviceID& id, const std::optional<std::string>& shareID);
  DeviceID deviceID() const { return DeviceID{driver, pool, device}; }
  std::string toString() const;
  auto operator<=>(const SharedDeviceID&) const = default;
  bool operator==(const SharedDeviceID&) const = default;
};

// Capacity consumed from one device, by capacity name.
class ConsumedCapacity : public std::map<std::string, api::Quantity> {
 public:
  using std::map<std::string, api::Quantity>::map;
  // Adds each quantity, creating missing entries.
  void add(const ConsumedCapacity& other);
  // Subtracts each quantity whose entry exists; others are ignored.
  void sub(const ConsumedCapacity& other);
  // True when every quantity is zero (upstream Empty()).
  bool allZero() const;
};

struct DeviceConsumedCapacity {
  DeviceID deviceID;
  ConsumedCapacity consumedCapacity;
};

// Consumed capacity per device.
class ConsumedCapacityCollection : public std::map<DeviceID, ConsumedCapacity> {
 public:
  void insert(const DeviceConsumedCapacity& c);
  // Subtracts; the device's entry goes away once nothing is consumed any more.
  void remove(const DeviceConsumedCapacity& c);
};

// What allocated claims already use: whole devices, shares of multi-allocatable devices and their
// aggregated consumed capacity.
struct AllocatedState {
  std::set<DeviceID> allocatedDevices;
  std::set<SharedDeviceID> allocatedSharedDeviceIDs;
  ConsumedCapacityCollection aggregatedCapacity;
};

// Whether the device is in use at all: allocated whole, or shared by some allocation, or with consumed
// capacity recorded (upstream IsDeviceAllocated).
bool isDeviceAllocated(const DeviceID& id, const AllocatedState& state);

// Looks up DeviceClasses (an informer lister in the scheduler). Called concurrently from allocate().
class DeviceClassLister {
 public:
  virtual ~DeviceClassLister() = default;
  // The class, or an error (e.g. not found) that the allocator reports as such.
  virtual Result<std::shared_ptr<const api::DeviceClass>> get(const std::string& name) const = 0;
};

// Cancellation for one allocate() call, as upstream's context: a deadline and/or a flag another thread sets.
struct AllocateContext {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  const std::atomic<bool>* cancelled = nullptr;

  // Upstream's ctx.Err() text: "context canceled" or "context deadline exceeded"; nullopt while live.
  std::optional<std::string> err() const;
};

struct Stats {
  int64_t numAllocateOneInvocations = 0;
};

}  // namespace ks::dra::structured
