#pragma once
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as the scheduler uses it after decoding,
// defaulting and validation. Field names follow the YAML; durations are std::chrono.
// Decoding, defaults, the default plugin set and validation live in config.h.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
  bool operator==(const LeaderElectionConfiguration&) const = default;
};

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string acceptContentTypes;
  std::string contentType = "application/vnd.kubernetes.protobuf";
  float qps = 50;
  int32_t burst = 100;
  bool operator==(const ClientConnectionConfiguration&) const = default;
};

struct DebuggingConfiguration {
  bool enableProfiling = true;
  bool enableContentionProfiling = true;
  bool operator==(const DebuggingConfiguration&) const = default;
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
  // The pod-group cycle's points (v1.37). Only GenericWorkload / TopologyAwareWorkloadScheduling run them;
  // kube-scheduler-cpp refuses those gates, but a profile may name them and gets them checked and written
  // back as upstream does.
  PluginSet placementGenerate;
  PluginSet placementScore;
  PluginSet podGroupPostFilter;
  bool operator==(const Plugins&) const = default;
};

// Each PluginSet of Plugins with its YAML field name, in the v1 API's order, so code that treats every
// set alike (decode, encode, defaulting, validation, the framework) walks one list instead of naming
// sixteen fields. Upstream leaves a few sets out of two of its own walks; the flags say which.
struct PluginsField {
  std::string_view name;
  PluginSet Plugins::*set;
  // Checked for plugins removed from the API (validatePluginSetForInvalidPlugins's map).
  bool checkedForRemovedPlugins = true;
  // Its plugins get default args (v1 pluginsNeeded).
  bool getsDefaultArgs = true;
};
inline constexpr PluginsField kPluginsFields[] = {
    {"preEnqueue", &Plugins::preEnqueue},
    {"queueSort", &Plugins::queueSort},
    {"preFilter", &Plugins::preFilter},
    {"filter", &Plugins::filter},
    {"postFilter", &Plugins::postFilter},
    {"preScore", &Plugins::preScore},
    {"score", &Plugins::score},
    {"reserve", &Plugins::reserve},
    {"permit", &Plugins::permit},
    {"preBind", &Plugins::preBind},
    {"bind", &Plugins::bind},
    {"postBind", &Plugins::postBind},
    {"multiPoint", &Plugins::multiPoint, false},
    {"placementGenerate", &Plugins::placementGenerate, false},
    {"placementScore", &Plugins::placementScore, false},
    {"podGroupPostFilter", &Plugins::podGroupPostFilter, true, false},
};

// Typed plugin arguments. Each plugin that takes arguments has one subclass; a factory receives the
// decoded and defaulted args (or nullptr for plugins without args) and downcasts to its own type.
// Args of plugins the config package does not know (out-of-tree) arrive as OpaqueArgs.
struct PluginArgs {
  virtual ~PluginArgs() = default;
  // Compares no fields: it exists so subclasses can default their ==. Compare args through
  // pluginArgsEqual, which checks the dynamic type first.
  bool operator==(const PluginArgs&) const = default;
};

// Deep equality of two args objects (same dynamic type and equal fields); nullptr equals nullptr.
bool pluginArgsEqual(const PluginArgs* a, const PluginArgs* b);

// Args of a plugin this package has no type for (upstream's runtime.Unknown): the compact JSON text.
struct OpaqueArgs final : PluginArgs {
  std::string json;
  bool operator==(const OpaqueArgs&) const = default;
};

struct PluginConfig {
  std::string name;
  std::shared_ptr<const PluginArgs> args;
  bool operator==(const PluginConfig& o) const {
    return name == o.name && pluginArgsEqual(args.get(), o.args.get());
  }
};

struct KubeSchedulerProfile {
  std::string schedulerName = "default-scheduler";
  std::optional<int32_t> percentageOfNodesToScore;
  // After defaulting, as upstream: the default plugins merged with the user's (multiPoint plus any
  // explicitly configured points). The Framework expands multiPoint per extension point.
  Plugins plugins;
  std::vector<PluginConfig> pluginConfig;
  bool operator==(const KubeSchedulerProfile&) const = default;
};

struct ExtenderManagedResource {
  std::string name;
  bool ignoredByScheduler = false;
  bool operator==(const ExtenderManagedResource&) const = default;
};

struct ExtenderTLSConfig {
  bool insecure = false;
  std::string serverName;
  std::string certFile;
  std::string keyFile;
  std::string caFile;
  // PEM bytes given inline (certData/keyData/caData, base64 in the YAML); take precedence over the files.
  std::string certData;
  std::string keyData;
  std::string caData;
  bool operator==(const ExtenderTLSConfig&) const = default;
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
  std::chrono::milliseconds httpTimeout{0};  // 0: the extender client uses upstream's 5s default
  bool nodeCacheCapable = false;
  std::vector<ExtenderManagedResource> managedResources;
  bool ignorable = false;
  bool operator==(const Extender&) const = default;
};

struct KubeSchedulerConfiguration {
  int32_t parallelism = 16;
  LeaderElectionConfiguration leaderElection;
  ClientConnectionConfiguration clientConnection;
  DebuggingConfiguration debugging;
  std::optional<int32_t> percentageOfNodesToScore;  // defaulted to 0 = adaptive
  int64_t podInitialBackoffSeconds = 1;
  int64_t podMaxBackoffSeconds = 10;
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delayCacheUntilActive = false;
  bool operator==(const KubeSchedulerConfiguration&) const = default;
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
  bool operator==(const NodeResourcesFitArgs&) const = default;
};

struct NodeResourcesBalancedAllocationArgs final : PluginArgs {
  std::vector<ResourceSpec> resources{{"cpu", 1}, {"memory", 1}};
  bool operator==(const NodeResourcesBalancedAllocationArgs&) const = default;
};

struct DefaultPreemptionArgs final : PluginArgs {
  int32_t minCandidateNodesPercentage = 10;
  int32_t minCandidateNodesAbsolute = 100;
  bool operator==(const DefaultPreemptionArgs&) const = default;
};

struct InterPodAffinityArgs final : PluginArgs {
  int32_t hardPodAffinityWeight = 1;
  bool ignorePreferredTermsOfExistingPods = false;
  bool operator==(const InterPodAffinityArgs&) const = default;
};

struct NodeAffinityArgs final : PluginArgs {
  std::optional<api::NodeAffinity> addedAffinity;
  bool operator==(const NodeAffinityArgs&) const = default;
};

struct PodTopologySpreadArgs final : PluginArgs {
  std::vector<api::TopologySpreadConstraint> defaultConstraints;
  std::string defaultingType = "System";  // System or List
  bool operator==(const PodTopologySpreadArgs&) const = default;
};

struct VolumeBindingArgs final : PluginArgs {
  int64_t bindTimeoutSeconds = 600;
  std::vector<UtilizationShapePoint> shape;  // only with the StorageCapacityScoring gate (off in v1.34)
  bool operator==(const VolumeBindingArgs&) const = default;
};

struct DynamicResourcesArgs final : PluginArgs {
  // Set to 10s by defaulting while the DRASchedulerFilterTimeout gate is on (the v1.34 default).
  std::optional<std::chrono::milliseconds> filterTimeout;
  // How long PreBind waits for the devices' binding conditions. Set to 600s by defaulting while the
  // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus gates are both on.
  std::optional<std::chrono::milliseconds> bindingTimeout;
  bool operator==(const DynamicResourcesArgs&) const = default;
};

}  // namespace ks::config
