#include "pkg/client/memory/memory_client.h"

#include <charconv>
#include <cstdio>
#include <set>
#include <tuple>

#include "pkg/util/strings.h"

namespace ks::client {

namespace memory {

ApiError notFound(const std::string& qualifiedResource, const std::string& name) {
  return ApiError(404, "NotFound", qualifiedResource + " " + quote(name) + " not found");
}

ApiError alreadyExists(const std::string& qualifiedResource, const std::string& name) {
  return ApiError(409, "AlreadyExists", qualifiedResource + " " + quote(name) + " already exists");
}

ApiError conflict(const std::string& qualifiedResource, const std::string& name, const std::string& detail) {
  return ApiError(
      409, "Conflict",
      "Operation cannot be fulfilled on " + qualifiedResource + " " + quote(name) + ": " + detail);
}

ApiError badRequest(const std::string& message) {
  return ApiError(400, "BadRequest", message);
}

ApiError invalid(const std::string& qualifiedResource, const std::string& name, const std::string& detail) {
  return ApiError(422, "Invalid", qualifiedResource + " " + quote(name) + " is invalid: " + detail);
}

ApiError expired(const std::string& message) {
  return ApiError(410, "Expired", message);
}

ApiError tooLargeResourceVersion(int64_t requested, int64_t current) {
  return ApiError(
      504, "Timeout",
      "Too large resource version: " + std::to_string(requested) + ", current: " + std::to_string(current));
}

std::optional<int64_t> parseResourceVersion(std::string_view rv) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (rv.empty() || ec != std::errc() || p != rv.data() + rv.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace memory

MemoryClient::MemoryClient(MemoryClientOptions options) : options_(std::move(options)), rng_(options_.seed) {}

MemoryClient::~MemoryClient() = default;

api::Time MemoryClient::now() const {
  return options_.now ? options_.now() : std::chrono::system_clock::now();
}

std::string MemoryClient::newUidLocked() {
  uint64_t a = rng_();
  uint64_t b = rng_();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(((b >> 48) & 0x3fff) | 0x8000),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string MemoryClient::generateNameLocked(const std::string& prefix) {
  // names.SimpleNameGenerator: 5 characters from an alphabet without vowels and confusable digits.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = prefix;
  for (int i = 0; i < 5; ++i) name += kAlphabet[rng_() % kAlphabet.size()];
  return name;
}

std::optional<ApiError> MemoryClient::takeInjectedLocked(Operation op, std::string_view kind) {
  ++calls_[static_cast<size_t>(op)];
  for (auto it = injections_.begin(); it != injections_.end(); ++it) {
    if (it->op != op || (!it->kind.empty() && it->kind != kind)) continue;
    ApiError err = it->error;
    if (--it->remaining <= 0) injections_.erase(it);
    return err;
  }
  return std::nullopt;
}

std::string MemoryClient::currentResourceVersion() const {
  std::lock_guard lock(mu_);
  return std::to_string(currentRV_);
}

// --- PodWriter ---------------------------------------------------------------------------------------

namespace {

// podutil.UpdatePodCondition: lastTransitionTime moves only when the status changes.
void updatePodCondition(api::PodStatus& status, api::PodCondition condition, api::Time now) {
  condition.lastTransitionTime = now;
  for (api::PodCondition& c : status.conditions) {
    if (c.type != condition.type) continue;
    if (c.status == condition.status) condition.lastTransitionTime = c.lastTransitionTime;
    c = std::move(condition);
    return;
  }
  status.conditions.push_back(std::move(condition));
}

}  // namespace

ApiResult<void> MemoryClient::bind(const api::Binding& binding) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::Bind, api::Pod::kKind)) return *e;
  const std::string& name = binding.metadata.name;
  const std::string ns = binding.metadata.namespace_.empty() ? "default" : binding.metadata.namespace_;
  if (binding.target.name.empty()) {
    return memory::invalid("bindings", name, "target.name: Required value");
  }
  if (!binding.target.kind.empty() && binding.target.kind != "Node") {
    return memory::invalid(
        "bindings", name,
        "target.kind: Invalid value: " + quote(binding.target.kind) + ": must be empty or 'Node'");
  }
  const std::string& expectedRV = binding.metadata.resourceVersion;
  auto& s = state<api::Pod>();
  auto it = s.objects.find(memory::storageKey<api::Pod>(ns, name));
  if (it == s.objects.end()) return memory::notFound("pods", name);
  const api::Pod& current = *it->second;
  if (!binding.metadata.uid.empty() && binding.metadata.uid != current.metadata.uid) {
    return memory::conflict("pods", name,
                            "Precondition failed: UID in precondition: " + binding.metadata.uid +
                                ", UID in object meta: " + current.metadata.uid);
  }
  const api::Time t = now();
  auto r = updateLocked<api::Pod>(ns, name, expectedRV, [&](api::Pod& pod) -> ApiResult<void> {
    if (pod.metadata.deletionTimestamp) {
      return memory::conflict("pods/binding", name,
                              "pod " + name + " is being deleted, cannot be assigned to a host");
    }
    if (!pod.spec.nodeName.empty()) {
      return memory::conflict("pods/binding", name,
                              "pod " + name + " is already assigned to node " + quote(pod.spec.nodeName));
    }
    if (!pod.spec.schedulingGates.empty()) {
      return memory::conflict("pods/binding", name, "pod " + name + " has non-empty .spec.schedulingGates");
    }
    pod.spec.nodeName = binding.target.name;
    for (const auto& [k, v] : binding.metadata.annotations) pod.metadata.annotations[k] = v;
    api::PodCondition scheduled;
    scheduled.type = "PodScheduled";
    scheduled.status = "True";
    updatePodCondition(pod.status, std::move(scheduled), std::chrono::floor<std::chrono::seconds>(t));
    return {};
  });
  if (!r.ok()) return r.error();
  return {};
}

ApiResult<api::Pod> MemoryClient::patchPodStatus(const std::string& ns, const std::string& name,
                                                 const PodStatusPatch& patch) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::PatchPodStatus, api::Pod::kKind)) return *e;
  return updateLocked<api::Pod>(ns, name, "", [&](api::Pod& pod) -> ApiResult<void> {
    if (patch.condition) {
      // Strategic merge on conditions: the list is keyed by type.
      bool merged = false;
      for (api::PodCondition& c : pod.status.conditions) {
        if (c.type == patch.condition->type) {
          c = *patch.condition;
          merged = true;
          break;
        }
      }
      if (!merged) pod.status.conditions.push_back(*patch.condition);
    }
    if (patch.nominatedNodeName) pod.status.nominatedNodeName = *patch.nominatedNodeName;
    if (patch.extendedResourceClaimStatus) pod.status.extendedResourceClaimStatus = *patch.extendedResourceClaimStatus;
    return {};
  });
}

ApiResult<void> MemoryClient::deletePod(const std::string& ns, const std::string& name,
                                        const DeleteOptions& options) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::DeletePod, api::Pod::kKind)) return *e;
  return removeLocked<api::Pod>(ns, name, options);
}

// --- PodGroupWriter ----------------------------------------------------------------------------------
// As the apiserver applies the strategic merge patch: the condition of that type is replaced (or added).

ApiResult<api::PodGroup> MemoryClient::patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                                    const api::Condition& condition) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::PatchPodGroupStatus, api::PodGroup::kKind)) return *e;
  return updateLocked<api::PodGroup>(ns, name, "", [&](api::PodGroup& group) -> ApiResult<void> {
    auto& conditions = group.status.conditions;
    auto it = std::find_if(conditions.begin(), conditions.end(),
                           [&](const api::Condition& c) { return c.type == condition.type; });
    if (it != conditions.end()) {
      *it = condition;
    } else {
      conditions.push_back(condition);
    }
    return {};
  });
}

// --- VolumeWriter ------------------------------------------------------------------------------------
// As the apiserver applies the REST client's merge patches: the given annotations are set (others
// kept), claimRef replaced, the resourceVersion a precondition.

ApiResult<api::PersistentVolume> MemoryClient::updatePersistentVolumeBinding(const api::PersistentVolume& pv) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdatePersistentVolumeBinding, api::PersistentVolume::kKind)) {
    return *e;
  }
  return updateLocked<api::PersistentVolume>(
      "", pv.metadata.name, pv.metadata.resourceVersion, [&](api::PersistentVolume& stored) -> ApiResult<void> {
        for (const auto& [k, v] : pv.metadata.annotations) stored.metadata.annotations[k] = v;
        stored.spec.claimRef = pv.spec.claimRef;
        return {};
      });
}

ApiResult<api::PersistentVolumeClaim> MemoryClient::updatePersistentVolumeClaimAnnotations(
    const api::PersistentVolumeClaim& claim) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdatePersistentVolumeClaimAnnotations,
                                  api::PersistentVolumeClaim::kKind)) {
    return *e;
  }
  return updateLocked<api::PersistentVolumeClaim>(
      claim.metadata.namespace_, claim.metadata.name, claim.metadata.resourceVersion,
      [&](api::PersistentVolumeClaim& stored) -> ApiResult<void> {
        for (const auto& [k, v] : claim.metadata.annotations) stored.metadata.annotations[k] = v;
        return {};
      });
}

// --- ResourceClaimWriter -----------------------------------------------------------------------------
// As pkg/registry/resource/resourceclaim/strategy.go and the generic registry store apply these calls.

namespace {

const std::string kResourceClaims = "resourceclaims.resource.k8s.io";

ApiError uidPreconditionFailed(const std::string& name, const std::string& given, const std::string& stored) {
  return memory::conflict(
      kResourceClaims, name,
      "Precondition failed: UID in precondition: " + given + ", UID in object meta: " + stored);
}

// dropDeallocatedStatusDevices: a status update that takes devices out of the allocation also drops their
// entries from status.devices.
void dropDeallocatedStatusDevices(api::ResourceClaimStatus& next, const api::ResourceClaimStatus& old) {
  using Id = std::tuple<std::string, std::string, std::string, std::optional<std::string>>;
  std::set<Id> deallocated;
  if (old.allocation) {
    for (const auto& r : old.allocation->devices.results)
      deallocated.insert({r.driver, r.pool, r.device, r.shareID});
  }
  if (next.allocation) {
    for (const auto& r : next.allocation->devices.results)
      deallocated.erase({r.driver, r.pool, r.device, r.shareID});
  }
  std::erase_if(next.devices, [&](const api::AllocatedDeviceStatus& d) {
    return deallocated.contains({d.driver, d.pool, d.device, d.shareID});
  });
}

}  // namespace

ApiResult<api::ResourceClaim> MemoryClient::getResourceClaim(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::GetResourceClaim, api::ResourceClaim::kKind)) return *e;
  auto& s = state<api::ResourceClaim>();
  auto it = s.objects.find(memory::storageKey<api::ResourceClaim>(ns, name));
  if (it == s.objects.end()) return memory::notFound(kResourceClaims, name);
  return *it->second;
}

ApiResult<api::ResourceClaim> MemoryClient::createResourceClaim(const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::CreateResourceClaim, api::ResourceClaim::kKind)) return *e;
  api::ResourceClaim c = claim;
  c.status = {};  // the status must not be set on create
  c.metadata.deletionTimestamp.reset();
  c.metadata.deletionGracePeriodSeconds.reset();
  return createLocked<api::ResourceClaim>(std::move(c));
}

ApiResult<api::ResourceClaim> MemoryClient::updateResourceClaim(const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdateResourceClaim, api::ResourceClaim::kKind)) return *e;
  const std::string& ns = claim.metadata.namespace_;
  const std::string& name = claim.metadata.name;
  // The claim as the update would store it (BeforeUpdate and PrepareForUpdate), or an error.
  auto merge = [&](const api::ResourceClaim& stored) -> ApiResult<api::ResourceClaim> {
    if (!claim.metadata.uid.empty() && claim.metadata.uid != stored.metadata.uid) {
      return uidPreconditionFailed(name, claim.metadata.uid, stored.metadata.uid);
    }
    if (!(claim.spec == stored.spec))
      return memory::invalid(kResourceClaims, name, "spec: field is immutable");
    api::ResourceClaim next = claim;
    next.status = stored.status;
    next.metadata.uid = stored.metadata.uid;
    next.metadata.namespace_ = stored.metadata.namespace_;
    next.metadata.creationTimestamp = stored.metadata.creationTimestamp;
    next.metadata.generation = stored.metadata.generation;
    next.metadata.resourceVersion = stored.metadata.resourceVersion;
    next.metadata.deletionTimestamp = stored.metadata.deletionTimestamp;
    if (stored.metadata.deletionGracePeriodSeconds && !next.metadata.deletionGracePeriodSeconds) {
      next.metadata.deletionGracePeriodSeconds = stored.metadata.deletionGracePeriodSeconds;
    }
    return next;
  };
  auto& s = state<api::ResourceClaim>();
  auto it = s.objects.find(memory::storageKey<api::ResourceClaim>(ns, name));
  if (it == s.objects.end()) return memory::notFound(kResourceClaims, name);
  if (!claim.metadata.resourceVersion.empty() &&
      claim.metadata.resourceVersion != it->second->metadata.resourceVersion) {
    return memory::conflict(kResourceClaims, name, std::string(memory::kConflictMessage));
  }
  auto next = merge(*it->second);
  if (!next.ok()) return next.error();
  if (next->metadata.deletionTimestamp && next->metadata.finalizers.empty()) {
    // The last finalizer of a claim being deleted is gone: the update deletes it instead of storing it.
    if (auto r = removeLocked<api::ResourceClaim>(ns, name, {}); !r.ok()) return r.error();
    return next;
  }
  return updateLocked<api::ResourceClaim>(ns, name, claim.metadata.resourceVersion,
                                          [&](api::ResourceClaim& stored) -> ApiResult<void> {
                                            stored = *next;
                                            return {};
                                          });
}

ApiResult<api::ResourceClaim> MemoryClient::updateResourceClaimStatus(const api::ResourceClaim& claim) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdateResourceClaimStatus, api::ResourceClaim::kKind)) return *e;
  const std::string& name = claim.metadata.name;
  return updateLocked<api::ResourceClaim>(
      claim.metadata.namespace_, name, claim.metadata.resourceVersion,
      [&](api::ResourceClaim& stored) -> ApiResult<void> {
        if (!claim.metadata.uid.empty() && claim.metadata.uid != stored.metadata.uid) {
          return uidPreconditionFailed(name, claim.metadata.uid, stored.metadata.uid);
        }
        api::ResourceClaimStatus next = claim.status;
        dropDeallocatedStatusDevices(next, stored.status);
        stored.status = std::move(next);
        return {};
      });
}

ApiResult<api::ResourceClaim> MemoryClient::removeResourceClaimReservation(const std::string& ns,
                                                                           const std::string& name,
                                                                           const std::string& claimUid,
                                                                           const std::string& consumerUid) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::RemoveResourceClaimReservation, api::ResourceClaim::kKind))
    return *e;
  return updateLocked<api::ResourceClaim>(ns, name, "", [&](api::ResourceClaim& stored) -> ApiResult<void> {
    if (!claimUid.empty() && claimUid != stored.metadata.uid) {
      return uidPreconditionFailed(name, claimUid, stored.metadata.uid);
    }
    std::erase_if(stored.status.reservedFor,
                  [&](const api::ResourceClaimConsumerReference& r) { return r.uid == consumerUid; });
    return {};
  });
}

ApiResult<void> MemoryClient::deleteResourceClaim(const std::string& ns, const std::string& name,
                                                  const DeleteOptions& options) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::DeleteResourceClaim, api::ResourceClaim::kKind)) return *e;
  auto& s = state<api::ResourceClaim>();
  auto it = s.objects.find(memory::storageKey<api::ResourceClaim>(ns, name));
  if (it == s.objects.end() || it->second->metadata.finalizers.empty()) {
    return removeLocked<api::ResourceClaim>(ns, name, options);
  }
  const api::ObjectMeta& m = it->second->metadata;
  if (options.preconditionUid && *options.preconditionUid != m.uid) {
    return uidPreconditionFailed(name, *options.preconditionUid, m.uid);
  }
  if (options.preconditionResourceVersion && *options.preconditionResourceVersion != m.resourceVersion) {
    return memory::conflict(
        kResourceClaims, name,
        "Precondition failed: ResourceVersion in precondition: " + *options.preconditionResourceVersion +
            ", ResourceVersion in object meta: " + m.resourceVersion);
  }
  // Finalizers keep it: only marked, as the apiserver's graceful deletion of objects without a grace period.
  const api::Time t = std::chrono::floor<std::chrono::seconds>(now());
  auto r = updateLocked<api::ResourceClaim>(ns, name, "", [&](api::ResourceClaim& stored) -> ApiResult<void> {
    if (!stored.metadata.deletionTimestamp) {
      stored.metadata.deletionTimestamp = t;
      stored.metadata.deletionGracePeriodSeconds = 0;
    }
    return {};
  });
  if (!r.ok()) return r.error();
  return {};
}

// --- EventWriter -------------------------------------------------------------------------------------

ApiResult<api::Event> MemoryClient::createEvent(const api::Event& event) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::CreateEvent, api::Event::kKind)) return *e;
  api::Event ev = event;
  if (ev.metadata.namespace_.empty()) {
    ev.metadata.namespace_ = ev.regarding.namespace_.empty() ? "default" : ev.regarding.namespace_;
  }
  if (ev.metadata.name.empty() && ev.metadata.generateName.empty()) {
    ev.metadata.generateName = (ev.regarding.name.empty() ? std::string("event") : ev.regarding.name) + ".";
  }
  return createLocked<api::Event>(std::move(ev));
}

ApiResult<api::Event> MemoryClient::updateEventSeries(const std::string& ns, const std::string& name,
                                                      const api::EventSeries& series) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdateEventSeries, api::Event::kKind)) return *e;
  return updateLocked<api::Event>(ns, name, "", [&](api::Event& ev) -> ApiResult<void> {
    ev.series = series;
    return {};
  });
}

// --- LeaseClient -------------------------------------------------------------------------------------

ApiResult<api::Lease> MemoryClient::getLease(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::GetLease, api::Lease::kKind)) return *e;
  auto& s = state<api::Lease>();
  auto it = s.objects.find(memory::storageKey<api::Lease>(ns, name));
  if (it == s.objects.end()) return memory::notFound(memory::qualifiedResource<api::Lease>(), name);
  return *it->second;
}

ApiResult<api::Lease> MemoryClient::createLease(const api::Lease& lease) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::CreateLease, api::Lease::kKind)) return *e;
  return createLocked<api::Lease>(lease);
}

ApiResult<api::Lease> MemoryClient::updateLease(const api::Lease& lease) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::UpdateLease, api::Lease::kKind)) return *e;
  return updateLocked<api::Lease>(lease.metadata.namespace_, lease.metadata.name,
                                  lease.metadata.resourceVersion, [&](api::Lease& stored) -> ApiResult<void> {
                                    stored.spec = lease.spec;
                                    stored.metadata.labels = lease.metadata.labels;
                                    stored.metadata.annotations = lease.metadata.annotations;
                                    return {};
                                  });
}

// --- Test hooks --------------------------------------------------------------------------------------

void MemoryClient::injectFailures(Operation op, int count, ApiError error, std::string_view kind) {
  if (count <= 0) return;
  std::lock_guard lock(mu_);
  injections_.push_back(Injection{op, std::string(kind), count, std::move(error)});
}

int64_t MemoryClient::callCount(Operation op) const {
  std::lock_guard lock(mu_);
  return calls_[static_cast<size_t>(op)];
}

void MemoryClient::closeAllWatchesForTest(std::optional<ApiError> error) {
  std::lock_guard lock(mu_);
  std::apply(
      [&](auto&... kind) { (closeWatchesLocked<typename std::decay_t<decltype(kind)>::Object>(error), ...); },
      kinds_);
}

void MemoryClient::compactHistoryForTest() {
  std::lock_guard lock(mu_);
  std::apply([&](auto&... kind) { ((kind.history.clear(), kind.minWatchRV = currentRV_), ...); }, kinds_);
}

size_t MemoryClient::activeWatchCountForTest() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  std::apply([&](const auto&... kind) { ((n += kind.watchers.size()), ...); }, kinds_);
  return n;
}

}  // namespace ks::client
