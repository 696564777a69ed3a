// Ported from upstream pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go (v1.37.2):
// the cases without composite pod groups (CPG=false).

#include "pkg/scheduler/framework/plugins/gangscheduling/gang_scheduling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "pkg/scheduler/backend/cache/cache.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/pod_group_objects.h"

namespace ks::plugins::gangscheduling {
namespace {

using framework::Code;
using framework::QueueingHint;
using ks::testing::makePodGroup;
using ks::testing::podGroupMember;

api::PodPtr plainPod(const std::string& ns, const std::string& name) {
  api::Pod pod;
  pod.metadata.namespace_ = ns;
  pod.metadata.name = name;
  pod.metadata.uid = name;
  return std::make_shared<const api::Pod>(std::move(pod));
}

api::PodPtr withNode(const api::PodPtr& pod, const std::string& node) {
  api::Pod copy = *pod;
  copy.spec.nodeName = node;
  return std::make_shared<const api::Pod>(std::move(copy));
}

// ---- queueing hints ----

struct HintCase {
  std::string name;
  api::PodPtr pod;
  framework::EventObject oldObj;
  framework::EventObject newObj;
  QueueingHint want;
};

class HintTest : public ::testing::Test {
 protected:
  using Hint = Result<QueueingHint> (GangScheduling::*)(const api::Pod&, const framework::EventObject&,
                                                         const framework::EventObject&) const;
  void run(Hint hint, const std::vector<HintCase>& cases) {
    for (const auto& tc : cases) {
      SCOPED_TRACE(tc.name);
      auto got = (pl_.*hint)(*tc.pod, tc.oldObj, tc.newObj);
      ASSERT_TRUE(got.ok()) << got.error().message();
      EXPECT_EQ(*got, tc.want);
    }
  }

  plugintesting::FakeHandle handle_;
  GangScheduling pl_{handle_};
};

TEST_F(HintTest, IsSchedulableAfterPodAdded) {
  const auto pod = podGroupMember("ns1", "p1", "p1", "pg1");
  const std::vector<HintCase> cases = {
      {"add a newPod which matches the pod's scheduling group", pod, {}, podGroupMember("ns1", "p2", "p2", "pg1"),
       QueueingHint::Queue},
      {"add a newPod with NodeName set which matches the pod's scheduling group", pod, {},
       podGroupMember("ns1", "p2", "p2", "pg1", "node1"), QueueingHint::Queue},
      {"add a newPod which doesn't match the pod's namespace", pod, {}, podGroupMember("ns2", "p2", "p2", "pg1"),
       QueueingHint::QueueSkip},
      {"add a newPod which doesn't match the pod's pod group name", pod, {},
       podGroupMember("ns1", "p2", "p2", "pg2"), QueueingHint::QueueSkip},
      {"add a newPod which belongs to a different scheduling group", pod, {},
       podGroupMember("ns1", "p2", "p2", "pg-other"), QueueingHint::QueueSkip},
      {"add a newPod without a scheduling group", pod, {}, plainPod("ns1", "p2"), QueueingHint::QueueSkip},
      {"the pod has no scheduling group", plainPod("ns1", "p1"), {}, podGroupMember("ns1", "p2", "p2", "pg1"),
       QueueingHint::QueueSkip},
  };
  run(&GangScheduling::isSchedulableAfterPodAdded, cases);
  // Not a pod: an error (the queue then requeues).
  auto bad = pl_.isSchedulableAfterPodAdded(*pod, {}, makePodGroup("ns1", "pg1", 2));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "expected *v1.Pod, but got *v1beta1.PodGroup");
}

TEST_F(HintTest, IsSchedulableAfterPodGroupAdded) {
  const auto pod = podGroupMember("ns1", "p1", "p1", "pg1");
  const std::vector<HintCase> cases = {
      {"add a pod group which matches the pod's pod group name", pod, {}, makePodGroup("ns1", "pg1", 2),
       QueueingHint::Queue},
      {"add a pod group which doesn't match the pod's scheduling group name", pod, {},
       makePodGroup("ns1", "pg2", 2), QueueingHint::QueueSkip},
      {"add a pod group which doesn't match the pod's scheduling group namespace", pod, {},
       makePodGroup("ns2", "pg1", 2), QueueingHint::QueueSkip},
      {"the pod has no scheduling group", plainPod("ns1", "p1"), {}, makePodGroup("ns1", "pg1", 2),
       QueueingHint::QueueSkip},
  };
  run(&GangScheduling::isSchedulableAfterPodGroupAdded, cases);
  auto bad = pl_.isSchedulableAfterPodGroupAdded(*pod, {}, pod);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "expected *v1beta1.PodGroup, but got *v1.Pod");
}

TEST_F(HintTest, IsSchedulableAfterPodGroupUpdated) {
  const auto pod = podGroupMember("ns1", "p1", "p1", "pg1");
  const std::vector<HintCase> cases = {
      {"minCount decreased matches target pod", pod, makePodGroup("ns1", "pg1", 3), makePodGroup("ns1", "pg1", 2),
       QueueingHint::Queue},
      {"update Basic policy", pod, makePodGroup("ns1", "pg1"), makePodGroup("ns1", "pg1"), QueueingHint::QueueSkip},
      {"minCount increased matches target pod", pod, makePodGroup("ns1", "pg1", 2), makePodGroup("ns1", "pg1", 3),
       QueueingHint::QueueSkip},
      {"minCount unchanged matches target pod", pod, makePodGroup("ns1", "pg1", 2), makePodGroup("ns1", "pg1", 2),
       QueueingHint::QueueSkip},
      {"minCount decreased but pod group name doesn't match target pod", pod, makePodGroup("ns1", "pg2", 3),
       makePodGroup("ns1", "pg2", 2), QueueingHint::QueueSkip},
      {"minCount decreased but pod group namespace doesn't match target pod", pod, makePodGroup("ns2", "pg1", 3),
       makePodGroup("ns2", "pg1", 2), QueueingHint::QueueSkip},
      {"pod without a scheduling group is skipped", plainPod("ns1", "p1"), makePodGroup("ns1", "pg1", 3),
       makePodGroup("ns1", "pg1", 2), QueueingHint::QueueSkip},
  };
  run(&GangScheduling::isSchedulableAfterPodGroupUpdated, cases);
}

TEST_F(HintTest, EventsToRegister) {
  auto events = pl_.eventsToRegister();
  ASSERT_TRUE(events.ok());
  std::vector<framework::ClusterEvent> got;
  for (const auto& e : *events) {
    got.push_back(e.event);
    EXPECT_TRUE(e.queueingHintFn != nullptr);
  }
  using framework::EventResource;
  namespace action = framework::action;
  const std::vector<framework::ClusterEvent> want = {{EventResource::UnscheduledPod, action::Add, {}},
                                                     {EventResource::AssignedPod, action::Add, {}},
                                                     {EventResource::PodGroup, action::Add, {}},
                                                     {EventResource::PodGroup, action::Update, {}}};
  EXPECT_EQ(got, want);
}

// ---- PreEnqueue and Permit (upstream TestGangSchedulingFlow) ----

// A pod waiting at Permit that records who allowed it.
class RecordingWaitingPod final : public framework::WaitingPod {
 public:
  explicit RecordingWaitingPod(api::PodPtr pod) : pod_(std::move(pod)) {}
  const api::Pod& pod() const override { return *pod_; }
  std::vector<std::string> pendingPlugins() const override {
    std::lock_guard lock(mu_);
    if (allowedBy_.contains(std::string(GangScheduling::kName))) return {};
    return {std::string(GangScheduling::kName)};
  }
  void allow(const std::string& pluginName) override {
    std::lock_guard lock(mu_);
    allowedBy_.insert(pluginName);
  }
  bool reject(const std::string&, const std::string&) override { return false; }
  bool preempt(const std::string&, const std::string&) override { return false; }
  bool allowed() const { return pendingPlugins().empty(); }

 private:
  api::PodPtr pod_;
  mutable std::mutex mu_;
  std::set<std::string> allowedBy_;
};

// The plugin over a cache with GenericWorkload (its live pod groups) and a snapshot of it.
struct CacheEnv {
  static cache::CacheOptions genericWorkload() {
    cache::CacheOptions opts;
    opts.genericWorkload = true;
    return opts;
  }
  CacheEnv() {
    handle.setPodGroupManager(&cache);
    handle.setSnapshotSharedLister(&snapshot);
  }
  cache::CacheImpl cache{genericWorkload()};
  cache::Snapshot snapshot;
  plugintesting::FakeHandle handle;
  GangScheduling pl{handle};
};

struct FlowCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::PodPtr> initialPods;
  std::vector<framework::PodGroupPtr> initialPodGroups;
  std::vector<api::PodPtr> podsWaitingOnPermit;
  framework::Status wantPreEnqueue;
  framework::Status wantPermit;
  std::vector<std::string> wantActivated;  // names
  std::vector<std::string> wantAllowed;    // uids
};

TEST(GangSchedulingTest, Flow) {
  const auto gang1 = makePodGroup("ns1", "pg1", 3);
  const auto gang2 = makePodGroup("ns1", "pg2", 4);
  const auto basic = makePodGroup("ns1", "pg3");
  const auto p1 = podGroupMember("ns1", "p1", "p1", "pg1");
  const auto p2 = podGroupMember("ns1", "p2", "p2", "pg1");
  const auto p3 = podGroupMember("ns1", "p3", "p3", "pg1");
  const auto p4 = podGroupMember("ns1", "p4", "p4", "pg2");
  const auto p5 = podGroupMember("ns1", "p5", "p5", "pg2");
  const auto basicPod = podGroupMember("ns1", "basic-pod", "basic-pod", "pg3");
  const auto nonGang = plainPod("ns1", "non-gang");

  const std::vector<FlowCase> cases = {
      {"non-gang pod succeeds immediately", nonGang, {}, {gang1, gang2, basic}, {}, {}, {}, {}, {}},
      {"basic policy pod succeeds immediately", basicPod, {}, {gang1, gang2, basic}, {}, {}, {}, {}, {}},
      {"gang pod fails PreEnqueue when pod group is not yet created",
       p1,
       {p2, p3, p4, p5},
       {},
       {},
       framework::Status(Code::UnschedulableAndUnresolvable,
                         "waiting for pods's pod group \"pg1\" to appear in scheduling queue"),
       {},
       {},
       {}},
      {"gang pod fails PreEnqueue when quorum is not met",
       p1,
       {p2, p4, p5},
       {gang1, gang2},
       {},
       framework::Status(Code::UnschedulableAndUnresolvable,
                         "waiting for minCount pods from a gang to appear in scheduling queue"),
       {},
       {},
       {}},
      {"gang pod passes PreEnqueue, but waits at Permit",
       p1,
       {p2, p3, p4, p5},
       {gang1, gang2},
       {p2, p4, p5},
       {},
       framework::Status(Code::Wait, "waiting for minCount pods from a gang to be scheduled"),
       {"p3"},
       {}},
      {"final gang pod arrives at Permit and allows all waiting pods from a gang",
       p1,
       {p2, p3, p4, p5},
       {gang1, gang2},
       {p2, p3, p4, p5},
       {},
       {},
       {},
       {"p2", "p3"}},
  };

  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CacheEnv env;
    auto& [cache, snapshot, handle, pl] = env;
    for (const auto& pg : tc.initialPodGroups) cache.addPodGroup(pg);
    for (const auto& p : tc.initialPods) cache.addPodGroupMember(p);
    cache.addPodGroupMember(tc.pod);

    const framework::Status gotPreEnqueue = pl.preEnqueue(*framework::PodInfo::create(tc.pod));
    EXPECT_EQ(gotPreEnqueue, tc.wantPreEnqueue);
    if (!gotPreEnqueue.isSuccess()) continue;

    ASSERT_TRUE(cache.updateSnapshot(snapshot).ok());
    // Other members already reached Permit and wait there.
    std::map<std::string, std::shared_ptr<RecordingWaitingPod>> waiting;
    for (const auto& p : tc.podsWaitingOnPermit) {
      const auto assumed = withNode(p, "some-node");
      ASSERT_TRUE(cache.assumePod(assumed).ok());
      framework::CycleState state;
      std::chrono::milliseconds timeout{0};
      const framework::Status s = pl.permit(state, *framework::PodInfo::create(assumed), "some-node", timeout);
      ASSERT_EQ(s.code(), Code::Wait) << p->metadata.name << ": " << s.message();
      EXPECT_EQ(timeout, kPermitTimeout);
      auto wp = std::make_shared<RecordingWaitingPod>(assumed);
      waiting[assumed->metadata.uid] = wp;
      handle.addWaitingPod(wp);
    }
    const std::size_t activatedBefore = handle.activatedPods().size();

    // A pod-by-pod cycle: the pod is assumed in the cache and Permit reads it there.
    const auto pod = withNode(tc.pod, "some-node");
    ASSERT_TRUE(cache.assumePod(pod).ok());
    ASSERT_TRUE(cache.updateSnapshot(snapshot).ok());
    framework::CycleState state;
    std::chrono::milliseconds timeout{0};
    const framework::Status gotPermit = pl.permit(state, *framework::PodInfo::create(pod), "some-node", timeout);
    EXPECT_EQ(gotPermit, tc.wantPermit);

    std::vector<std::string> activated;
    const auto all = handle.activatedPods();
    for (std::size_t i = activatedBefore; i < all.size(); ++i) activated.push_back(all[i]->metadata.name);
    EXPECT_EQ(activated, tc.wantActivated);
    std::vector<std::string> allowed;
    for (const auto& [uid, wp] : waiting) {
      if (wp->allowed()) allowed.push_back(uid);
    }
    EXPECT_EQ(allowed, tc.wantAllowed);
    if (gotPermit.code() == Code::Wait) {
      EXPECT_TRUE(cache.forgetPod(*pod).ok());
    }
  }
}

TEST(GangSchedulingTest, PermitWithoutSnapshotGroup) {
  CacheEnv env;
  GangScheduling& pl = env.pl;
  const auto pod = podGroupMember("ns1", "p1", "p1", "pg1", "node1");
  framework::CycleState state;
  std::chrono::milliseconds timeout{0};
  const framework::Status s = pl.permit(state, *framework::PodInfo::create(pod), "node1", timeout);
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "failed to get podGroup ns1/pg1: pod group state not found for pod group ns1/pg1");
}

// ---- PlacementFeasible (upstream TestPlacementFeasible, isCPG=false, cpgFeatureGate=false) ----

struct PlacementCase {
  std::string name;
  int32_t minCount;  // 0: basic policy
  int childrenCount;
  std::vector<Code> podStatuses;
  std::vector<Code> expectedStatuses;
  int initialScheduledCount;
};

TEST(GangSchedulingTest, PlacementFeasible) {
  const std::vector<PlacementCase> cases = {
      {"All pods succeed, minCount met at end", 2, 2, {Code::Success, Code::Success}, {Code::Wait, Code::Success}, 0},
      {"First pod fails, minCount not satisfiable", 3, 3, {Code::Unschedulable}, {Code::Unschedulable}, 0},
      {"Second pod fails, minCount not satisfiable", 2, 2, {Code::Success, Code::Unschedulable},
       {Code::Wait, Code::Unschedulable}, 0},
      {"Non-gang pod group with 0 scheduled pods fails", 0, 1, {Code::Unschedulable}, {Code::Unschedulable}, 0},
      {"Non-gang pod group with succeeds once 1 pod is scheduled", 0, 1, {Code::Success}, {Code::Success}, 0},
      {"Non-gang pod group with 1 initially scheduled pod succeeds", 0, 1, {Code::Unschedulable}, {Code::Success}, 1},
      {"More than minCount pods, all succeed", 2, 3, {Code::Success, Code::Success, Code::Success},
       {Code::Wait, Code::Success, Code::Success}, 0},
      {"More than minCount pods, first fails", 2, 3, {Code::Unschedulable, Code::Success, Code::Success},
       {Code::Wait, Code::Wait, Code::Success}, 0},
      {"More than minCount pods, minCount not satisfiable", 2, 3, {Code::Unschedulable, Code::Unschedulable},
       {Code::Wait, Code::Unschedulable}, 0},
      {"1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met", 3, 2, {Code::Success, Code::Success},
       {Code::Wait, Code::Success}, 1},
      {"minCount already met by scheduled pods", 2, 1, {Code::Unschedulable}, {Code::Success}, 2},
      {"1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining", 3, 2, {Code::Unschedulable},
       {Code::Unschedulable}, 1},
      {"1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining", 4, 2, {Code::Success},
       {Code::Unschedulable}, 1},
  };
  plugintesting::FakeHandle handle;
  GangScheduling pl(handle);
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    framework::PodGroupInfo group;
    group.namespace_ = "default";
    group.name = "test-pg";
    group.podGroup = tc.minCount > 0 ? makePodGroup("default", "test-pg", tc.minCount)
                                     : makePodGroup("default", "test-pg");
    framework::CycleState state;
    int scheduled = tc.initialScheduledCount;
    for (std::size_t i = 0; i < tc.podStatuses.size(); ++i) {
      if (tc.podStatuses[i] == Code::Success) ++scheduled;
      framework::PlacementProgress progress{tc.childrenCount - static_cast<int>(i + 1), scheduled};
      EXPECT_EQ(pl.placementFeasible(state, group, progress).code(), tc.expectedStatuses[i]) << "step " << i;
    }
  }
  // The messages.
  framework::PodGroupInfo group;
  group.podGroup = makePodGroup("default", "test-pg", 3);
  framework::CycleState state;
  EXPECT_EQ(pl.placementFeasible(state, group, {1, 1}),
            framework::Status(Code::Unschedulable, "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"));
  EXPECT_EQ(pl.placementFeasible(state, group, {2, 1}),
            framework::Status(Code::Wait, "minCount (3) is not yet satisfied: 1 scheduled, 2 remaining"));
  EXPECT_TRUE(pl.placementFeasible(state, group, {0, 3}).isSuccess());
}

}  // namespace
}  // namespace ks::plugins::gangscheduling
