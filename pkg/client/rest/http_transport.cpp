#include "pkg/client/rest/http_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>

#include "pkg/client/rest/http_response.h"
#include "pkg/client/rest/tls.h"

namespace ks::client::rest {

namespace {

using Fail = TransportError;
using Clock = std::chrono::steady_clock;
using Deadline = std::optional<Clock::time_point>;

Fail timeoutFailure(const std::string& what) {
  Fail f{what + ": i/o timeout"};
  f.timedOut = true;
  return f;
}

std::string sslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// Lower-case, as Go words them ("connect: connection refused").
std::string errnoText(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// OpenSSL writes with write(2): a peer gone away must give EPIPE, not kill the process. SIGPIPE is
// thread-directed, so blocking it once per calling thread is enough.
void blockSigpipeOnThisThread() {
  thread_local bool blocked = false;
  if (blocked) return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  blocked = true;
}

bool isIpLiteral(const std::string& host) {
  in6_addr a6;
  in_addr a4;
  return inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1;
}

void setIoTimeout(int fd, std::chrono::milliseconds t) {
  timeval tv{static_cast<time_t>(t.count() / 1000), static_cast<suseconds_t>((t.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A TCP connection, with TLS on top when ssl_ is set.
class Connection final : public ByteSource {
 public:
  Connection(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Connection() override {
    if (ssl_ != nullptr) SSL_free(ssl_);
    ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void setIdleTimeout(std::chrono::milliseconds t) {
    if (t == timeout_) return;
    setIoTimeout(fd_, t);
    timeout_ = t;
  }

  // With a deadline the socket is non-blocking and every read, write and handshake step waits in poll()
  // for at most what is left until it, so a peer dripping bytes (even inside one TLS record) cannot
  // stretch the request past it. Without one: blocking I/O, each call bounded by the idle timeout.
  void setDeadline(Deadline d) {
    if (d.has_value() != deadline_.has_value()) {
      const int flags = ::fcntl(fd_, F_GETFL);
      ::fcntl(fd_, F_SETFL, d.has_value() ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
    }
    deadline_ = d;
  }

  // Under a deadline, after an I/O call that would block: waits in poll() until the socket is ready for
  // `events` (true: call again) or the deadline has passed (false).
  bool waitUntilReady(short events) {
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, events, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, INT_MAX)));
      if (n > 0 || (n < 0 && errno != EINTR)) return true;  // the I/O call tells what happened
    }
  }

  // What an SSL call that returned `ret` waits for under a deadline (POLLIN / POLLOUT), or 0: it failed
  // (or there is no deadline, and a blocking call does not ask to wait).
  short sslWants(int ret) const {
    if (!deadline_) return 0;
    const int e = SSL_get_error(ssl_, ret);
    return e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
  }

  // The TLS handshake (under the deadline, if any).
  enum class Handshake { Done, Failed, TimedOut };
  Handshake handshake() {
    for (;;) {
      ERR_clear_error();
      errno = 0;
      const int rc = SSL_connect(ssl_);
      if (rc == 1) return Handshake::Done;
      const short want = sslWants(rc);
      if (want == 0) return Handshake::Failed;
      if (!waitUntilReady(want)) return Handshake::TimedOut;
    }
  }

  Result<void, Fail> writeAll(std::string_view data) {
    while (!data.empty()) {
      ssize_t n;
      if (ssl_ != nullptr) {
        ERR_clear_error();
        errno = 0;
        n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1u << 30)));
        if (n <= 0) {
          const short want = sslWants(static_cast<int>(n));
          if (want == 0) return ioFailure("write", static_cast<int>(n));
          if (!waitUntilReady(want)) return timeoutFailure("write");
          continue;
        }
      } else {
        n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN && deadline_) {
            if (!waitUntilReady(POLLOUT)) return timeoutFailure("write");
            continue;
          }
          return lost("write", errno);
        }
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return {};
  }

  // Bytes read (0 at the end of the stream).
  Result<size_t, Fail> readSome(char* buf, size_t cap) override {
    for (;;) {
      if (ssl_ != nullptr) {
        ERR_clear_error();
        errno = 0;
        const int n = SSL_read(ssl_, buf, static_cast<int>(cap));
        if (n > 0) return static_cast<size_t>(n);
        const int e = SSL_get_error(ssl_, n);
        if (e == SSL_ERROR_ZERO_RETURN) return size_t{0};
        if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno == 0) return size_t{0};  // EOF
        const short want = sslWants(n);
        if (want == 0) return ioFailure("read", n);
        if (!waitUntilReady(want)) return timeoutFailure("read");
        continue;
      }
      const ssize_t n = ::recv(fd_, buf, cap, 0);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      if (errno == EAGAIN && deadline_) {
        if (!waitUntilReady(POLLIN)) return timeoutFailure("read");
        continue;
      }
      return lost("read", errno);
    }
  }

  // An idle pooled connection that is readable has been closed by the server (or holds junk).
  bool closedWhileIdle() const {
    if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;
  }

  // Ends a read or write blocked on another thread (stop requested).
  void interrupt() { ::shutdown(fd_, SHUT_RDWR); }

 private:
  static std::string socketErrorText(int err) {
    if (err == EAGAIN) return "i/o timeout";  // SO_RCVTIMEO / SO_SNDTIMEO (EWOULDBLOCK is EAGAIN)
    return errnoText(err);
  }

  static Fail lost(const char* what, int err) {
    Fail f{std::string(what) + ": " + socketErrorText(err)};
    f.connectionLost = err == ECONNRESET || err == EPIPE || err == ECONNABORTED;
    f.timedOut = err == EAGAIN;
    return f;
  }

  Fail ioFailure(const char* what, int ret) {
    const int e = SSL_get_error(ssl_, ret);
    if (e == SSL_ERROR_SYSCALL && errno != 0) return lost(what, errno);
    if (e == SSL_ERROR_SYSCALL) {
      Fail f{std::string(what) + ": unexpected EOF"};
      f.connectionLost = true;
      return f;
    }
    return Fail{std::string(what) + ": " + sslError()};
  }

  int fd_;
  SSL* ssl_;
  std::chrono::milliseconds timeout_{-1};
  Deadline deadline_;
};

struct ParsedUrl {
  bool tls = false;
  std::string host;  // without IPv6 brackets
  std::string port;
  std::string basePath;  // no trailing '/'
};

Result<ParsedUrl> parseServer(const std::string& server) {
  ParsedUrl u;
  std::string_view rest(server);
  if (rest.starts_with("https://")) {
    u.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return Error("server: \"" + server + "\" is not an http(s) URL");
  }
  const size_t slash = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    path = path.substr(0, path.find_first_of("?#"));
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    u.basePath = std::string(path);
  }
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error("server: \"" + server + "\" is not a valid URL");
    u.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (authority.starts_with(":")) u.port = std::string(authority.substr(1));
  } else {
    const size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) u.port = std::string(authority.substr(colon + 1));
  }
  if (u.host.empty()) return Error("server: \"" + server + "\" has no host");
  if (u.port.empty()) u.port = u.tls ? "443" : "80";
  if (!std::all_of(u.port.begin(), u.port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      u.port.size() > 5 || std::stoi(u.port) > 65535) {
    return Error("server: \"" + server + "\" has an invalid port");
  }
  return u;
}

// A connected TCP socket (blocking, TCP_NODELAY) to one of host's addresses.
Result<int, Fail> dial(const ParsedUrl& u, std::chrono::milliseconds dialTimeout) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string where = "dial tcp " + u.host + ":" + u.port;
  if (int rc = ::getaddrinfo(u.host.c_str(), u.port.c_str(), &hints, &res); rc != 0) {
    return Fail{where + ": lookup " + u.host + ": " + gai_strerror(rc), false};
  }
  bool allRefused = true;
  bool timedOut = false;
  std::string lastError = "no address";
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      lastError = errnoText(errno);
      allRefused = false;
      continue;
    }
    int err = 0;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        const int n = ::poll(&p, 1, static_cast<int>(dialTimeout.count()));
        socklen_t len = sizeof err;
        if (n == 0) {
          err = ETIMEDOUT;
        } else if (n < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
          err = errno;
        }
      }
    }
    if (err == 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::freeaddrinfo(res);
      return fd;
    }
    ::close(fd);
    if (err != ECONNREFUSED) allRefused = false;
    timedOut = err == ETIMEDOUT;
    lastError = errnoText(err);
  }
  ::freeaddrinfo(res);
  Fail f{where + ": connect: " + lastError, !allRefused};
  f.timedOut = timedOut;
  return f;
}

}  // namespace

struct HttpTransport::State {
  struct IdleConnection {
    std::unique_ptr<Connection> connection;
    std::chrono::steady_clock::time_point since;
  };

  Options options;
  ParsedUrl url;
  SSL_CTX* ctx = nullptr;
  bool hostIsIp = false;
  mutable std::mutex mu;
  std::deque<IdleConnection> idle;  // guarded by mu; most recently used last, so oldest first

  ~State() {
    idle.clear();
    if (ctx != nullptr) SSL_CTX_free(ctx);
  }

  std::chrono::steady_clock::time_point now() const {
    return options.now ? options.now() : std::chrono::steady_clock::now();
  }

  // Moves out the connections idle for longer than maxIdleTime (a prefix: the pool is oldest first), to be
  // closed outside the lock.
  std::vector<std::unique_ptr<Connection>> takeExpiredLocked() {
    std::vector<std::unique_ptr<Connection>> expired;
    const auto oldestKept = now() - options.maxIdleTime;
    while (!idle.empty() && idle.front().since < oldestKept) {
      expired.push_back(std::move(idle.front().connection));
      idle.pop_front();
    }
    return expired;
  }

  std::unique_ptr<Connection> takeIdle() {
    std::vector<std::unique_ptr<Connection>> closing;  // declared before the lock: closed after its release
    std::lock_guard lock(mu);
    closing = takeExpiredLocked();
    while (!idle.empty()) {
      std::unique_ptr<Connection> c = std::move(idle.back().connection);
      idle.pop_back();
      if (!c->closedWhileIdle()) return c;
      closing.push_back(std::move(c));
    }
    return nullptr;
  }

  void putIdle(std::unique_ptr<Connection> c) {
    std::vector<std::unique_ptr<Connection>> closing;  // declared before the lock: closed after its release
    std::lock_guard lock(mu);
    closing = takeExpiredLocked();
    if (idle.size() < options.maxIdleConnections) idle.push_back({std::move(c), now()});
  }

  // A new connection; with a deadline, the dial and the TLS handshake end by it.
  Result<std::unique_ptr<Connection>, Fail> connect(std::chrono::milliseconds timeout, Deadline deadline) {
    std::chrono::milliseconds dialTimeout = options.dialTimeout;
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) return timeoutFailure("dial tcp " + url.host + ":" + url.port);
      dialTimeout = std::min(dialTimeout, left);
    }
    auto fd = dial(url, dialTimeout);
    if (!fd.ok()) return fd.error();
    setIoTimeout(*fd, timeout);
    if (ctx == nullptr) {
      auto c = std::make_unique<Connection>(*fd, nullptr);
      c->setIdleTimeout(timeout);
      c->setDeadline(deadline);
      return c;
    }
    SSL* ssl = SSL_new(ctx);
    if (ssl == nullptr) {
      ::close(*fd);
      return Fail{"tls: " + sslError(), false};
    }
    auto c = std::make_unique<Connection>(*fd, ssl);  // owns fd and ssl from here
    c->setIdleTimeout(timeout);
    SSL_set_fd(ssl, *fd);
    if (!options.serverName.empty()) {
      SSL_set_tlsext_host_name(ssl, options.serverName.c_str());
      SSL_set1_host(ssl, options.serverName.c_str());
    } else if (hostIsIp) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), url.host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, url.host.c_str());
      SSL_set1_host(ssl, url.host.c_str());
    }
    c->setDeadline(deadline);
    if (const auto h = c->handshake(); h != Connection::Handshake::Done) {
      if (h == Connection::Handshake::TimedOut) {
        return timeoutFailure("tls handshake with " + url.host + ":" + url.port);
      }
      const long verify = SSL_get_verify_result(ssl);
      std::string why = verify != X509_V_OK
                            ? std::string("failed to verify certificate: ") + X509_verify_cert_error_string(verify)
                            : (ERR_peek_error() != 0 ? sslError()
                                                     : (errno != 0 ? errnoText(errno) : "connection closed"));
      return Fail{"tls handshake with " + url.host + ":" + url.port + ": " + why, false};
    }
    return c;
  }
};

Result<std::unique_ptr<HttpTransport>> HttpTransport::create(Options options) {
  auto url = parseServer(options.server);
  if (!url.ok()) return url.error();
  auto s = std::make_unique<State>();
  s->url = std::move(url).value();
  s->hostIsIp = isIpLiteral(s->url.host);
  if (s->url.tls) {
    s->ctx = SSL_CTX_new(TLS_client_method());
    if (s->ctx == nullptr) return Error("tls: " + sslError());
    SSL_CTX_set_min_proto_version(s->ctx, TLS1_2_VERSION);  // Go's client default
    // A peer closing without close_notify ends the stream like a plain EOF (bodies are delimited anyway).
    SSL_CTX_set_options(s->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    static const unsigned char kAlpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(s->ctx, kAlpn, sizeof kAlpn);
    if (options.insecureSkipTlsVerify) {
      SSL_CTX_set_verify(s->ctx, SSL_VERIFY_NONE, nullptr);
    } else {
      SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER, nullptr);
      // System roots only without a CA of the config's own (applyTo then replaces the store).
      if (options.tls == nullptr || !options.tls->hasCa()) SSL_CTX_set_default_verify_paths(s->ctx);
    }
    if (options.tls != nullptr && !options.tls->applyTo(s->ctx))
      return Error("cannot install the TLS certificates: " + sslError());
  }
  s->options = std::move(options);
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(s)));
}

HttpTransport::HttpTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}
HttpTransport::~HttpTransport() = default;

size_t HttpTransport::idleConnections() const {
  std::lock_guard lock(state_->mu);
  return state_->idle.size();
}

namespace {

std::string requestBytes(const HttpRequest& req, const std::string& basePath, const std::string& hostHeader) {
  std::string out;
  out.reserve(256 + (req.body != nullptr ? req.body->size() : 0));
  out.append(req.method);
  out += ' ';
  out += basePath;
  out.append(req.target);
  out += " HTTP/1.1\r\nHost: ";
  out += hostHeader;
  out += "\r\n";
  for (const auto& [name, value] : req.headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (req.body != nullptr) {
    out += "Content-Type: ";
    out.append(req.contentType);
    out += "\r\nContent-Length: ";
    out += std::to_string(req.body->size());
    out += "\r\n\r\n";
    out += *req.body;
  } else {
    out += "\r\n";
  }
  return out;
}

}  // namespace

Result<void, TransportError> HttpTransport::roundTrip(const HttpRequest& request,
                                                      const std::function<void(const HttpHead&)>& onHead,
                                                      const std::function<bool(std::string_view)>& onBody,
                                                      std::stop_token stop) {
  State& s = *state_;
  blockSigpipeOnThisThread();
  const std::chrono::milliseconds timeout =
      request.idleTimeout.count() > 0 ? request.idleTimeout : s.options.idleTimeout;
  const bool ipv6 = s.url.host.find(':') != std::string::npos;
  const std::string hostHeader = (ipv6 ? "[" + s.url.host + "]" : s.url.host) +
                                 ((s.url.tls && s.url.port == "443") || (!s.url.tls && s.url.port == "80")
                                      ? ""
                                      : ":" + s.url.port);
  const std::string bytes = requestBytes(request, s.url.basePath, hostHeader);
  const Deadline deadline =
      request.totalTimeout.count() > 0 ? Deadline(Clock::now() + request.totalTimeout) : std::nullopt;
  for (int attempt = 0;; ++attempt) {
    if (stop.stop_requested()) return {};
    std::unique_ptr<Connection> conn;
    if (!request.dedicatedConnection && attempt == 0) conn = s.takeIdle();
    const bool reused = conn != nullptr;
    if (!conn) {
      auto c = s.connect(timeout, deadline);
      if (!c.ok()) return c.error();
      conn = std::move(c).value();
    }
    conn->setIdleTimeout(timeout);
    conn->setDeadline(deadline);
    Connection* raw = conn.get();
    std::optional<std::stop_callback<std::function<void()>>> onStop;
    onStop.emplace(stop, [raw] { raw->interrupt(); });

    size_t responseBytes = 0;
    bool headArrived = false;
    Result<bool, Fail> reusable = Fail{};
    auto sent = conn->writeAll(bytes);
    if (sent.ok()) {
      reusable = readResponse(
          *conn, request.method == "HEAD",
          [&](const HttpHead& h) {
            headArrived = true;
            onHead(h);
          },
          onBody, responseBytes);
    } else {
      reusable = sent.error();
    }
    if (stop.stop_requested()) return {};
    if (!reusable.ok()) {
      // A pooled connection the server had closed: nothing of a response came, so send once more.
      if (reused && !headArrived && responseBytes == 0 && reusable.error().connectionLost) continue;
      return reusable.error();
    }
    onStop.reset();  // before another thread can take the connection from the pool
    if (*reusable && !request.dedicatedConnection) s.putIdle(std::move(conn));
    return {};
  }
}

}  // namespace ks::client::rest
