// Cases after upstream backend/queue/scheduling_queue_test.go (v1.34), with an injected clock.
#include "pkg/scheduler/backend/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/scheduler/metrics/scrape.h"
#include "test/support/wrappers.h"

namespace ks::queue {
namespace {

using framework::ClusterEvent;
using framework::EventObject;
using framework::EventResource;
using framework::QueuedPodInfo;
using framework::QueueingHint;
using ks::testing::MakePod;
namespace action = framework::action;
using namespace std::chrono_literals;

const ClusterEvent kNodeAdd{EventResource::Node, action::Add};
const ClusterEvent kNodeLabelUpdate{EventResource::Node, action::UpdateNodeLabel};
const ClusterEvent kPvAdd{EventResource::PersistentVolume, action::Add};

// PrioritySort: higher priority first, then earlier timestamp.
bool prioritySortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  int32_t pa = framework::podPriority(a.pod());
  int32_t pb = framework::podPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

class QueueTest : public ::testing::Test {
 protected:
  // "fooPlugin" registers NodeAdd (hint: nodeAddHint_) and the pod's own label updates; "pendingPlugin"
  // registers PV adds; "SchedulingGates" is a PreEnqueue plugin gating pods with gates, registered
  // for the pod's own gates-eliminated updates.
  std::unique_ptr<PriorityQueue> makeQueue(QueueOptions opts = {}) {
    opts.clock = &clock_;
    ProfileHooks hooks;
    hooks.pluginEvents.push_back(framework::runtime::PluginEvents{
        "fooPlugin",
        {framework::ClusterEventWithHint{kNodeAdd,
                                         [this](const api::Pod&, const EventObject&, const EventObject&) {
                                           hintCalls_++;
                                           return Result<QueueingHint>(nodeAddHint_);
                                         }},
         framework::ClusterEventWithHint{{EventResource::TargetPod, action::UpdatePodLabel}, {}}}});
    hooks.pluginEvents.push_back(
        framework::runtime::PluginEvents{"pendingPlugin", {framework::ClusterEventWithHint{kPvAdd, {}}}});
    hooks.runPreEnqueuePlugins = [](const framework::PodInfo& p) {
      if (p.pod().spec.schedulingGates.empty()) return framework::Status::success();
      return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                               std::vector<std::string>{"waiting for scheduling gates"})
          .withPlugin("SchedulingGates");
    };
    hooks.preEnqueuePluginEvents["SchedulingGates"] = {
        {EventResource::TargetPod, action::UpdatePodSchedulingGatesEliminated}};
    std::map<std::string, ProfileHooks> profiles;
    profiles.emplace("default-scheduler", std::move(hooks));
    return std::make_unique<PriorityQueue>(prioritySortLess, std::move(profiles), opts);
  }

  // Pops the pod (must be next), marks it rejected by `plugins` and puts it back.
  void failAttempt(PriorityQueue& q, const std::set<std::string>& plugins,
                   const std::set<std::string>& pending = {}) {
    int64_t cycle = q.schedulingCycle();
    auto p = q.pop();
    ASSERT_TRUE(p.has_value());
    p->unschedulablePlugins = plugins;
    p->pendingPlugins = pending;
    ASSERT_TRUE(q.addUnschedulableIfNotPresent(*p, cycle + 1).ok());
  }

  framework::testing::FakeClock clock_;
  QueueingHint nodeAddHint_ = QueueingHint::Queue;
  std::atomic<int> hintCalls_{0};
};

TEST_F(QueueTest, PopsByPriorityThenTimestamp) {
  auto q = makeQueue();
  q->add(MakePod().name("low").namespace_("ns").uid("1").priority(1).ptr());
  clock_.step(1ms);
  q->add(MakePod().name("high").namespace_("ns").uid("2").priority(100).ptr());
  clock_.step(1ms);
  q->add(MakePod().name("mid-a").namespace_("ns").uid("3").priority(10).ptr());
  clock_.step(1ms);
  q->add(MakePod().name("mid-b").namespace_("ns").uid("4").priority(10).ptr());
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) order.push_back(q->pop()->pod().metadata.name);
  EXPECT_EQ(order, (std::vector<std::string>{"high", "mid-a", "mid-b", "low"}));
  EXPECT_EQ(q->schedulingCycle(), 4);
}

TEST_F(QueueTest, PopCountsAttemptsAndKeepsInitialAttemptTimestamp) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  auto first = q->pop();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->attempts, 1);
  auto initial = first->initialAttemptTimestamp;
  ASSERT_TRUE(initial.has_value());
  first->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*first, 1).ok());
  clock_.step(2s);
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  auto second = q->pop();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->attempts, 2);
  EXPECT_EQ(second->initialAttemptTimestamp, initial);
  EXPECT_TRUE(second->unschedulablePlugins.empty()) << "rejector plugins are reset on pop";
}

TEST_F(QueueTest, PopBlocksUntilAddAndCloseWakes) {
  auto q = makeQueue();
  std::thread t([&] { q->add(MakePod().name("p").namespace_("ns").uid("1").ptr()); });
  auto p = q->pop();
  t.join();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pod().metadata.name, "p");
  std::thread closer([&] { q->close(); });
  EXPECT_FALSE(q->pop().has_value());
  closer.join();
}

TEST_F(QueueTest, AddUnschedulableIfNotPresentRejectsQueuedPods) {
  auto q = makeQueue();
  auto pod = MakePod().name("p").namespace_("ns").uid("1").ptr();
  q->add(pod);
  QueuedPodInfo copy;
  copy.podInfo = framework::PodInfo::create(pod);
  copy.unschedulablePlugins = {"fooPlugin"};
  auto r = q->addUnschedulableIfNotPresent(copy, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "Pod ns/p is already present in the active queue");
}

TEST_F(QueueTest, RejectedPodWaitsForRegisteredEventOnly) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);

  // fooPlugin did not register PV events.
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);
  // It registered NodeAdd, but its hint says skip.
  nodeAddHint_ = QueueingHint::QueueSkip;
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);
  EXPECT_EQ(hintCalls_.load(), 1);
  // Now the hint says Queue: still backing off (1 s after the failure), so backoffQ.
  nodeAddHint_ = QueueingHint::Queue;
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
}

// --pod-max-in-unschedulable-pods-duration (upstream TestHighPriorityFlushUnschedulablePodsLeftover with
// a custom duration): a pod stays in unschedulablePods until it has been there longer than the duration.
TEST_F(QueueTest, PodMaxInUnschedulablePodsDurationBoundsTheStay) {
  auto q = makeQueue(QueueOptions{.podMaxInUnschedulablePodsDuration = std::chrono::seconds(90)});
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  clock_.step(std::chrono::seconds(60));
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);  // the default 5m would keep it too
  clock_.step(std::chrono::seconds(31));
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);  // 91 s > 90 s, backoff long over

  auto d = makeQueue();  // default: 5 minutes
  d->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*d, {"fooPlugin"});
  clock_.step(std::chrono::seconds(91));
  d->flushUnschedulablePodsLeftover();
  EXPECT_EQ(d->whereIs("ns/p"), QueueName::UnschedulablePods);
}

TEST_F(QueueTest, EventAfterBackoffExpiredGoesStraightToActiveQ) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  // Backoff 1 s from a whole second: it ends with the window [t+1 s, t+2 s).
  clock_.step(2s);
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

// F5: the expiry is truncated to its 1-second window, and a pod counts as backing off for the whole
// window (upstream isPodBackingoff: !expiry.Before(truncate(now))). Scenario from the review: failure at
// 10.3 s with 1 s backoff, a node event at 11.5 s -> backoffQ (not activeQ), released by the flush at 12.0.
TEST_F(QueueTest, BackoffEndsOnWholeSecondWindows) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  clock_.step(300ms);  // t = 0.3
  failAttempt(*q, {"fooPlugin"});
  clock_.step(1200ms);  // t = 1.5
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ) << "expiry 1.0 is in the current window";
  q->flushBackoffQCompleted();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
  clock_.step(500ms);  // t = 2.0
  q->flushBackoffQCompleted();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

// F6: within one window, backoffQ orders as activeQ does (priority first), so popping from backoffQ
// when activeQ is empty takes the higher-priority pod although its backoff started later.
TEST_F(QueueTest, PopFromBackoffQTakesHigherPriorityWithinAWindow) {
  auto q = makeQueue();
  q->add(MakePod().name("a").namespace_("ns").uid("a").priority(0).ptr());
  clock_.step(200ms);  // t = 0.2: A fails
  failAttempt(*q, {"fooPlugin"});
  q->add(MakePod().name("b").namespace_("ns").uid("b").priority(1000).ptr());
  clock_.step(400ms);  // t = 0.6: B fails
  failAttempt(*q, {"fooPlugin"});
  clock_.step(200ms);  // t = 0.8: an event that may help both; both still back off
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  ASSERT_EQ(q->whereIs("ns/a"), QueueName::BackoffQ);
  ASSERT_EQ(q->whereIs("ns/b"), QueueName::BackoffQ);
  auto first = q->pop();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->pod().metadata.name, "b") << "both expire in window 1.0: priority decides";
}

// F1: a pod whose attempt ended in an error (no rejecting plugin, e.g. no nodes or a failed bind) waits
// out its whole backoff in podErrorBackoffQ, 1 s, 2 s, 4 s ... 10 s: it is never popped early, even with
// activeQ empty (before the fix, pop() took it back at once: a hot retry loop). A pop() waits meanwhile; the
// flush that ends the backoff hands the pod to it (counted as BackoffComplete), so an early pop shows as a
// missing count.
TEST_F(QueueTest, ErrorPodIsNeverPoppedBeforeItsBackoff) {
  metrics::Metrics m;
  QueueOptions opts;
  opts.metrics = &m;
  auto q = makeQueue(opts);
  auto backoffCompleted = [&] {
    return metrics::testing::sum(m.scrape(), "scheduler_queue_incoming_pods_total",
                                 {{"queue", "active"}, {"event", "BackoffComplete"}});
  };
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  std::optional<QueuedPodInfo> inFlight = q->pop();
  ASSERT_TRUE(inFlight);
  const std::vector<std::chrono::seconds> want{1s, 2s, 4s, 8s, 10s, 10s};
  int round = 0;
  for (auto expected : want) {
    ++round;
    ASSERT_TRUE(q->addUnschedulableIfNotPresent(*inFlight, q->schedulingCycle()).ok());  // an error
    ASSERT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
    std::thread popper([&] { inFlight = q->pop(); });
    // The expiry's own window still counts as backing off.
    clock_.step(expected);
    q->flushBackoffQCompleted();
    EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ)
        << "released before " << expected.count() << " s + its window";
    clock_.step(1s);
    q->flushBackoffQCompleted();
    popper.join();
    ASSERT_TRUE(inFlight.has_value());
    EXPECT_EQ(inFlight->consecutiveErrorsCount, round);
    EXPECT_EQ(backoffCompleted(), round) << "popped before its backoff ended, after error " << round;
  }
}

// run() flushes on the queue's clock: completed backoffs at the end of each 1 s window, and every 30 s the
// pods left in unschedulablePods longer than podMaxInUnschedulablePodsDuration; close() stops both.
TEST_F(QueueTest, RunFlushesOnTheClockUntilClose) {
  QueueOptions opts;
  opts.podMaxInUnschedulablePodsDuration = 45s;
  auto q = makeQueue(opts);
  q->run();
  q->add(MakePod().name("err").namespace_("ns").uid("1").ptr());
  q->add(MakePod().name("rejected").namespace_("ns").uid("2").ptr());
  auto err = q->pop();
  ASSERT_TRUE(err);
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*err, q->schedulingCycle()).ok());  // an error: 1 s backoff
  failAttempt(*q, {"fooPlugin"});
  ASSERT_EQ(q->whereIs("ns/err"), QueueName::BackoffQ);
  ASSERT_EQ(q->whereIs("ns/rejected"), QueueName::UnschedulablePods);
  clock_.step(1s);
  EXPECT_EQ(q->whereIs("ns/err"), QueueName::BackoffQ) << "its own window still counts";
  clock_.step(1s);
  EXPECT_EQ(q->whereIs("ns/err"), QueueName::ActiveQ);
  clock_.step(57s);  // the leftover flush at 30 s found it waiting for less than 45 s
  EXPECT_EQ(q->whereIs("ns/rejected"), QueueName::UnschedulablePods);
  clock_.step(1s);
  EXPECT_EQ(q->whereIs("ns/rejected"), QueueName::ActiveQ) << "flushed at 60 s";
  q->close();
  EXPECT_EQ(clock_.pendingTimers(), 0u);
}

TEST_F(QueueTest, PendingPluginQueueMeansImmediately) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {}, {"pendingPlugin"});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ) << "Pending plugins skip the backoff";
}

TEST_F(QueueTest, ErrorGoesToBackoffWithoutEvent) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {});  // no rejecting plugin: an error
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
  auto info = q->getForTest("ns/p");
  EXPECT_EQ(info->consecutiveErrorsCount, 1);
  EXPECT_EQ(info->unschedulableCount, 0);
}

TEST_F(QueueTest, EventDuringAttemptRequeuesInsteadOfParking) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  int64_t cycle = q->schedulingCycle();
  auto p = q->pop();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::InFlight);
  // A node is added while the pod is being scheduled.
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  p->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*p, cycle + 1).ok());
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ) << "the NodeAdd seen in flight may help";

  // An irrelevant event in flight does not.
  q->add(MakePod().name("r").namespace_("ns").uid("2").ptr());
  cycle = q->schedulingCycle();
  auto r = q->pop();
  ASSERT_EQ(r->pod().metadata.name, "r");
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});
  r->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*r, cycle + 1).ok());
  EXPECT_EQ(q->whereIs("ns/r"), QueueName::UnschedulablePods);
}

TEST_F(QueueTest, WithoutHintsMoveRequestCycleDecides) {
  auto q = makeQueue(QueueOptions{.queueingHints = false});
  nodeAddHint_ = QueueingHint::QueueSkip;  // ignored without hints
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  int64_t cycle = q->schedulingCycle();
  auto p = q->pop();
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});  // any move request counts
  p->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*p, cycle + 1).ok());
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
  EXPECT_EQ(hintCalls_.load(), 0);
}

TEST_F(QueueTest, BackoffDoublesUpToMax) {
  auto q = makeQueue(QueueOptions{.popFromBackoffQ = false});
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  const std::vector<std::chrono::seconds> want{1s, 2s, 4s, 8s, 10s, 10s, 10s};
  for (auto expected : want) {
    failAttempt(*q, {"fooPlugin"});
    q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
    ASSERT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
    // Without pop-from-backoffQ there are no windows: the pod backs off while its expiry is not before
    // now, i.e. until just after initial * 2^(n-1).
    clock_.step(expected);
    q->flushBackoffQCompleted();
    EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ)
        << "still backing off at exactly " << expected.count() << "s";
    clock_.step(1ms);
    q->flushBackoffQCompleted();
    ASSERT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ) << "backoff of " << expected.count() << "s over";
  }
}

TEST_F(QueueTest, PopFromBackoffQWhenActiveQEmpty) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  ASSERT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
  auto p = q->pop();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pod().metadata.name, "p");
}

TEST_F(QueueTest, UnschedulableLeftoverFlushedAfterFiveMinutes) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  clock_.step(4min);
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);
  clock_.step(61s);
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

// Upstream TestGatedPodFlushFrequency (queued pod): a gated pod never gets a new timestamp from an attempt,
// so the leftover flush counts from its last flush and moves it at most once per
// podMaxInUnschedulablePodsDuration (v1.37; v1.34 moved it on every flush).
TEST_F(QueueTest, GatedPodIsFlushedOncePerMaxDuration) {
  auto q = makeQueue();
  q->add(MakePod().name("g").namespace_("ns").uid("1").schedulingGates({"example.com/gate"}).ptr());
  clock_.step(5min + 1s);
  q->flushUnschedulablePodsLeftover();
  ASSERT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  const auto first = q->getForTest("ns/g")->flushTimestamp;
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(q->getForTest("ns/g")->wasFlushedFromUnschedulable);  // still gated: no attempt follows
  clock_.step(4min);
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q->getForTest("ns/g")->flushTimestamp, first);
  clock_.step(1min + 1s);
  q->flushUnschedulablePodsLeftover();
  EXPECT_GT(*q->getForTest("ns/g")->flushTimestamp, *first);
}

// Upstream TestFlushUnschedulablePodsLeftoverSetsFlag_GatedPod, the ungated cases: the flushed pod carries
// the flag (its binding is counted in scheduler_pod_scheduled_after_flush_total) until its next attempt ends.
TEST_F(QueueTest, LeftoverFlushMarksThePodUntilItsNextAttempt) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  clock_.step(5min + 1s);
  q->flushUnschedulablePodsLeftover();
  ASSERT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
  auto popped = q->pop();
  ASSERT_TRUE(popped);
  EXPECT_TRUE(popped->wasFlushedFromUnschedulable);
  popped->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*popped, q->schedulingCycle()).ok());
  const auto back = q->getForTest("ns/p");
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->wasFlushedFromUnschedulable);
  EXPECT_FALSE(back->flushTimestamp.has_value());
}

TEST_F(QueueTest, GatedPodIsNeverPoppedUntilGatesRemoved) {
  auto q = makeQueue();
  auto gated = MakePod().name("g").namespace_("ns").uid("1").schedulingGates({"example.com/gate"}).ptr();
  q->add(gated);
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  EXPECT_EQ(q->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
  // Cluster events the gate did not register for leave it alone.
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  // An update that keeps the gate keeps it gated.
  auto relabeled = MakePod()
                       .name("g")
                       .namespace_("ns")
                       .uid("1")
                       .label("a", "b")
                       .schedulingGates({"example.com/gate"})
                       .ptr();
  q->update(gated, relabeled);
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  // Removing the gates lets it through.
  auto ungated = MakePod().name("g").namespace_("ns").uid("1").label("a", "b").ptr();
  q->update(relabeled, ungated);
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::ActiveQ);
  EXPECT_EQ(q->pop()->pod().metadata.name, "g");
}

TEST_F(QueueTest, UpdateInActiveQReplacesPod) {
  auto q = makeQueue();
  auto v1 = MakePod().name("p").namespace_("ns").uid("1").priority(1).ptr();
  q->add(v1);
  auto v2 = MakePod().name("p").namespace_("ns").uid("1").priority(1).label("x", "y").ptr();
  q->update(v1, v2);
  EXPECT_EQ(q->pendingCounts().active, 1u);
  EXPECT_EQ(q->pop()->pod().metadata.labels.at("x"), "y");
}

TEST_F(QueueTest, UpdateOfUnschedulablePodUsesHints) {
  auto q = makeQueue();
  auto v1 = MakePod().name("p").namespace_("ns").uid("1").ptr();
  q->add(v1);
  failAttempt(*q, {"fooPlugin"});
  clock_.step(2s);
  // A status-only change is not a scheduling-relevant update.
  auto statusOnly = MakePod().name("p").namespace_("ns").uid("1").condition("PodScheduled", "False").ptr();
  q->update(v1, statusOnly);
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods);
  // A label change is registered by fooPlugin (UpdatePodLabel).
  auto relabeled = MakePod().name("p").namespace_("ns").uid("1").label("a", "b").ptr();
  q->update(statusOnly, relabeled);
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

TEST_F(QueueTest, UpdateOfUnknownPodAddsIt) {
  auto q = makeQueue();
  auto v1 = MakePod().name("p").namespace_("ns").uid("1").ptr();
  q->update(nullptr, v1);
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

// Upstream TestPriorityQueue_Update (v1.37.2): the pod's own update is a TargetPod event, evaluated with
// the hints of the plugins that rejected it ("queuePlugin" answers Queue, "skipPlugin" QueueSkip); pods
// labelled deny=true are gated. Left out: the gated pod not in any queue that gets a nominatedNodeName
// (v1.37 nominates gated pods on add, which the queue doesn't yet).
TEST_F(QueueTest, UpdateUsesTargetPodHints) {
  auto makeUpdateQueue = [this] {
    ProfileHooks hooks;
    const ClusterEvent targetPodUpdate{EventResource::TargetPod, action::Update};
    auto fixed = [](QueueingHint h) {
      return [h](const api::Pod&, const EventObject&, const EventObject&) { return Result<QueueingHint>(h); };
    };
    hooks.pluginEvents.push_back(framework::runtime::PluginEvents{
        "queuePlugin", {framework::ClusterEventWithHint{targetPodUpdate, fixed(QueueingHint::Queue)}}});
    hooks.pluginEvents.push_back(framework::runtime::PluginEvents{
        "skipPlugin", {framework::ClusterEventWithHint{targetPodUpdate, fixed(QueueingHint::QueueSkip)}}});
    hooks.runPreEnqueuePlugins = [](const framework::PodInfo& p) {
      const auto& labels = p.pod().metadata.labels;
      if (auto it = labels.find("deny"); it == labels.end() || it->second != "true") {
        return framework::Status::success();
      }
      return framework::Status(framework::Code::UnschedulableAndUnresolvable)
          .withPlugin("denyingPreEnqueuePlugin");
    };
    std::map<std::string, ProfileHooks> profiles;
    profiles.emplace("default-scheduler", std::move(hooks));
    return std::make_unique<PriorityQueue>(prioritySortLess, std::move(profiles),
                                           QueueOptions{.clock = &clock_});
  };
  auto med = [] {
    return MakePod().name("mpp").namespace_("ns2").uid("mppns2").priority(100).annotation("annot2", "val2");
  };
  auto withGate = [](ks::testing::PodWrapper p) { return p.label("deny", "true"); };
  // The pod added, popped and put back rejected by `plugins` (none: an error).
  auto rejected = [&](PriorityQueue& q, const std::set<std::string>& plugins) {
    q.add(med().ptr());
    failAttempt(q, plugins);
  };
  struct Case {
    std::string name;
    QueueName wantQ;
    bool wantNominated = false;
    // Prepares the queue; returns the old and new pod to update with.
    std::function<std::pair<api::PodPtr, api::PodPtr>(PriorityQueue&)> prepare;
  };
  const std::vector<Case> cases = {
      {"Update pod that didn't exist in the queue", QueueName::ActiveQ, false,
       [&](PriorityQueue&) {
         return std::pair{med().ptr(), med().annotation("foo", "test").ptr()};
       }},
      {"Update gated pod that didn't exist in the queue", QueueName::UnschedulablePods, false,
       [&](PriorityQueue&) {
         return std::pair{withGate(med()).ptr(), withGate(med()).annotation("foo", "test").ptr()};
       }},
      {"Update non-existent highPriorityPodInfo and add a nominatedNodeName to it", QueueName::ActiveQ, true,
       [&](PriorityQueue&) {
         return std::pair{med().ptr(), med().nominatedNodeName("node1").ptr()};
       }},
      {"When updating a pod that is already in activeQ, the pod should remain in activeQ after Update()",
       QueueName::ActiveQ, false,
       [&](PriorityQueue& q) {
         q.add(med().ptr());
         return std::pair{med().ptr(), med().ptr()};
       }},
      {"When updating a pod that is in backoff queue and is still backing off, it will be updated in backoff "
       "queue",
       QueueName::BackoffQ, false,
       [&](PriorityQueue& q) {
         rejected(q, {});  // an error: backoffQ
         return std::pair{med().ptr(), med().ptr()};
       }},
      {"when updating a pod in unschedulableEntities, if its backoff timer has not yet expired, it moves to "
       "backoffQ",
       QueueName::BackoffQ, false,
       [&](PriorityQueue& q) {
         rejected(q, {"queuePlugin"});
         return std::pair{med().ptr(), med().annotation("foo", "test").ptr()};
       }},
      {"when updating a pod in unschedulableEntities, if its backoff timer has expired, it moves to activeQ",
       QueueName::ActiveQ, false,
       [&](PriorityQueue& q) {
         rejected(q, {"queuePlugin"});
         clock_.step(q.optionsForTest().podMaxBackoff);
         return std::pair{med().ptr(), med().annotation("foo", "test1").ptr()};
       }},
      {"when updating a pod in unschedulableEntities, if the scheduling hint returns QueueSkip, it "
       "remains in unschedulableEntities",
       QueueName::UnschedulablePods, false,
       [&](PriorityQueue& q) {
         rejected(q, {"skipPlugin"});
         return std::pair{med().ptr(), med().annotation("foo", "test1").ptr()};
       }},
      {"when updating a pod which is in flightPods, the pod will not be added to any queue",
       QueueName::InFlight, false,
       [&](PriorityQueue& q) {
         q.add(med().ptr());
         EXPECT_TRUE(q.pop());
         return std::pair{med().ptr(), med().annotation("foo", "bar").ptr()};
       }},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto q = makeUpdateQueue();
    auto [oldPod, newPod] = tc.prepare(*q);
    q->update(oldPod, newPod);
    EXPECT_EQ(q->whereIs("ns2/mpp"), tc.wantQ);
    if (tc.wantQ == QueueName::InFlight) continue;
    auto got = q->getForTest("ns2/mpp");
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->pod(), *newPod);
    EXPECT_EQ(q->nominatedPodsForNode("node1").size(), tc.wantNominated ? 1u : 0u);
  }
}

TEST_F(QueueTest, RemoveDropsFromEveryQueue) {
  auto q = makeQueue();
  auto a = MakePod().name("a").namespace_("ns").uid("1").ptr();
  auto b = MakePod().name("b").namespace_("ns").uid("2").priority(5).ptr();
  q->add(a);
  q->add(b);
  failAttempt(*q, {"fooPlugin"});  // b
  q->remove(*a);
  q->remove(*b);
  EXPECT_EQ(q->pendingCounts(), (PendingCounts{}));
}

TEST_F(QueueTest, ActivateMovesToActiveQ) {
  auto q = makeQueue();
  auto p = MakePod().name("p").namespace_("ns").uid("1").ptr();
  q->add(p);
  failAttempt(*q, {"fooPlugin"});
  q->activate({p});
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
}

TEST_F(QueueTest, AssignedPodAddMovesOnlyInterestedPods) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  failAttempt(*q, {"fooPlugin"});
  q->assignedPodAdded(MakePod().name("bound").namespace_("ns").uid("9").node("n1").ptr());
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::UnschedulablePods) << "no plugin registered AssignedPod events";
}

TEST_F(QueueTest, NominatedPodsAreTracked) {
  auto q = makeQueue();
  auto p = MakePod().name("p").namespace_("ns").uid("1").nominatedNodeName("n1").ptr();
  q->add(p);
  auto onN1 = q->nominator().nominatedPodsForNode("n1");
  ASSERT_EQ(onN1.size(), 1u);
  EXPECT_EQ(onN1[0]->pod().metadata.name, "p");
  q->remove(*p);
  EXPECT_TRUE(q->nominator().nominatedPodsForNode("n1").empty());
}

// F10a: only a pod that made it into activeQ is nominated; a gated pod holds no capacity.
TEST_F(QueueTest, GatedPodIsNotNominated) {
  auto q = makeQueue();
  q->add(MakePod().name("g").namespace_("ns").uid("1").nominatedNodeName("n1").schedulingGates({"x"}).ptr());
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  EXPECT_TRUE(q->nominatedPodsForNode("n1").empty());
  q->add(MakePod().name("p").namespace_("ns").uid("2").nominatedNodeName("n1").ptr());
  EXPECT_EQ(q->nominatedPodsForNode("n1").size(), 1u);
}

// F10b: with a pod lister, a pod that is gone from the informer or already bound is not nominated (the
// failure handler nominates with the attempted copy, which may be stale).
TEST_F(QueueTest, NominatorAsksTheListerFirst) {
  auto q = makeQueue();
  std::map<std::string, api::PodPtr> informer;
  q->setPodLister([&](const std::string& ns, const std::string& name) {
    auto it = informer.find(ns + "/" + name);
    return it == informer.end() ? nullptr : it->second;
  });
  auto gone = framework::PodInfo::create(MakePod().name("gone").namespace_("ns").uid("1").ptr());
  q->addNominatedPod(gone, {"n1", framework::NominatingMode::Override});
  EXPECT_TRUE(q->nominatedPodsForNode("n1").empty()) << "deleted during its cycle";
  informer["ns/bound"] = MakePod().name("bound").namespace_("ns").uid("2").node("n2").ptr();
  auto bound = framework::PodInfo::create(MakePod().name("bound").namespace_("ns").uid("2").ptr());
  q->addNominatedPod(bound, {"n1", framework::NominatingMode::Override});
  EXPECT_TRUE(q->nominatedPodsForNode("n1").empty()) << "bound meanwhile";
  informer["ns/ok"] = MakePod().name("ok").namespace_("ns").uid("3").ptr();
  q->addNominatedPod(framework::PodInfo::create(informer["ns/ok"]),
                     {"n1", framework::NominatingMode::Override});
  EXPECT_EQ(q->nominatedPodsForNode("n1").size(), 1u);
}

// F10c: nominated pods are resolved through the queue (its current version), and a nominated pod in
// flight counts as a bare pod (name and UID only), as upstream's nominatedPodToInfo.
TEST_F(QueueTest, NominatedPodsResolveThroughTheQueue) {
  auto q = makeQueue();
  auto v1 = MakePod().name("p").namespace_("ns").uid("1").nominatedNodeName("n1").req({{"cpu", "1"}}).ptr();
  q->add(v1);
  auto onN1 = q->nominatedPodsForNode("n1");
  ASSERT_EQ(onN1.size(), 1u);
  EXPECT_EQ(onN1[0]->podPtr(), v1);
  auto popped = q->pop();
  ASSERT_TRUE(popped);
  onN1 = q->nominatedPodsForNode("n1");
  ASSERT_EQ(onN1.size(), 1u);
  EXPECT_EQ(onN1[0]->pod().metadata.uid, "1");
  EXPECT_TRUE(onN1[0]->pod().spec.containers.empty()) << "in flight: a bare pod";
}

// F14: in-flight pods are keyed by UID. A pod deleted and recreated under the same name while its old
// attempt still runs is a different pod: the old attempt's done() does not end the new one's record.
TEST_F(QueueTest, InFlightIsKeyedByUid) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("old").ptr());
  auto oldAttempt = q->pop();
  ASSERT_TRUE(oldAttempt);
  q->add(MakePod().name("p").namespace_("ns").uid("new").ptr());  // recreated
  const int64_t cycle = q->schedulingCycle();
  auto newAttempt = q->pop();
  ASSERT_TRUE(newAttempt);
  EXPECT_EQ(q->inFlightCount(), 2u);
  q->done("old");
  EXPECT_EQ(q->inFlightCount(), 1u);
  // The NodeAdd seen while the new attempt ran still counts for it.
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  newAttempt->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*newAttempt, cycle + 1).ok());
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
  EXPECT_EQ(q->inFlightCount(), 0u);
}

// F14: a rejected pod that is not (or no longer) in flight is retried after its backoff instead of being
// parked in unschedulablePods.
TEST_F(QueueTest, RejectedPodNotInFlightGoesToBackoff) {
  auto q = makeQueue();
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  auto p = q->pop();
  ASSERT_TRUE(p);
  q->done("1");
  p->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*p, q->schedulingCycle()).ok());
  EXPECT_EQ(q->whereIs("ns/p"), QueueName::BackoffQ);
}

// F18: a ForceActivate event carrying a pod is for that pod only, and even for it means "after backoff".
TEST_F(QueueTest, ForceActivateOfAnInFlightPodIsForThatPodOnly) {
  auto q = makeQueue();
  auto a = MakePod().name("a").namespace_("ns").uid("a").ptr();
  auto b = MakePod().name("b").namespace_("ns").uid("b").ptr();
  q->add(a);
  q->add(b);
  const int64_t cycle = q->schedulingCycle();
  auto pa = q->pop();
  auto pb = q->pop();
  ASSERT_TRUE(pa && pb);
  q->activate({pa->podInfo->podPtr()});  // a is in flight: recorded for when it comes back
  pa->unschedulablePlugins = {"fooPlugin"};
  pb->unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*pa, cycle + 1).ok());
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(*pb, cycle + 2).ok());
  EXPECT_EQ(q->whereIs("ns/" + pa->pod().metadata.name), QueueName::BackoffQ) << "after backoff, not at once";
  EXPECT_EQ(q->whereIs("ns/" + pb->pod().metadata.name), QueueName::UnschedulablePods) << "not its event";
}

TEST_F(QueueTest, PendingPodsSummary) {
  auto q = makeQueue();
  q->add(MakePod().name("a").namespace_("ns").uid("1").ptr());
  q->add(MakePod().name("b").namespace_("ns").uid("2").priority(3).ptr());
  failAttempt(*q, {"fooPlugin"});
  std::string summary;
  auto pods = q->pendingPods(&summary);
  EXPECT_EQ(pods.size(), 2u);
  EXPECT_EQ(summary, "activeQ:1; backoffQ:0; unschedulablePods:1");
}

// Random operations: a pod is always in exactly one place, and nothing is lost.
TEST_F(QueueTest, PodIsInAtMostOneSubQueue) {
  auto q = makeQueue();
  std::mt19937 rng(7);
  std::map<std::string, api::PodPtr> live;
  std::vector<std::pair<QueuedPodInfo, int64_t>> inFlight;
  for (int step = 0; step < 4000; ++step) {
    int op = static_cast<int>(rng() % 8);
    std::string name = "p" + std::to_string(rng() % 40);
    std::string key = "ns/" + name;
    switch (op) {
      case 0: {
        // (A pod re-created while its old incarnation is still in flight is a different pod with
        // the same key; the model below keys by name, so skip that case.)
        bool flyingNow = std::any_of(inFlight.begin(), inFlight.end(), [&](const auto& f) {
          return PriorityQueue::podKey(f.first.pod()) == key;
        });
        if (!live.count(key) && !flyingNow) {
          auto pod =
              MakePod().name(name).namespace_("ns").uid(name).priority(static_cast<int32_t>(rng() % 3)).ptr();
          live[key] = pod;
          q->add(pod);
        }
        break;
      }
      case 1: {
        if (q->pendingCounts().active == 0) break;
        int64_t cycle = q->schedulingCycle();
        auto p = q->pop();
        inFlight.emplace_back(*p, cycle + 1);
        break;
      }
      case 2:
        if (!inFlight.empty()) {
          auto [p, cycle] = inFlight.back();
          inFlight.pop_back();
          if (rng() % 2) p.unschedulablePlugins = {"fooPlugin"};
          if (live.count(PriorityQueue::podKey(p.pod()))) {
            ASSERT_TRUE(q->addUnschedulableIfNotPresent(p, cycle).ok());
          } else {
            q->done(p.pod().metadata.uid);
          }
        }
        break;
      case 3:
        if (auto it = live.find(key); it != live.end()) {
          q->remove(*it->second);
          live.erase(it);
        }
        break;
      case 4:
        q->moveAllToActiveOrBackoffQueue(rng() % 2 ? kNodeAdd : kPvAdd, {}, {});
        break;
      case 5:
        clock_.step(std::chrono::milliseconds(rng() % 3000));
        q->flushBackoffQCompleted();
        break;
      case 6:
        if (auto it = live.find(key); it != live.end()) {
          auto updated = std::make_shared<api::Pod>(*it->second);
          updated->metadata.labels["v"] = std::to_string(step);
          q->update(it->second, updated);
          it->second = updated;
        }
        break;
      default:
        clock_.step(6min);
        q->flushUnschedulablePodsLeftover();
    }
    // Every live pod is in exactly one place; deleted pods are nowhere (except still in flight).
    std::set<std::string> flying;
    for (const auto& f : inFlight) flying.insert(PriorityQueue::podKey(f.first.pod()));
    size_t queued = 0;
    for (const auto& [k, pod] : live) {
      QueueName where = q->whereIs(k);
      if (flying.count(k)) {
        ASSERT_EQ(where, QueueName::InFlight) << k << " at step " << step;
      } else {
        ASSERT_NE(where, QueueName::None) << k << " lost at step " << step;
        ASSERT_NE(where, QueueName::InFlight) << k << " at step " << step;
        ++queued;
      }
    }
    PendingCounts c = q->pendingCounts();
    ASSERT_EQ(c.active + c.backoff + c.unschedulable + c.gated, queued) << "step " << step;
  }
}

// ---- Metrics ----

TEST_F(QueueTest, MetricsIncomingPodsByQueueAndEvent) {
  metrics::Metrics m;
  QueueOptions opts;
  opts.metrics = &m;
  auto q = makeQueue(opts);
  using metrics::testing::sum;
  const char* kIncoming = "scheduler_queue_incoming_pods_total";
  auto incoming = [&](const char* queue, const char* event) {
    return sum(m.scrape(), kIncoming, {{"queue", queue}, {"event", event}});
  };

  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  EXPECT_EQ(incoming("active", "UnscheduledPodAdd"), 1);
  auto gated = MakePod().name("g").namespace_("ns").uid("2").schedulingGates({"example.com/gate"}).ptr();
  q->add(gated);
  EXPECT_EQ(incoming("unschedulable", "UnscheduledPodAdd"), 1);

  // Rejected by a plugin: unschedulablePods; a NodeAdd after the backoff moves it to activeQ.
  failAttempt(*q, {"fooPlugin"});
  EXPECT_EQ(incoming("unschedulable", "ScheduleAttemptFailure"), 1);
  clock_.step(2s);
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(incoming("active", "NodeAdd"), 1);
  EXPECT_EQ(sum(m.scrape(), "scheduler_queueing_hint_execution_duration_seconds_count",
                {{"plugin", "fooPlugin"}, {"event", "NodeAdd"}, {"hint", "Queue"}}),
            1);

  // An error: backoffQ, then BackoffComplete when flushed.
  failAttempt(*q, {});
  EXPECT_EQ(incoming("backoff", "ScheduleAttemptFailure"), 1);
  clock_.step(10s);
  q->flushBackoffQCompleted();
  EXPECT_EQ(incoming("active", "BackoffComplete"), 1);

  // The gated pod: the update removing its gate moves it with that update's label; re-adding the same
  // pod to unschedulablePods is not counted twice.
  auto relabeled = MakePod()
                       .name("g")
                       .namespace_("ns")
                       .uid("2")
                       .label("a", "b")
                       .schedulingGates({"example.com/gate"})
                       .ptr();
  q->update(gated, relabeled);
  EXPECT_EQ(q->whereIs("ns/g"), QueueName::UnschedulablePods);
  EXPECT_EQ(sum(m.scrape(), kIncoming, {{"queue", "unschedulable"}}), 2);
  auto ungated = MakePod().name("g").namespace_("ns").uid("2").label("a", "b").ptr();
  q->update(relabeled, ungated);
  EXPECT_EQ(incoming("active", "TargetPodUpdatePodSchedulingGatesEliminated"), 1);

  // Activate and the leftover flush.
  ASSERT_TRUE(q->pop());
  ASSERT_TRUE(q->pop());
  auto a = MakePod().name("a").namespace_("ns").uid("3").ptr();
  q->add(a);
  failAttempt(*q, {"fooPlugin"});
  q->activate({a});
  EXPECT_EQ(incoming("active", "ForceActivate"), 1);
  failAttempt(*q, {"fooPlugin"});
  clock_.step(6min);
  q->flushUnschedulablePodsLeftover();
  EXPECT_EQ(incoming("active", "UnschedulableTimeout"), 1);
}

TEST_F(QueueTest, MetricsUnschedulableReasonsFollowThePod) {
  metrics::Metrics m;
  QueueOptions opts;
  opts.metrics = &m;
  auto q = makeQueue(opts);
  using metrics::testing::sum;
  auto reason = [&](const char* plugin) {
    return sum(m.scrape(), "scheduler_unschedulable_pods",
               {{"plugin", plugin}, {"profile", "default-scheduler"}});
  };
  auto p = MakePod().name("p").namespace_("ns").uid("1").ptr();
  q->add(p);
  failAttempt(*q, {"fooPlugin"}, {"pendingPlugin"});
  EXPECT_EQ(reason("fooPlugin"), 1);
  EXPECT_EQ(reason("pendingPlugin"), 1);
  // Still counted after a move to activeQ; no longer once it is popped for its next attempt.
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});
  ASSERT_EQ(q->whereIs("ns/p"), QueueName::ActiveQ);
  EXPECT_EQ(reason("fooPlugin"), 1);
  failAttempt(*q, {"fooPlugin"});
  EXPECT_EQ(reason("fooPlugin"), 1);
  EXPECT_EQ(reason("pendingPlugin"), 0);
  // Deleted while waiting.
  q->remove(*p);
  EXPECT_EQ(reason("fooPlugin"), 0);
}

TEST_F(QueueTest, MetricsInflightEvents) {
  metrics::Metrics m;
  QueueOptions opts;
  opts.metrics = &m;
  auto q = makeQueue(opts);
  using metrics::testing::sum;
  auto inflight = [&](const char* event) {
    return sum(m.scrape(), "scheduler_inflight_events", {{"event", event}});
  };
  q->add(MakePod().name("p").namespace_("ns").uid("1").ptr());
  auto p = q->pop();
  ASSERT_TRUE(p);
  EXPECT_EQ(inflight("PodPopped"), 1);
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(inflight("NodeAdd"), 2);
  q->done("1");
  EXPECT_EQ(inflight("PodPopped"), 0);
  EXPECT_EQ(inflight("NodeAdd"), 0);
}

// Upstream Test_podSchedulingPropertiesChange (v1.37.2), every case.
TEST(PodChangeTest, PodSchedulingPropertiesChange) {
  // One container requesting `cpu`, with the kubelet having allocated the same.
  auto withCpu = [](const std::string& cpu) {
    api::Pod p = MakePod().req({{"cpu", cpu}}).obj();
    p.status.containerStatuses.push_back(api::ContainerStatus{
        p.spec.containers[0].name, ks::testing::resourceList({{"cpu", cpu}}), std::nullopt});
    return p;
  };
  const api::Pod big = withCpu("101m");
  const api::Pod small = withCpu("100m");
  api::Pod smallWithLabel = small;
  smallWithLabel.metadata.labels["foo"] = "bar";
  auto claimStatuses = [](std::vector<api::PodResourceClaimStatus> statuses) {
    api::Pod p = MakePod().obj();
    p.status.resourceClaimStatuses = std::move(statuses);
    return p;
  };
  const api::PodResourceClaimStatus claimA{"my-claim", "claim"};
  const api::PodResourceClaimStatus claimB{"my-claim-2", "claim-2"};
  auto extendedClaim = [](std::string claimName) {
    api::Pod p = MakePod().obj();
    p.status.extendedResourceClaimStatus.emplace();
    p.status.extendedResourceClaimStatus->requestMappings = {
        api::ContainerExtendedResourceRequest{"c", "example.com/gpu", "request"}};
    p.status.extendedResourceClaimStatus->resourceClaimName = std::move(claimName);
    return p;
  };
  using R = EventResource;
  struct Case {
    std::string name;
    api::Pod newPod, oldPod;
    bool isTargetPod = false;
    bool draDisabled = false;
    std::vector<ClusterEvent> want;
  };
  const std::vector<Case> cases = {
      {"assigned pod is updated",
       MakePod().label("foo", "bar").node("node").obj(),
       MakePod().label("foo", "bar2").node("node").obj(),
       false,
       false,
       {{R::AssignedPod, action::UpdatePodLabel}}},
      {"unscheduled pod label is updated",
       MakePod().label("foo", "bar").obj(),
       MakePod().label("foo", "bar2").obj(),
       false,
       false,
       {{R::UnscheduledPod, action::UpdatePodLabel}}},
      {"pod's resource request is scaled down",
       small,
       big,
       false,
       false,
       {{R::UnscheduledPod, action::UpdatePodScaleDown}}},
      {"pod's resource request is scaled up",
       big,
       small,
       false,
       false,
       {{R::UnscheduledPod, action::UpdatePodScaleUp}}},
      {"both pod's resource request and label are updated",
       smallWithLabel,
       big,
       false,
       false,
       {{R::UnscheduledPod, action::UpdatePodLabel}, {R::UnscheduledPod, action::UpdatePodScaleDown}}},
      {"untracked properties of pod is updated",
       MakePod().annotation("foo", "bar").obj(),
       MakePod().annotation("foo", "bar2").obj(),
       false,
       false,
       {{R::UnscheduledPod, action::UpdatePodOther}}},
      {"scheduling gate is eliminated",
       MakePod().obj(),
       MakePod().schedulingGates({"foo"}).obj(),
       true,
       false,
       {{R::TargetPod, action::UpdatePodSchedulingGatesEliminated}}},
      {"scheduling gate is removed, but not completely eliminated",
       MakePod().schedulingGates({"foo"}).obj(),
       MakePod().schedulingGates({"foo", "bar"}).obj(),
       true,
       false,
       {{R::TargetPod, action::UpdatePodOther}}},
      {"pod's tolerations are updated",
       MakePod().toleration("key").toleration("key2").obj(),
       MakePod().toleration("key").obj(),
       true,
       false,
       {{R::TargetPod, action::UpdatePodToleration}}},
      {"pod claim statuses change, feature disabled",
       claimStatuses({claimA}),
       MakePod().obj(),
       true,
       true,
       {{R::TargetPod, action::UpdatePodOther}}},
      {"pod claim statuses change, feature enabled",
       claimStatuses({claimA}),
       MakePod().obj(),
       true,
       false,
       {{R::TargetPod, action::UpdatePodGeneratedResourceClaim}}},
      {"pod claim statuses swapped",
       claimStatuses({claimA, claimB}),
       claimStatuses({claimB, claimA}),
       true,
       false,
       {{R::TargetPod, action::UpdatePodGeneratedResourceClaim}}},
      {"pod extended resource claim status change, feature disabled",
       extendedClaim("claim"),
       MakePod().obj(),
       true,
       true,
       {{R::TargetPod, action::UpdatePodOther}}},
      {"pod extended resource claim status change, feature enabled",
       extendedClaim("claim"),
       MakePod().obj(),
       true,
       false,
       {{R::TargetPod, action::UpdatePodGeneratedResourceClaim}}},
      {"pod extended resource claim status swapped",
       extendedClaim("claim-2"),
       extendedClaim("claim"),
       true,
       false,
       {{R::TargetPod, action::UpdatePodGeneratedResourceClaim}}},
      {"scheduling gate is eliminated for an assigned pod, it takes precedence over target pod resource type",
       MakePod().node("node").obj(),
       MakePod().schedulingGates({"foo"}).node("node").obj(),
       true,
       false,
       {{R::AssignedPod, action::UpdatePodSchedulingGatesEliminated}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(podSchedulingPropertiesChange(tc.newPod, tc.oldPod, tc.isTargetPod, !tc.draDisabled), tc.want);
  }
}

TEST(PodChangeTest, TolerationEditIsAPlainUpdate) {
  // F15: only the number of tolerations counts, as upstream (editing tolerationSeconds is a plain Update).
  api::Pod tolerating = MakePod().name("p").obj();
  tolerating.spec.tolerations.push_back(api::Toleration{"k", "Exists", "", "NoSchedule", std::nullopt});
  api::Pod edited = tolerating;
  edited.spec.tolerations[0].tolerationSeconds = 30;
  EXPECT_EQ(podSchedulingPropertiesChange(edited, tolerating, false)[0].actionType, action::UpdatePodOther);
}

TEST(PodChangeTest, StatusOnlyIsNotAnUpdate) {
  auto a = MakePod().name("p").resourceVersion("1").obj();
  auto b = MakePod().name("p").resourceVersion("2").condition("PodScheduled", "False").obj();
  EXPECT_FALSE(isPodUpdated(a, b));
  b.metadata.finalizers.push_back("example.com/keep");
  EXPECT_FALSE(isPodUpdated(a, b)) << "finalizers are stripped too";
  b.metadata.labels["x"] = "y";
  EXPECT_TRUE(isPodUpdated(a, b));
}

// The claims generated for a pod (by the resource claim controller, or by DynamicResources for extended
// resources) are the status the scheduler waits for: UpdatePodGeneratedResourceClaim, and an update.
TEST(PodChangeTest, GeneratedResourceClaims) {
  auto base = MakePod().name("p").resourceVersion("1").obj();
  base.spec.resourceClaims.push_back(api::PodResourceClaim{"gpu", std::nullopt, "single-gpu"});
  auto generated = base;
  generated.metadata.resourceVersion = "2";
  generated.status.resourceClaimStatuses.push_back(api::PodResourceClaimStatus{"gpu", "p-gpu-x1"});
  auto events = podSchedulingPropertiesChange(generated, base, false);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].resource, EventResource::UnscheduledPod);
  EXPECT_EQ(events[0].actionType, action::UpdatePodGeneratedResourceClaim);
  EXPECT_TRUE(isPodUpdated(base, generated));

  auto renamed = generated;
  renamed.status.resourceClaimStatuses[0].resourceClaimName.reset();
  EXPECT_EQ(podSchedulingPropertiesChange(renamed, generated, false)[0].actionType,
            action::UpdatePodGeneratedResourceClaim);

  auto extended = generated;
  extended.status.extendedResourceClaimStatus.emplace();
  extended.status.extendedResourceClaimStatus->resourceClaimName = "p-extended-resources-x2";
  EXPECT_EQ(podSchedulingPropertiesChange(extended, generated, false)[0].actionType,
            action::UpdatePodGeneratedResourceClaim);
  EXPECT_TRUE(isPodUpdated(generated, extended));

  // Labels too: both events, in upstream's order.
  auto both = generated;
  both.metadata.labels["a"] = "b";
  events = podSchedulingPropertiesChange(both, base, false);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].actionType, action::UpdatePodLabel);
  EXPECT_EQ(events[1].actionType, action::UpdatePodGeneratedResourceClaim);

  // With the DynamicResourceAllocation gate off, the change is a plain update.
  EXPECT_EQ(podSchedulingPropertiesChange(generated, base, false, false)[0].actionType,
            action::UpdatePodOther);
}

}  // namespace
}  // namespace ks::queue
