#pragma once
// Pod resource requests as upstream computes them (k8s.io/component-helpers/resource PodRequests):
// the sum of regular containers, the max with init containers (restartable "sidecar" init containers
// accumulate), pod-level resources when set, plus overhead; and the scheduler's non-zero defaults.

#include <cstdint>

#include "pkg/api/core.h"

namespace ks::api {

// The defaults the scheduler assumes for scoring when a container requests no cpu/memory
// (pkg/scheduler/util: 100m CPU, 200Mi memory).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

struct PodRequestsOptions {
  bool excludeOverhead = false;
  // While an in-place resize is in progress, use the larger of spec and status (allocated) resources.
  bool useStatusResources = true;
  // Ignore spec.resources (pod-level resources) even when set.
  bool skipPodLevelResources = false;
  // When set, a container that requests none of these resources is treated as requesting these values.
  const ResourceList* nonMissingContainerRequests = nullptr;
};

// Returns the effective requests of the pod, as upstream's PodRequests(pod, opts).
ResourceList podRequests(const Pod& pod, const PodRequestsOptions& opts = {});

// Returns the effective limits of the pod, as upstream's PodLimits.
ResourceList podLimits(const Pod& pod, const PodRequestsOptions& opts = {});

}  // namespace ks::api
