#pragma once
// Field tables (schema.h) of resource.k8s.io/v1 (DeviceClass, ResourceClaim, ResourceClaimTemplate,
// ResourceSlice, DeviceTaintRule and their parts) and metav1.Condition; the API defaults they get on
// decoding.
// ResourceClaimTemplate has no protobuf reader.
// Hand-written: RawExtension (JSON text kept as it is, both codecs). DeviceConfiguration is inlined into the
// three *Configuration types (KS_JSON_CODEC_INLINE / KS_PROTO_READER_INLINE).

#include <string>

#include "pkg/api/resource.h"
#include "pkg/api/schema/schema.h"

namespace ks::api::schema {

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest.
template <typename Request>
void defaultAllocationMode(Request& r) {
  if (r.allocationMode.empty()) r.allocationMode = kDeviceAllocationModeExactCount;
  if (r.allocationMode == kDeviceAllocationModeExactCount && r.count == 0) r.count = 1;
}
inline void setDefaults(ExactDeviceRequest& out) {
  defaultAllocationMode(out);
}
inline void setDefaults(DeviceSubRequest& out) {
  defaultAllocationMode(out);
}

inline void setDefaults(DeviceToleration& out) {
  if (out.op.empty()) out.op = kDeviceTolerationOpEqual;  // +default="Equal"
}

// Go writes an empty RawExtension as JSON null (no data), and as an empty message in protobuf.
inline void setDefaults(AllocatedDeviceStatus& out) {
  if (out.data && out.data->json.empty()) out.data.reset();
}

}  // namespace ks::api::schema

#define KS_FIELDS_Condition(X) \
  X(type, "type", 1, Always) \
  X(status, "status", 2, Always) \
  X(observedGeneration, "observedGeneration", 3, OmitEmpty) \
  X(lastTransitionTime, "lastTransitionTime", 4, Nullable) \
  X(reason, "reason", 5, Always) \
  X(message, "message", 6, Always)

#define KS_FIELDS_CELDeviceSelector(X) \
  X(expression, "expression", 1, Always)

#define KS_FIELDS_DeviceSelector(X) \
  X(cel, "cel", 1, OmitEmpty)

#define KS_FIELDS_OpaqueDeviceConfiguration(X) \
  X(driver, "driver", 1, Always) \
  X(parameters, "parameters", 2, Always)

// DeviceConfiguration {opaque = 1}: a message on the wire (DeviceClassConfiguration 1,
// DeviceClaimConfiguration 2, DeviceAllocationConfiguration 3), inlined in JSON and in the model.
#define KS_FIELDS_DeviceConfiguration(X) \
  X(opaque, "opaque", 1, OmitEmpty)
#define KS_FIELDS_DeviceClassConfiguration(X)  // all in DeviceConfiguration = 1

#define KS_FIELDS_DeviceClassSpec(X) \
  X(selectors, "selectors", 1, OmitEmpty) \
  X(config, "config", 2, OmitEmpty) \
  X(extendedResourceName, "extendedResourceName", 4, OmitEmpty)

#define KS_FIELDS_DeviceClass(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_DeviceToleration(X) \
  X(key, "key", 1, OmitEmpty) \
  X(op, "operator", 2, OmitEmpty) \
  X(value, "value", 3, OmitEmpty) \
  X(effect, "effect", 4, OmitEmpty) \
  X(tolerationSeconds, "tolerationSeconds", 5, OmitEmpty)

#define KS_FIELDS_CapacityRequirements(X) \
  X(requests, "requests", 1, OmitEmpty)

#define KS_FIELDS_ExactDeviceRequest(X) \
  X(deviceClassName, "deviceClassName", 1, Always) \
  X(selectors, "selectors", 2, OmitEmpty) \
  X(allocationMode, "allocationMode", 3, OmitEmpty) \
  X(count, "count", 4, OmitEmpty) \
  X(adminAccess, "adminAccess", 5, OmitEmpty) \
  X(tolerations, "tolerations", 6, OmitEmpty) \
  X(capacity, "capacity", 7, OmitEmpty)

#define KS_FIELDS_DeviceSubRequest(X) \
  X(name, "name", 1, Always) \
  X(deviceClassName, "deviceClassName", 2, Always) \
  X(selectors, "selectors", 3, OmitEmpty) \
  X(allocationMode, "allocationMode", 4, OmitEmpty) \
  X(count, "count", 5, OmitEmpty) \
  X(tolerations, "tolerations", 6, OmitEmpty) \
  X(capacity, "capacity", 7, OmitEmpty)

#define KS_FIELDS_DeviceRequest(X) \
  X(name, "name", 1, Always) \
  X(exactly, "exactly", 2, OmitEmpty) \
  X(firstAvailable, "firstAvailable", 3, OmitEmpty)

#define KS_FIELDS_DeviceConstraint(X) \
  X(requests, "requests", 1, OmitEmpty) \
  X(matchAttribute, "matchAttribute", 2, OmitEmpty) \
  X(distinctAttribute, "distinctAttribute", 3, OmitEmpty)

#define KS_FIELDS_DeviceClaimConfiguration(X) \
  X(requests, "requests", 1, OmitEmpty)

#define KS_FIELDS_DeviceClaim(X) \
  X(requests, "requests", 1, Always) \
  X(constraints, "constraints", 2, OmitEmpty) \
  X(config, "config", 3, OmitEmpty)

#define KS_FIELDS_ResourceClaimSpec(X) \
  X(devices, "devices", 1, Always)

#define KS_FIELDS_DeviceRequestAllocationResult(X) \
  X(request, "request", 1, Always) \
  X(driver, "driver", 2, Always) \
  X(pool, "pool", 3, Always) \
  X(device, "device", 4, Always) \
  X(adminAccess, "adminAccess", 5, OmitEmpty) \
  X(tolerations, "tolerations", 6, OmitEmpty) \
  X(bindingConditions, "bindingConditions", 7, OmitEmpty) \
  X(bindingFailureConditions, "bindingFailureConditions", 8, OmitEmpty) \
  X(shareID, "shareID", 9, OmitEmpty) \
  X(consumedCapacity, "consumedCapacity", 10, OmitEmpty)

#define KS_FIELDS_DeviceAllocationConfiguration(X) \
  X(source, "source", 1, Always) \
  X(requests, "requests", 2, OmitEmpty)

#define KS_FIELDS_DeviceAllocationResult(X) \
  X(results, "results", 1, OmitEmpty) \
  X(config, "config", 2, OmitEmpty)

#define KS_FIELDS_AllocationResult(X) \
  X(devices, "devices", 1, Always) \
  X(nodeSelector, "nodeSelector", 3, OmitEmpty) \
  X(allocationTimestamp, "allocationTimestamp", 5, OmitEmpty)

#define KS_FIELDS_ResourceClaimConsumerReference(X) \
  X(apiGroup, "apiGroup", 1, OmitEmpty) \
  X(resource, "resource", 3, Always) \
  X(name, "name", 4, Always) \
  X(uid, "uid", 5, Always)

#define KS_FIELDS_NetworkDeviceData(X) \
  X(interfaceName, "interfaceName", 1, OmitEmpty) \
  X(ips, "ips", 2, OmitEmpty) \
  X(hardwareAddress, "hardwareAddress", 3, OmitEmpty)

#define KS_FIELDS_AllocatedDeviceStatus(X) \
  X(driver, "driver", 1, Always) \
  X(pool, "pool", 2, Always) \
  X(device, "device", 3, Always) \
  X(shareID, "shareID", 7, OmitEmpty) \
  X(conditions, "conditions", 4, OmitEmpty) \
  X(data, "data", 5, OmitEmpty) \
  X(networkData, "networkData", 6, OmitEmpty)

#define KS_FIELDS_ResourceClaimStatus(X) \
  X(allocation, "allocation", 1, OmitEmpty) \
  X(reservedFor, "reservedFor", 2, OmitEmpty) \
  X(devices, "devices", 4, OmitEmpty)

#define KS_FIELDS_ResourceClaim(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

#define KS_FIELDS_ResourceClaimTemplateSpec(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_ResourceClaimTemplate(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_ResourcePool(X) \
  X(name, "name", 1, Always) \
  X(generation, "generation", 2, Always) \
  X(resourceSliceCount, "resourceSliceCount", 3, Always)

#define KS_FIELDS_DeviceAttribute(X) \
  X(intValue, "int", 2, OmitEmpty) \
  X(boolValue, "bool", 3, OmitEmpty) \
  X(stringValue, "string", 4, OmitEmpty) \
  X(versionValue, "version", 5, OmitEmpty)

#define KS_FIELDS_CapacityRequestPolicyRange(X) \
  X(min, "min", 1, OmitEmpty) \
  X(max, "max", 2, OmitEmpty) \
  X(step, "step", 3, OmitEmpty)

#define KS_FIELDS_CapacityRequestPolicy(X) \
  X(default_, "default", 1, OmitEmpty) \
  X(validValues, "validValues", 3, OmitEmpty) \
  X(validRange, "validRange", 4, OmitEmpty)

#define KS_FIELDS_DeviceCapacity(X) \
  X(value, "value", 1, Always) \
  X(requestPolicy, "requestPolicy", 2, OmitEmpty)

#define KS_FIELDS_Counter(X) \
  X(value, "value", 1, Always)

#define KS_FIELDS_CounterSet(X) \
  X(name, "name", 1, Always) \
  X(counters, "counters", 2, OmitEmpty)

#define KS_FIELDS_DeviceCounterConsumption(X) \
  X(counterSet, "counterSet", 1, Always) \
  X(counters, "counters", 2, OmitEmpty) \
  X(compatibilityGroups, "compatibilityGroups", 3, OmitEmpty)

#define KS_FIELDS_DeviceTaint(X) \
  X(key, "key", 1, Always) \
  X(value, "value", 2, OmitEmpty) \
  X(effect, "effect", 3, Always) \
  X(timeAdded, "timeAdded", 4, OmitEmpty)

#define KS_FIELDS_Device(X) \
  X(name, "name", 1, Always) \
  X(attributes, "attributes", 2, OmitEmpty) \
  X(capacity, "capacity", 3, OmitEmpty) \
  X(consumesCounters, "consumesCounters", 4, OmitEmpty) \
  X(nodeName, "nodeName", 5, OmitEmpty) \
  X(nodeSelector, "nodeSelector", 6, OmitEmpty) \
  X(allNodes, "allNodes", 7, OmitEmpty) \
  X(taints, "taints", 8, OmitEmpty) \
  X(bindsToNode, "bindsToNode", 9, OmitEmpty) \
  X(bindingConditions, "bindingConditions", 10, OmitEmpty) \
  X(bindingFailureConditions, "bindingFailureConditions", 11, OmitEmpty) \
  X(allowMultipleAllocations, "allowMultipleAllocations", 12, OmitEmpty)

#define KS_FIELDS_ResourceSliceSpec(X) \
  X(driver, "driver", 1, Always) \
  X(pool, "pool", 2, Always) \
  X(nodeName, "nodeName", 3, OmitEmpty) \
  X(nodeSelector, "nodeSelector", 4, OmitEmpty) \
  X(allNodes, "allNodes", 5, OmitEmpty) \
  X(devices, "devices", 6, Always) \
  X(perDeviceNodeSelection, "perDeviceNodeSelection", 7, OmitEmpty) \
  X(sharedCounters, "sharedCounters", 8, OmitEmpty)

#define KS_FIELDS_ResourceSlice(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always)

#define KS_FIELDS_DeviceTaintSelector(X) \
  X(driver, "driver", 2, OmitEmpty) \
  X(pool, "pool", 3, OmitEmpty) \
  X(device, "device", 4, OmitEmpty)

#define KS_FIELDS_DeviceTaintRuleSpec(X) \
  X(deviceSelector, "deviceSelector", 1, OmitEmpty) \
  X(taint, "taint", 2, Always)

#define KS_FIELDS_DeviceTaintRuleStatus(X) \
  X(conditions, "conditions", 1, OmitEmpty)

#define KS_FIELDS_DeviceTaintRule(X) \
  X(metadata, "metadata", 1, Always) \
  X(spec, "spec", 2, Always) \
  X(status, "status", 3, Always)

