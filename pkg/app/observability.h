#pragma once
// What the daemon tells about itself: kubernetes_build_info's labels, client-go's default user agent, and
// the adapter that feeds the REST clients' observations into the rest_client_* metrics.

#include <string>
#include <string_view>

#include "pkg/client/rest/request_metrics.h"
#include "pkg/scheduler/metrics/component_metrics.h"

namespace ks::app {

// kubernetes_build_info's labels for this binary. Where upstream reports Kubernetes' version we report
// ours (major/minor/git_version from KS_VERSION: "0", "1", "v0.1.0"); git_commit and git_tree_state come
// from `git rev-parse HEAD` / `git status` at CMake configure time ("" outside a checkout); build_date is
// the Unix epoch (as an upstream binary built without -ldflags: reproducible builds); where Go's
// go_version and compiler ("go1.24.x", "gc") go we put the C++ compiler ("gcc 12.2.0", "gcc"); platform
// is GOOS/GOARCH-style ("linux/amd64").
metrics::BuildInfo buildInfo();

// client-go's DefaultKubernetesUserAgent in our words: "kube-scheduler-cpp/v0.1.0 (linux/amd64)
// kubernetes/<first 7 of the commit, or unknown>". `suffix`, when given, is appended after a '/' as
// rest.AddUserAgent does ("scheduler", "leader-election").
std::string userAgent(std::string_view suffix = {});

// rest_client_* on ComponentMetrics.
class RestClientMetricsAdapter final : public client::rest::RequestMetrics {
 public:
  explicit RestClientMetricsAdapter(metrics::ComponentMetrics& m) : m_(m) {}
  void rateLimiterLatency(std::string_view verb, std::string_view host, double seconds) override {
    m_.restClientRateLimiterLatency(verb, host, seconds);
  }
  void requestLatency(std::string_view verb, std::string_view host, double seconds) override {
    m_.restClientRequestLatency(verb, host, seconds);
  }
  void requestSize(std::string_view verb, std::string_view host, double bytes) override {
    m_.restClientRequestSize(verb, host, bytes);
  }
  void responseSize(std::string_view verb, std::string_view host, double bytes) override {
    m_.restClientResponseSize(verb, host, bytes);
  }
  void requestResult(std::string_view code, std::string_view method, std::string_view host) override {
    m_.restClientRequestResult(code, method, host);
  }
  void requestRetry(std::string_view code, std::string_view verb, std::string_view host) override {
    m_.restClientRequestRetry(code, verb, host);
  }

 private:
  metrics::ComponentMetrics& m_;
};

}  // namespace ks::app
