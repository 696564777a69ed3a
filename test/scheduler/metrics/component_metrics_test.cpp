// ComponentMetrics (rest_client_*, build info, feature gates, meta metrics, slis, the metrics options), the
// process collector and the text format.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <filesystem>
#include <fstream>

#include "pkg/scheduler/metrics/component_metrics.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/metrics/process_collector.h"
#include "pkg/scheduler/metrics/text_format.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::metrics {
namespace {

using testing::find;

double value(const std::string& text, std::string_view name, const testing::Labels& labels = {}) {
  auto s = find(text, name, labels);
  EXPECT_EQ(s.size(), 1u) << name;
  return s.empty() ? -1 : s.front().value;
}

// ---- text format ----

TEST(TextFormatTest, FormatValueIsGoShortestG) {
  EXPECT_EQ(formatValue(0), "0");
  EXPECT_EQ(formatValue(1), "1");
  EXPECT_EQ(formatValue(0.5), "0.5");
  EXPECT_EQ(formatValue(3.25), "3.25");
  EXPECT_EQ(formatValue(100000), "100000");
  EXPECT_EQ(formatValue(1e6), "1e+06");
  EXPECT_EQ(formatValue(2684354560), "2.68435456e+09");
  EXPECT_EQ(formatValue(7.5e8), "7.5e+08");
  EXPECT_EQ(formatValue(18446744073709551615.0), "1.8446744073709552e+19");
  EXPECT_EQ(formatValue(0.0001), "0.0001");
  EXPECT_EQ(formatValue(0.00001), "1e-05");
  EXPECT_EQ(formatValue(-2), "-2");
  EXPECT_EQ(formatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatValue(std::nan("")), "NaN");
}

// ---- process collector ----

class FakeProc {
 public:
  FakeProc() {
    root_ = std::filesystem::temp_directory_path() / ("fakeproc-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "self" / "fd");
    std::filesystem::create_directories(root_ / "self" / "net");
  }
  ~FakeProc() { std::filesystem::remove_all(root_); }
  void write(const std::string& rel, const std::string& content) { std::ofstream(root_ / rel) << content; }
  std::string self() const { return (root_ / "self").string(); }
  std::string root() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

TEST(ProcessCollectorTest, ReadsProcfsFilesAsClientGolang) {
  FakeProc proc;
  // procfs's own fixture (prometheus/procfs testdata, pid 26231), with a command name holding ") (".
  proc.write("self/stat",
             "26231 (vim) (x)) R 5392 7446 5392 34835 7446 4218880 32533 309516 26 82 1677 44 158 99 20 0 1 0 "
             "82375 56274944 1981 18446744073709551615 4194304 6294284 140736914091744 140736914087944 "
             "139965136429984 0 0 12288 1870679807 0 0 0 17 0 0 0 31 0 0 8391624 8481048 16420864 "
             "140736914093252 140736914093279 140736914093279 140736914096107 0\n");
  proc.write("stat", "cpu  1 2 3 4\nbtime 1418183276\nprocesses 26442\n");
  proc.write("self/limits",
             "Limit                     Soft Limit           Hard Limit           Units\n"
             "Max cpu time              unlimited            unlimited            seconds\n"
             "Max open files            2048                 4096                 files\n"
             "Max address space         8589934592           unlimited            bytes\n");
  for (int i = 0; i < 5; ++i) proc.write("self/fd/" + std::to_string(i), "");
  proc.write("self/net/netstat",
             "TcpExt: SyncookiesSent SyncookiesRecv\nTcpExt: 0 0\n"
             "IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts InOctets "
             "OutOctets\nIpExt: 0 0 0 0 0 0 6286 7540\n");
  ProcessStats s = readProcessStats(proc.self(), proc.root());
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  ASSERT_TRUE(s.stat);
  EXPECT_DOUBLE_EQ(s.stat->cpuSeconds, (1677 + 44) / hz);
  EXPECT_EQ(s.stat->virtualMemoryBytes, 56274944);
  EXPECT_EQ(s.stat->residentMemoryBytes, 1981.0 * static_cast<double>(::sysconf(_SC_PAGESIZE)));
  ASSERT_TRUE(s.stat->startTimeSeconds);
  EXPECT_DOUBLE_EQ(*s.stat->startTimeSeconds, 1418183276 + 82375 / hz);
  ASSERT_TRUE(s.openFds);
  EXPECT_EQ(*s.openFds, 5);
  ASSERT_TRUE(s.limits);
  EXPECT_EQ(s.limits->maxFds, 2048);
  EXPECT_EQ(s.limits->maxVirtualMemoryBytes, 8589934592.0);
  ASSERT_TRUE(s.network);
  EXPECT_EQ(s.network->receiveBytes, 6286);
  EXPECT_EQ(s.network->transmitBytes, 7540);

  const std::string text = processMetricsText(s);
  EXPECT_NE(text.find("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
                      "# TYPE process_cpu_seconds_total counter\n"),
            std::string::npos);
  EXPECT_NE(text.find("process_virtual_memory_max_bytes 8.589934592e+09\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE process_network_receive_bytes_total counter\nprocess_network_receive_bytes_total "
                      "6286\n"),
            std::string::npos);
  EXPECT_NE(text.find("process_open_fds 5\n"), std::string::npos);
}

TEST(ProcessCollectorTest, MissingFilesLeaveTheirMetricsOut) {
  FakeProc proc;
  ProcessStats s = readProcessStats(proc.self() + "/nonexistent", proc.root());
  EXPECT_FALSE(s.stat);
  EXPECT_FALSE(s.openFds);
  EXPECT_FALSE(s.limits);
  EXPECT_FALSE(s.network);
  EXPECT_EQ(processMetricsText(s), "");
}

TEST(ProcessCollectorTest, SelfIsSane) {
  ProcessStats s = readProcessStats();
  ASSERT_TRUE(s.stat);
  EXPECT_GT(s.stat->residentMemoryBytes, 1 << 20);
  EXPECT_GE(s.stat->virtualMemoryBytes, s.stat->residentMemoryBytes);
  EXPECT_GE(s.stat->cpuSeconds, 0);
  ASSERT_TRUE(s.stat->startTimeSeconds);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(*s.stat->startTimeSeconds, now + 1);
  EXPECT_GT(*s.stat->startTimeSeconds, now - 3600);  // this test process started within the hour
  ASSERT_TRUE(s.openFds);
  EXPECT_GE(*s.openFds, 3);  // stdin, stdout, stderr
  rlimit nofile{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &nofile), 0);
  ASSERT_TRUE(s.limits);
  EXPECT_EQ(s.limits->maxFds, static_cast<double>(nofile.rlim_cur));
}

// ---- ComponentMetrics ----

TEST(ComponentMetricsTest, RestClientMetricsWithUpstreamNamesLabelsAndBuckets) {
  ComponentMetrics m;
  m.restClientRequestResult("201", "POST", "127.0.0.1:6443");
  m.restClientRequestResult("201", "POST", "127.0.0.1:6443");
  m.restClientRequestResult("<error>", "GET", "127.0.0.1:6443");
  m.restClientRequestRetry("503", "GET", "127.0.0.1:6443");
  m.restClientRequestLatency("POST", "127.0.0.1:6443", 0.02);
  m.restClientRateLimiterLatency("POST", "127.0.0.1:6443", 0.001);
  m.restClientRequestSize("POST", "127.0.0.1:6443", 300);
  m.restClientResponseSize("POST", "127.0.0.1:6443", 70);
  const std::string text = m.scrape(nullptr);
  EXPECT_EQ(value(text, "rest_client_requests_total", {{"code", "201"}, {"method", "POST"}, {"host", "127.0.0.1:6443"}}), 2);
  EXPECT_EQ(value(text, "rest_client_requests_total", {{"code", "<error>"}, {"method", "GET"}}), 1);
  EXPECT_EQ(value(text, "rest_client_request_retries_total", {{"code", "503"}, {"verb", "GET"}}), 1);
  EXPECT_EQ(value(text, "rest_client_request_duration_seconds_bucket", {{"verb", "POST"}, {"le", "0.005"}}), 0);
  EXPECT_EQ(value(text, "rest_client_request_duration_seconds_bucket", {{"verb", "POST"}, {"le", "0.025"}}), 1);
  EXPECT_EQ(find(text, "rest_client_request_duration_seconds_bucket").size(), 13u);  // 12 bounds + Inf
  EXPECT_EQ(value(text, "rest_client_rate_limiter_duration_seconds_count", {{"verb", "POST"}}), 1);
  EXPECT_EQ(value(text, "rest_client_request_size_bytes_bucket", {{"le", "256"}}), 0);
  EXPECT_EQ(value(text, "rest_client_request_size_bytes_bucket", {{"le", "512"}}), 1);
  EXPECT_EQ(value(text, "rest_client_request_size_bytes_bucket", {{"le", "1.6777216e+07"}}), 1);
  EXPECT_EQ(value(text, "rest_client_response_size_bytes_sum"), 70);
  EXPECT_NE(text.find("# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned by status "
                      "code, method, and host.\n# TYPE rest_client_requests_total counter\n"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP rest_client_request_duration_seconds [ALPHA] Request latency in seconds. Broken "
                      "down by verb, and host.\n# TYPE rest_client_request_duration_seconds histogram\n"),
            std::string::npos);
}

TEST(ComponentMetricsTest, BuildInfoFeaturesMetaAndProcess) {
  ComponentMetrics m;
  m.setBuildInfo({"0", "1", "v0.1.0", "abc", "clean", "1970-01-01T00:00:00Z", "gcc 12.2.0", "gcc", "linux/amd64"});
  m.setFeatures({{"B", "BETA", true}, {"A", "", false}});
  Metrics scheduler;
  const std::string text = m.scrape(&scheduler);
  EXPECT_NE(text.find("kubernetes_build_info{build_date=\"1970-01-01T00:00:00Z\",compiler=\"gcc\",git_commit=\"abc\","
                      "git_tree_state=\"clean\",git_version=\"v0.1.0\",go_version=\"gcc 12.2.0\",major=\"0\","
                      "minor=\"1\",platform=\"linux/amd64\"} 1\n"),
            std::string::npos);
  // Series sorted by label values, as client_golang.
  EXPECT_NE(text.find("kubernetes_feature_enabled{name=\"A\",stage=\"\"} 0\n"
                      "kubernetes_feature_enabled{name=\"B\",stage=\"BETA\"} 1\n"),
            std::string::npos);
  EXPECT_GT(value(text, "process_resident_memory_bytes"), 0);
  EXPECT_EQ(find(text, "scheduler_pending_pods").size(), 4u);  // the scheduler's own metrics are included
  EXPECT_EQ(value(text, "disabled_metrics_total"), 0);
  EXPECT_EQ(value(text, "hidden_metrics_total"), 0);
  // The meta metrics count themselves (1 ALPHA, 3 BETA) as upstream.
  EXPECT_GE(value(text, "registered_metrics_total", {{"stability_level", "BETA"}, {"deprecated_version", ""}}), 4);
  EXPECT_GE(value(text, "registered_metrics_total", {{"stability_level", "STABLE"}}), 1);
  // Families sorted by name.
  EXPECT_LT(text.find("# HELP kubernetes_build_info"), text.find("# HELP process_cpu_seconds_total"));
  EXPECT_LT(text.find("# HELP process_cpu_seconds_total"), text.find("# HELP scheduler_"));
}

TEST(ComponentMetricsTest, DisabledMetricsAreNotExposed) {
  MetricsOptions o;
  o.disabledMetrics = {"rest_client_requests_total", "scheduler_pending_pods", "process_open_fds"};
  ComponentMetrics m(o);
  m.restClientRequestResult("200", "GET", "h");
  Metrics scheduler;
  ComponentMetrics plain;
  plain.restClientRequestResult("200", "GET", "h");
  const std::string before = plain.scrape(&scheduler);
  const std::string text = m.scrape(&scheduler);
  EXPECT_TRUE(find(text, "rest_client_requests_total").empty());
  EXPECT_TRUE(find(text, "scheduler_pending_pods").empty());
  EXPECT_EQ(find(text, "process_open_fds").size(), 1u);  // registered raw upstream: not subject to the option
  EXPECT_EQ(value(text, "disabled_metrics_total"), 3);
  EXPECT_EQ(value(text, "registered_metrics_total", {{"stability_level", "ALPHA"}}),
            value(before, "registered_metrics_total", {{"stability_level", "ALPHA"}}) - 1);
}

TEST(ComponentMetricsTest, AllowListReplacesOtherValuesWithUnexpectedAndMergesSeries) {
  MetricsOptions o;
  o.allowLabels = *parseLabelAllowList({{"rest_client_requests_total,code", "200,201"}});
  ComponentMetrics m(o);
  m.restClientRequestResult("201", "POST", "h");
  m.restClientRequestResult("409", "POST", "h");
  m.restClientRequestResult("500", "POST", "h");
  m.restClientRequestLatency("POST", "h", 1);
  const std::string text = m.scrape(nullptr);
  EXPECT_EQ(value(text, "rest_client_requests_total", {{"code", "201"}}), 1);
  EXPECT_EQ(value(text, "rest_client_requests_total", {{"code", "unexpected"}, {"method", "POST"}}), 2);
  EXPECT_EQ(find(text, "rest_client_requests_total").size(), 2u);
}

TEST(ComponentMetricsTest, AllowListMergesHistograms) {
  MetricsOptions o;
  o.allowLabels = *parseLabelAllowList({{"rest_client_request_duration_seconds,verb", "GET"}});
  ComponentMetrics m(o);
  m.restClientRequestLatency("POST", "h", 0.01);
  m.restClientRequestLatency("PUT", "h", 100);
  const std::string text = m.scrape(nullptr);
  EXPECT_EQ(value(text, "rest_client_request_duration_seconds_count", {{"verb", "unexpected"}}), 2);
  EXPECT_EQ(value(text, "rest_client_request_duration_seconds_bucket", {{"verb", "unexpected"}, {"le", "0.025"}}), 1);
  EXPECT_EQ(value(text, "rest_client_request_duration_seconds_bucket", {{"verb", "unexpected"}, {"le", "+Inf"}}), 2);
}

TEST(ComponentMetricsTest, SlisRecordHealthchecks) {
  ComponentMetrics m;
  m.observeHealthcheck("ping", "healthz", true);
  m.observeHealthcheck("shutdown", "readyz", true);
  m.observeHealthcheck("shutdown", "readyz", false);
  const std::string text = m.scrapeSlis();
  EXPECT_NE(text.find("# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single "
                      "healthcheck.\n# TYPE kubernetes_healthcheck gauge\n"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all "
                      "healthcheck.\n# TYPE kubernetes_healthchecks_total counter\n"),
            std::string::npos);
  EXPECT_EQ(value(text, "kubernetes_healthcheck", {{"name", "ping"}, {"type", "healthz"}}), 1);
  EXPECT_EQ(value(text, "kubernetes_healthcheck", {{"name", "shutdown"}, {"type", "readyz"}}), 0);
  EXPECT_EQ(value(text, "kubernetes_healthchecks_total", {{"name", "shutdown"}, {"status", "success"}}), 1);
  EXPECT_EQ(value(text, "kubernetes_healthchecks_total", {{"name", "shutdown"}, {"status", "error"}}), 1);
  EXPECT_NE(text.find("# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in "
                      "seconds."),
            std::string::npos);
  EXPECT_TRUE(find(m.scrape(nullptr), "kubernetes_healthcheck").empty());  // only on /metrics/slis
}

TEST(ComponentMetricsTest, ConcurrentObservationsAndScrapes) {
  MetricsOptions o;
  o.allowLabels = *parseLabelAllowList({{"rest_client_requests_total,code", "201"}});
  ComponentMetrics m(o);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 200; ++i) {
        m.restClientRequestResult(i % 2 == 0 ? "201" : "409", "POST", "h" + std::to_string(t % 2));
        m.restClientRequestLatency("POST", "h", 0.001 * i);
        m.observeHealthcheck("ping", "livez", true);
        if (i % 50 == 0) {
          (void)m.scrape(nullptr);
          (void)m.scrapeSlis();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  const std::string text = m.scrape(nullptr);
  double total = 0;
  for (const auto& s : find(text, "rest_client_requests_total")) total += s.value;
  EXPECT_EQ(total, 800);
  EXPECT_EQ(value(text, "rest_client_requests_total", {{"code", "unexpected"}, {"host", "h0"}}), 200);
}

// ---- options ----

// component-base metrics/api/v1 config_test.go's tables (binary version 1.17).
MetricsConfiguration withShowHidden(std::string v) {
  MetricsConfiguration c;
  c.showHiddenMetricsForVersion = std::move(v);
  return c;
}
MetricsConfiguration withDisabled(std::vector<std::string> v) {
  MetricsConfiguration c;
  c.disabledMetrics = std::move(v);
  return c;
}
MetricsConfiguration withAllowList(std::map<std::string, std::string> m) {
  MetricsConfiguration c;
  c.allowListMapping = std::move(m);
  return c;
}

TEST(MetricsConfigurationTest, ShowHiddenMetricsVersion) {
  for (const auto& [version, valid] : std::vector<std::pair<std::string, bool>>{
           {"1.invalid", false}, {"1.16.0", false}, {"1.15", false}, {"1.17", false}, {"1.16", true}, {"", true}}) {
    EXPECT_EQ(validateMetricsConfiguration(withShowHidden(version), 1, 17, "").empty(), valid) << version;
  }
  auto errs = validateMetricsConfiguration(withShowHidden("1.15"), 1, 17, "metrics");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].message(),
            "metrics.showHiddenMetricsForVersion: Invalid value: \"1.15\": must be omitted or have the value "
            "'1.16'; only the previous minor version is allowed");
}

TEST(MetricsConfigurationTest, DisabledMetrics) {
  using Names = std::vector<std::string>;
  for (const auto& [names, valid] : std::vector<std::pair<Names, bool>>{{{"metric_name", "another_metric"}, true},
                                                                        {{}, true},
                                                                        {{"", "another_metric"}, false},
                                                                        {{"metric_.name", "another_metric"}, false}}) {
    EXPECT_EQ(validateMetricsConfiguration(withDisabled(names), 1, 17, "").empty(), valid) << ::testing::PrintToString(names);
  }
  // One error for the list, naming the first bad name.
  auto errs = validateMetricsConfiguration(withDisabled({"a", "b-c", "d.e"}), 1, 17, "metrics");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].message(),
            "metrics.disabledMetrics: Invalid value: [\"a\",\"b-c\",\"d.e\"]: must be fully qualified metric names "
            "matching \"^[a-zA-Z_:][a-zA-Z0-9_:]*$\", got \"b-c\"");
}

TEST(MetricsConfigurationTest, AllowListMapping) {
  using Mapping = std::map<std::string, std::string>;
  for (const auto& [mapping, valid] :
       std::vector<std::pair<Mapping, bool>>{{{{"metric_name,label_name", "labelValue1,labelValue2"}}, true},
                                            {{{"-metric_name,label_name", "labelValue1,labelValue2"}}, false},
                                            {{{"metric_name,:label_name", "labelValue1,labelValue2"}}, false},
                                            {{{"metric_name", "labelValue1,labelValue2"}}, false}}) {
    EXPECT_EQ(validateMetricsConfiguration(withAllowList(mapping), 1, 17, "").empty(), valid)
        << mapping.begin()->first;
  }
}

TEST(MetricsConfigurationTest, Validate) {
  MetricsConfiguration both = withAllowList({{"metric_name,label_name", "labelValue1,labelValue2"}});
  both.allowListMappingManifest = "/path/to/manifest";
  auto errs = validateMetricsConfiguration(both, 1, 17, "");
  ASSERT_FALSE(errs.empty());
  EXPECT_THAT(api::aggregateFieldErrors(errs),
              ::testing::HasSubstr("cannot specify both allowListMapping and allowListMappingManifest"));
  EXPECT_TRUE(validateMetricsConfiguration(withShowHidden("1.16"), 1, 17, "").empty());
  MetricsConfiguration emptyMapping = withAllowList({});
  EXPECT_TRUE(validateMetricsConfiguration(emptyMapping, 1, 17, "").empty());
}

// The manifest as yaml.v2 reads it into map[string]string; texts as kube-scheduler v1.37.2 prints them.
TEST(MetricsConfigurationTest, ManifestReadAndValidated) {
  const auto path = std::filesystem::temp_directory_path() / ("allow-" + std::to_string(::getpid()) + ".yaml");
  const std::string p = path.string();
  auto manifestError = [&](const std::string& content) {
    std::ofstream(path) << content;
    MetricsConfiguration c;
    c.allowListMappingManifest = p;
    auto errs = validateMetricsConfiguration(c, 1, 37, "metrics");
    return api::aggregateFieldErrors(errs);
  };
  const std::string prefix = "metrics.allowListMappingManifest: Invalid value: \"" + p + "\": ";
  EXPECT_EQ(manifestError("\"m,l\": \"x\"\n\"m2,l\": 3\n\"m3,l\":\n"), "");
  auto read = readAllowListManifest(p);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, (std::map<std::string, std::string>{{"m,l", "x"}, {"m2,l", "3"}, {"m3,l", ""}}));
  EXPECT_EQ(manifestError(""), "");
  EXPECT_EQ(manifestError("- not a map\n"), prefix + "failed to parse allow list manifest: yaml: unmarshal errors:\n"
                                                     "  line 1: cannot unmarshal !!seq into map[string]string");
  // The --help text's "allowListMapping:" form is not what the code reads (as upstream).
  EXPECT_EQ(manifestError("allowListMapping:\n  \"m,l\": \"x\"\n"),
            prefix + "failed to parse allow list manifest: yaml: unmarshal errors:\n"
                     "  line 2: cannot unmarshal !!map into string");
  EXPECT_EQ(manifestError("hello\n"), prefix + "failed to parse allow list manifest: yaml: unmarshal errors:\n"
                                               "  line 1: cannot unmarshal !!str `hello` into map[string]string");
  EXPECT_EQ(manifestError("\"bad\": \"x\"\n\"m,l\": \"y\"\n"),
            prefix + "invalid allow list mapping in manifest: [metrics.allowListMappingManifest: Invalid value: "
                     "{\"bad\":\"x\",\"m,l\":\"y\"}: must have keys with format `metricName,labelName` where "
                     "metricName matches \"[a-zA-Z_:][a-zA-Z0-9_:]*\" and labelName matches "
                     "\"[a-zA-Z_][a-zA-Z0-9_]*\"]");
  EXPECT_THAT(manifestError("a: [1\n"), ::testing::StartsWith(prefix + "failed to parse allow list manifest: yaml: line "));
  std::filesystem::remove(path);
  MetricsConfiguration missing;
  missing.allowListMappingManifest = p;
  EXPECT_EQ(api::aggregateFieldErrors(validateMetricsConfiguration(missing, 1, 37, "metrics")),
            prefix + "failed to read allow list manifest: open " + p + ": no such file or directory");
  missing.allowListMappingManifest = std::filesystem::temp_directory_path().string();
  EXPECT_THAT(api::aggregateFieldErrors(validateMetricsConfiguration(missing, 1, 37, "metrics")),
              ::testing::EndsWith(": is a directory"));
}

TEST(MetricsConfigurationTest, AllowListValuesAreSplitAsWritten) {
  auto ok = parseLabelAllowList({{"metric1,label1", "v1,v2, v3"}, {"metric1,label2", "x"}});
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  // strings.Split: no trimming, so " v3" keeps its space.
  EXPECT_EQ(ok->at("metric1").at("label1"), (std::set<std::string>{"v1", "v2", " v3"}));
  EXPECT_EQ(ok->at("metric1").at("label2"), (std::set<std::string>{"x"}));
}

}  // namespace
}  // namespace ks::metrics
