#pragma once
// RequestMetrics: what the REST client reports about its requests, as client-go's tools/metrics hooks
// (rest/request.go and with_retry.go call them; component-base turns them into rest_client_* metrics).
// The client knows nothing about Prometheus: the daemon implements this on its registry.
//
// Labels as upstream: `verb` / `method` is the HTTP method ("GET", "POST", ...), `host` the server URL's
// host[:port] as written in the config (Go's url.URL.Host), `code` the status code ("201") or "<error>"
// when no response arrived.
//
// When each is called (client-go v0.34):
//   - rateLimiterLatency: every throttled attempt (the first and each retry), with the time spent waiting
//     for a token. Watches are not throttled and report none.
//   - requestResult: every attempt, on the final status (a watch: once its response headers arrived).
//   - requestRetry: attempts 2..N only.
//   - requestSize: every attempt of a non-watch request (0 without a body).
//   - responseSize: once per non-watch request, the final response body's length.
//   - requestLatency: once per non-watch request, from the call to its end, retries and throttling included.
//     Watches report none (client-go's Watch does not go through Request.request).
// Called on the thread that made the request (the transport has no threads of its own); implementations must be
// thread-safe and cheap.

#include <string_view>

namespace ks::client::rest {

class RequestMetrics {
 public:
  virtual ~RequestMetrics() = default;
  virtual void rateLimiterLatency(std::string_view verb, std::string_view host, double seconds) = 0;
  virtual void requestLatency(std::string_view verb, std::string_view host, double seconds) = 0;
  virtual void requestSize(std::string_view verb, std::string_view host, double bytes) = 0;
  virtual void responseSize(std::string_view verb, std::string_view host, double bytes) = 0;
  virtual void requestResult(std::string_view code, std::string_view method, std::string_view host) = 0;
  virtual void requestRetry(std::string_view code, std::string_view verb, std::string_view host) = 0;
};

// Go's url.URL.Host of `server` ("https://127.0.0.1:6443/prefix" -> "127.0.0.1:6443"): what lies between
// "://" and the next '/', '?' or '#', without userinfo.
std::string_view urlHost(std::string_view server);

}  // namespace ks::client::rest
