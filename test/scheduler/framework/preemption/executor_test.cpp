// Ports upstream pkg/scheduler/framework/preemption/executor_test.go (v1.37.2): TestIsPodRunningPreemption,
// TestPrepareCandidate, TestPrepareCandidateAsyncSetsPreemptingSets, TestAsyncPreemptionFailure,
// TestRemoveNominatedNodeName, TestPreemptPod,
// TestPrepareCandidateAsyncActivatesPreemptorAfterLastVictimInMemoryPreemption,
// TestIsPodGroupRunningPreemption and TestPreemptionExecutionDurationMetric, for the pod and the pod group
// preemptor, against the real Framework.
//
// Not ported / skipped:
//  - The compositepodgroup preemptor variants: CompositePodGroup (alpha) is not modelled.
//  - The "Async API calls enabled: true" variants: SchedulerAsyncAPICalls is not implemented.
//
// How the cases are driven: upstream calls the unexported prepareCandidate(Async) with a preemptor; here
// actuatePodPreemption / actuatePodGroupPreemption do, per the executor's asynchronous switch. Upstream's
// fakePodNominator (the asynchronous evictions wait for it) is BlockingNominator; the API calls are
// recorded by a client with upstream's reactor semantics; upstream polls for the preemption to end where
// these wait for the executor's workers to be idle.
#include "pkg/scheduler/framework/preemption/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/preemption/preemption_test_util.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::framework::preemption {
namespace {

std::string asyncPreemptionName(const ::testing::TestParamInfo<bool>& param) {
  return param.param ? "Enabled" : "Disabled";
}

using ks::testing::MakeNode;
using ks::testing::MakePod;
using ks::testing::ResourceMap;
using preemptiontesting::BlockingNominator;
using preemptiontesting::FrameworkEnv;
using preemptiontesting::ScopeExit;

constexpr int32_t kMidPriority = 100;
constexpr int32_t kHighPriority = 1000;
const ResourceMap kVeryLargeRes = {{"cpu", "500m"}, {"memory", "500"}};
const std::string kDefaultSchedulerName = "default-scheduler";

api::NodePtr node(const std::string& name) {
  return MakeNode().name(name).capacity(kVeryLargeRes).ptr();
}

// The preemptor kinds upstream's tables run for (compositepodgroup aside).
enum class PreemptorType { Pod, PodGroup };
std::string preemptorTypeName(const ::testing::TestParamInfo<PreemptorType>& param) {
  return param.param == PreemptorType::Pod ? "Pod" : "PodGroup";
}

// Upstream's `&schedulingv1beta1.PodGroup{ObjectMeta: {Name, Namespace, UID}}`.
api::PodGroup podGroup(const std::string& name, const std::string& uid) {
  api::PodGroup pg;
  pg.metadata.namespace_ = "default";
  pg.metadata.name = name;
  pg.metadata.uid = uid;
  return pg;
}

// Actuates the candidate for the pod, or for `pg` with `members` (upstream prepareCandidate(Async) with a
// podExecutorPreemptor / podGroupExecutorPreemptor).
Status actuate(Executor& e, const Candidate& c, const api::PodPtr& pod, const api::PodGroup* pg,
               const std::vector<api::PodPtr>& members) {
  if (pg != nullptr) return e.actuatePodGroupPreemption(c, *pg, members);
  return e.actuatePodPreemption(c, pod);
}

Candidate candidate(std::string name, const std::vector<api::PodPtr>& victims, int64_t numPDBViolations = 0,
                    int numPodGroupDisruptions = 0) {
  Candidate c;
  c.name = std::move(name);
  for (const auto& v : victims) c.victims.pods.push_back(PodInfo::create(v));
  c.victims.numPDBViolations = numPDBViolations;
  c.numPodGroupDisruptions = numPodGroupDisruptions;
  return c;
}

std::unique_ptr<Executor> newExecutor(FrameworkEnv& env, bool enableAsyncPreemption,
                                      const std::string& pluginName = "test-plugin") {
  return std::make_unique<Executor>(pluginName, env.fw(), enableAsyncPreemption,
                                    env.factory().pods().store());
}

// ---- TestIsPodRunningPreemption / TestIsPodGroupRunningPreemption ----

// The preemptor is gated while its preemption runs, until its last victim is gone from the informer or
// terminating; the same for a pod and a pod group's UID.
TEST(ExecutorTest, IsRunningPreemptionUntilTheLastVictimIsGoneOrTerminating) {
  const api::PodPtr victim1 = MakePod().namespace_("ns").name("victim1").uid("victim1").node("node").ptr();
  const api::PodPtr victim2 = MakePod().namespace_("ns").name("victim2").uid("victim2").node("node").ptr();
  const api::PodPtr deleted = MakePod()
                                  .namespace_("ns")
                                  .name("victim-deleted")
                                  .uid("victim-deleted")
                                  .node("node")
                                  .terminating()
                                  .ptr();
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
      {"preemptor not in preemptingSet, lastVictimSet not empty",
       false,
       "preemptor",
       "ns/victim1",
       {},
       false},
      {"preemptor in preemptingSet, no lastVictim for preemptor", true, "otherPod", "ns/victim1", {}, true},
      {"preemptor in preemptingSet, victim in lastVictimSet, not in PodLister",
       true,
       "preemptor",
       "ns/victim1",
       {},
       false},
      {"preemptor in preemptingSet, victim in lastVictimSet and in PodLister",
       true,
       "preemptor",
       "ns/victim1",
       {victim1, victim2},
       true},
      {"preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion timestamp",
       true,
       "preemptor",
       "ns/victim-deleted",
       {victim1, deleted},
       false},
  };
  for (const bool group : {false, true}) {
    for (const auto& tc : cases) {
      SCOPED_TRACE(tc.name + (group ? " (pod group)" : " (pod)"));
      FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()}});
      ASSERT_TRUE(env.ok());
      for (const auto& p : tc.inLister) env.addToPodStore(p);
      auto e = newExecutor(env, true);
      if (tc.preempting) e->setPreemptingForTest("preemptor");
      if (!tc.lastVictimOf.empty()) e->setLastVictimPendingForTest(tc.lastVictimOf, tc.lastVictim);
      EXPECT_EQ(group ? e->isPodGroupRunningPreemption("preemptor") : e->isPodRunningPreemption("preemptor"),
                tc.want);
    }
  }
}

// ---- TestPrepareCandidate ----

// The DisruptionTarget condition upstream's victims may already carry.
api::PodCondition disruptionTarget(const std::string& preemptorType) {
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  c.message = kDefaultSchedulerName + ": preempting to accommodate a higher priority " + preemptorType;
  return c;
}

// The preemption metrics' state (upstream preemptionMetricsState).
struct PreemptionMetrics {
  double workloadVictimsCount = 0, workloadVictimsSum = 0;
  double victimsCount = 0, victimsSum = 0;
  double disruptionsCount = 0, disruptionsSum = 0;
  double pdbViolations = 0;
};
PreemptionMetrics preemptionMetrics(const metrics::Metrics& m, const std::string& preemptorType) {
  using metrics::testing::sum;
  const std::string text = m.scrape();
  const metrics::testing::Labels byType = {{"preemptor", preemptorType}};
  return {sum(text, "scheduler_workload_preemption_victims_count"),
          sum(text, "scheduler_workload_preemption_victims_sum"),
          sum(text, "scheduler_preemption_victims_count"),
          sum(text, "scheduler_preemption_victims_sum"),
          sum(text, "scheduler_preemption_workload_disruptions_count", byType),
          sum(text, "scheduler_preemption_workload_disruptions_sum", byType),
          sum(text, "scheduler_preemption_pdb_violations_total", byType)};
}

class PrepareCandidateTest : public ::testing::TestWithParam<bool> {};

TEST_P(PrepareCandidateTest, EvictsVictimsReportsFailuresAndClearsThePreemptingSet) {
  const bool asyncPreemptionEnabled = GetParam();
  const std::string node1Name = "node1";
  auto victimBase = [&](const std::string& name, const std::string& uid, int32_t priority) {
    return MakePod()
        .name(name)
        .uid(uid)
        .node(node1Name)
        .schedulerName(kDefaultSchedulerName)
        .priority(priority)
        .container(std::string(ks::testing::kPauseImage));
  };
  const api::PodPtr victim1 = victimBase("victim1", "victim1", kMidPriority).ptr();
  const api::PodPtr notFoundVictim1 = victimBase("not-found-victim", "victim1", kMidPriority).ptr();
  const api::PodPtr failVictim = victimBase("fail-victim", "victim1", kMidPriority).ptr();
  const api::PodPtr victim2 = victimBase("victim2", "victim2", 50000).ptr();
  const api::PodPtr victim1WithMatchingCondition =
      victimBase("victim1", "victim1", kMidPriority).conditions({disruptionTarget("pod")}).ptr();
  const api::PodPtr failVictim1WithMatchingCondition =
      victimBase("fail-victim", "victim1", kMidPriority).conditions({disruptionTarget("pod")}).ptr();
  const api::PodPtr failVictim1WithMatchingPodGroupCondition =
      victimBase("fail-victim", "victim1", kMidPriority).conditions({disruptionTarget("podgroup")}).ptr();
  const api::PodPtr victimWithDeletionTimestamp =
      victimBase("victim1-with-deletion-timestamp", "victim1-with-deletion-timestamp", kMidPriority)
          .terminating()
          .ptr();
  const api::PodPtr preemptor = MakePod()
                                    .name("preemptor")
                                    .uid("preemptor")
                                    .schedulerName(kDefaultSchedulerName)
                                    .priority(kHighPriority)
                                    .container(std::string(ks::testing::kPauseImage))
                                    .ptr();
  const api::PodGroup podGroupPreemptor = podGroup("pg1", "pg1");
  const std::string errDeletePodFailed = "delete pod failed";
  const std::string errPatchStatusFailed = "patch pod status failed";

  struct Case {
    std::string name;
    Candidate candidate;
    const api::PodGroup* preemptorPodGroup = nullptr;
    std::vector<api::PodPtr> testPods;
    // Any of these may be the deleted pod; "" means none. Empty: no pod is deleted.
    std::vector<std::string> expectedDeletedPod;
    bool expectedDeletionError = false;
    bool expectedPatchError = false;
    // Compared when async preemption is disabled: "" is Success, otherwise an Error with this message.
    std::string expectedStatus;
    // Compared when async preemption is enabled.
    std::set<std::string> expectedPreemptingMap;
    std::vector<std::string> expectedActivatedPods;
  };
  const std::vector<Case> cases = {
      {.name = "no victims", .candidate = candidate("", {}), .testPods = {victim1}},
      {.name = "one victim without condition",
       .candidate = candidate(node1Name, {victim1}),
       .testPods = {victim1},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "podgroup preemptor, one victim without condition",
       .candidate = candidate(node1Name, {victim1}),
       .preemptorPodGroup = &podGroupPreemptor,
       .testPods = {victim1},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"pg1"}},
      {.name = "one victim, but victim is already being deleted",
       .candidate = candidate(node1Name, {victimWithDeletionTimestamp}),
       .testPods = {victimWithDeletionTimestamp}},
      {.name = "one victim, but victim is already deleted",
       .candidate = candidate(node1Name, {notFoundVictim1}),
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "one victim with same condition",
       .candidate = candidate(node1Name, {victim1WithMatchingCondition}),
       .testPods = {victim1WithMatchingCondition},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "one victim, not-found victim error is ignored when patching",
       .candidate = candidate(node1Name, {victim1WithMatchingCondition}),
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "one victim, but pod deletion failed",
       .candidate = candidate(node1Name, {failVictim1WithMatchingCondition}),
       .expectedDeletionError = true,
       .expectedStatus = errDeletePodFailed,
       .expectedPreemptingMap = {"preemptor"},
       .expectedActivatedPods = {"preemptor"}},
      {.name = "podgroup preemptor, one victim, but pod deletion failed",
       .candidate = candidate(node1Name, {failVictim1WithMatchingPodGroupCondition}),
       .preemptorPodGroup = &podGroupPreemptor,
       .expectedDeletionError = true,
       .expectedStatus = errDeletePodFailed,
       .expectedPreemptingMap = {"pg1"},
       .expectedActivatedPods = {"preemptor"}},
      {.name = "one victim, not-found victim error is ignored when deleting",
       .candidate = candidate(node1Name, {victim1}),
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "one victim, but patch pod failed",
       .candidate = candidate(node1Name, {failVictim}),
       .expectedPatchError = true,
       .expectedStatus = errPatchStatusFailed,
       .expectedPreemptingMap = {"preemptor"},
       .expectedActivatedPods = {"preemptor"}},
      {.name = "two victims without condition, one passes successfully and the second fails",
       .candidate = candidate(node1Name, {failVictim, victim2}),
       .testPods = {victim1},
       // The first victim could fail before the deletion of the second victim happens, which results
       // in the second victim not being deleted.
       .expectedDeletedPod = {"victim2", ""},
       .expectedPatchError = true,
       .expectedStatus = errPatchStatusFailed,
       .expectedPreemptingMap = {"preemptor"},
       .expectedActivatedPods = {"preemptor"}},
      {.name = "metrics: podgroup preemptor with workload disruptions",
       .candidate = candidate(node1Name, {victim1}, 0, 2),
       .preemptorPodGroup = &podGroupPreemptor,
       .testPods = {victim1},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"pg1"}},
      {.name = "metrics: pod preemptor with PDB violations",
       .candidate = candidate(node1Name, {victim1}, 3),
       .testPods = {victim1},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"preemptor"}},
      {.name = "metrics: podgroup preemptor with PDB violations and disruptions",
       .candidate = candidate(node1Name, {victim1}, 1, 1),
       .preemptorPodGroup = &podGroupPreemptor,
       .testPods = {victim1},
       .expectedDeletedPod = {"victim1"},
       .expectedPreemptingMap = {"pg1"}},
  };

  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name + (asyncPreemptionEnabled ? " (async preemption)" : " (sync preemption)"));
    metrics::Metrics m;
    m.registerPodGroupMetrics();  // upstream's test registry has the workload metrics
    BlockingNominator nominator;
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = tc.testPods,
                      .nodes = {node(node1Name)},
                      .nominator = &nominator,
                      .metrics = &m});
    ASSERT_TRUE(env.ok());
    env.client().failDeleteFor("fail-victim", errDeletePodFailed);
    env.client().failPatchFor("fail-victim", errPatchStatusFailed);
    env.client().notFound("not-found-victim");
    auto e = newExecutor(env, asyncPreemptionEnabled);
    ScopeExit release([&] { nominator.release(); });
    const std::string preemptorType = tc.preemptorPodGroup != nullptr ? "podgroup" : "pod";
    const PreemptionMetrics before = preemptionMetrics(m, preemptorType);

    if (asyncPreemptionEnabled) {
      Status s = actuate(*e, tc.candidate, preemptor, tc.preemptorPodGroup, {preemptor});
      EXPECT_TRUE(s.isSuccess()) << s.toString();
      // The preempting set is written synchronously.
      EXPECT_EQ(e->preemptingForTest(), tc.expectedPreemptingMap);
      nominator.release();  // make the requests complete
    } else {
      nominator.release();  // no need to stop requests
      Status s = actuate(*e, tc.candidate, preemptor, tc.preemptorPodGroup, {preemptor});
      if (tc.expectedStatus.empty()) {
        EXPECT_TRUE(s.isSuccess()) << s.toString();
      } else {
        EXPECT_EQ(s.code(), Code::Error) << s.toString();
        EXPECT_EQ(s.message(), tc.expectedStatus);
      }
    }
    e->waitForAsyncPreemptions();

    // The preempting set is empty once the asynchronous preemption is done, in all cases.
    EXPECT_TRUE(e->preemptingForTest().empty()) << "expected no preempting pods";
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
    } else {
      bool found = false;
      for (const auto& name : tc.expectedDeletedPod) {
        if (deleted.contains(name) || (deleted.empty() && name.empty())) found = true;
      }
      EXPECT_TRUE(found) << "unexpected deleted pods: " << (deleted.empty() ? "none" : *deleted.begin());
    }

    // Upstream verifyPreemptionMetricsDelta.
    const PreemptionMetrics after = preemptionMetrics(m, preemptorType);
    const double numVictims = static_cast<double>(tc.candidate.victims.pods.size());
    if (tc.preemptorPodGroup != nullptr) {
      EXPECT_EQ(after.workloadVictimsCount - before.workloadVictimsCount, 1);
      EXPECT_EQ(after.workloadVictimsSum - before.workloadVictimsSum, numVictims);
      EXPECT_EQ(after.victimsCount - before.victimsCount, 0);
    } else {
      EXPECT_EQ(after.victimsCount - before.victimsCount, 1);
      EXPECT_EQ(after.victimsSum - before.victimsSum, numVictims);
      EXPECT_EQ(after.workloadVictimsCount - before.workloadVictimsCount, 0);
    }
    EXPECT_EQ(after.disruptionsCount - before.disruptionsCount,
              tc.candidate.numPodGroupDisruptions > 0 ? 1 : 0);
    EXPECT_EQ(after.disruptionsSum - before.disruptionsSum, tc.candidate.numPodGroupDisruptions);
    EXPECT_EQ(after.pdbViolations - before.pdbViolations,
              static_cast<double>(tc.candidate.victims.numPDBViolations));
  }
}

INSTANTIATE_TEST_SUITE_P(AsyncPreemption, PrepareCandidateTest, ::testing::Bool(), asyncPreemptionName);

// ---- TestPrepareCandidateAsyncSetsPreemptingSets ----

class PreemptingSetsTest : public ::testing::TestWithParam<PreemptorType> {};

// The preemptor (its UID) is in the preempting set while every victim is preempted; its last victim is
// registered just before it is preempted, after all the others; both are cleared at the end.
TEST_P(PreemptingSetsTest, AsyncPreemptionRegistersThePreemptorAndItsLastVictim) {
  const bool group = GetParam() == PreemptorType::PodGroup;
  auto victim = [](const std::string& name) {
    return MakePod()
        .name(name)
        .uid(name)
        .node("node1")
        .schedulerName(kDefaultSchedulerName)
        .priority(kMidPriority)
        .container(std::string(ks::testing::kPauseImage))
        .ptr();
  };
  const api::PodPtr victim1 = victim("victim1");
  const api::PodPtr victim2 = victim("victim2");
  const api::PodPtr preemptor = MakePod()
                                    .name("preemptor")
                                    .uid("preemptor")
                                    .schedulerName(kDefaultSchedulerName)
                                    .priority(kHighPriority)
                                    .container(std::string(ks::testing::kPauseImage))
                                    .ptr();
  const api::PodGroup pg = podGroup("pg1", "pg1");
  const std::string expectedPreemptorUid = group ? "pg1" : "preemptor";
  struct Case {
    std::string name;
    Candidate candidate;
    api::PodPtr lastVictim;
  };
  for (const Case& tc : std::vector<Case>{
           {"no victims", candidate("", {}), nullptr},
           {"one victim", candidate("node1", {victim1}), victim1},
           {"two victims", candidate("node1", {victim1, victim2}), victim2},
       }) {
    SCOPED_TRACE(tc.name);
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {victim1, victim2},
                      .nodes = {node("node1")}});
    ASSERT_TRUE(env.ok());
    auto e = newExecutor(env, true);
    // Counts the PreemptPod calls, checking the sets before each.
    std::atomic<int> calls = 0;
    const int victimCount = static_cast<int>(tc.candidate.victims.pods.size());
    e->setPreemptPodFunc([&](const Candidate& c, const ExecutorPreemptor& p, const api::Pod& v) {
      const int call = ++calls;
      EXPECT_TRUE(e->preemptingForTest().contains(expectedPreemptorUid))
          << "expected the preempting set to contain " << expectedPreemptorUid << " before preempting "
          << v.metadata.name;
      const auto last = e->lastVictimPendingForTest(expectedPreemptorUid);
      if (v.metadata.name == tc.lastVictim->metadata.name) {
        EXPECT_EQ(call, victimCount) << "the last victim is preempted last";
        EXPECT_EQ(last, tc.lastVictim->metadata.name) << "the last victim is registered (by its store key)";
      } else {
        EXPECT_LT(call, victimCount) << v.metadata.name << " is preempted before the last victim";
        EXPECT_FALSE(last.has_value()) << "no last victim is registered before the last victim";
      }
      return e->defaultPreemptPod(c, p, v);
    });
    EXPECT_TRUE(e->preemptingForTest().empty());
    ASSERT_TRUE(actuate(*e, tc.candidate, preemptor, group ? &pg : nullptr, {preemptor}).isSuccess());
    e->waitForAsyncPreemptions();
    EXPECT_FALSE(e->preemptingForTest().contains(expectedPreemptorUid));
    EXPECT_FALSE(e->lastVictimPendingForTest(expectedPreemptorUid).has_value());
    EXPECT_EQ(calls.load(), victimCount);
  }
}

INSTANTIATE_TEST_SUITE_P(Preemptor, PreemptingSetsTest,
                         ::testing::Values(PreemptorType::Pod, PreemptorType::PodGroup), preemptorTypeName);

// ---- TestAsyncPreemptionFailure ----

// The last victim is preempted only when all the others were; the preemptor (a group's members) is
// activated when the preemption failed.
TEST(ExecutorTest, AsyncPreemptionSkipsTheLastVictimAfterAFailureAndActivatesThePreemptor) {
  const std::string failVictimNamePrefix = "fail-victim";
  auto makePod = [](const std::string& name, int32_t priority) {
    return MakePod()
        .name(name)
        .uid(name)
        .node("node1")
        .schedulerName(kDefaultSchedulerName)
        .priority(priority)
        .container(std::string(ks::testing::kPauseImage))
        .ptr();
  };
  const api::PodPtr preemptor = makePod("preemptor", kHighPriority);
  auto victim = [&](const std::string& name) { return makePod(name, kMidPriority); };
  const api::PodGroup pg = podGroup("pg1", "");
  struct Case {
    std::string name;
    std::vector<api::PodPtr> victims;
    const api::PodGroup* preemptorPodGroup = nullptr;
    std::vector<api::PodPtr> preemptorPods;
    bool expectSuccessfulPreemption;
    bool expectPreemptionAttemptForLastVictim;
  };
  const std::vector<Case> cases = {
      {"Failure with a single victim", {victim(failVictimNamePrefix)}, nullptr, {}, false, true},
      {"Success with a single victim", {victim("victim1")}, nullptr, {}, true, true},
      {"Failure in first of three victims",
       {victim(failVictimNamePrefix), victim("victim2"), victim("victim3")},
       nullptr,
       {},
       false,
       false},
      {"Failure in second of three victims",
       {victim("victim1"), victim(failVictimNamePrefix), victim("victim3")},
       nullptr,
       {},
       false,
       false},
      {"Failure in first two of three victims",
       {victim(failVictimNamePrefix + "1"), victim(failVictimNamePrefix + "2"), victim("victim3")},
       nullptr,
       {},
       false,
       false},
      {"Failure in third of three victims",
       {victim("victim1"), victim("victim2"), victim(failVictimNamePrefix)},
       nullptr,
       {},
       false,
       true},
      {"Success with three victims",
       {victim("victim1"), victim("victim2"), victim("victim3")},
       nullptr,
       {},
       true,
       true},
      {"Failure with a single victim for pod group",
       {victim(failVictimNamePrefix)},
       &pg,
       {makePod("pod1", kHighPriority), makePod("pod2", kHighPriority)},
       false,
       true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<api::PodPtr> snapshotPods = {preemptor};
    snapshotPods.insert(snapshotPods.end(), tc.victims.begin(), tc.victims.end());
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = snapshotPods,
                      .nodes = {MakeNode().name("node1").ptr()}});
    ASSERT_TRUE(env.ok());
    for (const auto& v : tc.victims) {
      if (v->metadata.name.starts_with(failVictimNamePrefix)) {
        env.client().failDeleteFor(v->metadata.name, "delete pod failed");
      }
    }
    auto e = newExecutor(env, true);
    ASSERT_TRUE(actuate(*e, candidate("node1", tc.victims), preemptor, tc.preemptorPodGroup, tc.preemptorPods)
                    .isSuccess());
    e->waitForAsyncPreemptions();
    ASSERT_TRUE(e->preemptingForTest().empty());

    const std::set<std::string> attempted = env.client().deleteAttempts();
    const std::set<std::string> deleted = env.client().deletedPods();
    const std::string lastVictimName = tc.victims.back()->metadata.name;
    EXPECT_EQ(attempted.contains(lastVictimName), tc.expectPreemptionAttemptForLastVictim)
        << "last victim's preemption attempted";
    // The last victim's preemption is attempted if and only if all the preceding victims were preempted.
    bool precedingVictimsPreempted = true;
    for (size_t i = 0; i + 1 < tc.victims.size(); ++i) {
      const std::string& name = tc.victims[i]->metadata.name;
      if (!attempted.contains(name) || !deleted.contains(name)) precedingVictimsPreempted = false;
    }
    EXPECT_EQ(precedingVictimsPreempted, attempted.contains(lastVictimName));

    // The preemptor is activated if and only if the preemption failed.
    std::set<std::string> activated;
    for (const auto& p : env.activatedPods()) activated.insert(p->metadata.name);
    if (tc.preemptorPodGroup != nullptr) {
      std::set<std::string> want;
      for (const auto& p : tc.preemptorPods) want.insert(p->metadata.name);
      EXPECT_EQ(activated, want);
    } else {
      EXPECT_EQ(activated.contains("preemptor"), !tc.expectSuccessfulPreemption) << "preemptor activated";
    }
    EXPECT_EQ(deleted.contains(lastVictimName), tc.expectSuccessfulPreemption) << "last victim deleted";
  }
}

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
    const api::PodPtr victim =
        MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
    const api::PodPtr preemptor = MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).ptr();
    BlockingNominator nominator;
    nominator.setNominatedPods("node1", {PodInfo::create(pod)});
    nominator.release();
    FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                      .pods = {victim},
                      .nodes = {node("node1")},
                      .nominator = &nominator});
    ASSERT_TRUE(env.ok());
    auto e = newExecutor(env, asyncPreemptionEnabled);
    ASSERT_TRUE(e->actuatePodPreemption(candidate("node1", {victim}), preemptor).isSuccess());
    e->waitForAsyncPreemptions();

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

INSTANTIATE_TEST_SUITE_P(AsyncPreemption, RemoveNominatedNodeNameTest, ::testing::Bool(),
                         asyncPreemptionName);

// A pod group's candidate is the cluster: no pod is nominated to "cluster", so no nomination is cleared,
// while a pod's clears the lower-priority nominations on its node only.
TEST(ExecutorTest, PodGroupPreemptionClearsNoNominations) {
  const api::PodPtr nominated =
      MakePod().name("foo").uid("foo").priority(kMidPriority).nominatedNodeName("node1").ptr();
  const api::PodPtr victim =
      MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr member = MakePod().name("member").uid("member").priority(kHighPriority).ptr();
  api::PodGroup pg = podGroup("pg", "pg");
  pg.spec.priority = kHighPriority;
  BlockingNominator nominator;
  nominator.setNominatedPods("node1", {PodInfo::create(nominated)});
  nominator.release();
  FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                    .pods = {victim},
                    .nodes = {node("node1")},
                    .nominator = &nominator});
  ASSERT_TRUE(env.ok());
  auto e = newExecutor(env, false);
  ASSERT_TRUE(e->actuatePodGroupPreemption(candidate("cluster", {victim}), pg, {member}).isSuccess());
  EXPECT_EQ(env.client().patchedPods(), std::set<std::string>{"victim"});
  EXPECT_EQ(env.client().deletedPods(), std::set<std::string>{"victim"});
}

// ---- TestPreemptPod ----

// Holds every pod at Permit (upstream's waitingPermitPlugin).
class WaitingPermitPlugin final : public PermitPlugin {
 public:
  static constexpr std::string_view kName = "waitingPermitPlugin";
  std::string_view name() const override { return kName; }
  Status permit(CycleState&, const PodInfo&, const std::string&,
                std::chrono::milliseconds& timeout) override {
    timeout = std::chrono::seconds(10);
    return Status(Code::Wait);
  }
};

preemptiontesting::RegisteredPlugin waitingPermitPlugin() {
  return {std::string(WaitingPermitPlugin::kName),
          [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
            return std::unique_ptr<Plugin>(std::make_unique<WaitingPermitPlugin>());
          },
          {"Permit"}};
}

class PreemptPodTest : public ::testing::TestWithParam<PreemptorType> {};

// A victim in PreBind is cancelled and one waiting at Permit preempted, both in memory without API calls;
// any other is patched (DisruptionTarget naming the preemptor's type) and deleted. Each gets a Preempted
// event related to the preemptor's object, naming its type and UID.
TEST_P(PreemptPodTest, CancelsPreBindPreemptsWaitingPodsAndDeletesOthers) {
  const bool group = GetParam() == PreemptorType::PodGroup;
  const api::PodPtr preemptorPod = MakePod()
                                       .name("p")
                                       .namespace_("default")
                                       .uid("p")
                                       .schedulerName(kDefaultSchedulerName)
                                       .priority(kHighPriority)
                                       .ptr();
  const api::PodGroup pg = podGroup("pg", "pg-uid");
  const std::vector<api::PodPtr> preemptorPods = {
      MakePod().name("p1").uid("p1").schedulerName(kDefaultSchedulerName).priority(kHighPriority).ptr(),
      MakePod().name("p2").uid("p2").schedulerName(kDefaultSchedulerName).priority(kHighPriority).ptr()};
  const api::PodPtr victim = MakePod().name("v").namespace_("default").uid("v").priority(kMidPriority).ptr();
  const ExecutorPreemptor preemptor =
      group ? ExecutorPreemptor::forPodGroup(pg, preemptorPods) : ExecutorPreemptor::forPod(preemptorPod);
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
    FrameworkEnv env(
        {.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin(), permit}});
    ASSERT_TRUE(env.ok());
    std::shared_ptr<runtime::PodInPreBindImpl> inPreBind;
    if (tc.inPreBind) inPreBind = env.fw().addPodInPreBind("v");
    if (tc.waiting) {
      CycleState state;
      ASSERT_TRUE(env.fw().runPermitPlugins(state, *PodInfo::create(victim), "fake-node").isWait());
    }
    auto e = newExecutor(env, false);
    auto inMemory = e->preemptPod(candidate("fake-node", {}), preemptor, *victim);
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
      const auto patches = env.client().patches();
      ASSERT_EQ(patches.size(), 1u);
      ASSERT_TRUE(patches[0].patch.condition.has_value());
      EXPECT_EQ(patches[0].patch.condition->message, kDefaultSchedulerName +
                                                         ": preempting to accommodate a higher priority " +
                                                         (group ? "podgroup" : "pod"));
    } else {
      EXPECT_TRUE(env.client().patchedPods().empty());
      EXPECT_TRUE(env.client().deletedPods().empty());
    }
    const auto events = env.recorder().events();
    ASSERT_EQ(events.size(), 1u);
    const std::string who = group ? "podgroup pg-uid" : "pod p";
    EXPECT_EQ(events[0].note, tc.wantDeleted
                                  ? "Preempted by " + who + " on node fake-node"
                                  : "Preempted by " + who + " on node fake-node (in kube-scheduler memory).");
    EXPECT_EQ(events[0].regarding.name, "v");
    EXPECT_EQ(events[0].reason, "Preempted");
    EXPECT_EQ(events[0].action, "Preempting");
    ASSERT_TRUE(events[0].related.has_value());
    EXPECT_EQ(events[0].related->kind, group ? "PodGroup" : "Pod");
    EXPECT_EQ(events[0].related->apiVersion, group ? "scheduling.k8s.io/v1beta1" : "v1");
    EXPECT_EQ(events[0].related->name, group ? "pg" : "p");
    EXPECT_EQ(events[0].related->uid, group ? "pg-uid" : "p");
  }
}

INSTANTIATE_TEST_SUITE_P(Preemptor, PreemptPodTest,
                         ::testing::Values(PreemptorType::Pod, PreemptorType::PodGroup), preemptorTypeName);

// ---- TestPrepareCandidateAsyncActivatesPreemptorAfterLastVictimInMemoryPreemption ----

// A last victim preempted in memory sends no deletion event, so the preemptor's pods are activated (after
// its preempting state is cleared); an earlier one doesn't.
TEST(ExecutorTest, AsyncPreemptionActivatesThePreemptorWhenTheLastVictimIsPreemptedInMemory) {
  const api::PodPtr preemptorPod = MakePod().name("p").uid("p").priority(kHighPriority).ptr();
  const api::PodPtr secondPreemptorPod = MakePod().name("p2").uid("p2").priority(kHighPriority).ptr();
  const api::PodGroup pg = podGroup("pg", "pg");
  const api::PodPtr waitingVictim =
      MakePod().name("waiting-v").uid("waiting-v").priority(kMidPriority).node("node1").ptr();
  const api::PodPtr preBindVictim =
      MakePod().name("prebind-v").uid("prebind-v").priority(kMidPriority).node("node1").ptr();
  const api::PodPtr apiVictim =
      MakePod().name("api-v").uid("api-v").priority(kMidPriority).node("node1").ptr();
  struct Case {
    std::string name;
    std::vector<api::PodPtr> victimPods;
    api::PodPtr inMemoryVictim;
    bool addVictimToPrebind = false;
    bool addVictimToPrebindOnPreempt = false;
    bool addVictimToWaiting = false;
    const api::PodGroup* preemptorPodGroup = nullptr;
    std::vector<api::PodPtr> preemptorPods;
    bool wantPreemptorActivate = false;
  };
  const std::vector<Case> cases = {
      {.name = "last waiting pod",
       .victimPods = {waitingVictim},
       .inMemoryVictim = waitingVictim,
       .addVictimToWaiting = true,
       .wantPreemptorActivate = true},
      {.name = "last preBind pod",
       .victimPods = {preBindVictim},
       .inMemoryVictim = preBindVictim,
       .addVictimToPrebind = true,
       .wantPreemptorActivate = true},
      {.name = "last pod enters preBind during preemption",
       .victimPods = {preBindVictim},
       .inMemoryVictim = preBindVictim,
       .addVictimToPrebindOnPreempt = true,
       .wantPreemptorActivate = true},
      {.name = "last waiting pod after API-deleted victim",
       .victimPods = {apiVictim, waitingVictim},
       .inMemoryVictim = waitingVictim,
       .addVictimToWaiting = true,
       .wantPreemptorActivate = true},
      {.name = "last waiting pod for pod group",
       .victimPods = {waitingVictim},
       .inMemoryVictim = waitingVictim,
       .addVictimToWaiting = true,
       .preemptorPodGroup = &pg,
       .preemptorPods = {preemptorPod, secondPreemptorPod},
       .wantPreemptorActivate = true},
      {.name = "non-last waiting pod",
       .victimPods = {waitingVictim, apiVictim},
       .inMemoryVictim = waitingVictim,
       .addVictimToWaiting = true},
      {.name = "non-last preBind pod",
       .victimPods = {preBindVictim, apiVictim},
       .inMemoryVictim = preBindVictim,
       .addVictimToPrebind = true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    const preemptiontesting::RegisteredPlugin permit = waitingPermitPlugin();
    FrameworkEnv env(
        {.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin(), permit},
         .pods = tc.victimPods,
         .nodes = {MakeNode().name("node1").ptr()}});
    ASSERT_TRUE(env.ok());
    std::shared_ptr<runtime::PodInPreBindImpl> inPreBind;
    if (tc.addVictimToPrebind) inPreBind = env.fw().addPodInPreBind(tc.inMemoryVictim->metadata.uid);
    if (tc.addVictimToWaiting) {
      CycleState permitState;
      ASSERT_TRUE(
          env.fw().runPermitPlugins(permitState, *PodInfo::create(tc.inMemoryVictim), "node1").isWait());
    }
    auto e = newExecutor(env, true);
    const std::vector<api::PodPtr> preemptorPods =
        tc.preemptorPods.empty() ? std::vector<api::PodPtr>{preemptorPod} : tc.preemptorPods;
    const std::string preemptorUid =
        tc.preemptorPodGroup != nullptr ? tc.preemptorPodGroup->metadata.uid : "p";
    // Upstream's fakePodActivator: records the pods, and whether the preemptor was still preempting then.
    std::mutex mu;
    std::vector<api::PodPtr> activated;
    bool activatedWhilePreempting = false;
    env.fw().setPodActivator([&](const std::vector<api::PodPtr>& pods) {
      const bool preempting = e->preemptingForTest().contains(preemptorUid);
      std::lock_guard lock(mu);
      activated.insert(activated.end(), pods.begin(), pods.end());
      activatedWhilePreempting = activatedWhilePreempting || preempting;
    });
    if (tc.addVictimToPrebindOnPreempt) {
      e->setPreemptPodFunc([&](const Candidate& c, const ExecutorPreemptor& p, const api::Pod& v) {
        if (v.metadata.uid == tc.inMemoryVictim->metadata.uid)
          inPreBind = env.fw().addPodInPreBind(v.metadata.uid);
        return e->defaultPreemptPod(c, p, v);
      });
    }
    ASSERT_TRUE(actuate(*e, candidate("node1", tc.victimPods), preemptorPods.front(), tc.preemptorPodGroup,
                        preemptorPods)
                    .isSuccess());
    e->waitForAsyncPreemptions();
    EXPECT_TRUE(e->preemptingForTest().empty());
    std::lock_guard lock(mu);
    EXPECT_FALSE(activatedWhilePreempting)
        << "the preemptor was activated before its preempting state was cleared";
    std::set<std::string> activatedNames;
    for (const auto& p : activated) activatedNames.insert(p->metadata.name);
    std::set<std::string> want;
    if (tc.wantPreemptorActivate) {
      for (const auto& p : preemptorPods) want.insert(p->metadata.name);
    }
    EXPECT_EQ(activatedNames, want);
    if (tc.addVictimToPrebind || tc.addVictimToPrebindOnPreempt) {
      ASSERT_NE(inPreBind, nullptr);
      EXPECT_TRUE(inPreBind->cancellation().cancelled()) << "expected the preBind victim to be cancelled";
    }
  }
}

// ---- TestPreemptionExecutionDurationMetric ----

// scheduler_preemption_execution_duration_seconds{preemptor,result} is observed once per preemption,
// "success" or "error", synchronous or not.
TEST(ExecutorTest, ExecutionDurationIsObservedWithTheResult) {
  const api::PodPtr victim =
      MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr preemptor = MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).ptr();
  for (const bool async : {false, true}) {
    for (const bool injectDeletionError : {false, true}) {
      SCOPED_TRACE(std::string(injectDeletionError ? "error" : "success") + (async ? " (async)" : " (sync)"));
      metrics::Metrics m;
      m.registerPodGroupMetrics();
      FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                        .pods = {victim},
                        .nodes = {node("node1")},
                        .metrics = &m});
      ASSERT_TRUE(env.ok());
      if (injectDeletionError) env.client().failDeleteFor("victim", "delete failed");
      auto e = newExecutor(env, async);
      (void)e->actuatePodPreemption(candidate("node1", {victim}), preemptor);
      e->waitForAsyncPreemptions();
      const std::string text = m.scrape();
      const std::string result = injectDeletionError ? "error" : "success";
      EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_execution_duration_seconds_count",
                                      {{"preemptor", "pod"}, {"result", result}}),
                1);
      EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_execution_duration_seconds_count"), 1);
    }
  }
}

// Without registerPodGroupMetrics() (GenericWorkload off) the workload-aware series don't exist, while
// scheduler_preemption_victims is still observed for a pod.
TEST(ExecutorTest, WorkloadMetricsAreNotRecordedUnlessRegistered) {
  const api::PodPtr victim =
      MakePod().name("victim").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr preemptor = MakePod().name("preemptor").uid("preemptor").priority(kHighPriority).ptr();
  metrics::Metrics m;
  FrameworkEnv env({.plugins = {preemptiontesting::queueSortPlugin(), preemptiontesting::bindPlugin()},
                    .pods = {victim},
                    .nodes = {node("node1")},
                    .metrics = &m});
  ASSERT_TRUE(env.ok());
  auto e = newExecutor(env, false);
  ASSERT_TRUE(e->actuatePodPreemption(candidate("node1", {victim}, 2), preemptor).isSuccess());
  const std::string text = m.scrape();
  EXPECT_EQ(metrics::testing::sum(text, "scheduler_preemption_victims_count"), 1);
  for (const char* name :
       {"scheduler_preemption_execution_duration_seconds_count", "scheduler_preemption_pdb_violations_total",
        "scheduler_workload_preemption_victims_count"}) {
    EXPECT_TRUE(metrics::testing::find(text, name).empty()) << name;
  }
}

// ---- Beyond upstream's tables: the victim eviction against the in-memory API ----

// The DisruptionTarget condition is patched onto the victim, the victim is deleted and a Preempted event
// names the preemptor; a victim already gone (404 on delete) is not an error and gets no event.
TEST(ExecutorTest, PreemptPodPatchesDisruptionTargetDeletesVictimAndIgnoresAlreadyDeletedVictims) {
  const api::PodPtr victim =
      MakePod().name("victim").namespace_("default").uid("victim").node("node1").priority(kMidPriority).ptr();
  const api::PodPtr gone = MakePod()
                               .name("gone")
                               .namespace_("default")
                               .uid("gone")
                               .node("node2")
                               .priority(kMidPriority)
                               .conditions({disruptionTarget("pod")})
                               .ptr();
  const api::PodPtr preemptor = MakePod()
                                    .name("preemptor")
                                    .namespace_("default")
                                    .uid("preemptor")
                                    .schedulerName(kDefaultSchedulerName)
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
      auto e = newExecutor(env, async, "DefaultPreemption");
      ASSERT_TRUE(e->actuatePodPreemption(candidate(nodeName, {victimPod}), preemptor).isSuccess());
      e->waitForAsyncPreemptions();
      // A victim already gone is no error and needs no activation: PreEnqueue stops gating the preemptor
      // once its last victim is gone from the informer (isPodRunningPreemption), so the deletion event
      // that passed meanwhile is not lost.
      EXPECT_TRUE(env.activatedPods().empty());
      EXPECT_FALSE(e->isPodRunningPreemption("preemptor"));
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
}  // namespace ks::framework::preemption
