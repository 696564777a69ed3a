// The pod-group cycle through the whole scheduler (in-memory API, informers, queue, in-tree plugins with
// GangScheduling), GenericWorkload on: all or nothing, the quorum gate, a group that appears late, the
// validation errors, the PodGroupInitiallyScheduled condition and the scheduler_podgroup_* metrics. The
// messages are upstream's (schedule_one_podgroup.go, gangscheduling.go), checked against the v1.37.2 binary,
// including the reason PodGroupPostFilter appends to a failed group's verdict.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/util/manual_clock.h"
#include "test/scheduler/metrics/scrape.h"
#include "test/scheduler/running_scheduler.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using testing::eventually;

class PodGroupCycleTest : public ::testing::Test {
 protected:
  void start() {
    config::DecodeOptions decode;
    decode.features.genericWorkload = true;
    auto cfg = config::decodeConfig(testing::defaultProfileWithoutPreemption(), decode);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    SchedulerOptions opts;
    opts.clock = &clock_;
    opts.metrics = &metrics_;
    opts.genericWorkload = true;
    sched_.start(client_, *cfg, plugins::newInTreeRegistry(), opts);
  }
  void TearDown() override { sched_.stop(); }

  void node(const std::string& name, const std::string& cpu) {
    ASSERT_TRUE(client_.create(MakeNode().name(name).capacity({{"cpu", cpu}, {"memory", "4Gi"}, {"pods", "10"}}).obj()).ok());
  }
  // A gang of minCount, or a basic group for 0.
  void podGroup(const std::string& name, int minCount) {
    api::PodGroup g;
    g.metadata.namespace_ = "default";
    g.metadata.name = name;
    g.metadata.generation = 1;
    if (minCount > 0) {
      g.spec.schedulingPolicy.gang = api::GangSchedulingPolicy{minCount};
    } else {
      g.spec.schedulingPolicy.basic = api::EmptyObject{};
    }
    ASSERT_TRUE(client_.create(g).ok());
  }
  void member(const std::string& name, const std::string& group, int32_t priority = 0) {
    api::Pod p = MakePod().name(name).namespace_("default").req({{"cpu", "1"}}).obj();
    p.spec.schedulingGroup = api::PodSchedulingGroup{group};
    if (priority != 0) p.spec.priority = priority;
    ASSERT_TRUE(client_.create(p).ok());
  }

  api::Pod pod(const std::string& name) {
    auto p = client_.get<api::Pod>("default", name);
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : api::Pod{};
  }
  // The PodScheduled=False condition's "reason: message" ("" when none).
  std::string failure(const std::string& name) {
    for (const auto& c : pod(name).status.conditions) {
      if (c.type == "PodScheduled" && c.status == "False") return c.reason + ": " + c.message;
    }
    return "";
  }
  // The group's PodGroupInitiallyScheduled condition as "status/reason: message" ("" when none).
  std::string groupCondition(const std::string& name) {
    auto g = client_.get<api::PodGroup>("default", name);
    if (!g.ok()) return "";
    for (const auto& c : g->status.conditions) {
      if (c.type == "PodGroupInitiallyScheduled") return c.status + "/" + c.reason + ": " + c.message;
    }
    return "";
  }
  bool bound(const std::vector<std::string>& names) {
    for (const auto& n : names) {
      if (pod(n).spec.nodeName.empty()) return false;
    }
    return true;
  }
  double metric(const std::string& name, const metrics::testing::Labels& labels) {
    return metrics::testing::sum(metrics_.scrape(), name, labels);
  }

  client::MemoryClient client_;
  ManualClock clock_;
  metrics::Metrics metrics_;
  testing::RunningScheduler sched_;
};

// Two of the three members fit: none is bound. The two that fitted read the group's verdict, the third
// its own FitError; the group says Unschedulable. A second node lets the whole gang in.
TEST_F(PodGroupCycleTest, GangIsPlacedAllOrNothing) {
  node("n1", "2");
  podGroup("pg", 3);
  for (const char* p : {"p1", "p2", "p3"}) member(p, "pg");
  start();
  // The group's verdict, with DynamicResources' PodGroupPostFilter reason appended (the profile has no
  // DefaultPreemption), as upstream v1.37.2's binary writes it.
  const std::string groupVerdict =
      "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, deallocation and deletion of ResourceClaims "
      "completed";
  ASSERT_TRUE(eventually([&] { return !failure("p3").empty() && !failure("p1").empty(); })) << failure("p1");
  EXPECT_EQ(failure("p1"), "Unschedulable: pod group is unschedulable, " + groupVerdict);
  EXPECT_EQ(failure("p2"), "Unschedulable: pod group is unschedulable, " + groupVerdict);
  EXPECT_EQ(failure("p3"), "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.");
  ASSERT_TRUE(eventually([&] { return !groupCondition("pg").empty(); }));
  EXPECT_EQ(groupCondition("pg"), "False/Unschedulable: " + groupVerdict);
  EXPECT_FALSE(bound({"p1"}) || bound({"p2"}) || bound({"p3"}));
  // The attempt is counted after the condition is written.
  auto attempts = [&](const std::string& result) {
    return metric("scheduler_podgroup_schedule_attempts_total",
                  {{"result", result}, {"profile", "default-scheduler"}});
  };
  EXPECT_TRUE(eventually([&] { return attempts("unschedulable") == 1; })) << attempts("unschedulable");

  // A rejected group retries after its backoff (upstream AddAttemptedPodGroupIfNeeded), not on events.
  node("n2", "2");
  ASSERT_TRUE(eventually([&] {
    clock_.step(1s);
    return bound({"p1", "p2", "p3"});
  })) << failure("p1");
  ASSERT_TRUE(eventually([&] { return groupCondition("pg") == "True/Scheduled: "; })) << groupCondition("pg");
  EXPECT_TRUE(eventually([&] { return attempts("scheduled") == 1; })) << attempts("scheduled");
  EXPECT_GE(metric("scheduler_podgroup_scheduling_algorithm_duration_seconds_count", {}), 2);
}

// Below quorum the members are gated at PreEnqueue: no attempt, no condition. The third member lets the
// group in.
TEST_F(PodGroupCycleTest, GangWaitsForQuorum) {
  node("n1", "4");
  podGroup("pg", 3);
  member("p1", "pg");
  member("p2", "pg");
  start();
  ASSERT_TRUE(eventually([&] { return sched_->schedulingQueue().pendingCounts().gated == 2; }));
  EXPECT_EQ(failure("p1"), "");
  EXPECT_EQ(groupCondition("pg"), "");
  member("p3", "pg");
  ASSERT_TRUE(eventually([&] { return bound({"p1", "p2", "p3"}); }));
}

// Members whose PodGroup does not exist yet wait; once it appears they are scheduled together.
TEST_F(PodGroupCycleTest, MembersWaitForTheirPodGroup) {
  node("n1", "4");
  member("p1", "pg");
  member("p2", "pg");
  start();
  ASSERT_TRUE(eventually([&] { return sched_->schedulingQueue().pendingCounts().incomplete == 2; }));
  EXPECT_FALSE(bound({"p1"}) || bound({"p2"}));
  podGroup("pg", 2);
  ASSERT_TRUE(eventually([&] { return bound({"p1", "p2"}); }));
}

// A basic group places what fits, without a quorum.
TEST_F(PodGroupCycleTest, BasicGroupPlacesWhatFits) {
  node("n1", "2");
  podGroup("pg", 0);
  for (const char* p : {"p1", "p2", "p3"}) member(p, "pg");
  start();
  ASSERT_TRUE(eventually([&] { return bound({"p1", "p2"}); }));
  ASSERT_TRUE(eventually([&] { return !failure("p3").empty(); }));
  EXPECT_EQ(failure("p3"), "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_FALSE(bound({"p3"}));
}

// Upstream TestValidatePodGroup: a member whose priority is not the group's fails the group with a
// SchedulerError, on the pods and the group.
TEST_F(PodGroupCycleTest, MemberPriorityDifferentFromTheGroupsIsAnError) {
  node("n1", "4");
  podGroup("pg", 2);
  member("p1", "pg");
  member("p2", "pg", 5);
  start();
  const std::string err =
      "all pods in a single pod group should have the same priority as the pod group's priority, got 5 and 0";
  ASSERT_TRUE(eventually([&] { return !failure("p2").empty() && !groupCondition("pg").empty(); }));
  EXPECT_EQ(failure("p2"), "SchedulerError: " + err);
  EXPECT_EQ(groupCondition("pg"), "False/SchedulerError: " + err);
  EXPECT_FALSE(bound({"p1"}) || bound({"p2"}));
}

}  // namespace
}  // namespace ks::scheduler
