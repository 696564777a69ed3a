#include "pkg/scheduler/metrics/component_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <mutex>
#include <regex>
#include <sstream>

#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/metrics/process_collector.h"
#include "pkg/scheduler/metrics/text_format.h"

namespace ks::metrics {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

const std::vector<double> kLatencyBuckets = {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0};
const std::vector<double> kSizeBuckets = {64,    256,    512,     1024,    4096,    16384,
                                          65536, 262144, 1048576, 4194304, 16777216};

constexpr std::string_view kAlpha = "[ALPHA] ";
constexpr std::string_view kBeta = "[BETA] ";
constexpr std::string_view kStable = "[STABLE] ";

std::string alpha(std::string_view text) {
  return std::string(kAlpha) + std::string(text);
}

prometheus::Labels verbHost(std::string_view verb, std::string_view host) {
  return {{"verb", std::string(verb)}, {"host", std::string(host)}};
}

// The stability level a HELP text was annotated with, or "" (raw-registered metrics such as process_*).
std::string_view stabilityOf(const std::string& help) {
  if (help.starts_with(kAlpha)) return "ALPHA";
  if (help.starts_with(kBeta)) return "BETA";
  if (help.starts_with(kStable)) return "STABLE";
  return "";
}

prometheus::MetricFamily counterFamily(std::string name, std::string help, double value) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = prometheus::MetricType::Counter;
  prometheus::ClientMetric m;
  m.counter.value = value;
  f.metric.push_back(std::move(m));
  return f;
}

// Series of one family that became equal after the allow-list rewrite are merged, as if recorded on one
// series (counters and histograms add up; for gauges the sum is the closest reading of "one series").
void mergeEqualSeries(prometheus::MetricFamily& f) {
  std::vector<prometheus::ClientMetric> merged;
  std::map<std::vector<prometheus::ClientMetric::Label>, size_t> index;
  for (auto& m : f.metric) {
    auto [it, inserted] = index.emplace(m.label, merged.size());
    if (inserted) {
      merged.push_back(std::move(m));
      continue;
    }
    auto& into = merged[it->second];
    into.counter.value += m.counter.value;
    into.gauge.value += m.gauge.value;
    into.untyped.value += m.untyped.value;
    into.histogram.sample_count += m.histogram.sample_count;
    into.histogram.sample_sum += m.histogram.sample_sum;
    for (size_t i = 0; i < into.histogram.bucket.size() && i < m.histogram.bucket.size(); ++i) {
      into.histogram.bucket[i].cumulative_count += m.histogram.bucket[i].cumulative_count;
    }
  }
  f.metric = std::move(merged);
}

}  // namespace

namespace {

constexpr std::string_view kLabelExpr = "[a-zA-Z_][a-zA-Z0-9_]*";
constexpr std::string_view kMetricNameExpr = "[a-zA-Z_:][a-zA-Z0-9_:]*";

bool isAllowListKey(const std::string& key) {
  static const std::regex kKey(std::string(kMetricNameExpr) + "," + std::string(kLabelExpr));
  return std::regex_match(key, kKey);
}

// What json.Marshal prints for a []string and a map[string]string (keys sorted), as field.Invalid shows them.
std::string jsonList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (const auto& s : v) out += (out.size() > 1 ? "," : "") + api::field::jsonValue(s);
  return out + "]";
}
std::string jsonMap(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) out += (out.size() > 1 ? "," : "") + api::field::jsonValue(k) + ":" + api::field::jsonValue(v);
  return out + "}";
}
// json.Marshal of the MetricsConfiguration (every field omitempty).
std::string jsonConfig(const MetricsConfiguration& c) {
  std::vector<std::string> fields;
  if (!c.showHiddenMetricsForVersion.empty()) {
    fields.push_back("\"showHiddenMetricsForVersion\":" + api::field::jsonValue(c.showHiddenMetricsForVersion));
  }
  if (!c.disabledMetrics.empty()) fields.push_back("\"disabledMetrics\":" + jsonList(c.disabledMetrics));
  if (c.allowListMapping && !c.allowListMapping->empty()) {
    fields.push_back("\"allowListMapping\":" + jsonMap(*c.allowListMapping));
  }
  if (!c.allowListMappingManifest.empty()) {
    fields.push_back("\"allowListMappingManifest\":" + api::field::jsonValue(c.allowListMappingManifest));
  }
  std::string out = "{";
  for (const auto& f : fields) out += (out.size() > 1 ? "," : "") + f;
  return out + "}";
}

api::FieldErrorList validateAllowListMapping(const std::map<std::string, std::string>& mapping,
                                             const std::string& path) {
  for (const auto& [key, values] : mapping) {
    if (!isAllowListKey(key)) {
      return {api::field::invalid(path, jsonMap(mapping),
                                  "must have keys with format `metricName,labelName` where metricName matches " +
                                      api::field::quoteValue(kMetricNameExpr) + " and labelName matches " +
                                      api::field::quoteValue(kLabelExpr))};
    }
  }
  return {};
}

// yaml.v2's resolve() for a plain scalar: the short tag its text resolves to (YAML 1.1 booleans included).
std::string resolvedTag(const YAML::Node& n) {
  if (n.Tag() == "!") return "!!str";  // quoted
  static const std::regex kBool(
      "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF");
  static const std::regex kInt("[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]*|[1-9][0-9_]*)");
  static const std::regex kFloat(R"([-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))");
  const std::string& v = n.Scalar();
  if (std::regex_match(v, kBool)) return "!!bool";
  if (std::regex_match(v, kInt)) return "!!int";
  if (std::regex_match(v, kFloat)) return "!!float";
  return "!!str";
}

// yaml.v2's decoder.terror: "line N: cannot unmarshal <tag>[ `<value>`] into <type>".
std::string typeError(const YAML::Node& n, std::string_view into) {
  std::string tag = n.IsSequence() ? "!!seq" : n.IsMap() ? "!!map" : resolvedTag(n);
  if (n.IsScalar()) {
    const std::string& v = n.Scalar();
    tag += " `" + (v.size() > 10 ? v.substr(0, 7) + "..." : v) + "`";
  }
  return "line " + std::to_string(n.Mark().line + 1) + ": cannot unmarshal " + tag + " into " + std::string(into);
}

}  // namespace

api::FieldErrorList validateMetricsConfiguration(const MetricsConfiguration& c, uint64_t major, uint64_t minor,
                                                 std::string_view path) {
  const std::string base(path);
  api::FieldErrorList errs;
  // The show-hidden version: omitted, or exactly the previous minor.
  const std::string previous = std::to_string(major) + "." + std::to_string(minor - 1);
  if (!c.showHiddenMetricsForVersion.empty() && c.showHiddenMetricsForVersion != previous) {
    errs.push_back(api::field::invalid(api::field::child(base, "showHiddenMetricsForVersion"),
                                       api::field::quoteValue(c.showHiddenMetricsForVersion),
                                       "must be omitted or have the value '" + previous +
                                           "'; only the previous minor version is allowed"));
  }
  static const std::regex kMetricName{std::string(kMetricNameExpr)};
  for (const auto& name : c.disabledMetrics) {
    if (!std::regex_match(name, kMetricName)) {
      errs.push_back(api::field::invalid(api::field::child(base, "disabledMetrics"), jsonList(c.disabledMetrics),
                                         "must be fully qualified metric names matching " +
                                             api::field::quoteValue("^" + std::string(kMetricNameExpr) + "$") +
                                             ", got " + api::field::quoteValue(name)));
      break;
    }
  }
  if (c.allowListMapping) {
    for (auto& e : validateAllowListMapping(*c.allowListMapping, api::field::child(base, "allowListMapping"))) {
      errs.push_back(std::move(e));
    }
  }
  if (!c.allowListMappingManifest.empty()) {
    const std::string manifestPath = api::field::child(base, "allowListMappingManifest");
    const std::string shown = api::field::quoteValue(c.allowListMappingManifest);
    if (auto mapping = readAllowListManifest(c.allowListMappingManifest); !mapping.ok()) {
      errs.push_back(api::field::invalid(manifestPath, shown, mapping.error().message()));
    } else if (auto inner = validateAllowListMapping(*mapping, manifestPath); !inner.empty()) {
      // Go's %v of the ErrorList: its messages in brackets, space-separated.
      std::string listed = "[";
      for (const auto& e : inner) listed += (listed.size() > 1 ? " " : "") + e.message();
      errs.push_back(
          api::field::invalid(manifestPath, shown, "invalid allow list mapping in manifest: " + listed + "]"));
    }
  }
  if (c.allowListMapping && !c.allowListMappingManifest.empty()) {
    errs.push_back(api::field::invalid(base, jsonConfig(c),
                                       "cannot specify both allowListMapping and allowListMappingManifest"));
  }
  return errs;
}

Result<std::map<std::string, std::string>> readAllowListManifest(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error("failed to read allow list manifest: read " + path + ": is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // Go's syscall.Errno text is strerror's, lower-cased ("no such file or directory").
    std::string reason = std::generic_category().message(errno != 0 ? errno : ENOENT);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    return Error("failed to read allow list manifest: open " + path + ": " + reason);
  }
  std::map<std::string, std::string> mapping;
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    return Error("failed to parse allow list manifest: yaml: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root || root.IsNull()) return mapping;
  if (!root.IsMap()) {
    return Error("failed to parse allow list manifest: yaml: unmarshal errors:\n  " +
                 typeError(root, "map[string]string"));
  }
  std::vector<std::string> typeErrors;
  for (const auto& kv : root) {
    const YAML::Node& key = kv.first;
    const YAML::Node& value = kv.second;
    bool ok = true;
    for (const YAML::Node* n : {&key, &value}) {
      if (n->IsSequence() || n->IsMap()) {
        typeErrors.push_back(typeError(*n, "string"));
        ok = false;
      }
    }
    if (ok) mapping[key.IsNull() ? "" : key.Scalar()] = value.IsNull() ? "" : value.Scalar();
  }
  if (!typeErrors.empty()) {
    std::string joined;
    for (const auto& t : typeErrors) joined += "\n  " + t;
    return Error("failed to parse allow list manifest: yaml: unmarshal errors:" + joined);
  }
  return mapping;
}

Result<LabelAllowList> parseLabelAllowList(const std::map<std::string, std::string>& mapping) {
  LabelAllowList out;
  for (const auto& [key, values] : mapping) {
    if (!isAllowListKey(key)) {
      return Error("allow-list key " + api::field::quoteValue(key) + " does not read <metricName>,<labelName>");
    }
    const auto comma = key.find(',');
    auto& allowed = out[key.substr(0, comma)][key.substr(comma + 1)];
    // component-base: strings.Split(value, ","), values kept as written (spaces included).
    for (size_t start = 0;;) {
      const size_t comma2 = values.find(',', start);
      allowed.insert(values.substr(start, comma2 - start));
      if (comma2 == std::string::npos) break;
      start = comma2 + 1;
    }
  }
  return out;
}

struct ComponentMetrics::Impl {
  explicit Impl(MetricsOptions o)
      : options(std::move(o)),
        registry(std::make_shared<prometheus::Registry>()),
        slisRegistry(std::make_shared<prometheus::Registry>()),
        requestLatency(BuildHistogram()
                           .Name("rest_client_request_duration_seconds")
                           .Help(alpha("Request latency in seconds. Broken down by verb, and host."))
                           .Register(*registry)),
        requestSize(BuildHistogram()
                        .Name("rest_client_request_size_bytes")
                        .Help(alpha("Request size in bytes. Broken down by verb and host."))
                        .Register(*registry)),
        responseSize(BuildHistogram()
                         .Name("rest_client_response_size_bytes")
                         .Help(alpha("Response size in bytes. Broken down by verb and host."))
                         .Register(*registry)),
        rateLimiterLatency(BuildHistogram()
                               .Name("rest_client_rate_limiter_duration_seconds")
                               .Help(alpha("Client side rate limiter latency in seconds. Broken down by verb, "
                                           "and host."))
                               .Register(*registry)),
        requestResult(BuildCounter()
                          .Name("rest_client_requests_total")
                          .Help(alpha("Number of HTTP requests, partitioned by status code, method, and host."))
                          .Register(*registry)),
        requestRetry(BuildCounter()
                         .Name("rest_client_request_retries_total")
                         .Help(alpha("Number of request retries, partitioned by status code, verb, and host."))
                         .Register(*registry)),
        buildInfo(BuildGauge()
                      .Name("kubernetes_build_info")
                      .Help(alpha("A metric with a constant '1' value labeled by major, minor, git version, git "
                                  "commit, git tree state, build date, Go version, and compiler from which "
                                  "Kubernetes was built, and platform on which it is running."))
                      .Register(*registry)),
        featureEnabled(BuildGauge()
                           .Name("kubernetes_feature_enabled")
                           .Help(std::string(kBeta) +
                                 "This metric records the data about the stage and enablement of a k8s feature.")
                           .Register(*registry)),
        healthcheck(BuildGauge()
                        .Name("kubernetes_healthcheck")
                        .Help(std::string(kStable) + "This metric records the result of a single healthcheck.")
                        .Register(*slisRegistry)),
        healthchecksTotal(BuildCounter()
                              .Name("kubernetes_healthchecks_total")
                              .Help(std::string(kStable) + "This metric records the results of all healthcheck.")
                              .Register(*slisRegistry)) {}

  // Drops disabled metrics and rewrites label values outside their allow-lists, in metrics with a
  // stability level.
  void applyOptions(std::vector<prometheus::MetricFamily>& families) const {
    std::erase_if(families, [&](const prometheus::MetricFamily& f) {
      return !stabilityOf(f.help).empty() && options.disabledMetrics.contains(f.name);
    });
    if (options.allowLabels.empty()) return;
    for (auto& f : families) {
      auto allow = options.allowLabels.find(f.name);
      if (allow == options.allowLabels.end() || stabilityOf(f.help).empty()) continue;
      bool changed = false;
      for (auto& m : f.metric) {
        for (auto& l : m.label) {
          auto values = allow->second.find(l.name);
          if (values != allow->second.end() && !values->second.contains(l.value)) {
            l.value = "unexpected";
            changed = true;
          }
        }
      }
      if (changed) mergeEqualSeries(f);
    }
  }

  MetricsOptions options;
  std::mutex seenMu;
  std::map<std::string, std::string> seen;  // metric name -> stability level, for registered_metrics_total
  std::shared_ptr<prometheus::Registry> registry;
  std::shared_ptr<prometheus::Registry> slisRegistry;
  prometheus::Family<prometheus::Histogram>& requestLatency;
  prometheus::Family<prometheus::Histogram>& requestSize;
  prometheus::Family<prometheus::Histogram>& responseSize;
  prometheus::Family<prometheus::Histogram>& rateLimiterLatency;
  prometheus::Family<prometheus::Counter>& requestResult;
  prometheus::Family<prometheus::Counter>& requestRetry;
  prometheus::Family<prometheus::Gauge>& buildInfo;
  prometheus::Family<prometheus::Gauge>& featureEnabled;
  prometheus::Family<prometheus::Gauge>& healthcheck;
  prometheus::Family<prometheus::Counter>& healthchecksTotal;
};

ComponentMetrics::ComponentMetrics(MetricsOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
ComponentMetrics::~ComponentMetrics() = default;

void ComponentMetrics::restClientRateLimiterLatency(std::string_view verb, std::string_view host, double s) {
  impl_->rateLimiterLatency.Add(verbHost(verb, host), kLatencyBuckets).Observe(s);
}
void ComponentMetrics::restClientRequestLatency(std::string_view verb, std::string_view host, double s) {
  impl_->requestLatency.Add(verbHost(verb, host), kLatencyBuckets).Observe(s);
}
void ComponentMetrics::restClientRequestSize(std::string_view verb, std::string_view host, double bytes) {
  impl_->requestSize.Add(verbHost(verb, host), kSizeBuckets).Observe(bytes);
}
void ComponentMetrics::restClientResponseSize(std::string_view verb, std::string_view host, double bytes) {
  impl_->responseSize.Add(verbHost(verb, host), kSizeBuckets).Observe(bytes);
}
void ComponentMetrics::restClientRequestResult(std::string_view code, std::string_view method,
                                               std::string_view host) {
  impl_->requestResult
      .Add({{"code", std::string(code)}, {"method", std::string(method)}, {"host", std::string(host)}})
      .Increment();
}
void ComponentMetrics::restClientRequestRetry(std::string_view code, std::string_view verb,
                                              std::string_view host) {
  impl_->requestRetry
      .Add({{"code", std::string(code)}, {"verb", std::string(verb)}, {"host", std::string(host)}})
      .Increment();
}

void ComponentMetrics::setBuildInfo(const BuildInfo& i) {
  impl_->buildInfo
      .Add({{"major", i.major},
            {"minor", i.minor},
            {"git_version", i.gitVersion},
            {"git_commit", i.gitCommit},
            {"git_tree_state", i.gitTreeState},
            {"build_date", i.buildDate},
            {"go_version", i.goVersion},
            {"compiler", i.compiler},
            {"platform", i.platform}})
      .Set(1);
}

void ComponentMetrics::setFeatures(const std::vector<FeatureState>& features) {
  for (const auto& f : features) {
    impl_->featureEnabled.Add({{"name", f.name}, {"stage", f.stage}}).Set(f.enabled ? 1 : 0);
  }
}

void ComponentMetrics::observeHealthcheck(std::string_view name, std::string_view type, bool success) {
  impl_->healthcheck.Add({{"name", std::string(name)}, {"type", std::string(type)}}).Set(success ? 1 : 0);
  impl_->healthchecksTotal
      .Add({{"name", std::string(name)}, {"type", std::string(type)}, {"status", success ? "success" : "error"}})
      .Increment();
}

std::string ComponentMetrics::scrape(const Metrics* scheduler) const {
  std::vector<prometheus::MetricFamily> families = impl_->registry->Collect();
  if (scheduler != nullptr) {
    auto more = scheduler->collect();
    families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  impl_->applyOptions(families);

  // The meta metrics (component-base RegisterMetaMetrics): registered_metrics_total counts the metrics
  // with a stability level, the four meta metrics included; disabled ones are not registered. Upstream
  // counts at registration; prometheus-cpp cannot list a family before it has a series, so we count every
  // metric exposed so far (a vector metric joins the count with its first series).
  std::map<std::string, double> registered;
  {
    std::lock_guard lock(impl_->seenMu);
    for (const auto& f : families) {
      if (auto level = stabilityOf(f.help); !level.empty()) impl_->seen.emplace(f.name, std::string(level));
    }
    for (const auto& [name, level] : impl_->seen) registered[level] += 1;
  }
  registered["ALPHA"] += 1;  // cardinality_enforcement_unexpected_categorizations_total
  registered["BETA"] += 3;   // disabled_metrics_total, hidden_metrics_total, registered_metrics_total
  families.push_back(counterFamily("cardinality_enforcement_unexpected_categorizations_total",
                                   alpha("The count of unexpected categorizations during cardinality "
                                         "enforcement."),
                                   0));
  families.push_back(counterFamily("disabled_metrics_total", std::string(kBeta) + "The count of disabled metrics.",
                                   static_cast<double>(impl_->options.disabledMetrics.size())));
  families.push_back(counterFamily("hidden_metrics_total", std::string(kBeta) + "The count of hidden metrics.", 0));
  prometheus::MetricFamily reg = counterFamily(
      "registered_metrics_total",
      std::string(kBeta) + "The count of registered metrics broken by stability level and deprecation version.", 0);
  reg.metric.clear();
  for (const auto& [level, n] : registered) {
    prometheus::ClientMetric m;
    m.label = {{"deprecated_version", ""}, {"stability_level", level}};
    m.counter.value = n;
    reg.metric.push_back(std::move(m));
  }
  families.push_back(std::move(reg));

  auto process = processFamilies(readProcessStats());
  families.insert(families.end(), std::make_move_iterator(process.begin()), std::make_move_iterator(process.end()));
  return serializeSorted(std::move(families));
}

std::string ComponentMetrics::scrapeSlis() const {
  std::vector<prometheus::MetricFamily> families = impl_->slisRegistry->Collect();
  // component-base RegisterProcessStartTime: the start time as an ALPHA gauge on the slis registry.
  ProcessStats stats = readProcessStats();
  if (stats.stat && stats.stat->startTimeSeconds) {
    prometheus::MetricFamily f;
    f.name = "process_start_time_seconds";
    f.help = alpha("Start time of the process since unix epoch in seconds.");
    f.type = prometheus::MetricType::Gauge;
    prometheus::ClientMetric m;
    m.gauge.value = *stats.stat->startTimeSeconds;
    f.metric.push_back(std::move(m));
    families.push_back(std::move(f));
  }
  impl_->applyOptions(families);
  return serializeSorted(std::move(families));
}

}  // namespace ks::metrics
