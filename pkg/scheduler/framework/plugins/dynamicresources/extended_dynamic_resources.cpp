#include "pkg/scheduler/framework/plugins/dynamicresources/extended_dynamic_resources.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <thread>

#include <spdlog/spdlog.h>

#include "pkg/api/resources.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"

namespace ks::plugins::dynamicresources {

using framework::Code;
using framework::ResourceClaimPtr;
using framework::Status;

namespace {

std::string kobj(const api::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

// uuid.NewUUID's shape (a random version 4 UUID is as good for a temporary key).
std::string newUUID() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = 0;
  uint64_t lo = 0;
  {
    std::lock_guard lock(mu);
    hi = rng();
    lo = rng();
  }
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

const framework::DeviceClassResolver* resolverOf(const framework::SharedDRAManager* manager) {
  return manager != nullptr ? manager->deviceClassResolver() : nullptr;
}

std::shared_ptr<const api::DeviceClass> classFor(const framework::DeviceClassResolver* resolver,
                                                 std::string_view resourceName) {
  return resolver != nullptr ? resolver->getDeviceClass(resourceName) : nullptr;
}

// createResourceRequestAndMappings: the request of container `containerIndex` for `resourceName` after
// using up `reusable` (requests of later long-lived containers, entries may be empty), and the mappings
// of the container's resource to requests. No request when the reusable ones cover it.
std::optional<api::DeviceRequest> createResourceRequestAndMappings(
    size_t containerIndex, const api::Container& container, const std::string& resourceName,
    const std::string& className, std::span<const std::optional<api::DeviceRequest>> reusable,
    std::vector<api::ContainerExtendedResourceRequest>& mappings) {
  const api::ResourceList& creqs = container.resources.requests;
  auto it = creqs.find(resourceName);
  if (it == creqs.end()) return std::nullopt;
  const std::optional<int64_t> crq = it->second.asInt64();
  if (!crq || *crq == 0) return std::nullopt;
  int64_t sum = 0;
  for (const auto& r : reusable) {
    if (!r) continue;
    sum += r->exactly->count;
    mappings.push_back({container.name, resourceName, r->name});
    if (sum >= *crq) return std::nullopt;
  }
  // The resource's index among the container's request names, sorted (the map's order).
  const auto ridx = std::distance(creqs.begin(), it);
  std::string reqName = "container-" + std::to_string(containerIndex) + "-request-" + std::to_string(ridx);
  api::DeviceRequest request;
  request.name = reqName;
  request.exactly.emplace();
  request.exactly->deviceClassName = className;
  request.exactly->allocationMode = "ExactCount";
  request.exactly->count = *crq - sum;  // what the reused requests don't cover
  mappings.push_back({container.name, resourceName, std::move(reqName)});
  return request;
}

}  // namespace

bool isDRAExtendedResourceName(std::string_view name) {
  return noderesources::isExtendedResourceName(name) ||
         name.starts_with(framework::kResourceDeviceClassPrefix);
}

bool hasDeviceClassMappedExtendedResource(const api::ResourceList& requests,
                                          const framework::DeviceClassResolver* resolver) {
  for (const auto& [name, quantity] : requests) {
    // Only what the pod asks for.
    if (quantity.isZero()) continue;
    if (isDRAExtendedResourceName(name) && classFor(resolver, name) != nullptr) return true;
  }
  return false;
}

ResourceClaimPtr findExtendedResourceClaim(const api::Pod& pod, const std::vector<ResourceClaimPtr>& claims) {
  for (const auto& c : claims) {
    auto a = c->metadata.annotations.find(std::string(framework::kExtendedResourceClaimAnnotation));
    if (a == c->metadata.annotations.end() || a->second != "true") continue;
    for (const auto& ref : c->metadata.ownerReferences) {
      if (ref.name == pod.metadata.name && ref.controller.value_or(false) && ref.uid == pod.metadata.uid)
        return c;
    }
  }
  return nullptr;
}

ResourceClaimPtr newInMemoryExtendedResourceClaim(const api::Pod& pod) {
  auto claim = std::make_shared<api::ResourceClaim>();
  claim->metadata.namespace_ = pod.metadata.namespace_;
  claim->metadata.name = std::string(kSpecialClaimInMemName);
  // The in-flight allocation's key until PreBind creates the claim.
  claim->metadata.uid = newUUID();
  // The apiserver truncates the base when the name would get too long.
  claim->metadata.generateName = pod.metadata.name + "-extended-resources-";
  claim->metadata.ownerReferences.push_back(
      api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, std::nullopt});
  claim->metadata.annotations[std::string(framework::kExtendedResourceClaimAnnotation)] = "true";
  return claim;
}

RequestsAndMappings createRequestsAndMappings(const api::Pod& pod,
                                              const std::map<std::string, int64_t>& extendedResources,
                                              const framework::DeviceClassResolver* resolver) {
  std::vector<const api::Container*> containers;
  for (const auto& c : pod.spec.initContainers) containers.push_back(&c);
  for (const auto& c : pod.spec.containers) containers.push_back(&c);
  const size_t numInit = pod.spec.initContainers.size();
  // Long-lived: sidecars and regular containers; short-lived: the other init containers.
  std::vector<size_t> longLived;
  std::vector<size_t> shortLived;
  for (size_t i = 0; i < containers.size(); ++i) {
    const auto& policy = containers[i]->restartPolicy;
    const bool sidecar = policy && *policy == "Always";
    if (i < numInit && !sidecar) {
      shortLived.push_back(i);
    } else {
      longLived.push_back(i);
    }
  }

  RequestsAndMappings out;
  // The map iterates the resource names sorted, as upstream sorts them.
  for (const auto& [resource, quantity] : extendedResources) {
    (void)quantity;
    auto cls = classFor(resolver, resource);
    if (cls == nullptr) continue;
    std::vector<api::ContainerExtendedResourceRequest> shortLivedMappings;
    std::vector<api::ContainerExtendedResourceRequest> longLivedMappings;
    // One entry per container; only long-lived containers' entries are set. A plain init container may
    // reuse the requests of the containers after it.
    std::vector<std::optional<api::DeviceRequest>> longLivedRequests(containers.size());
    for (size_t i : longLived) {
      longLivedRequests[i] = createResourceRequestAndMappings(i, *containers[i], resource, cls->metadata.name,
                                                              {}, longLivedMappings);
    }
    // The plain init containers run one after another: their largest request serves them all.
    std::optional<api::DeviceRequest> maxShortLived;
    std::set<std::string> shortLivedNames;
    for (size_t i : shortLived) {
      auto request = createResourceRequestAndMappings(
          i, *containers[i], resource, cls->metadata.name,
          std::span<const std::optional<api::DeviceRequest>>(longLivedRequests).subspan(i),
          shortLivedMappings);
      if (request) {
        shortLivedNames.insert(request->name);
        if (!maxShortLived || maxShortLived->exactly->count < request->exactly->count)
          maxShortLived = *request;
      }
    }
    if (maxShortLived && shortLivedNames.size() > 1) {
      shortLivedNames.erase(maxShortLived->name);
      for (auto& m : shortLivedMappings) {
        if (shortLivedNames.count(m.requestName) > 0) m.requestName = maxShortLived->name;
      }
    }
    if (maxShortLived) out.requests.push_back(std::move(*maxShortLived));
    for (auto& r : longLivedRequests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), longLivedMappings.begin(), longLivedMappings.end());
    out.mappings.insert(out.mappings.end(), shortLivedMappings.begin(), shortLivedMappings.end());
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const api::DeviceRequest& a, const api::DeviceRequest& b) { return a.name < b.name; });
  return out;
}

// ---- DynamicResources' extended-resource steps ----

Status DynamicResources::preFilterExtendedResources(const api::Pod& pod, ExtendedResourceState& ext,
                                                    ResourceClaimPtr& claim) const {
  claim = nullptr;
  if (!features_.enableDRAExtendedResource) return {};
  const framework::DeviceClassResolver* resolver = resolverOf(draManager_);
  const api::ResourceList reqs = noderesources::podRequestsSpecOnly(pod);
  if (!hasDeviceClassMappedExtendedResource(reqs, resolver)) return {};
  ext.podScalarResources = framework::Resource::fromResourceList(reqs).scalarResources;

  // A claim from an earlier attempt may hold an allocation that is stale by now: rather than check it,
  // Filter rejects the pod and PostFilter deletes the claim (the deletion makes the pod schedulable again).
  if (ResourceClaimPtr found = findExtendedResourceClaim(pod, draManager_->resourceClaims().list())) {
    claim = std::move(found);
    return {};
  }
  claim = newInMemoryExtendedResourceClaim(pod);
  return {};
}

Status DynamicResources::filterExtendedResources(const ExtendedResourceState& ext,
                                                 const ResourceClaimPtr& extendedResourceClaim,
                                                 bool noUserClaim, const api::Pod& pod,
                                                 const framework::NodeInfo& nodeInfo,
                                                 ExtendedResourceState::NodeClaim& out) const {
  out = {};
  if (extendedResourceClaim == nullptr) return {};
  // From an earlier attempt: PostFilter deletes it, then the pod is tried anew.
  if (!extendedResourceClaim->spec.devices.requests.empty()) {
    return Status(Code::UnschedulableAndUnresolvable, "cannot schedule extended resource claim");
  }
  const framework::DeviceClassResolver* resolver = resolverOf(draManager_);
  const auto& allocatable = nodeInfo.allocatable().scalarResources;
  std::map<std::string, int64_t> extendedResources;
  for (const auto& [name, quantity] : ext.podScalarResources) {
    if (!isDRAExtendedResourceName(name) || quantity == 0) continue;
    auto it = allocatable.find(name);
    const int64_t nodeAllocatable = it == allocatable.end() ? 0 : it->second;
    if (classFor(resolver, name) != nullptr && nodeAllocatable == 0) {
      // The node must provide it through DRA.
      extendedResources[name] = quantity;
    } else if (it == allocatable.end()) {
      // Neither a device plugin nor DRA provides it here.
      return Status(Code::UnschedulableAndUnresolvable, "cannot fit resource");
    }
  }
  // All of it comes from device plugins (NodeResourcesFit checks that): nothing left to do here.
  if (noUserClaim && extendedResources.empty()) return {};
  // Cannot be allocated here (a claim from an earlier attempt was rejected above).
  if (extendedResourceClaim->status.allocation) return {};

  // Each node gets its own variant of the claim.
  auto nodeClaim = std::make_shared<api::ResourceClaim>(*extendedResourceClaim);
  RequestsAndMappings rm = createRequestsAndMappings(pod, extendedResources, resolver);
  nodeClaim->spec.devices.requests = std::move(rm.requests);
  out.claim = std::move(nodeClaim);
  out.mappings = std::move(rm.mappings);
  return {};
}

Result<ResourceClaimPtr> DynamicResources::createExtendedResourceClaimInAPI(
    const api::Pod& pod, const std::string& nodeName, const ExtendedResourceState& ext) {
  auto it = ext.nodeClaims.find(nodeName);
  if (it == ext.nodeClaims.end() || it->second.claim == nullptr) {
    return Error("extended resource claim not found for node " + nodeName);
  }
  api::ResourceClaim claim = *it->second.claim;
  // What must or cannot be set on create.
  claim.status.allocation.reset();
  claim.metadata.name.clear();
  claim.metadata.uid.clear();
  auto created = client_->createResourceClaim(claim);
  if (!created.ok()) {
    return Error("create claim for extended resources " + kobj(claim.metadata) + ": " +
                 created.error().message());
  }
  spdlog::debug("created claim for extended resources: pod {} node {} resourceclaim {}", kobj(pod.metadata),
                nodeName, kobj(created->metadata));
  return ResourceClaimPtr(std::make_shared<api::ResourceClaim>(std::move(created).value()));
}

Result<void> DynamicResources::patchPodExtendedResourceClaimStatus(const api::Pod& pod,
                                                                   const api::ResourceClaim& claim,
                                                                   const std::string& nodeName,
                                                                   const ExtendedResourceState& ext) {
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  if (auto it = ext.nodeClaims.find(nodeName); it != ext.nodeClaims.end()) mappings = it->second.mappings;
  const std::string podKey = pod.metadata.namespace_ + "/" + pod.metadata.name;
  if (mappings.empty()) {
    return Error("nil or empty request mappings, no update of pod " + podKey +
                 " ExtendedResourceClaimStatus");
  }
  client::PodStatusPatch patch;
  patch.extendedResourceClaimStatus =
      api::PodExtendedResourceClaimStatus{std::move(mappings), claim.metadata.name};
  client::Client* c = handle_.client();
  if (c == nullptr) return Error("update pod " + podKey + " ExtendedResourceClaimStatus: no API client");
  auto r = c->patchPodStatus(pod.metadata.namespace_, pod.metadata.name, patch);
  if (!r.ok()) return Error("update pod " + podKey + " ExtendedResourceClaimStatus: " + r.error().message());
  return {};
}

Result<void> DynamicResources::deleteClaim(api::ResourceClaim claim) {
  // The finalizer first, so that the delete removes the claim (retry.DefaultRetry on conflicts).
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      auto fresh = client_->getResourceClaim(claim.metadata.namespace_, claim.metadata.name);
      if (!fresh.ok()) {
        return Error("get resourceclaim " + kobj(claim.metadata) + ": " + fresh.error().message());
      }
      claim = std::move(fresh).value();
    }
    auto& finalizers = claim.metadata.finalizers;
    if (auto f = std::find(finalizers.begin(), finalizers.end(), api::kResourceClaimFinalizer);
        f != finalizers.end()) {
      finalizers.erase(f);
    }
    auto updated = client_->updateResourceClaim(claim);
    if (updated.ok()) break;
    if (!updated.error().isConflict() || attempt >= 4) {
      return Error("update resourceclaim " + kobj(claim.metadata) + ": " + updated.error().message());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto deleted = client_->deleteResourceClaim(claim.metadata.namespace_, claim.metadata.name, {});
  if (!deleted.ok() && !deleted.error().isNotFound()) return Error(deleted.error().message());
  return {};
}

void DynamicResources::waitForExtendedClaimInAssumeCache(const ResourceClaimPtr& claim,
                                                         std::stop_token stop) {
  // The informer may not have delivered the created claim yet: poll, at most 2 minutes. Upstream polls
  // every second in a goroutine of its own per pod; here the wait holds one of the binding workers, so the
  // first polls come sooner (5 ms, doubling up to upstream's second): the claim is usually delivered within
  // milliseconds, and a one-second poll would cap DRA extended-resource pods at one per worker and second.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(kAssumeExtendedResourceTimeoutDefaultSeconds);
  std::chrono::milliseconds interval{5};
  std::mutex mu;
  std::condition_variable_any cv;
  for (;;) {
    auto r = draManager_->resourceClaims().assumeClaimAfterAPICall(claim);
    if (r.ok()) return;
    // Anything but "not there yet" ends the wait; the claim was created anyway.
    if (r.error().message().find("could not find") == std::string::npos) {
      spdlog::debug("claim {} not stored in assume cache: {}", kobj(claim->metadata), r.error().message());
      return;
    }
    if (std::chrono::steady_clock::now() + interval > deadline) break;
    std::unique_lock lock(mu);
    if (cv.wait_for(lock, stop, interval, [] { return false; }) || stop.stop_requested()) break;
    interval = std::min<std::chrono::milliseconds>(interval * 2, std::chrono::seconds(1));
  }
  spdlog::debug("claim {} not stored in assume cache after retries", kobj(claim->metadata));
}

void DynamicResources::unreserveExtendedResourceClaim(const api::Pod& pod, const ExtendedResourceState& ext,
                                                      const ResourceClaimPtr& claim) {
  if (claim == nullptr) return;
  // Its allocation is not in flight any more: the cache goes back to the informer's claim.
  if (draManager_->resourceClaims().removeClaimPendingAllocation(ext.initialClaimUid)) {
    draManager_->resourceClaims().assumedClaimRestore(claim->metadata.namespace_, claim->metadata.name);
  }
  // Only the in-memory claim: nothing in the API to clean up.
  if (isSpecialClaimName(claim->metadata.name)) return;
  // PreBind created it: delete it, or it would be orphaned.
  spdlog::debug("delete extended resource backed by DRA: resourceclaim {} pod {}", kobj(claim->metadata),
                kobj(pod.metadata));
  if (auto r = deleteClaim(*claim); !r.ok()) {
    spdlog::error("delete resourceclaim {}: {}", kobj(claim->metadata), r.error().message());
  }
}

}  // namespace ks::plugins::dynamicresources
