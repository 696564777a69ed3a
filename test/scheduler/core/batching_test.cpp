// Opportunistic batching through the whole scheduler (in-memory API, informers, queue, in-tree plugins):
// with PodTopologySpread defaulting "List" and no default constraints, identical pods after the first take
// the node the previous ranking hints at; with the default profile (System default constraints) no pod is
// signed and every pod goes through the full Filter/Score path.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "test/scheduler/running_scheduler.h"
#include "pkg/util/manual_clock.h"
#include "test/scheduler/metrics/scrape.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using ks::testing::MakeNode;
using ks::testing::MakePod;

// The default profile without preemption; `listDefaulting` gives PodTopologySpread no default constraints.
std::string configYaml(bool listDefaulting) {
  return testing::defaultProfileWithoutPreemption(listDefaulting ? "  pluginConfig:\n"
                                                                   "  - name: PodTopologySpread\n"
                                                                   "    args:\n"
                                                                   "      defaultingType: List\n"
                                                                 : "");
}

class BatchingTest : public ::testing::Test {
 protected:
  // Four equal nodes with room for one of the test pods each, and four identical pods, all there before
  // the scheduler starts (so the pods are popped one after another, p1 first).
  void createClusterAndStart(bool listDefaulting, bool batching = true) {
    for (const char* n : {"n1", "n2", "n3", "n4"}) {
      ASSERT_TRUE(
          client_.create(MakeNode().name(n).capacity({{"cpu", "1"}, {"memory", "4Gi"}, {"pods", "10"}}).obj())
              .ok());
    }
    for (const char* p : {"p1", "p2", "p3", "p4"}) {
      ASSERT_TRUE(
          client_
              .create(MakePod().name(p).namespace_("default").label("app", "web").req({{"cpu", "1"}}).obj())
              .ok());
    }
    auto cfg = config::decodeConfig(configYaml(listDefaulting));
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    SchedulerOptions opts;
    opts.clock = &clock_;
    opts.metrics = &metrics_;
    opts.enableOpportunisticBatching = batching;
    sched_.start(client_, *cfg, plugins::newInTreeRegistry(), opts);
  }

  void TearDown() override {
    sched_.stop();
  }

  // The nodes of p1..p4, once all are bound.
  std::vector<std::string> placements() {
    std::vector<std::string> out;
    for (const char* p : {"p1", "p2", "p3", "p4"}) {
      std::string node;
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (node.empty() && std::chrono::steady_clock::now() < deadline) {
        auto pod = client_.get<api::Pod>("default", p);
        if (pod.ok()) node = pod->spec.nodeName;
        if (node.empty()) std::this_thread::sleep_for(5ms);
      }
      out.push_back(node);
    }
    return out;
  }

  double metric(const std::string& name, const metrics::testing::Labels& labels) {
    return metrics::testing::sum(metrics_.scrape(), name, labels);
  }
  double attempts(const std::string& result) {
    return metric("scheduler_batch_attempts_total", {{"profile", "default-scheduler"}, {"result", result}});
  }
  double flushed(const std::string& reason) {
    return metric("scheduler_batch_cache_flushed_total",
                  {{"profile", "default-scheduler"}, {"reason", reason}});
  }

  client::MemoryClient client_;
  ManualClock clock_;
  metrics::Metrics metrics_;
  testing::RunningScheduler sched_;
};

// p1 is ranked over all four (equal) nodes and takes n1; the other three are kept in heap order and each
// next pod, which no longer fits on the node the previous one took, gets the top of what is left: n4, n3,
// n2, as upstream's container/heap pops them.
TEST_F(BatchingTest, IdenticalPodsTakeTheHintWithListDefaulting) {
  createClusterAndStart(/*listDefaulting=*/true);
  EXPECT_EQ(placements(), (std::vector<std::string>{"n1", "n4", "n3", "n2"}));
  EXPECT_EQ(attempts("no_hint"), 1);
  EXPECT_EQ(attempts("hint_used"), 3);
  EXPECT_EQ(attempts("hint_not_used"), 0);
  EXPECT_EQ(metric("scheduler_batch_cache_flushed_total", {}), 0);
  // The previously chosen node was full each time: nothing to rescore.
  EXPECT_EQ(metric("scheduler_batch_rescore_attempts_total", {}), 0);
  EXPECT_EQ(
      metric("scheduler_store_schedule_results_duration_seconds_count", {{"profile", "default-scheduler"}}),
      4);
  EXPECT_GT(metric("scheduler_framework_extension_point_duration_seconds_count",
                   {{"extension_point", "Sign"}, {"status", "Success"}, {"profile", "default-scheduler"}}),
            0);
}

// The same profile with the OpportunisticBatching gate off: every pod is ranked afresh, and from the
// rotating start the first feasible node wins the tie.
TEST_F(BatchingTest, GateOffRanksEveryPod) {
  createClusterAndStart(/*listDefaulting=*/true, /*batching=*/false);
  EXPECT_EQ(placements(), (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(metric("scheduler_batch_attempts_total", {}), 0);
  EXPECT_EQ(
      metric("scheduler_framework_extension_point_duration_seconds_count", {{"extension_point", "Sign"}}), 0);
}

// The default profile: PodTopologySpread's System default constraints make every pod unsignable, so
// placements are those of full evaluations; batching only counts its misses.
TEST_F(BatchingTest, DefaultProfileChangesNothing) {
  createClusterAndStart(/*listDefaulting=*/false);
  EXPECT_EQ(placements(), (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(attempts("no_hint"), 4);
  EXPECT_EQ(attempts("hint_used"), 0);
  EXPECT_EQ(attempts("hint_not_used"), 0);
  // p1..p3 had runners-up but no signature; p4 had a single feasible node.
  EXPECT_EQ(flushed("pod_not_batchable"), 3);
  EXPECT_EQ(flushed("empty_list"), 1);
}

}  // namespace
}  // namespace ks::scheduler
