#include "pkg/dra/structured/consumable_capacity.h"

namespace ks::dra::structured {
namespace {

const api::Quantity* requestedFor(const api::CapacityRequirements* requested, const std::string& name) {
  if (!requested) return nullptr;
  auto it = requested->requests.find(name);
  return it == requested->requests.end() ? nullptr : &it->second;
}

api::Quantity roundUpRange(const api::Quantity& requested, const api::CapacityRequestPolicyRange& range) {
  if (requested.compare(*range.min) < 0) return *range.min;
  if (!range.step) return requested;
  const int64_t step = range.step->value();
  const int64_t min = range.min->value();
  const int64_t added = requested.value() - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  return api::Quantity::fromInt(min + step * n, api::Quantity::Format::BinarySI);
}

api::Quantity roundUpValidValues(const api::Quantity& requested,
                                 const std::vector<api::Quantity>& validValues) {
  // Validation keeps the list short (at most 10) and sorted ascending.
  for (const auto& v : validValues)
    if (requested.compare(v) <= 0) return v;
  return requested;
}

bool violatesValidRange(const api::Quantity& value, const api::CapacityRequestPolicyRange& range) {
  if (range.max && value.compare(*range.max) > 0) return true;
  if (range.step) {
    const int64_t step = range.step->value();
    const int64_t min = range.min ? range.min->value() : 0;
    if ((value.value() - min) % step != 0) return true;  // must be min plus a multiple of step
  }
  return false;
}

bool violatesValidValues(const api::Quantity& value, const std::vector<api::Quantity>& validValues) {
  for (const auto& v : validValues)
    if (value.compare(v) == 0) return false;
  return true;
}

}  // namespace

api::Quantity calculateConsumedCapacity(const api::Quantity* requested, const api::DeviceCapacity& capacity) {
  if (!requested) {
    if (capacity.requestPolicy && capacity.requestPolicy->default_) return *capacity.requestPolicy->default_;
    return capacity.value;
  }
  if (!capacity.requestPolicy) return *requested;
  const auto& policy = *capacity.requestPolicy;
  if (policy.validRange && policy.validRange->min) return roundUpRange(*requested, *policy.validRange);
  // Upstream tests the Go slice for nil here, not its length; decoded JSON cannot tell the two apart.
  if (!policy.validValues.empty()) return roundUpValidValues(*requested, policy.validValues);
  return *requested;
}

bool violatesPolicy(const api::Quantity& value, const std::optional<api::CapacityRequestPolicy>& policy) {
  if (!policy) return false;
  // Upstream compares the Quantity structs with ==; equal numbers in the same format is the intent.
  if (policy->default_ && value.compare(*policy->default_) == 0 &&
      value.format() == policy->default_->format())
    return false;
  if (policy->validRange) return violatesValidRange(value, *policy->validRange);
  if (!policy->validValues.empty()) return violatesValidValues(value, policy->validValues);
  return false;
}

Result<bool> cmpRequestOverCapacity(const ConsumedCapacity& currentConsumed,
                                    const api::CapacityRequirements* requested,
                                    const std::optional<bool>& /*allowMultipleAllocations*/,
                                    const std::map<std::string, api::DeviceCapacity>& capacity,
                                    const ConsumedCapacity* allocatingCapacity) {
  if (requested)
    for (const auto& [name, q] : requested->requests)
      if (!capacity.contains(name)) return Error("some requested capacity has not been defined");
  ConsumedCapacity total = currentConsumed;
  for (const auto& [name, cap] : capacity) {
    const api::Quantity consumed = calculateConsumedCapacity(requestedFor(requested, name), cap);
    if (violatesPolicy(consumed, cap.requestPolicy)) return false;
    auto [it, inserted] = total.emplace(name, consumed);
    if (!inserted) it->second.add(consumed);
    if (allocatingCapacity)
      if (auto a = allocatingCapacity->find(name); a != allocatingCapacity->end()) it->second.add(a->second);
    if (it->second.compare(cap.value) > 0) return false;
  }
  return true;
}

ConsumedCapacity consumedCapacityFromRequest(const api::CapacityRequirements* requested,
                                             const std::map<std::string, api::DeviceCapacity>& capacity) {
  ConsumedCapacity consumed;
  for (const auto& [name, cap] : capacity)
    consumed.emplace(name, calculateConsumedCapacity(requestedFor(requested, name), cap));
  return consumed;
}

}  // namespace ks::dra::structured
