// Ports upstream pkg/scheduler/framework/preemption/preemption_test.go (v1.37.2): TestDryRunPreemption,
// TestSelectCandidate, TestCallExtenders, TestGetVictimsOnNode and TestPreemptionEvaluationDurationMetric,
// against the real Framework and the Evaluator with upstream's fake preemption plugins. The executor's
// tests (executor_test.go) are in executor_test.cpp.
//
// Not ported / skipped:
//  - TestGetVictimsOnNode's CompositePodGroup cases: CompositePodGroup (alpha) is not modelled.
#include "pkg/scheduler/framework/preemption/preemption.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/preemption/preemption_test_util.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::framework::preemption {
namespace {

using preemptiontesting::FrameworkEnv;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using ks::testing::ResourceMap;

constexpr int32_t kMidPriority = 100;
constexpr int32_t kHighPriority = 1000;
const ResourceMap kVeryLargeRes = {{"cpu", "500m"}, {"memory", "500"}};

// Upstream FakePostFilterPlugin (score functions: none) and FakePreemptionScorePostFilterPlugin (one
// score function: fewest containers + init containers among the victims): the victim on every node is
// its first pod, with numViolatingVictim PDB violations, all nodes from offset 0. With `victims` set,
// those are the victims on every node (TestPrepareCandidate's candidate).
class FakePreemptionPlugin final : public Interface {
 public:
  FakePreemptionPlugin(int64_t numViolatingVictim, bool scoreByContainers,
                       std::optional<std::vector<PodInfoPtr>> victims = std::nullopt)
      : numViolatingVictim_(numViolatingVictim), scoreByContainers_(scoreByContainers), victims_(std::move(victims)) {}

  std::pair<int32_t, int32_t> getOffsetAndNumCandidates(int32_t numNodes) override { return {0, numNodes}; }
  std::optional<std::string> podEligibleToPreemptOthers(const api::Pod&, const Status&) override {
    return std::nullopt;
  }
  Status selectVictimsOnNode(CycleState&, const PodInfo&, NodeInfo& nodeInfo, std::span<const Victim>,
                             const PDBList&, Victims& victims) override {
    if (victims_) {
      victims.pods = *victims_;
    } else {
      victims.pods.push_back(nodeInfo.pods().front());
    }
    victims.numPDBViolations = numViolatingVictim_;
    return Status();
  }
  std::vector<NodeScoreFunc> orderedScoreFuncs(const std::map<std::string, const Victims*>& nodesToVictims) override {
    if (!scoreByContainers_) return {};
    return {[nodesToVictims](const std::string& node) {
      int64_t sumContainers = 0;
      for (const auto& pi : nodesToVictims.at(node)->pods) {
        sumContainers += static_cast<int64_t>(pi->pod().spec.containers.size() + pi->pod().spec.initContainers.size());
      }
      return -sumContainers;  // the fewer containers, the higher the score
    }};
  }

 private:
  const int64_t numViolatingVictim_;
  const bool scoreByContainers_;
  const std::optional<std::vector<PodInfoPtr>> victims_;
};

// An Evaluator with its own Executor (upstream NewEvaluator(name, fh, plugin, NewExecutor(fh, fts))).
struct TestEvaluator {
  std::unique_ptr<Executor> executor;
  std::unique_ptr<Evaluator> evaluator;  // refers to executor: destroyed first
  Evaluator* operator->() { return evaluator.get(); }
};

TestEvaluator newEvaluator(const std::string& pluginName, FrameworkEnv& env, Interface& plugin,
                           bool enableAsyncPreemption, bool enableGenericWorkload = false) {
  TestEvaluator ev;
  ev.executor =
      std::make_unique<Executor>(pluginName, env.fw(), enableAsyncPreemption, env.factory().pods().store());
  ev.evaluator = std::make_unique<Evaluator>(pluginName, env.fw(), plugin, *ev.executor, enableGenericWorkload,
                                             env.factory().pods().store(),
                                             env.factory().podDisruptionBudgets().store());
  return ev;
}

std::vector<NodeInfoPtr> sortedNodeInfos(const NodeInfoLister& lister) {
  std::vector<NodeInfoPtr> out = lister.list();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->nodeName() < b->nodeName(); });
  return out;
}

struct ExpectedCandidate {
  std::string name;
  std::vector<api::Pod> victims;
  int64_t numPDBViolations = 0;
};

// Upstream sorts the victims by name and the candidates by node name before comparing.
void expectCandidates(std::vector<Candidate> got, const std::vector<ExpectedCandidate>& want,
                      const std::string& context) {
  for (auto& c : got) {
    std::sort(c.victims.pods.begin(), c.victims.pods.end(),
              [](const auto& a, const auto& b) { return a->pod().metadata.name < b->pod().metadata.name; });
  }
  std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  ASSERT_EQ(got.size(), want.size()) << context;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << context;
    EXPECT_EQ(got[i].victims.numPDBViolations, want[i].numPDBViolations) << context << " node " << want[i].name;
    ASSERT_EQ(got[i].victims.pods.size(), want[i].victims.size()) << context << " node " << want[i].name;
    for (size_t j = 0; j < want[i].victims.size(); ++j) {
      EXPECT_EQ(got[i].victims.pods[j]->pod(), want[i].victims[j])
          << context << " node " << want[i].name << " victim " << j << " (want " << want[i].victims[j].metadata.name
          << ", got " << got[i].victims.pods[j]->pod().metadata.name << ")";
    }
  }
}

api::NodePtr node(const std::string& name) {
  return MakeNode().name(name).capacity(kVeryLargeRes).ptr();
}

// ---- TestDryRunPreemption ----

TEST(PreemptionTest, DryRunPreemptionReturnsEveryNodeWithTheVictimsAndPDBViolationsThePluginSelects) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> testPods;
    std::vector<api::PodPtr> initPods;
    int64_t numViolatingVictim = 0;
    std::vector<std::vector<ExpectedCandidate>> expected;
  };
  const auto p1 = MakePod().name("p1").uid("p1").node("node1").priority(kMidPriority);
  const auto p2 = MakePod().name("p2").uid("p2").node("node2").priority(kMidPriority);
  const std::vector<Case> cases = {
      {"no pdb violation",
       {node("node1"), node("node2")},
       {MakePod().name("p").uid("p").priority(kHighPriority).ptr()},
       {p1.ptr(), p2.ptr()},
       0,
       {{{"node1", {p1.obj()}, 0}, {"node2", {p2.obj()}, 0}}}},
      {"pdb violation on each node",
       {node("node1"), node("node2")},
       {MakePod().name("p").uid("p").priority(kHighPriority).ptr()},
       {p1.ptr(), p2.ptr()},
       1,
       {{{"node1", {p1.obj()}, 1}, {"node2", {p2.obj()}, 1}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.testPods,
                      .nodes = tc.nodes});
    ASSERT_TRUE(env.ok());
    env.factory().start();
    ASSERT_TRUE(env.factory().waitForCacheSync(std::chrono::seconds(10)));
    const auto snapshot = plugintesting::FakeSharedLister::create(tc.initPods, tc.nodes);
    const std::vector<NodeInfoPtr> nodeInfos = sortedNodeInfos(*snapshot);
    FakePreemptionPlugin plugin(tc.numViolatingVictim, /*scoreByContainers=*/false);
    for (size_t cycle = 0; cycle < tc.testPods.size(); ++cycle) {
      CycleState state;
      auto ev = newEvaluator("FakePostFilter", env, plugin, false);
      auto got = ev->dryRunPreemption(state, *PodInfo::create(tc.testPods[cycle]), nodeInfos, {}, 0,
                                      static_cast<int32_t>(nodeInfos.size()));
      expectCandidates(std::move(got.candidates), tc.expected[cycle], "cycle " + std::to_string(cycle));
    }
  }
}

// ---- TestSelectCandidate ----

TEST(PreemptionTest, SelectCandidateAppliesThePluginsOrderedScoreFuncs) {
  auto withContainers = [](const std::string& name, const std::string& nodeName, int containers) {
    auto w = MakePod().name(name).uid(name).node(nodeName).priority(kMidPriority);
    for (int i = 0; i < containers; ++i) w.container(std::string(ks::testing::kPauseImage));
    return w.ptr();
  };
  struct Case {
    std::string name;
    std::vector<std::string> nodeNames;
    api::PodPtr pod;
    std::vector<api::PodPtr> testPods;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"pod has different number of containers on each node",
       {"node1", "node2", "node3"},
       MakePod().name("p").uid("p").priority(kHighPriority).req(kVeryLargeRes).ptr(),
       {withContainers("p1.1", "node1", 2), withContainers("p2.1", "node2", 1), withContainers("p3.1", "node3", 3)},
       "node2"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::NodePtr> nodes;
    for (const auto& n : tc.nodeNames) nodes.push_back(node(n));
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.testPods,
                      .nodes = nodes});
    ASSERT_TRUE(env.ok());
    CycleState state;
    ASSERT_TRUE(env.runPreFilter(state, *PodInfo::create(tc.pod)).isSuccess());
    const std::vector<NodeInfoPtr> nodeInfos = env.lister().list();
    FakePreemptionPlugin plugin(1, /*scoreByContainers=*/true);
    // As upstream, every test pod in turn is the preemptor.
    for (const auto& pod : tc.testPods) {
      CycleState cycleState;
      auto ev = newEvaluator("FakePreemptionScorePostFilter", env, plugin, false);
      auto dryRun = ev->dryRunPreemption(cycleState, *PodInfo::create(pod), nodeInfos, {}, 0,
                                         static_cast<int32_t>(nodeInfos.size()));
      const Candidate* s = ev->selectCandidate(dryRun.candidates);
      ASSERT_TRUE(s != nullptr && !s->name.empty()) << "expect " << tc.expected << ", but no candidate selected";
      EXPECT_EQ(s->name, tc.expected);
    }
  }
}

// ---- TestCallExtenders ----

// Upstream's fakeExtender of preemption_test.go: only ProcessPreemption matters.
class CallExtendersFake final : public Extender {
 public:
  bool ignorable = false;
  bool errProcessPreemption = false;
  bool supportsPreemption_ = false;
  bool returnsNoVictims = false;

  std::string name() const override { return "fakeExtender"; }
  bool isIgnorable() const override { return ignorable; }
  Result<std::map<std::string, Victims>> processPreemption(const api::Pod&,
                                                           const std::map<std::string, Victims>& victims,
                                                           const NodeInfoLister&) override {
    if (!supportsPreemption_) return std::map<std::string, Victims>{};
    if (errProcessPreemption) return Error("extender preempt error");
    if (returnsNoVictims) return std::map<std::string, Victims>{{"mock", Victims{}}};
    return victims;
  }
  bool supportsPreemption() const override { return supportsPreemption_; }
  bool isInterested(const api::Pod&) const override { return true; }
  Result<ExtenderFilterResult> filter(const api::Pod&, const std::vector<NodeInfoPtr>&) override {
    return ExtenderFilterResult{};
  }
  Result<ExtenderScores> prioritize(const api::Pod&, const std::vector<NodeInfoPtr>&) override {
    return ExtenderScores{};
  }
  Result<void> bind(const ExtenderBinding&) override { return {}; }
  bool isBinder() const override { return true; }
  bool isPrioritizer() const override { return true; }
  bool isFilter() const override { return true; }
};

TEST(PreemptionTest, CallExtenders) {
  const api::PodPtr preemptor =
      MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).container("container1").ptr();
  const api::PodPtr victim =
      MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).container("container1").ptr();
  auto makeCandidates = [&](const std::string& node) {
    return std::vector<Candidate>{Candidate{node, Victims{{PodInfo::create(victim)}, 0}}};
  };
  auto fake = [](bool supports, bool noVictims, bool ignorable, bool err) {
    auto f = std::make_shared<CallExtendersFake>();
    f->supportsPreemption_ = supports;
    f->returnsNoVictims = noVictims;
    f->ignorable = ignorable;
    f->errProcessPreemption = err;
    return f;
  };
  struct Case {
    std::string name;
    std::vector<std::shared_ptr<CallExtendersFake>> extenders;
    std::vector<Candidate> candidates;
    Code wantCode;
    std::vector<std::pair<std::string, size_t>> wantCandidates;  // node, number of victims
  };
  const std::vector<Case> cases = {
      {"no extenders", {}, makeCandidates("node1"), Code::Success, {{"node1", 1}}},
      {"one extender supports preemption", {fake(true, false, false, false)}, makeCandidates("node1"), Code::Success,
       {{"node1", 1}}},
      {"one extender with return no victims", {fake(true, true, false, false)}, makeCandidates("node1"), Code::Error,
       {}},
      {"one extender does not support preemption", {fake(false, false, false, false)}, makeCandidates("node1"),
       Code::Success, {{"node1", 1}}},
      {"one extender with no return victims and is ignorable", {fake(true, true, true, false)},
       makeCandidates("node1"), Code::Success, {}},
      {"one extender returns error and is ignorable", {fake(true, false, true, true)}, makeCandidates("node1"),
       Code::Success, {{"node1", 1}}},
      {"one extender returns error and is not ignorable", {fake(true, false, false, true)}, makeCandidates("node1"),
       Code::Error, {}},
      {"one extender with empty victims input", {fake(true, false, false, false)}, {}, Code::Success, {}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<Extender*> extenders;
    for (const auto& e : tc.extenders) extenders.push_back(e.get());
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {preemptor},
                      .nodes = {node("node1")},
                      .extenders = extenders});
    ASSERT_TRUE(env.ok());
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/true);
    auto ev = newEvaluator("FakePreemptionScorePostFilter", env, plugin, false);
    std::vector<Candidate> candidates = tc.candidates;
    Status s = ev->callExtenders(*preemptor, candidates);
    EXPECT_EQ(s.code(), tc.wantCode) << s.message();
    if (tc.name == "one extender with return no victims") {
      EXPECT_EQ(s.message(), "expected at least one victim pod on node \"mock\"");
    }
    ASSERT_EQ(candidates.size(), tc.wantCandidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      EXPECT_EQ(candidates[i].name, tc.wantCandidates[i].first);
      EXPECT_EQ(candidates[i].victims.pods.size(), tc.wantCandidates[i].second);
    }
  }
}

// ---- TestGetVictimsOnNode ----

TEST(PreemptionTest, GetVictimsOnNodeGroupsAPodGroupWithDisruptionModeAllAcrossNodes) {
  using preemptiontesting::Disruption;
  using preemptiontesting::inGroup;
  using preemptiontesting::makeTestPodGroup;
  constexpr int32_t kLowPriority = 0;
  struct WantVictim {
    int32_t priority;
    std::set<std::string> pods;
    std::set<std::string> nodes;
    bool operator<(const WantVictim& o) const { return pods < o.pods; }
    bool operator==(const WantVictim&) const = default;
  };
  struct Case {
    std::string name;
    bool enableGenericWorkload;
    std::vector<std::string> nodes;
    std::vector<api::PodPtr> pods;
    std::vector<framework::PodGroupPtr> podGroups;
    std::string targetNode;
    std::vector<WantVictim> expected;
  };
  auto pod = [](const std::string& name, const std::string& nodeName, int32_t priority) {
    return MakePod().name(name).uid(name).namespace_("default").node(nodeName).priority(priority);
  };
  const std::vector<Case> cases = {
      {"GenericWorkload disabled, two pods on target node",
       false,
       {"node1"},
       {MakePod().name("p1").uid("p1").node("node1").priority(kMidPriority).ptr(),
        MakePod().name("p2").uid("p2").node("node1").priority(kLowPriority).ptr()},
       {},
       "node1",
       {{kMidPriority, {"p1"}, {"node1"}}, {kLowPriority, {"p2"}, {"node1"}}}},
      {"GenericWorkload enabled, pods with no PodGroup",
       true,
       {"node1"},
       {MakePod().name("p1").uid("p1").node("node1").priority(kMidPriority).ptr(),
        MakePod().name("p2").uid("p2").node("node1").priority(kLowPriority).ptr()},
       {},
       "node1",
       {{kMidPriority, {"p1"}, {"node1"}}, {kLowPriority, {"p2"}, {"node1"}}}},
      {"GenericWorkload enabled, pod belonging to PodGroup with disruptionMode All",
       true,
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", kMidPriority), "pg1"), inGroup(pod("p2", "node2", kMidPriority), "pg1"),
        pod("p3", "node1", kLowPriority).ptr()},
       {makeTestPodGroup("default", "pg1", kMidPriority, Disruption::All, /*uid=*/"")},
       "node1",
       {{kMidPriority, {"p1", "p2"}, {"node1", "node2"}}, {kLowPriority, {"p3"}, {"node1"}}}},
      {"GenericWorkload enabled, pods belonging to PodGroup with disruptionMode Single",
       true,
       {"node1", "node2"},
       {inGroup(pod("p1", "node1", kLowPriority), "pg1"), inGroup(pod("p2", "node2", kLowPriority), "pg1"),
        inGroup(pod("p3", "node1", kLowPriority), "pg1"), pod("p4", "node1", kLowPriority).ptr()},
       {makeTestPodGroup("default", "pg1", kMidPriority, Disruption::Single, /*uid=*/"")},
       "node1",
       {{kMidPriority, {"p1"}, {"node1"}}, {kMidPriority, {"p3"}, {"node1"}}, {kLowPriority, {"p4"}, {"node1"}}}},
      {"GenericWorkload enabled, mixed test with individual pods, PodGroup with DisruptionMode Single, and "
       "PodGroup with DisruptionMode All",
       true,
       {"node1", "node2"},
       {inGroup(pod("p-all-1", "node1", kHighPriority), "pg-all"),
        inGroup(pod("p-all-2", "node2", kHighPriority), "pg-all"),
        inGroup(pod("p-single-1", "node1", kLowPriority), "pg-single"),
        inGroup(pod("p-single-2", "node2", kLowPriority), "pg-single"), pod("p-ind", "node1", kLowPriority).ptr()},
       {makeTestPodGroup("default", "pg-all", kHighPriority, Disruption::All, /*uid=*/""),
        makeTestPodGroup("default", "pg-single", kMidPriority, Disruption::Single, /*uid=*/"")},
       "node1",
       {{kHighPriority, {"p-all-1", "p-all-2"}, {"node1", "node2"}},
        {kMidPriority, {"p-single-1"}, {"node1"}},
        {kLowPriority, {"p-ind"}, {"node1"}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::NodePtr> nodes;
    for (const auto& n : tc.nodes) nodes.push_back(MakeNode().name(n).ptr());
    // The snapshot holds the groups whatever the gate (upstream's does): the evaluator decides.
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.pods,
                      .nodes = nodes,
                      .podGroups = tc.podGroups});
    ASSERT_TRUE(env.ok());
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false);
    auto ev = newEvaluator("TestPlugin", env, plugin, false, tc.enableGenericWorkload);
    auto nodeInfo = env.lister().get(tc.targetNode);
    ASSERT_TRUE(nodeInfo.ok());
    auto got = ev->getVictimsOnNode(*nodeInfo);
    ASSERT_TRUE(got.ok()) << got.error().message();
    std::vector<WantVictim> gotVictims;
    for (const Victim& v : *got) {
      WantVictim w{v.priority(), {}, {}};
      for (const auto& pi : v.pods()) w.pods.insert(pi->pod().metadata.name);
      for (const auto& [n, info] : v.affectedNodes()) w.nodes.insert(n);
      gotVictims.push_back(std::move(w));
    }
    std::vector<WantVictim> want = tc.expected;
    std::sort(gotVictims.begin(), gotVictims.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(gotVictims, want);
  }
}

// ---- TestPreemptionEvaluationDurationMetric ----

// Upstream's customEvaluationInterface: FakePostFilterPlugin whose preemptor may be made ineligible.
class EligibilityPlugin final : public Interface {
 public:
  explicit EligibilityPlugin(bool podEligible) : podEligible_(podEligible) {}
  std::pair<int32_t, int32_t> getOffsetAndNumCandidates(int32_t n) override { return fake_.getOffsetAndNumCandidates(n); }
  std::optional<std::string> podEligibleToPreemptOthers(const api::Pod&, const Status&) override {
    if (podEligible_) return std::nullopt;
    return "not eligible";
  }
  Status selectVictimsOnNode(CycleState& state, const PodInfo& pod, NodeInfo& nodeInfo,
                             std::span<const Victim> allPossibleVictims, const PDBList& pdbs,
                             Victims& victims) override {
    return fake_.selectVictimsOnNode(state, pod, nodeInfo, allPossibleVictims, pdbs, victims);
  }
  std::vector<NodeScoreFunc> orderedScoreFuncs(const std::map<std::string, const Victims*>& m) override {
    return fake_.orderedScoreFuncs(m);
  }

 private:
  const bool podEligible_;
  FakePreemptionPlugin fake_{0, /*scoreByContainers=*/false};
};

TEST(PreemptionTest, EvaluationDurationIsObservedWithTheEvaluationsStatus) {
  const api::PodPtr victim = MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr preemptor = MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).ptr();
  struct Case {
    std::string name;
    bool podEligible;
    std::string expectedStatus;
  };
  for (const Case& tc : std::vector<Case>{
           {"eligible preemptor, success", true, "Success"},
           {"ineligible preemptor, unschedulable", false, "Unschedulable"},
       }) {
    SCOPED_TRACE(tc.name);
    metrics::Metrics m;
    m.registerPodGroupMetrics();  // upstream registers it with GenericWorkload only
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {victim},
                      .nodes = {node("node1")},
                      .metrics = &m});
    ASSERT_TRUE(env.ok());
    env.addToPodStore(preemptor);
    EligibilityPlugin plugin(tc.podEligible);
    auto ev = newEvaluator("FakePostFilter", env, plugin, false);
    NodeToStatus statuses;
    statuses.set("node1", Status(Code::Unschedulable));
    statuses.setAbsentNodesStatus(Status(Code::UnschedulableAndUnresolvable));
    CycleState state;
    PostFilterResult result;
    (void)ev->preempt(state, *PodInfo::create(preemptor), statuses, result);
    const std::string text = m.scrape();
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_evaluation_duration_seconds_count",
                                    {{"preemptor", "pod"}, {"result", tc.expectedStatus}}),
              1);
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_evaluation_duration_seconds_count"), 1);
  }
}

}  // namespace
}  // namespace ks::framework::preemption
