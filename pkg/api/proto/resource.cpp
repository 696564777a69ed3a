// resource.k8s.io/v1: DeviceClass, ResourceClaim, ResourceSlice and their parts, as pkg/api/json/resource.cpp
// reads them (with the same API server defaults).

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

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

KS_PROTO_READER(Condition)

// ---- DeviceClass ----

KS_PROTO_READER(CELDeviceSelector)

KS_PROTO_READER_INLINE(DeviceClassConfiguration, DeviceConfiguration, 1)

KS_PROTO_READER(DeviceSelector)
KS_PROTO_READER(OpaqueDeviceConfiguration)

KS_PROTO_READER(DeviceClassSpec)
KS_PROTO_READER(DeviceClass)

// ---- ResourceClaim ----

KS_PROTO_READER(DeviceToleration)
KS_PROTO_READER(ExactDeviceRequest)
KS_PROTO_READER(DeviceSubRequest)
KS_PROTO_READER(CapacityRequirements)

KS_PROTO_READER(DeviceRequest)
KS_PROTO_READER(DeviceConstraint)

KS_PROTO_READER_INLINE(DeviceClaimConfiguration, DeviceConfiguration, 2)

KS_PROTO_READER(DeviceClaim)
KS_PROTO_READER(ResourceClaimSpec)
KS_PROTO_READER(DeviceRequestAllocationResult)

KS_PROTO_READER_INLINE(DeviceAllocationConfiguration, DeviceConfiguration, 3)

KS_PROTO_READER(DeviceAllocationResult)
KS_PROTO_READER(AllocationResult)
KS_PROTO_READER(ResourceClaimConsumerReference)
KS_PROTO_READER(NetworkDeviceData)
KS_PROTO_READER(AllocatedDeviceStatus)
KS_PROTO_READER(ResourceClaimStatus)
KS_PROTO_READER(ResourceClaim)

// ---- ResourceSlice ----

KS_PROTO_READER(ResourcePool)
KS_PROTO_READER(DeviceAttribute)
KS_PROTO_READER(CapacityRequestPolicyRange)
KS_PROTO_READER(CapacityRequestPolicy)
KS_PROTO_READER(DeviceCapacity)
KS_PROTO_READER(Counter)
KS_PROTO_READER(CounterSet)
KS_PROTO_READER(DeviceCounterConsumption)
KS_PROTO_READER(DeviceTaint)
KS_PROTO_READER(Device)
KS_PROTO_READER(ResourceSliceSpec)
KS_PROTO_READER(ResourceSlice)

// ---- DeviceTaintRule ----

KS_PROTO_READER(DeviceTaintSelector)
KS_PROTO_READER(DeviceTaintRuleSpec)
KS_PROTO_READER(DeviceTaintRuleStatus)
KS_PROTO_READER(DeviceTaintRule)

}  // namespace ks::api::protocodec
