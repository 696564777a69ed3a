#pragma once
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as the scheduler uses it after decoding,
// defaulting and validation. Field names follow the YAML; durations are std::chrono.
// Decoding, defaults, the default plugin set and validation live in config.h.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/core.h"

namespace ks::config {

struct LeaderElectionConfiguration {
  bool leaderElect = true;
  std::chrono::milliseconds leaseDuration{15000};
  std::chrono::milliseconds renewDeadline{10000};
  std::chrono::milliseconds retryPeriod{2000};
  std::string resourceLock = "leases";
  std::string resourceName = "kube-scheduler";
  std::string resourceNamespace = "kube-system";
};

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string acceptContentTypes;
  std::string contentType = "application/vnd.kubernetes.protobuf";
  float qps = 50;
  int32_t burst = 100;
};

struct DebuggingConfiguration {
  bool enableProfiling = true;
  bool enableContentionProfiling = true;
};

// One plugin in a PluginSet; weight matters only for Score (0 means "use the default", i.e. 1).
struct Plugin {
  std::string name;
  int32_t weight = 0;
  bool operator==(const Plugin&) const = default;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // name "*" disables every default plugin of the point
  bool operator==(const PluginSet&) const = default;
};

struct Plugins {
  PluginSet preEnqueue;
  PluginSet queueSort;
  PluginSet preFilter;
  PluginSet filter;
  PluginSet postFilter;
  PluginSet preScore;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet preBind;
  PluginSet bind;
  PluginSet postBind;
  PluginSet multiPoint;
  bool operator==(const Plugins&) const = default;
};

// Typed plugin arguments. Each plugin that takes arguments has one subclass; a factory receives the
// decoded and defaulted args (or nullptr for plugins without args) and downcasts to its own type.
struct PluginArgs {
  virtual ~PluginArgs() = default;
};

struct PluginConfig {
  std::string name;
  std::shared_ptr<const PluginArgs> args;
};

struct KubeSchedulerProfile {
  std::string schedulerName = "default-scheduler";
  std::optional<int32_t> percentageOfNodesToScore;
  // After defaulting, as upstream: the default plugins merged with the user's (multiPoint plus any
  // explicitly configured points). The Framework expands multiPoint per extension point.
  Plugins plugins;
  std::vector<PluginConfig> pluginConfig;
};

struct ExtenderManagedResource {
  std::string name;
  bool ignoredByScheduler = false;
};

struct ExtenderTLSConfig {
  bool insecure = false;
  std::string serverName;
  std::string certFile;
  std::string keyFile;
  std::string caFile;
};

struct Extender {
  std::string urlPrefix;
  std::string filterVerb;
  std::string preemptVerb;
  std::string prioritizeVerb;
  int64_t weight = 0;
  std::string bindVerb;
  bool enableHTTPS = false;
  std::optional<ExtenderTLSConfig> tlsConfig;
  std::chrono::milliseconds httpTimeout{30000};
  bool nodeCacheCapable = false;
  std::vector<ExtenderManagedResource> managedResources;
  bool ignorable = false;
};

struct KubeSchedulerConfiguration {
  int32_t parallelism = 16;
  LeaderElectionConfiguration leaderElection;
  ClientConnectionConfiguration clientConnection;
  DebuggingConfiguration debugging;
  std::optional<int32_t> percentageOfNodesToScore;  // unset/0 = adaptive
  int64_t podInitialBackoffSeconds = 1;
  int64_t podMaxBackoffSeconds = 10;
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delayCacheUntilActive = false;
};

// ---- Typed args of the in-tree plugins, with upstream v1.34 defaults ----

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
  bool operator==(const ResourceSpec&) const = default;
};

struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;
  bool operator==(const UtilizationShapePoint&) const = default;
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  bool operator==(const RequestedToCapacityRatioParam&) const = default;
};

struct ScoringStrategy {
  std::string type = "LeastAllocated";  // LeastAllocated, MostAllocated, RequestedToCapacityRatio
  std::vector<ResourceSpec> resources{{"cpu", 1}, {"memory", 1}};
  std::optional<RequestedToCapacityRatioParam> requestedToCapacityRatio;
  bool operator==(const ScoringStrategy&) const = default;
};

struct NodeResourcesFitArgs final : PluginArgs {
  std::vector<std::string> ignoredResources;
  std::vector<std::string> ignoredResourceGroups;
  ScoringStrategy scoringStrategy;
};

struct NodeResourcesBalancedAllocationArgs final : PluginArgs {
  std::vector<ResourceSpec> resources{{"cpu", 1}, {"memory", 1}};
};

struct DefaultPreemptionArgs final : PluginArgs {
  int32_t minCandidateNodesPercentage = 10;
  int32_t minCandidateNodesAbsolute = 100;
};

struct InterPodAffinityArgs final : PluginArgs {
  int32_t hardPodAffinityWeight = 1;
  bool ignorePreferredTermsOfExistingPods = false;
};

struct NodeAffinityArgs final : PluginArgs {
  std::optional<api::NodeAffinity> addedAffinity;
};

struct PodTopologySpreadArgs final : PluginArgs {
  std::vector<api::TopologySpreadConstraint> defaultConstraints;
  std::string defaultingType = "System";  // System or List
};

struct VolumeBindingArgs final : PluginArgs {
  int64_t bindTimeoutSeconds = 600;
  std::vector<UtilizationShapePoint> shape;
};

struct DynamicResourcesArgs final : PluginArgs {
  std::chrono::milliseconds filterTimeout{10000};
};

}  // namespace ks::config
