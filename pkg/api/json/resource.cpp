// resource.k8s.io/v1: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceTaintRule and
// their parts.
// Writers follow the Go types' json tags: omitempty fields only when set, the others always.

#include <string_view>

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

namespace {

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest.
void defaultAllocationMode(std::string& allocationMode, int64_t& count) {
  if (allocationMode.empty()) allocationMode = kDeviceAllocationModeExactCount;
  if (allocationMode == kDeviceAllocationModeExactCount && count == 0) count = 1;
}

}  // namespace

bool read(DecodeContext& /*ctx*/, const Json& j, RawExtension& out) {
  out.json = j.is_null() ? std::string() : j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return true;
}

// Text that is not JSON (only possible for objects built in-process) encodes as null.
Json write(const RawExtension& in) {
  if (in.json.empty()) return nullptr;
  Json j = Json::parse(in.json, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? Json(nullptr) : j;
}

bool read(DecodeContext& ctx, const Json& j, Condition& out) {
  return ObjectReader(ctx, j)
      .field("type", out.type)
      .field("status", out.status)
      .field("observedGeneration", out.observedGeneration)
      .field("lastTransitionTime", out.lastTransitionTime)
      .field("reason", out.reason)
      .field("message", out.message)
      .ok();
}

Json write(const Condition& in) {
  Json o = Json::object();
  o["type"] = in.type;
  o["status"] = in.status;
  put(o, "observedGeneration", in.observedGeneration);
  o["lastTransitionTime"] = in.lastTransitionTime ? write(*in.lastTransitionTime) : Json(nullptr);
  o["reason"] = in.reason;
  o["message"] = in.message;
  return o;
}

// ---- DeviceClass ----

bool read(DecodeContext& ctx, const Json& j, CELDeviceSelector& out) {
  return ObjectReader(ctx, j).field("expression", out.expression).ok();
}

Json write(const CELDeviceSelector& in) {
  return Json{{"expression", in.expression}};
}

bool read(DecodeContext& ctx, const Json& j, DeviceSelector& out) {
  return ObjectReader(ctx, j).field("cel", out.cel).ok();
}

Json write(const DeviceSelector& in) {
  Json o = Json::object();
  put(o, "cel", in.cel);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, OpaqueDeviceConfiguration& out) {
  return ObjectReader(ctx, j).field("driver", out.driver).field("parameters", out.parameters).ok();
}

Json write(const OpaqueDeviceConfiguration& in) {
  Json o = Json::object();
  o["driver"] = in.driver;
  o["parameters"] = write(in.parameters);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceClassConfiguration& out) {
  return ObjectReader(ctx, j).field("opaque", out.opaque).ok();
}

Json write(const DeviceClassConfiguration& in) {
  Json o = Json::object();
  put(o, "opaque", in.opaque);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceClassSpec& out) {
  return ObjectReader(ctx, j)
      .field("selectors", out.selectors)
      .field("config", out.config)
      .field("extendedResourceName", out.extendedResourceName)
      .ok();
}

Json write(const DeviceClassSpec& in) {
  Json o = Json::object();
  put(o, "selectors", in.selectors);
  put(o, "config", in.config);
  put(o, "extendedResourceName", in.extendedResourceName);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceClass& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const DeviceClass& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

// ---- ResourceClaim ----

bool read(DecodeContext& ctx, const Json& j, DeviceToleration& out) {
  bool ok = ObjectReader(ctx, j)
                .field("key", out.key)
                .field("operator", out.op)
                .field("value", out.value)
                .field("effect", out.effect)
                .field("tolerationSeconds", out.tolerationSeconds)
                .ok();
  if (out.op.empty()) out.op = kDeviceTolerationOpEqual;  // +default="Equal"
  return ok;
}

Json write(const DeviceToleration& in) {
  Json o = Json::object();
  put(o, "key", in.key);
  put(o, "operator", in.op);
  put(o, "value", in.value);
  put(o, "effect", in.effect);
  put(o, "tolerationSeconds", in.tolerationSeconds);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CapacityRequirements& out) {
  return ObjectReader(ctx, j).field("requests", out.requests).ok();
}

Json write(const CapacityRequirements& in) {
  Json o = Json::object();
  put(o, "requests", in.requests);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ExactDeviceRequest& out) {
  bool ok = ObjectReader(ctx, j)
                .field("deviceClassName", out.deviceClassName)
                .field("selectors", out.selectors)
                .field("allocationMode", out.allocationMode)
                .field("count", out.count)
                .field("adminAccess", out.adminAccess)
                .field("tolerations", out.tolerations)
                .field("capacity", out.capacity)
                .ok();
  defaultAllocationMode(out.allocationMode, out.count);
  return ok;
}

Json write(const ExactDeviceRequest& in) {
  Json o = Json::object();
  o["deviceClassName"] = in.deviceClassName;
  put(o, "selectors", in.selectors);
  put(o, "allocationMode", in.allocationMode);
  put(o, "count", in.count);
  put(o, "adminAccess", in.adminAccess);
  put(o, "tolerations", in.tolerations);
  put(o, "capacity", in.capacity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceSubRequest& out) {
  bool ok = ObjectReader(ctx, j)
                .field("name", out.name)
                .field("deviceClassName", out.deviceClassName)
                .field("selectors", out.selectors)
                .field("allocationMode", out.allocationMode)
                .field("count", out.count)
                .field("tolerations", out.tolerations)
                .field("capacity", out.capacity)
                .ok();
  defaultAllocationMode(out.allocationMode, out.count);
  return ok;
}

Json write(const DeviceSubRequest& in) {
  Json o = Json::object();
  o["name"] = in.name;
  o["deviceClassName"] = in.deviceClassName;
  put(o, "selectors", in.selectors);
  put(o, "allocationMode", in.allocationMode);
  put(o, "count", in.count);
  put(o, "tolerations", in.tolerations);
  put(o, "capacity", in.capacity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceRequest& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("exactly", out.exactly)
      .field("firstAvailable", out.firstAvailable)
      .ok();
}

Json write(const DeviceRequest& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "exactly", in.exactly);
  put(o, "firstAvailable", in.firstAvailable);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceConstraint& out) {
  return ObjectReader(ctx, j)
      .field("requests", out.requests)
      .field("matchAttribute", out.matchAttribute)
      .field("distinctAttribute", out.distinctAttribute)
      .ok();
}

Json write(const DeviceConstraint& in) {
  Json o = Json::object();
  put(o, "requests", in.requests);
  put(o, "matchAttribute", in.matchAttribute);
  put(o, "distinctAttribute", in.distinctAttribute);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceClaimConfiguration& out) {
  return ObjectReader(ctx, j).field("requests", out.requests).field("opaque", out.opaque).ok();
}

Json write(const DeviceClaimConfiguration& in) {
  Json o = Json::object();
  put(o, "requests", in.requests);
  put(o, "opaque", in.opaque);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceClaim& out) {
  return ObjectReader(ctx, j)
      .field("requests", out.requests)
      .field("constraints", out.constraints)
      .field("config", out.config)
      .ok();
}

Json write(const DeviceClaim& in) {
  Json o = Json::object();
  o["requests"] = write(in.requests);
  put(o, "constraints", in.constraints);
  put(o, "config", in.config);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaimSpec& out) {
  return ObjectReader(ctx, j).field("devices", out.devices).ok();
}

Json write(const ResourceClaimSpec& in) {
  return Json{{"devices", write(in.devices)}};
}

bool read(DecodeContext& ctx, const Json& j, DeviceRequestAllocationResult& out) {
  return ObjectReader(ctx, j)
      .field("request", out.request)
      .field("driver", out.driver)
      .field("pool", out.pool)
      .field("device", out.device)
      .field("adminAccess", out.adminAccess)
      .field("tolerations", out.tolerations)
      .field("bindingConditions", out.bindingConditions)
      .field("bindingFailureConditions", out.bindingFailureConditions)
      .field("shareID", out.shareID)
      .field("consumedCapacity", out.consumedCapacity)
      .ok();
}

Json write(const DeviceRequestAllocationResult& in) {
  Json o = Json::object();
  o["request"] = in.request;
  o["driver"] = in.driver;
  o["pool"] = in.pool;
  o["device"] = in.device;
  put(o, "adminAccess", in.adminAccess);
  put(o, "tolerations", in.tolerations);
  put(o, "bindingConditions", in.bindingConditions);
  put(o, "bindingFailureConditions", in.bindingFailureConditions);
  put(o, "shareID", in.shareID);
  put(o, "consumedCapacity", in.consumedCapacity);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceAllocationConfiguration& out) {
  return ObjectReader(ctx, j)
      .field("source", out.source)
      .field("requests", out.requests)
      .field("opaque", out.opaque)
      .ok();
}

Json write(const DeviceAllocationConfiguration& in) {
  Json o = Json::object();
  o["source"] = in.source;
  put(o, "requests", in.requests);
  put(o, "opaque", in.opaque);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceAllocationResult& out) {
  return ObjectReader(ctx, j).field("results", out.results).field("config", out.config).ok();
}

Json write(const DeviceAllocationResult& in) {
  Json o = Json::object();
  put(o, "results", in.results);
  put(o, "config", in.config);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, AllocationResult& out) {
  return ObjectReader(ctx, j)
      .field("devices", out.devices)
      .field("nodeSelector", out.nodeSelector)
      .field("allocationTimestamp", out.allocationTimestamp)
      .ok();
}

Json write(const AllocationResult& in) {
  Json o = Json::object();
  o["devices"] = write(in.devices);
  put(o, "nodeSelector", in.nodeSelector);
  putTime(o, "allocationTimestamp", in.allocationTimestamp);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaimConsumerReference& out) {
  return ObjectReader(ctx, j)
      .field("apiGroup", out.apiGroup)
      .field("resource", out.resource)
      .field("name", out.name)
      .field("uid", out.uid)
      .ok();
}

Json write(const ResourceClaimConsumerReference& in) {
  Json o = Json::object();
  put(o, "apiGroup", in.apiGroup);
  o["resource"] = in.resource;
  o["name"] = in.name;
  o["uid"] = in.uid;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, NetworkDeviceData& out) {
  return ObjectReader(ctx, j)
      .field("interfaceName", out.interfaceName)
      .field("ips", out.ips)
      .field("hardwareAddress", out.hardwareAddress)
      .ok();
}

Json write(const NetworkDeviceData& in) {
  Json o = Json::object();
  put(o, "interfaceName", in.interfaceName);
  put(o, "ips", in.ips);
  put(o, "hardwareAddress", in.hardwareAddress);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, AllocatedDeviceStatus& out) {
  return ObjectReader(ctx, j)
      .field("driver", out.driver)
      .field("pool", out.pool)
      .field("device", out.device)
      .field("shareID", out.shareID)
      .field("conditions", out.conditions)
      .field("data", out.data)
      .field("networkData", out.networkData)
      .ok();
}

Json write(const AllocatedDeviceStatus& in) {
  Json o = Json::object();
  o["driver"] = in.driver;
  o["pool"] = in.pool;
  o["device"] = in.device;
  put(o, "shareID", in.shareID);
  put(o, "conditions", in.conditions);
  put(o, "data", in.data);
  put(o, "networkData", in.networkData);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaimStatus& out) {
  return ObjectReader(ctx, j)
      .field("allocation", out.allocation)
      .field("reservedFor", out.reservedFor)
      .field("devices", out.devices)
      .ok();
}

Json write(const ResourceClaimStatus& in) {
  Json o = Json::object();
  put(o, "allocation", in.allocation);
  put(o, "reservedFor", in.reservedFor);
  put(o, "devices", in.devices);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaim& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .field("status", out.status)
      .ok();
}

Json write(const ResourceClaim& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaimTemplateSpec& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const ResourceClaimTemplateSpec& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceClaimTemplate& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const ResourceClaimTemplate& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

// ---- ResourceSlice ----

bool read(DecodeContext& ctx, const Json& j, ResourcePool& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("generation", out.generation)
      .field("resourceSliceCount", out.resourceSliceCount)
      .ok();
}

Json write(const ResourcePool& in) {
  Json o = Json::object();
  o["name"] = in.name;
  o["generation"] = in.generation;
  o["resourceSliceCount"] = in.resourceSliceCount;
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceAttribute& out) {
  return ObjectReader(ctx, j)
      .field("int", out.intValue)
      .field("bool", out.boolValue)
      .field("string", out.stringValue)
      .field("version", out.versionValue)
      .ok();
}

Json write(const DeviceAttribute& in) {
  Json o = Json::object();
  put(o, "int", in.intValue);
  put(o, "bool", in.boolValue);
  put(o, "string", in.stringValue);
  put(o, "version", in.versionValue);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CapacityRequestPolicyRange& out) {
  return ObjectReader(ctx, j).field("min", out.min).field("max", out.max).field("step", out.step).ok();
}

Json write(const CapacityRequestPolicyRange& in) {
  Json o = Json::object();
  put(o, "min", in.min);
  put(o, "max", in.max);
  put(o, "step", in.step);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, CapacityRequestPolicy& out) {
  return ObjectReader(ctx, j)
      .field("default", out.default_)
      .field("validValues", out.validValues)
      .field("validRange", out.validRange)
      .ok();
}

Json write(const CapacityRequestPolicy& in) {
  Json o = Json::object();
  put(o, "default", in.default_);
  put(o, "validValues", in.validValues);
  put(o, "validRange", in.validRange);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceCapacity& out) {
  return ObjectReader(ctx, j).field("value", out.value).field("requestPolicy", out.requestPolicy).ok();
}

Json write(const DeviceCapacity& in) {
  Json o = Json::object();
  o["value"] = write(in.value);
  put(o, "requestPolicy", in.requestPolicy);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Counter& out) {
  return ObjectReader(ctx, j).field("value", out.value).ok();
}

Json write(const Counter& in) {
  return Json{{"value", write(in.value)}};
}

bool read(DecodeContext& ctx, const Json& j, CounterSet& out) {
  return ObjectReader(ctx, j).field("name", out.name).field("counters", out.counters).ok();
}

Json write(const CounterSet& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "counters", in.counters);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceCounterConsumption& out) {
  return ObjectReader(ctx, j)
      .field("counterSet", out.counterSet)
      .field("counters", out.counters)
      .field("compatibilityGroups", out.compatibilityGroups)
      .ok();
}

Json write(const DeviceCounterConsumption& in) {
  Json o = Json::object();
  o["counterSet"] = in.counterSet;
  put(o, "counters", in.counters);
  put(o, "compatibilityGroups", in.compatibilityGroups);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceTaint& out) {
  return ObjectReader(ctx, j)
      .field("key", out.key)
      .field("value", out.value)
      .field("effect", out.effect)
      .field("timeAdded", out.timeAdded)
      .ok();
}

Json write(const DeviceTaint& in) {
  Json o = Json::object();
  o["key"] = in.key;
  put(o, "value", in.value);
  o["effect"] = in.effect;
  putTime(o, "timeAdded", in.timeAdded);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, Device& out) {
  return ObjectReader(ctx, j)
      .field("name", out.name)
      .field("attributes", out.attributes)
      .field("capacity", out.capacity)
      .field("consumesCounters", out.consumesCounters)
      .field("nodeName", out.nodeName)
      .field("nodeSelector", out.nodeSelector)
      .field("allNodes", out.allNodes)
      .field("taints", out.taints)
      .field("bindsToNode", out.bindsToNode)
      .field("bindingConditions", out.bindingConditions)
      .field("bindingFailureConditions", out.bindingFailureConditions)
      .field("allowMultipleAllocations", out.allowMultipleAllocations)
      .ok();
}

Json write(const Device& in) {
  Json o = Json::object();
  o["name"] = in.name;
  put(o, "attributes", in.attributes);
  put(o, "capacity", in.capacity);
  put(o, "consumesCounters", in.consumesCounters);
  put(o, "nodeName", in.nodeName);
  put(o, "nodeSelector", in.nodeSelector);
  put(o, "allNodes", in.allNodes);
  put(o, "taints", in.taints);
  put(o, "bindsToNode", in.bindsToNode);
  put(o, "bindingConditions", in.bindingConditions);
  put(o, "bindingFailureConditions", in.bindingFailureConditions);
  put(o, "allowMultipleAllocations", in.allowMultipleAllocations);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceSliceSpec& out) {
  return ObjectReader(ctx, j)
      .field("driver", out.driver)
      .field("pool", out.pool)
      .field("nodeName", out.nodeName)
      .field("nodeSelector", out.nodeSelector)
      .field("allNodes", out.allNodes)
      .field("devices", out.devices)
      .field("perDeviceNodeSelection", out.perDeviceNodeSelection)
      .field("sharedCounters", out.sharedCounters)
      .ok();
}

Json write(const ResourceSliceSpec& in) {
  Json o = Json::object();
  o["driver"] = in.driver;
  o["pool"] = write(in.pool);
  put(o, "nodeName", in.nodeName);
  put(o, "nodeSelector", in.nodeSelector);
  put(o, "allNodes", in.allNodes);
  o["devices"] = write(in.devices);
  put(o, "perDeviceNodeSelection", in.perDeviceNodeSelection);
  put(o, "sharedCounters", in.sharedCounters);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, ResourceSlice& out) {
  return ObjectReader(ctx, j).field("metadata", out.metadata).field("spec", out.spec).ok();
}

Json write(const ResourceSlice& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  return o;
}

// ---- DeviceTaintRule ----

bool read(DecodeContext& ctx, const Json& j, DeviceTaintSelector& out) {
  return ObjectReader(ctx, j)
      .field("driver", out.driver)
      .field("pool", out.pool)
      .field("device", out.device)
      .ok();
}

Json write(const DeviceTaintSelector& in) {
  Json o = Json::object();
  put(o, "driver", in.driver);
  put(o, "pool", in.pool);
  put(o, "device", in.device);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceTaintRuleSpec& out) {
  return ObjectReader(ctx, j).field("deviceSelector", out.deviceSelector).field("taint", out.taint).ok();
}

Json write(const DeviceTaintRuleSpec& in) {
  Json o = Json::object();
  put(o, "deviceSelector", in.deviceSelector);
  o["taint"] = write(in.taint);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceTaintRuleStatus& out) {
  return ObjectReader(ctx, j).field("conditions", out.conditions).ok();
}

Json write(const DeviceTaintRuleStatus& in) {
  Json o = Json::object();
  put(o, "conditions", in.conditions);
  return o;
}

bool read(DecodeContext& ctx, const Json& j, DeviceTaintRule& out) {
  return ObjectReader(ctx, j)
      .field("metadata", out.metadata)
      .field("spec", out.spec)
      .field("status", out.status)
      .ok();
}

Json write(const DeviceTaintRule& in) {
  Json o = Json::object();
  o["metadata"] = write(in.metadata);
  o["spec"] = write(in.spec);
  o["status"] = write(in.status);
  return o;
}

}  // namespace ks::api::jsoncodec
