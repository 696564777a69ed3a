// Decoding: upstream scheme_test.go (TestCodecsDecodePluginConfig, v1 cases) plus strict-decoding,
// version/kind and malformed-YAML errors.

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/duration.h"

namespace ks::config {
namespace {

constexpr const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

Result<KubeSchedulerConfiguration> decodeNoValidate(const std::string& yaml) {
  DecodeOptions o;
  o.validate = false;
  return decodeConfig(yaml, o);
}

template <typename T>
const T* argsOf(const KubeSchedulerProfile& p, const std::string& name) {
  for (const auto& pc : p.pluginConfig) {
    if (pc.name == name) return dynamic_cast<const T*>(pc.args.get());
  }
  return nullptr;
}

std::vector<std::string> configNames(const KubeSchedulerProfile& p) {
  std::vector<std::string> out;
  for (const auto& pc : p.pluginConfig) out.push_back(pc.name);
  return out;
}

const std::vector<std::string> kDefaultConfigNames = {"DefaultPreemption",
                                                      "DynamicResources",
                                                      "InterPodAffinity",
                                                      "NodeAffinity",
                                                      "NodeResourcesBalancedAllocation",
                                                      "NodeResourcesFit",
                                                      "PodTopologySpread",
                                                      "VolumeBinding"};

TEST(DecodeTest, AllPluginArgsInDefaultProfile) {
  auto c = decodeNoValidate(std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 50
      minCandidateNodesAbsolute: 500
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 5
  - name: NodeResourcesFit
    args:
      ignoredResources: ["foo"]
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: ScheduleAnyway
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 300
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: foo
              operator: In
              values: ["bar"]
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
        - name: cpu       # default weight(1) will be set.
        - name: memory    # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar0
          weight: 1
        - name: scalar1   # default weight(1) will be set for scalar1
        - name: scalar2   # weight 0 will be replaced by 1.
          weight: 0
        - name: scalar3
          weight: 2
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->profiles.size(), 1u);
  const auto& p = c->profiles[0];
  EXPECT_EQ(p.schedulerName, "default-scheduler");
  EXPECT_FALSE(p.percentageOfNodesToScore.has_value());
  EXPECT_EQ(p.plugins, getDefaultPlugins());
  EXPECT_EQ(configNames(p),
            (std::vector<std::string>{"DefaultPreemption", "InterPodAffinity", "NodeResourcesFit",
                                      "PodTopologySpread", "VolumeBinding", "NodeAffinity",
                                      "NodeResourcesBalancedAllocation", "DynamicResources"}));
  auto* dp = argsOf<DefaultPreemptionArgs>(p, "DefaultPreemption");
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->minCandidateNodesPercentage, 50);
  EXPECT_EQ(dp->minCandidateNodesAbsolute, 500);
  EXPECT_EQ(argsOf<InterPodAffinityArgs>(p, "InterPodAffinity")->hardPodAffinityWeight, 5);
  auto* fit = argsOf<NodeResourcesFitArgs>(p, "NodeResourcesFit");
  EXPECT_EQ(fit->ignoredResources, std::vector<std::string>{"foo"});
  EXPECT_EQ(fit->scoringStrategy,
            (ScoringStrategy{"LeastAllocated", {{"cpu", 1}, {"memory", 1}}, std::nullopt}));
  auto* pts = argsOf<PodTopologySpreadArgs>(p, "PodTopologySpread");
  ASSERT_EQ(pts->defaultConstraints.size(), 1u);
  EXPECT_EQ(pts->defaultConstraints[0].maxSkew, 1);
  EXPECT_EQ(pts->defaultConstraints[0].topologyKey, "zone");
  EXPECT_EQ(pts->defaultConstraints[0].whenUnsatisfiable, "ScheduleAnyway");
  EXPECT_EQ(pts->defaultingType, "System");
  EXPECT_EQ(argsOf<VolumeBindingArgs>(p, "VolumeBinding")->bindTimeoutSeconds, 300);
  auto* na = argsOf<NodeAffinityArgs>(p, "NodeAffinity");
  ASSERT_TRUE(na->addedAffinity.has_value());
  const auto& req = na->addedAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  ASSERT_TRUE(req.has_value());
  ASSERT_EQ(req->nodeSelectorTerms.size(), 1u);
  EXPECT_EQ(req->nodeSelectorTerms[0].matchExpressions[0],
            (api::NodeSelectorRequirement{"foo", "In", {"bar"}}));
  auto* ba = argsOf<NodeResourcesBalancedAllocationArgs>(p, "NodeResourcesBalancedAllocation");
  EXPECT_EQ(ba->resources,
            (std::vector<ResourceSpec>{
                {"cpu", 1}, {"memory", 1}, {"scalar0", 1}, {"scalar1", 1}, {"scalar2", 1}, {"scalar3", 2}}));
}

TEST(DecodeTest, GlobalAndProfilePercentageOfNodesToScore) {
  auto c = decodeConfig(std::string(kHeader) + "percentageOfNodesToScore: 10\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->percentageOfNodesToScore, 10);
  EXPECT_FALSE(c->profiles[0].percentageOfNodesToScore.has_value());
  EXPECT_EQ(configNames(c->profiles[0]), kDefaultConfigNames);

  c = decodeConfig(std::string(kHeader) +
                   "percentageOfNodesToScore: 10\nprofiles:\n- percentageOfNodesToScore: 20\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->profiles[0].percentageOfNodesToScore, 20);
  EXPECT_EQ(c->profiles[0].schedulerName, "default-scheduler");
}

TEST(DecodeTest, PluginArgsCanIncludeVersionAndKind) {
  auto c = decodeConfig(std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesPercentage: 50
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto* dp = argsOf<DefaultPreemptionArgs>(c->profiles[0], "DefaultPreemption");
  EXPECT_EQ(dp->minCandidateNodesPercentage, 50);
  EXPECT_EQ(dp->minCandidateNodesAbsolute, 100);
  EXPECT_EQ(configNames(c->profiles[0]), kDefaultConfigNames);
}

TEST(DecodeTest, OutOfTreePluginArgsStayOpaque) {
  auto c = decodeConfig(std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: OutOfTreePlugin
    args:
      foo: bar
      nested: {b: 1, a: [true]}
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  const auto& pcs = c->profiles[0].pluginConfig;
  ASSERT_EQ(pcs.size(), 1 + kDefaultConfigNames.size());
  EXPECT_EQ(pcs[0].name, "OutOfTreePlugin");
  auto* o = dynamic_cast<const OpaqueArgs*>(pcs[0].args.get());
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->json, R"({"foo":"bar","nested":{"a":[true],"b":1}})");
}

// Found by test/fuzz/scheduler_config_fuzz (corpus crash-invalid-utf8-args): bytes that are not UTF-8 in
// opaque plugin args were kept as a JSON string, and serializing the args threw out of decodeConfig.
// Now the YAML reader rejects them, as go-yaml's does.
TEST(DecodeTest, InvalidUtf8IsAnErrorNotACrash) {
  auto c = decodeConfig(std::string(kHeader) +
                        "profiles:\n- pluginConfig:\n  - name: OutOfTreePlugin\n"
                        "    args: {foo: \"\x90\"}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), "error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
  // And a ',' where a node should start (yaml-cpp looped forever on it) is a parse error.
  auto comma = decodeConfig(",\n");
  ASSERT_FALSE(comma.ok());
  EXPECT_EQ(comma.error().message(),
            "error converting YAML to JSON: yaml: line 1, column 1: did not find expected node content");
}

TEST(DecodeTest, EmptyAndNoPluginArgs) {
  auto c = decodeConfig(std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
  - name: InterPodAffinity
    args:
  - name: NodeResourcesFit
  - name: OutOfTreePlugin
    args:
  - name: VolumeBinding
    args:
  - name: PodTopologySpread
  - name: NodeAffinity
  - name: NodeResourcesBalancedAllocation
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  const auto& p = c->profiles[0];
  EXPECT_EQ(configNames(p),
            (std::vector<std::string>{"DefaultPreemption", "InterPodAffinity", "NodeResourcesFit",
                                      "OutOfTreePlugin", "VolumeBinding", "PodTopologySpread", "NodeAffinity",
                                      "NodeResourcesBalancedAllocation", "DynamicResources"}));
  EXPECT_EQ(p.pluginConfig[3].args, nullptr);
  EXPECT_EQ(argsOf<DefaultPreemptionArgs>(p, "DefaultPreemption")->minCandidateNodesPercentage, 10);
  EXPECT_EQ(argsOf<InterPodAffinityArgs>(p, "InterPodAffinity")->hardPodAffinityWeight, 1);
  EXPECT_EQ(argsOf<VolumeBindingArgs>(p, "VolumeBinding")->bindTimeoutSeconds, 600);
  EXPECT_EQ(argsOf<PodTopologySpreadArgs>(p, "PodTopologySpread")->defaultingType, "System");
  EXPECT_FALSE(argsOf<NodeAffinityArgs>(p, "NodeAffinity")->addedAffinity.has_value());
  EXPECT_EQ(argsOf<NodeResourcesFitArgs>(p, "NodeResourcesFit")->scoringStrategy.type, "LeastAllocated");
}

TEST(DecodeTest, IgnorePreferredTermsOfExistingPods) {
  auto c = decodeConfig(std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      ignorePreferredTermsOfExistingPods: true
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto* a = argsOf<InterPodAffinityArgs>(c->profiles[0], "InterPodAffinity");
  EXPECT_TRUE(a->ignorePreferredTermsOfExistingPods);
  EXPECT_EQ(a->hardPodAffinityWeight, 1);
}

TEST(DecodeTest, DynamicResourcesFilterTimeout) {
  auto c = decodeConfig(
      std::string(kHeader) +
      "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args:\n      filterTimeout: 1m30s\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(argsOf<DynamicResourcesArgs>(c->profiles[0], "DynamicResources")->filterTimeout,
            std::chrono::milliseconds(90000));
  c = decodeConfig(kHeader);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(argsOf<DynamicResourcesArgs>(c->profiles[0], "DynamicResources")->filterTimeout,
            std::chrono::milliseconds(10000));
}

// bindingTimeout defaults to 600s only while DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
// are both on (upstream v1.37 SetDefaults_DynamicResourcesArgs).
TEST(DecodeTest, DynamicResourcesBindingTimeout) {
  DecodeOptions o;
  o.features.draDeviceBindingConditions = true;
  o.features.draResourceClaimDeviceStatus = true;
  auto c = decodeConfig(kHeader, o);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(argsOf<DynamicResourcesArgs>(c->profiles[0], "DynamicResources")->bindingTimeout,
            std::chrono::milliseconds(600000));
  c = decodeConfig(std::string(kHeader) +
                       "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args:\n      bindingTimeout: 45s\n",
                   o);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(argsOf<DynamicResourcesArgs>(c->profiles[0], "DynamicResources")->bindingTimeout,
            std::chrono::milliseconds(45000));
  o.features.draDeviceBindingConditions = false;
  c = decodeConfig(kHeader, o);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_FALSE(argsOf<DynamicResourcesArgs>(c->profiles[0], "DynamicResources")->bindingTimeout.has_value());
}

// The pod-group cycle's plugin sets (v1.37) are read, merged with the (empty) defaults and written back.
TEST(DecodeTest, PodGroupPluginSets) {
  auto c = decodeConfig(std::string(kHeader) + R"(profiles:
- plugins:
    placementGenerate:
      enabled: [{name: TopologyPlacementGenerator}]
    placementScore:
      enabled: [{name: PodGroupPodsCount, weight: 3}]
      disabled: [{name: NodeResourcesFit}]
    podGroupPostFilter:
      disabled: [{name: "*"}]
)");
  ASSERT_TRUE(c.ok()) << c.error().message();
  const Plugins& p = c->profiles[0].plugins;
  EXPECT_EQ(p.placementGenerate.enabled, (std::vector<Plugin>{{"TopologyPlacementGenerator", 0}}));
  EXPECT_EQ(p.placementScore.enabled, (std::vector<Plugin>{{"PodGroupPodsCount", 3}}));
  EXPECT_EQ(p.placementScore.disabled, (std::vector<Plugin>{{"NodeResourcesFit", 0}}));
  EXPECT_EQ(p.podGroupPostFilter.disabled, (std::vector<Plugin>{{"*", 0}}));
}

struct ErrorCase {
  const char* name;
  std::string yaml;
  std::string wantErr;
};

class DecodeErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DecodeErrorTest, ExactMessage) {
  auto c = decodeConfig(GetParam().yaml);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), GetParam().wantErr);
}

const std::string kScheme = "\"pkg/scheduler/apis/config/scheme/scheme.go:30\"";

INSTANTIATE_TEST_SUITE_P(
    Upstream, DecodeErrorTest,
    testing::Values(
        ErrorCase{"PluginGroupAndKindShouldMatch", std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: InterPodAffinityArgs
)",
                  "decoding .profiles[0].pluginConfig[0]: args for plugin DefaultPreemption were not of type "
                  "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
                  "InterPodAffinityArgs.kubescheduler.config.k8s.io"},
        ErrorCase{"NodeResourcesFitShapeIsStrict", std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        requestedToCapacityRatio:
          shape:
          - Score: 2
            Utilization: 1
)",
                  "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
                  "decoding args "
                  "for plugin NodeResourcesFit: strict decoding error: unknown field "
                  "\"scoringStrategy.requestedToCapacityRatio.shape[0].Score\", unknown field "
                  "\"scoringStrategy.requestedToCapacityRatio.shape[0].Utilization\""},
        ErrorCase{
            "NodeResourcesFitResourcesIsStrict", std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        resources:
        - Name: cpu
          Weight: 1
)",
            "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: decoding "
            "args "
            "for plugin NodeResourcesFit: strict decoding error: unknown field "
            "\"scoringStrategy.resources[0].Name\", unknown field \"scoringStrategy.resources[0].Weight\""},
        ErrorCase{
            "UnknownTopLevelAndNestedFields", std::string(kHeader) + R"(foo: 1
profiles:
- schedulerName: a
  bar: x
  plugins:
    score:
      enabled:
      - name: X
        wieght: 2
)",
            "strict decoding error: unknown field \"foo\", unknown field \"profiles[0].bar\", unknown field "
            "\"profiles[0].plugins.score.enabled[0].wieght\""},
        ErrorCase{"TopLevelAndArgsStrictErrorsTogether", std::string(kHeader) + R"(foo: 1
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 1
      extra: true
)",
                  "strict decoding error: unknown field \"foo\", decoding .profiles[0].pluginConfig[0]: "
                  "strict decoding "
                  "error: decoding args for plugin InterPodAffinity: strict decoding error: unknown field "
                  "\"extra\""},
        ErrorCase{"DefaultConstraintsAreStrict", std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {a: b}, foo: 1}
)",
                  "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: "
                  "decoding args "
                  "for plugin PodTopologySpread: strict decoding error: unknown field "
                  "\"defaultConstraints[0].labelSelector.foo\""},
        ErrorCase{"DuplicateField", std::string(kHeader) + "parallelism: 2\nparallelism: 3\n",
                  "strict decoding error: yaml: unmarshal errors:\n  line 4: key \"parallelism\" already set "
                  "in map"},
        ErrorCase{"TypeMismatch", std::string(kHeader) + "parallelism: foo\n",
                  "json: cannot unmarshal string into Go struct field KubeSchedulerConfiguration.parallelism "
                  "of type "
                  "int32"},
        ErrorCase{"NestedTypeMismatch", std::string(kHeader) + "profiles:\n- percentageOfNodesToScore: 1.5\n",
                  "json: cannot unmarshal number 1.5 into Go struct field "
                  "KubeSchedulerProfile.profiles.percentageOfNodesToScore of type int32"},
        // Found by scheduler_config_fuzz: a qps beyond float32 became +Inf, was written as null and reloaded
        // as 50. The messages are upstream kube-scheduler's for the same files.
        ErrorCase{"Float32Overflow", std::string(kHeader) + "clientConnection:\n  qps: 3.5e38\n",
                  "json: cannot unmarshal number 3.5e+38 into Go struct field "
                  "ClientConnectionConfiguration.clientConnection.qps of type float32"},
        ErrorCase{"Float32OverflowJustAboveTheLargest",
                  std::string(kHeader) + "clientConnection:\n  qps: 3.4028236e38\n",
                  "json: cannot unmarshal number 3.4028236e+38 into Go struct field "
                  "ClientConnectionConfiguration.clientConnection.qps of type float32"},
        ErrorCase{"NegativeFloat32Overflow", std::string(kHeader) + "clientConnection:\n  qps: -1e39\n",
                  "json: cannot unmarshal number -1e+39 into Go struct field "
                  "ClientConnectionConfiguration.clientConnection.qps of type float32"},
        ErrorCase{
            "Float32OverflowFromALongLiteral",
            std::string(kHeader) + "clientConnection:\n  qps: 99999999999999999999999999999999999999999.5\n",
            "json: cannot unmarshal number 1e+41 into Go struct field "
            "ClientConnectionConfiguration.clientConnection.qps of type float32"},
        ErrorCase{
            "ArgsTypeMismatch", std::string(kHeader) + R"(profiles:
- pluginConfig:
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: "600"
)",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin VolumeBinding: json: cannot "
            "unmarshal string into Go struct field VolumeBindingArgs.bindTimeoutSeconds of type int64"},
        ErrorCase{"BadDuration", std::string(kHeader) + "leaderElection:\n  leaseDuration: 15\n",
                  "leaderElection.leaseDuration: json: cannot unmarshal number into Go value of type string"},
        ErrorCase{"BadDurationText", std::string(kHeader) + "leaderElection:\n  leaseDuration: 15x\n",
                  "leaderElection.leaseDuration: time: unknown unit \"x\" in duration \"15x\""},
        ErrorCase{"OldVersion",
                  "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
                  "no kind \"KubeSchedulerConfiguration\" is registered for version "
                  "\"kubescheduler.config.k8s.io/v1beta3\" in scheme " +
                      kScheme},
        ErrorCase{
            "UnknownKind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: SchedulerConfiguration\n",
            "no kind \"SchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/v1\" "
            "in scheme " +
                kScheme},
        ErrorCase{"ArgsKindAtTopLevel",
                  "apiVersion: kubescheduler.config.k8s.io/v1\nkind: DefaultPreemptionArgs\n",
                  "couldn't decode as KubeSchedulerConfiguration, got kubescheduler.config.k8s.io/v1, "
                  "Kind=DefaultPreemptionArgs: "},
        ErrorCase{"MissingKind", "apiVersion: kubescheduler.config.k8s.io/v1\n",
                  "Object 'Kind' is missing in 'apiVersion: kubescheduler.config.k8s.io/v1\n'"},
        ErrorCase{"MissingVersion", "kind: KubeSchedulerConfiguration\n",
                  "Object 'apiVersion' is missing in 'kind: KubeSchedulerConfiguration\n'"},
        ErrorCase{"EmptyFile", "", "Object 'Kind' is missing in ''"}),
    [](const testing::TestParamInfo<ErrorCase>& tpi) { return std::string(tpi.param.name); });

TEST(DecodeTest, LargestFloat32QpsDecodesAndReloadsEqual) {
  auto c = decodeConfig(std::string(kHeader) + "clientConnection:\n  qps: 3.4028235e38\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->clientConnection.qps, std::numeric_limits<float>::max());
  auto again = decodeConfig(encodeConfig(*c));
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->clientConnection.qps, std::numeric_limits<float>::max());
}

// Upstream kube-scheduler v1.34.4 writes `qps: 0.1` for this file (checked with --write-config-to).
TEST(DecodeTest, Float32IsWrittenInItsShortestForm) {
  auto c = decodeConfig(std::string(kHeader) + "clientConnection:\n  qps: 0.1\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  const std::string written = encodeConfig(*c);
  EXPECT_NE(written.find("\n  qps: 0.1\n"), std::string::npos) << written;
  auto again = decodeConfig(written);
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->clientConnection.qps, 0.1f);
}

TEST(DecodeTest, MalformedYamlNamesTheLine) {
  auto c = decodeConfig(std::string(kHeader) + "profiles:\n- schedulerName: a\n  plugins: [\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message().rfind("error converting YAML to JSON: yaml: line ", 0), 0u)
      << c.error().message();
}

TEST(DecodeTest, ValidationRunsAfterDefaulting) {
  auto c = decodeConfig(std::string(kHeader) + "parallelism: 0\npodInitialBackoffSeconds: 0\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(),
            "[parallelism: Invalid value: 0: should be an integer value greater than zero, "
            "podInitialBackoffSeconds: "
            "Invalid value: 0: must be greater than 0]");
}

TEST(DecodeTest, LoadConfigFile) {
  auto missing = loadConfigFile("/nonexistent/ks-config.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "open /nonexistent/ks-config.yaml: no such file or directory");

  std::string path = testing::TempDir() + "ks-config-test.yaml";
  {
    std::ofstream out(path);
    out << kHeader << "parallelism: 4\n";
  }
  auto c = loadConfigFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->parallelism, 4);
}

TEST(DurationTest, ParseAndFormatLikeGo) {
  struct Case {
    const char* text;
    int64_t nanos;
    const char* formatted;
  };
  for (const auto& tc : std::vector<Case>{{"0", 0, "0s"},
                                          {"15s", 15000000000, "15s"},
                                          {"1m30s", 90000000000, "1m30s"},
                                          {"1h", 3600000000000, "1h0m0s"},
                                          {"1.5s", 1500000000, "1.5s"},
                                          {"500ms", 500000000, "500ms"},
                                          {"-2s", -2000000000, "-2s"},
                                          {"1h2m3.004s", 3723004000000, "1h2m3.004s"},
                                          {"10us", 10000, "10\xc2\xb5s"},
                                          {"7ns", 7, "7ns"}}) {
    auto d = parseGoDuration(tc.text);
    ASSERT_TRUE(d.ok()) << tc.text;
    EXPECT_EQ(d->count(), tc.nanos) << tc.text;
    EXPECT_EQ(formatGoDuration(*d), tc.formatted) << tc.text;
  }
  EXPECT_EQ(parseGoDuration("").error().message(), "time: invalid duration \"\"");
  EXPECT_EQ(parseGoDuration("abc").error().message(), "time: invalid duration \"abc\"");
  EXPECT_EQ(parseGoDuration("1").error().message(), "time: missing unit in duration \"1\"");
  EXPECT_EQ(parseGoDuration("1d").error().message(), "time: unknown unit \"d\" in duration \"1d\"");
}

}  // namespace
}  // namespace ks::config
