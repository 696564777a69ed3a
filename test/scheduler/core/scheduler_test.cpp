// The whole scheduler in process: in-memory API -> informers -> cache/queue -> framework with the
// in-tree plugins -> binding through the API. No mocks between the pieces. The scheduler runs on a manual
// clock: backoffs and timestamps move only when a test steps it, and "nothing else happened" is a barrier
// (settle()), not a sleep.
#include "pkg/scheduler/scheduler.h"
#include "test/scheduler/running_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/util/manual_clock.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using ks::testing::MakeNode;
using ks::testing::MakePod;

// The default profile minus the upstream plugins not implemented yet.
// The default profile without preemption: these tests pin core behaviour (conditions, nominations,
// requeueing) whose messages would otherwise carry a "preemption: ..." part and whose nominations
// preemption would clear; preemption has its own tests (PreemptorIsNominatedAndBoundOnceItsVictimIsGone and
// test/scheduler/framework/plugins/defaultpreemption).
std::string configYaml(const std::string& schedulerName = "default-scheduler", bool preemption = false) {
  std::string disabled = preemption ? "" : "      - name: DefaultPreemption\n";
  for (const auto& name : plugins::notYetImplementedPlugins()) disabled += "      - name: " + name + "\n";
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "leaderElection:\n  leaderElect: false\n"
         "profiles:\n"
         "- schedulerName: " +
         schedulerName +
         "\n"
         "  plugins:\n    multiPoint:\n      disabled:\n" +
         disabled;
}

// Lets a plugin built before the scheduler look at its queue.
struct PriorityQueueAccess {
  std::atomic<queue::PriorityQueue*> queue{nullptr};
};

// Counts attempts and binding outcomes per pod name.
class AttemptCounter final : public AttemptObserver {
 public:
  void onAttempt(const AttemptRecord& r) override {
    std::lock_guard lock(mu_);
    attempts_[r.pod->metadata.name]++;
  }
  void onBindingDone(const api::Pod&, const std::string&, const framework::Status&) override {}
  int attempts(const std::string& pod) const {
    std::lock_guard lock(mu_);
    auto it = attempts_.find(pod);
    return it == attempts_.end() ? 0 : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int> attempts_;
};

// A plugin whose PreFilter and PreBind do what the test says (out-of-tree plugins in the binding cycle
// and node-set PreFilters, which no in-tree plugin implemented here exercises).
class ScriptedPlugin final : public framework::PreFilterPlugin, public framework::PreBindPlugin {
 public:
  using PreFilterFn = std::function<framework::Status(framework::PreFilterResult&)>;
  // Given the pod, PreBind's stop token and the framework (to reach the pods in PreBind).
  using PreBindFn = std::function<framework::Status(const api::Pod&, std::stop_token, framework::Handle&)>;
  ScriptedPlugin(std::string name, PreFilterFn preFilter, PreBindFn preBind, framework::Code preFlight,
                 framework::Handle& handle)
      : name_(std::move(name)),
        preFilter_(std::move(preFilter)),
        preBind_(std::move(preBind)),
        preFlight_(preFlight),
        handle_(handle) {}
  std::string_view name() const override { return name_; }
  framework::Status preFilter(framework::CycleState&, const framework::PodInfo&,
                              std::span<const framework::NodeInfoPtr>,
                              framework::PreFilterResult& r) override {
    return preFilter_ ? preFilter_(r) : framework::Status();
  }
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }
  framework::Status preBindPreFlight(framework::CycleState&, const framework::PodInfo&, const std::string&,
                                     framework::PreBindPreFlightResult&) override {
    return framework::Status(preFlight_);
  }
  framework::Status preBind(framework::CycleState&, const framework::PodInfo& pod, const std::string&,
                            std::stop_token stop) override {
    return preBind_ ? preBind_(pod.pod(), stop, handle_) : framework::Status();
  }

 private:
  std::string name_;
  PreFilterFn preFilter_;
  PreBindFn preBind_;
  framework::Code preFlight_;
  framework::Handle& handle_;
};

// Calls a hook on the recording thread before passing each event on (a test that stalls the scheduler at
// a point of its failure handler).
class HookedEventRecorder final : public framework::EventRecorder {
 public:
  using Hook = std::function<void(const api::ObjectReference& regarding, std::string_view reason)>;
  HookedEventRecorder(framework::EventRecorder& inner, Hook hook) : inner_(inner), hook_(std::move(hook)) {}
  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related, std::string_view type,
              std::string_view reason, std::string_view action, std::string note) override {
    hook_(regarding, reason);
    inner_.eventf(regarding, related, type, reason, action, std::move(note));
  }

 private:
  framework::EventRecorder& inner_;
  Hook hook_;
};

class SchedulerTest : public ::testing::Test {
 protected:
  // Registers a ScriptedPlugin; enable it in the profile given to start().
  void addScriptedPlugin(const std::string& name, ScriptedPlugin::PreFilterFn preFilter,
                         ScriptedPlugin::PreBindFn preBind = {},
                         framework::Code preFlight = framework::Code::Success) {
    ASSERT_TRUE(registry_
                    .registerPlugin(name,
                                    [=](const config::PluginArgs*,
                                        framework::Handle& h) -> Result<std::unique_ptr<framework::Plugin>> {
                                      return std::unique_ptr<framework::Plugin>(
                                          std::make_unique<ScriptedPlugin>(name, preFilter, preBind, preFlight, h));
                                    })
                    .ok());
  }

  void start(const std::string& yaml = configYaml()) {
    auto cfg = config::decodeConfig(yaml);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    recorder_ = std::make_unique<ApiEventRecorder>(client_);
    SchedulerOptions opts;
    opts.clock = &clock_;
    if (observeAttempts_) opts.observer = &attempts_;
    opts.eventRecorder = recorder_.get();
    if (beforeEvent_) {
      hookedRecorder_ = std::make_unique<HookedEventRecorder>(*recorder_, beforeEvent_);
      opts.eventRecorder = hookedRecorder_.get();
    }
    opts.dynamicResourceAllocation = dynamicResourceAllocation_;
    opts.nominatedNodeNameForExpectation = nominatedNodeNameForExpectation_;
    sched_.start(client_, *cfg, registry_, opts);
  }

  void TearDown() override {
    sched_.stop();
  }

  // Polls (real time) until `pred` holds.
  bool waitUntil(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }
  // Waits until `pred` holds for the pod's current API state.
  bool waitForPod(const std::string& name, const std::function<bool(const api::Pod&)>& pred,
                  std::chrono::milliseconds timeout = 10s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto p = client_.get<api::Pod>("default", name);
      if (p.ok() && pred(*p)) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }
  std::string nodeOf(const std::string& name) {
    auto p = client_.get<api::Pod>("default", name);
    return p.ok() ? p->spec.nodeName : "";
  }
  queue::QueueName whereIs(const std::string& name) {
    return sched_->schedulingQueue().whereIs("default/" + name);
  }
  // A barrier for "nothing else happened": a pod that fits nowhere, of the lowest priority, is attempted,
  // then deleted. Informers hand events to the queue in order and the scheduling thread pops activeQ by
  // priority, so by then every event before the call reached the queue and every pod it put in activeQ
  // was attempted. Pods sent to backoffQ may still be there (see whereIs).
  void settle(const std::string& schedulerName = "default-scheduler") {
    const std::string name = "sentinel-" + std::to_string(sentinels_++);
    ASSERT_TRUE(client_
                    .create(MakePod()
                                .name(name)
                                .namespace_("default")
                                .schedulerName(schedulerName)
                                .priority(std::numeric_limits<int32_t>::min())
                                .nodeSelector({{"sentinel", "nowhere"}})
                                .obj())
                    .ok());
    ASSERT_TRUE(waitForPod(name, [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
    ASSERT_TRUE(client_.remove<api::Pod>("default", name).ok());
    ASSERT_TRUE(waitUntil([&] { return whereIs(name) == queue::QueueName::None; }));
  }
  static bool bound(const api::Pod& p) { return !p.spec.nodeName.empty(); }
  // Node n1 (2 cpu) full with victim "v" (priority 0).
  void addPreemptionVictim() {
    ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"pods", "10"}}).obj()).ok());
    api::Pod victim = MakePod().name("v").namespace_("default").uid("v").req({{"cpu", "2"}}).obj();
    victim.spec.nodeName = "n1";
    ASSERT_TRUE(client_.create(victim).ok());
  }
  // Starts the scheduler with preemption; "h" (priority 100) preempts "v" and binds to n1.
  void preemptVictimAndBind() {
    start(configYaml("default-scheduler", /*preemption=*/true));
    ASSERT_TRUE(
        client_.create(MakePod().name("h").namespace_("default").uid("h").priority(100).req({{"cpu", "1"}}).obj())
            .ok());
    ASSERT_TRUE(waitForPod("h", bound, 15s));
    EXPECT_EQ(nodeOf("h"), "n1");
  }
  static const api::PodCondition* scheduledCondition(const api::Pod& p) {
    for (const auto& c : p.status.conditions) {
      if (c.type == "PodScheduled") return &c;
    }
    return nullptr;
  }

  // The FailedScheduling notes recorded for the pod, oldest first.
  std::vector<std::string> failedSchedulingNotes(const std::string& name) {
    recorder_->flush();
    std::vector<std::string> notes;
    for (const auto& e : client_.objects<api::Event>()) {
      if (e->reason == "FailedScheduling" && e->regarding.name == name) notes.push_back(e->note);
    }
    return notes;
  }

  client::MemoryClient client_;
  ManualClock clock_;  // the scheduler's
  int sentinels_ = 0;
  framework::runtime::Registry registry_ = plugins::newInTreeRegistry();
  AttemptCounter attempts_;
  // The observer keeps each attempted pod alive (AttemptRecord::pod); off to see object lifetimes as
  // the daemon has them.
  bool observeAttempts_ = true;
  bool dynamicResourceAllocation_ = true;  // the feature gate
  bool nominatedNodeNameForExpectation_ = false;  // the feature gate
  std::unique_ptr<ApiEventRecorder> recorder_;
  HookedEventRecorder::Hook beforeEvent_;  // set before start(): called as each event is recorded
  std::unique_ptr<HookedEventRecorder> hookedRecorder_;
  testing::RunningScheduler sched_;
};

TEST_F(SchedulerTest, BindsPendingPodsRespectingFilters) {
  ASSERT_TRUE(
      client_.create(MakeNode().name("tainted").taints({{"dedicated", "gpu", "NoSchedule", {}}}).obj()).ok());
  ASSERT_TRUE(client_.create(MakeNode().name("zone-a").label("zone", "a").obj()).ok());
  ASSERT_TRUE(client_.create(MakeNode().name("zone-b").label("zone", "b").obj()).ok());
  start();
  ASSERT_TRUE(
      client_.create(MakePod().name("wants-b").namespace_("default").nodeAffinityIn("zone", {"b"}).obj())
          .ok());
  ASSERT_TRUE(
      client_.create(MakePod().name("tolerates").namespace_("default").nodeAffinityIn("zone", {"a"}).obj())
          .ok());
  ASSERT_TRUE(waitForPod("wants-b", bound));
  ASSERT_TRUE(waitForPod("tolerates", bound));
  EXPECT_EQ(nodeOf("wants-b"), "zone-b");
  EXPECT_EQ(nodeOf("tolerates"), "zone-a");
  // The binding set PodScheduled=True (API server side) and we reported Scheduled. The binding thread
  // records the event after the Binding call returns, so the pod can be seen bound before it is recorded.
  std::shared_ptr<const api::Event> scheduled;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!scheduled && std::chrono::steady_clock::now() < deadline) {
    recorder_->flush();
    for (const auto& e : client_.objects<api::Event>()) {
      if (e->reason == "Scheduled" && e->regarding.name == "wants-b") scheduled = e;
    }
    if (!scheduled) std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(scheduled);
  EXPECT_EQ(scheduled->note, "Successfully assigned default/wants-b to zone-b");
  EXPECT_EQ(scheduled->type, "Normal");
}

TEST_F(SchedulerTest, UnschedulablePodGetsConditionAndEventThenSchedulesWhenNodeAppears) {
  ASSERT_TRUE(
      client_.create(MakeNode().name("n1").taints({{"dedicated", "gpu", "NoSchedule", {}}}).obj()).ok());
  ASSERT_TRUE(client_.create(MakeNode().name("n2").label("zone", "a").obj()).ok());
  start();
  ASSERT_TRUE(
      client_.create(MakePod().name("p").namespace_("default").nodeAffinityIn("zone", {"b"}).obj()).ok());
  const std::string want =
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had "
      "untolerated taint(s).";
  ASSERT_TRUE(waitForPod("p",
                         [&](const api::Pod& p) {
                           const auto* c = scheduledCondition(p);
                           return c && c->status == "False" && c->reason == "Unschedulable" &&
                                  c->message == want;
                         }))
      << "condition not set; pod status has "
      << client_.get<api::Pod>("default", "p")->status.conditions.size();
  recorder_->flush();
  bool sawFailed = false;
  for (const auto& e : client_.objects<api::Event>()) {
    if (e->reason == "FailedScheduling" && e->regarding.name == "p") {
      EXPECT_EQ(e->note, want);
      EXPECT_EQ(e->type, "Warning");
      sawFailed = true;
    }
  }
  EXPECT_TRUE(sawFailed);
  // A fitting node arrives: the NodeAdd event requeues the pod. The clock does not move, so no flush (of
  // the backoff or the 5-minute leftovers) can have done it.
  ASSERT_TRUE(client_.create(MakeNode().name("n3").label("zone", "b").obj()).ok());
  ASSERT_TRUE(waitForPod("p", bound));
  EXPECT_EQ(nodeOf("p"), "n3");
}

TEST_F(SchedulerTest, IgnoresPodsOfOtherSchedulers) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml("kube-scheduler-cpp"));
  ASSERT_TRUE(
      client_.create(MakePod().name("ours").namespace_("default").schedulerName("kube-scheduler-cpp").obj())
          .ok());
  ASSERT_TRUE(client_.create(MakePod().name("theirs").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("ours", bound));
  settle("kube-scheduler-cpp");
  auto theirs = client_.get<api::Pod>("default", "theirs");
  ASSERT_TRUE(theirs.ok());
  EXPECT_TRUE(theirs->spec.nodeName.empty());
  EXPECT_EQ(scheduledCondition(*theirs), nullptr);
}

TEST_F(SchedulerTest, BindingConflictIsRequeuedAndNotLost) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  // The first bind fails with a server error; the pod must come back and get bound.
  client_.injectFailures(client::Operation::Bind, 1,
                         client::ApiError(500, "InternalError", "etcd leader changed"));
  start();
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  // The error backoff (1 s) ends with its ordering window.
  ASSERT_TRUE(waitUntil([&] { return whereIs("p") == queue::QueueName::BackoffQ; }));
  clock_.step(2s);
  ASSERT_TRUE(waitForPod("p", bound));
  EXPECT_EQ(nodeOf("p"), "n1");
}

TEST_F(SchedulerTest, ManyPodsAllBound) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(client_.create(MakeNode().name("n" + std::to_string(i)).obj()).ok());
  }
  start();
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(client_.create(MakePod().name("p" + std::to_string(i)).namespace_("default").obj()).ok());
  }
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(waitForPod("p" + std::to_string(i), bound)) << i;
  sched_->waitForBindings();
  EXPECT_EQ(sched_->schedulerCache().podCount(), 200);
}

// F2: a failed bind replaces the pod's PodInfo with the informer's version while the failure handler
// still reports on the attempted one. Under ASan the old code read freed memory here; now the event and
// condition name the pod and carry the bind error.
TEST_F(SchedulerTest, BindFailureIsReportedOnTheAttemptedPod) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  client_.injectFailures(client::Operation::Bind, 1,
                         client::ApiError(500, "InternalError", "etcd leader changed"));
  observeAttempts_ = false;
  start();
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").uid("p-uid").obj()).ok());
  ASSERT_TRUE(waitUntil([&] { return whereIs("p") == queue::QueueName::BackoffQ; }));
  clock_.step(2s);
  ASSERT_TRUE(waitForPod("p", bound));
  const auto notes = failedSchedulingNotes("p");
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("etcd leader changed"), std::string::npos) << notes[0];
}

// F2, the scheduling-cycle path: the pod is updated while its attempt runs, so the failure handler
// requeues the informer's newer version; the attempted version's last references (its PodInfo and the
// in-flight update event) go away inside the handler, which then still reports on it. Under ASan the old
// code read freed memory in the event and condition; now they name the pod.
TEST_F(SchedulerTest, PodUpdatedDuringAFailingAttemptIsReportedSafely) {
  std::atomic<bool> updated{false};
  addScriptedPlugin("UpdatesThePod", [&](framework::PreFilterResult&) {
    if (!updated.exchange(true)) {
      auto p = client_.get<api::Pod>("default", "p");
      api::Pod changed = *p;
      changed.metadata.labels["touched"] = "yes";
      EXPECT_TRUE(client_.update(changed).ok());
      // The informer hands the update to the queue (recorded as an in-flight event) before a pod
      // created after it.
      EXPECT_TRUE(client_.create(MakePod().name("after-update").namespace_("default").obj()).ok());
      EXPECT_TRUE(waitUntil([&] { return whereIs("after-update") != queue::QueueName::None; }));
    }
    return framework::Status(framework::Code::Unschedulable, "not yet").withPlugin("UpdatesThePod");
  });
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  observeAttempts_ = false;
  start(configYaml() + "    preFilter:\n      enabled:\n      - name: UpdatesThePod\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").uid("p-uid").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  const auto notes = failedSchedulingNotes("p");
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0], "0/1 nodes are available: not yet.");
}

// Upstream TestHandleSchedulingFailureSkipsRecreatedPod: a pod deleted and created again under the same name
// during its failing attempt is a new pod. The failure of the old one is neither requeued nor reported on the
// new one (no PodScheduled condition, no event); here the new pod belongs to another scheduler, so nothing of
// this scheduler may touch it.
TEST_F(SchedulerTest, PodRecreatedDuringAFailingAttemptIsNotRequeuedOrReported) {
  std::atomic<bool> recreated{false};
  std::string oldUid;  // the memory API assigns UIDs
  addScriptedPlugin("RecreatesThePod", [&](framework::PreFilterResult&) {
    if (!recreated.exchange(true)) {
      oldUid = client_.get<api::Pod>("default", "p")->metadata.uid;
      EXPECT_TRUE(client_.remove<api::Pod>("default", "p").ok());
      EXPECT_TRUE(client_.create(MakePod().name("p").namespace_("default").schedulerName("other").obj()).ok());
      // The informer delivers in order: once this pod is queued, the store holds the recreated "p".
      EXPECT_TRUE(client_.create(MakePod().name("after-recreate").namespace_("default").obj()).ok());
      EXPECT_TRUE(waitUntil([&] { return whereIs("after-recreate") != queue::QueueName::None; }));
    }
    return framework::Status(framework::Code::Unschedulable, "not yet").withPlugin("RecreatesThePod");
  });
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml() + "    preFilter:\n      enabled:\n      - name: RecreatesThePod\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  // The barrier pod is attempted after the old pod's failure was handled.
  ASSERT_TRUE(waitForPod("after-recreate", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  auto p = client_.get<api::Pod>("default", "p");
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->metadata.uid, oldUid);
  EXPECT_EQ(p->spec.schedulerName, "other");
  EXPECT_EQ(scheduledCondition(*p), nullptr);
  EXPECT_TRUE(failedSchedulingNotes("p").empty());
  EXPECT_EQ(whereIs("p"), queue::QueueName::None);
}

// F1: with no nodes, a pending pod is retried after 1 s, 2 s, 4 s ... (the error backoff), not in a loop.
TEST_F(SchedulerTest, NoNodesRetriesFollowTheErrorBackoff) {
  start();
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->message == "no nodes available to schedule pods";
  }));
  for (int attempt = 1; attempt <= 4; ++attempt) {
    SCOPED_TRACE(attempt);
    ASSERT_TRUE(waitUntil(
        [&] { return attempts_.attempts("p") == attempt && whereIs("p") == queue::QueueName::BackoffQ; }));
    // Backing off through the backoff's own window too; never popped early.
    clock_.step(std::chrono::seconds(1 << (attempt - 1)));
    EXPECT_EQ(whereIs("p"), queue::QueueName::BackoffQ);
    EXPECT_EQ(attempts_.attempts("p"), attempt);
    clock_.step(1s);
  }
  ASSERT_TRUE(waitUntil([&] { return attempts_.attempts("p") == 5; }));
}

// F3: without score plugins the first feasible node from the rotating start wins, so identical pods
// spread round-robin over identical nodes (instead of a random pick among all feasible nodes).
TEST_F(SchedulerTest, NoScorePluginsTakesTheFirstFeasibleNodeRoundRobin) {
  for (const char* n : {"n1", "n2", "n3"}) ASSERT_TRUE(client_.create(MakeNode().name(n).obj()).ok());
  // One filter worker: with several, the first node to pass may be any of those checked at once (as
  // upstream's parallel Until), and the spread is round-robin only on average.
  start("parallelism: 1\n" + configYaml() + "    score:\n      disabled:\n      - name: \"*\"\n");
  std::set<std::string> nodes;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "p" + std::to_string(i);
    ASSERT_TRUE(client_.create(MakePod().name(name).namespace_("default").obj()).ok());
    ASSERT_TRUE(waitForPod(name, bound));
    nodes.insert(nodeOf(name));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2", "n3"}));
}

// F7: a pod rejected only by NodeResourcesFit is retried on any node taint change (upstream registers
// {Node, UpdateNodeTaint} for every plugin with Node/Add), e.g. a taint added to the node.
TEST_F(SchedulerTest, NodeTaintUpdateRequeuesPodRejectedByFit) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "1"}, {"pods", "10"}}).obj()).ok());
  start();
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").req({{"cpu", "2"}}).obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  settle();
  ASSERT_EQ(attempts_.attempts("p"), 1);
  ASSERT_EQ(whereIs("p"), queue::QueueName::UnschedulablePods);
  auto node = client_.get<api::Node>("", "n1");
  ASSERT_TRUE(node.ok());
  api::Node tainted = *node;
  tainted.spec.taints.push_back(api::Taint{"x", "y", "PreferNoSchedule", {}});
  ASSERT_TRUE(client_.update(tainted).ok());
  ASSERT_TRUE(waitUntil([&] { return attempts_.attempts("p") >= 2; }));
  EXPECT_EQ(attempts_.attempts("p"), 2);
}

// F8: PodScheduled=False carries observedGeneration (PodObservedGenerationTracking, on in v1.34) and keeps
// its lastTransitionTime while the status stays False, even when the message changes.
TEST_F(SchedulerTest, UnschedulableConditionKeepsTransitionTimeAndObservesGeneration) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "1"}, {"pods", "10"}}).obj()).ok());
  start();
  api::Pod pod = MakePod().name("p").namespace_("default").req({{"cpu", "2"}}).obj();
  pod.metadata.generation = 3;
  ASSERT_TRUE(client_.create(pod).ok());
  std::optional<api::Time> first;
  ASSERT_TRUE(waitForPod("p", [&](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    if (c == nullptr) return false;
    EXPECT_EQ(c->observedGeneration, 3);
    first = c->lastTransitionTime;
    return true;
  }));
  // The queue holds the pod with its condition (a retry of an older version would set a new one).
  ASSERT_TRUE(waitUntil([&] {
    auto queued = sched_->schedulingQueue().getForTest("default/p");
    return queued && scheduledCondition(queued->pod()) != nullptr;
  }));
  clock_.step(1s);  // the timestamps have whole seconds
  // A node big enough (so the pod is retried) but tainted: a new message, the same status.
  ASSERT_TRUE(client_
                  .create(MakeNode()
                              .name("n2")
                              .capacity({{"cpu", "4"}, {"pods", "10"}})
                              .taints({{"dedicated", "gpu", "NoSchedule", {}}})
                              .obj())
                  .ok());
  ASSERT_TRUE(waitForPod("p", [&](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c &&
           c->message == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).";
  }));
  const api::Pod now = *client_.get<api::Pod>("default", "p");
  EXPECT_EQ(scheduledCondition(now)->lastTransitionTime, first);
}

// F11: a nominated pod holds capacity on its node for pods of lower or equal priority; deleting it requeues
// the pods its nomination kept out, at once (not after the 5-minute flush).
TEST_F(SchedulerTest, DeletingANominatedPodRequeuesLowerPriorityPods) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "4"}, {"pods", "10"}}).obj()).ok());
  start();
  // H: nominated to n1 but unschedulable (its node selector matches nothing); it reserves 4 CPU there.
  api::Pod h = MakePod().name("h").namespace_("default").uid("h").priority(100).req({{"cpu", "4"}}).obj();
  h.spec.nodeSelector["nowhere"] = "true";
  h.status.nominatedNodeName = "n1";
  ASSERT_TRUE(client_.create(h).ok());
  ASSERT_TRUE(waitForPod("h", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  ASSERT_TRUE(
      client_.create(MakePod().name("l").namespace_("default").uid("l").req({{"cpu", "1"}}).obj()).ok());
  ASSERT_TRUE(waitForPod("l", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->message == "0/1 nodes are available: 1 Insufficient cpu.";
  }));
  ASSERT_TRUE(client_.deletePod("default", "h", {}).ok());
  ASSERT_TRUE(waitForPod("l", bound, 5s));
}

// Preemption through scheduleOne: the preemptor is nominated to the node, its victim is evicted (with a
// Preempted event naming the preemptor), and the next attempt binds the preemptor there.
TEST_F(SchedulerTest, PreemptorIsNominatedAndBoundOnceItsVictimIsGone) {
  addPreemptionVictim();
  preemptVictimAndBind();
  EXPECT_FALSE(client_.get<api::Pod>("default", "v").ok()) << "the victim was not deleted";
  // Events are written by the recorder's own thread.
  std::shared_ptr<const api::Event> preempted;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!preempted && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : client_.objects<api::Event>()) {
      if (e->reason == "Preempted") preempted = e;
    }
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(preempted) << "no Preempted event";
  EXPECT_EQ(preempted->regarding.name, "v");
  EXPECT_EQ(preempted->note, "Preempted by pod " + client_.get<api::Pod>("default", "h")->metadata.uid + " on node n1");
}

// Asynchronous preemption evicts the victims only once the preemptor's status (PodScheduled=False with
// its nominatedNodeName) is written: upstream's goroutine is queued on the scheduling goroutine's P and in
// practice starts when that goroutine blocks on the write. The preemptor's own update event then finds it
// still gated by the preemption; evicting first let that event retry it against a victim terminating but
// still in the cache ("not eligible due to a terminating pod on the nominated node", the seed-4 flake of
// the differential test with the extender). The FailedScheduling event is recorded just before the status
// write: the test stalls the scheduler there, long enough for an eviction started with PostFilter.
TEST_F(SchedulerTest, AsyncPreemptionEvictsOnlyAfterThePreemptorsNominationIsWritten) {
  addPreemptionVictim();
  std::atomic<bool> stalled{false};
  std::atomic<bool> victimUntouched{false};
  beforeEvent_ = [&](const api::ObjectReference& regarding, std::string_view reason) {
    if (reason != "FailedScheduling" || regarding.name != "h" || stalled.exchange(true)) return;
    std::this_thread::sleep_for(300ms);
    auto v = client_.get<api::Pod>("default", "v");
    victimUntouched = v.ok() && !v->metadata.deletionTimestamp.has_value() &&
                      std::none_of(v->status.conditions.begin(), v->status.conditions.end(),
                                   [](const api::PodCondition& c) { return c.type == "DisruptionTarget"; });
  };
  preemptVictimAndBind();
  EXPECT_TRUE(stalled);
  EXPECT_TRUE(victimUntouched) << "the victim was evicted before the preemptor's nomination was written";
  EXPECT_FALSE(client_.get<api::Pod>("default", "v").ok()) << "the victim was not deleted";
}

// F12: the nominated node is tried first, and its failure is part of the diagnosis: its own reason is
// counted (not "didn't satisfy plugin(s)"), and its plugin joins the rejectors.
TEST_F(SchedulerTest, NominatedNodeFailureIsInTheFitError) {
  for (const char* n : {"n1", "n2"})
    ASSERT_TRUE(client_.create(MakeNode().name(n).capacity({{"cpu", "1"}, {"pods", "10"}}).obj()).ok());
  start();
  api::Pod pod = MakePod()
                     .name("p")
                     .namespace_("default")
                     .req({{"cpu", "2"}})
                     .nodeAffinityIn("metadata.name", {"n2"}, /*matchFields=*/true)
                     .obj();
  pod.status.nominatedNodeName = "n1";
  ASSERT_TRUE(client_.create(pod).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  EXPECT_EQ(
      scheduledCondition(*client_.get<api::Pod>("default", "p"))->message,
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.");
}

// F20: two PreFilter node sets without a common node reject the pod with no plugin on the status; the
// plugins that narrowed the set are still its rejectors, so it waits for their events (unschedulablePods)
// instead of going through the error backoff.
TEST_F(SchedulerTest, DisjointPreFilterNodeSetsMakeThePluginsRejectors) {
  addScriptedPlugin("OnlyA", [](framework::PreFilterResult& r) {
    r.nodeNames = std::set<std::string>{"a"};
    return framework::Status();
  });
  addScriptedPlugin("OnlyB", [](framework::PreFilterResult& r) {
    r.nodeNames = std::set<std::string>{"b"};
    return framework::Status();
  });
  for (const char* n : {"a", "b"}) ASSERT_TRUE(client_.create(MakeNode().name(n).obj()).ok());
  start(configYaml() + "    preFilter:\n      enabled:\n      - name: OnlyA\n      - name: OnlyB\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->message ==
                    "0/2 nodes are available: node(s) didn't satisfy plugin(s) [OnlyA OnlyB] simultaneously.";
  }));
  // Its own status update may retry it once more (the plugins registered every event).
  settle();
  EXPECT_TRUE(waitUntil([&] { return whereIs("p") == queue::QueueName::UnschedulablePods; }));
  auto info = sched_->schedulingQueue().getForTest("default/p");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->unschedulablePlugins, (std::set<std::string>{"OnlyA", "OnlyB"}));
}

// F16: a PreBind rejection is not a FitError: the condition carries the plugin's own message and the pod
// is retried through the (error) backoff, then bound.
// F17: once WaitOnPermit passed, the pod is done in the queue (its in-flight events are freed) while
// PreBind and Bind still run.
TEST_F(SchedulerTest, PreBindRejectionIsRetriedAfterBackoffAndPodIsDoneBeforePreBind) {
  std::atomic<int> preBinds{0};
  std::atomic<size_t> inFlightDuringPreBind{99};
  PriorityQueueAccess access;
  addScriptedPlugin("Volumes", {}, [&](const api::Pod&, std::stop_token, framework::Handle&) {
    queue::PriorityQueue* q = access.queue.load();
    inFlightDuringPreBind = q != nullptr ? q->inFlightCount() : 99;
    if (preBinds.fetch_add(1) == 0) {
      return framework::Status(framework::Code::Unschedulable, "volume is not ready yet")
          .withPlugin("Volumes");
    }
    return framework::Status();
  });
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml() + "    preBind:\n      enabled:\n      - name: Volumes\n");
  access.queue = &sched_->schedulingQueue();
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->reason == "Unschedulable";
  }));
  EXPECT_EQ(scheduledCondition(*client_.get<api::Pod>("default", "p"))->message, "volume is not ready yet");
  EXPECT_EQ(inFlightDuringPreBind.load(), 0u);
  ASSERT_EQ(whereIs("p"), queue::QueueName::BackoffQ);
  clock_.step(2s);
  ASSERT_TRUE(waitForPod("p", bound)) << "retried after the error backoff";
  EXPECT_EQ(preBinds.load(), 2);
}

// Upstream TestSchedulerScheduleOne's NominatedNodeNameForExpectation cases: with PreBind work ahead the
// pod's nominatedNodeName is its node before PreBind runs; a pre-flight of Skip runs no PreBind and
// patches nothing.
TEST_F(SchedulerTest, NominatedNodeNameIsSetBeforePreBindWhenPreBindHasWork) {
  nominatedNodeNameForExpectation_ = true;
  std::atomic<int> preBinds{0};
  std::string nominatedDuringPreBind;
  std::mutex mu;
  addScriptedPlugin("Volumes", {}, [&](const api::Pod& pod, std::stop_token, framework::Handle&) {
    preBinds++;
    auto p = client_.get<api::Pod>("default", pod.metadata.name);
    std::lock_guard lock(mu);
    nominatedDuringPreBind = p.ok() ? p->status.nominatedNodeName : "?";
    return framework::Status();
  });
  addScriptedPlugin("NoWork", {}, [&](const api::Pod&, std::stop_token, framework::Handle&) {
    return framework::Status::error("rejected on prebind");  // must not run: its pre-flight skips
  }, framework::Code::Skip);
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml() + "    preBind:\n      enabled:\n      - name: Volumes\n      - name: NoWork\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", bound));
  EXPECT_EQ(preBinds.load(), 1);
  std::lock_guard lock(mu);
  EXPECT_EQ(nominatedDuringPreBind, "n1");
}

TEST_F(SchedulerTest, NominatedNodeNameIsNotSetWhenEveryPreFlightSkips) {
  nominatedNodeNameForExpectation_ = true;
  addScriptedPlugin("NoWork", {}, [&](const api::Pod&, std::stop_token, framework::Handle&) {
    return framework::Status::error("rejected on prebind");
  }, framework::Code::Skip);
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml() + "    preBind:\n      enabled:\n      - name: NoWork\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", bound));
  EXPECT_EQ(client_.get<api::Pod>("default", "p")->status.nominatedNodeName, "");
}

// "prebind pod cancelled during prebind (external preemption)": the cancelled PreBind fails the binding
// with the cause, the pod is not bound and goes to backoffQ.
TEST_F(SchedulerTest, PodCancelledInPreBindIsNotBoundAndRetriedAfterBackoff) {
  nominatedNodeNameForExpectation_ = true;
  std::atomic<int> preBinds{0};
  addScriptedPlugin("Blocking", {}, [&](const api::Pod& pod, std::stop_token stop, framework::Handle& h) {
    if (preBinds.fetch_add(1) > 0) return framework::Status();
    // Preemption "from outside" while this PreBind runs.
    std::jthread preemptor([&h, uid = pod.metadata.uid] {
      auto inPreBind = h.getPodInPreBind(uid);
      ASSERT_NE(inPreBind, nullptr);
      EXPECT_TRUE(inPreBind->cancelPod("context cancelled externally"));
    });
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, stop, [] { return false; });
    return framework::Status::error("context canceled");
  });
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml() + "    preBind:\n      enabled:\n      - name: Blocking\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->reason == "SchedulerError";
  }));
  const api::Pod p = *client_.get<api::Pod>("default", "p");
  EXPECT_EQ(scheduledCondition(p)->message, "running PreBind plugin \"Blocking\": context cancelled externally");
  EXPECT_FALSE(bound(p));
  // Requeued with the error backoff. (The update that set its nominatedNodeName before PreBind may reach the
  // handler after the pod was forgotten and before the failure handler requeues it: then, as upstream's
  // updatePodInSchedulingQueue would, it is added to activeQ and retried at once. Seen under heavy load.)
  EXPECT_TRUE(waitUntil([&] {
    const queue::QueueName where = whereIs("p");
    return where == queue::QueueName::BackoffQ || where == queue::QueueName::ActiveQ ||
           where == queue::QueueName::InFlight || bound(*client_.get<api::Pod>("default", "p"));
  }));
  clock_.step(2s);
  ASSERT_TRUE(waitForPod("p", bound)) << "retried after the error backoff";
}

// Upstream handleAssumedPodDeletion: a pod deleted while its binding cycle is in PreBind can't be stopped
// at once, so its assumed resources are released at the delete, and the pods they kept out are retried
// without waiting for its binding to fail.
TEST_F(SchedulerTest, DeletingAPodInPreBindReleasesItsResourcesAtOnce) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  addScriptedPlugin("Slow", {}, [&](const api::Pod& pod, std::stop_token, framework::Handle&) {
    if (pod.metadata.name != "a") return framework::Status();
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
    return framework::Status();
  });
  ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "1"}}).obj()).ok());
  start(configYaml() + "    preBind:\n      enabled:\n      - name: Slow\n");
  ASSERT_TRUE(client_.create(MakePod().name("a").namespace_("default").req({{"cpu", "1"}}).obj()).ok());
  ASSERT_TRUE(waitUntil([&] { return sched_->schedulerCache().podCount() == 1; }));
  ASSERT_TRUE(client_.create(MakePod().name("b").namespace_("default").req({{"cpu", "1"}}).obj()).ok());
  ASSERT_TRUE(waitForPod("b", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->reason == "Unschedulable";
  }));
  ASSERT_TRUE(client_.remove<api::Pod>("default", "a").ok());
  EXPECT_TRUE(waitForPod("b", bound)) << "a's resources are free while its PreBind still runs";
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  sched_->waitForBindings();  // a's Bind fails (the pod is gone); nothing else breaks
  EXPECT_EQ(nodeOf("b"), "n1");
}

// F21: a node delete is a cluster event too (upstream MoveAll(NodeDelete)): pods rejected by a plugin
// interested in it are retried. A plugin without EnqueueExtensions is interested in every event.
TEST_F(SchedulerTest, NodeDeleteRequeuesInterestedPods) {
  addScriptedPlugin("Picky", [](framework::PreFilterResult&) {
    return framework::Status(framework::Code::Unschedulable, "not yet").withPlugin("Picky");
  });
  for (const char* n : {"n1", "n2"}) ASSERT_TRUE(client_.create(MakeNode().name(n).obj()).ok());
  start(configYaml() + "    preFilter:\n      enabled:\n      - name: Picky\n");
  ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  // Its own status update retries it once.
  settle();
  ASSERT_TRUE(waitUntil([&] { return whereIs("p") == queue::QueueName::UnschedulablePods; }));
  const int before = attempts_.attempts("p");
  ASSERT_TRUE(client_.remove<api::Node>("", "n2").ok());
  EXPECT_TRUE(waitUntil([&] { return attempts_.attempts("p") > before; }));
}

// A PreFilter plugin that rejects every pod and registers for the resource.k8s.io events, as DynamicResources
// will: the handlers for those resources exist only when a plugin wants them.
class WantsDraEvents final : public framework::PreFilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return "WantsDraEvents"; }
  framework::Status preFilter(framework::CycleState&, const framework::PodInfo&,
                              std::span<const framework::NodeInfoPtr>, framework::PreFilterResult&) override {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, "waiting for devices")
        .withPlugin("WantsDraEvents");
  }
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override {
    using framework::EventResource;
    namespace action = framework::action;
    return std::vector<framework::ClusterEventWithHint>{
        {{EventResource::ResourceClaim, action::Add | action::Update, {}}, {}},
        {{EventResource::ResourceSlice, action::Add | action::Update, {}}, {}},
        {{EventResource::DeviceClass, action::Add | action::Update, {}}, {}},
    };
  }
};

class DraEventsTest : public SchedulerTest {
 protected:
  void startWanting() {
    ASSERT_TRUE(registry_
                    .registerPlugin("WantsDraEvents",
                                    [](const config::PluginArgs*,
                                       framework::Handle&) -> Result<std::unique_ptr<framework::Plugin>> {
                                      return std::unique_ptr<framework::Plugin>(
                                          std::make_unique<WantsDraEvents>());
                                    })
                    .ok());
    ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
    start(configYaml() + "    preFilter:\n      enabled:\n      - name: WantsDraEvents\n");
    ASSERT_TRUE(client_.create(MakePod().name("p").namespace_("default").obj()).ok());
    ASSERT_TRUE(waitForPod("p", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
    settle();  // its own status update may retry it once
  }
  // Whether the pod, waiting in unschedulablePods, is attempted again after `event` happened.
  bool retriedAfter(const std::function<void()>& event) {
    if (!waitUntil([&] { return whereIs("p") == queue::QueueName::UnschedulablePods; })) return false;
    const int before = attempts_.attempts("p");
    event();
    return waitUntil([&] { return attempts_.attempts("p") > before; });
  }
  // Whether `event` left the pod where it was, in unschedulablePods.
  bool notRetriedAfter(const std::function<void()>& event) {
    if (!waitUntil([&] { return whereIs("p") == queue::QueueName::UnschedulablePods; })) return false;
    const int before = attempts_.attempts("p");
    event();
    settle();
    return attempts_.attempts("p") == before && whereIs("p") == queue::QueueName::UnschedulablePods;
  }
};

api::DeviceClass deviceClass(const std::string& name) {
  api::DeviceClass c;
  c.metadata.name = name;
  return c;
}

api::ResourceSlice resourceSlice(const std::string& name) {
  api::ResourceSlice s;
  s.metadata.name = name;
  s.spec.driver = "gpu.example.com";
  s.spec.nodeName = "n1";
  s.spec.pool.name = "n1";
  s.spec.pool.resourceSliceCount = 1;
  return s;
}

api::ResourceClaim resourceClaim(const std::string& name) {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = "default";
  return c;
}

// UnschedulableAndUnresolvable pods wait for an event their rejector registered for; the resource.k8s.io
// informers deliver those events (upstream's addAllEventHandlers for ResourceClaim, ResourceSlice,
// DeviceClass).
TEST_F(DraEventsTest, ClassSliceAndClaimEventsRequeueThePodsOfPluginsThatWantThem) {
  startWanting();
  EXPECT_TRUE(retriedAfter([&] { ASSERT_TRUE(client_.create(deviceClass("gpu.example.com")).ok()); }));
  EXPECT_TRUE(retriedAfter([&] { ASSERT_TRUE(client_.create(resourceSlice("n1-gpu")).ok()); }));
  EXPECT_TRUE(retriedAfter([&] { ASSERT_TRUE(client_.createResourceClaim(resourceClaim("c")).ok()); }));
  // Not registered for deletes.
  EXPECT_TRUE(notRetriedAfter([&] { ASSERT_TRUE(client_.deleteResourceClaim("default", "c", {}).ok()); }));
}

// DRADeviceTaintRules: a rule's add, spec update and delete change the slices' devices, so each is a
// ResourceSlice update (upstream's slice tracker); a status-only update changes no slice.
TEST_F(DraEventsTest, DeviceTaintRuleChangesAreSliceUpdates) {
  startWanting();
  api::DeviceTaintRule rule;
  rule.metadata.name = "maintenance";
  rule.spec.deviceSelector = api::DeviceTaintSelector{std::string("gpu.example.com"), {}, {}};
  rule.spec.taint = api::DeviceTaint{"example.com/maintenance", "", "NoSchedule", {}};
  EXPECT_TRUE(retriedAfter([&] {
    auto created = client_.create(rule);
    ASSERT_TRUE(created.ok());
    rule = *created;
  }));
  api::Condition condition;
  condition.type = "EvictionInProgress";
  condition.status = "False";
  rule.status.conditions.push_back(condition);
  EXPECT_TRUE(notRetriedAfter([&] {
    auto updated = client_.update(rule);
    ASSERT_TRUE(updated.ok());
    rule = *updated;
  }));
  rule.spec.taint.effect = "NoExecute";
  EXPECT_TRUE(retriedAfter([&] { ASSERT_TRUE(client_.update(rule).ok()); }));
  EXPECT_TRUE(retriedAfter([&] { ASSERT_TRUE(client_.remove<api::DeviceTaintRule>("", "maintenance").ok()); }));
}

TEST_F(DraEventsTest, NoHandlersWithTheFeatureGateOff) {
  dynamicResourceAllocation_ = false;
  startWanting();
  EXPECT_TRUE(notRetriedAfter([&] { ASSERT_TRUE(client_.create(deviceClass("gpu.example.com")).ok()); }));
  EXPECT_TRUE(notRetriedAfter([&] { ASSERT_TRUE(client_.create(resourceSlice("n1-gpu")).ok()); }));
}

// DynamicResources end to end: a pod whose claim comes from a template (named in status.resourceClaimStatuses)
// waits until the claim exists, then gets the device of the node whose ResourceSlice matches the class; the
// claim's status shows the allocation and the reservation. A second such pod finds the only device taken.
TEST_F(SchedulerTest, PodWithClaimGetsDeviceOnNodeWhoseSliceMatches) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  ASSERT_TRUE(client_.create(MakeNode().name("n2").obj()).ok());
  api::DeviceClass gpu = deviceClass("gpu.example.com");
  gpu.spec.selectors.push_back(api::DeviceSelector{api::CELDeviceSelector{"device.driver == \"gpu.example.com\""}});
  ASSERT_TRUE(client_.create(gpu).ok());
  api::ResourceSlice other = resourceSlice("n1-nic");
  other.spec.driver = "nic.example.com";
  other.spec.devices.push_back(api::Device{.name = "nic-0"});
  ASSERT_TRUE(client_.create(other).ok());
  api::ResourceSlice gpus = resourceSlice("n2-gpu");
  gpus.spec.nodeName = "n2";
  gpus.spec.pool.name = "n2";
  gpus.spec.devices.push_back(api::Device{.name = "gpu-0"});
  ASSERT_TRUE(client_.create(gpus).ok());
  start(configYaml("default-scheduler", /*preemption=*/true));

  // The pod and, as the resource claim controller would, its generated claim.
  auto createPodWithClaim = [&](const std::string& name) -> std::string {
    api::Pod pod = MakePod().name(name).namespace_("default").obj();
    pod.spec.resourceClaims.push_back(api::PodResourceClaim{"gpu", std::nullopt, "gpu-template"});
    pod.status.resourceClaimStatuses.push_back(api::PodResourceClaimStatus{"gpu", name + "-gpu"});
    auto created = client_.create(pod);
    EXPECT_TRUE(created.ok());
    return created.ok() ? created->metadata.uid : "";
  };
  auto createClaim = [&](const std::string& podName, const std::string& podUid) {
    api::ResourceClaim claim = resourceClaim(podName + "-gpu");
    claim.metadata.ownerReferences.push_back(api::OwnerReference{"v1", "Pod", podName, podUid, true, true});
    api::DeviceRequest request;
    request.name = "gpu";
    request.exactly = api::ExactDeviceRequest{.deviceClassName = "gpu.example.com",
                                              .allocationMode = std::string(api::kDeviceAllocationModeExactCount),
                                              .count = 1};
    claim.spec.devices.requests.push_back(request);
    ASSERT_TRUE(client_.createResourceClaim(claim).ok());
  };

  const std::string uid = createPodWithClaim("p");
  // PreEnqueue keeps the pod back until its claim exists; the claim's Add event brings it in.
  settle();
  EXPECT_EQ(nodeOf("p"), "");
  EXPECT_EQ(sched_->schedulingQueue().pendingCounts().gated, 1u);
  createClaim("p", uid);
  ASSERT_TRUE(waitForPod("p", bound));
  EXPECT_EQ(nodeOf("p"), "n2");

  auto claim = client_.getResourceClaim("default", "p-gpu");
  ASSERT_TRUE(claim.ok());
  ASSERT_TRUE(claim->status.allocation.has_value());
  ASSERT_EQ(claim->status.allocation->devices.results.size(), 1u);
  const auto& result = claim->status.allocation->devices.results[0];
  EXPECT_EQ(result.request, "gpu");
  EXPECT_EQ(result.driver, "gpu.example.com");
  EXPECT_EQ(result.pool, "n2");
  EXPECT_EQ(result.device, "gpu-0");
  ASSERT_TRUE(claim->status.allocation->nodeSelector.has_value());
  ASSERT_EQ(claim->status.allocation->nodeSelector->nodeSelectorTerms.size(), 1u);
  const auto& fields = claim->status.allocation->nodeSelector->nodeSelectorTerms[0].matchFields;
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].key, "metadata.name");
  EXPECT_EQ(fields[0].values, std::vector<std::string>{"n2"});
  ASSERT_EQ(claim->status.reservedFor.size(), 1u);
  EXPECT_EQ(claim->status.reservedFor[0].resource, "pods");
  EXPECT_EQ(claim->status.reservedFor[0].name, "p");
  EXPECT_EQ(claim->status.reservedFor[0].uid, uid);
  EXPECT_EQ(claim->metadata.finalizers, std::vector<std::string>{std::string(api::kResourceClaimFinalizer)});

  // The only device is taken: the next pod is unschedulable everywhere, with upstream's message.
  const std::string uid2 = createPodWithClaim("q");
  createClaim("q", uid2);
  const std::string want =
      "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are "
      "available: 2 Preemption is not helpful for scheduling.";
  ASSERT_TRUE(waitForPod("q", [&](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c && c->reason == "Unschedulable" && c->message == want;
  })) << "condition: "
      << (scheduledCondition(*client_.get<api::Pod>("default", "q")) ? scheduledCondition(*client_.get<api::Pod>("default", "q"))->message : "none");
  auto claim2 = client_.getResourceClaim("default", "q-gpu");
  ASSERT_TRUE(claim2.ok());
  EXPECT_FALSE(claim2->status.allocation.has_value());
}

// A Permit plugin that makes the pods named in `waitFor` wait (at most `timeout`) and allows the others.
class GatePlugin final : public framework::PermitPlugin {
 public:
  GatePlugin(std::set<std::string> waitFor, std::atomic<int>& calls)
      : waitFor_(std::move(waitFor)), calls_(calls) {}
  std::string_view name() const override { return "Gate"; }
  framework::Status permit(framework::CycleState&, const framework::PodInfo& pod, const std::string&,
                           std::chrono::milliseconds& timeout) override {
    calls_.fetch_add(1);
    if (!waitFor_.contains(pod.pod().metadata.name)) return framework::Status();
    timeout = 30s;
    return framework::Status(framework::Code::Wait, "waiting for the gate").withPlugin("Gate");
  }

 private:
  std::set<std::string> waitFor_;
  std::atomic<int>& calls_;
};

// Issue 15: pods assumed and waiting at Permit while the API object they depend on goes away.
class PermitFaultTest : public SchedulerTest {
 protected:
  void startWithGate(std::set<std::string> waitFor) {
    ASSERT_TRUE(registry_
                    .registerPlugin("Gate",
                                    [this, waitFor](const config::PluginArgs*, framework::Handle&)
                                        -> Result<std::unique_ptr<framework::Plugin>> {
                                      return std::unique_ptr<framework::Plugin>(
                                          std::make_unique<GatePlugin>(waitFor, permitCalls_));
                                    })
                    .ok());
    start(configYaml() + "    permit:\n      enabled:\n      - name: Gate\n");
  }
  framework::runtime::Framework& framework() { return *sched_->profiles().at("default-scheduler"); }
  cache::CacheImpl& cache() { return dynamic_cast<cache::CacheImpl&>(sched_->schedulerCache()); }
  std::string uidOf(const std::string& name) {
    auto p = client_.get<api::Pod>("default", name);
    return p.ok() ? p->metadata.uid : "";
  }
  bool waitingAtPermit(const std::string& name) {
    const std::string uid = uidOf(name);
    return !uid.empty() && framework().getWaitingPod(uid) != nullptr;
  }

  std::atomic<int> permitCalls_{0};
};

// Upstream's deletePodFromSchedulingQueue rejects a deleted pod waiting at Permit: its binding cycle ends,
// the assumed pod is forgotten (what it held on the node goes back: a pod that only fits then binds),
// nothing is bound and the deleted pod is not retried.
TEST_F(PermitFaultTest, PodDeletedWhileWaitingAtPermitIsRejectedForgottenAndNeverBound) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").capacity({{"cpu", "1"}}).obj()).ok());
  startWithGate({"waiting"});
  ASSERT_TRUE(client_.create(MakePod().name("waiting").namespace_("default").req({{"cpu", "600m"}}).obj()).ok());
  ASSERT_TRUE(waitUntil([&] { return waitingAtPermit("waiting"); }));
  EXPECT_EQ(cache().assumedPodCount(), 1u);
  // Only fits once the waiting pod's 600m are released.
  ASSERT_TRUE(client_.create(MakePod().name("second").namespace_("default").req({{"cpu", "600m"}}).obj()).ok());
  ASSERT_TRUE(waitForPod("second", [](const api::Pod& p) { return scheduledCondition(p) != nullptr; }));
  EXPECT_FALSE(bound(*client_.get<api::Pod>("default", "second")));

  const auto deleted = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_.remove<api::Pod>("default", "waiting").ok());
  ASSERT_TRUE(waitForPod("second", bound)) << "the deleted pod's resources were not released";
  std::printf("recovery: second pod bound %.3f s after the waiting pod's delete\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - deleted).count());
  ASSERT_TRUE(waitUntil([&] { return sched_->bindingsInFlight() == 0; }));
  const int callsAfter = permitCalls_.load();
  settle();  // no error loop: the deleted pod is not attempted again
  EXPECT_EQ(permitCalls_.load(), callsAfter);
  EXPECT_EQ(client_.callCount(client::Operation::Bind), 1);  // the second pod's only
  EXPECT_EQ(cache().assumedPodCount(), 0u);
  EXPECT_EQ(cache().podCount(), 1);
  EXPECT_EQ(cache().nodeCount(), 1);
  const queue::PendingCounts pending = sched_->schedulingQueue().pendingCounts();
  EXPECT_EQ(pending.active + pending.backoff + pending.unschedulable + pending.gated, 0u);
  EXPECT_FALSE(framework().getWaitingPod(uidOf("waiting")));
}

// A node deleted while a pod assumed on it waits at Permit: as upstream, the cache keeps the node's
// NodeInfo (without node) while the assumed pod is on it, yet no new pod is placed there; once allowed,
// the pod's Binding succeeds (the apiserver does not check that the node exists) and the pod counts once;
// when the pod goes (pod GC deletes pods of nodes that are gone), the NodeInfo goes too.
TEST_F(PermitFaultTest, NodeDeletedWhileAPodWaitsAtPermitThenAllowedBindsAndTheCacheEndsConsistent) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  startWithGate({"waiting"});
  ASSERT_TRUE(client_.create(MakePod().name("waiting").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitUntil([&] { return waitingAtPermit("waiting"); }));
  ASSERT_TRUE(client_.remove<api::Node>("", "n1").ok());
  // The node and pod informers are separate streams: let the delete reach the cache before the new pod.
  ASSERT_TRUE(waitUntil([&] {
    const auto info = cache().nodeInfoForTest("n1");
    return info != nullptr && info->node() == nullptr;
  }));
  // The node is gone for scheduling: a new pod finds no nodes.
  ASSERT_TRUE(client_.create(MakePod().name("later").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("later", [](const api::Pod& p) {
    const auto* c = scheduledCondition(p);
    return c != nullptr && c->message == "no nodes available to schedule pods";
  }));
  EXPECT_EQ(cache().nodeCount(), 1);  // the NodeInfo holding the assumed pod
  EXPECT_EQ(cache().assumedPodCount(), 1u);

  auto waiting = framework().getWaitingPod(uidOf("waiting"));
  ASSERT_TRUE(waiting);
  waiting->allow("Gate");
  ASSERT_TRUE(waitForPod("waiting", bound));
  EXPECT_EQ(nodeOf("waiting"), "n1");
  ASSERT_TRUE(waitUntil([&] { return cache().assumedPodCount() == 0; })) << "the informer confirms the pod";
  EXPECT_EQ(cache().podCount(), 1);
  EXPECT_EQ(cache().nodeCount(), 1);
  EXPECT_EQ(nodeOf("later"), "");

  ASSERT_TRUE(client_.remove<api::Pod>("default", "waiting").ok());
  ASSERT_TRUE(waitUntil([&] { return cache().nodeCount() == 0 && cache().podCount() == 0; }))
      << "no phantom node once its last pod is gone";
  EXPECT_EQ(client_.callCount(client::Operation::Bind), 1);
}

// SchedulerPopFromBackoffQ and --pod-max-in-unschedulable-pods-duration reach the queue (whose behaviour
// under each is covered by scheduling_queue_test).
TEST(SchedulerCreateTest, QueueTakesTheGateAndTheUnschedulableDuration) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  auto cfg = config::decodeConfig(configYaml());
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  SchedulerOptions defaults;
  defaults.informerFactory = &factory;
  auto a = Scheduler::create(client, *cfg, plugins::newInTreeRegistry(), defaults);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_TRUE((*a)->schedulingQueue().optionsForTest().popFromBackoffQ);
  EXPECT_EQ((*a)->schedulingQueue().optionsForTest().podMaxInUnschedulablePodsDuration, 5min);
  (*a)->close();

  SchedulerOptions set = defaults;
  set.popFromBackoffQ = false;
  set.podMaxInUnschedulablePodsDuration = 90s;
  auto b = Scheduler::create(client, *cfg, plugins::newInTreeRegistry(), set);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_FALSE((*b)->schedulingQueue().optionsForTest().popFromBackoffQ);
  EXPECT_EQ((*b)->schedulingQueue().optionsForTest().podMaxInUnschedulablePodsDuration, 90s);
  (*b)->close();
}

TEST(SchedulerCreateTest, UnimplementedDefaultPluginsGiveClearError) {
  client::MemoryClient client;
  auto cfg =
      config::decodeConfig("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  informer::SharedInformerFactory factory(client);
  SchedulerOptions options;
  options.informerFactory = &factory;
  auto s = Scheduler::create(client, *cfg, plugins::newInTreeRegistry(), options);
  if (plugins::notYetImplementedPlugins().empty()) {
    EXPECT_TRUE(s.ok());
    return;
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("does not implement yet"), std::string::npos) << s.error().message();
}

TEST(NodeChangeTest, DetectsSchedulingRelevantChanges) {
  auto base = MakeNode().name("n").label("a", "b").capacity({{"cpu", "4"}}).obj();
  auto relabeled = base;
  relabeled.metadata.labels["a"] = "c";
  auto events = nodeSchedulingPropertiesChange(relabeled, base);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].actionType, framework::action::UpdateNodeLabel);
  auto schedulable = base;
  base.spec.unschedulable = true;
  events = nodeSchedulingPropertiesChange(schedulable, base);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].actionType, framework::action::UpdateNodeTaint);
  EXPECT_TRUE(nodeSchedulingPropertiesChange(base, base).empty());
}

// Upstream extractNodeFeaturesChange: a change of status.declaredFeatures is UpdateNodeDeclaredFeature,
// alone or with the other changes of the same update.
TEST(NodeChangeTest, DetectsDeclaredFeaturesChange) {
  const auto base = MakeNode().name("n").declaredFeatures({"FeatureA"}).obj();
  auto added = base;
  added.status.declaredFeatures = {"FeatureA", "FeatureB"};
  auto events = nodeSchedulingPropertiesChange(added, base);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].resource, framework::EventResource::Node);
  EXPECT_EQ(events[0].actionType, framework::action::UpdateNodeDeclaredFeature);
  EXPECT_EQ(events[0].label(), "NodeUpdateNodeDeclaredFeature");

  auto cleared = base;
  cleared.status.declaredFeatures.clear();
  cleared.metadata.labels["a"] = "b";
  events = nodeSchedulingPropertiesChange(cleared, base);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].actionType, framework::action::UpdateNodeLabel);
  EXPECT_EQ(events[1].actionType, framework::action::UpdateNodeDeclaredFeature);

  EXPECT_TRUE(nodeSchedulingPropertiesChange(base, base).empty());
}

}  // namespace
}  // namespace ks::scheduler

namespace ks::scheduler {
namespace {

// Upstream schedule_one_test.go TestNumFeasibleNodesToFind.
TEST(NumFeasibleNodesToFindTest, UpstreamCases) {
  struct Case {
    std::string name;
    std::optional<int32_t> profilePercentage;
    int32_t globalPercentage;
    int numAllNodes;
    int want;
  };
  const std::vector<Case> cases = {
      {"not set percentageOfNodesToScore and nodes number not more than 50", std::nullopt, 0, 10, 10},
      {"set profile percentageOfNodesToScore and nodes number not more than 50", 40, 0, 10, 10},
      {"not set percentageOfNodesToScore and nodes number more than 50", std::nullopt, 0, 1000, 420},
      {"set profile percentageOfNodesToScore and nodes number more than 50", 40, 0, 1000, 400},
      {"set global and profile percentageOfNodesToScore and nodes number more than 50", 40, 100, 1000, 400},
      {"set global percentageOfNodesToScore and nodes number more than 50", std::nullopt, 100, 1000, 1000},
      {"not set profile percentageOfNodesToScore and nodes number more than 50*125", std::nullopt, 0, 6000,
       300},
      {"set profile percentageOfNodesToScore and nodes number more than 50*125", 40, 0, 6000, 2400},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(numFeasibleNodesToFind(c.profilePercentage, c.globalPercentage, c.numAllNodes), c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace ks::scheduler
