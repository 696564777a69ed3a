#pragma once
// The one client interface the scheduler talks to the Kubernetes API through. Two implementations:
// the REST client (pkg/client/rest, over its own HTTP/1.1 transport) and the in-memory API (pkg/client/memory) that the
// simulator, unit tests and in-process benchmarks run the real scheduler against.
//
// All calls are blocking and may be made from any thread; implementations are thread-safe.
// Errors are typed (ApiError) so callers can tell 404 / 409 / 410 / 429 / 5xx apart.
//
// A new call here is a new permission: exercise it in test/deploy/rbac_test.cpp and grant it in
// deploy/base/rbac.yaml (the test fails until both agree).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "pkg/api/kinds.h"
#include "pkg/api/meta.h"
#include "pkg/util/result.h"

namespace ks::client {

// An API failure: the HTTP status code and the metav1.Status reason when the server sent one;
// code 0 for transport failures (connection refused, TLS, timeout).
class ApiError {
 public:
  ApiError(int32_t code, std::string reason, std::string message,
           std::chrono::seconds retryAfter = std::chrono::seconds(0))
      : code_(code), reason_(std::move(reason)), message_(std::move(message)), retryAfter_(retryAfter) {}

  static ApiError fromStatus(const api::ApiStatus& s) {
    return ApiError(s.code, s.reason, s.message,
                    std::chrono::seconds(s.details ? s.details->retryAfterSeconds : 0));
  }

  int32_t code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  std::chrono::seconds retryAfter() const { return retryAfter_; }

  bool isNotFound() const { return code_ == 404; }
  bool isConflict() const { return code_ == 409; }  // AlreadyExists or Conflict
  bool isGone() const { return code_ == 410; }      // Expired / Gone: relist
  bool isTooManyRequests() const { return code_ == 429; }
  bool isServerError() const { return code_ >= 500; }
  bool isTransport() const { return code_ == 0; }

 private:
  int32_t code_;
  std::string reason_;
  std::string message_;
  std::chrono::seconds retryAfter_;
};

template <typename T>
using ApiResult = Result<T, ApiError>;

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::string resourceVersion;  // "" = most recent (quorum read)
  int64_t limit = 0;            // 0 = no pagination
  std::string continue_;
};

struct WatchOptions {
  std::string resourceVersion;  // watch changes after this version
  bool allowWatchBookmarks = true;
  int64_t timeoutSeconds = 0;  // 0 = server default
  std::string labelSelector;
  std::string fieldSelector;
  // A watch-list (client-go's WatchListClient): the stream starts with the state at resourceVersion or
  // newer (resourceVersionMatch=NotOlderThan; "" = most recent, consistent) as synthetic ADDED events,
  // ended by a BOOKMARK annotated kInitialEventsEndAnnotation="true", then goes on as a watch.
  bool sendInitialEvents = false;
};

// metav1.InitialEventsAnnotationKey: marks the bookmark that ends a watch-list's initial events.
inline constexpr std::string_view kInitialEventsEndAnnotation = "k8s.io/initial-events-end";

// A list page whose items are already shared, immutable objects, as informers keep them.
template <typename T>
struct SharedList {
  api::ListMeta metadata;
  std::vector<std::shared_ptr<const T>> items;
};

// List and watch of one resource across all namespaces.
template <typename T>
class ListWatcher {
 public:
  virtual ~ListWatcher() = default;

  // One page of the list (follow metadata.continue_ for the next).
  virtual ApiResult<api::List<T>> list(const ListOptions& options) = 0;

  // The same page with each item allocated once as a shared object: what informers list with, so that
  // a 100k-pod list is never also held as one contiguous vector of objects. By default from list().
  virtual ApiResult<SharedList<T>> listShared(const ListOptions& options) {
    auto page = list(options);
    if (!page.ok()) return page.error();
    SharedList<T> out;
    out.metadata = std::move(page->metadata);
    out.items.reserve(page->items.size());
    for (T& item : page->items) out.items.push_back(std::make_shared<const T>(std::move(item)));
    return out;
  }

  // Streams events to `onEvent` (on the calling thread) until the server ends the watch, an error
  // occurs or `stop` is requested. Returns OK when the stream ended normally or was stopped; a 410
  // shows up either as an error result or as an Error event, per the server.
  virtual ApiResult<void> watch(const WatchOptions& options,
                                const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                                std::stop_token stop) = 0;
};

// The list/watch sources the informers need: one accessor per watched kind of pkg/api/kinds.def
// (pods(), nodes(), csiStorageCapacities(), ...).
class ListWatchers {
 public:
  virtual ~ListWatchers() = default;
#define KS_WATCHED_KIND(Type, accessor, ...) virtual ListWatcher<api::Type>& accessor() = 0;
#include "pkg/api/kinds.def"

  // The accessor of kind T: listWatcher<api::Pod>() is pods().
  template <typename T>
  ListWatcher<T>& listWatcher();
};

#define KS_WATCHED_KIND(Type, accessor, ...)                              \
  template <>                                                             \
  inline ListWatcher<api::Type>& ListWatchers::listWatcher<api::Type>() { \
    return accessor();                                                    \
  }
#include "pkg/api/kinds.def"

// What the scheduler changes on pods: the PodScheduled condition, nominatedNodeName and the claim it
// created for DRA-backed extended resources, written as a strategic-merge patch of pods/{name}/status.
struct PodStatusPatch {
  std::optional<api::PodCondition> condition;    // merged by type
  std::optional<std::string> nominatedNodeName;  // "" clears it
  // Replaces status.extendedResourceClaimStatus (its requestMappings list is atomic).
  std::optional<api::PodExtendedResourceClaimStatus> extendedResourceClaimStatus;
};

struct DeleteOptions {
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
  std::optional<int64_t> gracePeriodSeconds;
};

class PodWriter {
 public:
  virtual ~PodWriter() = default;
  // POST pods/{name}/binding. 409 when the pod is already bound; 404 when it is gone.
  virtual ApiResult<void> bind(const api::Binding& binding) = 0;
  // PATCH pods/{name}/status; returns the updated pod.
  virtual ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                             const PodStatusPatch& patch) = 0;
  // DELETE the pod (preemption victims), honouring the preconditions.
  virtual ApiResult<void> deletePod(const std::string& ns, const std::string& name,
                                    const DeleteOptions& options) = 0;
};

// What volume binding writes: a PV's claimRef (static binding) and a claim's annotations (the
// selected node that starts provisioning). Sent as JSON merge patches of exactly those fields with
// metadata.resourceVersion as the precondition, so a stale object fails with 409 as upstream's Update
// does, and the fields this model does not carry are left as the server has them.
class VolumeWriter {
 public:
  virtual ~VolumeWriter() = default;
  // Patches metadata.annotations and spec.claimRef of `pv`; returns the PV as stored.
  virtual ApiResult<api::PersistentVolume> updatePersistentVolumeBinding(const api::PersistentVolume& pv) = 0;
  // Patches metadata.annotations of `claim`; returns the claim as stored.
  virtual ApiResult<api::PersistentVolumeClaim> updatePersistentVolumeClaimAnnotations(
      const api::PersistentVolumeClaim& claim) = 0;
};

// What DynamicResources does to ResourceClaims (upstream's calls on ResourceClaims(ns)): reads a claim
// afresh after a conflict, adds or removes its finalizer, writes the allocation and reservation into its
// status, drops a reservation, and creates and deletes the claims of extended resources.
class ResourceClaimWriter {
 public:
  virtual ~ResourceClaimWriter() = default;
  // GET resourceclaims/{name}.
  virtual ApiResult<api::ResourceClaim> getResourceClaim(const std::string& ns, const std::string& name) = 0;
  // POST; the server ignores the status and assigns name (from generateName), uid, resourceVersion.
  virtual ApiResult<api::ResourceClaim> createResourceClaim(const api::ResourceClaim& claim) = 0;
  // PUT resourceclaims/{name}: metadata (finalizers) with metadata.resourceVersion as the precondition (409
  // when stale); the server keeps the status as stored and refuses a changed spec (422, it is immutable).
  virtual ApiResult<api::ResourceClaim> updateResourceClaim(const api::ResourceClaim& claim) = 0;
  // PUT resourceclaims/{name}/status: the status, with the same precondition; the server keeps spec,
  // labels, annotations, finalizers and owner references as stored.
  virtual ApiResult<api::ResourceClaim> updateResourceClaimStatus(const api::ResourceClaim& claim) = 0;
  // PATCH resourceclaims/{name}/status (strategic merge): removes the status.reservedFor entry whose uid is
  // `consumerUid`, if there is one, from the claim whose uid is `claimUid` (409 when the claim by that name
  // has another uid). No resourceVersion precondition: the latest claim need not be known.
  virtual ApiResult<api::ResourceClaim> removeResourceClaimReservation(const std::string& ns,
                                                                       const std::string& name,
                                                                       const std::string& claimUid,
                                                                       const std::string& consumerUid) = 0;
  // DELETE resourceclaims/{name}, honouring the preconditions. A claim with finalizers is only marked
  // (deletionTimestamp) until they are removed.
  virtual ApiResult<void> deleteResourceClaim(const std::string& ns, const std::string& name,
                                              const DeleteOptions& options) = 0;
};

// What the pod-group cycle writes (GenericWorkload): the PodGroupInitiallyScheduled condition, as upstream's
// util.PatchPodGroupStatus.
class PodGroupWriter {
 public:
  virtual ~PodGroupWriter() = default;
  // PATCH scheduling.k8s.io/v1beta1 podgroups/{name}/status (strategic merge): sets `condition` in
  // status.conditions (keyed by type), leaving the other conditions as stored; returns the group as stored.
  virtual ApiResult<api::PodGroup> patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                                const api::Condition& condition) = 0;
};

class EventWriter {
 public:
  virtual ~EventWriter() = default;
  // POST an events.k8s.io/v1 Event; returns it as stored (with name and resourceVersion).
  virtual ApiResult<api::Event> createEvent(const api::Event& event) = 0;
  // PATCH the series of an existing event (aggregation of repeats).
  virtual ApiResult<api::Event> updateEventSeries(const std::string& ns, const std::string& name,
                                                  const api::EventSeries& series) = 0;
};

class LeaseClient {
 public:
  virtual ~LeaseClient() = default;
  virtual ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) = 0;
  virtual ApiResult<api::Lease> createLease(const api::Lease& lease) = 0;
  // PUT with metadata.resourceVersion as the precondition: 409 when someone else updated it.
  virtual ApiResult<api::Lease> updateLease(const api::Lease& lease) = 0;
};

// Everything the scheduler needs from the API.
class Client : public ListWatchers,
               public PodWriter,
               public VolumeWriter,
               public ResourceClaimWriter,
               public PodGroupWriter,
               public EventWriter,
               public LeaseClient {};

}  // namespace ks::client
