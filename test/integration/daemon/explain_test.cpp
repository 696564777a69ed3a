// `kube-scheduler-cpp explain` against a real kube-apiserver: the answer for a pending pod (per-node filter
// reasons, the node it would go to, upstream's FitError when none), and nothing written to the cluster.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

class ExplainTest : public DaemonTest {
 protected:
  // The binary's `explain` with `args`; fails the test when it cannot run.
  ProcessOutput explain(std::vector<std::string> args) {
    args.insert(args.begin(), {kBinary, "explain"});
    auto r = runProcess(args, {}, {}, 60s);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? *r : ProcessOutput{-1, "", ""};
  }

  std::string writeConfig() {
    const std::string path = dir_ + "/config.yaml";
    std::ofstream(path) << schedulerConfig(cp_->kubeconfigPath());
    return path;
  }

  json pod(const std::string& ns, const std::string& name) {
    auto r = cp_->kubectl({"get", "pod", "-n", ns, name, "-o", "json"});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? json::parse(*r) : json::object();
  }

  // What the scheduler would have written: a node, a PodScheduled condition, a nomination, an event.
  void expectUntouched(const std::string& ns, const std::string& name, const std::string& resourceVersion) {
    const json p = pod(ns, name);
    EXPECT_EQ(p["metadata"].value("resourceVersion", ""), resourceVersion) << "the pod was written to";
    EXPECT_EQ(p["spec"].value("nodeName", ""), "");
    const json status = p.value("status", json::object());
    for (const auto& c : status.value("conditions", json::array())) {
      EXPECT_NE(c.value("type", ""), "PodScheduled") << c.dump();
    }
    EXPECT_EQ(status.value("nominatedNodeName", ""), "");
    EXPECT_TRUE(events(ns, "involvedObject.name=" + name).empty());
  }
};

TEST_F(ExplainTest, PendingPodFitsOneNodeAndNothingIsWritten) {
  std::vector<json> nodes{nodeJson("node-0"), nodeJson("node-1", {{"disk", "ssd"}}),
                          nodeJson("node-2", {{"disk", "ssd"}})};
  nodes[2]["status"]["capacity"]["cpu"] = "4";
  nodes[2]["status"]["allocatable"]["cpu"] = "4";
  kubectlOk({"create", "-f", "-"}, listOf(nodes).dump());
  kubectlOk({"create", "namespace", "t"});
  json web = podJson("t", "web", kSchedulerName, {{"disk", "ssd"}});
  web["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "8";
  // Already bound (created with a node): cluster state, and explainable as if pending.
  json placed = podJson("t", "placed");
  placed["spec"]["nodeName"] = "node-1";
  kubectlOk({"create", "-f", "-"}, listOf({web, placed}).dump());
  const std::string rv = pod("t", "web")["metadata"].value("resourceVersion", "");
  const std::string config = writeConfig();

  const ProcessOutput out = explain({"--config=" + config, "-o", "json", "t/web"});
  ASSERT_EQ(out.exitCode, 0) << out.err << out.out;
  const json j = json::parse(out.out);
  ASSERT_EQ(j["pods"].size(), 1u) << out.out;
  const json& p = j["pods"][0];
  EXPECT_EQ(p["namespace"], "t");
  EXPECT_EQ(p["name"], "web");
  EXPECT_EQ(p["profile"], kSchedulerName);
  EXPECT_EQ(p["result"], "Scheduled") << out.out;
  EXPECT_EQ(p["node"], "node-1");
  EXPECT_EQ(p["filtered"]["node-0"]["plugin"], "NodeAffinity");
  EXPECT_EQ(p["filtered"]["node-0"]["reasons"],
            json::array({"node(s) didn't match Pod's node affinity/selector"}));
  EXPECT_EQ(p["filtered"]["node-2"]["plugin"], "NodeResourcesFit");
  EXPECT_EQ(p["filtered"]["node-2"]["reasons"], json::array({"Insufficient cpu"}));
  EXPECT_FALSE(p["filtered"].contains("node-1"));
  EXPECT_FALSE(p.contains("boundNode"));
  expectUntouched("t", "web", rv);

  // The bound pod: said so, and evaluated as if pending; still bound where it was.
  const ProcessOutput bound = explain({"--config", config, "t/placed"});
  ASSERT_EQ(bound.exitCode, 0) << bound.err << bound.out;
  EXPECT_EQ(bound.out.rfind("pod t/placed is bound to node-1; evaluating it as if pending\n", 0), 0u)
      << bound.out;
  EXPECT_NE(bound.out.find("t/placed   Scheduled"), std::string::npos) << bound.out;
  EXPECT_EQ(nodeNameOf("t", "placed"), "node-1");
  EXPECT_TRUE(events("t", "involvedObject.name=placed").empty());
  EXPECT_EQ(leaseHolder(), "<error>") << "no lease either";
}

TEST_F(ExplainTest, UnschedulablePodWithTheDefaultConfiguration) {
  createNodes(3);
  kubectlOk({"create", "namespace", "t"});
  json huge = podJson("t", "huge", "default-scheduler");
  huge["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "100";
  kubectlOk({"create", "-f", "-"}, huge.dump());
  const std::string rv = pod("t", "huge")["metadata"].value("resourceVersion", "");

  // No --config: the default profile default-scheduler; the cluster from --kubeconfig.
  const ProcessOutput out = explain({"--kubeconfig", cp_->kubeconfigPath(), "-o=json", "t/huge"});
  ASSERT_EQ(out.exitCode, 0) << out.err << out.out;
  const json p = json::parse(out.out)["pods"][0];
  EXPECT_EQ(p["profile"], "default-scheduler");
  EXPECT_EQ(p["result"], "Unschedulable");
  EXPECT_EQ(p["node"], "");
  EXPECT_EQ(
      p["message"],
      "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
      "available: 3 Preemption is not helpful for scheduling.");
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    EXPECT_EQ(p["filtered"][node]["plugin"], "NodeResourcesFit") << node;
    EXPECT_EQ(p["filtered"][node]["reasons"], json::array({"Insufficient cpu"})) << node;
  }
  EXPECT_EQ(p["nominatedNode"], "");
  EXPECT_EQ(p["victims"], json::array());
  expectUntouched("t", "huge", rv);

  // The table, for people.
  const ProcessOutput table = explain({"--kubeconfig=" + cp_->kubeconfigPath(), "t/huge"});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("t/huge   Unschedulable   -      0/3 nodes are available: 3 Insufficient cpu."),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("filtered: NodeResourcesFit: Insufficient cpu"), std::string::npos) << table.out;
}

// The ClusterRole docs/running.md gives explain: list, nothing else.
constexpr const char* kListOnlyRole = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kube-scheduler-cpp-explain
rules:
- apiGroups: [""]
  resources: [nodes, pods, namespaces, persistentvolumes, persistentvolumeclaims, services, replicationcontrollers]
  verbs: [list]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses, csinodes, csidrivers, csistoragecapacities, volumeattachments]
  verbs: [list]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [list]
- apiGroups: [apps]
  resources: [replicasets, statefulsets]
  verbs: [list]
- apiGroups: [resource.k8s.io]
  resources: [deviceclasses, resourceslices, resourceclaims, devicetaintrules]
  verbs: [list]
)";

TEST_F(ExplainTest, ListPermissionIsAllItNeeds) {
  createNodes(2);
  kubectlOk({"create", "namespace", "t"});
  kubectlOk({"create", "-f", "-"}, podJson("t", "web", "default-scheduler").dump());
  kubectlOk({"create", "serviceaccount", "explainer", "-n", "t"});
  kubectlOk({"apply", "-f", "-"}, kListOnlyRole);
  kubectlOk({"create", "clusterrolebinding", "explainer", "--clusterrole=kube-scheduler-cpp-explain",
             "--serviceaccount=t:explainer"});
  auto token = cp_->kubectl({"create", "token", "explainer", "-n", "t"});
  ASSERT_TRUE(token.ok()) << token.error().message();
  std::string bearer = *token;
  while (!bearer.empty() && (bearer.back() == '\n' || bearer.back() == ' ')) bearer.pop_back();
  const std::string kubeconfig = dir_ + "/explainer.kubeconfig";
  std::ofstream(kubeconfig)
      << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + cp_->serverUrl() +
             "\n    certificate-authority: " + cp_->caFile() +
             "\nusers:\n- name: explainer\n  user:\n    token: " + bearer +
             "\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: explainer\n"
             "current-context: x\n";
  auto denied = cp_->kubectl({"--kubeconfig=" + kubeconfig, "get", "pod", "-n", "t", "web"});
  ASSERT_FALSE(denied.ok()) << "the role must not even allow get";

  const ProcessOutput out = explain({"--kubeconfig", kubeconfig, "-o", "json", "t/web"});
  ASSERT_EQ(out.exitCode, 0) << out.err << out.out;
  const json p = json::parse(out.out)["pods"][0];
  EXPECT_EQ(p["result"], "Scheduled") << out.out;
  EXPECT_THAT(p["node"].get<std::string>(), ::testing::StartsWith("node-"));
  EXPECT_EQ(nodeNameOf("t", "web"), "");

  // Without the role: the first list that fails says which and why.
  kubectlOk({"delete", "clusterrolebinding", "explainer"});
  const ProcessOutput forbidden = explain({"--kubeconfig", kubeconfig, "t/web"});
  EXPECT_EQ(forbidden.exitCode, 1);
  EXPECT_EQ(forbidden.err.rfind("explain: listing nodes: nodes is forbidden: User "
                                "\"system:serviceaccount:t:explainer\" cannot list resource \"nodes\"",
                                0),
            0u)
      << forbidden.err;
}

TEST_F(ExplainTest, ErrorsAndExitCodes) {
  createNodes(1);
  kubectlOk({"create", "namespace", "t"});
  kubectlOk({"create", "-f", "-"}, podJson("t", "theirs", "someone-else").dump());
  const std::string config = writeConfig();

  const ProcessOutput missing = explain({"--config", config, "t/nope"});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_EQ(missing.err, "explain: pods \"nope\" not found\n");
  EXPECT_EQ(missing.out, "");

  const ProcessOutput theirs = explain({"--config", config, "t/theirs"});
  EXPECT_EQ(theirs.exitCode, 1);
  EXPECT_EQ(theirs.err,
            "explain: pod t/theirs has schedulerName \"someone-else\", which no profile of the configuration "
            "serves (profiles: kube-scheduler-cpp)\n");

  const ProcessOutput badFlag = explain({"--cluster=x", "t/theirs"});
  EXPECT_EQ(badFlag.exitCode, 2);
  EXPECT_EQ(badFlag.err.rfind("explain: unknown flag --cluster=x\nUsage: kube-scheduler-cpp explain", 0), 0u)
      << badFlag.err;

  // A server that accepts the connection and never answers: --timeout ends the command.
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(sock, 16), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string silent = dir_ + "/silent.kubeconfig";
  std::ofstream(silent) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
                           "https://127.0.0.1:" +
                               std::to_string(ntohs(addr.sin_port)) +
                               "\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user: {}\n"
                               "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                               "current-context: x\n";
  const auto start = std::chrono::steady_clock::now();
  const ProcessOutput slow = explain({"--kubeconfig", silent, "--timeout=2s", "t/theirs"});
  const auto took = std::chrono::steady_clock::now() - start;
  ::close(sock);
  EXPECT_EQ(slow.exitCode, 1);
  EXPECT_EQ(slow.err, "explain: timed out after 2s\n");
  EXPECT_LT(took, 10s);

  const ProcessOutput help = explain({"--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_EQ(help.out.rfind("Usage: kube-scheduler-cpp explain", 0), 0u) << help.out;
}

}  // namespace
}  // namespace ks::integration
