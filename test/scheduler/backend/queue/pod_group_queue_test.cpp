// Pod groups in the scheduling queue (GenericWorkload), after upstream v1.37.2 backend/queue:
// pod_group_member_pods_test.go, workload_forest_test.go (non-composite cases), backoff_queue_test.go's
// calculateBackoffDuration, framework types_test's member ordering, and scheduling_queue_test.go's pod-group
// cases (TestAddPodGroupMember, TestAddAttemptedPodGroupIfNeeded, TestDeletePodGroupMember, ...), driven
// through the queue's public API.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>

#include "pkg/scheduler/backend/queue/backoff_queue.h"
#include "pkg/scheduler/backend/queue/pod_group_queue.h"
#include "pkg/scheduler/backend/queue/scheduling_queue.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/support/wrappers.h"

namespace ks::queue {
namespace {

using framework::ClusterEvent;
using framework::EventObject;
using framework::EventResource;
using framework::QueuedPodGroupInfo;
using framework::QueuedPodInfo;
using framework::QueueingHint;
using ks::testing::MakePod;
namespace action = framework::action;
using namespace std::chrono_literals;

const ClusterEvent kNodeAdd{EventResource::Node, action::Add};
const ClusterEvent kPvAdd{EventResource::PersistentVolume, action::Add};

bool prioritySortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  const int32_t pa = framework::podPriority(a.pod());
  const int32_t pb = framework::podPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

api::PodPtr member(const std::string& name, const std::string& group = "pg", int32_t priority = 0,
                   bool gated = false, const std::string& ns = "ns") {
  api::Pod pod = MakePod().name(name).namespace_(ns).uid(name).priority(priority).obj();
  if (!group.empty()) pod.spec.schedulingGroup = api::PodSchedulingGroup{group};
  if (gated) pod.spec.schedulingGates.push_back(api::PodSchedulingGate{"gate"});
  return std::make_shared<const api::Pod>(std::move(pod));
}

framework::PodGroupPtr podGroup(const std::string& name, std::optional<int32_t> priority = std::nullopt,
                                const std::string& ns = "ns") {
  auto pg = std::make_shared<api::PodGroup>();
  pg->metadata.name = name;
  pg->metadata.namespace_ = ns;
  pg->spec.priority = priority;
  return pg;
}

QueuedPodInfo queued(api::PodPtr pod, framework::TimePoint ts = {}, int attempts = 0) {
  QueuedPodInfo p;
  p.podInfo = framework::PodInfo::create(std::move(pod));
  p.timestamp = ts;
  p.attempts = attempts;
  return p;
}

std::vector<std::string> names(const std::vector<api::PodPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  std::sort(out.begin(), out.end());
  return out;
}

// ---- pod_group_member_pods_test.go ----

TEST(PodGroupMemberPodsTest, AddGetHasLen) {
  PodGroupMemberPods m;
  EXPECT_EQ(m.size(), 0u);
  m.add(queued(member("p1", "pg1")));
  m.add(queued(member("p2", "pg1")));
  m.add(queued(member("p3", "pg2")));
  m.add(queued(member("p1", "pg1")));  // the same pod again: replaced
  EXPECT_EQ(m.size(), 3u);
  EXPECT_TRUE(m.has(*member("p1", "pg1")));
  EXPECT_FALSE(m.has(*member("p1", "pg2")));       // another group
  EXPECT_FALSE(m.has(*member("p1", "pg1", 0, false, "other")));  // another namespace
  EXPECT_FALSE(m.has(*member("p4", "pg1")));
  EXPECT_FALSE(m.has(*member("p1", "")));  // not a member
  ASSERT_NE(m.get(*member("p3", "pg2")), nullptr);
  EXPECT_EQ(m.get(*member("p3", "pg2"))->pod().metadata.name, "p3");
}

TEST(PodGroupMemberPodsTest, Update) {
  PodGroupMemberPods m;
  m.add(queued(member("p1", "pg1")));
  api::Pod updated = *member("p1", "pg1");
  updated.metadata.labels["k"] = "v";
  auto ptr = std::make_shared<const api::Pod>(updated);
  QueuedPodInfo* p = m.update(ptr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m.get(*ptr)->pod().metadata.labels.at("k"), "v");
  EXPECT_EQ(m.update(member("p2", "pg1")), nullptr);
}

TEST(PodGroupMemberPodsTest, Delete) {
  PodGroupMemberPods m;
  m.add(queued(member("p1", "pg1")));
  m.add(queued(member("p2", "pg1")));
  EXPECT_FALSE(m.remove(*member("p3", "pg1")).has_value());
  EXPECT_FALSE(m.remove(*member("p1", "pg2")).has_value());
  ASSERT_TRUE(m.remove(*member("p1", "pg1")).has_value());
  EXPECT_EQ(m.size(), 1u);
  ASSERT_TRUE(m.remove(*member("p2", "pg1")).has_value());
  EXPECT_EQ(m.size(), 0u);
  EXPECT_TRUE(m.list().empty());
}

TEST(PodGroupMemberPodsTest, Clear) {
  PodGroupMemberPods m;
  m.add(queued(member("p1", "pg1")));
  m.add(queued(member("p2", "pg1")));
  m.add(queued(member("p3", "pg2")));
  EXPECT_TRUE(m.clear("ns", "missing").empty());
  auto cleared = m.clear("ns", "pg1");
  EXPECT_EQ(cleared.size(), 2u);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(names(m.list()), (std::vector<std::string>{"p3"}));
  EXPECT_TRUE(m.clear("ns", "pg1").empty());
}

// ---- workload_forest_test.go (non-composite) ----

TEST(WorkloadForestTest, AddUpdateDeleteAndLookups) {
  WorkloadForest f;
  EXPECT_FALSE(f.rootKeyForPod(*member("p1", "pg1")).has_value());
  f.addPodGroup(podGroup("pg1", 5));
  ASSERT_NE(f.podGroup("ns", "pg1"), nullptr);
  EXPECT_EQ(f.podGroup("ns", "pg1")->spec.priority, 5);
  EXPECT_EQ(f.podGroup("other", "pg1"), nullptr);
  EXPECT_EQ(f.rootKeyForPod(*member("p1", "pg1")), "ns/pg1");
  EXPECT_FALSE(f.rootKeyForPod(*member("p1", "pg2")).has_value());
  EXPECT_FALSE(f.rootKeyForPod(*member("p1", "")).has_value());
  EXPECT_EQ(f.rootKeyForPodGroup(*podGroup("pg1")), "ns/pg1");
  EXPECT_FALSE(f.rootKeyForPodGroup(*podGroup("pg1", {}, "other")).has_value());

  f.updatePodGroup(podGroup("pg1", 7));
  EXPECT_EQ(f.podGroup("ns", "pg1")->spec.priority, 7);
  auto built = f.buildQueuedPodGroupInfo("ns/pg1");
  ASSERT_TRUE(built.has_value());
  EXPECT_EQ(built->group.key(), "ns/pg1");
  EXPECT_EQ(built->priority(), 7);
  EXPECT_TRUE(built->pods.empty());

  f.deletePodGroup(*podGroup("pg1"));
  EXPECT_EQ(f.podGroup("ns", "pg1"), nullptr);
  EXPECT_FALSE(f.buildQueuedPodGroupInfo("ns/pg1").has_value());
  f.deletePodGroup(*podGroup("pg1"));  // absent: no-op
  EXPECT_EQ(f.size(), 0u);
}

// ---- backoff_queue_test.go ----

TEST(PodGroupBackoffTest, CalculateBackoffDuration) {
  using ns = std::chrono::nanoseconds;
  struct Case {
    const char* name;
    ns initial, max;
    int count;
    size_t size;
    ns want;
  } cases[] = {
      {"no backoff", ns(1), ns(32), 0, 1, ns(0)},
      {"normal", ns(3), ns(1000), 5, 1, ns(48)},
      {"hitting max backoff duration", ns(1), ns(32), 16, 1, ns(32)},
      {"overflow_32bit", ns(1), ns(std::numeric_limits<int32_t>::max()), 32, 1,
       ns(std::numeric_limits<int32_t>::max())},
      {"overflow_64bit", ns(1), ns::max(), 64, 1, ns::max()},
      {"larger entity size", ns(1), ns(32), 7, 10, ns(64)},
      {"hitting max backoff duration with larger entity size", ns(1), ns(32), 16, 10, ns(101)},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(entityBackoffDuration(c.count, c.size, c.initial, c.max), c.want) << c.name;
  }
}

TEST(PodGroupBackoffTest, GroupExpiryScalesWithSizeAndIsFixedOnAdd) {
  framework::testing::FakeClock clock;
  PodGroupBackoffQueue q(
      clock, 1s, 10s, [](const QueuedPodGroupInfo&, const QueuedPodGroupInfo&) { return false; }, false,
      [](const QueuedPodGroupInfo& g) { return g.group.key(); });
  QueuedPodGroupInfo g;
  g.group.namespace_ = "ns";
  g.group.name = "pg";
  g.group.podGroup = podGroup("pg");
  for (const char* n : {"a", "b", "c", "d"}) ASSERT_TRUE(addPodToGroup(g, queued(member(n))));
  g.timestamp = clock.now();
  g.unschedulableCount = 5;  // 16 s, capped at 10 s * sqrt(4) = 20 s
  EXPECT_EQ(q.backoffTime(g), clock.now() + 16s);
  g.unschedulableCount = 6;  // 32 s -> 20 s
  EXPECT_EQ(q.backoffTime(g), clock.now() + 20s);
  g.unschedulablePlugins = {"fooPlugin"};
  q.add(g);
  QueuedPodGroupInfo stored = *q.get("ns/pg");
  EXPECT_EQ(stored.backoffExpiration, clock.now() + 20s);
  // A member leaving does not move the expiry once fixed.
  removePodFromGroup(stored, *member("a"));
  EXPECT_EQ(q.backoffTime(stored), clock.now() + 20s);
  clock.step(21s);
  EXPECT_EQ(q.popAllBackoffCompleted().size(), 1u);
}

// ---- types_test.go: QueuedPodGroupInfo AddPod / RemovePod / Update ----

TEST(QueuedPodGroupInfoTest, MembersOrderedByPriorityAttemptsTimestampName) {
  QueuedPodGroupInfo g;
  g.group.namespace_ = "ns";
  g.group.name = "pg";
  EXPECT_FALSE(addPodToGroup(g, queued(member("x"))));  // the group object is not known
  g.group.podGroup = podGroup("pg");
  const framework::TimePoint t0{};
  EXPECT_TRUE(addPodToGroup(g, queued(member("late"), t0 + 2s)));
  EXPECT_TRUE(addPodToGroup(g, queued(member("early"), t0 + 1s)));
  EXPECT_TRUE(addPodToGroup(g, queued(member("high", "pg", 10), t0 + 5s)));
  EXPECT_TRUE(addPodToGroup(g, queued(member("retried"), t0 + 9s, 2)));
  EXPECT_TRUE(addPodToGroup(g, queued(member("b-same"), t0 + 3s)));
  EXPECT_TRUE(addPodToGroup(g, queued(member("a-same"), t0 + 3s)));
  EXPECT_FALSE(addPodToGroup(g, queued(member("other-group", "pg2"))));
  EXPECT_FALSE(addPodToGroup(g, queued(member("other-ns", "pg", 0, false, "ns2"))));
  EXPECT_FALSE(addPodToGroup(g, queued(member("no-group", ""))));
  std::vector<std::string> order, unscheduled;
  for (const auto& p : g.pods) order.push_back(p.pod().metadata.name);
  for (const auto& p : g.group.unscheduledPods) unscheduled.push_back(p->metadata.name);
  const std::vector<std::string> want{"high", "retried", "early", "late", "a-same", "b-same"};
  // a-same and b-same tie on timestamp: by name; late (2 s) is before them (3 s).
  const std::vector<std::string> wantSorted{"high", "retried", "early", "late", "a-same", "b-same"};
  EXPECT_EQ(order, wantSorted);
  EXPECT_EQ(unscheduled, want);

  api::Pod changed = *member("late");
  changed.metadata.labels["v"] = "2";
  auto changedPtr = std::make_shared<const api::Pod>(changed);
  ASSERT_NE(updatePodInGroup(g, changedPtr), nullptr);
  EXPECT_EQ(g.pods[3].pod().metadata.labels.at("v"), "2");
  EXPECT_EQ(g.group.unscheduledPods[3], changedPtr);
  EXPECT_EQ(updatePodInGroup(g, member("missing")), nullptr);

  EXPECT_TRUE(removePodFromGroup(g, *member("retried")).has_value());
  EXPECT_FALSE(removePodFromGroup(g, *member("retried")).has_value());
  EXPECT_EQ(g.size(), 5u);
  EXPECT_EQ(g.group.unscheduledPods.size(), 5u);
  EXPECT_EQ(g.group.unscheduledPods[1]->metadata.name, "early");
}

// ---- scheduling_queue_test.go: pod groups ----

class PodGroupQueueTest : public ::testing::Test {
 protected:
  // "fooPlugin" registers NodeAdd (hint nodeAddHint_); "SchedulingGates" gates pods with scheduling gates
  // (registered for their gates-eliminated updates); "Toggle" gates every pod while gateAll_ is set
  // (registered for NodeAdd).
  std::unique_ptr<PriorityQueue> makeQueue(QueueOptions opts = {}) {
    opts.clock = &clock_;
    opts.genericWorkload = genericWorkload_;
    ProfileHooks hooks;
    hooks.pluginEvents.push_back(framework::runtime::PluginEvents{
        "fooPlugin",
        {framework::ClusterEventWithHint{kNodeAdd, [this](const api::Pod&, const EventObject&, const EventObject&) {
           return Result<QueueingHint>(nodeAddHint_);
         }}}});
    hooks.runPreEnqueuePlugins = [this](const framework::PodInfo& p) {
      if (!p.pod().spec.schedulingGates.empty()) {
        return framework::Status(framework::Code::UnschedulableAndUnresolvable).withPlugin("SchedulingGates");
      }
      if (gateAll_) return framework::Status(framework::Code::UnschedulableAndUnresolvable).withPlugin("Toggle");
      return framework::Status::success();
    };
    hooks.preEnqueuePluginEvents["SchedulingGates"] = {
        {EventResource::TargetPod, action::UpdatePodSchedulingGatesEliminated}};
    hooks.preEnqueuePluginEvents["Toggle"] = {kNodeAdd};
    std::map<std::string, ProfileHooks> profiles;
    profiles.emplace("default-scheduler", std::move(hooks));
    return std::make_unique<PriorityQueue>(prioritySortLess, std::move(profiles), opts);
  }

  static QueuedPodGroupInfo popGroup(PriorityQueue& q) {
    auto e = q.popEntity();
    EXPECT_TRUE(e.has_value());
    EXPECT_TRUE(e && std::holds_alternative<QueuedPodGroupInfo>(*e));
    return e ? std::get<QueuedPodGroupInfo>(std::move(*e)) : QueuedPodGroupInfo{};
  }

  // Pops the group (must be next), fails every member with `plugins` (the failure handler's
  // addUnschedulableIfNotPresent) and ends its cycle with `status`.
  void failGroup(PriorityQueue& q, const std::set<std::string>& plugins, const framework::Status& status) {
    QueuedPodGroupInfo g = popGroup(q);
    const int64_t cycle = q.schedulingCycle();
    for (QueuedPodInfo p : g.pods) {
      p.unschedulablePlugins = plugins;
      ASSERT_TRUE(q.addUnschedulableIfNotPresent(p, cycle).ok());
    }
    ASSERT_TRUE(q.addAttemptedPodGroupIfNeeded(g, cycle, status).ok());
  }

  framework::testing::FakeClock clock_;
  QueueingHint nodeAddHint_ = QueueingHint::Queue;
  std::atomic<bool> gateAll_{false};
  bool genericWorkload_ = true;
};

TEST_F(PodGroupQueueTest, GateOffMembersAreQueuedAsPods) {
  genericWorkload_ = false;
  auto q = makeQueue();
  q->add(member("p1"));
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
  auto e = q->popEntity();
  ASSERT_TRUE(e && std::holds_alternative<QueuedPodInfo>(*e));
  q->addPodGroup(podGroup("pg"));
  EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
}

// TestAddPodGroupMember.
TEST_F(PodGroupQueueTest, AddPodGroupMember) {
  {  // first member added (ungated): a new group in activeQ
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1"));
    auto g = q->getPodGroupForTest("ns/pg");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->size(), 1u);
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
  }
  {  // first member added (gated): the group is gated in unschedulablePods
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1", "pg", 0, true));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
    EXPECT_TRUE(q->getPodGroupForTest("ns/pg")->gated());
    EXPECT_EQ(q->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
  }
  for (bool gated : {false, true}) {  // the group is in flight: the pod waits in the pending buffer
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1"));
    popGroup(*q);
    q->add(member("p2", "pg", 0, gated));
    EXPECT_EQ(q->whereIs("ns/p2"), QueueName::PendingPodGroupPods) << gated;
    EXPECT_EQ(names(q->pendingPodGroupPods()), (std::vector<std::string>{"p2"}));
    EXPECT_EQ(q->pendingCounts().pending, 1u);
  }
  {  // existing group in activeQ: ungated addition stays; gated addition gates it
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1"));
    q->add(member("p2"));
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
    EXPECT_EQ(q->whereIs("ns/p2"), QueueName::ActiveQ);
    q->add(member("p3", "pg", 0, true));
    auto g = q->getPodGroupForTest("ns/pg");
    EXPECT_TRUE(g->gated());
    EXPECT_EQ(g->gatingPlugin, "SchedulingGates");
    EXPECT_EQ(g->size(), 3u);
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  }
  for (bool gated : {false, true}) {  // existing group in backoffQ
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1"));
    failGroup(*q, {"fooPlugin"}, framework::Status(framework::Code::Unschedulable));
    ASSERT_EQ(q->whereIs("ns/p1"), QueueName::BackoffQ);
    q->add(member("p2", "pg", 0, gated));
    EXPECT_EQ(q->whereIs("ns/p2"), gated ? QueueName::UnschedulablePods : QueueName::BackoffQ) << gated;
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->gated(), gated);
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
  }
  {  // existing gated group in unschedulablePods: an ungated addition leaves it there, gated
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->add(member("p1", "pg", 0, true));
    q->add(member("p2"));
    auto g = q->getPodGroupForTest("ns/pg");
    EXPECT_TRUE(g->gated());
    EXPECT_EQ(g->size(), 2u);
    EXPECT_EQ(q->whereIs("ns/p2"), QueueName::UnschedulablePods);
  }
  {  // before the PodGroup is observed: the incomplete buffer
    auto q = makeQueue();
    q->add(member("p1"));
    q->add(member("p2"));
    EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"p1", "p2"}));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::IncompletePodGroupPods);
    EXPECT_EQ(q->pendingCounts(), (PendingCounts{0, 0, 0, 0, 0, 2}));
  }
}

// TestAddAttemptedPodGroupIfNeeded.
TEST_F(PodGroupQueueTest, AddAttemptedPodGroupIfNeeded) {
  struct Case {
    const char* name;
    // The members the failure handler requeued (with "fakePlugin" when rejected), and a member added
    // during the cycle.
    bool pod1Failed = false;
    bool pod1Rejected = false;
    bool pod2Added = false;
    std::optional<framework::Status> status;  // success when unset
    bool disableBackoff = false;
    bool gate = false;
    int unschedulableCount = 0;
    int consecutiveErrors = 0;
    QueueName where = QueueName::None;
    size_t size = 0;
    bool keepTimestamp = false;
  };
  const framework::Status errorStatus = framework::Status::error("boom");
  const framework::Status unschedulable(framework::Code::Unschedulable);
  const Case cases[] = {
      {"No pending pods, pod group is not enqueued", false, false, false, {}, false, false, 0, 0, QueueName::None, 0},
      {"error, not backing off", true, false, true, errorStatus, true, false, 0, 1, QueueName::ActiveQ, 2},
      {"unschedulable, not backing off", true, true, true, unschedulable, true, false, 1, 0, QueueName::ActiveQ, 2},
      {"unschedulable, not backing off, blocked on PreEnqueue", true, true, true, unschedulable, true, true, 1, 0,
       QueueName::UnschedulablePods, 2},
      {"error, backing off", true, false, true, errorStatus, false, false, 0, 1, QueueName::BackoffQ, 2},
      {"unschedulable, backing off", true, true, true, unschedulable, false, false, 1, 0, QueueName::BackoffQ, 2},
      {"error, backing off, blocked on PreEnqueue", true, false, true, errorStatus, false, true, 0, 1,
       QueueName::UnschedulablePods, 2},
      {"success with failed members: activeQ, timestamp kept", true, true, true, {}, false, false, 0, 0,
       QueueName::ActiveQ, 2, true},
      {"success with new members only: activeQ, new timestamp", false, false, true, {}, false, false, 0, 0,
       QueueName::ActiveQ, 1, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    gateAll_ = false;
    QueueOptions opts;
    if (c.disableBackoff) {
      opts.podInitialBackoff = 0s;
      opts.podMaxBackoff = 0s;
    }
    auto q = makeQueue(opts);
    q->addPodGroup(podGroup("pg"));
    q->add(member("pod1", "pg", 10));
    QueuedPodGroupInfo g = popGroup(*q);
    const framework::TimePoint oldTimestamp = g.timestamp;
    g.consecutiveErrorsCount = c.status && c.status->isRejected() ? 5 : 0;  // reset by a rejection
    clock_.step(1s);
    if (c.pod1Failed) {
      QueuedPodInfo p = g.pods[0];
      if (c.pod1Rejected) p.unschedulablePlugins = {"fakePlugin"};
      ASSERT_TRUE(q->addUnschedulableIfNotPresent(p, q->schedulingCycle()).ok());
    }
    if (c.pod2Added) q->add(member("pod2", "pg", 10));
    gateAll_ = c.gate;
    ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(g, q->schedulingCycle(), c.status.value_or(framework::Status())).ok());
    EXPECT_TRUE(q->pendingPodGroupPods().empty());
    auto queuedGroup = q->getPodGroupForTest("ns/pg");
    if (c.where == QueueName::None) {
      EXPECT_FALSE(queuedGroup.has_value());
      continue;
    }
    ASSERT_TRUE(queuedGroup.has_value());
    EXPECT_EQ(q->whereIs(c.pod2Added ? "ns/pod2" : "ns/pod1"), c.where);
    EXPECT_EQ(queuedGroup->size(), c.size);
    EXPECT_EQ(queuedGroup->unschedulableCount, c.unschedulableCount);
    EXPECT_EQ(queuedGroup->consecutiveErrorsCount, c.consecutiveErrors);
    if (c.keepTimestamp) {
      EXPECT_EQ(queuedGroup->timestamp, oldTimestamp);
    } else {
      // Now (arrivals are kept strictly increasing, so a few ns after the members' own arrivals).
      EXPECT_GE(queuedGroup->timestamp, clock_.now());
      EXPECT_LT(queuedGroup->timestamp, clock_.now() + 1us);
    }
    // Queued again: an error for a second report.
    EXPECT_FALSE(q->addAttemptedPodGroupIfNeeded(*queuedGroup, q->schedulingCycle(), framework::Status()).ok());
  }
}

TEST_F(PodGroupQueueTest, PopEntityOrdersPodsAndGroupsAndTakesMembersInFlight) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg", 10));
  q->add(MakePod().name("pod-low").namespace_("ns").uid("pl").priority(5).ptr());
  clock_.step(1ms);
  q->add(member("m2", "pg", 0));
  clock_.step(1ms);
  q->add(member("m1", "pg", 100));
  clock_.step(1ms);
  q->add(MakePod().name("pod-high").namespace_("ns").uid("ph").priority(20).ptr());
  EXPECT_EQ(q->pendingCounts(), (PendingCounts{4, 0, 0, 0}));
  std::string summary;
  EXPECT_EQ(q->pendingPods(&summary).size(), 4u);
  EXPECT_EQ(summary, "activeQ:4; backoffQ:0; unschedulableEntities:0; pendingPodGroupMemberPods:0; incompletePodGroupPods:0");

  auto first = q->popEntity();
  ASSERT_TRUE(first && std::holds_alternative<QueuedPodInfo>(*first));
  EXPECT_EQ(std::get<QueuedPodInfo>(*first).pod().metadata.name, "pod-high");
  QueuedPodGroupInfo g = popGroup(*q);  // the group's priority is its PodGroup's (10), not its members'
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.pods[0].pod().metadata.name, "m1");  // members by priority
  EXPECT_EQ(g.group.unscheduledPods[1]->metadata.name, "m2");
  EXPECT_EQ(g.attempts, 1);
  EXPECT_EQ(g.pods[0].attempts, 1);
  EXPECT_EQ(q->schedulingCycle(), 2);
  EXPECT_EQ(q->whereIs("ns/m1"), QueueName::InFlight);
  EXPECT_EQ(q->inFlightCount(), 3u);
  q->done("m1");
  q->done("m2");
  EXPECT_EQ(q->inFlightCount(), 1u);
  // pop() serves the pods.
  auto last = q->pop();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->pod().metadata.name, "pod-low");
}

TEST_F(PodGroupQueueTest, UpdatePodGroupReordersTheQueuedGroup) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg", 1));
  q->add(member("m1"));
  clock_.step(1ms);
  q->add(MakePod().name("pod").namespace_("ns").uid("p").priority(5).ptr());
  q->updatePodGroup(podGroup("pg", 50));
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->priority(), 50);
  auto e = q->popEntity();
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(std::holds_alternative<QueuedPodGroupInfo>(*e));
}

// TestDeletePodGroupMember.
TEST_F(PodGroupQueueTest, DeletePodGroupMember) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  q->add(member("p2"));
  q->remove(*member("p1"));
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::None);
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 1u);
  q->remove(*member("p2"));  // the last member: the entity is dropped
  EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
  // From the pending buffer.
  q->add(member("p3"));
  popGroup(*q);
  q->add(member("p4"));
  q->remove(*member("p4"));
  EXPECT_TRUE(q->pendingPodGroupPods().empty());
  // From the incomplete buffer.
  q->add(member("p5", "other"));
  q->remove(*member("p5", "other"));
  EXPECT_TRUE(q->incompletePodGroupPods().empty());
}

// TestUpdatePodGroupMember.
TEST_F(PodGroupQueueTest, UpdatePodGroupMember) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  api::Pod labelled = *member("p1");
  labelled.metadata.labels["a"] = "b";
  q->update(member("p1"), std::make_shared<const api::Pod>(labelled));
  EXPECT_EQ(q->getForTest("ns/p1")->pod().metadata.labels.at("a"), "b");
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);

  // A gated member whose gates are removed ungates its group.
  q->add(member("p2", "pg", 0, true));
  ASSERT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  q->update(member("p2", "pg", 0, true), member("p2"));
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
  EXPECT_FALSE(q->getPodGroupForTest("ns/pg")->gated());

  // In the incomplete buffer.
  q->add(member("p3", "other"));
  api::Pod p3 = *member("p3", "other");
  p3.metadata.labels["x"] = "y";
  q->update(member("p3", "other"), std::make_shared<const api::Pod>(p3));
  EXPECT_EQ(q->getForTest("ns/p3")->pod().metadata.labels.at("x"), "y");
  EXPECT_EQ(q->whereIs("ns/p3"), QueueName::IncompletePodGroupPods);

  // Unknown to the queue: added as a new member.
  q->update(member("p9"), member("p9"));
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 3u);
}

// TestActivatePodGroupMember.
TEST_F(PodGroupQueueTest, ActivatePodGroupMember) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  q->add(member("p2"));
  failGroup(*q, {"fooPlugin"}, framework::Status(framework::Code::Unschedulable));
  ASSERT_EQ(q->whereIs("ns/p1"), QueueName::BackoffQ);
  q->activate({member("p2")});
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
  EXPECT_EQ(q->whereIs("ns/p2"), QueueName::ActiveQ);
  // A member of an unobserved group is ignored.
  q->activate({member("x", "unknown")});
  EXPECT_EQ(q->pendingCounts().active, 2u);
}

// TestMoveAllToActiveOrBackoffQueuePodGroupMember.
TEST_F(PodGroupQueueTest, MoveAllRequeuesGroupsThroughTheirMembers) {
  QueueOptions opts;
  opts.podInitialBackoff = 0s;
  opts.podMaxBackoff = 0s;
  auto q = makeQueue(opts);
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  q->add(member("p2"));
  // The members rejected by fooPlugin; the group comes back gated by Toggle (registered for NodeAdd).
  QueuedPodGroupInfo g = popGroup(*q);
  for (QueuedPodInfo p : g.pods) {
    p.unschedulablePlugins = {"fooPlugin"};
    ASSERT_TRUE(q->addUnschedulableIfNotPresent(p, 1).ok());
  }
  gateAll_ = true;
  ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(g, 1, framework::Status(framework::Code::Unschedulable)).ok());
  ASSERT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  EXPECT_EQ(q->pendingCounts().gated, 2u);
  gateAll_ = false;
  // An event the gating plugin did not register: ignored.
  q->moveAllToActiveOrBackoffQueue(kPvAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  // The members' hints say skip: stays.
  nodeAddHint_ = QueueingHint::QueueSkip;
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {});
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  // preCheck rejecting every member: stays.
  nodeAddHint_ = QueueingHint::Queue;
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {}, [](const api::Pod&) { return false; });
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  // One member passing preCheck and a Queue hint move the group.
  q->moveAllToActiveOrBackoffQueue(kNodeAdd, {}, {},
                                   [](const api::Pod& p) { return p.metadata.name == "p2"; });
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
}

// TestFlushBackoffQCompletedPodGroupMember and TestFlushUnschedulableEntitiesLeftoverPodGroupMember.
TEST_F(PodGroupQueueTest, FlushesMoveGroups) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  failGroup(*q, {"fooPlugin"}, framework::Status(framework::Code::Unschedulable));
  ASSERT_EQ(q->whereIs("ns/p1"), QueueName::BackoffQ);
  q->flushBackoffQCompleted();
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::BackoffQ);
  clock_.step(2s);
  q->flushBackoffQCompleted();
  EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);

  auto q2 = makeQueue();
  q2->addPodGroup(podGroup("pg"));
  gateAll_ = true;
  q2->add(member("p1"));
  ASSERT_EQ(q2->whereIs("ns/p1"), QueueName::UnschedulablePods);
  gateAll_ = false;
  clock_.step(kDefaultPodMaxInUnschedulablePodsDuration - 1s);
  q2->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q2->whereIs("ns/p1"), QueueName::UnschedulablePods);
  clock_.step(2s);
  q2->flushUnschedulablePodsLeftover();
  EXPECT_EQ(q2->whereIs("ns/p1"), QueueName::ActiveQ);
  EXPECT_TRUE(q2->getPodGroupForTest("ns/pg")->wasFlushedFromUnschedulable);
}

// TestAddUnschedulablePodIfNotPresentPodGroupMember.
TEST_F(PodGroupQueueTest, AddUnschedulableMember) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  q->add(member("p1"));
  q->add(member("p2"));
  QueuedPodGroupInfo g = popGroup(*q);
  // The group is in flight: failed members wait in the pending buffer, and leave flight.
  QueuedPodInfo p1 = g.pods[0];
  p1.unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(p1, 1).ok());
  EXPECT_EQ(q->whereIs("ns/" + p1.pod().metadata.name), QueueName::PendingPodGroupPods);
  EXPECT_EQ(q->inFlightCount(), 1u);
  EXPECT_EQ(q->getForTest("ns/" + p1.pod().metadata.name)->unschedulableCount, 1);
  // Once the group came back (here: nothing else pending for it), a failed member makes a new entity.
  ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(g, 1, framework::Status()).ok());
  QueuedPodInfo p2 = g.pods[1];
  p2.unschedulablePlugins = {"fooPlugin"};
  ASSERT_TRUE(q->addUnschedulableIfNotPresent(p2, 1).ok());
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
  // A member of a group no longer observed: the incomplete buffer.
  q->deletePodGroup(*podGroup("pg"));
  EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"p1", "p2"}));
}

// TestAddPodGroup / TestDeletePodGroup.
TEST_F(PodGroupQueueTest, AddAndDeletePodGroup) {
  auto q = makeQueue();
  q->add(member("p1"));
  q->add(member("p2"));
  q->add(member("o1", "other"));
  EXPECT_EQ(q->pendingCounts().incomplete, 3u);
  q->addPodGroup(podGroup("pg"));
  EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
  EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"o1"}));
  // Deleting a queued group sends its members back to the incomplete buffer.
  q->deletePodGroup(*podGroup("pg"));
  EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
  EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"o1", "p1", "p2"}));
  // Deleting a group whose cycle runs sends its pending members there.
  q->addPodGroup(podGroup("pg"));
  QueuedPodGroupInfo g = popGroup(*q);
  q->add(member("p3"));
  ASSERT_EQ(q->whereIs("ns/p3"), QueueName::PendingPodGroupPods);
  q->deletePodGroup(*podGroup("pg"));
  EXPECT_EQ(q->whereIs("ns/p3"), QueueName::IncompletePodGroupPods);
  // The group's cycle ends with nothing pending: nothing is queued.
  ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(g, 1, framework::Status()).ok());
  EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
  // Deleting an unknown group: no-op.
  q->deletePodGroup(*podGroup("nope"));
}

TEST_F(PodGroupQueueTest, NominatedMemberResolvesToItsQueuedVersion) {
  auto q = makeQueue();
  q->addPodGroup(podGroup("pg"));
  api::Pod nominated = *member("p1");
  nominated.status.nominatedNodeName = "node1";
  q->add(std::make_shared<const api::Pod>(nominated));
  auto pods = q->nominatedPodsForNode("node1");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0]->pod().spec.schedulingGroup->podGroupName, "pg");  // not a bare in-flight stand-in
}

TEST_F(PodGroupQueueTest, PendingAndIncompleteGauges) {
  metrics::Metrics m;
  QueueOptions opts;
  opts.metrics = &m;
  auto q = makeQueue(opts);
  q->add(member("p1"));
  q->add(member("p2"));
  EXPECT_EQ(m.podGroupMemberPods(/*incomplete=*/true).value(), 2);
  q->addPodGroup(podGroup("pg"));
  EXPECT_EQ(m.podGroupMemberPods(true).value(), 0);
  // The first member made the entity, the second joined it: members count as pods, the group as an entity.
  EXPECT_EQ(m.queueIncomingPodsRef(metrics::Queue::Active, "UnscheduledPodAdd").value(), 3);
  EXPECT_GE(m.queueIncomingEntitiesRef(metrics::Queue::Active, "UnscheduledPodAdd", /*podGroup=*/true).value(), 1);
  EXPECT_EQ(m.queueIncomingEntitiesRef(metrics::Queue::Active, "UnscheduledPodAdd").value(), 0);
  QueuedPodGroupInfo g = popGroup(*q);
  q->add(member("p3"));
  EXPECT_EQ(m.podGroupMemberPods(/*incomplete=*/false).value(), 1);
  ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(g, 1, framework::Status()).ok());
  EXPECT_EQ(m.podGroupMemberPods(false).value(), 0);
}

// Where a group's entity is set up before each case (upstream setupInitialPodGroupState).
enum class State { Active, Backoff, Gated, Popped, Incomplete };

class PodGroupStateTest : public PodGroupQueueTest {
 protected:
  std::unique_ptr<PriorityQueue> setUp(State state, const std::vector<api::PodPtr>& pods) {
    auto q = makeQueue();
    if (state != State::Incomplete) q->addPodGroup(podGroup("pg"));
    if (state == State::Gated) gateAll_ = true;
    for (const auto& p : pods) q->add(p);
    gateAll_ = false;
    if (state == State::Popped) popped_ = popGroup(*q);
    if (state == State::Backoff) {
      failGroup(*q, {"fooPlugin"}, framework::Status(framework::Code::Unschedulable));
      EXPECT_EQ(q->whereIs("ns/" + pods[0]->metadata.name), QueueName::BackoffQ);
    }
    return q;
  }
  QueuedPodGroupInfo popped_;
};

// TestDeletePodGroupMember (the remaining cases).
TEST_F(PodGroupStateTest, DeletePodGroupMemberCases) {
  for (State state : {State::Backoff, State::Gated}) {
    const QueueName where = state == State::Backoff ? QueueName::BackoffQ : QueueName::UnschedulablePods;
    auto q = setUp(state, {member("p1"), member("p2")});
    q->remove(*member("p1"));
    EXPECT_EQ(q->whereIs("ns/p2"), where);
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 1u);
    q->remove(*member("p2"));
    EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
  }
  {  // one of two pending pods of a group in flight
    auto q = setUp(State::Popped, {member("p1")});
    q->add(member("p2"));
    q->add(member("p3"));
    q->remove(*member("p2"));
    EXPECT_EQ(names(q->pendingPodGroupPods()), (std::vector<std::string>{"p3"}));
  }
  {  // a pod the queue does not hold
    auto q = setUp(State::Active, {member("p1")});
    q->remove(*member("not-found"));
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 1u);
  }
  {  // deleting a gated member leaves the group where it is (PreEnqueue runs when something moves it)
    auto q = setUp(State::Active, {member("p1"), member("p2", "pg", 0, true), member("p3", "pg", 0, true)});
    q->remove(*member("p2", "pg", 0, true));
    EXPECT_TRUE(q->getPodGroupForTest("ns/pg")->gated());
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->size(), 2u);
  }
  {  // one of several incomplete members
    auto q = setUp(State::Incomplete, {member("p1"), member("p2")});
    q->remove(*member("p1"));
    EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"p2"}));
  }
}

// TestUpdatePodGroupMember (the remaining cases).
TEST_F(PodGroupStateTest, UpdatePodGroupMemberCases) {
  auto relabel = [](const api::PodPtr& pod) {
    api::Pod p = *pod;
    p.metadata.labels["updated"] = "true";
    return std::make_shared<const api::Pod>(std::move(p));
  };
  {  // in backoffQ: updated there
    auto q = setUp(State::Backoff, {member("p1")});
    q->update(member("p1"), relabel(member("p1")));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::BackoffQ);
    EXPECT_TRUE(q->getForTest("ns/p1")->pod().metadata.labels.contains("updated"));
  }
  {  // gated, the gate kept: stays gated
    auto q = setUp(State::Active, {member("p1", "pg", 0, true)});
    q->update(member("p1", "pg", 0, true), relabel(member("p1", "pg", 0, true)));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
    EXPECT_TRUE(q->getPodGroupForTest("ns/pg")->gated());
  }
  {  // one member ungated while another stays gated: stays gated
    auto q = setUp(State::Active, {member("p1", "pg", 0, true), member("p2", "pg", 0, true)});
    q->update(member("p1", "pg", 0, true), member("p1"));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
    EXPECT_TRUE(q->getPodGroupForTest("ns/pg")->gated());
    EXPECT_TRUE(q->getForTest("ns/p1")->pod().spec.schedulingGates.empty());
  }
  {  // in the pending buffer (group in flight)
    auto q = setUp(State::Popped, {member("p1")});
    q->add(member("p2"));
    q->update(member("p2"), relabel(member("p2")));
    EXPECT_EQ(q->whereIs("ns/p2"), QueueName::PendingPodGroupPods);
    EXPECT_TRUE(q->getForTest("ns/p2")->pod().metadata.labels.contains("updated"));
  }
  {  // nominated in activeQ: the nomination follows
    auto q = setUp(State::Active, {member("p1")});
    api::Pod nominated = *member("p1");
    nominated.status.nominatedNodeName = "node1";
    q->update(member("p1"), std::make_shared<const api::Pod>(nominated));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::ActiveQ);
    EXPECT_EQ(q->nominatedPodsForNode("node1").size(), 1u);
  }
}

// TestActivatePodGroupMember (the remaining cases).
TEST_F(PodGroupStateTest, ActivatePodGroupMemberCases) {
  {  // gated: PreEnqueue still gates it
    auto q = setUp(State::Active, {member("p1", "pg", 0, true)});
    q->activate({member("p1", "pg", 0, true)});
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
  }
  {  // in flight: stays there
    auto q = setUp(State::Popped, {member("p1")});
    q->activate({member("p1")});
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::InFlight);
  }
  {  // incomplete: no-op
    auto q = setUp(State::Incomplete, {member("p1")});
    q->activate({member("p1")});
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::IncompletePodGroupPods);
  }
}

// TestAddPodGroup, TestUpdatePodGroup and TestDeletePodGroup (the remaining cases).
TEST_F(PodGroupStateTest, PodGroupObjectCases) {
  {  // gated pods waiting for the group go to unschedulablePods
    auto q = setUp(State::Incomplete, {member("p1", "pg", 0, true)});
    q->addPodGroup(podGroup("pg"));
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::UnschedulablePods);
    EXPECT_TRUE(q->getPodGroupForTest("ns/pg")->gated());
  }
  {  // a group without pods: nothing queued
    auto q = makeQueue();
    q->addPodGroup(podGroup("pg"));
    q->updatePodGroup(podGroup("pg", 3));
    EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
  }
  for (State state : {State::Backoff, State::Gated}) {  // updated where it waits
    auto q = setUp(state, {member("p1")});
    q->updatePodGroup(podGroup("pg", 42));
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->priority(), 42);
  }
  {  // in flight: the next entity takes the new object
    auto q = setUp(State::Popped, {member("p1")});
    q->updatePodGroup(podGroup("pg", 42));
    q->add(member("p2"));
    ASSERT_TRUE(q->addAttemptedPodGroupIfNeeded(popped_, 1, framework::Status()).ok());
    EXPECT_EQ(q->getPodGroupForTest("ns/pg")->priority(), 42);
  }
  for (State state : {State::Active, State::Backoff, State::Gated}) {  // deleted: members wait for it again
    auto q = setUp(state, {member("p1"), member("p2")});
    q->deletePodGroup(*podGroup("pg"));
    EXPECT_FALSE(q->getPodGroupForTest("ns/pg").has_value());
    EXPECT_EQ(names(q->incompletePodGroupPods()), (std::vector<std::string>{"p1", "p2"}));
    EXPECT_EQ(q->pendingCounts(), (PendingCounts{0, 0, 0, 0, 0, 2}));
  }
  {  // in flight without pending pods: nothing moves
    auto q = setUp(State::Popped, {member("p1")});
    q->deletePodGroup(*podGroup("pg"));
    EXPECT_TRUE(q->incompletePodGroupPods().empty());
    EXPECT_EQ(q->whereIs("ns/p1"), QueueName::InFlight);
  }
}

}  // namespace
}  // namespace ks::queue
