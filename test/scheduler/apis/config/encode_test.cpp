// encodeConfig (--write-config-to) and decode(encode(c)) == c.

#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/apis/config/config.h"

namespace ks::config {
namespace {

constexpr const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

class RoundTripTest : public testing::TestWithParam<std::string> {};

TEST_P(RoundTripTest, DecodeEncodeDecodeIsIdentity) {
  DecodeOptions o;
  o.validate = false;
  auto c = decodeConfig(std::string(kHeader) + GetParam(), o);
  ASSERT_TRUE(c.ok()) << c.error().message();
  std::string yaml = encodeConfig(*c);
  auto again = decodeConfig(yaml, o);
  ASSERT_TRUE(again.ok()) << again.error().message() << "\n" << yaml;
  EXPECT_TRUE(*again == *c) << yaml;
  EXPECT_EQ(encodeConfig(*again), yaml);
}

INSTANTIATE_TEST_SUITE_P(Configs, RoundTripTest,
                         testing::Values(std::string(""), std::string(R"(parallelism: 4
enableProfiling: false
percentageOfNodesToScore: 35
delayCacheUntilActive: true
leaderElection: {leaderElect: false, leaseDuration: 1m30s, renewDeadline: 1.5s}
clientConnection: {qps: 12.5, burst: 3, kubeconfig: /etc/k, acceptContentTypes: application/json}
profiles:
- schedulerName: a
  percentageOfNodesToScore: 0
  plugins:
    multiPoint:
      enabled: [{name: Custom, weight: 4}, {name: ImageLocality, weight: 9}]
      disabled: [{name: NodePorts}]
    filter:
      disabled: [{name: "*"}]
    placementScore:
      enabled: [{name: PodGroupPodsCount, weight: 3}]
    podGroupPostFilter:
      disabled: [{name: DynamicResources}]
  pluginConfig:
  - name: Custom
    args: {x: [1, "two", {y: null}]}
  - name: NoArgs
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/foo]
      ignoredResourceGroups: [example.org]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 3}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 2
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
        minDomains: 3
        nodeAffinityPolicy: Ignore
        nodeTaintsPolicy: Honor
        matchLabelKeys: [app]
        labelSelector:
          matchLabels: {a: b}
          matchExpressions: [{key: c, operator: Exists}]
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
            matchFields: [{key: metadata.name, operator: NotIn, values: [n1]}]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 3
          preference:
            matchExpressions: [{key: disk, operator: Exists}]
  - name: DynamicResources
    args: {filterTimeout: 250ms, bindingTimeout: 90s}
- schedulerName: b
extenders:
- urlPrefix: http://127.0.0.1:8888/
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 2
  bindVerb: bind
  enableHTTPS: true
  httpTimeout: 2s
  nodeCacheCapable: true
  ignorable: true
  managedResources: [{name: example.com/foo, ignoredByScheduler: true}, {name: example.com/bar}]
  tlsConfig: {insecure: true, serverName: s, certFile: c, keyFile: k, caFile: ca, caData: aGVsbG8=}
)")));

TEST(EncodeTest, DefaultConfigLikeWriteConfigTo) {
  auto c = decodeConfig(kHeader);
  ASSERT_TRUE(c.ok()) << c.error().message();
  std::string yaml = encodeConfig(*c);
  for (const char* want : {"apiVersion: kubescheduler.config.k8s.io/v1\n",
                           "kind: KubeSchedulerConfiguration\n",
                           "parallelism: 16\n",
                           "percentageOfNodesToScore: 0\n",
                           "podInitialBackoffSeconds: 1\n",
                           "podMaxBackoffSeconds: 10\n",
                           "enableProfiling: true\n",
                           "enableContentionProfiling: true\n",
                           "  leaseDuration: 15s\n",
                           "  renewDeadline: 10s\n",
                           "  retryPeriod: 2s\n",
                           "  resourceLock: leases\n",
                           "  qps: 50\n",
                           "  burst: 100\n",
                           "  contentType: application/vnd.kubernetes.protobuf\n",
                           "schedulerName: default-scheduler\n",
                           "kind: DefaultPreemptionArgs\n",
                           "minCandidateNodesPercentage: 10\n",
                           "kind: DynamicResourcesArgs\n",
                           "filterTimeout: 10s\n",
                           "bindTimeoutSeconds: 600\n",
                           "defaultingType: System\n",
                           "type: LeastAllocated\n",
                           "ignorePreferredTermsOfExistingPods: false\n",
                           "name: TaintToleration\n"}) {
    EXPECT_NE(yaml.find(want), std::string::npos) << "missing " << want << " in\n" << yaml;
  }
  EXPECT_EQ(yaml.find("delayCacheUntilActive"), std::string::npos);
  EXPECT_EQ(yaml.find("extenders"), std::string::npos);
}

TEST(EncodeTest, ExtenderTlsDataIsBase64) {
  auto c = decodeConfig(std::string(kHeader) +
                        "extenders:\n- urlPrefix: http://x\n  tlsConfig: {certData: aGVsbG8=}\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_TRUE(c->extenders[0].tlsConfig.has_value());
  EXPECT_EQ(c->extenders[0].tlsConfig->certData, "hello");
  EXPECT_EQ(c->extenders[0].httpTimeout.count(), 0);
  EXPECT_NE(encodeConfig(*c).find("certData: aGVsbG8="), std::string::npos);
  auto bad = decodeConfig(std::string(kHeader) +
                          "extenders:\n- urlPrefix: http://x\n  tlsConfig: {caData: \"a!\"}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "extenders[0].tlsConfig.caData: illegal base64 data at input byte 1");
}

}  // namespace
}  // namespace ks::config
