#include "pkg/client/memory/memory_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace ks::client {
namespace {

using namespace std::chrono_literals;
using api::WatchEventType;

api::Pod makePod(const std::string& name, const std::string& ns = "default") {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = ns;
  p.status.phase = "Pending";
  return p;
}

api::Node makeNode(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  return n;
}

int64_t rvOf(const std::string& rv) {
  return std::stoll(rv);
}

// Runs a watch on a thread and collects events until `n` arrived or the watch ended.
template <typename T>
struct WatchCollector {
  WatchCollector(MemoryClient& c, WatchOptions o) {
    thread = std::jthread([this, &c, o](std::stop_token stop) {
      auto r = c.watch<T>(
          o,
          [this](api::WatchEvent<T>&& ev) {
            std::lock_guard l(mu);
            events.push_back(std::move(ev));
            cv.notify_all();
          },
          stop);
      std::lock_guard l(mu);
      result = r.ok() ? std::optional<ApiError>() : std::optional<ApiError>(r.error());
      done = true;
      cv.notify_all();
    });
  }
  // Waits for at least n events (or the end of the watch); returns a copy of what arrived.
  std::vector<api::WatchEvent<T>> waitFor(size_t n, std::chrono::milliseconds timeout = 2s) {
    std::unique_lock l(mu);
    cv.wait_for(l, timeout, [&] { return events.size() >= n || done; });
    return events;
  }
  bool waitDone(std::chrono::milliseconds timeout = 2s) {
    std::unique_lock l(mu);
    return cv.wait_for(l, timeout, [&] { return done; });
  }

  std::mutex mu;
  std::condition_variable cv;
  std::vector<api::WatchEvent<T>> events;
  std::optional<ApiError> result;
  bool done = false;
  std::jthread thread;  // last: joined first on destruction
};

TEST(MemoryClientTest, CreateAssignsIncreasingVersionsUidAndTimestamp) {
  MemoryClient c;
  auto a = c.create(makePod("a"));
  auto b = c.create(makePod("b"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(rvOf(a->metadata.resourceVersion), rvOf(b->metadata.resourceVersion));
  EXPECT_EQ(c.currentResourceVersion(), b->metadata.resourceVersion);
  EXPECT_FALSE(a->metadata.uid.empty());
  EXPECT_NE(a->metadata.uid, b->metadata.uid);
  EXPECT_TRUE(a->metadata.creationTimestamp.has_value());

  auto dup = c.create(makePod("a"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code(), 409);
  EXPECT_EQ(dup.error().reason(), "AlreadyExists");
  EXPECT_EQ(dup.error().message(), "pods \"a\" already exists");

  // The same name in another namespace, and a cluster-scoped kind.
  EXPECT_TRUE(c.create(makePod("a", "other")).ok());
  auto n = c.create(makeNode("n1"));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->metadata.namespace_, "");

  api::Pod gen;
  gen.metadata.generateName = "web-";
  auto g = c.create(gen);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->metadata.name.rfind("web-", 0), 0u);
  EXPECT_EQ(g->metadata.name.size(), 9u);
  EXPECT_EQ(c.create(api::Pod{}).error().code(), 422);
}

TEST(MemoryClientTest, CreateReplacesAGivenUidUnlessAskedToKeepIt) {
  api::Pod withUid = makePod("a");
  withUid.metadata.uid = "uid-from-the-live-cluster";
  withUid.metadata.creationTimestamp = api::Time(std::chrono::seconds(1'600'000'000));

  MemoryClient apiserver;  // as kube-apiserver: a create gets a new uid and timestamp
  auto a = apiserver.create(withUid);
  ASSERT_TRUE(a.ok());
  EXPECT_NE(a->metadata.uid, "uid-from-the-live-cluster");
  EXPECT_NE(a->metadata.creationTimestamp, withUid.metadata.creationTimestamp);

  MemoryClientOptions keep;
  keep.keepUidsOnCreate = true;
  MemoryClient copy(keep);
  auto b = copy.create(withUid);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->metadata.uid, "uid-from-the-live-cluster");
  EXPECT_EQ(b->metadata.creationTimestamp, withUid.metadata.creationTimestamp);
  auto fresh = copy.create(makePod("b"));  // nothing to keep: assigned as usual
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->metadata.uid.empty());
  EXPECT_TRUE(fresh->metadata.creationTimestamp.has_value());
}

TEST(MemoryClientTest, UpdateUsesOptimisticConcurrency) {
  MemoryClient c;
  auto a = c.create(makePod("a")).value();
  api::Pod next = a;
  next.metadata.labels["x"] = "1";
  auto u = c.update(next);
  ASSERT_TRUE(u.ok());
  EXPECT_GT(rvOf(u->metadata.resourceVersion), rvOf(a.metadata.resourceVersion));
  EXPECT_EQ(u->metadata.uid, a.metadata.uid);

  next.metadata.labels["x"] = "2";  // still carries a's (stale) version
  auto stale = c.update(next);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code(), 409);
  EXPECT_EQ(stale.error().reason(), "Conflict");
  EXPECT_EQ(
      stale.error().message(),
      "Operation cannot be fulfilled on pods \"a\": the object has been modified; please apply your changes "
      "to the latest version and try again");

  next.metadata.resourceVersion.clear();  // unconditional
  auto forced = c.update(next);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->metadata.labels.at("x"), "2");

  // A no-op update is not written.
  const std::string before = c.currentResourceVersion();
  auto same = c.update(forced.value());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->metadata.resourceVersion, forced->metadata.resourceVersion);
  EXPECT_EQ(c.currentResourceVersion(), before);

  EXPECT_EQ(c.update(makePod("missing")).error().code(), 404);
}

TEST(MemoryClientTest, DeleteHonoursPreconditions) {
  MemoryClient c;
  auto a = c.create(makePod("a")).value();
  EXPECT_EQ(c.deletePod("default", "nope", {}).error().message(), "pods \"nope\" not found");

  DeleteOptions wrongUid;
  wrongUid.preconditionUid = "other";
  auto r = c.deletePod("default", "a", wrongUid);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), 409);
  EXPECT_EQ(r.error().message(),
            "Operation cannot be fulfilled on pods \"a\": Precondition failed: UID in "
            "precondition: other, UID in object meta: " +
                a.metadata.uid);

  DeleteOptions wrongRV;
  wrongRV.preconditionResourceVersion = "1";
  EXPECT_EQ(c.deletePod("default", "a", wrongRV).error().code(), 409);

  DeleteOptions good;
  good.preconditionUid = a.metadata.uid;
  good.preconditionResourceVersion = a.metadata.resourceVersion;
  EXPECT_TRUE(c.deletePod("default", "a", good).ok());
  EXPECT_EQ(c.get<api::Pod>("default", "a").error().code(), 404);
  EXPECT_EQ(c.remove<api::Node>("", "n").error().code(), 404);
}

TEST(MemoryClientTest, WatchFromVersionReplaysExactlyTheLaterEvents) {
  MemoryClient c;
  auto a = c.create(makePod("a")).value();
  ASSERT_TRUE(c.create(makePod("b")).ok());
  api::Pod a2 = a;
  a2.metadata.labels["v"] = "2";
  ASSERT_TRUE(c.update(a2).ok());
  ASSERT_TRUE(c.deletePod("default", "b", {}).ok());
  const std::string deleteRV = c.currentResourceVersion();

  WatchOptions o;
  o.resourceVersion = a.metadata.resourceVersion;
  o.allowWatchBookmarks = false;
  WatchCollector<api::Pod> w(c, o);
  auto evs = w.waitFor(3);
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, WatchEventType::Added);
  EXPECT_EQ(evs[0].object.metadata.name, "b");
  EXPECT_EQ(evs[1].type, WatchEventType::Modified);
  EXPECT_EQ(evs[1].object.metadata.labels.at("v"), "2");
  EXPECT_EQ(evs[2].type, WatchEventType::Deleted);
  EXPECT_EQ(evs[2].object.metadata.name, "b");
  EXPECT_EQ(evs[2].object.metadata.resourceVersion, deleteRV);
  EXPECT_LT(rvOf(evs[0].object.metadata.resourceVersion), rvOf(evs[1].object.metadata.resourceVersion));

  // Live events follow, carrying their new versions.
  auto cr = c.create(makePod("c")).value();
  evs = w.waitFor(4);
  ASSERT_EQ(evs.size(), 4u);
  EXPECT_EQ(evs[3].object.metadata.resourceVersion, cr.metadata.resourceVersion);
  EXPECT_EQ(c.activeWatchCountForTest(), 1u);
}

TEST(MemoryClientTest, WatchFromEmptyVersionStartsWithSyntheticAdds) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(c.create(makePod("b")).ok());
  WatchOptions o;
  o.allowWatchBookmarks = false;
  WatchCollector<api::Pod> w(c, o);
  auto evs = w.waitFor(2);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, WatchEventType::Added);
  EXPECT_EQ(evs[1].object.metadata.name, "b");
}

TEST(MemoryClientTest, TooOldVersionIsExpired) {
  MemoryClientOptions opts;
  opts.historySize = 2;
  MemoryClient c(opts);
  auto first = c.create(makePod("p0")).value();
  for (int i = 1; i < 5; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  // History holds the last two writes (rv 5, 6): watchable from 4 on.
  WatchOptions o;
  o.resourceVersion = first.metadata.resourceVersion;
  WatchCollector<api::Pod> w(c, o);
  ASSERT_TRUE(w.waitDone());
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].type, WatchEventType::Error);
  EXPECT_EQ(w.events[0].status.code, 410);
  EXPECT_EQ(w.events[0].status.reason, "Expired");
  EXPECT_EQ(w.events[0].status.message, "too old resource version: 2 (4)");

  o.resourceVersion = "4";
  o.allowWatchBookmarks = false;
  WatchCollector<api::Pod> ok(c, o);
  EXPECT_EQ(ok.waitFor(2).size(), 2u);

  opts.expiredWatchAsErrorEvent = false;
  MemoryClient c2(opts);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c2.create(makePod("p" + std::to_string(i))).ok());
  auto r = c2.watch<api::Pod>(
      WatchOptions{"2", true, 0, "", ""}, [](api::WatchEvent<api::Pod>&&) {}, std::stop_token());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isGone());

  // Compaction expires everything before the current version, for every kind.
  c.compactHistoryForTest();
  o.resourceVersion = "5";
  WatchCollector<api::Pod> w2(c, o);
  ASSERT_TRUE(w2.waitDone());
  EXPECT_EQ(w2.events.at(0).status.code, 410);
  EXPECT_EQ(c.list<api::Node>(ListOptions{}).value().metadata.resourceVersion, c.currentResourceVersion());
}

TEST(MemoryClientTest, BookmarksAndTimeout) {
  MemoryClientOptions opts;
  opts.bookmarkInterval = 5ms;
  opts.watchTimeoutUnit = 10ms;
  MemoryClient c(opts);
  ASSERT_TRUE(c.create(makePod("a")).ok());
  ASSERT_TRUE(c.create(makeNode("n")).ok());  // another kind moves the global version
  WatchOptions o;
  o.resourceVersion = "1";
  o.timeoutSeconds = 5;  // 50ms here
  WatchCollector<api::Pod> w(c, o);
  auto evs = w.waitFor(2);
  ASSERT_GE(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, WatchEventType::Added);
  EXPECT_EQ(evs[1].type, WatchEventType::Bookmark);
  EXPECT_EQ(evs[1].object.metadata.resourceVersion, c.currentResourceVersion());
  EXPECT_TRUE(w.waitDone());
  EXPECT_FALSE(w.result.has_value());
  EXPECT_EQ(c.activeWatchCountForTest(), 0u);

  // Without allowWatchBookmarks, none.
  o.allowWatchBookmarks = false;
  o.timeoutSeconds = 2;
  WatchCollector<api::Pod> quiet(c, o);
  ASSERT_TRUE(quiet.waitDone());
  for (const auto& ev : quiet.events) EXPECT_NE(ev.type, WatchEventType::Bookmark);
}

TEST(MemoryClientTest, CloseAllWatchesEndsThem) {
  MemoryClient c;
  WatchCollector<api::Pod> w1(c, WatchOptions{});
  WatchCollector<api::Node> w2(c, WatchOptions{});
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (c.activeWatchCountForTest() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  c.closeAllWatchesForTest(ApiError(0, "", "connection reset"));
  ASSERT_TRUE(w1.waitDone());
  ASSERT_TRUE(w2.waitDone());
  ASSERT_TRUE(w1.result.has_value());
  EXPECT_TRUE(w1.result->isTransport());
}

TEST(MemoryClientTest, PaginationIsConsistent) {
  MemoryClient c;
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(c.create(makePod("p" + std::to_string(i))).ok());
  ListOptions o;
  o.limit = 3;
  auto p1 = c.list<api::Pod>(o).value();
  ASSERT_EQ(p1.items.size(), 3u);
  EXPECT_EQ(p1.metadata.remainingItemCount, 4);
  ASSERT_FALSE(p1.metadata.continue_.empty());

  // Writes after the first page do not show up in the later ones.
  ASSERT_TRUE(c.deletePod("default", "p5", {}).ok());
  ASSERT_TRUE(c.create(makePod("p9")).ok());
  api::Pod p4 = c.get<api::Pod>("default", "p4").value();
  p4.metadata.labels["changed"] = "yes";
  ASSERT_TRUE(c.update(p4).ok());

  o.continue_ = p1.metadata.continue_;
  auto p2 = c.list<api::Pod>(o).value();
  ASSERT_EQ(p2.items.size(), 3u);
  EXPECT_EQ(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
  EXPECT_EQ(p2.items[0].metadata.name, "p3");
  EXPECT_TRUE(p2.items[1].metadata.labels.empty());
  EXPECT_EQ(p2.items[2].metadata.name, "p5");
  o.continue_ = p2.metadata.continue_;
  auto p3 = c.list<api::Pod>(o).value();
  ASSERT_EQ(p3.items.size(), 1u);
  EXPECT_EQ(p3.items[0].metadata.name, "p6");
  EXPECT_TRUE(p3.metadata.continue_.empty());

  // A fresh list sees the writes.
  auto all = c.list<api::Pod>(ListOptions{}).value();
  EXPECT_EQ(all.items.size(), 7u);
  EXPECT_EQ(all.metadata.resourceVersion, c.currentResourceVersion());

  // Once the snapshot left the history window, the token is expired.
  c.compactHistoryForTest();
  o.continue_ = p1.metadata.continue_;
  auto gone = c.list<api::Pod>(o);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code(), 410);
  o.continue_ = "garbage";
  EXPECT_EQ(c.list<api::Pod>(o).error().code(), 400);
}

TEST(MemoryClientTest, FieldAndLabelSelectors) {
  MemoryClient c;
  api::Pod a = makePod("a");
  a.metadata.labels = {{"app", "web"}, {"tier", "front"}};
  api::Pod b = makePod("b");
  b.spec.nodeName = "n1";
  b.status.phase = "Running";
  b.metadata.labels = {{"app", "db"}};
  api::Pod d = makePod("d");
  d.status.phase = "Succeeded";
  for (const auto& p : {a, b, d}) ASSERT_TRUE(c.create(p).ok());

  auto names = [&](const std::string& labelSel, const std::string& fieldSel) {
    ListOptions o;
    o.labelSelector = labelSel;
    o.fieldSelector = fieldSel;
    auto l = c.list<api::Pod>(o);
    std::vector<std::string> out;
    if (!l.ok()) return std::vector<std::string>{"error " + std::to_string(l.error().code())};
    for (const auto& p : l->items) out.push_back(p.metadata.name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("", "spec.nodeName="), (V{"a", "d"}));
  EXPECT_EQ(names("", "spec.nodeName!="), (V{"b"}));
  EXPECT_EQ(names("", "spec.nodeName==n1"), (V{"b"}));
  EXPECT_EQ(names("", "status.phase!=Succeeded,status.phase!=Failed"), (V{"a", "b"}));
  EXPECT_EQ(names("", "status.phase=Succeeded"), (V{"d"}));
  EXPECT_EQ(names("", "metadata.name=b"), (V{"b"}));
  EXPECT_EQ(names("app=web", ""), (V{"a"}));
  EXPECT_EQ(names("app in (web,db),tier!=front", "spec.nodeName!="), (V{"b"}));
  EXPECT_EQ(names("!app", ""), (V{"d"}));
  EXPECT_EQ(names("", "spec.bogus=1"), (V{"error 400"}));
  EXPECT_EQ(names("app in (", ""), (V{"error 400"}));
  EXPECT_EQ(names("", "justtext"), (V{"error 400"}));

  ASSERT_TRUE(c.create(makeNode("n1")).ok());
  ListOptions no;
  no.fieldSelector = "metadata.name=n1";
  EXPECT_EQ(c.list<api::Node>(no).value().items.size(), 1u);
  no.fieldSelector = "spec.nodeName=n1";
  EXPECT_EQ(c.list<api::Node>(no).error().message(), "field label not supported: spec.nodeName");
}

TEST(MemoryClientTest, WatchSelectorTransitionsBecomeAddsAndDeletes) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("a")).ok());
  WatchOptions o;
  o.resourceVersion = c.currentResourceVersion();
  o.fieldSelector = "spec.nodeName=";
  o.allowWatchBookmarks = false;
  WatchCollector<api::Pod> unassigned(c, o);
  o.fieldSelector = "spec.nodeName!=";
  WatchCollector<api::Pod> assigned(c, o);

  api::Binding bnd;
  bnd.metadata.name = "a";
  bnd.metadata.namespace_ = "default";
  bnd.target.kind = "Node";
  bnd.target.name = "n1";
  ASSERT_TRUE(c.bind(bnd).ok());
  const std::string bindRV = c.currentResourceVersion();

  auto u = unassigned.waitFor(1);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].type, WatchEventType::Deleted);
  EXPECT_EQ(u[0].object.spec.nodeName, "");                 // the previous content ...
  EXPECT_EQ(u[0].object.metadata.resourceVersion, bindRV);  // ... at the event's version
  auto a = assigned.waitFor(1);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].type, WatchEventType::Added);
  EXPECT_EQ(a[0].object.spec.nodeName, "n1");
}

TEST(MemoryClientTest, BindSemantics) {
  MemoryClientOptions opts;
  opts.now = [] { return api::Time(std::chrono::seconds(1000)); };
  MemoryClient c(opts);
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  auto missing = c.bind(b);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), 404);

  auto created = c.create(makePod("p")).value();
  WatchOptions o;
  o.resourceVersion = created.metadata.resourceVersion;
  o.allowWatchBookmarks = false;
  WatchCollector<api::Pod> w(c, o);

  b.metadata.annotations["k"] = "v";
  ASSERT_TRUE(c.bind(b).ok());
  auto pod = c.get<api::Pod>("default", "p").value();
  EXPECT_EQ(pod.spec.nodeName, "n1");
  EXPECT_EQ(pod.metadata.annotations.at("k"), "v");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  EXPECT_EQ(pod.status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(pod.status.conditions[0].status, "True");
  EXPECT_EQ(pod.status.conditions[0].lastTransitionTime, api::Time(std::chrono::seconds(1000)));
  auto evs = w.waitFor(1);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, WatchEventType::Modified);
  EXPECT_EQ(evs[0].object.spec.nodeName, "n1");

  b.target.name = "n2";
  auto again = c.bind(b);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code(), 409);
  EXPECT_EQ(again.error().message(),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"n1\"");

  api::Pod gated = makePod("g");
  gated.spec.schedulingGates.push_back({"wait"});
  ASSERT_TRUE(c.create(gated).ok());
  b.metadata.name = "g";
  EXPECT_EQ(c.bind(b).error().code(), 409);

  ASSERT_TRUE(c.create(makePod("u")).ok());
  b.metadata.name = "u";
  b.metadata.uid = "not-the-uid";
  EXPECT_EQ(c.bind(b).error().code(), 409);
}

TEST(MemoryClientTest, PatchPodStatusMergesConditionsByType) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("p")).ok());
  PodStatusPatch patch;
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = "Unschedulable";
  cond.message = "0/3 nodes are available";
  patch.condition = cond;
  patch.nominatedNodeName = "n1";
  auto p = c.patchPodStatus("default", "p", patch).value();
  ASSERT_EQ(p.status.conditions.size(), 1u);
  EXPECT_EQ(p.status.nominatedNodeName, "n1");

  PodStatusPatch second;
  cond.message = "0/4 nodes are available";
  second.condition = cond;
  auto q = c.patchPodStatus("default", "p", second).value();
  ASSERT_EQ(q.status.conditions.size(), 1u);
  EXPECT_EQ(q.status.conditions[0].message, "0/4 nodes are available");
  EXPECT_EQ(q.status.nominatedNodeName, "n1");
  EXPECT_GT(rvOf(q.metadata.resourceVersion), rvOf(p.metadata.resourceVersion));

  PodStatusPatch clear;
  clear.nominatedNodeName = "";
  EXPECT_EQ(c.patchPodStatus("default", "p", clear).value().status.nominatedNodeName, "");
  EXPECT_EQ(c.patchPodStatus("default", "nope", clear).error().code(), 404);
}

TEST(MemoryClientTest, EventsGetNamesAndSeries) {
  MemoryClient c;
  api::Event e;
  e.regarding.name = "pod-a";
  e.regarding.namespace_ = "ns1";
  e.reason = "Scheduled";
  auto created = c.createEvent(e).value();
  EXPECT_EQ(created.metadata.name.rfind("pod-a.", 0), 0u);
  EXPECT_EQ(created.metadata.namespace_, "ns1");
  EXPECT_FALSE(created.metadata.resourceVersion.empty());

  api::EventSeries s;
  s.count = 2;
  auto updated = c.updateEventSeries("ns1", created.metadata.name, s).value();
  ASSERT_TRUE(updated.series.has_value());
  EXPECT_EQ(updated.series->count, 2);
  EXPECT_EQ(c.updateEventSeries("ns1", "nope", s).error().code(), 404);
}

TEST(MemoryClientTest, LeaseConflicts) {
  MemoryClient c;
  EXPECT_EQ(c.getLease("kube-system", "kube-scheduler").error().message(),
            "leases.coordination.k8s.io \"kube-scheduler\" not found");
  api::Lease l;
  l.metadata.name = "kube-scheduler";
  l.metadata.namespace_ = "kube-system";
  l.spec.holderIdentity = "a";
  auto created = c.createLease(l).value();
  EXPECT_EQ(c.createLease(l).error().reason(), "AlreadyExists");

  api::Lease mine = created;
  mine.spec.holderIdentity = "b";
  auto updated = c.updateLease(mine);
  ASSERT_TRUE(updated.ok());
  mine.spec.holderIdentity = "c";  // stale version now
  auto conflict = c.updateLease(mine);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(conflict.error().isConflict());
  EXPECT_EQ(c.getLease("kube-system", "kube-scheduler").value().spec.holderIdentity, "b");
}

TEST(MemoryClientTest, FailureInjection) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makePod("p")).ok());
  c.injectFailures(Operation::Bind, 2, ApiError(429, "TooManyRequests", "slow down", 3s));
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  auto r1 = c.bind(b);
  ASSERT_FALSE(r1.ok());
  EXPECT_TRUE(r1.error().isTooManyRequests());
  EXPECT_EQ(r1.error().retryAfter(), 3s);
  EXPECT_FALSE(c.bind(b).ok());
  EXPECT_TRUE(c.bind(b).ok());
  EXPECT_EQ(c.callCount(Operation::Bind), 3);

  // Narrowed to a kind: node lists fail, pod lists do not.
  c.injectFailures(Operation::List, 1, ApiError(500, "InternalError", "boom"), "Node");
  EXPECT_TRUE(c.list<api::Pod>(ListOptions{}).ok());
  EXPECT_TRUE(c.list<api::Node>(ListOptions{}).error().isServerError());
  EXPECT_TRUE(c.list<api::Node>(ListOptions{}).ok());

  c.injectFailures(Operation::Watch, 1, ApiError(0, "", "connection refused"));
  auto w = c.nodes().watch(
      WatchOptions{}, [](api::WatchEvent<api::Node>&&) {}, std::stop_token());
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.error().isTransport());
}

api::ResourceClaim makeClaim(const std::string& name, const std::string& ns = "default") {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = ns;
  api::DeviceRequest r;
  r.name = "gpu";
  r.exactly.emplace();
  r.exactly->deviceClassName = "gpu.example.com";
  r.exactly->allocationMode = "ExactCount";
  r.exactly->count = 1;
  c.spec.devices.requests.push_back(r);
  return c;
}

api::AllocationResult allocationOf(const std::vector<std::string>& devices) {
  api::AllocationResult a;
  for (const std::string& d : devices) {
    api::DeviceRequestAllocationResult r;
    r.request = "gpu";
    r.driver = "gpu.example.com";
    r.pool = "node-1";
    r.device = d;
    a.devices.results.push_back(r);
  }
  return a;
}

api::ResourceClaimConsumerReference podRef(const std::string& name, const std::string& uid) {
  api::ResourceClaimConsumerReference r;
  r.resource = "pods";
  r.name = name;
  r.uid = uid;
  return r;
}

TEST(MemoryClientTest, ResourceClaimCreateDropsStatusAndGetFindsIt) {
  MemoryClient c;
  api::ResourceClaim claim = makeClaim("", "ml");
  claim.metadata.generateName = "p-extended-resources-";
  claim.status.allocation = allocationOf({"gpu-0"});
  auto created = c.createResourceClaim(claim);
  ASSERT_TRUE(created.ok()) << created.error().message();
  EXPECT_EQ(created->metadata.name.rfind("p-extended-resources-", 0), 0u);
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->status.allocation.has_value()) << "the status is not set on create";
  EXPECT_EQ(c.getResourceClaim("ml", created->metadata.name).value(), *created);
  EXPECT_EQ(c.getResourceClaim("ml", "nope").error().message(),
            "resourceclaims.resource.k8s.io \"nope\" not found");
  EXPECT_EQ(c.callCount(Operation::CreateResourceClaim), 1);
  EXPECT_EQ(c.callCount(Operation::GetResourceClaim), 2);
}

TEST(MemoryClientTest, ResourceClaimUpdateKeepsStatusAndRefusesSpecChanges) {
  MemoryClient c;
  auto claim = c.createResourceClaim(makeClaim("gpu")).value();
  api::ResourceClaim withStatus = claim;
  withStatus.status.allocation = allocationOf({"gpu-0"});
  auto allocated = c.updateResourceClaimStatus(withStatus).value();

  // The finalizer goes in with a normal update; the status in that update is ignored.
  api::ResourceClaim finalized = allocated;
  finalized.metadata.finalizers.push_back(std::string(api::kResourceClaimFinalizer));
  finalized.status = {};
  auto updated = c.updateResourceClaim(finalized);
  ASSERT_TRUE(updated.ok()) << updated.error().message();
  EXPECT_EQ(updated->metadata.finalizers,
            std::vector<std::string>{std::string(api::kResourceClaimFinalizer)});
  EXPECT_TRUE(updated->status.allocation.has_value());
  EXPECT_GT(rvOf(updated->metadata.resourceVersion), rvOf(allocated.metadata.resourceVersion));

  auto stale = c.updateResourceClaim(finalized);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.error().isConflict());
  EXPECT_EQ(stale.error().message(),
            "Operation cannot be fulfilled on resourceclaims.resource.k8s.io \"gpu\": the object has been "
            "modified; please apply your changes to the latest version and try again");

  api::ResourceClaim respec = *updated;
  respec.spec.devices.requests[0].exactly->count = 2;
  auto immutable = c.updateResourceClaim(respec);
  ASSERT_FALSE(immutable.ok());
  EXPECT_EQ(immutable.error().code(), 422);
  EXPECT_EQ(immutable.error().message(),
            "resourceclaims.resource.k8s.io \"gpu\" is invalid: spec: field is immutable");

  api::ResourceClaim otherUid = *updated;
  otherUid.metadata.uid = "someone-else";
  EXPECT_EQ(
      c.updateResourceClaim(otherUid).error().message(),
      "Operation cannot be fulfilled on resourceclaims.resource.k8s.io \"gpu\": Precondition failed: UID "
      "in precondition: someone-else, UID in object meta: " +
          updated->metadata.uid);
}

TEST(MemoryClientTest, ResourceClaimStatusUpdateKeepsSpecAndMetadata) {
  MemoryClient c;
  api::ResourceClaim claim = makeClaim("gpu");
  claim.metadata.labels["team"] = "ml";
  auto created = c.createResourceClaim(claim).value();

  api::ResourceClaim next = created;
  next.metadata.labels["team"] = "changed";
  next.metadata.finalizers.push_back("x");
  next.spec.devices.requests.clear();
  next.status.allocation = allocationOf({"gpu-0", "gpu-1"});
  next.status.reservedFor.push_back(podRef("p", "pod-uid"));
  api::AllocatedDeviceStatus s0;
  s0.driver = "gpu.example.com";
  s0.pool = "node-1";
  s0.device = "gpu-0";
  api::AllocatedDeviceStatus s1 = s0;
  s1.device = "gpu-1";
  next.status.devices = {s0, s1};
  auto stored = c.updateResourceClaimStatus(next);
  ASSERT_TRUE(stored.ok()) << stored.error().message();
  EXPECT_EQ(stored->status, next.status);
  EXPECT_EQ(stored->spec, created.spec);
  EXPECT_EQ(stored->metadata.labels.at("team"), "ml");
  EXPECT_TRUE(stored->metadata.finalizers.empty());
  EXPECT_TRUE(c.updateResourceClaimStatus(next).error().isConflict()) << "stale resourceVersion";

  // Taking a device out of the allocation drops its device status too (dropDeallocatedStatusDevices).
  api::ResourceClaim shrink = *stored;
  shrink.status.allocation = allocationOf({"gpu-1"});
  auto shrunk = c.updateResourceClaimStatus(shrink).value();
  ASSERT_EQ(shrunk.status.devices.size(), 1u);
  EXPECT_EQ(shrunk.status.devices[0].device, "gpu-1");
  api::ResourceClaim deallocate = shrunk;
  deallocate.status.allocation.reset();
  deallocate.status.reservedFor.clear();
  EXPECT_TRUE(c.updateResourceClaimStatus(deallocate).value().status.devices.empty());
}

TEST(MemoryClientTest, ResourceClaimReservationRemoval) {
  MemoryClient c;
  auto claim = c.createResourceClaim(makeClaim("gpu")).value();
  claim.status.allocation = allocationOf({"gpu-0"});
  claim.status.reservedFor = {podRef("a", "uid-a"), podRef("b", "uid-b")};
  claim = c.updateResourceClaimStatus(claim).value();

  auto removed = c.removeResourceClaimReservation("default", "gpu", claim.metadata.uid, "uid-a");
  ASSERT_TRUE(removed.ok()) << removed.error().message();
  EXPECT_EQ(removed->status.reservedFor,
            std::vector<api::ResourceClaimConsumerReference>{podRef("b", "uid-b")});
  EXPECT_TRUE(removed->status.allocation.has_value());
  // Not reserved (any more): nothing is written.
  auto again = c.removeResourceClaimReservation("default", "gpu", claim.metadata.uid, "uid-a").value();
  EXPECT_EQ(again.metadata.resourceVersion, removed->metadata.resourceVersion);
  auto otherClaim = c.removeResourceClaimReservation("default", "gpu", "recreated-uid", "uid-b");
  ASSERT_FALSE(otherClaim.ok());
  EXPECT_TRUE(otherClaim.error().isConflict());
  EXPECT_EQ(c.removeResourceClaimReservation("default", "nope", "", "uid-b").error().code(), 404);
}

TEST(MemoryClientTest, ResourceClaimDeleteWaitsForFinalizers) {
  MemoryClient c;
  api::ResourceClaim claim = makeClaim("gpu");
  claim.metadata.finalizers.push_back(std::string(api::kResourceClaimFinalizer));
  auto created = c.createResourceClaim(claim).value();
  WatchOptions fromCreation;
  fromCreation.resourceVersion = created.metadata.resourceVersion;
  WatchCollector<api::ResourceClaim> w(c, fromCreation);

  DeleteOptions wrongUid;
  wrongUid.preconditionUid = "x";
  EXPECT_TRUE(c.deleteResourceClaim("default", "gpu", wrongUid).error().isConflict());
  ASSERT_TRUE(c.deleteResourceClaim("default", "gpu", {}).ok());
  auto marked = c.getResourceClaim("default", "gpu").value();
  ASSERT_TRUE(marked.metadata.deletionTimestamp.has_value()) << "kept while a finalizer is on it";
  EXPECT_EQ(marked.metadata.deletionGracePeriodSeconds, std::optional<int64_t>(0));

  // The update that removes the last finalizer deletes it.
  api::ResourceClaim unfinalized = marked;
  unfinalized.metadata.finalizers.clear();
  unfinalized.metadata.deletionTimestamp.reset();  // an update cannot clear it
  auto last = c.updateResourceClaim(unfinalized);
  ASSERT_TRUE(last.ok()) << last.error().message();
  EXPECT_TRUE(last->metadata.deletionTimestamp.has_value());
  EXPECT_EQ(c.getResourceClaim("default", "gpu").error().code(), 404);
  auto events = w.waitFor(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, WatchEventType::Modified);
  EXPECT_EQ(events[1].type, WatchEventType::Deleted);

  // Without finalizers the delete is immediate.
  ASSERT_TRUE(c.createResourceClaim(makeClaim("plain")).ok());
  ASSERT_TRUE(c.deleteResourceClaim("default", "plain", {}).ok());
  EXPECT_EQ(c.getResourceClaim("default", "plain").error().code(), 404);
  EXPECT_EQ(c.deleteResourceClaim("default", "plain", {}).error().code(), 404);
}

TEST(MemoryClientTest, ResourceSliceFieldSelectors) {
  MemoryClient c;
  api::ResourceSlice onNode;
  onNode.metadata.name = "n1-gpu";
  onNode.spec.driver = "gpu.example.com";
  onNode.spec.nodeName = "n1";
  api::ResourceSlice network;
  network.metadata.name = "fabric";
  network.spec.driver = "nic.example.com";
  network.spec.allNodes = true;
  ASSERT_TRUE(c.create(onNode).ok());
  ASSERT_TRUE(c.create(network).ok());
  auto names = [&](const std::string& selector) {
    ListOptions o;
    o.fieldSelector = selector;
    std::vector<std::string> out;
    auto list = c.resourceSlices().list(o);
    for (const auto& s : list.value().items) out.push_back(s.metadata.name);
    return out;
  };
  EXPECT_EQ(names("spec.nodeName=n1"), std::vector<std::string>{"n1-gpu"});
  EXPECT_EQ(names("spec.nodeName="), std::vector<std::string>{"fabric"});
  EXPECT_EQ(names("spec.driver=nic.example.com"), std::vector<std::string>{"fabric"});
  ListOptions bad;
  bad.fieldSelector = "spec.pool.name=x";
  EXPECT_EQ(c.resourceSlices().list(bad).error().code(), 400);
}

TEST(MemoryClientTest, ListWatchersViewTheSameStore) {
  MemoryClient c;
  ASSERT_TRUE(c.create(makeNode("n1")).ok());
  ListWatchers& lws = c;
  EXPECT_EQ(lws.nodes().list(ListOptions{}).value().items.size(), 1u);
  EXPECT_EQ(lws.pods().list(ListOptions{}).value().items.size(), 0u);
  EXPECT_EQ(lws.csiNodes().list(ListOptions{}).value().metadata.resourceVersion, c.currentResourceVersion());
  api::DeviceClass cls;
  cls.metadata.name = "gpu.example.com";
  cls.metadata.namespace_ = "ignored";
  ASSERT_TRUE(c.create(cls).ok());
  ASSERT_TRUE(c.createResourceClaim(makeClaim("gpu")).ok());
  auto classes = lws.deviceClasses().list(ListOptions{}).value().items;
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_TRUE(classes[0].metadata.namespace_.empty()) << "cluster-scoped";
  EXPECT_EQ(lws.resourceClaims().list(ListOptions{}).value().items.size(), 1u);
  EXPECT_EQ(lws.resourceSlices().list(ListOptions{}).value().items.size(), 0u);

  // Gang scheduling's kinds (scheduling.k8s.io/v1beta1), namespaced, kept with every field.
  api::PodGroup group;
  group.metadata.namespace_ = "gang";
  group.metadata.name = "workers";
  group.spec.schedulingPolicy.gang = api::GangSchedulingPolicy{4};
  group.spec.disruptionMode = api::DisruptionMode{.all = api::EmptyObject{}};
  group.status.resourceClaimStatuses = {{.name = "gpu", .resourceClaimName = "workers-gpu"}};
  ASSERT_TRUE(c.create(group).ok());
  api::Workload workload;
  workload.metadata.namespace_ = "gang";
  workload.metadata.name = "training";
  workload.spec.podGroupTemplates = {{.name = "workers", .schedulingPolicy = group.spec.schedulingPolicy}};
  ASSERT_TRUE(c.create(workload).ok());
  auto groups = lws.podGroups().list(ListOptions{}).value().items;
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].metadata.namespace_, "gang");
  EXPECT_EQ(groups[0].spec, group.spec);
  EXPECT_EQ(groups[0].status, group.status);
  auto workloads = lws.workloads().list(ListOptions{}).value().items;
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads[0].spec, workload.spec);
  EXPECT_EQ(c.get<api::PodGroup>("other", "workers").error().code(), 404);
}

}  // namespace
}  // namespace ks::client
