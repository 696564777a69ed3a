#pragma once
// Pod resource requests as upstream computes them (k8s.io/component-helpers/resource PodRequests, v0.37):
// the sum of regular containers, the max with init containers (restartable "sidecar" init containers
// accumulate), pod-level resources when set, plus overhead; and the scheduler's non-zero defaults.
// While a pod is resized in place its requests are the larger of what its spec asks, what the kubelet
// allocated and what it actuated; while the resize is infeasible the spec is left out.

#include <cstdint>
#include <string_view>
#include <utility>

#include "pkg/api/core.h"

namespace ks::api {

// The defaults the scheduler assumes for scoring when a container requests no cpu/memory
// (pkg/scheduler/util: 100m CPU, 200Mi memory).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

// Upstream PodResourcesOptions; the defaults are the scheduler's (gates at their v1.37 defaults), not Go's
// zero values.
struct PodRequestsOptions {
  bool excludeOverhead = false;
  // InPlacePodVerticalScaling: take the status (allocated and actuated) resources into account.
  bool useStatusResources = true;
  // InPlacePodLevelResourcesVerticalScaling: with useStatusResources, also read the pod-level
  // status.allocatedResources and status.resources.
  bool inPlacePodLevelResourcesVerticalScalingEnabled = true;
  // Ignore spec.resources (pod-level resources) even when set.
  bool skipPodLevelResources = false;
  // Leave the containers out of the requests (PodRequests only).
  bool skipContainerLevelResources = false;
  // When set, a container that requests none of these resources is treated as requesting these values.
  const ResourceList* nonMissingContainerRequests = nullptr;
};

// Returns the effective requests of the pod, as upstream's PodRequests(pod, opts).
ResourceList podRequests(const Pod& pod, const PodRequestsOptions& opts = {});

// Returns the effective limits of the pod, as upstream's PodLimits.
ResourceList podLimits(const Pod& pod, const PodRequestsOptions& opts = {});

// The containers' part of podRequests / podLimits (upstream AggregateContainerRequests / Limits): with
// useStatusResources, per resource the max of the spec, allocated and actuated aggregates (allocated and
// actuated from the pod-level status when it has both, else from the container statuses); only the
// allocated and actuated ones while the resize is infeasible.
ResourceList aggregateContainerRequests(const Pod& pod, const PodRequestsOptions& opts = {});
ResourceList aggregateContainerLimits(const Pod& pod, const PodRequestsOptions& opts = {});

}  // namespace ks::api

namespace ks::api {

// Pod-level resources (PodLevelResources): cpu, memory and hugepages-* are supported.
bool isSupportedPodLevelResource(std::string_view name);
// IsPodLevelRequestsSet / IsPodLevelLimitsSet / IsPodLevelResourcesSet: spec.resources names a supported
// resource in requests (limits; either).
bool isPodLevelRequestsSet(const Pod& pod);
bool isPodLevelLimitsSet(const Pod& pod);
bool isPodLevelResourcesSet(const Pod& pod);

// IsPodResizeInfeasible / IsPodResizeDeferred: the PodResizePending condition has reason Infeasible /
// Deferred.
bool isPodResizeInfeasible(const Pod& pod);
bool isPodResizeDeferred(const Pod& pod);

// pkg/scheduler/util GetRequestForResource: the request for `name`; with nonZero, a missing cpu or
// memory request reads as the scheduler defaults (100m, 200Mi). Explicit zeros stay zero.
Quantity getRequestForResource(std::string_view name, const ResourceList& requests, bool nonZero);

// GetNonzeroRequests: {milli-CPU, memory bytes} with the defaults above for missing requests.
std::pair<int64_t, int64_t> getNonzeroRequests(const ResourceList& requests);

}  // namespace ks::api
