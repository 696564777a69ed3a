#pragma once
// A small scheduler-extender server for integration tests (issue 32): HTTP/1.1 on 127.0.0.1 (an ephemeral
// port), POST /<verb> with a JSON body answered by a handler, keep-alive, one thread per connection; TLS
// requiring a client certificate signed by `clientCaFile` when given a certificate. Used by the daemon's
// extender test and by the differential test's extender mode.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

typedef struct ssl_ctx_st SSL_CTX;

namespace ks::integration {

class ExtenderServer {
 public:
  // Called concurrently from the connection threads.
  using Handler = std::function<nlohmann::json(const std::string& verb, const nlohmann::json& args)>;
  struct Tls {
    std::string certFile, keyFile, clientCaFile;
  };

  // Fails the current test (gtest) when the socket or the TLS context cannot be set up.
  explicit ExtenderServer(Handler handler, std::optional<Tls> tls = std::nullopt);
  ~ExtenderServer();
  ExtenderServer(const ExtenderServer&) = delete;
  ExtenderServer& operator=(const ExtenderServer&) = delete;

  // http(s)://127.0.0.1:<port>
  std::string url() const;
  // Calls per verb so far.
  int calls(const std::string& verb) const;
  // Connections accepted so far.
  int connections() const { return connections_.load(); }

 private:
  void acceptLoop();
  void serve(int c);

  Handler handler_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<int> conns_;
  std::vector<std::thread> threads_;
  std::map<std::string, int> calls_;
};

}  // namespace ks::integration
