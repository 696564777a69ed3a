// Scheduler extenders end to end (issue 32): the real daemon on a real etcd + kube-apiserver with an
// extender process of the test's own on 127.0.0.1 — over HTTP, and over HTTPS requiring a client
// certificate — answering filter, prioritize, bind (through the API, as a real binder extender does) and
// preempt; an ignorable extender that is down; a non-ignorable one that hangs past httpTimeout (the pod
// stays pending with a clear event and is scheduled once the extender answers again).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/extender_server.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

class ExtenderTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    if (HasFatalFailure()) return;
    kubectlOk({"create", "namespace", "t"});
    auto api = ApiClient::create(cp_->kubeconfigPath());
    ASSERT_TRUE(api.ok()) << api.error().message();
    api_ = std::move(api).value();
  }

  // Binds through the API as a binder extender does (upstream's ExtenderBindingArgs).
  json bindThroughApi(const json& args) {
    const json binding = {{"apiVersion", "v1"},
                          {"kind", "Binding"},
                          {"metadata", {{"name", args["PodName"]}, {"namespace", args["PodNamespace"]},
                                        {"uid", args["PodUID"]}}},
                          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", args["Node"]}}}};
    std::lock_guard lock(apiMu_);
    auto r = api_->post("/api/v1/namespaces/" + args["PodNamespace"].get<std::string>() + "/pods/" +
                            args["PodName"].get<std::string>() + "/binding",
                        binding);
    if (!r.ok()) return {{"Error", r.error().message()}};
    if (r->status >= 300) return {{"Error", r->body.dump()}};
    return json::object();
  }

  Process& startReadyDaemon(const std::string& extendersYaml, uint16_t* portOut = nullptr) {
    uint16_t port = 0;
    Process& d = startDaemon({}, &port, extendersYaml);
    EXPECT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());
    if (portOut != nullptr) *portOut = port;
    return d;
  }

  json podOf(const std::string& name) {
    auto r = cp_->kubectl({"get", "pod", "-n", "t", name, "-o", "json"});
    return r.ok() ? json::parse(*r) : json();
  }

  std::string pkiFile(const std::string& name) const {
    const std::string& ca = cp_->caFile();
    return ca.substr(0, ca.rfind('/') + 1) + name;
  }

  std::unique_ptr<ApiClient> api_;
  std::mutex apiMu_;
};

json smallNode(const std::string& name) {
  json node = nodeJson(name);
  node["status"]["capacity"]["cpu"] = "1";
  node["status"]["allocatable"]["cpu"] = "1";
  return node;
}

json podWithCpu(const std::string& name, const std::string& cpu, const std::string& priorityClass = "",
                const std::string& node = "") {
  json p = podJson("t", name);
  p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
  if (!priorityClass.empty()) p["spec"]["priorityClassName"] = priorityClass;
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

TEST_F(ExtenderTest, FilterPrioritizeBindAndPreemptOverHttpWithAnIgnorableExtenderDown) {
  std::vector<json> nodes = {smallNode("node-0"), smallNode("node-1"), smallNode("node-2")};
  kubectlOk({"create", "-f", "-"}, listOf(nodes).dump());
  ExtenderServer ext([&](const std::string& verb, const json& args) -> json {
    if (verb == "filter") {
      json keep = json::array();
      json failed = json::object();
      for (const auto& n : args["Nodes"]["items"]) {
        if (n["metadata"]["name"] == "node-1") {
          failed["node-1"] = "no vGPU left on node-1";
        } else {
          keep.push_back(n);
        }
      }
      return {{"Nodes", {{"items", keep}}}, {"FailedNodes", failed}};
    }
    if (verb == "prioritize") {
      json out = json::array();
      for (const auto& n : args["Nodes"]["items"]) {
        out.push_back({{"Host", n["metadata"]["name"]}, {"Score", n["metadata"]["name"] == "node-2" ? 10 : 0}});
      }
      return out;
    }
    if (verb == "bind") return bindThroughApi(args);
    if (verb == "preempt") {
      // Keep every candidate with its victims, by UID (what an extender with its own cache answers).
      json meta = json::object();
      for (const auto& [node, v] : args["NodeNameToVictims"].items()) {
        json pods = json::array();
        for (const auto& p : v["Pods"]) pods.push_back({{"UID", p["metadata"]["uid"]}});
        meta[node] = {{"Pods", pods}, {"NumPDBViolations", v["NumPDBViolations"]}};
      }
      return {{"NodeNameToMetaVictims", meta}};
    }
    return json::object();
  });
  const std::string extenders = "extenders:\n"
                                "- urlPrefix: " + ext.url() + "\n"
                                "  filterVerb: filter\n"
                                "  prioritizeVerb: prioritize\n"
                                "  bindVerb: bind\n"
                                "  preemptVerb: preempt\n"
                                "  weight: 5\n"
                                "  httpTimeout: 5s\n"
                                "- urlPrefix: http://127.0.0.1:" + std::to_string(freePort()) + "\n"
                                "  filterVerb: filter\n"
                                "  ignorable: true\n";
  uint16_t port = 0;
  Process& d = startReadyDaemon(extenders, &port);

  // Filtered (node-1 out), prioritized (node-2 best), bound by the extender.
  kubectlOk({"create", "-f", "-"}, podWithCpu("a", "100m").dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "a") == "node-2"; }, 30s)) << tail(d.log());
  EXPECT_GE(ext.calls("filter"), 1);
  EXPECT_GE(ext.calls("prioritize"), 1);
  EXPECT_EQ(ext.calls("bind"), 1);
  EXPECT_TRUE(waitFor([&] { return !events("t", "involvedObject.name=a,reason=Scheduled").empty(); }, 10s));

  // Preemption: both usable nodes are full of low-priority pods; the high-priority pod preempts, the
  // extender's preempt verb agreeing.
  kubectlOk({"create", "-f", "-"},
            listOf({{{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "low"}}},
                     {"value", 10}},
                    {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", "high"}}},
                     {"value", 1000}},
                    podWithCpu("low-0", "900m", "low", "node-0"), podWithCpu("low-1", "800m", "low", "node-2")})
                .dump());
  kubectlOk({"create", "-f", "-"}, podWithCpu("high", "900m", "high").dump());
  ASSERT_TRUE(waitFor([&] { return ext.calls("preempt") >= 1; }, 30s)) << tail(d.log());
  ASSERT_TRUE(waitFor(
      [&] {
        const json p = podOf("high");
        return p.is_object() && !p["status"].value("nominatedNodeName", "").empty();
      },
      30s))
      << tail(d.log());

  // The per-extender metrics.
  auto metrics = httpsGet(port, "/metrics");
  ASSERT_TRUE(metrics.has_value());
  EXPECT_TRUE(metricValue(metrics->second, "scheduler_extender_request_duration_seconds_count",
                          {{"extender", ext.url()}, {"verb", "bind"}})
                  .value_or(0) >= 1)
      << metrics->second.substr(0, 2000);
  // The ignorable extender that is down: skipped, counted.
  EXPECT_GE(metricValue(metrics->second, "scheduler_extender_errors_total", {{"verb", "filter"}, {"kind", "transport"}})
                .value_or(0),
            1);
  // One kept-alive connection carried the calls (the scheduling thread's and the binding's may overlap).
  EXPECT_LE(ext.connections(), 3);
}

TEST_F(ExtenderTest, NodeCacheCapableFilterOverHttpsWithAClientCertificate) {
  createNodes(3);
  ExtenderServer ext(
      [&](const std::string& verb, const json& args) -> json {
        if (verb != "filter") return json::object();
        json names = json::array();
        for (const auto& n : args["NodeNames"]) {
          if (n != "node-0" && n != "node-1") names.push_back(n);
        }
        return {{"NodeNames", names}, {"FailedAndUnresolvableNodes", {{"node-0", "x"}, {"node-1", "y"}}}};
      },
      ExtenderServer::Tls{pkiFile("apiserver.crt"), pkiFile("apiserver.key"), cp_->caFile()});
  const std::string extenders = "extenders:\n"
                                "- urlPrefix: " + ext.url() + "/\n"
                                "  filterVerb: filter\n"
                                "  nodeCacheCapable: true\n"
                                "  enableHTTPS: true\n"
                                "  tlsConfig:\n"
                                "    caFile: " + cp_->caFile() + "\n"
                                "    certFile: " + cp_->clientCertFile() + "\n"
                                "    keyFile: " + cp_->clientKeyFile() + "\n"
                                "    serverName: localhost\n";
  Process& d = startReadyDaemon(extenders);
  for (int i = 0; i < 3; ++i) kubectlOk({"create", "-f", "-"}, podWithCpu("p" + std::to_string(i), "10m").dump());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "p" + std::to_string(i)) == "node-2"; }, 30s)) << tail(d.log());
  }
  EXPECT_EQ(ext.calls("filter"), 3);
  EXPECT_EQ(ext.connections(), 1);  // one TLS handshake for the three calls
}

TEST_F(ExtenderTest, NonIgnorableExtenderThatTimesOutLeavesThePodPendingWithAClearEvent) {
  createNodes(2);
  std::atomic<bool> hang{true};
  ExtenderServer ext([&](const std::string&, const json& args) -> json {
    if (hang) std::this_thread::sleep_for(2s);
    return {{"Nodes", args["Nodes"]}};
  });
  const std::string extenders = "extenders:\n"
                                "- urlPrefix: " + ext.url() + "\n"
                                "  filterVerb: filter\n"
                                "  httpTimeout: 500ms\n";
  Process& d = startReadyDaemon(extenders);
  kubectlOk({"create", "-f", "-"}, podWithCpu("slow", "10m").dump());
  const std::string want = "Post \"" + ext.url() +
                           "/filter\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
  ASSERT_TRUE(waitFor(
      [&] {
        for (const auto& e : events("t", "involvedObject.name=slow,reason=FailedScheduling")) {
          if (e.value("message", "") == want) return true;
        }
        return false;
      },
      30s))
      << tail(d.log());
  const json pod = podOf("slow");
  EXPECT_EQ(pod["spec"].value("nodeName", ""), "");
  bool conditionSeen = false;
  for (const auto& c : pod["status"].value("conditions", json::array())) {
    if (c["type"] == "PodScheduled") {
      conditionSeen = true;
      EXPECT_EQ(c["status"], "False");
      EXPECT_EQ(c["reason"], "SchedulerError");
      EXPECT_EQ(c["message"], want);
    }
  }
  EXPECT_TRUE(conditionSeen);
  // Not lost: once the extender answers in time, the retry schedules it.
  hang = false;
  EXPECT_TRUE(waitFor([&] { return !nodeNameOf("t", "slow").empty(); }, 60s)) << tail(d.log());
}

}  // namespace
}  // namespace ks::integration
