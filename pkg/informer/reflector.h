#pragma once
// Reflector<T>: keeps a ReflectorSink in step with the server through a client::ListWatcher<T>, as
// client-go's tools/cache/reflector.go:
//   list -> sink.replace(items, rv) -> watch from that rv, bookmarks allowed;
//   the list's resourceVersion is client-go's relistResourceVersion: "0" at first (any version: the
//   apiserver's watch cache answers at once, whole, ignoring the limit), then the last-synced version
//   (at least that fresh, again from the cache, unpaginated), and "" (a consistent read, in pages of
//   `pageSize`) once a list at that version failed with 410 Expired or "Too large resource version",
//   retried at once; until the next successful list. A server that paginated a "0" list (no watch cache)
//   gets paginated lists from then on. A 410 on a continue token falls back to one unpaginated list;
//   with useWatchList (client-go's WatchListClient) the state comes instead as a watch-list: a watch with
//   sendInitialEvents from the last-synced version ("" at first or once that version was unavailable),
//   whose ADDED events up to the bookmark annotated k8s.io/initial-events-end replace the sink's content
//   at the bookmark's version; the same stream then goes on as the watch. A watch-list that fails with a
//   transport error or 429 is retried after a backoff, with 410 / "Too large resource version" from ""
//   at once; any other failure (or a stream that ended within shortWatch having delivered nothing) falls
//   back to the list above, for this round;
//   each ADDED / MODIFIED / DELETED goes to the sink and advances the last-synced resourceVersion, a
//   BOOKMARK only advances it;
//   watch ended normally -> rewatch from the last-synced version (after a backoff if the watch ended
//   at once with nothing delivered); a stream that broke after delivering events or running shortWatch ->
//   rewatch at once; other transport errors, 429 (honouring Retry-After) or 5xx -> backoff, then rewatch from
//   the same version; 410 Gone/Expired (error result or ERROR event) -> relist; any other error -> backoff,
//   then relist. Errors are recorded (lastError), never thrown.
// The loop runs on its own std::jthread between start() and stop().
//
// Thread-safety: the sink is called only from the reflector thread. lastSyncResourceVersion(),
// lastError() and the counters may be read from any thread.

#include <atomic>
#include <chrono>
#include <iterator>
#include <memory>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/informer/backoff.h"
#include "pkg/informer/reflector_log.h"

namespace ks::informer {

// Where a reflector delivers what it sees. Called from the reflector thread only.
template <typename T>
class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // The complete state at `resourceVersion` (after every list).
  virtual void replace(std::vector<std::shared_ptr<const T>>&& items, const std::string& resourceVersion) = 0;
  virtual void add(T&& obj) = 0;
  virtual void update(T&& obj) = 0;
  // `obj` is the final state of the deleted object.
  virtual void remove(T&& obj) = 0;
};

struct ReflectorOptions {
  std::string name;  // diagnostics only ("pods")
  std::string labelSelector;
  std::string fieldSelector;
  int64_t pageSize = 500;  // 0 = unpaginated lists
  bool useWatchList = false;  // the WatchListClient feature gate (see the file comment)
  // Watch requests ask for timeoutSeconds uniformly in [minWatchTimeout, 2 * minWatchTimeout).
  std::chrono::seconds minWatchTimeout = std::chrono::minutes(5);
  // A watch that ends within this time having delivered nothing is retried only after a backoff.
  std::chrono::milliseconds shortWatch = std::chrono::seconds(1);
  BackoffOptions backoff;
  Sleeper sleep;  // sleepFor when empty
};

template <typename T>
class Reflector {
 public:
  Reflector(client::ListWatcher<T>& lw, ReflectorSink<T>& sink, ReflectorOptions options)
      : lw_(lw),
        sink_(sink),
        options_(std::move(options)),
        backoff_(options_.backoff),
        rng_(options_.backoff.seed) {
    if (!options_.sleep) options_.sleep = sleepFor;
  }
  ~Reflector() { stop(); }
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Starts the list/watch loop on its own thread; a second call does nothing.
  void start() {
    std::lock_guard lock(mu_);
    if (thread_.joinable()) return;
    reflectorlog::buildLogger();
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  }

  // Stops the loop and joins the thread (an in-flight watch is interrupted). Idempotent.
  void stop() {
    std::jthread t;
    {
      std::lock_guard lock(mu_);
      t = std::move(thread_);
    }
    if (t.joinable()) {
      t.request_stop();
      t.join();
    }
  }

  // The resourceVersion the sink is in step with ("" before the first list).
  std::string lastSyncResourceVersion() const {
    std::lock_guard lock(mu_);
    return lastSyncRV_;
  }

  // The last list or watch error, if any since start.
  std::optional<client::ApiError> lastError() const {
    std::lock_guard lock(mu_);
    return lastError_;
  }

  int64_t listCount() const { return lists_.load(); }
  int64_t watchCount() const { return watches_.load(); }

 private:
  enum class AfterWatch { Relist, RelistAfterBackoff, Stopped };

  void run(std::stop_token stop) {
    while (!stop.stop_requested()) {
      std::optional<AfterWatch> after;  // set when the watch-list's stream already ran as the watch
      bool streamed = false;
      if (options_.useWatchList) {
        std::optional<WatchOutcome> listed = watchList(stop);
        if (stop.stop_requested()) return;
        if (listed) {
          streamed = true;
          after = afterWatch(*listed, stop);
        }
      }
      if (!streamed) {
        auto rv = listAndReplace();
        if (!rv.ok()) {
          recordError(rv.error());
          reflectorlog::listFailed(options_.name, rv.error());
          if (!options_.sleep(backoff_.next(rv.error().retryAfter()), stop)) return;
          continue;
        }
      }
      if (!after) after = watchLoop(stop);
      switch (*after) {
        case AfterWatch::Stopped:
          return;
        case AfterWatch::Relist:
          break;
        case AfterWatch::RelistAfterBackoff:
          if (!options_.sleep(backoff_.next(), stop)) return;
          break;
      }
    }
  }

  // client-go's relistResourceVersion (see the file comment).
  std::string relistResourceVersion() const {
    std::lock_guard lock(mu_);
    if (lastSyncRVUnavailable_) return "";
    if (lastSyncRV_.empty()) return "0";
    return lastSyncRV_;
  }

  // 410 Expired, or the watch cache not reaching the version in time (504 "Too large resource version").
  static bool versionUnavailable(const client::ApiError& err) {
    return err.isGone() ||
           (err.code() == 504 && err.message().find("Too large resource version") != std::string::npos);
  }

  // Lists (see the file comment) and hands the result to the sink; returns the list's resourceVersion.
  client::ApiResult<std::string> listAndReplace() {
    ++lists_;
    client::ListOptions options;
    options.labelSelector = options_.labelSelector;
    options.fieldSelector = options_.fieldSelector;
    options.resourceVersion = relistResourceVersion();
    auto listed = listAll(options);
    if (!listed.ok() && versionUnavailable(listed.error())) {
      {
        std::lock_guard lock(mu_);
        lastSyncRVUnavailable_ = true;
      }
      options.resourceVersion = relistResourceVersion();
      listed = listAll(options);
    }
    if (!listed.ok()) return listed.error();
    auto& [items, rv, paginated] = listed.value();
    if (options.resourceVersion == "0" && paginated) paginatedResult_ = true;
    {
      std::lock_guard lock(mu_);
      lastSyncRVUnavailable_ = false;
    }
    sink_.replace(std::move(items), rv);
    setLastSyncRV(rv);
    reflectorlog::cachesPopulated(options_.name, rv);
    return rv;
  }

  struct Listed {
    std::vector<std::shared_ptr<const T>> items;
    std::string resourceVersion;
    bool paginated = false;  // the first response had a continue token
  };

  // client-go's pager: pages of pageSize unless the list is at a specific version (served whole from the
  // watch cache) and the server has not paginated before.
  client::ApiResult<Listed> listAll(client::ListOptions options) {
    const bool specificVersion = !options.resourceVersion.empty() && options.resourceVersion != "0";
    options.limit = specificVersion && !paginatedResult_ ? 0 : options_.pageSize;
    Listed out;
    std::vector<std::shared_ptr<const T>>& items = out.items;
    std::string& rv = out.resourceVersion;
    for (;;) {
      auto page = lw_.listShared(options);
      if (!page.ok()) {
        if (page.error().isGone() && !options.continue_.empty()) {
          // The snapshot expired between pages: fall back to one full list (pager.FullListIfExpired).
          items.clear();
          options.continue_.clear();
          options.limit = 0;
          continue;
        }
        return page.error();
      }
      client::SharedList<T>& list = page.value();
      if (items.empty()) {
        items = std::move(list.items);
      } else {
        items.insert(items.end(), std::make_move_iterator(list.items.begin()),
                     std::make_move_iterator(list.items.end()));
      }
      rv = list.metadata.resourceVersion;
      if (list.metadata.continue_.empty()) break;
      if (options.continue_.empty()) out.paginated = true;
      options.continue_ = list.metadata.continue_;
    }
    return out;
  }

  // How one watch stream ended.
  struct WatchOutcome {
    std::optional<client::ApiError> error;  // a failed request, or an ERROR event
    int64_t events = 0;
    bool shortLived = false;             // ended within shortWatch
    bool initialEventsEnded = false;     // a watch-list's initial state reached the sink
  };

  client::WatchOptions watchOptions(std::string resourceVersion) {
    client::WatchOptions options;
    options.resourceVersion = std::move(resourceVersion);
    options.allowWatchBookmarks = true;
    options.labelSelector = options_.labelSelector;
    options.fieldSelector = options_.fieldSelector;
    const int64_t minTimeout = options_.minWatchTimeout.count();
    options.timeoutSeconds =
        minTimeout + std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(minTimeout - 1, 0))(rng_);
    return options;
  }

  // A watch-list's initial state, collected until its closing bookmark (client-go's temporary store).
  struct InitialState {
    std::vector<std::shared_ptr<const T>> items;
    std::unordered_map<std::string, size_t> index;  // namespace/name -> items; built at the first non-ADDED

    static std::string key(const T& obj) { return obj.metadata.namespace_ + "/" + obj.metadata.name; }
    void buildIndex() {
      if (!index.empty() || items.empty()) return;
      for (size_t i = 0; i < items.size(); ++i) index.emplace(key(*items[i]), i);
    }
    void add(T&& obj) {
      if (!index.empty()) {
        auto [it, inserted] = index.emplace(key(obj), items.size());
        if (!inserted) {
          items[it->second] = std::make_shared<const T>(std::move(obj));
          return;
        }
      }
      items.push_back(std::make_shared<const T>(std::move(obj)));
    }
    void update(T&& obj) {
      buildIndex();
      add(std::move(obj));
    }
    void remove(const T& obj) {
      buildIndex();
      auto it = index.find(key(obj));
      if (it == index.end()) return;
      const size_t at = it->second;
      index.erase(it);
      if (at + 1 != items.size()) {
        items[at] = std::move(items.back());
        index[key(*items[at])] = at;
      }
      items.pop_back();
    }
  };

  // Runs one watch to its end. With `initial` (a watch-list), events go to `initial` until the bookmark
  // that ends the initial events, which replaces the sink's content; later events go to the sink.
  WatchOutcome watchOnce(const client::WatchOptions& options, std::stop_token stop, InitialState* initial) {
    // A local stop source so an ERROR event can end the stream from inside the callback.
    std::stop_source local;
    std::stop_callback forward(stop, [&local] { local.request_stop(); });
    WatchOutcome out;
    const auto started = std::chrono::steady_clock::now();
    ++watches_;
    auto result = lw_.watch(
        options,
        [&](api::WatchEvent<T>&& ev) {
          if (out.error) return;
          const bool collecting = initial != nullptr && !out.initialEventsEnded;
          switch (ev.type) {
            case api::WatchEventType::Added:
            case api::WatchEventType::Modified:
            case api::WatchEventType::Deleted: {
              std::string rv = ev.object.metadata.resourceVersion;
              if (collecting) {
                // Versions of the initial state are not synced ones: only the closing bookmark's is.
                if (ev.type == api::WatchEventType::Added) {
                  initial->add(std::move(ev.object));
                } else if (ev.type == api::WatchEventType::Modified) {
                  initial->update(std::move(ev.object));
                } else {
                  initial->remove(ev.object);
                }
              } else {
                if (ev.type == api::WatchEventType::Added) {
                  sink_.add(std::move(ev.object));
                } else if (ev.type == api::WatchEventType::Modified) {
                  sink_.update(std::move(ev.object));
                } else {
                  sink_.remove(std::move(ev.object));
                }
                setLastSyncRV(std::move(rv));
              }
              ++out.events;
              break;
            }
            case api::WatchEventType::Bookmark: {
              const std::string& rv = ev.object.metadata.resourceVersion;
              ++out.events;
              if (collecting) {
                auto mark = ev.object.metadata.annotations.find(std::string(client::kInitialEventsEndAnnotation));
                if (mark == ev.object.metadata.annotations.end() || mark->second != "true") break;
                sink_.replace(std::move(initial->items), rv);
                *initial = {};
                out.initialEventsEnded = true;
                {
                  std::lock_guard lock(mu_);
                  lastSyncRVUnavailable_ = false;
                }
                reflectorlog::cachesPopulated(options_.name, rv);
              }
              setLastSyncRV(rv);
              break;
            }
            case api::WatchEventType::Error:
              out.error = client::ApiError::fromStatus(ev.status);
              local.request_stop();
              break;
          }
        },
        local.get_token());
    if (!out.error && !result.ok()) out.error = result.error();
    out.shortLived = std::chrono::steady_clock::now() - started < options_.shortWatch;
    return out;
  }

  // client-go's watchList: streams the state (see the file comment). Returns how the stream, which went on
  // as the watch once the state was in the sink, ended; nullopt when this round falls back to a list (or
  // stop was requested).
  std::optional<WatchOutcome> watchList(std::stop_token stop) {
    while (!stop.stop_requested()) {
      std::string rv;
      {
        std::lock_guard lock(mu_);
        if (!lastSyncRVUnavailable_) rv = lastSyncRV_;
      }
      client::WatchOptions options = watchOptions(std::move(rv));
      options.sendInitialEvents = true;
      InitialState initial;
      WatchOutcome out = watchOnce(options, stop, &initial);
      if (stop.stop_requested()) return std::nullopt;
      if (out.initialEventsEnded) return out;
      if (out.error) {
        recordError(*out.error);
        if (versionUnavailable(*out.error)) {
          std::lock_guard lock(mu_);
          lastSyncRVUnavailable_ = true;
          continue;
        }
        reflectorlog::watchListFailed(options_.name, *out.error);
        if (out.error->isTransport() || out.error->isTooManyRequests()) {
          if (!options_.sleep(backoff_.next(out.error->retryAfter()), stop)) return std::nullopt;
          continue;
        }
        return std::nullopt;
      }
      if (out.events == 0 && out.shortLived) return std::nullopt;  // client-go's VeryShortWatchError
      // The stream ended before the state did: start it again.
    }
    return std::nullopt;
  }

  // What follows the end of a watch (see the file comment): nullopt = rewatch from the last-synced version.
  std::optional<AfterWatch> afterWatch(const WatchOutcome& out, std::stop_token stop) {
    if (stop.stop_requested()) return AfterWatch::Stopped;
    if (const auto& err = out.error) {
      recordError(*err);
      reflectorlog::watchEnded(options_.name, *err);
      if (err->isGone()) return AfterWatch::Relist;
      if (err->isTransport() && (out.events > 0 || !out.shortLived)) {
        // A stream that ran and then broke (the apiserver went away mid-stream): client-go's
        // StreamWatcher treats that as the end of the watch and rewatches at once; only a watch that
        // cannot be (re-)established backs off.
        return std::nullopt;
      }
      if (err->isTransport() || err->isTooManyRequests() || err->isServerError()) {
        if (!options_.sleep(backoff_.next(err->retryAfter()), stop)) return AfterWatch::Stopped;
        return std::nullopt;  // rewatch from the same version
      }
      return AfterWatch::RelistAfterBackoff;
    }
    if (out.events > 0) {
      backoff_.reset();
    } else if (out.shortLived) {
      if (!options_.sleep(backoff_.next(), stop)) return AfterWatch::Stopped;
    }
    return std::nullopt;
  }

  AfterWatch watchLoop(std::stop_token stop) {
    for (;;) {
      if (stop.stop_requested()) return AfterWatch::Stopped;
      WatchOutcome out = watchOnce(watchOptions(lastSyncResourceVersion()), stop, nullptr);
      if (auto after = afterWatch(out, stop)) return *after;
    }
  }

  void setLastSyncRV(std::string rv) {
    std::lock_guard lock(mu_);
    lastSyncRV_ = std::move(rv);
  }

  void recordError(const client::ApiError& err) {
    std::lock_guard lock(mu_);
    lastError_ = err;
  }

  client::ListWatcher<T>& lw_;
  ReflectorSink<T>& sink_;
  ReflectorOptions options_;
  Backoff backoff_;      // reflector thread only
  std::mt19937_64 rng_;  // reflector thread only
  bool paginatedResult_ = false;  // reflector thread only: a "0" list came back paginated
  std::atomic<int64_t> lists_{0};
  std::atomic<int64_t> watches_{0};

  mutable std::mutex mu_;
  std::string lastSyncRV_;                     // guarded by mu_
  bool lastSyncRVUnavailable_ = false;         // guarded by mu_
  std::optional<client::ApiError> lastError_;  // guarded by mu_
  std::jthread thread_;                        // guarded by mu_
};

}  // namespace ks::informer
