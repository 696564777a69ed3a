#pragma once
// A blocking HTTP/1.1 client for RestClient: each request runs on the calling thread over a pooled
// keep-alive connection (plain TCP or TLS through one SSL_CTX per transport).
//
// Why not cpprestsdk: its asio + pplx machinery moved every request across three threads (caller, I/O
// pool, continuation pool). In the e2e benchmark those threads were a third of the daemon's CPU and
// most of its context switches, for a client that only ever waits for the answer.
//
// Semantics kept from the cpprest transport it replaces:
//  - the idle timeout bounds each read and write, not the whole request (watches and lists stream);
//    a request may ask for a total deadline instead (HttpRequest::totalTimeout, Go's http.Client.Timeout);
//  - a request whose reused pooled connection turns out dead before any byte of the response arrived
//    is sent once more on a fresh connection (the server most likely closed the idle connection);
//  - "connection refused" is the one transport error after which the request cannot have been sent.
//
// The idle pool follows client-go's transport (Go's http.Transport): the most recently used connection is
// reused first, at most 25 stay idle (MaxIdleConnsPerHost) and one idle for 90 s is closed
// (IdleConnTimeout; the apiserver closes it after 90 s too). Without the expiry, connections opened in a
// burst sank below the busy ones and held their TLS state until the pool's cap: the soak grew that way.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/result.h"

namespace ks::client::rest {

class TlsMaterial;

struct TransportError {
  std::string message;
  bool mayHaveBeenSent = true;  // false: the connection was refused
  bool connectionLost = false;  // EOF, reset or broken pipe (not a timeout or a malformed response)
  bool timedOut = false;        // the idle timeout, the dial timeout or the request's total timeout ran out
};

struct HttpHead {
  int32_t status = 0;
  std::string retryAfter;   // the Retry-After header, if any
  std::string contentType;  // the Content-Type header, if any
};

struct HttpRequest {
  std::string_view method;
  std::string_view target;  // path?query, appended to the server URL's path
  std::vector<std::pair<std::string, std::string>> headers;
  const std::string* body = nullptr;
  std::string_view contentType;  // with a body
  // Not from the pool and not returned to it, with its own idle timeout (a watch).
  bool dedicatedConnection = false;
  std::chrono::milliseconds idleTimeout{0};  // 0: the transport's
  // > 0: the whole request — dial, TLS handshake, writing it, the head and the whole body — must end within
  // this (Go's http.Client.Timeout), however the peer paces its bytes; the idle timeout is then not used.
  std::chrono::milliseconds totalTimeout{0};
};

class HttpTransport {
 public:
  struct Options {
    std::string server;  // http(s)://host[:port][/path]
    std::shared_ptr<const TlsMaterial> tls;
    bool insecureSkipTlsVerify = false;
    // The name sent as SNI and verified in the server's certificate instead of the URL's host (client-go's
    // TLSClientConfig.ServerName).
    std::string serverName;
    std::chrono::milliseconds idleTimeout{60000};
    std::chrono::milliseconds dialTimeout{30000};  // Go's net.Dialer in client-go's transport
    size_t maxIdleConnections = 25;        // client-go's MaxIdleConnsPerHost
    std::chrono::seconds maxIdleTime{90};  // Go's IdleConnTimeout; checked whenever the pool is used
    std::function<std::chrono::steady_clock::time_point()> now;  // the pool's clock (tests); steady_clock
  };
  // Fails on a URL it cannot use or TLS material OpenSSL refuses.
  static Result<std::unique_ptr<HttpTransport>> create(Options options);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Sends `request` and reads the response on this thread: `onHead` once the status line and headers
  // are in, then `onBody` with each piece of the body as it arrives (de-chunked, gunzipped). onBody
  // returns false to stop reading (the connection is then dropped). Once `stop` is requested a blocked
  // read ends and the call returns success with whatever was delivered. Thread-safe.
  Result<void, TransportError> roundTrip(const HttpRequest& request,
                                         const std::function<void(const HttpHead&)>& onHead,
                                         const std::function<bool(std::string_view)>& onBody,
                                         std::stop_token stop = {});

  // Connections idle in the pool (for tests).
  size_t idleConnections() const;

 private:
  struct State;
  explicit HttpTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ks::client::rest
