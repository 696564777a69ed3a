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

// Upstream TestFindNodesThatPassExtenders.
TEST(SchedulerWithExtenders, FindNodesThatPassExtenders) {
  const Status absent(Code::UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [PreFilter]");
  auto notAllowed = [](const framework::NodeInfo& n) {
    return "node \"" + n.nodeName() + "\" is not allowed";
  };
  // a passes, b is unschedulable, c (when given) unresolvable.
  const testing::FitPredicate abc = [&](const api::Pod&, const framework::NodeInfo& n) {
    if (n.nodeName() == "a") return Status();
    if (n.nodeName() == "b") return Status(Code::Unschedulable, notAllowed(n));
    return Status(Code::UnschedulableAndUnresolvable, notAllowed(n));
  };
  const testing::FitPredicate onlyA = [&](const api::Pod&, const framework::NodeInfo& n) {
    return n.nodeName() == "a" ? Status() : Status(Code::Unschedulable, notAllowed(n));
  };
  auto failed = [](const std::string& n) { return "FakeExtender: node \"" + n + "\" failed"; };
  auto unresolvable = [](const std::string& n) { return "FakeExtender: node \"" + n + "\" failed and unresolvable"; };
  struct Case {
    std::string name;
    std::vector<std::vector<testing::FitPredicate>> extenders;
    std::vector<std::string> nodes;
    std::map<std::string, Status> filtered;
    bool expectsErr = false;
    std::vector<std::string> expectedNodes;
    std::map<std::string, Status> expectedStatuses;
  };
  const std::vector<Case> cases = {
      {"error", {{testing::errorPredicateExtender}}, {"a"}, {}, true, {}, {}},
      {"success", {{testing::truePredicateExtender}}, {"a"}, {}, false, {"a"}, {}},
      {"unschedulable", {{onlyA}}, {"a", "b"}, {}, false, {"a"}, {{"b", Status(Code::Unschedulable, failed("b"))}}},
      {"unschedulable and unresolvable",
       {{abc}},
       {"a", "b", "c"},
       {},
       false,
       {"a"},
       {{"b", Status(Code::Unschedulable, failed("b"))},
        {"c", Status(Code::UnschedulableAndUnresolvable, unresolvable("c"))}}},
      {"extender does not overwrite the previous statuses",
       {{abc}},
       {"a", "b"},
       {{"c", Status(Code::Unschedulable, "FakeFilterPlugin: node \"c\" failed")}},
       false,
       {"a"},
       {{"b", Status(Code::Unschedulable, failed("b"))},
        {"c", Status(Code::Unschedulable, "FakeFilterPlugin: node \"c\" failed")}}},
      {"multiple extenders",
       {{abc}, {onlyA}},
       {"a", "b", "c"},
       {},
       false,
       {"a"},
       {{"b", Status(Code::Unschedulable, failed("b"))},
        {"c", Status(Code::UnschedulableAndUnresolvable, unresolvable("c"))}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<std::unique_ptr<FakeExtender>> owned;
    std::vector<framework::Extender*> extenders;
    for (const auto& predicates : tc.extenders) {
      owned.push_back(std::make_unique<FakeExtender>());
      owned.back()->extenderName = "FakeExtender1";
      owned.back()->predicates = predicates;
      extenders.push_back(owned.back().get());
    }
    std::vector<framework::NodeInfoPtr> nodes;
    for (const auto& n : tc.nodes) {
      auto ni = std::make_shared<framework::NodeInfo>();
      ni->setNode(MakeNode().name(n).ptr());
      nodes.push_back(ni);
    }
    framework::NodeToStatus statuses;
    statuses.setAbsentNodesStatus(absent);
    for (const auto& [n, st] : tc.filtered) statuses.set(n, st);
    const api::Pod pod = MakePod().name("1").uid("1").obj();
    auto got = findNodesThatPassExtenders(extenders, pod, nodes, statuses);
    if (tc.expectsErr) {
      EXPECT_FALSE(got.ok());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.error().message();
    std::vector<std::string> names;
    for (const auto& ni : *got) names.push_back(ni->nodeName());
    EXPECT_EQ(names, tc.expectedNodes);
    // Compared by code and message (ours also name the extender as the status' plugin).
    EXPECT_EQ(statuses.size(), tc.expectedStatuses.size());
    for (const auto& [n, want] : tc.expectedStatuses) {
      EXPECT_EQ(statuses.get(n).code(), want.code()) << n;
      EXPECT_EQ(statuses.get(n).message(), want.message()) << n;
    }
    EXPECT_EQ(statuses.absentNodesStatus().message(), absent.message());
  }
}

// Upstream TestSchedulerBinding: which extender binds, or none (then the Bind plugins do).
TEST(SchedulerWithExtenders, SchedulerBinding) {
  // schedule_one_test.go's fakeExtender.
  struct Fake {
    bool isBinder = false;
    std::string interestedPodName;
    bool ignorable = false;
    bool errBind = false;
  };
  class Ext final : public framework::Extender {
   public:
    explicit Ext(Fake f) : f_(std::move(f)) {}
    bool gotBind = false;
    std::string name() const override { return "fakeExtender"; }
    bool isIgnorable() const override { return f_.ignorable; }
    Result<std::map<std::string, framework::Victims>> processPreemption(const api::Pod&,
                                                                        const std::map<std::string, framework::Victims>&,
                                                                        const framework::NodeInfoLister&) override {
      return std::map<std::string, framework::Victims>{};
    }
    bool supportsPreemption() const override { return false; }
    Result<framework::ExtenderFilterResult> filter(const api::Pod&, const std::vector<framework::NodeInfoPtr>&) override {
      return framework::ExtenderFilterResult{};
    }
    Result<framework::ExtenderScores> prioritize(const api::Pod&, const std::vector<framework::NodeInfoPtr>&) override {
      return framework::ExtenderScores{};
    }
    Result<void> bind(const framework::ExtenderBinding&) override {
      if (!f_.isBinder) return Error("not a binder");
      if (f_.errBind) return Error("bind error");
      gotBind = true;
      return {};
    }
    bool isBinder() const override { return f_.isBinder; }
    bool isInterested(const api::Pod& pod) const override { return pod.metadata.name == f_.interestedPodName; }
    bool isPrioritizer() const override { return false; }
    bool isFilter() const override { return false; }

   private:
    Fake f_;
  };
  struct Case {
    std::string name;
    std::string podName;
    std::vector<Fake> extenders;
    int wantBinderID;  // -1: default binding
  };
  const std::vector<Case> cases = {
      {"the extender is not a binder", "pod0", {{false, "pod0"}}, -1},
      {"one of the extenders is a binder and interested in pod", "pod0", {{false, "pod0"}, {true, "pod0"}}, 1},
      {"one of the extenders is a binder, but not interested in pod", "pod1", {{false, "pod1"}, {true, "pod0"}}, -1},
      {"ignore when extender bind failed", "pod1", {{true, "pod1", true, true}}, -1},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<std::unique_ptr<Ext>> owned;
    std::vector<framework::Extender*> extenders;
    for (const auto& f : tc.extenders) {
      owned.push_back(std::make_unique<Ext>(f));
      extenders.push_back(owned.back().get());
    }
    auto bound = extendersBinding(extenders, MakePod().name(tc.podName).obj(), "node");
    EXPECT_EQ(!bound.has_value(), tc.wantBinderID == -1);
    if (bound) {
      EXPECT_TRUE(bound->isSuccess()) << bound->message();
    }
    for (size_t i = 0; i < owned.size(); ++i) EXPECT_EQ(owned[i]->gotBind, static_cast<int>(i) == tc.wantBinderID) << i;
  }
}

}  // namespace
}  // namespace ks::scheduler
