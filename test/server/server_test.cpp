#include "pkg/server/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/server/healthz.h"
#include "pkg/server/http_request.h"
#include "pkg/server/tls_options.h"

namespace ks::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct HttpReply {
  int status = 0;
  std::string head;  // status line + headers
  std::string body;
  bool ok = false;  // a complete response was read
};

int connectTo(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

HttpReply parseReply(const std::string& raw) {
  HttpReply r;
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.rfind("HTTP/1.1 ", 0) != 0) return r;
  r.head = raw.substr(0, end);
  r.body = raw.substr(end + 4);
  r.status = std::stoi(raw.substr(9, 3));
  r.ok = true;
  return r;
}

std::string headerValue(const HttpReply& r, const std::string& name) {
  auto pos = r.head.find("\r\n" + name + ": ");
  if (pos == std::string::npos) return {};
  pos += name.size() + 4;
  return r.head.substr(pos, r.head.find("\r\n", pos) - pos);
}

// Minimal TLS client. With `trustedPem`, verifies the chain against it and the host name / IP.
struct TlsClientOptions {
  std::string trustedPem;
  std::string expectHost;  // DNS name or IP to verify when trustedPem is set
};

// Sends `request` bytes and reads until EOF. Returns the raw bytes, or nullopt on handshake failure.
std::optional<std::string> tlsExchange(uint16_t port, const std::string& request,
                                       const TlsClientOptions& opts = {}) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!opts.trustedPem.empty()) {
    BIO* bio = BIO_new_mem_buf(opts.trustedPem.data(), static_cast<int>(opts.trustedPem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), cert);
    X509_free(cert);
    BIO_free(bio);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  int fd = connectTo(port);
  std::optional<std::string> out;
  SSL* ssl = SSL_new(ctx);
  if (!opts.trustedPem.empty() && !opts.expectHost.empty()) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    in_addr a4{};
    if (inet_pton(AF_INET, opts.expectHost.c_str(), &a4) == 1) {
      X509_VERIFY_PARAM_set1_ip_asc(param, opts.expectHost.c_str());
    } else {
      SSL_set1_host(ssl, opts.expectHost.c_str());
    }
  }
  SSL_set_fd(ssl, fd);
  if (fd >= 0 && SSL_connect(ssl) == 1) {
    std::string raw;
    SSL_write(ssl, request.data(), static_cast<int>(request.size()));
    char buf[8192];
    int n = 0;
    while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0) raw.append(buf, static_cast<size_t>(n));
    out = raw;
  }
  ERR_clear_error();
  SSL_free(ssl);
  if (fd >= 0) ::close(fd);
  SSL_CTX_free(ctx);
  return out;
}

HttpReply tlsGet(uint16_t port, const std::string& target, const std::string& method = "GET") {
  auto raw = tlsExchange(port, method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  return raw ? parseReply(*raw) : HttpReply{};
}

std::string plainExchange(uint16_t port, const std::string& request) {
  int fd = connectTo(port);
  if (fd < 0) return {};
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  char buf[8192];
  ssize_t n = 0;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) raw.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return raw;
}

ServerOptions loopback(bool tls = true) {
  ServerOptions o;
  o.bindAddress = "127.0.0.1";
  o.port = 0;
  o.tls = tls;
  o.ioTimeout = std::chrono::milliseconds(3000);
  return o;
}

class SchedulerEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Server::create(loopback());
    ASSERT_TRUE(s.ok()) << s.error().message();
    server_ = std::move(*s);
    ASSERT_NE(server_->port(), 0);
    SchedulerEndpointsOptions opts;
    opts.handlersSynced = [this] { return synced_.load(); };
    opts.shuttingDown = [this] { return shuttingDown_.load(); };
    opts.leaderElection =
        leaderElectionCheck([this] { return leading_.load(); }, [this] { return lastRenewed_; },
                            std::chrono::seconds(15), std::chrono::seconds(20), [this] { return now_; });
    opts.metrics = [this] { return metrics_.scrape(); };
    opts.configzJson = [] { return std::string(R"({"apiVersion":"kubescheduler.config.k8s.io/v1"})"); };
    opts.resourceMetrics = [this] { return leading_.load() ? std::string("kube_pod_resource_request 1\n") : ""; };
    opts.slisMetrics = [] { return std::string("kubernetes_healthcheck 1\n"); };
    opts.healthcheckObserver = [this](std::string_view check, std::string_view type, bool ok) {
      std::lock_guard lock(observedMu_);
      observed_.push_back(std::string(type) + "/" + std::string(check) + (ok ? " ok" : " failed"));
    };
    opts.verbositySetter = [this](int v) { verbosity_ = v; };
    opts.flagz = [] { return std::map<std::string, std::string>{{"secure-port", "10259"}}; };
    opts.statusz.emplace();
    opts.statusz->binaryVersion = "0.1.0";
    installSchedulerEndpoints(*server_, std::move(opts));
    server_->start();
  }

  metrics::Metrics metrics_;
  std::unique_ptr<Server> server_;
  std::atomic<bool> synced_{true};
  std::atomic<bool> shuttingDown_{false};
  std::atomic<bool> leading_{true};
  std::chrono::steady_clock::time_point now_{std::chrono::seconds(1000)};
  std::chrono::steady_clock::time_point lastRenewed_{std::chrono::seconds(995)};
  std::mutex observedMu_;
  std::vector<std::string> observed_;
  std::atomic<int> verbosity_{-1};
};

TEST_F(SchedulerEndpointsTest, RootHealthEndpointsReportEachCheckToTheSliObserver) {
  synced_ = false;
  EXPECT_EQ(tlsGet(server_->port(), "/readyz?exclude=shutdown").status, 500);
  EXPECT_EQ(tlsGet(server_->port(), "/livez").status, 200);
  EXPECT_EQ(tlsGet(server_->port(), "/healthz/leaderElection").status, 200);  // per-check paths: not observed
  std::lock_guard lock(observedMu_);
  EXPECT_EQ(observed_, (std::vector<std::string>{"readyz/leaderElection ok", "readyz/sched-handler-sync failed",
                                                 "livez/ping ok"}));
}

TEST_F(SchedulerEndpointsTest, MetricsResourcesAndSlis) {
  HttpReply r = tlsGet(server_->port(), "/metrics/resources");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "kube_pod_resource_request 1\n");
  EXPECT_EQ(headerValue(r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  leading_ = false;  // upstream: an empty 200 unless leading
  r = tlsGet(server_->port(), "/metrics/resources");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  r = tlsGet(server_->port(), "/metrics/slis");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "kubernetes_healthcheck 1\n");
}

TEST_F(SchedulerEndpointsTest, HealthEndpointsOk) {
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    HttpReply r = tlsGet(server_->port(), path);
    ASSERT_TRUE(r.ok) << path;
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, "ok") << path;
    EXPECT_EQ(headerValue(r, "Content-Type"), "text/plain; charset=utf-8");
    EXPECT_EQ(headerValue(r, "X-Content-Type-Options"), "nosniff");
  }
}

TEST_F(SchedulerEndpointsTest, VerboseListsChecksInUpstreamFormat) {
  EXPECT_EQ(tlsGet(server_->port(), "/livez?verbose").body, "[+]ping ok\nlivez check passed\n");
  EXPECT_EQ(tlsGet(server_->port(), "/healthz?verbose").body, "[+]leaderElection ok\nhealthz check passed\n");
  EXPECT_EQ(tlsGet(server_->port(), "/readyz?verbose=1").body,
            "[+]leaderElection ok\n[+]shutdown ok\n[+]sched-handler-sync ok\nreadyz check passed\n");
}

TEST_F(SchedulerEndpointsTest, ReadyzFailsUntilHandlersSynced) {
  synced_ = false;
  HttpReply r = tlsGet(server_->port(), "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body,
            "[+]leaderElection ok\n[+]shutdown ok\n[-]sched-handler-sync failed: reason withheld\n"
            "readyz check failed\n");
  r = tlsGet(server_->port(), "/readyz/sched-handler-sync");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: waiting for handlers to sync\n");
  // Liveness and health do not depend on sync.
  EXPECT_EQ(tlsGet(server_->port(), "/healthz").status, 200);
  EXPECT_EQ(tlsGet(server_->port(), "/livez").status, 200);

  synced_ = true;
  r = tlsGet(server_->port(), "/readyz/sched-handler-sync");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(tlsGet(server_->port(), "/readyz").body, "ok");
}

TEST_F(SchedulerEndpointsTest, ShutdownFailsReadyz) {
  shuttingDown_ = true;
  HttpReply r = tlsGet(server_->port(), "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr("[-]shutdown failed: reason withheld\n"));
}

TEST_F(SchedulerEndpointsTest, LeaderElectionWatchdog) {
  // Leading and renewed 45s ago: more than leaseDuration (15s) + tolerance (20s).
  lastRenewed_ = now_ - std::chrono::seconds(45);
  HttpReply r = tlsGet(server_->port(), "/healthz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[-]leaderElection failed: reason withheld\nhealthz check failed\n");
  EXPECT_EQ(tlsGet(server_->port(), "/readyz").status, 500);
  EXPECT_EQ(tlsGet(server_->port(), "/livez").status, 200);
  // Not leading: the watchdog has nothing to watch.
  leading_ = false;
  EXPECT_EQ(tlsGet(server_->port(), "/healthz").status, 200);
}

TEST_F(SchedulerEndpointsTest, ExcludeSkipsChecksAndWarnsOnUnknown) {
  synced_ = false;
  HttpReply r = tlsGet(server_->port(), "/readyz?exclude=sched-handler-sync&exclude=nope&verbose");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]leaderElection ok\n[+]shutdown ok\n[+]sched-handler-sync excluded: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"nope\"\nreadyz check passed\n");
}

TEST_F(SchedulerEndpointsTest, MetricsServesScrape) {
  metrics_.incPreemptionAttempts();
  HttpReply r = tlsGet(server_->port(), "/metrics");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(headerValue(r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("# TYPE scheduler_preemption_attempts_total counter\n"));
  EXPECT_THAT(r.body, HasSubstr("\nscheduler_preemption_attempts_total 1\n"));
  EXPECT_EQ(std::stoul(headerValue(r, "Content-Length")), r.body.size());
}

TEST_F(SchedulerEndpointsTest, ConfigzWrapsComponentConfig) {
  HttpReply r = tlsGet(server_->port(), "/configz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(headerValue(r, "Content-Type"), "application/json");
  EXPECT_EQ(r.body, R"({"componentconfig":{"apiVersion":"kubescheduler.config.k8s.io/v1"}})");
}

HttpReply tlsPut(uint16_t port, const std::string& target, const std::string& body) {
  auto raw = tlsExchange(port, "PUT " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " +
                                   std::to_string(body.size()) + "\r\n\r\n" + body);
  return raw ? parseReply(*raw) : HttpReply{};
}

// upstream routes.DebugFlags + StringFlagPutHandler(logs.GlogSetter), installed when enableProfiling.
TEST_F(SchedulerEndpointsTest, DebugFlagsVSetsTheVerbosity) {
  HttpReply r = tlsPut(server_->port(), "/debug/flags/v", "4");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(headerValue(r, "Content-Type"), "text/plain");
  EXPECT_EQ(r.body, "successfully set klog.logging.verbosity to 4\n");
  EXPECT_EQ(verbosity_.load(), 4);

  HttpReply bad = tlsPut(server_->port(), "/debug/flags/v", "loud");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, "strconv.ParseUint: parsing \"loud\": invalid syntax\n");
  EXPECT_EQ(verbosity_.load(), 4);

  HttpReply get = tlsGet(server_->port(), "/debug/flags/v");
  EXPECT_EQ(get.status, 406);
  EXPECT_EQ(get.body, "unsupported http method\n");

  HttpReply index = tlsGet(server_->port(), "/debug/flags");
  EXPECT_EQ(index.status, 200);
  EXPECT_THAT(index.body, HasSubstr("<tr>v<br>"));
}

TEST(SchedulerEndpoints, NoDebugFlagsWithoutProfiling) {
  auto s = Server::create(loopback());
  ASSERT_TRUE(s.ok()) << s.error().message();
  SchedulerEndpointsOptions opts;
  opts.handlersSynced = [] { return true; };
  opts.metrics = [] { return std::string(); };
  installSchedulerEndpoints(**s, std::move(opts));
  (*s)->start();
  EXPECT_EQ(tlsPut((*s)->port(), "/debug/flags/v", "4").status, 404);
  EXPECT_EQ(tlsGet((*s)->port(), "/debug/flags").status, 404);
  (*s)->stop();
}

// upstream: /statusz lists the paths routed before it (not itself; /debug/flags is unlisted), by first
// segment; both sit behind the filter like /configz.
TEST_F(SchedulerEndpointsTest, FlagzAndStatusz) {
  EXPECT_EQ(server_->listedPaths(),
            (std::vector<std::string>{"/configz", "/flagz", "/healthz", "/healthz/leaderElection", "/livez",
                                      "/livez/ping", "/metrics", "/metrics/resources", "/metrics/slis",
                                      "/readyz", "/readyz/leaderElection", "/readyz/sched-handler-sync",
                                      "/readyz/shutdown", "/statusz"}));
  HttpReply statusz = tlsGet(server_->port(), "/statusz");
  EXPECT_EQ(statusz.status, 200);
  EXPECT_THAT(statusz.body, HasSubstr("\nkube-scheduler statusz\n"));
  EXPECT_THAT(statusz.body, HasSubstr(" /configz /flagz /healthz /livez /metrics /readyz\n"));
  EXPECT_THAT(statusz.body, HasSubstr("Binary version"));
  HttpReply flagz = tlsGet(server_->port(), "/flagz");
  EXPECT_EQ(flagz.status, 200);
  EXPECT_THAT(flagz.body, HasSubstr("\nkube-scheduler flagz\n"));
  EXPECT_THAT(flagz.body, HasSubstr("secure-port"));
}

TEST_F(SchedulerEndpointsTest, UnknownPathIs404) {
  HttpReply r = tlsGet(server_->port(), "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "404 page not found\n");
  EXPECT_EQ(tlsGet(server_->port(), "/healthz/unknown-check").status, 404);
}

TEST_F(SchedulerEndpointsTest, HeadHasNoBody) {
  HttpReply r = tlsGet(server_->port(), "/metrics", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty());
  EXPECT_NE(headerValue(r, "Content-Length"), "0");
}

TEST_F(SchedulerEndpointsTest, SelfSignedCertificateVerifiesForLocalhostAndLoopbackIp) {
  const std::string& pem = server_->certificatePem();
  ASSERT_THAT(pem, StartsWith("-----BEGIN CERTIFICATE-----"));
  const std::string req = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
  auto byName = tlsExchange(server_->port(), req, {pem, "localhost"});
  ASSERT_TRUE(byName.has_value());
  EXPECT_EQ(parseReply(*byName).body, "ok");
  auto byIp = tlsExchange(server_->port(), req, {pem, "127.0.0.1"});
  ASSERT_TRUE(byIp.has_value());
  EXPECT_EQ(parseReply(*byIp).status, 200);
  // A name not in the SANs fails verification.
  EXPECT_FALSE(tlsExchange(server_->port(), req, {pem, "example.com"}).has_value());
}

TEST_F(SchedulerEndpointsTest, MalformedRequestsGet400AndServerSurvives) {
  const uint16_t port = server_->port();
  auto bad = [&](const std::string& raw) {
    auto reply = tlsExchange(port, raw);
    return reply ? parseReply(*reply) : HttpReply{};
  };
  EXPECT_EQ(bad("GARBAGE\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET nopath HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET / HTTP/9.9\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET /%zz HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET /healthz?a=%4 HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n").status, 400);
  EXPECT_EQ(bad("GET /healthz HTTP/1.1\r\nContent-Length: -5\r\n\r\n").status, 400);
  EXPECT_EQ(bad("POST /healthz HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n").status, 413);
  EXPECT_EQ(bad("POST /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").status, 501);
  EXPECT_EQ(bad("GET /" + std::string(70000, 'a') + " HTTP/1.1\r\n\r\n").status, 431);
  EXPECT_EQ(bad(std::string("GET /\0 HTTP/1.1\r\n\r\n", 20)).status, 400);
  // An incomplete request: the server gives up after its I/O timeout with a 400.
  EXPECT_EQ(bad("GET /healthz HTTP/1.1\r\nHost: x").status, 400);

  // Plain bytes to the TLS port: the handshake fails and the connection is dropped.
  EXPECT_EQ(plainExchange(port, "GET /healthz HTTP/1.1\r\n\r\n").find("ok"), std::string::npos);
  // Connect and leave at once.
  int fd = connectTo(port);
  ::close(fd);

  HttpReply r = tlsGet(port, "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

TEST_F(SchedulerEndpointsTest, ConcurrentScrapes) {
  metrics::ProfileId p = metrics_.profile("default-scheduler");
  std::atomic<int> ok{0};
  std::atomic<bool> stop{false};
  std::thread recorder([&] {
    while (!stop) metrics_.podScheduled(p, 0.01);
  });
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        HttpReply r = tlsGet(server_->port(), i % 2 ? "/metrics" : "/readyz");
        if (r.status == 200) ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  stop = true;
  recorder.join();
  EXPECT_EQ(ok.load(), 30);
}

TEST(ServerTest, StopReturnsWithIdleConnectionOpen) {
  auto s = Server::create(loopback());
  ASSERT_TRUE(s.ok()) << s.error().message();
  auto server = std::move(*s);
  server->start();
  int fd = connectTo(server->port());
  ASSERT_GE(fd, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto start = std::chrono::steady_clock::now();
  server->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ::close(fd);
  server->stop();  // idempotent
}

size_t threadCount() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                           std::filesystem::directory_iterator()));
}

// Connection threads are joined by stop(), not left to finish on their own: a thread still unwinding after
// stop() returned could free the server's TLS context while the process exits.
TEST(ServerTest, StopJoinsEveryConnectionThread) {
  const size_t before = threadCount();
  auto s = Server::create(loopback(false));
  ASSERT_TRUE(s.ok()) << s.error().message();
  auto server = std::move(*s);
  server->handle("/ok", [](const Request&) { return Response{}; });
  server->start();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(parseReply(plainExchange(server->port(), "GET /ok HTTP/1.0\r\n\r\n")).status, 200);
  }
  int idle = connectTo(server->port());
  ASSERT_GE(idle, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server->stop();
  EXPECT_EQ(threadCount(), before);
  ::close(idle);
}

TEST(ServerTest, PlainHttpModeAndHandlerErrors) {
  auto s = Server::create(loopback(false));
  ASSERT_TRUE(s.ok()) << s.error().message();
  auto server = std::move(*s);
  EXPECT_TRUE(server->certificatePem().empty());
  server->handle("/echo", [](const Request& req) {
    Response r;
    r.body = req.method + " " + req.path + " " + req.body + " " +
             (req.queryValues("x").empty() ? "" : req.queryValues("x")[0]);
    return r;
  });
  server->handle("/throw", [](const Request&) -> Response { throw std::runtime_error("boom"); });
  server->start();
  HttpReply r = parseReply(
      plainExchange(server->port(), "POST /echo?x=a%20b+c HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "POST /echo hello a b c");
  r = parseReply(plainExchange(server->port(), "GET /throw HTTP/1.0\r\n\r\n"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: boom\n");
  // The client half-closes after a partial request: 400, no hang.
  int fd = connectTo(server->port());
  ::send(fd, "GET /echo HTTP/1.1\r\n", 20, MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  std::string raw;
  char buf[1024];
  ssize_t n = 0;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) raw.append(buf, static_cast<size_t>(n));
  ::close(fd);
  EXPECT_EQ(parseReply(raw).status, 400);
}

TEST(ServerTest, BindConflictIsAnError) {
  auto a = Server::create(loopback(false));
  ASSERT_TRUE(a.ok());
  ServerOptions o = loopback(false);
  o.port = (*a)->port();
  auto b = Server::create(o);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.error().message(), HasSubstr("listen on 127.0.0.1:" + std::to_string(o.port)));
  o.bindAddress = "not-an-ip";
  o.port = 0;
  EXPECT_FALSE(Server::create(o).ok());
}

TEST(ServerTest, CertificateFilesAreUsed) {
  auto generated = generateSelfSignedCertKey("localhost", {"scheduler.example", "10.1.2.3"});
  ASSERT_TRUE(generated.ok()) << generated.error().message();
  auto dir = std::filesystem::temp_directory_path() / ("ks-server-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tls.crt") << generated->certPem;
  std::ofstream(dir / "tls.key") << generated->keyPem;

  ServerOptions o = loopback();
  o.certFile = (dir / "tls.crt").string();
  o.keyFile = (dir / "tls.key").string();
  auto s = Server::create(o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  auto server = std::move(*s);
  EXPECT_EQ(server->certificatePem(), generated->certPem);
  installHealthChecks(*server, "/healthz", {});
  server->start();
  auto reply =
      tlsExchange(server->port(), "GET /healthz HTTP/1.1\r\n\r\n", {generated->certPem, "scheduler.example"});
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(parseReply(*reply).body, "ok");

  // A key that does not match the certificate, a missing file, and only one of the two flags are errors.
  auto other = generateSelfSignedCertKey("localhost", {});
  ASSERT_TRUE(other.ok());
  std::ofstream(dir / "other.key") << other->keyPem;
  o.keyFile = (dir / "other.key").string();
  EXPECT_FALSE(Server::create(o).ok());
  o.keyFile = (dir / "missing.key").string();
  EXPECT_FALSE(Server::create(o).ok());
  o.keyFile.clear();
  auto half = Server::create(o);
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(half.error().message(), HasSubstr("must be given together"));
  std::filesystem::remove_all(dir);
}

// A scratch directory removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& file, const std::string& content) const {
    std::ofstream(path / file) << content;
    return (path / file).string();
  }
};

// The PEM of the certificate the server presents to a client sending `serverName` as SNI (none when
// empty); empty when the handshake fails. `groups` limits the client's key exchange groups.
std::string servedCertificate(uint16_t port, const std::string& serverName, const std::string& groups = "") {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  if (!groups.empty()) SSL_CTX_set1_groups_list(ctx, groups.c_str());
  int fd = connectTo(port);
  SSL* ssl = SSL_new(ctx);
  if (!serverName.empty()) SSL_set_tlsext_host_name(ssl, serverName.c_str());
  SSL_set_fd(ssl, fd);
  std::string pem;
  if (fd >= 0 && SSL_connect(ssl) == 1) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    pem.assign(data, static_cast<size_t>(n));
    BIO_free(bio);
    X509_free(cert);
    SSL_shutdown(ssl);
  }
  ERR_clear_error();
  SSL_free(ssl);
  if (fd >= 0) ::close(fd);
  SSL_CTX_free(ctx);
  return pem;
}

TEST(ServerTest, PermitPortSharingLetsTwoServersBindOnePort) {
  ServerOptions o = loopback(false);
  o.permitPortSharing = true;
  auto a = Server::create(o);
  ASSERT_TRUE(a.ok()) << a.error().message();
  o.port = (*a)->port();
  auto b = Server::create(o);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ((*b)->port(), o.port);
  // Both must ask for it: a server without the option still conflicts.
  o.permitPortSharing = false;
  o.permitAddressSharing = true;
  auto c = Server::create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message(), HasSubstr("Address already in use"));
}

// upstream MaybeDefaultWithSelfSignedCerts with --cert-dir: the pair is written once and reused.
TEST(ServerTest, CertDirectoryKeepsTheSelfSignedPair) {
  TempDir tmp("ks-server-certdir");
  ServerOptions o = loopback();
  o.certDirectory = (tmp.path / "nested" / "certs").string();
  auto first = Server::create(o);
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto crt = tmp.path / "nested" / "certs" / "kube-scheduler.crt";
  const auto key = tmp.path / "nested" / "certs" / "kube-scheduler.key";
  ASSERT_TRUE(std::filesystem::exists(crt));
  ASSERT_TRUE(std::filesystem::exists(key));
  struct stat st {};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);  // 0600 (less the umask)
  ASSERT_EQ(::stat(crt.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0022, 0u);  // 0644 at most
  const std::string pem = (*first)->certificatePem();
  std::ifstream in(crt);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), pem);
  (*first)->start();
  EXPECT_EQ(servedCertificate((*first)->port(), ""), pem);

  // A second start reuses the pair.
  auto second = Server::create(o);
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ((*second)->certificatePem(), pem);

  // Only one of the two present: an error, as upstream's CanReadCertAndKey.
  std::filesystem::remove(key);
  auto half = Server::create(o);
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.error().message(), "error creating self-signed certificates: error reading " + key.string() +
                                        ", certificate and key must be supplied as a pair");

  // Explicit files win: the directory is not touched.
  auto explicitPair = generateSelfSignedCertKey("localhost", {});
  ASSERT_TRUE(explicitPair.ok());
  o.certFile = tmp.write("tls.crt", explicitPair->certPem);
  o.keyFile = tmp.write("tls.key", explicitPair->keyPem);
  o.certDirectory = (tmp.path / "unused").string();
  auto withFiles = Server::create(o);
  ASSERT_TRUE(withFiles.ok()) << withFiles.error().message();
  EXPECT_FALSE(std::filesystem::exists(tmp.path / "unused"));
}

// --tls-sni-cert-key: upstream's BuildNamedCertificates precedence and Go's name lookup.
TEST(ServerTest, SniCertificatesAreChosenByServerName) {
  TempDir tmp("ks-server-sni");
  auto pair = [&](const std::string& name, const std::vector<std::string>& sans) {
    auto generated = generateSelfSignedCertKey(name, sans);
    EXPECT_TRUE(generated.ok());
    return std::pair{*generated, SniCertKey{tmp.write(name + ".crt", generated->certPem),
                                            tmp.write(name + ".key", generated->keyPem),
                                            {}}};
  };
  // CN "<host>@<time>" is no DNS name, so only the SANs (localhost, the host, the extras) are extracted.
  auto [wild, wildFiles] = pair("wild", {"*.example.com"});
  auto [exact, exactFiles] = pair("exact", {"api.example.com", "other.test"});
  auto [named, namedFiles] = pair("named", {});
  namedFiles.names = {"other.test", "10.9.8.7", "Upper.Test"};
  auto [ip, ipFiles] = pair("ip", {});
  ipFiles.names = {"127.0.0.1"};

  ServerOptions o = loopback();
  o.sniCertKeys = {wildFiles, exactFiles, namedFiles};
  auto s = Server::create(o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  auto& server = **s;
  server.start();
  const std::string fallback = server.certificatePem();
  EXPECT_EQ(servedCertificate(server.port(), "api.example.com"), exact.certPem);  // exact beats wildcard
  EXPECT_EQ(servedCertificate(server.port(), "API.Example.COM"), exact.certPem);  // lower-cased
  EXPECT_EQ(servedCertificate(server.port(), "www.example.com"), wild.certPem);   // one-label wildcard
  EXPECT_EQ(servedCertificate(server.port(), "a.b.example.com"), fallback);       // not two labels
  EXPECT_EQ(servedCertificate(server.port(), "other.test"), named.certPem);       // explicit beats extracted
  EXPECT_EQ(servedCertificate(server.port(), "localhost"), wild.certPem);         // earlier pair wins
  EXPECT_EQ(servedCertificate(server.port(), "upper.test"), fallback);            // table names as given
  EXPECT_EQ(servedCertificate(server.port(), "unknown.test"), fallback);
  EXPECT_EQ(servedCertificate(server.port(), ""), fallback);  // no SNI, 127.0.0.1 not named

  // Without SNI the local IP is looked up.
  o.sniCertKeys = {ipFiles};
  auto byIp = Server::create(o);
  ASSERT_TRUE(byIp.ok()) << byIp.error().message();
  (*byIp)->start();
  EXPECT_EQ(servedCertificate((*byIp)->port(), ""), ip.certPem);

  // Load errors, as upstream's ApplyTo words them.
  o.sniCertKeys = {{(tmp.path / "missing.crt").string(), ipFiles.keyFile, {}}};
  auto missing = Server::create(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "failed to load SNI cert and key: open " +
                                           (tmp.path / "missing.crt").string() +
                                           ": no such file or directory");
  o.sniCertKeys = {{ipFiles.certFile, wildFiles.keyFile, {}}};
  auto mismatch = Server::create(o);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().message(),
            "failed to load SNI cert and key: tls: private key does not match public key");
}

TEST(ServerTest, CurvePreferencesLimitTheKeyExchange) {
  auto groups = tlsCurveGroups({24, 23});
  ASSERT_TRUE(groups.ok()) << groups.error().message();
  EXPECT_EQ(*groups, "P-256:P-384");  // Go's own order, not the flag's
  ServerOptions o = loopback();
  o.groupsList = *groups;
  auto s = Server::create(o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  (*s)->start();
  EXPECT_FALSE(servedCertificate((*s)->port(), "", "P-384").empty());
  EXPECT_TRUE(servedCertificate((*s)->port(), "", "X25519").empty());
}

// upstream cli/flag curves_flag_test.go TestTLSCurvePreferences (the error texts from curves_flag.go).
TEST(TlsCurveGroups, UpstreamTable) {
  EXPECT_EQ(tlsCurveGroups({23, 24, 29}).value(), "X25519:P-256:P-384");
  EXPECT_EQ(tlsCurveGroups({29}).value(), "X25519");
  EXPECT_EQ(tlsCurveGroups({}).value(), "");
  EXPECT_EQ(tlsCurveGroups({23, 29, 23}).error().message(), "duplicate curve preference 23");
  EXPECT_EQ(tlsCurveGroups({0}).error().message(), "curve preference 0 is out of range (must be 1-65535)");
  EXPECT_EQ(tlsCurveGroups({-1}).error().message(), "curve preference -1 is out of range (must be 1-65535)");
  EXPECT_EQ(tlsCurveGroups({70000}).error().message(),
            "curve preference 70000 is out of range (must be 1-65535)");
  EXPECT_EQ(tlsCurveGroups({9999}).error().message(),
            "curve preference 9999 is not supported by the current Go version");
  // "all standard curves": with 4588 (X25519MLKEM768) only where OpenSSL has it (3.5+).
  auto all = tlsCurveGroups({23, 24, 25, 29, 4588});
  if (all.ok()) {
    EXPECT_EQ(*all, "X25519MLKEM768:X25519:P-256:P-384:P-521");
  } else {
    EXPECT_THAT(all.error().message(),
                StartsWith("curve preference 4588 (X25519MLKEM768) is not supported by OpenSSL"));
  }
  EXPECT_EQ(tlsCurveGroups({23, 24, 25, 29}).value(), "X25519:P-256:P-384:P-521");
}

// Reads `raw` through readRequest, `readSize` bytes at a time.
RequestRead readFrom(std::string_view raw, size_t readSize = 1 << 20) {
  return readRequest([&](char* buf, size_t cap) {
    size_t n = std::min({cap, readSize, raw.size()});
    std::copy_n(raw.data(), n, buf);
    raw.remove_prefix(n);
    return n;
  });
}

TEST(ReadRequestTest, ParsesPathQueryHeadersAndBody) {
  for (size_t readSize : {size_t{1}, size_t{7}, size_t{1} << 20}) {
    SCOPED_TRACE(readSize);
    auto in = readFrom(
        "GET /readyz%2Fx?verbose&exclude=a&exclude=b+c&&k=%41 HTTP/1.1\r\nHost: h\r\nX-Thing:  v  "
        "\r\nContent-Length: 4\r\n\r\nbodyGET /next HTTP/1.1\r\n\r\n",
        readSize);
    ASSERT_TRUE(in.request.has_value());
    EXPECT_FALSE(in.rejection.has_value());
    const Request& req = *in.request;
    EXPECT_EQ(req.method, "GET");
    EXPECT_EQ(req.path, "/readyz/x");
    EXPECT_TRUE(req.hasQuery("verbose"));
    EXPECT_FALSE(req.hasQuery("nope"));
    EXPECT_EQ(req.queryValues("exclude"), (std::vector<std::string>{"a", "b c"}));
    EXPECT_EQ(req.queryValues("k"), (std::vector<std::string>{"A"}));
    ASSERT_EQ(req.headers.size(), 3u);
    EXPECT_EQ(req.headers[1].first, "x-thing");
    EXPECT_EQ(req.headers[1].second, "v");
    EXPECT_EQ(req.body, "body");  // a pipelined request after it is not served (one request a connection)
  }
}

TEST(ReadRequestTest, RefusesWhatItCannotFrame) {
  struct Case {
    std::string raw;
    int status;
    std::string method;  // for the reply: "" when the head did not parse
  };
  const std::vector<Case> cases = {
      {"GET /\r\n\r\n", 400, ""},
      {" / HTTP/1.1\r\n\r\n", 400, ""},
      {"GET / HTTP/1.1\r\n: v\r\n\r\n", 400, ""},
      {"GET /healthz HTTP/1.1\r\nHost: x", 400, ""},  // the peer closed inside the head
      {"HEAD / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400, "HEAD"},
      // Two lengths that disagree would frame the body two ways; two that agree are one.
      {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "POST"},
      {"POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", 413, "POST"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501, "POST"},
      {"GET /" + std::string(64 * 1024, 'a') + " HTTP/1.1\r\n\r\n", 431, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.raw.substr(0, 60));
    for (size_t readSize : {size_t{1}, size_t{1} << 20}) {
      auto in = readFrom(c.raw, readSize);
      EXPECT_FALSE(in.request.has_value());
      ASSERT_TRUE(in.rejection.has_value());
      EXPECT_EQ(in.rejection->status, c.status);
      EXPECT_EQ(in.method, c.method);
    }
  }
  auto same = readFrom("POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nab");
  ASSERT_TRUE(same.request.has_value());
  EXPECT_EQ(same.request->body, "ab");
}

TEST(ReadRequestTest, NothingToAnswerWhenThePeerLeaves) {
  for (const std::string raw : {"", "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort"}) {
    auto in = readFrom(raw);
    EXPECT_FALSE(in.request.has_value());
    EXPECT_FALSE(in.rejection.has_value());
  }
}

TEST(ReadRequestTest, HeadSizeLimitDoesNotDependOnReadBoundaries) {
  // The head ends exactly at the limit: accepted however the bytes arrive, also when a read stops inside
  // the terminating blank line.
  std::string head = "GET /" + std::string(kMaxHeaderBytes - 20, 'a') + " HTTP/1.1";
  ASSERT_EQ(head.size(), kMaxHeaderBytes - 6);
  std::string raw = head + "\r\nA: b\r\n\r\n";
  ASSERT_EQ(raw.find("\r\n\r\n"), kMaxHeaderBytes);
  for (size_t readSize : {size_t{1}, size_t{3}, kMaxHeaderBytes + 2, size_t{1} << 20}) {
    SCOPED_TRACE(readSize);
    auto in = readFrom(raw, readSize);
    EXPECT_TRUE(in.request.has_value());
  }
}

TEST(HealthzTest, DefaultsToPingAndPerCheckPaths) {
  Request req;
  std::vector<HealthCheck> checks = {pingCheck(),
                                     {"broken", [] { return VoidResult(Error("disk on fire")); }}};
  Response r = serveHealth("healthz", checks, req);
  EXPECT_EQ(r.status, 500);
  // The reason is withheld from the public endpoint.
  EXPECT_EQ(r.body, "[+]ping ok\n[-]broken failed: reason withheld\nhealthz check failed\n");
  EXPECT_EQ(r.body.find("disk on fire"), std::string::npos);
  checks.push_back({"throws", []() -> VoidResult { throw std::runtime_error("x"); }});
  EXPECT_THAT(serveHealth("healthz", checks, req).body, HasSubstr("[-]throws failed: reason withheld\n"));
}

}  // namespace
}  // namespace ks::server
