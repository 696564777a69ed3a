// Delegated authentication and authorization of the daemon's secure port against a real kube-apiserver, side
// by side with upstream kube-scheduler v1.34.4 started with the same flags: both ask the apiserver
// (TokenReview, SubjectAccessReview, the extension-apiserver-authentication ConfigMap that kube-apiserver
// publishes because it runs with --client-ca-file) and must answer every request alike.

#include <gmock/gmock.h>

#include "test/integration/daemon/daemon_fixture.h"

namespace ks::integration {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

struct Reply {
  int status = 0;
  std::string body;
};

class AuthTest : public DaemonTest {
 protected:
  // GET with `args` before the URL, as a non-human client (compact JSON Status bodies, as the apiserver
  // writes them for programs).
  Reply get(uint16_t port, const std::string& path, std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"-A", "Go-http-client/1.1"});
    auto r = ks::integration::httpsGet(port, path, args);
    return r ? Reply{r->first, r->second} : Reply{};
  }
  std::vector<std::string> bearer(const std::string& token) { return {"-H", "Authorization: Bearer " + token}; }
  std::vector<std::string> cert(const std::string& crt, const std::string& key) { return {"--cert", crt, "--key", key}; }

  std::string token(const std::string& sa) {
    auto r = cp_->kubectl({"create", "token", sa, "-n", "default"});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    std::string t = r.ok() ? *r : "";
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    return t;
  }

  // A client certificate for `cn` (organization `org`) signed by the harness CA.
  std::pair<std::string, std::string> clientCert(const std::string& cn, const std::string& org) {
    const std::string pki = cp_->workDir() + "/pki";
    const std::string key = dir_ + "/" + cn + ".key";
    const std::string csr = dir_ + "/" + cn + ".csr";
    const std::string crt = dir_ + "/" + cn + ".crt";
    auto k = runProcess({"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", key, "-subj", "/O=" + org + "/CN=" + cn, "-out", csr});
    EXPECT_TRUE(k.ok() && k->exitCode == 0) << (k.ok() ? k->err : k.error().message());
    auto s = runProcess({"openssl", "x509", "-req", "-in", csr, "-CA", pki + "/ca.crt", "-CAkey", pki + "/ca.key",
                         "-CAcreateserial", "-CAserial", dir_ + "/ca.srl", "-days", "1", "-extfile",
                         pki + "/openssl.cnf", "-extensions", "v3_client", "-out", crt});
    EXPECT_TRUE(s.ok() && s->exitCode == 0) << (s.ok() ? s->err : s.error().message());
    return {crt, key};
  }
};

TEST_F(AuthTest, DelegatedAuthenticationAndAuthorizationAsUpstream) {
  // A scraper's RBAC: a ClusterRole with nonResourceURLs /metrics get, bound to one of two ServiceAccounts.
  kubectlOk({"create", "serviceaccount", "metrics-reader", "-n", "default"});
  kubectlOk({"create", "serviceaccount", "nobody", "-n", "default"});
  kubectlOk({"create", "clusterrole", "ks-metrics-reader", "--verb=get", "--non-resource-url=/metrics"});
  kubectlOk({"create", "clusterrolebinding", "ks-metrics-reader", "--clusterrole=ks-metrics-reader",
             "--serviceaccount=default:metrics-reader"});
  // RBAC reaches the authorizer through its informers: wait, so that no denial gets cached (10 s).
  ASSERT_TRUE(waitFor(
      [&] {
        auto r = cp_->kubectl(
            {"auth", "can-i", "get", "/metrics", "--as=system:serviceaccount:default:metrics-reader"});
        return r.ok() && r->rfind("yes", 0) == 0;
      },
      20s));
  const std::string bound = token("metrics-reader");
  const std::string unbound = token("nobody");
  ASSERT_FALSE(bound.empty());
  ASSERT_FALSE(unbound.empty());
  const auto viewer = clientCert("viewer", "viewers");

  const std::string kc = cp_->kubeconfigPath();
  const std::vector<std::string> authFlags = {"--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc};
  uint16_t port = 0;
  Process& d = startDaemon(authFlags, &port);
  ASSERT_TRUE(d.started());
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());

  // The matrix on our daemon.
  const Reply anonymous = get(port, "/metrics");
  EXPECT_EQ(anonymous.status, 403);
  EXPECT_EQ(anonymous.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User )"
            R"(\"system:anonymous\" cannot get path \"/metrics\"","reason":"Forbidden","details":{},"code":403})"
            "\n");
  const Reply invalid = get(port, "/metrics", bearer("not-a-token"));
  EXPECT_EQ(invalid.status, 401);
  EXPECT_EQ(invalid.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized",)"
            R"("reason":"Unauthorized","code":401})"
            "\n");
  const Reply unboundMetrics = get(port, "/metrics", bearer(unbound));
  EXPECT_EQ(unboundMetrics.status, 403);
  EXPECT_THAT(unboundMetrics.body, HasSubstr(R"(User \"system:serviceaccount:default:nobody\" cannot get path)"));
  const Reply boundMetrics = get(port, "/metrics", bearer(bound));
  EXPECT_EQ(boundMetrics.status, 200);
  EXPECT_THAT(boundMetrics.body, HasSubstr("# TYPE scheduler_"));
  EXPECT_EQ(get(port, "/configz", bearer(unbound)).status, 403);
  EXPECT_EQ(get(port, "/configz", bearer(bound)).status, 403);  // the role covers /metrics only
  EXPECT_EQ(get(port, "/healthz").status, 200);
  EXPECT_EQ(get(port, "/healthz", bearer(unbound)).status, 200);
  EXPECT_EQ(get(port, "/healthz", bearer("not-a-token")).status, 401);
  // Client certificates, verified against the CA kube-apiserver publishes in the ConfigMap.
  const auto admin = cert(cp_->clientCertFile(), cp_->clientKeyFile());  // O=system:masters
  const Reply adminMetrics = get(port, "/metrics", admin);
  EXPECT_EQ(adminMetrics.status, 200);
  EXPECT_THAT(adminMetrics.body, HasSubstr("# TYPE scheduler_"));
  EXPECT_EQ(get(port, "/configz", admin).status, 200);
  EXPECT_EQ(get(port, "/metrics", cert(viewer.first, viewer.second)).status, 403);

  // Upstream kube-scheduler with the same flags answers the same.
  auto bin = ControlPlane::binDir();
  ASSERT_TRUE(bin.ok()) << bin.error().message();
  const uint16_t upPort = freePort();
  std::vector<std::string> upArgs = {*bin + "/kube-scheduler", "--kubeconfig=" + kc, "--leader-elect=false",
                                     "--bind-address=127.0.0.1", "--secure-port=" + std::to_string(upPort)};
  upArgs.insert(upArgs.end(), authFlags.begin(), authFlags.end());
  Process upstream(upArgs, dir_ + "/upstream-kube-scheduler.log");
  ASSERT_TRUE(waitFor([&] { return get(upPort, "/healthz").status == 200; }, 60s)) << tail(upstream.log());
  struct Case {
    std::string path;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases = {
      {"/metrics", {}},
      {"/metrics", bearer("not-a-token")},
      {"/metrics", bearer(unbound)},
      {"/configz", bearer(unbound)},
      {"/configz", bearer(bound)},
      {"/configz", {}},
      {"/healthz", {}},
      {"/healthz", bearer("not-a-token")},
      {"/livez", bearer(unbound)},
      {"/readyz", {}},
      {"/healthz/ping", {}},
      {"/no-such-path", {}},
      {"/no-such-path", admin},
      {"/metrics", cert(viewer.first, viewer.second)},
      {"/configz", cert(viewer.first, viewer.second)},
  };
  for (const auto& c : cases) {
    const Reply ours = get(port, c.path, c.args);
    const Reply theirs = get(upPort, c.path, c.args);
    const std::string what = c.path + (c.args.empty() ? "" : " " + c.args[1]);
    EXPECT_EQ(ours.status, theirs.status) << what;
    if (ours.status >= 400) {
      EXPECT_EQ(ours.body, theirs.body) << what;
    }
  }
  EXPECT_EQ(get(upPort, "/metrics", bearer(bound)).status, 200);
  EXPECT_EQ(get(upPort, "/metrics", admin).status, 200);
}

// Without authentication and authorization kubeconfigs (and not in a cluster), as upstream: no token
// authentication, no client CA lookup, no SubjectAccessReview; everything but the always-allowed paths is
// forbidden.
TEST_F(AuthTest, WithoutKubeconfigsOnlyAlwaysAllowedPaths) {
  uint16_t port = 0;
  Process& d = startDaemon({"--authentication-skip-lookup=false"}, &port);
  ASSERT_TRUE(d.started());
  ASSERT_TRUE(waitFor([&] { return ready(port); }, 30s)) << tail(d.log());
  EXPECT_EQ(get(port, "/metrics").status, 403);
  EXPECT_EQ(get(port, "/metrics", bearer("anything")).status, 403);  // the token is not even looked at
  EXPECT_EQ(get(port, "/healthz", bearer("anything")).status, 200);
  EXPECT_EQ(get(port, "/metrics", cert(cp_->clientCertFile(), cp_->clientKeyFile())).status, 403);
  EXPECT_EQ(get(port, "/readyz").status, 200);
  EXPECT_THAT(d.log(), HasSubstr("No authentication-kubeconfig provided in order to lookup client-ca-file in "
                                 "configmap/extension-apiserver-authentication in kube-system, so client "
                                 "certificate authentication won't work."));
  EXPECT_THAT(d.log(),
              HasSubstr("No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't "
                        "work."));
}

}  // namespace
}  // namespace ks::integration
