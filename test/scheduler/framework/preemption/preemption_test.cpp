// Ports upstream pkg/scheduler/framework/preemption/preemption_test.go (v1.34.4): TestDryRunPreemption,
// TestSelectCandidate, TestPrepareCandidate and TestRemoveNominatedNodeName, every case, against the
// real Framework and the Evaluator with upstream's fake preemption plugins.
//
// Not ported / skipped:
//  - The "Async API calls enabled: true" variants of TestPrepareCandidate and TestRemoveNominatedNodeName:
//    SchedulerAsyncAPICalls is off by default in v1.34 and not implemented; the "false" variants run.
//  - TestPrepareCandidate "no victims": prepareCandidate/prepareCandidateAsync are private here, so the
//    cases go through Evaluator::preempt(), whose dry run never yields a candidate without victims
//    (a victim-less Success becomes an Error status for the node); the case is unreachable.
//
// How the cases are driven differs where upstream calls unexported functions: TestPrepareCandidate and
// TestRemoveNominatedNodeName call preempt() with a fake preemption plugin whose dry run answers the
// case's candidate (one node, the case's victims), so preempt() reaches prepareCandidate(Async) with
// exactly upstream's candidate, and clearNominatedNodeName through a nominator that answers the case's
// nominated pod. The API calls are recorded by a client with upstream's reactor semantics.
#include "pkg/scheduler/framework/preemption/preemption.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "test/scheduler/framework/preemption/preemption_test_util.h"

namespace ks::framework::preemption {
namespace {

// Test name suffix of the async-preemption parameter.
std::string asyncPreemptionName(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "Enabled" : "Disabled";
}

using preemptiontesting::BlockingNominator;
using preemptiontesting::FrameworkEnv;
using preemptiontesting::ScopeExit;
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
  Status selectVictimsOnNode(CycleState&, const PodInfo&, NodeInfo& nodeInfo, const PDBList&,
                             Victims& victims) override {
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

std::unique_ptr<Evaluator> newEvaluator(const std::string& pluginName, FrameworkEnv& env, Interface& plugin,
                                        bool enableAsyncPreemption) {
  return std::make_unique<Evaluator>(pluginName, env.fw(), plugin, enableAsyncPreemption,
                                     env.factory().pods().store(), env.factory().podDisruptionBudgets().store());
}

std::vector<NodeInfoPtr> sortedNodeInfos(const plugintesting::FakeSharedLister& lister) {
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

// ---- TestPrepareCandidate ----

// The DisruptionTarget condition upstream's victims may already carry.
api::PodCondition disruptionTarget(const std::string& schedulerName) {
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  c.message = schedulerName + ": preempting to accommodate a higher priority pod";
  return c;
}

class PrepareCandidateTest : public ::testing::TestWithParam<bool> {};

TEST_P(PrepareCandidateTest, EvictsVictimsReportsFailuresAndClearsThePreemptingSet) {
  const bool asyncPreemptionEnabled = GetParam();
  const std::string node1Name = "node1";
  const std::string defaultSchedulerName = "default-scheduler";
  const api::PodCondition condition = disruptionTarget(defaultSchedulerName);
  auto victimBase = [&](const std::string& name, const std::string& uid, int32_t priority) {
    return MakePod()
        .name(name)
        .uid(uid)
        .node(node1Name)
        .schedulerName(defaultSchedulerName)
        .priority(priority)
        .container(std::string(ks::testing::kPauseImage));
  };
  const api::PodPtr victim1 = victimBase("victim1", "victim1", kMidPriority).ptr();
  const api::PodPtr failVictim = victimBase("fail-victim", "victim1", kMidPriority).ptr();
  const api::PodPtr victim2 = victimBase("victim2", "victim2", 50000).ptr();
  const api::PodPtr victim1WithMatchingCondition =
      victimBase("victim1", "victim1", kMidPriority).conditions({condition}).ptr();
  const api::PodPtr failVictim1WithMatchingCondition =
      victimBase("fail-victim", "victim1", kMidPriority).conditions({condition}).ptr();
  const api::PodPtr preemptor = MakePod()
                                    .name("preemptor")
                                    .uid("preemptor")
                                    .schedulerName(defaultSchedulerName)
                                    .priority(kHighPriority)
                                    .container(std::string(ks::testing::kPauseImage))
                                    .ptr();
  const std::string errDeletePodFailed = "delete pod failed";
  const std::string errPatchStatusFailed = "patch pod status failed";

  struct Case {
    std::string name;
    std::vector<api::PodPtr> victims;  // the candidate's, on node1
    std::vector<api::PodPtr> testPods;
    // Any of these may be the deleted pod; "" means none. Empty: no pod is deleted.
    std::vector<std::string> expectedDeletedPod;
    bool expectedDeletionError = false;
    bool expectedPatchError = false;
    // Compared when async preemption is disabled: "" is Success, otherwise an Error with this message.
    std::string expectedStatus;
    // Compared when async preemption is enabled.
    std::vector<std::string> expectedActivatedPods;
  };
  const std::vector<Case> cases = {
      // "no victims": unreachable through preempt(), see the top of the file.
      {"one victim without condition", {victim1}, {victim1}, {"victim1"}, false, false, "", {}},
      {"one victim with same condition",
       {victim1WithMatchingCondition},
       {victim1WithMatchingCondition},
       {"victim1"},
       false,
       false,
       "",
       {}},
      {"one victim, not-found victim error is ignored when patching",
       {victim1WithMatchingCondition},
       {},
       {"victim1"},
       false,
       false,
       "",
       {}},
      {"one victim, but pod deletion failed",
       {failVictim1WithMatchingCondition},
       {},
       {},
       true,
       false,
       errDeletePodFailed,
       {"preemptor"}},
      {"one victim, not-found victim error is ignored when deleting", {victim1}, {}, {"victim1"}, false, false, "", {}},
      {"one victim, but patch pod failed", {failVictim}, {}, {}, false, true, errPatchStatusFailed, {"preemptor"}},
      {"two victims without condition, one passes successfully and the second fails",
       {failVictim, victim2},
       {victim1},
       // The first victim could fail before the deletion of the second victim happens, which results
       // in the second victim not being deleted.
       {"victim2", ""},
       false,
       true,
       errPatchStatusFailed,
       {"preemptor"}},
  };

  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name + (asyncPreemptionEnabled ? " (async preemption)" : " (sync preemption)"));
    BlockingNominator nominator;
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.testPods,
                      .nodes = {node(node1Name)},
                      .nominator = &nominator});
    ASSERT_TRUE(env.ok());
    env.client().failDeleteFor("fail-victim", errDeletePodFailed);
    env.client().failPatchFor("fail-victim", errPatchStatusFailed);
    env.addToPodStore(preemptor);

    std::vector<PodInfoPtr> victims;
    for (const auto& v : tc.victims) victims.push_back(PodInfo::create(v));
    FakePreemptionPlugin plugin(1, /*scoreByContainers=*/true, victims);
    auto ev = newEvaluator("FakePreemptionScorePostFilter", env, plugin, asyncPreemptionEnabled);
    ScopeExit release([&] { nominator.release(); });

    NodeToStatus statuses;
    statuses.set(node1Name, Status(Code::Unschedulable));
    CycleState state;
    PostFilterResult result;
    if (asyncPreemptionEnabled) {
      Status s = ev->preempt(state, *PodInfo::create(preemptor), statuses, result);
      EXPECT_TRUE(s.isSuccess()) << s.toString();
      EXPECT_EQ(result.nominatingInfo, (NominatingInfo{node1Name, NominatingMode::Override}));
      // The preempting set is written synchronously.
      EXPECT_TRUE(ev->isPodRunningPreemption("preemptor")) << "expected preempting pods {preemptor}";
      nominator.release();  // make the requests complete
    } else {
      nominator.release();  // no need to stop requests
      Status s = ev->preempt(state, *PodInfo::create(preemptor), statuses, result);
      if (tc.expectedStatus.empty()) {
        EXPECT_TRUE(s.isSuccess()) << s.toString();
      } else {
        EXPECT_EQ(s.code(), Code::Error) << s.toString();
        EXPECT_EQ(s.message(), tc.expectedStatus);
      }
    }
    ev->waitForAsyncPreemptions();

    // The preempting set is empty once the goroutine is done, in all cases.
    EXPECT_FALSE(ev->isPodRunningPreemption("preemptor")) << "expected no preempting pods";
    EXPECT_EQ(env.client().deletionFailed(), tc.expectedDeletionError);
    EXPECT_EQ(env.client().patchFailed(), tc.expectedPatchError);
    if (asyncPreemptionEnabled) {
      std::vector<std::string> activated;
      for (const auto& p : env.activatedPods()) activated.push_back(p->metadata.name);
      EXPECT_EQ(activated, tc.expectedActivatedPods);
    }
    const std::set<std::string> deleted = env.client().deletedPods();
    ASSERT_LE(deleted.size(), 1u) << "at most one pod is expected to be deleted in all cases";
    if (tc.expectedDeletedPod.empty()) {
      EXPECT_TRUE(deleted.empty()) << "expected no pod to be deleted, got " << *deleted.begin();
      continue;
    }
    bool found = false;
    for (const auto& name : tc.expectedDeletedPod) {
      if (deleted.contains(name) || (deleted.empty() && name.empty())) found = true;
    }
    EXPECT_TRUE(found) << "unexpected deleted pods: " << (deleted.empty() ? "none" : *deleted.begin());
  }
}

INSTANTIATE_TEST_SUITE_P(AsyncPreemption, PrepareCandidateTest, ::testing::Bool(), asyncPreemptionName);

// ---- TestRemoveNominatedNodeName ----

class RemoveNominatedNodeNameTest : public ::testing::TestWithParam<bool> {};

TEST_P(RemoveNominatedNodeNameTest, PatchesLowerPriorityNominatedPodsOnlyWhenTheyHaveANominatedNode) {
  const bool asyncPreemptionEnabled = GetParam();
  struct Case {
    std::string name;
    std::string currentNominatedNodeName;
    bool expectPatchRequest = false;
  };
  const std::vector<Case> cases = {
      // Upstream's expected patch data is {"status":{"nominatedNodeName":null}}.
      {"Should make patch request to clear node name", "node1", true},
      {"Should not make patch request if nominated node is already cleared", "", false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    const api::PodPtr pod = MakePod().name("foo").nominatedNodeName(tc.currentNominatedNodeName).ptr();
    const api::PodPtr victim = MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
    const api::PodPtr preemptor = MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).ptr();
    BlockingNominator nominator;
    nominator.setNominatedPods("node1", {PodInfo::create(pod)});
    nominator.release();
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {victim},
                      .nodes = {node("node1")},
                      .nominator = &nominator});
    ASSERT_TRUE(env.ok());
    env.addToPodStore(preemptor);
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false);
    auto ev = newEvaluator("FakePostFilter", env, plugin, asyncPreemptionEnabled);

    NodeToStatus statuses;
    statuses.set("node1", Status(Code::Unschedulable));
    CycleState state;
    PostFilterResult result;
    Status s = ev->preempt(state, *PodInfo::create(preemptor), statuses, result);
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    ev->waitForAsyncPreemptions();

    std::vector<client::PodStatusPatch> fooPatches;
    for (const auto& p : env.client().patches()) {
      if (p.name == "foo") fooPatches.push_back(p.patch);
    }
    if (tc.expectPatchRequest) {
      ASSERT_EQ(fooPatches.size(), 1u);
      EXPECT_EQ(fooPatches[0].nominatedNodeName, std::optional<std::string>(""));
      EXPECT_FALSE(fooPatches[0].condition.has_value());
    } else {
      EXPECT_TRUE(fooPatches.empty()) << "expected patch not to be called";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AsyncPreemption, RemoveNominatedNodeNameTest, ::testing::Bool(), asyncPreemptionName);

// ---- Beyond upstream's tables: the victim eviction against the in-memory API ----

// Upstream's PreemptPod: the DisruptionTarget condition is patched onto the victim, the victim is deleted
// and a Preempted event names the preemptor; a victim already gone (404 on delete) is not an error and
// gets no event.
TEST(PreemptionTest, PreemptPodPatchesDisruptionTargetDeletesVictimAndIgnoresAlreadyDeletedVictims) {
  const api::PodPtr victim =
      MakePod().name("victim").namespace_("default").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr gone = MakePod()
                               .name("gone")
                               .namespace_("default")
                               .uid("gone")
                               .node("node2")
                               .priority(kMidPriority)
                               .conditions({disruptionTarget("default-scheduler")})
                               .ptr();
  const api::PodPtr preemptor = MakePod()
                                    .name("preemptor")
                                    .namespace_("default")
                                    .uid("preemptor")
                                    .schedulerName("default-scheduler")
                                    .priority(kHighPriority)
                                    .ptr();
  for (const bool async : {false, true}) {
    SCOPED_TRACE(async ? "async preemption" : "sync preemption");
    for (const auto& [victimPod, nodeName] : {std::pair{victim, "node1"}, std::pair{gone, "node2"}}) {
      FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                        .pods = {victimPod},
                        .nodes = {node(nodeName)},
                        .recordingClient = false});
      ASSERT_TRUE(env.ok());
      if (victimPod == victim) {
        ASSERT_TRUE(env.memory().create(*victim).ok());
      }
      env.addToPodStore(preemptor);
      FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false);
      auto ev = newEvaluator("DefaultPreemption", env, plugin, async);
      NodeToStatus statuses;
      statuses.set(nodeName, Status(Code::Unschedulable));
      CycleState state;
      PostFilterResult result;
      Status s = ev->preempt(state, *PodInfo::create(preemptor), statuses, result);
      ASSERT_TRUE(s.isSuccess()) << s.toString();
      ev->waitForAsyncPreemptions();
      // A victim already gone is no error and needs no activation: PreEnqueue stops gating the preemptor
      // once its last victim is gone from the informer (isPodRunningPreemption), so the deletion event
      // that passed meanwhile is not lost.
      EXPECT_TRUE(env.activatedPods().empty());
      EXPECT_FALSE(ev->isPodRunningPreemption("preemptor"));
      const auto events = env.recorder().events();
      if (victimPod == victim) {
        EXPECT_FALSE(env.memory().get<api::Pod>("default", "victim").ok()) << "the victim is deleted";
        ASSERT_EQ(events.size(), 1u);
        EXPECT_EQ(events[0].regarding.name, "victim");
        ASSERT_TRUE(events[0].related.has_value());
        EXPECT_EQ(events[0].related->name, "preemptor");
        EXPECT_EQ(events[0].type, "Normal");
        EXPECT_EQ(events[0].reason, "Preempted");
        EXPECT_EQ(events[0].action, "Preempting");
        EXPECT_EQ(events[0].note, "Preempted by pod preemptor on node node1");
      } else {
        EXPECT_TRUE(events.empty()) << "no event for a victim that was already deleted";
      }
    }
  }
}

}  // namespace
// Upstream TestIsPodRunningPreemption: the preemptor is gated while its preemption runs, until its
// last victim is gone from the informer or terminating.
TEST(PreemptionTest, IsPodRunningPreemptionUntilTheLastVictimIsGoneOrTerminating) {
  const api::PodPtr victim1 = MakePod().namespace_("ns").name("victim1").uid("victim1").node("node").ptr();
  const api::PodPtr victim2 = MakePod().namespace_("ns").name("victim2").uid("victim2").node("node").ptr();
  const api::PodPtr deleted =
      MakePod().namespace_("ns").name("victim-deleted").uid("victim-deleted").node("node").terminating().ptr();
  struct Case {
    std::string name;
    bool preempting;                    // the preemptor is in the preempting set
    std::string lastVictimOf;           // whose last victim is registered ("" none)
    std::string lastVictim;             // its namespace/name
    std::vector<api::PodPtr> inLister;  // the pod informer's pods
    bool want;
  };
  const std::vector<Case> cases = {
      {"preemptor not in preemptingSet", false, "", "", {}, false},
      {"preemptor not in preemptingSet, lastVictimSet not empty", false, "preemptor", "ns/victim1", {}, false},
      {"preemptor in preemptingSet, no lastVictim for preemptor", true, "otherPod", "ns/victim1", {}, true},
      {"preemptor in preemptingSet, victim in lastVictimSet, not in PodLister", true, "preemptor", "ns/victim1", {},
       false},
      {"preemptor in preemptingSet, victim in lastVictimSet and in PodLister", true, "preemptor", "ns/victim1",
       {victim1, victim2}, true},
      {"preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion timestamp", true,
       "preemptor", "ns/victim-deleted", {victim1, deleted}, false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()}});
    ASSERT_TRUE(env.ok());
    for (const auto& p : tc.inLister) env.addToPodStore(p);
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false);
    auto ev = newEvaluator("DefaultPreemption", env, plugin, true);
    if (!tc.lastVictimOf.empty()) ev->setPreemptingForTest(tc.lastVictimOf, tc.lastVictim);
    if (tc.preempting) ev->setPreemptingForTest("preemptor", "");
    if (tc.preempting && tc.lastVictimOf == "preemptor") ev->setPreemptingForTest("preemptor", tc.lastVictim);
    EXPECT_EQ(ev->isPodRunningPreemption("preemptor"), tc.want);
  }
}

// Holds every pod at Permit (upstream's waitingPermitPlugin).
class WaitingPermitPlugin final : public PermitPlugin {
 public:
  static constexpr std::string_view kName = "waitingPermitPlugin";
  std::string_view name() const override { return kName; }
  Status permit(CycleState&, const PodInfo&, const std::string&, std::chrono::milliseconds& timeout) override {
    timeout = std::chrono::seconds(10);
    return Status(Code::Wait);
  }
};

// WaitingPermitPlugin enabled at Permit.
preemptiontesting::RegisteredPlugin waitingPermitPlugin() {
  return {std::string(WaitingPermitPlugin::kName),
          [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
            return std::unique_ptr<Plugin>(std::make_unique<WaitingPermitPlugin>());
          },
          {"Permit"}};
}

// Upstream TestPreemptPod: a victim in PreBind is cancelled and one waiting at Permit preempted, both in
// memory without API calls; any other is patched and deleted.
TEST(PreemptionTest, PreemptPodCancelsPreBindPreemptsWaitingPodsAndDeletesOthers) {
  const api::PodPtr preemptor = MakePod().name("p").namespace_("default").uid("p").priority(kHighPriority).ptr();
  const api::PodPtr victim = MakePod().name("v").namespace_("default").uid("v").priority(kMidPriority).ptr();
  struct Case {
    std::string name;
    bool inPreBind;
    bool waiting;
    bool wantDeleted;
  };
  for (const Case& tc : std::vector<Case>{
           {"victim is in preBind, context should be cancelled", true, false, false},
           {"victim is in waiting pods, it should be rejected (no calls to apiserver)", false, true, false},
           {"victim is not in waiting/preBind pods, pod should be deleted", false, false, true},
       }) {
    SCOPED_TRACE(tc.name);
    const preemptiontesting::RegisteredPlugin permit = waitingPermitPlugin();
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin(), permit}});
    ASSERT_TRUE(env.ok());
    std::shared_ptr<runtime::PodInPreBindImpl> inPreBind;
    if (tc.inPreBind) inPreBind = env.fw().addPodInPreBind("v");
    if (tc.waiting) {
      CycleState state;
      ASSERT_TRUE(env.fw().runPermitPlugins(state, *PodInfo::create(victim), "fake-node").isWait());
    }
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false);
    auto ev = newEvaluator("test-plugin", env, plugin, false);
    auto inMemory = ev->preemptPod(Candidate{.name = "fake-node", .victims = {}}, *preemptor, *victim);
    ASSERT_TRUE(inMemory.ok()) << inMemory.error().message();
    EXPECT_EQ(*inMemory, tc.inPreBind || tc.waiting);
    if (inPreBind) {
      EXPECT_TRUE(inPreBind->cancellation().cancelled());
      EXPECT_EQ(inPreBind->cancellation().cause(), "preempted by test-plugin");
      EXPECT_FALSE(inPreBind->markPrebound()) << "a cancelled pod must not be bound";
    }
    if (tc.waiting) {
      auto wp = std::dynamic_pointer_cast<runtime::WaitingPodImpl>(env.fw().getWaitingPod("v"));
      ASSERT_NE(wp, nullptr);
      const auto result = wp->tryResult();
      ASSERT_TRUE(result.has_value());
      EXPECT_EQ(result->code(), Code::Error) << "preempted, not rejected: the pod is retried after backoff";
      EXPECT_EQ(result->plugin(), "test-plugin");
    }
    if (tc.wantDeleted) {
      EXPECT_EQ(env.client().patchedPods(), std::set<std::string>{"v"});
      EXPECT_EQ(env.client().deletedPods(), std::set<std::string>{"v"});
    } else {
      EXPECT_TRUE(env.client().patchedPods().empty());
      EXPECT_TRUE(env.client().deletedPods().empty());
    }
    const auto events = env.recorder().events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].note, tc.wantDeleted ? "Preempted by pod p on node fake-node"
                                             : "Preempted by pod p on node fake-node (in kube-scheduler memory).");
  }
}

// Upstream TestPrepareCandidateAsyncActivatesPreemptorAfterLastVictimInMemoryPreemption: a last victim
// preempted in memory sends no deletion event, so the preemptor is activated; an earlier one doesn't.
TEST(PreemptionTest, AsyncPreemptionActivatesThePreemptorWhenTheLastVictimIsPreemptedInMemory) {
  const api::PodPtr preemptor =
      MakePod().name("p").namespace_("default").uid("p").schedulerName("default-scheduler").priority(kHighPriority).ptr();
  const api::PodPtr deletedVictim =
      MakePod().name("deleted").namespace_("default").uid("deleted").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr waitingVictim =
      MakePod().name("waiting").namespace_("default").uid("waiting").node("node1").priority(kMidPriority).ptr();
  struct Case {
    std::string name;
    std::vector<api::PodPtr> victims;
    bool wantActivated;
  };
  for (const Case& tc : std::vector<Case>{
           {"last waiting pod", {waitingVictim}, true},
           {"last waiting pod after API-deleted victim", {deletedVictim, waitingVictim}, true},
           {"non-last waiting pod", {waitingVictim, deletedVictim}, false},
       }) {
    SCOPED_TRACE(tc.name);
    const preemptiontesting::RegisteredPlugin permit = waitingPermitPlugin();
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin(), permit},
                      .pods = tc.victims,
                      .nodes = {node("node1")}});
    ASSERT_TRUE(env.ok());
    CycleState permitState;
    ASSERT_TRUE(env.fw().runPermitPlugins(permitState, *PodInfo::create(waitingVictim), "node1").isWait());
    env.addToPodStore(preemptor);
    std::vector<PodInfoPtr> victims;
    for (const auto& v : tc.victims) victims.push_back(PodInfo::create(v));
    FakePreemptionPlugin plugin(0, /*scoreByContainers=*/false, victims);
    auto ev = newEvaluator("DefaultPreemption", env, plugin, true);
    NodeToStatus statuses;
    statuses.set("node1", Status(Code::Unschedulable));
    CycleState state;
    PostFilterResult result;
    ASSERT_TRUE(ev->preempt(state, *PodInfo::create(preemptor), statuses, result).isSuccess());
    ev->waitForAsyncPreemptions();
    if (tc.wantActivated) {
      ASSERT_EQ(env.activatedPods().size(), 1u);
      EXPECT_EQ(env.activatedPods()[0]->metadata.name, "p");
    } else {
      EXPECT_TRUE(env.activatedPods().empty());
    }
    EXPECT_FALSE(ev->isPodRunningPreemption("p"));
  }
}

}  // namespace ks::framework::preemption
