// Ported from k8s.io/component-helpers/resource/helpers.go (v1.34: PodRequests, PodLimits,
// AggregateContainerRequests/Limits, determineContainerReqs/Limits, applyNonMissing) and
// pkg/scheduler/util/pod_resources.go (GetRequestForResource, GetNonzeroRequests).

#include "pkg/api/resources.h"

#include <string>

namespace ks::api {

namespace {

constexpr std::string_view kRestartPolicyAlways = "Always";
constexpr std::string_view kPodResizePending = "PodResizePending";
constexpr std::string_view kPodReasonInfeasible = "Infeasible";
constexpr std::string_view kPodReasonDeferred = "Deferred";

// addResourceList: list += newList, per resource.
void addResourceList(ResourceList& list, const ResourceList& newList) {
  for (const auto& [name, quantity] : newList) {
    auto it = list.find(name);
    if (it == list.end()) {
      list.emplace(name, quantity);
    } else {
      it->second.add(quantity);
    }
  }
}

// maxResourceList: list[name] = max(list[name], newList[name]) for every name in newList.
void maxResourceList(ResourceList& list, const ResourceList& newList) {
  for (const auto& [name, quantity] : newList) {
    auto it = list.find(name);
    if (it == list.end()) {
      list.emplace(name, quantity);
    } else if (quantity.compare(it->second) > 0) {
      it->second = quantity;
    }
  }
}

ResourceList maxOf(const ResourceList& a, std::initializer_list<const ResourceList*> others) {
  ResourceList result = a;
  for (const ResourceList* other : others) maxResourceList(result, *other);
  return result;
}

bool isRestartableInitContainer(const Container& c) {
  return c.restartPolicy && *c.restartPolicy == kRestartPolicyAlways;
}

const ContainerStatus* findContainerStatus(const Pod& pod, const std::string& name) {
  // Later (init) statuses win on duplicate names, as upstream's map fill order does.
  const ContainerStatus* found = nullptr;
  for (const auto& cs : pod.status.containerStatuses) {
    if (cs.name == name) found = &cs;
  }
  for (const auto& cs : pod.status.initContainerStatuses) {
    if (cs.name == name) found = &cs;
  }
  return found;
}

// applyNonMissing: a copy of reqs where every resource of nonMissing that reqs lacks is added.
ResourceList applyNonMissing(const ResourceList& reqs, const ResourceList& nonMissing) {
  ResourceList cp = reqs;
  for (const auto& [name, quantity] : nonMissing) {
    if (reqs.find(name) == reqs.end()) cp[name].add(quantity);
  }
  return cp;
}

enum class Kind : uint8_t { Requests, Limits };

// determineContainerReqs / determineContainerLimits (cs->resources is set).
ResourceList determineContainerResources(const Pod& pod, const Container& c, const ContainerStatus& cs,
                                         Kind kind) {
  const ResourceRequirements& status = *cs.resources;
  if (kind == Kind::Requests) {
    if (isPodResizeInfeasible(pod)) return maxOf(status.requests, {&cs.allocatedResources});
    return maxOf(c.resources.requests, {&status.requests, &cs.allocatedResources});
  }
  if (isPodResizeInfeasible(pod)) return status.limits;
  return maxOf(c.resources.limits, {&status.limits});
}

// AggregateContainerRequests / AggregateContainerLimits.
ResourceList aggregateContainers(const Pod& pod, const PodRequestsOptions& opts, Kind kind) {
  ResourceList result;
  auto resourcesOf = [&](const Container& c, bool statusApplies) -> ResourceList {
    const ResourceList& spec = kind == Kind::Requests ? c.resources.requests : c.resources.limits;
    ResourceList out;
    const ContainerStatus* cs = nullptr;
    if (opts.useStatusResources && statusApplies) cs = findContainerStatus(pod, c.name);
    if (cs != nullptr && cs->resources) {
      out = determineContainerResources(pod, c, *cs, kind);
    } else {
      out = spec;
    }
    if (kind == Kind::Requests && opts.nonMissingContainerRequests != nullptr &&
        !opts.nonMissingContainerRequests->empty()) {
      out = applyNonMissing(out, *opts.nonMissingContainerRequests);
    }
    return out;
  };

  for (const auto& c : pod.spec.containers) addResourceList(result, resourcesOf(c, true));

  // Init containers define the minimum of any resource: while the i-th init container runs, the pod uses
  // it plus every restartable (sidecar) init container started before it; sidecars keep running.
  ResourceList restartable;
  ResourceList initMax;
  for (const auto& c : pod.spec.initContainers) {
    bool sidecar = isRestartableInitContainer(c);
    ResourceList res = resourcesOf(c, sidecar);  // status resources only apply to sidecars
    if (sidecar) {
      addResourceList(result, res);
      addResourceList(restartable, res);
      maxResourceList(initMax, restartable);
    } else {
      ResourceList combined = res;
      addResourceList(combined, restartable);
      maxResourceList(initMax, combined);
    }
  }
  maxResourceList(result, initMax);
  return result;
}

}  // namespace

bool isSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || name.starts_with(kResourceHugePagesPrefix);
}

bool isPodLevelRequestsSet(const Pod& pod) {
  if (!pod.spec.resources) return false;
  for (const auto& [name, q] : pod.spec.resources->requests) {
    if (isSupportedPodLevelResource(name)) return true;
  }
  return false;
}

bool isPodLevelResourcesSet(const Pod& pod) {
  if (!pod.spec.resources) return false;
  if (isPodLevelRequestsSet(pod)) return true;
  for (const auto& [name, q] : pod.spec.resources->limits) {
    if (isSupportedPodLevelResource(name)) return true;
  }
  return false;
}

namespace {

// The reason of the first PodResizePending condition; empty when there is none.
std::string_view resizePendingReason(const Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == kPodResizePending) return c.reason;
  }
  return {};
}

}  // namespace

bool isPodResizeInfeasible(const Pod& pod) {
  return resizePendingReason(pod) == kPodReasonInfeasible;
}

bool isPodResizeDeferred(const Pod& pod) {
  return resizePendingReason(pod) == kPodReasonDeferred;
}

ResourceList podRequests(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList reqs = aggregateContainers(pod, opts, Kind::Requests);
  if (!opts.skipPodLevelResources && isPodLevelRequestsSet(pod)) {
    for (const auto& [name, q] : pod.spec.resources->requests) {
      if (isSupportedPodLevelResource(name)) reqs[name] = q;
    }
  }
  if (!opts.excludeOverhead) addResourceList(reqs, pod.spec.overhead);
  return reqs;
}

ResourceList podLimits(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList limits = aggregateContainers(pod, opts, Kind::Limits);
  if (!opts.skipPodLevelResources && isPodLevelResourcesSet(pod)) {
    for (const auto& [name, q] : pod.spec.resources->limits) {
      if (isSupportedPodLevelResource(name)) limits[name] = q;
    }
  }
  // Overhead is added only to limits that are set.
  if (!opts.excludeOverhead) {
    for (const auto& [name, q] : pod.spec.overhead) {
      auto it = limits.find(name);
      if (it != limits.end()) it->second.add(q);
    }
  }
  return limits;
}

Quantity getRequestForResource(std::string_view name, const ResourceList& requests, bool nonZero) {
  auto it = requests.find(std::string(name));
  if (name == kResourceCPU) {
    // Override if unset, but not if explicitly set to zero.
    if (it == requests.end() && nonZero)
      return Quantity::fromMilli(kDefaultMilliCPURequest, Quantity::Format::DecimalSI);
  } else if (name == kResourceMemory) {
    if (it == requests.end() && nonZero)
      return Quantity::fromInt(kDefaultMemoryRequest, Quantity::Format::DecimalSI);
  }
  if (it == requests.end()) return Quantity();
  return it->second;
}

std::pair<int64_t, int64_t> getNonzeroRequests(const ResourceList& requests) {
  return {getRequestForResource(kResourceCPU, requests, true).milliValue(),
          getRequestForResource(kResourceMemory, requests, true).value()};
}

}  // namespace ks::api
