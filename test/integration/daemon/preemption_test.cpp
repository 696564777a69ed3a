// DefaultPreemption end to end: the real daemon on a real etcd + kube-apiserver, with
// kube-controller-manager's disruption controller computing PodDisruptionBudget status for real. There is
// no kubelet: FakeKubelet plays its two parts that matter here — bound pods become Running and Ready (so
// budgets count them healthy) and pods being deleted gracefully are finalized (what a kubelet does once
// the containers stopped) — nothing else.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"
#include "test/integration/harness/api_client.h"
#include "test/integration/harness/list_poller.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

// Marks bound pods Running + Ready and finalizes terminating pods (force delete), polling every 100 ms.
// Remembers each finalized pod's DisruptionTarget condition.
class FakeKubelet {
 public:
  explicit FakeKubelet(const std::string& kubeconfig)
      : poller_(kubeconfig, "/api/v1/pods", [this](ApiClient& api, const json& p) { visit(api, p); }) {}

  // "namespace/name" -> the pod's DisruptionTarget condition when it was finalized (null if it had none).
  std::map<std::string, json> finalized() const {
    std::lock_guard lock(mu_);
    return finalized_;
  }

 private:
  void visit(ApiClient& api, const json& p) {
    const std::string ns = p["metadata"]["namespace"], name = p["metadata"]["name"];
    const std::string path = "/api/v1/namespaces/" + ns + "/pods/" + name;
    const json status = p.value("status", json::object());
    if (p["metadata"].contains("deletionTimestamp")) {
      json disruption;
      for (const auto& c : status.value("conditions", json::array())) {
        if (c.value("type", "") == "DisruptionTarget") disruption = c;
      }
      if (auto r = api.del(path, {{"gracePeriodSeconds", 0}}); r.ok() && r->status < 300) {
        std::lock_guard lock(mu_);
        finalized_.emplace(ns + "/" + name, disruption);
      }
      return;
    }
    if (p["spec"].value("nodeName", "").empty() || status.value("phase", "") == "Running") return;
    const json running = {{"status",
                           {{"phase", "Running"},
                            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    (void)api.request("PATCH", path + "/status", &running, "application/strategic-merge-patch+json");
  }

  mutable std::mutex mu_;
  std::map<std::string, json> finalized_;
  ListPoller poller_;  // last: stopped before the members it uses go
};

class PreemptionTest : public DaemonTest {
 protected:
  ControlPlaneOptions controlPlaneOptions() const override {
    ControlPlaneOptions o;
    o.controllers = {"disruption-controller"};
    return o;
  }

  void SetUp() override {
    DaemonTest::SetUp();
    if (HasFatalFailure()) return;
    kubectlOk({"create", "namespace", "t"});
    std::vector<json> classes;
    for (const auto& [name, value] : std::map<std::string, int>{{"low", 10}, {"mid", 50}, {"high", 100}}) {
      classes.push_back(priorityClass(name, value));
    }
    json never = priorityClass("high-never", 100);
    never["preemptionPolicy"] = "Never";
    classes.push_back(never);
    kubectlOk({"create", "-f", "-"}, listOf(classes).dump());
    kubelet_ = std::make_unique<FakeKubelet>(cp_->kubeconfigPath());
  }
  void TearDown() override {
    kubelet_.reset();
    DaemonTest::TearDown();
  }

  static json priorityClass(const std::string& name, int value) {
    return {{"apiVersion", "scheduling.k8s.io/v1"},
            {"kind", "PriorityClass"},
            {"metadata", {{"name", name}}},
            {"value", value}};
  }

  // Nodes with 4 CPUs.
  void createSmallNodes(int n) {
    std::vector<json> nodes;
    for (int i = 0; i < n; ++i) {
      json node = nodeJson("node-" + std::to_string(i));
      node["status"]["capacity"]["cpu"] = "4";
      node["status"]["allocatable"]["cpu"] = "4";
      nodes.push_back(node);
    }
    kubectlOk({"create", "-f", "-"}, listOf(nodes).dump());
  }

  // A pod of our scheduler in namespace t; with `node` it is created bound there (an existing workload).
  static json pod(const std::string& name, const std::string& cpu, const std::string& priorityClass,
                  const std::string& node = "", const std::map<std::string, std::string>& labels = {}) {
    json p = podJson("t", name);
    p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
    p["spec"]["priorityClassName"] = priorityClass;
    if (!node.empty()) p["spec"]["nodeName"] = node;
    for (const auto& [k, v] : labels) p["metadata"]["labels"][k] = v;
    return p;
  }

  Process& startReadyDaemon() {
    uint16_t port = 0;
    Process& d = startDaemon({}, &port);
    EXPECT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());
    port_ = port;
    return d;
  }

  json getPod(const std::string& name) {
    auto r = cp_->kubectl({"get", "pod", "-n", "t", name, "-o", "json"});
    return r.ok() ? json::parse(*r) : json();
  }

  std::unique_ptr<FakeKubelet> kubelet_;
  uint16_t port_ = 0;
};

// A high-priority pod on a full cluster evicts the fewest, least important pods: one 1-CPU pod of low
// priority on node-0 rather than a 2-CPU pod of mid priority on node-1. The victim gets the
// DisruptionTarget condition and a Preempted event; the preemptor is nominated, then bound there (and the
// apiserver clears the nomination).
TEST_F(PreemptionTest, HighPriorityPodEvictsTheMinimumAndBindsThere) {
  createSmallNodes(2);
  std::vector<json> existing;
  for (int i = 0; i < 4; ++i) existing.push_back(pod("low-" + std::to_string(i), "1", "low", "node-0"));
  for (int i = 0; i < 2; ++i) existing.push_back(pod("mid-" + std::to_string(i), "2", "mid", "node-1"));
  kubectlOk({"create", "-f", "-"}, listOf(existing).dump());
  Process& d = startReadyDaemon();

  kubectlOk({"create", "-f", "-"}, pod("hi", "1", "high").dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "hi") == "node-0"; }, 60s))
      << tail(d.log()) << *cp_->kubectl({"get", "pods", "-n", "t", "-o", "wide"});
  // The nomination itself is gone once bound: kube-apiserver v1.37 clears nominatedNodeName when it binds
  // the pod (ClearingNominatedNodeNameAfterBinding, on by default); the victim's event below names node-0.
  const json hi = getPod("hi");
  EXPECT_EQ(hi["status"].value("nominatedNodeName", ""), "");

  const auto finalized = kubelet_->finalized();
  ASSERT_EQ(finalized.size(), 1u) << "exactly one victim";
  const auto& [victim, condition] = *finalized.begin();
  EXPECT_THAT(victim, ::testing::StartsWith("t/low-"));
  ASSERT_TRUE(condition.is_object()) << "the victim had no DisruptionTarget condition";
  EXPECT_EQ(condition.value("status", ""), "True");
  EXPECT_EQ(condition.value("reason", ""), "PreemptionByScheduler");
  EXPECT_EQ(condition.value("message", ""), "kube-scheduler-cpp: preempting to accommodate a higher priority pod");
  for (int i = 0; i < 2; ++i) EXPECT_EQ(nodeNameOf("t", "mid-" + std::to_string(i)), "node-1");

  const std::string victimName = victim.substr(2);
  ASSERT_TRUE(waitFor(
      [&] { return !events("t", "reason=Preempted,involvedObject.name=" + victimName).empty(); }, 15s));
  EXPECT_EQ(events("t", "reason=Preempted,involvedObject.name=" + victimName)[0].value("message", ""),
            "Preempted by pod " + hi["metadata"]["uid"].get<std::string>() + " on node node-0");

  auto metrics = httpsGet(port_, "/metrics");
  ASSERT_TRUE(metrics && metrics->first == 200);
  EXPECT_GE(metricValue(metrics->second, "scheduler_preemption_attempts_total", {}).value_or(0), 1);
  EXPECT_EQ(metricValue(metrics->second, "scheduler_preemption_victims_sum", {}).value_or(0), 1);
}

// With the same choice otherwise, the PodDisruptionBudget steers the eviction to the node whose victim
// doesn't violate it. The budget's status comes from the real disruption controller.
TEST_F(PreemptionTest, DisruptionBudgetSteersTheChoice) {
  createSmallNodes(2);
  kubectlOk({"create", "-f", "-"},
            listOf({pod("guarded", "4", "low", "node-0", {{"app", "guarded"}}),
                    pod("free", "4", "low", "node-1", {{"app", "free"}}),
                    {{"apiVersion", "policy/v1"},
                     {"kind", "PodDisruptionBudget"},
                     {"metadata", {{"name", "guarded"}, {"namespace", "t"}}},
                     {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "guarded"}}}}}}}}})
                .dump());
  ASSERT_TRUE(waitFor(
      [&] {
        auto r = cp_->kubectl({"get", "pdb", "-n", "t", "guarded", "-o",
                               "jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}"});
        return r.ok() && *r == "1/0";
      },
      30s))
      << tail(readFile(cp_->controllerManagerLog()));
  Process& d = startReadyDaemon();

  kubectlOk({"create", "-f", "-"}, pod("hi", "1", "high").dump());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "hi") == "node-1"; }, 60s)) << tail(d.log());
  const auto finalized = kubelet_->finalized();
  EXPECT_EQ(finalized.size(), 1u);
  EXPECT_TRUE(finalized.contains("t/free"));
  EXPECT_EQ(nodeNameOf("t", "guarded"), "node-0");
}

// preemptionPolicy: Never: the pod waits as unschedulable with upstream's message and evicts nothing.
TEST_F(PreemptionTest, PreemptionPolicyNeverEvictsNothing) {
  createSmallNodes(1);
  kubectlOk({"create", "-f", "-"}, pod("busy", "4", "low", "node-0").dump());
  Process& d = startReadyDaemon();
  kubectlOk({"create", "-f", "-"}, pod("polite", "1", "high-never").dump());
  const std::string want =
      "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
      "preemptionPolicy=Never.";
  ASSERT_TRUE(waitFor(
      [&] {
        auto r = cp_->kubectl({"get", "pod", "-n", "t", "polite", "-o",
                               "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"});
        return r.ok() && *r == want;
      },
      30s))
      << tail(d.log());
  std::this_thread::sleep_for(2s);
  EXPECT_TRUE(kubelet_->finalized().empty());
  EXPECT_EQ(nodeNameOf("t", "busy"), "node-0");
  EXPECT_EQ(nodeNameOf("t", "polite"), "");
}

// Two preemptors at once take two 1-CPU victims between them, not more: the second one's filters count
// the first one's nomination.
TEST_F(PreemptionTest, TwoPreemptorsEvictNoMoreThanNeeded) {
  createSmallNodes(2);
  std::vector<json> existing;
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 4; ++i) {
      existing.push_back(pod("low-" + std::to_string(n) + std::to_string(i), "1", "low", "node-" + std::to_string(n)));
    }
  }
  kubectlOk({"create", "-f", "-"}, listOf(existing).dump());
  Process& d = startReadyDaemon();
  kubectlOk({"create", "-f", "-"}, listOf({pod("hi-1", "1", "high"), pod("hi-2", "1", "high")}).dump());
  ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", "hi-1").empty() && !nodeNameOf("t", "hi-2").empty(); }, 60s))
      << tail(d.log()) << *cp_->kubectl({"get", "pods", "-n", "t", "-o", "wide"});
  std::this_thread::sleep_for(1s);  // a late extra eviction would show by now
  EXPECT_EQ(kubelet_->finalized().size(), 2u);
  EXPECT_EQ(boundCount("t"), 8);  // 6 of the 8 low-priority pods and the two preemptors
}

}  // namespace
}  // namespace ks::integration
