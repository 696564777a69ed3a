// Flag parsing and the effective configuration (pkg/app/options.h), as upstream kube-scheduler's options.

#include "pkg/app/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "pkg/features/features.h"
#include "pkg/scheduler/apis/config/config.h"

namespace ks::app {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/ks-app-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  std::string path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

constexpr const char* kConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /from/config
  qps: 7
  burst: 9
leaderElection:
  leaderElect: false
  resourceName: from-config
profiles:
  - schedulerName: kube-scheduler-cpp
)";

Options parse(const std::vector<std::string>& args) {
  auto o = parseFlags(args);
  EXPECT_TRUE(o.ok()) << o.error().message();
  return o.ok() ? std::move(o).value() : Options{};
}

std::string parseError(const std::vector<std::string>& args) {
  auto o = parseFlags(args);
  EXPECT_FALSE(o.ok());
  return o.ok() ? "" : o.error().message();
}

TEST(ParseFlags, Defaults) {
  Options o = parse({});
  EXPECT_EQ(o.securePort, 10259);
  EXPECT_EQ(o.bindAddress, "0.0.0.0");
  EXPECT_EQ(o.verbosity, 0);
  EXPECT_TRUE(o.configFile.empty());
  EXPECT_FALSE(o.leaderElection.leaderElect.has_value());
  EXPECT_TRUE(o.schedulerFeatures.config.dynamicResourceAllocation);
  EXPECT_TRUE(o.schedulerFeatures.config.storageCapacityScoring);  // Beta and on in v1.37
  EXPECT_TRUE(o.featureGates.explicitlySet().empty());
  EXPECT_EQ(o.logging.format, "text");
  EXPECT_EQ(o.logging.flushFrequency, 5000ms);
  EXPECT_EQ(o.deprecated.podMaxInUnschedulablePodsDuration, 5min);
  EXPECT_FALSE(o.deprecated.profiling.has_value());
}

TEST(ParseFlags, EqualsAndSpaceForms) {
  Options a = parse({"--config=/a.yaml", "--secure-port=1234", "--bind-address", "127.0.0.1", "--master",
                     "https://x:6443", "--write-config-to", "/out.yaml"});
  EXPECT_EQ(a.configFile, "/a.yaml");
  EXPECT_EQ(a.securePort, 1234);
  EXPECT_EQ(a.bindAddress, "127.0.0.1");
  EXPECT_EQ(a.master, "https://x:6443");
  EXPECT_EQ(a.writeConfigTo, "/out.yaml");
  Options b = parse({"--config", "/b.yaml", "--secure-port", "0"});
  EXPECT_EQ(b.configFile, "/b.yaml");
  EXPECT_EQ(b.securePort, 0);
}

TEST(ParseFlags, Verbosity) {
  EXPECT_EQ(parse({"-v", "3"}).verbosity, 3);
  EXPECT_EQ(parse({"-v=4"}).verbosity, 4);
  EXPECT_EQ(parse({"-v5"}).verbosity, 5);
  EXPECT_EQ(parse({"--v=2"}).verbosity, 2);
  EXPECT_EQ(parse({"--v", "6"}).verbosity, 6);
  EXPECT_THAT(parseError({"--v=x"}), HasSubstr("invalid argument \"x\" for \"-v, --v\" flag"));
}

TEST(ParseFlags, Booleans) {
  EXPECT_EQ(parse({"--leader-elect"}).leaderElection.leaderElect, true);
  EXPECT_EQ(parse({"--leader-elect=false"}).leaderElection.leaderElect, false);
  EXPECT_EQ(parse({"--leader-elect=0"}).leaderElection.leaderElect, false);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"--version"}).version);
  EXPECT_THAT(parseError({"--leader-elect=maybe"}),
              HasSubstr("invalid argument \"maybe\" for \"--leader-elect\" flag: strconv.ParseBool"));
}

TEST(ParseFlags, LeaderElectionFlags) {
  Options o = parse({"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline", "3s",
                     "--leader-elect-retry-period=500ms", "--leader-elect-resource-lock=leases",
                     "--leader-elect-resource-name=ks", "--leader-elect-resource-namespace", "ns1"});
  EXPECT_EQ(o.leaderElection.leaseDuration, 4000ms);
  EXPECT_EQ(o.leaderElection.renewDeadline, 3000ms);
  EXPECT_EQ(o.leaderElection.retryPeriod, 500ms);
  EXPECT_EQ(o.leaderElection.resourceLock, "leases");
  EXPECT_EQ(o.leaderElection.resourceName, "ks");
  EXPECT_EQ(o.leaderElection.resourceNamespace, "ns1");
  EXPECT_THAT(
      parseError({"--leader-elect-lease-duration=abc"}),
      HasSubstr(
          "invalid argument \"abc\" for \"--leader-elect-lease-duration\" flag: time: invalid duration"));
}

TEST(ParseFlags, DeprecatedFlags) {
  Options o = parse({"--kubeconfig=/k", "--kube-api-qps", "12.5", "--kube-api-burst=30",
                     "--kube-api-content-type=application/json"});
  EXPECT_EQ(o.deprecated.kubeconfig, "/k");
  EXPECT_EQ(o.deprecated.kubeApiQps, 12.5f);
  EXPECT_EQ(o.deprecated.kubeApiBurst, 30);
  EXPECT_EQ(o.deprecated.kubeApiContentType, "application/json");
  EXPECT_EQ(o.deprecatedFlagsSet, (std::vector<std::string>{"--kubeconfig", "--kube-api-qps",
                                                            "--kube-api-burst", "--kube-api-content-type"}));
  EXPECT_THAT(parseError({"--kube-api-burst=many"}), HasSubstr("for \"--kube-api-burst\" flag"));
  EXPECT_THAT(parseError({"--kube-api-qps=fast"}), HasSubstr("strconv.ParseFloat"));
}

TEST(ParseFlags, FeatureGates) {
  Options o = parse({"--feature-gates=StorageCapacityScoring=false,DRASchedulerFilterTimeout=false"});
  EXPECT_FALSE(o.schedulerFeatures.config.storageCapacityScoring);
  EXPECT_FALSE(o.schedulerFeatures.plugins.enableStorageCapacityScoring);
  EXPECT_FALSE(o.schedulerFeatures.config.draSchedulerFilterTimeout);
  EXPECT_TRUE(o.schedulerFeatures.config.dynamicResourceAllocation);
  // Repeated flags accumulate; the kube: prefix is the default component.
  Options r = parse({"--feature-gates", "kube:SchedulerPopFromBackoffQ=false",
                     "--feature-gates=kube:SchedulerAsyncPreemption=false, kube:MatchLabelKeysInPodTopologySpread=false",
                     "--feature-gates=kube:MatchLabelKeysInPodTopologySpreadSelectorMerge=false"});
  EXPECT_FALSE(r.schedulerFeatures.popFromBackoffQ);
  EXPECT_FALSE(r.schedulerFeatures.plugins.enableAsyncPreemption);
  EXPECT_FALSE(r.schedulerFeatures.plugins.enableMatchLabelKeysInPodTopologySpread);
  EXPECT_TRUE(r.schedulerFeatures.plugins.enableVolumeAttributesClass);
  EXPECT_FALSE(parse({"--feature-gates=VolumeLimitScaling=false"}).schedulerFeatures.plugins.enableVolumeLimitScaling);
  // Gates that do not touch the scheduler are accepted, as upstream.
  EXPECT_TRUE(parse({"--feature-gates=ImageVolumeWithDigest=true,KubeletServiceAccountTokenForCredentialProviders=false"})
                  .featureGates.enabled("ImageVolumeWithDigest"));
  // A GA gate set to its value: upstream's warning.
  Options ga = parse({"--feature-gates=NodeDeclaredFeatures=true"});
  EXPECT_EQ(ga.featureGateWarnings, (std::vector<std::string>{"Setting GA feature gate NodeDeclaredFeatures=true. It "
                                                              "will be removed in a future release."}));

  EXPECT_EQ(parseError({"--feature-gates=NoSuchGate=true"}), "unrecognized feature gate: NoSuchGate");
  EXPECT_EQ(parseError({"--feature-gates=StorageCapacityScoring"}), "missing bool value for StorageCapacityScoring");
  EXPECT_EQ(parseError({"--feature-gates=StorageCapacityScoring=yes"}),
            "invalid value of StorageCapacityScoring=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax");
  EXPECT_EQ(parseError({"--feature-gates=NodeDeclaredFeatures=false"}),
            "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true");
  EXPECT_EQ(parseError({"--feature-gates=SchedulerQueueingHints=true"}),
            "unrecognized feature gate: SchedulerQueueingHints");  // removed in v1.37
  EXPECT_EQ(parseError({"--feature-gates=wardle:A=true"}), "component not registered: wardle");
  EXPECT_EQ(parseError({"--feature-gates=kube:AllBeta=true,AllAlpha=false"}),
            "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use");
  // Gates that depend on PodLevelResources: upstream's dependency error first.
  EXPECT_THAT(parseError({"--feature-gates=PodLevelResources=false"}),
              HasSubstr("InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are "
                        "disabled: [PodLevelResources]"));
  EXPECT_FALSE(parse({"--feature-gates=InPlacePodLevelResourcesVerticalScaling=false"})
                   .schedulerFeatures.plugins.enableInPlacePodLevelResourcesVerticalScaling);
  EXPECT_TRUE(parse({}).schedulerFeatures.plugins.enableInPlacePodLevelResourcesVerticalScaling);
}

TEST(ParseFlags, EmulatedVersion) {
  EXPECT_EQ(parse({"--emulated-version=1.37"}).emulatedVersion, (std::vector<std::string>{"1.37"}));
  parse({"--emulated-version=kube=1.37"});
  parse({"--emulated-version=v1.37"});
  // 1.36's gates: everything the scheduler needs is implemented there.
  Options at36 = parse({"--emulated-version=1.36"});
  EXPECT_EQ(at36.featureGates.emulationMinor(), 36u);
  EXPECT_FALSE(at36.schedulerFeatures.plugins.enableStorageCapacityScoring);  // alpha in 1.36
  EXPECT_FALSE(at36.schedulerFeatures.plugins.enableVolumeLimitScaling);
  EXPECT_FALSE(at36.schedulerFeatures.plugins.enableDRADeviceTaintRules);
  EXPECT_EQ(parseError({"--emulated-version=1.33"}), "emulation version 1.33 is not between [1.34, 1.37.0]");
  EXPECT_EQ(parseError({"--emulated-version=1.38"}), "emulation version 1.38 is not between [1.34, 1.37.0]");
  // 1.34 and 1.35: InPlacePodLevelResourcesVerticalScaling is off there (absent in 1.34, alpha in 1.35), and
  // the node accounting follows it.
  for (const char* v : {"1.34", "1.35"}) {
    Options o = parse({std::string("--emulated-version=") + v});
    EXPECT_FALSE(o.schedulerFeatures.plugins.enableInPlacePodLevelResourcesVerticalScaling) << v;
  }
  EXPECT_EQ(parseError({"--emulated-version=1.34", "--feature-gates=GenericWorkload=true"}),
            "cannot set feature gate GenericWorkload to true, feature is PreAlpha at emulated version 1.34, min "
            "compatibility version 1.34");
  EXPECT_EQ(parseError({"--emulated-version=1.37.1"}), "patch version not allowed, got: kube=1.37.1");
  EXPECT_EQ(parseError({"--emulated-version=foo=1.37"}), "component not registered: foo");
  EXPECT_EQ(parseError({"--emulated-version=foo"}), "could not parse \"foo\" as version");
  EXPECT_EQ(parseError({"--emulated-version=1"}), "illegal version string \"1\"");
  EXPECT_EQ(parseError({"--emulated-version=kube=1.37,kube=1.36"}), "duplicate version flag, kube=1.37 and kube=1.36");
  EXPECT_EQ(parseError({"--emulated-version=1.36", "--min-compatibility-version=1.37"}),
            "minCompatibilityVersion version 1.37 is not between [1.34, 1.36]");
  EXPECT_EQ(parseError({"--feature-gates=DRADeviceTaints=false"}),
            "DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]");
}

// --min-compatibility-version: upstream's range and texts; 1.37 turns DRAFractionalCapacityRange's default on.
TEST(ParseFlags, MinCompatibilityVersion) {
  EXPECT_FALSE(parse({}).schedulerFeatures.plugins.enableDRAFractionalCapacityRange);
  Options o = parse({"--min-compatibility-version=1.37"});
  EXPECT_EQ(o.minCompatibilityVersion, (std::vector<std::string>{"1.37"}));
  EXPECT_TRUE(o.schedulerFeatures.plugins.enableDRAFractionalCapacityRange);
  EXPECT_FALSE(parse({"--min-compatibility-version=kube=1.34"}).schedulerFeatures.plugins.enableDRAFractionalCapacityRange);
  EXPECT_FALSE(parse({"--min-compatibility-version=1.37", "--feature-gates=DRAFractionalCapacityRange=false"})
                   .schedulerFeatures.plugins.enableDRAFractionalCapacityRange);
  EXPECT_EQ(parseError({"--min-compatibility-version=1.33"}),
            "minCompatibilityVersion version 1.33 is not between [1.34, 1.37]");
  EXPECT_EQ(parseError({"--min-compatibility-version=1.37.2"}), "patch version not allowed, got: kube=1.37.2");
  EXPECT_EQ(parseError({"--min-compatibility-version=wardle=1.2"}), "component not registered: wardle");
}

TEST(ParseFlags, LogsFlags) {
  Options o = parse({"--logging-format=json", "--log-flush-frequency=2s", "-v=3"});
  EXPECT_EQ(o.logging.format, "json");
  EXPECT_EQ(o.logging.flushFrequency, 2000ms);
  EXPECT_EQ(o.logging.verbosity, 3);
  Options t = parse({"--vmodule=scheduler*=4,queue=2", "--vmodule", "cache=1"});
  EXPECT_EQ(t.logging.vmodule, (std::vector<VModuleEntry>{{"scheduler*", 4}, {"queue", 2}, {"cache", 1}}));
  Options alpha = parse({"--feature-gates=LoggingAlphaOptions=true", "--log-text-split-stream",
                         "--log-text-info-buffer-size=2Ki", "--log-json-split-stream=true",
                         "--log-json-info-buffer-size=1M"});
  EXPECT_TRUE(alpha.logging.textSplitStream);
  EXPECT_EQ(alpha.logging.textInfoBufferSize, 2048u);
  EXPECT_TRUE(alpha.logging.jsonSplitStream);
  EXPECT_EQ(alpha.logging.jsonInfoBufferSize, 1000000u);

  EXPECT_EQ(parseError({"--logging-format=xml"}), "format: Invalid value: \"xml\": Unsupported log format");
  EXPECT_EQ(parseError({"--logging-format=json", "--feature-gates=LoggingBetaOptions=false"}),
            "format: Forbidden: Log format json is disabled, see LoggingBetaOptions feature");
  EXPECT_EQ(parseError({"--logging-format=json", "--vmodule=a=1"}),
            "vmodule: Forbidden: Only supported for text log format");
  EXPECT_EQ(parseError({"--log-text-split-stream"}),
            "options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled");
  EXPECT_EQ(parseError({"--log-json-info-buffer-size=1Ki"}),
            "options.json.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled");
  EXPECT_EQ(parseError({"--vmodule=foo"}),
            "invalid argument \"foo\" for \"--vmodule\" flag: \"foo\" does not have the pattern=N format");
  EXPECT_EQ(parseError({"--vmodule==1"}),
            "invalid argument \"=1\" for \"--vmodule\" flag: \"=1\" does not have the pattern=N format");
  EXPECT_EQ(parseError({"--vmodule=a=-1"}),
            "invalid argument \"a=-1\" for \"--vmodule\" flag: parsing verbosity in \"a=-1\": "
            "strconv.ParseUint: parsing \"-1\": invalid syntax");
  EXPECT_EQ(parseError({"--log-text-info-buffer-size=1x"}),
            "invalid argument \"1x\" for \"--log-text-info-buffer-size\" flag: quantities must match the "
            "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_THAT(parseError({"--log-flush-frequency=soon"}), HasSubstr("time: invalid duration"));
  // component-base v0.37: the logging configuration refuses a flush frequency that is not positive (as the
  // v1.37.2 binary prints it, aggregated with the other logging errors).
  EXPECT_EQ(parseError({"--log-flush-frequency=0"}), "flushFrequency: Invalid value: \"0s\": Must be greater than zero");
  EXPECT_EQ(parseError({"--log-flush-frequency=-1s", "--logging-format=bad"}),
            "[flushFrequency: Invalid value: \"-1s\": Must be greater than zero, format: Invalid value: \"bad\": "
            "Unsupported log format]");
}

TEST(ParseFlags, ProfilingAndPodMaxInUnschedulable) {
  Options o = parse({"--profiling=false", "--contention-profiling=false",
                     "--pod-max-in-unschedulable-pods-duration=90s"});
  EXPECT_EQ(o.deprecated.profiling, false);
  EXPECT_EQ(o.deprecated.contentionProfiling, false);
  EXPECT_EQ(o.deprecated.podMaxInUnschedulablePodsDuration, 90s);
  EXPECT_EQ(parse({"--profiling"}).deprecated.profiling, true);
  EXPECT_EQ(parseError({"--profiling=x"}),
            "invalid argument \"x\" for \"--profiling\" flag: strconv.ParseBool: parsing \"x\": invalid syntax");
  EXPECT_EQ(parseError({"--pod-max-in-unschedulable-pods-duration=x"}),
            "invalid argument \"x\" for \"--pod-max-in-unschedulable-pods-duration\" flag: time: invalid "
            "duration \"x\"");

  // Without --config they set enableProfiling / enableContentionProfiling; with it they are ignored.
  auto cfg = buildConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  EXPECT_FALSE(cfg->debugging.enableProfiling);
  EXPECT_FALSE(cfg->debugging.enableContentionProfiling);
  EXPECT_TRUE(buildConfig(parse({}))->debugging.enableProfiling);

  TempDir dir;
  Options withConfig = parse({"--config=" + dir.write("c.yaml", kConfig), "--profiling=false",
                              "--pod-max-in-unschedulable-pods-duration=90s"});
  std::vector<std::string> warnings;
  auto fromFile = buildConfig(withConfig, &warnings);
  ASSERT_TRUE(fromFile.ok()) << fromFile.error().message();
  EXPECT_TRUE(fromFile->debugging.enableProfiling);
  // --pod-max-in-unschedulable-pods-duration is no config file field: applied either way, not warned about.
  EXPECT_EQ(warnings, (std::vector<std::string>{"flag --profiling is deprecated and ignored when --config is set; "
                                                "set it in the configuration file instead"}));
}

TEST(Usage, NewFlagLines) {
  const std::string u = usage();
  EXPECT_THAT(u, HasSubstr("      --feature-gates colonSeparatedMultimapStringString\n"));
  EXPECT_THAT(u, HasSubstr("'kube:featureC=true'Options are:\n                kube:APIResponseCompression=true|false "
                           "(BETA - default=true)\n                kube:APIServerIdentity=true|false (BETA - "
                           "default=true)\n"));
  EXPECT_THAT(u, HasSubstr("kube:AllAlpha=true|false (ALPHA - default=false)\n"));
  EXPECT_THAT(u, HasSubstr("kube:SchedulerAsyncAPICalls=true|false (BETA - default=false)\n"));
  EXPECT_THAT(u, Not(HasSubstr("kube:SchedulerQueueingHints=")));  // GA: not listed, as upstream
  EXPECT_THAT(u, HasSubstr("      --emulated-version strings\n"));
  EXPECT_THAT(u, HasSubstr("      --profiling\n                DEPRECATED: enable profiling via web interface "
                           "host:port/debug/pprof/. This parameter is ignored if a config file is specified in "
                           "--config. (default true)\n"));
  EXPECT_THAT(u, HasSubstr("      --pod-max-in-unschedulable-pods-duration duration\n"));
  EXPECT_THAT(u, HasSubstr("(default 5m0s)\n"));
  EXPECT_THAT(u, HasSubstr("      --logging-format string\n                Sets the log format. Permitted formats: "
                           "\"json\" (gated by LoggingBetaOptions), \"text\". (default \"text\")\n"));
  EXPECT_THAT(u, HasSubstr("      --vmodule pattern=N,...\n"));
  EXPECT_THAT(u, HasSubstr("      --log-flush-frequency duration\n                Maximum number of seconds between "
                           "log flushes (default 5s)\n"));
  EXPECT_THAT(u, HasSubstr("      --log-text-info-buffer-size quantity\n"));
}

TEST(ParseFlags, MetricsFlags) {
  Options o = parse({"--disabled-metrics=a_total,b_total", "--disabled-metrics", "c_total",
                     "--show-hidden-metrics-for-version=1.36", "--allow-metric-labels=metric1,label1='v1,v2'",
                     "--allow-metric-labels", "\"metric2,label2=v3,v4\",\"metric3,label3=x\""});
  EXPECT_EQ(o.metrics.disabledMetrics, (std::vector<std::string>{"a_total", "b_total", "c_total"}));
  EXPECT_EQ(o.metrics.showHiddenMetricsForVersion, "1.36");
  // pflag stringToString: a single pair is taken whole; several are one CSV record; repeats merge.
  ASSERT_TRUE(o.metrics.allowListMapping);
  EXPECT_EQ(*o.metrics.allowListMapping, (std::map<std::string, std::string>{{"metric1,label1", "'v1,v2'"},
                                                                               {"metric2,label2", "v3,v4"},
                                                                               {"metric3,label3", "x"}}));
  EXPECT_FALSE(parse({}).metrics.allowListMapping);
  EXPECT_THAT(parseError({"--allow-metric-labels=novalue"}), HasSubstr("must be formatted as key=value"));
  EXPECT_THAT(parseError({"--allow-metric-labels=m,l=a,m2,l2=b"}), HasSubstr("m must be formatted as key=value"));

  const auto manifest = std::filesystem::temp_directory_path() / ("allow-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(manifest) << "\"m,l\": \"x\"\n";
  EXPECT_EQ(parse({"--allow-metric-labels-manifest=" + manifest.string()}).metrics.allowListMappingManifest,
            manifest.string());
  // Both lists: refused since v1.37 (component-base's metrics configuration API).
  EXPECT_EQ(parseError({"--allow-metric-labels=m,l=x", "--allow-metric-labels-manifest=" + manifest.string()}),
            "metrics: Invalid value: {\"allowListMapping\":{\"m,l\":\"x\"},\"allowListMappingManifest\":\"" +
                manifest.string() + "\"}: cannot specify both allowListMapping and allowListMappingManifest");
  std::filesystem::remove(manifest);
}

// The flags' errors, as kube-scheduler v1.37.2 prints them (each row run against the upstream binary).
TEST(ParseFlags, MetricsFlagErrorsAsUpstream) {
  const std::string metricName = "\"^[a-zA-Z_:][a-zA-Z0-9_:]*$\"";
  const std::string keyFormat =
      "must have keys with format `metricName,labelName` where metricName matches \"[a-zA-Z_:][a-zA-Z0-9_:]*\" "
      "and labelName matches \"[a-zA-Z_][a-zA-Z0-9_]*\"";
  const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
      {{"--show-hidden-metrics-for-version=1.33"},
       "metrics.showHiddenMetricsForVersion: Invalid value: \"1.33\": must be omitted or have the value '1.36'; "
       "only the previous minor version is allowed"},
      {{"--disabled-metrics=a-b"},
       "metrics.disabledMetrics: Invalid value: [\"a-b\"]: must be fully qualified metric names matching " +
           metricName + ", got \"a-b\""},
      {{"--disabled-metrics=ok,a-b,c-d"},
       "metrics.disabledMetrics: Invalid value: [\"ok\",\"a-b\",\"c-d\"]: must be fully qualified metric names "
       "matching " + metricName + ", got \"a-b\""},
      {{"--allow-metric-labels=bad=x"}, "metrics.allowListMapping: Invalid value: {\"bad\":\"x\"}: " + keyFormat},
      {{"--allow-metric-labels-manifest=/nonexist"},
       "metrics.allowListMappingManifest: Invalid value: \"/nonexist\": failed to read allow list manifest: open "
       "/nonexist: no such file or directory"},
      {{"--allow-metric-labels=m,l=x", "--allow-metric-labels-manifest=/nonexist"},
       "[metrics.allowListMappingManifest: Invalid value: \"/nonexist\": failed to read allow list manifest: open "
       "/nonexist: no such file or directory, metrics: Invalid value: "
       "{\"allowListMapping\":{\"m,l\":\"x\"},\"allowListMappingManifest\":\"/nonexist\"}: cannot specify both "
       "allowListMapping and allowListMappingManifest]"},
      {{"--show-hidden-metrics-for-version=1.33", "--disabled-metrics=a-b"},
       "[metrics.showHiddenMetricsForVersion: Invalid value: \"1.33\": must be omitted or have the value '1.36'; "
       "only the previous minor version is allowed, metrics.disabledMetrics: Invalid value: [\"a-b\"]: must be "
       "fully qualified metric names matching " + metricName + ", got \"a-b\"]"},
  };
  for (const auto& [args, want] : rows) EXPECT_EQ(parseError(args), want) << args[0];
}

TEST(FeatureGateStates, ListsEveryGateWithStageAndValue) {
  features::FeatureGate g;
  ASSERT_TRUE(g.set("StorageCapacityScoring=true").ok());
  auto states = featureGateStates(g);
  ASSERT_EQ(states.size(), features::knownFeatures().size());  // upstream lists every known gate
  auto find = [&](std::string_view name) {
    auto it = std::find_if(states.begin(), states.end(), [&](const FeatureGateState& s) { return s.name == name; });
    EXPECT_NE(it, states.end()) << name;
    return it == states.end() ? FeatureGateState{} : *it;
  };
  EXPECT_EQ(find("DRASchedulerFilterTimeout").stage, "BETA");
  EXPECT_TRUE(find("DRASchedulerFilterTimeout").enabled);
  EXPECT_EQ(find("DynamicResourceAllocation").stage, "");  // GA
  EXPECT_EQ(find("StorageCapacityScoring").stage, "BETA");
  EXPECT_TRUE(find("StorageCapacityScoring").enabled);
  EXPECT_FALSE(find("AllAlpha").enabled);
}

TEST(ParseFlags, Errors) {
  EXPECT_EQ(parseError({"--no-such-flag"}), "unknown flag: --no-such-flag");
  EXPECT_EQ(parseError({"--no-such-flag=1"}), "unknown flag: --no-such-flag");
  EXPECT_THAT(parseError({"-x"}), HasSubstr("unknown shorthand flag: 'x'"));
  EXPECT_THAT(parseError({"positional"}), HasSubstr("arguments are not supported"));
  EXPECT_EQ(parseError({"--config"}), "flag needs an argument: --config");
  EXPECT_THAT(parseError({"--secure-port=70000"}), HasSubstr("must be between 0 and 65535"));
  EXPECT_THAT(parseError({"--secure-port=-1"}), HasSubstr("must be between 0 and 65535"));
  EXPECT_THAT(parseError({"--secure-port=abc"}),
              HasSubstr("invalid argument \"abc\" for \"--secure-port\" flag"));
  EXPECT_THAT(parseError({"--bind-address=not-an-ip"}), HasSubstr("failed to parse IP"));
  EXPECT_THAT(parseError({"--tls-cert-file=/c.pem"}), HasSubstr("must be given together"));
}

// The secure serving flags kube-scheduler-cpp took on last; error texts as the v1.37.2 binary prints them.
TEST(ParseFlags, ServingFlags) {
  auto o = parseFlags({"--cert-dir=/var/run/certs", "--disable-http2-serving",
                       "--http2-max-streams-per-connection=-5", "--permit-address-sharing",
                       "--permit-port-sharing=true", "--tls-curve-preferences=0x17,29",
                       "--tls-curve-preferences=24", "--tls-sni-cert-key= a.crt , a.key ",
                       "--tls-sni-cert-key=b.crt,b.key: *.foo.com , foo.com"});
  ASSERT_TRUE(o.ok()) << o.error().message();
  EXPECT_EQ(o->certDir, "/var/run/certs");
  EXPECT_TRUE(o->disableHttp2Serving);
  EXPECT_EQ(o->http2MaxStreamsPerConnection, -5);  // upstream validates no range: HTTP/2 is off here anyway
  EXPECT_TRUE(o->permitAddressSharing);
  EXPECT_TRUE(o->permitPortSharing);
  EXPECT_EQ(o->tlsCurvePreferences, (std::vector<int32_t>{23, 29, 24}));
  ASSERT_EQ(o->tlsSniCertKeys.size(), 2u);
  EXPECT_EQ(o->tlsSniCertKeys[0].certFile, "a.crt");
  EXPECT_EQ(o->tlsSniCertKeys[0].keyFile, "a.key");
  EXPECT_TRUE(o->tlsSniCertKeys[0].names.empty());
  EXPECT_EQ(o->tlsSniCertKeys[1].names, (std::vector<std::string>{"*.foo.com", "foo.com"}));
  auto flagz = flagzValues(*o);
  EXPECT_EQ(flagz["tls-curve-preferences"], "[23,29,24]");
  EXPECT_EQ(flagz["tls-sni-cert-key"], "[a.crt,a.key;b.crt,b.key:*.foo.com,foo.com]");
  EXPECT_EQ(flagz["http2-max-streams-per-connection"], "-5");

  EXPECT_EQ(
      parseError({"--tls-sni-cert-key=bad"}),
      "invalid argument \"bad\" for \"--tls-sni-cert-key\" flag: expected comma separated certificate and "
      "key file paths");
  EXPECT_EQ(
      parseError({"--tls-sni-cert-key=a,b,c"}),
      "invalid argument \"a,b,c\" for \"--tls-sni-cert-key\" flag: expected comma separated certificate and "
      "key file paths");
  EXPECT_EQ(parseError({"--tls-sni-cert-key=a,b:"}),
            "invalid argument \"a,b:\" for \"--tls-sni-cert-key\" flag: empty names list is not allowed");
  EXPECT_EQ(parseError({"--tls-curve-preferences="}),
            "invalid argument \"\" for \"--tls-curve-preferences\" flag: strconv.ParseInt: parsing \"\": "
            "invalid syntax");
  EXPECT_EQ(
      parseError({"--tls-curve-preferences=0x17,_1"}),
      "invalid argument \"0x17,_1\" for \"--tls-curve-preferences\" flag: strconv.ParseInt: parsing \"_1\": "
      "invalid syntax");
  EXPECT_EQ(parseError({"--tls-curve-preferences=2147483648"}),
            "invalid argument \"2147483648\" for \"--tls-curve-preferences\" flag: strconv.ParseInt: parsing "
            "\"2147483648\": value out of range");
  EXPECT_EQ(parseError({"--tls-curve-preferences=1"}),
            "curve preference 1 is not supported by the current Go version");
  EXPECT_EQ(parseError({"--tls-curve-preferences=23,23"}), "duplicate curve preference 23");
  EXPECT_EQ(parseError({"--tls-curve-preferences=-2147483648"}),
            "curve preference -2147483648 is out of range (must be 1-65535)");
  EXPECT_EQ(
      parseError({"--http2-max-streams-per-connection=0x"}),
      "invalid argument \"0x\" for \"--http2-max-streams-per-connection\" flag: strconv.ParseInt: parsing "
      "\"0x\": invalid syntax");
  EXPECT_EQ(parseError({"--disable-http2-serving=x"}),
            "invalid argument \"x\" for \"--disable-http2-serving\" flag: strconv.ParseBool: parsing \"x\": "
            "invalid "
            "syntax");
  EXPECT_EQ(
      parseError({"--permit-port-sharing=2"}),
      "invalid argument \"2\" for \"--permit-port-sharing\" flag: strconv.ParseBool: parsing \"2\": invalid "
      "syntax");
}

// The Secure serving section as `kube-scheduler --help` (v1.37.2) prints it, flag by flag.
TEST(Usage, SecureServingFlagsAsUpstream) {
  const std::string u = usage();
  EXPECT_THAT(
      u,
      HasSubstr("      --cert-dir string\n                The directory where the TLS certs are located. If "
                "--tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.\n"));
  EXPECT_THAT(
      u, HasSubstr("      --disable-http2-serving\n                If true, HTTP2 serving will be disabled "
                   "[default=false]\n"));
  EXPECT_THAT(
      u, HasSubstr("      --http2-max-streams-per-connection int\n                The limit that the server "
                   "gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means "
                   "to use golang's default.\n"));
  EXPECT_THAT(
      u, HasSubstr("      --permit-address-sharing\n                If true, SO_REUSEADDR will be used when "
                   "binding the port. This allows binding to wildcard IPs like 0.0.0.0 and specific IPs in "
                   "parallel, and it avoids waiting for the kernel to release sockets in TIME_WAIT state. "
                   "[default=false]\n"));
  EXPECT_THAT(
      u, HasSubstr("      --permit-port-sharing\n                If true, SO_REUSEPORT will be used when "
                   "binding the port, which allows more than one instance to bind on the same address and "
                   "port. [default=false]\n"));
  EXPECT_THAT(
      u, HasSubstr("(CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and "
                   "--tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate "
                   "and key are generated for the public address and saved to the directory specified by "
                   "--cert-dir.\n"));
  EXPECT_THAT(
      u, HasSubstr("      --tls-curve-preferences int32Slice\n                Comma-separated list of "
                   "numeric Go crypto/tls CurveID values, as the allowed key exchange mechanisms for the "
                   "server. The supported values depend on the Go version used. See "
                   "https://pkg.go.dev/crypto/tls#CurveID for values supported for each Go version. The "
                   "order of the list is ignored, and key exchange mechanisms are chosen by Go from this "
                   "list using an internal preference order. If omitted, the default Go curves will be "
                   "used. (default [])\n"));
  EXPECT_THAT(
      u, HasSubstr("      --tls-sni-cert-key namedCertKey\n                A pair of x509 certificate and "
                   "private key file paths, optionally suffixed with a list of domain patterns which are "
                   "fully qualified domain names, possibly with prefixed wildcard segments. The domain "
                   "patterns also allow IP addresses, but IPs should only be used if the apiserver has "
                   "visibility to the IP address requested by a client. If no domain patterns are "
                   "provided, the names of the certificate are extracted. Non-wildcard matches trump over "
                   "wildcard matches, explicit domain patterns trump over extracted names. For multiple "
                   "key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "
                   "\"example.crt,example.key\" or \"foo.crt,foo.key:*.foo.com,foo.com\". (default [])\n"));
  // upstream's order within the section: alphabetical.
  std::vector<size_t> at;
  for (const char* flag :
       {"--bind-address", "--cert-dir", "--disable-http2-serving", "--http2-max-streams-per-connection",
        "--permit-address-sharing", "--permit-port-sharing", "--secure-port", "--tls-cert-file",
        "--tls-cipher-suites", "--tls-curve-preferences", "--tls-min-version", "--tls-private-key-file",
        "--tls-sni-cert-key"}) {
    at.push_back(u.find(std::string("      ") + flag + " "));
    if (at.back() == std::string::npos) at.back() = u.find(std::string("      ") + flag + "\n");
    ASSERT_NE(at.back(), std::string::npos) << flag;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
}

TEST(BuildConfig, DefaultsWithoutConfigApplyDeprecatedAndLeaderElectionFlags) {
  Options o = parse({"--kubeconfig=/k", "--kube-api-qps=12", "--kube-api-burst=30", "--leader-elect=false",
                     "--leader-elect-resource-name=x"});
  std::vector<std::string> warnings;
  auto cfg = buildConfig(o, &warnings);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(cfg->clientConnection.kubeconfig, "/k");
  EXPECT_EQ(cfg->clientConnection.qps, 12.0f);
  EXPECT_EQ(cfg->clientConnection.burst, 30);
  EXPECT_FALSE(cfg->leaderElection.leaderElect);
  EXPECT_EQ(cfg->leaderElection.resourceName, "x");
  ASSERT_EQ(cfg->profiles.size(), 1u);
  EXPECT_EQ(cfg->profiles[0].schedulerName, "default-scheduler");
}

TEST(BuildConfig, ConfigFileIgnoresDeprecatedFlagsButHonoursLeaderElectionFlags) {
  TempDir dir;
  const std::string path = dir.write("c.yaml", kConfig);
  Options o = parse({"--config", path, "--kubeconfig=/ignored", "--kube-api-qps=99", "--leader-elect",
                     "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                     "--leader-elect-retry-period=1s"});
  std::vector<std::string> warnings;
  auto cfg = buildConfig(o, &warnings);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  EXPECT_EQ(cfg->clientConnection.kubeconfig, "/from/config");
  EXPECT_EQ(cfg->clientConnection.qps, 7.0f);
  EXPECT_EQ(cfg->clientConnection.burst, 9);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("--kubeconfig is deprecated and ignored when --config is set"));
  EXPECT_THAT(warnings[1], HasSubstr("--kube-api-qps"));
  // As upstream's ApplyLeaderElectionTo: leader election flags override the file.
  EXPECT_TRUE(cfg->leaderElection.leaderElect);
  EXPECT_EQ(cfg->leaderElection.leaseDuration, 4000ms);
  EXPECT_EQ(cfg->leaderElection.renewDeadline, 3000ms);
  EXPECT_EQ(cfg->leaderElection.retryPeriod, 1000ms);
  EXPECT_EQ(cfg->leaderElection.resourceName, "from-config");
  ASSERT_EQ(cfg->profiles.size(), 1u);
  EXPECT_EQ(cfg->profiles[0].schedulerName, "kube-scheduler-cpp");
}

TEST(BuildConfig, InvalidLeaderElectionFlagsFailValidation) {
  Options o = parse({"--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=3s"});
  auto cfg = buildConfig(o);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message(), HasSubstr("LeaseDuration must be greater than RenewDeadline"));
}

TEST(BuildConfig, BadConfigFiles) {
  TempDir dir;
  auto err = [&](const std::string& text) {
    Options o;
    o.configFile = dir.write("bad.yaml", text);
    auto cfg = buildConfig(o);
    EXPECT_FALSE(cfg.ok());
    return cfg.ok() ? std::string() : cfg.error().message();
  };
  EXPECT_THAT(err("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nfoo: 1\n"),
              HasSubstr("unknown field \"foo\""));
  EXPECT_THAT(
      err("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: 0\n"),
      HasSubstr("parallelism"));
  EXPECT_THAT(err("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"),
              HasSubstr("no kind \"KubeSchedulerConfiguration\" is registered"));
  Options missing;
  missing.configFile = dir.path("absent.yaml");
  auto cfg = buildConfig(missing);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.error().message(), HasSubstr("no such file or directory"));
}

TEST(BuildConfig, WrittenConfigDecodesBack) {
  TempDir dir;
  Options o = parse({"--config", dir.write("c.yaml", kConfig), "--leader-elect-resource-namespace=ns2"});
  auto cfg = buildConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.error().message();
  const std::string yaml = config::encodeConfig(*cfg);
  auto back = config::decodeConfig(yaml);
  ASSERT_TRUE(back.ok()) << back.error().message() << "\n" << yaml;
  EXPECT_TRUE(*back == *cfg);
  EXPECT_EQ(back->leaderElection.resourceNamespace, "ns2");
}

TEST(Usage, ListsTheFlags) {
  const std::string u = usage();
  for (const char* flag : {"--config",
                           "--kubeconfig",
                           "--master",
                           "--leader-elect",
                           "--leader-elect-lease-duration",
                           "--leader-elect-renew-deadline",
                           "--leader-elect-retry-period",
                           "--leader-elect-resource-lock",
                           "--leader-elect-resource-name",
                           "--leader-elect-resource-namespace",
                           "--secure-port",
                           "--bind-address",
                           "--tls-cert-file",
                           "--tls-private-key-file",
                           "--write-config-to",
                           "-v, --v",
                           "--feature-gates",
                           "--kube-api-qps",
                           "--kube-api-burst",
                           "--kube-api-content-type",
                           "Metrics flags:",
                           "--allow-metric-labels stringToString",
                           "--allow-metric-labels-manifest string",
                           "--disabled-metrics strings",
                           "--show-hidden-metrics-for-version string",
                           "simulate"}) {
    EXPECT_THAT(u, HasSubstr(flag));
  }
}

TEST(AuthFlags, UpstreamDefaults) {
  auto o = parseFlags({});
  ASSERT_TRUE(o.ok()) << o.error().message();
  const auto& authn = o->authentication;
  EXPECT_EQ(authn.remoteKubeconfig, "");
  EXPECT_EQ(authn.cacheTtl, 10s);
  EXPECT_FALSE(authn.skipLookup);
  EXPECT_TRUE(authn.tolerateLookupFailure);  // kube-scheduler's TolerateInClusterLookupFailure
  EXPECT_EQ(authn.clientCaFile, "");
  EXPECT_EQ(authn.requestHeader.usernameHeaders, (std::vector<std::string>{"x-remote-user"}));
  EXPECT_EQ(authn.requestHeader.groupHeaders, (std::vector<std::string>{"x-remote-group"}));
  EXPECT_EQ(authn.requestHeader.extraHeaderPrefixes, (std::vector<std::string>{"x-remote-extra-"}));
  EXPECT_TRUE(authn.requestHeader.uidHeaders.empty());
  EXPECT_TRUE(authn.requestHeader.allowedNames.empty());
  const auto& authz = o->authorization;
  EXPECT_EQ(authz.remoteKubeconfig, "");
  EXPECT_EQ(authz.allowCacheTtl, 10s);
  EXPECT_EQ(authz.denyCacheTtl, 10s);
  EXPECT_EQ(authz.alwaysAllowPaths, (std::vector<std::string>{"/healthz", "/readyz", "/livez"}));
  EXPECT_EQ(authz.alwaysAllowGroups, (std::vector<std::string>{"system:masters"}));
  EXPECT_EQ(o->tlsMinVersion, "");
  EXPECT_TRUE(o->tlsCipherSuites.empty());
}

TEST(AuthFlags, Parse) {
  auto o = parseFlags({"--authentication-kubeconfig=/a.kubeconfig", "--authorization-kubeconfig", "/z.kubeconfig",
                       "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure=false",
                       "--authentication-token-webhook-cache-ttl=1m", "--client-ca-file=/ca.crt",
                       "--requestheader-client-ca-file=/rh.crt", "--requestheader-allowed-names=front-proxy-client,agg",
                       "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
                       "--requestheader-group-headers=X-Other-Group", "--requestheader-extra-headers-prefix=",
                       "--requestheader-uid-headers=X-Remote-Uid", "--authorization-always-allow-paths=/healthz,/metrics*",
                       "--authorization-webhook-cache-authorized-ttl=30s",
                       "--authorization-webhook-cache-unauthorized-ttl=500ms", "--tls-min-version=VersionTLS13",
                       "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256"});
  ASSERT_TRUE(o.ok()) << o.error().message();
  const auto& authn = o->authentication;
  EXPECT_EQ(authn.remoteKubeconfig, "/a.kubeconfig");
  EXPECT_TRUE(authn.skipLookup);
  EXPECT_FALSE(authn.tolerateLookupFailure);
  EXPECT_EQ(authn.cacheTtl, 60s);
  EXPECT_EQ(authn.clientCaFile, "/ca.crt");
  EXPECT_EQ(authn.requestHeader.clientCaFile, "/rh.crt");
  EXPECT_EQ(authn.requestHeader.allowedNames, (std::vector<std::string>{"front-proxy-client", "agg"}));
  EXPECT_EQ(authn.requestHeader.usernameHeaders, (std::vector<std::string>{"X-Remote-User"}));
  // A repeated list flag appends (pflag StringSlice); "" empties it.
  EXPECT_EQ(authn.requestHeader.groupHeaders, (std::vector<std::string>{"X-Remote-Group", "X-Other-Group"}));
  EXPECT_TRUE(authn.requestHeader.extraHeaderPrefixes.empty());
  EXPECT_EQ(authn.requestHeader.uidHeaders, (std::vector<std::string>{"X-Remote-Uid"}));
  EXPECT_EQ(o->authorization.remoteKubeconfig, "/z.kubeconfig");
  EXPECT_EQ(o->authorization.alwaysAllowPaths, (std::vector<std::string>{"/healthz", "/metrics*"}));
  EXPECT_EQ(o->authorization.allowCacheTtl, 30s);
  EXPECT_EQ(o->authorization.denyCacheTtl, 500ms);
  EXPECT_EQ(o->tlsMinVersion, "VersionTLS13");
  EXPECT_EQ(o->tlsCipherSuites,
            (std::vector<std::string>{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"}));
}

TEST(AuthFlags, Errors) {
  EXPECT_EQ(parseFlags({"--tls-min-version=VersionTLS14"}).error().message(), "unknown tls version \"VersionTLS14\"");
  EXPECT_EQ(parseFlags({"--tls-cipher-suites=TLS_FOO"}).error().message(),
            "Cipher suite TLS_FOO not supported or doesn't exist");
  EXPECT_EQ(parseFlags({"--authentication-token-webhook-cache-ttl=10"}).error().message(),
            "invalid argument \"10\" for \"--authentication-token-webhook-cache-ttl\" flag: time: missing unit in "
            "duration \"10\"");
  EXPECT_THAT(parseFlags({"--authentication-skip-lookup=maybe"}).error().message(),
              HasSubstr("strconv.ParseBool: parsing \"maybe\": invalid syntax"));
  EXPECT_EQ(parseFlags({"--requestheader-uid-headers=X-Uid"}).error().message(),
            "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API "
            "aggregation will not work");
}

TEST(Usage, AuthenticationAndAuthorizationSections) {
  const std::string u = usage();
  const size_t serving = u.find("\nSecure serving flags:");
  const size_t authn = u.find("\nAuthentication flags:");
  const size_t authz = u.find("\nAuthorization flags:");
  const size_t deprecated = u.find("\nDeprecated flags:");
  ASSERT_NE(authn, std::string::npos);
  ASSERT_NE(authz, std::string::npos);
  EXPECT_LT(serving, authn);
  EXPECT_LT(authn, authz);
  EXPECT_LT(authz, deprecated);
  EXPECT_THAT(u, HasSubstr("--authentication-token-webhook-cache-ttl duration\n                The duration to cache "
                           "responses from the webhook token authenticator. (default 10s)"));
  EXPECT_THAT(u, HasSubstr("--authorization-always-allow-paths strings\n                A list of HTTP paths to skip "
                           "during authorization, i.e. these are authorized without contacting the 'core' "
                           "kubernetes server. (default [/healthz,/readyz,/livez])"));
  EXPECT_THAT(u, HasSubstr("This is optional. If empty, all requests not skipped by authorization are forbidden."));
  EXPECT_THAT(u, HasSubstr("--authentication-tolerate-lookup-failure\n"));
  EXPECT_THAT(u, HasSubstr("(default true)"));
  EXPECT_THAT(u, HasSubstr("Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13"));
  EXPECT_THAT(u, HasSubstr("Insecure values: TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, TLS_ECDHE_ECDSA_WITH_RC4_128_SHA"));
}

// /flagz's values, against what kube-scheduler v1.37.2's /flagz printed for the same command lines (recorded
// from the real binary).
std::map<std::string, std::string> parsedFlagz(const std::vector<std::string>& args) {
  auto o = parseFlags(args);
  EXPECT_TRUE(o.ok()) << o.error().message();
  return o.ok() ? flagzValues(*o) : std::map<std::string, std::string>{};
}

TEST(Flagz, EveryFlagHasAValue) {
  EXPECT_THAT(flagsWithoutFlagzValueForTest(), ::testing::IsEmpty());
}

TEST(Flagz, UpstreamDefaults) {
  const std::map<std::string, std::string> want = {
      {"allow-metric-labels", "[]"},
      {"allow-metric-labels-manifest", ""},
      {"authentication-kubeconfig", ""},
      {"authentication-skip-lookup", "false"},
      {"authentication-token-webhook-cache-ttl", "10s"},
      {"authentication-tolerate-lookup-failure", "true"},
      {"authorization-always-allow-paths", "[/flagz,/statusz,/healthz,/configz]"},
      {"authorization-kubeconfig", ""},
      {"authorization-webhook-cache-authorized-ttl", "10s"},
      {"authorization-webhook-cache-unauthorized-ttl", "10s"},
      {"bind-address", "127.0.0.1"},
      {"cert-dir", ""},
      {"client-ca-file", ""},
      {"config", ""},
      {"contention-profiling", "true"},
      {"disable-http2-serving", "false"},
      {"disabled-metrics", "[]"},
      {"emulated-version", "[]"},
      {"feature-gates", ""},
      {"help", "false"},
      {"http2-max-streams-per-connection", "0"},
      {"kube-api-burst", "100"},
      {"kube-api-content-type", "application/vnd.kubernetes.protobuf"},
      {"kube-api-qps", "50"},
      {"kubeconfig", "kc.yaml"},
      {"leader-elect", "false"},
      {"leader-elect-lease-duration", "15s"},
      {"leader-elect-renew-deadline", "10s"},
      {"leader-elect-resource-lock", "leases"},
      {"leader-elect-resource-name", "kube-scheduler"},
      {"leader-elect-resource-namespace", "kube-system"},
      {"leader-elect-retry-period", "2s"},
      {"log-flush-frequency", "5s"},
      {"log-json-info-buffer-size", "0"},
      {"log-json-split-stream", "false"},
      {"log-text-info-buffer-size", "0"},
      {"log-text-split-stream", "false"},
      {"logging-format", "text"},
      {"master", ""},
      {"min-compatibility-version", "[]"},
      {"permit-address-sharing", "false"},
      {"permit-port-sharing", "false"},
      {"pod-max-in-unschedulable-pods-duration", "5m0s"},
      {"profiling", "true"},
      {"requestheader-allowed-names", "[]"},
      {"requestheader-client-ca-file", ""},
      {"requestheader-extra-headers-prefix", "[x-remote-extra-]"},
      {"requestheader-group-headers", "[x-remote-group]"},
      {"requestheader-uid-headers", "[]"},
      {"requestheader-username-headers", "[x-remote-user]"},
      {"secure-port", "18259"},
      {"show-hidden-metrics-for-version", ""},
      {"tls-cert-file", ""},
      {"tls-cipher-suites", "[]"},
      {"tls-curve-preferences", "[]"},
      {"tls-min-version", ""},
      {"tls-private-key-file", ""},
      {"tls-sni-cert-key", "[]"},
      {"v", "0"},
      {"version", "false"},
      {"vmodule", ""},
      {"write-config-to", ""},
  };
  EXPECT_EQ(parsedFlagz({"--kubeconfig=kc.yaml", "--secure-port=18259", "--bind-address=127.0.0.1",
                         "--leader-elect=false",
                         "--authorization-always-allow-paths=/flagz,/statusz,/healthz,/configz"}),
            want);
}

TEST(Flagz, UpstreamValueFormats) {
  auto got = parsedFlagz(
      {"--authorization-always-allow-paths=/flagz,/statusz", "--authorization-always-allow-paths=/x",
       "--feature-gates=ComponentFlagz=true,LoggingAlphaOptions=true",
       "--feature-gates=DRAConsumableCapacity=false", "--emulated-version=kube=1.36", "--vmodule=foo=2,bar=3",
       "-v=2", "--kube-api-qps=1.5", "--leader-elect-lease-duration=90s", "--allow-metric-labels=a,b=c",
       "--allow-metric-labels=x,y=z", "--disabled-metrics=m1,m2", "--log-json-info-buffer-size=1Ki",
       "--requestheader-group-headers=a", "--requestheader-group-headers=b",
       "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
       "--log-flush-frequency=1500ms", "--show-hidden-metrics-for-version=1.36", "--profiling=false"});
  const std::map<std::string, std::string> want = {
      {"allow-metric-labels", R"(["a,b=c","x,y=z"])"},
      {"authorization-always-allow-paths", "[/flagz,/statusz,/x]"},
      {"disabled-metrics", "[m1,m2]"},
      {"emulated-version", "[kube=1.36]"},
      {"feature-gates", ":ComponentFlagz=true,:LoggingAlphaOptions=true,:DRAConsumableCapacity=false"},
      {"kube-api-qps", "1.5"},
      {"leader-elect-lease-duration", "1m30s"},
      {"log-flush-frequency", "1.5s"},
      {"log-json-info-buffer-size", "1Ki"},
      {"profiling", "false"},
      {"requestheader-group-headers", "[a,b]"},
      {"show-hidden-metrics-for-version", "1.36"},
      {"tls-cipher-suites",
       "[TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]"},
      {"v", "2"},
      {"vmodule", "foo=2,bar=3"},
  };
  for (const auto& [name, value] : want) EXPECT_EQ(got[name], value) << name;
  // The component prefix sorts after the empty one; values keep their order.
  EXPECT_EQ(
      parsedFlagz(
          {"--feature-gates=kube:DRAConsumableCapacity=true, kube:SchedulerAsyncAPICalls=false"})["feature-gates"],
      "kube:DRAConsumableCapacity=true,kube:SchedulerAsyncAPICalls=false");
  EXPECT_EQ(parsedFlagz({"--kube-api-qps=0.0001"})["kube-api-qps"], "0.0001");
  EXPECT_EQ(parsedFlagz({"--kube-api-qps=0.00001"})["kube-api-qps"], "1e-05");
  EXPECT_EQ(parsedFlagz({"--kube-api-qps=3e21"})["kube-api-qps"], "3e+21");
  EXPECT_EQ(parsedFlagz({"--kube-api-qps=1000000"})["kube-api-qps"], "1e+06");
  // resource.Quantity's canonical text in the format given.
  auto bufferSize = [](const std::string& v) {
    return parsedFlagz({"--feature-gates=LoggingAlphaOptions=true",
                        "--log-text-info-buffer-size=" + v})["log-text-info-buffer-size"];
  };
  EXPECT_EQ(bufferSize("2048"), "2048");
  EXPECT_EQ(bufferSize("1024Ki"), "1Mi");
  EXPECT_EQ(bufferSize("3000"), "3k");
  EXPECT_EQ(parsedFlagz({"--bind-address=::ffff:10.0.0.1"})["bind-address"], "10.0.0.1");
  EXPECT_EQ(parsedFlagz({"--bind-address=0:0::1"})["bind-address"], "::1");
  // pflag's StringSlice String(): CSV, quoting a field with a leading space.
  EXPECT_EQ(parsedFlagz({"--requestheader-group-headers=a b", "--requestheader-group-headers= c"})
                ["requestheader-group-headers"],
            R"([a b," c"])");
}

}  // namespace
}  // namespace ks::app
