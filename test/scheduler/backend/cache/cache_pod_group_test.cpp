// Ported from upstream pkg/scheduler/backend/cache/cache_test.go and snapshot_test.go (v1.37.2): the pod
// group cases (Test_AddPodGroupMember ... TestPodGroupPodOperations, TestSnapshot_AssumeForget,
// TestSnapshot_AssumeForgetAffinityAndPVC) without composite pod groups, plus checks of our own that
// assume / forget in a snapshot keep it equal to a fresh one.

#include <gtest/gtest.h>

#include <set>

#include "pkg/scheduler/backend/cache/cache.h"
#include "pkg/scheduler/backend/cache/snapshot.h"
#include "test/scheduler/backend/cache/test_util.h"
#include "test/support/pod_group_objects.h"
#include "test/support/wrappers.h"

namespace ks::cache {
namespace {

using ks::testing::MakeNode;
using ks::testing::MakePod;
using ks::testing::makePodGroup;
using ks::testing::podGroupMember;

std::unique_ptr<CacheImpl> newTestCache(bool genericWorkload) {
  CacheOptions opts;
  opts.genericWorkload = genericWorkload;
  opts.logError = [](std::string_view) {};
  return std::make_unique<CacheImpl>(std::move(opts));
}

// The members of a state by set (UIDs) and the object's name: what upstream's cmp of states compares
// (generations aside).
std::string describe(const PodGroupStateData& d) {
  auto join = [](const auto& uids) {
    std::string out;
    for (const auto& u : uids) out += (out.empty() ? "" : ",") + u;
    return out;
  };
  std::set<std::string> all, assumed;
  for (const auto& [uid, pod] : d.allPods) all.insert(uid);
  for (const auto& [uid, pod] : d.assumedPods) assumed.insert(uid);
  return "all=[" + join(all) + "] unscheduled=[" + join(d.unscheduledPods) + "] assumed=[" + join(assumed) +
         "] assigned=[" + join(d.assignedPods) + "] podGroup=" + (d.podGroup ? d.podGroup->metadata.name : "<nil>");
}

std::map<std::string, std::string> describe(const std::map<std::string, PodGroupStateData>& states) {
  std::map<std::string, std::string> out;
  for (const auto& [k, d] : states) out[k] = describe(d);
  return out;
}

std::map<std::string, std::string> describe(const PodGroupStateSnapshots& states) {
  std::map<std::string, std::string> out;
  for (const auto& [k, s] : states) out[k] = describe(s->data());
  return out;
}

bool hasName(const std::vector<api::PodPtr>& pods, const std::string& name) {
  return std::any_of(pods.begin(), pods.end(), [&](const api::PodPtr& p) { return p->metadata.name == name; });
}

PodGroupStateData stateOf(const CacheImpl& cache, const std::string& key) {
  auto states = cache.podGroupStatesForTest();
  auto it = states.find(key);
  return it == states.end() ? PodGroupStateData{} : it->second;
}

// ---- cache ----

TEST(CachePodGroupTest, AddPodGroupMember) {
  const auto noGroup = MakePod().namespace_("namespace").name("non-workload-pod").ptr();
  const auto unscheduled = podGroupMember("namespace", "unscheduled-pod", "", "pg");
  const auto assigned = podGroupMember("namespace", "assigned-pod", "", "pg", "node1");
  const auto pg = makePodGroup("namespace", "pg");
  struct Case {
    std::string name;
    framework::PodGroupPtr initPodGroup;
    api::PodPtr pod;
    bool genericWorkload;
    bool inUnscheduled, inAssigned;
  };
  const std::vector<Case> cases = {
      {"add pod group member with GenericWorkload disabled should be no-op", nullptr, unscheduled, false, false, false},
      {"add pod with no pod group name", nullptr, noGroup, true, false, false},
      {"add unscheduled pod group member", nullptr, unscheduled, true, true, false},
      {"add assigned pod group member", nullptr, assigned, true, false, true},
      {"add assigned pod group member when state already exists (from PodGroup object)", pg, assigned, true, false,
       true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    if (tc.initPodGroup) cache->addPodGroup(tc.initPodGroup);
    cache->addPodGroupMember(tc.pod);
    if (!tc.genericWorkload || !framework::isPodGroupMember(*tc.pod)) {
      EXPECT_TRUE(cache->podGroupStatesForTest().empty());
      EXPECT_EQ(cache->podGroupState("namespace", "pg"), nullptr);
      continue;
    }
    auto state = cache->podGroupState("namespace", "pg");
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(hasName(state->unscheduledPods(), tc.pod->metadata.name), tc.inUnscheduled);
    EXPECT_EQ(stateOf(*cache, "namespace/pg").assignedPods.contains(tc.pod->metadata.uid), tc.inAssigned);
  }
}

TEST(CachePodGroupTest, UpdatePodGroupMember) {
  const auto pod = podGroupMember("namespace", "unscheduled-pod", "pod1", "pg");
  api::Pod labelled = *pod;
  labelled.metadata.labels["foo"] = "bar";
  const auto updated = std::make_shared<const api::Pod>(labelled);
  const auto assigned = podGroupMember("namespace", "assigned-pod", "pod1", "pg", "node");
  const auto noGroup = MakePod().namespace_("namespace").name("no-pod-group-pod").uid("pod3").ptr();
  const auto noGroupUpdated =
      MakePod().namespace_("namespace").name("no-pod-group-pod").uid("pod3").label("foo", "bar").ptr();
  struct Case {
    std::string name;
    api::PodPtr oldPod, newPod;
    bool genericWorkload;
    bool inUnscheduled, inAssigned;
  };
  const std::vector<Case> cases = {
      {"update a pod group member with GenericWorkload disabled should be a no-op", pod, updated, false, false, false},
      {"update a pod with no pod group name", noGroup, noGroupUpdated, true, false, false},
      {"update a pod group member, add label", pod, updated, true, true, false},
      {"update an unscheduled pod group member, set NodeName", pod, assigned, true, false, true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    cache->addPodGroupMember(tc.oldPod);
    cache->updatePodGroupMember(*tc.oldPod, tc.newPod);
    if (!tc.genericWorkload || !framework::isPodGroupMember(*tc.newPod)) {
      EXPECT_TRUE(cache->podGroupStatesForTest().empty());
      continue;
    }
    const PodGroupStateData d = stateOf(*cache, "namespace/pg");
    const std::string& uid = tc.newPod->metadata.uid;
    EXPECT_EQ(d.unscheduledPods.contains(uid), tc.inUnscheduled);
    EXPECT_EQ(d.assignedPods.contains(uid), tc.inAssigned);
    EXPECT_FALSE(d.assumedPods.contains(uid));
    ASSERT_TRUE(d.allPods.contains(uid));
    EXPECT_EQ(d.allPods.at(uid), tc.newPod);  // the stored object is the new one
  }
}

TEST(CachePodGroupTest, UpdatePodGroupMemberWithoutState) {
  std::vector<std::string> logged;
  CacheOptions opts;
  opts.genericWorkload = true;
  opts.logError = [&logged](std::string_view m) { logged.emplace_back(m); };
  CacheImpl cache(std::move(opts));
  const auto pod = podGroupMember("namespace", "p", "pod1", "pg");
  cache.updatePodGroupMember(*pod, pod);
  EXPECT_TRUE(cache.podGroupStatesForTest().empty());
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0],
            "Pod group state not found for update, this indicates a missed add event: pod=namespace/p "
            "podGroup=namespace/pg");
}

TEST(CachePodGroupTest, RemovePodGroupMember) {
  const auto pod1 = podGroupMember("namespace", "unscheduled-pod", "pod1", "pg");
  const auto pod2 = podGroupMember("namespace", "assigned-pod", "pod2", "pg", "node");
  const auto pg = makePodGroup("namespace", "pg");
  struct Case {
    std::string name;
    std::vector<api::PodPtr> initPods;
    framework::PodGroupPtr initPodGroup;
    api::PodPtr podToDelete;
    std::size_t wantStates;
    bool genericWorkload;
  };
  const std::vector<Case> cases = {
      {"remove a pod from a group with multiple pods", {pod1, pod2}, nullptr, pod1, 1, true},
      {"remove a last pod from a group", {pod1}, nullptr, pod1, 0, true},
      {"remove a last pod from a group when PodGroup object still exists shouldn't remove the state", {pod1}, pg,
       pod1, 1, true},
      {"remove a non-existent pod from a group should be a no-op", {}, nullptr, pod1, 0, true},
      {"remove a pod with GenericWorkload disabled should be a no-op", {pod1}, nullptr, pod1, 0, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    if (tc.initPodGroup) cache->addPodGroup(tc.initPodGroup);
    for (const auto& p : tc.initPods) cache->addPodGroupMember(p);
    cache->removePodGroupMember(*tc.podToDelete);
    const auto states = cache->podGroupStatesForTest();
    ASSERT_EQ(states.size(), tc.wantStates);
    if (states.empty()) continue;
    EXPECT_FALSE(states.at("namespace/pg").allPods.contains(tc.podToDelete->metadata.uid));
  }
}

TEST(CachePodGroupTest, AddPodGroup) {
  const auto pg = makePodGroup("ns", "pg");
  const auto pod = podGroupMember("ns", "pod1", "", "pg");
  const auto pg1 = makePodGroup("ns1", "pg1");
  const auto pg2 = makePodGroup("ns1", "pg2");
  struct Case {
    std::string name;
    bool genericWorkload;
    api::PodPtr initPod;
    std::vector<framework::PodGroupPtr> toAdd;
    std::map<std::string, framework::PodGroupPtr> want;
  };
  const std::vector<Case> cases = {
      {"add pod group with GenericWorkload disabled should be no-op", false, nullptr, {pg}, {}},
      {"add pod group", true, nullptr, {pg}, {{"ns/pg", pg}}},
      {"add pod group when state already exists (from a member)", true, pod, {pg}, {{"ns/pg", pg}}},
      {"add two pod groups", true, nullptr, {pg1, pg2}, {{"ns1/pg1", pg1}, {"ns1/pg2", pg2}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    if (tc.initPod) cache->addPodGroupMember(tc.initPod);
    for (const auto& p : tc.toAdd) cache->addPodGroup(p);
    std::map<std::string, framework::PodGroupPtr> got;
    for (const auto& [key, d] : cache->podGroupStatesForTest()) {
      if (d.podGroup) got[key] = d.podGroup;
    }
    EXPECT_EQ(got, tc.want);
    if (tc.initPod) {
      EXPECT_EQ(stateOf(*cache, "ns/pg").allPodsCount(), 1);
    }
  }
}

TEST(CachePodGroupTest, UpdatePodGroup) {
  const auto oldPg = makePodGroup("ns", "pg", 1);
  const auto newPg = makePodGroup("ns", "pg", 2);
  for (const bool genericWorkload : {false, true}) {
    SCOPED_TRACE(genericWorkload);
    auto cache = newTestCache(genericWorkload);
    cache->addPodGroup(oldPg);
    cache->updatePodGroup(*oldPg, newPg);
    EXPECT_EQ(cache->podGroup("ns", "pg"), genericWorkload ? newPg : nullptr);
  }
}

TEST(CachePodGroupTest, RemovePodGroup) {
  const auto pg = makePodGroup("ns", "pg");
  const auto pod = podGroupMember("ns", "pod1", "", "pg");
  struct Case {
    std::string name;
    bool genericWorkload;
    api::PodPtr initPod;
    std::vector<framework::PodGroupPtr> initial;
    std::optional<bool> stateExists;
    int podsCount;
  };
  const std::vector<Case> cases = {
      {"remove pod group with GenericWorkload disabled should be no-op", false, nullptr, {}, std::nullopt, 0},
      {"remove pod group with GenericWorkload enabled", true, nullptr, {pg}, false, 0},
      {"remove pod group when it still has pod members", true, pod, {pg}, true, 1},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    if (tc.initPod) cache->addPodGroupMember(tc.initPod);
    for (const auto& p : tc.initial) cache->addPodGroup(p);
    cache->removePodGroup(*pg);
    EXPECT_EQ(cache->podGroup("ns", "pg"), nullptr);
    if (!tc.stateExists) continue;
    const auto states = cache->podGroupStatesForTest();
    ASSERT_EQ(states.contains("ns/pg"), *tc.stateExists);
    if (!*tc.stateExists) continue;
    EXPECT_EQ(states.at("ns/pg").podGroup, nullptr);
    EXPECT_EQ(states.at("ns/pg").allPodsCount(), tc.podsCount);
  }
}

TEST(CachePodGroupTest, UpdatePodGroupStateSnapshot) {
  const auto pod1 = podGroupMember("ns", "pod1", "uid1", "pg1");
  const auto pod2 = podGroupMember("ns", "pod2", "uid2", "pg1");
  const auto pod3 = podGroupMember("ns", "pod3", "uid3", "pg2");
  struct Case {
    std::string name;
    std::function<void(CacheImpl&)> setup, action;
    std::vector<api::PodPtr> expectedPods;
  };
  const std::vector<Case> cases = {
      {"add a pod group member and update snapshot", nullptr, [&](CacheImpl& c) { c.addPodGroupMember(pod1); },
       {pod1}},
      {"add a pod with different pod group and update snapshot", [&](CacheImpl& c) { c.addPodGroupMember(pod1); },
       [&](CacheImpl& c) { c.addPodGroupMember(pod3); }, {pod1, pod3}},
      {"remove a last pod group member and update snapshot",
       [&](CacheImpl& c) {
         c.addPodGroupMember(pod1);
         c.addPodGroupMember(pod3);
       },
       [&](CacheImpl& c) { c.removePodGroupMember(*pod1); }, {pod3}},
      {"add a pod to a recently deleted pod group and update snapshot",
       [&](CacheImpl& c) {
         c.addPodGroupMember(pod1);
         c.addPodGroupMember(pod3);
         c.removePodGroupMember(*pod1);
       },
       [&](CacheImpl& c) { c.addPodGroupMember(pod2); }, {pod2, pod3}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(true);
    Snapshot snapshot;
    if (tc.setup) {
      tc.setup(*cache);
      ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
    }
    std::map<std::string, int64_t> before;
    for (const auto& [key, d] : cache->podGroupStatesForTest()) before[key] = d.generation;
    std::map<std::string, std::shared_ptr<PodGroupStateSnapshot>> kept(snapshot.podGroupStatesForTest().begin(),
                                                                      snapshot.podGroupStatesForTest().end());
    tc.action(*cache);
    ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
    const auto after = cache->podGroupStatesForTest();
    for (const auto& [key, s] : snapshot.podGroupStatesForTest()) {
      // A group the cache changed is copied anew; one it didn't is kept as it was.
      EXPECT_EQ(s->data().generation, after.at(key).generation) << key;
      if (before.contains(key) && after.at(key).generation == before.at(key) && kept.contains(key)) {
        EXPECT_EQ(s, kept.at(key)) << key << " was copied although unchanged";
      }
    }
    const Snapshot want = newSnapshotWithPodGroups(tc.expectedPods, {}, {});
    EXPECT_EQ(describe(snapshot.podGroupStatesForTest()), describe(want.podGroupStatesForTest()));
  }
}

TEST(CachePodGroupTest, BindingPodGroupMember) {
  const auto pod = podGroupMember("namespace", "pod1", "pod1-uid", "pg");
  const auto scheduled = podGroupMember("namespace", "pod1", "pod1-uid", "pg", "node1");
  for (const bool assumeFirst : {false, true}) {
    SCOPED_TRACE(assumeFirst ? "bind assumed pod group member" : "bind unscheduled pod group member");
    auto cache = newTestCache(true);
    cache->addPodGroupMember(pod);
    if (assumeFirst) {
      ASSERT_TRUE(cache->assumePod(scheduled).ok());
    }
    ASSERT_TRUE(cache->addPod(scheduled).ok());
    const PodGroupStateData d = stateOf(*cache, "namespace/pg");
    EXPECT_TRUE(d.assignedPods.contains("pod1-uid"));
    EXPECT_FALSE(d.assumedPods.contains("pod1-uid"));
    EXPECT_FALSE(d.unscheduledPods.contains("pod1-uid"));
  }
}

TEST(CachePodGroupTest, ForgetPodGroupMember) {
  const auto pod = podGroupMember("test-ns", "pod-0", "uid-0", "pg");
  const auto withNode = podGroupMember("test-ns", "pod-0", "uid-0", "pg", "node-1");
  struct Case {
    std::string name;
    api::PodPtr pod;
    bool inAssigned, inUnscheduled, genericWorkload;
  };
  const std::vector<Case> cases = {
      {"forget pod group member with GenericWorkload disabled", pod, false, false, false},
      {"add pod group member without NodeName, then call assume and forget", pod, false, true, true},
      {"add pod group member with NodeName, then call assume and forget", withNode, true, false, true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    cache->addPodGroupMember(tc.pod);
    ASSERT_TRUE(cache->assumePod(withNode).ok());
    ASSERT_TRUE(cache->forgetPod(*withNode).ok());
    if (!tc.genericWorkload) {
      EXPECT_TRUE(cache->podGroupStatesForTest().empty());
      continue;
    }
    const PodGroupStateData d = stateOf(*cache, "test-ns/pg");
    EXPECT_FALSE(d.assumedPods.contains("uid-0"));
    EXPECT_EQ(d.assignedPods.contains("uid-0"), tc.inAssigned);
    EXPECT_EQ(d.unscheduledPods.contains("uid-0"), tc.inUnscheduled);
  }
}

TEST(CachePodGroupTest, AssumePodGroupMember) {
  const auto pod = podGroupMember("test-ns", "pod-0", "uid-0", "pg");
  const auto withNode = podGroupMember("test-ns", "pod-0", "uid-0", "pg", "node-1");
  struct Case {
    std::string name;
    bool genericWorkload;
    api::PodPtr pod;
    bool inAssumed, inAssigned;
  };
  const std::vector<Case> cases = {
      {"assume a pod group member with GenericWorkload disabled", false, pod, false, false},
      {"add pod group member without NodeName, then call assume", true, pod, true, false},
      {"add pod group member with NodeName, then call assume", true, withNode, false, true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    cache->addPodGroupMember(tc.pod);
    ASSERT_TRUE(cache->assumePod(withNode).ok());
    if (!tc.genericWorkload) {
      EXPECT_TRUE(cache->podGroupStatesForTest().empty());
      continue;
    }
    const PodGroupStateData d = stateOf(*cache, "test-ns/pg");
    EXPECT_EQ(d.assignedPods.contains("uid-0"), tc.inAssigned);
    EXPECT_EQ(d.assumedPods.contains("uid-0"), tc.inAssumed);
    // Plugins read the live state: the assumed member counts as scheduled.
    EXPECT_EQ(cache->podGroupState("test-ns", "pg")->scheduledPodsCount(), 1);
    EXPECT_EQ(cache->podGroupState("test-ns", "pg")->assumedPodUids().size(), tc.inAssumed ? 1u : 0u);
  }
}

// Upstream TestPodGroupPodOperations, without the two cases that turn the gate off after the setup.
TEST(CachePodGroupTest, PodGroupPodOperations) {
  const auto pod = podGroupMember("test-ns", "pod-0", "uid-0", "pg");
  struct Expected {
    std::size_t states;
    std::size_t assigned, unscheduled, assumed;
  };
  struct Case {
    std::string name;
    bool genericWorkload;
    std::function<void(CacheImpl&)> setup, operation;
    Expected want;
  };
  auto add = [&](CacheImpl& c) { ASSERT_TRUE(c.addPod(pod).ok()); };
  auto assume = [&](CacheImpl& c) { ASSERT_TRUE(c.assumePod(pod).ok()); };
  auto forget = [&](CacheImpl& c) { ASSERT_TRUE(c.forgetPod(*pod).ok()); };
  auto remove = [&](CacheImpl& c) { ASSERT_TRUE(c.removePod(*pod).ok()); };
  const std::vector<Case> cases = {
      {"AddPod with GenericWorkload disabled", false, nullptr, add, {0, 0, 0, 0}},
      {"AddPod with GenericWorkload enabled", true, nullptr, add, {1, 0, 1, 0}},
      {"AssumePod with GenericWorkload disabled", false, nullptr, assume, {0, 0, 0, 0}},
      {"AssumePod with GenericWorkload enabled", true, nullptr, assume, {1, 0, 0, 1}},
      {"ForgetPod with GenericWorkload enabled", true, assume, forget, {1, 0, 1, 0}},
      {"RemovePod with GenericWorkload enabled", true, add, remove, {0, 0, 0, 0}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto cache = newTestCache(tc.genericWorkload);
    if (tc.setup) tc.setup(*cache);
    tc.operation(*cache);
    const auto states = cache->podGroupStatesForTest();
    ASSERT_EQ(states.size(), tc.want.states);
    if (states.empty()) continue;
    const PodGroupStateData& d = states.at("test-ns/pg");
    EXPECT_EQ(d.assignedPods.size(), tc.want.assigned);
    EXPECT_EQ(d.unscheduledPods.size(), tc.want.unscheduled);
    EXPECT_EQ(d.assumedPods.size(), tc.want.assumed);
  }
}

// removeAssumedPod (the pod was deleted while being bound) drops the member, unlike forgetPod.
TEST(CachePodGroupTest, RemoveAssumedPodLeavesTheGroup) {
  auto cache = newTestCache(true);
  const auto pod = podGroupMember("ns", "p", "uid", "pg");
  const auto other = podGroupMember("ns", "q", "uid2", "pg");
  cache->addPodGroupMember(pod);
  cache->addPodGroupMember(other);
  const auto assumed = podGroupMember("ns", "p", "uid", "pg", "node");
  ASSERT_TRUE(cache->assumePod(assumed).ok());
  ASSERT_TRUE(cache->removeAssumedPod(*assumed).ok());
  const PodGroupStateData d = stateOf(*cache, "ns/pg");
  EXPECT_FALSE(d.allPods.contains("uid"));
  EXPECT_EQ(d.allPodsCount(), 1);
}

// ---- snapshot ----

TEST(SnapshotPodGroupTest, AssumeForget) {
  const auto node1 = MakeNode().name("node-1").ptr();
  const auto node2 = MakeNode().name("node-2").ptr();
  const auto pod1 = MakePod().name("pod-1").uid("pod-1").node("node-1").ptr();
  const auto pod2 = MakePod().name("pod-2").uid("pod-2").node("node-1").ptr();
  const auto pod3 = MakePod().name("pod-3").uid("pod-3").node("node-2").ptr();
  const auto wrongNode = MakePod().name("pod-x").uid("pod-x").node("node-x").ptr();
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> toAssume, toForget;
    bool forgetAll = false;
    bool forgetErr = false;
    std::map<std::string, std::set<std::string>> podsOnNodes;
  };
  const std::vector<Case> cases = {
      {"assume a pod successfully", {node1, node2}, {pod2, pod3}, {}, false, false,
       {{"node-1", {"pod-1", "pod-2"}}, {"node-2", {"pod-3"}}}},
      {"assume a pod on a non-existing node", {node1}, {wrongNode}, {}, false, false, {{"node-1", {"pod-1"}}}},
      {"forget a pod successfully", {node1, node2}, {pod2, pod3}, {pod3}, false, false,
       {{"node-1", {"pod-1", "pod-2"}}, {"node-2", {}}}},
      {"forget a pod that was not assumed", {node1, node2}, {}, {pod2}, false, true, {}},
      {"forget all assumed pods", {node1, node2}, {pod2, pod3}, {}, true, false, {{"node-1", {"pod-1"}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Snapshot snapshot = newSnapshot({pod1}, tc.nodes);
    for (const auto& p : tc.toAssume) ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(p)).ok());
    if (tc.forgetAll) {
      std::vector<std::string> logged;
      snapshot.forgetAllAssumedPodsForTest([&logged](std::string_view m) { logged.emplace_back(m); });
      EXPECT_EQ(snapshot.assumedPodCount(), 0u);
      ASSERT_EQ(logged.size(), 1u);
      EXPECT_EQ(logged[0], "Found assumed pods in the snapshot that were not forgotten: assumedPodsCount=2");
    }
    bool failed = false;
    for (const auto& p : tc.toForget) {
      auto r = snapshot.forgetPod(*p);
      if (tc.forgetErr) {
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().message(), "assumed pod \"" + p->metadata.uid + "\" not found in the snapshot");
        failed = true;
        break;
      }
      ASSERT_TRUE(r.ok()) << r.error().message();
    }
    if (failed) continue;
    EXPECT_EQ(snapshot.numNodes(), static_cast<int>(tc.nodes.size()));
    for (const auto& [nodeName, want] : tc.podsOnNodes) {
      auto info = snapshot.get(nodeName);
      ASSERT_TRUE(info.ok()) << nodeName;
      std::set<std::string> got;
      for (const auto& p : (*info)->pods()) got.insert(p->pod().metadata.name);
      EXPECT_EQ(got, want) << nodeName;
      // The list holds the same NodeInfo.
      bool listed = false;
      for (const auto& l : snapshot.list()) listed = listed || l == *info;
      EXPECT_TRUE(listed) << nodeName;
    }
  }
}

TEST(SnapshotPodGroupTest, AssumeTwiceFails) {
  Snapshot snapshot = newSnapshot({}, {MakeNode().name("node-1").ptr()});
  const auto pod = MakePod().name("p").uid("p").node("node-1").ptr();
  ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(pod)).ok());
  auto r = snapshot.assumePod(framework::PodInfo::create(pod));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "pod p is already assumed in the snapshot");
  auto noUid = snapshot.assumePod(framework::PodInfo::create(MakePod().name("q").node("node-1").ptr()));
  ASSERT_FALSE(noUid.ok());
  EXPECT_EQ(noUid.error().message(), "cannot get cache key for pod with empty UID");
}

// Upstream TestSnapshot_AssumeForgetAffinityAndPVC, without the non-host-scoped anti-affinity list
// (InterPodAffinityHostnameFastPath is refused) and comparing the used PVCs as a set (ours counts nodes).
TEST(SnapshotPodGroupTest, AssumeForgetAffinityAndPVC) {
  const auto node1 = MakeNode().name("node-1").ptr();
  const auto node2 = MakeNode().name("node-2").ptr();
  api::LabelSelector fooBar;
  fooBar.matchLabels = {{"foo", "bar"}};
  api::LabelSelector bazQux;
  bazQux.matchLabels = {{"baz", "qux"}};
  auto affinity = [&](const std::string& name, const std::string& node) {
    return MakePod().name(name).uid(name).node(node).podAffinity("zone", fooBar).ptr();
  };
  auto antiAffinity = [&](const std::string& name, const std::string& node, const std::string& key = "zone") {
    return MakePod().name(name).uid(name).node(node).podAntiAffinity(key, fooBar).ptr();
  };
  auto pvc = [](const std::string& name, const std::string& node, const std::string& claim) {
    return MakePod().name(name).uid(name).namespace_("ns").node(node).pvc(claim).ptr();
  };
  const auto affinityPod = affinity("affinity-pod", "node-1");
  const auto affinityPod2 = affinity("affinity-pod-2", "node-1");
  const auto antiAffinityPod = antiAffinity("anti-affinity-pod", "node-1");
  const auto antiAffinityPod2 = antiAffinity("anti-affinity-pod-2", "node-1");
  const auto bothPod = MakePod()
                           .name("both-pod")
                           .uid("both-pod")
                           .node("node-2")
                           .podAffinity("zone", fooBar)
                           .podAntiAffinity("zone", bazQux)
                           .ptr();
  const auto hostScoped = antiAffinity("host-scoped-aa", "node-1", "kubernetes.io/hostname");
  const auto mixedAnti = MakePod()
                             .name("mixed-aa")
                             .uid("mixed-aa")
                             .node("node-2")
                             .podAntiAffinity("kubernetes.io/hostname", fooBar)
                             .podAntiAffinity("zone", bazQux)
                             .ptr();
  const auto pvcPod = pvc("pvc-pod", "node-1", "my-pvc");
  const auto pvcPod2 = pvc("pvc-pod-2", "node-1", "my-pvc");
  api::Volume emptyDir;
  emptyDir.name = "empty";
  emptyDir.otherSource = "emptyDir";
  const auto mixedVolume =
      MakePod().name("mixed-pod").uid("mixed-pod").namespace_("ns").node("node-1").pvc("tracked-pvc").volume(emptyDir).ptr();
  const auto preAffinity = affinity("pre-affinity-pod", "node-2");
  const auto preAnti = antiAffinity("pre-anti-pod", "node-2");
  const auto prePVC = pvc("pre-pvc-pod", "node-2", "pre-pvc");
  const auto affinityNode2 = affinity("affinity-pod-n2", "node-2");
  const auto sharedPVC = pvc("shared-pvc-pod", "node-1", "pre-pvc");

  using Names = std::set<std::string>;
  struct Case {
    std::string name;
    std::vector<api::PodPtr> initial, toAssume, toForget;
    bool forgetAll = false;
    Names affinity, antiAffinity, pvcs;
  };
  const std::vector<Case> cases = {
      {"assume pod with required affinity", {}, {affinityPod}, {}, false, {"node-1"}, {}, {}},
      {"assume pod with required anti-affinity", {}, {antiAffinityPod}, {}, false, {"node-1"}, {"node-1"}, {}},
      {"assume pod with a PVC volume", {}, {pvcPod}, {}, false, {}, {}, {"ns/my-pvc"}},
      {"forget pod with affinity returns to baseline", {}, {affinityPod}, {affinityPod}, false, {}, {}, {}},
      {"forget pod with anti-affinity returns to baseline", {}, {antiAffinityPod}, {antiAffinityPod}, false, {}, {},
       {}},
      {"forget pod with PVC returns to baseline", {}, {pvcPod}, {pvcPod}, false, {}, {}, {}},
      {"two pods with affinity on the same node, forget the last assumed", {}, {affinityPod, affinityPod2},
       {affinityPod2}, false, {"node-1"}, {}, {}},
      {"two pods with affinity on the same node, forget both returns to baseline", {}, {affinityPod, affinityPod2},
       {affinityPod2, affinityPod}, false, {}, {}, {}},
      {"two pods with anti-affinity on the same node, forget the last assumed", {}, {antiAffinityPod, antiAffinityPod2},
       {antiAffinityPod2}, false, {"node-1"}, {"node-1"}, {}},
      {"two pods with anti-affinity on the same node, forget both returns to baseline", {},
       {antiAffinityPod, antiAffinityPod2}, {antiAffinityPod2, antiAffinityPod}, false, {}, {}, {}},
      {"two pods sharing a PVC on the same node, forget the last assumed", {}, {pvcPod, pvcPod2}, {pvcPod2}, false,
       {}, {}, {"ns/my-pvc"}},
      {"two pods sharing a PVC on the same node, forget both returns to baseline", {}, {pvcPod, pvcPod2},
       {pvcPod2, pvcPod}, false, {}, {}, {}},
      {"forget all assumed pods returns to baseline", {}, {affinityPod, bothPod, pvcPod, pvcPod2}, {}, true, {}, {},
       {}},
      {"assume pod with host-scoped anti-affinity", {}, {hostScoped}, {}, false, {"node-1"}, {"node-1"}, {}},
      {"forget pod with host-scoped anti-affinity returns to baseline", {}, {hostScoped}, {hostScoped}, false, {}, {},
       {}},
      {"assume pod with mixed anti-affinity", {}, {mixedAnti}, {}, false, {"node-2"}, {"node-2"}, {}},
      {"forget pod with mixed anti-affinity returns to baseline", {}, {mixedAnti}, {mixedAnti}, false, {}, {}, {}},
      {"pod with both affinity and anti-affinity terms", {}, {bothPod}, {}, false, {"node-2"}, {"node-2"}, {}},
      {"pod with mixed volumes only tracks the PVC", {}, {mixedVolume}, {}, false, {}, {}, {"ns/tracked-pvc"}},
      {"assume affinity pod on a node that already has affinity pods", {preAffinity}, {affinityNode2}, {}, false,
       {"node-2"}, {}, {}},
      {"forget assumed pod keeps the pre-existing affinity entry", {preAffinity}, {affinityNode2}, {affinityNode2},
       false, {"node-2"}, {}, {}},
      {"forget assumed pod keeps a PVC shared with a pre-existing pod", {prePVC}, {sharedPVC}, {sharedPVC}, false, {},
       {}, {"ns/pre-pvc"}},
      {"pre-existing state with multiple assume and partial forget", {preAffinity, preAnti, prePVC},
       {affinityPod, pvcPod, antiAffinityPod}, {antiAffinityPod, pvcPod}, false, {"node-1", "node-2"}, {"node-2"},
       {"ns/pre-pvc"}},
  };
  auto namesOf = [](const std::vector<framework::NodeInfoPtr>& list) {
    std::vector<std::string> out;
    for (const auto& n : list) out.push_back(n->nodeName());
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Snapshot snapshot = newSnapshot(tc.initial, {node1, node2});
    for (const auto& p : tc.toAssume) ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(p)).ok());
    if (tc.forgetAll) {
      snapshot.forgetAllAssumedPodsForTest([](std::string_view) {});
      EXPECT_EQ(snapshot.assumedPodCount(), 0u);
    } else {
      for (const auto& p : tc.toForget) ASSERT_TRUE(snapshot.forgetPod(*p).ok()) << p->metadata.name;
    }
    // Each list names a node at most once.
    EXPECT_EQ(namesOf(snapshot.havePodsWithAffinityList()),
              std::vector<std::string>(tc.affinity.begin(), tc.affinity.end()));
    EXPECT_EQ(namesOf(snapshot.havePodsWithRequiredAntiAffinityList()),
              std::vector<std::string>(tc.antiAffinity.begin(), tc.antiAffinity.end()));
    const auto pvcs = snapshot.usedPVCSetForTest();
    EXPECT_EQ(Names(pvcs.begin(), pvcs.end()), tc.pvcs);
  }
}

// The pod-group cycle's use: members assumed in the snapshot show in its group state and nowhere in the
// cache; after forgetting them (or leaving them to the next updateSnapshot) the snapshot equals a fresh one.
TEST(SnapshotPodGroupTest, AssumeForgetKeepsSnapshotEqualToCache) {
  for (const bool forgetExplicitly : {true, false}) {
    SCOPED_TRACE(forgetExplicitly ? "forgotten by the cycle" : "forgotten by updateSnapshot");
    auto cache = newTestCache(true);
    cache->addNode(MakeNode().name("node-1").ptr());
    cache->addNode(MakeNode().name("node-2").ptr());
    ASSERT_TRUE(cache->addPod(MakePod().name("bound").uid("bound").namespace_("ns").node("node-1").pvc("c1").ptr()).ok());
    const auto pg = makePodGroup("ns", "pg", 2);
    cache->addPodGroup(pg);
    api::Pod m1 = *podGroupMember("ns", "m1", "m1", "pg");
    api::Pod m2 = *podGroupMember("ns", "m2", "m2", "pg");
    cache->addPodGroupMember(std::make_shared<const api::Pod>(m1));
    cache->addPodGroupMember(std::make_shared<const api::Pod>(m2));
    Snapshot snapshot;
    ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
    const int64_t generation = snapshot.generation();

    // Place both members: m1 with anti-affinity and a claim on node-1, m2 on a node the cache doesn't know.
    api::LabelSelector sel;
    sel.matchLabels = {{"app", "x"}};
    api::Pod placed1 = ks::testing::inPodGroup(
        MakePod().name("m1").uid("m1").namespace_("ns").node("node-1").pvc("c2").podAntiAffinity("zone", sel).obj(), "pg");
    api::Pod placed2 = ks::testing::inPodGroup(MakePod().name("m2").uid("m2").namespace_("ns").node("node-3").obj(), "pg");
    const auto p1 = std::make_shared<const api::Pod>(placed1);
    const auto p2 = std::make_shared<const api::Pod>(placed2);
    ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(p1)).ok());
    ASSERT_TRUE(snapshot.assumePod(framework::PodInfo::create(p2)).ok());
    auto state = snapshot.podGroupState("ns", "pg");
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(state->scheduledPodsCount(), 2);
    EXPECT_EQ(snapshot.podGroup("ns", "pg"), pg);
    EXPECT_TRUE(snapshot.isPVCUsedByPods("ns/c2"));
    EXPECT_EQ(snapshot.havePodsWithRequiredAntiAffinityList().size(), 1u);
    EXPECT_EQ(snapshot.generation(), generation);
    EXPECT_EQ(cache->podGroupState("ns", "pg")->scheduledPodsCount(), 0);  // the cache saw nothing

    if (forgetExplicitly) {
      ASSERT_TRUE(snapshot.forgetPod(*p2).ok());
      ASSERT_TRUE(snapshot.forgetPod(*p1).ok());
      EXPECT_EQ(snapshot.podGroupState("ns", "pg")->scheduledPodsCount(), 0);
      EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
    }
    // Meanwhile the cache changed node-1 (another pod bound there).
    ASSERT_TRUE(cache->addPod(MakePod().name("other").uid("other").namespace_("ns").node("node-1").ptr()).ok());
    ASSERT_TRUE(cache->updateSnapshot(snapshot).ok());
    EXPECT_EQ(snapshot.assumedPodCount(), 0u);
    EXPECT_EQ(testing::compareCacheWithSnapshot(*cache, snapshot), "");
    EXPECT_EQ(describe(snapshot.podGroupStatesForTest()), describe(cache->podGroupStatesForTest()));
    Snapshot fresh;
    ASSERT_TRUE(cache->updateSnapshot(fresh).ok());
    EXPECT_EQ(describe(fresh.podGroupStatesForTest()), describe(snapshot.podGroupStatesForTest()));
    EXPECT_EQ(snapshot.usedPVCSetForTest(), fresh.usedPVCSetForTest());
  }
}

TEST(SnapshotPodGroupTest, NewSnapshotWithPodGroups) {
  const auto pg = makePodGroup("ns", "pg", 2);
  const auto m1 = podGroupMember("ns", "m1", "m1", "pg");
  const auto m2 = podGroupMember("ns", "m2", "m2", "pg", "node-1");
  const auto other = podGroupMember("ns", "o1", "o1", "other");
  Snapshot s = newSnapshotWithPodGroups({m1, m2, other}, {MakeNode().name("node-1").ptr()}, {pg});
  EXPECT_EQ(describe(s.podGroupStatesForTest()),
            (std::map<std::string, std::string>{
                {"ns/other", "all=[o1] unscheduled=[o1] assumed=[] assigned=[] podGroup=<nil>"},
                {"ns/pg", "all=[m1,m2] unscheduled=[m1] assumed=[] assigned=[m2] podGroup=pg"}}));
  EXPECT_EQ(s.podGroup("ns", "pg"), pg);
  EXPECT_EQ(s.podGroup("ns", "other"), nullptr);
  EXPECT_EQ(s.podGroupState("ns", "missing"), nullptr);
  EXPECT_EQ(s.podGroupManager(), &s);
}

}  // namespace
}  // namespace ks::cache
