// Per-plugin args validation: upstream validation_pluginargs_test.go tables, asserting the full messages.

#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/apis/config/validation.h"

namespace ks::config {
namespace {

template <typename T>
struct Case {
  const char* name;
  T args;
  std::string wantErr;
};

DefaultPreemptionArgs dp(int32_t pct, int32_t abs) {
  DefaultPreemptionArgs a;
  a.minCandidateNodesPercentage = pct;
  a.minCandidateNodesAbsolute = abs;
  return a;
}

TEST(ValidatePluginArgsTest, DefaultPreemption) {
  for (const auto& tc : std::vector<Case<DefaultPreemptionArgs>>{
           {"valid args (default)", dp(10, 100), ""},
           {"negative minCandidateNodesPercentage", dp(-1, 100),
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"},
           {"minCandidateNodesPercentage over 100", dp(900, 100),
            "minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"},
           {"negative minCandidateNodesAbsolute", dp(20, -1),
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"},
           {"all zero", dp(0, 0),
            "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the "
            "same time "
            "as minCandidateNodesPercentage]"},
           {"both out-of-range", dp(-1, -1),
            "[minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100], "
            "minCandidateNodesAbsolute: "
            "Invalid value: -1: not in valid range [0, inf)]"},
       }) {
    EXPECT_EQ(aggregateMessage(validateDefaultPreemptionArgs("", tc.args)), tc.wantErr) << tc.name;
  }
}

TEST(ValidatePluginArgsTest, InterPodAffinity) {
  auto ipa = [](int32_t w) {
    InterPodAffinityArgs a;
    a.hardPodAffinityWeight = w;
    return a;
  };
  for (const auto& tc : std::vector<Case<InterPodAffinityArgs>>{
           {"valid args", ipa(10), ""},
           {"hardPodAffinityWeight less than min", ipa(-1),
            "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"},
           {"hardPodAffinityWeight more than max", ipa(101),
            "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
       }) {
    EXPECT_EQ(aggregateMessage(validateInterPodAffinityArgs("", tc.args)), tc.wantErr) << tc.name;
  }
}

api::TopologySpreadConstraint tsc(int32_t skew, std::string key, std::string when) {
  api::TopologySpreadConstraint c;
  c.maxSkew = skew;
  c.topologyKey = std::move(key);
  c.whenUnsatisfiable = std::move(when);
  return c;
}

PodTopologySpreadArgs pts(std::vector<api::TopologySpreadConstraint> cs, std::string type = "List") {
  PodTopologySpreadArgs a;
  a.defaultConstraints = std::move(cs);
  a.defaultingType = std::move(type);
  return a;
}

TEST(ValidatePluginArgsTest, PodTopologySpread) {
  auto withSelector = tsc(1, "key", "DoNotSchedule");
  withSelector.labelSelector = api::LabelSelector{{{"a", "b"}}, {}};
  for (const auto& tc : std::vector<Case<PodTopologySpreadArgs>>{
           {"valid config", pts({tsc(1, "node", "DoNotSchedule"), tsc(2, "zone", "ScheduleAnyway")}), ""},
           {"maxSkew less than zero", pts({tsc(-1, "node", "DoNotSchedule")}),
            "defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"},
           {"empty topology key", pts({tsc(1, "", "DoNotSchedule")}),
            "defaultConstraints[0].topologyKey: Required value: can not be empty"},
           {"whenUnsatisfiable is empty", pts({tsc(1, "node", "")}),
            "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"},
           {"whenUnsatisfiable contains unsupported action", pts({tsc(1, "node", "unknown action")}),
            "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"unknown action\": supported "
            "values: "
            "\"DoNotSchedule\", \"ScheduleAnyway\""},
           {"duplicated constraints", pts({tsc(1, "node", "DoNotSchedule"), tsc(2, "node", "DoNotSchedule")}),
            "defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\""},
           {"label selector present", pts({withSelector}),
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
            "deduced "
            "for each pod"},
           {"list default constraints, no constraints", pts({}), ""},
           {"system default constraints", pts({}, "System"), ""},
           {"wrong constraints", pts({}, "Foo"),
            "defaultingType: Unsupported value: \"Foo\": supported values: \"System\", \"List\""},
           {"system default constraints, but has constraints",
            pts({tsc(1, "key", "DoNotSchedule")}, "System"),
            "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"},
           {"invalid topology key", pts({tsc(1, "-bad", "DoNotSchedule")}),
            "defaultConstraints[0].topologyKey: Invalid value: \"-bad\": name part must consist of "
            "alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
       }) {
    EXPECT_EQ(aggregateMessage(validatePodTopologySpreadArgs("", tc.args)), tc.wantErr) << tc.name;
  }
}

NodeResourcesFitArgs fitArgs(ScoringStrategy s, std::vector<std::string> ignored = {},
                             std::vector<std::string> groups = {}) {
  NodeResourcesFitArgs a;
  a.scoringStrategy = std::move(s);
  a.ignoredResources = std::move(ignored);
  a.ignoredResourceGroups = std::move(groups);
  return a;
}

ScoringStrategy strategy(std::string type, std::vector<ResourceSpec> rs = {{"cpu", 1}},
                         std::optional<std::vector<UtilizationShapePoint>> shape = std::nullopt) {
  ScoringStrategy s;
  s.type = std::move(type);
  s.resources = std::move(rs);
  if (shape) s.requestedToCapacityRatio = RequestedToCapacityRatioParam{*shape};
  return s;
}

TEST(ValidatePluginArgsTest, NodeResourcesFit) {
  const std::string nameMsg =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  for (const auto& tc : std::vector<Case<NodeResourcesFitArgs>>{
           {"IgnoredResources: too long value", fitArgs(strategy("LeastAllocated"), {std::string(64, 'a')}),
            "ignoredResources[0]: Invalid value: \"" + std::string(64, 'a') +
                "\": name part must be no more than 63 characters"},
           {"IgnoredResources: name is empty", fitArgs(strategy("LeastAllocated"), {"example.com/"}),
            "[ignoredResources[0]: Invalid value: \"example.com/\": name part must be non-empty, "
            "ignoredResources[0]: "
            "Invalid value: \"example.com/\": " +
                nameMsg + "]"},
           {"IgnoredResources: name has too many slash",
            fitArgs(strategy("LeastAllocated"), {"example.com/aaa/bbb"}),
            "ignoredResources[0]: Invalid value: \"example.com/aaa/bbb\": a qualified name must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. "
            "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
            "'example.com/MyName')"},
           {"IgnoredResources: valid args", fitArgs(strategy("LeastAllocated"), {"example.com"}), ""},
           {"IgnoredResourceGroups: valid args", fitArgs(strategy("LeastAllocated"), {}, {"example.com"}),
            ""},
           {"IgnoredResourceGroups: illegal args", fitArgs(strategy("LeastAllocated"), {}, {"example.com/"}),
            "[ignoredResourceGroups[0]: Invalid value: \"example.com/\": resource group name can't contain "
            "'/', "
            "ignoredResourceGroups[0]: Invalid value: \"example.com/\": name part must be non-empty, "
            "ignoredResourceGroups[0]: Invalid value: \"example.com/\": " +
                nameMsg + "]"},
           {"IgnoredResourceGroups: name is too long",
            fitArgs(strategy("LeastAllocated"), {}, {std::string(64, 'a')}),
            "ignoredResourceGroups[0]: Invalid value: \"" + std::string(64, 'a') +
                "\": name part must be no more than 63 characters"},
           {"IgnoredResourceGroups: name cannot contain slash",
            fitArgs(strategy("LeastAllocated"), {}, {"example.com/aa"}),
            "ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name can't contain "
            "'/'"},
           {"ScoringStrategy: type is unsupported", fitArgs(strategy("Invalid")),
            "scoringStrategy.type: Unsupported value: \"Invalid\": supported values: \"LeastAllocated\", "
            "\"MostAllocated\", \"RequestedToCapacityRatio\""},
           {"ScoringStrategy: resources weight is out of range",
            fitArgs(strategy("MostAllocated", {{"cpu", 0}})),
            "scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid "
            "range (0, 100]"},
           {"ScoringStrategy: resources weight over max", fitArgs(strategy("MostAllocated", {{"cpu", 101}})),
            "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid "
            "range (0, 100]"},
           {"ScoringStrategy: RequestedToCapacityRatio missing",
            fitArgs(strategy("RequestedToCapacityRatio")),
            "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is "
            "RequestedToCapacityRatio"},
           {"ScoringStrategy: RequestedToCapacityRatio with other type",
            fitArgs(strategy("LeastAllocated", {{"cpu", 1}}, std::vector<UtilizationShapePoint>{{0, 10}})),
            "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not "
            "RequestedToCapacityRatio"},
           {"ScoringStrategy: valid RequestedToCapacityRatio",
            fitArgs(strategy("RequestedToCapacityRatio", {{"cpu", 1}},
                             std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}})),
            ""},
           {"ScoringStrategy: RequestedToCapacityRatio empty shape",
            fitArgs(strategy("RequestedToCapacityRatio", {{"cpu", 1}}, std::vector<UtilizationShapePoint>{})),
            "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be "
            "specified"},
           {"ScoringStrategy: RequestedToCapacityRatio bad shape",
            fitArgs(strategy("RequestedToCapacityRatio", {{"cpu", 1}},
                             std::vector<UtilizationShapePoint>{{30, 3}, {20, 11}, {110, -1}})),
            "[scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 20: values must "
            "be sorted "
            "in increasing order, scoringStrategy.requestedToCapacityRatio.shape[1].score: Invalid value: "
            "11: not in "
            "valid range [0, 10], scoringStrategy.requestedToCapacityRatio.shape[2].utilization: Invalid "
            "value: 110: "
            "not in valid range [0, 100], scoringStrategy.requestedToCapacityRatio.shape[2].score: Invalid "
            "value: -1: "
            "not in valid range [0, 10]]"},
       }) {
    EXPECT_EQ(aggregateMessage(validateNodeResourcesFitArgs("", tc.args)), tc.wantErr) << tc.name;
  }
}

TEST(ValidatePluginArgsTest, NodeResourcesBalancedAllocation) {
  auto ba = [](std::vector<ResourceSpec> rs) {
    NodeResourcesBalancedAllocationArgs a;
    a.resources = std::move(rs);
    return a;
  };
  for (const auto& tc : std::vector<Case<NodeResourcesBalancedAllocationArgs>>{
           {"valid config", ba({{"cpu", 1}, {"memory", 1}}), ""},
           {"invalid config", ba({{"cpu", 2}, {"memory", 1}}),
            "resources[0].weight: Invalid value: 2: must be 1"},
           {"repeated resources", ba({{"cpu", 1}, {"cpu", 1}}),
            "resources[1].name: Duplicate value: \"cpu\""},
       }) {
    EXPECT_EQ(aggregateMessage(validateNodeResourcesBalancedAllocationArgs("", tc.args)), tc.wantErr)
        << tc.name;
  }
}

NodeAffinityArgs affinity(std::vector<api::NodeSelectorTerm> required,
                          std::vector<api::PreferredSchedulingTerm> preferred) {
  NodeAffinityArgs a;
  api::NodeAffinity na;
  if (!required.empty())
    na.requiredDuringSchedulingIgnoredDuringExecution = api::NodeSelector{std::move(required)};
  na.preferredDuringSchedulingIgnoredDuringExecution = std::move(preferred);
  a.addedAffinity = std::move(na);
  return a;
}

TEST(ValidatePluginArgsTest, NodeAffinity) {
  const std::string base = "addedAffinity.";
  for (const auto& tc : std::vector<Case<NodeAffinityArgs>>{
           {"empty", NodeAffinityArgs{}, ""},
           {"valid added affinity",
            affinity({api::NodeSelectorTerm{{{"label-1", "In", {"label-1-val"}}}, {}}},
                     {api::PreferredSchedulingTerm{
                         1, api::NodeSelectorTerm{{}, {{"metadata.name", "In", {"node-1"}}}}}}),
            ""},
           {"invalid added affinity",
            affinity({api::NodeSelectorTerm{{{"invalid/label/key", "In", {"label-1-val"}}}, {}}},
                     {api::PreferredSchedulingTerm{
                         1, api::NodeSelectorTerm{{}, {{"metadata.name", "In", {"node-1", "node-2"}}}}}}),
            "[addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[0].key: "
            "Invalid value: \"invalid/label/key\": a qualified name must consist of alphanumeric characters, "
            "'-', '_' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
            "or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
            "optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName'), "
            "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: Invalid "
            "value: "
            "[]string{\"node-1\", \"node-2\"}: must have one element]"},
           {"unsupported operators",
            affinity({api::NodeSelectorTerm{{{"k", "Foo", {}}}, {{"metadata.name", "Exists", {}}}}}, {}),
            "[addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[0]."
            "operator: Unsupported value: \"Foo\": supported values: \"In\", \"NotIn\", \"Exists\", "
            "\"DoesNotExist\", "
            "\"Gt\", \"Lt\", "
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", \"NotIn\"]"},
           {"values rules",
            affinity({api::NodeSelectorTerm{{{"a", "In", {}},
                                             {"b", "Exists", {"x"}},
                                             {"c", "Gt", {"1", "y"}},
                                             {"d", "NotIn", {"-bad"}}},
                                            {}}},
                     {api::PreferredSchedulingTerm{0, api::NodeSelectorTerm{{{"ignored", "Foo", {}}}, {}}}}),
            "[addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[0]."
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty, "
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[1]."
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist, "
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[2]."
            "values: Invalid value: []string{\"1\", \"y\"}: for 'Gt', 'Lt' operators, exactly one value is "
            "required, "
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[2]."
            "values[1]: Invalid value: \"y\": for 'Gt', 'Lt' operators, the value must be an integer, "
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[3]."
            "values[0][d]: Invalid value: \"-bad\": a valid label must be an empty string or consist of "
            "alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"},
       }) {
    EXPECT_EQ(aggregateMessage(validateNodeAffinityArgs("", tc.args)), tc.wantErr) << tc.name;
  }
}

TEST(ValidatePluginArgsTest, VolumeBinding) {
  auto vb = [](int64_t timeout, std::vector<UtilizationShapePoint> shape = {}) {
    VolumeBindingArgs a;
    a.bindTimeoutSeconds = timeout;
    a.shape = std::move(shape);
    return a;
  };
  FeatureGates off;
  off.storageCapacityScoring = false;
  FeatureGates on;
  on.storageCapacityScoring = true;
  struct VCase {
    const char* name;
    VolumeBindingArgs args;
    FeatureGates gates;
    std::string wantErr;
  };
  for (const auto& tc : std::vector<VCase>{
           {"zero is a valid config", vb(0), off, ""},
           {"positive value is valid config", vb(10), off, ""},
           {"negative value is invalid config", vb(-10), off,
            "bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative "
            "value"},
           {"shape should be nil when the feature is off", vb(10, {{0, 0}, {100, 10}}), off,
            "shape: Invalid value: "
            "[]config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:0, Score:0}, "
            "config.UtilizationShapePoint{Utilization:100, Score:10}}: unexpected field `shape`, remove it "
            "or turn on "
            "the feature gate StorageCapacityScoring"},
           {"shape should not be empty", vb(10), on,
            "shape: Required value: at least one point must be specified"},
           {"shape points must be sorted in increasing order", vb(10, {{10, 0}, {5, 10}}), on,
            "shape[1].utilization: Invalid value: 5: values must be sorted in increasing order"},
           {"shape point: invalid utilization and score", vb(10, {{-1, 0}, {100, 11}}), on,
            "[shape[0].utilization: Invalid value: -1: not in valid range [0, 100], shape[1].score: Invalid "
            "value: 11: "
            "not in valid range [0, 10]]"},
           {"valid shape", vb(10, {{0, 0}, {100, 10}}), on, ""},
       }) {
    EXPECT_EQ(aggregateMessage(validateVolumeBindingArgs("", tc.args, tc.gates)), tc.wantErr) << tc.name;
  }
}

TEST(ValidatePluginArgsTest, DynamicResources) {
  DynamicResourcesArgs negative;
  negative.filterTimeout = std::chrono::seconds(-1);
  DynamicResourcesArgs zero;
  zero.filterTimeout = std::chrono::seconds(0);
  FeatureGates off;
  off.draSchedulerFilterTimeout = false;
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", DynamicResourcesArgs{})), "");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", zero)), "");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", negative)),
            "filterTimeout: Invalid value: -1s: must be zero or positive");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", zero, off)),
            "filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", DynamicResourcesArgs{}, off)), "");
}

// Upstream v1.37 TestValidateDynamicResourcesArgs, the BindingTimeout cases (messages from the validation
// code: its test ignores the detail).
TEST(ValidatePluginArgsTest, DynamicResourcesBindingTimeout) {
  auto withBinding = [](std::chrono::milliseconds t) {
    DynamicResourcesArgs a;
    a.bindingTimeout = t;
    return a;
  };
  FeatureGates on;
  on.draDeviceBindingConditions = true;
  on.draResourceClaimDeviceStatus = true;
  FeatureGates noBindingConditions = on;
  noBindingConditions.draDeviceBindingConditions = false;
  FeatureGates noDeviceStatus = on;
  noDeviceStatus.draResourceClaimDeviceStatus = false;
  DynamicResourcesArgs defaults;
  defaults.filterTimeout = std::chrono::seconds(10);
  defaults.bindingTimeout = std::chrono::seconds(600);
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", defaults, on)), "");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(30)), on)), "");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(1)), on)), "");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(0)), on)),
            "bindingTimeout: Invalid value: 0s: must be at least 1 second");
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(-1)), on)),
            "bindingTimeout: Invalid value: -1s: must be at least 1 second");
  const std::string forbidden =
      "bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is "
      "disabled";
  EXPECT_EQ(aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(1)),
                                                          noBindingConditions)),
            forbidden);
  EXPECT_EQ(
      aggregateMessage(validateDynamicResourcesArgs("", withBinding(std::chrono::seconds(1)), noDeviceStatus)),
      forbidden);
}

TEST(ValidatePluginArgsTest, PathPrefix) {
  EXPECT_EQ(aggregateMessage(validateInterPodAffinityArgs("profiles[0].pluginConfig[2].args",
                                                          [] {
                                                            InterPodAffinityArgs a;
                                                            a.hardPodAffinityWeight = 200;
                                                            return a;
                                                          }())),
            "profiles[0].pluginConfig[2].args.hardPodAffinityWeight: Invalid value: 200: not in valid range "
            "[0, 100]");
}

}  // namespace
}  // namespace ks::config
