// `explain`: argument parsing, the configuration without --config, and one pod explained alone against a
// MemoryClient standing in for the live cluster (which must see lists only).
#include "pkg/explain/explain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "pkg/scheduler/framework/plugins/registry.h"
#include "test/support/wrappers.h"

namespace ks::explain {
namespace {

using testing::MakeNode;
using testing::MakePod;

// ---- Arguments ----

TEST(ExplainArgsTest, FlagsAndTarget) {
  auto a = parseExplainArgs(
      {"--kubeconfig=/k", "--config", "/c.yaml", "-o", "json", "--timeout", "1m30s", "team-a/web-0"});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_FALSE(a->help);
  EXPECT_EQ(a->kubeconfig, "/k");
  EXPECT_EQ(a->configPath, "/c.yaml");
  EXPECT_EQ(a->output, "json");
  EXPECT_EQ(a->timeout, std::chrono::seconds(90));
  EXPECT_EQ(a->namespace_, "team-a");
  EXPECT_EQ(a->name, "web-0");
}

TEST(ExplainArgsTest, Defaults) {
  auto a = parseExplainArgs({"default/p"});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->output, "table");
  EXPECT_EQ(a->timeout, kDefaultTimeout);
  EXPECT_TRUE(a->kubeconfig.empty());
  EXPECT_TRUE(a->configPath.empty());
  auto o = parseExplainArgs({"--output=table", "default/p"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->output, "table");
  for (const char* shorthand : {"-ojson", "-o=json"}) {  // pflag's shorthand forms, as kubectl's
    auto s = parseExplainArgs({shorthand, "default/p"});
    ASSERT_TRUE(s.ok()) << shorthand << ": " << s.error().message();
    EXPECT_EQ(s->output, "json") << shorthand;
  }
}

TEST(ExplainArgsTest, Help) {
  for (const char* flag : {"-h", "--help"}) {
    auto a = parseExplainArgs({flag});
    ASSERT_TRUE(a.ok()) << flag;
    EXPECT_TRUE(a->help);
  }
}

TEST(ExplainArgsTest, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--foo", "ns/p"}, "unknown flag --foo"},
      {{"ns/p", "--cluster=x"}, "unknown flag --cluster=x"},
      {{"ns/p", "--config"}, "flag --config needs a value"},
      {{}, "NAMESPACE/POD is required"},
      {{"--kubeconfig", "/k"}, "NAMESPACE/POD is required"},
      {{"ns/a", "ns/b"}, "expected one NAMESPACE/POD, got 2 arguments"},
      {{"web-0"}, "expected NAMESPACE/POD, got \"web-0\""},
      {{"ns/"}, "expected NAMESPACE/POD, got \"ns/\""},
      {{"/p"}, "expected NAMESPACE/POD, got \"/p\""},
      {{"a/b/c"}, "expected NAMESPACE/POD, got \"a/b/c\""},
      {{"-o", "yaml", "ns/p"}, "-o must be json or table, got \"yaml\""},
      {{"-o=", "ns/p"}, "-o must be json or table, got \"\""},
      {{"--timeout", "abc", "ns/p"},
       "invalid argument \"abc\" for \"--timeout\" flag: time: invalid duration \"abc\""},
      {{"--timeout=0s", "ns/p"}, "invalid argument \"0s\" for \"--timeout\" flag: must be positive"},
  };
  for (const auto& c : cases) {
    auto a = parseExplainArgs(c.args);
    ASSERT_FALSE(a.ok()) << ::testing::PrintToString(c.args);
    EXPECT_EQ(a.error().message(), c.error) << ::testing::PrintToString(c.args);
  }
}

TEST(ExplainCommandTest, ExitCodes) {
  EXPECT_EQ(runExplainCommand({"--help"}), 0);
  EXPECT_EQ(runExplainCommand({"--foo", "ns/p"}), 2);
  EXPECT_EQ(runExplainCommand({"p"}), 2);
  EXPECT_EQ(runExplainCommand({"--config=/nonexistent/explain.yaml", "ns/p"}), 1);
  EXPECT_EQ(runExplainCommand({"--kubeconfig=/nonexistent/kubeconfig", "ns/p"}), 1);
}

// ---- Configuration ----

TEST(ExplainConfigTest, WithoutConfigTheDefaultProfileWithoutUnimplementedPlugins) {
  auto cfg = explainConfig("");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  ASSERT_EQ(cfg->profiles.size(), 1u);
  const auto& profile = cfg->profiles.front();
  EXPECT_EQ(profile.schedulerName, "default-scheduler");
  EXPECT_TRUE(plugins::checkProfileImplemented(profile, plugins::newInTreeRegistry()).ok());
  bool hasFit = false;
  for (const auto& p : profile.plugins.multiPoint.enabled) hasFit = hasFit || p.name == "NodeResourcesFit";
  EXPECT_TRUE(hasFit) << "the default plugins otherwise";
}

TEST(ExplainConfigTest, ConfigFileErrorsAsTheDaemons) {
  auto cfg = explainConfig("/nonexistent/explain.yaml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message(), "open /nonexistent/explain.yaml: no such file or directory");
}

// ---- One pod against a stand-in for the live cluster ----

class ExplainPodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cfg = explainConfig("");
    ASSERT_TRUE(cfg.ok()) << cfg.error().message();
    cfg_ = std::move(cfg).value();
  }

  void create(const api::Node& n) { ASSERT_TRUE(live_.create(n).ok()); }
  void create(const api::Pod& p) { ASSERT_TRUE(live_.create(p).ok()); }

  Result<simulator::SimulationResult> explain(const std::string& ns, const std::string& name) {
    // Everything written so far is setup; from here on the live cluster must only be listed.
    const std::string rv = live_.currentResourceVersion();
    std::array<int64_t, client::kOperationCount> before{};
    for (size_t i = 0; i < client::kOperationCount; ++i) before[i] = live_.callCount(client::Operation(i));
    auto r = explainPod(live_, cfg_, ns, name, std::chrono::seconds(30));
    EXPECT_EQ(live_.currentResourceVersion(), rv) << "the live cluster was written to";
    for (size_t i = 0; i < client::kOperationCount; ++i) {
      if (client::Operation(i) == client::Operation::List) continue;
      EXPECT_EQ(live_.callCount(client::Operation(i)), before[i])
          << "operation " << i << " on the live cluster";
    }
    EXPECT_GT(live_.callCount(client::Operation::List), before[static_cast<size_t>(client::Operation::List)]);
    return r;
  }

  config::KubeSchedulerConfiguration cfg_;
  client::MemoryClient live_;
};

TEST_F(ExplainPodTest, OnlyThePodIsScheduledAndNominationsHoldCapacity) {
  create(MakeNode().name("n1").capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakeNode().name("n2").capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  // Pending, nominated to n1 by an earlier preemption, of higher priority: holds 3 of n1's cpus.
  create(MakePod().name("nominated").priority(100).req({{"cpu", "3"}}).nominatedNodeName("n1").obj());
  // Pending with the highest priority: scheduled first by a real scheduler run it would take n2 (n1 is held).
  create(MakePod().name("first-in-line").priority(1000).req({{"cpu", "3"}}).obj());
  create(MakePod().name("target").req({{"cpu", "2"}}).obj());

  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u) << "only the pod asked about";
  const auto& p = r->pods.front();
  EXPECT_EQ(p.name, "target");
  EXPECT_EQ(p.profile, "default-scheduler");
  EXPECT_EQ(p.result, "Scheduled");
  EXPECT_EQ(p.node, "n2") << "first-in-line was not scheduled before it";
  ASSERT_TRUE(p.filtered.count("n1")) << "the nominated pod holds n1's capacity";
  EXPECT_EQ(p.filtered.at("n1").plugin, "NodeResourcesFit");
  EXPECT_EQ(p.filtered.at("n1").reasons, std::vector<std::string>{"Insufficient cpu"});
  EXPECT_TRUE(p.boundNode.empty());
  EXPECT_TRUE(p.victims.empty());
}

TEST_F(ExplainPodTest, AGatedPodsNominationHoldsNothing) {
  create(MakeNode().name("n1").capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  // The real queue keeps a gated pod out of activeQ and does not record its nomination.
  create(MakePod()
             .name("gated")
             .priority(100)
             .req({{"cpu", "3"}})
             .nominatedNodeName("n1")
             .schedulingGates({"example.com/wait"})
             .obj());
  create(MakePod().name("target").req({{"cpu", "2"}}).obj());
  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u);
  EXPECT_EQ(r->pods.front().result, "Scheduled");
  EXPECT_EQ(r->pods.front().node, "n1");
}

TEST_F(ExplainPodTest, UnschedulableGetsUpstreamsFitError) {
  create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakeNode()
             .name("n2")
             .label("disk", "ssd")
             .capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}})
             .obj());
  create(MakePod().name("target").nodeSelector({{"disk", "ssd"}}).req({{"cpu", "3"}}).obj());
  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& p = r->pods.front();
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.node, "");
  EXPECT_EQ(
      p.message,
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector. "
      "preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
      "scheduling.")
      << "3 cpus exceed n2's allocatable: unresolvable, so preemption does not try n2 either";
  EXPECT_EQ(p.filtered.at("n1").plugin, "NodeAffinity");
  EXPECT_EQ(p.filtered.at("n2").plugin, "NodeResourcesFit");
  EXPECT_EQ(p.filtered.at("n2").reasons, std::vector<std::string>{"Insufficient cpu"});
}

TEST_F(ExplainPodTest, PreemptionShowsTheVictimsButTheLiveClusterKeepsThem) {
  create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakePod().name("low").node("n1").phase("Running").priority(0).req({{"cpu", "2"}}).obj());
  create(MakePod().name("target").priority(100).req({{"cpu", "1"}}).obj());
  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& p = r->pods.front();
  EXPECT_EQ(p.result, "Unschedulable") << "one scheduling cycle: preemption nominates, the next cycle binds";
  EXPECT_EQ(p.nominatedNode, "n1");
  EXPECT_EQ(p.victims, std::vector<std::string>{"default/low"});
  auto low = live_.get<api::Pod>("default", "low");
  ASSERT_TRUE(low.ok()) << "the victim is only evicted from the copy";
  EXPECT_EQ(low->spec.nodeName, "n1");
}

TEST_F(ExplainPodTest, ABoundPodIsEvaluatedAsIfPending) {
  create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakeNode().name("n2").capacity({{"cpu", "1"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakePod().name("target").node("n1").phase("Running").req({{"cpu", "2"}}).obj());
  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& p = r->pods.front();
  EXPECT_EQ(p.boundNode, "n1");
  EXPECT_EQ(p.result, "Scheduled");
  EXPECT_EQ(p.node, "n1") << "its own request no longer counts on n1";
  EXPECT_EQ(p.filtered.at("n2").reasons, std::vector<std::string>{"Insufficient cpu"});
  const std::string table = simulator::toTable(*r, true);
  EXPECT_EQ(table.rfind("pod default/target is bound to n1; evaluating it as if pending\n\n", 0), 0u)
      << table;
  const auto j = nlohmann::json::parse(simulator::toJson(*r, true));
  EXPECT_EQ(j["pods"][0]["boundNode"], "n1");
  EXPECT_EQ(live_.get<api::Pod>("default", "target")->spec.nodeName, "n1");
}

TEST_F(ExplainPodTest, NotFoundTerminatedAndOtherSchedulers) {
  create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakePod().name("done").phase("Succeeded").obj());
  create(MakePod().name("theirs").schedulerName("other-scheduler").obj());
  create(MakePod().name("leaving").terminating().obj());

  auto missing = explain("default", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "pods \"nope\" not found");
  auto otherNs = explain("kube-system", "done");
  ASSERT_FALSE(otherNs.ok());
  EXPECT_EQ(otherNs.error().message(), "pods \"done\" not found");

  auto done = explain("default", "done");
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message(),
            "pod default/done has terminated (phase Succeeded): the scheduler does not schedule it");

  auto theirs = explain("default", "theirs");
  ASSERT_FALSE(theirs.ok());
  EXPECT_EQ(theirs.error().message(),
            "pod default/theirs has schedulerName \"other-scheduler\", which no profile of the configuration "
            "serves (profiles: default-scheduler)");

  auto leaving = explain("default", "leaving");
  ASSERT_FALSE(leaving.ok());
  EXPECT_EQ(leaving.error().message(),
            "pod default/leaving is being deleted: the scheduler does not schedule it");
}

TEST_F(ExplainPodTest, TheCopyKeepsUids) {
  create(MakeNode().name("n1").capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakePod().name("target").obj());
  client::MemoryClientOptions mo;
  mo.keepUidsOnCreate = true;
  client::MemoryClient copy(mo);
  auto copied = copyLiveCluster(live_, copy, "default", "target");
  ASSERT_TRUE(copied.ok()) << copied.error().message();
  const auto livePod = live_.get<api::Pod>("default", "target");
  EXPECT_EQ(copied->pod.metadata.uid, livePod->metadata.uid);
  EXPECT_EQ(copy.get<api::Pod>("default", "target")->metadata.uid, livePod->metadata.uid);
  EXPECT_EQ(copy.get<api::Node>("", "n1")->metadata.uid, live_.get<api::Node>("", "n1")->metadata.uid);
  EXPECT_EQ(copy.get<api::Node>("", "n1")->metadata.creationTimestamp,
            live_.get<api::Node>("", "n1")->metadata.creationTimestamp);
}

TEST_F(ExplainPodTest, ListFailuresNameTheResource) {
  live_.injectFailures(
      client::Operation::List, 1,
      client::ApiError(403, "Forbidden",
                       "nodes is forbidden: User \"u\" cannot list resource \"nodes\" in API "
                       "group \"\" at the cluster scope"),
      "Node");
  auto r = explainPod(live_, cfg_, "default", "target");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message(),
      "listing nodes: nodes is forbidden: User \"u\" cannot list resource \"nodes\" in API group \"\" at "
      "the cluster scope");
}

// scheduling.k8s.io/v1beta1 is served only when enabled, and GenericWorkload is off: a server without the
// group (404) or a role without it (403) must not fail explain.
TEST_F(ExplainPodTest, GroupsOffByDefaultAreNotListed) {
  const client::ApiError notServed(404, "NotFound", "the server could not find the requested resource");
  live_.injectFailures(client::Operation::List, 1, notServed, "PodGroup");
  live_.injectFailures(client::Operation::List, 1, notServed, "Workload");
  create(MakeNode().name("n1").capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).obj());
  create(MakePod().name("target").req({{"cpu", "2"}}).obj());
  auto r = explain("default", "target");
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u);
  EXPECT_EQ(r->pods.front().node, "n1");
}

}  // namespace
}  // namespace ks::explain
