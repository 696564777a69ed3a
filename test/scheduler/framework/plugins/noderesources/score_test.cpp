// Ports of upstream least_allocated_test.go, most_allocated_test.go, requested_to_capacity_ratio_test.go
// (unchanged from v1.34 to v1.37), balanced_allocation_test.go and resource_allocation_test.go (v1.37).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "test/scheduler/framework/plugins/noderesources/test_util.h"
#include "test/support/wrappers.h"

namespace ks::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

struct StrategyCase {
  std::string name;
  api::Pod pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  std::vector<int64_t> want;
  std::vector<config::ResourceSpec> resources;
  std::string wantErrField;  // non-empty: creating the plugin fails on this field
  Code wantCode = Code::Success;
};

api::NodePtr node(const std::string& name, testing::ResourceMap cap) {
  return MakeNode().name(name).capacity(cap).ptr();
}

void runStrategyCases(const std::string& type, const std::vector<StrategyCase>& cases,
                      std::vector<config::UtilizationShapePoint> shape = {}) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    config::NodeResourcesFitArgs args;
    args.scoringStrategy.type = type;
    args.scoringStrategy.resources = tc.resources;
    if (type == "RequestedToCapacityRatio") {
      args.scoringStrategy.requestedToCapacityRatio = config::RequestedToCapacityRatioParam{shape};
    }
    if (!tc.wantErrField.empty()) {
      auto p = Fit::create(args);
      ASSERT_FALSE(p.ok());
      EXPECT_TRUE(p.error().message().starts_with(tc.wantErrField + ": Invalid value"))
          << p.error().message();
      continue;
    }
    EXPECT_EQ(runScore(args, tc.pod, tc.nodes, tc.existing, true, tc.wantCode), tc.want);
  }
}

const testing::ResourceMap kReq1 = {{"cpu", "1000"}, {"memory", "2000"}};
const testing::ResourceMap kReq2 = {{"cpu", "2000"}, {"memory", "3000"}};

TEST(LeastAllocatedTest, ScoringStrategy) {
  const auto twoContainers = MakePod().req(kReq1).req(kReq2).obj();
  std::vector<StrategyCase> cases = {
      {"nothing scheduled, nothing requested",
       MakePod().obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {100, 100},
       defaultResources()},
      {"nothing scheduled, resources requested, differently sized nodes",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {37, 50},
       defaultResources()},
      {"Resources not set, pods scheduled with error",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {0, 0},
       {},
       "",
       Code::Error},
      {"no resources requested, pods scheduled",
       MakePod().obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {MakePod().node("node1").ptr(), MakePod().node("node1").ptr(), MakePod().node("node2").ptr(),
        MakePod().node("node2").ptr()},
       {100, 100},
       defaultResources()},
      {"no resources requested, pods scheduled with resources",
       MakePod().obj(),
       {node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {70, 57},
       defaultResources()},
      {"resources requested, pods scheduled with resources",
       twoContainers,
       {node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {57, 45},
       defaultResources()},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       twoContainers,
       {node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "50000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {57, 60},
       defaultResources()},
      {"requested resources exceed node capacity",
       MakePod().req({{"cpu", "3000"}, {"memory", "0"}}).obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {50, 25},
       defaultResources()},
      {"zero node resources, pods scheduled with resources",
       MakePod().obj(),
       {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {0, 0},
       defaultResources()},
      {"nothing scheduled, resources requested with different weight on CPU and memory, differently sized "
       "nodes",
       MakePod().node("node1").req(kReq1).req(kReq2).obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {41, 50},
       {{"memory", 2}, {"cpu", 1}}},
      {"resource with negative weight",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", -1}, {"cpu", 1}},
       "scoringStrategy.resources[0].weight"},
      {"resource with zero weight",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", 1}, {"cpu", 0}},
       "scoringStrategy.resources[1].weight"},
      {"resource weight larger than MaxNodeScore",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", 1}, {"cpu", 101}},
       "scoringStrategy.resources[1].weight"},
      {"bypass extended resource if the pod does not request",
       MakePod().node("node1").req(kReq1).req(kReq2).obj(),
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}})},
       {},
       {50, 50},
       extendedResourceSet()},
      {"honor extended resource if the pod requests",
       MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "5000"}, {kExtendedRes, "2"}}).obj(),
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "10"}})},
       {},
       {50, 60},
       extendedResourceSet()},
      {"if the node doesn't have a resource",
       MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "4000"}}).obj(),
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}})},
       {},
       {55, 55},
       {{kExtendedRes, 2}, {"cpu", 1}, {"memory", 1}}},
  };
  runStrategyCases("LeastAllocated", cases);
}

TEST(MostAllocatedTest, ScoringStrategy) {
  const auto twoContainers = MakePod().req(kReq1).req(kReq2).obj();
  std::vector<StrategyCase> cases = {
      {"nothing scheduled, nothing requested",
       MakePod().obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {0, 0},
       defaultResources()},
      {"nothing scheduled, resources requested, differently sized nodes",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {62, 50},
       defaultResources()},
      {"Resources not set, pods scheduled with error",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {0, 0},
       {},
       "",
       Code::Error},
      {"no resources requested, pods scheduled with resources",
       MakePod().obj(),
       {node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {30, 42},
       defaultResources()},
      {"resources requested, pods scheduled with resources",
       twoContainers,
       {node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {42, 55},
       defaultResources()},
      {"resources requested equal node capacity",
       MakePod().req({{"cpu", "2000"}, {"memory", "4000"}}).req({{"cpu", "3000"}, {"memory", "5000"}}).obj(),
       {node("node1", {{"cpu", "5000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "10000"}, {"memory", "9000"}})},
       {},
       {95, 75},
       defaultResources()},
      {"nothing scheduled, resources requested, differently sized nodes (weighted)",
       twoContainers,
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {},
       {58, 50},
       {{"memory", 2}, {"cpu", 1}}},
      {"no resources requested, pods scheduled, nonzero request for resource",
       MakePod().container("container").obj(),
       {node("node1", {{"cpu", "250m"}, {"memory", "1000Mi"}}),
        node("node2", {{"cpu", "250m"}, {"memory", "1000Mi"}})},
       {MakePod().node("node1").container("container").ptr(),
        MakePod().node("node1").container("container").ptr()},
       {80, 30},
       defaultResources()},
      {"resource with negative weight",
       twoContainers,
       {node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", -1}, {"cpu", 1}},
       "scoringStrategy.resources[0].weight"},
      {"resource with zero weight",
       twoContainers,
       {node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", 1}, {"cpu", 0}},
       "scoringStrategy.resources[1].weight"},
      {"resource weight larger than MaxNodeScore",
       twoContainers,
       {node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {},
       {},
       {{"memory", 101}},
       "scoringStrategy.resources[0].weight"},
      {"bypass extended resource if the pod does not request",
       twoContainers,
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}})},
       {},
       {50, 50},
       extendedResourceSet()},
      {"honor extended resource if the pod request",
       MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "5000"}, {kExtendedRes, "2"}}).obj(),
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "10"}})},
       {},
       {50, 40},
       extendedResourceSet()},
      {"if the node doesn't have a resource",
       MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "4000"}}).obj(),
       {node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}})},
       {},
       {45, 45},
       {{kExtendedRes, 2}, {"cpu", 1}, {"memory", 1}}},
  };
  runStrategyCases("MostAllocated", cases);
}

TEST(RequestedToCapacityRatioTest, ScoringStrategy) {
  const std::vector<config::UtilizationShapePoint> shape = {{0, 10}, {100, 0}};
  std::vector<StrategyCase> cases = {
      {"nothing scheduled, nothing requested (default - least requested nodes have priority)",
       MakePod().obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
       {MakePod().node("node1").ptr(), MakePod().node("node1").ptr()},
       {100, 100},
       defaultResources()},
      {"nothing scheduled, resources requested, differently sized nodes (default - least requested nodes "
       "have priority)",
       MakePod().req(kReq1).req(kReq2).obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {MakePod().node("node1").ptr(), MakePod().node("node1").ptr()},
       {38, 50},
       defaultResources()},
      {"no resources requested, pods scheduled with resources (default - least requested nodes have "
       "priority)",
       MakePod().obj(),
       {node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
        node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
       {MakePod().node("node1").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr(),
        MakePod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}}).ptr()},
       {38, 50},
       defaultResources()},
  };
  runStrategyCases("RequestedToCapacityRatio", cases, shape);
}

TEST(RequestedToCapacityRatioTest, ResourceBinPackingSingleExtended) {
  const std::map<std::string, int64_t> foo4 = {{"intel.com/foo", 4}};
  const std::map<std::string, int64_t> foo8 = {{"intel.com/foo", 8}};
  const std::vector<api::NodePtr> nodes = {makeNode("node1", 4000, 10000LL * 1024 * 1024, foo8),
                                           makeNode("node2", 4000, 10000LL * 1024 * 1024, foo4)};
  std::vector<StrategyCase> cases = {
      {"nothing scheduled, nothing requested", MakePod().obj(), nodes, {}, {0, 0}, {{"intel.com/foo", 1}}},
      {"resources requested, pods scheduled with less resources",
       MakePod().req({{"intel.com/foo", "2"}}).obj(),
       nodes,
       {MakePod().ptr()},
       {2, 5},
       {{"intel.com/foo", 1}}},
      {"resources requested, pods scheduled with resources, on node with existing pod running",
       MakePod().req({{"intel.com/foo", "2"}}).obj(),
       nodes,
       {MakePod().req({{"intel.com/foo", "2"}}).node("node2").ptr()},
       {2, 10},
       {{"intel.com/foo", 1}}},
      {"resources requested, pods scheduled with more resources",
       MakePod().req({{"intel.com/foo", "4"}}).obj(),
       nodes,
       {MakePod().ptr()},
       {5, 10},
       {{"intel.com/foo", 1}}},
  };
  runStrategyCases("RequestedToCapacityRatio", cases, {{0, 0}, {100, 1}});
}

TEST(RequestedToCapacityRatioTest, BrokenLinearFunction) {
  struct Case {
    helper::FunctionShape points;
    std::vector<std::pair<int64_t, int64_t>> assertions;
  };
  std::vector<Case> cases = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (const auto& tc : cases) {
    auto f = helper::buildBrokenLinearFunction(tc.points);
    for (const auto& [p, want] : tc.assertions) EXPECT_EQ(f(p), want) << "p=" << p;
  }
}

TEST(ScorerTest, RequestedScores) {
  EXPECT_EQ(leastRequestedScore(0, 0), 0);
  EXPECT_EQ(leastRequestedScore(5, 4), 0);
  EXPECT_EQ(leastRequestedScore(1, 4), 75);
  EXPECT_EQ(mostRequestedScore(0, 0), 0);
  EXPECT_EQ(mostRequestedScore(5, 4), 100);
  EXPECT_EQ(mostRequestedScore(1, 4), 25);
}

// ---- BalancedAllocation ----

struct BalancedCase {
  std::string name;
  api::Pod pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  std::vector<int64_t> want;
  std::vector<config::ResourceSpec> resources;
  bool runPreScore = true;
  Code wantPreScore = Code::Success;
};

testing::ResourceMap cpuOnly(const std::string& cpu) {
  return {{"cpu", cpu}};
}
testing::ResourceMap cpuAndMemory(const std::string& cpu, const std::string& memory) {
  return {{"cpu", cpu}, {"memory", memory}};
}
testing::ResourceMap cpuAndMemoryAndGpu(const std::string& cpu, const std::string& memory,
                                        const std::string& gpu) {
  return {{"cpu", cpu}, {"memory", memory}, {"nvidia.com/gpu", gpu}};
}
std::map<std::string, int64_t> gpu(int64_t count) {
  return {{"nvidia.com/gpu", count}};
}

TEST(BalancedAllocationTest, Score) {
  // The pods of upstream's table: two containers each.
  const auto cpuOnlyPod = [] { return MakePod().req(cpuOnly("1000m")).req(cpuOnly("2000m")); };
  const auto cpuAndMemoryPod = [] {
    return MakePod().req(cpuAndMemory("1000m", "2000")).req(cpuAndMemory("2000m", "3000"));
  };
  const auto def = defaultResources();
  const std::vector<config::ResourceSpec> withGPU = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  // Comments give each node's usage without -> with the pod and S without -> with it.
  std::vector<BalancedCase> cases = {
      {"nothing scheduled, nothing requested, skip in PreScore",
       MakePod().obj(),
       {makeNode("node1", 4000, 10000), makeNode("node2", 4000, 10000)},
       {},
       {},
       def,
       true,
       Code::Skip},
      // node1: cpu 0 -> 75%, memory 0 -> 50%, S 100 -> 87; node2: 0 -> 50% both, S 100 -> 100.
      {"nothing scheduled, resources requested, differently sized nodes",
       cpuAndMemoryPod().obj(),
       {makeNode("node1", 4000, 10000), makeNode("node2", 6000, 10000)},
       {},
       {68, 75},
       def},
      // node1: cpu 30% -> 60%, memory 0 -> 25%, S 85 -> 82; node2: cpu 30% -> 60%, memory 25% -> 50%,
      // S 97 -> 95.
      {"resources requested, pods scheduled with resources",
       cpuAndMemoryPod().obj(),
       {makeNode("node1", 10000, 20000), makeNode("node2", 10000, 20000)},
       {cpuOnlyPod().node("node1").ptr(), cpuAndMemoryPod().node("node2").ptr()},
       {73, 74},
       def},
      // node2: cpu 30% -> 60%, memory 10% -> 20%, S 90 -> 80.
      {"resources requested, pods scheduled with resources, differently sized nodes",
       cpuAndMemoryPod().obj(),
       {makeNode("node1", 10000, 20000), makeNode("node2", 10000, 50000)},
       {cpuOnlyPod().node("node1").ptr(), cpuAndMemoryPod().node("node2").ptr()},
       {73, 70},
       def},
      // node1: cpu 100%, memory 0 -> 100%, S 50 -> 100; node2: cpu 0, memory 0 -> 100%, S 100 -> 50.
      {"resources requested, pods scheduled with resources, nodes to reach min/max score",
       MakePod().req({{"memory", "2000"}}).req({{"memory", "3000"}}).obj(),
       {makeNode("node1", 3000, 5000), makeNode("node2", 3000, 5000)},
       {cpuOnlyPod().node("node1").ptr()},
       {100, 50},
       def},
      // node1: cpu 50% -> 100%, memory 0, S 75 -> 50; node2: cpu 50% -> 100%, memory 50%, S 100 -> 75.
      {"requested resources at node capacity",
       cpuOnlyPod().obj(),
       {makeNode("node1", 6000, 10000), makeNode("node2", 6000, 10000)},
       {cpuOnlyPod().node("node1").ptr(), cpuAndMemoryPod().node("node2").ptr()},
       {62, 62},
       def},
      // node1: gpu 3 -> 4 of 8, S 69 -> 70; node2: gpu 0 -> 1 of 8, S 62 -> 65.
      {"scalar resource is included in the score computation if pod requests the scalar resource",
       MakePod().req(cpuAndMemoryAndGpu("0", "0", "1")).obj(),
       {makeNode("node1", 3500, 40000, gpu(8)), makeNode("node2", 3500, 40000, gpu(8))},
       {MakePod()
            .node("node1")
            .req(cpuAndMemory("1000m", "2000"))
            .req(cpuAndMemoryAndGpu("2000m", "3000", "3"))
            .ptr(),
        cpuAndMemoryPod().node("node2").ptr()},
       {75, 76},
       withGPU},
      // gpu is not requested, so left out: S 100 -> 63 on both.
      {"scalar resource is not included in the score computation if pod doesn't request the scalar resource",
       cpuAndMemoryPod().obj(),
       {makeNode("node1", 3500, 40000, gpu(8)), makeNode("node2", 3500, 40000)},
       {},
       {56, 56},
       withGPU},
      {"resources requested, pods scheduled with resources if PreScore not called",
       cpuAndMemoryPod().obj(),
       {makeNode("node1", 10000, 20000), makeNode("node2", 10000, 20000)},
       {cpuOnlyPod().node("node1").ptr(), cpuAndMemoryPod().node("node2").ptr()},
       {73, 74},
       def,
       false},
      // Earlier upstream cases, and ours: best-effort pods are skipped whatever the nodes hold.
      {"no resources requested, pods without container scheduled",
       MakePod().obj(),
       {makeNode("node1", 4000, 10000), makeNode("node2", 4000, 10000)},
       {MakePod().node("node1").ptr(), MakePod().node("node1").ptr(), MakePod().node("node2").ptr(),
        MakePod().node("node2").ptr()},
       {},
       def,
       true,
       Code::Skip},
      {"zero node resources, pods scheduled with resources",
       MakePod().obj(),
       {makeNode("node1", 0, 0), makeNode("node2", 0, 0)},
       {cpuOnlyPod().node("node1").ptr(), cpuAndMemoryPod().node("node2").ptr()},
       {},
       def,
       true,
       Code::Skip},
      // A best-effort pod scores 0 when PreScore didn't run.
      {"best-effort pod if PreScore not called",
       MakePod().obj(),
       {makeNode("node1", 4000, 10000), makeNode("node2", 4000, 10000)},
       {},
       {0, 0},
       def,
       false},
  };
  // Upstream builds the plugin with every feature off; none of these pods has status or pod-level resources.
  const Features off{.enableInPlacePodVerticalScaling = false,
                     .enableSidecarContainers = false,
                     .enableSchedulingQueueHint = false,
                     .enablePodLevelResources = false,
                     .enableInPlacePodLevelResourcesVerticalScaling = false};
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto lister = plugintesting::FakeSharedLister::create(tc.existing, tc.nodes);
    config::NodeResourcesBalancedAllocationArgs args;
    args.resources = tc.resources;
    auto p = BalancedAllocation::create(args, off);
    ASSERT_TRUE(p.ok()) << p.error().message();
    framework::CycleState state;
    auto pi = plugintesting::podInfo(tc.pod);
    if (tc.runPreScore) {
      auto status = (*p)->preScore(state, *pi, plugintesting::buildNodeInfos(tc.nodes));
      EXPECT_EQ(status.code(), tc.wantPreScore);
      if (status.isSkip()) continue;
    }
    std::vector<int64_t> got;
    for (const auto& n : tc.nodes) {
      int64_t score = -1;
      EXPECT_TRUE((*p)->score(state, *pi, **lister->get(n->metadata.name), score).isSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, tc.want);
  }
}

TEST(BalancedAllocationTest, Scorer) {
  using V = std::vector<int64_t>;
  // S over three resources: sqrt of the population variance (upstream's node1 of the scalar case).
  EXPECT_EQ(balancedResourceScore(V{3000, 5000, 3}, V{3500, 40000, 8}), 69);
  EXPECT_EQ(balancedResourceScore(V{3000, 5000, 4}, V{3500, 40000, 8}), 70);
  EXPECT_EQ(balancedResourceScorer(V{3000, 5000, 4}, V{3000, 5000, 3}, V{3500, 40000, 8}), 75);
  // Fractions are capped at 1; resources without allocatable are skipped.
  EXPECT_EQ(balancedResourceScore(V{8000, 0}, V{4000, 0}), 100);
  EXPECT_EQ(balancedResourceScore(V{8000, 0}, V{4000, 10}), 50);
  // The extremes: a pod that balances a fully unbalanced node, and one that unbalances an empty node.
  EXPECT_EQ(balancedResourceScorer(V{3000, 5000}, V{3000, 0}, V{3000, 5000}), 100);
  EXPECT_EQ(balancedResourceScorer(V{0, 5000}, V{0, 0}, V{3000, 5000}), 50);
  // No change: 75; integer halving truncates (50 + (50 + 50 - 75) / 2 = 62).
  EXPECT_EQ(balancedResourceScorer(V{1, 1}, V{1, 1}, V{2, 2}), 75);
  EXPECT_EQ(balancedResourceScorer(V{6000, 0}, V{3000, 0}, V{6000, 10000}), 62);
}

TEST(BalancedAllocationTest, FactoryValidatesArgs) {
  plugintesting::FakeHandle h;
  EXPECT_TRUE(BalancedAllocation::create(nullptr, h).ok());
  config::NodeResourcesBalancedAllocationArgs bad;
  bad.resources = {{"cpu", 2}};
  auto p = BalancedAllocation::create(&bad, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "resources[0].weight: Invalid value: 2: must be 1");
}

}  // namespace
}  // namespace ks::plugins::noderesources
