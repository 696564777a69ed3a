#pragma once
// resource.k8s.io/v1 (dynamic resource allocation): DeviceClass, ResourceClaim, ResourceClaimTemplate and
// ResourceSlice, with every field of v1.34's API, so that a claim read from the API and written back
// (PUT of the claim or of its status) loses nothing. Field names are the JSON names, except where JSON's
// name is a C++ keyword (DeviceAttribute's int/bool/string/version, CapacityRequestPolicy's default, the
// toleration's operator: named as in Go or with a trailing '_'). Optional Go pointers are std::optional;
// runtime.RawExtension (opaque driver parameters, device status data) is kept as JSON text.
//
// Decoding applies the API server's defaults (pkg/apis/resource/v1/defaults.go): a request's
// allocationMode is ExactCount and its count 1 when absent, a toleration's operator Equal. A device taint's
// timeAdded, which the server sets to the time of the write, is left as it is.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/meta.h"
#include "pkg/api/quantity.h"

namespace ks::api {

// Finalizer the scheduler puts on claims it allocates (resourceapi.Finalizer).
inline constexpr std::string_view kResourceClaimFinalizer = "resource.kubernetes.io/delete-protection";
inline constexpr std::string_view kDeviceAllocationModeExactCount = "ExactCount";
inline constexpr std::string_view kDeviceAllocationModeAll = "All";
inline constexpr std::string_view kDeviceTolerationOpEqual = "Equal";
inline constexpr std::string_view kDeviceTolerationOpExists = "Exists";
inline constexpr std::string_view kAllocationConfigSourceClass = "FromClass";
inline constexpr std::string_view kAllocationConfigSourceClaim = "FromClaim";

// runtime.RawExtension: arbitrary JSON, kept as compact text with sorted keys (so that equal JSON compares
// equal). Empty text is JSON null.
struct RawExtension {
  std::string json;
  bool operator==(const RawExtension&) const = default;
};

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // True, False, Unknown
  int64_t observedGeneration = 0;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  bool operator==(const Condition&) const = default;
};

// ---- DeviceClass and the pieces claims share with it ----

struct CELDeviceSelector {
  std::string expression;
  bool operator==(const CELDeviceSelector&) const = default;
};

// Exactly one field set.
struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
  bool operator==(const DeviceSelector&) const = default;
};

struct OpaqueDeviceConfiguration {
  std::string driver;
  RawExtension parameters;
  bool operator==(const OpaqueDeviceConfiguration&) const = default;
};

// DeviceConfiguration's one field, inlined in the three configuration types below as in JSON.
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  bool operator==(const DeviceClassConfiguration&) const = default;
};

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extendedResourceName;
  bool operator==(const DeviceClassSpec&) const = default;
};

struct DeviceClass {
  static constexpr std::string_view kKind = "DeviceClass";
  static constexpr std::string_view kApiVersion = "resource.k8s.io/v1";
  ObjectMeta metadata;
  DeviceClassSpec spec;
  bool operator==(const DeviceClass&) const = default;
};

// ---- ResourceClaim ----

struct DeviceToleration {
  std::string key;
  std::string op;  // "operator" in JSON: Equal (the default) or Exists
  std::string value;
  std::string effect;  // NoSchedule, NoExecute; empty matches all
  std::optional<int64_t> tolerationSeconds;
  bool operator==(const DeviceToleration&) const = default;
};

struct CapacityRequirements {
  std::map<std::string, Quantity> requests;  // by QualifiedName
  bool operator==(const CapacityRequirements&) const = default;
};

struct ExactDeviceRequest {
  std::string deviceClassName;
  std::vector<DeviceSelector> selectors;
  std::string allocationMode;  // ExactCount (the default) or All
  int64_t count = 0;           // 1 when ExactCount and absent
  std::optional<bool> adminAccess;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  bool operator==(const ExactDeviceRequest&) const = default;
};

// One alternative of a request's firstAvailable list; as ExactDeviceRequest without adminAccess.
struct DeviceSubRequest {
  std::string name;
  std::string deviceClassName;
  std::vector<DeviceSelector> selectors;
  std::string allocationMode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  bool operator==(const DeviceSubRequest&) const = default;
};

// Exactly one of exactly and firstAvailable is set.
struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> firstAvailable;
  bool operator==(const DeviceRequest&) const = default;
};

// Exactly one of matchAttribute and distinctAttribute is set (FullyQualifiedNames).
struct DeviceConstraint {
  std::vector<std::string> requests;  // "<request>" or "<request>/<subrequest>"; empty: all
  std::optional<std::string> matchAttribute;
  std::optional<std::string> distinctAttribute;
  bool operator==(const DeviceConstraint&) const = default;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  bool operator==(const DeviceClaimConfiguration&) const = default;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
  bool operator==(const DeviceClaim&) const = default;
};

struct ResourceClaimSpec {
  DeviceClaim devices;
  bool operator==(const ResourceClaimSpec&) const = default;
};

struct DeviceRequestAllocationResult {
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> adminAccess;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> bindingConditions;
  std::vector<std::string> bindingFailureConditions;
  std::optional<std::string> shareID;
  std::map<std::string, Quantity> consumedCapacity;  // by QualifiedName
  bool operator==(const DeviceRequestAllocationResult&) const = default;
};

struct DeviceAllocationConfiguration {
  std::string source;  // FromClass or FromClaim
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  bool operator==(const DeviceAllocationConfiguration&) const = default;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
  bool operator==(const DeviceAllocationResult&) const = default;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> nodeSelector;  // where the devices are available; absent: everywhere
  std::optional<Time> allocationTimestamp;
  bool operator==(const AllocationResult&) const = default;
};

struct ResourceClaimConsumerReference {
  std::string apiGroup;  // empty for the core API
  std::string resource;  // "pods"
  std::string name;
  std::string uid;
  bool operator==(const ResourceClaimConsumerReference&) const = default;
};

struct NetworkDeviceData {
  std::string interfaceName;
  std::vector<std::string> ips;
  std::string hardwareAddress;
  bool operator==(const NetworkDeviceData&) const = default;
};

// A device's state as its driver reports it.
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> shareID;
  std::vector<Condition> conditions;
  std::optional<RawExtension> data;
  std::optional<NetworkDeviceData> networkData;
  bool operator==(const AllocatedDeviceStatus&) const = default;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reservedFor;
  std::vector<AllocatedDeviceStatus> devices;
  bool operator==(const ResourceClaimStatus&) const = default;
};

struct ResourceClaim {
  static constexpr std::string_view kKind = "ResourceClaim";
  static constexpr std::string_view kApiVersion = "resource.k8s.io/v1";
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  bool operator==(const ResourceClaim&) const = default;
};

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;  // labels and annotations copied into the generated claim
  ResourceClaimSpec spec;
  bool operator==(const ResourceClaimTemplateSpec&) const = default;
};

struct ResourceClaimTemplate {
  static constexpr std::string_view kKind = "ResourceClaimTemplate";
  static constexpr std::string_view kApiVersion = "resource.k8s.io/v1";
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
  bool operator==(const ResourceClaimTemplate&) const = default;
};

// ---- ResourceSlice ----

struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resourceSliceCount = 0;
  bool operator==(const ResourcePool&) const = default;
};

// Exactly one value set; JSON names int, bool, string and version.
struct DeviceAttribute {
  std::optional<int64_t> intValue;
  std::optional<bool> boolValue;
  std::optional<std::string> stringValue;
  std::optional<std::string> versionValue;  // semver 2.0.0
  bool operator==(const DeviceAttribute&) const = default;
};

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  bool operator==(const CapacityRequestPolicyRange&) const = default;
};

struct CapacityRequestPolicy {
  std::optional<Quantity> default_;  // "default" in JSON
  std::vector<Quantity> validValues;
  std::optional<CapacityRequestPolicyRange> validRange;
  bool operator==(const CapacityRequestPolicy&) const = default;
};

struct DeviceCapacity {
  Quantity value;
  std::optional<CapacityRequestPolicy> requestPolicy;
  bool operator==(const DeviceCapacity&) const = default;
};

struct Counter {
  Quantity value;
  bool operator==(const Counter&) const = default;
};

struct CounterSet {
  std::string name;
  std::map<std::string, Counter> counters;
  bool operator==(const CounterSet&) const = default;
};

struct DeviceCounterConsumption {
  std::string counterSet;
  std::map<std::string, Counter> counters;
  bool operator==(const DeviceCounterConsumption&) const = default;
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule or NoExecute
  std::optional<Time> timeAdded;
  bool operator==(const DeviceTaint&) const = default;
};

struct Device {
  std::string name;
  std::map<std::string, DeviceAttribute> attributes;  // by QualifiedName
  std::map<std::string, DeviceCapacity> capacity;     // by QualifiedName
  std::vector<DeviceCounterConsumption> consumesCounters;
  // With the slice's perDeviceNodeSelection: exactly one of these three.
  std::optional<std::string> nodeName;
  std::optional<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> bindsToNode;
  std::vector<std::string> bindingConditions;
  std::vector<std::string> bindingFailureConditions;
  std::optional<bool> allowMultipleAllocations;
  bool operator==(const Device&) const = default;
};

struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  // Exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection.
  std::optional<std::string> nodeName;
  std::optional<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  std::vector<Device> devices;
  std::optional<bool> perDeviceNodeSelection;
  std::vector<CounterSet> sharedCounters;
  bool operator==(const ResourceSliceSpec&) const = default;
};

struct ResourceSlice {
  static constexpr std::string_view kKind = "ResourceSlice";
  static constexpr std::string_view kApiVersion = "resource.k8s.io/v1";
  ObjectMeta metadata;
  ResourceSliceSpec spec;
  bool operator==(const ResourceSlice&) const = default;
};

}  // namespace ks::api
