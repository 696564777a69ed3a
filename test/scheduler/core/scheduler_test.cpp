// The whole scheduler in process: in-memory API -> informers -> cache/queue -> framework with the
// in-tree plugins -> binding through the API. No mocks between the pieces.
#include "pkg/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <thread>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using ks::testing::MakeNode;
using ks::testing::MakePod;

// The default profile minus the upstream plugins not implemented yet.
std::string configYaml(const std::string& schedulerName = "default-scheduler") {
  std::string disabled;
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

class SchedulerTest : public ::testing::Test {
 protected:
  void start(const std::string& yaml = configYaml()) {
    auto cfg = config::decodeConfig(yaml);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    recorder_ = std::make_unique<ApiEventRecorder>(client_);
    SchedulerOptions opts;
    opts.seed = 1;
    opts.eventRecorder = recorder_.get();
    auto s = Scheduler::create(client_, *cfg, plugins::newInTreeRegistry(), opts);
    ASSERT_TRUE(s.ok()) << s.error().message();
    sched_ = std::move(s).value();
    informer::SharedInformerFactoryOptions fo;
    fo.podFieldSelector = std::string(informer::kSchedulerPodFieldSelector);
    factory_ = std::make_unique<informer::SharedInformerFactory>(client_, fo);
    sched_->addEventHandlers(*factory_);
    factory_->start();
    ASSERT_TRUE(factory_->waitForCacheSync(10s));
    runner_ = std::jthread([this](std::stop_token stop) { sched_->run(stop); });
  }

  void TearDown() override {
    runner_ = {};
    if (sched_) sched_->close();
    if (factory_) factory_->stop();
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
  static bool bound(const api::Pod& p) { return !p.spec.nodeName.empty(); }
  static const api::PodCondition* scheduledCondition(const api::Pod& p) {
    for (const auto& c : p.status.conditions) {
      if (c.type == "PodScheduled") return &c;
    }
    return nullptr;
  }

  client::MemoryClient client_;
  std::unique_ptr<ApiEventRecorder> recorder_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<informer::SharedInformerFactory> factory_;
  std::jthread runner_;
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
  // The binding set PodScheduled=True (API server side) and we reported Scheduled.
  recorder_->flush();
  bool sawScheduled = false;
  for (const auto& e : client_.objects<api::Event>()) {
    if (e->reason == "Scheduled" && e->regarding.name == "wants-b") {
      EXPECT_EQ(e->note, "Successfully assigned default/wants-b to zone-b");
      EXPECT_EQ(e->type, "Normal");
      sawScheduled = true;
    }
  }
  EXPECT_TRUE(sawScheduled);
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
      "untolerated "
      "taint {dedicated: gpu}.";
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
  // A fitting node arrives: the NodeAdd event requeues the pod (no 5-minute flush needed).
  const auto added = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_.create(MakeNode().name("n3").label("zone", "b").obj()).ok());
  ASSERT_TRUE(waitForPod("p", bound, 15s));
  EXPECT_EQ(nodeOf("p"), "n3");
  EXPECT_LT(std::chrono::steady_clock::now() - added, 12s) << "event-driven requeue (backoff at most 10 s)";
}

TEST_F(SchedulerTest, IgnoresPodsOfOtherSchedulers) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").obj()).ok());
  start(configYaml("kube-scheduler-cpp"));
  ASSERT_TRUE(
      client_.create(MakePod().name("ours").namespace_("default").schedulerName("kube-scheduler-cpp").obj())
          .ok());
  ASSERT_TRUE(client_.create(MakePod().name("theirs").namespace_("default").obj()).ok());
  ASSERT_TRUE(waitForPod("ours", bound));
  std::this_thread::sleep_for(200ms);
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
  ASSERT_TRUE(waitForPod("p", bound, 15s));
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

TEST(SchedulerCreateTest, UnimplementedDefaultPluginsGiveClearError) {
  client::MemoryClient client;
  auto cfg =
      config::decodeConfig("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  auto s = Scheduler::create(client, *cfg, plugins::newInTreeRegistry());
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
