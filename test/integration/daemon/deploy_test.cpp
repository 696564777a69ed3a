// deploy/base on a real kube-apiserver:
//   - `kubectl apply --dry-run=server -k deploy/base` is accepted with Pod Security "restricted" enforced and
//     warned on kube-system, and a pod made from the Deployment's template is admitted;
//   - applied for real, its ServiceAccount's RBAC is enough: the daemon, run with that ServiceAccount's token
//     and the deployed configuration (leader election on its own Lease), schedules pods, records events and
//     authenticates and authorizes a scraper of /metrics through TokenReview and SubjectAccessReview.
// No kubelet runs, so the Deployment's pods never start; the daemon runs here as the pod would.

#include <yaml-cpp/yaml.h>

#include "pkg/api/json/yaml.h"
#include "pkg/util/strings.h"
#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;

const std::string kSourceDir = KS_SOURCE_DIR;
const std::string kBase = kSourceDir + "/deploy/base";

class DeployTest : public DaemonTest {
 protected:
  // kubectl with the admin kubeconfig, stdout and stderr (warnings) both.
  ProcessOutput kubectlFull(const std::vector<std::string>& args, const std::string& input = "") {
    std::vector<std::string> argv{kubectlBinary(), "--kubeconfig=" + cp_->kubeconfigPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = runProcess(argv, {}, input, 120s);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? *r : ProcessOutput{-1, "", ""};
  }

  // The rendered manifests, one JSON object per document.
  std::vector<json> rendered() {
    auto out = kubectlFull({"kustomize", kBase});
    EXPECT_EQ(out.exitCode, 0) << out.err;
    auto docs = api::yamlToJson(out.out);
    EXPECT_TRUE(docs.ok()) << (docs.ok() ? "" : docs.error().message());
    return docs.ok() ? *docs : std::vector<json>{};
  }

  // A token for kube-system/<sa> (TokenRequest).
  std::string tokenFor(const std::string& sa, const std::string& ns = "kube-system") {
    auto r = cp_->kubectl({"create", "token", sa, "-n", ns, "--duration=1h"});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? std::string(trim(*r)) : "";
  }

  // A kubeconfig that authenticates with `token` only (as a pod's in-cluster configuration does).
  std::string kubeconfigWithToken(const std::string& name, const std::string& token) {
    const std::string path = dir_ + "/" + name + ".kubeconfig";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
                        << cp_->serverUrl() << "\n    certificate-authority: " << cp_->caFile()
                        << "\nusers:\n- name: u\n  user:\n    token: " << token
                        << "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
    return path;
  }

  // GET https://127.0.0.1:<port><path> with a bearer token: the status code.
  int getWithToken(uint16_t port, const std::string& path, const std::string& token) {
    auto r = runProcess({"curl", "-sk", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                         "Authorization: Bearer " + token, "https://127.0.0.1:" + std::to_string(port) + path},
                        {}, {}, 10s);
    return r.ok() && r->exitCode == 0 ? std::atoi(r->out.c_str()) : -1;
  }
};

TEST_F(DeployTest, ManifestsPassServerDryRunUnderPodSecurityRestricted) {
  kubectlOk({"label", "namespace", "kube-system", "--overwrite", "pod-security.kubernetes.io/enforce=restricted",
             "pod-security.kubernetes.io/warn=restricted", "pod-security.kubernetes.io/audit=restricted"});

  auto applied = kubectlFull({"apply", "--dry-run=server", "-k", kBase});
  ASSERT_EQ(applied.exitCode, 0) << applied.err;
  EXPECT_EQ(applied.err.find("Warning"), std::string::npos) << applied.err;  // PSA warns on the template
  for (const char* object : {"serviceaccount/kube-scheduler-cpp", "clusterrole.rbac.authorization.k8s.io/kube-scheduler-cpp",
                             "deployment.apps/kube-scheduler-cpp", "poddisruptionbudget.policy/kube-scheduler-cpp",
                             "service/kube-scheduler-cpp"}) {
    EXPECT_NE(applied.out.find(object), std::string::npos) << object << " missing in:\n" << applied.out;
  }
  // The gang overlay (GenericWorkload) applies the same way.
  auto gang = kubectlFull({"apply", "--dry-run=server", "-k", kSourceDir + "/deploy/overlays/gang"});
  ASSERT_EQ(gang.exitCode, 0) << gang.err;
  EXPECT_EQ(gang.err.find("Warning"), std::string::npos) << gang.err;
  EXPECT_NE(gang.out.find("deployment.apps/kube-scheduler-cpp"), std::string::npos) << gang.out;

  // Enforcement applies to pods: one made from the Deployment's template is admitted, and the same pod
  // without the hardening is not (so the check above is real).
  json deployment;
  for (const json& d : rendered()) {
    if (d["kind"] == "Deployment") deployment = d;
  }
  ASSERT_FALSE(deployment.is_null());
  EXPECT_EQ(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "kube-scheduler-cpp:0.1.0");
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "from-template"}, {"namespace", "kube-system"}}},
              {"spec", deployment["spec"]["template"]["spec"]}};
  auto admitted = kubectlFull({"create", "--dry-run=server", "-f", "-"}, pod.dump());
  EXPECT_EQ(admitted.exitCode, 0) << admitted.err;
  pod["spec"].erase("securityContext");
  auto rejected = kubectlFull({"create", "--dry-run=server", "-f", "-"}, pod.dump());
  EXPECT_NE(rejected.exitCode, 0);
  EXPECT_NE(rejected.err.find("violates PodSecurity \"restricted:latest\""), std::string::npos) << rejected.err;
}

TEST_F(DeployTest, TheServiceAccountsRbacIsEnoughToScheduleAndServe) {
  auto applied = kubectlFull({"apply", "-k", kBase});
  ASSERT_EQ(applied.exitCode, 0) << applied.err;
  // A scraper allowed to read /metrics, as docs/deploying.md sets one up.
  kubectlOk({"create", "serviceaccount", "scraper", "-n", "kube-system"});
  kubectlOk({"create", "clusterrole", "metrics-reader", "--verb=get", "--non-resource-url=/metrics"});
  kubectlOk({"create", "clusterrolebinding", "scraper-metrics", "--clusterrole=metrics-reader",
             "--serviceaccount=kube-system:scraper"});

  // The deployed configuration, from the generated ConfigMap, with the ServiceAccount's token in place of
  // the in-cluster configuration.
  std::string configYaml;
  for (const json& d : rendered()) {
    if (d["kind"] == "ConfigMap") configYaml = d["data"]["config.yaml"];
  }
  ASSERT_FALSE(configYaml.empty());
  const std::string kubeconfig = kubeconfigWithToken("scheduler", tokenFor("kube-scheduler-cpp"));
  YAML::Node cfg = YAML::Load(configYaml);
  cfg["clientConnection"]["kubeconfig"] = kubeconfig;
  YAML::Emitter e;
  e << cfg;

  createNodes(2);
  uint16_t port = 0;
  Process& daemon = startDaemonWithConfig(
      e.c_str(), {"--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig}, &port);
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 60s)) << tail(daemon.log());

  std::vector<json> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(podJson("default", "web-" + std::to_string(i)));
  kubectlOk({"create", "-f", "-"}, listOf(pods).dump());
  EXPECT_TRUE(waitFor([&] { return boundCount("default") == 6; }, 60s)) << tail(daemon.log());
  EXPECT_TRUE(waitFor([&] { return events("default", "reason=Scheduled").size() == 6; }, 30s))
      << tail(daemon.log());
  EXPECT_NE(leaseHolder(), "<error>");

  // Delegated authn/authz with the ServiceAccount's own rights (TokenReview, SubjectAccessReview).
  EXPECT_EQ(getWithToken(port, "/metrics", tokenFor("scraper")), 200) << tail(daemon.log());
  EXPECT_EQ(getWithToken(port, "/metrics", tokenFor("kube-scheduler-cpp")), 403) << tail(daemon.log());

  EXPECT_EQ(daemon.log().find("forbidden"), std::string::npos) << tail(daemon.log());
}

}  // namespace
}  // namespace ks::integration
