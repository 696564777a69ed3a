#include "pkg/server/auth/delegating.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pkg/server/auth/filter.h"
#include "test/server/auth/fake_auth_api.h"
#include "test/server/auth/test_certs.h"

namespace ks::server::auth {
namespace {

using namespace std::chrono_literals;
using testing::FakeAuthApi;
using testing::makeCa;
using testing::makeCert;

Request request(std::string path, std::string method = "GET",
                std::vector<std::pair<std::string, std::string>> headers = {}) {
  Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.headers = std::move(headers);
  r.headers.emplace_back("user-agent", "Go-http-client/1.1");
  return r;
}

Request bearer(std::string path, const std::string& token) {
  return request(std::move(path), "GET", {{"authorization", "Bearer " + token}});
}

// The status a request gets from the filter: 200 when it passes to the handler.
int statusOf(const Filter& f, const Request& r) {
  auto resp = f(r);
  return resp ? resp->status : 200;
}

AuthApiFactory factoryOf(std::shared_ptr<FakeAuthApi> api) {
  return [api](const std::string& kubeconfig, std::string_view) -> Result<std::shared_ptr<AuthApi>> {
    if (kubeconfig.empty()) return std::shared_ptr<AuthApi>();  // not in a cluster
    return std::shared_ptr<AuthApi>(api);
  };
}

class DelegatingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_ = std::make_shared<FakeAuthApi>();
    api_->addToken("bound-token", "system:serviceaccount:ns:bound", {"system:serviceaccounts"});
    api_->addToken("unbound-token", "system:serviceaccount:ns:unbound", {"system:serviceaccounts"});
    api_->allow("system:serviceaccount:ns:bound", "get", "/metrics");
    api_->setConfigMapData({{"client-ca-file", ca_.certPem}});
    authn_.remoteKubeconfig = "/admin.kubeconfig";
    authz_.remoteKubeconfig = "/admin.kubeconfig";
  }

  std::unique_ptr<DelegatingAuth> build() {
    auto created = DelegatingAuth::create(authn_, authz_, factoryOf(api_));
    EXPECT_TRUE(created.ok()) << (created.ok() ? "" : created.error().message());
    return created.ok() ? std::move(created).value() : nullptr;
  }

  testing::TestCert ca_ = makeCa("cluster-ca");
  std::shared_ptr<FakeAuthApi> api_;
  DelegatingAuthenticationOptions authn_;
  DelegatingAuthorizationOptions authz_;
};

TEST_F(DelegatingTest, UpstreamStatusMatrix) {
  auto auth = build();
  ASSERT_TRUE(auth);
  EXPECT_TRUE(auth->usesClientCertificates());
  Filter f = auth->filter();
  // Anonymous is authenticated, then not authorized: 403; an invalid token fails authentication: 401.
  EXPECT_EQ(statusOf(f, request("/metrics")), 403);
  EXPECT_EQ(statusOf(f, bearer("/metrics", "nope")), 401);
  EXPECT_EQ(statusOf(f, bearer("/metrics", "unbound-token")), 403);
  EXPECT_EQ(statusOf(f, bearer("/metrics", "bound-token")), 200);
  EXPECT_EQ(statusOf(f, bearer("/configz", "bound-token")), 403);
  EXPECT_EQ(statusOf(f, bearer("/configz", "unbound-token")), 403);
  // Always-allowed paths: open to anonymous, but a bad token is still a 401.
  for (const char* p : {"/healthz", "/readyz", "/livez"}) {
    EXPECT_EQ(statusOf(f, request(p)), 200) << p;
    EXPECT_EQ(statusOf(f, bearer(p, "unbound-token")), 200) << p;
    EXPECT_EQ(statusOf(f, bearer(p, "nope")), 401) << p;
  }
  EXPECT_EQ(statusOf(f, request("/healthz/ping")), 403);  // exact paths only
  // A client certificate from the ConfigMap's CA in system:masters passes without a review.
  auto master = makeCert("admin", {"system:masters"}, &ca_);
  Request withCert = request("/metrics");
  withCert.peerCertificates = {master.der};
  const int reviews = api_->accessReviews();
  EXPECT_EQ(statusOf(f, withCert), 200);
  EXPECT_EQ(api_->accessReviews(), reviews);
  // Another client certificate is asked about with its groups plus system:authenticated.
  auto viewer = makeCert("viewer", {"viewers"}, &ca_);
  withCert.peerCertificates = {viewer.der};
  EXPECT_EQ(statusOf(f, withCert), 403);
  EXPECT_EQ(api_->lastAccessReview()["spec"]["user"], "viewer");
  EXPECT_EQ(api_->lastAccessReview()["spec"]["groups"], (nlohmann::json{"viewers", "system:authenticated"}));
  // One the CA did not sign: 401.
  auto other = makeCa("other");
  auto forged = makeCert("admin", {"system:masters"}, &other);
  withCert.peerCertificates = {forged.der};
  EXPECT_EQ(statusOf(f, withCert), 401);
}

TEST_F(DelegatingTest, ResponseBodiesAsKubeApiserver) {
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  auto forbidden = f(request("/metrics"));
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->contentType, "application/json");
  EXPECT_EQ(forbidden->body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User )"
            R"(\"system:anonymous\" cannot get path \"/metrics\"","reason":"Forbidden","details":{},"code":403})"
            "\n");
  bool nosniff = false;
  for (const auto& [k, v] : forbidden->headers) nosniff = nosniff || (k == "X-Content-Type-Options" && v == "nosniff");
  EXPECT_TRUE(nosniff);

  auto post = f(request("/metrics", "POST"));
  ASSERT_TRUE(post);
  EXPECT_NE(post->body.find(R"(cannot post path \"/metrics\")"), std::string::npos) << post->body;

  auto unauthorized = f(bearer("/metrics", "nope"));
  ASSERT_TRUE(unauthorized);
  EXPECT_EQ(unauthorized->status, 401);
  EXPECT_EQ(unauthorized->body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized",)"
            R"("reason":"Unauthorized","code":401})"
            "\n");

  // curl gets it indented, as kube-apiserver's isPrettyPrint.
  Request curl = request("/metrics");
  curl.headers = {{"user-agent", "curl/8.5.0"}};
  auto pretty = f(curl);
  ASSERT_TRUE(pretty);
  EXPECT_EQ(pretty->body,
            "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n"
            "  \"message\": \"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/metrics\\\"\",\n"
            "  \"reason\": \"Forbidden\",\n  \"details\": {},\n  \"code\": 403\n}");
}

TEST_F(DelegatingTest, ReviewErrorsAre500And401) {
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  api_->failWith(500);
  auto sarError = f(request("/metrics"));
  ASSERT_TRUE(sarError);
  EXPECT_EQ(sarError->status, 500);
  EXPECT_EQ(sarError->body, "Internal Server Error: \"/metrics\": the server is on fire\n");
  EXPECT_EQ(statusOf(f, bearer("/metrics", "bound-token")), 401);  // TokenReview failed
  EXPECT_EQ(statusOf(f, request("/healthz")), 200);                 // needs no review
}

TEST_F(DelegatingTest, WithoutKubeconfigsOnlyAlwaysAllowedPathsAndGroups) {
  authn_.remoteKubeconfig.clear();
  authz_.remoteKubeconfig.clear();
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  EXPECT_EQ(statusOf(f, request("/metrics")), 403);
  EXPECT_EQ(statusOf(f, request("/healthz")), 200);
  // No token authentication at all: the token is ignored and the request is anonymous.
  EXPECT_EQ(statusOf(f, bearer("/healthz", "nope")), 200);
  EXPECT_EQ(statusOf(f, bearer("/metrics", "bound-token")), 403);
  EXPECT_EQ(api_->tokenReviews(), 0);
  EXPECT_EQ(api_->accessReviews(), 0);
  EXPECT_FALSE(auth->usesClientCertificates());  // no client CA: the server does not ask for certificates
}

TEST_F(DelegatingTest, AlwaysAllowPathsPrefix) {
  authz_.alwaysAllowPaths = {"/healthz", "/metrics*"};
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  EXPECT_EQ(statusOf(f, request("/metrics")), 200);
  EXPECT_EQ(statusOf(f, request("/metrics/resources")), 200);
  EXPECT_EQ(statusOf(f, request("/readyz")), 403);
  authz_.alwaysAllowPaths = {"/he*lthz"};
  auto bad = DelegatingAuth::create(authn_, authz_, factoryOf(api_));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "only trailing * allowed in \"he*lthz\"");
}

TEST_F(DelegatingTest, ConfigMapCaRotationIsPickedUpOnRefresh) {
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  auto rotated = makeCa("rotated-ca");
  auto oldCert = makeCert("admin", {"system:masters"}, &ca_);
  auto newCert = makeCert("admin", {"system:masters"}, &rotated);
  Request r = request("/metrics");
  r.peerCertificates = {newCert.der};
  EXPECT_EQ(statusOf(f, r), 401);
  api_->setConfigMapData({{"client-ca-file", rotated.certPem}});
  auth->refresh();
  EXPECT_EQ(statusOf(f, r), 200);
  r.peerCertificates = {oldCert.der};
  EXPECT_EQ(statusOf(f, r), 401);
}

TEST_F(DelegatingTest, BackgroundRefresh) {
  auto created = DelegatingAuth::create(authn_, authz_, factoryOf(api_), DelegatingAuthSettings{20ms, steadyClock()});
  ASSERT_TRUE(created.ok());
  auto auth = std::move(created).value();
  auth->start();
  Filter f = auth->filter();
  auto rotated = makeCa("rotated-ca");
  auto newCert = makeCert("admin", {"system:masters"}, &rotated);
  Request r = request("/metrics");
  r.peerCertificates = {newCert.der};
  api_->setConfigMapData({{"client-ca-file", rotated.certPem}});
  int status = 0;
  for (int i = 0; i < 200 && (status = statusOf(f, r)) != 200; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(status, 200);
}

TEST_F(DelegatingTest, RequestHeaderFromTheConfigMap) {
  auto proxyCa = makeCa("front-proxy-ca");
  auto proxy = makeCert("front-proxy-client", {}, &proxyCa);
  api_->setConfigMapData({{"client-ca-file", ca_.certPem},
                          {"requestheader-client-ca-file", proxyCa.certPem},
                          {"requestheader-allowed-names", R"(["front-proxy-client"])"},
                          {"requestheader-username-headers", R"(["X-Remote-User"])"},
                          {"requestheader-group-headers", R"(["X-Remote-Group"])"},
                          {"requestheader-extra-headers-prefix", R"(["X-Remote-Extra-"])"}});
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  Request r = request("/metrics", "GET", {{"x-remote-user", "proxied"}, {"x-remote-group", "system:masters"}});
  r.peerCertificates = {proxy.der};
  EXPECT_EQ(statusOf(f, r), 200);
  r.headers = {{"x-remote-user", "system:serviceaccount:ns:bound"}};
  EXPECT_EQ(statusOf(f, r), 200);
  EXPECT_EQ(api_->lastAccessReview()["spec"]["groups"], (nlohmann::json{"system:authenticated"}));
}

TEST_F(DelegatingTest, RequestHeaderFromFlags) {
  auto proxyCa = makeCa("front-proxy-ca");
  auto proxy = makeCert("aggregator", {}, &proxyCa);
  const std::string file = ::testing::TempDir() + "/rh-ca.crt";
  std::ofstream(file) << proxyCa.certPem;
  authn_.requestHeader.clientCaFile = file;
  authn_.requestHeader.allowedNames = {"front-proxy-client"};
  auto auth = build();
  ASSERT_TRUE(auth);
  Filter f = auth->filter();
  Request r = request("/metrics", "GET", {{"x-remote-user", "proxied"}, {"x-remote-group", "system:masters"}});
  r.peerCertificates = {proxy.der};
  EXPECT_EQ(statusOf(f, r), 401);  // CN not in the allowed list
  authn_.requestHeader.allowedNames.clear();
  auto open = build();
  EXPECT_EQ(statusOf(open->filter(), r), 200);
}

TEST_F(DelegatingTest, ClientCaFileFlag) {
  const std::string file = ::testing::TempDir() + "/client-ca.crt";
  auto fileCa = makeCa("file-ca");
  std::ofstream(file) << fileCa.certPem;
  authn_.clientCaFile = file;
  auto auth = build();
  ASSERT_TRUE(auth);
  auto fromFile = makeCert("admin", {"system:masters"}, &fileCa);
  auto fromConfigMap = makeCert("admin", {"system:masters"}, &ca_);
  Request r = request("/metrics");
  r.peerCertificates = {fromFile.der};
  EXPECT_EQ(statusOf(auth->filter(), r), 200);
  r.peerCertificates = {fromConfigMap.der};  // the flag wins: the ConfigMap's CA is not used
  EXPECT_EQ(statusOf(auth->filter(), r), 401);

  authn_.clientCaFile = ::testing::TempDir() + "/missing.crt";
  auto bad = DelegatingAuth::create(authn_, authz_, factoryOf(api_));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("unable to load client CA provider: ", 0), 0u) << bad.error().message();
}

TEST_F(DelegatingTest, LookupFailureToleratedOrFatal) {
  api_->failWith(500);
  auto tolerated = DelegatingAuth::create(authn_, authz_, factoryOf(api_));
  ASSERT_TRUE(tolerated.ok());
  EXPECT_EQ(statusOf((*tolerated)->filter(), request("/healthz")), 200);
  authn_.tolerateLookupFailure = false;
  auto fatal = DelegatingAuth::create(authn_, authz_, factoryOf(api_));
  ASSERT_FALSE(fatal.ok());
  EXPECT_EQ(fatal.error().message(),
            "unable to load configmap based request-header-client-ca-file: the server is on fire");
  // --authentication-skip-lookup: no lookup, so nothing to fail.
  authn_.skipLookup = true;
  EXPECT_TRUE(DelegatingAuth::create(authn_, authz_, factoryOf(api_)).ok());
}

TEST(ValidateAuthentication, UpstreamChecks) {
  DelegatingAuthenticationOptions o;
  std::vector<std::string> warnings;
  EXPECT_TRUE(validateAuthentication(o, &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  o.requestHeader.usernameHeaders = {"X-User"};
  EXPECT_TRUE(validateAuthentication(o, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "--requestheader-username-headers is set without specifying the standard X-Remote-User header - API "
            "aggregation will not work");
  o.requestHeader.uidHeaders = {"X-Uid"};
  auto r = validateAuthentication(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API "
            "aggregation will not work");
  o.requestHeader.uidHeaders = {"x-remote-uid"};
  o.requestHeader.groupHeaders = {" "};
  EXPECT_EQ(validateAuthentication(o).error().message(), "empty value in \"requestheader-group-headers\"");
}

}  // namespace
}  // namespace ks::server::auth
