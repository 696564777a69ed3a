#pragma once
// The gate-driven switches of SchedulerOptions, set from SchedulerFeatures in one place: the daemon,
// `simulate` and the benchmarks run the scheduler with the same mapping.

#include "pkg/scheduler/features/scheduler_features.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/scheduler/scheduler.h"

namespace ks::features {

inline void applySchedulerFeatures(const SchedulerFeatures& features, scheduler::SchedulerOptions& options) {
  options.popFromBackoffQ = features.popFromBackoffQ;
  options.nominatedNodeNameForExpectation = features.nominatedNodeNameForExpectation;
  options.enableOpportunisticBatching = features.enableOpportunisticBatching;
  options.genericWorkload = features.config.genericWorkload;
  options.dynamicResourceAllocation = features.config.dynamicResourceAllocation;
  options.draConsumableCapacity = features.plugins.enableDRAConsumableCapacity;
  options.draDeviceTaintRules = features.plugins.enableDRADeviceTaintRules;
  options.draExtendedResource = features.plugins.enableDRAExtendedResource;
  // Process-wide, as upstream's gate: the node accounting and the pod-update events.
  framework::setPodLevelResizeAccounting(features.plugins.enableInPlacePodLevelResourcesVerticalScaling);
}

}  // namespace ks::features
