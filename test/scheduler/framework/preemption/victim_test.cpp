// Ports upstream pkg/scheduler/framework/preemption/util_test.go and types_test.go (v1.37.2) for victim.h:
// TestFilterVictimsWithPDBViolation, TestMoreImportantVictim, TestPodTerminatingByPreemption,
// TestGetPodPriority, TestNewVictim, TestNewDomainVictim, TestGetHighestAllAncestor and
// TestNewDomainForWorkloadPreemption (upstream's getCrossNodesVictims over every node is victimsOnNodes).
//
// Not ported / skipped:
//  - The CompositePodGroup cases (and TestTraverseHierarchyUp): CompositePodGroup (alpha) is not modelled.
//  - NewVictim's errors (no pods, empty key type): Victim takes a non-empty pod list and a typed kind.
//  - TestNewPodGroupPreemptorResolvesPreemptionPolicy: the pod-group evaluator's, tested with it.
#include "pkg/scheduler/framework/preemption/victim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/backend/cache/snapshot.h"
#include "test/support/pod_group_objects.h"
#include "test/support/wrappers.h"

namespace ks::framework::preemption {
namespace {

using ks::testing::MakeNode;
using ks::testing::MakePod;
using ks::testing::PodWrapper;

api::Time unixSeconds(int64_t s) {
  return api::Time(std::chrono::seconds(s));
}

PodInfoPtr podInfo(const PodWrapper& w) {
  return PodInfo::create(w.ptr());
}

PodInfoPtr groupPodInfo(const PodWrapper& w, const std::string& group) {
  return PodInfo::create(std::make_shared<const api::Pod>(ks::testing::inPodGroup(w.obj(), group)));
}

api::PodPtr inGroup(const PodWrapper& w, const std::string& group) {
  return std::make_shared<const api::Pod>(ks::testing::inPodGroup(w.obj(), group));
}

enum class Disruption : uint8_t { Unset, Single, All };

// Upstream st.MakePodGroup().Name(name).Namespace(ns).Priority(p).DisruptionMode...().
PodGroupPtr makePodGroup(const std::string& ns, const std::string& name, std::optional<int32_t> priority,
                         Disruption disruption = Disruption::Unset) {
  api::PodGroup pg;
  pg.metadata.namespace_ = ns;
  pg.metadata.name = name;
  pg.metadata.uid = name;
  pg.spec.priority = priority;
  if (disruption == Disruption::Single)
    pg.spec.disruptionMode = api::DisruptionMode{.single = api::EmptyObject{}};
  if (disruption == Disruption::All) pg.spec.disruptionMode = api::DisruptionMode{.all = api::EmptyObject{}};
  return std::make_shared<const api::PodGroup>(std::move(pg));
}

// Upstream mockPodGroupLister: the groups by name, whatever the namespace; no member states.
class FakePodGroups final : public PodGroupManager {
 public:
  explicit FakePodGroups(std::vector<PodGroupPtr> groups) {
    for (auto& g : groups) groups_[g->metadata.name] = std::move(g);
  }
  PodGroupPtr podGroup(std::string_view, std::string_view name) const override {
    auto it = groups_.find(std::string(name));
    return it == groups_.end() ? nullptr : it->second;
  }
  PodGroupStatePtr podGroupState(std::string_view, std::string_view) const override { return nullptr; }

 private:
  std::map<std::string, PodGroupPtr> groups_;
};

std::shared_ptr<const api::PodDisruptionBudget> pdb(const std::map<std::string, std::string>& matchLabels,
                                                    int32_t disruptionsAllowed,
                                                    std::map<std::string, api::Time> disruptedPods = {}) {
  auto p = std::make_shared<api::PodDisruptionBudget>();
  p->metadata.namespace_ = "default";
  api::LabelSelector sel;
  for (const auto& [k, v] : matchLabels) sel.matchLabels[k] = v;
  p->spec.selector = sel;
  p->status.disruptionsAllowed = disruptionsAllowed;
  p->status.disruptedPods = std::move(disruptedPods);
  return p;
}

// ---- TestFilterVictimsWithPDBViolation ----

TEST(VictimTest, FilterVictimsWithPDBViolationMakesAVictimViolatingWhenAnyOfItsPodsIs) {
  const api::Time now = std::chrono::system_clock::now();
  const Victim viNoPDBMatch({podInfo(MakePod().name("p1").label("app", "foo"))}, 0, VictimType::Pod, now);
  const Victim viMatchPDB({podInfo(MakePod().name("p1").namespace_("default").label("app", "foo"))}, 0,
                          VictimType::Pod, now);
  const Victim viMatchPDB2({podInfo(MakePod().name("p2").namespace_("default").label("app", "foo"))}, 0,
                           VictimType::Pod, now);
  const Victim viPodGroup({podInfo(MakePod().name("p1").namespace_("default").label("app", "foo")),
                           podInfo(MakePod().name("p2").namespace_("default").label("app", "foo"))},
                          0, VictimType::Pod, now);
  const Victim viMatchMultiplePDBs(
      {podInfo(MakePod().name("p1").namespace_("default").label("app", "foo").label("tier", "backend"))}, 0,
      VictimType::Pod, now);
  auto emptySelector = [] {
    auto p = std::make_shared<api::PodDisruptionBudget>();
    p->metadata.namespace_ = "default";
    p->spec.selector = api::LabelSelector{};  // matches nothing
    p->status.disruptionsAllowed = 0;
    return std::shared_ptr<const api::PodDisruptionBudget>(p);
  };
  struct Case {
    std::string name;
    std::vector<const Victim*> victims;
    PDBList pdbs;
    std::vector<std::pair<const Victim*, int>> expectedViolating;
    std::vector<const Victim*> expectedNonViolating;
  };
  const std::vector<Case> cases = {
      {"no victims, no PDBs", {}, {}, {}, {}},
      {"victim with no matching PDBs", {&viNoPDBMatch}, {pdb({{"app", "bar"}}, 0)}, {}, {&viNoPDBMatch}},
      {"victim matching PDB, adequate DisruptionsAllowed",
       {&viMatchPDB},
       {pdb({{"app", "foo"}}, 1)},
       {},
       {&viMatchPDB}},
      {"victim matching PDB, no DisruptionsAllowed",
       {&viMatchPDB},
       {pdb({{"app", "foo"}}, 0)},
       {{&viMatchPDB, 1}},
       {}},
      {"podgroup victim with multiple pods, all violating",
       {&viPodGroup},
       {pdb({{"app", "foo"}}, 0)},
       {{&viPodGroup, 2}},
       {}},
      {"podgroup victim with multiple pods, none violating",
       {&viPodGroup},
       {pdb({{"app", "foo"}}, 2)},
       {},
       {&viPodGroup}},
      {"multiple victims matching the same PDB",
       {&viMatchPDB, &viMatchPDB2},
       {pdb({{"app", "foo"}}, 1)},
       {{&viMatchPDB2, 1}},
       {&viMatchPDB}},
      {"pod in DisruptedPods is ignored",
       {&viMatchPDB},
       {pdb({{"app", "foo"}}, 0, {{"p1", now}})},
       {},
       {&viMatchPDB}},
      {"PDB with empty selector", {&viMatchPDB}, {emptySelector()}, {}, {&viMatchPDB}},
      {"Multiple PDBs",
       {&viMatchMultiplePDBs},
       {pdb({{"app", "foo"}}, 1), pdb({{"tier", "backend"}}, 0)},
       {{&viMatchMultiplePDBs, 1}},
       {}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    const VictimsByPDBViolation got = filterVictimsWithPDBViolation(tc.victims, tc.pdbs);
    EXPECT_EQ(got.violating, tc.expectedViolating);
    EXPECT_EQ(got.nonViolating, tc.expectedNonViolating);
  }
}

// ---- TestMoreImportantVictim ----

TEST(VictimTest, MoreImportantVictimRanksByPriorityThenGroupThenSizeThenStart) {
  const api::Time now = unixSeconds(1000);
  const api::Time before = unixSeconds(500);
  auto pods = [](int n, std::optional<api::Time> start, bool group) {
    std::vector<PodInfoPtr> out;
    for (int i = 0; i < n; ++i) {
      auto w = MakePod();
      if (start) w.startTime(*start);
      out.push_back(group ? groupPodInfo(w, "pg") : podInfo(w));
    }
    return out;
  };
  // Victims without a start time count as started at `later` (their construction's "now").
  const api::Time later = unixSeconds(2000);
  struct Case {
    std::string name;
    Victim vi1;
    Victim vi2;
    bool want;
  };
  const std::vector<Case> cases = {
      {"vi1 has higher priority", Victim(pods(1, {}, false), 20, VictimType::Pod, later),
       Victim(pods(1, {}, false), 10, VictimType::Pod, later), true},
      {"vi2 has higher priority", Victim(pods(1, {}, false), 10, VictimType::Pod, later),
       Victim(pods(1, {}, false), 20, VictimType::Pod, later), false},
      {"vi1 is PG, vi2 is Pod, same priority", Victim(pods(1, {}, true), 10, VictimType::PodGroup, later),
       Victim(pods(1, {}, false), 10, VictimType::Pod, later), true},
      {"vi1 is Pod, vi2 is PG, same priority", Victim(pods(1, {}, false), 10, VictimType::Pod, later),
       Victim(pods(1, {}, true), 10, VictimType::PodGroup, later), false},
      {"both Pods, vi1 older", Victim(pods(1, before, false), 10, VictimType::Pod, later),
       Victim(pods(1, now, false), 10, VictimType::Pod, later), true},
      {"both Pods, vi2 older", Victim(pods(1, now, false), 10, VictimType::Pod, later),
       Victim(pods(1, before, false), 10, VictimType::Pod, later), false},
      {"both PGs, vi1 larger", Victim(pods(2, {}, true), 10, VictimType::PodGroup, later),
       Victim(pods(1, {}, true), 10, VictimType::PodGroup, later), true},
      {"both PGs, vi2 larger", Victim(pods(1, {}, true), 10, VictimType::PodGroup, later),
       Victim(pods(2, {}, true), 10, VictimType::PodGroup, later), false},
      {"both PGs, same size, vi1 older", Victim(pods(2, before, true), 10, VictimType::PodGroup, later),
       Victim(pods(2, now, true), 10, VictimType::PodGroup, later), true},
      {"both PGs, same size, vi2 older", Victim(pods(2, now, true), 10, VictimType::PodGroup, later),
       Victim(pods(2, before, true), 10, VictimType::PodGroup, later), false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(moreImportantVictim(tc.vi1, tc.vi2), tc.want);
  }
}

// ---- TestPodTerminatingByPreemption ----

TEST(VictimTest, PodTerminatingByPreemptionNeedsTheSchedulersDisruptionTarget) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    bool want;
  };
  const std::vector<Case> cases = {
      {"pod without DeletionTimestamp", MakePod().name("p1").ptr(), false},
      {"pod with DeletionTimestamp but no DisruptionTarget condition",
       MakePod().name("p1").terminating().ptr(), false},
      {"pod with DeletionTimestamp, DisruptionTarget condition status False",
       MakePod()
           .name("p1")
           .terminating()
           .condition("DisruptionTarget", "False", "PreemptionByScheduler")
           .ptr(),
       false},
      {"pod with DeletionTimestamp, DisruptionTarget condition reason not PreemptionByScheduler",
       MakePod().name("p1").terminating().condition("DisruptionTarget", "True", "SomeOtherReason").ptr(),
       false},
      {"pod with DeletionTimestamp, DisruptionTarget condition status True and reason PreemptionByScheduler",
       MakePod()
           .name("p1")
           .terminating()
           .condition("DisruptionTarget", "True", "PreemptionByScheduler")
           .ptr(),
       true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(podTerminatingByPreemption(*tc.pod), tc.want);
  }
}

// ---- TestGetPodPriority ----

TEST(VictimTest, PodPreemptionPriorityIsTheGroupsWhenItIsKnown) {
  const FakePodGroups withPG1({makePodGroup("", "pg1", 50)});
  const FakePodGroups empty({});
  struct Case {
    std::string name;
    api::PodPtr pod;
    const PodGroupManager* groups;
    int32_t expectedPriority;
  };
  const std::vector<Case> cases = {
      {"pod without PodGroup returns pod priority", MakePod().name("p1").priority(10).ptr(), nullptr, 10},
      {"pod with PodGroup returns PodGroup priority instead of pod priority",
       inGroup(MakePod().name("p2").priority(10), "pg1"), &withPG1, 50},
      {"pod with PodGroup but nil PodGroupLister falls back to pod priority",
       inGroup(MakePod().name("p4").priority(20), "pg1"), nullptr, 20},
      {"pod with PodGroup but PodGroup not found in lister falls back to pod priority",
       inGroup(MakePod().name("p5").priority(30), "missing-pg"), &empty, 30},
      {"pod with nil priority and without PodGroup returns zero priority", MakePod().name("p6").ptr(),
       nullptr, 0},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(podPreemptionPriority(*tc.pod, tc.groups), tc.expectedPriority);
  }
}

// ---- TestNewVictim ----

TEST(VictimTest, VictimTakesTheEarliestStartTimeOfItsPods) {
  const api::Time now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  const api::Time earlier = now - std::chrono::minutes(10);
  const api::Time later = now + std::chrono::minutes(10);
  const PodInfoPtr pi1 = podInfo(MakePod().name("p1").startTime(now));
  const PodInfoPtr pi2 = podInfo(MakePod().name("p2").startTime(later));
  const PodInfoPtr pi3 = podInfo(MakePod().name("p3").startTime(earlier));
  const PodInfoPtr pi4 = podInfo(MakePod().name("p4"));  // no start time: started "now"
  const PodInfoPtr pi5 = groupPodInfo(MakePod().name("p5").startTime(now), "pg1");
  struct Case {
    std::string name;
    std::vector<PodInfoPtr> podInfos;
    int32_t priority;
    VictimType type;
    api::Time wantEarliest;
  };
  const std::vector<Case> cases = {
      {"single pod without scheduling group", {pi1}, 20, VictimType::Pod, now},
      {"multiple pods with mixed start times (including nil)", {pi4, pi2, pi3}, 30, VictimType::Pod, earlier},
      {"pod with scheduling group is constructed as pod group", {pi5}, 40, VictimType::PodGroup, now},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    const Victim v(tc.podInfos, tc.priority, tc.type, now);
    EXPECT_EQ(v.priority(), tc.priority);
    EXPECT_EQ(v.type(), tc.type);
    EXPECT_EQ(v.isGroup(), tc.type == VictimType::PodGroup);
    EXPECT_EQ(v.pods(), tc.podInfos);
    EXPECT_EQ(v.earliestStartTime(), tc.wantEarliest);
    EXPECT_TRUE(v.affectedNodes().empty());
  }
  // A pod naming a group is a PodGroup victim only with the gate (a lister given), even when its group is
  // unknown; its priority is then its own.
  const FakePodGroups empty({});
  EXPECT_EQ(newPodVictim(pi5, nullptr, now).type(), VictimType::Pod);
  EXPECT_EQ(newPodVictim(pi5, &empty, now).type(), VictimType::PodGroup);
  EXPECT_EQ(newPodVictim(pi1, &empty, now).type(), VictimType::Pod);
}

// ---- TestNewDomainVictim ----

TEST(VictimTest, VictimsOnNodesLooksTheAffectedNodesUpInTheSnapshot) {
  // A pod on a node the snapshot lacks fails (upstream's "pod on missing node returns error").
  {
    const cache::Snapshot snapshot = cache::newSnapshot(
        {MakePod().name("p1").uid("p1").node("missing-node").ptr()}, {MakeNode().name("node1").ptr()});
    const cache::Snapshot withPod = cache::newSnapshot(
        {MakePod().name("p1").uid("p1").node("missing-node").ptr()}, {MakeNode().name("missing-node").ptr()});
    auto node = withPod.get("missing-node");
    ASSERT_TRUE(node.ok());
    const NodeInfoPtr nodes1[] = {*node};
    auto got = victimsOnNodes(snapshot, nullptr, nodes1, std::chrono::system_clock::now());
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(
        got.error().message(),
        "failed to get node info for node \"missing-node\" from snapshot: nodeinfo not found for node name "
        "\"missing-node\"");
  }
  // The affected nodes of a group victim are deduplicated.
  const std::vector<api::PodPtr> pods = {inGroup(MakePod().name("p1").uid("p1").node("node1"), "pg"),
                                         inGroup(MakePod().name("p2").uid("p2").node("node1"), "pg"),
                                         inGroup(MakePod().name("p3").uid("p3").node("node2"), "pg")};
  const cache::Snapshot snapshot =
      cache::newSnapshotWithPodGroups(pods, {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()},
                                      {makePodGroup("", "pg", 20, Disruption::All)});
  auto node1 = snapshot.get("node1");
  ASSERT_TRUE(node1.ok());
  const NodeInfoPtr nodes[] = {*node1};
  auto got = victimsOnNodes(snapshot, snapshot.podGroupManager(), nodes, std::chrono::system_clock::now());
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->size(), 1u);
  std::set<std::string> affected;
  for (const auto& [name, info] : got->front().affectedNodes()) affected.insert(name);
  EXPECT_EQ(affected, (std::set<std::string>{"node1", "node2"}));
  EXPECT_EQ(got->front().pods().size(), 3u);
}

// ---- TestGetHighestAllAncestor (a group is whole only with disruptionMode `all`) ----

TEST(VictimTest, OnlyAGroupWithDisruptionModeAllIsOneVictim) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<PodGroupPtr> podGroups;
    bool wantWhole;
  };
  const auto member = [](const std::string& name) {
    return inGroup(MakePod().name(name).uid(name).namespace_("default").node("node1"), "pg1");
  };
  const std::vector<Case> cases = {
      {"pod without group",
       MakePod().name("p1").uid("p1").namespace_("default").node("node1").ptr(),
       {},
       false},
      {"pod group missing from the lister", member("p1"), {}, false},
      {"pod group disruption mode single",
       member("p1"),
       {makePodGroup("default", "pg1", {}, Disruption::Single)},
       false},
      {"pod group disruption mode All",
       member("p1"),
       {makePodGroup("default", "pg1", {}, Disruption::All)},
       true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    // A second member on another node: a whole-group victim takes it too.
    const std::vector<api::PodPtr> pods = {
        tc.pod, inGroup(MakePod().name("p2").uid("p2").namespace_("default").node("node2"), "pg1")};
    const cache::Snapshot snapshot = cache::newSnapshotWithPodGroups(
        pods, {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()}, tc.podGroups);
    auto node1 = snapshot.get("node1");
    ASSERT_TRUE(node1.ok());
    const NodeInfoPtr nodes[] = {*node1};
    auto got = victimsOnNodes(snapshot, snapshot.podGroupManager(), nodes, std::chrono::system_clock::now());
    ASSERT_TRUE(got.ok()) << got.error().message();
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ(got->front().pods().size(), tc.wantWhole ? 2u : 1u);
  }
}

// ---- TestNewDomainForWorkloadPreemption (getCrossNodesVictims over every node) ----

TEST(VictimTest, VictimsOnAllNodesGroupDisruptionModeAllAndGiveGroupsTheirPriority) {
  struct WantVictim {
    std::set<std::string> pods;
    std::set<std::string> affectedNodes;
    int32_t priority;
    bool operator<(const WantVictim& o) const { return *pods.begin() < *o.pods.begin(); }
    bool operator==(const WantVictim&) const = default;
  };
  struct Case {
    std::string name;
    std::vector<std::string> nodes;
    std::vector<api::PodPtr> pods;
    std::vector<PodGroupPtr> podGroups;
    std::vector<WantVictim> wantVictims;
  };
  auto pod = [](const std::string& name, const std::string& node, int32_t priority) {
    return MakePod().name(name).uid(name).node(node).priority(priority);
  };
  const std::vector<Case> cases = {
      {"no pods", {"node1"}, {}, {}, {}},
      {"pods without pod groups",
       {"node1", "node2"},
       {pod("p1", "node1", 10).ptr(), pod("p2", "node2", 20).ptr()},
       {},
       {{{"p1"}, {"node1"}, 10}, {{"p2"}, {"node2"}, 20}}},
      {"pods with pod group (DisruptionModeAll)",
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", 10), "pg1"), inGroup(pod("p2", "node2", 10), "pg1")},
       {makePodGroup("", "pg1", 50, Disruption::All)},
       {{{"p1", "p2"}, {"node1", "node2"}, 50}}},
      {"pods with pod group (DisruptionModeSingle)",
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", 10), "pg1"), inGroup(pod("p2", "node2", 20), "pg1")},
       {makePodGroup("", "pg1", 50, Disruption::Single)},
       {{{"p1"}, {"node1"}, 50}, {{"p2"}, {"node2"}, 50}}},
      {"mix of pod groups and individual pods",
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", 10), "pg1"), inGroup(pod("p2", "node2", 10), "pg1"),
        inGroup(pod("p3", "node1", 20), "pg2"), pod("p4", "node2", 30).ptr()},
       {makePodGroup("", "pg1", 50, Disruption::All), makePodGroup("", "pg2", 60, Disruption::Single)},
       {{{"p1", "p2"}, {"node1", "node2"}, 50}, {{"p3"}, {"node1"}, 60}, {{"p4"}, {"node2"}, 30}}},
      {"pods with pod group (DisruptionModeAll) but missing pod group state in cache falls back to local pod "
       "preemption",
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", 10), "pg1"), inGroup(pod("p2", "node2", 10), "pg1")},
       {},
       {{{"p1"}, {"node1"}, 10}, {{"p2"}, {"node2"}, 10}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::NodePtr> nodes;
    for (const auto& n : tc.nodes) nodes.push_back(MakeNode().name(n).ptr());
    const cache::Snapshot snapshot = cache::newSnapshotWithPodGroups(tc.pods, nodes, tc.podGroups);
    auto got = victimsOnNodes(snapshot, snapshot.podGroupManager(), snapshot.list(),
                              std::chrono::system_clock::now());
    ASSERT_TRUE(got.ok()) << got.error().message();
    std::vector<WantVictim> gotVictims;
    for (const Victim& v : *got) {
      WantVictim w{{}, {}, v.priority()};
      for (const auto& pi : v.pods()) w.pods.insert(pi->pod().metadata.name);
      for (const auto& [n, info] : v.affectedNodes()) w.affectedNodes.insert(n);
      gotVictims.push_back(std::move(w));
    }
    std::vector<WantVictim> want = tc.wantVictims;
    std::sort(gotVictims.begin(), gotVictims.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(gotVictims, want);
  }
}

}  // namespace
}  // namespace ks::framework::preemption
