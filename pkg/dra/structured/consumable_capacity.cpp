#include "pkg/dra/structured/consumable_capacity.h"

#include <limits>

namespace ks::dra::structured {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr const char* kNotRepresentable =
    "capacity request cannot be represented in the device's range arithmetic";

const api::Quantity* requestedFor(const api::CapacityRequirements* requested, const std::string& name) {
  if (!requested) return nullptr;
  auto it = requested->requests.find(name);
  return it == requested->requests.end() ? nullptr : &it->second;
}

Result<api::Quantity> roundUpRange(const api::Quantity& requested,
                                   const api::CapacityRequestPolicyRange& range,
                                   bool fractionalCapacityRange) {
  if (requested.compare(*range.min) < 0) return *range.min;
  if (!range.step) return requested;
  const api::Quantity::Format format = range.step->format();
  if (useMilli(range, fractionalCapacityRange)) {
    auto requestedMilli = exactMilliValue(requested);
    if (!requestedMilli)
      return Error(std::string(kNotRepresentable) + ": request " + requested.toString() +
                   " is not a representable milli value");
    const int64_t step = range.step->milliValue();
    const int64_t min = range.min->milliValue();
    const int64_t added = *requestedMilli - min;
    int64_t n = added / step;
    if (added % step != 0) ++n;
    if (n > (kMaxInt64 - min) / step)
      return Error(std::string(kNotRepresentable) + ": rounding request " + requested.toString() +
                   " up to the next step passes the milli-value range");
    const int64_t milli = min + step * n;
    if (milli % 1000 == 0) return api::Quantity::fromInt(milli / 1000, format);
    return api::Quantity::fromMilli(milli, format);
  }
  // Integer arithmetic: a request past MaxInt64 cannot be read without wrapping.
  if (requested.compare(api::Quantity::fromInt(kMaxInt64)) > 0)
    return Error(std::string(kNotRepresentable) + ": request " + requested.toString() + " exceeds MaxInt64");
  const int64_t step = range.step->value();
  const int64_t min = range.min->value();
  const int64_t added = requested.value() - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  // The guard needs min >= 0; a negative min is outside the API contract and keeps the plain arithmetic.
  if (min >= 0 && n > (kMaxInt64 - min) / step)
    return Error(std::string(kNotRepresentable) + ": rounding request " + requested.toString() +
                 " up to the next step passes MaxInt64");
  return api::Quantity::fromInt(static_cast<int64_t>(static_cast<uint64_t>(min) +
                                                     static_cast<uint64_t>(step) * static_cast<uint64_t>(n)),
                                format);
}

api::Quantity roundUpValidValues(const api::Quantity& requested,
                                 const std::vector<api::Quantity>& validValues) {
  // Validation keeps the list short (at most 10) and sorted ascending.
  for (const auto& v : validValues)
    if (requested.compare(v) <= 0) return v;
  return requested;
}

bool violatesValidRange(const api::Quantity& value, const api::CapacityRequestPolicyRange& range,
                        bool fractionalCapacityRange) {
  if (range.max && value.compare(*range.max) > 0) return true;
  if (range.step) {
    int64_t requested = 0, step = 0, min = 0;
    if (useMilli(range, fractionalCapacityRange)) {
      auto milli = exactMilliValue(value);
      if (!milli) return true;
      requested = *milli;
      step = range.step->milliValue();
      min = range.min ? range.min->milliValue() : 0;
    } else {
      requested = value.value();
      step = range.step->value();
      min = range.min ? range.min->value() : 0;
    }
    if ((requested - min) % step != 0) return true;  // must be min plus a multiple of step
  }
  return false;
}

bool violatesValidValues(const api::Quantity& value, const std::vector<api::Quantity>& validValues) {
  for (const auto& v : validValues)
    if (value.compare(v) == 0) return false;
  return true;
}

}  // namespace

std::optional<int64_t> exactMilliValue(const api::Quantity& q) {
  const int64_t milli = q.milliValue();
  if (q.compare(api::Quantity::fromMilli(milli, q.format())) != 0) return std::nullopt;
  return milli;
}

bool useMilli(const api::CapacityRequestPolicyRange& range, bool fractionalCapacityRange) {
  if (!fractionalCapacityRange) return false;
  for (const auto* q : {&range.min, &range.max, &range.step})
    if (q->has_value() && !exactMilliValue(**q)) return false;
  return !range.step || *exactMilliValue(*range.step) >= 1;
}

Result<api::Quantity> calculateConsumedCapacity(const api::Quantity* requested,
                                                const api::DeviceCapacity& capacity,
                                                bool fractionalCapacityRange) {
  if (!requested) {
    if (capacity.requestPolicy && capacity.requestPolicy->default_) return *capacity.requestPolicy->default_;
    return capacity.value;
  }
  if (!capacity.requestPolicy) return *requested;
  const auto& policy = *capacity.requestPolicy;
  if (policy.validRange && policy.validRange->min)
    return roundUpRange(*requested, *policy.validRange, fractionalCapacityRange);
  // Upstream tests the Go slice for nil here, not its length; decoded JSON cannot tell the two apart.
  if (!policy.validValues.empty()) return roundUpValidValues(*requested, policy.validValues);
  return *requested;
}

bool violatesPolicy(const api::Quantity& value, const std::optional<api::CapacityRequestPolicy>& policy,
                    bool fractionalCapacityRange) {
  if (!policy) return false;
  // Upstream compares the Quantity structs with ==; equal numbers in the same format is the intent.
  if (policy->default_ && value.compare(*policy->default_) == 0 &&
      value.format() == policy->default_->format())
    return false;
  if (policy->validRange) return violatesValidRange(value, *policy->validRange, fractionalCapacityRange);
  if (!policy->validValues.empty()) return violatesValidValues(value, policy->validValues);
  return false;
}

Result<bool> cmpRequestOverCapacity(const ConsumedCapacity& currentConsumed,
                                    const api::CapacityRequirements* requested,
                                    const std::optional<bool>& /*allowMultipleAllocations*/,
                                    const std::map<std::string, api::DeviceCapacity>& capacity,
                                    const ConsumedCapacity* allocatingCapacity,
                                    bool fractionalCapacityRange) {
  // A capacity this device lacks: another device may have it, so not an error.
  if (requested)
    for (const auto& [name, q] : requested->requests)
      if (!capacity.contains(name)) return false;
  // Every capacity is resolved before any soft check, so an unrepresentable or negative request aborts
  // no matter which capacity comes first.
  ConsumedCapacity consumed;
  for (const auto& [name, cap] : capacity) {
    auto c = calculateConsumedCapacity(requestedFor(requested, name), cap, fractionalCapacityRange);
    if (!c.ok()) return c.error().wrap("capacity \"" + name + "\"");
    if (c->sign() < 0) return Error("capacity \"" + name + "\": capacity value is negative");
    consumed.emplace(name, std::move(*c));
  }
  ConsumedCapacity total = currentConsumed;
  for (const auto& [name, cap] : capacity) {
    const api::Quantity& c = consumed.at(name);
    if (violatesPolicy(c, cap.requestPolicy, fractionalCapacityRange)) return false;
    auto [it, inserted] = total.emplace(name, c);
    if (!inserted) it->second.add(c);
    if (allocatingCapacity)
      if (auto a = allocatingCapacity->find(name); a != allocatingCapacity->end()) it->second.add(a->second);
    if (it->second.compare(cap.value) > 0) return false;
  }
  return true;
}

Result<ConsumedCapacity> consumedCapacityFromRequest(
    const api::CapacityRequirements* requested, const std::map<std::string, api::DeviceCapacity>& capacity,
    bool fractionalCapacityRange) {
  ConsumedCapacity consumed;
  for (const auto& [name, cap] : capacity) {
    auto c = calculateConsumedCapacity(requestedFor(requested, name), cap, fractionalCapacityRange);
    if (!c.ok()) return c.error().wrap("capacity \"" + name + "\"");
    consumed.emplace(name, std::move(*c));
  }
  return consumed;
}

}  // namespace ks::dra::structured
