#pragma once
// From the feature gates (features.h) to the switches the scheduler's code reads, as upstream's
// feature.NewSchedulerFeaturesFromGates and the utilfeature.DefaultFeatureGate.Enabled calls in
// pkg/scheduler and cmd/kube-scheduler do. Used by the daemon and by `simulate`.
//
// A gate kube-scheduler-cpp reads gets both values honoured; a gate whose non-default value would change
// what kube-scheduler does but is not implemented here is refused at start (unsupportedGateValues()), never
// accepted and ignored. All other gates (kubelet, apiserver, controller ones) are accepted and have no
// effect, as in upstream kube-scheduler.

#include <chrono>
#include <span>
#include <vector>
#include <string_view>

#include "pkg/features/features.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/util/result.h"

namespace ks::features {

struct SchedulerFeatures {
  config::FeatureGates config;  // DynamicResourceAllocation, DRASchedulerFilterTimeout, StorageCapacityScoring
  plugins::Features plugins;    // SchedulerAsyncPreemption, StorageCapacityScoring, VolumeAttributesClass, ...
  bool popFromBackoffQ = true;  // SchedulerPopFromBackoffQ: the queue pops from backoffQ when activeQ is empty
  // WatchListClient (beta, on in v1.37): informers stream their initial state as a watch-list.
  bool watchListClient = true;
  // NominatedNodeNameForExpectation: nominatedNodeName is set before PreBind or a Permit wait.
  bool nominatedNodeNameForExpectation = true;
  // OpportunisticBatching (beta, on in v1.37): pods are signed and a profile reuses the previous pod's
  // ranking (framework/runtime/batch.h).
  bool enableOpportunisticBatching = true;
};

// A gate value kube-scheduler-cpp refuses, and what it would have changed.
struct UnsupportedGateValue {
  std::string_view gate;
  bool value;
  std::string_view effect;
};

// The refused values, by gate name.
std::span<const UnsupportedGateValue> unsupportedGateValues();

// The switches for `gates`. Error for a refused value: "feature gate X=false is not supported by
// kube-scheduler-cpp: <what it would change>".
Result<SchedulerFeatures> schedulerFeatures(const FeatureGate& gates);

// The switches for --feature-gates flag values as the daemon takes them (applyFeatureGatesFlags, the
// gates' dependencies, then schedulerFeatures), with the same errors; the parser's warnings go to `warnings`.
Result<SchedulerFeatures> schedulerFeaturesFromFlags(const std::vector<std::string>& flagValues,
                                                     std::vector<std::string>* warnings);

}  // namespace ks::features
