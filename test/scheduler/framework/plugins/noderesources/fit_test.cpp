// Ports of upstream noderesources/fit_test.go (v1.34): TestEnoughRequests, TestPreFilterDisabled,
// TestNotEnoughRequests, TestStorageRequests, TestRestartableInitContainers, TestFitScore,
// Test_isSchedulableAfterNodeChange, TestIsFit, TestHaveAnyRequestedResourcesIncreased; and (v1.37)
// TestEventsToRegister, Test_isSchedulableAfterAssignedPodDelete, Test_isSchedulableAfterTargetPodScaleDown,
// Test_isSchedulableAfterAssignedPodScaleDown; (v1.37.2) TestEnoughRequests' DRAExtendedResource cases and
// Test_isSchedulableAfterDeviceClassChange. The deferred-resize cases are left out
// (InPlacePodVerticalScalingSchedulerPreemption, alpha, off).

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "test/scheduler/framework/plugins/noderesources/test_util.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

const std::string kExtA = "example.com/aaa";
const std::string kExtB = "example.com/bbb";
const std::string kK8sIOA = "kubernetes.io/something";
const std::string kK8sIOB = "subdomain.kubernetes.io/something";
const std::string kHugeA = "hugepages-2Mi";

api::Node fitNode(int64_t pods = 32) {
  api::Node n;
  n.status.allocatable = makeResourceList(10, 20, pods, {{kExtA, 5}, {kHugeA, 5}}, 20);
  n.status.capacity = n.status.allocatable;
  return n;
}

std::string insufficient(const std::string& r) {
  return "Insufficient " + r;
}

struct EnoughCase {
  std::string name;
  api::Pod pod;
  std::vector<R> existing;
  config::NodeResourcesFitArgs args;
  bool podLevel = false;
  Code wantCode = Code::Success;
  std::vector<InsufficientResource> want;
};

api::Pod podLevel(api::Pod p, const api::ResourceList& requests) {
  p.spec.resources = api::ResourceRequirements{};
  p.spec.resources->requests = requests;
  return p;
}

TEST(FitTest, EnoughRequests) {
  config::NodeResourcesFitArgs ignoreB;
  ignoreB.ignoredResources = {kExtB};
  config::NodeResourcesFitArgs ignoreGroup;
  ignoreGroup.ignoredResourceGroups = {"example.com"};
  const auto overhead = [](api::Pod p, const testing::ResourceMap& o) {
    p.spec.overhead = testing::resourceList(o);
    return p;
  };
  std::vector<EnoughCase> cases = {
      {"no resources requested always fits", api::Pod{}, {{10, 20}}, {}, false, Code::Success, {}},
      {"too many resources fails",
       resourcePod({{1, 1}}),
       {{10, 20}},
       {},
       false,
       Code::Unschedulable,
       {{"cpu", insufficient("cpu"), 1, 10, 10, false},
        {"memory", insufficient("memory"), 1, 20, 20, false}}},
      {"too many resources fails due to init container cpu",
       resourceInitPod(resourcePod({{1, 1}}), {{3, 1}}),
       {{8, 19}},
       {},
       false,
       Code::Unschedulable,
       {{"cpu", insufficient("cpu"), 3, 8, 10, false}}},
      {"too many resources fails due to highest init container cpu",
       resourceInitPod(resourcePod({{1, 1}}), {{3, 1}, {2, 1}}),
       {{8, 19}},
       {},
       false,
       Code::Unschedulable,
       {{"cpu", insufficient("cpu"), 3, 8, 10, false}}},
      {"too many resources fails due to init container memory",
       resourceInitPod(resourcePod({{1, 1}}), {{1, 3}}),
       {{9, 19}},
       {},
       false,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 3, 19, 20, false}}},
      {"too many resources fails due to highest init container memory",
       resourceInitPod(resourcePod({{1, 1}}), {{1, 3}, {1, 2}}),
       {{9, 19}},
       {},
       false,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 3, 19, 20, false}}},
      {"init container fits because it's the max, not sum, of containers and init containers",
       resourceInitPod(resourcePod({{1, 1}}), {{1, 1}}),
       {{9, 19}},
       {},
       false,
       Code::Success,
       {}},
      {"multiple init containers fit because it's the max, not sum, of containers and init containers",
       resourceInitPod(resourcePod({{1, 1}}), {{1, 1}, {1, 1}}),
       {{9, 19}},
       {},
       false,
       Code::Success,
       {}},
      {"both resources fit", resourcePod({{1, 1}}), {{5, 5}}, {}, false, Code::Success, {}},
      {"one resource memory fits",
       resourcePod({{2, 1}}),
       {{9, 5}},
       {},
       false,
       Code::Unschedulable,
       {{"cpu", insufficient("cpu"), 2, 9, 10, false}}},
      {"one resource cpu fits",
       resourcePod({{1, 2}}),
       {{5, 19}},
       {},
       false,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 2, 19, 20, false}}},
      {"equal edge case", resourcePod({{5, 1}}), {{5, 19}}, {}, false, Code::Success, {}},
      {"equal edge case for init container",
       resourceInitPod(resourcePod({{4, 1}}), {{5, 1}}),
       {{5, 19}},
       {},
       false,
       Code::Success,
       {}},
      {"extended resource fits", resourcePod({{0, 0, 0, {{kExtA, 1}}}}), {{}}, {}, false, Code::Success, {}},
      {"extended resource fits for init container",
       resourceInitPod(resourcePod({{}}), {{0, 0, 0, {{kExtA, 1}}}}),
       {{}},
       {},
       false,
       Code::Success,
       {}},
      {"extended resource capacity enforced",
       resourcePod({{1, 1, 0, {{kExtA, 10}}}}),
       {{0, 0, 0, {{kExtA, 0}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtA, insufficient(kExtA), 10, 0, 5, true}}},
      {"extended resource capacity enforced for init container",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kExtA, 10}}}}),
       {{0, 0, 0, {{kExtA, 0}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtA, insufficient(kExtA), 10, 0, 5, true}}},
      {"extended resource allocatable enforced",
       resourcePod({{1, 1, 0, {{kExtA, 1}}}}),
       {{0, 0, 0, {{kExtA, 5}}}},
       {},
       false,
       Code::Unschedulable,
       {{kExtA, insufficient(kExtA), 1, 5, 5, false}}},
      {"extended resource allocatable enforced for init container",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kExtA, 1}}}}),
       {{0, 0, 0, {{kExtA, 5}}}},
       {},
       false,
       Code::Unschedulable,
       {{kExtA, insufficient(kExtA), 1, 5, 5, false}}},
      {"extended resource allocatable enforced for multiple containers",
       resourcePod({{1, 1, 0, {{kExtA, 3}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtA, insufficient(kExtA), 6, 2, 5, true}}},
      {"extended resource allocatable admits multiple init containers",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kExtA, 3}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       {},
       false,
       Code::Success,
       {}},
      {"extended resource allocatable enforced for multiple init containers",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kExtA, 6}}}, {1, 1, 0, {{kExtA, 3}}}}),
       {{0, 0, 0, {{kExtA, 2}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtA, insufficient(kExtA), 6, 2, 5, true}}},
      {"extended resource allocatable enforced for unknown resource",
       resourcePod({{1, 1, 0, {{kExtB, 1}}}}),
       {{}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtB, insufficient(kExtB), 1, 0, 0, true}}},
      {"extended resource allocatable enforced for unknown resource for init container",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kExtB, 1}}}}),
       {{}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kExtB, insufficient(kExtB), 1, 0, 0, true}}},
      {"kubernetes.io resource capacity enforced",
       resourcePod({{1, 1, 0, {{kK8sIOA, 10}}}}),
       {{}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kK8sIOA, insufficient(kK8sIOA), 10, 0, 0, true}}},
      {"kubernetes.io resource capacity enforced for init container",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kK8sIOB, 10}}}}),
       {{}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kK8sIOB, insufficient(kK8sIOB), 10, 0, 0, true}}},
      {"hugepages resource capacity enforced",
       resourcePod({{1, 1, 0, {{kHugeA, 10}}}}),
       {{0, 0, 0, {{kHugeA, 0}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kHugeA, insufficient(kHugeA), 10, 0, 5, true}}},
      {"hugepages resource capacity enforced for init container",
       resourceInitPod(resourcePod({{}}), {{1, 1, 0, {{kHugeA, 10}}}}),
       {{0, 0, 0, {{kHugeA, 0}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kHugeA, insufficient(kHugeA), 10, 0, 5, true}}},
      {"hugepages resource allocatable enforced for multiple containers",
       resourcePod({{1, 1, 0, {{kHugeA, 3}}}, {1, 1, 0, {{kHugeA, 3}}}}),
       {{0, 0, 0, {{kHugeA, 2}}}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{kHugeA, insufficient(kHugeA), 6, 2, 5, true}}},
      {"skip checking ignored extended resource",
       resourcePod({{1, 1, 0, {{kExtB, 1}}}}),
       {{}},
       ignoreB,
       false,
       Code::Success,
       {}},
      {"resources + pod overhead fits",
       overhead(resourcePod({{1, 1}}), {{"cpu", "3m"}, {"memory", "13"}}),
       {{5, 5}},
       {},
       false,
       Code::Success,
       {}},
      {"requests + overhead does not fit for memory",
       overhead(resourcePod({{1, 1}}), {{"cpu", "1m"}, {"memory", "15"}}),
       {{5, 5}},
       {},
       false,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 16, 5, 20, false}}},
      {"skip checking ignored extended resource via resource groups",
       resourcePod({{1, 1, 0, {{kExtB, 1}, {kK8sIOA, 1}}}}),
       {{}},
       ignoreGroup,
       false,
       Code::UnschedulableAndUnresolvable,
       {{kK8sIOA, insufficient(kK8sIOA), 1, 0, 0, true}}},
      {"skip checking extended resource request with quantity zero via resource groups",
       resourcePod({{1, 1, 0, {{kExtA, 0}}}}),
       {{0, 0, 0, {{kExtA, 6}}}},
       {},
       false,
       Code::Success,
       {}},
      {"skip checking resource request with quantity zero",
       resourcePod({{0, 0, 0, {{kExtA, 1}}}}),
       {{20, 30, 0, {{kExtA, 1}}}},
       {},
       true,
       Code::Success,
       {}},
      {"both pod-level and container-level resources fit",
       podLevel(resourcePod({{1, 1}}), testing::resourceList({{"cpu", "1m"}, {"memory", "2"}})),
       {{5, 5}},
       {},
       true,
       Code::Success,
       {}},
      {"pod-level cpu resource not fit",
       podLevel(resourcePod({{1, 1}}), testing::resourceList({{"cpu", "7m"}, {"memory", "2"}})),
       {{5, 5}},
       {},
       true,
       Code::Unschedulable,
       {{"cpu", insufficient("cpu"), 7, 5, 10, false}}},
      {"pod-level memory resource not fit",
       podLevel(resourcePod({{1, 1}}), testing::resourceList({{"cpu", "3m"}, {"memory", "2"}})),
       {{5, 19}},
       {},
       true,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 2, 19, 20, false}}},
      {"pod-level hugepages resource fit",
       podLevel(api::Pod{}, testing::resourceList({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}})),
       {},
       {},
       true,
       Code::Success,
       {}},
      {"both pod-level and container-level hugepages resource fit",
       podLevel(resourcePod({{1, 1, 0, {{kHugeA, 3}}}}),
                testing::resourceList({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}})),
       {},
       {},
       true,
       Code::Success,
       {}},
      {"pod-level hugepages resource not fit",
       podLevel(api::Pod{}, testing::resourceList({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "10"}})),
       {},
       {},
       true,
       Code::UnschedulableAndUnresolvable,
       {{kHugeA, insufficient(kHugeA), 10, 0, 5, true}}},
      {"one pod-level cpu resource fits and all init and non-init containers resources fit",
       resourceInitPod(
           podLevel(resourcePod({{1, 1}}), testing::resourceList({{"cpu", "3m"}, {"memory", "2"}})),
           {{1, 1}}),
       {{5, 19}},
       {},
       true,
       Code::Unschedulable,
       {{"memory", insufficient("memory"), 2, 19, 20, false}}},
      {"extended resource backed by DRA not enabled",
       resourcePod({{1, 1, 0, {{"extended.resource.dra.io/something", 1}}}}),
       {{}},
       {},
       false,
       Code::UnschedulableAndUnresolvable,
       {{"extended.resource.dra.io/something", "Insufficient extended.resource.dra.io/something", 1, 0, 0,
         true}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::PodPtr> existing;
    for (const auto& r : tc.existing) existing.push_back(std::make_shared<const api::Pod>(resourcePod({r})));
    auto nodeInfo = plugintesting::nodeInfoWith(fitNode(), existing);
    Features f;
    f.enablePodLevelResources = tc.podLevel;
    auto p = Fit::create(tc.args, f);
    ASSERT_TRUE(p.ok()) << p.error().message();
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = plugintesting::podInfo(tc.pod);
    ASSERT_TRUE((*p)->preFilter(state, *pi, {}, result).isSuccess());
    auto status = (*p)->filter(state, *pi, *nodeInfo);
    EXPECT_EQ(status.code(), tc.wantCode) << status.toString();
    std::vector<std::string> wantReasons;
    for (const auto& w : tc.want) wantReasons.push_back(w.reason);
    EXPECT_EQ(status.reasons(), wantReasons);

    const framework::Resource request =
        computePodResourceRequest(tc.pod, ResourceRequestsOptions{tc.podLevel});
    std::set<std::string, std::less<>> ignored(tc.args.ignoredResources.begin(),
                                               tc.args.ignoredResources.end());
    std::set<std::string, std::less<>> groups(tc.args.ignoredResourceGroups.begin(),
                                              tc.args.ignoredResourceGroups.end());
    PreFilterState s(request, checkedScalarRequests(request, ignored, groups));
    EXPECT_EQ(fitsRequest(s, *nodeInfo), tc.want);
  }
}

TEST(FitTest, PreFilterDisabled) {
  auto p = Fit::create({});
  ASSERT_TRUE(p.ok());
  framework::CycleState state;
  auto nodeInfo = plugintesting::nodeInfoWith(api::Node{});
  auto status = (*p)->filter(state, *plugintesting::podInfo(api::Pod{}), *nodeInfo);
  EXPECT_EQ(status, framework::Status::error(
                        "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found"));
}

TEST(FitTest, NotEnoughRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    R existing;
  };
  std::vector<Case> cases = {
      {"even without specified resources, predicate fails when there's no space for additional pod",
       api::Pod{},
       {10, 20}},
      {"even if both resources fit, predicate fails when there's no space for additional pod",
       resourcePod({{1, 1}}),
       {5, 5}},
      {"even for equal edge case, predicate fails when there's no space for additional pod",
       resourcePod({{5, 1}}),
       {5, 19}},
      {"even for equal edge case, predicate fails when there's no space for additional pod due to init "
       "container",
       resourceInitPod(resourcePod({{5, 1}}), {{5, 1}}),
       {5, 19}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::Node node;
    node.status.allocatable = makeResourceList(10, 20, 1, {}, 0);
    auto nodeInfo =
        plugintesting::nodeInfoWith(node, {std::make_shared<const api::Pod>(resourcePod({tc.existing}))});
    auto p = Fit::create({});
    ASSERT_TRUE(p.ok());
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = plugintesting::podInfo(tc.pod);
    ASSERT_TRUE((*p)->preFilter(state, *pi, {}, result).isSuccess());
    EXPECT_EQ((*p)->filter(state, *pi, *nodeInfo), framework::Status(Code::Unschedulable, "Too many pods"));
  }
}

TEST(FitTest, StorageRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    R existing;
    framework::Status want;
  };
  std::vector<Case> cases = {
      {"empty storage requested, and pod fits", resourcePod({{1, 1}}), {2, 10}, {}},
      {"storage ephemeral local storage request exceeds allocatable",
       resourcePod({{0, 0, 25}}),
       {2, 2},
       framework::Status(Code::UnschedulableAndUnresolvable, "Insufficient ephemeral-storage")},
      {"ephemeral local storage is sufficient",
       resourceInitPod(resourcePod({{0, 0, 5}}), {}),
       {2, 2, 10},
       {}},
      {"pod fits", resourcePod({{0, 0, 10}}), {2, 2}, {}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto nodeInfo = plugintesting::nodeInfoWith(
        fitNode(), {std::make_shared<const api::Pod>(resourcePod({tc.existing}))});
    auto p = Fit::create({});
    ASSERT_TRUE(p.ok());
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = plugintesting::podInfo(tc.pod);
    ASSERT_TRUE((*p)->preFilter(state, *pi, {}, result).isSuccess());
    EXPECT_EQ((*p)->filter(state, *pi, *nodeInfo), tc.want);
  }
}

TEST(FitTest, RestartableInitContainers) {
  const auto newPod = [] {
    api::Pod p;
    p.spec.containers.push_back(api::Container{});
    p.spec.containers[0].name = "regular";
    return p;
  };
  const auto withSidecar = [](std::optional<api::ResourceList> request,
                              std::optional<api::ResourceList> sidecar) {
    api::Pod p;
    api::Container c;
    c.name = "regular";
    if (request) c.resources.requests = *request;
    api::Container s;
    s.name = "restartable-init";
    s.restartPolicy = "Always";
    if (sidecar) s.resources.requests = *sidecar;
    p.spec.containers.push_back(c);
    p.spec.initContainers.push_back(s);
    return p;
  };
  const auto cpu = [](int64_t milli) {
    api::ResourceList rl;
    rl["cpu"] = api::Quantity::fromMilli(milli);
    return rl;
  };
  struct Case {
    std::string name;
    api::Pod pod;
    bool enableSidecars;
    framework::Status wantPreFilter;
    framework::Status wantFilter;
  };
  std::vector<Case> cases = {
      {"allow pod without restartable init containers if sidecar containers is disabled",
       newPod(),
       false,
       {},
       {}},
      {"not allow pod with restartable init containers if sidecar containers is disabled",
       withSidecar(std::nullopt, std::nullopt),
       false,
       framework::Status(
           Code::UnschedulableAndUnresolvable,
           "Pod has a restartable init container and the SidecarContainers feature is disabled"),
       {}},
      {"allow pod without restartable init containers if sidecar containers is enabled",
       newPod(),
       true,
       {},
       {}},
      {"allow pod with restartable init containers if sidecar containers is enabled",
       withSidecar(std::nullopt, std::nullopt),
       true,
       {},
       {}},
      {"allow pod if the total requested resources do not exceed the node's allocatable resources",
       withSidecar(cpu(1), cpu(1)),
       true,
       {},
       {}},
      {"not allow pod if the total requested resources do exceed the node's allocatable resources",
       withSidecar(cpu(1), cpu(2)),
       true,
       {},
       framework::Status(Code::UnschedulableAndUnresolvable, "Insufficient cpu")},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::Node node;
    node.status.allocatable = makeResourceList(2, 0, 1, {}, 0);
    auto nodeInfo = plugintesting::nodeInfoWith(node);
    Features f;
    f.enableSidecarContainers = tc.enableSidecars;
    auto p = Fit::create({}, f);
    ASSERT_TRUE(p.ok());
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = plugintesting::podInfo(tc.pod);
    auto pre = (*p)->preFilter(state, *pi, {}, result);
    EXPECT_EQ(pre, tc.wantPreFilter);
    if (!pre.isSuccess()) continue;
    EXPECT_EQ((*p)->filter(state, *pi, *nodeInfo), tc.wantFilter);
  }
}

config::NodeResourcesFitArgs strategyArgs(std::string type, std::vector<config::ResourceSpec> resources,
                                          std::vector<config::UtilizationShapePoint> shape = {}) {
  config::NodeResourcesFitArgs a;
  a.scoringStrategy.type = std::move(type);
  a.scoringStrategy.resources = std::move(resources);
  if (a.scoringStrategy.type == "RequestedToCapacityRatio") {
    a.scoringStrategy.requestedToCapacityRatio = config::RequestedToCapacityRatioParam{std::move(shape)};
  }
  return a;
}

TEST(FitTest, FitScore) {
  const auto node1 = MakeNode().name("node1").capacity({{"cpu", "4000"}, {"memory", "10000"}}).ptr();
  const auto node2cpu6 = MakeNode().name("node2").capacity({{"cpu", "6000"}, {"memory", "10000"}}).ptr();
  const auto node2cpu4 = MakeNode().name("node2").capacity({{"cpu", "4000"}, {"memory", "10000"}}).ptr();
  const std::vector<api::PodPtr> existing = {
      MakePod().node("node1").req({{"cpu", "2000"}, {"memory", "4000"}}).ptr(),
      MakePod().node("node2").req({{"cpu", "1000"}, {"memory", "2000"}}).ptr()};
  const std::vector<api::PodPtr> existingSidecar = {
      MakePod()
          .node("node1")
          .req({{"cpu", "1000"}, {"memory", "2000"}})
          .sidecarReq({{"cpu", "1000"}, {"memory", "2000"}})
          .ptr(),
      MakePod().node("node2").req({{"cpu", "1000"}, {"memory", "2000"}}).ptr()};
  const auto pod3000 = MakePod().req({{"cpu", "3000"}, {"memory", "5000"}}).obj();
  const auto pod1000 = MakePod().req({{"cpu", "1000"}, {"memory", "2000"}}).obj();
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> existing;
    std::vector<int64_t> want;
    config::NodeResourcesFitArgs args;
    bool runPreScore;
  };
  const auto rtcr1 = strategyArgs("RequestedToCapacityRatio", defaultResources(), {{0, 10}, {100, 0}});
  const auto rtcr2 = strategyArgs("RequestedToCapacityRatio", defaultResources(), {{0, 0}, {100, 10}});
  const auto most = strategyArgs("MostAllocated", defaultResources());
  const auto least = strategyArgs("LeastAllocated", defaultResources());
  std::vector<Case> cases = {
      {"test case for ScoringStrategy RequestedToCapacityRatio case1",
       pod3000,
       {node1, node2cpu6},
       existing,
       {10, 32},
       rtcr1,
       true},
      {"test case for ScoringStrategy RequestedToCapacityRatio case2",
       pod3000,
       {node1, node2cpu6},
       existing,
       {95, 68},
       rtcr2,
       true},
      {"test case for ScoringStrategy MostAllocated",
       pod1000,
       {node1, node2cpu6},
       existing,
       {67, 36},
       most,
       true},
      {"test case for ScoringStrategy LeastAllocated",
       pod1000,
       {node1, node2cpu6},
       existing,
       {32, 63},
       least,
       true},
      {"test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
       pod3000,
       {node1, node2cpu6},
       existing,
       {10, 32},
       rtcr1,
       false},
      {"test case for ScoringStrategy MostAllocated if PreScore is not called",
       pod1000,
       {node1, node2cpu6},
       existing,
       {67, 36},
       most,
       false},
      {"test case for ScoringStrategy LeastAllocated if PreScore is not called",
       pod1000,
       {node1, node2cpu6},
       existing,
       {32, 63},
       least,
       false},
      {"test case for ScoringStrategy MostAllocated with sidecar container",
       pod1000,
       {node1, node2cpu4},
       existingSidecar,
       {67, 45},
       most,
       true},
      {"test case for ScoringStrategy LeastAllocated with sidecar container",
       pod1000,
       {node1, node2cpu4},
       existingSidecar,
       {32, 55},
       least,
       true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(runScore(tc.args, tc.pod, tc.nodes, tc.existing, tc.runPreScore, Code::Success), tc.want);
  }
}

TEST(FitTest, EventsToRegister) {
  using framework::ClusterEvent;
  using framework::EventResource;
  using namespace framework::action;
  struct Case {
    std::string name;
    bool inPlace;
    bool dra;
    std::vector<ClusterEvent> want;
  };
  std::vector<Case> cases = {
      {"Register events with InPlacePodVerticalScaling feature enabled",
       true,
       false,
       {{EventResource::AssignedPod, Delete, {}},
        {EventResource::Node, Add | UpdateNodeAllocatable, {}},
        {EventResource::AssignedPod, UpdatePodScaleDown, {}},
        {EventResource::TargetPod, UpdatePodScaleDown, {}}}},
      {"Register events with default features",
       false,
       false,
       {{EventResource::AssignedPod, Delete, {}}, {EventResource::Node, Add | UpdateNodeAllocatable, {}}}},
      {"Register events with DRAExtendedResource feature enabled",
       false,
       true,
       {{EventResource::AssignedPod, Delete, {}},
        {EventResource::Node, Add | UpdateNodeAllocatable, {}},
        {EventResource::DeviceClass, Add | Update, {}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Features f;
    f.enableInPlacePodVerticalScaling = tc.inPlace;
    f.enableDRAExtendedResource = tc.dra;
    auto p = Fit::create({}, f);
    ASSERT_TRUE(p.ok());
    auto events = (*p)->eventsToRegister();
    ASSERT_TRUE(events.ok());
    std::vector<ClusterEvent> got;
    for (const auto& e : *events) {
      got.push_back(e.event);
      EXPECT_TRUE(e.queueingHintFn);
    }
    EXPECT_EQ(got, tc.want);
  }
  // Without queueing hints Node/Add also takes taint and label updates (kubernetes#109437).
  Features noHints;
  noHints.enableSchedulingQueueHint = false;
  noHints.enableDRAExtendedResource = false;
  auto p = Fit::create({}, noHints);
  auto events = (*p)->eventsToRegister();
  EXPECT_EQ((*events)[1].event.actionType, Add | UpdateNodeAllocatable | UpdateNodeTaint | UpdateNodeLabel);
}

framework::EventObject podObj(const api::Pod& p) {
  return std::make_shared<const api::Pod>(p);
}
framework::EventObject nodeObj(const api::Node& n) {
  return std::make_shared<const api::Node>(n);
}

struct PodHintCase {
  std::string name;
  api::Pod pod;
  framework::EventObject oldObj, newObj;
  framework::QueueingHint want;
  bool wantErr = false;
};

void runPodHintCases(const std::vector<PodHintCase>& cases,
                     Result<framework::QueueingHint> (Fit::*hint)(const api::Pod&,
                                                                  const framework::EventObject&,
                                                                  const framework::EventObject&) const) {
  auto p = Fit::create({});
  ASSERT_TRUE(p.ok());
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = ((**p).*hint)(tc.pod, tc.oldObj, tc.newObj);
    if (tc.wantErr) {
      EXPECT_FALSE(got.ok());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, tc.want);
  }
}

const auto kCpu = [](std::string v) { return testing::ResourceMap{{"cpu", std::move(v)}}; };
const auto kMem = [](std::string v) { return testing::ResourceMap{{"memory", std::move(v)}}; };

TEST(FitTest, IsSchedulableAfterAssignedPodDelete) {
  using QH = framework::QueueingHint;
  runPodHintCases(
      {
          {"backoff-wrong-old-object", api::Pod{}, nodeObj(api::Node{}), {}, QH::Queue, true},
          {"queue-on-other-pod-deleted",
           MakePod().name("pod1").req(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").req(kCpu("1")).node("fake").obj()),
           {},
           QH::Queue},
          {"skip-queue-on-unscheduled-pod-deleted", api::Pod{}, podObj(api::Pod{}), {}, QH::QueueSkip},
          {"queue-on-nominated-pod-deleted",
           MakePod().name("pod1").uid("uid0").req(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("uid1").req(kCpu("2")).nominatedNodeName("fake").obj()),
           {},
           QH::Queue},
      },
      &Fit::isSchedulableAfterAssignedPodDelete);
}

TEST(FitTest, IsSchedulableAfterTargetPodScaleDown) {
  using QH = framework::QueueingHint;
  runPodHintCases(
      {
          {"queue-on-target-pod-some-resource-scale-down",
           MakePod().name("pod1").uid("pod1").req(kCpu("1")).obj(),
           {},
           {},
           QH::Queue},
          {"queue-on-target-pod-some-pod-level-resource-scale-down",
           MakePod().name("pod1").uid("pod1").res(kCpu("1")).obj(),
           {},
           {},
           QH::Queue},
      },
      &Fit::isSchedulableAfterTargetPodScaleDown);
}

TEST(FitTest, IsSchedulableAfterAssignedPodScaleDown) {
  using QH = framework::QueueingHint;
  runPodHintCases(
      {
          {"backoff-wrong-old-object", api::Pod{}, nodeObj(api::Node{}), {}, QH::Queue, true},
          {"backoff-wrong-new-object", api::Pod{}, {}, nodeObj(api::Node{}), QH::Queue, true},
          {"skip-queue-on-other-unscheduled-pod", MakePod().name("pod1").uid("uid0").req(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("uid1").req(kCpu("2")).obj()),
           podObj(MakePod().name("pod2").uid("uid1").req(kCpu("1")).obj()), QH::QueueSkip},
          {"skip-queue-on-other-pod-unrelated-resource-scaled-down",
           MakePod().name("pod1").uid("pod1").req(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("pod2").req(kMem("2")).node("fake").obj()),
           podObj(MakePod().name("pod2").uid("pod2").req(kMem("1")).node("fake").obj()), QH::QueueSkip},
          {"skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
           MakePod().name("pod1").uid("pod1").res(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("pod2").res(kMem("2")).node("fake").obj()),
           podObj(MakePod().name("pod2").uid("pod2").res(kMem("1")).node("fake").obj()), QH::QueueSkip},
          {"queue-on-other-pod-some-resource-scale-down",
           MakePod().name("pod1").uid("pod1").req(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("pod2").req(kCpu("2")).node("fake").obj()),
           podObj(MakePod().name("pod2").uid("pod2").req(kCpu("1")).node("fake").obj()), QH::Queue},
          {"queue-on-other-pod-some-pod-level-resource-scale-down",
           MakePod().name("pod1").uid("pod1").res(kCpu("1")).obj(),
           podObj(MakePod().name("pod2").uid("pod2").res(kCpu("2")).node("fake").obj()),
           podObj(MakePod().name("pod2").uid("pod2").res(kCpu("1")).node("fake").obj()), QH::Queue},
      },
      &Fit::isSchedulableAfterAssignedPodScaleDown);
}

TEST(FitTest, IsSchedulableAfterNodeChange) {
  struct Case {
    std::string name;
    api::Pod pod;
    framework::EventObject oldObj, newObj;
    framework::QueueingHint want;
    bool wantErr = false;
  };
  using QH = framework::QueueingHint;
  const auto memExtA = resourcePod({{0, 2, 0, {{kExtA, 1}}}});
  const auto node = [](testing::ResourceMap m) { return nodeObj(MakeNode().capacity(m).obj()); };
  std::vector<Case> cases = {
      {"backoff-wrong-new-object", api::Pod{}, {}, podObj(api::Pod{}), QH::Queue, true},
      {"backoff-wrong-old-object", api::Pod{}, podObj(api::Pod{}), nodeObj(api::Node{}), QH::Queue, true},
      {"skip-queue-on-node-add-without-sufficient-resources",
       resourcePod({{0, 2}}),
       {},
       node({{"memory", "1"}}),
       QH::QueueSkip},
      {"skip-queue-on-node-add-without-required-resource-type",
       resourcePod({{0, 0, 0, {{kExtA, 1}}}}),
       {},
       node({{kExtB, "1"}}),
       QH::QueueSkip},
      {"queue-on-node-add-with-sufficient-resources",
       memExtA,
       {},
       node({{"memory", "4"}, {kExtA, "2"}}),
       QH::Queue},
      {"skip-queue-on-node-unrelated-changes", memExtA, node({{"memory", "2"}, {kExtA, "2"}}),
       node({{"memory", "2"}, {kExtA, "1"}, {kExtB, "2"}}), QH::QueueSkip},
      {"queue-on-pod-requested-resources-increase", memExtA, node({{"memory", "2"}, {kExtA, "1"}}),
       node({{"memory", "2"}, {kExtA, "2"}}), QH::Queue},
      {"skip-queue-on-node-changes-from-suitable-to-unsuitable", memExtA,
       node({{"memory", "4"}, {kExtA, "2"}}), node({{"memory", "1"}, {kExtA, "2"}}), QH::QueueSkip},
      {"queue-on-node-changes-from-unsuitable-to-suitable", memExtA, node({{"memory", "1"}, {kExtA, "2"}}),
       node({{"memory", "4"}, {kExtA, "2"}}), QH::Queue},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto p = Fit::create({});
    ASSERT_TRUE(p.ok());
    auto got = (*p)->isSchedulableAfterNodeChange(tc.pod, tc.oldObj, tc.newObj);
    if (tc.wantErr) {
      EXPECT_FALSE(got.ok());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, tc.want);
  }
}

TEST(FitTest, IsFit) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> node;
    bool podLevel;
    bool want;
  };
  std::vector<Case> cases = {
      {"nil node", api::Pod{}, std::nullopt, false, false},
      {"insufficient resource", MakePod().req({{"cpu", "2"}}).obj(),
       MakeNode().capacity({{"cpu", "1"}}).obj(), false, false},
      {"sufficient resource", MakePod().req({{"cpu", "1"}}).obj(), MakeNode().capacity({{"cpu", "2"}}).obj(),
       false, true},
      {"insufficient pod-level resource", MakePod().res({{"cpu", "2"}}).obj(),
       MakeNode().capacity({{"cpu", "1"}}).obj(), true, false},
      {"sufficient pod-level resource", MakePod().res({{"cpu", "2"}}).obj(),
       MakeNode().capacity({{"cpu", "2"}}).obj(), true, true},
      {"sufficient pod-level resource hugepages", MakePod().res({{kHugeA, "2Mi"}}).obj(),
       MakeNode().capacity({{kHugeA, "2Mi"}}).obj(), true, true},
      {"insufficient pod-level resource hugepages", MakePod().res({{kHugeA, "4Mi"}}).obj(),
       MakeNode().capacity({{kHugeA, "2Mi"}}).obj(), true, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(isFit(tc.pod, tc.node ? &*tc.node : nullptr, ResourceRequestsOptions{tc.podLevel}), tc.want);
  }
}

TEST(FitTest, HaveAnyRequestedResourcesIncreased) {
  struct Case {
    std::string name;
    api::Pod pod;
    testing::ResourceMap original, modified;
    bool want;
  };
  const auto full = resourcePod({{2, 2, 2, {{kExtA, 2}}}});
  const auto cpuMem = resourcePod({{2, 2}});
  std::vector<Case> cases = {
      {"no-requested-resources",
       resourcePod({{}}),
       {{"pods", "1"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kExtA, "1"}},
       {{"pods", "1"}, {"cpu", "2"}, {"memory", "2"}, {"ephemeral-storage", "2"}, {kExtA, "2"}},
       false},
      {"no-requested-resources-pods-increased",
       resourcePod({{}}),
       {{"pods", "1"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kExtA, "1"}},
       {{"pods", "2"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kExtA, "1"}},
       true},
      {"scalar-resources-not-in-node",
       full,
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}},
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}},
       false},
      {"requested-resources-decreased",
       full,
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtA, "4"}},
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kExtA, "1"}},
       false},
      {"requested-resources-increased",
       full,
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtA, "4"}},
       {{"cpu", "3"}, {"memory", "4"}, {"ephemeral-storage", "3"}, {kExtA, "4"}},
       true},
      {"non-requested-resources-decreased",
       cpuMem,
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtA, "4"}},
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kExtA, "1"}},
       false},
      {"non-requested-resources-increased",
       cpuMem,
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtA, "4"}},
       {{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "5"}, {kExtA, "6"}},
       false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(
        haveAnyRequestedResourcesIncreased(tc.pod, MakeNode().capacity(tc.original).obj(),
                                           MakeNode().capacity(tc.modified).obj(), ResourceRequestsOptions{}),
        tc.want);
  }
}

// ---- DRAExtendedResource (upstream v1.37.2 TestEnoughRequests' DRA cases,
// Test_isSchedulableAfterDeviceClassChange) ----

const std::string kDRARes = "extended.resource.dra.io/something";

// A resolver mapping kDRARes (and nothing else) to "device-class-name", as upstream's test DRA manager with
// deviceClassWithExtendResourceName.
class OneClassResolver final : public framework::DeviceClassResolver {
 public:
  std::shared_ptr<const api::DeviceClass> getDeviceClass(std::string_view resourceName) const override {
    if (resourceName != kDRARes) return nullptr;
    auto c = std::make_shared<api::DeviceClass>();
    c->metadata.name = "device-class-name";
    c->spec.extendedResourceName = kDRARes;
    return c;
  }
};

TEST(FitTest, DRAExtendedResourceDelegation) {
  const OneClassResolver resolver;
  struct Case {
    std::string name;
    bool dra;
    api::Pod pod;
    std::map<std::string, int64_t> nodeScalars;  // the node's allocatable extended resources
    std::vector<R> existing;
    Code wantCode;
    std::vector<InsufficientResource> want;
  };
  const std::vector<Case> cases = {
      {"extended resource backed by DRA",
       true,
       resourcePod({{1, 1, 0, {{kDRARes, 1}}}}),
       {},
       {},
       Code::Success,
       {}},
      {"extended resource backed by DRA not enabled",
       false,
       resourcePod({{1, 1, 0, {{kDRARes, 1}}}}),
       {},
       {},
       Code::UnschedulableAndUnresolvable,
       {{kDRARes, insufficient(kDRARes), 1, 0, 0, true}}},
      {"extended resource NOT backed by DRA",
       true,
       resourcePod({{1, 1, 0, {{kExtB, 1}}}}),
       {},
       {},
       Code::UnschedulableAndUnresolvable,
       {{kExtB, insufficient(kExtB), 1, 0, 0, true}}},
      {"extended resource was backed by Device Plugin (Allocatable: 0)",
       true,
       resourcePod({{0, 0, 0, {{kDRARes, 1}}}}),
       {{kDRARes, 0}},
       {},
       Code::Success,
       {}},
      // Added here: a node whose device plugin advertises the resource is checked as usual.
      {"extended resource provided by the node's device plugin",
       true,
       resourcePod({{0, 0, 0, {{kDRARes, 1}}}}),
       {{kDRARes, 1}},
       {{0, 0, 0, {{kDRARes, 1}}}},
       Code::Unschedulable,
       {{kDRARes, insufficient(kDRARes), 1, 1, 1, false}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::Node node;
    node.status.allocatable = makeResourceList(10, 20, 32, tc.nodeScalars, 20);
    std::vector<api::PodPtr> existing;
    for (const auto& r : tc.existing) existing.push_back(std::make_shared<const api::Pod>(resourcePod({r})));
    auto nodeInfo = plugintesting::nodeInfoWith(node, existing);
    Features f;
    f.enableDRAExtendedResource = tc.dra;
    auto p = Fit::create({}, f, &resolver);
    ASSERT_TRUE(p.ok()) << p.error().message();
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pi = plugintesting::podInfo(tc.pod);
    ASSERT_TRUE((*p)->preFilter(state, *pi, {}, result).isSuccess());
    auto status = (*p)->filter(state, *pi, *nodeInfo);
    EXPECT_EQ(status.code(), tc.wantCode) << status.toString();

    const ResourceRequestsOptions opts{true, tc.dra};
    const framework::Resource request = computePodResourceRequest(tc.pod, opts);
    PreFilterState s(request, checkedScalarRequests(request, {}, {}));
    EXPECT_EQ(fitsRequest(s, *nodeInfo, &resolver, opts), tc.want);
  }
}

TEST(FitTest, DRAExtendedResourceQueueingAfterNodeChange) {
  // A node that gains no allocatable still makes a pod schedulable when the resource it wants is left to
  // DRA there (upstream haveAnyRequestedResourcesIncreased).
  const OneClassResolver resolver;
  const api::Pod pod = resourcePod({{0, 0, 0, {{kDRARes, 1}}}});
  api::Node node;
  node.status.allocatable = makeResourceList(10, 20, 32, {}, 20);
  const ResourceRequestsOptions opts{true, true};
  EXPECT_TRUE(isFit(pod, &node, opts, &resolver));
  EXPECT_FALSE(isFit(pod, &node, opts, nullptr));
  EXPECT_TRUE(haveAnyRequestedResourcesIncreased(pod, node, node, opts, &resolver));
  EXPECT_FALSE(haveAnyRequestedResourcesIncreased(pod, node, node, opts, nullptr));
  EXPECT_FALSE(
      haveAnyRequestedResourcesIncreased(pod, node, node, ResourceRequestsOptions{true, false}, &resolver));
}

framework::EventObject classObj(const std::string& name, std::optional<std::string> ext) {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = name;
  c->spec.extendedResourceName = std::move(ext);
  return c;
}

TEST(FitTest, IsSchedulableAfterDeviceClassEvent) {
  using QH = framework::QueueingHint;
  struct Case {
    std::string name;
    api::Pod pod;
    framework::EventObject oldObj;
    framework::EventObject newObj;
    QH want;
    bool wantErr = false;
  };
  const std::string gpu = "example.com/gpu";
  const api::Pod memPod = resourcePod({{0, 2}});
  const api::Pod implicitPod = resourcePod({{0, 0, 0, {{"deviceclass.resource.kubernetes.io/gpuclass", 1}}}});
  const std::vector<Case> cases = {
      // An object of another kind stands for upstream's string.
      {"backoff-wrong-new-object", api::Pod{}, {}, podObj(api::Pod{}), QH::Queue, true},
      {"backoff-wrong-old-object", api::Pod{}, podObj(api::Pod{}), classObj("", std::nullopt), QH::Queue,
       true},
      {"skip-queue-on-class-nil-extended-resource-name-pointer", memPod, classObj("", std::nullopt),
       classObj("", std::nullopt), QH::QueueSkip},
      {"skip-queue-on-class-same-extended-resource-name-pointer", memPod, classObj("", gpu),
       classObj("", gpu), QH::QueueSkip},
      {"skip-queue-on-class-same-extended-resource-name", memPod, classObj("", gpu), classObj("", gpu),
       QH::QueueSkip},
      {"queue-on-class-add-with-implicit-extended-resource-name",
       implicitPod,
       {},
       classObj("gpuclass", gpu),
       QH::Queue},
      {"skip-on-class-add-with-implicit-extended-resource-name-not-matching",
       implicitPod,
       {},
       classObj("myclass", gpu),
       QH::QueueSkip},
      {"skip-on-class-add-with-explicit-extended-resource-name-not-matching",
       resourcePod({{0, 0, 0, {{"example.com/othergpu", 1}}}}),
       {},
       classObj("myclass", gpu),
       QH::QueueSkip},
      {"skip-on-class-update-with-implicit-extended-resource-name", implicitPod,
       classObj("gpuclass", std::nullopt), classObj("gpuclass", gpu), QH::QueueSkip},
      {"queue-on-class-add-with-extended-resource-name",
       resourcePod({{0, 0, 0, {{gpu, 1}}}}),
       {},
       classObj("", gpu),
       QH::Queue},
      {"queue-on-class-update-with-extended-resource-name", resourcePod({{0, 0, 0, {{gpu, 1}}}}),
       classObj("", "example.com/gpu1"), classObj("", gpu), QH::Queue},
  };
  auto p = Fit::create({}, Features{});
  ASSERT_TRUE(p.ok());
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = (*p)->isSchedulableAfterDeviceClassEvent(tc.pod, tc.oldObj, tc.newObj);
    if (tc.wantErr) {
      EXPECT_FALSE(got.ok());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(*got, tc.want);
  }
}

TEST(FitTest, FactoryValidatesArgs) {
  plugintesting::FakeHandle h;
  EXPECT_TRUE(Fit::create(nullptr, h).ok());
  auto bad = strategyArgs("LeastAllocated", {{"memory", -1}, {"cpu", 1}});
  auto p = Fit::create(&bad, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid "
            "range (0, 100]");
  config::NodeResourcesFitArgs badIgnored;
  badIgnored.ignoredResourceGroups = {"example.com/aaa"};
  EXPECT_FALSE(Fit::create(&badIgnored, h).ok());
  config::NodeResourcesBalancedAllocationArgs wrongType;
  EXPECT_FALSE(Fit::create(&wrongType, h).ok());
}

TEST(FitTest, IsExtendedResourceName) {
  EXPECT_TRUE(isExtendedResourceName("example.com/aaa"));
  EXPECT_FALSE(isExtendedResourceName("cpu"));
  EXPECT_FALSE(isExtendedResourceName("hugepages-2Mi"));
  EXPECT_FALSE(isExtendedResourceName("kubernetes.io/something"));
  EXPECT_FALSE(isExtendedResourceName("subdomain.kubernetes.io/something"));
  EXPECT_FALSE(isExtendedResourceName("requests.example.com/aaa"));
}

}  // namespace
}  // namespace ks::plugins::noderesources
