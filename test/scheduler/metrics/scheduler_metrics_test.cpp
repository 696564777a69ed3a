// The whole scheduler in process (as test/scheduler/core/scheduler_test.cpp) with a metrics::Metrics:
// schedules a few pods, one of them unschedulable until a fitting node appears, and reads the scrape.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "test/scheduler/running_scheduler.h"
#include "test/scheduler/metrics/scrape.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using metrics::testing::Labels;
using metrics::testing::sum;

const char* kProfile = "default-scheduler";

std::string configYaml() {
  std::string disabled;
  for (const auto& name : plugins::notYetImplementedPlugins()) disabled += "      - name: " + name + "\n";
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "leaderElection:\n  leaderElect: false\n"
         "profiles:\n"
         "- schedulerName: default-scheduler\n"
         "  plugins:\n    multiPoint:\n      disabled:\n" +
         disabled;
}

class SchedulerMetricsTest : public ::testing::Test {
 protected:
  void start() {
    auto cfg = config::decodeConfig(configYaml());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    SchedulerOptions opts;
    opts.metrics = &metrics_;
    sched_.start(client_, *cfg, plugins::newInTreeRegistry(), opts);
  }

  void TearDown() override {
    sched_.stop();
  }

  bool eventually(const std::function<bool()>& pred) { return testing::eventually(pred); }
  bool bound(const std::string& name) {
    auto p = client_.get<api::Pod>("default", name);
    return p.ok() && !p->spec.nodeName.empty();
  }
  double scraped(std::string_view name, const Labels& labels = {}) {
    return sum(metrics_.scrape(), name, labels);
  }

  metrics::Metrics metrics_;
  client::MemoryClient client_;
  testing::RunningScheduler sched_;
};

TEST_F(SchedulerMetricsTest, FrameworkQueueAndEventHandlerMetrics) {
  ASSERT_TRUE(client_.create(MakeNode().name("n1").label("zone", "a").obj()).ok());
  ASSERT_TRUE(client_.create(MakeNode().name("n2").label("zone", "b").obj()).ok());
  start();
  ASSERT_TRUE(
      client_.create(MakePod().name("a1").namespace_("default").nodeAffinityIn("zone", {"a"}).obj()).ok());
  ASSERT_TRUE(
      client_.create(MakePod().name("b1").namespace_("default").nodeAffinityIn("zone", {"b"}).obj()).ok());
  ASSERT_TRUE(client_.create(MakePod().name("any").namespace_("default").obj()).ok());
  ASSERT_TRUE(
      client_.create(MakePod().name("c1").namespace_("default").nodeAffinityIn("zone", {"c"}).obj()).ok());
  for (const char* name : {"a1", "b1", "any"}) ASSERT_TRUE(eventually([&] { return bound(name); })) << name;

  // c1 waits in unschedulablePods, rejected by NodeAffinity.
  const Labels nodeAffinity{{"plugin", "NodeAffinity"}, {"profile", kProfile}};
  ASSERT_TRUE(eventually([&] { return scraped("scheduler_unschedulable_pods", nodeAffinity) == 1; }))
      << metrics_.scrape();
  ASSERT_TRUE(eventually([&] {
    return scraped("scheduler_pending_pods", {{"queue", "unschedulable"}}) == 1 &&
           scraped("scheduler_event_handling_duration_seconds_count", {{"event", "AssignedPodAdd"}}) == 3;
  })) << metrics_.scrape();

  std::string text = metrics_.scrape();
  // Extension points, with the profile label; Filter once per cycle (4 cycles), timed by the scheduler.
  const char* kExtension = "scheduler_framework_extension_point_duration_seconds_count";
  auto extension = [&](const char* point, const char* status = "Success") {
    return sum(text, kExtension, {{"extension_point", point}, {"status", status}, {"profile", kProfile}});
  };
  EXPECT_EQ(extension("PreFilter"), 4);
  EXPECT_EQ(extension("Filter"), 4);
  EXPECT_GE(extension("PreScore"), 1);  // only "any" had more than one feasible node
  EXPECT_GE(extension("Score"), 1);
  EXPECT_EQ(extension("Reserve"), 3);
  EXPECT_EQ(extension("Permit"), 3);
  EXPECT_EQ(extension("PreBind"), 3);
  EXPECT_EQ(extension("Bind"), 3);
  EXPECT_EQ(extension("PostBind"), 3);
  EXPECT_GE(extension("PreEnqueue"), 4);
  // Evaluations: NodeAffinity's PreFilter skipped "any" (no affinity), so its Filter ran on both nodes in
  // the other 3 cycles only.
  EXPECT_EQ(sum(text, "scheduler_plugin_evaluation_total",
                {{"plugin", "NodeAffinity"}, {"extension_point", "PreFilter"}, {"profile", kProfile}}),
            3);
  EXPECT_EQ(sum(text, "scheduler_plugin_evaluation_total",
                {{"plugin", "NodeAffinity"}, {"extension_point", "Filter"}, {"profile", kProfile}}),
            6);
  // Queue: every pod came in as an add; c1 went back after its failed attempt.
  const char* kIncoming = "scheduler_queue_incoming_pods_total";
  EXPECT_EQ(sum(text, kIncoming, {{"queue", "active"}, {"event", "UnscheduledPodAdd"}}), 4);
  EXPECT_EQ(sum(text, kIncoming, {{"queue", "unschedulable"}, {"event", "ScheduleAttemptFailure"}}), 1);
  // Event handlers, with upstream's labels.
  const char* kHandling = "scheduler_event_handling_duration_seconds_count";
  EXPECT_EQ(sum(text, kHandling, {{"event", "NodeAdd"}}), 2);
  EXPECT_EQ(sum(text, kHandling, {{"event", "UnscheduledPodAdd"}}), 4);
  // Scheduler-level metrics are still there.
  EXPECT_EQ(sum(text, "scheduler_schedule_attempts_total", {{"result", "scheduled"}, {"profile", kProfile}}),
            3);
  EXPECT_EQ(
      sum(text, "scheduler_schedule_attempts_total", {{"result", "unschedulable"}, {"profile", kProfile}}),
      1);

  // A fitting node: the NodeAdd event moves c1, which binds; its NodeAffinity rejection no longer counts.
  ASSERT_TRUE(client_.create(MakeNode().name("n3").label("zone", "c").obj()).ok());
  ASSERT_TRUE(eventually([&] { return bound("c1"); }));
  ASSERT_TRUE(eventually([&] { return scraped("scheduler_unschedulable_pods", nodeAffinity) == 0; }));
  text = metrics_.scrape();
  EXPECT_EQ(sum(text, kIncoming, {{"event", "NodeAdd"}}), 1);
  EXPECT_EQ(sum(text, kHandling, {{"event", "NodeAdd"}}), 3);
  EXPECT_EQ(sum(text, "scheduler_queueing_hint_execution_duration_seconds_count",
                {{"plugin", "NodeAffinity"}, {"event", "NodeAdd"}, {"hint", "Queue"}}),
            1);
  EXPECT_EQ(extension("Bind"), 4);
  // No pod is in flight any more.
  EXPECT_TRUE(eventually([&] {
    return scraped("scheduler_inflight_events", {{"event", "PodPopped"}}) == 0;
  }));
}

}  // namespace
}  // namespace ks::scheduler
