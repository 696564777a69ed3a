#pragma once
// MemoryClient: an in-memory Kubernetes API server behind the client::Client interface. The simulator,
// unit tests and in-process benchmarks run the real informers and scheduler against it.
//
// Semantics carried over from kube-apiserver + etcd + the watch cache:
//  - one global resourceVersion counter (a decimal integer string, as etcd's revision); every write
//    of any kind takes the next value; objects carry the version of their last write;
//  - create: 409 AlreadyExists ("pods \"p\" already exists"), uid and creationTimestamp assigned,
//    metadata.generateName honoured; update: optimistic concurrency on metadata.resourceVersion
//    (409 Conflict "...the object has been modified; please apply your changes to the latest version
//    and try again"), an update that changes nothing is not written; delete: 404 NotFound, uid and
//    resourceVersion preconditions (409);
//  - list: the list's resourceVersion is the current one; label and field selectors; limit/continue
//    pagination over a consistent snapshot (410 Expired once the snapshot left the history window);
//  - watch from a resourceVersion: replays exactly the later events from a per-kind history window
//    of `historySize` events; an older version gets 410 Expired "too old resource version: X (Y)"
//    (as an ERROR event, as the watch cache does, or as an error result); "" and "0" start with
//    synthetic ADDED events of the current state; selectors turn transitions into ADDED / DELETED as
//    the watch cache does; periodic BOOKMARKs; ends on timeoutSeconds, stop, or closeAllWatchesForTest;
//  - watch-list (sendInitialEvents): the current state as ADDED events, then the BOOKMARK annotated
//    k8s.io/initial-events-end; a version newer than the current one: 504 "Too large resource version";
//  - pods/binding (409 "pod p is already assigned to node \"n\"", PodScheduled=True), pods/status
//    patches, events with generated names, leases, resource claims (their status subresource and
//    finalizers, as the resource claim strategy treats them).
// Failure injection: injectFailures(op, n, error) makes the next n calls of `op` fail with `error`.
//
// Thread-safety: every method may be called from any thread. Lock order: MemoryClient::mu_ ->
// memory::Watcher::mu_. A watch's onEvent runs on the watching thread with no lock held, so it may call
// back into the client.

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/client/memory/kinds.h"
#include "pkg/client/memory/selectors.h"

namespace ks::client {

// The operations failure injection and call counting know about. List and Watch cover every kind
// (optionally narrowed by kind name); Get/Create/Update/Delete are the generic test-setup methods.
enum class Operation : uint8_t {
  List,
  Watch,
  Get,
  Create,
  Update,
  Delete,
  Bind,
  PatchPodStatus,
  DeletePod,
  UpdatePersistentVolumeBinding,
  UpdatePersistentVolumeClaimAnnotations,
  GetResourceClaim,
  CreateResourceClaim,
  UpdateResourceClaim,
  UpdateResourceClaimStatus,
  RemoveResourceClaimReservation,
  DeleteResourceClaim,
  PatchPodGroupStatus,
  CreateEvent,
  UpdateEventSeries,
  GetLease,
  CreateLease,
  UpdateLease,
};
inline constexpr size_t kOperationCount = static_cast<size_t>(Operation::UpdateLease) + 1;

struct MemoryClientOptions {
  // Watch events kept per kind; watches and continue tokens older than the window get 410.
  size_t historySize = 10000;
  // How often an idle watch that allows bookmarks gets a BOOKMARK (the apiserver: about a minute).
  std::chrono::milliseconds bookmarkInterval = std::chrono::seconds(60);
  // Wall time of one unit of WatchOptions::timeoutSeconds (tests shrink it).
  std::chrono::milliseconds watchTimeoutUnit = std::chrono::seconds(1);
  // Timeout of watches that ask for none (timeoutSeconds == 0); zero means never.
  std::chrono::milliseconds defaultWatchTimeout = std::chrono::milliseconds(0);
  // true: a too-old watch gets an ERROR event with the 410 status and a normal end (the watch
  // cache's behaviour); false: the watch call returns the 410 as an error result.
  bool expiredWatchAsErrorEvent = true;
  // Seed of the random source for uids and generated names (deterministic runs).
  uint64_t seed = 1;
  // Clock for creationTimestamp, condition transition times; system_clock::now when empty.
  std::function<api::Time()> now;
  // create keeps a uid and creationTimestamp the object already has (the apiserver always assigns new
  // ones): `explain` copies a live cluster whose references (a PV's claimRef.uid, an ephemeral claim's
  // owner) must keep naming the same objects.
  bool keepUidsOnCreate = false;
};

namespace memory {

// One write in a kind's history. For Deleted, `object` is the final state stamped with the
// deletion's resourceVersion; `prev` is the state before the write (null for Added).
template <typename T>
struct HistoryEntry {
  int64_t rv = 0;
  api::WatchEventType type = api::WatchEventType::Added;
  std::string key;
  std::shared_ptr<const T> object;
  std::shared_ptr<const T> prev;
};

// One open watch: the server side pushes filtered events into `queue`; the watching thread pops them.
template <typename T>
struct Watcher {
  explicit Watcher(ObjectFilter<T> f, bool bookmarks) : filter(std::move(f)), allowBookmarks(bookmarks) {}
  const ObjectFilter<T> filter;
  const bool allowBookmarks;
  std::mutex mu;
  std::condition_variable_any cv;
  std::deque<api::WatchEvent<T>> queue;  // guarded by mu
  bool closed = false;                   // guarded by mu
  std::optional<ApiError> closeError;    // guarded by mu
  int64_t lastRV = 0;                    // written with MemoryClient::mu_ and mu held
};

// Everything stored for one kind. Guarded by MemoryClient::mu_.
template <typename T>
struct KindState {
  using Object = T;
  std::map<std::string, std::shared_ptr<const T>> objects;  // by storage key
  std::deque<HistoryEntry<T>> history;                      // ascending rv
  int64_t minWatchRV = 0;  // watches / continue tokens from a version below this are expired
  std::vector<std::shared_ptr<Watcher<T>>> watchers;
};

}  // namespace memory

class MemoryClient;

namespace memory {

// The ListWatcher of one kind: a view onto MemoryClient::list<T>() / watch<T>().
template <typename T>
class KindListWatcher final : public ListWatcher<T> {
 public:
  explicit KindListWatcher(MemoryClient& client) : client_(client) {}
  ApiResult<api::List<T>> list(const ListOptions& options) override;
  ApiResult<void> watch(const WatchOptions& options, const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                        std::stop_token stop) override;

 private:
  MemoryClient& client_;
};

template <typename... Ts>
using KindStates = std::tuple<KindState<Ts>...>;

}  // namespace memory

class MemoryClient final : public Client {
 public:
  explicit MemoryClient(MemoryClientOptions options = {});
  ~MemoryClient() override;
  MemoryClient(const MemoryClient&) = delete;
  MemoryClient& operator=(const MemoryClient&) = delete;

  // ListWatchers: views onto list<T>() / watch<T>() below.
#define KS_WATCHED_KIND(Type, accessor, ...)    \
  ListWatcher<api::Type>& accessor() override { \
    return accessor##LW_;                       \
  }
#include "pkg/api/kinds.def"

  // PodWriter
  ApiResult<void> bind(const api::Binding& binding) override;
  ApiResult<api::Pod> patchPodStatus(const std::string& ns, const std::string& name,
                                     const PodStatusPatch& patch) override;
  ApiResult<void> deletePod(const std::string& ns, const std::string& name,
                            const DeleteOptions& options) override;

  // VolumeWriter
  ApiResult<api::PersistentVolume> updatePersistentVolumeBinding(const api::PersistentVolume& pv) override;
  ApiResult<api::PersistentVolumeClaim> updatePersistentVolumeClaimAnnotations(
      const api::PersistentVolumeClaim& claim) override;

  // ResourceClaimWriter, with the resource claim strategy's rules: create drops the status, an update keeps
  // the stored status and refuses a spec change, a status update keeps the stored spec and metadata but
  // for the status. A delete of a claim with finalizers sets deletionTimestamp; the update that removes the
  // last finalizer then deletes it.
  ApiResult<api::ResourceClaim> getResourceClaim(const std::string& ns, const std::string& name) override;
  ApiResult<api::ResourceClaim> createResourceClaim(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> updateResourceClaim(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> updateResourceClaimStatus(const api::ResourceClaim& claim) override;
  ApiResult<api::ResourceClaim> removeResourceClaimReservation(const std::string& ns, const std::string& name,
                                                               const std::string& claimUid,
                                                               const std::string& consumerUid) override;
  ApiResult<void> deleteResourceClaim(const std::string& ns, const std::string& name,
                                      const DeleteOptions& options) override;

  // PodGroupWriter
  ApiResult<api::PodGroup> patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                        const api::Condition& condition) override;

  // EventWriter
  ApiResult<api::Event> createEvent(const api::Event& event) override;
  ApiResult<api::Event> updateEventSeries(const std::string& ns, const std::string& name,
                                          const api::EventSeries& series) override;

  // LeaseClient
  ApiResult<api::Lease> getLease(const std::string& ns, const std::string& name) override;
  ApiResult<api::Lease> createLease(const api::Lease& lease) override;
  ApiResult<api::Lease> updateLease(const api::Lease& lease) override;

  // --- Any kind, for test setup and the simulator (T is one of the kinds in kinds.h). ---

  // POST: returns the stored object (name, uid, creationTimestamp, resourceVersion filled in).
  template <typename T>
  ApiResult<T> create(const T& obj);
  // PUT: a non-empty metadata.resourceVersion must be the current one (409 Conflict otherwise);
  // uid and creationTimestamp are kept from the stored object.
  template <typename T>
  ApiResult<T> update(const T& obj);
  // DELETE with preconditions; `ns` is ignored for cluster-scoped kinds.
  template <typename T>
  ApiResult<void> remove(const std::string& ns, const std::string& name, const DeleteOptions& options = {});
  template <typename T>
  ApiResult<T> get(const std::string& ns, const std::string& name);
  // One page of a list (what ListWatcher<T>::list answers).
  template <typename T>
  ApiResult<api::List<T>> list(const ListOptions& options);
  // A watch (what ListWatcher<T>::watch answers).
  template <typename T>
  ApiResult<void> watch(const WatchOptions& options, const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                        std::stop_token stop);
  // Every stored object of the kind, in key order.
  template <typename T>
  std::vector<std::shared_ptr<const T>> objects();

  // The current (latest written) resourceVersion.
  std::string currentResourceVersion() const;

  // --- Test hooks. ---

  // The next `count` calls of `op` (only on kind `kind`, e.g. "Pod", when not empty) fail with `error`.
  void injectFailures(Operation op, int count, ApiError error, std::string_view kind = "");
  // Calls of `op` so far, failed ones included.
  int64_t callCount(Operation op) const;
  // Ends every open watch as a dropped connection would: queued, undelivered events are lost; the
  // watch call returns `error` when given, OK otherwise.
  void closeAllWatchesForTest(std::optional<ApiError> error = std::nullopt);
  // Forgets all history (as an etcd compaction + watch cache reset): watches and continue tokens
  // from any version before the current one get 410 afterwards.
  void compactHistoryForTest();
  // Open watches across all kinds.
  size_t activeWatchCountForTest() const;

 private:
  // Every stored kind of pkg/api/kinds.def.
  using Kinds = api::ApplyKinds<memory::KindStates, api::StoredKinds>;

  struct Injection {
    Operation op;
    std::string kind;
    int remaining;
    ApiError error;
  };

  template <typename T>
  memory::KindState<T>& state() {
    return std::get<memory::KindState<T>>(kinds_);
  }

  // Counts the call and returns the injected failure for it, if any. Requires mu_.
  std::optional<ApiError> takeInjectedLocked(Operation op, std::string_view kind);
  api::Time now() const;
  std::string newUidLocked();
  std::string generateNameLocked(const std::string& prefix);

  template <typename T>
  ApiResult<T> createLocked(T obj);
  // GuaranteedUpdate: applies `mutate` to a copy of the stored object; an unchanged object is not
  // written. `expectedRV` non-empty: 409 Conflict unless it is the stored version.
  template <typename T, typename Mutate>
  ApiResult<T> updateLocked(const std::string& ns, const std::string& name, const std::string& expectedRV,
                            Mutate&& mutate);
  template <typename T>
  ApiResult<void> removeLocked(const std::string& ns, const std::string& name, const DeleteOptions& options);
  // Appends to the kind's history (evicting beyond the window) and fans the event out to watchers.
  template <typename T>
  void commitLocked(api::WatchEventType type, const std::string& key, std::shared_ptr<const T> object,
                    std::shared_ptr<const T> prev);
  template <typename T>
  static std::optional<api::WatchEvent<T>> toWatchEvent(const memory::HistoryEntry<T>& entry,
                                                        const memory::ObjectFilter<T>& filter);
  template <typename T>
  void closeWatchesLocked(const std::optional<ApiError>& error);

  const MemoryClientOptions options_;

  mutable std::mutex mu_;
  int64_t currentRV_ = 1;                         // guarded by mu_
  Kinds kinds_;                                   // guarded by mu_
  std::vector<Injection> injections_;             // guarded by mu_
  std::array<int64_t, kOperationCount> calls_{};  // guarded by mu_
  std::mt19937_64 rng_;                           // guarded by mu_

#define KS_WATCHED_KIND(Type, accessor, ...) memory::KindListWatcher<api::Type> accessor##LW_{*this};
#include "pkg/api/kinds.def"
};

namespace memory {

// Error constructors with upstream's reasons and messages (k8s.io/apimachinery/pkg/api/errors).
ApiError notFound(const std::string& qualifiedResource, const std::string& name);
ApiError alreadyExists(const std::string& qualifiedResource, const std::string& name);
ApiError conflict(const std::string& qualifiedResource, const std::string& name, const std::string& detail);
ApiError badRequest(const std::string& message);
ApiError invalid(const std::string& qualifiedResource, const std::string& name, const std::string& detail);
ApiError expired(const std::string& message);
ApiError tooLargeResourceVersion(int64_t requested, int64_t current);
inline constexpr std::string_view kConflictMessage =
    "the object has been modified; please apply your changes to the latest version and try again";
inline constexpr std::string_view kExpiredContinueMessage =
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter.";

// Parses a resourceVersion ("123"); nullopt when it is not a non-negative integer.
std::optional<int64_t> parseResourceVersion(std::string_view rv);

}  // namespace memory

// ---------------------------------------------------------------------------------------------------
// Template implementations.

template <typename T>
ApiResult<api::List<T>> memory::KindListWatcher<T>::list(const ListOptions& options) {
  return client_.list<T>(options);
}

template <typename T>
ApiResult<void> memory::KindListWatcher<T>::watch(const WatchOptions& options,
                                                  const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                                                  std::stop_token stop) {
  return client_.watch<T>(options, onEvent, std::move(stop));
}

template <typename T>
ApiResult<T> MemoryClient::create(const T& obj) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::Create, T::kKind)) return *e;
  return createLocked<T>(obj);
}

template <typename T>
ApiResult<T> MemoryClient::update(const T& obj) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::Update, T::kKind)) return *e;
  return updateLocked<T>(obj.metadata.namespace_, obj.metadata.name, obj.metadata.resourceVersion,
                         [&obj](T& stored) -> ApiResult<void> {
                           api::ObjectMeta keep = std::move(stored.metadata);
                           stored = obj;
                           stored.metadata.uid = std::move(keep.uid);
                           stored.metadata.creationTimestamp = keep.creationTimestamp;
                           stored.metadata.namespace_ = std::move(keep.namespace_);
                           stored.metadata.generation = keep.generation;
                           stored.metadata.resourceVersion = std::move(keep.resourceVersion);
                           return {};
                         });
}

template <typename T>
ApiResult<void> MemoryClient::remove(const std::string& ns, const std::string& name,
                                     const DeleteOptions& options) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::Delete, T::kKind)) return *e;
  return removeLocked<T>(ns, name, options);
}

template <typename T>
ApiResult<T> MemoryClient::get(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::Get, T::kKind)) return *e;
  auto& s = state<T>();
  auto it = s.objects.find(memory::storageKey<T>(ns, name));
  if (it == s.objects.end()) return memory::notFound(memory::qualifiedResource<T>(), name);
  return *it->second;
}

template <typename T>
std::vector<std::shared_ptr<const T>> MemoryClient::objects() {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<const T>> out;
  for (const auto& [key, obj] : state<T>().objects) out.push_back(obj);
  return out;
}

template <typename T>
ApiResult<T> MemoryClient::createLocked(T obj) {
  const std::string qr = memory::qualifiedResource<T>();
  if (obj.metadata.name.empty()) {
    if (obj.metadata.generateName.empty()) {
      return memory::invalid(qr, "", "metadata.name: Required value: name or generateName is required");
    }
    // Generated names may collide; retry as the apiserver's clients would.
    for (;;) {
      std::string candidate = generateNameLocked(obj.metadata.generateName);
      if (!state<T>().objects.contains(memory::storageKey<T>(obj.metadata.namespace_, candidate))) {
        obj.metadata.name = std::move(candidate);
        break;
      }
    }
  }
  if constexpr (memory::KindInfo<T>::kNamespaced) {
    if (obj.metadata.namespace_.empty()) obj.metadata.namespace_ = "default";
  } else {
    obj.metadata.namespace_.clear();
  }
  auto& s = state<T>();
  std::string key = memory::storageKey<T>(obj.metadata.namespace_, obj.metadata.name);
  if (s.objects.contains(key)) return memory::alreadyExists(qr, obj.metadata.name);
  if (!options_.keepUidsOnCreate || obj.metadata.uid.empty()) obj.metadata.uid = newUidLocked();
  if (!options_.keepUidsOnCreate || !obj.metadata.creationTimestamp)
    obj.metadata.creationTimestamp = std::chrono::floor<std::chrono::seconds>(now());
  if (obj.metadata.generation == 0) obj.metadata.generation = 1;
  obj.metadata.resourceVersion = std::to_string(++currentRV_);
  auto stored = std::make_shared<const T>(std::move(obj));
  s.objects.emplace(key, stored);
  commitLocked<T>(api::WatchEventType::Added, key, stored, nullptr);
  return *stored;
}

template <typename T, typename Mutate>
ApiResult<T> MemoryClient::updateLocked(const std::string& ns, const std::string& name,
                                        const std::string& expectedRV, Mutate&& mutate) {
  const std::string qr = memory::qualifiedResource<T>();
  auto& s = state<T>();
  std::string key = memory::storageKey<T>(ns, name);
  auto it = s.objects.find(key);
  if (it == s.objects.end()) return memory::notFound(qr, name);
  const std::shared_ptr<const T> prev = it->second;
  if (!expectedRV.empty() && expectedRV != prev->metadata.resourceVersion) {
    return memory::conflict(qr, name, std::string(memory::kConflictMessage));
  }
  T next = *prev;
  ApiResult<void> r = mutate(next);
  if (!r.ok()) return r.error();
  next.metadata.resourceVersion = prev->metadata.resourceVersion;
  if (next == *prev) return *prev;  // no-op writes are not written (etcd GuaranteedUpdate)
  next.metadata.resourceVersion = std::to_string(++currentRV_);
  auto stored = std::make_shared<const T>(std::move(next));
  it->second = stored;
  commitLocked<T>(api::WatchEventType::Modified, key, stored, prev);
  return *stored;
}

template <typename T>
ApiResult<void> MemoryClient::removeLocked(const std::string& ns, const std::string& name,
                                           const DeleteOptions& options) {
  const std::string qr = memory::qualifiedResource<T>();
  auto& s = state<T>();
  std::string key = memory::storageKey<T>(ns, name);
  auto it = s.objects.find(key);
  if (it == s.objects.end()) return memory::notFound(qr, name);
  const std::shared_ptr<const T> prev = it->second;
  if (options.preconditionUid && *options.preconditionUid != prev->metadata.uid) {
    return memory::conflict(qr, name,
                            "Precondition failed: UID in precondition: " + *options.preconditionUid +
                                ", UID in object meta: " + prev->metadata.uid);
  }
  if (options.preconditionResourceVersion &&
      *options.preconditionResourceVersion != prev->metadata.resourceVersion) {
    return memory::conflict(
        qr, name,
        "Precondition failed: ResourceVersion in precondition: " + *options.preconditionResourceVersion +
            ", ResourceVersion in object meta: " + prev->metadata.resourceVersion);
  }
  s.objects.erase(it);
  T final = *prev;
  final.metadata.resourceVersion = std::to_string(++currentRV_);
  commitLocked<T>(api::WatchEventType::Deleted, key, std::make_shared<const T>(std::move(final)), prev);
  return {};
}

template <typename T>
void MemoryClient::commitLocked(api::WatchEventType type, const std::string& key,
                                std::shared_ptr<const T> object, std::shared_ptr<const T> prev) {
  auto& s = state<T>();
  s.history.push_back(memory::HistoryEntry<T>{currentRV_, type, key, std::move(object), std::move(prev)});
  const memory::HistoryEntry<T>& entry = s.history.back();
  for (const auto& w : s.watchers) {
    std::optional<api::WatchEvent<T>> ev = toWatchEvent(entry, w->filter);
    std::lock_guard wl(w->mu);
    w->lastRV = entry.rv;
    if (ev && !w->closed) {
      w->queue.push_back(std::move(*ev));
      w->cv.notify_all();
    }
  }
  while (s.history.size() > options_.historySize) {
    int64_t evicted = s.history.front().rv;
    s.history.pop_front();
    int64_t oldestKept = s.history.empty() ? evicted : s.history.front().rv - 1;
    s.minWatchRV = std::max(s.minWatchRV, oldestKept);
  }
}

template <typename T>
std::optional<api::WatchEvent<T>> MemoryClient::toWatchEvent(const memory::HistoryEntry<T>& entry,
                                                             const memory::ObjectFilter<T>& filter) {
  using api::WatchEventType;
  api::WatchEvent<T> ev;
  switch (entry.type) {
    case WatchEventType::Added:
      if (!filter.matches(*entry.object)) return std::nullopt;
      ev.type = WatchEventType::Added;
      ev.object = *entry.object;
      return ev;
    case WatchEventType::Deleted:
      if (!filter.matches(*entry.object)) return std::nullopt;
      ev.type = WatchEventType::Deleted;
      ev.object = *entry.object;
      return ev;
    case WatchEventType::Modified: {
      bool cur = filter.matches(*entry.object);
      bool old = filter.matches(*entry.prev);
      if (cur) {
        ev.type = old ? WatchEventType::Modified : WatchEventType::Added;
        ev.object = *entry.object;
        return ev;
      }
      if (!old) return std::nullopt;
      // Left the selection: a delete with the previous content at the event's version (cacher).
      ev.type = WatchEventType::Deleted;
      ev.object = *entry.prev;
      ev.object.metadata.resourceVersion = entry.object->metadata.resourceVersion;
      return ev;
    }
    case WatchEventType::Bookmark:
    case WatchEventType::Error:
      break;
  }
  return std::nullopt;
}

template <typename T>
ApiResult<api::List<T>> MemoryClient::list(const ListOptions& options) {
  std::lock_guard lock(mu_);
  if (auto e = takeInjectedLocked(Operation::List, T::kKind)) return *e;
  auto filter = memory::ObjectFilter<T>::compile(options.labelSelector, options.fieldSelector);
  if (!filter.ok()) return filter.error();
  auto& s = state<T>();

  int64_t snapshotRV = currentRV_;
  std::string after;
  if (!options.continue_.empty()) {
    size_t colon = options.continue_.find(':');
    std::optional<int64_t> rv = colon == std::string::npos
                                    ? std::nullopt
                                    : memory::parseResourceVersion(options.continue_.substr(0, colon));
    if (!rv || *rv > currentRV_) return memory::badRequest("continue key is not valid: " + options.continue_);
    if (*rv < s.minWatchRV) return memory::expired(std::string(memory::kExpiredContinueMessage));
    snapshotRV = *rv;
    after = options.continue_.substr(colon + 1);
  } else if (!options.resourceVersion.empty()) {
    std::optional<int64_t> rv = memory::parseResourceVersion(options.resourceVersion);
    if (!rv) return memory::badRequest("invalid resource version: " + options.resourceVersion);
    if (*rv > currentRV_) return memory::tooLargeResourceVersion(*rv, currentRV_);
  }

  // The state at snapshotRV for keys after `after`: current objects with later writes undone.
  std::map<std::string, std::shared_ptr<const T>> undone;  // null: absent at snapshotRV
  for (auto h = s.history.rbegin(); h != s.history.rend() && h->rv > snapshotRV; ++h) {
    if (h->key > after) undone[h->key] = h->type == api::WatchEventType::Added ? nullptr : h->prev;
  }

  api::List<T> out;
  out.metadata.resourceVersion = std::to_string(snapshotRV);
  const auto limit = static_cast<size_t>(std::max<int64_t>(options.limit, 0));
  std::string lastKey;
  bool more = false;
  int64_t remaining = 0;
  auto cur = s.objects.upper_bound(after);
  auto und = undone.begin();
  while (cur != s.objects.end() || und != undone.end()) {
    const std::string* key = nullptr;
    const T* obj = nullptr;
    if (und == undone.end() || (cur != s.objects.end() && cur->first < und->first)) {
      key = &cur->first;
      obj = cur->second.get();
      ++cur;
    } else {
      key = &und->first;
      obj = und->second.get();
      if (cur != s.objects.end() && cur->first == und->first) ++cur;
      ++und;
    }
    if (obj == nullptr || !filter->matches(*obj)) continue;
    if (limit > 0 && out.items.size() == limit) {
      more = true;
      if (!filter->selectsAll()) break;
      ++remaining;
      continue;
    }
    out.items.push_back(*obj);
    lastKey = *key;
  }
  if (more) {
    out.metadata.continue_ = std::to_string(snapshotRV) + ":" + lastKey;
    if (filter->selectsAll()) out.metadata.remainingItemCount = remaining;
  }
  return out;
}

template <typename T>
ApiResult<void> MemoryClient::watch(const WatchOptions& options,
                                    const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                                    std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  std::shared_ptr<memory::Watcher<T>> w;
  std::optional<ApiError> expiredError;
  {
    std::lock_guard lock(mu_);
    if (auto e = takeInjectedLocked(Operation::Watch, T::kKind)) return *e;
    auto filter = memory::ObjectFilter<T>::compile(options.labelSelector, options.fieldSelector);
    if (!filter.ok()) return filter.error();
    auto& s = state<T>();
    w = std::make_shared<memory::Watcher<T>>(std::move(filter).value(), options.allowWatchBookmarks);
    std::lock_guard wl(w->mu);
    if (options.sendInitialEvents) {
      // A watch-list (resourceVersionMatch=NotOlderThan): the state at the current version, which is at
      // least the requested one, then the bookmark that ends the initial events.
      if (!options.resourceVersion.empty()) {
        std::optional<int64_t> from = memory::parseResourceVersion(options.resourceVersion);
        if (!from) return memory::badRequest("invalid resource version: " + options.resourceVersion);
        if (*from > currentRV_) return memory::tooLargeResourceVersion(*from, currentRV_);
      }
      for (const auto& [key, obj] : s.objects) {
        if (w->filter.matches(*obj)) w->queue.push_back(api::WatchEvent<T>{api::WatchEventType::Added, *obj, {}});
      }
      api::WatchEvent<T> end;
      end.type = api::WatchEventType::Bookmark;
      end.object.metadata.resourceVersion = std::to_string(currentRV_);
      end.object.metadata.annotations.emplace(kInitialEventsEndAnnotation, "true");
      w->queue.push_back(std::move(end));
      w->lastRV = currentRV_;
    } else if (options.resourceVersion.empty() || options.resourceVersion == "0") {
      // Get state and start at most recent: synthetic ADDED events first.
      for (const auto& [key, obj] : s.objects) {
        if (!w->filter.matches(*obj)) continue;
        w->queue.push_back(api::WatchEvent<T>{api::WatchEventType::Added, *obj, {}});
      }
      w->lastRV = currentRV_;
    } else {
      std::optional<int64_t> from = memory::parseResourceVersion(options.resourceVersion);
      if (!from) return memory::badRequest("invalid resource version: " + options.resourceVersion);
      if (*from > currentRV_) return memory::tooLargeResourceVersion(*from, currentRV_);
      if (*from < s.minWatchRV) {
        ApiError err = memory::expired("too old resource version: " + std::to_string(*from) + " (" +
                                       std::to_string(s.minWatchRV) + ")");
        if (!options_.expiredWatchAsErrorEvent) return err;
        expiredError = std::move(err);
      } else {
        auto first = std::upper_bound(s.history.begin(), s.history.end(), *from,
                                      [](int64_t rv, const memory::HistoryEntry<T>& h) { return rv < h.rv; });
        for (auto h = first; h != s.history.end(); ++h) {
          if (auto ev = toWatchEvent(*h, w->filter)) w->queue.push_back(std::move(*ev));
        }
        w->lastRV = currentRV_;
      }
    }
    if (!expiredError) s.watchers.push_back(w);
  }
  if (expiredError) {
    api::WatchEvent<T> ev;
    ev.type = api::WatchEventType::Error;
    ev.status.status = "Failure";
    ev.status.code = expiredError->code();
    ev.status.reason = expiredError->reason();
    ev.status.message = expiredError->message();
    onEvent(std::move(ev));
    return {};
  }

  std::chrono::milliseconds timeout = options.timeoutSeconds > 0
                                          ? options_.watchTimeoutUnit * options.timeoutSeconds
                                          : options_.defaultWatchTimeout;
  const auto never = Clock::now() + std::chrono::hours(24 * 365);  // far, but safe for timed waits
  const auto deadline = timeout.count() > 0 ? Clock::now() + timeout : never;
  auto nextBookmark = options.allowWatchBookmarks ? Clock::now() + options_.bookmarkInterval : never;
  ApiResult<void> result;
  for (;;) {
    std::unique_lock wl(w->mu);
    w->cv.wait_until(wl, stop, std::min(deadline, nextBookmark),
                     [&] { return !w->queue.empty() || w->closed; });
    if (stop.stop_requested()) break;
    if (w->closed) {
      if (w->closeError) result = *w->closeError;
      break;
    }
    if (!w->queue.empty()) {
      api::WatchEvent<T> ev = std::move(w->queue.front());
      w->queue.pop_front();
      wl.unlock();
      onEvent(std::move(ev));
      continue;
    }
    wl.unlock();
    const auto t = Clock::now();
    if (t >= deadline) break;
    if (t >= nextBookmark) {
      nextBookmark = t + options_.bookmarkInterval;
      std::lock_guard lock(mu_);
      std::lock_guard wl2(w->mu);
      if (w->queue.empty() && !w->closed) {
        // Everything up to the current version has been delivered: tell the client so.
        api::WatchEvent<T> bm;
        bm.type = api::WatchEventType::Bookmark;
        bm.object.metadata.resourceVersion = std::to_string(currentRV_);
        w->lastRV = currentRV_;
        w->queue.push_back(std::move(bm));
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    auto& ws = state<T>().watchers;
    ws.erase(std::remove(ws.begin(), ws.end(), w), ws.end());
  }
  return result;
}

template <typename T>
void MemoryClient::closeWatchesLocked(const std::optional<ApiError>& error) {
  for (const auto& w : state<T>().watchers) {
    std::lock_guard wl(w->mu);
    w->closed = true;
    w->closeError = error;
    w->queue.clear();
    w->cv.notify_all();
  }
}

}  // namespace ks::client
