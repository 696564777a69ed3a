// The blocking HTTP/1.1 transport under RestClient: connection reuse, body framings, gzip, stop, bad
// responses. TLS is exercised against the real apiserver (restclient_integration_test and every daemon
// test).
#include "pkg/client/rest/http_transport.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include "test/client/rest/test_http_server.h"

namespace ks::client::rest {
namespace {

using namespace std::chrono_literals;
using testing::ResponseWriter;
using testing::TestHttpServer;
using testing::TestRequest;

std::unique_ptr<HttpTransport> transportFor(const std::string& url, std::chrono::seconds idle = 10s) {
  HttpTransport::Options o;
  o.server = url;
  o.idleTimeout = idle;
  auto t = HttpTransport::create(o);
  EXPECT_TRUE(t.ok()) << t.error().message();
  return std::move(t).value();
}

struct Response {
  int32_t status = -1;
  std::string retryAfter;
  std::string body;
  std::optional<TransportError> error;
};

Response get(HttpTransport& t, const std::string& target, std::stop_token stop = {}) {
  Response r;
  HttpRequest req;
  req.method = "GET";
  req.target = target;
  auto done = t.roundTrip(
      req,
      [&](const HttpHead& h) {
        r.status = h.status;
        r.retryAfter = h.retryAfter;
      },
      [&](std::string_view b) {
        r.body.append(b);
        return true;
      },
      stop);
  if (!done.ok()) r.error = done.error();
  return r;
}

std::string gzipped(const std::string& text) {
  z_stream z;
  std::memset(&z, 0, sizeof z);
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(HttpTransportTest, KeepAliveReusesOneConnectionAndPrefixesTheServerPath) {
  TestHttpServer server([](const TestRequest& r, ResponseWriter& w) { w.send(200, "ok " + r.target); });
  auto t = transportFor(server.url() + "/prefix/");
  for (int i = 0; i < 5; ++i) {
    Response r = get(*t, "/api/v1/pods?limit=" + std::to_string(i));
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok /prefix/api/v1/pods?limit=" + std::to_string(i));
  }
  EXPECT_EQ(server.connectionCount(), 1u);
  EXPECT_EQ(t->idleConnections(), 1u);
  EXPECT_EQ(server.requests().front().header("host"), "127.0.0.1:" + std::to_string(server.port()));
}

// The pool's clock, moved by hand between requests.
struct ManualPoolClock {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  std::function<std::chrono::steady_clock::time_point()> fn() {
    return [this] { return now; };
  }
};

std::unique_ptr<HttpTransport> pooledTransportFor(const std::string& url, ManualPoolClock& clock,
                                                  size_t maxIdle = 25) {
  HttpTransport::Options o;
  o.server = url;
  o.idleTimeout = 10s;
  o.maxIdleConnections = maxIdle;
  o.maxIdleTime = 90s;
  o.now = clock.fn();
  auto t = HttpTransport::create(o);
  EXPECT_TRUE(t.ok()) << t.error().message();
  return std::move(t).value();
}

// A server whose "/burst" answers only once `burst` requests have arrived, so each of them holds its own
// connection (a burst of bindings); other targets answer at once.
class BurstServer {
 public:
  explicit BurstServer(int burst)
      : arrived_(burst), server_([this](const TestRequest& r, ResponseWriter& w) {
          if (r.target == "/burst") arrived_.arrive_and_wait();
          w.send(200, "ok");
        }) {}
  std::string url() const { return server_.url(); }
  size_t connectionCount() const { return server_.connectionCount(); }

 private:
  std::latch arrived_;
  TestHttpServer server_;
};

void sendBurst(HttpTransport& t, int n) {
  std::vector<std::thread> senders;
  for (int i = 0; i < n; ++i) senders.emplace_back([&t] { EXPECT_FALSE(get(t, "/burst").error); });
  for (auto& s : senders) s.join();
}

TEST(HttpTransportTest, IdlePoolClosesConnectionsIdleLongerThanMaxIdleTime) {
  BurstServer server(2);
  ManualPoolClock clock;
  auto t = pooledTransportFor(server.url(), clock);
  sendBurst(*t, 2);
  ASSERT_EQ(server.connectionCount(), 2u);
  EXPECT_EQ(t->idleConnections(), 2u);

  // Steady traffic reuses the most recent connection; the other one sinks to the bottom of the pool.
  clock.now += 60s;
  ASSERT_FALSE(get(*t, "/steady").error);
  EXPECT_EQ(t->idleConnections(), 2u);

  // 100 s after the burst the sunk one has been idle past 90 s and is closed; the busy one is kept.
  clock.now += 40s;
  ASSERT_FALSE(get(*t, "/steady").error);
  EXPECT_EQ(t->idleConnections(), 1u);
  EXPECT_EQ(server.connectionCount(), 2u) << "the recent connection was reused, none opened";

  clock.now += 91s;
  ASSERT_FALSE(get(*t, "/steady").error);
  EXPECT_EQ(server.connectionCount(), 3u) << "an expired connection is not reused";
  EXPECT_EQ(t->idleConnections(), 1u);
}

TEST(HttpTransportTest, IdlePoolKeepsAtMostMaxIdleConnections) {
  BurstServer server(3);
  ManualPoolClock clock;
  auto t = pooledTransportFor(server.url(), clock, /*maxIdle=*/2);
  sendBurst(*t, 3);
  EXPECT_EQ(server.connectionCount(), 3u);
  EXPECT_EQ(t->idleConnections(), 2u) << "the third is closed rather than pooled";
}

TEST(HttpTransportTest, ChunkedAndGzipBodiesArriveDecoded) {
  const std::string text(300000, 'x');
  TestHttpServer server([&](const TestRequest& r, ResponseWriter& w) {
    if (r.path == "/gzip") {
      w.send(200, gzipped(text), {{"Content-Encoding", "gzip"}});
    } else {
      w.start(200);
      w.chunk("first,");
      w.chunk("second");
      w.end();
    }
  });
  auto t = transportFor(server.url());
  Response z = get(*t, "/gzip");
  ASSERT_FALSE(z.error) << z.error->message;
  EXPECT_EQ(z.body, text);
  Response c = get(*t, "/chunked");
  ASSERT_FALSE(c.error) << c.error->message;
  EXPECT_EQ(c.body, "first,second");
  EXPECT_EQ(server.connectionCount(), 1u) << "both framings leave the connection reusable";
}

TEST(HttpTransportTest, StatusAndRetryAfterOfAnErrorResponse) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.send(429, R"({"kind":"Status"})", {{"Retry-After", "3"}});
  });
  auto t = transportFor(server.url());
  Response r = get(*t, "/x");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.retryAfter, "3");
  EXPECT_EQ(r.body, R"({"kind":"Status"})");
}

TEST(HttpTransportTest, StopEndsABlockedStreamPromptly) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.start(200);
    w.chunk("line\n");
    w.waitForPeerClose(10000);
  });
  auto t = transportFor(server.url(), 60s);
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(200ms);
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  Response r = get(*t, "/watch", stop.get_token());
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_FALSE(r.error) << "a stopped stream is not an error";
  EXPECT_EQ(r.body, "line\n");
  EXPECT_EQ(t->idleConnections(), 0u) << "the interrupted connection is dropped";
}

TEST(HttpTransportTest, IdleTimeoutEndsASilentResponse) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) { w.waitForPeerClose(10000); });
  auto t = transportFor(server.url(), 1s);
  Response r = get(*t, "/slow");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("i/o timeout"), std::string::npos) << r.error->message;
  EXPECT_FALSE(r.error->connectionLost);
}

// A total timeout bounds the whole request, as Go's http.Client.Timeout: a response dripping a byte at a
// time never trips the idle timeout, but is cut off at the total one.
TEST(HttpTransportTest, TotalTimeoutEndsADrippingResponse) {
  TestHttpServer server([](const TestRequest&, ResponseWriter& w) {
    w.start(200);
    for (int i = 0; i < 12 && w.chunk("x"); ++i) std::this_thread::sleep_for(50ms);
    w.end();
  });
  auto t = transportFor(server.url(), 10s);
  auto send = [&](std::chrono::milliseconds total) {
    Response r;
    HttpRequest req;
    req.method = "GET";
    req.target = "/drip";
    req.totalTimeout = total;
    auto done = t->roundTrip(
        req, [&](const HttpHead& h) { r.status = h.status; },
        [&](std::string_view b) {
          r.body.append(b);
          return true;
        });
    if (!done.ok()) r.error = done.error();
    return r;
  };
  const auto start = std::chrono::steady_clock::now();
  Response cut = send(200ms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 450ms);
  ASSERT_TRUE(cut.error);
  EXPECT_EQ(cut.error->message, "read: i/o timeout");
  EXPECT_TRUE(cut.error->timedOut);
  EXPECT_FALSE(cut.error->connectionLost);
  EXPECT_EQ(cut.status, 200);
  EXPECT_FALSE(cut.body.empty()) << "what arrived before the timeout was delivered";
  EXPECT_LT(cut.body.size(), 12u);
  EXPECT_EQ(t->idleConnections(), 0u) << "the cut-off connection is dropped";

  // Without it the idle timeout bounds each read only, and the whole body arrives; the connection (now
  // blocking again) is reused for one with a total timeout long enough.
  Response whole = send(0ms);
  ASSERT_FALSE(whole.error) << whole.error->message;
  EXPECT_EQ(whole.body, std::string(12, 'x'));
  Response inTime = send(5000ms);
  ASSERT_FALSE(inTime.error) << inTime.error->message;
  EXPECT_EQ(inTime.body, std::string(12, 'x'));
  EXPECT_EQ(server.connectionCount(), 2u);
}

TEST(HttpTransportTest, RefusedConnectionCannotHaveBeenSent) {
  uint16_t port;
  {
    TestHttpServer s([](const TestRequest&, ResponseWriter&) {});
    port = s.port();
  }
  auto t = transportFor("http://127.0.0.1:" + std::to_string(port));
  Response r = get(*t, "/x");
  ASSERT_TRUE(r.error);
  EXPECT_FALSE(r.error->mayHaveBeenSent);
  EXPECT_NE(r.error->message.find("connection refused"), std::string::npos) << r.error->message;
}

// A raw server that answers each connection with `reply` and closes it.
class RawServer {
 public:
  explicit RawServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)::recv(c, buf, sizeof buf, 0);
      (void)::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
      ::close(c);
    });
  }
  ~RawServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::string reply_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(HttpTransportTest, MalformedResponsesAreErrorsNotCrashes) {
  for (const std::string& reply :
       {std::string("garbage\r\n\r\n"), std::string("HTTP/1.1 2x0 OK\r\n\r\n"),
        std::string("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"),
        std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        std::string("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope"),
        std::string("")}) {
    RawServer raw(reply);
    auto t = transportFor(raw.url());
    Response r = get(*t, "/x");
    EXPECT_TRUE(r.error) << "reply: " << reply;
  }
  // Binary (a TLS record to a plain client, say) is quoted with escapes: the message stays valid UTF-8.
  {
    RawServer binary(std::string("\x16\x03\xba\"q\r\n\r\n"));
    auto t = transportFor(binary.url());
    Response r = get(*t, "/x");
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->message, "malformed HTTP response: status line \"\\x16\\x03\\xba\\\"q\"");
  }
  RawServer untilEof("HTTP/1.0 200 OK\r\n\r\nbody to the end");
  auto t = transportFor(untilEof.url());
  Response r = get(*t, "/x");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.body, "body to the end");
  EXPECT_EQ(t->idleConnections(), 0u);
}

TEST(HttpTransportTest, BadServerUrls) {
  for (const char* url : {"ftp://x", "https://", "http://h:99999", "http://[::1"}) {
    HttpTransport::Options o;
    o.server = url;
    EXPECT_FALSE(HttpTransport::create(o).ok()) << url;
  }
}

}  // namespace
}  // namespace ks::client::rest
