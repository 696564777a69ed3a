// Ports upstream pkg/scheduler/framework/preemption/podgrouppreemption_test.go (v1.37.2):
// TestPodGroupEvaluator_SelectVictimsOnDomain (with its capacity Filter plugin and round-robin scheduling
// func), TestPodGroupEvaluator_SelectVictimsOnDomain_NominatedNodes, TestPodGroupEvaluator_Preempt and
// TestPodGroupPreemptionEvaluationDurationMetric, against the real Framework and the cache's snapshot.
//
// Differences:
//  - The domain is built with victimsOnNodes over the snapshot (upstream newDomainForWorkloadPreemption
//    with a pod group lister holding the same groups as the snapshot).
//  - TestPodGroupEvaluator_Preempt's two "PreemptNever" cases run with PodGroupPreemptionPolicy off (the
//    alpha gate is refused here): the group still says Never, and a member says Never too, which is what
//    makes the group ineligible with the gate off (upstream resolvePreemptionPolicy).
//  - TestPodGroupPreemptionEvaluationDurationMetric runs the evaluation through preempt() (upstream calls
//    the private evaluate()); with no victim left to evict the actuation does nothing.
#include "pkg/scheduler/framework/preemption/podgroup_preemption.h"

#include <gtest/gtest.h>

#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/preemption/preemption_test_util.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::framework::preemption {
namespace {

using ks::testing::MakeNode;
using ks::testing::MakePod;
using preemptiontesting::Disruption;
using preemptiontesting::FrameworkEnv;
using preemptiontesting::inGroup;
using preemptiontesting::makeTestPodGroup;

// Upstream preemption_test.go's priorities.
constexpr int32_t kLowPriority = 10;
constexpr int32_t kMidPriority = 100;
constexpr int32_t kHighPriority = 1000;

// A pod's size: its "size" label, 1 when absent or not a number (upstream getCapacity).
int sizeOf(const api::Pod& pod) {
  if (auto it = pod.metadata.labels.find("size"); it != pod.metadata.labels.end()) {
    int v = 0;
    const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    if (ec == std::errc() && end == it->second.data() + it->second.size()) return v;
  }
  return 1;
}

struct NodeCapacity {
  std::string nodeName;
  int capacity = 0;
};

// Upstream mockFilterPlugin: a pod fits while the sizes of the node's pods and its own stay within the
// node's capacity (the first entry naming the node; 0 when none does).
class CapacityFilter final : public FilterPlugin {
 public:
  explicit CapacityFilter(std::vector<NodeCapacity> capacities) : capacities_(std::move(capacities)) {}
  std::string_view name() const override { return "mockFilterPlugin"; }
  Status filter(CycleState&, const PodInfo& pod, const NodeInfo& nodeInfo) override {
    int nodeCapacity = 0;
    for (const NodeCapacity& n : capacities_) {
      if (n.nodeName == nodeInfo.nodeName()) {
        nodeCapacity = n.capacity;
        break;
      }
    }
    int current = 0;
    for (const PodInfoPtr& p : nodeInfo.pods()) current += sizeOf(p->pod());
    if (current + sizeOf(pod.pod()) > nodeCapacity) return Status(Code::Unschedulable, "not enough capacity");
    return Status();
  }

 private:
  const std::vector<NodeCapacity> capacities_;
};

preemptiontesting::RegisteredPlugin capacityFilterPlugin(std::vector<NodeCapacity> capacities) {
  return {"mockFilterPlugin",
          [capacities](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
            return std::unique_ptr<Plugin>(std::make_unique<CapacityFilter>(capacities));
          },
          {"Filter"}};
}

// st.MakePodGroup().Name(name).Priority(p)[.MinCount(n) | .BasicPolicy()][.DisruptionMode...()], in
// namespace `ns` ("" as upstream's default).
struct PG {
  std::string name;
  std::optional<int32_t> priority;
  Disruption disruption = Disruption::Unset;
  std::optional<int32_t> minCount;
  bool basic = false;
  std::string ns;
  std::optional<std::string> preemptionPolicy;
  PodGroupPtr obj() const {
    auto pg = std::make_shared<api::PodGroup>(*makeTestPodGroup(ns, name, priority, disruption));
    if (minCount) pg->spec.schedulingPolicy.gang = api::GangSchedulingPolicy{*minCount};
    if (basic) pg->spec.schedulingPolicy.basic = api::EmptyObject{};
    pg->spec.preemptionPolicy = preemptionPolicy;
    return pg;
  }
};

ks::testing::PodWrapper pod(const std::string& name, const std::string& uid, int32_t priority) {
  return MakePod().name(name).uid(uid).priority(priority);
}
api::PodPtr sized(ks::testing::PodWrapper w, int size) {
  return w.label("size", std::to_string(size)).ptr();
}
// A pod terminating because the scheduler preempted it.
ks::testing::PodWrapper terminatingByPreemption(ks::testing::PodWrapper w) {
  return std::move(w.condition("DisruptionTarget", "True", "PreemptionByScheduler").terminating());
}

std::shared_ptr<const api::PodDisruptionBudget> pdbMatching(const std::string& key, const std::string& value,
                                                            int32_t disruptionsAllowed) {
  auto pdb = std::make_shared<api::PodDisruptionBudget>();
  api::LabelSelector sel;
  sel.matchLabels[key] = value;
  pdb->spec.selector = sel;
  pdb->status.disruptionsAllowed = disruptionsAllowed;
  return pdb;
}

std::vector<api::NodePtr> nodes(std::initializer_list<const char*> names) {
  std::vector<api::NodePtr> out;
  for (const char* n : names) out.push_back(MakeNode().name(n).ptr());
  return out;
}

api::Time now(FrameworkEnv& env) {
  return std::chrono::time_point_cast<api::Time::duration>(env.fw().clock().now());
}

// The pod-group evaluator of a test framework, with its own executor (synchronous evictions).
struct TestPodGroupEvaluator {
  explicit TestPodGroupEvaluator(FrameworkEnv& env)
      : executor("DefaultPreemption", env.fw(), /*enableAsyncPreemption=*/false, env.factory().pods().store()),
        evaluator(env.fw(), executor, env.factory().podDisruptionBudgets().store()) {}
  Executor executor;
  PodGroupEvaluator evaluator;
};

// ---- TestPodGroupEvaluator_SelectVictimsOnDomain ----

struct Preemptor {
  PodGroupPtr podGroup;
  std::vector<api::PodPtr> pods;
};

TEST(PodGroupPreemptionTest, SelectVictimsOnDomainReprievesTheMostImportantVictimsTheGroupStillFitsWith) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> initPods;
    std::vector<PodGroupPtr> initPodGroups;
    Preemptor preemptor;
    std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
    std::vector<NodeCapacity> nodeCapacities;
    std::set<std::string> expectedVictims;
    Code expectedCode = Code::Success;
    int expectedNumPodGroupDisruptions = 0;
    int64_t expectedNumPDBViolations = 0;
  };
  const PodGroupPtr preemptorHigh = PG{.name = "preemptor-pg", .priority = kHighPriority}.obj();
  const PodGroupPtr preemptorMid = PG{.name = "preemptor-pg", .priority = kMidPriority}.obj();
  const std::vector<api::PodPtr> oneHigh = {pod("p", "p", kHighPriority).ptr()};
  const std::vector<api::PodPtr> oneMid = {pod("p", "p", kMidPriority).ptr()};
  const std::vector<api::PodPtr> threeHigh = {pod("p-a", "p-a", kHighPriority).ptr(),
                                              pod("p-b", "p-b", kHighPriority).ptr(),
                                              pod("p-c", "p-c", kHighPriority).ptr()};
  auto on = [](const std::string& name, const std::string& uid, const std::string& node, int32_t priority) {
    return pod(name, uid, priority).node(node);
  };
  auto onNs = [&](const std::string& name, const std::string& node, int32_t priority) {
    return on(name, name, node, priority).namespace_("default");
  };
  const auto fooPDB = pdbMatching("app", "foo", 0);

  const std::vector<Case> cases = {
      {.name = "Priority: mix of no groups and pod groups",
       .nodes = nodes({"node1"}),
       .initPods = {sized(on("p1", "v1", "node1", kLowPriority), 1),
                    inGroup(on("p2", "v2", "node1", kLowPriority).label("size", "1"), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorHigh, {sized(pod("p", "p", kHighPriority), 1)}},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"p1"}},  // p1 is less important than p2: it is not part of a pod group
      {.name = "Priority: StartTime of pods from same group with disruption mode single ",
       .nodes = nodes({"node1"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kLowPriority).startTime(preemptiontesting::unixNanos(1'000'000'000)),
                            "pg1"),
                    inGroup(on("p2", "v2", "node1", kLowPriority).startTime(preemptiontesting::unixNanos(0)), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"p1"},  // p1 is less important than p2: it started later
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Pod group with disruption mode group not reprieved",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kLowPriority), "pg1"),
                    inGroup(on("p2", "v2", "node2", kLowPriority), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}},
       .expectedVictims = {"p1", "p2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Complex Mixed: Shared, different, and no groups",
       .nodes = nodes({"node1", "node2", "node3", "node4", "node5"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kLowPriority).startTime(preemptiontesting::unixNanos(2'000'000'000)),
                            "pg1"),
                    inGroup(on("p2", "v2", "node2", kLowPriority).startTime(preemptiontesting::unixNanos(1'000'000'000)),
                            "pg1"),
                    inGroup(on("p3", "v3", "node3", kLowPriority).startTime(preemptiontesting::unixNanos(0)), "pg2"),
                    on("p4", "v4", "node4", kMidPriority).ptr(),
                    inGroup(on("p5", "v5", "node5", kHighPriority).startTime(preemptiontesting::unixNanos(0)), "pg3")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj(),
                         PG{.name = "pg2", .priority = kLowPriority, .disruption = Disruption::Single}.obj(),
                         PG{.name = "pg3", .priority = kHighPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorHigh,
                     {pod("p-1", "p-1", kHighPriority).ptr(), pod("p-2", "p-2", kHighPriority).ptr(),
                      pod("p-3", "p-3", kHighPriority).ptr()}},
       .nodeCapacities = {{"node1", 2}, {"node2", 1}, {"node3", 2}, {"node4", 2}, {"node5", 2}},
       .expectedVictims = {"p2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "PDB: Mixed groups",
       .nodes = nodes({"node1"}),
       .initPods = {inGroup(on("victim-pdb", "v1", "node1", kLowPriority).label("app", "foo"), "pg1"),
                    inGroup(on("victim-no-pdb", "v2", "node1", kLowPriority), "pg1")},
       .preemptor = {preemptorHigh, oneHigh},
       .pdbs = {fooPDB},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"victim-no-pdb"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), inGroup(on("p2", "v2", "node2", kLowPriority), "pg1"),
                    inGroup(on("p3", "v3", "node3", kLowPriority), "pg2")},
       .preemptor = {preemptorHigh, {pod("p-1", "p-1", kHighPriority).ptr()}},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"p1"}},
      {.name = "PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption, ignoring member "
               "pod preemption policy",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), inGroup(on("p2", "v2", "node2", kLowPriority), "pg1"),
                    inGroup(on("p3", "v3", "node3", kLowPriority), "pg2")},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .preemptionPolicy = "PreemptLowerPriority"}
                         .obj(),
                     {pod("p-1", "p-1", kHighPriority).preemptionPolicy("Never").ptr()}},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"p1"}},
      {.name = "Preemptor group is eligible if terminating pods are on non-nominated nodes",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {terminatingByPreemption(on("victim", "v1", "node2", kLowPriority)).ptr(),
                    on("other-victim", "v2", "node1", kLowPriority).ptr()},
       .preemptor = {preemptorHigh,
                     {pod("p1", "p1", kHighPriority).ptr(),
                      pod("p2", "p2", kHighPriority).nominatedNodeName("node1").ptr()}},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}},
       .expectedVictims = {"other-victim", "victim"}},
      {.name = "Preemptor group is eligible if nominated node has terminating pod belonging to a pod group of higher "
               "priority",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(terminatingByPreemption(on("victim", "v1", "node1", kLowPriority)), "victim-pg"),
                    on("other-victim", "v2", "node1", kLowPriority).ptr()},
       .initPodGroups = {PG{.name = "victim-pg", .priority = kHighPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorMid,
                     {pod("p1", "p1", kMidPriority).ptr(),
                      pod("p2", "p2", kMidPriority).nominatedNodeName("node1").ptr()}},
       .nodeCapacities = {{"node1", 2}, {"node2", 1}},
       .expectedVictims = {"other-victim"}},
      {.name = "Preemptor group is eligible if nominated node has terminating pod belonging to a pod group of higher "
               "priority with nil DisruptionMode",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(terminatingByPreemption(on("victim", "v1", "node1", kLowPriority)), "victim-pg"),
                    on("other-victim", "v2", "node1", kLowPriority).ptr()},
       .initPodGroups = {PG{.name = "victim-pg", .priority = kHighPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorMid,
                     {pod("p1", "p1", kMidPriority).ptr(),
                      pod("p2", "p2", kMidPriority).nominatedNodeName("node1").ptr()}},
       .nodeCapacities = {{"node1", 2}, {"node2", 1}},
       .expectedVictims = {"other-victim"}},
      {.name = "Preempt single lower priority pod",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 1}},
       .expectedVictims = {"p1"}},
      {.name = "Priority: Prefer lower priority victim",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), on("p2", "v2", "node1", kMidPriority).ptr(),
                    on("p3", "v3", "node1", kHighPriority).ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"p1", "p2"}},
      {.name = "Efficiency: Preempt minimum number of victims",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), on("p2", "v2", "node1", kLowPriority).ptr(),
                    on("p3", "v3", "node1", kLowPriority).ptr(), on("p4", "v4", "node1", kLowPriority).ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 3}},
       .expectedVictims = {"p3", "p4"}},
      {.name = "PDB: Prefer non-violating victim",
       .nodes = nodes({"node1"}),
       .initPods = {on("victim-pdb", "v1", "node1", kLowPriority).label("app", "foo").ptr(),
                    on("victim-no-pdb", "v2", "node1", kLowPriority).ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .pdbs = {fooPDB},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"victim-no-pdb"}},
      {.name = "PDB: Prefer removing non-violating victim over lower priority violating victim",
       .nodes = nodes({"node1"}),
       .initPods = {on("victim-pdb", "v1", "node1", kLowPriority).label("app", "foo").ptr(),
                    on("victim-no-pdb", "v2", "node1", kMidPriority).ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .pdbs = {fooPDB},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"victim-no-pdb"}},
      {.name = "PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption with PodGroup "
               "victims",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), inGroup(on("p2", "v2", "node2", kLowPriority), "pg1"),
                    inGroup(on("p3", "v3", "node3", kLowPriority), "pg2")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj(),
                         PG{.name = "pg2", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorHigh, {pod("p-1", "p-1", kHighPriority).ptr()}},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"p1"}},
      {.name = "PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption with PodGroup "
               "victims, ignoring member pod preemption policy",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), inGroup(on("p2", "v2", "node2", kLowPriority), "pg1"),
                    inGroup(on("p3", "v3", "node3", kLowPriority), "pg2")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj(),
                         PG{.name = "pg2", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       .preemptor = {preemptorHigh, {pod("p-1", "p-1", kHighPriority).preemptionPolicy("Never").ptr()}},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"p1"}},
      {.name = "PDB: Prefer lower priority pod for preemption, when preemption without pdb violation is not possible",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).label("app", "foo").ptr(),
                    on("p2", "v2", "node1", kMidPriority).label("app", "foo").ptr()},
       .preemptor = {preemptorHigh, oneHigh},
       .pdbs = {fooPDB},
       .nodeCapacities = {{"node1", 2}},
       .expectedVictims = {"p1"},
       .expectedNumPDBViolations = 1},
      {.name = "PodGroup: Preempt group as a whole",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kLowPriority), "pg1"),
                    inGroup(on("p2", "v2", "node2", kLowPriority), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       // As upstream, node1 is listed twice: the filter sees node1 of capacity 1 and node2 of none, the
       // scheduling func capacities 1 and 2 by position. The preemptor goes where p1 was.
       .nodeCapacities = {{"node1", 1}, {"node1", 2}},
       .expectedVictims = {"p1", "p2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "PodGroup: Prefer single pod over podGroup for preemption candidate",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "p1", "node1", kLowPriority).ptr(), inGroup(on("g1-1", "g1", "node1", kLowPriority), "pg1"),
                    inGroup(on("g1-2", "g2", "node1", kLowPriority), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 3}},  // room for the preemptor with pg1 or with p1
       .expectedVictims = {"p1"}},
      {.name = "PodGroup: Preempt group as a whole on single node",
       .nodes = nodes({"node1"}),
       .initPods = {inGroup(on("g1-1", "g1", "node1", kLowPriority), "pg1"),
                    inGroup(on("g1-2", "g2", "node1", kLowPriority), "pg1"), on("p1", "p1", "node1", kMidPriority).ptr()},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 3}},
       .expectedVictims = {"g1-1", "g1-2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "PDB: Unit violation if any member violates",
       .nodes = nodes({"node1"}),
       .initPods = {inGroup(on("g1-1", "g1", "node1", kLowPriority).label("app", "foo"), "pg1"),
                    inGroup(on("g1-2", "g2", "node1", kLowPriority), "pg1"), on("p1", "p1", "node1", kLowPriority).ptr()},
       .initPodGroups = {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .pdbs = {fooPDB},
       .nodeCapacities = {{"node1", 3}},
       .expectedVictims = {"p1"}},
      {.name = "Failure: Cannot preempt the victim with higher priority",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kHighPriority).ptr()},
       .preemptor = {preemptorMid, oneMid},
       .nodeCapacities = {{"node1", 100}},
       .expectedCode = Code::UnschedulableAndUnresolvable},
      {.name = "Failure: Cannot preempt the victim with equal priority",
       .nodes = nodes({"node1"}),
       .initPods = {on("p1", "v1", "node1", kMidPriority).ptr()},
       .preemptor = {preemptorMid, oneMid},
       .nodeCapacities = {{"node1", 100}},
       .expectedCode = Code::UnschedulableAndUnresolvable},
      {.name = "Failure: Cannot preempt if node is empty",
       .nodes = nodes({"node1"}),
       .preemptor = {preemptorMid, oneMid},
       .nodeCapacities = {{"node1", 100}},  // room enough, but no victim: preemption gives up
       .expectedCode = Code::UnschedulableAndUnresolvable},
      {.name = "Priority divergence: candidate victim PodGroup has lower priority than the Pods from that group",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kHighPriority), "pg1"),
                    inGroup(on("p2", "v2", "node2", kHighPriority), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kMidPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorHigh, oneHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}},
       .expectedVictims = {"p1", "p2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Priority divergence: candidate victim PodGroup has higher priority than the Pods from that group",
       .nodes = nodes({"node1", "node2"}),
       .initPods = {inGroup(on("p1", "v1", "node1", kLowPriority), "pg1"),
                    inGroup(on("p2", "v2", "node2", kLowPriority), "pg1")},
       .initPodGroups = {PG{.name = "pg1", .priority = kMidPriority, .disruption = Disruption::All}.obj()},
       .preemptor = {preemptorMid, oneMid},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}},
       .expectedCode = Code::UnschedulableAndUnresolvable},
      {.name = "Gang scheduling: schedule as many pods as possible without preempting higher priority pods, but "
               "still more than minCount",
       .nodes = nodes({"node1", "node2", "node3", "node4"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), on("p2", "v2", "node2", kLowPriority).ptr(),
                    on("p3", "v3", "node3", kHighPriority).ptr(), on("p4", "v4", "node4", kHighPriority).ptr()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .minCount = 1}.obj(), threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}},
       // Three members and minCount 1, but only two fit: p3 and p4 are not lower priority.
       .expectedVictims = {"p1", "p2"}},
      {.name = "Gang scheduling: do not reprieve victim pod group of lower priority",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {inGroup(onNs("v1", "node1", kMidPriority), "victim-pg"),
                    inGroup(onNs("v2", "node2", kMidPriority), "victim-pg"), onNs("v3", "node3", kLowPriority).ptr()},
       .initPodGroups = {PG{.name = "victim-pg",
                            .priority = kMidPriority,
                            .disruption = Disruption::All,
                            .minCount = 1,
                            .ns = "default"}
                             .obj()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .minCount = 1}.obj(), threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"v1", "v2", "v3"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Gang scheduling: preempt a pod group victim but do not schedule full pod group",
       .nodes = nodes({"node1", "node2", "node3", "node4"}),
       .initPods = {inGroup(onNs("v1", "node1", kMidPriority), "victim-pg"),
                    inGroup(onNs("v2", "node2", kMidPriority), "victim-pg"),
                    inGroup(onNs("v3", "node3", kHighPriority), "victim-pg2"),
                    inGroup(onNs("v4", "node4", kHighPriority), "victim-pg2")},
       .initPodGroups = {PG{.name = "victim-pg",
                            .priority = kMidPriority,
                            .disruption = Disruption::All,
                            .minCount = 2,
                            .ns = "default"}
                             .obj(),
                         PG{.name = "victim-pg2",
                            .priority = kHighPriority,
                            .disruption = Disruption::All,
                            .minCount = 2,
                            .ns = "default"}
                             .obj()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .disruption = Disruption::All, .minCount = 1}
                         .obj(),
                     threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}},
       .expectedVictims = {"v1", "v2"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Basic scheduling: schedule as many pods as possible without preempting higher priority pods",
       .nodes = nodes({"node1", "node2", "node3", "node4"}),
       .initPods = {on("p1", "v1", "node1", kLowPriority).ptr(), on("p2", "v2", "node2", kLowPriority).ptr(),
                    on("p3", "v3", "node3", kHighPriority).ptr(), on("p4", "v4", "node4", kHighPriority).ptr()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .basic = true}.obj(), threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}},
       .expectedVictims = {"p1", "p2"}},
      {.name = "Basic scheduling: do not reprieve victim pod group of lower priority",
       .nodes = nodes({"node1", "node2", "node3"}),
       .initPods = {inGroup(onNs("v1", "node1", kMidPriority), "victim-pg"),
                    inGroup(onNs("v2", "node2", kMidPriority), "victim-pg"), onNs("v3", "node3", kLowPriority).ptr()},
       .initPodGroups = {PG{.name = "victim-pg",
                            .priority = kMidPriority,
                            .disruption = Disruption::All,
                            .minCount = 1,
                            .ns = "default"}
                             .obj()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .basic = true}.obj(), threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}},
       .expectedVictims = {"v1", "v2", "v3"},
       .expectedNumPodGroupDisruptions = 1},
      {.name = "Basic scheduling: preempt a pod group victim but do not schedule full pod group",
       .nodes = nodes({"node1", "node2", "node3", "node4"}),
       .initPods = {inGroup(onNs("v1", "node1", kMidPriority), "victim-pg"),
                    inGroup(onNs("v2", "node2", kMidPriority), "victim-pg"),
                    inGroup(onNs("v3", "node3", kHighPriority), "victim-pg2"),
                    inGroup(onNs("v4", "node4", kHighPriority), "victim-pg2")},
       .initPodGroups = {PG{.name = "victim-pg",
                            .priority = kMidPriority,
                            .disruption = Disruption::All,
                            .minCount = 2,
                            .ns = "default"}
                             .obj(),
                         PG{.name = "victim-pg2",
                            .priority = kHighPriority,
                            .disruption = Disruption::All,
                            .minCount = 2,
                            .ns = "default"}
                             .obj()},
       .preemptor = {PG{.name = "preemptor-pg", .priority = kHighPriority, .disruption = Disruption::All, .basic = true}
                         .obj(),
                     threeHigh},
       .nodeCapacities = {{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}},
       .expectedVictims = {"v1", "v2"},
       .expectedNumPodGroupDisruptions = 1},
  };

  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), capacityFilterPlugin(tc.nodeCapacities),
                                  preemptiontesting::bindPlugin()},
                      .pods = tc.initPods,
                      .nodes = tc.nodes,
                      .podGroups = tc.initPodGroups});
    ASSERT_TRUE(env.ok());
    TestPodGroupEvaluator ev(env);

    // Upstream mockSchedulingFunc: each member in turn goes to the first node, round-robin from the one
    // after the previous member's, whose capacity (from nodeCapacities by position) still has room for
    // it; the group fits when at least minCount members (1 without a gang policy) were placed.
    const PodGroupSchedulingFunc schedule = [&]() -> PodGroupAssignments {
      int minCount = 1;
      if (tc.preemptor.podGroup && tc.preemptor.podGroup->spec.schedulingPolicy.gang) {
        minCount = tc.preemptor.podGroup->spec.schedulingPolicy.gang->minCount;
      }
      std::map<std::string, int> assignedSizes;
      for (const NodeInfoPtr& n : env.snapshot().nodeInfos().list()) {
        int size = 0;
        for (const PodInfoPtr& p : n->pods()) size += sizeOf(p->pod());
        assignedSizes[n->nodeName()] = size;
      }
      std::vector<ProposedAssignment> assignments;
      const size_t numNodes = tc.nodes.size();
      size_t nodeIdx = 0;
      for (const api::PodPtr& p : tc.preemptor.pods) {
        const int size = sizeOf(*p);
        for (size_t step = 0; step < numNodes; ++step) {
          const size_t i = (nodeIdx + step) % numNodes;
          const std::string& name = tc.nodes[i]->metadata.name;
          if (assignedSizes[name] + size <= tc.nodeCapacities[i].capacity) {
            assignments.push_back(ProposedAssignment{PodInfo::create(p), name, std::make_shared<CycleState>()});
            assignedSizes[name] += size;
            nodeIdx = (i + 1) % numNodes;
            break;
          }
        }
      }
      if (static_cast<int>(assignments.size()) >= minCount) return {std::move(assignments), Status()};
      return {{}, Status(Code::Unschedulable)};
    };

    MutableSharedLister& snapshot = *env.cacheSnapshot();
    ASSERT_TRUE(snapshot.startMutations().ok());
    auto domain = victimsOnNodes(snapshot, snapshot.podGroupManager(), snapshot.nodeInfos().list(), now(env));
    ASSERT_TRUE(domain.ok()) << domain.error().message();
    PodGroupEvaluator::Selection res;
    const Status got = ev.evaluator.selectVictimsOnDomain(snapshot, podGroupPriority(*tc.preemptor.podGroup), *domain,
                                                          tc.pdbs, schedule, res);
    EXPECT_TRUE(snapshot.endMutations().ok());

    ASSERT_EQ(got.code(), tc.expectedCode) << got.message();
    if (tc.expectedCode != Code::Success) continue;
    std::set<std::string> gotNames;
    for (const PodInfoPtr& p : res.victims.pods) gotNames.insert(p->pod().metadata.name);
    EXPECT_EQ(gotNames, tc.expectedVictims);
    EXPECT_EQ(res.numPodGroupDisruptions, tc.expectedNumPodGroupDisruptions);
    EXPECT_EQ(res.victims.numPDBViolations, tc.expectedNumPDBViolations);
  }
}

// ---- TestPodGroupEvaluator_SelectVictimsOnDomain_NominatedNodes ----

TEST(PodGroupPreemptionTest, SelectVictimsOnDomainNominatesOnlyTheMembersThatWerePlaced) {
  const api::PodPtr p1 = MakePod().name("p1").uid("p1").ptr();
  const api::PodPtr p2 = MakePod().name("p2").uid("p2").ptr();
  const api::PodPtr p3 = MakePod().name("p3").uid("p3").node("node1").priority(kLowPriority).ptr();
  // A plain snapshot (upstream NewSnapshot): no pod groups.
  FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                    .pods = {p3},
                    .nodes = nodes({"node1"}),
                    .podGroups = std::vector<PodGroupPtr>{}});
  ASSERT_TRUE(env.ok());
  TestPodGroupEvaluator ev(env);

  const PodGroupSchedulingFunc schedule = [&]() -> PodGroupAssignments {
    auto cs1 = std::make_shared<CycleState>();
    auto cs2 = std::make_shared<CycleState>();
    (void)env.runPreFilter(*cs1, *PodInfo::create(p1));
    (void)env.runPreFilter(*cs2, *PodInfo::create(p2));
    return {{ProposedAssignment{PodInfo::create(p1), "node1", cs1}, ProposedAssignment{PodInfo::create(p2), "", cs2}},
            Status()};
  };

  MutableSharedLister& snapshot = *env.cacheSnapshot();
  ASSERT_TRUE(snapshot.startMutations().ok());
  auto domain = victimsOnNodes(snapshot, snapshot.podGroupManager(), snapshot.nodeInfos().list(), now(env));
  ASSERT_TRUE(domain.ok()) << domain.error().message();
  PodGroupEvaluator::Selection res;
  const Status got = ev.evaluator.selectVictimsOnDomain(snapshot, kHighPriority, *domain, {}, schedule, res);
  EXPECT_TRUE(snapshot.endMutations().ok());
  ASSERT_TRUE(got.isSuccess()) << got.message();

  EXPECT_EQ(res.nominations.nominatingInfos.size(), 1u);
  const auto it = res.nominations.nominatingInfos.find(podGroupKey("", "p1"));
  ASSERT_NE(it, res.nominations.nominatingInfos.end());
  EXPECT_EQ(it->second.nominatedNodeName, "node1");
}

// ---- TestPodGroupEvaluator_Preempt ----

TEST(PodGroupPreemptionTest, PreemptKeepsTheNominationsWhileAPreemptionIsOngoingOrRefusesAPreemptNeverGroup) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> initPods;
    std::vector<PodGroupPtr> initPodGroups;
    PodGroupPtr preemptorPodGroup;
    std::vector<api::PodPtr> preemptorPods;
    Code expectedCode;
    std::string expectedMessage;
    std::map<std::string, NominatingInfo, std::less<>> expectedNominating;
  };
  const PodGroupPtr preemptorHigh = PG{.name = "preemptor-pg", .priority = kHighPriority}.obj();
  const PodGroupPtr preemptorNever =
      PG{.name = "preemptor-pg", .priority = kHighPriority, .preemptionPolicy = "Never"}.obj();
  const std::vector<api::PodPtr> nominatedMembers = {
      pod("p1", "p1", kHighPriority).ptr(), pod("p2", "p2", kHighPriority).nominatedNodeName("node1").ptr()};
  const std::map<std::string, NominatingInfo, std::less<>> currentNominations = {
      {podGroupKey("", "p1"), NominatingInfo{"", NominatingMode::Override}},
      {podGroupKey("", "p2"), NominatingInfo{"node1", NominatingMode::Override}}};
  // With PodGroupPreemptionPolicy off, a member saying Never makes the group say Never.
  const std::vector<api::PodPtr> neverMembers = {pod("p-1", "p-1", kHighPriority).preemptionPolicy("Never").ptr(),
                                                 pod("p-2", "p-2", kHighPriority).ptr()};
  const std::vector<api::PodPtr> mixedVictims = {
      pod("p1", "v1", kLowPriority).node("node1").ptr(), inGroup(pod("p2", "v2", kLowPriority).node("node2"), "pg1"),
      inGroup(pod("p3", "v3", kLowPriority).node("node3"), "pg2")};

  const std::vector<Case> cases = {
      {"Preemptor group returns success with current nominating infos if member has nominated node with "
       "terminating pods",
       nodes({"node1"}),
       {terminatingByPreemption(pod("victim", "v1", kLowPriority).node("node1")).ptr()},
       {},
       preemptorHigh,
       nominatedMembers,
       Code::Success,
       "ongoing preemption on nominated nodes",
       currentNominations},
      {"Preemptor group returns success with current nominating infos if nominated node has terminating pod "
       "belonging to a pod group of lower priority",
       nodes({"node1"}),
       {inGroup(terminatingByPreemption(pod("victim", "v1", kHighPriority).node("node1")), "victim-pg")},
       {PG{.name = "victim-pg", .priority = kLowPriority, .disruption = Disruption::All}.obj()},
       preemptorHigh,
       nominatedMembers,
       Code::Success,
       "ongoing preemption on nominated nodes",
       currentNominations},
      {"Preemptor group returns success with current nominating infos if nominated node has terminating pod "
       "belonging to a pod group of lower priority with DisruptionModePod",
       nodes({"node1"}),
       {inGroup(terminatingByPreemption(pod("victim", "v1", kHighPriority).node("node1")), "victim-pg")},
       {PG{.name = "victim-pg", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       preemptorHigh,
       nominatedMembers,
       Code::Success,
       "ongoing preemption on nominated nodes",
       currentNominations},
      {"PodGroup preemptor with PreemptNever policy does not perform preemption",
       nodes({"node1", "node2", "node3"}),
       mixedVictims,
       {},
       preemptorNever,
       neverMembers,
       Code::Unschedulable,
       "not eligible due to preemptionPolicy=Never.",
       {}},
      {"PodGroup preemptor with PreemptNever preemption policy does not perform preemption with PodGroup victims",
       nodes({"node1", "node2", "node3"}),
       mixedVictims,
       {PG{.name = "pg1", .priority = kLowPriority, .disruption = Disruption::Single}.obj(),
        PG{.name = "pg2", .priority = kLowPriority, .disruption = Disruption::Single}.obj()},
       preemptorNever,
       neverMembers,
       Code::Unschedulable,
       "not eligible due to preemptionPolicy=Never.",
       {}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.initPods,
                      .nodes = tc.nodes,
                      .podGroups = tc.initPodGroups});
    ASSERT_TRUE(env.ok());
    TestPodGroupEvaluator ev(env);
    const PodGroupSchedulingFunc schedule = []() -> PodGroupAssignments {
      ADD_FAILURE() << "podGroupSchedulingFunc should not be called when ongoing preemption is detected";
      return {{}, Status(Code::Error)};
    };
    const PodGroupInfo group{"", tc.preemptorPodGroup->metadata.name, tc.preemptorPodGroup, tc.preemptorPods};
    PodGroupPostFilterResult result;
    const Status got = ev.evaluator.preempt(group, schedule, result);
    EXPECT_EQ(got.code(), tc.expectedCode);
    EXPECT_EQ(got.message(), tc.expectedMessage);
    if (got.code() != Code::Success) continue;
    EXPECT_EQ(result.nominatingInfos, tc.expectedNominating);
  }
}

// ---- TestPodGroupPreemptionEvaluationDurationMetric ----

TEST(PodGroupPreemptionTest, EvaluationDurationIsObservedWithTheEvaluationsStatus) {
  const api::PodPtr preemptorPod = MakePod().name("p1").uid("p1").ptr();
  const PodGroupPtr preemptorPG = PG{.name = "preemptor-pg", .priority = kHighPriority}.obj();
  struct Case {
    std::string name;
    Status evaluationStatus;
  };
  for (const Case& tc : std::vector<Case>{{"scheduling success", Status()},
                                          {"scheduling error", Status(Code::Error, "failed to schedule")}}) {
    SCOPED_TRACE(tc.name);
    metrics::Metrics m;
    m.registerPodGroupMetrics();
    const api::PodPtr victimPod = MakePod().name("p2").uid("p2").node("node1").priority(kLowPriority).ptr();
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {victimPod},
                      .nodes = nodes({"node1"}),
                      .metrics = &m,
                      .podGroups = std::vector<PodGroupPtr>{}});
    ASSERT_TRUE(env.ok());
    TestPodGroupEvaluator ev(env);
    const PodGroupSchedulingFunc schedule = [&]() -> PodGroupAssignments {
      auto state = std::make_shared<CycleState>();
      (void)env.runPreFilter(*state, *PodInfo::create(preemptorPod));
      if (tc.evaluationStatus.isSuccess()) {
        return {{ProposedAssignment{PodInfo::create(preemptorPod), "node1", state}}, tc.evaluationStatus};
      }
      return {{}, tc.evaluationStatus};
    };
    const std::string expectedStatus(codeName(tc.evaluationStatus.code()));
    MutableSharedLister& snapshot = *env.cacheSnapshot();
    ASSERT_TRUE(snapshot.startMutations().ok());
    PodGroupPostFilterResult result;
    (void)ev.evaluator.preempt(PodGroupInfo{"", "preemptor-pg", preemptorPG, {preemptorPod}}, schedule, result);
    EXPECT_TRUE(snapshot.endMutations().ok());
    const std::string text = m.scrape();
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_evaluation_duration_seconds_count",
                                    {{"preemptor", "podgroup"}, {"result", expectedStatus}}),
              1);
  }
}

}  // namespace
}  // namespace ks::framework::preemption
