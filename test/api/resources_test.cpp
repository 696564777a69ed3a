// Cases after k8s.io/component-helpers/resource/helpers_test.go (TestPodRequestsAndLimits,
// TestPodResourceRequests with restartable init containers, pod-level resources, in-place resize; upstream's
// own tables run in resource_helpers_test.cpp) and pkg/scheduler/util/pod_resources_test.go
// (GetNonzeroRequests).

#include "pkg/api/resources.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/support/wrappers.h"

namespace ks::api {
namespace {

using ks::testing::MakePod;
using ks::testing::resourceList;

std::string show(const ResourceList& l) {
  std::string out = "{";
  for (const auto& [k, v] : l) out += k + ":" + v.toString() + " ";
  return out + "}";
}

void expectList(const ResourceList& got, const ks::testing::ResourceMap& want, const std::string& ctx) {
  ResourceList w = resourceList(want);
  EXPECT_EQ(got.size(), w.size()) << ctx << " got " << show(got) << " want " << show(w);
  for (const auto& [k, v] : w) {
    auto it = got.find(k);
    ASSERT_NE(it, got.end()) << ctx << ": missing " << k << " in " << show(got);
    EXPECT_EQ(it->second.compare(v), 0)
        << ctx << ": " << k << " got " << it->second.toString() << " want " << v.toString();
  }
}

ContainerStatus status(std::string name, ks::testing::ResourceMap statusRequests,
                       ks::testing::ResourceMap allocated, ks::testing::ResourceMap statusLimits = {}) {
  ContainerStatus cs;
  cs.name = std::move(name);
  cs.resources = ResourceRequirements{resourceList(statusLimits), resourceList(statusRequests)};
  cs.allocatedResources = resourceList(allocated);
  return cs;
}

TEST(ResourcesTest, PodRequests) {
  struct Case {
    std::string name;
    Pod pod;
    PodRequestsOptions opts;
    ks::testing::ResourceMap want;
  };
  const std::vector<Case> cases = {
      {"containers are summed",
       MakePod().req({{"cpu", "1"}, {"memory", "1Gi"}}).req({{"cpu", "2"}}).obj(),
       {},
       {{"cpu", "3"}, {"memory", "1Gi"}}},
      {"init container larger than containers",
       MakePod().initReq({{"cpu", "2"}, {"memory", "1Gi"}}).req({{"cpu", "1"}, {"memory", "2Gi"}}).obj(),
       {},
       {{"cpu", "2"}, {"memory", "2Gi"}}},
      {"init containers take the max, not the sum",
       MakePod().initReq({{"cpu", "2"}}).initReq({{"cpu", "3"}}).req({{"cpu", "1"}}).obj(),
       {},
       {{"cpu", "3"}}},
      {"restartable init container adds to containers and to later init containers",
       // init phase: sidecar 1 + init 2 = 3; steady state: container 1 + sidecar 1 = 2
       MakePod().sidecarReq({{"cpu", "1"}}).initReq({{"cpu", "2"}}).req({{"cpu", "1"}}).obj(),
       {},
       {{"cpu", "3"}}},
      {"restartable init container after regular init container",
       // init phase max(init 2, sidecar 1) = 2; steady state 1 + 1 + 1 = 3
       MakePod()
           .initReq({{"cpu", "2"}})
           .sidecarReq({{"cpu", "1"}})
           .req({{"cpu", "1"}})
           .req({{"cpu", "1"}})
           .obj(),
       {},
       {{"cpu", "3"}}},
      {"multiple sidecars accumulate",
       MakePod()
           .sidecarReq({{"cpu", "1"}})
           .sidecarReq({{"cpu", "2"}})
           .initReq({{"cpu", "5"}})
           .req({{"cpu", "1"}})
           .obj(),
       {},
       {{"cpu", "8"}}},
      {"overhead is added",
       MakePod().req({{"cpu", "1"}}).overhead({{"cpu", "500m"}, {"memory", "10Mi"}}).obj(),
       {},
       {{"cpu", "1500m"}, {"memory", "10Mi"}}},
      {"overhead excluded",
       MakePod().req({{"cpu", "1"}}).overhead({{"cpu", "500m"}}).obj(),
       PodRequestsOptions{.excludeOverhead = true},
       {{"cpu", "1"}}},
      {"pod-level resources override supported resources only",
       MakePod()
           .req({{"cpu", "1"}, {"memory", "1Gi"}, {"ephemeral-storage", "1Gi"}})
           .res({{"cpu", "3"}, {"memory", "4Gi"}})
           .obj(),
       {},
       {{"cpu", "3"}, {"memory", "4Gi"}, {"ephemeral-storage", "1Gi"}}},
      {"pod-level resources skipped",
       MakePod().req({{"cpu", "1"}}).res({{"cpu", "3"}}).obj(),
       PodRequestsOptions{.skipPodLevelResources = true},
       {{"cpu", "1"}}},
      {"pod-level resources without a supported resource are ignored",
       MakePod().req({{"cpu", "1"}}).res({{"ephemeral-storage", "3Gi"}}).obj(),
       {},
       {{"cpu", "1"}}},
      {"pod-level resources plus overhead",
       MakePod().req({{"cpu", "1"}}).res({{"cpu", "2"}}).overhead({{"cpu", "1"}}).obj(),
       {},
       {{"cpu", "3"}}},
  };
  for (const auto& c : cases) expectList(podRequests(c.pod, c.opts), c.want, c.name);
}

TEST(ResourcesTest, InPlaceResize) {
  // Resize in progress: spec 1 CPU, status (actuated) 2 CPU, allocated 1.5 CPU -> max = 2.
  Pod p = MakePod().req({{"cpu", "1"}}).obj();
  p.status.containerStatuses.push_back(status("con0", {{"cpu", "2"}}, {{"cpu", "1500m"}}));
  expectList(podRequests(p), {{"cpu", "2"}}, "resize up in progress");
  expectList(podRequests(p, PodRequestsOptions{.useStatusResources = false}), {{"cpu", "1"}},
             "status ignored");

  // Spec larger than status: spec wins while the resize is feasible.
  Pod big = MakePod().req({{"cpu", "3"}}).obj();
  big.status.containerStatuses.push_back(status("con0", {{"cpu", "2"}}, {{"cpu", "2"}}));
  expectList(podRequests(big), {{"cpu", "3"}}, "resize pending");
  // Infeasible resize: spec is ignored.
  PodCondition infeasible;
  infeasible.type = "PodResizePending";
  infeasible.status = "True";
  infeasible.reason = "Infeasible";
  big.status.conditions.push_back(infeasible);
  EXPECT_TRUE(isPodResizeInfeasible(big));
  expectList(podRequests(big), {{"cpu", "2"}}, "resize infeasible");

  // What the kubelet allocated counts even before it actuates it.
  Pod allocatedOnly = MakePod().req({{"cpu", "1"}}).obj();
  ContainerStatus cs;
  cs.name = "con0";
  cs.allocatedResources = resourceList({{"cpu", "5"}});
  allocatedOnly.status.containerStatuses.push_back(cs);
  expectList(podRequests(allocatedOnly), {{"cpu", "5"}}, "allocated without actuated resources");

  // Status resources apply to regular init containers as well as to sidecars.
  Pod init = MakePod().initReq({{"cpu", "1"}}).sidecarReq({{"cpu", "1"}}).obj();
  init.status.initContainerStatuses.push_back(status("init-con0", {{"cpu", "4"}}, {{"cpu", "4"}}));
  init.status.initContainerStatuses.push_back(status("sidecar-con1", {{"cpu", "2"}}, {{"cpu", "2"}}));
  expectList(podRequests(init), {{"cpu", "4"}}, "init container status");

  // Pod-level status (InPlacePodLevelResourcesVerticalScaling): with both maps set it stands for the
  // containers' statuses.
  Pod podLevel = MakePod().req({{"cpu", "1"}}).obj();
  podLevel.status.containerStatuses.push_back(status("con0", {{"cpu", "1"}}, {{"cpu", "1"}}));
  podLevel.status.allocatedResources = resourceList({{"cpu", "2"}});
  podLevel.status.resources = ResourceRequirements{{}, resourceList({{"cpu", "3"}})};
  expectList(podRequests(podLevel), {{"cpu", "3"}}, "pod-level status");
  expectList(
      podRequests(podLevel, PodRequestsOptions{.inPlacePodLevelResourcesVerticalScalingEnabled = false}),
      {{"cpu", "1"}}, "pod-level status ignored");
}

// Upstream TestResizeConditionsAndSupportedResources (the resize conditions).
TEST(ResourcesTest, ResizeConditions) {
  Pod pod = MakePod().condition("PodResizePending", "True", "Deferred").obj();
  EXPECT_TRUE(isPodResizeDeferred(pod));
  EXPECT_FALSE(isPodResizeInfeasible(pod));
  pod.status.conditions[0].reason = "Other";
  EXPECT_FALSE(isPodResizeDeferred(pod));
}

TEST(ResourcesTest, NonMissingContainerRequests) {
  const ResourceList defaults = resourceList({{"cpu", "100m"}, {"memory", "200Mi"}});
  PodRequestsOptions opts{.nonMissingContainerRequests = &defaults};
  expectList(podRequests(MakePod().req({{"cpu", "1"}}).req({{"memory", "1Gi"}}).obj(), opts),
             {{"cpu", "1100m"}, {"memory", "1224Mi"}}, "missing filled per container");
  expectList(podRequests(MakePod().req({{"cpu", "0"}, {"memory", "0"}}).obj(), opts),
             {{"cpu", "0"}, {"memory", "0"}}, "explicit zeros stay");
  expectList(podRequests(MakePod().container("img").obj(), opts), {{"cpu", "100m"}, {"memory", "200Mi"}},
             "no requests at all");
}

TEST(ResourcesTest, PodLimits) {
  struct Case {
    std::string name;
    Pod pod;
    ks::testing::ResourceMap want;
  };
  const std::vector<Case> cases = {
      {"containers summed",
       MakePod().lim({{"cpu", "1"}}).lim({{"cpu", "2"}, {"memory", "1Gi"}}).obj(),
       {{"cpu", "3"}, {"memory", "1Gi"}}},
      {"overhead only on set limits",
       MakePod().lim({{"cpu", "1"}}).overhead({{"cpu", "1"}, {"memory", "1Gi"}}).obj(),
       {{"cpu", "2"}}},
      {"pod-level limits override",
       MakePod().lim({{"cpu", "1"}}).podLevelLimits({{"cpu", "4"}}).obj(),
       {{"cpu", "4"}}},
  };
  for (const auto& c : cases) expectList(podLimits(c.pod), c.want, c.name);
  // Sidecar limits accumulate like requests.
  Pod p = MakePod().lim({{"cpu", "1"}}).obj();
  Container sidecar;
  sidecar.name = "s";
  sidecar.restartPolicy = "Always";
  sidecar.resources.limits = resourceList({{"cpu", "2"}});
  p.spec.initContainers.push_back(sidecar);
  expectList(podLimits(p), {{"cpu", "3"}}, "sidecar limits");
}

TEST(ResourcesTest, NonzeroRequests) {
  struct Case {
    std::string name;
    ks::testing::ResourceMap requests;
    int64_t cpu, mem;
  };
  const std::vector<Case> cases = {
      {"cpu and memory not found", {}, kDefaultMilliCPURequest, kDefaultMemoryRequest},
      {"only cpu exists", {{"cpu", "200m"}}, 200, kDefaultMemoryRequest},
      {"only memory exists", {{"memory", "400Mi"}}, kDefaultMilliCPURequest, 400 * 1024 * 1024},
      {"cpu memory exist", {{"cpu", "200m"}, {"memory", "400Mi"}}, 200, 400 * 1024 * 1024},
      {"cpu memory exist but zero", {{"cpu", "0"}, {"memory", "0"}}, 0, 0},
  };
  for (const auto& c : cases) {
    auto [cpu, mem] = getNonzeroRequests(resourceList(c.requests));
    EXPECT_EQ(cpu, c.cpu) << c.name;
    EXPECT_EQ(mem, c.mem) << c.name;
  }
  EXPECT_TRUE(getRequestForResource("ephemeral-storage", {}, true).isZero());
  EXPECT_EQ(getRequestForResource("example.com/gpu", resourceList({{"example.com/gpu", "2"}}), true).value(),
            2);
  EXPECT_TRUE(getRequestForResource("cpu", {}, false).isZero());
}

TEST(ResourcesTest, PodLevelHelpers) {
  EXPECT_TRUE(isSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(isSupportedPodLevelResource("hugepages-2Mi"));
  EXPECT_FALSE(isSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_FALSE(isPodLevelRequestsSet(MakePod().obj()));
  EXPECT_TRUE(isPodLevelRequestsSet(MakePod().res({{"memory", "1Gi"}}).obj()));
  EXPECT_TRUE(isPodLevelResourcesSet(MakePod().podLevelLimits({{"cpu", "1"}}).obj()));
  EXPECT_FALSE(isPodLevelRequestsSet(MakePod().podLevelLimits({{"cpu", "1"}}).obj()));
  EXPECT_TRUE(isPodLevelLimitsSet(MakePod().podLevelLimits({{"cpu", "1"}}).obj()));
  EXPECT_FALSE(isPodLevelLimitsSet(MakePod().res({{"memory", "1Gi"}}).obj()));
}

}  // namespace
}  // namespace ks::api
