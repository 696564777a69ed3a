#pragma once
// Consumable capacity (DRAConsumableCapacity, upstream consumable_capacity.go): how much of a
// multi-allocatable device's capacity one request consumes, after rounding up to the device's request
// policy, and whether that still fits next to what is already consumed.

#include <map>
#include <optional>
#include <string>

#include "pkg/api/resource.h"
#include "pkg/dra/structured/types.h"
#include "pkg/util/result.h"

namespace ks::dra::structured {

// True when `requested` (may be null) fits into `capacity` on top of `currentConsumed` and
// `allocatingCapacity`, with every capacity's request policy respected. Errors when the request names a
// capacity the device does not have. `allowMultipleAllocations` is unused, as upstream.
Result<bool> cmpRequestOverCapacity(const ConsumedCapacity& currentConsumed,
                                    const api::CapacityRequirements* requested,
                                    const std::optional<bool>& allowMultipleAllocations,
                                    const std::map<std::string, api::DeviceCapacity>& capacity,
                                    const ConsumedCapacity* allocatingCapacity);

// The amount of every capacity of the device that a request consumes: its (rounded-up) request, or the
// policy's default, or the whole capacity when it asks for nothing.
ConsumedCapacity consumedCapacityFromRequest(const api::CapacityRequirements* requested,
                                             const std::map<std::string, api::DeviceCapacity>& capacity);

// The consumed amount for one capacity (upstream calculateConsumedCapacity).
api::Quantity calculateConsumedCapacity(const api::Quantity* requested, const api::DeviceCapacity& capacity);

// Whether `value` is outside the policy (upstream violatesPolicy).
bool violatesPolicy(const api::Quantity& value, const std::optional<api::CapacityRequestPolicy>& policy);

}  // namespace ks::dra::structured
