// Multi-pod scenarios through `simulate`: cluster file in -> placements, filter reasons and scores out.
#include "pkg/simulator/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "test/client/rest/test_http_server.h"

namespace ks::simulator {
namespace {

config::KubeSchedulerConfiguration demoConfig() {
  auto cfg = config::loadConfigFile(std::string(KS_SOURCE_DIR) + "/config/demo-scheduler.yaml");
  EXPECT_TRUE(cfg.ok()) << cfg.error().message();
  return *cfg;
}

// The demo configuration with a nodeCacheCapable filter extender at `url` (and its bind verb).
config::KubeSchedulerConfiguration configWithExtender(const std::string& url, bool bind) {
  auto cfg = demoConfig();
  config::Extender ext;
  ext.urlPrefix = url;
  ext.filterVerb = "filter";
  if (bind) ext.bindVerb = "bind";
  ext.nodeCacheCapable = true;
  cfg.extenders.push_back(ext);
  return cfg;
}

const PodResult& find(const SimulationResult& r, const std::string& name) {
  for (const auto& p : r.pods) {
    if (p.name == name) return p;
  }
  static PodResult none;
  ADD_FAILURE() << "no result for pod " << name;
  return none;
}

// Simulates the cluster (with `onlyPod`: that pod's one cycle, as explain) under `cfg`.
SimulationResult run(const std::string& clusterYaml, const config::KubeSchedulerConfiguration& cfg = demoConfig(),
                     const std::string& onlyPod = "") {
  client::MemoryClient cluster;
  auto loaded = loadClusterText(clusterYaml, "cluster.yaml", cluster, cfg);
  EXPECT_TRUE(loaded.ok()) << loaded.error().message();
  SimulateOptions options;
  options.onlyPod = onlyPod;
  auto result = simulate(cfg, cluster, options);
  EXPECT_TRUE(result.ok()) << result.error().message();
  return result.ok() ? *result : SimulationResult{};
}

TEST(SimulatorTest, DemoClusterPlacementsAndReasons) {
  auto cfg = demoConfig();
  client::MemoryClient cluster;
  auto loaded = loadClusterFile(std::string(KS_SOURCE_DIR) + "/config/demo-cluster.yaml", cluster, cfg);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded->objectsByKind["Node"], 6);
  EXPECT_EQ(loaded->objectsByKind["ReplicaSet"], 1);
  EXPECT_EQ(loaded->pendingPods, 10) << "the pod of another scheduler and the running pods are not pending";
  auto result = simulate(cfg, cluster);
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(result->pods.size(), 10u);

  EXPECT_EQ(find(*result, "trainer-0").node, "node-b1")
      << "tolerates the gpu taint, selects accelerator=nvidia";
  EXPECT_EQ(find(*result, "api-6c9d8-fghij").node, "node-a1") << "only node-a1 has disktype=ssd";
  EXPECT_EQ(find(*result, "ingress-8a1b2").node, "node-c1")
      << "zone-c, and node-c2's host port 8080 is taken";
  const auto& ingress = find(*result, "ingress-8a1b2");
  ASSERT_TRUE(ingress.filtered.count("node-c2"));
  EXPECT_EQ(ingress.filtered.at("node-c2").plugin, "NodePorts");
  EXPECT_EQ(ingress.filtered.at("node-c2").reasons,
            std::vector<std::string>{"node(s) didn't have free ports for the requested pod ports"});

  const auto& analytics = find(*result, "analytics-0");
  EXPECT_EQ(analytics.result, "Unschedulable");
  EXPECT_EQ(analytics.message,
            "0/6 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were "
            "unschedulable, 4 "
            "node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not "
            "helpful for scheduling.");
  EXPECT_EQ(analytics.filtered.size(), 6u) << "every node that did not pass is listed";
  EXPECT_EQ(analytics.filtered.at("node-b2").plugin, "NodeUnschedulable");

  const auto& gated = find(*result, "migration-job-x7k2p");
  EXPECT_EQ(gated.result, "Unschedulable");
  EXPECT_EQ(gated.message, "waiting for scheduling gates: [example.com/wait-for-db]");

  // Nothing has 20 cpus: the nodes that pass the other filters report Insufficient cpu.
  const auto& etl = find(*result, "etl-full-refresh");
  EXPECT_EQ(etl.result, "Unschedulable");
  EXPECT_EQ(etl.message,
            "0/6 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were "
            "unschedulable, 4 "
            "Insufficient cpu. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.");
  EXPECT_EQ(etl.filtered.at("node-c1").plugin, "NodeResourcesFit");

  // The cache pod's required anti-affinity (app=cache per hostname) rules out node-c2, where cache-0 runs;
  // its preferred affinity to the web pods' zone scores zone-a.
  const auto& cache = find(*result, "cache-1");
  EXPECT_EQ(cache.node, "node-a2");
  ASSERT_TRUE(cache.filtered.count("node-c2"));
  EXPECT_EQ(cache.filtered.at("node-c2").plugin, "InterPodAffinity");
  EXPECT_EQ(cache.filtered.at("node-c2").reasons,
            std::vector<std::string>{"node(s) didn't match pod anti-affinity rules"});
  EXPECT_EQ(cache.scores.at("node-a1").at("InterPodAffinity"), 100);
  EXPECT_EQ(cache.scores.at("node-c1").at("InterPodAffinity"), 0);

  // The search pod's spread constraint (maxSkew 1 over zones, app=web: two in zone-a, none elsewhere)
  // rules out zone-a.
  const auto& search = find(*result, "search-0");
  EXPECT_EQ(search.result, "Scheduled");
  for (const char* node : {"node-a1", "node-a2"}) {
    ASSERT_TRUE(search.filtered.count(node)) << node;
    EXPECT_EQ(search.filtered.at(node).plugin, "PodTopologySpread");
    EXPECT_EQ(search.filtered.at(node).reasons,
              std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
  }

  // The web pod prefers zone-a (weight 80) and avoids the spot node's PreferNoSchedule taint. System
  // default spreading (its ReplicaSet's two replicas run in zone-a) scores zone-a lower, but the node
  // affinity outweighs it; among the zone-a nodes the bigger, emptier node-a2 scores higher on resources.
  const auto& web = find(*result, "web-5d8f7-abcde");
  EXPECT_EQ(web.node, "node-a2");
  EXPECT_EQ(web.scores.at("node-a1").at("NodeAffinity"), 100);
  EXPECT_EQ(web.scores.at("node-c2").at("NodeAffinity"), 0);
  EXPECT_EQ(web.scores.at("node-c1").at("TaintToleration"), 0);
  EXPECT_EQ(web.scores.at("node-c2").at("TaintToleration"), 100);
  EXPECT_LT(web.scores.at("node-a1").at("PodTopologySpread"), web.scores.at("node-c2").at("PodTopologySpread"));
  EXPECT_EQ(web.scores.at("node-c2").at("PodTopologySpread"), 100);
  // Weighted sum: TaintToleration 3, NodeAffinity, PodTopologySpread, InterPodAffinity and DynamicResources
  // (0 for a pod without claims) 2, the resource and image plugins and VolumeBinding (capacity scoring, on
  // in v1.37; 0 for a pod without volumes) 1.
  const std::map<std::string, int> weights{{"TaintToleration", 3},
                                           {"NodeAffinity", 2},
                                           {"PodTopologySpread", 2},
                                           {"InterPodAffinity", 2},
                                           {"NodeResourcesFit", 1},
                                           {"NodeResourcesBalancedAllocation", 1},
                                           {"ImageLocality", 1},
                                           {"DynamicResources", 2},
                                           {"VolumeBinding", 1}};
  for (const auto& [node, perPlugin] : web.scores) {
    int64_t total = 0;
    for (const auto& [plugin, score] : perPlugin) total += score * weights.at(plugin);
    EXPECT_EQ(web.totalScores.at(node), total) << node;
  }
  EXPECT_GT(web.totalScores.at("node-a2"), web.totalScores.at("node-a1"));
  EXPECT_FALSE(web.filtered.count("node-a1"));
}

// `simulate --explain` and `explain` (the same cycle, onlyPod) with an HTTP extender in the profile: the
// nodes its filter rejects carry its reasons, resolvable or not, under its name, as the FitError counts
// them; the nodes a plugin rejected before it keep the plugin's.
TEST(SimulatorTest, ExtenderFilterRejectionsAreExplainedPerNode) {
  using client::rest::testing::ResponseWriter;
  using client::rest::testing::TestHttpServer;
  using client::rest::testing::TestRequest;
  TestHttpServer extender([](const TestRequest& req, ResponseWriter& w) {
    nlohmann::json args = nlohmann::json::parse(req.body);
    nlohmann::json failed = nlohmann::json::object(), unresolvable = nlohmann::json::object();
    for (const auto& n : args["NodeNames"]) {
      (n == "n1" ? failed : unresolvable)[n.get<std::string>()] =
          n == "n1" ? "node(s) out of widgets" : "node(s) quarantined";
    }
    w.send(200, nlohmann::json{{"NodeNames", nlohmann::json::array()},
                               {"FailedNodes", failed},
                               {"FailedAndUnresolvableNodes", unresolvable}}
                    .dump());
  });
  const auto cfg = configWithExtender(extender.url(), /*bind=*/false);
  const SimulationResult result = run(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3}, spec: {unschedulable: true},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: [{name: c, image: i}]}}
)",
                                      cfg, "default/p");
  ASSERT_EQ(result.pods.size(), 1u);
  const PodResult& p = result.pods[0];
  EXPECT_EQ(p.result, "Unschedulable");
  EXPECT_EQ(p.message,
            "0/3 nodes are available: 1 node(s) out of widgets, 1 node(s) quarantined, 1 node(s) were "
            "unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming "
            "pod, 2 Preemption is not helpful for scheduling.");
  ASSERT_EQ(p.filtered.size(), 3u);
  EXPECT_EQ(p.filtered.at("n1").plugin, extender.url());
  EXPECT_EQ(p.filtered.at("n1").reasons, std::vector<std::string>{"node(s) out of widgets"});
  EXPECT_EQ(p.filtered.at("n2").plugin, extender.url());
  EXPECT_EQ(p.filtered.at("n2").reasons, std::vector<std::string>{"node(s) quarantined"});
  EXPECT_EQ(p.filtered.at("n3").plugin, "NodeUnschedulable");
  const std::string table = toTable(result, /*explain=*/true);
  EXPECT_THAT(table, ::testing::HasSubstr("filtered: " + extender.url() + ": node(s) out of widgets"));
  EXPECT_THAT(table, ::testing::HasSubstr("filtered: " + extender.url() + ": node(s) quarantined"));
  const auto json = nlohmann::json::parse(toJson(result, /*explain=*/true));
  EXPECT_EQ(json["pods"][0]["filtered"]["n1"]["reasons"], nlohmann::json::array({"node(s) out of widgets"}))
      << json.dump();
}

// A binder extender is consulted (filter) but never asked to bind: explain runs on a copy of a live
// cluster, and the extender's bind would bind the real pod. The pod binds in memory.
TEST(SimulatorTest, ExtenderIsNeverAskedToBind) {
  using client::rest::testing::ResponseWriter;
  using client::rest::testing::TestHttpServer;
  using client::rest::testing::TestRequest;
  TestHttpServer extender([](const TestRequest& req, ResponseWriter& w) {
    if (req.path == "/bind") {
      w.send(200, R"({"Error":"bound by the extender"})");
      return;
    }
    nlohmann::json args = nlohmann::json::parse(req.body);
    w.send(200, nlohmann::json{{"NodeNames", args["NodeNames"]}}.dump());
  });
  const auto cfg = configWithExtender(extender.url(), /*bind=*/true);
  for (bool onePod : {false, true}) {
    const SimulationResult result = run(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: [{name: c, image: i}]}}
)",
                                        cfg, onePod ? "default/p" : "");
    ASSERT_EQ(result.pods.size(), 1u);
    EXPECT_EQ(result.pods[0].result, "Scheduled") << result.pods[0].message;
    EXPECT_EQ(result.pods[0].node, "n1");
  }
  size_t filters = 0;
  for (const auto& r : extender.requests()) {
    EXPECT_NE(r.path, "/bind");
    filters += r.path == "/filter";
  }
  EXPECT_EQ(filters, 2u);
}

TEST(SimulatorTest, PreFilterResultExcludedNodesAreListed) {
  auto r = run(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: pinned, namespace: default}
  spec:
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchFields: [{key: metadata.name, operator: In, values: [n2]}]
    containers: [{name: c, image: i}]
)");
  const auto& p = find(r, "pinned");
  EXPECT_EQ(p.node, "n2");
  ASSERT_EQ(p.filtered.size(), 2u);
  EXPECT_EQ(p.filtered.at("n1").reasons,
            std::vector<std::string>{"node(s) didn't satisfy plugin(s) [NodeAffinity]"});
  EXPECT_EQ(p.filtered.at("n3").plugin, "NodeAffinity");
}

TEST(SimulatorTest, MatchLabelKeysAreMergedAsTheApiserverDoes) {
  // The anti-affinity term's matchLabelKeys [tier] becomes `tier In [frontend]`: only the frontend replica
  // on n2 repels the pod, not the backend one on n1. A pod dumped from a cluster already carries the merged
  // expression (db-0): it is not merged twice (which the validation would reject as a duplicate key).
  auto r = run(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: be, namespace: default, labels: {app: x, tier: backend}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: fe, namespace: default, labels: {app: x, tier: frontend}}, spec: {nodeName: n2, containers: [{name: c, image: i}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, labels: {app: x, tier: frontend}}
  spec:
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: x}}, matchLabelKeys: [tier]}
    containers: [{name: c, image: i}]
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: default, labels: {app: x, tier: backend}}
  spec:
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {app: x}
            matchExpressions: [{key: tier, operator: In, values: [backend]}]
          matchLabelKeys: [tier]
    containers: [{name: c, image: i}]
)");
  const auto& web = find(r, "web");
  EXPECT_EQ(web.node, "n1");
  ASSERT_TRUE(web.filtered.count("n2"));
  EXPECT_EQ(web.filtered.at("n2").plugin, "InterPodAffinity");
  const auto& db = find(r, "db-0");
  EXPECT_EQ(db.node, "n2");
}

TEST(SimulatorTest, EachPlacementIsAssumedBeforeTheNextPod) {
  // Two pods want the same host port: the second must see the first's placement.
  std::string yaml = "apiVersion: v1\nkind: List\nitems:\n";
  for (const char* n : {"n1", "n2"})
    yaml += std::string("- {apiVersion: v1, kind: Node, metadata: {name: ") + n +
            "}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n";
  for (const char* p : {"a", "b", "c"}) {
    yaml +=
        std::string("- apiVersion: v1\n  kind: Pod\n  metadata: {name: ") + p +
        ", namespace: default}\n  spec:\n    containers: [{name: c, image: i, ports: [{containerPort: 80, "
        "hostPort: 80}]}]\n";
  }
  auto r = run(yaml);
  std::set<std::string> nodes;
  int unschedulable = 0;
  for (const auto& p : r.pods) {
    if (p.result == "Scheduled") nodes.insert(p.node);
    if (p.result == "Unschedulable") {
      ++unschedulable;
      EXPECT_EQ(p.message,
                "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. preemption: 0/2 "
                "nodes are available: 2 No preemption victims found for incoming pod.");
    }
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(unschedulable, 1);
}

TEST(SimulatorTest, PodsOfEqualPriorityAreScheduledInArrivalOrder) {
  // Upstream's queue breaks a priority tie by the time each pod entered it, and the informer delivers the
  // pending pods one after the other, so a and b (the first two) fit and c waits. Under simulate's
  // virtual clock every pod arrives at the same instant; the queue still orders them by arrival.
  std::string yaml = "apiVersion: v1\nkind: List\nitems:\n";
  for (const char* n : {"n1", "n2"})
    yaml += std::string("- {apiVersion: v1, kind: Node, metadata: {name: ") + n +
            "}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n";
  for (const char* p : {"a", "b", "c"}) {
    yaml += std::string("- apiVersion: v1\n  kind: Pod\n  metadata: {name: ") + p +
            ", namespace: default}\n  spec:\n    containers: [{name: c, image: i, resources: {requests: "
            "{cpu: \"3\"}}}]\n";
  }
  for (int i = 0; i < 5; ++i) {  // not by chance
    auto r = run(yaml);
    EXPECT_EQ(find(r, "a").result, "Scheduled");
    EXPECT_EQ(find(r, "b").result, "Scheduled");
    EXPECT_EQ(find(r, "c").result, "Unschedulable");
    EXPECT_NE(find(r, "a").node, find(r, "b").node);
  }
}

// onlyPod (explain): one attempt of that pod; the other pending pods are not scheduled, though the one
// listed first would have taken the port.
TEST(SimulatorTest, OnlyPodSchedulesThatPodOnce) {
  std::string yaml =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: \"4\", memory: 8Gi, "
      "pods: \"110\"}}}\n";
  for (const char* p : {"a", "b"}) {
    yaml += std::string("- apiVersion: v1\n  kind: Pod\n  metadata: {name: ") + p +
            ", namespace: default}\n  spec:\n    priority: " + (p[0] == 'a' ? "10" : "0") +
            "\n    containers: [{name: c, image: i, ports: [{containerPort: 80, hostPort: 80}]}]\n";
  }
  yaml +=
      "- {apiVersion: v1, kind: Pod, metadata: {name: bound, namespace: default}, spec: {nodeName: n1, "
      "containers: [{name: c, image: i}]}}\n";
  auto cfg = demoConfig();
  client::MemoryClient cluster;
  ASSERT_TRUE(loadClusterText(yaml, "cluster.yaml", cluster, cfg).ok());
  SimulateOptions options;
  options.onlyPod = "default/b";
  auto r = simulate(cfg, cluster, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->pods.size(), 1u);
  EXPECT_EQ(r->pods[0].name, "b");
  EXPECT_EQ(r->pods[0].result, "Scheduled");
  EXPECT_EQ(r->pods[0].node, "n1");
  EXPECT_EQ(cluster.get<api::Pod>("default", "a")->spec.nodeName, "") << "a is not scheduled";

  for (const auto& [pod, error] : std::vector<std::pair<std::string, std::string>>{
           {"default/bound",
            "pod default/bound is not pending for any profile (bound, terminated, or "
            "schedulerName \"default-scheduler\" served by no profile)"},
           {"default/nope", "pods \"nope\" not found"},
           {"nope", "the pod to schedule must be NAMESPACE/NAME, got \"nope\""}}) {
    options.onlyPod = pod;
    auto bad = simulate(cfg, cluster, options);
    ASSERT_FALSE(bad.ok()) << pod;
    EXPECT_EQ(bad.error().message(), error) << pod;
  }
}

// GenericWorkload: a PodGroup's members are simulated together (the pod-group cycle), all or nothing, and
// each result says where the group stands; explain's one-pod mode takes the whole group.
TEST(SimulatorTest, PodGroupsAreScheduledAllOrNothing) {
  std::string yaml =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: \"2\", memory: 8Gi, "
      "pods: \"110\"}}}\n"
      "- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: fits, namespace: default}, "
      "spec: {schedulingPolicy: {gang: {minCount: 2}}}}\n"
      "- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: too-big, namespace: default}, "
      "spec: {schedulingPolicy: {gang: {minCount: 3}}}}\n"
      "- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: short, namespace: default}, "
      "spec: {schedulingPolicy: {gang: {minCount: 3}}}}\n";
  auto member = [&](const std::string& name, const std::string& group, const std::string& cpu) {
    yaml += "- {apiVersion: v1, kind: Pod, metadata: {name: " + name +
            ", namespace: default}, spec: {schedulingGroup: {podGroupName: " + group +
            "}, containers: [{name: c, image: i, resources: {requests: {cpu: \"" + cpu + "\"}}}]}}\n";
  };
  // The informers list pods by name: fits' members arrive first, so its group is popped first.
  member("a1", "fits", "500m");
  member("a2", "fits", "500m");
  for (const char* p : {"b1", "b2", "b3"}) member(p, "too-big", "500m");  // 1 CPU is left once fits is placed
  member("s1", "short", "100m");
  member("s2", "short", "100m");
  member("lost", "missing", "100m");
  config::DecodeOptions decode;
  decode.features.genericWorkload = true;
  auto cfg = config::decodeConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
      "- schedulerName: default-scheduler\n",
      decode);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  SimulateOptions options;
  options.features.config.genericWorkload = true;
  options.features.plugins.enableGenericWorkload = true;  // as --feature-gates=GenericWorkload=true sets both

  client::MemoryClient cluster;
  ASSERT_TRUE(loadClusterText(yaml, "cluster.yaml", cluster, *cfg).ok());
  auto r = simulate(*cfg, cluster, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (const char* p : {"a1", "a2"}) EXPECT_EQ(find(*r, p).result, "Scheduled") << p;
  for (const char* p : {"b1", "b2", "b3"}) {
    EXPECT_EQ(find(*r, p).result, "Unschedulable") << p;
    EXPECT_EQ(find(*r, p).node, "") << p;
  }
  EXPECT_EQ(find(*r, "b3").message, "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(find(*r, "b1").message,
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group "
            "preemption: No preemption victims found for incoming preemptor");
  EXPECT_EQ(find(*r, "s1").message, "waiting for minCount pods from a gang to appear in scheduling queue");
  EXPECT_EQ(find(*r, "lost").message, "waiting for pods's pod group \"missing\" to appear in scheduling queue");
  ASSERT_TRUE(find(*r, "b1").podGroup.has_value());
  const PodGroupSummary& big = *find(*r, "b1").podGroup;
  EXPECT_EQ(big.name, "too-big");
  EXPECT_TRUE(big.found);
  EXPECT_EQ(big.policy, "gang");
  EXPECT_EQ(big.minCount, 3);
  EXPECT_EQ(big.members, 3);
  EXPECT_EQ(big.bound, 0);
  const std::string table = toTable(*r, true);
  EXPECT_NE(table.find("pod group default/short: gang, minCount 3: 2 member(s), 0 bound; below quorum, no member "
                       "is attempted until 3 exist"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("pod group default/missing: not found; its 1 member(s) wait for the PodGroup to be created"),
            std::string::npos)
      << table;
  EXPECT_NE(toJson(*r, false).find(R"("podGroup": {
        "name": "fits",
        "found": true,
        "policy": "gang",
        "minCount": 2,
        "members": 2,
        "bound": 2
      })"),
            std::string::npos)
      << toJson(*r, false);

  // One pod, as explain: its whole group is attempted with it, the other pending pods are not.
  client::MemoryClient fresh;
  ASSERT_TRUE(loadClusterText(yaml, "cluster.yaml", fresh, *cfg).ok());
  options.onlyPod = "default/b2";
  auto one = simulate(*cfg, fresh, options);
  ASSERT_TRUE(one.ok()) << one.error().message();
  ASSERT_EQ(one->pods.size(), 1u);
  // Alone, the 1.5 CPU gang fits on the 2 CPU node.
  EXPECT_EQ(one->pods[0].result, "Scheduled");
  EXPECT_EQ(fresh.get<api::Pod>("default", "b1")->spec.nodeName, "n1");
  EXPECT_EQ(fresh.get<api::Pod>("default", "a1")->spec.nodeName, "") << "a1 is not scheduled";
}

// Pods that can never be placed settle at once: with no nodes at all (an error, retried with backoff in
// the daemon) and with nodes that never fit. Backoffs pass in virtual time; before, the error pods
// spun until the 60 s "did not settle" fallback. The bound here only catches that regression.
TEST(SimulatorTest, NeverSchedulablePodsSettleAtOnce) {
  std::string noNodes = "apiVersion: v1\nkind: List\nitems:\n";
  for (const char* p : {"a", "b"}) {
    noNodes += std::string("- {apiVersion: v1, kind: Pod, metadata: {name: ") + p +
               ", namespace: default}, spec: {containers: [{name: c, image: i}]}}\n";
  }
  const auto start = std::chrono::steady_clock::now();
  auto r = run(noNodes);
  ASSERT_EQ(r.pods.size(), 2u);
  for (const auto& p : r.pods) {
    EXPECT_EQ(p.result, "Unschedulable") << p.name;
    EXPECT_EQ(p.message, "no nodes available to schedule pods") << p.name;
  }
  std::string tooBig =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: \"1\", memory: 1Gi, "
      "pods: \"110\"}}}\n"
      "- apiVersion: v1\n  kind: Pod\n  metadata: {name: big, namespace: default}\n  spec:\n    containers: "
      "[{name: c, image: i, resources: {requests: {cpu: \"2\"}}}]\n";
  r = run(tooBig);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not "
            "helpful for scheduling.");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Preemption in simulate: the high-priority pod evicts the one pod whose eviction violates no
// PodDisruptionBudget and lands there; a pod with preemptionPolicy Never evicts nothing. --explain (and
// -o json) report the nominated node and the victims.
TEST(SimulatorTest, PreemptionEvictsTheVictimsThatViolateNoBudget) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: low-1, namespace: default, uid: u-low-1, labels: {app: guarded}}
  spec: {nodeName: n1, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: 1500m}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: low-2, namespace: default, uid: u-low-2, labels: {app: free}}
  spec: {nodeName: n2, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: 1500m}}}]}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: guarded, namespace: default}
  spec: {minAvailable: 1, selector: {matchLabels: {app: guarded}}}
  status: {disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}
- apiVersion: v1
  kind: Pod
  metadata: {name: high, namespace: default, uid: u-high}
  spec: {priority: 100, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: polite, namespace: default, uid: u-polite}
  spec: {priority: 100, preemptionPolicy: Never, containers: [{name: c, image: i, resources: {requests: {cpu: 1500m}}}]}
)";
  auto r = run(yaml);
  const auto& high = find(r, "high");
  EXPECT_EQ(high.result, "Scheduled");
  EXPECT_EQ(high.node, "n2");
  EXPECT_EQ(high.nominatedNode, "n2");
  EXPECT_EQ(high.victims, std::vector<std::string>{"default/low-2"});
  const auto& polite = find(r, "polite");
  EXPECT_EQ(polite.result, "Unschedulable");
  EXPECT_EQ(polite.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_TRUE(polite.victims.empty());
  EXPECT_EQ(polite.nominatedNode, "");

  const std::string table = toTable(r, /*explain=*/true);
  EXPECT_NE(table.find("preemption: nominated to n2, evicted default/low-2"), std::string::npos) << table;
  const auto j = nlohmann::json::parse(toJson(r, /*explain=*/true));
  for (const auto& p : j["pods"]) {
    if (p["name"] != "high") continue;
    EXPECT_EQ(p["nominatedNode"], "n2");
    EXPECT_EQ(p["victims"], nlohmann::json::array({"default/low-2"}));
  }
}

// After its preemption the pod is retried on its nominated node first (upstream evaluateNominatedNode) and
// binds there, though the eviction made a better-scored node feasible too: the retry waits until the pod's
// nomination is back in the queue (synchronous preemption sends the pod to backoffQ at once, while its
// status patch still travels through the informer).
TEST(SimulatorTest, PreemptorBindsToItsNominatedNode) {
  auto r = run(R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {region: r1}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {region: r1}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: loner, namespace: default, uid: u-loner, labels: {app: loner}}
  spec:
    nodeName: n1
    priority: 0
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - {labelSelector: {matchLabels: {app: web}}, topologyKey: region}
    containers: [{name: c, image: i}]
- apiVersion: v1
  kind: Pod
  metadata: {name: busy, namespace: default, uid: u-busy}
  spec: {nodeName: n1, priority: 1000, containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, uid: u-web, labels: {app: web}}
  spec: {priority: 100, containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}
)");
  const auto& web = find(r, "web");
  EXPECT_EQ(web.nominatedNode, "n1");
  EXPECT_EQ(web.victims, std::vector<std::string>{"default/loner"});
  EXPECT_EQ(web.result, "Scheduled");
  EXPECT_EQ(web.node, "n1") << "n2 scores better once the loner is gone, but the nominated node is tried first";
}

// Volumes: the WaitForFirstConsumer claim binds the one PV whose node affinity matches, so the pod goes
// to n2 and the others are explained by VolumeBinding; the binding is assumed (no PV controller runs), so
// a second claim finds no PV left.
TEST(SimulatorTest, VolumeBindingChoosesTheNodeOfTheMatchingPV) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: local}, provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-n2, resourceVersion: "1"}
  spec:
    capacity: {storage: 1Gi}
    accessModes: [ReadWriteOnce]
    storageClassName: local
    nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n2]}]}]}}
  status: {phase: Available}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: default}
  spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data2, namespace: default}
  spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default, uid: u-web}
  spec: {containers: [{name: c, image: i}], volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web2, namespace: default, uid: u-web2}
  spec: {containers: [{name: c, image: i}], volumes: [{name: data, persistentVolumeClaim: {claimName: data2}}]}
)";
  auto r = run(yaml);
  const auto& web = find(r, "web");
  EXPECT_EQ(web.result, "Scheduled");
  EXPECT_EQ(web.node, "n2");
  ASSERT_EQ(web.filtered.count("n1"), 1u);
  EXPECT_EQ(web.filtered.at("n1").plugin, "VolumeBinding");
  EXPECT_EQ(web.filtered.at("n1").reasons,
            std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"});
  const auto& web2 = find(r, "web2");
  EXPECT_EQ(web2.result, "Unschedulable");
  EXPECT_EQ(web2.message,
            "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. preemption: 0/2 "
            "nodes are available: 2 Preemption is not helpful for scheduling.");
}

// DynamicResources: a pod's claim gets the device of the node whose slice matches the class, and the claim's
// status in the simulated cluster shows it; the next pod wanting one finds the only device taken.
TEST(SimulatorTest, ClaimsGetDevicesFromMatchingSlices) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu.example.com}, spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"'}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpu}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0, attributes: {model: {string: t4}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n2-gpu}
  spec:
    driver: gpu.example.com
    nodeName: n2
    pool: {name: n2, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0, attributes: {model: {string: a100}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: first, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: second, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: train, namespace: default, uid: u-train}
  spec: {containers: [{name: c, image: i}], resourceClaims: [{name: gpu, resourceClaimName: first}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: train2, namespace: default, uid: u-train2}
  spec: {containers: [{name: c, image: i}], resourceClaims: [{name: gpu, resourceClaimName: second}]}
)";
  auto cfg = demoConfig();
  client::MemoryClient cluster;
  auto loaded = loadClusterText(yaml, "cluster.yaml", cluster, cfg);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  auto r = simulate(cfg, cluster);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& train = find(*r, "train");
  EXPECT_EQ(train.result, "Scheduled");
  EXPECT_EQ(train.node, "n2");
  ASSERT_EQ(train.filtered.count("n1"), 1u);
  EXPECT_EQ(train.filtered.at("n1").plugin, "DynamicResources");
  EXPECT_EQ(train.filtered.at("n1").reasons, std::vector<std::string>{"cannot allocate all claims"});
  auto claim = cluster.getResourceClaim("default", "first");
  ASSERT_TRUE(claim.ok());
  ASSERT_TRUE(claim->status.allocation.has_value());
  ASSERT_EQ(claim->status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(claim->status.allocation->devices.results[0].pool, "n2");
  EXPECT_EQ(claim->status.allocation->devices.results[0].device, "gpu-0");
  ASSERT_EQ(claim->status.reservedFor.size(), 1u);
  EXPECT_EQ(claim->status.reservedFor[0].name, "train");
  ASSERT_EQ(train.devices.size(), 1u);
  EXPECT_EQ(train.devices[0].claim, "first");
  EXPECT_EQ(train.devices[0].request, "gpu");
  EXPECT_EQ(train.devices[0].device, "gpu.example.com/n2/gpu-0");
  EXPECT_NE(toTable(*r, true).find("  device: first/gpu -> gpu.example.com/n2/gpu-0\n"), std::string::npos);
  const auto& train2 = find(*r, "train2");
  EXPECT_EQ(train2.result, "Unschedulable");
  EXPECT_EQ(train2.message,
            "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes "
            "are available: 2 Preemption is not helpful for scheduling.");
}

// The resource.k8s.io kinds load into the in-memory API as given (a claim keeps its allocation, as a pod
// keeps its nodeName).
TEST(SimulatorTest, LoadsTheResourceKinds) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu.example.com}, spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: n1-gpu}
  spec:
    driver: gpu.example.com
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0, attributes: {model: {string: a100}}, capacity: {memory: {value: 80Gi}}}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu, namespace: default}
  spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: shared, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
  status:
    allocation:
      devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
)";
  auto cfg = demoConfig();
  client::MemoryClient cluster;
  auto loaded = loadClusterText(yaml, "cluster.yaml", cluster, cfg);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ(loaded->objectsByKind["DeviceClass"], 1);
  EXPECT_EQ(loaded->objectsByKind["ResourceSlice"], 1);
  EXPECT_EQ(loaded->objectsByKind["ResourceClaimTemplate"], 1);
  EXPECT_EQ(loaded->objectsByKind["ResourceClaim"], 1);
  auto claim = cluster.getResourceClaim("default", "shared");
  ASSERT_TRUE(claim.ok());
  ASSERT_TRUE(claim->status.allocation.has_value());
  EXPECT_EQ(claim->status.allocation->devices.results[0].device, "gpu-0");
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->count, 1);
  auto slice = cluster.get<api::ResourceSlice>("", "n1-gpu");
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(slice->spec.devices[0].capacity.at("memory").value.value(), 80LL << 30);
  EXPECT_TRUE(cluster.get<api::ResourceClaimTemplate>("default", "one-gpu").ok());
}

TEST(SimulatorTest, JsonShapeIsStable) {
  SimulationResult r;
  PodResult p;
  p.namespace_ = "ns";
  p.name = "p";
  p.profile = "default-scheduler";
  p.result = "Scheduled";
  p.node = "n1";
  p.filtered["n2"] = NodeRejection{"TaintToleration", {"node(s) had untolerated taint(s)"}};
  p.scores["n1"]["NodeAffinity"] = 100;
  p.totalScores["n1"] = 200;
  p.devices.push_back(DeviceAllocation{"c", "gpu", "d/pool/dev-0", {"broken:NoSchedule"}, {"attached"}});
  r.pods.push_back(p);
  auto j = nlohmann::json::parse(toJson(r, true));
  EXPECT_EQ(j["pods"][0]["namespace"], "ns");
  EXPECT_EQ(j["pods"][0]["result"], "Scheduled");
  EXPECT_EQ(j["pods"][0]["filtered"]["n2"]["plugin"], "TaintToleration");
  EXPECT_EQ(j["pods"][0]["filtered"]["n2"]["reasons"][0], "node(s) had untolerated taint(s)");
  EXPECT_EQ(j["pods"][0]["scores"]["n1"]["NodeAffinity"], 100);
  EXPECT_EQ(j["pods"][0]["totalScores"]["n1"], 200);
  EXPECT_EQ(j["pods"][0]["devices"][0]["device"], "d/pool/dev-0");
  EXPECT_EQ(j["pods"][0]["devices"][0]["tolerations"][0], "broken:NoSchedule");
  EXPECT_EQ(j["pods"][0]["devices"][0]["bindingConditions"][0], "attached");
  auto plain = nlohmann::json::parse(toJson(r, false));
  EXPECT_FALSE(plain["pods"][0].contains("filtered"));
  EXPECT_NE(toTable(r, true).find(
                "  device: c/gpu -> d/pool/dev-0 (tolerates broken:NoSchedule) (binds once attached)\n"),
            std::string::npos);
  EXPECT_NE(toTable(r, true).find("filtered: TaintToleration: node(s) had untolerated taint(s)"),
            std::string::npos);
}

struct BadInput {
  std::string name;
  std::string yaml;
  std::string error;
};

TEST(SimulatorTest, BadInputGetsClearErrors) {
  const std::vector<BadInput> cases = {
      {"unknown kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
       "cluster.yaml: document 1 (Deployment web): unknown kind \"Deployment\" (supported: Node, Pod, "
       "Namespace, "
       "PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver, CSIStorageCapacity, "
       "VolumeAttachment, PodDisruptionBudget, Service, ReplicationController, ReplicaSet, StatefulSet, "
       "DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceTaintRule, Workload, PodGroup)"},
      {"bad quantity in a list item",
       "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: "
       "{capacity: "
       "{cpu: lots}}}\n",
       "cluster.yaml: document 1: items[0] (Node n1): status.capacity.cpu: quantities must match the regular "
       "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"second document",
       "kind: Node\nmetadata: {name: n1}\n---\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: "
       "{priority: high}\n",
       "cluster.yaml: document 2 (Pod d/p): spec.priority: expected an integer, got string"},
      {"no kind", "metadata: {name: x}\n", "cluster.yaml: document 1 (object x): object has no kind"},
      // Pods the apiserver would refuse to create (its validation messages and field paths).
      {"invalid spread constraint in a list item",
       "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n"
       "- apiVersion: v1\n  kind: Pod\n  metadata: {name: x, namespace: default}\n"
       "  spec:\n    containers: [{name: c, image: i}]\n    topologySpreadConstraints:\n"
       "    - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeAffinityPolicy: Foo}\n",
       "cluster.yaml: document 1: items[1] (Pod default/x): [spec.topologySpreadConstraints[0].maxSkew: "
       "Invalid value: 0: must be greater than zero, spec.topologySpreadConstraints[0].nodeAffinityPolicy: "
       "Unsupported value: \"Foo\": supported values: \"Honor\", \"Ignore\"]"},
      {"preferred anti-affinity weight out of range",
       "kind: Node\nmetadata: {name: n1}\n---\nkind: Pod\nmetadata: {name: web, namespace: default}\n"
       "spec:\n  containers: [{name: c, image: i}]\n  affinity:\n    podAntiAffinity:\n"
       "      preferredDuringSchedulingIgnoredDuringExecution:\n"
       "      - weight: 1000\n"
       "        podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: zone}\n",
       "cluster.yaml: document 2 (Pod default/web): "
       "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
       "value: 1000: must be in the range 1-100"},
      {"bound pods are validated too",
       "kind: Pod\nmetadata: {name: z, namespace: default}\nspec:\n  nodeName: n1\n"
       "  containers: [{name: c, image: i}]\n"
       "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes}]\n",
       "cluster.yaml: document 1 (Pod default/z): spec.topologySpreadConstraints[0].whenUnsatisfiable: "
       "Unsupported value: \"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""},
      {"malformed yaml", "kind: Node\nmetadata: {name: [\n", "cluster.yaml: yaml: line"},
  };
  auto cfg = demoConfig();
  for (const auto& c : cases) {
    client::MemoryClient cluster;
    auto r = loadClusterText(c.yaml, "cluster.yaml", cluster, cfg);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.error().message().substr(0, c.error.size()), c.error)
        << c.name << ": " << r.error().message();
  }
}

TEST(SimulatorTest, MissingFileIsAnError) {
  client::MemoryClient cluster;
  auto r = loadClusterFile("/nonexistent/cluster.yaml", cluster, demoConfig());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "/nonexistent/cluster.yaml: cannot open the cluster file");
}

// simulate takes the daemon's --feature-gates, with its errors and refusals.
TEST(SimulatorTest, FeatureGatesFlag) {
  const std::string config = std::string(KS_SOURCE_DIR) + "/config/demo-scheduler.yaml";
  const std::string cluster = std::string(KS_SOURCE_DIR) + "/config/demo-cluster.yaml";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(runSimulateCommand({"--config", config, "--cluster", cluster, "--feature-gates", "Foo=true"}), 1);
  EXPECT_EQ(runSimulateCommand({"--config", config, "--cluster", cluster,
                                "--feature-gates=SchedulerAsyncAPICalls=true"}),
            1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, ::testing::HasSubstr("simulate: unrecognized feature gate: Foo\n"));
  EXPECT_THAT(err, ::testing::HasSubstr("simulate: feature gate SchedulerAsyncAPICalls=true is not supported by "
                             "kube-scheduler-cpp"));
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(runSimulateCommand({"--config", config, "--cluster", cluster, "-o", "json", "--feature-gates",
                                "kube:SchedulerPopFromBackoffQ=false", "--feature-gates=kube:StorageCapacityScoring=true"}),
            0);
  EXPECT_THAT(::testing::internal::GetCapturedStdout(), ::testing::HasSubstr("\"pods\""));
}

TEST(SimulatorTest, CommandLineErrors) {
  EXPECT_EQ(runSimulateCommand({"--cluster", "x.yaml"}), 2);
  EXPECT_EQ(runSimulateCommand({"--config", "a", "--cluster", "b", "-o", "xml"}), 2);
  EXPECT_EQ(runSimulateCommand({"--bogus"}), 2);
  EXPECT_EQ(runSimulateCommand({"--config", "/nonexistent.yaml", "--cluster", "b"}), 1);
}

}  // namespace
}  // namespace ks::simulator
