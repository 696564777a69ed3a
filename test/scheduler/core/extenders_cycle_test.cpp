// The scheduling cycle with extenders (upstream schedule_one.go's findNodesThatPassExtenders,
// prioritizeNodes and extendersBinding): upstream's TestSchedulerWithExtenders table (extender_test.go),
// run through the whole scheduler over the in-memory API, and the cycle's other extender behaviour
// (FitError with the extenders' reasons, the "Extender" rejector, ignoredByScheduler resources, signatures
// off, an ignorable extender that is down).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "pkg/client/memory/memory_client.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/scheduler.h"
#include "test/scheduler/fake_extender.h"
#include "test/scheduler/running_scheduler.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using namespace std::chrono_literals;
using framework::Code;
using framework::Status;
using ks::testing::MakeNode;
using ks::testing::MakePod;
using testing::FakeExtender;

class TrueFilterPlugin final : public framework::FilterPlugin {
 public:
  std::string_view name() const override { return "TrueFilter"; }
  Status filter(framework::CycleState&, const framework::PodInfo&, const framework::NodeInfo&) override {
    return Status();
  }
};

// tf.NewEqualPrioritizerPlugin / tf.NewNode2PrioritizerPlugin.
class FixedScorePlugin final : public framework::ScorePlugin {
 public:
  FixedScorePlugin(std::string name, int64_t node2Score, int64_t otherScore)
      : name_(std::move(name)), node2Score_(node2Score), otherScore_(otherScore) {}
  std::string_view name() const override { return name_; }
  Status score(framework::CycleState&, const framework::PodInfo&, const framework::NodeInfo& ni,
               int64_t& score) override {
    score = ni.nodeName() == "node2" ? node2Score_ : otherScore_;
    return Status();
  }
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }

 private:
  std::string name_;
  int64_t node2Score_, otherScore_;
};

class RecordingObserver final : public AttemptObserver {
 public:
  void onAttempt(const AttemptRecord& r) override {
    std::lock_guard lock(mu_);
    if (r.pod->metadata.name != "p") return;
    ++attempts_;
    if (first_) return;
    first_ = r;
    cv_.notify_all();
  }
  void onBindingDone(const api::Pod&, const std::string&, const Status&) override {}
  int attempts() {
    std::lock_guard lock(mu_);
    return attempts_;
  }
  std::optional<AttemptRecord> wait() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, 10s, [&] { return first_.has_value(); });
    return first_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<AttemptRecord> first_;
  int attempts_ = 0;
};

struct Registered {
  std::string name;
  std::string point;  // "filter" or "score"
  int32_t weight = 1;
};

std::string profileYaml(const std::vector<Registered>& plugins) {
  std::string filter, score;
  for (const auto& p : plugins) {
    if (p.point == "filter") filter += "        - name: " + p.name + "\n";
    if (p.point == "score") score += "        - name: " + p.name + "\n          weight: " + std::to_string(p.weight) + "\n";
  }
  std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  plugins:\n"
      "    multiPoint:\n      disabled:\n        - name: \"*\"\n"
      "    queueSort:\n      enabled:\n        - name: PrioritySort\n"
      "    bind:\n      enabled:\n        - name: DefaultBinder\n";
  if (!filter.empty()) yaml += "    filter:\n      enabled:\n" + filter;
  if (!score.empty()) yaml += "    score:\n      enabled:\n" + score;
  return yaml;
}

framework::runtime::Registry testRegistry() {
  framework::runtime::Registry registry = plugins::newInTreeRegistry();
  auto add = [&](const std::string& name, std::function<std::unique_ptr<framework::Plugin>()> make) {
    EXPECT_TRUE(registry
                    .registerPlugin(name,
                                    [make](const config::PluginArgs*,
                                           framework::Handle&) -> Result<std::unique_ptr<framework::Plugin>> {
                                      return make();
                                    })
                    .ok());
  };
  add("TrueFilter", [] { return std::make_unique<TrueFilterPlugin>(); });
  add("EqualPrioritizerPlugin", [] { return std::make_unique<FixedScorePlugin>("EqualPrioritizerPlugin", 1, 1); });
  add("Node2Prioritizer", [] { return std::make_unique<FixedScorePlugin>("Node2Prioritizer", 100, 10); });
  return registry;
}

struct Expected {
  std::string host;
  int evaluatedNodes = 0;
  int feasibleNodes = 0;
};

struct CycleRun {
  client::MemoryClient client;
  RecordingObserver observer;
  testing::RunningScheduler sched;

  std::optional<AttemptRecord> run(const std::string& yaml, const std::vector<framework::Extender*>& extenders,
                                   const std::vector<std::string>& nodes, api::Pod pod = MakePod().obj()) {
    for (const auto& n : nodes) EXPECT_TRUE(client.create(MakeNode().name(n).obj()).ok());
    auto cfg = config::decodeConfig(yaml);
    EXPECT_TRUE(cfg.ok()) << cfg.error().message();
    if (!cfg.ok()) return std::nullopt;
    SchedulerOptions opts;
    opts.observer = &observer;
    opts.extenders = extenders;
    sched.start(client, *cfg, testRegistry(), opts);
    pod.metadata.name = "p";
    pod.metadata.namespace_ = "default";
    pod.metadata.uid = "p-uid";
    EXPECT_TRUE(client.create(pod).ok());
    return observer.wait();
  }
};

// Upstream TestSchedulerWithExtenders.
TEST(SchedulerWithExtenders, UpstreamTable) {
  using testing::errorPredicateExtender;
  using testing::errorPrioritizerExtender;
  using testing::falsePredicateExtender;
  using testing::node1PredicateExtender;
  using testing::node1PrioritizerExtender;
  using testing::node2PredicateExtender;
  using testing::node2PrioritizerExtender;
  using testing::truePredicateExtender;
  auto ext = [](std::string name, std::vector<testing::FitPredicate> predicates,
                std::vector<testing::PriorityConfig> prioritizers = {}, int64_t weight = 0) {
    auto e = std::make_shared<FakeExtender>();
    e->extenderName = std::move(name);
    e->predicates = std::move(predicates);
    e->prioritizers = std::move(prioritizers);
    e->weight = weight;
    return e;
  };
  const Registered trueFilter{"TrueFilter", "filter"};
  struct Case {
    std::string name;
    std::vector<Registered> plugins;
    std::vector<std::shared_ptr<FakeExtender>> extenders;
    std::vector<std::string> nodes;
    std::optional<Expected> expected;  // nullopt: expects an error
  };
  std::vector<Case> cases;
  cases.push_back({"test 1", {trueFilter},
                   {ext("FakeExtender1", {truePredicateExtender}), ext("FakeExtender2", {errorPredicateExtender})},
                   {"node1", "node2"}, std::nullopt});
  cases.push_back({"test 2", {trueFilter},
                   {ext("FakeExtender1", {truePredicateExtender}), ext("FakeExtender2", {falsePredicateExtender})},
                   {"node1", "node2"}, std::nullopt});
  cases.push_back({"test 3", {trueFilter, {"EqualPrioritizerPlugin", "score", 1}},
                   {ext("FakeExtender1", {truePredicateExtender}), ext("FakeExtender2", {node1PredicateExtender})},
                   {"node1", "node2"}, Expected{"node1", 2, 1}});
  cases.push_back({"test 4", {trueFilter},
                   {ext("FakeExtender1", {node2PredicateExtender}), ext("FakeExtender2", {node1PredicateExtender})},
                   {"node1", "node2"}, std::nullopt});
  cases.push_back({"test 5", {trueFilter},
                   {ext("FakeExtender1", {truePredicateExtender}, {{errorPrioritizerExtender, 10}}, 1)},
                   {"node1"}, Expected{"node1", 1, 1}});
  cases.push_back({"test 6", {trueFilter},
                   {ext("FakeExtender1", {truePredicateExtender}, {{node1PrioritizerExtender, 10}}, 1),
                    ext("FakeExtender2", {truePredicateExtender}, {{node2PrioritizerExtender, 10}}, 5)},
                   {"node1", "node2"}, Expected{"node2", 2, 2}});
  cases.push_back({"test 7", {trueFilter, {"Node2Prioritizer", "score", 20}},
                   {ext("FakeExtender1", {truePredicateExtender}, {{node1PrioritizerExtender, 10}}, 1)},
                   {"node1", "node2"}, Expected{"node2", 2, 2}});
  {
    auto e = ext("FakeExtender1", {errorPredicateExtender}, {{errorPrioritizerExtender, 10}});
    e->unInterested = true;
    cases.push_back({"test 8", {trueFilter, {"Node2Prioritizer", "score", 1}}, {e}, {"node1", "node2"},
                     Expected{"node2", 2, 2}});
  }
  {
    auto e = ext("FakeExtender1", {errorPredicateExtender});
    e->ignorable = true;
    cases.push_back({"test 9", {trueFilter, {"EqualPrioritizerPlugin", "score", 1}},
                     {e, ext("FakeExtender2", {node1PredicateExtender})}, {"node1", "node2"},
                     Expected{"node1", 2, 1}});
  }
  cases.push_back({"test 10 - no scoring, extender filters configured, multiple feasible nodes are evaluated",
                   {trueFilter},
                   {ext("FakeExtender1", {truePredicateExtender}), ext("FakeExtender2", {node1PredicateExtender})},
                   {"node1", "node2"}, Expected{"node1", 2, 1}});
  {
    auto e = ext("FakeExtender1", {});
    e->binder = [] { return Result<void>(); };
    cases.push_back({"test 11 - no scoring, no prefilters or  extender filters configured, a single feasible node "
                     "is evaluated",
                     {}, {e}, {"node1", "node2"}, Expected{"node1", 1, 1}});
  }

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    CycleRun run;
    std::vector<framework::Extender*> extenders;
    for (const auto& e : c.extenders) extenders.push_back(e.get());
    auto record = run.run(profileYaml(c.plugins), extenders, c.nodes);
    ASSERT_TRUE(record.has_value());
    if (!c.expected) {
      EXPECT_NE(record->result, AttemptResult::Scheduled) << record->node;
      continue;
    }
    EXPECT_EQ(record->result, AttemptResult::Scheduled) << record->message;
    EXPECT_EQ(record->node, c.expected->host);
    EXPECT_EQ(static_cast<int>(record->feasibleNodes.size()), c.expected->feasibleNodes);
    EXPECT_EQ(static_cast<int>(record->feasibleNodes.size() + record->filtered.size()), c.expected->evaluatedNodes);
  }
}

TEST(SchedulerWithExtenders, FitErrorCarriesTheExtendersReasons) {
  FakeExtender e;
  e.extenderName = "FakeExtender1";
  e.predicates = {[](const api::Pod&, const framework::NodeInfo& n) {
    return n.nodeName() == "node1" ? Status(Code::UnschedulableAndUnresolvable, "x") : Status(Code::Unschedulable, "y");
  }};
  CycleRun run;
  auto record = run.run(profileYaml({{"TrueFilter", "filter"}}), {&e}, {"node1", "node2", "node3"});
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->result, AttemptResult::Unschedulable);
  EXPECT_EQ(record->message,
            "0/3 nodes are available: 1 FakeExtender: node \"node1\" failed and unresolvable, 1 FakeExtender: node "
            "\"node2\" failed, 1 FakeExtender: node \"node3\" failed.");
  // The pod waits for an event ("Extender" is its rejector: any event), not in backoff.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (run.sched->schedulingQueue().whereIs("default/p") != queue::QueueName::UnschedulablePods &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(run.sched->schedulingQueue().whereIs("default/p") == queue::QueueName::UnschedulablePods);
  // A node added requeues it: it is attempted again.
  ASSERT_TRUE(run.client.create(MakeNode().name("node4").obj()).ok());
  while (run.observer.attempts() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GE(run.observer.attempts(), 2);
  EXPECT_TRUE(run.sched->profiles().begin()->second->signaturesEnabled() == false);
}

TEST(SchedulerWithExtenders, IgnoredBySchedulerResourcesAndAnIgnorableExtenderThatIsDown) {
  // The HTTP extender is down (nothing listens on port 1); it is ignorable, so it is skipped, and the
  // resource it manages is left out of NodeResourcesFit.
  const std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\n"
      "extenders:\n"
      "- urlPrefix: http://127.0.0.1:1\n"
      "  filterVerb: filter\n"
      "  prioritizeVerb: prioritize\n"
      "  weight: 1\n"
      "  ignorable: true\n"
      "  managedResources:\n"
      "  - name: example.com/vgpu\n"
      "    ignoredByScheduler: true\n";
  CycleRun run;
  auto record = run.run(yaml, {}, {"node1"}, MakePod().req({{"example.com/vgpu", "1"}}).obj());
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->result, AttemptResult::Scheduled) << record->message;
  EXPECT_EQ(record->node, "node1");
}

TEST(SchedulerWithExtenders, NonIgnorableExtenderThatIsDownFailsTheAttempt) {
  const std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\n"
      "extenders:\n"
      "- urlPrefix: http://127.0.0.1:1\n"
      "  filterVerb: filter\n";
  CycleRun run;
  auto record = run.run(yaml, {}, {"node1", "node2"});
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->result, AttemptResult::Error);
  EXPECT_EQ(record->message, "Post \"http://127.0.0.1:1/filter\": dial tcp 127.0.0.1:1: connect: connection refused");
}

TEST(SchedulerWithExtenders, ExtenderBindsInsteadOfTheDefaultBinder) {
  FakeExtender binder;
  binder.extenderName = "Binder";
  std::atomic<int> binds{0};
  binder.binder = [&] {
    binds++;
    return Result<void>();
  };
  CycleRun run;
  auto record = run.run(profileYaml({{"TrueFilter", "filter"}}), {&binder}, {"node1"});
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->result, AttemptResult::Scheduled);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (binds.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  run.sched->waitForBindings();
  EXPECT_EQ(binds.load(), 1);
  // Not bound through the API: the extender binds.
  EXPECT_EQ(run.client.get<api::Pod>("default", "p")->spec.nodeName, "");
}

}  // namespace
}  // namespace ks::scheduler
