// resource.k8s.io/v1: DeviceClass, ResourceClaim, ResourceSlice and their parts, as pkg/api/json/resource.cpp
// reads them (with the same API server defaults).

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

namespace {

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest, as the JSON codec applies them.
void defaultAllocationMode(std::string& allocationMode, int64_t& count) {
  if (allocationMode.empty()) allocationMode = kDeviceAllocationModeExactCount;
  if (allocationMode == kDeviceAllocationModeExactCount && count == 0) count = 1;
}

// DeviceConfiguration {opaque = 1}: a message on the wire, inlined in JSON and in the model.
bool deviceConfiguration(DecodeContext& ctx, const Field& f,
                         std::optional<OpaqueDeviceConfiguration>& opaque) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  return each(ctx, f.bytes, [&](const Field& c) { return c.number != 1 || get(ctx, c, "opaque", opaque); });
}

}  // namespace

// runtime.RawExtension {raw = 1}: raw is the JSON text the object was written with; the model keeps it as
// the JSON codec does (compact, keys sorted), so that both codecs give equal values. Text that is not JSON
// (possible only from a protobuf client) is kept as it is.
bool read(DecodeContext& ctx, std::string_view msg, RawExtension& out) {
  std::string raw;
  if (!each(ctx, msg, [&](const Field& f) { return f.number != 1 || value(ctx, f, raw); })) return false;
  nlohmann::json j = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    out.json = std::move(raw);
  } else {
    out.json = j.is_null() ? std::string() : j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return true;
}

// metav1.Condition.
bool read(DecodeContext& ctx, std::string_view msg, Condition& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "type", out.type);
      case 2:
        return get(ctx, f, "status", out.status);
      case 3:
        return get(ctx, f, "observedGeneration", out.observedGeneration);
      case 4:
        return get(ctx, f, "lastTransitionTime", out.lastTransitionTime);
      case 5:
        return get(ctx, f, "reason", out.reason);
      case 6:
        return get(ctx, f, "message", out.message);
      default:
        return true;
    }
  });
}

// ---- DeviceClass ----

bool read(DecodeContext& ctx, std::string_view msg, CELDeviceSelector& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 1 || get(ctx, f, "expression", out.expression); });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceSelector& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "cel", out.cel); });
}

bool read(DecodeContext& ctx, std::string_view msg, OpaqueDeviceConfiguration& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "driver", out.driver);
      case 2:
        return get(ctx, f, "parameters", out.parameters);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceClassConfiguration& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 1 || deviceConfiguration(ctx, f, out.opaque); });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceClassSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "selectors", out.selectors);
      case 2:
        return get(ctx, f, "config", out.config);
      case 4:
        return get(ctx, f, "extendedResourceName", out.extendedResourceName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceClass& out) {
  return readObject(ctx, msg, out);
}

// ---- ResourceClaim ----

bool read(DecodeContext& ctx, std::string_view msg, DeviceToleration& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "operator", out.op);
      case 3:
        return get(ctx, f, "value", out.value);
      case 4:
        return get(ctx, f, "effect", out.effect);
      case 5:
        return get(ctx, f, "tolerationSeconds", out.tolerationSeconds);
      default:
        return true;
    }
  });
  if (out.op.empty()) out.op = kDeviceTolerationOpEqual;  // +default="Equal"
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, CapacityRequirements& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 1 || get(ctx, f, "requests", out.requests); });
}

bool read(DecodeContext& ctx, std::string_view msg, ExactDeviceRequest& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "deviceClassName", out.deviceClassName);
      case 2:
        return get(ctx, f, "selectors", out.selectors);
      case 3:
        return get(ctx, f, "allocationMode", out.allocationMode);
      case 4:
        return get(ctx, f, "count", out.count);
      case 5:
        return get(ctx, f, "adminAccess", out.adminAccess);
      case 6:
        return get(ctx, f, "tolerations", out.tolerations);
      case 7:
        return get(ctx, f, "capacity", out.capacity);
      default:
        return true;
    }
  });
  defaultAllocationMode(out.allocationMode, out.count);
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceSubRequest& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "deviceClassName", out.deviceClassName);
      case 3:
        return get(ctx, f, "selectors", out.selectors);
      case 4:
        return get(ctx, f, "allocationMode", out.allocationMode);
      case 5:
        return get(ctx, f, "count", out.count);
      case 6:
        return get(ctx, f, "tolerations", out.tolerations);
      case 7:
        return get(ctx, f, "capacity", out.capacity);
      default:
        return true;
    }
  });
  defaultAllocationMode(out.allocationMode, out.count);
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceRequest& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "exactly", out.exactly);
      case 3:
        return get(ctx, f, "firstAvailable", out.firstAvailable);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceConstraint& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requests", out.requests);
      case 2:
        return get(ctx, f, "matchAttribute", out.matchAttribute);
      case 3:
        return get(ctx, f, "distinctAttribute", out.distinctAttribute);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceClaimConfiguration& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requests", out.requests);
      case 2:
        return deviceConfiguration(ctx, f, out.opaque);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceClaim& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requests", out.requests);
      case 2:
        return get(ctx, f, "constraints", out.constraints);
      case 3:
        return get(ctx, f, "config", out.config);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceClaimSpec& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "devices", out.devices); });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceRequestAllocationResult& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "request", out.request);
      case 2:
        return get(ctx, f, "driver", out.driver);
      case 3:
        return get(ctx, f, "pool", out.pool);
      case 4:
        return get(ctx, f, "device", out.device);
      case 5:
        return get(ctx, f, "adminAccess", out.adminAccess);
      case 6:
        return get(ctx, f, "tolerations", out.tolerations);
      case 7:
        return get(ctx, f, "bindingConditions", out.bindingConditions);
      case 8:
        return get(ctx, f, "bindingFailureConditions", out.bindingFailureConditions);
      case 9:
        return get(ctx, f, "shareID", out.shareID);
      case 10:
        return get(ctx, f, "consumedCapacity", out.consumedCapacity);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceAllocationConfiguration& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "source", out.source);
      case 2:
        return get(ctx, f, "requests", out.requests);
      case 3:
        return deviceConfiguration(ctx, f, out.opaque);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceAllocationResult& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "results", out.results);
      case 2:
        return get(ctx, f, "config", out.config);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, AllocationResult& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "devices", out.devices);
      case 3:
        return get(ctx, f, "nodeSelector", out.nodeSelector);
      case 5:
        return get(ctx, f, "allocationTimestamp", out.allocationTimestamp);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceClaimConsumerReference& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "apiGroup", out.apiGroup);
      case 3:
        return get(ctx, f, "resource", out.resource);
      case 4:
        return get(ctx, f, "name", out.name);
      case 5:
        return get(ctx, f, "uid", out.uid);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NetworkDeviceData& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "interfaceName", out.interfaceName);
      case 2:
        return get(ctx, f, "ips", out.ips);
      case 3:
        return get(ctx, f, "hardwareAddress", out.hardwareAddress);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, AllocatedDeviceStatus& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "driver", out.driver);
      case 2:
        return get(ctx, f, "pool", out.pool);
      case 3:
        return get(ctx, f, "device", out.device);
      case 4:
        return get(ctx, f, "conditions", out.conditions);
      case 5:
        return get(ctx, f, "data", out.data);
      case 6:
        return get(ctx, f, "networkData", out.networkData);
      case 7:
        return get(ctx, f, "shareID", out.shareID);
      default:
        return true;
    }
  });
  // Go writes an empty RawExtension as JSON null, which the JSON codec reads as no data.
  if (out.data && out.data->json.empty()) out.data.reset();
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceClaimStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "allocation", out.allocation);
      case 2:
        return get(ctx, f, "reservedFor", out.reservedFor);
      case 4:
        return get(ctx, f, "devices", out.devices);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceClaim& out) {
  return readObject(ctx, msg, out);
}

// ---- ResourceSlice ----

bool read(DecodeContext& ctx, std::string_view msg, ResourcePool& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "generation", out.generation);
      case 3:
        return get(ctx, f, "resourceSliceCount", out.resourceSliceCount);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceAttribute& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 2:
        return get(ctx, f, "int", out.intValue);
      case 3:
        return get(ctx, f, "bool", out.boolValue);
      case 4:
        return get(ctx, f, "string", out.stringValue);
      case 5:
        return get(ctx, f, "version", out.versionValue);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, CapacityRequestPolicyRange& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "min", out.min);
      case 2:
        return get(ctx, f, "max", out.max);
      case 3:
        return get(ctx, f, "step", out.step);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, CapacityRequestPolicy& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "default", out.default_);
      case 3:
        return get(ctx, f, "validValues", out.validValues);
      case 4:
        return get(ctx, f, "validRange", out.validRange);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceCapacity& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "value", out.value);
      case 2:
        return get(ctx, f, "requestPolicy", out.requestPolicy);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Counter& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "value", out.value); });
}

bool read(DecodeContext& ctx, std::string_view msg, CounterSet& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "counters", out.counters);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceCounterConsumption& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "counterSet", out.counterSet);
      case 2:
        return get(ctx, f, "counters", out.counters);
      case 3:
        return get(ctx, f, "compatibilityGroups", out.compatibilityGroups);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceTaint& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "value", out.value);
      case 3:
        return get(ctx, f, "effect", out.effect);
      case 4:
        return get(ctx, f, "timeAdded", out.timeAdded);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Device& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "attributes", out.attributes);
      case 3:
        return get(ctx, f, "capacity", out.capacity);
      case 4:
        return get(ctx, f, "consumesCounters", out.consumesCounters);
      case 5:
        return get(ctx, f, "nodeName", out.nodeName);
      case 6:
        return get(ctx, f, "nodeSelector", out.nodeSelector);
      case 7:
        return get(ctx, f, "allNodes", out.allNodes);
      case 8:
        return get(ctx, f, "taints", out.taints);
      case 9:
        return get(ctx, f, "bindsToNode", out.bindsToNode);
      case 10:
        return get(ctx, f, "bindingConditions", out.bindingConditions);
      case 11:
        return get(ctx, f, "bindingFailureConditions", out.bindingFailureConditions);
      case 12:
        return get(ctx, f, "allowMultipleAllocations", out.allowMultipleAllocations);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceSliceSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "driver", out.driver);
      case 2:
        return get(ctx, f, "pool", out.pool);
      case 3:
        return get(ctx, f, "nodeName", out.nodeName);
      case 4:
        return get(ctx, f, "nodeSelector", out.nodeSelector);
      case 5:
        return get(ctx, f, "allNodes", out.allNodes);
      case 6:
        return get(ctx, f, "devices", out.devices);
      case 7:
        return get(ctx, f, "perDeviceNodeSelection", out.perDeviceNodeSelection);
      case 8:
        return get(ctx, f, "sharedCounters", out.sharedCounters);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ResourceSlice& out) {
  return readObject(ctx, msg, out);
}

// ---- DeviceTaintRule (generated.proto: selector driver 2, pool 3, device 4; spec deviceSelector 1, taint 2)
// ----

bool read(DecodeContext& ctx, std::string_view msg, DeviceTaintSelector& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 2:
        return get(ctx, f, "driver", out.driver);
      case 3:
        return get(ctx, f, "pool", out.pool);
      case 4:
        return get(ctx, f, "device", out.device);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceTaintRuleSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "deviceSelector", out.deviceSelector);
      case 2:
        return get(ctx, f, "taint", out.taint);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceTaintRuleStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    return f.number == 1 ? get(ctx, f, "conditions", out.conditions) : true;
  });
}

bool read(DecodeContext& ctx, std::string_view msg, DeviceTaintRule& out) {
  return readObject(ctx, msg, out);
}

}  // namespace ks::api::protocodec
