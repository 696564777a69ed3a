#pragma once
// ComponentMetrics: what upstream kube-scheduler's /metrics and /metrics/slis show besides the scheduler_*
// metrics, i.e. what its libraries register (k8s.io/component-base, client-go, client_golang):
//
//   rest_client_requests_total{code,host,method}, rest_client_request_retries_total{code,host,verb},
//   rest_client_request_duration_seconds / rest_client_rate_limiter_duration_seconds{host,verb},
//   rest_client_request_size_bytes / rest_client_response_size_bytes{host,verb}   (client-go hooks)
//   kubernetes_build_info{major,minor,git_version,git_commit,git_tree_state,build_date,go_version,
//     compiler,platform}, kubernetes_feature_enabled{name,stage}
//   registered_metrics_total{stability_level,deprecated_version}, disabled_metrics_total,
//   hidden_metrics_total, cardinality_enforcement_unexpected_categorizations_total  (meta metrics)
//   process_* (process_collector.h)
//   /metrics/slis: kubernetes_healthcheck{name,type}, kubernetes_healthchecks_total{name,status,type},
//     process_start_time_seconds
//
// Left out, because nothing of ours can produce them: rest_client_dns_resolution_duration_seconds (the
// transport resolves with getaddrinfo and does not time it), rest_client_exec_plugin_* (no exec
// credential plugins), rest_client_transport_* (no transport cache), go_* (no Go runtime), version_info, workqueue_*, apiserver_*
// (upstream's libraries register them without the scheduler using them).
//
// The metrics options (component-base's --disabled-metrics, --allow-metric-labels[-manifest],
// --show-hidden-metrics-for-version) apply to every metric with a stability level (not to process_*,
// which upstream registers raw): a disabled metric is not exposed; a label value outside its allow-list
// reads "unexpected" (series that become equal are merged). None of our metrics is hidden (deprecated),
// so showHiddenMetricsForVersion, once validated, changes nothing. registered_metrics_total counts the
// metrics exposed so far (prometheus-cpp lists a family only once it has a series), where upstream counts
// them at registration.
//
// Thread-safe: observations come from client threads, health checks from server threads, scrapes from
// server threads.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/field.h"
#include "pkg/util/result.h"

namespace ks::metrics {

class Metrics;

struct BuildInfo {
  std::string major, minor, gitVersion, gitCommit, gitTreeState, buildDate, goVersion, compiler, platform;
};

struct FeatureState {
  std::string name;
  std::string stage;  // "ALPHA", "BETA", "DEPRECATED", "" for GA
  bool enabled = false;
};

// metric name -> label name -> allowed values.
using LabelAllowList = std::map<std::string, std::map<std::string, std::set<std::string>>>;

struct MetricsOptions {
  std::set<std::string> disabledMetrics;
  LabelAllowList allowLabels;
  std::string showHiddenMetricsForVersion;
};

// component-base's metrics/api/v1 MetricsConfiguration: what the Metrics flags set.
struct MetricsConfiguration {
  std::string showHiddenMetricsForVersion;   // --show-hidden-metrics-for-version
  std::vector<std::string> disabledMetrics;  // --disabled-metrics
  // --allow-metric-labels: "metric,label" -> "value,value"; set when given (it wins over the manifest).
  std::optional<std::map<std::string, std::string>> allowListMapping;
  std::string allowListMappingManifest;  // --allow-metric-labels-manifest
};

// component-base's v1.Validate for a binary of version major.minor, under `path` ("metrics"): the errors in
// upstream's order (show-hidden version, disabled names, allow-list keys, the manifest, both lists given).
api::FieldErrorList validateMetricsConfiguration(const MetricsConfiguration& c, uint64_t major, uint64_t minor,
                                                 std::string_view path);

// Reads an allow-list manifest as component-base does (yaml.v2 into map[string]string: scalars as their
// text, null as ""); errors read as Go's ("open <path>: no such file or directory", "yaml: unmarshal
// errors:\n  line 1: cannot unmarshal !!seq into map[string]string"). Syntax errors carry yaml-cpp's wording
// after upstream's "yaml: line N: " prefix.
Result<std::map<std::string, std::string>> readAllowListManifest(const std::string& path);

// Parses component-base's allow-list mapping ({"metric,label": "v1,v2"}); keys must read
// <metricName>,<labelName> (validateMetricsConfiguration reports those that do not).
Result<LabelAllowList> parseLabelAllowList(const std::map<std::string, std::string>& mapping);

class ComponentMetrics {
 public:
  explicit ComponentMetrics(MetricsOptions options = {});
  ~ComponentMetrics();
  ComponentMetrics(const ComponentMetrics&) = delete;
  ComponentMetrics& operator=(const ComponentMetrics&) = delete;

  // ---- client-go's rest client hooks (see client/rest/request_metrics.h) ----
  void restClientRateLimiterLatency(std::string_view verb, std::string_view host, double seconds);
  void restClientRequestLatency(std::string_view verb, std::string_view host, double seconds);
  void restClientRequestSize(std::string_view verb, std::string_view host, double bytes);
  void restClientResponseSize(std::string_view verb, std::string_view host, double bytes);
  void restClientRequestResult(std::string_view code, std::string_view method, std::string_view host);
  void restClientRequestRetry(std::string_view code, std::string_view verb, std::string_view host);

  void setBuildInfo(const BuildInfo& info);
  // kubernetes_feature_enabled: one series per gate, 1 when enabled.
  void setFeatures(const std::vector<FeatureState>& features);

  // component-base slis.ObserveHealthcheck: `type` is "healthz", "livez" or "readyz".
  void observeHealthcheck(std::string_view name, std::string_view type, bool success);

  // /metrics: `scheduler`'s metrics (may be null), these, the meta metrics and process_*.
  std::string scrape(const Metrics* scheduler) const;
  // /metrics/slis.
  std::string scrapeSlis() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ks::metrics
