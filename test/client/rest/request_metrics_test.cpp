// RestClient's RequestMetrics observations (client-go's rest_client_* hooks) against the in-test server.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "pkg/client/rest/request_metrics.h"
#include "pkg/client/rest/rest_client.h"
#include "test/client/rest/test_http_server.h"

namespace ks::client::rest {
namespace {

using testing::ResponseWriter;
using testing::TestHttpServer;
using testing::TestRequest;
using namespace std::chrono_literals;

struct Observation {
  std::string kind;  // "throttle", "latency", "requestSize", "responseSize", "result", "retry"
  std::string a, b, c;
  double value = 0;
  bool operator==(const Observation&) const = default;
};

class RecordingMetrics final : public RequestMetrics {
 public:
  void rateLimiterLatency(std::string_view verb, std::string_view host, double s) override {
    add({"throttle", std::string(verb), std::string(host), "", s});
  }
  void requestLatency(std::string_view verb, std::string_view host, double s) override {
    add({"latency", std::string(verb), std::string(host), "", s});
  }
  void requestSize(std::string_view verb, std::string_view host, double bytes) override {
    add({"requestSize", std::string(verb), std::string(host), "", bytes});
  }
  void responseSize(std::string_view verb, std::string_view host, double bytes) override {
    add({"responseSize", std::string(verb), std::string(host), "", bytes});
  }
  void requestResult(std::string_view code, std::string_view method, std::string_view host) override {
    add({"result", std::string(code), std::string(method), std::string(host), 0});
  }
  void requestRetry(std::string_view code, std::string_view verb, std::string_view host) override {
    add({"retry", std::string(code), std::string(verb), std::string(host), 0});
  }

  std::vector<Observation> of(std::string_view kind) const {
    std::lock_guard lock(mu_);
    std::vector<Observation> out;
    for (const auto& o : all_) {
      if (o.kind == kind) out.push_back(o);
    }
    return out;
  }

 private:
  void add(Observation o) {
    std::lock_guard lock(mu_);
    all_.push_back(std::move(o));
  }
  mutable std::mutex mu_;
  std::vector<Observation> all_;
};

std::string hostOf(const TestHttpServer& s) {
  return "127.0.0.1:" + std::to_string(s.port());
}

RestConfig configFor(const TestHttpServer& server, RequestMetrics* metrics) {
  RestConfig c;
  c.server = server.url();
  c.qps = -1;
  c.retry.initialBackoff = 1ms;
  c.retry.maxBackoff = 5ms;
  c.retry.maxRetries = 3;
  c.metrics = metrics;
  return c;
}

std::unique_ptr<RestClient> makeClient(const RestConfig& config) {
  auto c = RestClient::create(config);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return std::move(c).value();
}

TEST(UrlHostTest, IsGoUrlHost) {
  EXPECT_EQ(urlHost("https://127.0.0.1:6443"), "127.0.0.1:6443");
  EXPECT_EQ(urlHost("https://example.com/prefix/api?x=1"), "example.com");
  EXPECT_EQ(urlHost("http://user:pw@[::1]:8080/"), "[::1]:8080");
  EXPECT_EQ(urlHost("https://kubernetes.default.svc"), "kubernetes.default.svc");
}

TEST(RequestMetricsTest, BindAfterTooManyRequestsRecordsEachAttemptAndOneLatency) {
  std::atomic<int> calls{0};
  const std::string created = R"({"kind":"Status","apiVersion":"v1","status":"Success","code":201})";
  TestHttpServer server([&](const TestRequest&, ResponseWriter& w) {
    if (calls++ == 0) {
      w.send(429, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429})",
             {{"Retry-After", "0"}});
    } else {
      w.send(201, created);
    }
  });
  RecordingMetrics m;
  auto client = makeClient(configFor(server, &m));
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.kind = "Node";
  b.target.name = "n1";
  ASSERT_TRUE(client->bind(b).ok());
  const std::string host = hostOf(server);

  // Every attempt: its result; attempts after the first: a retry (client-go with_retry.go).
  EXPECT_EQ(m.of("result"), (std::vector<Observation>{{"result", "429", "POST", host, 0},
                                                      {"result", "201", "POST", host, 0}}));
  EXPECT_EQ(m.of("retry"), (std::vector<Observation>{{"retry", "201", "POST", host, 0}}));
  // Every attempt is throttled and sends the body.
  ASSERT_EQ(m.of("throttle").size(), 2u);
  EXPECT_EQ(m.of("throttle")[0].a, "POST");
  EXPECT_EQ(m.of("throttle")[0].b, host);
  const auto sizes = m.of("requestSize");
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_GT(sizes[0].value, 0);
  EXPECT_EQ(sizes[0].value, sizes[1].value);
  // Once per request: the final response's size and the whole latency.
  ASSERT_EQ(m.of("responseSize").size(), 1u);
  EXPECT_EQ(m.of("responseSize")[0].value, static_cast<double>(created.size()));
  ASSERT_EQ(m.of("latency").size(), 1u);
  EXPECT_EQ(m.of("latency")[0].a, "POST");
  EXPECT_GE(m.of("latency")[0].value, 0);
}

TEST(RequestMetricsTest, GetWithoutBodyRecordsZeroRequestSize) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.send(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})");
  });
  RecordingMetrics m;
  auto client = makeClient(configFor(server, &m));
  EXPECT_FALSE(client->getLease("ns", "l").ok());
  EXPECT_EQ(m.of("result"), (std::vector<Observation>{{"result", "404", "GET", hostOf(server), 0}}));
  ASSERT_EQ(m.of("requestSize").size(), 1u);
  EXPECT_EQ(m.of("requestSize")[0].value, 0);
  EXPECT_TRUE(m.of("retry").empty());
  EXPECT_EQ(m.of("latency").size(), 1u);
}

TEST(RequestMetricsTest, TransportErrorIsCodeError) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) { w.abort(); });
  RecordingMetrics m;
  auto config = configFor(server, &m);
  config.retry.maxRetries = 0;
  auto client = makeClient(config);
  api::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "default";
  b.target.name = "n1";
  EXPECT_FALSE(client->bind(b).ok());
  ASSERT_FALSE(m.of("result").empty());
  EXPECT_EQ(m.of("result")[0].a, "<error>");
  EXPECT_TRUE(m.of("responseSize").empty());  // no response arrived
}

TEST(RequestMetricsTest, WatchIsCountedWhenHeadersArriveAndIsNotThrottled) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) {
    if (r.query.count("watch") == 0) {
      w.send(200, R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l"}})");
      return;
    }
    w.start(200);
    w.end();
  });
  RecordingMetrics m;
  auto config = configFor(server, &m);
  config.qps = 0.001;  // one token, then a wait of ~17 minutes
  config.burst = 1;
  auto client = makeClient(config);
  ASSERT_TRUE(client->getLease("ns", "l").ok());  // spends the only token
  const auto t0 = std::chrono::steady_clock::now();
  auto r = client->pods().watch({}, [](api::WatchEvent<api::Pod>&&) {}, {});
  EXPECT_TRUE(r.ok()) << r.error().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // client-go's Watch bypasses the rate limiter
  const std::string host = hostOf(server);
  EXPECT_EQ(m.of("result"), (std::vector<Observation>{{"result", "200", "GET", host, 0},
                                                      {"result", "200", "GET", host, 0}}));
  // Only the getLease was throttled, sized and timed.
  EXPECT_EQ(m.of("throttle").size(), 1u);
  EXPECT_EQ(m.of("requestSize").size(), 1u);
  EXPECT_EQ(m.of("latency").size(), 1u);
}

TEST(RequestMetricsTest, WatchErrorStatusAndCancelledWatch) {
  std::atomic<bool> hang{false};
  TestHttpServer server([&](const TestRequest&, ResponseWriter& w) {
    if (hang) {
      w.waitForPeerClose(5000);  // no headers until the client gives up
      return;
    }
    w.send(410, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Gone","code":410})");
  });
  RecordingMetrics m;
  auto client = makeClient(configFor(server, &m));
  EXPECT_FALSE(client->nodes().watch({}, [](api::WatchEvent<api::Node>&&) {}, {}).ok());
  hang = true;
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    stop.request_stop();
  });
  EXPECT_TRUE(client->nodes().watch({}, [](api::WatchEvent<api::Node>&&) {}, stop.get_token()).ok());
  stopper.join();
  const std::string host = hostOf(server);
  EXPECT_EQ(m.of("result"), (std::vector<Observation>{{"result", "410", "GET", host, 0},
                                                      {"result", "<error>", "GET", host, 0}}));
}

}  // namespace
}  // namespace ks::client::rest
