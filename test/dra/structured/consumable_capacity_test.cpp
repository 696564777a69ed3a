// Upstream's consumable_capacity_test.go (incubating allocator, v0.37.2), ported by hand.

#include "pkg/dra/structured/consumable_capacity.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>

namespace ks::dra::structured {
namespace {

api::Quantity q(const char* s) {
  return *api::Quantity::parse(s);
}

constexpr const char* kNotRepresentable = "capacity request cannot be represented";
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
// MilliValue() overflows int64 for this one (~9.22e21).
constexpr const char* kTooBigForMilli = "9224372036854776E3";

api::CapacityRequestPolicy rangePolicy(const char* def, const char* min, std::optional<const char*> max = {},
                                       std::optional<const char*> step = {}) {
  api::CapacityRequestPolicy p;
  p.default_ = q(def);
  p.validRange = api::CapacityRequestPolicyRange{.min = q(min)};
  if (max) p.validRange->max = q(*max);
  if (step) p.validRange->step = q(*step);
  return p;
}

api::CapacityRequestPolicy setPolicy(const char* def, std::vector<api::Quantity> values) {
  api::CapacityRequestPolicy p;
  p.default_ = q(def);
  p.validValues = std::move(values);
  return p;
}

TEST(ConsumableCapacityTest, AddSubAllocatingConsumedCapacity) {
  ConsumedCapacity allocated;
  EXPECT_TRUE(allocated.allZero()) << "allocated capacity should start from zero";
  const ConsumedCapacity one{{"capacity-0", q("1")}};
  allocated.add(one);
  EXPECT_FALSE(allocated.allZero()) << "capacity is added";
  allocated.sub(one);
  EXPECT_TRUE(allocated.allZero()) << "capacity is subtracted to zero";
}

TEST(ConsumableCapacityTest, InsertRemoveAllocatingConsumedCapacityCollection) {
  const DeviceID id{"driver-a", "pool-1", "device-1"};
  const DeviceConsumedCapacity consumed{id, ConsumedCapacity{{"capacity-0", q("1")}}};
  ConsumedCapacityCollection aggregated;
  aggregated.insert(consumed);
  aggregated.insert(consumed);
  ASSERT_TRUE(aggregated.contains(id));
  EXPECT_EQ(aggregated.at(id).at("capacity-0").compare(q("2")), 0);
  aggregated.remove(consumed);
  EXPECT_EQ(aggregated.at(id).at("capacity-0").compare(q("1")), 0);
  aggregated.remove(consumed);
  EXPECT_FALSE(aggregated.contains(id)) << "nothing consumed any more";
}

TEST(ConsumableCapacityTest, GetConsumedCapacityFromRequest) {
  const api::CapacityRequirements requested{.requests = {{"capacity-0", q("1")}, {"dummy", q("1")}}};
  const std::map<std::string, api::DeviceCapacity> capacity{
      // Requested, with a default: the request.
      {"capacity-0", api::DeviceCapacity{.value = q("2"), .requestPolicy = rangePolicy("2", "1")}},
      // Not requested, with a default: the default.
      {"capacity-1", api::DeviceCapacity{.value = q("2"), .requestPolicy = rangePolicy("1", "1")}},
      // Requested, no policy: the request.
      {"dummy", api::DeviceCapacity{.value = q("1")}},
  };
  auto consumed = consumedCapacityFromRequest(&requested, capacity, false);
  ASSERT_TRUE(consumed.ok()) << consumed.error().message();
  ASSERT_EQ(consumed->size(), 3u);
  for (const auto& [name, value] : *consumed) EXPECT_EQ(value.compare(q("1")), 0) << name;
}

// A request that cannot be represented wins over a soft mismatch of another capacity, whatever the order.
TEST(ConsumableCapacityTest, CmpRequestOverCapacityFatalBeatsSoft) {
  const std::map<std::string, api::DeviceCapacity> capacity{
      {"capacity-0", api::DeviceCapacity{.value = q("1")}},  // the request of 2 over-fills it: soft
      {"capacity-1",
       api::DeviceCapacity{
           .value = q("9223372036854775808"),
           .requestPolicy =
               api::CapacityRequestPolicy{
                   .validRange = api::CapacityRequestPolicyRange{.min = q("0"), .step = q("2")}}}},
  };
  // Rounding MaxInt64 up to the next step of 2 passes MaxInt64: fatal.
  const api::CapacityRequirements requested{
      .requests = {{"capacity-0", q("2")}, {"capacity-1", q("9223372036854775807")}}};
  auto fits = cmpRequestOverCapacity({}, &requested, std::nullopt, capacity, nullptr, false);
  ASSERT_FALSE(fits.ok());
  EXPECT_NE(fits.error().message().find(kNotRepresentable), std::string::npos) << fits.error().message();
}

TEST(ConsumableCapacityTest, SafeMilliValue) {
  EXPECT_EQ(exactMilliValue(q("1")), 1000);
  EXPECT_EQ(exactMilliValue(q("100m")), 100);
  EXPECT_EQ(exactMilliValue(q(kTooBigForMilli)), std::nullopt);
}

TEST(ConsumableCapacityTest, UseMilli) {
  struct Case {
    std::string name;
    api::CapacityRequestPolicyRange range;
    bool fractionalCapacityRange;
    bool expect;
  };
  const std::vector<Case> cases = {
      {"fractional disabled", {.min = q("200m"), .max = q("1"), .step = q("100m")}, false, false},
      {"all fractional, fits in milli", {.min = q("200m"), .max = q("1"), .step = q("100m")}, true, true},
      {"all integer, fits in milli", {.min = q("1"), .max = q("3"), .step = q("1")}, true, true},
      {"min overflows milli, falls back to integer",
       {.min = q(kTooBigForMilli), .step = q("1")},
       true,
       false},
      {"step too small (sub-milli)", {.min = q("1"), .step = q("0")}, true, false},
  };
  for (const auto& tc : cases)
    EXPECT_EQ(useMilli(tc.range, tc.fractionalCapacityRange), tc.expect) << tc.name;
}

struct ViolateCase {
  std::string name;
  const char* requested;
  std::optional<api::CapacityRequestPolicy> policy;
  bool expectViolation;
  bool fractionalCapacityRange = false;
};

TEST(ConsumableCapacityTest, ViolateCapacitySharing) {
  const std::vector<ViolateCase> cases = {
      {"no constraint", "1", std::nullopt, false},
      {"less than maximum", "1", rangePolicy("1", "1", "2"), false},
      {"more than maximum", "2", rangePolicy("1", "1", "1"), true},
      {"in set", "1", setPolicy("1", {q("1")}), false},
      {"not in set", "2", setPolicy("1", {q("1")}), true},
      {"fractional step aligned (0.3 = min+1*step)", "300m", rangePolicy("200m", "200m", "1", "100m"), false,
       true},
      {"fractional step not aligned", "250m", rangePolicy("200m", "200m", "1", "100m"), true, true},
      // The range is milli-representable, the request is not: a violation.
      {"requested value overflows milli representation", kTooBigForMilli,
       rangePolicy("1", "1", std::nullopt, "1"), true, true},
  };
  for (const auto& tc : cases)
    EXPECT_EQ(violatesPolicy(q(tc.requested), tc.policy, tc.fractionalCapacityRange), tc.expectViolation)
        << tc.name;
}

struct CalculateCase {
  std::string name;
  std::optional<api::Quantity> requested;
  const char* capacity;
  api::CapacityRequestPolicy policy;
  std::optional<api::Quantity> expect;  // nullopt: not representable
  bool fractionalCapacityRange = false;
};

TEST(ConsumableCapacityTest, CalculateConsumedCapacity) {
  const std::vector<CalculateCase> cases = {
      {"empty", std::nullopt, "1", api::CapacityRequestPolicy{}, q("1")},
      {"request above MaxInt64 is rejected", q("18446744073709551619"), "18446744073709551619",
       rangePolicy("0", "0", std::nullopt, "3"), std::nullopt},
      {"rounded value above MaxInt64 is rejected", q("9223372036854775807"), "9223372036854775808",
       rangePolicy("0", "0", std::nullopt, "2"), std::nullopt},
      {"max safe boundary rounds to MaxInt64", q("9223372036854775806"), "9223372036854775807",
       rangePolicy("1", "1", std::nullopt, "2"), q("9223372036854775807")},
      {"min in range", std::nullopt, "2", rangePolicy("1", "1"), q("1")},
      {"default in set", std::nullopt, "2", setPolicy("1", {q("1")}), q("1")},
      {"more than min in range", q("2"), "2", rangePolicy("1", "1"), q("2")},
      {"less than min in range", q("1"), "2", rangePolicy("1", "2"), q("2")},
      {"with step (round up)", q("2"), "3", rangePolicy("1", "1", std::nullopt, "2"), q("3")},
      {"with step (no remaining)", q("2"), "2", rangePolicy("1", "1", std::nullopt, "1"), q("2")},
      {"fractional step round up (0.25 to 0.3)", q("250m"), "1", rangePolicy("200m", "200m", "1", "100m"),
       q("300m"), true},
      {"fractional step already aligned (0.4 = min+2*step)", q("400m"), "1",
       rangePolicy("200m", "200m", "1", "100m"), q("400m"), true},
      {"valid value in set", q("2"), "3", setPolicy("1", {q("1"), q("2"), q("3")}), q("2")},
      {"set (round up)", q("2"), "3", setPolicy("1", {q("1"), q("3")}), q("3")},
      {"larger than set", q("3"), "3", setPolicy("1", {q("1"), q("2")}), q("3")},
      {"fractional step, request not milli-representable, is rejected", q(kTooBigForMilli), kTooBigForMilli,
       rangePolicy("1", "100m", std::nullopt, "100m"), std::nullopt, true},
      // min=100m, step=100m, request=MaxInt64-1 milli: rounding up passes the milli range.
      {"fractional step, rounded value passes the milli range, is rejected",
       api::Quantity::fromMilli(kMaxInt64 - 1), "9223372036854775807m",
       rangePolicy("100m", "100m", std::nullopt, "100m"), std::nullopt, true},
  };
  for (const auto& tc : cases) {
    const api::DeviceCapacity capacity{.value = q(tc.capacity), .requestPolicy = tc.policy};
    auto consumed = calculateConsumedCapacity(tc.requested ? &*tc.requested : nullptr, capacity,
                                              tc.fractionalCapacityRange);
    if (!tc.expect) {
      ASSERT_FALSE(consumed.ok()) << tc.name;
      EXPECT_NE(consumed.error().message().find(kNotRepresentable), std::string::npos) << tc.name;
      continue;
    }
    ASSERT_TRUE(consumed.ok()) << tc.name << ": " << consumed.error().message();
    EXPECT_EQ(consumed->compare(*tc.expect), 0) << tc.name << ": got " << consumed->toString();
  }
}

}  // namespace
}  // namespace ks::dra::structured
