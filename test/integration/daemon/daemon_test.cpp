// The real kube-scheduler-cpp binary against a real etcd + kube-apiserver on 127.0.0.1 (the harness's
// ControlPlane). No kubelets: Nodes are plain objects created with kubectl. Pods are created with kubectl and
// the test checks what the scheduler wrote back: spec.nodeName, PodScheduled conditions, events, the Lease,
// and the /metrics it serves over HTTPS.

#include <signal.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// a, c, f, g (without leader election): pods of our profile get bound, with a Scheduled event; pods of
// another scheduler are never touched; /metrics counts the attempts; SIGTERM exits 0.
TEST_F(DaemonTest, BindsPodsRecordsEventsAndServesEndpoints) {
  createNodes(3);
  // Nodes are plain objects: check that a status patch of kubectl v1.32 reaches apiserver 1.34.
  kubectlOk({"patch", "node", "node-0", "--subresource=status", "--type=merge", "-p",
             R"({"status":{"allocatable":{"cpu":"16","memory":"32Gi","pods":"110"}}})"});
  auto cpu = cp_->kubectl({"get", "node", "node-0", "-o", "jsonpath={.status.allocatable.cpu}"});
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(*cpu, "16");
  kubectlOk({"create", "namespace", "t"});

  uint16_t port = 0;
  Process& d = startDaemon({}, &port);
  ASSERT_TRUE(d.started());
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  std::vector<json> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(podJson("t", "p" + std::to_string(i)));
  pods.push_back(podJson("t", "other", "someone-else"));
  kubectlOk({"create", "-f", "-"}, listOf(pods).dump());

  ASSERT_TRUE(waitFor([&] { return boundCount("t") == 5; }, 30s))
      << tail(d.log()) << *cp_->kubectl({"get", "pods", "-A", "-o", "wide"});
  for (int i = 0; i < 5; ++i) {
    EXPECT_THAT(nodeNameOf("t", "p" + std::to_string(i)), ::testing::StartsWith("node-"));
  }
  ASSERT_TRUE(
      waitFor([&] { return events("t", "reason=Scheduled,involvedObject.name=p0").size() == 1; }, 15s));
  const json ev = events("t", "reason=Scheduled,involvedObject.name=p0")[0];
  EXPECT_THAT(ev.value("message", ""), ::testing::MatchesRegex("Successfully assigned t/p0 to node-[0-9]"));
  EXPECT_EQ(ev.value("reportingComponent", ""), kSchedulerName);

  // The other scheduler's pod: no node, no condition, no event, after a while.
  std::this_thread::sleep_for(2s);
  auto other = cp_->kubectl({"get", "pod", "-n", "t", "other", "-o", "json"});
  ASSERT_TRUE(other.ok());
  const json o = json::parse(*other);
  EXPECT_EQ(o["spec"].value("nodeName", ""), "");
  EXPECT_FALSE(o.contains("status") && o["status"].contains("conditions")) << o["status"].dump();
  EXPECT_TRUE(events("t", "involvedObject.name=other").empty());

  // Endpoints.
  auto healthz = httpsGet(port, "/healthz");
  ASSERT_TRUE(healthz);
  EXPECT_EQ(healthz->first, 200);
  EXPECT_EQ(healthz->second, "ok");
  auto livez = httpsGet(port, "/livez");
  ASSERT_TRUE(livez);
  EXPECT_EQ(livez->first, 200);
  auto configz = httpsGet(port, "/configz");
  ASSERT_TRUE(configz);
  ASSERT_EQ(configz->first, 200);
  const json cz = json::parse(configz->second);
  EXPECT_EQ(cz["componentconfig"]["profiles"][0]["schedulerName"], kSchedulerName);
  auto metrics = httpsGet(port, "/metrics");
  ASSERT_TRUE(metrics);
  ASSERT_EQ(metrics->first, 200);
  auto scheduled = metricValue(metrics->second, "scheduler_schedule_attempts_total",
                               {{"profile", kSchedulerName}, {"result", "scheduled"}});
  ASSERT_TRUE(scheduled) << "scheduler_schedule_attempts_total{result=scheduled} absent from the scrape";
  EXPECT_EQ(*scheduled, 5);
  // What upstream's libraries add to /metrics: the process collector, client-go's request metrics (each
  // binding is a POST answered 201; events are POSTed with 201 too) and the build info.
  auto rss = metricValue(metrics->second, "process_resident_memory_bytes", {});
  ASSERT_TRUE(rss) << "process_resident_memory_bytes absent";
  EXPECT_GT(*rss, 0);
  auto posts = metricValue(metrics->second, "rest_client_requests_total", {{"method", "POST"}, {"code", "201"}});
  ASSERT_TRUE(posts) << "rest_client_requests_total{method=POST,code=201} absent";
  EXPECT_GE(*posts, 5);
  auto build = metricValue(metrics->second, "kubernetes_build_info", {{"git_version", "v" KS_VERSION}});
  ASSERT_TRUE(build) << "kubernetes_build_info absent";
  EXPECT_EQ(*build, 1);
  // /metrics/resources (this instance leads: no leader election): the bound pod's request.
  auto resources = httpsGet(port, "/metrics/resources");
  ASSERT_TRUE(resources);
  ASSERT_EQ(resources->first, 200);
  auto cpu0 = metricValue(resources->second, "kube_pod_resource_request",
                          {{"namespace", "t"}, {"pod", "p0"}, {"resource", "cpu"}, {"unit", "cores"},
                           {"scheduler", kSchedulerName}, {"node", nodeNameOf("t", "p0")}});
  ASSERT_TRUE(cpu0) << resources->second;
  EXPECT_DOUBLE_EQ(*cpu0, 0.01);
  // /metrics/slis: the /healthz and /livez requests above.
  auto slis = httpsGet(port, "/metrics/slis");
  ASSERT_TRUE(slis);
  auto ping = metricValue(slis->second, "kubernetes_healthchecks_total",
                          {{"name", "ping"}, {"type", "livez"}, {"status", "success"}});
  ASSERT_TRUE(ping) << slis->second;
  EXPECT_GE(*ping, 1);

  d.signal(SIGTERM);
  auto code = d.waitExit(40s);
  ASSERT_TRUE(code) << "no exit within 40s after SIGTERM\n" << tail(d.log());
  EXPECT_EQ(*code, 0) << tail(d.log());
}

// b: an unschedulable pod gets PodScheduled=False/Unschedulable with upstream's message and a
// FailedScheduling event; labelling a node makes it schedulable at once (event-driven requeue).
TEST_F(DaemonTest, UnschedulablePodIsRequeuedWhenANodeMatches) {
  createNodes(3);
  kubectlOk({"create", "namespace", "t"});
  uint16_t port = 0;
  Process& d = startDaemon({}, &port);
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  kubectlOk({"create", "-f", "-"}, podJson("t", "picky", kSchedulerName, {{"disk", "ssd"}}).dump());
  std::string reason, message;
  ASSERT_TRUE(waitFor(
      [&] {
        auto r = cp_->kubectl({"get", "pod", "-n", "t", "picky", "-o",
                               "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].status}|"
                               "{.status.conditions[?(@.type==\"PodScheduled\")].reason}|"
                               "{.status.conditions[?(@.type==\"PodScheduled\")].message}"});
        if (!r.ok()) return false;
        const std::string& s = *r;
        size_t a = s.find('|'), b = s.find('|', a + 1);
        if (a == std::string::npos || b == std::string::npos || s.substr(0, a) != "False") return false;
        reason = s.substr(a + 1, b - a - 1);
        message = s.substr(b + 1);
        return true;
      },
      30s))
      << tail(d.log());
  EXPECT_EQ(reason, "Unschedulable");
  EXPECT_EQ(message,
            "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  ASSERT_TRUE(waitFor(
      [&] { return !events("t", "reason=FailedScheduling,involvedObject.name=picky").empty(); }, 15s));
  EXPECT_EQ(events("t", "reason=FailedScheduling,involvedObject.name=picky")[0].value("message", ""),
            message);

  const auto labelled = Clock::now();
  kubectlOk({"label", "node", "node-1", "disk=ssd"});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "picky") == "node-1"; }, 20s)) << tail(d.log());
  const double secs = std::chrono::duration<double>(Clock::now() - labelled).count();
  std::printf("unschedulable pod bound %.2f s after the node was labelled\n", secs);
  EXPECT_LT(secs, 15.0);  // event-driven: far below the 5-minute unschedulable flush
}

// d, g: two candidates on one Lease: exactly one schedules; SIGKILL of the leader hands over within
// leaseDuration + a few seconds; SIGTERM of the new leader releases the Lease and exits 0.
TEST_F(DaemonTest, LeaderElectionHandoverAndRelease) {
  createNodes(3);
  kubectlOk({"create", "namespace", "t"});
  const std::vector<std::string> le{"--leader-elect=true", "--leader-elect-lease-duration=4s",
                                    "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=1s"};
  uint16_t portA = 0, portB = 0;
  Process& a = startDaemon(le, &portA);
  ASSERT_TRUE(waitFor([&] { return leaseHolder() != "<error>" && !leaseHolder().empty(); }, 30s))
      << tail(a.log());
  Process& b = startDaemon(le, &portB);
  ASSERT_TRUE(waitFor([&] { return ready(portA) && ready(portB); }, 30s)) << tail(a.log()) << tail(b.log());
  const std::string holderA = leaseHolder();
  EXPECT_THAT(a.log(), HasSubstr("successfully acquired lease kube-system/kube-scheduler-cpp"));
  EXPECT_THAT(b.log(), ::testing::Not(HasSubstr("successfully acquired lease")));

  std::vector<json> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(podJson("t", "p" + std::to_string(i)));
  kubectlOk({"create", "-f", "-"}, listOf(pods).dump());
  ASSERT_TRUE(waitFor([&] { return boundCount("t") == 6; }, 30s)) << tail(a.log());

  auto scheduledOn = [&](uint16_t port) {
    auto m = httpsGet(port, "/metrics");
    if (!m || m->first != 200) return -1.0;
    return metricValue(m->second, "scheduler_schedule_attempts_total",
                       {{"profile", kSchedulerName}, {"result", "scheduled"}})
        .value_or(0);
  };
  EXPECT_EQ(scheduledOn(portA), 6);
  EXPECT_EQ(scheduledOn(portB), 0);
  auto leaderStatus = [&](uint16_t port) {
    auto m = httpsGet(port, "/metrics");
    return m ? metricValue(m->second, "leader_election_master_status", {{"name", "kube-scheduler"}})
             : std::nullopt;
  };
  EXPECT_EQ(leaderStatus(portA), 1.0);
  EXPECT_EQ(leaderStatus(portB).value_or(0), 0.0);
  // /metrics/resources: only the leader reports (upstream's isLeader); the standby answers an empty 200.
  auto resourcesA = httpsGet(portA, "/metrics/resources");
  auto resourcesB = httpsGet(portB, "/metrics/resources");
  ASSERT_TRUE(resourcesA && resourcesB);
  EXPECT_EQ(resourcesA->first, 200);
  EXPECT_TRUE(metricValue(resourcesA->second, "kube_pod_resource_request", {{"pod", "p0"}, {"resource", "cpu"}}))
      << resourcesA->second;
  EXPECT_EQ(resourcesB->first, 200);
  EXPECT_EQ(resourcesB->second, "");
  EXPECT_TRUE(waitFor([&] { return !events("kube-system", "reason=LeaderElection").empty(); }, 10s));

  // Kill the leader; the other candidate takes over within leaseDuration (4s) + retry jitter.
  const auto killed = Clock::now();
  a.signal(SIGKILL);
  ASSERT_TRUE(a.waitExit(10s));
  ASSERT_TRUE(waitFor(
      [&] {
        const auto h = leaseHolder();
        return !h.empty() && h != holderA && h != "<error>";
      },
      15s, 100ms))
      << tail(b.log());
  const double handover = std::chrono::duration<double>(Clock::now() - killed).count();
  std::printf("leader handover took %.2f s (leaseDuration 4s)\n", handover);
  EXPECT_LT(handover, 4.0 + 5.0);

  // The new leader schedules.
  kubectlOk({"create", "-f", "-"}, podJson("t", "after-handover").dump());
  ASSERT_TRUE(waitFor([&] { return !nodeNameOf("t", "after-handover").empty(); }, 20s)) << tail(b.log());
  EXPECT_EQ(scheduledOn(portB), 1);

  // SIGTERM: exit 0 and the Lease is released (holderIdentity empty).
  b.signal(SIGTERM);
  auto code = b.waitExit(40s);
  ASSERT_TRUE(code) << tail(b.log());
  EXPECT_EQ(*code, 0) << tail(b.log());
  EXPECT_EQ(leaseHolder(), "");
}

// e: restarting kube-apiserver while pods are being created loses and double-binds nothing.
TEST_F(DaemonTest, ApiserverRestartLosesNothing) {
  createNodes(4);
  kubectlOk({"create", "namespace", "t"});
  uint16_t port = 0;
  Process& d = startDaemon({}, &port);
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  constexpr int kBatches = 6, kPerBatch = 10;
  std::map<std::string, std::string> firstSeen;  // pod -> first nodeName observed
  auto observe = [&] {
    for (const auto& [name, node] : podNodes("t")) {
      if (node.empty()) continue;
      auto [it, inserted] = firstSeen.emplace(name, node);
      EXPECT_EQ(it->second, node) << "pod " << name << " moved";
    }
  };
  for (int b = 0; b < kBatches; ++b) {
    std::vector<json> pods;
    for (int i = 0; i < kPerBatch; ++i)
      pods.push_back(podJson("t", "b" + std::to_string(b) + "-" + std::to_string(i)));
    // kubectl retries nothing: while the apiserver is down the batch is re-sent.
    ASSERT_TRUE(waitFor(
        [&] {
          return cp_->kubectl({"create", "-f", "-"}, listOf(pods).dump()).ok() ||
                 cp_->kubectl({"get", "pod", "-n", "t", "b" + std::to_string(b) + "-0"}).ok();
        },
        60s, 500ms));
    if (b == 2) {
      auto r = cp_->restartApiserver();
      ASSERT_TRUE(r.ok()) << r.error().message();
    }
    observe();
  }
  ASSERT_TRUE(waitFor(
      [&] {
        observe();
        return boundCount("t") == kBatches * kPerBatch;
      },
      90s, 500ms))
      << boundCount("t") << " bound\n"
      << tail(d.log());
  observe();
  EXPECT_EQ(firstSeen.size(), static_cast<size_t>(kBatches * kPerBatch));
  // No binding conflicts were reported.
  for (const auto& e : events("t", "reason=FailedScheduling")) {
    EXPECT_THAT(e.value("message", ""), ::testing::Not(HasSubstr("already assigned")));
  }
  EXPECT_TRUE(ready(port));
  d.signal(SIGTERM);
  auto code = d.waitExit(40s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 0) << tail(d.log());
}

// End-to-end throughput on the test control plane: 500 pods over 20 nodes, created by one kubectl call.
TEST_F(DaemonTest, ThroughputReport) {
  constexpr int kNodes = 20, kPods = 500;
  createNodes(kNodes);
  kubectlOk({"create", "namespace", "perf"});
  kubectlOk({"create", "namespace", "backlog"});
  auto podList = [&](const std::string& ns) {
    std::vector<json> pods;
    for (int i = 0; i < kPods; ++i) pods.push_back(podJson(ns, "p" + std::to_string(i)));
    return listOf(pods).dump();
  };
  // A backlog created before the scheduler starts: measures the scheduler alone (list, sync, schedule, bind).
  kubectlOk({"create", "-f", "-"}, podList("backlog"));
  uint16_t port = 0;
  // Client rate limits raised from the 50/100 defaults so that the API server, not the token bucket, is
  // measured (upstream's defaults would cap binding + event writes at ~50/s).
  Process& d = startDaemon({}, &port, "  qps: 1000\n  burst: 2000\n");
  const auto daemonStart = Clock::now();
  ASSERT_TRUE(waitFor([&] { return boundCount("backlog") == kPods; }, 180s, 100ms)) << tail(d.log());
  const double backlogS = std::chrono::duration<double>(Clock::now() - daemonStart).count();
  std::printf(
      "THROUGHPUT: backlog of %d pods over %d nodes bound %.2f s after the daemon started "
      "(%.0f pods/s, including startup and informer sync)\n",
      kPods, kNodes, backlogS, kPods / backlogS);
  ASSERT_TRUE(ready(port));

  const std::string list = podList("perf");
  const auto t0 = Clock::now();
  kubectlOk({"create", "-f", "-"}, list);
  const auto created = Clock::now();
  auto scheduledCount = [&] {
    auto m = httpsGet(port, "/metrics");
    if (!m) return 0.0;
    return metricValue(m->second, "scheduler_schedule_attempts_total",
                       {{"profile", kSchedulerName}, {"result", "scheduled"}})
        .value_or(0);
  };
  ASSERT_TRUE(waitFor([&] { return boundCount("perf") == kPods; }, 180s, 250ms)) << tail(d.log());
  const auto bound = Clock::now();
  const double createS = std::chrono::duration<double>(created - t0).count();
  const double totalS = std::chrono::duration<double>(bound - t0).count();
  const double afterCreateS = std::chrono::duration<double>(bound - created).count();
  std::printf(
      "THROUGHPUT: %d pods over %d nodes: kubectl create %.2f s (%.0f pods/s); all bound %.2f s after "
      "the start (%.0f pods/s end to end), %.2f s after kubectl returned\n",
      kPods, kNodes, createS, kPods / createS, totalS, kPods / totalS, afterCreateS);
  EXPECT_EQ(scheduledCount(), 2 * kPods);
}

}  // namespace
}  // namespace ks::integration
