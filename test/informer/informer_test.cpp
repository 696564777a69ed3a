#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/informer/reflector.h"
#include "pkg/informer/shared_informer.h"

namespace ks::informer {
namespace {

using namespace std::chrono_literals;
using client::ApiError;
using client::MemoryClient;
using client::Operation;

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return pred();
}

api::Pod makePod(const std::string& name, const std::string& ns = "default") {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = ns;
  return p;
}

ReflectorOptions fastOptions() {
  ReflectorOptions o;
  o.pageSize = 2;
  o.backoff.initial = 1ms;
  o.backoff.max = 5ms;
  o.backoff.jitter = 0;
  o.shortWatch = 0ms;
  return o;
}

// A ListWatcher whose watch calls can be held at a gate, so a test can make changes while the
// reflector is between watches.
template <typename T>
class GatedListWatcher final : public client::ListWatcher<T> {
 public:
  explicit GatedListWatcher(client::ListWatcher<T>& inner) : inner_(inner) {}

  client::ApiResult<api::List<T>> list(const client::ListOptions& o) override { return inner_.list(o); }

  client::ApiResult<void> watch(const client::WatchOptions& o,
                                const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                                std::stop_token stop) override {
    {
      std::unique_lock l(mu_);
      ++waiting_;
      cv_.notify_all();
      cv_.wait(l, stop, [&] { return open_; });
      --waiting_;
      if (stop.stop_requested()) return {};
    }
    return inner_.watch(o, onEvent, std::move(stop));
  }

  void close() {
    std::lock_guard l(mu_);
    open_ = false;
  }
  void open() {
    std::lock_guard l(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool waitUntilBlocked(std::chrono::milliseconds timeout = 5s) {
    std::unique_lock l(mu_);
    return cv_.wait_for(l, timeout, [&] { return waiting_ > 0; });
  }

 private:
  client::ListWatcher<T>& inner_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool open_ = true;
  int waiting_ = 0;
};

template <typename T>
class RecordingSink final : public ReflectorSink<T> {
 public:
  void replace(std::vector<std::shared_ptr<const T>>&& items, const std::string& rv) override {
    std::lock_guard l(mu);
    replaces.push_back({std::move(items), rv});
  }
  void add(T&& obj) override { record("add", obj); }
  void update(T&& obj) override { record("update", obj); }
  void remove(T&& obj) override { record("delete", obj); }
  void record(const char* what, const T& obj) {
    std::lock_guard l(mu);
    ops.push_back(std::string(what) + " " + obj.metadata.name);
  }
  size_t replaceCount() {
    std::lock_guard l(mu);
    return replaces.size();
  }
  std::vector<std::string> opsCopy() {
    std::lock_guard l(mu);
    return ops;
  }

  std::mutex mu;
  std::vector<std::pair<std::vector<std::shared_ptr<const T>>, std::string>> replaces;
  std::vector<std::string> ops;
};

// Rebuilds the server state from handler calls and checks each call against what it knew.
template <typename T>
struct HandlerMirror {
  EventHandlerFuncs<T> funcs() {
    EventHandlerFuncs<T> f;
    f.onAdd = [this](const std::shared_ptr<const T>& obj, bool initial) {
      std::lock_guard l(mu);
      const std::string key = objectKey(*obj);
      if (objects.contains(key)) problems.push_back("add of known " + key);
      objects[key] = obj->metadata.resourceVersion;
      if (initial) ++initialAdds;
    };
    f.onUpdate = [this](const std::shared_ptr<const T>& oldObj, const std::shared_ptr<const T>& newObj) {
      std::lock_guard l(mu);
      const std::string key = objectKey(*newObj);
      auto it = objects.find(key);
      if (it == objects.end() || it->second != oldObj->metadata.resourceVersion) {
        problems.push_back("update of " + key + " from an unknown state");
      }
      objects[key] = newObj->metadata.resourceVersion;
    };
    f.onDelete = [this](const DeletedObject<T>& d) {
      std::lock_guard l(mu);
      if (objects.erase(d.key) == 0) problems.push_back("delete of unknown " + d.key);
      if (d.finalStateUnknown) ++tombstones;
      lastDeleted = d;
    };
    return f;
  }

  std::map<std::string, std::string> snapshot() {
    std::lock_guard l(mu);
    return objects;
  }

  std::mutex mu;
  std::map<std::string, std::string> objects;  // key -> resourceVersion
  std::vector<std::string> problems;
  int initialAdds = 0;
  int tombstones = 0;
  DeletedObject<T> lastDeleted;
};

template <typename T>
std::map<std::string, std::string> serverState(MemoryClient& c,
                                               const std::function<bool(const T&)>& pred = nullptr) {
  std::map<std::string, std::string> out;
  for (const auto& obj : c.objects<T>()) {
    if (!pred || pred(*obj)) out[objectKey(*obj)] = obj->metadata.resourceVersion;
  }
  return out;
}

template <typename T>
std::map<std::string, std::string> storeState(const Store<T>& s) {
  std::map<std::string, std::string> out;
  for (const auto& obj : s.list()) out[objectKey(*obj)] = obj->metadata.resourceVersion;
  return out;
}

TEST(ReflectorTest, PaginatedListThenWatch) {
  MemoryClient c;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1; }));
  {
    std::lock_guard l(sink.mu);
    EXPECT_EQ(sink.replaces[0].first.size(), 5u);
    EXPECT_EQ(sink.replaces[0].second, c.currentResourceVersion());
  }
  EXPECT_EQ(c.callCount(Operation::List), 3);  // pages of 2, 2, 1

  ASSERT_TRUE(c.create(makePod("q")).ok());
  ASSERT_TRUE(c.deletePod("default", "p0", {}).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 2; }));
  EXPECT_EQ(sink.opsCopy(), (std::vector<std::string>{"add q", "delete p0"}));
  EXPECT_EQ(r.lastSyncResourceVersion(), c.currentResourceVersion());
  r.stop();
  EXPECT_EQ(c.activeWatchCountForTest(), 0u);
}

// A ListWatcher in front of the memory client that records each list's resourceVersion and limit and, as
// kube-apiserver's watch cache does, answers a resourceVersion "0" list whole (ignoring the limit) and can
// fail the next lists at a given version with 410.
class WatchCacheLike final : public client::ListWatcher<api::Pod> {
 public:
  explicit WatchCacheLike(client::ListWatcher<api::Pod>& inner) : inner_(inner) {}

  client::ApiResult<api::List<api::Pod>> list(const client::ListOptions& o) override {
    {
      std::lock_guard l(mu_);
      lists_.push_back(o.resourceVersion + "/" + std::to_string(o.limit) + (o.continue_.empty() ? "" : "+"));
      if (expireVersion_ && o.resourceVersion == *expireVersion_) {
        expireVersion_.reset();
        return ApiError(410, "Expired", "too old resource version");
      }
    }
    client::ListOptions forwarded = o;
    if (o.resourceVersion == "0") forwarded.limit = 0;
    forwarded.resourceVersion.clear();
    return inner_.list(forwarded);
  }
  client::ApiResult<void> watch(const client::WatchOptions& o,
                                const std::function<void(api::WatchEvent<api::Pod>&&)>& onEvent,
                                std::stop_token stop) override {
    return inner_.watch(o, onEvent, std::move(stop));
  }

  void expireListsAt(std::string rv) {
    std::lock_guard l(mu_);
    expireVersion_ = std::move(rv);
  }
  // "<resourceVersion>/<limit>", "+" for a continue page.
  std::vector<std::string> lists() const {
    std::lock_guard l(mu_);
    return lists_;
  }

 private:
  client::ListWatcher<api::Pod>& inner_;
  mutable std::mutex mu_;
  std::vector<std::string> lists_;
  std::optional<std::string> expireVersion_;
};

// client-go's relistResourceVersion: "0" first (from the watch cache, whole), the last-synced version after a
// watch's 410 (whole: the cache serves it), and "" in pages once that version is gone too.
TEST(ReflectorTest, ListsAtVersionZeroThenAtTheLastSyncedVersionThenConsistently) {
  MemoryClient c;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  WatchCacheLike cache(c.pods());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(cache, sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(cache.lists(), (std::vector<std::string>{"0/2"}));
  const std::string synced = r.lastSyncResourceVersion();

  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 2 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(cache.lists(), (std::vector<std::string>{"0/2", synced + "/0"}));

  cache.expireListsAt(synced);
  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 3 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(cache.lists(), (std::vector<std::string>{"0/2", synced + "/0", synced + "/0", "/2", "/2+", "/2+"}));
  {
    std::lock_guard l(sink.mu);
    EXPECT_EQ(sink.replaces[2].first.size(), 5u);
  }
  EXPECT_EQ(r.listCount(), 3);
  r.stop();
}

// A server that paginates a "0" list has no watch cache: later lists are paginated too.
TEST(ReflectorTest, PaginatedVersionZeroListKeepsLaterListsPaginated) {
  MemoryClient c;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(c.callCount(Operation::List), 2);
  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 2; }));
  EXPECT_EQ(c.callCount(Operation::List), 4);  // pages of 2 again
  r.stop();
}

TEST(ReflectorTest, ListErrorsAreRetriedWithBackoff) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  c.injectFailures(Operation::List, 3, ApiError(500, "InternalError", "etcd unavailable"));
  std::vector<std::chrono::milliseconds> sleeps;
  std::mutex sleepsMu;
  ReflectorOptions o = fastOptions();
  o.backoff.max = 100ms;
  o.sleep = [&](std::chrono::milliseconds d, std::stop_token) {
    std::lock_guard l(sleepsMu);
    sleeps.push_back(d);
    return true;
  };
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, o);
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1; }));
  r.stop();
  std::lock_guard l(sleepsMu);
  ASSERT_GE(sleeps.size(), 3u);
  EXPECT_EQ(sleeps[0], 1ms);
  EXPECT_EQ(sleeps[1], 2ms);
  EXPECT_EQ(sleeps[2], 4ms);
  ASSERT_TRUE(r.lastError().has_value());
  EXPECT_EQ(r.lastError()->code(), 500);
}

TEST(ReflectorTest, DroppedWatchResumesFromLastVersionWithoutRelist) {
  MemoryClient c;
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1; }));
  // Transport error and normal close both resume the watch.
  c.closeAllWatchesForTest(ApiError(0, "", "connection reset by peer"));
  ASSERT_TRUE(c.create(makePod("a")).ok());
  c.closeAllWatchesForTest();
  ASSERT_TRUE(c.create(makePod("b")).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 2; }));
  EXPECT_EQ(sink.opsCopy(), (std::vector<std::string>{"add a", "add b"}));
  EXPECT_EQ(r.listCount(), 1);
  EXPECT_GE(r.watchCount(), 2);
  r.stop();
}

// client-go: a stream that broke after it delivered (the apiserver died mid-stream) is rewatched at once;
// a watch that cannot be established (connection refused) waits for the backoff.
TEST(ReflectorTest, BrokenStreamRewatchesAtOnceRefusedWatchBacksOff) {
  MemoryClient c;
  std::atomic<int> sleeps{0};
  ReflectorOptions o = fastOptions();
  o.shortWatch = std::chrono::hours(1);  // only the delivered event makes the watch "not short"
  o.sleep = [&](std::chrono::milliseconds, std::stop_token) {
    ++sleeps;
    return true;
  };
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, o);
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1; }));
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 1; }));
  c.closeAllWatchesForTest(ApiError(0, "", "Retrieving message chunk header"));
  ASSERT_TRUE(
      eventually([&] { return c.callCount(Operation::Watch) == 2 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(sleeps.load(), 0);

  // Nothing delivered on the new stream: a transport error now backs off before the next watch.
  c.injectFailures(Operation::Watch, 1, ApiError(0, "", "connection refused"));
  c.closeAllWatchesForTest(ApiError(0, "", "connection reset by peer"));
  ASSERT_TRUE(
      eventually([&] { return c.callCount(Operation::Watch) == 4 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(sleeps.load(), 2);
  ASSERT_TRUE(c.create(makePod("b")).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 2; }));
  EXPECT_EQ(r.listCount(), 1);
  r.stop();
}

TEST(ReflectorTest, TooManyRequestsOnWatchBacksOffAndRewatches) {
  MemoryClient c;
  c.injectFailures(Operation::Watch, 2, ApiError(429, "TooManyRequests", "slow down"));
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return c.activeWatchCountForTest() == 1; }));
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 1; }));
  EXPECT_EQ(r.listCount(), 1);
  EXPECT_EQ(c.callCount(Operation::Watch), 3);
  r.stop();
}

TEST(ReflectorTest, BookmarksAdvanceTheSyncedVersion) {
  client::MemoryClientOptions mo;
  mo.bookmarkInterval = 2ms;
  MemoryClient c(mo);
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(c.pods(), sink, fastOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1; }));
  api::Node n;
  n.metadata.name = "n1";
  ASSERT_TRUE(c.create(n).ok());  // only another kind changes
  ASSERT_TRUE(eventually([&] { return r.lastSyncResourceVersion() == c.currentResourceVersion(); }));
  EXPECT_TRUE(sink.opsCopy().empty());
  r.stop();
}

// A ListWatcher in front of the memory client that records each watch as "<resourceVersion>/<initial>"
// (initial: "list" for a watch-list, "watch" otherwise) and each list as "list".
class RecordingListWatcher final : public client::ListWatcher<api::Pod> {
 public:
  explicit RecordingListWatcher(client::ListWatcher<api::Pod>& inner) : inner_(inner) {}

  client::ApiResult<api::List<api::Pod>> list(const client::ListOptions& o) override {
    record("list");
    return inner_.list(o);
  }
  client::ApiResult<void> watch(const client::WatchOptions& o,
                                const std::function<void(api::WatchEvent<api::Pod>&&)>& onEvent,
                                std::stop_token stop) override {
    record(o.resourceVersion + "/" + (o.sendInitialEvents ? "list" : "watch"));
    return inner_.watch(o, onEvent, std::move(stop));
  }
  std::vector<std::string> calls() const {
    std::lock_guard l(mu_);
    return calls_;
  }

 private:
  void record(std::string call) {
    std::lock_guard l(mu_);
    calls_.push_back(std::move(call));
  }
  client::ListWatcher<api::Pod>& inner_;
  mutable std::mutex mu_;
  std::vector<std::string> calls_;
};

ReflectorOptions watchListOptions() {
  ReflectorOptions o = fastOptions();
  o.useWatchList = true;
  return o;
}

// client-go's watchList: no list; the initial state arrives on a watch whose stream then goes on as the watch.
TEST(ReflectorTest, WatchListStreamsTheStateAndKeepsTheStream) {
  MemoryClient c;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  RecordingListWatcher lw(c.pods());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(lw, sink, watchListOptions());
  r.start();
  // The synced version is set right after the sink's replace, on the reflector thread.
  ASSERT_TRUE(eventually(
      [&] { return sink.replaceCount() == 1 && r.lastSyncResourceVersion() == c.currentResourceVersion(); }));
  {
    std::lock_guard l(sink.mu);
    EXPECT_EQ(sink.replaces[0].first.size(), 5u);
    EXPECT_EQ(sink.replaces[0].second, c.currentResourceVersion());
  }
  ASSERT_TRUE(c.create(makePod("q")).ok());
  ASSERT_TRUE(c.deletePod("default", "p0", {}).ok());
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 2; }));
  EXPECT_EQ(sink.opsCopy(), (std::vector<std::string>{"add q", "delete p0"}));
  EXPECT_EQ(lw.calls(), (std::vector<std::string>{"/list"}));
  EXPECT_EQ(r.listCount(), 0);
  r.stop();
  EXPECT_EQ(c.activeWatchCountForTest(), 0u);
}

// After the stream ends normally the reflector rewatches (no initial events); after a 410 it streams the state
// again from the last-synced version, and from "" once that version is gone.
TEST(ReflectorTest, WatchListRestreamsAfterGoneFromTheSyncedVersionThenTheMostRecent) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  RecordingListWatcher lw(c.pods());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(lw, sink, watchListOptions());
  r.start();
  ASSERT_TRUE(eventually([&] {
    return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1 &&
           r.lastSyncResourceVersion() == c.currentResourceVersion();
  }));
  const std::string synced = r.lastSyncResourceVersion();
  c.closeAllWatchesForTest();
  ASSERT_TRUE(eventually([&] { return lw.calls().size() == 2 && c.activeWatchCountForTest() == 1; }));
  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 2 && c.activeWatchCountForTest() == 1; }));
  c.injectFailures(Operation::Watch, 1, ApiError(410, "Expired", "too old resource version"));
  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 3 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(lw.calls(), (std::vector<std::string>{"/list", synced + "/watch", synced + "/list", synced + "/list",
                                                  "/list"}));
  EXPECT_EQ(r.listCount(), 0);
  r.stop();
}

// A watch-list the server refuses falls back to list + watch for that round; 429 is retried after a backoff.
TEST(ReflectorTest, WatchListFallsBackToAListWhenRefusedAndBacksOffOn429) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  std::atomic<int> sleeps{0};
  ReflectorOptions o = watchListOptions();
  o.sleep = [&](std::chrono::milliseconds, std::stop_token) {
    ++sleeps;
    return true;
  };
  c.injectFailures(Operation::Watch, 1, ApiError(429, "TooManyRequests", "slow down"));
  RecordingListWatcher lw(c.pods());
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(lw, sink, o);
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 1 && c.activeWatchCountForTest() == 1; }));
  EXPECT_EQ(sleeps.load(), 1);
  EXPECT_EQ(r.listCount(), 0);

  c.injectFailures(Operation::Watch, 1, ApiError(400, "BadRequest", "sendInitialEvents is not supported"));
  c.closeAllWatchesForTest(ApiError(410, "Expired", "too old resource version"));
  ASSERT_TRUE(eventually([&] { return sink.replaceCount() == 2 && c.activeWatchCountForTest() == 1; }));
  const std::vector<std::string> calls = lw.calls();
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[0], "/list");
  EXPECT_EQ(calls[1], "/list");
  EXPECT_EQ(calls[2].substr(calls[2].find('/')), "/list");
  EXPECT_EQ(calls[3], "list");
  EXPECT_EQ(calls[4].substr(calls[4].find('/')), "/watch");
  EXPECT_EQ(r.listCount(), 1);
  r.stop();
}

// A scripted stream: events before the closing bookmark build the state as client-go's temporary store does
// (by namespace/name); the bookmark's version is the synced one; later events go to the sink.
class ScriptedWatchList final : public client::ListWatcher<api::Pod> {
 public:
  client::ApiResult<api::List<api::Pod>> list(const client::ListOptions&) override {
    return ApiError(500, "InternalError", "no list expected");
  }
  client::ApiResult<void> watch(const client::WatchOptions& o,
                                const std::function<void(api::WatchEvent<api::Pod>&&)>& onEvent,
                                std::stop_token stop) override {
    if (!o.sendInitialEvents) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock l(m);
      cv.wait(l, stop, [] { return false; });
      return {};
    }
    auto pod = [](const char* name, const char* rv) {
      api::Pod p = makePod(name);
      p.metadata.resourceVersion = rv;
      return p;
    };
    using api::WatchEventType;
    onEvent({WatchEventType::Added, pod("a", "1"), {}});
    onEvent({WatchEventType::Added, pod("b", "2"), {}});
    onEvent({WatchEventType::Modified, pod("a", "3"), {}});
    onEvent({WatchEventType::Deleted, pod("b", "4"), {}});
    onEvent({WatchEventType::Added, pod("c", "5"), {}});
    onEvent({WatchEventType::Bookmark, pod("", "6"), {}});  // an ordinary bookmark does not end the state
    api::Pod end = pod("", "7");
    end.metadata.annotations.emplace(client::kInitialEventsEndAnnotation, "true");
    onEvent({WatchEventType::Bookmark, std::move(end), {}});
    onEvent({WatchEventType::Added, pod("d", "8"), {}});
    return {};
  }
};

TEST(ReflectorTest, WatchListStateFollowsEveryEventBeforeTheClosingBookmark) {
  ScriptedWatchList lw;
  RecordingSink<api::Pod> sink;
  Reflector<api::Pod> r(lw, sink, watchListOptions());
  r.start();
  ASSERT_TRUE(eventually([&] { return sink.opsCopy().size() == 1 && r.lastSyncResourceVersion() == "8"; }));
  r.stop();
  std::lock_guard l(sink.mu);
  ASSERT_EQ(sink.replaces.size(), 1u);
  EXPECT_EQ(sink.replaces[0].second, "7");
  std::map<std::string, std::string> state;
  for (const auto& p : sink.replaces[0].first) state[p->metadata.name] = p->metadata.resourceVersion;
  EXPECT_EQ(state, (std::map<std::string, std::string>{{"a", "3"}, {"c", "5"}}));
  EXPECT_EQ(sink.ops, (std::vector<std::string>{"add d"}));
}

TEST(SharedInformerTest, HandlersSeeInitialListUpdatesAndDeletes) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(c.create(makePod("b")).ok());
  SharedInformer<api::Pod> inf(c.pods(), fastOptions());
  HandlerMirror<api::Pod> mirror;
  inf.addEventHandler(mirror.funcs());
  EXPECT_FALSE(inf.hasSynced());
  inf.start();
  ASSERT_TRUE(inf.waitForSync(5s));
  {
    std::lock_guard l(mirror.mu);
    EXPECT_EQ(mirror.initialAdds, 2);  // delivered before hasSynced
  }
  api::Pod a = c.get<api::Pod>("default", "a").value();
  a.metadata.labels["x"] = "y";
  ASSERT_TRUE(c.update(a).ok());
  ASSERT_TRUE(c.deletePod("default", "b", {}).ok());
  ASSERT_TRUE(eventually([&] { return mirror.snapshot() == serverState<api::Pod>(c); }));
  {
    std::lock_guard l(mirror.mu);
    EXPECT_TRUE(mirror.problems.empty());
    EXPECT_FALSE(mirror.lastDeleted.finalStateUnknown);
    EXPECT_EQ(mirror.lastDeleted.key, "default/b");
  }

  // A handler added while running first gets the current content.
  HandlerMirror<api::Pod> late;
  inf.addEventHandler(late.funcs());
  ASSERT_TRUE(c.create(makePod("c")).ok());
  ASSERT_TRUE(eventually([&] { return late.snapshot() == serverState<api::Pod>(c); }));
  std::lock_guard l(late.mu);
  EXPECT_EQ(late.initialAdds, 1);
  EXPECT_TRUE(late.problems.empty());
}

// Starts the informer, waits for its watch, then drops the watch and holds the reflector between watches
// (until gated.open()), so that the server can change and compact meanwhile.
void startThenHoldBetweenWatches(SharedInformer<api::Pod>& inf, GatedListWatcher<api::Pod>& gated,
                                 MemoryClient& c) {
  inf.start();
  ASSERT_TRUE(inf.waitForSync(5s));
  ASSERT_TRUE(eventually([&] { return c.activeWatchCountForTest() == 1; }));
  gated.close();
  c.closeAllWatchesForTest();
  ASSERT_TRUE(gated.waitUntilBlocked());
}

TEST(SharedInformerTest, DeleteSeenOnlyByRelistIsATombstone) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(c.create(makePod("b")).ok());
  GatedListWatcher<api::Pod> gated(c.pods());
  SharedInformer<api::Pod> inf(gated, fastOptions());
  HandlerMirror<api::Pod> mirror;
  inf.addEventHandler(mirror.funcs());
  ASSERT_NO_FATAL_FAILURE(startThenHoldBetweenWatches(inf, gated, c));
  const std::string lastKnownRV = c.get<api::Pod>("default", "a").value().metadata.resourceVersion;
  ASSERT_TRUE(c.deletePod("default", "a", {}).ok());
  api::Pod b = c.get<api::Pod>("default", "b").value();
  b.metadata.labels["changed"] = "1";
  ASSERT_TRUE(c.update(b).ok());
  ASSERT_TRUE(c.create(makePod("c")).ok());
  c.compactHistoryForTest();
  gated.open();  // the rewatch gets 410 and the reflector relists

  ASSERT_TRUE(eventually([&] { return mirror.snapshot() == serverState<api::Pod>(c); }));
  EXPECT_EQ(inf.reflector().listCount(), 2);
  EXPECT_TRUE(inf.reflector().lastError()->isGone());
  EXPECT_EQ(storeState(inf.store()), serverState<api::Pod>(c));
  std::lock_guard l(mirror.mu);
  EXPECT_TRUE(mirror.problems.empty());
  EXPECT_EQ(mirror.tombstones, 1);
  EXPECT_TRUE(mirror.lastDeleted.finalStateUnknown);
  EXPECT_EQ(mirror.lastDeleted.key, "default/a");
  EXPECT_EQ(mirror.lastDeleted.object->metadata.resourceVersion, lastKnownRV);
  EXPECT_EQ(mirror.initialAdds, 2);  // "c" came from a relist, not the initial list
}

// F9: a pod bound and deleted while the watch was down comes back as a tombstone carrying its last known,
// stale state (not yet bound). A filtering handler for bound pods must still see that delete (the
// scheduler's cache frees what the assumed pod held); filterFinalStateUnknown decides for tombstones.
TEST(SharedInformerTest, TombstoneIsFilteredByFinalStateUnknownFilter) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  GatedListWatcher<api::Pod> gated(c.pods());
  SharedInformer<api::Pod> inf(gated, fastOptions());
  std::atomic<int> boundDeletes{0};
  std::atomic<int> staleFilterDeletes{0};
  EventHandlerFuncs<api::Pod> bound;
  bound.filter = [](const api::Pod& p) { return !p.spec.nodeName.empty(); };
  bound.filterFinalStateUnknown = [](const api::Pod&) { return true; };
  bound.onDelete = [&](const DeletedObject<api::Pod>& d) {
    EXPECT_TRUE(d.finalStateUnknown);
    EXPECT_TRUE(d.object->spec.nodeName.empty()) << "the last state seen";
    boundDeletes++;
  };
  inf.addEventHandler(std::move(bound));
  EventHandlerFuncs<api::Pod> staleOnly;  // no tombstone filter: decides on the stale object
  staleOnly.filter = [](const api::Pod& p) { return !p.spec.nodeName.empty(); };
  staleOnly.onDelete = [&](const DeletedObject<api::Pod>&) { staleFilterDeletes++; };
  inf.addEventHandler(std::move(staleOnly));
  ASSERT_NO_FATAL_FAILURE(startThenHoldBetweenWatches(inf, gated, c));
  api::Binding binding;
  binding.metadata.namespace_ = "default";
  binding.metadata.name = "a";
  binding.target.name = "n1";
  ASSERT_TRUE(c.bind(binding).ok());
  ASSERT_TRUE(c.deletePod("default", "a", {}).ok());
  c.compactHistoryForTest();
  gated.open();  // the rewatch gets 410; the relist no longer has "a"

  ASSERT_TRUE(eventually([&] { return boundDeletes.load() == 1; }));
  EXPECT_EQ(staleFilterDeletes.load(), 0);
}

TEST(SharedInformerTest, FilteringHandlerTurnsTransitionsIntoAddsAndDeletes) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  SharedInformer<api::Pod> inf(c.pods(), fastOptions());
  std::mutex mu;
  std::vector<std::string> calls;
  EventHandlerFuncs<api::Pod> h;
  h.filter = [](const api::Pod& p) { return p.spec.nodeName.empty(); };  // unscheduled pods
  h.onAdd = [&](const auto& p, bool) {
    std::lock_guard l(mu);
    calls.push_back("add " + p->metadata.name);
  };
  h.onUpdate = [&](const auto&, const auto& p) {
    std::lock_guard l(mu);
    calls.push_back("update " + p->metadata.name);
  };
  h.onDelete = [&](const DeletedObject<api::Pod>& d) {
    std::lock_guard l(mu);
    calls.push_back("delete " + d.object->metadata.name);
  };
  inf.addEventHandler(h);
  inf.start();
  ASSERT_TRUE(inf.waitForSync(5s));
  api::Binding b;
  b.metadata.name = "a";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  ASSERT_TRUE(c.bind(b).ok());
  ASSERT_TRUE(eventually([&] {
    std::lock_guard l(mu);
    return calls.size() == 2;
  }));
  std::lock_guard l(mu);
  EXPECT_EQ(calls, (std::vector<std::string>{"add a", "delete a"}));
}

// Random writes interleaved with dropped watches, compactions and API failures: once quiet, the
// informer's store and the state rebuilt from handler calls both equal the server's.
TEST(SharedInformerTest, RandomizedNoEventLost) {
  client::MemoryClientOptions mo;
  mo.historySize = 16;
  mo.bookmarkInterval = 3ms;
  MemoryClient c(mo);
  SharedInformer<api::Pod> all(c.pods(), fastOptions());
  ReflectorOptions selected = fastOptions();
  selected.labelSelector = "keep=true";
  selected.fieldSelector = "spec.nodeName=";
  SharedInformer<api::Pod> filtered(c.pods(), selected);
  HandlerMirror<api::Pod> allMirror;
  HandlerMirror<api::Pod> filteredMirror;
  all.addEventHandler(allMirror.funcs());
  filtered.addEventHandler(filteredMirror.funcs());
  ASSERT_TRUE(
      all.store()
          .addIndexer("nodeName", [](const api::Pod& p) { return std::vector<std::string>{p.spec.nodeName}; })
          .ok());
  all.start();
  filtered.start();

  std::mt19937 rng(20240611);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int step = 0; step < 1500; ++step) {
    const std::string name = "p" + std::to_string(pick(40));
    const int op = pick(100);
    if (op < 35) {
      api::Pod p = makePod(name, pick(2) == 0 ? "ns-a" : "ns-b");
      p.metadata.labels["keep"] = pick(2) == 0 ? "true" : "false";
      (void)c.create(p);
    } else if (op < 65) {
      auto objs = c.objects<api::Pod>();
      if (objs.empty()) continue;
      api::Pod p = *objs[static_cast<size_t>(pick(static_cast<int>(objs.size())))];
      p.metadata.labels["keep"] = pick(2) == 0 ? "true" : "false";
      p.metadata.labels["gen"] = std::to_string(step);
      (void)c.update(p);
    } else if (op < 72) {
      auto objs = c.objects<api::Pod>();
      if (objs.empty()) continue;
      const auto& p = objs[static_cast<size_t>(pick(static_cast<int>(objs.size())))];
      api::Binding b;
      b.metadata.name = p->metadata.name;
      b.metadata.namespace_ = p->metadata.namespace_;
      b.target.name = "n" + std::to_string(pick(3));
      (void)c.bind(b);
    } else if (op < 88) {
      auto objs = c.objects<api::Pod>();
      if (objs.empty()) continue;
      const auto& p = objs[static_cast<size_t>(pick(static_cast<int>(objs.size())))];
      (void)c.deletePod(p->metadata.namespace_, p->metadata.name, {});
    } else if (op < 92) {
      c.closeAllWatchesForTest(pick(2) == 0 ? std::nullopt
                                            : std::optional<ApiError>(ApiError(0, "", "reset")));
    } else if (op < 95) {
      c.compactHistoryForTest();
    } else if (op < 97) {
      c.injectFailures(Operation::Watch, 1, ApiError(500, "InternalError", "injected"));
    } else {
      c.injectFailures(Operation::List, 1, ApiError(503, "ServiceUnavailable", "injected"));
    }
    if (step % 50 == 0) std::this_thread::sleep_for(1ms);  // let the informers interleave
  }

  auto selectedOnServer = [](const api::Pod& p) {
    auto it = p.metadata.labels.find("keep");
    return it != p.metadata.labels.end() && it->second == "true" && p.spec.nodeName.empty();
  };
  ASSERT_TRUE(eventually(
      [&] {
        return storeState(all.store()) == serverState<api::Pod>(c) &&
               allMirror.snapshot() == serverState<api::Pod>(c) &&
               storeState(filtered.store()) == serverState<api::Pod>(c, selectedOnServer) &&
               filteredMirror.snapshot() == serverState<api::Pod>(c, selectedOnServer);
      },
      10s));
  {
    std::lock_guard l(allMirror.mu);
    EXPECT_TRUE(allMirror.problems.empty()) << allMirror.problems.front();
  }
  {
    std::lock_guard l(filteredMirror.mu);
    EXPECT_TRUE(filteredMirror.problems.empty()) << filteredMirror.problems.front();
  }
  // The index agrees with the store.
  size_t indexed = 0;
  for (const std::string node : {"", "n0", "n1", "n2"})
    indexed += all.store().byIndex("nodeName", node).value().size();
  EXPECT_EQ(indexed, all.store().size());
  EXPECT_GT(all.reflector().listCount(), 1);
  all.stop();
  filtered.stop();
  EXPECT_EQ(c.activeWatchCountForTest(), 0u);
}

TEST(SharedInformerFactoryTest, StartsLazilyCreatedInformersAndWaitsForSync) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  api::Pod done = makePod("done");
  done.status.phase = "Succeeded";
  ASSERT_TRUE(c.create(done).ok());
  api::Node n;
  n.metadata.name = "n1";
  ASSERT_TRUE(c.create(n).ok());

  SharedInformerFactoryOptions fo;
  fo.reflector = fastOptions();
  fo.podFieldSelector = std::string(kSchedulerPodFieldSelector);
  SharedInformerFactory f(c, fo);
  EXPECT_EQ(&f.pods(), &f.pods());
  f.nodes();
  f.csiNodes();
  f.podDisruptionBudgets();
  EXPECT_TRUE(f.waitForCacheSync(10ms));  // nothing started yet: nothing to wait for
  f.start();
  ASSERT_TRUE(f.waitForCacheSync(5s));
  EXPECT_EQ(f.pods().store().size(), 1u);  // the succeeded pod is not selected
  EXPECT_EQ(f.nodes().store().size(), 1u);
  EXPECT_EQ(f.csiNodes().store().size(), 0u);
  EXPECT_TRUE(f.csiNodes().hasSynced());

  // Created after start: not running until start() again.
  SharedInformer<api::StorageClass>& sc = f.storageClasses();
  EXPECT_FALSE(sc.waitForSync(20ms));
  f.start();
  EXPECT_TRUE(f.waitForCacheSync(5s));
  f.stop();
  EXPECT_EQ(c.activeWatchCountForTest(), 0u);
}

TEST(SharedInformerFactoryTest, ResourceKinds) {
  MemoryClient c;
  api::DeviceClass cls;
  cls.metadata.name = "gpu.example.com";
  ASSERT_TRUE(c.create(cls).ok());
  api::ResourceSlice slice;
  slice.metadata.name = "n1-gpu";
  slice.spec.nodeName = "n1";
  ASSERT_TRUE(c.create(slice).ok());
  api::ResourceClaim claim;
  claim.metadata.name = "c";
  claim.metadata.namespace_ = "ns";
  ASSERT_TRUE(c.createResourceClaim(claim).ok());

  SharedInformerFactoryOptions fo;
  fo.reflector = fastOptions();
  SharedInformerFactory f(c, fo);
  EXPECT_EQ(&f.resourceClaims(), &f.resourceClaims());
  f.resourceSlices();
  f.deviceClasses();
  f.start();
  ASSERT_TRUE(f.waitForCacheSync(5s));
  EXPECT_TRUE(f.resourceClaims().store().get("ns/c") != nullptr);
  EXPECT_TRUE(f.resourceSlices().store().get("n1-gpu") != nullptr);
  EXPECT_TRUE(f.deviceClasses().store().get("gpu.example.com") != nullptr);
  f.stop();
}

TEST(SharedInformerFactoryTest, WaitForCacheSyncTimesOutWhileListsFail) {
  MemoryClient c;
  c.injectFailures(Operation::List, 1000000, ApiError(403, "Forbidden", "nodes is forbidden"), "Node");
  SharedInformerFactoryOptions fo;
  fo.reflector = fastOptions();
  SharedInformerFactory f(c, fo);
  f.pods();
  f.nodes();
  f.start();
  EXPECT_FALSE(f.waitForCacheSync(50ms));
  // The pods list does not fail; on a loaded machine it may take longer than the 50 ms above.
  EXPECT_TRUE(f.pods().waitForSync(10s));
  EXPECT_FALSE(f.nodes().hasSynced());
  EXPECT_EQ(f.nodes().reflector().lastError()->code(), 403);
  f.stop();
}

}  // namespace
}  // namespace ks::informer
