// Delegated authentication and authorization of the daemon's secure port against a real kube-apiserver, side
// by side with upstream kube-scheduler v1.34.4 started with the same flags: both ask the apiserver
// (TokenReview, SubjectAccessReview, the extension-apiserver-authentication ConfigMap that kube-apiserver
// publishes because it runs with --client-ca-file) and must answer every request alike.

#include <gmock/gmock.h>

#include <set>
#include <sstream>

#include "pkg/features/features.h"
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

  // Our daemon with --feature-gates=`gates`, and upstream kube-scheduler with the same configuration file and
  // flags but --feature-gates=`upstreamGates` (none when empty); both serving when this returns without a
  // fatal failure.
  struct SideBySide {
    uint16_t ours = 0;
    uint16_t theirs = 0;
    std::unique_ptr<Process> upstream;
  };
  void startSideBySide(const std::string& gates, const std::string& upstreamGates, SideBySide& out) {
    Process& d = startDaemon({"--feature-gates=" + gates}, &out.ours);
    ASSERT_TRUE(d.started());
    ASSERT_TRUE(waitFor([&] { return ready(out.ours); }, 30s)) << tail(d.log());
    auto bin = ControlPlane::binDir();
    ASSERT_TRUE(bin.ok()) << bin.error().message();
    out.theirs = freePort();
    std::vector<std::string> args = {*bin + "/kube-scheduler",
                                     "--config=" + dir_ + "/config-0.yaml",
                                     "--bind-address=127.0.0.1",
                                     "--secure-port=" + std::to_string(out.theirs),
                                     "-v=2",
                                     "--client-ca-file=" + cp_->caFile(),
                                     "--authentication-skip-lookup=true"};
    if (!upstreamGates.empty()) args.push_back("--feature-gates=" + upstreamGates);
    out.upstream = std::make_unique<Process>(args, dir_ + "/upstream-kube-scheduler.log");
    ASSERT_TRUE(waitFor([&] { return get(out.theirs, "/healthz").status == 200; }, 60s))
        << tail(out.upstream->log());
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

// /flagz and /statusz (gates ComponentFlagz / ComponentStatusz, Beta and on in v1.37.2; alpha and off in
// today's gate table, so given explicitly) side by side with upstream kube-scheduler started with the same
// configuration file and flags: the same authorization, 406 bodies and structured answers, apart from what is
// ours to report (versions, the flags kube-scheduler-cpp does not have).
TEST_F(AuthTest, ZpagesAsUpstream) {
  SideBySide both;
  startSideBySide("ComponentFlagz=true,ComponentStatusz=true", "", both);
  if (HasFatalFailure()) return;
  const uint16_t port = both.ours;
  const uint16_t upPort = both.theirs;

  const auto admin = cert(cp_->clientCertFile(), cp_->clientKeyFile());
  auto accept = [&](const std::string& mediaType) {
    std::vector<std::string> args = admin;
    args.insert(args.end(), {"-H", "Accept: " + mediaType});
    return args;
  };
  struct Case {
    std::string path;
    std::vector<std::string> args;
  };
  const std::vector<Case> same = {
      {"/flagz", {}},  // anonymous: forbidden, as /configz
      {"/statusz", {}},
      {"/flagz", accept("application/json")},
      {"/statusz", accept("application/xml")},
      {"/statusz", accept("application/yaml")},
      {"/flagz", accept("application/json;g=config.k8s.io;v=v1beta1;as=Statusz")},
      {"/flagz", accept("application/cbor;g=config.k8s.io;v=v1beta1;as=Flagz")},
  };
  for (const auto& c : same) {
    const Reply ours = get(port, c.path, c.args);
    const Reply theirs = get(upPort, c.path, c.args);
    const std::string what = c.path + (c.args.empty() ? "" : " " + c.args.back());
    EXPECT_EQ(ours.status, theirs.status) << what;
    EXPECT_EQ(ours.body, theirs.body) << what;
  }

  // /statusz: the same object but for the versions.
  auto statusz = [&](uint16_t p) {
    const Reply r = get(p, "/statusz", accept("application/json;g=config.k8s.io;v=v1beta1;as=Statusz"));
    EXPECT_EQ(r.status, 200);
    return json::parse(r.body, nullptr, false);
  };
  json ours = statusz(port);
  json theirs = statusz(upPort);
  ASSERT_TRUE(ours.is_object()) << ours;
  ASSERT_TRUE(theirs.is_object()) << theirs;
  EXPECT_EQ(ours["binaryVersion"], KS_VERSION);
  // The gate table's binary version (the only --emulated-version accepted).
  EXPECT_EQ(ours["emulationVersion"],
            std::to_string(features::kBinaryMajor) + "." + std::to_string(features::kBinaryMinor));
  EXPECT_EQ(theirs["binaryVersion"], "1.37.2");
  for (const char* field : {"binaryVersion", "emulationVersion", "goVersion", "startTime", "uptimeSeconds"}) {
    ours.erase(field);
    theirs.erase(field);
  }
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours["paths"], json::parse(R"(["/configz","/flagz","/healthz","/livez","/metrics","/readyz"])"));
  const Reply text = get(port, "/statusz", admin);
  EXPECT_EQ(text.status, 200);
  EXPECT_THAT(text.body,
              HasSubstr("\nkube-scheduler statusz\nWarning: This endpoint is not meant to be machine "
                        "parseable"));

  // /flagz: the same flags as upstream, with the same values (the port and the gates aside). YAML likewise,
  // line by line.
  auto flagz = [&](uint16_t p, const std::string& mediaType) {
    const Reply r = get(p, "/flagz", accept(mediaType + ";g=config.k8s.io;v=v1beta1;as=Flagz"));
    EXPECT_EQ(r.status, 200);
    return r.body;
  };
  const json ourFlags = json::parse(flagz(port, "application/json"), nullptr, false)["flags"];
  const json theirFlags = json::parse(flagz(upPort, "application/json"), nullptr, false)["flags"];
  ASSERT_TRUE(ourFlags.is_object());
  ASSERT_TRUE(theirFlags.is_object());
  const std::set<std::string> differ = {"secure-port", "feature-gates"};
  for (const auto& [name, value] : ourFlags.items()) {
    ASSERT_TRUE(theirFlags.contains(name)) << name;
    if (differ.count(name) == 0) {
      EXPECT_EQ(value, theirFlags[name]) << name;
    }
  }
  EXPECT_EQ(ourFlags["feature-gates"], ":ComponentFlagz=true,:ComponentStatusz=true");
  std::set<std::string> missing;
  for (const auto& [name, value] : theirFlags.items()) {
    if (!ourFlags.contains(name)) missing.insert(name);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());  // every upstream flag, the secure serving ones included
  auto yamlLines = [&](uint16_t p) {
    std::vector<std::string> lines;
    std::istringstream in(flagz(p, "application/yaml"));
    for (std::string line; std::getline(in, line);) {
      bool skip = false;
      for (const auto& name : missing) skip = skip || line.rfind("  " + name + ":", 0) == 0;
      for (const auto& name : differ) skip = skip || line.rfind("  " + name + ":", 0) == 0;
      if (!skip) lines.push_back(line);
    }
    return lines;
  };
  EXPECT_EQ(yamlLines(port), yamlLines(upPort));
}

// apimachinery CBOR (self-described; strings and field names as byte strings) read into JSON, for comparing
// answers whose field order upstream randomizes.
json fromK8sCbor(std::string_view in, size_t& pos) {
  auto byte = [&]() -> unsigned { return pos < in.size() ? static_cast<unsigned char>(in[pos++]) : 0xFFu; };
  const unsigned head = byte();
  const unsigned major = head >> 5;
  uint64_t n = head & 0x1F;
  if (n >= 24 && n <= 27) {
    const int bytes = 1 << (n - 24);
    n = 0;
    for (int i = 0; i < bytes; ++i) n = (n << 8) | byte();
  }
  switch (major) {
    case 0:
      return n;
    case 1:
      return -1 - static_cast<int64_t>(n);
    case 2:
    case 3: {
      std::string s(in.substr(std::min(pos, in.size()), n));
      pos += n;
      return s;
    }
    case 4: {
      json a = json::array();
      for (uint64_t i = 0; i < n; ++i) a.push_back(fromK8sCbor(in, pos));
      return a;
    }
    case 5: {
      json o = json::object();
      for (uint64_t i = 0; i < n; ++i) {
        json k = fromK8sCbor(in, pos);
        o[k.is_string() ? k.get<std::string>() : k.dump()] = fromK8sCbor(in, pos);
      }
      return o;
    }
    case 6:
      return fromK8sCbor(in, pos);  // the self-describe tag
    default:
      return head == 0xF6 ? json() : json("unsupported");
  }
}

json fromK8sCbor(std::string_view in) {
  size_t pos = 0;
  return fromK8sCbor(in, pos);
}

// With CBORServingAndStorage on both sides: application/cbor, and the 406s that now name it.
TEST_F(AuthTest, ZpagesCborAsUpstream) {
  SideBySide both;
  startSideBySide("ComponentFlagz=true,ComponentStatusz=true,CBORServingAndStorage=true",
                  "CBORServingAndStorage=true", both);
  if (HasFatalFailure()) return;
  const uint16_t port = both.ours;
  const uint16_t upPort = both.theirs;
  auto ask = [&](uint16_t p, const std::string& path, const std::string& mediaType) {
    std::vector<std::string> args = cert(cp_->clientCertFile(), cp_->clientKeyFile());
    args.insert(args.end(), {"-H", "Accept: " + mediaType});
    return get(p, path, args);
  };
  for (const char* mediaType : {"application/xml", "application/json"}) {
    const Reply ours = ask(port, "/statusz", mediaType);
    EXPECT_EQ(ours.status, 406);
    EXPECT_EQ(ours.body, ask(upPort, "/statusz", mediaType).body) << mediaType;
  }
  const Reply ours406 = ask(port, "/flagz", "application/cbor");
  EXPECT_EQ(ours406.status, 406);
  EXPECT_EQ(fromK8sCbor(ours406.body), fromK8sCbor(ask(upPort, "/flagz", "application/cbor").body));

  const std::string statusz = "application/cbor;g=config.k8s.io;v=v1beta1;as=Statusz";
  json ours = fromK8sCbor(ask(port, "/statusz", statusz).body);
  json theirs = fromK8sCbor(ask(upPort, "/statusz", statusz).body);
  EXPECT_EQ(ours["binaryVersion"], KS_VERSION);
  for (const char* field : {"binaryVersion", "emulationVersion", "goVersion", "startTime", "uptimeSeconds"}) {
    ours.erase(field);
    theirs.erase(field);
  }
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours["kind"], "Statusz");

  const std::string flagz = "application/cbor;g=config.k8s.io;v=v1alpha1;as=Flagz";
  const json ourFlags = fromK8sCbor(ask(port, "/flagz", flagz).body);
  const json theirFlags = fromK8sCbor(ask(upPort, "/flagz", flagz).body);
  EXPECT_EQ(ourFlags["apiVersion"], "config.k8s.io/v1alpha1");
  ASSERT_TRUE(ourFlags["flags"].is_object()) << ourFlags;
  for (const auto& [name, value] : ourFlags["flags"].items()) {
    if (name != "secure-port" && name != "feature-gates") {
      EXPECT_EQ(value, theirFlags["flags"][name]) << name;
    }
  }
  EXPECT_EQ(ourFlags["flags"]["feature-gates"],
            ":ComponentFlagz=true,:ComponentStatusz=true,:CBORServingAndStorage=true");
}

}  // namespace
}  // namespace ks::integration
