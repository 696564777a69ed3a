// Ported from upstream pkg/scheduler/backend/cache/podgroupstate_test.go (v1.37.2), without the composite
// pod group test.

#include "pkg/scheduler/backend/cache/pod_group_state.h"

#include <gtest/gtest.h>

#include "test/support/pod_group_objects.h"

namespace ks::cache {
namespace {

using ks::testing::podGroupMember;

TEST(PodGroupStateTest, AssumeForget) {
  PodGroupStateData pgs;
  const auto pod = podGroupMember("ns1", "p1", "p1", "pg1");
  pgs.addPod(pod);
  EXPECT_FALSE(pgs.assumedPods.contains("p1"));
  EXPECT_TRUE(pgs.unscheduledPods.contains("p1"));

  pgs.assumePod(pod);
  EXPECT_TRUE(pgs.assumedPods.contains("p1"));
  EXPECT_FALSE(pgs.unscheduledPods.contains("p1"));

  pgs.forgetPod("p1");
  EXPECT_FALSE(pgs.assumedPods.contains("p1"));
  EXPECT_TRUE(pgs.unscheduledPods.contains("p1"));
}

TEST(PodGroupStateTest, Clone) {
  PodGroupStateImpl live;
  const auto pod1 = podGroupMember("ns1", "p1", "p1", "pg");
  const auto pod2 = podGroupMember("ns1", "p2", "p2", "pg");
  live.mutate([&](PodGroupStateData& d) {
    d.addPod(pod1);
    d.addPod(pod2);
    d.assumePod(pod2);
  });
  PodGroupStateSnapshot snap(live.read([](const PodGroupStateData& d) { return d; }));

  EXPECT_EQ(snap.data().generation, live.read([](const PodGroupStateData& d) { return d.generation; }));
  EXPECT_TRUE(snap.data().allPods.contains("p1"));
  EXPECT_TRUE(snap.data().allPods.contains("p2"));
  ASSERT_EQ(snap.unscheduledPods().size(), 1u);
  EXPECT_EQ(snap.unscheduledPods()[0]->metadata.name, "p1");
  EXPECT_EQ(snap.assumedPodUids(), std::vector<std::string>{"p2"});

  // Mutating the clone leaves the original alone, and the other way round.
  snap.data().assumePod(pod1);
  EXPECT_FALSE(live.read([](const PodGroupStateData& d) { return d.assumedPods.contains("p1"); }));
  const auto pod3 = podGroupMember("ns1", "p3", "p3", "pg");
  live.mutate([&](PodGroupStateData& d) { d.addPod(pod3); });
  EXPECT_FALSE(snap.data().allPods.contains("p3"));
}

TEST(PodGroupStateTest, PodCounts) {
  PodGroupStateImpl pgs;
  const auto pod1 = podGroupMember("ns1", "p1", "p1", "pg1");
  const auto pod2 = podGroupMember("ns1", "p2", "p2", "pg1");
  const auto pod3 = podGroupMember("ns1", "p3", "p3", "pg1", "node1");
  const auto pod4 = podGroupMember("ns1", "p4", "p4", "pg1");
  auto expectCounts = [&pgs](int all, int scheduled) {
    EXPECT_EQ(pgs.allPodsCount(), all);
    EXPECT_EQ(pgs.scheduledPodsCount(), scheduled);
  };
  auto apply = [&pgs](auto fn) { pgs.mutate(fn); };

  expectCounts(0, 0);
  apply([&](PodGroupStateData& d) {
    d.addPod(pod1);
    d.addPod(pod2);
    d.addPod(pod3);
  });
  expectCounts(3, 1);
  // Assuming moves a pod from unscheduled to assumed.
  apply([&](PodGroupStateData& d) { d.assumePod(pod1); });
  expectCounts(3, 2);
  // Assuming a pod already scheduled changes nothing.
  apply([&](PodGroupStateData& d) { d.assumePod(pod3); });
  expectCounts(3, 2);
  // Assuming a pod not in the state changes nothing.
  apply([&](PodGroupStateData& d) { d.assumePod(pod4); });
  expectCounts(3, 2);
  // Forgetting an assigned pod changes nothing.
  apply([](PodGroupStateData& d) { d.forgetPod("p3"); });
  expectCounts(3, 2);
  // Forgetting an assumed pod makes it unscheduled again.
  apply([](PodGroupStateData& d) { d.forgetPod("p1"); });
  expectCounts(3, 1);
  // Forgetting a pod that isn't assumed changes nothing.
  apply([](PodGroupStateData& d) { d.forgetPod("p1"); });
  expectCounts(3, 1);
  apply([&](PodGroupStateData& d) { d.assumePod(pod2); });
  expectCounts(3, 2);
  // Forgetting a pod not in the state changes nothing.
  apply([](PodGroupStateData& d) { d.forgetPod("p4"); });
  expectCounts(3, 2);
}

TEST(PodGroupStateTest, ScheduledPods) {
  PodGroupStateImpl pgs;
  const auto unscheduledPod = podGroupMember("ns", "p1", "p1", "pg");
  const auto assumedPod = podGroupMember("ns", "p2", "p2", "pg");
  const auto assignedPod = podGroupMember("ns", "p3", "p3", "pg", "node1");
  pgs.mutate([&](PodGroupStateData& d) {
    d.addPod(assignedPod);
    d.addPod(unscheduledPod);
    d.addPod(assumedPod);
  });
  // The scheduler assumes the pod on a node: the assumed object is the one with the node.
  const auto assumedWithNode = podGroupMember("ns", "p2", "p2", "pg", "node2");
  pgs.mutate([&](PodGroupStateData& d) { d.assumePod(assumedWithNode); });
  const std::vector<api::PodPtr> scheduled = pgs.scheduledPods();

  PodGroupStateSnapshot snapshot(pgs.read([](const PodGroupStateData& d) { return d; }));
  pgs.mutate([&](PodGroupStateData& d) { d.assumePod(unscheduledPod); });

  const std::vector<api::PodPtr> want = {assignedPod, assumedWithNode};
  EXPECT_EQ(scheduled, want);
  EXPECT_EQ(snapshot.scheduledPods(), want);
}

// Generations are process-wide: a group re-created under the same name never repeats one.
TEST(PodGroupStateTest, GenerationsNeverRepeat) {
  PodGroupStateData a;
  a.addPod(podGroupMember("ns", "p1", "p1", "pg"));
  PodGroupStateData b;
  b.addPod(podGroupMember("ns", "p1", "p1", "pg"));
  EXPECT_LT(a.generation, b.generation);
}

}  // namespace
}  // namespace ks::cache
