// resource.k8s.io/v1: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceTaintRule and
// their parts.
// Writers follow the Go types' json tags: omitempty fields only when set, the others always.

#include <string_view>

#include "pkg/api/json/internal.h"

namespace ks::api::jsoncodec {

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

KS_JSON_CODEC(Condition)

// ---- DeviceClass ----

KS_JSON_CODEC(CELDeviceSelector)
KS_JSON_CODEC(DeviceSelector)
KS_JSON_CODEC(OpaqueDeviceConfiguration)

KS_JSON_CODEC_INLINE(DeviceClassConfiguration, DeviceConfiguration)

KS_JSON_CODEC(DeviceClassSpec)
KS_JSON_CODEC(DeviceClass)

// ---- ResourceClaim ----

KS_JSON_CODEC(DeviceToleration)
KS_JSON_CODEC(CapacityRequirements)
KS_JSON_CODEC(ExactDeviceRequest)
KS_JSON_CODEC(DeviceSubRequest)
KS_JSON_CODEC(DeviceRequest)
KS_JSON_CODEC(DeviceConstraint)

KS_JSON_CODEC_INLINE(DeviceClaimConfiguration, DeviceConfiguration)

KS_JSON_CODEC(DeviceClaim)
KS_JSON_CODEC(ResourceClaimSpec)
KS_JSON_CODEC(DeviceRequestAllocationResult)

KS_JSON_CODEC_INLINE(DeviceAllocationConfiguration, DeviceConfiguration)

KS_JSON_CODEC(DeviceAllocationResult)
KS_JSON_CODEC(AllocationResult)
KS_JSON_CODEC(ResourceClaimConsumerReference)
KS_JSON_CODEC(NetworkDeviceData)
KS_JSON_CODEC(AllocatedDeviceStatus)
KS_JSON_CODEC(ResourceClaimStatus)
KS_JSON_CODEC(ResourceClaim)
KS_JSON_CODEC(ResourceClaimTemplateSpec)
KS_JSON_CODEC(ResourceClaimTemplate)

// ---- ResourceSlice ----

KS_JSON_CODEC(ResourcePool)
KS_JSON_CODEC(DeviceAttribute)
KS_JSON_CODEC(CapacityRequestPolicyRange)
KS_JSON_CODEC(CapacityRequestPolicy)
KS_JSON_CODEC(DeviceCapacity)
KS_JSON_CODEC(Counter)
KS_JSON_CODEC(CounterSet)
KS_JSON_CODEC(DeviceCounterConsumption)
KS_JSON_CODEC(DeviceTaint)
KS_JSON_CODEC(Device)
KS_JSON_CODEC(ResourceSliceSpec)
KS_JSON_CODEC(ResourceSlice)

// ---- DeviceTaintRule ----

KS_JSON_CODEC(DeviceTaintSelector)
KS_JSON_CODEC(DeviceTaintRuleSpec)
KS_JSON_CODEC(DeviceTaintRuleStatus)
KS_JSON_CODEC(DeviceTaintRule)

}  // namespace ks::api::jsoncodec
