#include "test/integration/harness/extender_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>

namespace ks::integration {

using json = nlohmann::json;

ExtenderServer::ExtenderServer(Handler handler, std::optional<Tls> tls) : handler_(std::move(handler)) {
  ::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(2): a client gone must not kill the test
  if (tls) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    EXPECT_EQ(SSL_CTX_use_certificate_chain_file(ctx_, tls->certFile.c_str()), 1);
    EXPECT_EQ(SSL_CTX_use_PrivateKey_file(ctx_, tls->keyFile.c_str(), SSL_FILETYPE_PEM), 1);
    EXPECT_EQ(SSL_CTX_load_verify_locations(ctx_, tls->clientCaFile.c_str(), nullptr), 1);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::listen(fd_, 64), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { acceptLoop(); });
}

ExtenderServer::~ExtenderServer() {
  stopping_ = true;
  ::shutdown(fd_, SHUT_RDWR);
  acceptor_.join();
  {
    std::lock_guard lock(mu_);
    for (int c : conns_) ::shutdown(c, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
  ::close(fd_);
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

std::string ExtenderServer::url() const {
  return std::string(ctx_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

int ExtenderServer::calls(const std::string& verb) const {
  std::lock_guard lock(mu_);
  auto it = calls_.find(verb);
  return it == calls_.end() ? 0 : it->second;
}

void ExtenderServer::acceptLoop() {
  while (!stopping_) {
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    connections_++;
    std::lock_guard lock(mu_);
    conns_.push_back(c);
    threads_.emplace_back([this, c] { serve(c); });
  }
}

void ExtenderServer::serve(int c) {
  SSL* ssl = nullptr;
  if (ctx_ != nullptr) {
    ssl = SSL_new(ctx_);
    SSL_set_fd(ssl, c);
    if (SSL_accept(ssl) != 1) {
      SSL_free(ssl);
      ::close(c);
      return;
    }
  }
  auto readSome = [&](char* buf, int n) { return ssl ? SSL_read(ssl, buf, n) : static_cast<int>(::recv(c, buf, n, 0)); };
  auto writeAll = [&](const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      const int n = ssl ? SSL_write(ssl, s.data() + off, static_cast<int>(s.size() - off))
                        : static_cast<int>(::send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL));
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  };
  std::string in;
  char buf[16384];
  while (!stopping_) {
    size_t headEnd;
    while ((headEnd = in.find("\r\n\r\n")) == std::string::npos) {
      const int n = readSome(buf, sizeof buf);
      if (n <= 0) goto done;
      in.append(buf, static_cast<size_t>(n));
    }
    {
      const std::string head = in.substr(0, headEnd);
      size_t contentLength = 0;
      std::string lower = head;
      for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (auto p = lower.find("content-length:"); p != std::string::npos) {
        contentLength = std::stoul(head.substr(p + 15));
      }
      while (in.size() < headEnd + 4 + contentLength) {
        const int n = readSome(buf, sizeof buf);
        if (n <= 0) goto done;
        in.append(buf, static_cast<size_t>(n));
      }
      const std::string body = in.substr(headEnd + 4, contentLength);
      in.erase(0, headEnd + 4 + contentLength);
      const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
      std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
      const std::string verb = path.substr(path.rfind('/') + 1);
      {
        std::lock_guard lock(mu_);
        calls_[verb]++;
      }
      const json answer = handler_(verb, json::parse(body, nullptr, false));
      const std::string out = answer.dump();
      writeAll("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(out.size()) +
               "\r\n\r\n" + out);
    }
  }
done:
  if (ssl != nullptr) SSL_free(ssl);
  ::close(c);
}

}  // namespace ks::integration
