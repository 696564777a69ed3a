#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1:<ephemeral port> for REST client tests: one thread per
// connection, keep-alive, Content-Length request bodies, fixed or chunked (streamed) responses.
// Records every request.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ks::client::rest::testing {

struct TestRequest {
  std::string method;
  std::string target;  // path?query as sent
  std::string path;
  std::map<std::string, std::string> query;    // decoded
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& lowerName) const {
    auto it = headers.find(lowerName);
    return it == headers.end() ? "" : it->second;
  }
};

class ResponseWriter {
 public:
  ResponseWriter(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  // A complete response with Content-Length (Content-Type application/json unless `headers` has one).
  void send(int status, const std::string& body,
            const std::vector<std::pair<std::string, std::string>>& headers = {});
  // Chunked streaming: start(), then chunk() any number of times, then end() (Content-Type as send()).
  void start(int status, const std::vector<std::pair<std::string, std::string>>& headers = {});
  bool chunk(const std::string& data);  // false once the peer is gone
  void end();
  // Bytes sent as they are (a head written piece by piece, say); false once the peer is gone.
  bool raw(const std::string& bytes) { return writeAll(bytes); }
  // Blocks until the client closes the connection (or the server stops, or `timeoutMs`); returns
  // true when the client closed it.
  bool waitForPeerClose(int timeoutMs);
  // Drops the connection without a response (a transport error for the client).
  void abort();
  bool responded() const { return responded_; }
  bool aborted() const { return aborted_; }

 private:
  bool writeAll(const std::string& data);
  int fd_;
  const std::atomic<bool>& stopping_;
  bool responded_ = false;
  bool aborted_ = false;
};

using Handler = std::function<void(const TestRequest&, ResponseWriter&)>;

class TestHttpServer {
 public:
  explicit TestHttpServer(Handler handler);
  ~TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<TestRequest> requests() const;
  size_t requestCount() const;
  size_t connectionCount() const;  // accepted so far

 private:
  void acceptLoop();
  void serve(int fd);

  Handler handler_;
  int listenFd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptThread_;
  mutable std::mutex mu_;
  std::vector<std::thread> connThreads_;
  std::vector<int> connFds_;
  std::vector<TestRequest> requests_;
};

// One JSON line of a watch stream.
std::string watchLine(const std::string& type, const std::string& objectJson);

}  // namespace ks::client::rest::testing
