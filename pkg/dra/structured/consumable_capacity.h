#pragma once
// Consumable capacity (DRAConsumableCapacity, upstream consumable_capacity.go): how much of a
// multi-allocatable device's capacity one request consumes, after rounding up to the device's request
// policy, and whether that still fits next to what is already consumed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "pkg/api/resource.h"
#include "pkg/dra/structured/types.h"
#include "pkg/util/result.h"

namespace ks::dra::structured {

// `fractionalCapacityRange` (DRAFractionalCapacityRange): a range policy with fractional min/max/step
// rounds and checks in milli units instead of whole units.

// True when `requested` (may be null) fits into `capacity` on top of `currentConsumed` and
// `allocatingCapacity`, with every capacity's request policy respected; false also when the request names a
// capacity the device does not have. Errors (which abort the allocation) when a request cannot be
// represented in the range arithmetic or resolves to a negative amount. `allowMultipleAllocations` is
// unused, as upstream.
Result<bool> cmpRequestOverCapacity(const ConsumedCapacity& currentConsumed,
                                    const api::CapacityRequirements* requested,
                                    const std::optional<bool>& allowMultipleAllocations,
                                    const std::map<std::string, api::DeviceCapacity>& capacity,
                                    const ConsumedCapacity* allocatingCapacity, bool fractionalCapacityRange);

// The amount of every capacity of the device that a request consumes: its (rounded-up) request, or the
// policy's default, or the whole capacity when it asks for nothing.
Result<ConsumedCapacity> consumedCapacityFromRequest(
    const api::CapacityRequirements* requested, const std::map<std::string, api::DeviceCapacity>& capacity,
    bool fractionalCapacityRange);

// The consumed amount for one capacity (upstream calculateConsumedCapacity); an error when the request
// cannot be represented.
Result<api::Quantity> calculateConsumedCapacity(const api::Quantity* requested,
                                                const api::DeviceCapacity& capacity,
                                                bool fractionalCapacityRange);

// The milli value, when it represents the quantity exactly (upstream safeMilliValue).
std::optional<int64_t> exactMilliValue(const api::Quantity& q);

// Whether a range policy uses milli arithmetic: with the feature, when min, max and step are all exact in
// milli units and the step is at least 1m (upstream useMilli).
bool useMilli(const api::CapacityRequestPolicyRange& range, bool fractionalCapacityRange);

// Whether `value` is outside the policy (upstream violatesPolicy).
bool violatesPolicy(const api::Quantity& value, const std::optional<api::CapacityRequestPolicy>& policy,
                    bool fractionalCapacityRange);

}  // namespace ks::dra::structured
