// Gang scheduling end to end (GenericWorkload, scheduling.k8s.io/v1beta1 PodGroup): the cases of upstream's
// TestPodGroupScheduling and TestWorkloadAwarePreemptionInvocation
// (test/integration/scheduler/podgroup/podgroup_test.go) that need no topology-aware placement, with the
// default profile (group preemption included), on a real etcd + kube-apiserver with the group served. Each
// case runs in its own namespace on its own 4-CPU node (its pods select it), one daemon for all of them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

class GangDaemonTest : public DaemonTest {
 protected:
  ControlPlaneOptions controlPlaneOptions() const override {
    return {.extraApiserverFlags = {"--runtime-config=scheduling.k8s.io/v1beta1=true",
                                    "--feature-gates=GenericWorkload=true"}};
  }

  void SetUp() override {
    DaemonTest::SetUp();
    if (HasFatalFailure()) return;
    std::vector<json> classes;
    for (const auto& [name, value] : std::map<std::string, int>{{"very-low", 5}, {"low", 10}, {"mid", 50}, {"high", 100}}) {
      classes.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                         {"kind", "PriorityClass"},
                         {"metadata", {{"name", name}}},
                         {"value", value}});
    }
    kubectlOk({"create", "-f", "-"}, listOf(classes).dump());
  }

  // The daemon with GenericWorkload and the default profile.
  Process& startGangDaemon(uint16_t* port) { return startDaemon({"--feature-gates=GenericWorkload=true"}, port); }

  // `explain -o json` of one pod with GenericWorkload, as the daemon is configured.
  json explainPod(const std::string& pod) {
    const std::string config = dir_ + "/explain.yaml";
    std::ofstream(config) << schedulerConfig(cp_->kubeconfigPath());
    auto r = runProcess({kBinary, "explain", "--config=" + config, "--feature-gates=GenericWorkload=true", "-o",
                         "json", pod},
                        {}, {}, 60s);
    EXPECT_TRUE(r.ok() && r->exitCode == 0) << (r.ok() ? r->err : r.error().message());
    if (!r.ok()) return json::object();
    json out = json::parse(r->out, nullptr, false);
    return out.is_object() && out["pods"].size() == 1 ? out["pods"][0] : json::object();
  }

  // A namespace and a node of 4 CPUs for one case; its pods select the node.
  void createCase(const std::string& ns) {
    kubectlOk({"create", "namespace", ns});
    json node = nodeJson("node-" + ns, {{"case", ns}});
    node["status"]["capacity"]["cpu"] = "4";
    node["status"]["allocatable"]["cpu"] = "4";
    kubectlOk({"create", "-f", "-"}, node.dump());
  }

  // A PodGroup: a gang of minCount, or a basic group when minCount is 0; of a PriorityClass (its priority
  // resolved by the apiserver) and disrupted whole (disruptionMode all) when asked.
  void createPodGroup(const std::string& ns, const std::string& name, int minCount,
                      const std::string& priorityClass = "", bool disruptAll = false) {
    json group = {{"apiVersion", "scheduling.k8s.io/v1beta1"},
                  {"kind", "PodGroup"},
                  {"metadata", {{"name", name}, {"namespace", ns}}},
                  {"spec", {{"schedulingPolicy", json::object()}}}};
    if (!priorityClass.empty()) group["spec"]["priorityClassName"] = priorityClass;
    if (disruptAll) group["spec"]["disruptionMode"] = {{"all", json::object()}};
    if (minCount > 0) {
      group["spec"]["schedulingPolicy"]["gang"] = {{"minCount", minCount}};
    } else {
      group["spec"]["schedulingPolicy"]["basic"] = json::object();
    }
    kubectlOk({"create", "-f", "-"}, group.dump());
  }

  // Pods of `cpu` each on the case's node, members of `group` unless it is empty.
  void createPods(const std::string& ns, const std::vector<std::string>& names, const std::string& group,
                  const std::string& cpu = "1", const std::string& priorityClass = "") {
    std::vector<json> pods;
    for (const auto& name : names) {
      json pod = podJson(ns, name, kSchedulerName, {{"case", ns}});
      pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
      if (!priorityClass.empty()) pod["spec"]["priorityClassName"] = priorityClass;
      pod["spec"]["terminationGracePeriodSeconds"] = 0;
      if (!group.empty()) pod["spec"]["schedulingGroup"] = {{"podGroupName", group}};
      pods.push_back(std::move(pod));
    }
    kubectlOk({"create", "-f", "-"}, listOf(pods).dump());
  }

  // name -> {nodeName, PodScheduled reason} of the case's pods.
  std::map<std::string, std::pair<std::string, std::string>> podStates(const std::string& ns) {
    std::map<std::string, std::pair<std::string, std::string>> out;
    auto r = cp_->kubectl({"get", "pods", "-n", ns, "-o", "json"});
    if (!r.ok()) return out;
    const json list = json::parse(*r);
    for (const auto& p : list["items"]) {
      std::string reason;
      for (const auto& c : p["status"].value("conditions", json::array())) {
        if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") reason = c.value("reason", "");
      }
      out[p["metadata"]["name"]] = {p["spec"].value("nodeName", ""), reason};
    }
    return out;
  }

  bool allScheduled(const std::string& ns, const std::vector<std::string>& names) {
    auto states = podStates(ns);
    for (const auto& n : names) {
      if (states[n].first.empty()) return false;
    }
    return true;
  }
  bool allUnschedulable(const std::string& ns, const std::vector<std::string>& names) {
    auto states = podStates(ns);
    for (const auto& n : names) {
      if (!states[n].first.empty() || states[n].second != "Unschedulable") return false;
    }
    return true;
  }

  // The group's PodGroupInitiallyScheduled condition as "status/reason" ("" when absent).
  std::string groupCondition(const std::string& ns, const std::string& name) {
    auto r = cp_->kubectl({"get", "podgroups.scheduling.k8s.io", "-n", ns, name, "-o",
                           "jsonpath={.status.conditions[?(@.type==\"PodGroupInitiallyScheduled\")].status}/"
                           "{.status.conditions[?(@.type==\"PodGroupInitiallyScheduled\")].reason}"});
    return r.ok() && *r != "/" ? *r : "";
  }

  bool allGone(const std::string& ns, const std::vector<std::string>& names) {
    auto states = podStates(ns);
    for (const auto& n : names) {
      if (states.contains(n)) return false;
    }
    return true;
  }

  // The messages of the "Preempted" events recorded on the pod.
  std::vector<std::string> preemptedEvents(const std::string& ns, const std::string& pod) {
    std::vector<std::string> out;
    auto r = cp_->kubectl({"get", "events", "-n", ns, "--field-selector", "involvedObject.name=" + pod, "-o", "json"});
    if (!r.ok()) return out;
    const json events = json::parse(*r);
    for (const auto& e : events["items"]) {
      if (e.value("reason", "") == "Preempted") out.push_back(e.value("message", e.value("note", "")));
    }
    return out;
  }

  // scheduler_pending_pods{queue} from the daemon's /metrics.
  double pendingPods(uint16_t port, const std::string& queue) {
    auto r = httpsGet(port, "/metrics");
    if (!r || r->first != 200) return -1;
    return metricValue(r->second, "scheduler_pending_pods", {{"queue", queue}}).value_or(-1);
  }
};

TEST_F(GangDaemonTest, PodGroupSchedulingAllOrNothing) {
  uint16_t port = 0;
  Process& d = startGangDaemon(&port);
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  {
    SCOPED_TRACE("gang schedules when pod group and resources are available");
    createCase("a");
    createPodGroup("a", "pg1", 3);
    createPods("a", {"p1", "p2", "p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("a", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return groupCondition("a", "pg1") == "True/Scheduled"; }, 10s))
        << groupCondition("a", "pg1");
  }
  {
    SCOPED_TRACE("any available pod group members get scheduled");
    createCase("b");
    createPodGroup("b", "pg1", 3);
    createPods("b", {"p1", "p2", "p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("b", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
    createPods("b", {"p4"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("b", {"p4"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("gang waits for quorum to start, then schedules");
    createCase("c");
    createPodGroup("c", "pg1", 3);
    createPods("c", {"p1", "p2"}, "pg1");
    // Gated at PreEnqueue (no quorum): no attempt, no condition.
    ASSERT_TRUE(waitFor([&] { return pendingPods(port, "gated") == 2; }, 20s)) << pendingPods(port, "gated");
    EXPECT_TRUE(podStates("c")["p1"].first.empty());
    // explain says why: the quorum.
    const json why = explainPod("c/p1");
    EXPECT_EQ(why.value("message", ""), "waiting for minCount pods from a gang to appear in scheduling queue") << why;
    EXPECT_EQ(why["podGroup"], json::parse(R"({"name":"pg1","found":true,"policy":"gang","minCount":3,"members":2,
                                                "bound":0})"))
        << why;
    createPods("c", {"p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("c", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("gang waits for pod group, then for resources, then schedules");
    createCase("d");
    createPods("d", {"blocker"}, "", "2");
    ASSERT_TRUE(waitFor([&] { return allScheduled("d", {"blocker"}); }, 30s)) << tail(d.log());
    createPods("d", {"p1", "p2", "p3"}, "pg1");
    // No PodGroup object yet: the members wait in the incomplete buffer.
    ASSERT_TRUE(waitFor([&] { return pendingPods(port, "incomplete") == 3; }, 20s))
        << pendingPods(port, "incomplete");
    createPodGroup("d", "pg1", 3);
    ASSERT_TRUE(waitFor([&] { return allUnschedulable("d", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return groupCondition("d", "pg1") == "False/Unschedulable"; }, 10s))
        << groupCondition("d", "pg1");
    // explain says why: the group's placement.
    const json why = explainPod("d/p1");
    EXPECT_EQ(why.value("result", ""), "Unschedulable") << why;
    EXPECT_EQ(why.value("message", ""),
              "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group "
              "preemption: No preemption victims found for incoming preemptor")
        << why;
    // All or nothing: two of the three would fit, none is bound.
    for (const auto& [name, state] : podStates("d")) {
      if (name != "blocker") {
        EXPECT_EQ(state.first, "") << name;
      }
    }
    kubectlOk({"delete", "pod", "-n", "d", "blocker", "--grace-period=0", "--force"});
    ASSERT_TRUE(waitFor([&] { return allScheduled("d", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return groupCondition("d", "pg1") == "True/Scheduled"; }, 10s))
        << groupCondition("d", "pg1");
  }
  {
    SCOPED_TRACE("minCount is scheduled, one pod waits until the blocked resources are released");
    createCase("e");
    createPods("e", {"small-blocker"}, "", "1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("e", {"small-blocker"}); }, 30s)) << tail(d.log());
    createPods("e", {"p1", "p2", "p3", "p4"}, "pg1");
    createPodGroup("e", "pg1", 3);
    ASSERT_TRUE(waitFor(
        [&] {
          int scheduled = 0, unschedulable = 0;
          for (const auto& [name, state] : podStates("e")) {
            if (name == "small-blocker") continue;
            scheduled += !state.first.empty();
            unschedulable += state.first.empty() && state.second == "Unschedulable";
          }
          return scheduled == 3 && unschedulable == 1;
        },
        30s))
        << tail(d.log());
    kubectlOk({"delete", "pod", "-n", "e", "small-blocker", "--grace-period=0", "--force"});
    ASSERT_TRUE(waitFor([&] { return allScheduled("e", {"p1", "p2", "p3", "p4"}); }, 30s)) << tail(d.log());
  }
  for (const bool reversed : {false, true}) {
    SCOPED_TRACE(std::string("two gangs competing for the same resources shouldn't deadlock") +
                 (reversed ? ", reversed order" : ""));
    const std::string ns = reversed ? "g" : "f";
    createCase(ns);
    createPodGroup(ns, "pg1", 3);
    createPodGroup(ns, "pg2", 3);
    // Interleaved, the first created pod's gang first.
    for (int i = 1; i <= 3; ++i) {
      const std::string n = std::to_string(reversed ? 4 - i : i);
      if (reversed) {
        createPods(ns, {"other-p" + n}, "pg2");
        createPods(ns, {"p" + n}, "pg1");
      } else {
        createPods(ns, {"p" + n}, "pg1");
        createPods(ns, {"other-p" + n}, "pg2");
      }
    }
    const std::vector<std::string> winners = reversed ? std::vector<std::string>{"other-p1", "other-p2", "other-p3"}
                                                      : std::vector<std::string>{"p1", "p2", "p3"};
    const std::vector<std::string> losers = reversed ? std::vector<std::string>{"p1", "p2", "p3"}
                                                     : std::vector<std::string>{"other-p1", "other-p2", "other-p3"};
    ASSERT_TRUE(waitFor([&] { return allScheduled(ns, winners); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return allUnschedulable(ns, losers); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("pod group interleaving with an individual pod: the individual pod gets scheduled");
    createCase("h");
    createPodGroup("h", "pg1", 3);
    createPods("h", {"blocker"}, "", "2");
    createPods("h", {"p1", "p2", "p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("h", {"blocker"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return allUnschedulable("h", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("basic group schedules when pod group and resources are available, without gang enforcement");
    createCase("i");
    createPodGroup("i", "pg1", 0);
    createPods("i", {"p1", "p2", "p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allScheduled("i", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("gang pods are unschedulable for lack of space, then scheduled when minCount is decreased");
    createCase("j");
    createPods("j", {"blocker"}, "", "2");
    ASSERT_TRUE(waitFor([&] { return allScheduled("j", {"blocker"}); }, 30s)) << tail(d.log());
    createPodGroup("j", "pg1", 3);
    createPods("j", {"p1", "p2", "p3"}, "pg1");
    ASSERT_TRUE(waitFor([&] { return allUnschedulable("j", {"p1", "p2", "p3"}); }, 30s)) << tail(d.log());
    kubectlOk({"patch", "podgroups.scheduling.k8s.io", "-n", "j", "pg1", "--type=merge", "-p",
               R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}})"});
    ASSERT_TRUE(waitFor(
        [&] {
          int scheduled = 0;
          for (const auto& [name, state] : podStates("j")) scheduled += name != "blocker" && !state.first.empty();
          return scheduled == 2;
        },
        30s))
        << tail(d.log());
  }
}

// Workload-aware preemption: DefaultPreemption's PodGroupPostFilter evicts lower-priority pods for a whole
// group (upstream's "... with workload-aware preemption" cases and TestWorkloadAwarePreemptionInvocation).
TEST_F(GangDaemonTest, PodGroupPreemption) {
  uint16_t port = 0;
  Process& d = startGangDaemon(&port);
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  {
    SCOPED_TRACE("basic group schedules with workload-aware preemption");
    createCase("k");
    createPods("k", {"low-priority-blocker"}, "", "2", "low");
    ASSERT_TRUE(waitFor([&] { return allScheduled("k", {"low-priority-blocker"}); }, 30s)) << tail(d.log());
    createPodGroup("k", "pg1", 0, "high");
    createPods("k", {"p1", "p2", "p3", "p4"}, "pg1", "1", "high");
    ASSERT_TRUE(waitFor([&] { return allScheduled("k", {"p1", "p2", "p3", "p4"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return allGone("k", {"low-priority-blocker"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("gang schedules with workload-aware preemption");
    createCase("l");
    createPods("l", {"low-p1", "low-p2", "low-p3", "low-p4"}, "", "1", "low");
    ASSERT_TRUE(waitFor([&] { return allScheduled("l", {"low-p1", "low-p2", "low-p3", "low-p4"}); }, 30s))
        << tail(d.log());
    createPodGroup("l", "pg1", 3, "high");
    createPods("l", {"p1", "p2", "p3", "p4"}, "pg1", "1", "high");
    ASSERT_TRUE(waitFor([&] { return allScheduled("l", {"p1", "p2", "p3", "p4"}); }, 30s)) << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return groupCondition("l", "pg1") == "True/Scheduled"; }, 10s))
        << groupCondition("l", "pg1");
    ASSERT_TRUE(waitFor([&] { return allGone("l", {"low-p1", "low-p2", "low-p3", "low-p4"}); }, 30s))
        << tail(d.log());
  }
  {
    SCOPED_TRACE("gang schedules with partial workload-aware preemption");
    createCase("m");
    createPods("m", {"very-low-p1", "very-low-p2"}, "", "1", "very-low");
    createPods("m", {"low-p1", "low-p2"}, "", "1", "low");
    ASSERT_TRUE(waitFor([&] { return allScheduled("m", {"very-low-p1", "very-low-p2", "low-p1", "low-p2"}); }, 30s))
        << tail(d.log());
    createPodGroup("m", "mid-pg", 2, "mid");
    createPods("m", {"mid-p1", "mid-p2"}, "mid-pg", "1", "mid");
    ASSERT_TRUE(waitFor([&] { return allScheduled("m", {"mid-p1", "mid-p2", "low-p1", "low-p2"}); }, 30s))
        << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return allGone("m", {"very-low-p1", "very-low-p2"}); }, 30s)) << tail(d.log());
  }
  {
    SCOPED_TRACE("workload-aware preemption is invoked for a group disrupted whole");
    createCase("n");
    createPods("n", {"low-1", "low-2", "low-3", "low-4"}, "", "1", "low");
    ASSERT_TRUE(waitFor([&] { return allScheduled("n", {"low-1", "low-2", "low-3", "low-4"}); }, 30s))
        << tail(d.log());
    createPodGroup("n", "pg1", 3, "high", /*disruptAll=*/true);
    createPods("n", {"high-1", "high-2", "high-3"}, "pg1", "1", "high");
    ASSERT_TRUE(waitFor(
        [&] {
          for (const char* low : {"low-1", "low-2", "low-3", "low-4"}) {
            for (const auto& m : preemptedEvents("n", low)) {
              if (m.starts_with("Preempted by podgroup")) return true;
            }
          }
          return false;
        },
        30s))
        << tail(d.log());
    ASSERT_TRUE(waitFor([&] { return allScheduled("n", {"high-1", "high-2", "high-3"}); }, 30s)) << tail(d.log());
  }
}

}  // namespace
}  // namespace ks::integration
