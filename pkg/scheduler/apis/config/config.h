#pragma once
// Loading KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as upstream kube-scheduler v1.34 does:
// strict YAML decoding, SetDefaults_* (including the default plugin set merged with the user's plugins and
// default args for every enabled in-tree plugin), then ValidateKubeSchedulerConfiguration.
//
// Error messages follow upstream's wording, e.g.
//   strict decoding error: unknown field "profiles[0].foo"
//   no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" in
//   ... [parallelism: Invalid value: 0: should be an integer value greater than zero, ...]

#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/util/result.h"

namespace ks::config {

inline constexpr std::string_view kGroupVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// The feature gates the config package depends on, with their v1.34 defaults.
struct FeatureGates {
  bool dynamicResourceAllocation = true;  // GA: DynamicResources joins the default plugins
  bool draSchedulerFilterTimeout = true;  // beta: DynamicResourcesArgs.filterTimeout (default 10s)
  bool storageCapacityScoring = true;     // beta in 1.37: VolumeBindingArgs.shape
  // Both on: DynamicResourcesArgs.bindingTimeout (default 600s).
  bool draDeviceBindingConditions = true;
  bool draResourceClaimDeviceStatus = true;
  bool nodeDeclaredFeatures = true;  // GA and locked in 1.37: NodeDeclaredFeatures joins the default plugins
  bool genericWorkload = false;      // beta, off in 1.37: GangScheduling joins the default plugins (last)
};

struct DecodeOptions {
  FeatureGates features;
  bool validate = true;  // run validateKubeSchedulerConfiguration after defaulting
};

// Decodes the first YAML document, applies defaults and (unless disabled) validates.
Result<KubeSchedulerConfiguration> decodeConfig(std::string_view yaml, const DecodeOptions& options = {});

// Reads `path` and calls decodeConfig. A read failure reads "open <path>: no such file or directory".
Result<KubeSchedulerConfiguration> loadConfigFile(const std::string& path, const DecodeOptions& options = {});

// YAML as upstream's --write-config-to prints it (apiVersion/kind, every field, args with apiVersion/kind).
// decodeConfig(encodeConfig(c)) == c for any defaulted configuration that enables each plugin at most once
// per extension point. One that enables a plugin twice loads again, but upstream's mergePluginSet moves
// the copies around (a default plugin's weights swap); the framework refuses such a profile anyway.
std::string encodeConfig(const KubeSchedulerConfiguration& config);

// ---- Defaulting pieces, exposed for the framework and tests ----

// getDefaultPlugins: the v1.34 MultiPoint list, in upstream order and weights.
Plugins getDefaultPlugins(const FeatureGates& features = {});

// mergePluginSet / mergePlugins as upstream: a re-listed default keeps its position with the user's
// weight, disabled names (or "*") drop defaults, other custom plugins are appended in order.
PluginSet mergePluginSet(const PluginSet& defaults, const PluginSet& custom);
Plugins mergePlugins(const Plugins& defaults, const Plugins& custom);

// Fills in default args for a typed args object (SetDefaults_<Plugin>Args); no-op for OpaqueArgs.
void setDefaultsPluginArgs(PluginArgs& args, const FeatureGates& features = {});

// New defaulted args for an in-tree plugin name, or nullptr when the plugin takes no args / is unknown.
std::shared_ptr<PluginArgs> newDefaultPluginArgs(std::string_view pluginName,
                                                 const FeatureGates& features = {});

}  // namespace ks::config
