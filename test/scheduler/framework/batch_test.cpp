// Opportunistic batching in the framework runtime: upstream batch_test.go (TestBatchBasic,
// TestBatchRescore, TestBatchRescoreChain), framework_test.go's TestRunRawScorePlugins and
// TestNormalizeScores, and schedule_one_test.go's TestSignatures (Framework::signPod).
#include "pkg/scheduler/framework/runtime/batch.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/scheduler/framework/test_pods.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::framework::runtime {
namespace {

using namespace std::chrono_literals;

constexpr const char* kQueueSort = "queue-sort";
constexpr const char* kBind = "bind";

Status plainError(const std::string& msg) {
  return Status::error(msg);
}

class QueueSortOnly final : public QueueSortPlugin {
 public:
  std::string_view name() const override { return kQueueSort; }
  bool less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }
};

class BindOnly final : public BindPlugin {
 public:
  std::string_view name() const override { return kBind; }
  Status bind(CycleState&, const PodInfo&, const std::string&) override { return {}; }
};

// Upstream's nodeInfoLister / sharedLister: the node infos a test sets.
class TestLister final : public SharedLister, public NodeInfoLister, public StorageInfoLister {
 public:
  const NodeInfoLister& nodeInfos() const override { return *this; }
  const StorageInfoLister& storageInfos() const override { return *this; }
  const std::vector<NodeInfoPtr>& list() const override { return nodes; }
  const std::vector<NodeInfoPtr>& havePodsWithAffinityList() const override { return nodes; }
  const std::vector<NodeInfoPtr>& havePodsWithRequiredAntiAffinityList() const override { return nodes; }
  Result<NodeInfoPtr> get(std::string_view name) const override {
    for (const auto& n : nodes) {
      if (n->nodeName() == name) return n;
    }
    return Error("unable to find node: " + std::string(name));
  }
  bool isPVCUsedByPods(std::string_view) const override { return false; }

  std::vector<NodeInfoPtr> nodes;
};

// Upstream BatchTestPlugin: a node holds at most one pod whose UID starts with 'b' (blocking).
constexpr char kBlockingPrefix = 'b';
std::string blockingPodID(const std::string& suffix) {
  return std::string(1, kBlockingPrefix) + "-" + suffix;
}
std::string nonBlockingPodID(const std::string& suffix) {
  return "a-" + suffix;
}

class BatchTestPlugin final : public FilterPlugin {
 public:
  std::string_view name() const override { return "batchTest"; }
  Status filter(CycleState&, const PodInfo& pod, const NodeInfo& nodeInfo) override {
    for (const auto& p : nodeInfo.pods()) {
      if (pod.pod().metadata.uid[0] == kBlockingPrefix && p->pod().metadata.uid[0] == kBlockingPrefix) {
        return Status(Code::Unschedulable, "unsched");
      }
    }
    return {};
  }
};

struct FilterConfig {
  bool filterErr = false;
};
class ConfigurableFilter final : public FilterPlugin {
 public:
  explicit ConfigurableFilter(const FilterConfig& c) : c_(c) {}
  std::string_view name() const override { return "configurableFilter"; }
  Status filter(CycleState&, const PodInfo&, const NodeInfo&) override {
    return c_.filterErr ? plainError("injected filter error") : Status();
  }

 private:
  const FilterConfig& c_;
};

// The node names PreScore saw, so that NormalizeScore can check it runs over the same set.
struct PreScoreSeenNodes final : StateData {
  std::set<std::string> names;
  std::unique_ptr<StateData> clone() const override { return std::make_unique<PreScoreSeenNodes>(*this); }
};

struct ScoreConfig {
  int64_t score = 0;
  bool preScoreErr = false;
  bool scoreErr = false;
  bool normErr = false;
};
class ConfigurableScore final : public PreScorePlugin, public ScorePlugin, public ScoreExtensions {
 public:
  explicit ConfigurableScore(const ScoreConfig& c) : c_(c) {}
  std::string_view name() const override { return "configurableScore"; }
  Status preScore(CycleState& state, const PodInfo&, std::span<const NodeInfoPtr> nodes) override {
    if (c_.preScoreErr) return plainError("injected prescore error");
    auto seen = std::make_unique<PreScoreSeenNodes>();
    for (const auto& n : nodes) seen->names.insert(n->nodeName());
    state.write(std::move(seen));
    return {};
  }
  Status score(CycleState&, const PodInfo&, const NodeInfo&, int64_t& s) override {
    if (c_.scoreErr) return plainError("injected score error");
    s = c_.score;
    return {};
  }
  ScoreExtensions* scoreExtensions() override { return this; }
  Status normalizeScore(CycleState& state, const PodInfo&, NodeScoreList& scores) override {
    if (c_.normErr) return plainError("injected normalize error");
    const auto* seen = state.read<PreScoreSeenNodes>();
    if (seen == nullptr) return plainError("NormalizeScore: missing PreScore state");
    for (const auto& s : scores) {
      if (!seen->names.contains(s.name)) {
        return plainError("NormalizeScore called for node \"" + s.name +
                          "\" which was not passed to PreScore");
      }
    }
    return {};
  }

 private:
  const ScoreConfig& c_;
};

config::PluginSet enabled(std::vector<config::Plugin> ps) {
  return config::PluginSet{std::move(ps), {}};
}

template <class P, class... Args>
PluginFactory factoryOf(Args&... args) {
  return [&args...](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<P>(args...));
  };
}

// Upstream newBatchTestFramework.
struct BatchTestFramework {
  TestLister lister;
  testing::FakeClock clock;
  metrics::Metrics metrics;
  std::unique_ptr<Framework> fw;

  BatchTestFramework(ScoreConfig* scorePl, FilterConfig* filterPl) {
    Registry r;
    EXPECT_TRUE(r.registerPlugin(kQueueSort, factoryOf<QueueSortOnly>()).ok());
    EXPECT_TRUE(r.registerPlugin(kBind, factoryOf<BindOnly>()).ok());
    EXPECT_TRUE(r.registerPlugin("batchTest", factoryOf<BatchTestPlugin>()).ok());
    config::KubeSchedulerProfile p;
    p.schedulerName = "default-scheduler";
    p.plugins.queueSort = enabled({{kQueueSort, 0}});
    p.plugins.bind = enabled({{kBind, 0}});
    p.plugins.filter = enabled({{"batchTest", 0}});
    if (filterPl != nullptr) {
      EXPECT_TRUE(r.registerPlugin("configurableFilter", factoryOf<ConfigurableFilter>(*filterPl)).ok());
      p.plugins.filter.enabled.push_back({"configurableFilter", 0});
    }
    if (scorePl != nullptr) {
      EXPECT_TRUE(r.registerPlugin("configurableScore", factoryOf<ConfigurableScore>(*scorePl)).ok());
      p.plugins.preScore = enabled({{"configurableScore", 0}});
      p.plugins.score = enabled({{"configurableScore", 1}});
    }
    FrameworkOptions o;
    o.snapshotSharedLister = &lister;
    o.clock = &clock;
    o.metrics = &metrics;
    o.parallelizer = std::make_shared<parallelize::Parallelizer>(2);
    auto f = Framework::create(r, p, std::move(o));
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message());
    if (f.ok()) fw = std::move(f).value();
  }
  OpportunisticBatch& batch() { return *fw->batchForTest(); }
};

PodSignature sig(const std::string& s) {
  return std::make_shared<const std::string>(s);
}

PodInfoPtr podWithUID(const std::string& name, const std::string& uid, const std::string& nominated = "") {
  testing::PodSpecBuilder b(name, uid);
  b.pod.status.nominatedNodeName = nominated;
  return PodInfo::create(b.build());
}

NodeInfoPtr nodeWithPods(const std::string& name, const std::vector<api::PodPtr>& pods = {}) {
  auto ni = std::make_shared<NodeInfo>(pods);
  ni->setNode(testing::makeNode(name));
  return ni;
}

// Upstream newTestNodes: nodes that pop in the given order.
std::optional<SortedScoredNodes> testNodes(const std::vector<std::string>& names) {
  std::vector<NodePluginScores> scores;
  for (std::size_t i = 0; i < names.size(); ++i) {
    NodePluginScores n;
    n.name = names[i];
    n.totalScore = static_cast<int64_t>(names.size() - i);
    scores.push_back(std::move(n));
  }
  return SortedScoredNodes(std::move(scores));
}

std::vector<std::string> popAll(SortedScoredNodes& nodes) {
  std::vector<std::string> out;
  while (nodes.size() > 0) out.push_back(nodes.pop().name);
  return out;
}

// Upstream TestBatchBasic: the batch after a first pod, and how it serves a second one.
TEST(OpportunisticBatchTest, Basic) {
  struct Case {
    std::string name;
    std::string firstPodID;
    std::string firstSig;
    bool firstPodScheduledSuccessfully = false;
    std::string firstChosenNode;
    std::optional<std::vector<std::string>> firstOtherNodes;  // nullopt: upstream's nil list
    bool sameCycle = false;                                   // both pods in one pod-group cycle
    bool skipPod = false;                                     // another profile's pod in between
    std::string secondPodID;
    std::string secondPodNominatedNodeName;
    std::string secondSig;
    std::string secondChosenNode;
    bool genericWorkloadEnabled = false;
    std::string expectedHint;
    std::optional<std::vector<std::string>> expectedState;  // remaining nodes; nullopt: empty
  };
  const std::vector<Case> cases = {
      {.name = "a second pod with the same signature gets a hint",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .expectedHint = "n1"},
      {.name = "a second pod with a different signature doesn't get a hint",
       .firstPodID = nonBlockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .secondPodID = nonBlockingPodID("2"),
       .secondSig = "sig2",
       .secondChosenNode = "n1",
       .expectedHint = ""},
      {.name = "pod doesn't get hint if previous pod didn't scheduled",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = false,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .expectedHint = ""},
      {.name = "empty list",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{},
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n4",
       .expectedHint = ""},
      {.name = "nil list",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::nullopt,
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n4",
       .expectedHint = ""},
      {.name = "pod doesn't get hint because the previous pod is to a different profile",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .skipPod = true,
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .expectedHint = ""},
      {.name = "pod doesn't use batch from preceding pod when they are from the same cycle state, but "
               "GenericWorkload is disabled",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .sameCycle = true,
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .genericWorkloadEnabled = false,
       .expectedHint = ""},
      {.name =
           "pod uses batch from preceding pod when they are from the same cycle state and GenericWorkload "
           "is enabled",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .sameCycle = true,
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .genericWorkloadEnabled = true,
       .expectedHint = "n1"},
      {.name = "pod uses batch from preceding pod and leaves remaining batch to next pod",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1", "n2"},
       .secondPodID = blockingPodID("2"),
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .expectedHint = "n1",
       .expectedState = std::vector<std::string>{"n2"}},
      {.name = "a second pod with a nominated node does not get a hint",
       .firstPodID = blockingPodID("1"),
       .firstSig = "sig",
       .firstPodScheduledSuccessfully = true,
       .firstChosenNode = "n3",
       .firstOtherNodes = std::vector<std::string>{"n1"},
       .secondPodID = blockingPodID("2"),
       .secondPodNominatedNodeName = "n1",
       .secondSig = "sig",
       .secondChosenNode = "n1",
       .expectedHint = ""},
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    BatchTestFramework t(nullptr, nullptr);
    ASSERT_TRUE(t.fw);
    OpportunisticBatch batch(*t.fw, tt.genericWorkloadEnabled);
    CycleState state;

    // The first pod.
    PodInfoPtr pod = podWithUID("pod", tt.firstPodID);
    std::string hint = batch.getNodeHint(*pod, sig(tt.firstSig), state, 1);
    ASSERT_EQ(hint, "");
    if (tt.firstPodScheduledSuccessfully) {
      batch.storeScheduleResults(sig(tt.firstSig), hint, tt.firstChosenNode,
                                 tt.firstOtherNodes ? testNodes(*tt.firstOtherNodes) : std::nullopt, 1);
    }
    const int64_t cycleCount = tt.skipPod ? 3 : tt.sameCycle ? 1 : 2;

    // The second pod; the first one runs on the node it was given.
    PodInfoPtr pod2 = podWithUID("pod2", tt.secondPodID, tt.secondPodNominatedNodeName);
    t.lister.nodes = {nodeWithPods(tt.firstChosenNode, {pod->podPtr()})};
    hint = batch.getNodeHint(*pod2, sig(tt.secondSig), state, cycleCount);
    EXPECT_EQ(hint, tt.expectedHint);
    batch.storeScheduleResults(sig(tt.secondSig), hint, tt.secondChosenNode, std::nullopt, cycleCount);

    SortedScoredNodes* remaining = batch.stateNodesForTest();
    const bool batchEmpty = remaining == nullptr || remaining->size() == 0;
    EXPECT_EQ(batchEmpty, !tt.expectedState.has_value());
    if (tt.expectedState && !batchEmpty) {
      EXPECT_EQ(**batch.stateSignatureForTest(), "sig");
      EXPECT_EQ(popAll(*remaining), *tt.expectedState);
    }
  }
}

// Upstream TestBatchRescore: the previously chosen node n2 still fits and is scored again against the
// cached n1 (cached score 50).
TEST(OpportunisticBatchTest, Rescore) {
  constexpr int64_t kN1CachedScore = 50;
  struct Case {
    std::string name;
    int64_t score = 0;  // n2's fresh score
    bool filterErr = false;
    bool preScoreErr = false;
    bool scoreErr = false;
    bool normErr = false;
    bool chosenNodeMissing = false;
    bool cachedNodeMissing = false;
    std::string expectedHint;
    std::vector<std::string> expectedRemainingNodes;
    std::string wantFlush;  // the batch_cache_flushed_total reason, if any
  };
  const std::vector<Case> cases = {
      {.name = "rescored node wins", .score = 100, .expectedHint = "n2", .expectedRemainingNodes = {"n1"}},
      {.name = "rescored node loses", .score = 10, .expectedHint = "n1", .expectedRemainingNodes = {"n2"}},
      {.name = "filter error gives no hint",
       .score = 100,
       .filterErr = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "filter_error"},
      {.name = "prescore error gives no hint",
       .preScoreErr = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "prescore_error"},
      {.name = "score error gives no hint",
       .scoreErr = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "rescore_error"},
      {.name = "normalize error gives no hint",
       .normErr = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "normalize_error"},
      {.name = "chosen node missing from lister gives no hint",
       .chosenNodeMissing = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "node_missing"},
      {.name = "cached node missing from lister gives no hint",
       .score = 100,
       .cachedNodeMissing = true,
       .expectedRemainingNodes = {"n1"},
       .wantFlush = "node_missing"},
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    ScoreConfig scorePl{tt.score, tt.preScoreErr, tt.scoreErr, tt.normErr};
    FilterConfig filterPl{tt.filterErr};
    BatchTestFramework t(&scorePl, &filterPl);
    ASSERT_TRUE(t.fw);
    OpportunisticBatch& batch = t.batch();

    // The first pod (non-blocking) took n2; n1 is the other candidate.
    PodInfoPtr pod1 = podWithUID("pod1", nonBlockingPodID("1"));
    NodePluginScores n1;
    n1.name = "n1";
    n1.rawScores = {PluginScore{"configurableScore", kN1CachedScore}};
    CycleState state1;
    EXPECT_EQ(batch.getNodeHint(*pod1, sig("sig"), state1, 1), "");
    batch.storeScheduleResults(sig("sig"), "", "n2", SortedScoredNodes({n1}), 1);

    if (!tt.chosenNodeMissing) {
      NodeInfoPtr n2Info = nodeWithPods("n2", {pod1->podPtr()});
      if (tt.cachedNodeMissing) {
        t.lister.nodes = {n2Info};
      } else {
        t.lister.nodes = {nodeWithPods("n1"), n2Info};
      }
    }
    PodInfoPtr pod2 = podWithUID("pod2", nonBlockingPodID("2"));
    CycleState state2;
    EXPECT_EQ(batch.getNodeHint(*pod2, sig("sig"), state2, 2), tt.expectedHint);
    // The rescore ran on a copy: the pod's own state has no PreScore data.
    EXPECT_EQ(state2.read<PreScoreSeenNodes>(), nullptr);

    ASSERT_NE(batch.stateNodesForTest(), nullptr);
    EXPECT_EQ(popAll(*batch.stateNodesForTest()), tt.expectedRemainingNodes);

    const std::string text = t.metrics.scrape();
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_batch_cache_flushed_total",
                                    {{"profile", "default-scheduler"}}),
              tt.wantFlush.empty() ? 0 : 1);
    if (!tt.wantFlush.empty()) {
      EXPECT_EQ(metrics::testing::sum(text, "scheduler_batch_cache_flushed_total",
                                      {{"profile", "default-scheduler"}, {"reason", tt.wantFlush}}),
                1);
    }
    const bool rescored = !tt.filterErr && !tt.chosenNodeMissing;
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_batch_rescore_attempts_total",
                                    {{"profile", "default-scheduler"}}),
              rescored ? 1 : 0);
  }
}

// Upstream TestBatchRescoreChain: the rescore runs in each of three cycles and the batch stays intact.
TEST(OpportunisticBatchTest, RescoreChain) {
  ScoreConfig scorePl{100};  // n2 always beats n1's 50
  BatchTestFramework t(&scorePl, nullptr);
  ASSERT_TRUE(t.fw);
  OpportunisticBatch& batch = t.batch();

  PodInfoPtr pod1 = podWithUID("pod1", nonBlockingPodID("1"));
  NodePluginScores n1;
  n1.name = "n1";
  n1.rawScores = {PluginScore{"configurableScore", 50}};
  CycleState s1;
  EXPECT_EQ(batch.getNodeHint(*pod1, sig("sig"), s1, 1), "");
  batch.storeScheduleResults(sig("sig"), "", "n2", SortedScoredNodes({n1}), 1);
  t.lister.nodes = {nodeWithPods("n1"), nodeWithPods("n2", {pod1->podPtr()})};

  PodInfoPtr pod2 = podWithUID("pod2", nonBlockingPodID("2"));
  CycleState s2;
  const std::string hint2 = batch.getNodeHint(*pod2, sig("sig"), s2, 2);
  EXPECT_EQ(hint2, "n2");
  batch.storeScheduleResults(sig("sig"), hint2, "n2", std::nullopt, 2);

  PodInfoPtr pod3 = podWithUID("pod3", nonBlockingPodID("3"));
  CycleState s3;
  EXPECT_EQ(batch.getNodeHint(*pod3, sig("sig"), s3, 3), "n2");
  ASSERT_NE(batch.stateNodesForTest(), nullptr);
  EXPECT_EQ(popAll(*batch.stateNodesForTest()), std::vector<std::string>{"n1"});
  EXPECT_EQ(batch.batchedPodsForTest(), 1);
}

// maxBatchAge on the scheduler's clock: a batch older than 500 ms serves no pod.
TEST(OpportunisticBatchTest, ExpiresAfterMaxBatchAge) {
  for (auto age : {500ms, 501ms}) {
    SCOPED_TRACE(age.count());
    BatchTestFramework t(nullptr, nullptr);
    ASSERT_TRUE(t.fw);
    OpportunisticBatch& batch = t.batch();
    PodInfoPtr pod1 = podWithUID("pod1", blockingPodID("1"));
    CycleState s1;
    EXPECT_EQ(batch.getNodeHint(*pod1, sig("sig"), s1, 1), "");
    batch.storeScheduleResults(sig("sig"), "", "n3", testNodes({"n1", "n2"}), 1);
    t.lister.nodes = {nodeWithPods("n3", {pod1->podPtr()})};
    t.clock.step(age);
    PodInfoPtr pod2 = podWithUID("pod2", blockingPodID("2"));
    CycleState s2;
    const bool expired = age > kMaxBatchAge;
    EXPECT_EQ(batch.getNodeHint(*pod2, sig("sig"), s2, 2), expired ? "" : "n1");
    const std::string text = t.metrics.scrape();
    EXPECT_EQ(metrics::testing::sum(text, "scheduler_batch_cache_flushed_total",
                                    {{"profile", "default-scheduler"}, {"reason", "expired"}}),
              expired ? 1 : 0);
  }
}

// The attempt results and store metrics of a hint that is taken, one that is not, and no hint.
TEST(OpportunisticBatchTest, AttemptMetrics) {
  BatchTestFramework t(nullptr, nullptr);
  ASSERT_TRUE(t.fw);
  OpportunisticBatch& batch = t.batch();
  PodInfoPtr pod1 = podWithUID("pod1", blockingPodID("1"));
  CycleState s;
  EXPECT_EQ(batch.getNodeHint(*pod1, sig("sig"), s, 1), "");  // no batch yet: no_hint
  batch.storeScheduleResults(sig("sig"), "", "n3", testNodes({"n1", "n2"}), 1);
  t.lister.nodes = {nodeWithPods("n3", {pod1->podPtr()})};
  PodInfoPtr pod2 = podWithUID("pod2", blockingPodID("2"));
  EXPECT_EQ(batch.getNodeHint(*pod2, sig("sig"), s, 2), "n1");
  batch.storeScheduleResults(sig("sig"), "n1", "n1", std::nullopt, 2);  // hint_used
  t.lister.nodes = {nodeWithPods("n1", {pod2->podPtr()})};
  PodInfoPtr pod3 = podWithUID("pod3", blockingPodID("3"));
  EXPECT_EQ(batch.getNodeHint(*pod3, sig("sig"), s, 3), "n2");
  batch.storeScheduleResults(nullptr, "n2", "n4", testNodes({"n5"}), 3);  // hint_not_used, not batchable

  const std::string text = t.metrics.scrape();
  auto attempts = [&](const std::string& result) {
    return metrics::testing::sum(text, "scheduler_batch_attempts_total",
                                 {{"profile", "default-scheduler"}, {"result", result}});
  };
  EXPECT_EQ(attempts("no_hint"), 1);
  EXPECT_EQ(attempts("hint_used"), 1);
  EXPECT_EQ(attempts("hint_not_used"), 1);
  EXPECT_EQ(metrics::testing::sum(text, "scheduler_batch_cache_flushed_total",
                                  {{"profile", "default-scheduler"}, {"reason", "pod_not_batchable"}}),
            1);
  EXPECT_EQ(metrics::testing::sum(text, "scheduler_get_node_hint_duration_seconds_count",
                                  {{"hinted", "hint"}, {"profile", "default-scheduler"}}),
            2);
  EXPECT_EQ(metrics::testing::sum(text, "scheduler_get_node_hint_duration_seconds_count",
                                  {{"hinted", "no_hint"}, {"profile", "default-scheduler"}}),
            1);
  EXPECT_EQ(metrics::testing::sum(text, "scheduler_store_schedule_results_duration_seconds_count",
                                  {{"profile", "default-scheduler"}}),
            3);
  EXPECT_EQ(batch.stateNodesForTest(), nullptr);
}

// ---- Raw scores and NormalizeScores (upstream framework_test.go) ----

constexpr const char* kScorePlugin1 = "score-plugin-1";
constexpr const char* kScoreWithNormalize1 = "score-with-normalize-plugin-1";
constexpr const char* kScoreWithNormalize2 = "score-with-normalize-plugin-2";

struct Injected {
  int64_t scoreRes = 0;
  int64_t normalizeRes = 0;
  bool scoreErr = false;
  bool normalizeErr = false;
};

class InjectedScore final : public ScorePlugin, public ScoreExtensions {
 public:
  InjectedScore(std::string name, bool normalizes, const Injected& inj)
      : name_(std::move(name)), normalizes_(normalizes), inj_(inj) {}
  std::string_view name() const override { return name_; }
  Status score(CycleState&, const PodInfo&, const NodeInfo&, int64_t& s) override {
    s = inj_.scoreRes;
    return inj_.scoreErr ? plainError("injected status") : Status();
  }
  ScoreExtensions* scoreExtensions() override { return normalizes_ ? this : nullptr; }
  Status normalizeScore(CycleState&, const PodInfo&, NodeScoreList& scores) override {
    for (auto& s : scores) s.score = inj_.normalizeRes;
    return inj_.normalizeErr ? plainError("injected status") : Status();
  }

 private:
  std::string name_;
  bool normalizes_;
  const Injected& inj_;
};

// A profile with the score plugins at upstream's default test weights (1, 1, 2).
struct ScoreFramework {
  std::map<std::string, Injected> injected{
      {kScorePlugin1, {}}, {kScoreWithNormalize1, {}}, {kScoreWithNormalize2, {}}};
  std::unique_ptr<Framework> fw;

  void create(const std::vector<std::string>& plugins) {
    Registry r;
    EXPECT_TRUE(r.registerPlugin(kQueueSort, factoryOf<QueueSortOnly>()).ok());
    EXPECT_TRUE(r.registerPlugin(kBind, factoryOf<BindOnly>()).ok());
    for (const auto& [name, inj] : injected) {
      const bool normalizes = name != kScorePlugin1;
      const Injected* i = &inj;
      EXPECT_TRUE(
          r.registerPlugin(
               name,
               [name, normalizes, i](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
                 return std::unique_ptr<Plugin>(std::make_unique<InjectedScore>(name, normalizes, *i));
               })
              .ok());
    }
    config::KubeSchedulerProfile p;
    p.plugins.queueSort = enabled({{kQueueSort, 0}});
    p.plugins.bind = enabled({{kBind, 0}});
    for (const auto& name : plugins)
      p.plugins.score.enabled.push_back({name, name == kScoreWithNormalize2 ? 2 : 1});
    FrameworkOptions o;
    o.parallelizer = std::make_shared<parallelize::Parallelizer>(2);
    auto f = Framework::create(r, p, std::move(o));
    ASSERT_TRUE(f.ok()) << f.error().message();
    fw = std::move(f).value();
  }
};

PodInfoPtr testPod() {
  return PodInfo::create(testing::PodSpecBuilder("pod", "pod-uid").build());
}

TEST(FrameworkScoreTest, RunRawScorePlugins) {
  struct Case {
    std::string name;
    std::vector<std::string> plugins;
    std::map<std::string, Injected> injected;
    std::string skipped;
    std::vector<PluginScore> want;
    bool err = false;
  };
  const std::vector<Case> cases = {
      {"no score plugins", {}, {}, "", {}},
      {"single plugin returns raw score without weighting",
       {kScorePlugin1},
       {{kScorePlugin1, {.scoreRes = 5}}},
       "",
       {{kScorePlugin1, 5}}},
      {"NormalizeScore is not run, only raw Score is returned",
       {kScoreWithNormalize1},
       {{kScoreWithNormalize1, {.scoreRes = 7, .normalizeRes = 99}}},
       "",
       {{kScoreWithNormalize1, 7}}},
      {"multiple plugins, scores are not weighted",
       {kScorePlugin1, kScoreWithNormalize1},
       {{kScorePlugin1, {.scoreRes = 3}}, {kScoreWithNormalize1, {.scoreRes = 4, .normalizeRes = 99}}},
       "",
       {{kScorePlugin1, 3}, {kScoreWithNormalize1, 4}}},
      {"score fails", {kScorePlugin1}, {{kScorePlugin1, {.scoreErr = true}}}, "", {}, true},
      {"skipped plugin is excluded from results",
       {kScorePlugin1, kScoreWithNormalize1},
       {{kScorePlugin1, {.scoreRes = 2}}, {kScoreWithNormalize1, {.scoreErr = true}}},
       kScoreWithNormalize1,
       {{kScorePlugin1, 2}}},
      {"all plugins skipped", {kScorePlugin1}, {}, kScorePlugin1, {}},
  };
  auto node = std::make_shared<NodeInfo>();
  node->setNode(testing::makeNode("testNode"));
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    ScoreFramework sf;
    for (const auto& [name, inj] : tt.injected) sf.injected[name] = inj;
    sf.create(tt.plugins);
    ASSERT_TRUE(sf.fw);
    CycleState state;
    if (!tt.skipped.empty()) {
      PluginNameSet skip;
      skip.insert(tt.skipped);
      state.setSkipScorePlugins(skip);
    }
    std::vector<PluginScore> got;
    Status s = sf.fw->runRawScorePlugins(state, *testPod(), *node, got);
    if (tt.err) {
      EXPECT_FALSE(s.isSuccess());
      continue;
    }
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    EXPECT_EQ(got, tt.want);
  }
}

TEST(FrameworkScoreTest, NormalizeScores) {
  auto nodeScores = [](std::string name, std::vector<PluginScore> raw, std::vector<PluginScore> scores = {},
                       int64_t total = 0) {
    NodePluginScores n;
    n.name = std::move(name);
    n.rawScores = std::move(raw);
    n.scores = std::move(scores);
    n.totalScore = total;
    return n;
  };
  struct Case {
    std::string name;
    std::vector<std::string> plugins;
    std::map<std::string, Injected> injected;
    std::string skipped;
    std::vector<NodePluginScores> input;
    std::vector<NodePluginScores> want;
    bool err = false;
  };
  const std::vector<Case> cases = {
      {"single plugin without NormalizeScore",
       {kScorePlugin1},
       {},
       "",
       {nodeScores("testNode", {{kScorePlugin1, 5}})},
       {nodeScores("testNode", {{kScorePlugin1, 5}}, {{kScorePlugin1, 5}}, 5)}},
      {"NormalizeScore overrides raw score",
       {kScoreWithNormalize1},
       {{kScoreWithNormalize1, {.scoreRes = 7, .normalizeRes = 20}}},
       "",
       {nodeScores("testNode", {{kScoreWithNormalize1, 7}})},
       {nodeScores("testNode", {{kScoreWithNormalize1, 7}}, {{kScoreWithNormalize1, 20}}, 20)}},
      {"weight is applied to normalized score",
       {kScoreWithNormalize2},
       {{kScoreWithNormalize2, {.normalizeRes = 10}}},
       "",
       {nodeScores("testNode", {{kScoreWithNormalize2, 5}})},
       {nodeScores("testNode", {{kScoreWithNormalize2, 5}}, {{kScoreWithNormalize2, 20}}, 20)}},
      {"multiple plugins across multiple nodes",
       {kScorePlugin1, kScoreWithNormalize1},
       {{kScoreWithNormalize1, {.normalizeRes = 8}}},
       "",
       {nodeScores("node1", {{kScorePlugin1, 3}, {kScoreWithNormalize1, 7}}),
        nodeScores("node2", {{kScorePlugin1, 5}, {kScoreWithNormalize1, 2}})},
       {nodeScores("node1", {{kScorePlugin1, 3}, {kScoreWithNormalize1, 7}},
                   {{kScorePlugin1, 3}, {kScoreWithNormalize1, 8}}, 11),
        nodeScores("node2", {{kScorePlugin1, 5}, {kScoreWithNormalize1, 2}},
                   {{kScorePlugin1, 5}, {kScoreWithNormalize1, 8}}, 13)}},
      {"no active plugins zeroes scores and TotalScore",
       {kScorePlugin1},
       {},
       kScorePlugin1,
       {nodeScores("testNode", {{kScorePlugin1, 5}}, {{kScorePlugin1, 9}}, 9)},
       {nodeScores("testNode", {{kScorePlugin1, 5}})}},
      {"unknown plugin name in RawScores is ignored",
       {kScorePlugin1},
       {},
       "",
       {nodeScores("testNode", {{kScorePlugin1, 5}, {"unknown-plugin", 99}})},
       {nodeScores("testNode", {{kScorePlugin1, 5}, {"unknown-plugin", 99}}, {{kScorePlugin1, 5}}, 5)}},
      {"normalize fails",
       {kScoreWithNormalize1},
       {{kScoreWithNormalize1, {.normalizeErr = true}}},
       "",
       {nodeScores("testNode", {{kScoreWithNormalize1, 3}})},
       {},
       true},
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    ScoreFramework sf;
    for (const auto& [name, inj] : tt.injected) sf.injected[name] = inj;
    sf.create(tt.plugins);
    ASSERT_TRUE(sf.fw);
    CycleState state;
    if (!tt.skipped.empty()) {
      PluginNameSet skip;
      skip.insert(tt.skipped);
      state.setSkipScorePlugins(skip);
    }
    std::vector<NodePluginScores> scores = tt.input;
    Status s = sf.fw->normalizeScores(state, *testPod(), scores);
    if (tt.err) {
      EXPECT_FALSE(s.isSuccess());
      continue;
    }
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    EXPECT_EQ(scores, tt.want);
  }
}

// RunScorePlugins keeps each node's scores before NormalizeScore and weights (upstream TestRunScorePlugins'
// RawScores).
TEST(FrameworkScoreTest, RunScorePluginsKeepsRawScores) {
  ScoreFramework sf;
  sf.injected[kScorePlugin1] = {.scoreRes = 1};
  sf.injected[kScoreWithNormalize1] = {.scoreRes = 3, .normalizeRes = 4};
  sf.injected[kScoreWithNormalize2] = {.scoreRes = 4, .normalizeRes = 5};
  sf.create({kScorePlugin1, kScoreWithNormalize1, kScoreWithNormalize2});
  ASSERT_TRUE(sf.fw);
  std::vector<NodeInfoPtr> nodes;
  for (const char* n : {"node1", "node2"}) {
    auto ni = std::make_shared<NodeInfo>();
    ni->setNode(testing::makeNode(n));
    nodes.push_back(ni);
  }
  CycleState state;
  std::vector<NodePluginScores> got;
  ASSERT_TRUE(sf.fw->runScorePlugins(state, *testPod(), nodes, got).isSuccess());
  ASSERT_EQ(got.size(), 2u);
  for (const auto& n : got) {
    EXPECT_EQ(n.rawScores, (std::vector<PluginScore>{
                               {kScorePlugin1, 1}, {kScoreWithNormalize1, 3}, {kScoreWithNormalize2, 4}}));
    EXPECT_EQ(n.scores, (std::vector<PluginScore>{
                            {kScorePlugin1, 1}, {kScoreWithNormalize1, 4}, {kScoreWithNormalize2, 10}}));
    EXPECT_EQ(n.totalScore, 15);
  }
}

// ---- Framework::signPod (upstream schedule_one_test.go TestSignatures) ----

struct ConstSigConfig {
  std::string name;
  std::vector<SignFragment> signature;
  Code status = Code::Success;
  std::string pluginType;  // filter, prefilter, score, prescore
};

class ConstSigPlugin final : public PreFilterPlugin,
                             public FilterPlugin,
                             public PreScorePlugin,
                             public ScorePlugin,
                             public SignPlugin {
 public:
  explicit ConstSigPlugin(const ConstSigConfig& c) : c_(c) {}
  std::string_view name() const override { return c_.name; }
  Status preFilter(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>, PreFilterResult&) override {
    return {};
  }
  PreFilterExtensions* preFilterExtensions() override { return nullptr; }
  Status filter(CycleState&, const PodInfo&, const NodeInfo&) override { return {}; }
  Status preScore(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>) override { return {}; }
  Status score(CycleState&, const PodInfo&, const NodeInfo&, int64_t& s) override {
    s = 0;
    return {};
  }
  ScoreExtensions* scoreExtensions() override { return nullptr; }
  Status signPod(const api::Pod&, std::vector<SignFragment>& fragments) override {
    if (c_.status != Code::Success) return Status(c_.status, "injected");
    fragments.insert(fragments.end(), c_.signature.begin(), c_.signature.end());
    return {};
  }

 private:
  const ConstSigConfig& c_;
};

// A filter plugin that can't sign pods.
class UnsignedFilter final : public FilterPlugin {
 public:
  std::string_view name() const override { return "Unsigned"; }
  Status filter(CycleState&, const PodInfo&, const NodeInfo&) override { return {}; }
};

std::unique_ptr<Framework> signingFramework(const std::vector<ConstSigConfig>& plugins, bool withUnsigned,
                                            FrameworkOptions o = {}) {
  Registry r;
  EXPECT_TRUE(r.registerPlugin(kQueueSort, factoryOf<QueueSortOnly>()).ok());
  EXPECT_TRUE(r.registerPlugin(kBind, factoryOf<BindOnly>()).ok());
  config::KubeSchedulerProfile p;
  p.schedulerName = "test-scheduler";
  p.plugins.queueSort = enabled({{kQueueSort, 0}});
  p.plugins.bind = enabled({{kBind, 0}});
  for (const auto& c : plugins) {
    EXPECT_TRUE(r.registerPlugin(c.name, factoryOf<ConstSigPlugin>(c)).ok());
    if (c.pluginType == "filter") p.plugins.filter.enabled.push_back({c.name, 0});
    if (c.pluginType == "prefilter") p.plugins.preFilter.enabled.push_back({c.name, 0});
    if (c.pluginType == "score") p.plugins.score.enabled.push_back({c.name, 1});
    if (c.pluginType == "prescore") p.plugins.preScore.enabled.push_back({c.name, 0});
  }
  if (withUnsigned) {
    EXPECT_TRUE(r.registerPlugin("Unsigned", factoryOf<UnsignedFilter>()).ok());
    p.plugins.filter.enabled.push_back({"Unsigned", 0});
  }
  if (!o.parallelizer) o.parallelizer = std::make_shared<parallelize::Parallelizer>(1);
  auto f = Framework::create(r, p, std::move(o));
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message());
  return f.ok() ? std::move(f).value() : nullptr;
}

TEST(FrameworkSignTest, Signatures) {
  struct Case {
    std::string name;
    std::vector<ConstSigConfig> plugins;
    std::optional<std::string> expected;  // nullopt: unsignable
  };
  const std::vector<Case> cases = {
      {"no plugins", {}, R"({"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"single filter",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "filter"}},
       R"({"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"single prefilter",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "prefilter"}},
       R"({"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"single score",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "score"}},
       R"({"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"single prescore",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "prescore"}},
       R"({"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"two plugins",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "filter"},
        {"ConstSig2", {{"test2", "17"}}, Code::Success, "score"}},
       R"({"test":16,"test2":17,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"plugin with multiple fragments",
       {{"ConstSig", {{"test", "16"}, {"test2", "17"}}, Code::Success, "filter"}},
       R"({"test":16,"test2":17,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"overlapping fragments",
       {{"ConstSig", {{"test", "16"}}, Code::Success, "filter"},
        {"ConstSig2", {{"test", "16"}}, Code::Success, "score"}},
       R"({"test":16,"v1.Pod.Spec.SchedulerName":"test-scheduler"})"},
      {"unsignable plugin", {{"ConstSig", {}, Code::Unschedulable, "filter"}}, std::nullopt},
      {"error plugin", {{"ConstSig", {}, Code::Error, "filter"}}, std::nullopt},
  };
  testing::PodSpecBuilder b("pod");
  b.pod.spec.schedulerName = "test-scheduler";
  const api::PodPtr pod = b.build();
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    auto fw = signingFramework(tt.plugins, false);
    ASSERT_TRUE(fw);
    EXPECT_TRUE(fw->signaturesEnabled());
    PodSignature s = fw->signPod(*pod);
    if (!tt.expected) {
      EXPECT_EQ(s, nullptr);
    } else {
      ASSERT_NE(s, nullptr);
      EXPECT_EQ(*s, *tt.expected);
    }
  }
}

// A PreFilter/Filter/PreScore/Score plugin that doesn't sign disables signatures for the profile (upstream
// computeBatchablePlugins); so does the gate.
TEST(FrameworkSignTest, UnsignedPluginOrGateOffSignsNothing) {
  testing::PodSpecBuilder b("pod");
  const api::PodPtr pod = b.build();
  std::vector<ConstSigConfig> plugins = {{"ConstSig", {{"test", "16"}}, Code::Success, "filter"}};
  auto fw = signingFramework(plugins, true);
  ASSERT_TRUE(fw);
  EXPECT_FALSE(fw->signaturesEnabled());
  EXPECT_EQ(fw->signPod(*pod), nullptr);
  ASSERT_NE(fw->batchForTest(), nullptr);

  FrameworkOptions off;
  off.enableOpportunisticBatching = false;
  fw = signingFramework(plugins, false, std::move(off));
  ASSERT_TRUE(fw);
  EXPECT_FALSE(fw->signaturesEnabled());
  EXPECT_EQ(fw->signPod(*pod), nullptr);
  EXPECT_EQ(fw->batchForTest(), nullptr);
  CycleState state;
  EXPECT_EQ(fw->getNodeHint(*PodInfo::create(pod), nullptr, state, 1), "");
}

// Sign is an extension point of its own in the duration metrics: always Success at the point, each plugin's
// own status per plugin, recorded on every call.
TEST(FrameworkSignTest, SignMetrics) {
  metrics::Metrics m;
  FrameworkOptions o;
  o.metrics = &m;
  std::vector<ConstSigConfig> plugins = {{"ConstSig", {}, Code::Unschedulable, "filter"},
                                         {"ConstSig2", {{"x", "1"}}, Code::Success, "score"}};
  auto fw = signingFramework(plugins, false, std::move(o));
  ASSERT_TRUE(fw);
  testing::PodSpecBuilder b("pod");
  const api::PodPtr pod = b.build();
  EXPECT_EQ(fw->signPod(*pod), nullptr);
  EXPECT_EQ(fw->signPod(*pod), nullptr);
  const std::string text = m.scrape();
  EXPECT_EQ(metrics::testing::sum(
                text, "scheduler_framework_extension_point_duration_seconds_count",
                {{"extension_point", "Sign"}, {"status", "Success"}, {"profile", "test-scheduler"}}),
            2);
  EXPECT_EQ(metrics::testing::sum(
                text, "scheduler_plugin_execution_duration_seconds_count",
                {{"plugin", "ConstSig"}, {"extension_point", "Sign"}, {"status", "Unschedulable"}}),
            2);
  // The first plugin that can't sign ends the signing.
  EXPECT_EQ(
      metrics::testing::sum(text, "scheduler_plugin_execution_duration_seconds_count",
                            {{"plugin", "ConstSig2"}, {"extension_point", "Sign"}, {"status", "Success"}}),
      0);
}

}  // namespace
}  // namespace ks::framework::runtime
