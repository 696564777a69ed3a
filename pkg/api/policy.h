#pragma once
// policy/v1 PodDisruptionBudget, read by preemption to prefer victims whose eviction violates no budget.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/meta.h"

namespace ks::api {

// intstr.IntOrString: either an integer or a string such as "50%".
struct IntOrString {
  bool isString = false;
  int32_t intVal = 0;
  std::string strVal;
  bool operator==(const IntOrString&) const = default;
};

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> minAvailable;
  std::optional<IntOrString> maxUnavailable;
  std::optional<LabelSelector> selector;
  std::optional<std::string> unhealthyPodEvictionPolicy;
  bool operator==(const PodDisruptionBudgetSpec&) const = default;
};

struct PodDisruptionBudgetStatus {
  int64_t observedGeneration = 0;
  std::map<std::string, Time> disruptedPods;
  int32_t disruptionsAllowed = 0;
  int32_t currentHealthy = 0;
  int32_t desiredHealthy = 0;
  int32_t expectedPods = 0;
  bool operator==(const PodDisruptionBudgetStatus&) const = default;
};

struct PodDisruptionBudget {
  static constexpr std::string_view kKind = "PodDisruptionBudget";
  static constexpr std::string_view kApiVersion = "policy/v1";
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
  bool operator==(const PodDisruptionBudget&) const = default;
};

}  // namespace ks::api
