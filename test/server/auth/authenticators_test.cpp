#include "pkg/server/auth/authenticators.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "test/server/auth/fake_auth_api.h"
#include "test/server/auth/test_certs.h"

namespace ks::server::auth {
namespace {

using namespace std::chrono_literals;
using testing::FakeAuthApi;
using testing::makeCa;
using testing::makeCert;

Request withHeaders(std::vector<std::pair<std::string, std::string>> headers) {
  Request r;
  r.method = "GET";
  r.path = "/metrics";
  r.headers = std::move(headers);
  return r;
}

Request withCerts(std::vector<std::string> chain) {
  Request r = withHeaders({});
  r.peerCertificates = std::move(chain);
  return r;
}

std::shared_ptr<DynamicCA> caOf(const testing::TestCert& ca) {
  auto d = std::make_shared<DynamicCA>();
  auto parsed = CABundle::parse(ca.certPem, "test");
  EXPECT_TRUE(parsed.ok());
  d->set(std::move(parsed).value());
  return d;
}

struct FakeClock {
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  Clock clock() {
    return [this] { return now; };
  }
};

// ---- x509 ----

TEST(X509Authenticator, ClientCertificateIsUserCnWithGroupsO) {
  auto ca = makeCa("test-ca");
  auto client = makeCert("alice", {"system:masters", "team-a"}, &ca);
  auto authn = newX509Authenticator(caOf(ca));
  AuthnResult r = authn->authenticate(withCerts({client.der}));
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_EQ(r.user.name, "alice");
  EXPECT_EQ(r.user.groups, (std::vector<std::string>{"system:masters", "team-a"}));
  ASSERT_EQ(r.user.extra.count(kCredentialIdKey), 1u);
  EXPECT_EQ(r.user.extra[kCredentialIdKey].front().rfind("X509SHA256=", 0), 0u);
  EXPECT_EQ(r.user.extra[kCredentialIdKey].front().size(), std::string("X509SHA256=").size() + 64);
}

TEST(X509Authenticator, IntermediatesFromThePeerChain) {
  auto root = makeCa("root");
  auto inter = makeCert("intermediate", {}, &root, /*ca=*/true);
  auto client = makeCert("bob", {}, &inter);
  auto authn = newX509Authenticator(caOf(root));
  EXPECT_FALSE(authn->authenticate(withCerts({client.der})).ok);
  AuthnResult r = authn->authenticate(withCerts({client.der, inter.der}));
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_EQ(r.user.name, "bob");
}

TEST(X509Authenticator, UnknownAuthorityIsAnError) {
  auto ca = makeCa("test-ca");
  auto other = makeCa("other-ca");
  auto client = makeCert("mallory", {"system:masters"}, &other);
  AuthnResult r = newX509Authenticator(caOf(ca))->authenticate(withCerts({client.der}));
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("x509: certificate signed by unknown authority"), std::string::npos) << *r.error;
}

TEST(X509Authenticator, ServerOnlyCertificateIsRejected) {
  auto ca = makeCa("test-ca");
  auto server = makeCert("server", {}, &ca, false, "serverAuth");
  AuthnResult r = newX509Authenticator(caOf(ca))->authenticate(withCerts({server.der}));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.error);
}

TEST(X509Authenticator, NoOpinionWithoutCertificateCaOrCommonName) {
  auto ca = makeCa("test-ca");
  auto authn = newX509Authenticator(caOf(ca));
  AuthnResult none = authn->authenticate(withCerts({}));
  EXPECT_FALSE(none.ok);
  EXPECT_FALSE(none.error);
  auto noCn = makeCert("", {"g"}, &ca);
  AuthnResult empty = authn->authenticate(withCerts({noCn.der}));
  EXPECT_FALSE(empty.ok);
  EXPECT_FALSE(empty.error);
  // No CA loaded (yet): no opinion, as upstream's verifyOptionsFn returning !ok.
  auto client = makeCert("alice", {}, &ca);
  AuthnResult noCa = newX509Authenticator(std::make_shared<DynamicCA>())->authenticate(withCerts({client.der}));
  EXPECT_FALSE(noCa.ok);
  EXPECT_FALSE(noCa.error);
}

TEST(X509Authenticator, PicksUpARotatedCa) {
  auto ca1 = makeCa("ca-1");
  auto ca2 = makeCa("ca-2");
  auto dyn = caOf(ca1);
  auto authn = newX509Authenticator(dyn);
  auto c1 = makeCert("one", {}, &ca1);
  auto c2 = makeCert("two", {}, &ca2);
  EXPECT_TRUE(authn->authenticate(withCerts({c1.der})).ok);
  EXPECT_FALSE(authn->authenticate(withCerts({c2.der})).ok);
  dyn->set(CABundle::parse(ca2.certPem, "ca-2").value());
  EXPECT_FALSE(authn->authenticate(withCerts({c1.der})).ok);
  EXPECT_TRUE(authn->authenticate(withCerts({c2.der})).ok);
}

TEST(CABundle, RejectsPemWithoutCertificates) {
  auto r = CABundle::parse("not a certificate", "client-ca-bundle::/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "client-ca-bundle::/x: data does not contain any valid RSA or ECDSA certificates");
}

// ---- request header ----

std::shared_ptr<Dynamic<RequestHeaderBundle>> requestHeader(const testing::TestCert& ca,
                                                            std::vector<std::string> allowed = {}) {
  auto d = std::make_shared<Dynamic<RequestHeaderBundle>>();
  auto b = std::make_shared<RequestHeaderBundle>();
  b->ca = CABundle::parse(ca.certPem, "request-header").value();
  b->settings.usernameHeaders = {"X-Remote-User"};
  b->settings.uidHeaders = {"X-Remote-Uid"};
  b->settings.groupHeaders = {"X-Remote-Group"};
  b->settings.extraHeaderPrefixes = {"X-Remote-Extra-"};
  b->settings.allowedNames = std::move(allowed);
  d->set(std::move(b));
  return d;
}

TEST(RequestHeaderAuthenticator, UserFromHeadersOfAVerifiedProxy) {
  auto ca = makeCa("front-proxy-ca");
  auto proxy = makeCert("front-proxy-client", {}, &ca);
  auto authn = newRequestHeaderAuthenticator(requestHeader(ca, {"front-proxy-client"}));
  Request req = withHeaders({{"x-remote-user", "carol"},
                             {"x-remote-uid", "1234"},
                             {"x-remote-group", "g1"},
                             {"x-remote-group", "g2"},
                             {"x-remote-extra-scopes", "a"},
                             {"x-remote-extra-scopes", "b"},
                             {"x-remote-extra-foo%2fbar", "c"}});
  req.peerCertificates = {proxy.der};
  AuthnResult r = authn->authenticate(req);
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_EQ(r.user.name, "carol");
  EXPECT_EQ(r.user.uid, "1234");
  EXPECT_EQ(r.user.groups, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(r.user.extra["scopes"], (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.user.extra["foo/bar"], (std::vector<std::string>{"c"}));
}

TEST(RequestHeaderAuthenticator, AllowedNamesAndCa) {
  auto ca = makeCa("front-proxy-ca");
  auto other = makeCert("someone-else", {}, &ca);
  auto authn = newRequestHeaderAuthenticator(requestHeader(ca, {"front-proxy-client"}));
  Request req = withHeaders({{"x-remote-user", "carol"}});
  req.peerCertificates = {other.der};
  AuthnResult r = authn->authenticate(req);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""), "x509: subject with cn=someone-else is not in the allowed list");

  // Without allowed names any certificate from the CA may assert users.
  EXPECT_TRUE(newRequestHeaderAuthenticator(requestHeader(ca))->authenticate(req).ok);

  // A certificate from another CA: error.
  auto stranger = makeCa("stranger");
  auto strangerCert = makeCert("front-proxy-client", {}, &stranger);
  req.peerCertificates = {strangerCert.der};
  AuthnResult bad = authn->authenticate(req);
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(bad.error);
}

TEST(RequestHeaderAuthenticator, NoUsernameOrNoCertificateIsNoOpinion) {
  auto ca = makeCa("front-proxy-ca");
  auto proxy = makeCert("front-proxy-client", {}, &ca);
  auto authn = newRequestHeaderAuthenticator(requestHeader(ca));
  Request noUser = withHeaders({{"x-remote-group", "g"}});
  noUser.peerCertificates = {proxy.der};
  AuthnResult r = authn->authenticate(noUser);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error);
  AuthnResult noCert = authn->authenticate(withHeaders({{"x-remote-user", "carol"}}));
  EXPECT_FALSE(noCert.ok);
  EXPECT_FALSE(noCert.error);
}

// ---- tokens ----

TEST(BearerTokenAuthenticator, HeaderForms) {
  FakeAuthApi api;
  api.addToken("good", "dave", {"devs"});
  std::shared_ptr<TokenAuthenticator> tokens = newWebhookTokenAuthenticator(api);
  auto authn = newBearerTokenAuthenticator(tokens);

  AuthnResult ok = authn->authenticate(withHeaders({{"authorization", "Bearer good"}}));
  ASSERT_TRUE(ok.ok);
  EXPECT_EQ(ok.user.name, "dave");
  EXPECT_EQ(ok.user.uid, "uid-dave");
  EXPECT_EQ(ok.user.groups, (std::vector<std::string>{"devs"}));
  EXPECT_TRUE(authn->authenticate(withHeaders({{"authorization", "bearer good"}})).ok);
  EXPECT_EQ(api.lastTokenReview()["spec"]["token"], "good");
  EXPECT_EQ(api.lastTokenReview()["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(api.lastTokenReview()["kind"], "TokenReview");

  for (const char* noOpinion : {"", "Basic Zm9vOmJhcg==", "Bearer", "Bearer ", "Bearer  good"}) {
    AuthnResult r = authn->authenticate(withHeaders({{"authorization", noOpinion}}));
    EXPECT_FALSE(r.ok) << noOpinion;
    EXPECT_FALSE(r.error) << noOpinion;
  }
  EXPECT_FALSE(authn->authenticate(withHeaders({})).error);

  AuthnResult bad = authn->authenticate(withHeaders({{"authorization", "Bearer bad"}}));
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.value_or(""), "invalid bearer token");

  api.setTokenReviewError("token expired");
  EXPECT_EQ(authn->authenticate(withHeaders({{"authorization", "Bearer bad"}})).error.value_or(""), "token expired");
}

TEST(CachedTokenAuthenticator, CachesSuccessesAndFailuresUntilTheirTtl) {
  FakeAuthApi api;
  api.addToken("good", "dave");
  FakeClock clock;
  auto cached = newCachedTokenAuthenticator(newWebhookTokenAuthenticator(api), 10s, 5s, clock.clock());

  EXPECT_TRUE(cached->authenticateToken("good").ok);
  EXPECT_TRUE(cached->authenticateToken("good").ok);
  EXPECT_EQ(api.tokenReviews(), 1);
  EXPECT_FALSE(cached->authenticateToken("bad").ok);
  EXPECT_FALSE(cached->authenticateToken("bad").ok);
  EXPECT_EQ(api.tokenReviews(), 2);

  clock.now += 6s;  // the failure expired, the success not
  EXPECT_TRUE(cached->authenticateToken("good").ok);
  EXPECT_FALSE(cached->authenticateToken("bad").ok);
  EXPECT_EQ(api.tokenReviews(), 3);

  clock.now += 5s;  // both expired (the success 11 s old)
  EXPECT_TRUE(cached->authenticateToken("good").ok);
  EXPECT_EQ(api.tokenReviews(), 4);
}

TEST(CachedTokenAuthenticator, ErrorsAreNotCached) {
  FakeAuthApi api;
  api.addToken("good", "dave");
  FakeClock clock;
  auto cached = newCachedTokenAuthenticator(newWebhookTokenAuthenticator(api), 10s, 10s, clock.clock());
  api.failWith(500);
  AuthnResult r = cached->authenticateToken("good");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""), "the server is on fire");
  api.failWith(0);
  EXPECT_TRUE(cached->authenticateToken("good").ok);
  EXPECT_EQ(api.tokenReviews(), 2);
  // status.error is an error too: not cached.
  api.setTokenReviewError("token expired");
  EXPECT_FALSE(cached->authenticateToken("old").ok);
  EXPECT_FALSE(cached->authenticateToken("old").ok);
  EXPECT_EQ(api.tokenReviews(), 4);
}

// A token authenticator that blocks until released and counts its calls.
class GateTokens final : public TokenAuthenticator {
 public:
  AuthnResult authenticateToken(const std::string&) override {
    std::unique_lock lock(mu_);
    ++calls;
    cv_.wait(lock, [&] { return open_; });
    return AuthnResult::authenticated(UserInfo{"gated", "", {}, {}});
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  int callCount() {
    std::lock_guard lock(mu_);
    return calls;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int calls = 0;
};

TEST(CachedTokenAuthenticator, ConcurrentLookupsOfOneTokenShareOneReview) {
  auto gate = std::make_unique<GateTokens>();
  GateTokens* g = gate.get();
  auto cached = newCachedTokenAuthenticator(std::move(gate), 10s, 10s);
  std::vector<std::thread> threads;
  std::atomic<int> authenticated{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (cached->authenticateToken("t").ok) ++authenticated;
    });
  }
  while (g->callCount() == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(50ms);  // let the others queue up behind the first
  g->open();
  for (auto& t : threads) t.join();
  EXPECT_EQ(authenticated, 8);
  EXPECT_EQ(g->callCount(), 1);
}

TEST(TtlCache, EvictsClosestToExpiryWhenFull) {
  FakeClock clock;
  TtlCache<int> cache(2, clock.clock());
  cache.set("a", 1, 10s);
  cache.set("b", 2, 20s);
  cache.set("c", 3, 30s);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_FALSE(cache.get("a"));
  EXPECT_EQ(cache.get("b").value_or(0), 2);
  cache.set("b", 4, 1s);  // replacing keeps one entry
  EXPECT_EQ(cache.size(), 2u);
  clock.now += 2s;
  EXPECT_FALSE(cache.get("b"));
  EXPECT_EQ(cache.get("c").value_or(0), 3);
  cache.set("d", 5, 0s);  // a zero TTL caches nothing
  EXPECT_FALSE(cache.get("d"));
}

// ---- composition ----

class Fixed final : public Authenticator {
 public:
  explicit Fixed(AuthnResult r) : r_(std::move(r)) {}
  AuthnResult authenticate(const Request&) override {
    ++calls;
    return r_;
  }
  int calls = 0;

 private:
  AuthnResult r_;
};

UserInfo user(std::string name, std::vector<std::string> groups = {}) {
  return UserInfo{std::move(name), "", std::move(groups), {}};
}

TEST(UnionAuthenticator, FirstSuccessWinsErrorsAggregated) {
  std::vector<std::unique_ptr<Authenticator>> all;
  all.push_back(std::make_unique<Fixed>(AuthnResult::failed("e1")));
  all.push_back(std::make_unique<Fixed>(AuthnResult::noOpinion()));
  all.push_back(std::make_unique<Fixed>(AuthnResult::authenticated(user("u"))));
  auto u = newUnionAuthenticator(std::move(all));
  AuthnResult r = u->authenticate(withHeaders({}));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.user.name, "u");

  std::vector<std::unique_ptr<Authenticator>> failing;
  failing.push_back(std::make_unique<Fixed>(AuthnResult::failed("e1")));
  failing.push_back(std::make_unique<Fixed>(AuthnResult::failed("e2")));
  EXPECT_EQ(newUnionAuthenticator(std::move(failing))->authenticate(withHeaders({})).error.value_or(""), "[e1, e2]");
}

TEST(UnionAuthenticator, FailOnErrorStopsAtTheFirstError) {
  std::vector<std::unique_ptr<Authenticator>> all;
  all.push_back(std::make_unique<Fixed>(AuthnResult::failed("bad")));
  all.push_back(newAnonymousAuthenticator());
  AuthnResult r = newUnionAuthenticator(std::move(all), true)->authenticate(withHeaders({}));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""), "bad");

  std::vector<std::unique_ptr<Authenticator>> none;
  none.push_back(std::make_unique<Fixed>(AuthnResult::noOpinion()));
  none.push_back(newAnonymousAuthenticator());
  AuthnResult anon = newUnionAuthenticator(std::move(none), true)->authenticate(withHeaders({}));
  ASSERT_TRUE(anon.ok);
  EXPECT_EQ(anon.user.name, "system:anonymous");
  EXPECT_EQ(anon.user.groups, (std::vector<std::string>{"system:unauthenticated"}));
}

TEST(AuthenticatedGroupAdder, AddsSystemAuthenticatedExceptToAnonymous) {
  auto add = [](UserInfo u) {
    return newAuthenticatedGroupAdder(std::make_unique<Fixed>(AuthnResult::authenticated(std::move(u))))
        ->authenticate(withHeaders({}))
        .user.groups;
  };
  EXPECT_EQ(add(user("u", {"g"})), (std::vector<std::string>{"g", "system:authenticated"}));
  EXPECT_EQ(add(user("u", {"system:authenticated", "g"})), (std::vector<std::string>{"system:authenticated", "g"}));
  EXPECT_EQ(add(user("u", {"system:unauthenticated"})), (std::vector<std::string>{"system:unauthenticated"}));
  EXPECT_EQ(add(user("system:anonymous", {})), (std::vector<std::string>{}));
}

}  // namespace
}  // namespace ks::server::auth
