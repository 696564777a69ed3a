// Upstream's consumable_capacity_test.go (experimental allocator, v0.34.4), ported by hand.

#include "pkg/dra/structured/consumable_capacity.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace ks::dra::structured {
namespace {

api::Quantity q(const char* s) {
  return *api::Quantity::parse(s);
}

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
  const ConsumedCapacity consumed = consumedCapacityFromRequest(&requested, capacity);
  ASSERT_EQ(consumed.size(), 3u);
  for (const auto& [name, value] : consumed) EXPECT_EQ(value.compare(q("1")), 0) << name;
}

struct ViolateCase {
  std::string name;
  const char* requested;
  std::optional<api::CapacityRequestPolicy> policy;
  bool expectViolation;
};

TEST(ConsumableCapacityTest, ViolateCapacitySharing) {
  const std::vector<ViolateCase> cases = {
      {"no constraint", "1", std::nullopt, false},
      {"less than maximum", "1", rangePolicy("1", "1", "2"), false},
      {"more than maximum", "2", rangePolicy("1", "1", "1"), true},
      {"in set", "1", setPolicy("1", {q("1")}), false},
      {"not in set", "2", setPolicy("1", {q("1")}), true},
  };
  for (const auto& tc : cases)
    EXPECT_EQ(violatesPolicy(q(tc.requested), tc.policy), tc.expectViolation) << tc.name;
}

struct CalculateCase {
  std::string name;
  std::optional<const char*> requested;
  const char* capacity;
  api::CapacityRequestPolicy policy;
  const char* expect;
};

TEST(ConsumableCapacityTest, CalculateConsumedCapacity) {
  const std::vector<CalculateCase> cases = {
      {"empty", std::nullopt, "1", api::CapacityRequestPolicy{}, "1"},
      {"min in range", std::nullopt, "2", rangePolicy("1", "1"), "1"},
      {"default in set", std::nullopt, "2", setPolicy("1", {q("1")}), "1"},
      {"more than min in range", "2", "2", rangePolicy("1", "1"), "2"},
      {"less than min in range", "1", "2", rangePolicy("1", "2"), "2"},
      {"with step (round up)", "2", "3", rangePolicy("1", "1", std::nullopt, "2"), "3"},
      {"with step (no remaining)", "2", "2", rangePolicy("1", "1", std::nullopt, "1"), "2"},
      {"valid value in set", "2", "3", setPolicy("1", {q("1"), q("2"), q("3")}), "2"},
      {"set (round up)", "2", "3", setPolicy("1", {q("1"), q("3")}), "3"},
      {"larger than set", "3", "3", setPolicy("1", {q("1"), q("2")}), "3"},
  };
  for (const auto& tc : cases) {
    const std::optional<api::Quantity> requested =
        tc.requested ? std::optional(q(*tc.requested)) : std::nullopt;
    const api::DeviceCapacity capacity{.value = q(tc.capacity), .requestPolicy = tc.policy};
    const api::Quantity consumed = calculateConsumedCapacity(requested ? &*requested : nullptr, capacity);
    EXPECT_EQ(consumed.compare(q(tc.expect)), 0) << tc.name << ": got " << consumed.toString();
  }
}

}  // namespace
}  // namespace ks::dra::structured
