// Unit tests of the REST client: config loading, rate limiting, retry policy, error decoding, request
// bodies, and the client itself against an in-test HTTP server on 127.0.0.1.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"
#include "pkg/api/proto/wire.h"
#include "pkg/client/rest/config.h"
#include "pkg/client/rest/errors.h"
#include "pkg/client/rest/line_splitter.h"
#include "pkg/client/rest/rate_limiter.h"
#include "pkg/client/rest/request_bodies.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/client/rest/retry.h"
#include "pkg/client/rest/tls.h"
#include "pkg/client/rest/token_source.h"
#include "test/client/rest/test_http_server.h"

namespace ks::client::rest {
namespace {

using nlohmann::json;
using testing::ResponseWriter;
using testing::TestHttpServer;
using testing::TestRequest;
using testing::watchLine;
using namespace std::chrono_literals;

// ---- helpers ---------------------------------------------------------------------------------

class FakeClock : public Clock {
 public:
  TimePoint now() const override { return now_; }
  bool sleepFor(Duration d, std::stop_token stop) override {
    slept_ += d;
    now_ += d;
    return !stop.stop_requested();
  }
  void advance(Duration d) { now_ += d; }
  Duration slept() const { return slept_; }

 private:
  TimePoint now_{std::chrono::seconds(1000)};
  Duration slept_{0};
};

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("restclient-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& rel, const std::string& content) const {
    const auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::string podJson(const std::string& name, const std::string& rv, const std::string& ns = "default") {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","uid":"uid-)" + name + R"(","resourceVersion":")" + rv +
         R"("},"spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Pending"}})";
}

std::string statusJson(int code, const std::string& reason, const std::string& message,
                       const std::string& details = "") {
  json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  if (!details.empty()) s["details"] = json::parse(details);
  return s.dump();
}

RestConfig testConfig(const TestHttpServer& server) {
  RestConfig c;
  c.server = server.url();
  c.qps = -1;  // no client-side limiting unless a test asks for it
  c.retry.initialBackoff = 1ms;
  c.retry.maxBackoff = 5ms;
  c.retry.maxRetries = 3;
  c.bearerToken = "secret-token";
  return c;
}

std::unique_ptr<RestClient> makeClient(const RestConfig& config) {
  auto c = RestClient::create(config);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return std::move(c).value();
}

// ---- LineSplitter ------------------------------------------------------------------------------

TEST(LineSplitterTest, SplitsAcrossChunksAndStripsCr) {
  LineSplitter s;
  std::vector<std::string> lines;
  auto push = [&](std::string&& l) { lines.push_back(std::move(l)); };
  s.feed("{\"a\":1}\n{\"b\"", push);
  s.feed(":2}\r\n\n{\"c", push);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  s.feed("\":3}", push);
  EXPECT_EQ(s.partialSize(), 7u);
  s.finish(push);
  EXPECT_EQ(lines.back(), "{\"c\":3}");
  EXPECT_EQ(lines.size(), 3u);
}

// ---- base64 ------------------------------------------------------------------------------------

TEST(Base64Test, RoundTripsAndRejectsGarbage) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "-----BEGIN CERTIFICATE-----\n\x01\xff"}) {
    auto d = base64Decode(base64Encode(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(*base64Decode("aGVs\nbG8="), "hello");
  EXPECT_EQ(*base64Decode("aGVsbG8"), "hello");  // unpadded
  auto bad = base64Decode("aGV*bG8=");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "illegal base64 data: unexpected character '*'");
}

// ---- kubeconfig ----------------------------------------------------------------------------------

constexpr const char* kInlineKubeconfig = R"(apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: cluster-a
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
- name: cluster-b
  cluster:
    server: https://10.0.0.1:443
    insecure-skip-tls-verify: true
contexts:
- name: ctx-a
  context:
    cluster: cluster-a
    user: user-a
    namespace: kube-system
- name: ctx-b
  context:
    cluster: cluster-b
    user: user-b
users:
- name: user-a
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: user-b
  user:
    token: abc.def
)";

TEST(KubeconfigTest, InlineDataCurrentContext) {
  auto c = parseKubeconfig(kInlineKubeconfig, "/nowhere", "kc");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->caPem, "CA-PEM");
  EXPECT_EQ(c->clientCertPem, "CERT");
  EXPECT_EQ(c->clientKeyPem, "KEY");
  EXPECT_EQ(c->namespace_, "kube-system");
  EXPECT_FALSE(c->insecureSkipTlsVerify);
  EXPECT_TRUE(c->bearerToken.empty());
}

// Found by test/fuzz/kubeconfig_fuzz (corpus crash-yaml-cpp-comma-loop): yaml-cpp looped forever, allocating,
// on a ',' where a document should start; now a parse error.
TEST(KubeconfigTest, MalformedYamlIsAnErrorNotAHang) {
  auto c = parseKubeconfig(",-r6", "/nowhere", "kc");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), "kc: yaml: line 1, column 1: did not find expected node content");
  auto bad = parseKubeconfig("clusters: \xd0-\n", "/nowhere", "kc");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "kc: yaml: invalid trailing UTF-8 octet");
}

TEST(KubeconfigTest, ExplicitContext) {
  auto c = parseKubeconfig(kInlineKubeconfig, "/nowhere", "kc", "ctx-b");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_TRUE(c->insecureSkipTlsVerify);
  EXPECT_EQ(c->bearerToken, "abc.def");
  EXPECT_TRUE(c->caPem.empty());
}

TEST(KubeconfigTest, FilesRelativeToKubeconfigDirAndTokenFile) {
  TempDir dir;
  dir.write("pki/ca.crt", "CA-FROM-FILE");
  dir.write("pki/client.crt", "CERT-FROM-FILE");
  const std::string absKey = dir.write("elsewhere/client.key", "KEY-FROM-FILE");
  dir.write("token", "tok-123\n");
  const std::string path = dir.write("conf/../kubeconfig", std::string(R"(apiVersion: v1
clusters:
- name: c
  cluster:
    server: https://localhost:6443
    certificate-authority: pki/ca.crt
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user:
    client-certificate: pki/client.crt
    client-key: )") + absKey + R"(
    tokenFile: token
)");
  auto c = loadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->caPem, "CA-FROM-FILE");
  EXPECT_EQ(c->clientCertPem, "CERT-FROM-FILE");
  EXPECT_EQ(c->clientKeyPem, "KEY-FROM-FILE");
  EXPECT_EQ(c->bearerTokenFile, dir.path() + "/token");
}

struct BadKubeconfigCase {
  const char* name;
  std::string yaml;
  std::string context;
  std::string error;
};

TEST(KubeconfigTest, ErrorsNameTheField) {
  const std::string base = R"(clusters:
- name: c
  cluster: {server: "https://h:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
users:
- name: u
  user: {token: t}
)";
  const std::vector<BadKubeconfigCase> cases = {
      {"no current context", base, "", "kc: current-context: not set and no context was given"},
      {"unknown context", base, "nope", "kc: contexts: context \"nope\" not found"},
      {"missing server", R"(clusters:
- name: c
  cluster: {certificate-authority-data: Q0E=}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "", "kc: clusters[\"c\"].cluster.server: missing"},
      {"unknown cluster", R"(clusters: []
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "", "kc: clusters: cluster \"c\" not found"},
      {"bad base64", R"(clusters:
- name: c
  cluster: {server: "https://h:1", certificate-authority-data: "!!"}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "",
       "kc: clusters[\"c\"].cluster.certificate-authority-data: illegal base64 data: unexpected character "
       "'!'"},
      {"missing CA file", R"(clusters:
- name: c
  cluster: {server: "https://h:1", certificate-authority: missing/ca.crt}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "",
       "kc: clusters[\"c\"].cluster.certificate-authority: cannot read \"/base/missing/ca.crt\": No such "
       "file or directory"},
      {"exec plugin", R"(clusters:
- name: c
  cluster: {server: "https://h:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user: {exec: {command: aws}}
)",
       "", "kc: users[\"u\"].user.exec: exec credential plugins are not supported"},
      {"cert without key", R"(clusters:
- name: c
  cluster: {server: "https://h:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user: {client-certificate-data: Q0E=}
)",
       "", "kc: users[\"u\"].user: client-certificate given without client-key"},
      {"insecure with CA", R"(clusters:
- name: c
  cluster: {server: "https://h:1", certificate-authority-data: Q0E=, insecure-skip-tls-verify: true}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "",
       "kc: clusters[\"c\"].cluster: specifying a root certificates file with the insecure flag is not "
       "allowed"},
      {"not a URL", R"(clusters:
- name: c
  cluster: {server: "h:1"}
contexts:
- name: x
  context: {cluster: c}
current-context: x
)",
       "", "kc: clusters[\"c\"].cluster.server: \"h:1\" is not an http(s) URL"},
      {"empty", "", "", "kc: no configuration has been provided"},
  };
  for (const auto& tc : cases) {
    auto c = parseKubeconfig(tc.yaml, "/base", "kc", tc.context);
    ASSERT_FALSE(c.ok()) << tc.name;
    EXPECT_EQ(c.error().message(), tc.error) << tc.name;
  }
}

TEST(KubeconfigTest, MissingFileAndMissingTokenFile) {
  auto c = loadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(),
            "kubeconfig: cannot read \"/nonexistent/kubeconfig\": No such file or directory");
  TempDir dir;
  const std::string path = dir.write("kc", R"(clusters:
- name: c
  cluster: {server: "https://h:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user: {tokenFile: /nonexistent/token}
)");
  c = loadKubeconfig(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(
      c.error().message(),
      path + ": users[\"u\"].user.tokenFile: cannot read \"/nonexistent/token\": No such file or directory");
}

// ---- in-cluster --------------------------------------------------------------------------------

TEST(InClusterConfigTest, NeedsEnvironment) {
  InClusterOptions o;
  o.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  auto c = inClusterConfig(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(
      c.error().message(),
      "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must "
      "be defined");
}

TEST(InClusterConfigTest, ReadsServiceAccount) {
  TempDir dir;
  InClusterOptions o;
  o.tokenFile = dir.write("sa/token", "sa-token");
  o.caFile = dir.write("sa/ca.crt", "SA-CA");
  o.namespaceFile = dir.write("sa/namespace", "scheduling\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "fd00::1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  o.getenv = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  auto c = inClusterConfig(o);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->bearerTokenFile, o.tokenFile);
  EXPECT_EQ(c->caPem, "SA-CA");
  EXPECT_EQ(c->namespace_, "scheduling");
  EXPECT_FALSE(c->insecureSkipTlsVerify);

  env["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  o.tokenFile = dir.path() + "/sa/missing";
  c = inClusterConfig(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), "in-cluster config: service account token: cannot read \"" + o.tokenFile +
                                     "\": No such file or directory");
}

// ---- token source ------------------------------------------------------------------------------

TEST(TokenSourceTest, RereadsFilePeriodicallyAndKeepsLastGood) {
  TempDir dir;
  const std::string file = dir.write("token", "one\n");
  FakeClock clock;
  TokenSource ts("static", file, 60s, clock);
  EXPECT_EQ(ts.token(), "one");
  dir.write("token", "two");
  clock.advance(30s);
  EXPECT_EQ(ts.token(), "one");  // cached
  clock.advance(31s);
  EXPECT_EQ(ts.token(), "two");
  std::filesystem::remove(file);
  clock.advance(61s);
  EXPECT_EQ(ts.token(), "two");  // read failed: last good token
  TokenSource never("static", dir.path() + "/none", 60s, clock);
  EXPECT_EQ(never.token(), "static");
  TokenSource noFile("static", "", 60s, clock);
  EXPECT_EQ(noFile.token(), "static");
}

// ---- rate limiter ------------------------------------------------------------------------------

TEST(RateLimiterTest, BurstThenQps) {
  FakeClock clock;
  TokenBucketRateLimiter rl(10, 3, clock);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rl.reserve(), Clock::Duration::zero()) << i;
  EXPECT_FALSE(rl.tryAccept());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(rl.reserve()), 100ms);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(rl.reserve()), 200ms);
  clock.advance(200ms);  // pays back the two reservations
  EXPECT_FALSE(rl.tryAccept());
  clock.advance(100ms);
  EXPECT_TRUE(rl.tryAccept());
  clock.advance(10s);  // refill is capped at burst
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(rl.tryAccept()) << i;
  EXPECT_FALSE(rl.tryAccept());
}

TEST(RateLimiterTest, AcceptSleepsOnTheInjectedClock) {
  FakeClock clock;
  TokenBucketRateLimiter rl(5, 1, clock);
  for (int i = 0; i < 11; ++i) EXPECT_TRUE(rl.accept());
  // 1 from the burst, then 10 at 5/s = 2 s in total.
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(clock.slept()), 2000ms);
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_FALSE(rl.accept(stopped.get_token()));
}

TEST(RateLimiterTest, NonPositiveQpsDisables) {
  FakeClock clock;
  TokenBucketRateLimiter rl(0, 1, clock);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(rl.tryAccept());
  EXPECT_EQ(rl.reserve(), Clock::Duration::zero());
}

// ---- retry policy ------------------------------------------------------------------------------

TEST(RetryTest, BackoffIsExponentialCappedWithJitter) {
  RetryParams p;
  p.initialBackoff = 100ms;
  p.maxBackoff = 1000ms;
  p.jitter = 0.5;
  EXPECT_EQ(backoffDelay(1, p, 0.0), 100ms);
  EXPECT_EQ(backoffDelay(2, p, 0.0), 200ms);
  EXPECT_EQ(backoffDelay(4, p, 0.0), 800ms);
  EXPECT_EQ(backoffDelay(5, p, 0.0), 1000ms);
  EXPECT_EQ(backoffDelay(9, p, 0.0), 1000ms);
  EXPECT_EQ(backoffDelay(1, p, 1.0), 150ms);
  EXPECT_EQ(backoffDelay(5, p, 0.5), 1250ms);
}

TEST(RetryTest, Decisions) {
  RetryParams p;
  p.initialBackoff = 10ms;
  p.jitter = 0;
  p.maxRetries = 2;
  using K = RequestKind;
  auto d = [&](K k, int32_t status, bool sent = true, int retryAfter = 0, int retry = 1) {
    return retryDelay(k, AttemptOutcome{status, sent, std::chrono::seconds(retryAfter)}, retry, p, 0.0);
  };
  EXPECT_EQ(d(K::Read, 503), 10ms);
  EXPECT_EQ(d(K::Read, 500, true, 0, 2), 20ms);
  EXPECT_EQ(d(K::Read, 500, true, 0, 3), std::nullopt);  // bounded
  EXPECT_EQ(d(K::Read, 0), 10ms);                        // transport error on GET
  EXPECT_EQ(d(K::Idempotent, 0), 10ms);
  EXPECT_EQ(d(K::NonIdempotent, 0), std::nullopt);       // POST may have been applied
  EXPECT_EQ(d(K::NonIdempotent, 0, false), 10ms);        // connection refused: never sent
  EXPECT_EQ(d(K::NonIdempotent, 429, true, 3), 3000ms);  // Retry-After honoured for any verb
  EXPECT_EQ(d(K::NonIdempotent, 429), 10ms);
  EXPECT_EQ(d(K::NonIdempotent, 503), 10ms);  // the server answered: binding safe
  EXPECT_EQ(d(K::Read, 503, true, 2), 2000ms);
  // Retry-After answers are retried up to maxRetries (client-go: 10), others only maxBackoffRetries times.
  p.maxRetries = 10;
  p.maxBackoffRetries = 5;
  EXPECT_EQ(d(K::NonIdempotent, 429, true, 1, 10), 1000ms);
  EXPECT_EQ(d(K::NonIdempotent, 429, true, 1, 11), std::nullopt);
  EXPECT_EQ(d(K::Read, 503, true, 0, 5), 160ms);
  EXPECT_EQ(d(K::Read, 503, true, 0, 6), std::nullopt);
  EXPECT_EQ(d(K::Read, 0, true, 0, 6), std::nullopt);
  EXPECT_EQ(RetryParams{}.maxRetries, 10);
  // maxRetries 0 (the leader-election client) retries nothing, not even a Retry-After answer.
  p.maxRetries = 0;
  EXPECT_EQ(d(K::Idempotent, 429, true, 1, 1), std::nullopt);
  EXPECT_EQ(d(K::Read, 503, true, 0, 1), std::nullopt);
  for (int32_t s : {400, 401, 403, 404, 409, 410, 422, 501}) {
    EXPECT_EQ(d(K::Read, s), std::nullopt) << s;
  }
}

// ---- error decoding ------------------------------------------------------------------------------

TEST(ApiErrorTest, FromStatusBodies) {
  auto e = apiErrorFromResponse(404, statusJson(404, "NotFound", "pods \"p\" not found"));
  EXPECT_TRUE(e.isNotFound());
  EXPECT_EQ(e.reason(), "NotFound");
  EXPECT_EQ(e.message(), "pods \"p\" not found");

  e = apiErrorFromResponse(409, statusJson(409, "AlreadyExists", "leases \"l\" already exists"));
  EXPECT_TRUE(e.isConflict());
  EXPECT_EQ(e.reason(), "AlreadyExists");

  e = apiErrorFromResponse(410, statusJson(410, "Expired", "too old resource version: 1 (5)"));
  EXPECT_TRUE(e.isGone());
  EXPECT_EQ(e.reason(), "Expired");

  e = apiErrorFromResponse(
      422,
      statusJson(
          422, "Invalid", "Pod \"p\" is invalid",
          R"({"name":"p","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]})"));
  EXPECT_EQ(e.code(), 422);
  EXPECT_EQ(e.reason(), "Invalid");

  e = apiErrorFromResponse(429,
                           statusJson(429, "TooManyRequests", "slow down", R"({"retryAfterSeconds":7})"));
  EXPECT_TRUE(e.isTooManyRequests());
  EXPECT_EQ(e.retryAfter(), 7s);
  e = apiErrorFromResponse(429, statusJson(429, "TooManyRequests", "slow down", R"({"retryAfterSeconds":7})"),
                           "2");
  EXPECT_EQ(e.retryAfter(), 2s);  // the header wins

  e = apiErrorFromResponse(500, statusJson(0, "", "etcdserver: request timed out"));
  EXPECT_EQ(e.code(), 500);  // code from HTTP when the Status has none
  EXPECT_TRUE(e.isServerError());
  EXPECT_EQ(e.reason(), "InternalError");
}

TEST(ApiErrorTest, WithoutStatusBody) {
  auto e = apiErrorFromResponse(503, "upstream connect error", "1");
  EXPECT_EQ(e.code(), 503);
  EXPECT_EQ(e.reason(), "ServiceUnavailable");
  EXPECT_EQ(e.message(), "the server is currently unable to handle the request");
  EXPECT_EQ(e.retryAfter(), 1s);
  e = apiErrorFromResponse(502, "bad gateway");
  EXPECT_EQ(e.message(),
            "an error on the server (\"bad gateway\") has prevented the request from succeeding");
  e = apiErrorFromResponse(404, "");
  EXPECT_EQ(e.message(), "the server could not find the requested resource");
}

TEST(ApiErrorTest, AlreadyAssignedToOurNode) {
  const ApiError e(
      409, "Conflict",
      "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"n1\"");
  EXPECT_TRUE(isAlreadyAssignedTo(e, "n1"));
  EXPECT_FALSE(isAlreadyAssignedTo(e, "n"));
  EXPECT_FALSE(isAlreadyAssignedTo(ApiError(500, "", e.message()), "n1"));
}

// ---- request bodies ----------------------------------------------------------------------------

TEST(RequestBodiesTest, PodStatusPatch) {
  PodStatusPatch patch;
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = "Unschedulable";
  cond.message = "0/3 nodes are available: 3 Insufficient cpu.";
  cond.lastTransitionTime = api::Time(std::chrono::seconds(1700000000));
  patch.condition = cond;
  patch.nominatedNodeName = "";
  const json j = json::parse(podStatusPatchBody(patch));
  EXPECT_EQ(j, json::parse(R"({"status":{"conditions":[{"type":"PodScheduled","status":"False",
      "reason":"Unschedulable","message":"0/3 nodes are available: 3 Insufficient cpu.",
      "lastProbeTime":null,"lastTransitionTime":"2023-11-14T22:13:20Z"}],"nominatedNodeName":null}})"));

  PodStatusPatch nominate;
  nominate.nominatedNodeName = "node-7";
  EXPECT_EQ(json::parse(podStatusPatchBody(nominate)),
            json::parse(R"({"status":{"nominatedNodeName":"node-7"}})"));

  // DynamicResources' record of the claim it created for extended resources (as upstream's two-way merge
  // patch from a status without it).
  PodStatusPatch extended;
  extended.extendedResourceClaimStatus = api::PodExtendedResourceClaimStatus{
      {{"c", "example.com/gpu", "container-0-request-0"}}, "p-extended-resources-x"};
  EXPECT_EQ(json::parse(podStatusPatchBody(extended)),
            json::parse(R"({"status":{"extendedResourceClaimStatus":{"requestMappings":[{"containerName":"c",
      "resourceName":"example.com/gpu","requestName":"container-0-request-0"}],
      "resourceClaimName":"p-extended-resources-x"}}})"));
}

// A message with invalid UTF-8 (an extender's error text, say) is encoded with U+FFFD, as Go's
// json.Marshal does, instead of failing the write.
TEST(RequestBodiesTest, PodStatusPatchReplacesInvalidUtf8) {
  PodStatusPatch patch;
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.message = "extender said \xff\xfe";
  patch.condition = cond;
  const json j = json::parse(podStatusPatchBody(patch));
  EXPECT_EQ(j["status"]["conditions"][0]["message"], "extender said \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(RequestBodiesTest, DeleteOptionsAndSeries) {
  EXPECT_EQ(deleteOptionsBody({}), "");
  DeleteOptions o;
  o.preconditionUid = "u1";
  o.preconditionResourceVersion = "42";
  o.gracePeriodSeconds = 0;
  EXPECT_EQ(json::parse(deleteOptionsBody(o)),
            json::parse(R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,
                            "preconditions":{"uid":"u1","resourceVersion":"42"}})"));
  api::EventSeries s;
  s.count = 3;
  s.lastObservedTime = api::Time(std::chrono::microseconds(1700000000123456));
  EXPECT_EQ(json::parse(eventSeriesPatchBody(s)),
            json::parse(R"({"series":{"count":3,"lastObservedTime":"2023-11-14T22:13:20.123456Z"}})"));
  EXPECT_EQ(urlEncode("app in (a,b),tier!=x"), "app%20in%20%28a%2Cb%29%2Ctier%21%3Dx");
}

TEST(RequestBodiesTest, ResourceClaimReservationRemoval) {
  EXPECT_EQ(json::parse(resourceClaimReservationRemovalPatchBody("claim-uid", "pod-uid")),
            json::parse(R"({"metadata":{"uid":"claim-uid"},
                            "status":{"reservedFor":[{"$patch":"delete","uid":"pod-uid"}]}})"));
}

// ---- TLS material ------------------------------------------------------------------------------

TEST(TlsMaterialTest, RejectsBadPem) {
  auto m = TlsMaterial::fromPem("not a pem", "", "");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "certificate-authority: no PEM certificate found");
  m = TlsMaterial::fromPem("", "CERT", "");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "client-certificate given without client-key");
  m = TlsMaterial::fromPem("", "junk", "junk");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "client-certificate: no PEM certificate found");
  m = TlsMaterial::fromPem("", "", "");
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE((*m)->hasCa());

  RestConfig c;
  c.server = "https://127.0.0.1:1";
  c.caPem = "garbage";
  auto client = RestClient::create(c);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().message(), "certificate-authority: no PEM certificate found");
  c.server = "ftp://x";
  client = RestClient::create(c);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().message(), "server: \"ftp://x\" is not an http(s) URL");
}

// ---- RestClient against a local server ---------------------------------------------------------

TEST(RestClientTest, ListPaginationQueryAndHeaders) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.path != "/api/v1/pods") return;
    const std::string cont = r.query.count("continue") ? r.query.at("continue") : "";
    if (cont.empty()) {
      w.send(
          200,
          R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100","continue":"page2"},"items":[)" +
              podJson("a", "1") + "," + podJson("b", "2") + "]}");
    } else if (cont == "page2") {
      w.send(
          200,
          R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100","continue":"page3"},"items":[)" +
              podJson("c", "3") + "," + podJson("d", "4") + "]}");
    } else {
      w.send(200, R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[)" +
                      podJson("e", "5") + "]}");
    }
  });
  auto config = testConfig(server);
  config.userAgent = "ks-test/1.0";
  auto client = makeClient(config);
  ListOptions o;
  o.limit = 2;
  o.labelSelector = "app in (x,y)";
  o.fieldSelector = "spec.nodeName=";
  auto all = listAll(client->pods(), o);
  ASSERT_TRUE(all.ok()) << all.error().message();
  ASSERT_EQ(all->items.size(), 5u);
  EXPECT_EQ(all->items[0].metadata.name, "a");
  EXPECT_EQ(all->items[4].metadata.name, "e");
  EXPECT_EQ(all->metadata.resourceVersion, "100");

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].query.at("limit"), "2");
  EXPECT_EQ(reqs[0].query.at("labelSelector"), "app in (x,y)");
  EXPECT_EQ(reqs[0].query.at("fieldSelector"), "spec.nodeName=");
  EXPECT_EQ(reqs[0].query.count("continue"), 0u);
  EXPECT_EQ(reqs[1].query.at("continue"), "page2");
  EXPECT_EQ(reqs[2].query.at("continue"), "page3");
  // As client-go: "<contentType>, */*" (clientConnection.contentType defaults to JSON here).
  EXPECT_EQ(reqs[0].header("accept"), "application/json, */*");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer secret-token");
  EXPECT_EQ(reqs[0].header("user-agent"), "ks-test/1.0");
}

TEST(RestClientTest, ListPathsOfEveryKind) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.send(200, R"({"metadata":{"resourceVersion":"7"},"items":[]})");
  });
  auto client = makeClient(testConfig(server));
  ASSERT_TRUE(client->pods().list({}).ok());
  ASSERT_TRUE(client->nodes().list({}).ok());
  ASSERT_TRUE(client->namespaces().list({}).ok());
  ASSERT_TRUE(client->persistentVolumes().list({}).ok());
  ASSERT_TRUE(client->persistentVolumeClaims().list({}).ok());
  ASSERT_TRUE(client->storageClasses().list({}).ok());
  ASSERT_TRUE(client->csiNodes().list({}).ok());
  ASSERT_TRUE(client->csiDrivers().list({}).ok());
  ASSERT_TRUE(client->csiStorageCapacities().list({}).ok());
  auto pdbs = client->podDisruptionBudgets().list({});
  ASSERT_TRUE(pdbs.ok());
  EXPECT_EQ(pdbs->metadata.resourceVersion, "7");
  ASSERT_TRUE(client->resourceClaims().list({}).ok());
  ASSERT_TRUE(client->resourceSlices().list({}).ok());
  ASSERT_TRUE(client->deviceClasses().list({}).ok());
  std::vector<std::string> paths;
  for (const auto& r : server.requests()) paths.push_back(r.target);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "/api/v1/pods", "/api/v1/nodes", "/api/v1/namespaces", "/api/v1/persistentvolumes",
                       "/api/v1/persistentvolumeclaims", "/apis/storage.k8s.io/v1/storageclasses",
                       "/apis/storage.k8s.io/v1/csinodes", "/apis/storage.k8s.io/v1/csidrivers",
                       "/apis/storage.k8s.io/v1/csistoragecapacities", "/apis/policy/v1/poddisruptionbudgets",
                       "/apis/resource.k8s.io/v1/resourceclaims", "/apis/resource.k8s.io/v1/resourceslices",
                       "/apis/resource.k8s.io/v1/deviceclasses"}));
}

TEST(RestClientTest, WatchStreamsManyEventsWithBookmarksAndError) {
  constexpr int kEvents = 20000;
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.query.count("watch") == 0) return;
    w.start(200);
    std::string pending;
    for (int i = 1; i <= kEvents; ++i) {
      if (i % 1000 == 0) {
        pending +=
            watchLine("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                                      std::to_string(i) + R"("}})");
      } else {
        pending +=
            watchLine(i % 3 == 0 ? "MODIFIED" : "ADDED", podJson("p" + std::to_string(i), std::to_string(i)));
      }
      // Odd chunk sizes so that lines straddle chunks.
      while (pending.size() > 1777) {
        if (!w.chunk(pending.substr(0, 1777))) return;
        pending.erase(0, 1777);
      }
    }
    pending += watchLine("ERROR", statusJson(410, "Expired", "too old resource version: 1 (20000)"));
    w.chunk(pending);
    w.end();
  });
  auto client = makeClient(testConfig(server));
  WatchOptions o;
  o.resourceVersion = "1";
  o.timeoutSeconds = 300;
  int added = 0, modified = 0, bookmarks = 0, errors = 0;
  std::string lastName;
  bool ordered = true;
  int expect = 1;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = client->pods().watch(o,
                                [&](api::WatchEvent<api::Pod>&& ev) {
                                  switch (ev.type) {
                                    case api::WatchEventType::Added:
                                      ++added;
                                      break;
                                    case api::WatchEventType::Modified:
                                      ++modified;
                                      break;
                                    case api::WatchEventType::Bookmark:
                                      ++bookmarks;
                                      break;
                                    case api::WatchEventType::Error:
                                      ++errors;
                                      EXPECT_EQ(ev.status.code, 410);
                                      EXPECT_EQ(ev.status.reason, "Expired");
                                      return;
                                    default:
                                      break;
                                  }
                                  ordered =
                                      ordered && ev.object.metadata.resourceVersion == std::to_string(expect);
                                  ++expect;
                                },
                                {});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(ordered);
  EXPECT_EQ(bookmarks, kEvents / 1000);
  EXPECT_EQ(added + modified + bookmarks, kEvents);
  EXPECT_EQ(errors, 1);
  std::printf("watch: %d events in %.3f s (%.0f events/s)\n", kEvents, secs, kEvents / secs);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].query.at("watch"), "true");
  EXPECT_EQ(reqs[0].query.at("allowWatchBookmarks"), "true");
  EXPECT_EQ(reqs[0].query.at("resourceVersion"), "1");
  EXPECT_EQ(reqs[0].query.at("timeoutSeconds"), "300");
}

TEST(RestClientTest, WatchStopsPromptlyOnStopToken) {
  std::atomic<bool> peerClosed{false};
  TestHttpServer server([&](const TestRequest&, ResponseWriter& w) {
    w.start(200);
    w.chunk(watchLine("ADDED", podJson("a", "1")));
    peerClosed = w.waitForPeerClose(10000);
  });
  auto client = makeClient(testConfig(server));
  std::stop_source stop;
  std::atomic<int> events{0};
  std::chrono::steady_clock::time_point stoppedAt;
  std::thread stopper;
  auto r = client->pods().watch(
      {},
      [&](api::WatchEvent<api::Pod>&&) {
        ++events;
        stopper = std::thread([&] {
          std::this_thread::sleep_for(50ms);
          stoppedAt = std::chrono::steady_clock::now();
          stop.request_stop();
        });
      },
      stop.get_token());
  const auto returnedAt = std::chrono::steady_clock::now();
  stopper.join();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(events, 1);
  EXPECT_LT(returnedAt - stoppedAt, 200ms);
  for (int i = 0; i < 100 && !peerClosed; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(peerClosed);  // the HTTP request was cancelled, not just abandoned
}

TEST(RestClientTest, WatchHttpErrorIsTyped) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.send(410, statusJson(410, "Gone", "too old resource version"));
  });
  auto client = makeClient(testConfig(server));
  auto r = client->nodes().watch({}, [](api::WatchEvent<api::Node>&&) {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isGone());
  EXPECT_EQ(r.error().reason(), "Gone");
}

TEST(RestClientTest, WatchServerClosesNormally) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.start(200);
    w.chunk(watchLine("ADDED", podJson("a", "1")));
    w.end();
  });
  auto client = makeClient(testConfig(server));
  int n = 0;
  auto r = client->pods().watch({}, [&](api::WatchEvent<api::Pod>&&) { ++n; }, {});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(n, 1);
}

TEST(RestClientTest, TypedErrorsFromStatusBodies) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.method == "GET") {
      w.send(404, statusJson(404, "NotFound", "leases.coordination.k8s.io \"l\" not found"));
    } else if (r.method == "POST") {
      w.send(409, statusJson(409, "AlreadyExists", "leases.coordination.k8s.io \"l\" already exists"));
    } else {
      w.send(422, statusJson(422, "Invalid", "Lease.coordination.k8s.io \"l\" is invalid"));
    }
  });
  auto client = makeClient(testConfig(server));
  auto g = client->getLease("kube-system", "l");
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(g.error().isNotFound());
  EXPECT_EQ(g.error().message(), "leases.coordination.k8s.io \"l\" not found");
  api::Lease lease;
  lease.metadata.name = "l";
  lease.metadata.namespace_ = "kube-system";
  auto c = client->createLease(lease);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.error().isConflict());
  EXPECT_EQ(c.error().reason(), "AlreadyExists");
  auto u = client->updateLease(lease);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().code(), 422);
  EXPECT_EQ(server.requestCount(), 3u);  // none of these is retried
}

TEST(RestClientTest, RetriesTooManyRequestsHonouringRetryAfter) {
  std::atomic<int> calls{0};
  TestHttpServer server([&](const TestRequest&, ResponseWriter& w) {
    if (calls++ == 0) {
      w.send(429, statusJson(429, "TooManyRequests", "slow down"), {{"Retry-After", "1"}});
    } else {
      w.send(201, R"({"kind":"Status","apiVersion":"v1","status":"Success","code":201})");
    }
  });
  auto client = makeClient(testConfig(server));
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.kind = "Node";
  b.target.name = "n1";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = client->bind(b);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(calls, 2);
  EXPECT_GE(elapsed, 1s);
  EXPECT_LT(elapsed, 3s);
}

TEST(RestClientTest, RetriesServerErrorsBounded) {
  std::atomic<int> calls{0};
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    ++calls;
    if (r.path.find("flaky") != std::string::npos && calls < 3) {
      w.send(503, "unavailable");
    } else if (r.path.find("flaky") != std::string::npos) {
      w.send(
          200,
          R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"flaky","namespace":"ns","resourceVersion":"9"}})");
    } else {
      w.send(500, statusJson(500, "InternalError", "boom"));
    }
  });
  auto config = testConfig(server);
  auto client = makeClient(config);
  auto ok = client->getLease("ns", "flaky");
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok->metadata.resourceVersion, "9");
  EXPECT_EQ(calls, 3);
  calls = 0;
  auto bad = client->getLease("ns", "broken");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), 500);
  EXPECT_EQ(bad.error().message(), "boom");
  // A 500 without Retry-After: our own backoff retries, fewer than the Retry-After ones.
  EXPECT_EQ(calls, std::min(config.retry.maxRetries, config.retry.maxBackoffRetries) + 1);
}

TEST(RestClientTest, TransportErrorsRetryReadsButNotPosts) {
  std::atomic<int> calls{0};
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    ++calls;
    if (r.method == "POST" || calls == 1) {
      w.abort();
      return;
    }
    w.send(
        200,
        R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l","namespace":"ns"}})");
  });
  auto client = makeClient(testConfig(server));
  auto g = client->getLease("ns", "l");
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(calls, 2);
  calls = 0;
  // A fresh client, so the POST goes over a new connection (see ResentPostOnStaleConnection).
  client = makeClient(testConfig(server));
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  auto r = client->bind(b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isTransport());
  EXPECT_EQ(calls, 1);  // the binding may have been applied: not retried
}

TEST(RestClientTest, ResentPostOnStaleConnectionEndsInSuccessfulBind) {
  // The transport re-sends a request once when a reused pooled connection breaks before the status line. The
  // first binding landed (the server applied it, then the connection died); the re-sent one gets
  // 409 "already assigned" to our node, which bind() reports as success.
  std::atomic<int> posts{0};
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    if (r.method == "GET") {
      w.send(200, R"({"items":[]})");
    } else if (posts++ == 0) {
      w.abort();
    } else {
      w.send(409, statusJson(409, "Conflict",
                             "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned "
                             "to node \"n1\""));
    }
  });
  auto client = makeClient(testConfig(server));
  ASSERT_TRUE(client->nodes().list({}).ok());  // puts a connection in the pool
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  auto r = client->bind(b);
  // Whether the transport re-sends depends on how the broken connection surfaces (EOF or reset); either
  // way bind() must not retry on its own, and a re-sent binding that finds the pod on our node is OK.
  ASSERT_GE(posts, 1);
  ASSERT_LE(posts, 2);
  if (posts == 2) {
    EXPECT_TRUE(r.ok()) << r.error().message();
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().isTransport());
  }
}

TEST(RestClientTest, ConnectionRefusedIsTransportError) {
  uint16_t port;
  {
    TestHttpServer s([](const TestRequest&, ResponseWriter&) {});
    port = s.port();
  }
  RestConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(port);
  c.retry.maxRetries = 1;
  c.retry.initialBackoff = 1ms;
  auto client = makeClient(c);
  auto r = client->getLease("a", "b");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().isTransport());
  EXPECT_EQ(r.error().code(), 0);
}

TEST(RestClientTest, BindConflictsForOurNodeAreSuccess) {
  std::atomic<int> calls{0};
  auto assigned = [](const std::string& node) {
    return statusJson(
        409, "Conflict",
        "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"" + node +
            "\"");
  };
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    const int n = ++calls;
    const std::string ns = r.path.substr(std::string("/api/v1/namespaces/").size());
    if (ns.rfind("flaky/", 0) == 0 && n == 1) {
      w.send(504, statusJson(504, "Timeout", "request timed out"));
    } else if (ns.rfind("flaky/", 0) == 0 || ns.rfind("mine/", 0) == 0) {
      w.send(409, assigned("n1"));
    } else {
      w.send(409, assigned("n9"));
    }
  });
  auto client = makeClient(testConfig(server));
  api::Binding b;
  b.metadata.name = "p";
  b.target.name = "n1";
  // 504 then 409 "already assigned to n1": our first attempt landed.
  b.metadata.namespace_ = "flaky";
  EXPECT_TRUE(client->bind(b).ok());
  EXPECT_EQ(calls, 2);
  // A 409 for our node on the first attempt: the pod is where we want it, too.
  b.metadata.namespace_ = "mine";
  EXPECT_TRUE(client->bind(b).ok());
  // Bound elsewhere: a real conflict, not retried.
  calls = 0;
  b.metadata.namespace_ = "other";
  auto other = client->bind(b);
  ASSERT_FALSE(other.ok());
  EXPECT_TRUE(other.error().isConflict());
  EXPECT_TRUE(isAlreadyAssignedTo(other.error(), "n9"));
  EXPECT_EQ(calls, 1);
}

// ---- protobuf (clientConnection.contentType application/vnd.kubernetes.protobuf) ----------------------

std::string protoFixture(const std::string& name) {
  std::ifstream in(std::string(KS_APIPROTO_TESTDATA_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An enveloped object: "k8s\0" + runtime.Unknown{typeMeta, raw}.
std::string protoEnvelope(const std::string& apiVersion, const std::string& kind, const std::string& raw) {
  api::proto::Writer typeMeta;
  typeMeta.bytes(1, apiVersion);
  typeMeta.bytes(2, kind);
  api::proto::Writer unknown;
  unknown.bytes(1, typeMeta.data());
  unknown.bytes(2, raw);
  return std::string("k8s\0", 4) + unknown.data();
}

// metav1.Status {status = 2, message = 3, reason = 4, code = 6}, enveloped.
std::string protoStatus(int code, const std::string& reason, const std::string& message) {
  api::proto::Writer s;
  s.bytes(2, code < 300 ? "Success" : "Failure");
  s.bytes(3, message);
  s.bytes(4, reason);
  s.varint(6, static_cast<uint64_t>(code));
  return protoEnvelope("v1", "Status", s.data());
}

// One frame of a protobuf watch stream: a 4-byte big-endian length, then WatchEvent{type, RawExtension{raw}}.
std::string protoFrame(const std::string& type, const std::string& enveloped) {
  api::proto::Writer object;
  object.bytes(1, enveloped);
  api::proto::Writer event;
  event.bytes(1, type);
  event.bytes(2, object.data());
  const std::string& msg = event.data();
  const auto n = static_cast<uint32_t>(msg.size());
  std::string out{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                  static_cast<char>(n)};
  return out + msg;
}

TEST(RestClientTest, ProtobufListsWatchesErrorsAndBindings) {
  constexpr std::string_view kProto = "application/vnd.kubernetes.protobuf";
  const std::vector<std::pair<std::string, std::string>> protoType = {{"Content-Type", std::string(kProto)}};
  // A bookmark: a Pod with only metadata.resourceVersion (ObjectMeta field 6).
  api::proto::Writer bookmarkMeta;
  bookmarkMeta.bytes(6, "977");
  api::proto::Writer bookmarkPod;
  bookmarkPod.bytes(1, bookmarkMeta.data());
  const std::string podStream = protoFixture("pod.watch.pb") +
                                protoFrame("BOOKMARK", protoEnvelope("v1", "Pod", bookmarkPod.data())) +
                                protoFrame("ERROR", protoStatus(410, "Expired", "too old resource version: 1 (2)"));
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    const bool watch = r.query.count("watch") != 0;
    if (r.method == "POST") {
      if (r.path.rfind("/api/v1/namespaces/taken/", 0) == 0) {
        w.send(409,
               protoStatus(409, "Conflict",
                           "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
                           "node \"n9\""),
               protoType);
      } else {
        w.send(201, protoStatus(201, "", ""), protoType);
      }
    } else if (r.path == "/api/v1/pods" && !watch) {
      w.send(200, protoFixture("pod.list.pb"), protoType);
    } else if (r.path == "/api/v1/pods") {
      // Frames straddle the chunks.
      w.start(200, {{"Content-Type", std::string(kProto) + ";stream=watch"}});
      for (size_t pos = 0; pos < podStream.size(); pos += 777) {
        if (!w.chunk(podStream.substr(pos, 777))) return;
      }
      w.end();
    } else if (r.path == "/api/v1/nodes" && !watch) {
      // The server may answer JSON whatever was asked (e.g. for a type without protobuf).
      w.send(200, R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[)"
                  R"({"metadata":{"name":"n1"}}]})");
    } else if (r.path == "/api/v1/nodes") {
      w.start(200);
      w.chunk(watchLine("ADDED", R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n2"}})"));
      w.end();
    } else if (r.path == "/api/v1/namespaces") {
      w.send(404, protoFixture("status-notfound.pb"), protoType);
    } else {
      w.send(404, protoFixture("status-notfound.json"));
    }
  });
  auto config = testConfig(server);
  config.contentType = kProto;
  auto client = makeClient(config);

  // Lists: protobuf when the server chose it, JSON when it did not.
  auto pods = client->pods().list({});
  ASSERT_TRUE(pods.ok()) << pods.error().message();
  auto want = api::decodeJson<api::Pod>(protoFixture("pod.json"));
  ASSERT_TRUE(want.ok()) << want.error().message();
  ASSERT_EQ(pods->items.size(), 1u);
  EXPECT_TRUE(pods->items[0] == *want);
  EXPECT_FALSE(pods->metadata.resourceVersion.empty());
  auto shared = client->pods().listShared({});
  ASSERT_TRUE(shared.ok()) << shared.error().message();
  ASSERT_EQ(shared->items.size(), 1u);
  EXPECT_TRUE(*shared->items[0] == *want);
  auto nodes = client->nodes().list({});
  ASSERT_TRUE(nodes.ok()) << nodes.error().message();
  ASSERT_EQ(nodes->items.size(), 1u);
  EXPECT_EQ(nodes->items[0].metadata.name, "n1");

  // Watches: protobuf frames by the response's Content-Type, JSON lines otherwise.
  std::vector<api::WatchEvent<api::Pod>> podEvents;
  auto w = client->pods().watch({.resourceVersion = "0", .allowWatchBookmarks = true},
                                [&](api::WatchEvent<api::Pod>&& ev) { podEvents.push_back(std::move(ev)); }, {});
  ASSERT_TRUE(w.ok()) << w.error().message();
  ASSERT_EQ(podEvents.size(), 3u);
  EXPECT_EQ(podEvents[0].type, api::WatchEventType::Added);
  EXPECT_TRUE(podEvents[0].object == *want);
  EXPECT_EQ(podEvents[1].type, api::WatchEventType::Bookmark);
  EXPECT_EQ(podEvents[1].object.metadata.resourceVersion, "977");
  EXPECT_EQ(podEvents[2].type, api::WatchEventType::Error);
  EXPECT_EQ(podEvents[2].status.code, 410);
  EXPECT_EQ(podEvents[2].status.reason, "Expired");
  std::vector<std::string> nodeNames;
  w = client->nodes().watch({}, [&](api::WatchEvent<api::Node>&& ev) { nodeNames.push_back(ev.object.metadata.name); },
                            {});
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(nodeNames, std::vector<std::string>{"n2"});

  // A protobuf Status body gives the same error as its JSON twin.
  auto missing = client->namespaces().list({});
  ASSERT_FALSE(missing.ok());
  const ApiError fromJson = apiErrorFromResponse(404, protoFixture("status-notfound.json"), "");
  EXPECT_TRUE(missing.error().isNotFound());
  EXPECT_EQ(missing.error().reason(), "NotFound");
  EXPECT_EQ(missing.error().message(), fromJson.message());
  EXPECT_EQ(missing.error().message(), "pods \"no-such-pod\" not found");
  auto missingJson = client->persistentVolumes().list({});
  ASSERT_FALSE(missingJson.ok());
  EXPECT_EQ(missingJson.error().code(), missing.error().code());
  EXPECT_EQ(missingJson.error().reason(), missing.error().reason());
  EXPECT_EQ(missingJson.error().message(), missing.error().message());
  auto missingWatch = client->namespaces().watch({}, [](api::WatchEvent<api::Namespace>&&) {}, {});
  ASSERT_FALSE(missingWatch.ok());
  EXPECT_EQ(missingWatch.error().message(), fromJson.message());

  // Bindings are posted as protobuf; a protobuf 409 is a typed conflict.
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "ns1";
  b.metadata.uid = "uid-p";
  b.target.kind = "Node";
  b.target.apiVersion = "v1";
  b.target.name = "node-1";
  ASSERT_TRUE(client->bind(b).ok());
  b.metadata.namespace_ = "taken";
  auto conflict = client->bind(b);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code(), 409);
  EXPECT_EQ(conflict.error().reason(), "Conflict");
  EXPECT_TRUE(isAlreadyAssignedTo(conflict.error(), "n9")) << conflict.error().message();

  const std::string accept = std::string(kProto) + ", */*";
  int posts = 0;
  for (const auto& r : server.requests()) {
    SCOPED_TRACE(r.method + " " + r.target);
    EXPECT_EQ(r.header("accept"), accept);
    if (r.method != "POST") continue;
    ++posts;
    EXPECT_EQ(r.header("content-type"), kProto);
    auto sent = api::decodeProto<api::Binding>(r.body);
    ASSERT_TRUE(sent.ok()) << sent.error().message();
    EXPECT_EQ(sent->metadata.name, "p");
    EXPECT_EQ(sent->metadata.uid, "uid-p");
    EXPECT_EQ(sent->target, b.target);
  }
  EXPECT_EQ(posts, 2);
  EXPECT_EQ(server.requestCount(), 10u);

  // acceptContentTypes, when set, is the Accept header of lists, watches and bindings as it is.
  config.acceptContentTypes = "application/vnd.kubernetes.protobuf,application/json";
  auto explicitAccept = makeClient(config);
  ASSERT_TRUE(explicitAccept->pods().list({}).ok());
  b.metadata.namespace_ = "ns1";
  ASSERT_TRUE(explicitAccept->bind(b).ok());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 12u);
  EXPECT_EQ(reqs[10].header("accept"), config.acceptContentTypes);
  EXPECT_EQ(reqs[11].header("accept"), config.acceptContentTypes);
  EXPECT_EQ(reqs[11].header("content-type"), kProto);
}

TEST(RestClientTest, UnsupportedContentTypeIsAConfigError) {
  RestConfig c;
  c.server = "http://127.0.0.1:1";
  c.contentType = "application/yaml";
  auto client = RestClient::create(c);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.error().message().find("contentType: \"application/yaml\" is not supported"), std::string::npos)
      << client.error().message();
}

TEST(RestClientTest, RequestShapes) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.path.find("/binding") != std::string::npos) {
      w.send(201, R"({"kind":"Status","apiVersion":"v1","status":"Success","code":201})");
    } else if (r.path.find("/pods/") != std::string::npos) {
      w.send(200, podJson("p", "11", "ns1"));
    } else if (r.path.find("/events") != std::string::npos) {
      w.send(
          r.method == "POST" ? 201 : 200,
          R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"p.abc","namespace":"ns1","resourceVersion":"3"},"eventTime":"2024-01-02T03:04:05.000000Z","reason":"Scheduled","type":"Normal","action":"Binding","reportingController":"ks","reportingInstance":"ks-1","regarding":{"kind":"Pod","name":"p","namespace":"ns1"},"note":"ok"})");
    } else if (r.path.find("/leases") != std::string::npos) {
      w.send(
          r.method == "POST" ? 201 : 200,
          R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"ks","namespace":"kube-system","resourceVersion":"8"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15}})");
    }
  });
  auto client = makeClient(testConfig(server));

  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "ns1";
  b.metadata.uid = "uid-p";
  b.target.kind = "Node";
  b.target.apiVersion = "v1";
  b.target.name = "node-1";
  ASSERT_TRUE(client->bind(b).ok());

  PodStatusPatch patch;
  patch.nominatedNodeName = "node-2";
  auto patched = client->patchPodStatus("ns1", "p", patch);
  ASSERT_TRUE(patched.ok()) << patched.error().message();
  EXPECT_EQ(patched->metadata.resourceVersion, "11");

  DeleteOptions d;
  d.preconditionUid = "uid-p";
  d.gracePeriodSeconds = 30;
  ASSERT_TRUE(client->deletePod("ns1", "p", d).ok());

  api::Event ev;
  ev.metadata.generateName = "p.";
  ev.metadata.namespace_ = "ns1";
  ev.reason = "Scheduled";
  ev.type = "Normal";
  ev.action = "Binding";
  ev.note = "Successfully assigned ns1/p to node-1";
  ev.reportingController = "ks";
  ev.reportingInstance = "ks-1";
  ev.regarding.kind = "Pod";
  ev.regarding.name = "p";
  ev.regarding.namespace_ = "ns1";
  ev.eventTime = api::Time(std::chrono::seconds(1704164645));
  auto created = client->createEvent(ev);
  ASSERT_TRUE(created.ok()) << created.error().message();
  EXPECT_EQ(created->metadata.name, "p.abc");
  api::EventSeries series;
  series.count = 2;
  series.lastObservedTime = api::Time(std::chrono::seconds(1704164700));
  ASSERT_TRUE(client->updateEventSeries("ns1", "p.abc", series).ok());

  auto lease = client->getLease("kube-system", "ks");
  ASSERT_TRUE(lease.ok()) << lease.error().message();
  api::Lease l = *lease;
  l.spec.holderIdentity = "me";
  ASSERT_TRUE(client->createLease(l).ok());
  ASSERT_TRUE(client->updateLease(l).ok());

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 8u);
  // bind
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/api/v1/namespaces/ns1/pods/p/binding");
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  json jb = json::parse(reqs[0].body);
  EXPECT_EQ(jb["kind"], "Binding");
  EXPECT_EQ(jb["apiVersion"], "v1");
  EXPECT_EQ(jb["metadata"]["name"], "p");
  EXPECT_EQ(jb["metadata"]["uid"], "uid-p");
  EXPECT_EQ(jb["target"]["kind"], "Node");
  EXPECT_EQ(jb["target"]["name"], "node-1");
  // status patch
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].path, "/api/v1/namespaces/ns1/pods/p/status");
  EXPECT_EQ(reqs[1].header("content-type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(json::parse(reqs[1].body), json::parse(R"({"status":{"nominatedNodeName":"node-2"}})"));
  // delete
  EXPECT_EQ(reqs[2].method, "DELETE");
  EXPECT_EQ(reqs[2].path, "/api/v1/namespaces/ns1/pods/p");
  json jd = json::parse(reqs[2].body);
  EXPECT_EQ(jd["preconditions"]["uid"], "uid-p");
  EXPECT_EQ(jd["gracePeriodSeconds"], 30);
  // event create + series patch
  EXPECT_EQ(reqs[3].method, "POST");
  EXPECT_EQ(reqs[3].path, "/apis/events.k8s.io/v1/namespaces/ns1/events");
  json je = json::parse(reqs[3].body);
  EXPECT_EQ(je["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(je["kind"], "Event");
  EXPECT_EQ(je["reason"], "Scheduled");
  EXPECT_EQ(je["regarding"]["name"], "p");
  EXPECT_EQ(je["metadata"]["generateName"], "p.");
  EXPECT_EQ(reqs[4].method, "PATCH");
  EXPECT_EQ(reqs[4].path, "/apis/events.k8s.io/v1/namespaces/ns1/events/p.abc");
  EXPECT_EQ(reqs[4].header("content-type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(json::parse(reqs[4].body)["series"]["count"], 2);
  // leases
  EXPECT_EQ(reqs[5].method, "GET");
  EXPECT_EQ(reqs[5].path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ks");
  EXPECT_EQ(reqs[6].method, "POST");
  EXPECT_EQ(reqs[6].path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  EXPECT_EQ(reqs[7].method, "PUT");
  EXPECT_EQ(reqs[7].path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ks");
  json jl = json::parse(reqs[7].body);
  EXPECT_EQ(jl["metadata"]["resourceVersion"], "8");
  EXPECT_EQ(jl["spec"]["holderIdentity"], "me");
}

// The ResourceClaimWriter calls: paths (namespaced, the status subresource), methods, bodies, content types.
TEST(RestClientTest, ResourceClaimRequestShapes) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.method == "DELETE") {
      w.send(200, R"({"kind":"Status","apiVersion":"v1","status":"Success"})");
      return;
    }
    w.send(
        r.method == "POST" ? 201 : 200,
        R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1","metadata":{"name":"gpu-x1","namespace":"ml",)"
        R"("uid":"claim-uid","resourceVersion":"12","finalizers":["resource.kubernetes.io/delete-protection"]},)"
        R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}},)"
        R"("status":{"reservedFor":[{"resource":"pods","name":"p","uid":"pod-uid"}]}})");
  });
  auto client = makeClient(testConfig(server));

  auto claim = client->getResourceClaim("ml", "gpu-x1");
  ASSERT_TRUE(claim.ok()) << claim.error().message();
  EXPECT_EQ(claim->metadata.resourceVersion, "12");
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(claim->status.reservedFor[0].uid, "pod-uid");

  api::ResourceClaim fresh = *claim;
  fresh.metadata.name.clear();
  fresh.metadata.generateName = "p-extended-resources-";
  ASSERT_TRUE(client->createResourceClaim(fresh).ok());
  ASSERT_TRUE(client->updateResourceClaim(*claim).ok());
  api::ResourceClaim allocated = *claim;
  allocated.status.allocation.emplace();
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = "gpu.example.com";
  result.pool = "node-1";
  result.device = "gpu-0";
  allocated.status.allocation->devices.results.push_back(result);
  ASSERT_TRUE(client->updateResourceClaimStatus(allocated).ok());
  ASSERT_TRUE(client->removeResourceClaimReservation("ml", "gpu-x1", "claim-uid", "pod-uid").ok());
  DeleteOptions d;
  d.preconditionUid = "claim-uid";
  ASSERT_TRUE(client->deleteResourceClaim("ml", "gpu-x1", d).ok());

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu-x1");
  EXPECT_EQ(reqs[1].method, "POST");
  EXPECT_EQ(reqs[1].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims");
  json jc = json::parse(reqs[1].body);
  EXPECT_EQ(jc["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(jc["kind"], "ResourceClaim");
  EXPECT_EQ(jc["metadata"]["generateName"], "p-extended-resources-");
  EXPECT_FALSE(jc["metadata"].contains("name"));
  EXPECT_EQ(reqs[2].method, "PUT");
  EXPECT_EQ(reqs[2].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu-x1");
  json ju = json::parse(reqs[2].body);
  EXPECT_EQ(ju["metadata"]["resourceVersion"], "12");
  EXPECT_EQ(ju["metadata"]["finalizers"], json::array({"resource.kubernetes.io/delete-protection"}));
  EXPECT_EQ(ju["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"], "gpu.example.com");
  EXPECT_EQ(reqs[3].method, "PUT");
  EXPECT_EQ(reqs[3].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu-x1/status");
  EXPECT_EQ(reqs[3].header("content-type"), "application/json");
  json js = json::parse(reqs[3].body);
  EXPECT_EQ(js["metadata"]["resourceVersion"], "12");
  EXPECT_EQ(js["status"]["allocation"]["devices"]["results"][0],
            json::parse(R"({"request":"gpu","driver":"gpu.example.com","pool":"node-1","device":"gpu-0"})"));
  EXPECT_EQ(js["status"]["reservedFor"][0]["uid"], "pod-uid");
  EXPECT_EQ(reqs[4].method, "PATCH");
  EXPECT_EQ(reqs[4].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu-x1/status");
  EXPECT_EQ(reqs[4].header("content-type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(json::parse(reqs[4].body),
            json::parse(resourceClaimReservationRemovalPatchBody("claim-uid", "pod-uid")));
  EXPECT_EQ(reqs[5].method, "DELETE");
  EXPECT_EQ(reqs[5].path, "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu-x1");
  EXPECT_EQ(json::parse(reqs[5].body)["preconditions"]["uid"], "claim-uid");
}

TEST(RestClientTest, TokenFileAndBasicAuth) {
  TempDir dir;
  const std::string tokenFile = dir.write("token", "file-token\n");
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) { w.send(200, R"({"items":[]})"); });
  auto config = testConfig(server);
  config.bearerTokenFile = tokenFile;
  auto client = makeClient(config);
  ASSERT_TRUE(client->nodes().list({}).ok());
  EXPECT_EQ(server.requests().back().header("authorization"), "Bearer file-token");

  config.bearerToken.clear();
  config.bearerTokenFile.clear();
  config.username = "admin";
  config.password = "pw";
  client = makeClient(config);
  ASSERT_TRUE(client->nodes().list({}).ok());
  EXPECT_EQ(server.requests().back().header("authorization"), "Basic " + base64Encode("admin:pw"));
}

TEST(RestClientTest, ClientSideRateLimit) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) { w.send(200, R"({"items":[]})"); });
  auto config = testConfig(server);
  config.qps = 20;
  config.burst = 2;
  auto client = makeClient(config);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(client->nodes().list({}).ok());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  // 2 from the burst, 4 more at 20/s: at least 200 ms.
  EXPECT_GE(elapsed, 190ms);
  EXPECT_LT(elapsed, 2s);
}

}  // namespace
}  // namespace ks::client::rest
