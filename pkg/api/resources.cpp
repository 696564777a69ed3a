// Ported from k8s.io/component-helpers/resource/helpers.go (v0.37: PodRequests, PodLimits,
// AggregateContainerRequests/Limits and the container*Requests/Limits they aggregate, applyNonMissing) and
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

// The first status of that name, regular containers' first.
const ContainerStatus* findContainerStatus(const Pod& pod, const std::string& name) {
  for (const auto& cs : pod.status.containerStatuses) {
    if (cs.name == name) return &cs;
  }
  for (const auto& cs : pod.status.initContainerStatuses) {
    if (cs.name == name) return &cs;
  }
  return nullptr;
}

// applyNonMissing: a copy of reqs where every resource of nonMissing that reqs lacks is added.
ResourceList applyNonMissing(const ResourceList& reqs, const ResourceList& nonMissing) {
  ResourceList cp = reqs;
  for (const auto& [name, quantity] : nonMissing) {
    if (reqs.find(name) == reqs.end()) cp[name].add(quantity);
  }
  return cp;
}

const ResourceList kNone;

// What one container counts for in an aggregate, given its status (null: none, or status resources are
// not used) and whether the pod's resize is infeasible. An empty list stands for upstream's nil: the wire
// never carries an empty map.
using ContainerResourcesFn = const ResourceList& (*)(const Container&, const ContainerStatus*, bool);

const ResourceList& containerSpecRequests(const Container& c, const ContainerStatus*, bool) {
  return c.resources.requests;
}

const ResourceList& containerAllocatedRequests(const Container& c, const ContainerStatus* cs,
                                               bool infeasible) {
  if (cs != nullptr && !cs->allocatedResources.empty()) return cs->allocatedResources;
  // An infeasible resize's spec was never allocated.
  if (infeasible) return kNone;
  return c.resources.requests;
}

const ResourceList& containerActuatedRequests(const Container& c, const ContainerStatus* cs,
                                              bool infeasible) {
  if (cs != nullptr && cs->resources && !cs->resources->requests.empty()) return cs->resources->requests;
  if (cs != nullptr && !cs->allocatedResources.empty()) return cs->allocatedResources;
  if (infeasible) return kNone;
  return c.resources.requests;
}

const ResourceList& containerSpecLimits(const Container& c, const ContainerStatus*, bool) {
  return c.resources.limits;
}

const ResourceList& containerActuatedLimits(const Container& c, const ContainerStatus* cs, bool infeasible) {
  if (cs != nullptr && cs->resources && !cs->resources->limits.empty()) return cs->resources->limits;
  if (infeasible) return kNone;
  return c.resources.limits;
}

// aggregateContainerResourcesByFn: regular containers are summed; init containers define the minimum of
// any resource: while the i-th init container runs, the pod uses it plus every restartable (sidecar) init
// container started before it; sidecars keep running.
ResourceList aggregateContainerResources(const Pod& pod, const PodRequestsOptions& opts,
                                         const ResourceList* nonMissing, ContainerResourcesFn resourcesOf) {
  const bool infeasible = opts.useStatusResources && isPodResizeInfeasible(pod);
  ResourceList scratch;  // a container's list with the non-missing defaults applied
  auto containerResources = [&](const Container& c) -> const ResourceList& {
    const ContainerStatus* cs = opts.useStatusResources ? findContainerStatus(pod, c.name) : nullptr;
    const ResourceList& res = resourcesOf(c, cs, infeasible);
    if (nonMissing == nullptr || nonMissing->empty()) return res;
    scratch = applyNonMissing(res, *nonMissing);
    return scratch;
  };
  ResourceList result;
  for (const auto& c : pod.spec.containers) addResourceList(result, containerResources(c));
  ResourceList restartable;
  ResourceList initMax;
  for (const auto& c : pod.spec.initContainers) {
    const ResourceList& res = containerResources(c);
    if (isRestartableInitContainer(c)) {
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

// A pod-level spec resource list against the status ones: the spec is left out while the resize is
// infeasible.
ResourceList effectivePodLevelResources(const Pod& pod, const ResourceList& spec,
                                        std::initializer_list<const ResourceList*> statuses) {
  return maxOf(isPodResizeInfeasible(pod) ? kNone : spec, statuses);
}

void applyPodLevelResources(ResourceList& result, const ResourceList& effective) {
  for (const auto& [name, q] : effective) {
    if (isSupportedPodLevelResource(name)) result[name] = q;
  }
}

bool namesSupportedPodLevelResource(const ResourceList& list) {
  for (const auto& [name, q] : list) {
    if (isSupportedPodLevelResource(name)) return true;
  }
  return false;
}

}  // namespace

bool isSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || name.starts_with(kResourceHugePagesPrefix);
}

bool isPodLevelRequestsSet(const Pod& pod) {
  return pod.spec.resources && namesSupportedPodLevelResource(pod.spec.resources->requests);
}

bool isPodLevelLimitsSet(const Pod& pod) {
  return pod.spec.resources && namesSupportedPodLevelResource(pod.spec.resources->limits);
}

bool isPodLevelResourcesSet(const Pod& pod) {
  return isPodLevelRequestsSet(pod) || isPodLevelLimitsSet(pod);
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

ResourceList aggregateContainerRequests(const Pod& pod, const PodRequestsOptions& opts) {
  const ResourceList* nonMissing = opts.nonMissingContainerRequests;
  ResourceList spec = aggregateContainerResources(pod, opts, nonMissing, containerSpecRequests);
  if (!opts.useStatusResources) return spec;
  ResourceList allocated;
  ResourceList actuated;
  // The pod-level status, when the kubelet reports both maps, already sums the containers.
  const PodStatus& st = pod.status;
  if (opts.inPlacePodLevelResourcesVerticalScalingEnabled && !st.allocatedResources.empty() && st.resources &&
      !st.resources->requests.empty()) {
    allocated = st.allocatedResources;
    actuated = st.resources->requests;
  } else {
    allocated = aggregateContainerResources(pod, opts, nonMissing, containerAllocatedRequests);
    actuated = aggregateContainerResources(pod, opts, nonMissing, containerActuatedRequests);
  }
  if (isPodResizeInfeasible(pod)) return maxOf(actuated, {&allocated});
  return maxOf(spec, {&actuated, &allocated});
}

ResourceList aggregateContainerLimits(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList spec = aggregateContainerResources(pod, opts, nullptr, containerSpecLimits);
  if (!opts.useStatusResources) return spec;
  const PodStatus& st = pod.status;
  ResourceList actuated;
  if (opts.inPlacePodLevelResourcesVerticalScalingEnabled && st.resources && !st.resources->limits.empty()) {
    actuated = st.resources->limits;
  } else {
    actuated = aggregateContainerResources(pod, opts, nullptr, containerActuatedLimits);
  }
  if (isPodResizeInfeasible(pod)) return actuated;
  return maxOf(spec, {&actuated});
}

ResourceList podRequests(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList reqs;
  if (!opts.skipContainerLevelResources) reqs = aggregateContainerRequests(pod, opts);
  if (!opts.skipPodLevelResources && isPodLevelRequestsSet(pod)) {
    const ResourceList& spec = pod.spec.resources->requests;
    if (opts.inPlacePodLevelResourcesVerticalScalingEnabled && opts.useStatusResources &&
        pod.status.resources) {
      applyPodLevelResources(
          reqs, effectivePodLevelResources(
                    pod, spec, {&pod.status.resources->requests, &pod.status.allocatedResources}));
    } else {
      applyPodLevelResources(reqs, spec);
    }
  }
  if (!opts.excludeOverhead) addResourceList(reqs, pod.spec.overhead);
  return reqs;
}

ResourceList podLimits(const Pod& pod, const PodRequestsOptions& opts) {
  ResourceList limits = aggregateContainerLimits(pod, opts);
  if (!opts.skipPodLevelResources && isPodLevelResourcesSet(pod)) {
    const ResourceList& spec = pod.spec.resources->limits;
    if (opts.inPlacePodLevelResourcesVerticalScalingEnabled && opts.useStatusResources &&
        pod.status.resources) {
      applyPodLevelResources(limits, effectivePodLevelResources(pod, spec, {&pod.status.resources->limits}));
    } else {
      applyPodLevelResources(limits, spec);
    }
  }
  // Overhead is added only to limits that are set and not zero.
  if (!opts.excludeOverhead) {
    for (const auto& [name, q] : pod.spec.overhead) {
      auto it = limits.find(name);
      if (it != limits.end() && !it->second.isZero()) it->second.add(q);
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
