// Ported from upstream pkg/scheduler/backend/cache/cache_test.go (1.34), plus error-text, PVC, image
// and cleanup-loop tests of our own.

#include "pkg/scheduler/backend/cache/cache.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "pkg/api/resources.h"
#include "test/scheduler/backend/cache/test_util.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/support/wrappers.h"

namespace ks::cache {
namespace {

using framework::Resource;
using framework::testing::FakeClock;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using testing::cpuMem;
using testing::diffNodeInfo;
using testing::ExpectedNodeInfo;
using testing::hostPort;
using testing::makeBasePod;
using testing::portsOf;

constexpr int64_t kMB = 1024 * 1024;
const auto kTTL = std::chrono::seconds(10);

Resource withScalar(Resource r, const std::string& name, int64_t v) {
  r.scalarResources[name] = v;
  return r;
}

ExpectedNodeInfo expected(Resource requested, Resource nonZero, std::vector<api::PodPtr> pods,
                          framework::HostPortInfo ports) {
  return ExpectedNodeInfo{std::move(requested), std::move(nonZero), std::move(pods), std::move(ports), {}};
}

// Asserts the cached NodeInfo for `node` matches (nullptr = no NodeInfo expected).
void expectNodeInfo(const CacheImpl& cache, const std::string& node, const ExpectedNodeInfo* want) {
  framework::NodeInfoPtr got = cache.nodeInfoForTest(node);
  if (want == nullptr) {
    EXPECT_EQ(got, nullptr) << "node " << node << " should have no NodeInfo";
    return;
  }
  ASSERT_NE(got, nullptr) << "node " << node << " has no NodeInfo";
  EXPECT_EQ(diffNodeInfo(*want, *got), "");
}

void expectForgotten(const CacheImpl& cache, const api::Pod& pod) {
  auto assumed = cache.isAssumedPod(pod);
  ASSERT_TRUE(assumed.ok());
  EXPECT_FALSE(*assumed) << "still assumed";
  EXPECT_FALSE(cache.getPod(pod).ok()) << "still in cache";
}

void assumeAndFinishBinding(CacheImpl& cache, const api::PodPtr& pod) {
  ASSERT_TRUE(cache.assumePod(pod).ok());
  ASSERT_TRUE(cache.finishBinding(*pod).ok());
}

CacheOptions withClock(FakeClock& clock, std::chrono::nanoseconds ttl = kTTL) {
  CacheOptions o;
  o.ttl = ttl;
  o.clock = &clock;
  return o;
}

// ---- TestAssumePodScheduled ----

TEST(Cache, AssumePodScheduled) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test-resource-request-and-port-0", "100m", "500", "",
                  {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-resource-request-and-port-1", "100m", "500", "",
                  {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-resource-request-and-port-2", "200m", "1Ki", "",
                  {hostPort("127.0.0.1", 8080)}),
      makeBasePod(nodeName, "test-nonzero-request", "", "", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-extended-resource-1", "100m", "500", "example.com/foo:3",
                  {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-extended-resource-2", "200m", "1Ki", "example.com/foo:5",
                  {hostPort("127.0.0.1", 8080)}),
      makeBasePod(nodeName, "test-extended-key", "100m", "500", "random-invalid-extended-key:100",
                  {api::ContainerPort{}}),
  };
  struct Case {
    std::string name;
    std::vector<api::PodPtr> pods;
    ExpectedNodeInfo want;
  };
  const std::vector<Case> cases = {
      {"assumed one pod with resource request and used ports",
       {testPods[0]},
       expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[0]}, portsOf({hostPort("127.0.0.1", 80)}))},
      {"node requested resource are equal to the sum of the assumed pods requested resource, node contains "
       "host "
       "ports defined by pods",
       {testPods[1], testPods[2]},
       expected(cpuMem(300, 1524), cpuMem(300, 1524), {testPods[1], testPods[2]},
                portsOf({hostPort("127.0.0.1", 80), hostPort("127.0.0.1", 8080)}))},
      {"assumed pod without resource request",
       {testPods[3]},
       expected(cpuMem(0, 0), cpuMem(api::kDefaultMilliCPURequest, api::kDefaultMemoryRequest), {testPods[3]},
                portsOf({hostPort("127.0.0.1", 80)}))},
      {"assumed one pod with extended resource",
       {testPods[4]},
       expected(withScalar(cpuMem(100, 500), "example.com/foo", 3), cpuMem(100, 500), {testPods[4]},
                portsOf({hostPort("127.0.0.1", 80)}))},
      {"assumed two pods with extended resources",
       {testPods[4], testPods[5]},
       expected(withScalar(cpuMem(300, 1524), "example.com/foo", 8), cpuMem(300, 1524),
                {testPods[4], testPods[5]},
                portsOf({hostPort("127.0.0.1", 80), hostPort("127.0.0.1", 8080)}))},
      {"assumed pod with random invalid extended resource key",
       {testPods[6]},
       expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[6]}, {})},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CacheImpl cache;
    for (const auto& pod : tc.pods) {
      ASSERT_TRUE(cache.assumePod(pod).ok());
      // Already in the cache, so can't be assumed.
      EXPECT_FALSE(cache.assumePod(pod).ok());
    }
    expectNodeInfo(cache, nodeName, &tc.want);
    for (const auto& pod : tc.pods) {
      ASSERT_TRUE(cache.forgetPod(*pod).ok());
      expectForgotten(cache, *pod);
    }
    expectNodeInfo(cache, nodeName, nullptr);
  }
}

// ---- TestExpirePod ----

TEST(Cache, ExpirePod) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test-1", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-2", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
      makeBasePod(nodeName, "test-3", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
  };
  struct PodOp {
    api::PodPtr pod;
    bool finishBind = false;
    std::chrono::nanoseconds assumedAfter{0};  // finishBinding at start + this
  };
  struct Case {
    std::string name;
    std::vector<PodOp> pods;
    std::chrono::nanoseconds cleanupAfter;
    std::chrono::nanoseconds ttl;
    std::optional<ExpectedNodeInfo> want;
  };
  const std::vector<Case> cases = {
      {"assumed pod would expire", {{testPods[0], true, {}}}, 2 * kTTL, kTTL, std::nullopt},
      {"first one would expire, second and third would not",
       {{testPods[0], true, {}}, {testPods[1], true, 3 * kTTL / 2}, {testPods[2], false, {}}},
       2 * kTTL,
       kTTL,
       // Order gets altered when removing pods.
       expected(cpuMem(400, 2048), cpuMem(400, 2048), {testPods[2], testPods[1]},
                portsOf({hostPort("127.0.0.1", 8080)}))},
      {"assumed pod would never expire",
       {{testPods[0], true, {}}},
       std::chrono::seconds(3),
       std::chrono::nanoseconds(0),
       expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[0]}, portsOf({hostPort("127.0.0.1", 80)}))},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    FakeClock clock;
    const auto start = clock.now();
    CacheImpl cache(withClock(clock, tc.ttl));
    for (const auto& op : tc.pods) {
      ASSERT_TRUE(cache.assumePod(op.pod).ok());
      if (!op.finishBind) continue;
      clock.step(start + op.assumedAfter - clock.now());
      ASSERT_TRUE(cache.finishBinding(*op.pod).ok());
    }
    // Bound pods with finish time + ttl < cleanup time expire.
    cache.cleanupAssumedPods(start + tc.cleanupAfter);
    expectNodeInfo(cache, nodeName, tc.want ? &*tc.want : nullptr);
  }
}

// ---- TestAddPodWillConfirm ----

TEST(Cache, AddPodWillConfirm) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test-1", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-2", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
  };
  FakeClock clock;
  const auto now = clock.now();
  CacheImpl cache(withClock(clock));
  // Two pods assumed at the same time; the first one gets Add()ed and is confirmed.
  for (const auto& pod : testPods) assumeAndFinishBinding(cache, pod);
  ASSERT_TRUE(cache.addPod(testPods[0]).ok());
  // Already in added state.
  EXPECT_FALSE(cache.addPod(testPods[0]).ok());
  cache.cleanupAssumedPods(now + 2 * kTTL);
  // Confirmed pods don't expire.
  const auto want =
      expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[0]}, portsOf({hostPort("127.0.0.1", 80)}));
  expectNodeInfo(cache, nodeName, &want);
  EXPECT_FALSE(*cache.isAssumedPod(*testPods[0]));
  expectForgotten(cache, *testPods[1]);
}

// ---- TestDump ----

TEST(Cache, Dump) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test-1", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test-2", "200m", "1Ki", "", {hostPort("127.0.0.1", 80)}),
  };
  CacheImpl cache;
  for (const auto& pod : testPods) ASSERT_TRUE(cache.assumePod(pod).ok());
  ASSERT_TRUE(cache.addPod(testPods[0]).ok());
  cache.addNode(MakeNode().name("other").images({{"img", 5}}).ptr());

  Dump d = cache.dump();
  ASSERT_EQ(static_cast<int>(d.nodes.size()), cache.nodeCount());
  for (const auto& [name, info] : d.nodes) {
    auto cached = cache.nodeInfoForTest(name);
    ASSERT_NE(cached, nullptr);
    if (name != "other") {
      EXPECT_EQ(diffNodeInfo(*cached, *info, true), "");
    }
    EXPECT_EQ(info->generation(), cached->generation());
  }
  EXPECT_EQ(d.assumedPods, std::set<std::string>{"test-2"});
  EXPECT_EQ(d.nodes.at("other")->imageStates().at("img").numNodes, 1);
}

// ---- TestAddPodAlwaysUpdatesPodInfoInNodeInfo ----

TEST(Cache, AddPodAlwaysUpdatesPodInfoInNodeInfo) {
  auto p1 = makeBasePod("node1", "test-1", "100m", "500", "", {hostPort("", 80)});
  api::Pod p2obj = *p1;
  p2obj.status.conditions.push_back(
      api::PodCondition{"PodScheduled", "True", "", "", std::nullopt, std::nullopt});
  auto p2 = std::make_shared<const api::Pod>(p2obj);

  CacheImpl cache;
  ASSERT_TRUE(cache.assumePod(p1).ok());
  ASSERT_TRUE(cache.addPod(p2).ok());
  const auto want = expected(cpuMem(100, 500), cpuMem(100, 500), {p2}, portsOf({hostPort("0.0.0.0", 80)}));
  expectNodeInfo(cache, "node1", &want);
  EXPECT_EQ(**cache.getPod(*p1), *p2);
}

// ---- TestAddPodWillReplaceAssumed ----

TEST(Cache, AddPodWillReplaceAssumed) {
  auto assumedPod = makeBasePod("assumed-node-1", "test-1", "100m", "500", "", {hostPort("", 80)});
  auto addedPod = makeBasePod("actual-node", "test-1", "100m", "500", "", {hostPort("", 80)});
  auto updatedPod = makeBasePod("actual-node", "test-1", "200m", "500", "", {hostPort("", 90)});

  CacheImpl cache;
  ASSERT_TRUE(cache.assumePod(assumedPod).ok());
  ASSERT_TRUE(cache.addPod(addedPod).ok());
  ASSERT_TRUE(cache.updatePod(*addedPod, updatedPod).ok());

  expectNodeInfo(cache, "assumed-node-1", nullptr);
  const auto want =
      expected(cpuMem(200, 500), cpuMem(200, 500), {updatedPod}, portsOf({hostPort("0.0.0.0", 90)}));
  expectNodeInfo(cache, "actual-node", &want);
}

// ---- TestAddPodAfterExpiration ----

TEST(Cache, AddPodAfterExpiration) {
  const std::string nodeName = "node";
  auto basePod = makeBasePod(nodeName, "test", "100m", "500", "", {hostPort("127.0.0.1", 80)});
  FakeClock clock;
  const auto now = clock.now();
  CacheImpl cache(withClock(clock));
  assumeAndFinishBinding(cache, basePod);
  cache.cleanupAssumedPods(now + 2 * kTTL);
  // Expired and removed.
  expectForgotten(cache, *basePod);
  ASSERT_TRUE(cache.addPod(basePod).ok());
  const auto want =
      expected(cpuMem(100, 500), cpuMem(100, 500), {basePod}, portsOf({hostPort("127.0.0.1", 80)}));
  expectNodeInfo(cache, nodeName, &want);
}

// ---- TestUpdatePod ----

TEST(Cache, UpdatePod) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
  };
  // Add a pod, then update it twice.
  const std::vector<api::PodPtr> updates = {testPods[0], testPods[1], testPods[0]};
  const std::vector<ExpectedNodeInfo> want = {
      expected(cpuMem(200, 1024), cpuMem(200, 1024), {testPods[1]}, portsOf({hostPort("127.0.0.1", 8080)})),
      expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[0]}, portsOf({hostPort("127.0.0.1", 80)})),
  };
  CacheImpl cache;
  ASSERT_TRUE(cache.addPod(testPods[0]).ok());
  for (std::size_t j = 1; j < updates.size(); ++j) {
    SCOPED_TRACE(j);
    ASSERT_TRUE(cache.updatePod(*updates[j - 1], updates[j]).ok());
    expectNodeInfo(cache, nodeName, &want[j - 1]);
  }
}

// ---- TestUpdatePodAndGet ----

TEST(Cache, UpdatePodAndGet) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
  };
  struct Case {
    std::string name;
    api::PodPtr pod;
    api::PodPtr podToUpdate;
    std::function<VoidResult(CacheImpl&, const api::PodPtr&)> handler;
    bool assumePod;
  };
  const std::vector<Case> cases = {
      {"do not update pod when pod information has not changed", testPods[0], testPods[0],
       [](CacheImpl& c, const api::PodPtr& p) { return c.assumePod(p); }, true},
      {"update pod when pod information changed", testPods[0], testPods[1],
       [](CacheImpl& c, const api::PodPtr& p) { return c.addPod(p); }, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CacheImpl cache;
    // Unknown pods: get and update fail.
    EXPECT_FALSE(cache.getPod(*tc.podToUpdate).ok());
    EXPECT_FALSE(cache.updatePod(*tc.pod, tc.podToUpdate).ok());
    ASSERT_TRUE(tc.handler(cache, tc.pod).ok());
    if (!tc.assumePod) {
      ASSERT_TRUE(cache.updatePod(*tc.pod, tc.podToUpdate).ok());
    }
    auto cached = cache.getPod(*tc.pod);
    ASSERT_TRUE(cached.ok());
    EXPECT_EQ(**cached, *tc.podToUpdate);
  }
}

// ---- TestExpireAddUpdatePod ----

TEST(Cache, ExpireAddUpdatePod) {
  const std::string nodeName = "node";
  const std::vector<api::PodPtr> testPods = {
      makeBasePod(nodeName, "test", "100m", "500", "", {hostPort("127.0.0.1", 80)}),
      makeBasePod(nodeName, "test", "200m", "1Ki", "", {hostPort("127.0.0.1", 8080)}),
  };
  const std::vector<api::PodPtr> updates = {testPods[0], testPods[1], testPods[0]};
  const std::vector<ExpectedNodeInfo> want = {
      expected(cpuMem(200, 1024), cpuMem(200, 1024), {testPods[1]}, portsOf({hostPort("127.0.0.1", 8080)})),
      expected(cpuMem(100, 500), cpuMem(100, 500), {testPods[0]}, portsOf({hostPort("127.0.0.1", 80)})),
  };
  FakeClock clock;
  const auto now = clock.now();
  CacheImpl cache(withClock(clock));
  // Assumed, expired, added; then updated twice.
  assumeAndFinishBinding(cache, testPods[0]);
  cache.cleanupAssumedPods(now + 2 * kTTL);
  ASSERT_TRUE(cache.addPod(testPods[0]).ok());
  for (std::size_t j = 1; j < updates.size(); ++j) {
    SCOPED_TRACE(j);
    ASSERT_TRUE(cache.updatePod(*updates[j - 1], updates[j]).ok());
    expectNodeInfo(cache, nodeName, &want[j - 1]);
  }
}

// ---- TestEphemeralStorageResource ----

TEST(Cache, EphemeralStorageResource) {
  const std::string nodeName = "node";
  auto podE = MakePod()
                  .name("pod-with-ephemeral-storage")
                  .namespace_("default-namespace")
                  .uid("pod-with-ephemeral-storage")
                  .req({{"ephemeral-storage", "500"}})
                  .node(nodeName)
                  .ptr();
  Resource requested;
  requested.ephemeralStorage = 500;
  const auto want =
      expected(requested, cpuMem(api::kDefaultMilliCPURequest, api::kDefaultMemoryRequest), {podE}, {});
  CacheImpl cache;
  ASSERT_TRUE(cache.addPod(podE).ok());
  expectNodeInfo(cache, nodeName, &want);
  ASSERT_TRUE(cache.removePod(*podE).ok());
  EXPECT_FALSE(cache.getPod(*podE).ok()) << "pod was not deleted";
}

// ---- TestRemovePod ----

TEST(Cache, RemovePod) {
  auto pod = makeBasePod("node-1", "test", "100m", "500", "", {hostPort("127.0.0.1", 80)});
  const std::vector<api::NodePtr> nodes = {MakeNode().name("node-1").ptr(), MakeNode().name("node-2").ptr()};
  const auto want = expected(cpuMem(100, 500), cpuMem(100, 500), {pod}, portsOf({hostPort("127.0.0.1", 80)}));
  for (bool assume : {false, true}) {
    SCOPED_TRACE(assume ? "assumed" : "bound");
    CacheImpl cache;
    // Add/Assume pod succeeds even before adding the nodes.
    ASSERT_TRUE((assume ? cache.assumePod(pod) : cache.addPod(pod)).ok());
    expectNodeInfo(cache, "node-1", &want);
    for (const auto& n : nodes) cache.addNode(n);
    ASSERT_TRUE(cache.removePod(*pod).ok());
    EXPECT_FALSE(cache.getPod(*pod).ok()) << "pod was not deleted";
    // Removing a removed pod fails.
    EXPECT_FALSE(cache.removePod(*pod).ok());
    // The node that owned the pod is at the head of the list.
    EXPECT_EQ(cache.nodeListOrderForTest().front(), "node-1");
  }
}

// ---- TestForgetPod ----

TEST(Cache, ForgetPod) {
  auto basePod = makeBasePod("node", "test", "100m", "500", "", {hostPort("127.0.0.1", 80)});
  CacheImpl cache;
  ASSERT_TRUE(cache.assumePod(basePod).ok());
  auto assumed = cache.isAssumedPod(*basePod);
  ASSERT_TRUE(assumed.ok());
  EXPECT_TRUE(*assumed);
  auto got = cache.getPod(*basePod);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->metadata.namespace_, basePod->metadata.namespace_);
  EXPECT_EQ((*got)->metadata.name, basePod->metadata.name);

  ASSERT_TRUE(cache.forgetPod(*basePod).ok());
  expectForgotten(cache, *basePod);
  // Since v1.37 a pod no longer in the cache is no error: its deletion may have removed it.
  EXPECT_TRUE(cache.forgetPod(*basePod).ok());
}

// Upstream TestRemoveAssumedPod (the cases without pod groups).
TEST(Cache, RemoveAssumedPod) {
  const auto pod = MakePod().namespace_("test-ns").name("pod-0").uid("uid-0").ptr();
  const auto assumed = MakePod().namespace_("test-ns").name("pod-0").uid("uid-0").node("node-1").ptr();
  const auto onDifferentNode = MakePod().namespace_("test-ns").name("pod-0").uid("uid-0").node("node-2").ptr();
  struct Case {
    std::string name;
    api::PodPtr add, assume, remove;
    std::string wantErr;
  };
  const std::vector<Case> cases = {
      {"remove assumed pod", nullptr, assumed, assumed, ""},
      {"pod is not assumed", pod, nullptr, pod, "pod uid-0(test-ns/pod-0) is not assumed, so it cannot be removed or forgotten"},
      {"pod doesn't exist in the cache", nullptr, nullptr, assumed, ""},
      {"remove assumed pod with different node name", nullptr, assumed, onDifferentNode,
       "pod uid-0(test-ns/pod-0) was assumed on node-2 but assigned to node-1"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CacheImpl cache;
    if (tc.add) {
      ASSERT_TRUE(cache.addPod(tc.add).ok());
    }
    if (tc.assume) {
      ASSERT_TRUE(cache.assumePod(tc.assume).ok());
    }
    auto r = cache.removeAssumedPod(*tc.remove);
    if (tc.wantErr.empty()) {
      EXPECT_TRUE(r.ok()) << r.error().message();
      EXPECT_EQ(cache.podCount(), tc.add ? 1 : 0);
      auto stillAssumed = cache.isAssumedPod(*tc.remove);
      EXPECT_TRUE(stillAssumed.ok() && !*stillAssumed);
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.error().message(), tc.wantErr);
    }
  }
}

// ---- error texts of invalid transitions ----

TEST(Cache, TransitionErrors) {
  auto pod = makeBasePod("n1", "uid-1", "100m", "500", "", {});
  api::Pod onOther = *pod;
  onOther.spec.nodeName = "n2";
  api::Pod noUID = *pod;
  noUID.metadata.uid.clear();
  CacheImpl cache;

  EXPECT_EQ(cache.assumePod(std::make_shared<const api::Pod>(noUID)).error().message(),
            "cannot get cache key for pod with empty UID");
  EXPECT_EQ(cache.isAssumedPod(noUID).error().message(), "cannot get cache key for pod with empty UID");
  EXPECT_TRUE(cache.forgetPod(*pod).ok()) << "not in the cache: nothing to forget";
  EXPECT_EQ(cache.updatePod(*pod, pod).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) is not added to scheduler cache, so cannot be updated");
  EXPECT_EQ(
      cache.removePod(*pod).error().message(),
      "pod uid-1(node_info_cache_test/uid-1) is not found in scheduler cache, so cannot be removed from it");
  EXPECT_EQ(cache.getPod(*pod).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) does not exist in scheduler cache");
  EXPECT_EQ(cache.removeNode(*MakeNode().name("n9").ptr()).error().message(), "node n9 is not found");

  ASSERT_TRUE(cache.assumePod(pod).ok());
  EXPECT_EQ(cache.assumePod(pod).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) is in the cache, so can't be assumed");
  EXPECT_EQ(cache.updatePod(*pod, pod).error().message(),
            "assumed pod uid-1(node_info_cache_test/uid-1) should not be updated");
  EXPECT_EQ(cache.forgetPod(onOther).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) was assumed on n2 but assigned to n1");
  ASSERT_TRUE(cache.addPod(pod).ok());
  EXPECT_EQ(cache.addPod(pod).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) was already in added state");
  EXPECT_EQ(cache.forgetPod(*pod).error().message(),
            "pod uid-1(node_info_cache_test/uid-1) is not assumed, so it cannot be removed or forgotten");
  // A pod without a namespace prints as its name (klog.KObj).
  auto bare = MakePod().name("bare").uid("u2").node("n1").ptr();
  ASSERT_TRUE(cache.addPod(bare).ok());
  EXPECT_EQ(cache.assumePod(bare).error().message(), "pod u2(bare) is in the cache, so can't be assumed");
}

TEST(CacheDeathTest, UpdatePodOnDifferentNodeAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto pod = makeBasePod("n1", "p", "100m", "500", "", {});
  api::Pod moved = *pod;
  moved.spec.nodeName = "n2";
  EXPECT_DEATH(
      {
        CacheImpl cache;
        (void)cache.addPod(pod);
        (void)cache.updatePod(*pod, std::make_shared<const api::Pod>(moved));
      },
      "Pod updated on a different node than previously added to");
  EXPECT_DEATH(
      {
        CacheImpl cache;
        (void)cache.addPod(pod);
        (void)cache.removePod(moved);
      },
      "Scheduler cache is corrupted");
}

TEST(Cache, RemovePodWithEmptyNodeNameRemovesCachedPod) {
  // A missed Delete: the informer's last known state has no nodeName.
  auto pod = makeBasePod("n1", "p", "100m", "500", "", {});
  api::Pod unbound = *pod;
  unbound.spec.nodeName.clear();
  std::vector<std::string> logs;
  CacheOptions o;
  o.logError = [&logs](std::string_view m) { logs.emplace_back(m); };
  CacheImpl cache(o);
  ASSERT_TRUE(cache.addPod(pod).ok());
  ASSERT_TRUE(cache.removePod(unbound).ok());
  EXPECT_EQ(cache.podCount(), 0);
  EXPECT_EQ(cache.nodeCount(), 0);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].find("Pod was added to a different node than it was assumed"), std::string::npos);
}

// ---- TestNodeOperators ----

TEST(Cache, NodeOperators) {
  const ks::testing::ResourceMap resourceList1 = {
      {"cpu", "1000m"}, {"memory", "100m"}, {"example.com/foo", "1"}};
  const ks::testing::ResourceMap resourceList2 = {
      {"cpu", "500m"}, {"memory", "50m"}, {"example.com/foo", "2"}};
  const std::vector<api::Taint> taints = {{"test-key", "test-value", "PreferNoSchedule", std::nullopt}};
  const std::map<std::string, int64_t> imageStatus1 = {{"gcr.io/80:latest", 80 * kMB},
                                                       {"gcr.io/80:v1", 80 * kMB},
                                                       {"gcr.io/300:latest", 300 * kMB},
                                                       {"gcr.io/300:v1", 300 * kMB}};
  const std::map<std::string, int64_t> imageStatus2 = {
      {"gcr.io/600:latest", 600 * kMB}, {"gcr.io/80:latest", 80 * kMB}, {"gcr.io/900:latest", 900 * kMB}};
  auto makeNode = [&](const std::string& name, const ks::testing::ResourceMap& res,
                      const std::map<std::string, int64_t>& imgs) {
    return MakeNode().name(name).capacity(res).taints(taints).images(imgs).ptr();
  };
  auto makePod = [](const std::string& name, bool withPort) {
    api::Pod p =
        MakePod().name(name).uid(name).node("test-node-1").req({{"cpu", "500m"}, {"memory", "50m"}}).obj();
    if (withPort) p.spec.containers[0].ports.push_back(api::ContainerPort{"http", 80, 80, "TCP", ""});
    return std::make_shared<const api::Pod>(std::move(p));
  };
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> pods;
  };
  const std::vector<Case> cases = {
      {"operate the node with one pod",
       {makeNode("test-node-1", resourceList1, imageStatus1),
        makeNode("test-node-2", resourceList2, imageStatus2),
        makeNode("test-node-3", resourceList1, imageStatus1),
        makeNode("test-node-4", resourceList2, imageStatus2)},
       {makePod("pod1", true)}},
      {"operate the node with two pods",
       {makeNode("test-node-1", resourceList1, imageStatus1),
        makeNode("test-node-2", resourceList2, imageStatus2),
        makeNode("test-node-3", resourceList1, imageStatus1)},
       {makePod("pod1", false), makePod("pod2", false)}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    const api::NodePtr node = tc.nodes[0];
    // Image index built from all nodes: image -> nodes.
    std::map<std::string, std::set<std::string>> imageNodes;
    for (const auto& n : tc.nodes) {
      for (const auto& img : n->status.images) imageNodes[img.names[0]].insert(n->metadata.name);
    }
    // The expected cache NodeInfo: the node, its pods, {size} per image.
    auto buildExpected = [&](const api::NodePtr& n) {
      framework::NodeInfo e;
      e.setNode(n);
      for (const auto& p : tc.pods) e.addPod(p);
      std::map<std::string, framework::ImageStateSummary> states;
      for (const auto& img : n->status.images) {
        framework::ImageStateSummary s;
        s.size = img.sizeBytes;
        states[img.names[0]] = s;
      }
      e.setImageStates(states);
      return e;
    };
    framework::NodeInfo want = buildExpected(node);

    CacheImpl cache;
    for (const auto& n : tc.nodes) cache.addNode(n);
    for (const auto& p : tc.pods) ASSERT_TRUE(cache.addPod(p).ok());

    // Step 1: the node was added.
    auto got = cache.nodeInfoForTest(node->metadata.name);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(cache.nodeTreeForTest().numNodes(), static_cast<int>(tc.nodes.size()));
    EXPECT_EQ(cache.nodeTreeForTest().list().size(), tc.nodes.size());
    EXPECT_EQ(diffNodeInfo(want, *got, false), "");
    // Image index: numNodes per image.
    for (const auto& [img, s] : cache.imageStatesForTest()) {
      EXPECT_EQ(s.nodes, imageNodes[img]) << img;
      EXPECT_EQ(s.numNodes, static_cast<int>(imageNodes[img].size()));
    }

    // Step 2: snapshot the cached nodes.
    Snapshot cached;
    ASSERT_TRUE(cache.updateSnapshot(cached).ok());
    ASSERT_EQ(cached.nodeInfoMapForTest().size(), tc.nodes.size());
    const auto& snapNode = cached.nodeInfoMapForTest().at(node->metadata.name);
    auto wantSnap = want.snapshot();
    auto states = wantSnap->imageStates();
    for (auto& [img, s] : states) s.numNodes = static_cast<int>(imageNodes[img].size());
    wantSnap->setImageStates(states);
    EXPECT_EQ(diffNodeInfo(*wantSnap, *snapNode, false), "");
    EXPECT_EQ(snapNode->generation(), got->generation());
    // Same image, same summary on every node.
    for (const std::string img : {"gcr.io/80:latest", "gcr.io/300:latest"}) {
      std::optional<framework::ImageStateSummary> seen;
      for (const auto& [_, info] : cached.nodeInfoMapForTest()) {
        auto it = info->imageStates().find(img);
        if (it == info->imageStates().end()) continue;
        if (!seen) seen = it->second;
        EXPECT_EQ(*seen, it->second) << img;
      }
    }

    // Step 3: update a node attribute.
    api::Node updated = *node;
    updated.status.allocatable["memory"] = ks::testing::mustParse("50m");
    auto updatedPtr = std::make_shared<const api::Node>(updated);
    cache.updateNode(*node, updatedPtr);
    auto got2 = cache.nodeInfoForTest(node->metadata.name);
    EXPECT_GT(got2->generation(), got->generation()) << "generation is not incremented";
    framework::NodeInfo want2 = buildExpected(updatedPtr);
    EXPECT_EQ(diffNodeInfo(want2, *got2, false), "");
    EXPECT_EQ(got2->allocatable().memory, 1);
    EXPECT_EQ(cache.nodeTreeForTest().numNodes(), static_cast<int>(tc.nodes.size()));

    // Step 4: the node can be removed even if it still has pods.
    ASSERT_TRUE(cache.removeNode(*updatedPtr).ok());
    auto ghost = cache.nodeInfoForTest(node->metadata.name);
    ASSERT_NE(ghost, nullptr) << "the node should still have a ghost entry";
    EXPECT_EQ(ghost->node(), nullptr);
    // Removing it again fails.
    EXPECT_FALSE(cache.removeNode(*updatedPtr).ok());
    EXPECT_EQ(cache.nodeTreeForTest().numNodes(), static_cast<int>(tc.nodes.size()) - 1);
    EXPECT_EQ(cache.nodeTreeForTest().list().size(), tc.nodes.size() - 1);
    for (const auto& [img, s] : cache.imageStatesForTest())
      EXPECT_FALSE(s.nodes.contains(node->metadata.name));
    // Pods are still cached.
    for (const auto& p : tc.pods) EXPECT_TRUE(cache.getPod(*p).ok());
    // The snapshot drops the removed node.
    ASSERT_TRUE(cache.updateSnapshot(cached).ok());
    EXPECT_FALSE(cached.get(node->metadata.name).ok());
    // Nodes that didn't change keep the image counts of their last copy (as upstream).
    EXPECT_EQ(testing::compareCacheWithSnapshot(cache, cached, /*exactImageCounts=*/false), "");
    EXPECT_EQ(cached.nodeInfoMapForTest().at("test-node-2")->imageStates().at("gcr.io/80:latest").numNodes,
              static_cast<int>(tc.nodes.size()));

    // Step 5: removing the pods of the removed node still succeeds, and drops the ghost.
    for (const auto& p : tc.pods) {
      EXPECT_TRUE(cache.removePod(*p).ok());
      EXPECT_FALSE(cache.getPod(*p).ok());
    }
    EXPECT_EQ(cache.nodeInfoForTest(node->metadata.name), nullptr);
    EXPECT_EQ(cache.nodeCount(), static_cast<int>(tc.nodes.size()) - 1);
  }
}

// ---- image states ----

TEST(Cache, ImageStates) {
  CacheImpl cache;
  auto n1 = MakeNode().name("n1").images({{"a", 10}, {"b", 20}}).ptr();
  auto n2 = MakeNode().name("n2").images({{"a", 10}}).ptr();
  cache.addNode(n1);
  auto info2 = cache.addNode(n2);
  EXPECT_EQ(info2->imageStates().at("a").numNodes, 2);
  EXPECT_TRUE(info2->imageStates().at("a").nodes.empty());
  auto idx = cache.imageStatesForTest();
  EXPECT_EQ(idx.at("a").nodes, (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(idx.at("b").nodes, (std::set<std::string>{"n1"}));
  // n1 loses image b: it leaves the index.
  auto n1b = MakeNode().name("n1").images({{"a", 10}}).ptr();
  auto info1 = cache.updateNode(*n1, n1b);
  EXPECT_FALSE(info1->imageStates().contains("b"));
  EXPECT_FALSE(cache.imageStatesForTest().contains("b"));
  ASSERT_TRUE(cache.removeNode(*n2).ok());
  EXPECT_EQ(cache.imageStatesForTest().at("a").nodes, (std::set<std::string>{"n1"}));
  Snapshot s;
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ((*s.get("n1"))->imageStates().at("a").numNodes, 1);
  ASSERT_TRUE(cache.removeNode(*n1b).ok());
  EXPECT_TRUE(cache.imageStatesForTest().empty());
}

// ---- PVC reference counts (NodeInfo.pvcRefCounts and the snapshot's usedPVCSet) ----

TEST(Cache, PodsWithPVCs) {
  auto ephemeral = [](const std::string& volName) {
    api::Volume v;
    v.name = volName;
    v.ephemeral = api::EphemeralVolumeSource{};
    return v;
  };
  auto p1 = MakePod().name("p1").namespace_("ns").uid("p1").node("n1").pvc("c1").pvc("c2").ptr();
  auto p2 = MakePod().name("p2").namespace_("ns").uid("p2").node("n1").pvc("c1").ptr();
  auto p3 = MakePod().name("p3").namespace_("ns").uid("p3").node("n1").volume(ephemeral("scratch")).ptr();
  CacheImpl cache;
  cache.addNode(MakeNode().name("n1").ptr());
  for (const auto& p : {p1, p2, p3}) ASSERT_TRUE(cache.addPod(p).ok());
  auto info = cache.nodeInfoForTest("n1");
  // Generic ephemeral volumes are not counted, as upstream's updatePVCRefCounts.
  EXPECT_EQ(info->pvcRefCounts(), (std::map<std::string, int>{{"ns/c1", 2}, {"ns/c2", 1}}));
  Snapshot s;
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_TRUE(s.isPVCUsedByPods("ns/c1"));
  EXPECT_FALSE(s.isPVCUsedByPods("ns/p3-scratch"));
  ASSERT_TRUE(cache.removePod(*p1).ok());
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_TRUE(s.isPVCUsedByPods("ns/c1"));
  EXPECT_FALSE(s.isPVCUsedByPods("ns/c2"));
  EXPECT_EQ(cache.nodeInfoForTest("n1")->pvcRefCounts(), (std::map<std::string, int>{{"ns/c1", 1}}));
  ASSERT_TRUE(cache.removePod(*p2).ok());
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_FALSE(s.isPVCUsedByPods("ns/c1"));
  EXPECT_EQ(testing::compareCacheWithSnapshot(cache, s), "");
}

// ---- TestSchedulerCache_UpdateSnapshot ----

TEST(Cache, UpdateSnapshot) {
  std::vector<api::NodePtr> nodes, updatedNodes;
  for (int i = 0; i < 10; ++i) {
    api::Node n = MakeNode().name("test-node" + std::to_string(i)).obj();
    n.status.allocatable = ks::testing::resourceList({{"cpu", "1000m"}, {"memory", "100m"}});
    nodes.push_back(std::make_shared<const api::Node>(n));
    n.status.allocatable = ks::testing::resourceList({{"cpu", "2000m"}, {"memory", "500m"}});
    updatedNodes.push_back(std::make_shared<const api::Node>(n));
  }
  std::vector<api::PodPtr> pods, updatedPods;
  for (int i = 0; i < 20; ++i) {
    api::Pod p = MakePod()
                     .name("test-pod" + std::to_string(i))
                     .namespace_("test-ns")
                     .uid("test-puid" + std::to_string(i))
                     .node("test-node" + std::to_string(i % 10))
                     .obj();
    pods.push_back(std::make_shared<const api::Pod>(p));
    p.spec.priority = 1000;
    updatedPods.push_back(std::make_shared<const api::Pod>(p));
  }
  std::vector<api::PodPtr> podsWithAffinity;
  for (int i = 0; i < 2; ++i) {
    podsWithAffinity.push_back(MakePod()
                                   .name("p-affinity-" + std::to_string(i))
                                   .namespace_("test-ns")
                                   .uid("puid-affinity-" + std::to_string(i))
                                   .podAffinityExists("foo", "")
                                   .node("test-node" + std::to_string(i))
                                   .ptr());
  }
  std::vector<api::PodPtr> podsWithPVC;
  for (int i = 0; i < 8; ++i) {
    podsWithPVC.push_back(MakePod()
                              .name("p-pvc-" + std::to_string(i))
                              .namespace_("test-ns")
                              .uid("puid-pvc-" + std::to_string(i))
                              .pvc("test-pvc" + std::to_string(i % 4))
                              .node("test-node" + std::to_string(i % 2))
                              .ptr());
  }

  std::unique_ptr<CacheImpl> cache;
  std::unique_ptr<Snapshot> snapshot;
  using Op = std::function<void()>;
  auto addNode = [&](int i) -> Op { return [&, i] { cache->addNode(nodes[i]); }; };
  auto removeNode = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->removeNode(*nodes[i]).ok()); }; };
  auto updateNode = [&](int i) -> Op { return [&, i] { cache->updateNode(*nodes[i], updatedNodes[i]); }; };
  auto addPod = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->addPod(pods[i]).ok()); }; };
  auto assumePod = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->assumePod(pods[i]).ok()); }; };
  auto forgetPod = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->forgetPod(*pods[i]).ok()); }; };
  auto addPodWithAffinity = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->addPod(podsWithAffinity[i]).ok()); };
  };
  auto addPodWithPVC = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->addPod(podsWithPVC[i]).ok()); };
  };
  auto removePod = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->removePod(*pods[i]).ok()); }; };
  auto removePodWithAffinity = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->removePod(*podsWithAffinity[i]).ok()); };
  };
  auto removePodWithPVC = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->removePod(*podsWithPVC[i]).ok()); };
  };
  auto updatePod = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->updatePod(*pods[i], updatedPods[i]).ok()); };
  };
  auto updateSnapshot = [&]() -> Op {
    return [&] {
      EXPECT_TRUE(cache->updateSnapshot(*snapshot).ok());
      EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, *snapshot), "");
    };
  };

  using PVCs = std::set<std::string, std::less<>>;
  struct Case {
    std::string name;
    std::vector<Op> ops;
    std::vector<int> expected;  // node indexes, from the head of the cache's list
    int expectedHavePodsWithAffinity = 0;
    PVCs expectedUsedPVCSet;
  };
  const std::vector<Case> cases = {
      {"Empty cache", {}, {}},
      {"Single node", {addNode(1)}, {1}},
      {"Add node, remove it, add it again", {addNode(1), updateSnapshot(), removeNode(1), addNode(1)}, {1}},
      {"Add node and remove it in the same cycle, add it again",
       {addNode(1), updateSnapshot(), addNode(2), removeNode(1)},
       {2}},
      {"Add a few nodes, and snapshot in the middle",
       {addNode(0), updateSnapshot(), addNode(1), updateSnapshot(), addNode(2), updateSnapshot(), addNode(3)},
       {3, 2, 1, 0}},
      {"Add a few nodes, and snapshot in the end",
       {addNode(0), addNode(2), addNode(5), addNode(6)},
       {6, 5, 2, 0}},
      {"Update some nodes", {addNode(0), addNode(1), addNode(5), updateSnapshot(), updateNode(1)}, {1, 5, 0}},
      {"Add a few nodes, and remove all of them",
       {addNode(0), addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(0), removeNode(2),
        removeNode(5), removeNode(6)},
       {}},
      {"Add a few nodes, and remove some of them",
       {addNode(0), addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(0), removeNode(6)},
       {5, 2}},
      {"Add a few nodes, remove all of them, and add more",
       {addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(2), removeNode(5), removeNode(6),
        updateSnapshot(), addNode(7), addNode(9)},
       {9, 7}},
      {"Update nodes in particular order",
       {addNode(8), updateNode(2), updateNode(8), updateSnapshot(), addNode(1)},
       {1, 8, 2}},
      {"Add some nodes and some pods",
       {addNode(0), addNode(2), addNode(8), updateSnapshot(), addPod(8), addPod(2)},
       {2, 8, 0}},
      {"Updating a pod moves its node to the head",
       {addNode(0), addPod(0), addNode(2), addNode(4), updatePod(0)},
       {0, 4, 2}},
      {"Add pod before its node", {addNode(0), addPod(1), updatePod(1), addNode(1)}, {1, 0}},
      {"Remove node before its pods",
       {addNode(0), addNode(1), addPod(1), addPod(11), updateSnapshot(), removeNode(1), updateSnapshot(),
        updatePod(1), updatePod(11), removePod(1), removePod(11)},
       {0}},
      {"Add Pods with affinity",
       {addNode(0), addPodWithAffinity(0), updateSnapshot(), addNode(1)},
       {1, 0},
       1},
      {"Add Pods with PVC",
       {addNode(0), addPodWithPVC(0), updateSnapshot(), addNode(1)},
       {1, 0},
       0,
       {"test-ns/test-pvc0"}},
      {"Add multiple nodes with pods with affinity",
       {addNode(0), addPodWithAffinity(0), updateSnapshot(), addNode(1), addPodWithAffinity(1),
        updateSnapshot()},
       {1, 0},
       2},
      {"Add multiple nodes with pods with PVC",
       {addNode(0), addPodWithPVC(0), updateSnapshot(), addNode(1), addPodWithPVC(1), updateSnapshot()},
       {1, 0},
       0,
       {"test-ns/test-pvc0", "test-ns/test-pvc1"}},
      {"Add then Remove pods with affinity",
       {addNode(0), addNode(1), addPodWithAffinity(0), updateSnapshot(), removePodWithAffinity(0),
        updateSnapshot()},
       {0, 1},
       0},
      {"Add then Remove pod with PVC",
       {addNode(0), addPodWithPVC(0), updateSnapshot(), removePodWithPVC(0), addPodWithPVC(2),
        updateSnapshot()},
       {0},
       0,
       {"test-ns/test-pvc2"}},
      {"Add then Remove pod with PVC and add same pod again",
       {addNode(0), addPodWithPVC(0), updateSnapshot(), removePodWithPVC(0), addPodWithPVC(0),
        updateSnapshot()},
       {0},
       0,
       {"test-ns/test-pvc0"}},
      {"Add and Remove multiple pods with PVC with same ref count length different content",
       {addNode(0), addNode(1), addPodWithPVC(0), addPodWithPVC(1), updateSnapshot(), removePodWithPVC(0),
        removePodWithPVC(1), addPodWithPVC(2), addPodWithPVC(3), updateSnapshot()},
       {1, 0},
       0,
       {"test-ns/test-pvc2", "test-ns/test-pvc3"}},
      {"Add and Remove multiple pods with PVC",
       {addNode(0), addNode(1), addPodWithPVC(0), addPodWithPVC(1), addPodWithPVC(2), updateSnapshot(),
        removePodWithPVC(0), removePodWithPVC(1), updateSnapshot(), addPodWithPVC(0), updateSnapshot(),
        addPodWithPVC(3), addPodWithPVC(4), addPodWithPVC(5), updateSnapshot(), removePodWithPVC(0),
        removePodWithPVC(3), removePodWithPVC(4), updateSnapshot()},
       {0, 1},
       0,
       {"test-ns/test-pvc1", "test-ns/test-pvc2"}},
      // Upstream's case also assumes/forgets in the snapshot (post-1.34); the cache part is kept.
      {"Assume and forget in cache",
       {addNode(0), addNode(2), addNode(4), addNode(8), updateSnapshot(), assumePod(8), assumePod(4),
        assumePod(0), forgetPod(0), updateSnapshot()},
       {0, 4, 8, 2}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    cache = std::make_unique<CacheImpl>();
    snapshot = std::make_unique<Snapshot>();
    for (const auto& op : tc.ops) op();

    std::vector<std::string> wantOrder;
    for (int i : tc.expected) wantOrder.push_back(nodes[i]->metadata.name);
    EXPECT_EQ(cache->nodeCount(), static_cast<int>(tc.expected.size()));
    EXPECT_EQ(cache->nodeListOrderForTest(), wantOrder);
    EXPECT_EQ(static_cast<int>(snapshot->havePodsWithAffinityList().size()), tc.expectedHavePodsWithAffinity);
    EXPECT_EQ(snapshot->usedPVCSetForTest(), tc.expectedUsedPVCSet);
    // Always update the snapshot at the end and compare it.
    EXPECT_TRUE(cache->updateSnapshot(*snapshot).ok());
    EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, *snapshot), "");
  }
}

// ---- TestSchedulerCache_updateNodeInfoSnapshotList (through updateSnapshot) ----

TEST(Cache, UpdateSnapshotListOrderAcrossZones) {
  std::vector<api::NodePtr> nodes;
  int i = 0;
  const int perZone[] = {2, 6};  // zone 0 -> 2 nodes, zone 1 -> 6
  for (int zone = 0; zone < 2; ++zone) {
    for (int j = 0; j < perZone[zone]; ++j, ++i) {
      nodes.push_back(MakeNode()
                          .name("node-" + std::to_string(i))
                          .label(std::string(kLabelTopologyRegion), "region-" + std::to_string(zone))
                          .label(std::string(kLabelTopologyZone), "zone-" + std::to_string(zone))
                          .ptr());
    }
  }
  struct Case {
    std::string name;
    std::vector<int> ops;  // node index to add, -1 = update the snapshot
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"Empty cache", {}, {}},
      {"Single node", {0}, {"node-0"}},
      {"Two nodes", {0, -1, 1}, {"node-0", "node-1"}},
      {"bug 91601, two nodes, update the snapshot and add two nodes in different zones",
       {2, 3, -1, 4, 0},
       {"node-2", "node-0", "node-3", "node-4"}},
      {"bug 91601, 6 nodes, one in a different zone",
       {2, 3, 4, 5, -1, 6, 0},
       {"node-2", "node-0", "node-3", "node-4", "node-5", "node-6"}},
      {"bug 91601, 7 nodes, two in a different zone",
       {2, -1, 3, 4, -1, 5, 6, 0, 1},
       {"node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"}},
      {"bug 91601, 7 nodes, two in a different zone, different zone order",
       {2, 1, -1, 3, 4, -1, 5, 6, 0},
       {"node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CacheImpl cache;
    Snapshot snapshot;
    for (int op : tc.ops) {
      if (op < 0) {
        EXPECT_TRUE(cache.updateSnapshot(snapshot).ok());
        EXPECT_EQ(testing::compareCacheWithSnapshot(cache, snapshot), "");
      } else {
        cache.addNode(nodes[static_cast<std::size_t>(op)]);
      }
    }
    EXPECT_TRUE(cache.updateSnapshot(snapshot).ok());
    EXPECT_EQ(testing::compareCacheWithSnapshot(cache, snapshot), "");
    EXPECT_EQ(testing::names(snapshot.list()), tc.expected);
  }
}

// As upstream (F13): a node removed and re-added between two updates keeps its place in the snapshot's
// list; the tree's new order shows only after the next full rebuild (here: a node added).
TEST(Cache, UpdateSnapshotKeepsListOrderAfterReAdd) {
  CacheImpl cache;
  auto a = MakeNode().name("a").ptr();
  auto b = MakeNode().name("b").ptr();
  cache.addNode(a);
  cache.addNode(b);
  Snapshot s;
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ(testing::names(s.list()), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(cache.removeNode(*a).ok());
  cache.addNode(a);
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ(testing::names(s.list()), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(testing::compareCacheWithSnapshot(cache, s, true, testing::ListOrder::Any), "");
  cache.addNode(MakeNode().name("c").ptr());
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ(testing::names(s.list()), (std::vector<std::string>{"b", "a", "c"}));
}

TEST(Cache, UpdateSnapshotInconsistentRebuilds) {
  // A snapshot taken from another cache whose generations are newer than all of this cache's nodes:
  // nothing is copied, the foreign nodes are dropped and the list can't be filled.
  std::vector<std::string> logs;
  CacheOptions o;
  o.logError = [&logs](std::string_view m) { logs.emplace_back(m); };
  CacheImpl older(o);
  older.addNode(MakeNode().name("mine").ptr());
  CacheImpl newer;
  newer.addNode(MakeNode().name("x").ptr());
  newer.addNode(MakeNode().name("y").ptr());
  Snapshot s;
  ASSERT_TRUE(newer.updateSnapshot(s).ok());
  auto r = older.updateSnapshot(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message(),
      "snapshot state is not consistent, length of NodeInfoList=0 not equal to length of nodes in tree=1 , "
      "length of NodeInfoMap=1, length of nodes in cache=1, trying to recover");
  EXPECT_FALSE(logs.empty());
}

TEST(Cache, SnapshotGenerationAndUnchangedNodesKeepAddress) {
  CacheImpl cache;
  cache.addNode(MakeNode().name("a").ptr());
  cache.addNode(MakeNode().name("b").ptr());
  Snapshot s;
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  const int64_t g1 = s.generation();
  const auto aPtr = *s.get("a");
  const auto bPtr = *s.get("b");
  const auto bGen = bPtr->generation();
  ASSERT_TRUE(cache.addPod(MakePod().name("p").uid("p").node("a").ptr()).ok());
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_GT(s.generation(), g1);
  EXPECT_EQ(*s.get("a"), aPtr);  // updated in place
  EXPECT_EQ(aPtr->pods().size(), 1u);
  EXPECT_EQ(bPtr->generation(), bGen);  // untouched
  // No change: nothing copied, generation unchanged.
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ(s.generation(), cache.nodeInfoForTest("a")->generation());
}

TEST(Cache, Counts) {
  CacheImpl cache;
  cache.addNode(MakeNode().name("n1").ptr());
  ASSERT_TRUE(cache.addPod(makeBasePod("n1", "a", "1", "1", "", {})).ok());
  ASSERT_TRUE(cache.assumePod(makeBasePod("n2", "b", "1", "1", "", {})).ok());
  EXPECT_EQ(cache.nodeCount(), 2);
  EXPECT_EQ(cache.podCount(), 2);
}

// ---- the background cleanup loop ----

TEST(Cache, CleanupLoopExpiresOnClock) {
  FakeClock clock;
  CacheOptions o = withClock(clock);
  o.cleanupPeriod = std::chrono::seconds(1);
  auto cache = newCache(o);
  auto pod = makeBasePod("n", "p", "100m", "500", "", {});
  assumeAndFinishBinding(*cache, pod);
  clock.step(std::chrono::seconds(5));
  EXPECT_TRUE(*cache->isAssumedPod(*pod));
  clock.step(std::chrono::seconds(6));  // deadline passed; the next tick expires it
  EXPECT_FALSE(cache->getPod(*pod).ok());
  EXPECT_EQ(clock.pendingTimers(), 1u);
  cache->stop();
  EXPECT_EQ(clock.pendingTimers(), 0u);
  cache->stop();  // idempotent
  cache.reset();
  clock.step(std::chrono::seconds(5));
}

TEST(Cache, CleanupSkipsPodsStillBinding) {
  FakeClock clock;
  CacheImpl cache(withClock(clock));
  auto pod = makeBasePod("n", "p", "100m", "500", "", {});
  ASSERT_TRUE(cache.assumePod(pod).ok());
  cache.cleanupAssumedPods(clock.now() + std::chrono::hours(1));
  EXPECT_TRUE(*cache.isAssumedPod(*pod));
}

TEST(Cache, RealClockLoopStartsAndStops) {
  auto cache = newCache();
  cache->run();  // idempotent
  cache->stop();
}

// Smoke test for the lock: concurrent writers and snapshotters (meaningful under tsan).
TEST(Cache, ConcurrentOperations) {
  CacheImpl cache;
  for (int i = 0; i < 8; ++i) cache.addNode(MakeNode().name("n" + std::to_string(i)).ptr());
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 200; ++i) {
        auto pod = makeBasePod("n" + std::to_string(i % 8), "t" + std::to_string(t) + "-" + std::to_string(i),
                               "10m", "1", "", {});
        ASSERT_TRUE(cache.assumePod(pod).ok());
        ASSERT_TRUE(cache.finishBinding(*pod).ok());
        if (i % 2 == 0) {
          ASSERT_TRUE(cache.forgetPod(*pod).ok());
        } else {
          ASSERT_TRUE(cache.addPod(pod).ok());
        }
      }
    });
  }
  threads.emplace_back([&cache] {
    Snapshot s;
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(cache.updateSnapshot(s).ok());
  });
  for (auto& th : threads) th.join();
  EXPECT_EQ(cache.podCount(), 300);
  Snapshot s;
  ASSERT_TRUE(cache.updateSnapshot(s).ok());
  EXPECT_EQ(testing::compareCacheWithSnapshot(cache, s), "");
}

}  // namespace
}  // namespace ks::cache
