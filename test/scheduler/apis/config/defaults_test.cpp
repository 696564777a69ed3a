// Defaulting: upstream v1 defaults_test.go (TestSchedulerDefaults, plugin args defaults) and
// default_plugins_test.go (TestApplyFeatureGates, TestMergePlugins) as data tables.

#include <functional>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/apis/config/config.h"

namespace ks::config {

// Readable failures: gtest finds this by ADL instead of dumping the bytes.
void PrintTo(const Plugin& p, std::ostream* os) { *os << p.name << ":" << p.weight; }

namespace {

constexpr const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

KubeSchedulerConfiguration decodeOk(const std::string& yaml) {
  DecodeOptions o;
  o.validate = false;
  auto c = decodeConfig(yaml, o);
  EXPECT_TRUE(c.ok()) << c.error().message();
  return c.ok() ? *c : KubeSchedulerConfiguration{};
}

std::vector<Plugin> defaultMultiPoint() {
  return {{"SchedulingGates", 0},
          {"PrioritySort", 0},
          {"NodeName", 0},
          {"NodeUnschedulable", 0},
          {"TaintToleration", 3},
          {"NodeAffinity", 2},
          {"NodePorts", 0},
          {"NodeResourcesFit", 1},
          {"VolumeRestrictions", 0},
          {"NodeVolumeLimits", 0},
          {"VolumeBinding", 0},
          {"VolumeZone", 0},
          {"PodTopologySpread", 2},
          {"InterPodAffinity", 2},
          {"DynamicResources", 2},
          {"DefaultPreemption", 0},
          {"NodeResourcesBalancedAllocation", 1},
          {"ImageLocality", 1},
          {"DefaultBinder", 0},
          {"NodeDeclaredFeatures", 0}};
}

// Upstream v1.37 TestApplyFeatureGates's default case: NodeName before NodeUnschedulable, DynamicResources
// (with its Score, weight 2) before DefaultPreemption, NodeDeclaredFeatures last.
TEST(DefaultPluginsTest, V137MultiPoint) {
  Plugins p = getDefaultPlugins();
  EXPECT_EQ(p.multiPoint.enabled, defaultMultiPoint());
  EXPECT_TRUE(p.multiPoint.disabled.empty());
  EXPECT_EQ(p.filter, PluginSet{});
}

TEST(DefaultPluginsTest, DynamicResourceAllocationGateOff) {
  FeatureGates fg;
  fg.dynamicResourceAllocation = false;
  auto want = defaultMultiPoint();
  want.erase(want.begin() + 14);
  EXPECT_EQ(getDefaultPlugins(fg).multiPoint.enabled, want);
}

TEST(DefaultPluginsTest, NodeDeclaredFeaturesGateOff) {
  FeatureGates fg;
  fg.nodeDeclaredFeatures = false;
  auto want = defaultMultiPoint();
  want.pop_back();
  EXPECT_EQ(getDefaultPlugins(fg).multiPoint.enabled, want);
}

// Upstream applyGangScheduling: GangScheduling is appended last when GenericWorkload is on.
TEST(DefaultPluginsTest, GenericWorkloadGateOn) {
  FeatureGates fg;
  fg.genericWorkload = true;
  auto want = defaultMultiPoint();
  want.push_back({"GangScheduling", 0});
  EXPECT_EQ(getDefaultPlugins(fg).multiPoint.enabled, want);
}

struct MergeCase {
  const char* name;
  PluginSet defaults;
  PluginSet custom;
  PluginSet want;
};

class MergePluginSetTest : public testing::TestWithParam<MergeCase> {};

TEST_P(MergePluginSetTest, Merges) {
  EXPECT_EQ(mergePluginSet(GetParam().defaults, GetParam().custom), GetParam().want);
}

const PluginSet kDefaultSet{{{"DefaultPlugin1", 0}, {"DefaultPlugin2", 0}}, {}};

INSTANTIATE_TEST_SUITE_P(
    Upstream, MergePluginSetTest,
    testing::Values(
        MergeCase{"DisableDefaultPlugin", kDefaultSet, PluginSet{{}, {{"DefaultPlugin1", 0}}},
                  PluginSet{{{"DefaultPlugin2", 0}}, {{"DefaultPlugin1", 0}}}},
        MergeCase{"AppendCustomPlugin", kDefaultSet, PluginSet{{{"CustomPlugin", 0}}, {}},
                  PluginSet{{{"DefaultPlugin1", 0}, {"DefaultPlugin2", 0}, {"CustomPlugin", 0}}, {}}},
        MergeCase{"InsertAfterDisabledDefault", kDefaultSet,
                  PluginSet{{{"CustomPlugin", 0}, {"DefaultPlugin1", 0}}, {{"DefaultPlugin1", 0}}},
                  PluginSet{{{"DefaultPlugin2", 0}, {"CustomPlugin", 0}, {"DefaultPlugin1", 0}},
                            {{"DefaultPlugin1", 0}}}},
        MergeCase{"ReorderWithDisableAll", kDefaultSet,
                  PluginSet{{{"DefaultPlugin2", 0}, {"DefaultPlugin1", 0}}, {{"*", 0}}},
                  PluginSet{{{"DefaultPlugin2", 0}, {"DefaultPlugin1", 0}}, {{"*", 0}}}},
        MergeCase{"ReconfigureDefaultKeepsPosition",
                  PluginSet{{{"DefaultPlugin1", 1}, {"DefaultPlugin2", 0}, {"DefaultPlugin3", 0}}, {}},
                  PluginSet{{{"DefaultPlugin2", 2}, {"DefaultPlugin1", 3}}, {}},
                  PluginSet{{{"DefaultPlugin1", 3}, {"DefaultPlugin2", 2}, {"DefaultPlugin3", 0}}, {}}},
        MergeCase{
            "DuplicateCustomPluginsAreAppended", kDefaultSet,
            PluginSet{{{"CustomPlugin", 0}, {"CustomPlugin", 0}}, {}},
            PluginSet{
                {{"DefaultPlugin1", 0}, {"DefaultPlugin2", 0}, {"CustomPlugin", 0}, {"CustomPlugin", 0}},
                {}}},
        MergeCase{"DuplicateReconfiguredDefaultLastWins", kDefaultSet,
                  PluginSet{{{"DefaultPlugin1", 2}, {"DefaultPlugin1", 5}}, {}},
                  PluginSet{{{"DefaultPlugin1", 5}, {"DefaultPlugin2", 0}, {"DefaultPlugin1", 2}}, {}}},
        // Not upstream's table: merging the result above again, as loading a written config does. Not
        // idempotent (the weights swap), which is why only configs without duplicates round-trip.
        MergeCase{"MergingAMergedDuplicateSwapsItsWeights", kDefaultSet,
                  PluginSet{{{"DefaultPlugin1", 5}, {"DefaultPlugin2", 0}, {"DefaultPlugin1", 2}}, {}},
                  PluginSet{{{"DefaultPlugin1", 2}, {"DefaultPlugin2", 0}, {"DefaultPlugin1", 5}}, {}}},
        MergeCase{"DefaultDisabledIsKept", PluginSet{{{"DefaultPlugin1", 0}}, {{"DefaultPlugin2", 0}}},
                  PluginSet{{{"DefaultPlugin2", 0}}, {{"DefaultPlugin3", 0}}},
                  PluginSet{{{"DefaultPlugin1", 0}, {"DefaultPlugin2", 0}},
                            {{"DefaultPlugin3", 0}, {"DefaultPlugin2", 0}}}},
        MergeCase{"EmptyCustom", kDefaultSet, PluginSet{}, kDefaultSet},
        MergeCase{"EmptyDefaultsCustomOnly", PluginSet{}, PluginSet{{{"A", 1}}, {{"B", 0}}},
                  PluginSet{{{"A", 1}}, {{"B", 0}}}}),
    [](const testing::TestParamInfo<MergeCase>& tpi) { return std::string(tpi.param.name); });

TEST(MergePluginsTest, EveryPointIsMerged) {
  Plugins custom;
  custom.filter.enabled = {{"CustomFilter", 0}};
  custom.score.disabled = {{"*", 0}};
  custom.multiPoint.enabled = {{"TaintToleration", 7}};
  Plugins merged = mergePlugins(getDefaultPlugins(), custom);
  auto want = defaultMultiPoint();
  want[4].weight = 7;
  EXPECT_EQ(merged.multiPoint.enabled, want);
  EXPECT_EQ(merged.filter.enabled, (std::vector<Plugin>{{"CustomFilter", 0}}));
  EXPECT_EQ(merged.score.disabled, (std::vector<Plugin>{{"*", 0}}));
  EXPECT_TRUE(merged.score.enabled.empty());
}

TEST(SchedulerDefaultsTest, EmptyConfig) {
  auto c = decodeOk(kHeader);
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_TRUE(c.debugging.enableProfiling);
  EXPECT_TRUE(c.debugging.enableContentionProfiling);
  EXPECT_EQ(c.leaderElection, (LeaderElectionConfiguration{true, std::chrono::seconds(15),
                                                           std::chrono::seconds(10), std::chrono::seconds(2),
                                                           "leases", "kube-scheduler", "kube-system"}));
  EXPECT_EQ(c.clientConnection,
            (ClientConnectionConfiguration{"", "", "application/vnd.kubernetes.protobuf", 50, 100}));
  EXPECT_EQ(c.percentageOfNodesToScore, 0);
  EXPECT_EQ(c.podInitialBackoffSeconds, 1);
  EXPECT_EQ(c.podMaxBackoffSeconds, 10);
  EXPECT_FALSE(c.delayCacheUntilActive);
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].schedulerName, "default-scheduler");
  EXPECT_EQ(c.profiles[0].plugins, getDefaultPlugins());
  ASSERT_EQ(c.profiles[0].pluginConfig.size(), 8u);
  std::vector<std::string> names;
  for (const auto& pc : c.profiles[0].pluginConfig) {
    names.push_back(pc.name);
    auto want = newDefaultPluginArgs(pc.name);
    EXPECT_TRUE(pluginArgsEqual(pc.args.get(), want.get())) << pc.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"DefaultPreemption", "DynamicResources", "InterPodAffinity",
                                             "NodeAffinity", "NodeResourcesBalancedAllocation",
                                             "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}));
}

TEST(SchedulerDefaultsTest, ExplicitValuesAreKept) {
  auto c = decodeOk(std::string(kHeader) + R"(parallelism: 8
enableProfiling: false
percentageOfNodesToScore: 20
podInitialBackoffSeconds: 5
podMaxBackoffSeconds: 50
delayCacheUntilActive: true
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  resourceLock: ""
clientConnection:
  qps: 12.5
  burst: 7
  contentType: application/json
  kubeconfig: /k
)");
  EXPECT_EQ(c.parallelism, 8);
  EXPECT_FALSE(c.debugging.enableProfiling);
  EXPECT_FALSE(c.debugging.enableContentionProfiling);  // nil and profiling off -> false
  EXPECT_EQ(c.percentageOfNodesToScore, 20);
  EXPECT_EQ(c.podInitialBackoffSeconds, 5);
  EXPECT_EQ(c.podMaxBackoffSeconds, 50);
  EXPECT_TRUE(c.delayCacheUntilActive);
  EXPECT_FALSE(c.leaderElection.leaderElect);
  EXPECT_EQ(c.leaderElection.leaseDuration, std::chrono::seconds(30));
  EXPECT_EQ(c.leaderElection.resourceLock, "leases");
  EXPECT_EQ(c.clientConnection.qps, 12.5f);
  EXPECT_EQ(c.clientConnection.burst, 7);
  EXPECT_EQ(c.clientConnection.contentType, "application/json");
  EXPECT_EQ(c.clientConnection.kubeconfig, "/k");
}

TEST(SchedulerDefaultsTest, ContentionProfilingExplicit) {
  auto c = decodeOk(std::string(kHeader) + "enableProfiling: false\nenableContentionProfiling: true\n");
  EXPECT_FALSE(c.debugging.enableProfiling);
  EXPECT_TRUE(c.debugging.enableContentionProfiling);
}

TEST(SchedulerDefaultsTest, ZeroValuesAreDefaulted) {
  auto c = decodeOk(std::string(kHeader) + R"(leaderElection:
  leaseDuration: 0s
  renewDeadline: 0s
  retryPeriod: 0s
  resourceName: ""
  resourceNamespace: ""
clientConnection:
  qps: 0
  burst: 0
  contentType: ""
)");
  EXPECT_EQ(c.leaderElection, LeaderElectionConfiguration{});
  EXPECT_EQ(c.clientConnection, ClientConnectionConfiguration{});
}

TEST(SchedulerDefaultsTest, MultipleProfilesGetNoDefaultName) {
  auto c = decodeOk(std::string(kHeader) + "profiles:\n- schedulerName: foo\n- {}\n");
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0].schedulerName, "foo");
  EXPECT_EQ(c.profiles[1].schedulerName, "");
  EXPECT_EQ(c.profiles[1].plugins, getDefaultPlugins());
}

TEST(SchedulerDefaultsTest, ExplicitEmptyNameOnSingleProfileIsKept) {
  auto c = decodeOk(std::string(kHeader) + "profiles:\n- schedulerName: \"\"\n");
  EXPECT_EQ(c.profiles[0].schedulerName, "");
}

TEST(SchedulerDefaultsTest, CustomPluginsAndDisabledDefaultsChangePluginConfig) {
  auto c = decodeOk(std::string(kHeader) + R"(profiles:
- schedulerName: custom
  plugins:
    multiPoint:
      enabled:
      - name: CustomPlugin
      - name: NodeAffinity
        weight: 5
      disabled:
      - name: InterPodAffinity
      - name: DynamicResources
    filter:
      enabled:
      - name: NodeLabel
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 1
          preference:
            matchFields:
            - key: metadata.name
              operator: In
              values: [n1]
)");
  const auto& p = c.profiles[0];
  EXPECT_EQ(p.schedulerName, "custom");
  auto want = defaultMultiPoint();
  want.erase(want.begin() + 14);  // DynamicResources
  want.erase(want.begin() + 13);  // InterPodAffinity
  want[5].weight = 5;             // NodeAffinity keeps its position
  want.push_back({"CustomPlugin", 0});
  EXPECT_EQ(p.plugins.multiPoint.enabled, want);
  EXPECT_EQ(p.plugins.multiPoint.disabled,
            (std::vector<Plugin>{{"InterPodAffinity", 0}, {"DynamicResources", 0}}));
  EXPECT_EQ(p.plugins.filter.enabled, (std::vector<Plugin>{{"NodeLabel", 0}}));
  std::vector<std::string> names;
  for (const auto& pc : p.pluginConfig) names.push_back(pc.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"NodeAffinity", "DefaultPreemption", "NodeResourcesBalancedAllocation",
                                      "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"}));
}

TEST(SchedulerDefaultsTest, DisableAllMultiPointLeavesOnlyCustom) {
  auto c = decodeOk(std::string(kHeader) + R"(profiles:
- plugins:
    multiPoint:
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: VolumeBinding}]
      disabled: [{name: "*"}]
)");
  const auto& p = c.profiles[0];
  EXPECT_EQ(p.plugins.multiPoint.enabled,
            (std::vector<Plugin>{{"PrioritySort", 0}, {"DefaultBinder", 0}, {"VolumeBinding", 0}}));
  ASSERT_EQ(p.pluginConfig.size(), 1u);
  EXPECT_EQ(p.pluginConfig[0].name, "VolumeBinding");
}

struct ArgsDefaultsCase {
  const char* name;
  std::string args;  // YAML under `args:` for the plugin
  const char* plugin;
  std::function<bool(const PluginArgs&)> check;
};

class PluginArgsDefaultsTest : public testing::TestWithParam<ArgsDefaultsCase> {};

TEST_P(PluginArgsDefaultsTest, Defaults) {
  const auto& tc = GetParam();
  auto c = decodeOk(std::string(kHeader) + "profiles:\n- pluginConfig:\n  - name: " + tc.plugin +
                    "\n    args:\n" + tc.args);
  ASSERT_FALSE(c.profiles.empty());
  ASSERT_NE(c.profiles[0].pluginConfig[0].args, nullptr);
  EXPECT_TRUE(tc.check(*c.profiles[0].pluginConfig[0].args));
}

template <typename T>
std::function<bool(const PluginArgs&)> equals(T want) {
  return [want](const PluginArgs& got) { return pluginArgsEqual(&got, &want); };
}

DefaultPreemptionArgs preemption(int32_t pct, int32_t abs) {
  DefaultPreemptionArgs a;
  a.minCandidateNodesPercentage = pct;
  a.minCandidateNodesAbsolute = abs;
  return a;
}

NodeResourcesFitArgs fit(ScoringStrategy s) {
  NodeResourcesFitArgs a;
  a.scoringStrategy = std::move(s);
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, PluginArgsDefaultsTest,
    testing::Values(
        ArgsDefaultsCase{"DefaultPreemptionEmpty", "      {}\n", "DefaultPreemption",
                         equals(preemption(10, 100))},
        ArgsDefaultsCase{"DefaultPreemptionSetOne", "      minCandidateNodesPercentage: 50\n",
                         "DefaultPreemption", equals(preemption(50, 100))},
        ArgsDefaultsCase{"DefaultPreemptionExplicitZero",
                         "      minCandidateNodesPercentage: 0\n      minCandidateNodesAbsolute: 0\n",
                         "DefaultPreemption", equals(preemption(0, 0))},
        ArgsDefaultsCase{"InterPodAffinityExplicitZero", "      hardPodAffinityWeight: 0\n",
                         "InterPodAffinity",
                         [](const PluginArgs& a) {
                           return dynamic_cast<const InterPodAffinityArgs&>(a).hardPodAffinityWeight == 0;
                         }},
        ArgsDefaultsCase{
            "NodeResourcesFitStrategyWithoutResources",
            "      scoringStrategy:\n        type: MostAllocated\n", "NodeResourcesFit",
            equals(fit(ScoringStrategy{"MostAllocated", {{"cpu", 1}, {"memory", 1}}, std::nullopt}))},
        ArgsDefaultsCase{
            "NodeResourcesFitZeroWeights",
            "      scoringStrategy:\n        resources:\n        - name: cpu\n          weight: 0\n"
            "        - name: nvidia.com/gpu\n          weight: 3\n",
            "NodeResourcesFit",
            equals(fit(ScoringStrategy{"", {{"cpu", 1}, {"nvidia.com/gpu", 3}}, std::nullopt}))},
        // StorageCapacityScoring is Beta and on in v1.37: the shape is defaulted.
        ArgsDefaultsCase{"VolumeBindingShapeWithTheDefaultGate", "      bindTimeoutSeconds: 0\n", "VolumeBinding",
                         [](const PluginArgs& a) {
                           const auto& v = dynamic_cast<const VolumeBindingArgs&>(a);
                           return v.bindTimeoutSeconds == 0 &&
                                  v.shape == std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}};
                         }},
        ArgsDefaultsCase{"PodTopologySpreadEmptyType", "      defaultingType: \"\"\n", "PodTopologySpread",
                         [](const PluginArgs& a) {
                           return dynamic_cast<const PodTopologySpreadArgs&>(a).defaultingType == "System";
                         }},
        ArgsDefaultsCase{"BalancedAllocationEmptyList", "      resources: []\n",
                         "NodeResourcesBalancedAllocation",
                         [](const PluginArgs& a) {
                           return dynamic_cast<const NodeResourcesBalancedAllocationArgs&>(a).resources ==
                                  std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}};
                         }}),
    [](const testing::TestParamInfo<ArgsDefaultsCase>& tpi) { return std::string(tpi.param.name); });

TEST(PluginArgsDefaultsTest, StorageCapacityScoringGateDefaultsShape) {
  FeatureGates fg;
  fg.storageCapacityScoring = true;
  auto args = newDefaultPluginArgs("VolumeBinding", fg);
  auto* v = dynamic_cast<VolumeBindingArgs*>(args.get());
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, (std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}}));
  fg.draSchedulerFilterTimeout = false;
  auto dra = newDefaultPluginArgs("DynamicResources", fg);
  EXPECT_FALSE(dynamic_cast<DynamicResourcesArgs*>(dra.get())->filterTimeout.has_value());
  EXPECT_EQ(newDefaultPluginArgs("PrioritySort"), nullptr);
}

}  // namespace
}  // namespace ks::config
