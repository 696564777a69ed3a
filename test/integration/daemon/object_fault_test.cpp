// Issue 15, object-level faults: the objects a binding depends on change under it. The real daemon on a
// real etcd + kube-apiserver; a pod is held in the binding cycle by VolumeBinding's PreBind, which waits for
// kube-controller-manager's PV controller to bind the pod's claim (stopped here while the pod is held).
//   - the node the pod is assumed on is deleted;
//   - the pod itself is deleted;
//   - another scheduler binds the pod first (our Binding gets 409);
//   - RBAC forbids pods/binding (403 on every attempt) until the role is fixed.
// Each test checks that no pod is bound twice or lost, and that the daemon's scheduler_cache_size gauges
// end equal to what the apiserver holds. The Permit cases are in test/scheduler/core/scheduler_test.cpp.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"
#include "test/integration/harness/api_client.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::HasSubstr;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class ObjectFaultTest : public PvBinderDaemonTest {
 protected:
  // A node with 1 CPU: two pods of 600m don't fit together.
  static json smallNode(const std::string& name) {
    json n = nodeJson(name);
    n["status"]["capacity"]["cpu"] = "1";
    n["status"]["allocatable"]["cpu"] = "1";
    return n;
  }

  static json pod(const std::string& name, const std::string& cpu, const std::string& claimName = "",
                  const std::string& node = "") {
    json p = podJson("t", name);
    p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
    if (!claimName.empty()) {
      p["spec"]["volumes"] = {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claimName}}}}};
    }
    if (!node.empty()) p["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", node}};
    return p;
  }

  void create(const std::vector<json>& objects) { kubectlOk({"create", "-f", "-"}, listOf(objects).dump()); }

  // A WaitForFirstConsumer class, PV pv-0 (local on `node`, or hostPath without node affinity when empty)
  // and claim "data"; once the PV controller has made the PV Available it is stopped, so that a pod using
  // the claim waits in PreBind.
  void createClaimThatWillHoldItsPod(const std::string& node) {
    json pv = {{"apiVersion", "v1"},
               {"kind", "PersistentVolume"},
               {"metadata", {{"name", "pv-0"}}},
               {"spec",
                {{"capacity", {{"storage", "1Gi"}}},
                 {"accessModes", {"ReadWriteOnce"}},
                 {"storageClassName", "local"},
                 {"persistentVolumeReclaimPolicy", "Retain"}}}};
    if (node.empty()) {
      pv["spec"]["hostPath"] = {{"path", "/tmp/pv-0"}};
    } else {
      pv["spec"]["local"] = {{"path", "/mnt/pv-0"}};
      pv["spec"]["nodeAffinity"] = {
          {"required",
           {{"nodeSelectorTerms",
             {{{"matchExpressions",
                {{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {node}}}}}}}}}}};
    }
    create({{{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", "local"}}},
             {"provisioner", "kubernetes.io/no-provisioner"},
             {"volumeBindingMode", "WaitForFirstConsumer"}},
            pv,
            {{"apiVersion", "v1"},
             {"kind", "PersistentVolumeClaim"},
             {"metadata", {{"name", "data"}, {"namespace", "t"}}},
             {"spec",
              {{"accessModes", {"ReadWriteOnce"}},
               {"storageClassName", "local"},
               {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}});
    stopControllerOnceAvailable("pv-0");
  }

  // bindTimeoutSeconds far beyond the tests: a PreBind that ends did so for the reason under test.
  Process& startReadyDaemon(const std::string& kubeconfig = "") {
    const std::string profileExtra =
        "    pluginConfig:\n"
        "      - name: VolumeBinding\n"
        "        args:\n"
        "          bindTimeoutSeconds: 300\n";
    Process& d = startDaemonWithConfig(
        schedulerConfig(kubeconfig.empty() ? cp_->kubeconfigPath() : kubeconfig, "", profileExtra), {}, &port_);
    EXPECT_TRUE(waitFor([&] { return ready(port_); }, 30s)) << tail(d.log());
    return d;
  }

  // Creates `held` (a pod using claim "data" of createClaimThatWillHoldItsPod), starts the daemon and
  // waits until the pod waits in PreBind.
  Process& startWithPodHeldInPreBind(const json& held) {
    create({held});
    Process& d = startReadyDaemon();
    EXPECT_TRUE(waitFor([&] { return heldInPreBind(); }, 30s)) << tail(d.log()) << debugState();
    return d;
  }

  std::string metrics() {
    auto r = httpsGet(port_, "/metrics");
    return r && r->first == 200 ? r->second : "";
  }
  double metric(const std::string& name, const std::map<std::string, std::string>& labels) {
    return metricValue(metrics(), name, labels).value_or(-1);
  }
  double cacheSize(const std::string& type) { return metric("scheduler_cache_size", {{"type", type}}); }

  // The scheduler reserved pv-0 for the claim (it writes the PV's claimRef in PreBind) and still has the
  // pod assumed: the pod waits in PreBind.
  bool heldInPreBind() {
    auto ref = cp_->kubectl({"get", "pv", "pv-0", "-o", "jsonpath={.spec.claimRef.name}"});
    return ref.ok() && *ref == "data" && cacheSize("assumed_pods") == 1;
  }

  int apiCount(const std::vector<std::string>& getArgs, bool boundPodsOnly) {
    std::vector<std::string> args{"get"};
    args.insert(args.end(), getArgs.begin(), getArgs.end());
    args.insert(args.end(), {"-o", "json"});
    auto r = cp_->kubectl(args);
    if (!r.ok()) return -1;
    const json list = json::parse(*r);
    int n = 0;
    for (const auto& item : list["items"]) {
      n += !boundPodsOnly || !item["spec"].value("nodeName", "").empty() ? 1 : 0;
    }
    return n;
  }

  // The daemon's cache (gauges refreshed every second) matches the apiserver: its nodes, its bound pods,
  // nothing assumed.
  void expectCacheConsistent() {
    std::string last;
    const bool ok = waitFor(
        [&] {
          const int nodes = apiCount({"nodes"}, false);
          const int pods = apiCount({"pods", "-A"}, true);
          const double cNodes = cacheSize("nodes"), cPods = cacheSize("pods"), cAssumed = cacheSize("assumed_pods");
          last = "apiserver nodes=" + std::to_string(nodes) + " bound pods=" + std::to_string(pods) +
                 "; cache nodes=" + std::to_string(cNodes) + " pods=" + std::to_string(cPods) +
                 " assumed=" + std::to_string(cAssumed);
          return cNodes == nodes && cPods == pods && cAssumed == 0;
        },
        10s);
    EXPECT_TRUE(ok) << last;
    std::printf("cache consistent: %s\n", last.c_str());
  }

  std::string podCondition(const std::string& name, const std::string& field) {
    auto r = cp_->kubectl({"get", "pod", "-n", "t", name, "-o",
                           "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")]." + field + "}"});
    return r.ok() ? *r : "";
  }

  std::vector<std::string> failedSchedulingMessages(const std::string& pod) {
    std::vector<std::string> out;
    for (const auto& e : events("t", "reason=FailedScheduling,involvedObject.name=" + pod)) {
      out.push_back(e.value("message", ""));
    }
    return out;
  }

  std::string debugState() {
    std::string out;
    for (const char* kind : {"nodes", "pods", "pvc", "pv"}) {
      auto r = cp_->kubectl({"get", kind, "-A", "-o", "wide"});
      out += r.ok() ? *r : r.error().message();
    }
    return out;
  }

  uint16_t port_ = 0;
};

// The node a pod is assumed on is deleted while the pod waits in PreBind: VolumeBinding's check of the
// bindings fails on the missing node (as upstream's checkBindings), the assumed pod is forgotten and the
// pod retried; with no node left it is reported unschedulable. The node's NodeInfo goes with the pod (no
// phantom node; a pod another scheduler binds to the deleted node keeps a NodeInfo only while it exists).
// When the node returns and the PV controller binds the claim, the pod is bound once.
TEST_F(ObjectFaultTest, NodeDeletedWhileItsPodWaitsInPreBindThePodIsRetriedAndTheCacheDropsTheNode) {
  create({smallNode("node-0")});
  createClaimThatWillHoldItsPod("node-0");
  if (HasFatalFailure()) return;
  Process& d = startWithPodHeldInPreBind(pod("web", "600m", "data"));
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(cacheSize("nodes"), 1);

  const auto deleted = std::chrono::steady_clock::now();
  kubectlOk({"delete", "node", "node-0"});
  ASSERT_TRUE(waitFor([&] { return !failedSchedulingMessages("web").empty(); }, 20s)) << tail(d.log());
  std::printf("recovery: PreBind failed %.3f s after the node's delete\n", secondsSince(deleted));
  EXPECT_THAT(failedSchedulingMessages("web"),
              Contains("running PreBind plugin \"VolumeBinding\": binding volumes: failed to get node \"node-0\": "
                       "node \"node-0\" not found"));
  ASSERT_TRUE(waitFor([&] { return podCondition("web", "message") == "no nodes available to schedule pods"; }, 20s))
      << tail(d.log()) << podCondition("web", "message");
  EXPECT_EQ(podCondition("web", "reason"), "Unschedulable");
  EXPECT_EQ(nodeNameOf("t", "web"), "");
  expectCacheConsistent();  // nodes 0, pods 0, assumed 0

  // The apiserver does not check that a Binding's node exists: a pod of another scheduler bound to the
  // deleted node is in our cache on a NodeInfo without node (upstream's cache too), which is no candidate
  // for our pods; it goes when the pod goes (pod GC deletes such pods).
  create({podJson("t", "foreign", "other-scheduler")});
  auto api = ApiClient::create(cp_->kubeconfigPath());
  ASSERT_TRUE(api.ok()) << api.error().message();
  auto foreign = (*api)->post("/api/v1/namespaces/t/pods/foreign/binding",
                              {{"apiVersion", "v1"},
                               {"kind", "Binding"},
                               {"metadata", {{"name", "foreign"}, {"namespace", "t"}}},
                               {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "node-0"}}}});
  ASSERT_TRUE(foreign.ok()) << foreign.error().message();
  EXPECT_EQ(foreign->status, 201) << foreign->body.dump();
  ASSERT_TRUE(waitFor([&] { return cacheSize("nodes") == 1 && cacheSize("pods") == 1; }, 10s)) << tail(d.log());
  std::this_thread::sleep_for(2s);  // the assigned pod's add may retry web: still no node for it
  EXPECT_EQ(nodeNameOf("t", "web"), "");
  EXPECT_EQ(podCondition("web", "message"), "no nodes available to schedule pods");
  kubectlOk({"delete", "pod", "-n", "t", "foreign", "--grace-period=0", "--force"});
  expectCacheConsistent();  // nodes 0 again

  const auto back = std::chrono::steady_clock::now();
  create({smallNode("node-0")});
  ASSERT_TRUE(cp_->startControllerManager({"persistentvolume-binder-controller"}).ok());
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-0"; }, 45s)) << tail(d.log()) << debugState();
  std::printf("recovery: pod bound %.3f s after the node and the PV controller returned\n", secondsSince(back));
  EXPECT_EQ(events("t", "reason=Scheduled,involvedObject.name=web").size(), 1u);
  expectCacheConsistent();  // nodes 1, pods 1
}

// The pod itself is deleted while it waits in PreBind: the binding stops at the next check (upstream's
// "pod does not exist any more"), nothing is bound, the pod is not retried, and the CPU it held on the
// node goes back: a pod that only fits after that release is bound.
TEST_F(ObjectFaultTest, PodDeletedWhileInPreBindIsNotBoundAndReleasesItsResources) {
  create({smallNode("node-0")});
  createClaimThatWillHoldItsPod("node-0");
  if (HasFatalFailure()) return;
  Process& d = startWithPodHeldInPreBind(pod("web", "600m", "data"));
  ASSERT_FALSE(HasFailure());
  create({pod("second", "600m")});
  ASSERT_TRUE(waitFor([&] { return podCondition("second", "reason") == "Unschedulable"; }, 20s)) << tail(d.log());
  EXPECT_THAT(podCondition("second", "message"), HasSubstr("Insufficient cpu"));

  const auto deleted = std::chrono::steady_clock::now();
  kubectlOk({"delete", "pod", "-n", "t", "web", "--wait=true"});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "second") == "node-0"; }, 20s)) << tail(d.log()) << debugState();
  std::printf("recovery: second pod bound %.3f s after the held pod's delete\n", secondsSince(deleted));

  // Not bound, not retried: one failure, for the deleted pod, and no Binding for it.
  const double attempts = metric("scheduler_schedule_attempts_total", {{"result", "scheduled"}});
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(metric("scheduler_schedule_attempts_total", {{"result", "scheduled"}}), attempts);
  const auto failures = failedSchedulingMessages("web");
  ASSERT_EQ(failures.size(), 1u) << tail(d.log());
  EXPECT_EQ(failures[0],
            "running PreBind plugin \"VolumeBinding\": binding volumes: pod does not exist any more: pod \"web\" "
            "not found");
  EXPECT_TRUE(events("t", "reason=Scheduled,involvedObject.name=web").empty());
  EXPECT_EQ(metric("scheduler_pending_pods", {{"queue", "active"}}) + metric("scheduler_pending_pods", {{"queue", "backoff"}}) +
                metric("scheduler_pending_pods", {{"queue", "unschedulable"}}),
            0);
  expectCacheConsistent();  // nodes 1, pods 1 (second), assumed 0
}

// Another scheduler binds the pod (to node-1) while ours holds it in PreBind assumed on node-0. The
// informer confirms the assumed pod on node-1; once the PV controller binds the claim, our Binding gets
// 409 and, as upstream, the pod is not requeued (the informer has it assigned): one refused Binding, no
// more. The cache has the pod once, on node-1, where its CPU is accounted; node-0's is free again.
TEST_F(ObjectFaultTest, PodBoundByAnotherSchedulerFirstGetsOne409AndIsAccountedWhereTheApiSays) {
  create({smallNode("node-0"), smallNode("node-1")});
  createClaimThatWillHoldItsPod("");
  if (HasFatalFailure()) return;
  Process& d = startWithPodHeldInPreBind(pod("web", "600m", "data", "node-0"));
  ASSERT_FALSE(HasFailure());

  auto api = ApiClient::create(cp_->kubeconfigPath());
  ASSERT_TRUE(api.ok()) << api.error().message();
  const json binding = {{"apiVersion", "v1"},
                        {"kind", "Binding"},
                        {"metadata", {{"name", "web"}, {"namespace", "t"}}},
                        {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "node-1"}}}};
  auto bound = (*api)->post("/api/v1/namespaces/t/pods/web/binding", binding);
  ASSERT_TRUE(bound.ok()) << bound.error().message();
  ASSERT_EQ(bound->status, 201) << bound->body.dump();
  // The informer saw it: the assumed pod is confirmed where the API says.
  ASSERT_TRUE(waitFor([&] { return cacheSize("assumed_pods") == 0 && cacheSize("pods") == 1; }, 10s)) << tail(d.log());

  const auto resumed = std::chrono::steady_clock::now();
  ASSERT_TRUE(cp_->startControllerManager({"persistentvolume-binder-controller"}).ok());
  auto conflicts = [&] { return metric("rest_client_requests_total", {{"method", "POST"}, {"code", "409"}}); };
  ASSERT_TRUE(waitFor([&] { return conflicts() >= 1; }, 45s)) << tail(d.log()) << debugState();
  std::printf("our Binding refused (409) %.3f s after the PV controller returned\n", secondsSince(resumed));
  std::this_thread::sleep_for(4s);  // more than the first backoff: a requeued pod would be tried again
  EXPECT_EQ(conflicts(), 1) << tail(d.log());
  EXPECT_EQ(nodeNameOf("t", "web"), "node-1");
  const auto failures = failedSchedulingMessages("web");
  ASSERT_EQ(failures.size(), 1u) << tail(d.log());
  EXPECT_THAT(failures[0], HasSubstr("running Bind plugin \"DefaultBinder\": "));
  EXPECT_THAT(failures[0], HasSubstr("is already assigned to node \"node-1\""));
  EXPECT_TRUE(events("t", "reason=Scheduled,involvedObject.name=web").empty());

  // web's 600m count on node-1, not on node-0.
  create({pod("fill-1", "600m", "", "node-1"), pod("fill-0", "600m", "", "node-0")});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "fill-0") == "node-0"; }, 20s)) << tail(d.log());
  ASSERT_TRUE(waitFor([&] { return podCondition("fill-1", "reason") == "Unschedulable"; }, 20s)) << tail(d.log());
  EXPECT_THAT(podCondition("fill-1", "message"), HasSubstr("Insufficient cpu"));
  EXPECT_EQ(nodeNameOf("t", "fill-1"), "");
  expectCacheConsistent();  // nodes 2, pods 2 (web, fill-0)
}

// RBAC without pods/binding: deploy/base's ServiceAccount, its ClusterRole minus that rule. Every Binding
// is refused (403); as upstream the pod goes back through the backoff queue (1 s doubling up to 10 s), so
// the attempts stay few, and it is reported with the apiserver's error. Once the rule is back, it binds.
TEST_F(ObjectFaultTest, BindingForbiddenByRbacIsRetriedWithBackoffAndBindsOnceAllowed) {
  kubectlOk({"apply", "-k", KS_SOURCE_DIR "/deploy/base"});
  auto role = cp_->kubectl({"get", "clusterrole", "kube-scheduler-cpp", "-o", "json"});
  ASSERT_TRUE(role.ok()) << role.error().message();
  json withoutBinding = json::parse(*role);
  json rules = json::array();
  for (const auto& rule : withoutBinding["rules"]) {
    if (rule["resources"] != json::array({"pods/binding"})) rules.push_back(rule);
  }
  ASSERT_EQ(rules.size() + 1, withoutBinding["rules"].size()) << withoutBinding.dump();
  withoutBinding["rules"] = rules;
  kubectlOk({"replace", "-f", "-"}, withoutBinding.dump());

  auto token = cp_->kubectl({"create", "token", "kube-scheduler-cpp", "-n", "kube-system", "--duration=1h"});
  ASSERT_TRUE(token.ok()) << token.error().message();
  const std::string kubeconfig = dir_ + "/sa.kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
                            << cp_->serverUrl() << "\n    certificate-authority: " << cp_->caFile()
                            << "\nusers:\n- name: u\n  user:\n    token: " << trimmed(*token)
                            << "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
  create({smallNode("node-0")});
  Process& d = startReadyDaemon(kubeconfig);

  create({pod("web", "100m")});
  auto forbidden = [&] { return metric("rest_client_requests_total", {{"method", "POST"}, {"code", "403"}}); };
  ASSERT_TRUE(waitFor([&] { return forbidden() >= 1; }, 20s)) << tail(d.log());
  const auto first = std::chrono::steady_clock::now();
  ASSERT_TRUE(waitFor([&] { return podCondition("web", "reason") == "SchedulerError"; }, 10s)) << tail(d.log());
  EXPECT_EQ(podCondition("web", "message"),
            "running Bind plugin \"DefaultBinder\": pods \"web\" is forbidden: User "
            "\"system:serviceaccount:kube-system:kube-scheduler-cpp\" cannot create resource \"pods/binding\" in API "
            "group \"\" in the namespace \"t\"");
  EXPECT_THAT(failedSchedulingMessages("web"), Contains(podCondition("web", "message")));

  // Attempts at about 0, 1, 3, 7 and 15 s: 5 in 20 s (a hot loop would make hundreds).
  std::this_thread::sleep_for(20s - (std::chrono::steady_clock::now() - first));
  const double attempts = forbidden();
  std::printf("Binding attempts refused in the first 20 s: %.0f\n", attempts);
  EXPECT_GE(attempts, 3);
  EXPECT_LE(attempts, 6);
  EXPECT_EQ(nodeNameOf("t", "web"), "");
  EXPECT_EQ(cacheSize("assumed_pods"), 0);

  const auto fixed = std::chrono::steady_clock::now();
  kubectlOk({"apply", "-k", KS_SOURCE_DIR "/deploy/base"});
  ASSERT_TRUE(waitFor([&] { return nodeNameOf("t", "web") == "node-0"; }, 20s)) << tail(d.log());
  std::printf("recovery: pod bound %.3f s after the role was fixed\n", secondsSince(fixed));
  EXPECT_TRUE(waitFor([&] { return events("t", "reason=Scheduled,involvedObject.name=web").size() == 1; }, 10s));
  EXPECT_LE(forbidden() - attempts, 1);  // at most the attempt in flight when the role changed
  expectCacheConsistent();
}

}  // namespace
}  // namespace ks::integration
