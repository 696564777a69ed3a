#include "test/client/rest/test_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ks::client::rest::testing {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string urlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

const char* reasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

}  // namespace

bool ResponseWriter::writeAll(const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

void ResponseWriter::send(int status, const std::string& body,
                          const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\n";
  bool haveType = false;
  for (const auto& [k, v] : headers) {
    out += k + ": " + v + "\r\n";
    haveType = haveType || lower(k) == "content-type";
  }
  if (!haveType) out += "Content-Type: application/json\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  writeAll(out);
  responded_ = true;
}

void ResponseWriter::start(int status, const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\n";
  bool haveType = false;
  for (const auto& [k, v] : headers) {
    out += k + ": " + v + "\r\n";
    haveType = haveType || lower(k) == "content-type";
  }
  if (!haveType) out += "Content-Type: application/json\r\n";
  out += "Transfer-Encoding: chunked\r\n\r\n";
  writeAll(out);
  responded_ = true;
}

bool ResponseWriter::chunk(const std::string& data) {
  if (data.empty()) return true;
  char len[32];
  std::snprintf(len, sizeof len, "%zx\r\n", data.size());
  return writeAll(len + data + "\r\n");
}

void ResponseWriter::end() {
  writeAll("0\r\n\r\n");
}

bool ResponseWriter::waitForPeerClose(int timeoutMs) {
  int waited = 0;
  while (waited < timeoutMs && !stopping_) {
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, 20);
    waited += 20;
    if (r > 0) {
      char buf[256];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN)) return true;
    }
  }
  return false;
}

void ResponseWriter::abort() {
  linger l{1, 0};  // RST
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::shutdown(fd_, SHUT_RDWR);
  aborted_ = true;
  responded_ = true;
}

TestHttpServer::TestHttpServer(Handler handler) : handler_(std::move(handler)) {
  listenFd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listenFd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listenFd_, 64) != 0) {
    throw std::runtime_error(std::string("test server: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listenFd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptThread_ = std::thread([this] { acceptLoop(); });
}

TestHttpServer::~TestHttpServer() {
  stopping_ = true;
  ::shutdown(listenFd_, SHUT_RDWR);
  ::close(listenFd_);
  acceptThread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    for (int fd : connFds_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(connThreads_);
  }
  for (auto& t : threads) t.join();
  for (int fd : connFds_) ::close(fd);
}

std::vector<TestRequest> TestHttpServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

size_t TestHttpServer::connectionCount() const {
  std::lock_guard lock(mu_);
  return connThreads_.size();
}

size_t TestHttpServer::requestCount() const {
  std::lock_guard lock(mu_);
  return requests_.size();
}

void TestHttpServer::acceptLoop() {
  while (!stopping_) {
    const int fd = ::accept(listenFd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard lock(mu_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    connFds_.push_back(fd);
    connThreads_.emplace_back([this, fd] { serve(fd); });
  }
}

void TestHttpServer::serve(int fd) {
  std::string buf;
  char tmp[65536];
  while (!stopping_) {
    size_t headerEnd;
    while ((headerEnd = buf.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return;  // the destructor closes fd
      buf.append(tmp, static_cast<size_t>(n));
    }
    TestRequest req;
    const std::string head = buf.substr(0, headerEnd);
    buf.erase(0, headerEnd + 4);
    size_t lineEnd = head.find("\r\n");
    const std::string requestLine = head.substr(0, lineEnd);
    const size_t sp1 = requestLine.find(' ');
    const size_t sp2 = requestLine.find(' ', sp1 + 1);
    req.method = requestLine.substr(0, sp1);
    req.target = requestLine.substr(sp1 + 1, sp2 - sp1 - 1);
    const size_t q = req.target.find('?');
    req.path = req.target.substr(0, q);
    if (q != std::string::npos) {
      std::string_view qs(req.target);
      qs.remove_prefix(q + 1);
      while (!qs.empty()) {
        const size_t amp = qs.find('&');
        std::string_view kv = qs.substr(0, amp);
        const size_t eq = kv.find('=');
        req.query[urlDecode(kv.substr(0, eq))] =
            eq == std::string_view::npos ? "" : urlDecode(kv.substr(eq + 1));
        if (amp == std::string_view::npos) break;
        qs.remove_prefix(amp + 1);
      }
    }
    size_t pos = lineEnd == std::string::npos ? head.size() : lineEnd + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      const std::string line = head.substr(pos, e - pos);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
        req.headers[lower(line.substr(0, colon))] = v;
      }
      pos = e + 2;
    }
    const size_t contentLength =
        req.headers.count("content-length") ? std::stoul(req.headers["content-length"]) : 0;
    while (buf.size() < contentLength) {
      const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return;  // the destructor closes fd
      buf.append(tmp, static_cast<size_t>(n));
    }
    req.body = buf.substr(0, contentLength);
    buf.erase(0, contentLength);
    {
      std::lock_guard lock(mu_);
      requests_.push_back(req);
    }
    ResponseWriter w(fd, stopping_);
    handler_(req, w);
    if (!w.responded())
      w.send(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})");
    if (w.aborted()) return;
  }
}

std::string watchLine(const std::string& type, const std::string& objectJson) {
  return R"({"type":")" + type + R"(","object":)" + objectJson + "}\n";
}

}  // namespace ks::client::rest::testing
