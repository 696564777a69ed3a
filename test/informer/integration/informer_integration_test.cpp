// Informers (Reflector -> Store -> SharedInformer handlers) over the REST client against a real
// kube-apiserver + etcd (test/integration/harness):
//   - list/watch of thousands of pods: the store holds every pod with its fields, handlers hear each later
//     add / update / delete in order; throughput printed;
//   - the watch survives a kube-apiserver restart: the store converges to the server, handlers never
//   contradict
//     themselves (no update or delete for an unknown object, no add for a known one);
//   - 410 Gone with --watch-cache=false: objects changed and deleted while the reflector could not watch,
//   then
//     etcd compacted; the reflector relists and the deletes arrive as tombstones;
//   - node, storage class and persistent volume informers sync and decode against the real server;
//   - scheduling.k8s.io/v1beta1 (gang scheduling, served with --runtime-config and GenericWorkload):
//     Workloads, PodGroups and pods with spec.schedulingGroup read back through the informers, in protobuf
//     and in JSON, every field as written.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec.h"
#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/informer/factory.h"
#include "pkg/informer/shared_informer.h"
#include "test/integration/harness/control_plane.h"
#include "test/support/scheduling_objects.h"

namespace ks::informer {
namespace {

using integration::ControlPlane;
using integration::ControlPlaneOptions;
using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// etcd revisions: resourceVersions of one etcd are comparable integers (opaque to clients in general, but
// this test knows its server).
long long rvNumber(const std::string& rv) {
  return rv.empty() ? 0 : std::stoll(rv);
}

// ---- what the handlers heard --------------------------------------------------------------------------

enum class EventType { Add, Update, Delete };

template <typename T>
struct RecordedEvent {
  EventType type;
  std::string key;
  std::string rv;     // the new object's (add, update) or the deleted object's resourceVersion
  std::string oldRv;  // update only
  bool initial = false;
  bool tombstone = false;
  std::shared_ptr<const T> obj;  // new object (add, update) or the deleted one
};

// Records every notification and keeps the handler's own view (key -> resourceVersion) of the world,
// noting any call that contradicts it.
template <typename T>
class Recorder {
 public:
  EventHandlerFuncs<T> handler() {
    EventHandlerFuncs<T> h;
    h.onAdd = [this](const std::shared_ptr<const T>& obj, bool initial) {
      std::lock_guard lock(mu_);
      const std::string key = objectKey(*obj);
      if (model_.contains(key)) violations_.push_back("add of known object " + key);
      model_[key] = obj->metadata.resourceVersion;
      events_.push_back({EventType::Add, key, obj->metadata.resourceVersion, "", initial, false, obj});
      cv_.notify_all();
    };
    h.onUpdate = [this](const std::shared_ptr<const T>& oldObj, const std::shared_ptr<const T>& newObj) {
      std::lock_guard lock(mu_);
      const std::string key = objectKey(*newObj);
      if (objectKey(*oldObj) != key) violations_.push_back("update changes the key " + key);
      auto it = model_.find(key);
      if (it == model_.end()) {
        violations_.push_back("update of unknown object " + key);
      } else if (it->second != oldObj->metadata.resourceVersion) {
        violations_.push_back("update of " + key + ": old rv " + oldObj->metadata.resourceVersion +
                              " is not the last delivered " + it->second);
      }
      if (rvNumber(newObj->metadata.resourceVersion) <= rvNumber(oldObj->metadata.resourceVersion)) {
        violations_.push_back("update of " + key + " goes back from rv " + oldObj->metadata.resourceVersion +
                              " to " + newObj->metadata.resourceVersion);
      }
      model_[key] = newObj->metadata.resourceVersion;
      events_.push_back({EventType::Update, key, newObj->metadata.resourceVersion,
                         oldObj->metadata.resourceVersion, false, false, newObj});
      cv_.notify_all();
    };
    h.onDelete = [this](const DeletedObject<T>& d) {
      std::lock_guard lock(mu_);
      if (!d.object) {
        violations_.push_back("delete without an object " + d.key);
        return;
      }
      if (d.key != objectKey(*d.object)) violations_.push_back("delete key mismatch " + d.key);
      auto it = model_.find(d.key);
      if (it == model_.end()) {
        violations_.push_back("delete of unknown object " + d.key);
      } else if (d.finalStateUnknown && it->second != d.object->metadata.resourceVersion) {
        violations_.push_back("tombstone of " + d.key + " is not the last known state");
      } else if (!d.finalStateUnknown &&
                 rvNumber(d.object->metadata.resourceVersion) < rvNumber(it->second)) {
        violations_.push_back("delete of " + d.key + " older than its last update");
      }
      if (it != model_.end()) model_.erase(it);
      events_.push_back({EventType::Delete, d.key, d.object->metadata.resourceVersion, "", false,
                         d.finalStateUnknown, d.object});
      cv_.notify_all();
    };
    return h;
  }

  // Waits until pred(events) holds; false at the deadline.
  bool waitFor(const std::function<bool(const std::vector<RecordedEvent<T>>&)>& pred,
               std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(events_); });
  }
  bool waitForCount(size_t n, std::chrono::milliseconds timeout) {
    return waitFor([n](const auto& ev) { return ev.size() >= n; }, timeout);
  }

  // Waits until the handlers' view (key -> resourceVersion) is `want`; false at the deadline.
  bool waitForModel(const std::map<std::string, std::string>& want, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return model_ == want; });
  }

  std::vector<RecordedEvent<T>> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::map<std::string, std::string> model() const {
    std::lock_guard lock(mu_);
    return model_;
  }
  std::vector<std::string> violations() const {
    std::lock_guard lock(mu_);
    return violations_;
  }
  // The events for `key`, in delivery order.
  std::vector<RecordedEvent<T>> eventsFor(const std::string& key) const {
    std::lock_guard lock(mu_);
    std::vector<RecordedEvent<T>> out;
    for (const auto& e : events_) {
      if (e.key == key) out.push_back(e);
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<RecordedEvent<T>> events_;
  std::map<std::string, std::string> model_;
  std::vector<std::string> violations_;
};

template <typename T>
std::string describe(const std::vector<RecordedEvent<T>>& events) {
  std::string out;
  for (const auto& e : events) {
    out += e.type == EventType::Add ? "add" : e.type == EventType::Update ? "update" : "delete";
    out += "(" + e.key + " rv=" + e.rv + (e.tombstone ? " tombstone" : "") +
           (e.obj && e.obj->metadata.deletionTimestamp ? " deleting" : "") + ") ";
  }
  return out;
}

// ---- object generators -------------------------------------------------------------------------------

json podJson(const std::string& ns, const std::string& name, const std::string& app, int index) {
  return json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"labels", {{"app", app}, {"index", std::to_string(index)}}},
        {"annotations", {{"ks.test/owner", "informer-it"}}}}},
      {"spec",
       {{"schedulerName", "ks-test"},
        {"nodeSelector", {{"zone", "z" + std::to_string(index % 3)}}},
        {"tolerations",
         json::array({{{"key", "dedicated"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
        {"containers",
         json::array({{{"name", "c"},
                       {"image", "registry.k8s.io/pause:3.10"},
                       {"ports", json::array({{{"containerPort", 8080 + index % 5}}})},
                       {"resources",
                        {{"requests", {{"cpu", std::to_string(100 + index % 10) + "m"}, {"memory", "64Mi"}}},
                         {"limits", {{"memory", "128Mi"}}}}}}})}}}};
}

std::string podList(const std::string& ns, const std::string& prefix, const std::string& app, int from,
                    int to) {
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (int i = from; i < to; ++i) list["items"].push_back(podJson(ns, prefix + std::to_string(i), app, i));
  return list.dump();
}

// kubectl args deleting pods <prefix><from> .. <prefix><to - 1> in one call.
std::vector<std::string> deleteArgs(const std::string& ns, const std::string& prefix, int from, int to) {
  std::vector<std::string> args = {"delete", "pods", "-n", ns, "--wait=false"};
  for (int i = from; i < to; ++i) args.push_back(prefix + std::to_string(i));
  return args;
}

// A ListWatcher whose watch() calls wait while the gate is closed (as if the connection to the server could
// not be re-established), bounded by a deadline; everything else passes through.
template <typename T>
class GatedListWatcher final : public client::ListWatcher<T> {
 public:
  explicit GatedListWatcher(client::ListWatcher<T>& inner) : inner_(inner) {}

  client::ApiResult<api::List<T>> list(const client::ListOptions& options) override {
    ++lists_;
    return inner_.list(options);
  }

  client::ApiResult<void> watch(const client::WatchOptions& options,
                                const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                                std::stop_token stop) override {
    {
      std::unique_lock lock(mu_);
      if (closed_) {
        ++blocked_;
        cv_.notify_all();
        // Bounded: a test that forgets to open the gate still ends.
        cv_.wait_for(lock, stop, 120s, [this] { return !closed_; });
        if (stop.stop_requested()) return {};
      }
      watchRvs_.push_back(options.resourceVersion);
    }
    return inner_.watch(options, onEvent, std::move(stop));
  }

  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  void open() {
    std::lock_guard lock(mu_);
    closed_ = false;
    cv_.notify_all();
  }
  // Waits until a watch() call is held at the closed gate.
  bool waitBlocked(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [this] { return blocked_ > 0; });
  }
  int lists() const { return lists_.load(); }
  std::vector<std::string> watchResourceVersions() const {
    std::lock_guard lock(mu_);
    return watchRvs_;
  }

 private:
  client::ListWatcher<T>& inner_;
  std::atomic<int> lists_{0};
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  bool closed_ = false;
  int blocked_ = 0;
  std::vector<std::string> watchRvs_;
};

// key -> object of a fresh (paginated) list from the server.
template <typename T>
std::map<std::string, T> serverState(client::ListWatcher<T>& lw, const std::string& labelSelector = "") {
  auto all = client::rest::listAll(lw, client::ListOptions{.labelSelector = labelSelector, .limit = 500});
  EXPECT_TRUE(all.ok()) << all.error().message();
  std::map<std::string, T> out;
  if (!all.ok()) return out;
  for (T& item : all->items) {
    std::string key = objectKey(item);
    out.emplace(std::move(key), std::move(item));
  }
  return out;
}

template <typename T>
std::map<std::string, std::string> rvs(const std::map<std::string, T>& objects) {
  std::map<std::string, std::string> out;
  for (const auto& [key, obj] : objects) out[key] = obj.metadata.resourceVersion;
  return out;
}

template <typename T>
std::map<std::string, std::string> storeRvs(const Store<T>& store) {
  std::map<std::string, std::string> out;
  for (const auto& obj : store.list()) out[objectKey(*obj)] = obj->metadata.resourceVersion;
  return out;
}

// Waits (bounded) until the store holds exactly `want` (same keys and resourceVersions).
template <typename T>
bool waitStoreEquals(const Store<T>& store, const std::map<std::string, std::string>& want,
                     std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (storeRvs(store) != want) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

// Every stored object equals the server's (all decoded fields, not just the resourceVersion).
template <typename T>
void expectStoreEqualsServer(const Store<T>& store, const std::map<std::string, T>& server) {
  EXPECT_EQ(store.size(), server.size());
  size_t mismatches = 0;
  for (const auto& [key, obj] : server) {
    auto got = store.get(key);
    if (!got) {
      ADD_FAILURE() << "missing from the store: " << key;
    } else if (!(*got == obj) && ++mismatches <= 5) {
      ADD_FAILURE() << "store differs from the server for " << key;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

// ---- fixture -------------------------------------------------------------------------------------------

class InformerIntegrationBase : public ::testing::Test {
 protected:
  static void startControlPlane(const ControlPlaneOptions& options, ControlPlane*& cp, std::string*& err) {
    auto started = ControlPlane::start(options);
    if (!started.ok()) {
      err = new std::string(started.error().message());
      return;
    }
    cp = started->release();
  }

  static std::unique_ptr<client::rest::RestClient> makeClient(const ControlPlane& cp,
                                                              const std::string& contentType = "") {
    auto c = client::rest::loadKubeconfig(cp.kubeconfigPath());
    EXPECT_TRUE(c.ok()) << c.error().message();
    if (!c.ok()) return nullptr;
    client::rest::RestConfig rc = std::move(c).value();
    if (!contentType.empty()) rc.contentType = contentType;
    rc.qps = 5000;
    rc.burst = 5000;
    auto r = client::rest::RestClient::create(std::move(rc));
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  // Reflector options that recover quickly after an outage (the default backoff grows to 30 s).
  static ReflectorOptions fastReflector() {
    ReflectorOptions o;
    o.backoff.initial = 100ms;
    o.backoff.max = 1s;
    o.backoff.seed = 42;
    return o;
  }

  static void kubectl(const ControlPlane& cp, const std::vector<std::string>& args,
                      std::string_view input = {}) {
    auto r = input.empty() ? cp.kubectl(args) : cp.kubectl(args, input);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }
};

class InformerIntegrationTest : public InformerIntegrationBase {
 protected:
  static void SetUpTestSuite() { startControlPlane({}, cp_, startError_); }
  static void TearDownTestSuite() {
    delete cp_;
    cp_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cp_, nullptr) << "control plane did not start: " << (startError_ ? *startError_ : "");
    client_ = makeClient(*cp_);
    ASSERT_NE(client_, nullptr);
  }

  static inline ControlPlane* cp_ = nullptr;
  static inline std::string* startError_ = nullptr;
  std::unique_ptr<client::rest::RestClient> client_;
};

// 1. Thousands of pods: initial list into the store with every field, then watched adds/updates/deletes.
TEST_F(InformerIntegrationTest, ListAndWatchThousandsOfPods) {
  constexpr int kInitial = 3000;
  constexpr int kBatches = 3;
  constexpr int kMore = 500;
  constexpr int kDeleteOriginal = 300;
  const std::string ns = "inf-big";
  kubectl(*cp_, {"create", "namespace", ns});

  // Create the pods in parallel batches (kubectl creates one object after another).
  const auto c0 = Clock::now();
  {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(kBatches);
    for (int b = 0; b < kBatches; ++b) {
      threads.emplace_back([&, b] {
        const int per = kInitial / kBatches;
        auto r = cp_->kubectl({"create", "-f", "-"}, podList(ns, "p-", "big", b * per, (b + 1) * per));
        if (!r.ok()) errors[b] = r.error().message();
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) ASSERT_TRUE(e.empty()) << e;
  }
  std::printf("created %d pods with %d parallel kubectl in %.1f s\n", kInitial, kBatches, secondsSince(c0));

  SharedInformerFactoryOptions fo;
  fo.reflector = fastReflector();
  fo.reflector.labelSelector = "app in (big,more)";  // this test's pods only (the suite shares a server)
  fo.podFieldSelector = std::string(kSchedulerPodFieldSelector);
  SharedInformerFactory factory(*client_, fo);
  Recorder<api::Pod> rec;
  auto& pods = factory.pods();
  pods.addEventHandler(rec.handler());

  const auto l0 = Clock::now();
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(60s)) << "pods informer did not sync";
  const double listSecs = secondsSince(l0);
  std::printf(
      "initial list: %d pods listed (pages of 500), stored and delivered in %.3f s (%.0f objects/s)\n",
      kInitial, listSecs, kInitial / listSecs);

  // The store holds every pod, with the fields as created (and equal to a fresh list).
  ASSERT_EQ(pods.store().size(), static_cast<size_t>(kInitial));
  for (int i = 0; i < kInitial; ++i) {
    const std::string key = ns + "/p-" + std::to_string(i);
    auto p = pods.store().get(key);
    ASSERT_NE(p, nullptr) << key;
    EXPECT_EQ(p->metadata.name, "p-" + std::to_string(i));
    EXPECT_EQ(p->metadata.namespace_, ns);
    EXPECT_FALSE(p->metadata.uid.empty());
    EXPECT_FALSE(p->metadata.resourceVersion.empty());
    EXPECT_EQ(p->metadata.labels.at("index"), std::to_string(i));
    EXPECT_EQ(p->metadata.annotations.at("ks.test/owner"), "informer-it");
    EXPECT_EQ(p->spec.schedulerName, "ks-test");
    EXPECT_EQ(p->spec.priority.value_or(-1), 0);  // set by the Priority admission plugin
    EXPECT_EQ(p->spec.nodeSelector.at("zone"), "z" + std::to_string(i % 3));
    // Ours, plus the not-ready / unreachable ones the DefaultTolerationSeconds admission plugin adds.
    auto tol = std::find_if(p->spec.tolerations.begin(), p->spec.tolerations.end(),
                            [](const api::Toleration& t) { return t.key == "dedicated"; });
    ASSERT_NE(tol, p->spec.tolerations.end());
    EXPECT_EQ(tol->op, "Exists");
    EXPECT_EQ(tol->effect, "NoSchedule");
    ASSERT_EQ(p->spec.containers.size(), 1u);
    const api::Container& c = p->spec.containers[0];
    EXPECT_EQ(c.image, "registry.k8s.io/pause:3.10");
    ASSERT_EQ(c.ports.size(), 1u);
    EXPECT_EQ(c.ports[0].containerPort, 8080 + i % 5);
    EXPECT_EQ(c.ports[0].protocol, "TCP");
    EXPECT_EQ(c.resources.requests.at("cpu").milliValue(), 100 + i % 10);
    EXPECT_EQ(c.resources.requests.at("memory").value(), 64LL << 20);
    EXPECT_EQ(c.resources.limits.at("memory").value(), 128LL << 20);
    EXPECT_EQ(p->status.phase, "Pending");
    if (HasFailure()) break;
  }
  auto server = serverState(client_->pods(), fo.reflector.labelSelector);
  ASSERT_EQ(server.size(), static_cast<size_t>(kInitial));
  expectStoreEqualsServer(pods.store(), server);
  EXPECT_EQ(rec.waitForCount(kInitial, 10s), true);
  {
    auto events = rec.events();
    ASSERT_EQ(events.size(), static_cast<size_t>(kInitial));
    for (const auto& e : events) {
      EXPECT_EQ(e.type, EventType::Add);
      EXPECT_TRUE(e.initial);
    }
  }

  // Watch: new pods created (kubectl), their status patched and then deleted, and some of the original pods
  // deleted (through the REST client, from a few threads, so the writes are not the bottleneck).
  const auto w0 = Clock::now();
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "more-", "more", 0, kMore));
  const double createSecs = secondsSince(w0);
  std::vector<std::string> patchNames;
  std::vector<std::string> deleteNames;
  for (int i = 0; i < kMore; ++i) patchNames.push_back("more-" + std::to_string(i));
  deleteNames = patchNames;
  for (int i = 0; i < kDeleteOriginal; ++i) deleteNames.push_back("p-" + std::to_string(i));
  client::PodStatusPatch nominate;
  nominate.nominatedNodeName = "node-x";
  std::atomic<int> writeErrors{0};
  std::string firstWriteError;
  std::mutex errMu;
  auto inParallel = [&](const std::vector<std::string>& names,
                        const std::function<client::ApiResult<void>(const std::string&)>& write) {
    constexpr int kThreads = 4;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (size_t i = t; i < names.size(); i += kThreads) {
          auto r = write(names[i]);
          if (!r.ok() && writeErrors++ == 0) {
            std::lock_guard lock(errMu);
            firstWriteError = names[i] + ": " + r.error().message();
          }
        }
      });
    }
    for (auto& th : threads) th.join();
  };
  inParallel(patchNames, [&](const std::string& name) -> client::ApiResult<void> {
    auto r = client_->patchPodStatus(ns, name, nominate);
    if (!r.ok()) return r.error();
    return {};
  });
  inParallel(deleteNames, [&](const std::string& name) { return client_->deletePod(ns, name, {}); });
  const double writeSecs = secondsSince(w0);
  ASSERT_EQ(writeErrors.load(), 0) << firstWriteError;

  // Every delete is heard (a pod's deletion shows first as an update setting deletionTimestamp, then as the
  // delete itself).
  const size_t kDeletes = kMore + kDeleteOriginal;
  auto deletes = [](const std::vector<RecordedEvent<api::Pod>>& ev) {
    return static_cast<size_t>(
        std::count_if(ev.begin(), ev.end(), [](const auto& e) { return e.type == EventType::Delete; }));
  };
  ASSERT_TRUE(rec.waitFor([&](const auto& ev) { return deletes(ev) >= kDeletes; }, 60s))
      << "handlers heard " << deletes(rec.events()) << " of " << kDeletes << " deletes";
  const double watchSecs = secondsSince(w0);
  auto events = rec.events();
  const size_t watchEvents = events.size() - kInitial;
  std::printf(
      "watch: %zu events (%d adds, %d status updates, %zu deletion updates + deletes) delivered in %.3f s "
      "(%.0f events/s; the writes took %.3f s: kubectl create %.3f s, then REST patches and deletes, so "
      "this is bounded by the write rate)\n",
      watchEvents, kMore, kMore, watchEvents - 2 * kMore, watchSecs, watchEvents / watchSecs, writeSecs,
      createSecs);

  EXPECT_TRUE(rec.violations().empty()) << ::testing::PrintToString(rec.violations());
  // In order: watch notifications carry strictly increasing resourceVersions (etcd revisions).
  for (size_t i = kInitial + 1; i < events.size(); ++i) {
    ASSERT_LT(rvNumber(events[i - 1].rv), rvNumber(events[i].rv)) << "event " << i << " out of order";
  }
  // A delete, preceded by at most one update that marks the pod as being deleted.
  auto expectDeleted = [](const std::vector<RecordedEvent<api::Pod>>& ev, size_t from) {
    ASSERT_GE(ev.size(), from + 1) << describe(ev);
    if (ev.size() == from + 2) {
      EXPECT_EQ(ev[from].type, EventType::Update) << describe(ev);
      EXPECT_TRUE(ev[from].obj->metadata.deletionTimestamp.has_value()) << describe(ev);
    } else {
      ASSERT_EQ(ev.size(), from + 1) << describe(ev);
    }
    EXPECT_EQ(ev.back().type, EventType::Delete) << describe(ev);
    EXPECT_FALSE(ev.back().tombstone) << describe(ev);
  };
  for (int i = 0; i < kMore; ++i) {
    const std::string key = ns + "/more-" + std::to_string(i);
    auto ev = rec.eventsFor(key);
    ASSERT_GE(ev.size(), 3u) << describe(ev);
    EXPECT_EQ(ev[0].type, EventType::Add);
    EXPECT_FALSE(ev[0].initial);
    EXPECT_EQ(ev[0].obj->status.nominatedNodeName, "");
    EXPECT_EQ(ev[1].type, EventType::Update);
    EXPECT_EQ(ev[1].oldRv, ev[0].rv);
    EXPECT_EQ(ev[1].obj->status.nominatedNodeName, "node-x");
    EXPECT_FALSE(ev[1].obj->metadata.deletionTimestamp.has_value());
    expectDeleted(ev, 2);
    EXPECT_EQ(ev.back().obj->status.nominatedNodeName, "node-x");
    EXPECT_EQ(pods.store().get(key), nullptr);
    if (HasFailure()) break;
  }
  for (int i = 0; i < kDeleteOriginal; ++i) {
    auto ev = rec.eventsFor(ns + "/p-" + std::to_string(i));
    EXPECT_TRUE(ev[0].initial);
    expectDeleted(ev, 1);
    if (HasFailure()) break;
  }
  for (int i = kDeleteOriginal; i < kInitial; i += 97)
    EXPECT_EQ(rec.eventsFor(ns + "/p-" + std::to_string(i)).size(), 1u);
  server = serverState(client_->pods(), fo.reflector.labelSelector);
  EXPECT_EQ(server.size(), static_cast<size_t>(kInitial - kDeleteOriginal));
  expectStoreEqualsServer(pods.store(), server);
  EXPECT_EQ(rec.model(), rvs(server));
  EXPECT_EQ(pods.reflector().listCount(), 1) << "no relist expected";
  factory.stop();
}

// 1b. WatchListClient against the real apiserver: the state streamed with sendInitialEvents (no list) equals a
// fresh list, field by field, and the same stream then delivers changes.
TEST_F(InformerIntegrationTest, WatchListStreamsTheStateWithoutAList) {
  constexpr int kPods = 300;
  const std::string ns = "inf-watchlist";
  kubectl(*cp_, {"create", "namespace", ns});
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "w-", "watchlist", 0, kPods));

  SharedInformerFactoryOptions fo;
  fo.reflector = fastReflector();
  fo.reflector.useWatchList = true;
  fo.reflector.labelSelector = "app=watchlist";
  fo.podFieldSelector = std::string(kSchedulerPodFieldSelector);
  SharedInformerFactory factory(*client_, fo);
  Recorder<api::Pod> rec;
  auto& pods = factory.pods();
  pods.addEventHandler(rec.handler());
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(60s)) << "pods informer did not sync";
  ASSERT_EQ(pods.store().size(), static_cast<size_t>(kPods));
  expectStoreEqualsServer(pods.store(), serverState(client_->pods(), fo.reflector.labelSelector));
  EXPECT_EQ(pods.reflector().listCount(), 0) << "the state should have come as a watch-list";
  EXPECT_EQ(pods.reflector().watchCount(), 1);

  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "x-", "watchlist", 0, 1));
  ASSERT_TRUE(rec.waitForCount(kPods + 1, 30s));
  EXPECT_FALSE(rec.events().back().initial);
  EXPECT_EQ(pods.reflector().watchCount(), 1) << "the watch-list's stream goes on as the watch";
  EXPECT_TRUE(rec.violations().empty()) << ::testing::PrintToString(rec.violations());
  factory.stop();
}

// 2. The informer keeps going across a kube-apiserver restart; the store converges to the server.
TEST_F(InformerIntegrationTest, WatchSurvivesApiserverRestart) {
  const std::string ns = "inf-restart";
  kubectl(*cp_, {"create", "namespace", ns});
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "r-", "restart", 0, 60));

  SharedInformerFactoryOptions fo;
  fo.reflector = fastReflector();
  fo.reflector.labelSelector = "app=restart";
  SharedInformerFactory factory(*client_, fo);
  Recorder<api::Pod> rec;
  auto& pods = factory.pods();
  pods.addEventHandler(rec.handler());
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(30s));
  ASSERT_EQ(pods.store().size(), 60u);

  // The watch is live: a change shows up.
  kubectl(*cp_, {"label", "pod", "-n", ns, "r-0", "phase=before"});
  ASSERT_TRUE(
      rec.waitFor([](const auto& ev) { return !ev.empty() && ev.back().type == EventType::Update; }, 30s));
  const std::string rvBefore = pods.lastSyncResourceVersion();
  const int64_t watchesBefore = pods.reflector().watchCount();

  const auto r0 = Clock::now();
  auto restarted = cp_->restartApiserver();
  ASSERT_TRUE(restarted.ok()) << restarted.error().message();
  std::printf("kube-apiserver restarted in %.1f s\n", secondsSince(r0));

  // Changes right after the restart (the reflector may still be backing off) and a bit later.
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "n-", "restart", 0, 20));
  kubectl(*cp_, deleteArgs(ns, "r-", 1, 11));
  kubectl(*cp_, {"label", "pods", "-n", ns, "r-11", "r-12", "r-13", "r-14", "r-15", "phase=after"});
  std::this_thread::sleep_for(1s);
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "late-", "restart", 0, 5));
  kubectl(*cp_, {"delete", "pod", "-n", ns, "r-20", "n-0", "--wait=false"});
  kubectl(*cp_, {"label", "pod", "-n", ns, "n-1", "r-21", "phase=late"});

  auto server = serverState(client_->pods(), "app=restart");
  ASSERT_EQ(server.size(), 60u + 20 + 5 - 10 - 2);
  ASSERT_TRUE(waitStoreEquals(pods.store(), rvs(server), 60s))
      << "store did not converge; reflector error: "
      << (pods.reflector().lastError() ? pods.reflector().lastError()->message() : "none");
  expectStoreEqualsServer(pods.store(), server);
  // The handlers converge too (they may lag the store a little).
  ASSERT_TRUE(rec.waitForModel(rvs(server), 30s)) << "handlers did not converge";
  EXPECT_TRUE(rec.violations().empty()) << ::testing::PrintToString(rec.violations());

  // Each change reached the handlers once, as what it was.
  for (int i = 1; i <= 10; ++i) {
    // Deleted: maybe first an update setting deletionTimestamp (unless a relist skipped it), then the delete.
    auto ev = rec.eventsFor(ns + "/r-" + std::to_string(i));
    ASSERT_TRUE(ev.size() == 2u || ev.size() == 3u) << describe(ev);
    EXPECT_EQ(ev.back().type, EventType::Delete);
    if (ev.size() == 3u) {
      EXPECT_TRUE(ev[1].obj->metadata.deletionTimestamp.has_value()) << describe(ev);
    }
  }
  for (int i = 11; i <= 15; ++i) {
    auto ev = rec.eventsFor(ns + "/r-" + std::to_string(i));
    ASSERT_EQ(ev.size(), 2u) << describe(ev);
    EXPECT_EQ(ev[1].type, EventType::Update);
    EXPECT_EQ(ev[1].obj->metadata.labels.at("phase"), "after");
  }
  for (int i = 2; i < 20; ++i) {
    auto ev = rec.eventsFor(ns + "/n-" + std::to_string(i));
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, EventType::Add);
    EXPECT_FALSE(ev[0].initial);
  }
  EXPECT_EQ(rec.eventsFor(ns + "/n-1").back().obj->metadata.labels.at("phase"), "late");
  // n-0 may have come and gone before the informer was back: then it was never heard of at all.
  if (auto ev = rec.eventsFor(ns + "/n-0"); !ev.empty()) {
    EXPECT_EQ(ev.back().type, EventType::Delete);
  }
  EXPECT_EQ(rec.eventsFor(ns + "/r-20").back().type, EventType::Delete);

  const auto err = pods.reflector().lastError();
  size_t tombstones = 0;
  for (const auto& e : rec.events()) tombstones += e.tombstone ? 1 : 0;
  std::printf(
      "after the restart: rv %s -> %s, %lld watch calls, %lld lists, %zu tombstones, last error: %s\n",
      rvBefore.c_str(), pods.lastSyncResourceVersion().c_str(),
      static_cast<long long>(pods.reflector().watchCount() - watchesBefore),
      static_cast<long long>(pods.reflector().listCount()), tombstones,
      err ? (std::to_string(err->code()) + " " + err->message()).c_str() : "none");
  EXPECT_GT(pods.reflector().watchCount(), watchesBefore) << "the watch was never re-established";
  factory.stop();
}

// 4. Nodes, storage classes and persistent volumes: paths and decoding against the real server.
TEST_F(InformerIntegrationTest, NodeStorageClassAndPersistentVolumeInformersSync) {
  for (int i = 0; i < 3; ++i) {
    const std::string name = "node-" + std::to_string(i);
    json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", name}, {"labels", {{"topology.kubernetes.io/zone", "z" + std::to_string(i)}}}}},
        {"spec",
         {{"taints", json::array({{{"key", "dedicated"}, {"value", "infra"}, {"effect", "NoSchedule"}}})},
          {"unschedulable", i == 2}}}};
    kubectl(*cp_, {"create", "-f", "-"}, node.dump());
    json status = {
        {"status",
         {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}}},
          {"allocatable", {{"cpu", "7500m"}, {"memory", "30Gi"}, {"pods", "110"}}},
          {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})},
          {"images",
           json::array({{{"names", json::array({"registry.k8s.io/pause:3.10"})}, {"sizeBytes", 300000}}})}}}};
    kubectl(*cp_, {"patch", "node", name, "--subresource=status", "--type=merge", "-p", status.dump()});
  }
  for (int i = 0; i < 2; ++i) {
    json sc = {{"apiVersion", "storage.k8s.io/v1"},
               {"kind", "StorageClass"},
               {"metadata", {{"name", "sc-" + std::to_string(i)}}},
               {"provisioner", "csi.example.com"},
               {"parameters", {{"type", "fast"}}},
               {"reclaimPolicy", "Retain"},
               {"volumeBindingMode", i == 0 ? "WaitForFirstConsumer" : "Immediate"},
               {"allowVolumeExpansion", true}};
    kubectl(*cp_, {"create", "-f", "-"}, sc.dump());
    json pv = {
        {"apiVersion", "v1"},
        {"kind", "PersistentVolume"},
        {"metadata", {{"name", "pv-" + std::to_string(i)}}},
        {"spec",
         {{"capacity", {{"storage", "10Gi"}}},
          {"accessModes", json::array({"ReadWriteOnce"})},
          {"persistentVolumeReclaimPolicy", "Retain"},
          {"storageClassName", "sc-0"},
          {"csi", {{"driver", "csi.example.com"}, {"volumeHandle", "vol-" + std::to_string(i)}}},
          {"nodeAffinity",
           {{"required",
             {{"nodeSelectorTerms",
               json::array({{{"matchExpressions",
                              json::array({{{"key", "topology.kubernetes.io/zone"},
                                            {"operator", "In"},
                                            {"values", json::array({"z" + std::to_string(i)})}}})}}})}}}}}}}};
    kubectl(*cp_, {"create", "-f", "-"}, pv.dump());
  }

  SharedInformerFactory factory(*client_, SharedInformerFactoryOptions{.reflector = fastReflector()});
  auto& nodes = factory.nodes();
  auto& classes = factory.storageClasses();
  auto& volumes = factory.persistentVolumes();
  Recorder<api::Node> nodeRec;
  Recorder<api::StorageClass> scRec;
  Recorder<api::PersistentVolume> pvRec;
  nodes.addEventHandler(nodeRec.handler());
  classes.addEventHandler(scRec.handler());
  volumes.addEventHandler(pvRec.handler());
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(30s));

  ASSERT_EQ(nodes.store().size(), 3u);
  auto n1 = nodes.store().get("node-1");  // cluster-scoped: the key is the name
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->metadata.labels.at("topology.kubernetes.io/zone"), "z1");
  ASSERT_EQ(n1->spec.taints.size(), 1u);
  EXPECT_EQ(n1->spec.taints[0].key, "dedicated");
  EXPECT_EQ(n1->spec.taints[0].value, "infra");
  EXPECT_EQ(n1->spec.taints[0].effect, "NoSchedule");
  EXPECT_FALSE(n1->spec.unschedulable);
  EXPECT_TRUE(nodes.store().get("node-2")->spec.unschedulable);
  EXPECT_EQ(n1->status.capacity.at("cpu").value(), 8);
  EXPECT_EQ(n1->status.capacity.at("memory").value(), 32LL << 30);
  EXPECT_EQ(n1->status.allocatable.at("cpu").milliValue(), 7500);
  EXPECT_EQ(n1->status.allocatable.at("pods").value(), 110);
  ASSERT_EQ(n1->status.conditions.size(), 1u);
  EXPECT_EQ(n1->status.conditions[0].type, "Ready");
  EXPECT_EQ(n1->status.conditions[0].status, "True");
  ASSERT_EQ(n1->status.images.size(), 1u);
  EXPECT_EQ(n1->status.images[0].sizeBytes, 300000);

  ASSERT_EQ(classes.store().size(), 2u);
  auto sc0 = classes.store().get("sc-0");
  ASSERT_NE(sc0, nullptr);
  EXPECT_EQ(sc0->provisioner, "csi.example.com");
  EXPECT_EQ(sc0->parameters.at("type"), "fast");
  EXPECT_EQ(sc0->reclaimPolicy, "Retain");
  EXPECT_EQ(sc0->volumeBindingMode, "WaitForFirstConsumer");
  EXPECT_EQ(sc0->allowVolumeExpansion, true);
  EXPECT_EQ(classes.store().get("sc-1")->volumeBindingMode, "Immediate");

  ASSERT_EQ(volumes.store().size(), 2u);
  auto pv1 = volumes.store().get("pv-1");
  ASSERT_NE(pv1, nullptr);
  EXPECT_EQ(pv1->spec.capacity.at("storage").value(), 10LL << 30);
  EXPECT_EQ(pv1->spec.accessModes, std::vector<std::string>{"ReadWriteOnce"});
  EXPECT_EQ(pv1->spec.storageClassName, "sc-0");
  EXPECT_EQ(pv1->spec.persistentVolumeReclaimPolicy, "Retain");
  ASSERT_TRUE(pv1->spec.csi.has_value());
  EXPECT_EQ(pv1->spec.csi->driver, "csi.example.com");
  EXPECT_EQ(pv1->spec.csi->volumeHandle, "vol-1");
  ASSERT_TRUE(pv1->spec.nodeAffinity.has_value() && pv1->spec.nodeAffinity->required.has_value());
  ASSERT_EQ(pv1->spec.nodeAffinity->required->nodeSelectorTerms.size(), 1u);
  ASSERT_EQ(pv1->spec.nodeAffinity->required->nodeSelectorTerms[0].matchExpressions.size(), 1u);
  EXPECT_EQ(pv1->spec.nodeAffinity->required->nodeSelectorTerms[0].matchExpressions[0].values,
            std::vector<std::string>{"z1"});
  std::printf("pv-1 phase: \"%s\"\n", pv1->phase.c_str());

  // Watched changes of each kind.
  kubectl(*cp_, {"label", "node", "node-0", "ks.test/role=edge"});
  kubectl(*cp_, {"delete", "node", "node-2"});
  kubectl(*cp_, {"delete", "storageclass", "sc-1"});
  kubectl(*cp_, {"label", "pv", "pv-0", "ks.test/tier=gold"});
  ASSERT_TRUE(nodeRec.waitForCount(5, 30s));
  ASSERT_TRUE(scRec.waitForCount(3, 30s));
  ASSERT_TRUE(pvRec.waitForCount(3, 30s));
  EXPECT_EQ(nodeRec.events()[3].type, EventType::Update);
  EXPECT_EQ(nodeRec.events()[3].obj->metadata.labels.at("ks.test/role"), "edge");
  EXPECT_EQ(nodeRec.events()[4].type, EventType::Delete);
  EXPECT_EQ(nodeRec.events()[4].key, "node-2");
  EXPECT_EQ(scRec.events()[2].type, EventType::Delete);
  EXPECT_EQ(scRec.events()[2].key, "sc-1");
  EXPECT_EQ(pvRec.events()[2].type, EventType::Update);
  EXPECT_EQ(pvRec.events()[2].obj->metadata.labels.at("ks.test/tier"), "gold");

  auto nodeServer = serverState(client_->nodes());
  auto scServer = serverState(client_->storageClasses());
  auto pvServer = serverState(client_->persistentVolumes());
  ASSERT_TRUE(waitStoreEquals(nodes.store(), rvs(nodeServer), 30s));
  ASSERT_TRUE(waitStoreEquals(classes.store(), rvs(scServer), 30s));
  ASSERT_TRUE(waitStoreEquals(volumes.store(), rvs(pvServer), 30s));
  expectStoreEqualsServer(nodes.store(), nodeServer);
  expectStoreEqualsServer(classes.store(), scServer);
  expectStoreEqualsServer(volumes.store(), pvServer);
  EXPECT_TRUE(nodeRec.violations().empty()) << ::testing::PrintToString(nodeRec.violations());
  EXPECT_TRUE(scRec.violations().empty()) << ::testing::PrintToString(scRec.violations());
  EXPECT_TRUE(pvRec.violations().empty()) << ::testing::PrintToString(pvRec.violations());
  factory.stop();
}

// ---- 410 Gone: the watch cache is off, so an old resourceVersion reaches etcd after compaction ----------

class InformerRelistTest : public InformerIntegrationBase {
 protected:
  static void SetUpTestSuite() {
    startControlPlane(ControlPlaneOptions{.extraApiserverFlags = {"--watch-cache=false"}}, cp_, startError_);
  }
  static void TearDownTestSuite() {
    delete cp_;
    cp_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cp_, nullptr) << "control plane did not start: " << (startError_ ? *startError_ : "");
    client_ = makeClient(*cp_);
    ASSERT_NE(client_, nullptr);
  }

  static inline ControlPlane* cp_ = nullptr;
  static inline std::string* startError_ = nullptr;
  std::unique_ptr<client::rest::RestClient> client_;
};

// 3. Relist on 410 with tombstones for the objects deleted while the informer was not watching.
TEST_F(InformerRelistTest, RelistsAfterCompactionAndDeliversTombstones) {
  const std::string ns = "inf-gone";
  kubectl(*cp_, {"create", "namespace", ns});
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "g-", "gone", 0, 100));

  GatedListWatcher<api::Pod> gated(client_->pods());
  ReflectorOptions ro = fastReflector();
  ro.name = "pods";
  ro.labelSelector = "app=gone";
  SharedInformer<api::Pod> pods(gated, ro);
  Recorder<api::Pod> rec;
  pods.addEventHandler(rec.handler());
  pods.start();
  ASSERT_TRUE(pods.waitForSync(30s));
  ASSERT_EQ(pods.store().size(), 100u);
  ASSERT_EQ(gated.lists(), 1);

  // The watch (served by etcd) is live.
  kubectl(*cp_, {"label", "pod", "-n", ns, "g-99", "phase=before"});
  ASSERT_TRUE(rec.waitFor(
      [](const auto& ev) { return ev.size() == 101 && ev.back().type == EventType::Update; }, 30s));
  const std::string rvBefore = pods.lastSyncResourceVersion();

  // Cut the connection (restart) and keep the reflector from watching again until etcd is compacted.
  gated.close();
  auto restarted = cp_->restartApiserver();
  ASSERT_TRUE(restarted.ok()) << restarted.error().message();
  ASSERT_TRUE(gated.waitBlocked(60s)) << "the reflector did not try to watch again after the restart";
  ASSERT_EQ(pods.lastSyncResourceVersion(), rvBefore) << "the reflector saw events it should not have";

  kubectl(*cp_, deleteArgs(ns, "g-", 0, 30));
  kubectl(*cp_, {"label", "pods", "-n", ns, "g-30", "g-31", "g-32", "g-33", "g-34", "phase=gap"});
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "new-", "gone", 0, 20));
  kubectl(*cp_, {"create", "-f", "-"}, podList(ns, "tmp-", "gone", 0, 10));
  kubectl(*cp_, deleteArgs(ns, "tmp-", 0, 10));
  auto compacted = cp_->compact();
  ASSERT_TRUE(compacted.ok()) << compacted.error().message();
  ASSERT_GT(*compacted, rvNumber(rvBefore));
  std::printf("reflector at rv %s, etcd compacted at revision %lld\n", rvBefore.c_str(), *compacted);

  // Let it watch again: the old resourceVersion is gone (410), so it relists.
  gated.open();
  auto server = serverState(client_->pods(), "app=gone");
  ASSERT_EQ(server.size(), 100u - 30 + 20);
  ASSERT_TRUE(waitStoreEquals(pods.store(), rvs(server), 60s))
      << "store did not converge; reflector error: "
      << (pods.reflector().lastError() ? pods.reflector().lastError()->message() : "none");
  expectStoreEqualsServer(pods.store(), server);
  ASSERT_TRUE(rec.waitForModel(rvs(server), 30s)) << "handlers did not converge";
  EXPECT_TRUE(rec.violations().empty()) << ::testing::PrintToString(rec.violations());

  const auto err = pods.reflector().lastError();
  ASSERT_TRUE(err.has_value());
  EXPECT_TRUE(err->isGone()) << err->code() << " " << err->message();
  std::printf("watch from rv %s after compaction: %d %s: %s\n", rvBefore.c_str(), err->code(),
              err->reason().c_str(), err->message().c_str());
  EXPECT_EQ(gated.lists(), 2) << "exactly one relist expected";
  const auto watchRvs = gated.watchResourceVersions();
  ASSERT_GE(watchRvs.size(), 3u);
  EXPECT_NE(std::find(watchRvs.begin() + 1, watchRvs.end(), rvBefore), watchRvs.end())
      << "the rewatch should use the old resourceVersion";
  EXPECT_GE(rvNumber(watchRvs.back()), *compacted)
      << "after the relist it watches from the new list's version";

  // The deletes the watch never saw arrive as tombstones holding the last known state.
  for (int i = 0; i < 30; ++i) {
    const std::string key = ns + "/g-" + std::to_string(i);
    auto ev = rec.eventsFor(key);
    ASSERT_EQ(ev.size(), 2u) << key;
    EXPECT_EQ(ev[1].type, EventType::Delete);
    EXPECT_TRUE(ev[1].tombstone) << key;
    EXPECT_EQ(ev[1].rv, ev[0].rv) << key;
    EXPECT_EQ(ev[1].obj->metadata.name, "g-" + std::to_string(i));
    EXPECT_EQ(pods.store().get(key), nullptr);
  }
  for (int i = 30; i < 35; ++i) {
    auto ev = rec.eventsFor(ns + "/g-" + std::to_string(i));
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[1].type, EventType::Update);
    EXPECT_EQ(ev[1].obj->metadata.labels.at("phase"), "gap");
  }
  for (int i = 0; i < 20; ++i) {
    auto ev = rec.eventsFor(ns + "/new-" + std::to_string(i));
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, EventType::Add);
    EXPECT_FALSE(ev[0].initial);
  }
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(rec.eventsFor(ns + "/tmp-" + std::to_string(i)).empty());
  // Untouched pods: nothing after their initial add.
  for (int i = 35; i < 99; ++i) EXPECT_EQ(rec.eventsFor(ns + "/g-" + std::to_string(i)).size(), 1u);

  // And the informer keeps watching after the relist.
  kubectl(*cp_, {"delete", "pod", "-n", ns, "g-50", "--wait=false"});
  ASSERT_TRUE(rec.waitFor(
      [&](const auto& ev) { return ev.back().key == ns + "/g-50" && ev.back().type == EventType::Delete; },
      30s));
  EXPECT_FALSE(rec.events().back().tombstone);
  EXPECT_TRUE(rec.violations().empty()) << ::testing::PrintToString(rec.violations());
  pods.stop();
}

// ---- 4. gang scheduling's API: scheduling.k8s.io/v1beta1 Workload, PodGroup, pod.spec.schedulingGroup ----

class GangApiInformerTest : public InformerIntegrationBase {
 protected:
  static void SetUpTestSuite() {
    // The group is beta and off by default; the gates of the fields the manifests set (as record.py).
    startControlPlane(
        ControlPlaneOptions{
            .extraApiserverFlags = {"--runtime-config=scheduling.k8s.io/v1beta1=true",
                                    "--feature-gates=GenericWorkload=true,CompositePodGroup=true,"
                                    "TopologyAwareWorkloadScheduling=true,"
                                    "DRAWorkloadResourceClaims=true,PodGroupPreemptionPolicy=true"}},
        cp_, startError_);
  }
  static void TearDownTestSuite() {
    delete cp_;
    cp_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cp_, nullptr) << "control plane did not start: " << (startError_ ? *startError_ : "");
  }

  static std::string manifest(const std::string& name) {
    return std::string(KS_SOURCE_DIR) + "/test/api/proto/testdata/objects/" + name;
  }

  // The object as the server prints it in JSON, decoded by the JSON codec.
  template <typename T>
  static T fromServer(const std::string& resource, const std::string& name) {
    auto out = cp_->kubectl({"get", resource, name, "-n", "gang", "-o", "json"});
    EXPECT_TRUE(out.ok()) << out.error().message();
    if (!out.ok()) return T{};
    auto obj = api::decodeJson<T>(*out);
    EXPECT_TRUE(obj.ok()) << obj.error().message();
    return obj.ok() ? std::move(obj).value() : T{};
  }

  static inline ControlPlane* cp_ = nullptr;
  static inline std::string* startError_ = nullptr;
};

TEST_F(GangApiInformerTest, WorkloadPodGroupAndSchedulingGroupReadBackWithEveryField) {
  kubectl(*cp_, {"create", "namespace", "gang"});
  for (const char* m : {"00-priorityclass.yaml", "workload.yaml", "workload_composite.yaml", "podgroup.yaml",
                        "pod_schedulinggroup.yaml"}) {
    kubectl(*cp_, {"create", "-f", manifest(m)});
  }
  // The status through its subresource, as the manifest has it.
  auto status = cp_->kubectl({"create", "--dry-run=client", "-o", "json", "-f", manifest("podgroup.yaml")});
  ASSERT_TRUE(status.ok()) << status.error().message();
  const json patch = {{"status", json::parse(*status)["status"]}};
  kubectl(*cp_, {"patch", "podgroup", "training-workers-0", "-n", "gang", "--subresource=status",
                 "--type=merge", "-p", patch.dump()});

  const auto workload = fromServer<api::Workload>("workload", "training");
  const auto composite = fromServer<api::Workload>("workload", "pipeline");
  const auto group = fromServer<api::PodGroup>("podgroup", "training-workers-0");
  const auto pod = fromServer<api::Pod>("pod", "training-worker-0");
  EXPECT_TRUE(workload.spec == api::testing::expectedWorkloadSpec()) << api::encodeJson(workload);
  EXPECT_TRUE(composite.spec == api::testing::expectedCompositeWorkloadSpec()) << api::encodeJson(composite);
  EXPECT_TRUE(group.spec == api::testing::expectedPodGroupSpec()) << api::encodeJson(group);
  EXPECT_TRUE(group.status == api::testing::expectedPodGroupStatus()) << api::encodeJson(group);
  ASSERT_TRUE(pod.spec.schedulingGroup.has_value());
  EXPECT_EQ(pod.spec.schedulingGroup->podGroupName, std::optional<std::string>("training-workers-0"));

  for (const std::string contentType : {"application/vnd.kubernetes.protobuf", "application/json"}) {
    SCOPED_TRACE(contentType);
    auto client = makeClient(*cp_, contentType);
    ASSERT_NE(client, nullptr);
    SharedInformerFactory factory(*client, SharedInformerFactoryOptions{.reflector = fastReflector()});
    auto& workloads = factory.workloads();
    auto& groups = factory.podGroups();
    auto& pods = factory.pods();
    factory.start();
    ASSERT_TRUE(factory.waitForCacheSync(30s));
    ASSERT_EQ(workloads.store().size(), 2u);
    ASSERT_EQ(groups.store().size(), 1u);
    auto w = workloads.store().get("gang/training");
    auto c = workloads.store().get("gang/pipeline");
    auto g = groups.store().get("gang/training-workers-0");
    auto p = pods.store().get("gang/training-worker-0");
    ASSERT_TRUE(w && c && g && p);
    EXPECT_TRUE(*w == workload) << api::encodeJson(*w);
    EXPECT_TRUE(*c == composite) << api::encodeJson(*c);
    EXPECT_TRUE(*g == group) << api::encodeJson(*g);
    EXPECT_TRUE(*p == pod) << api::encodeJson(*p);
    factory.stop();
  }
}

}  // namespace
}  // namespace ks::informer
