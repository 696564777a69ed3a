// ValidateKubeSchedulerConfiguration: upstream validation_test.go cases as (mutation, expected errors) rows.

#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/validation.h"

namespace ks::config {
namespace {

// The upstream test's validConfig: two profiles, one extender, leader election on.
KubeSchedulerConfiguration validConfig() {
  DecodeOptions o;
  o.validate = false;
  auto c = decodeConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 8
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 1
leaderElection:
  resourceNamespace: name
  resourceName: name
clientConnection:
  contentType: application/json
  qps: 10
  burst: 10
profiles:
- schedulerName: me
  plugins:
    queueSort:
      enabled: [{name: CustomSort}]
    score:
      disabled: [{name: "*"}]
  pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesAbsolute: 50, minCandidateNodesPercentage: 50}
- schedulerName: other
  plugins:
    queueSort:
      enabled: [{name: CustomSort}]
    bind:
      enabled: [{name: CustomBind}]
extenders:
- prioritizeVerb: prioritize
  weight: 1
)",
                        o);
  EXPECT_TRUE(c.ok()) << c.error().message();
  return *c;
}

struct Case {
  const char* name;
  std::function<void(KubeSchedulerConfiguration&)> mutate;
  std::string wantErr;  // "" = valid
};

class ValidateConfigTest : public testing::TestWithParam<Case> {};

TEST_P(ValidateConfigTest, Messages) {
  auto c = validConfig();
  GetParam().mutate(c);
  EXPECT_EQ(aggregateMessage(validateKubeSchedulerConfiguration(c)), GetParam().wantErr);
}

DefaultPreemptionArgs badPreemption() {
  DefaultPreemptionArgs a;
  a.minCandidateNodesPercentage = -1;
  a.minCandidateNodesAbsolute = 100;
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, ValidateConfigTest,
    testing::Values(
        Case{"Valid", [](auto&) {}, ""},
        Case{"ResourceLockNotLeases", [](auto& c) { c.leaderElection.resourceLock = "configmap"; },
             "leaderElection.resourceLock: Invalid value: \"configmap\": resourceLock value must be "
             "\"leases\""},
        Case{"ResourceLockIgnoredWithoutLeaderElection",
             [](auto& c) {
               c.leaderElection.leaderElect = false;
               c.leaderElection.resourceLock = "configmap";
             },
             ""},
        Case{"BadResourceNamespace", [](auto& c) { c.leaderElection.resourceNamespace = ""; },
             "leaderElection.resourceNamespace: Invalid value: \"\": resourceNamespace is required"},
        Case{"BadResourceName", [](auto& c) { c.leaderElection.resourceName = ""; },
             "leaderElection.resourceName: Invalid value: \"\": resourceName is required"},
        Case{"EnableLeaderElectionZeroRetryPeriod",
             [](auto& c) { c.leaderElection.retryPeriod = std::chrono::milliseconds(0); },
             "leaderElection.retryPeriod: Invalid value: 0s: must be greater than zero"},
        Case{"RenewDeadlineNotLessThanLease",
             [](auto& c) { c.leaderElection.renewDeadline = std::chrono::seconds(15); },
             "leaderElection.leaseDuration: Invalid value: 15s: LeaseDuration must be greater than "
             "RenewDeadline"},
        Case{"ZeroLeaseDuration",
             [](auto& c) { c.leaderElection.leaseDuration = std::chrono::milliseconds(0); },
             "[leaderElection.leaseDuration: Invalid value: 0s: must be greater than zero, "
             "leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than "
             "RenewDeadline]"},
        Case{"NegativeBurst", [](auto& c) { c.clientConnection.burst = -1; },
             "clientConnection.burst: Invalid value: -1: must be non-negative"},
        Case{"BadParallelism", [](auto& c) { c.parallelism = 0; },
             "parallelism: Invalid value: 0: should be an integer value greater than zero"},
        Case{"BadPercentageOfNodesToScore", [](auto& c) { c.percentageOfNodesToScore = 200; },
             "percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]"},
        Case{"BadProfilePercentageOfNodesToScore",
             [](auto& c) { c.profiles[1].percentageOfNodesToScore = -1; },
             "profiles[1].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"},
        Case{"ZeroInitialBackoff", [](auto& c) { c.podInitialBackoffSeconds = 0; },
             "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"},
        Case{"MaxBackoffLessThanInitial",
             [](auto& c) {
               c.podInitialBackoffSeconds = 3;
               c.podMaxBackoffSeconds = 1;
             },
             "podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal to "
             "PodInitialBackoffSeconds"},
        Case{"NoProfiles", [](auto& c) { c.profiles.clear(); }, "profiles: Required value"},
        Case{"EmptySchedulerName", [](auto& c) { c.profiles[0].schedulerName = ""; },
             "profiles[0].schedulerName: Required value"},
        Case{"RepeatedSchedulerName", [](auto& c) { c.profiles[1].schedulerName = "me"; },
             "profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName"},
        Case{"DifferentQueueSort",
             [](auto& c) {
               c.profiles[1].plugins.queueSort = PluginSet{{{"AnotherSort", 0}}, {}};
             },
             "profiles[1].plugins.queueSort: Invalid value: "
             "config.PluginSet{Enabled:[]config.Plugin{config.Plugin"
             "{Name:\"AnotherSort\", Weight:0}}, Disabled:[]config.Plugin(nil)}: must be the same for all "
             "profiles"},
        Case{"OneQueueSortOnly",
             [](auto& c) {
               c.profiles[0].plugins.queueSort.enabled.push_back({"Second", 0});
               c.profiles[1].plugins.queueSort = c.profiles[0].plugins.queueSort;
             },
             "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be "
             "enabled"},
        Case{"DifferentQueueSortArgs",
             [](auto& c) {
               auto a = std::make_shared<OpaqueArgs>();
               a->json = R"({"a":1})";
               auto b = std::make_shared<OpaqueArgs>();
               b->json = R"({"a":2})";
               c.profiles[0].pluginConfig.push_back({"CustomSort", a});
               c.profiles[1].pluginConfig.push_back({"CustomSort", b});
             },
             "profiles[1].pluginConfig.args: Invalid value: runtime.Unknown{Raw:\"{\\\"a\\\":2}\"}: "
             "queueSort must "
             "be the same for all profiles"},
        Case{"BadPluginArgs",
             [](auto& c) {
               c.profiles[0].pluginConfig[0].args = std::make_shared<DefaultPreemptionArgs>(badPreemption());
             },
             "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: -1: not in valid "
             "range "
             "[0, 100]"},
        Case{"ArgsTypeMismatch",
             [](auto& c) { c.profiles[0].pluginConfig[0].args = std::make_shared<InterPodAffinityArgs>(); },
             "profiles[0].pluginConfig[0].args: Invalid value: {...}: has to match plugin args"},
        Case{"DuplicatedPluginConfig",
             [](auto& c) { c.profiles[0].pluginConfig.push_back(c.profiles[0].pluginConfig[0]); },
             "profiles[0].pluginConfig[8]: Duplicate value: \"DefaultPreemption\""},
        Case{"RemovedPluginInFilter",
             [](auto& c) {
               c.profiles[0].plugins.filter.enabled.push_back({"AzureDiskLimits", 0});
             },
             "profiles[0].plugins.filter.enabled[0]: Invalid value: \"AzureDiskLimits\": was invalid in "
             "version "
             "\"v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"},
        Case{"RemovedPluginInPluginConfig",
             [](auto& c) {
               c.profiles[0].pluginConfig.push_back({"EBSLimits", nullptr});
             },
             "profiles[0].pluginConfig[8]: Invalid value: \"EBSLimits\": was invalid in version \"v1\" "
             "(KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"},
        Case{"ExtenderNegativeWeight", [](auto& c) { c.extenders[0].weight = -1; },
             "extenders[0].weight: Invalid value: -1: must have a positive weight applied to it"},
        Case{"OnlyOneExtenderCanBind",
             [](auto& c) {
               c.extenders[0].bindVerb = "bar";
               c.extenders.push_back(c.extenders[0]);
             },
             "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
             "implement bind"},
        Case{
            "ExtenderManagedResources",
            [](auto& c) {
              c.extenders[0].managedResources = {{"example.com/foo", false},
                                                 {"example.com/foo", true},
                                                 {"cpu", false},
                                                 {"kubernetes.io/foo", false},
                                                 {"a/b/c", false}};
            },
            "[extenders[0].managedResources[1].name: Invalid value: \"example.com/foo\": duplicate extender "
            "managed "
            "resource name, extenders[0].managedResources[2].name: Invalid value: \"cpu\": is an invalid "
            "extended "
            "resource name, extenders[0].managedResources[3].name: Invalid value: \"kubernetes.io/foo\": is "
            "an "
            "invalid extended resource name, extenders[0].managedResources[4].name: Invalid value: "
            "\"a/b/c\": a "
            "qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with "
            "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
            "'example.com/MyName')]"},
        Case{"SeveralErrorsInUpstreamOrder",
             [](auto& c) {
               c.parallelism = -1;
               c.profiles[1].schedulerName = "";
               c.podMaxBackoffSeconds = 0;
               c.clientConnection.burst = -2;
             },
             "[clientConnection.burst: Invalid value: -2: must be non-negative, parallelism: Invalid value: "
             "-1: "
             "should be an integer value greater than zero, profiles[1].schedulerName: Required value, "
             "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
             "PodInitialBackoffSeconds]"}),
    [](const testing::TestParamInfo<Case>& tpi) { return std::string(tpi.param.name); });

TEST(ValidateConfigTest, DefaultConfigIsValid) {
  auto c = decodeConfig("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_TRUE(validateKubeSchedulerConfiguration(*c).empty());
}

TEST(ValidateConfigTest, NodeResourcesFitArgsAreNotValidatedHereLikeUpstream) {
  auto c = validConfig();
  NodeResourcesFitArgs bad;
  bad.scoringStrategy.type = "Foo";
  for (auto& pc : c.profiles[0].pluginConfig) {
    if (pc.name == "NodeResourcesFit") pc.args = std::make_shared<NodeResourcesFitArgs>(bad);
  }
  EXPECT_TRUE(validateKubeSchedulerConfiguration(c).empty());
  EXPECT_EQ(aggregateMessage(validateNodeResourcesFitArgs("", bad)),
            "scoringStrategy.type: Unsupported value: \"Foo\": supported values: \"LeastAllocated\", "
            "\"MostAllocated\", \"RequestedToCapacityRatio\"");
}

TEST(ValidateConfigTest, AggregateDeduplicates) {
  FieldErrors errs{{FieldError::Type::kRequired, "a", "", ""}, {FieldError::Type::kRequired, "a", "", ""}};
  EXPECT_EQ(aggregateMessage(errs), "a: Required value");
  EXPECT_EQ(aggregateMessage({}), "");
}

}  // namespace
}  // namespace ks::config
