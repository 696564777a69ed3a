// Upstream v1.34 defaulting: getDefaultPlugins, mergePlugins/mergePluginSet and SetDefaults_*Args.

#include <map>
#include <set>
#include <typeinfo>

#include "pkg/scheduler/apis/config/codec_internal.h"
#include "pkg/scheduler/apis/config/config.h"

namespace ks::config {

namespace internal {
bool isRegisteredArgsKind(std::string_view kind) {
  static const std::set<std::string_view> kinds = {
      "DefaultPreemptionArgs",
      "DynamicResourcesArgs",
      "InterPodAffinityArgs",
      "NodeAffinityArgs",
      "NodeResourcesBalancedAllocationArgs",
      "NodeResourcesFitArgs",
      "PodTopologySpreadArgs",
      "VolumeBindingArgs",
  };
  return kinds.count(kind) != 0;
}
}  // namespace internal

Plugins getDefaultPlugins(const FeatureGates& features) {
  Plugins p;
  p.multiPoint.enabled = {
      {"SchedulingGates", 0},    {"PrioritySort", 0},
      {"NodeName", 0},           {"NodeUnschedulable", 0},
      {"TaintToleration", 3},    {"NodeAffinity", 2},
      {"NodePorts", 0},          {"NodeResourcesFit", 1},
      {"VolumeRestrictions", 0}, {"NodeVolumeLimits", 0},
      {"VolumeBinding", 0},      {"VolumeZone", 0},
      {"PodTopologySpread", 2},  {"InterPodAffinity", 2},
      {"DefaultPreemption", 0},  {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},      {"DefaultBinder", 0},
  };
  if (features.nodeDeclaredFeatures) p.multiPoint.enabled.push_back(Plugin{"NodeDeclaredFeatures", 0});
  if (features.dynamicResourceAllocation) {
    // Before DefaultPreemption: deallocating an idle ResourceClaim beats evicting a pod.
    auto& e = p.multiPoint.enabled;
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (it->name == "DefaultPreemption") {
        e.insert(it, Plugin{"DynamicResources", 2});
        break;
      }
    }
  }
  if (features.genericWorkload) p.multiPoint.enabled.push_back(Plugin{"GangScheduling", 0});
  return p;
}

PluginSet mergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  std::set<std::string> disabledNames;
  PluginSet out;
  for (const auto& d : custom.disabled) {
    out.disabled.push_back(Plugin{d.name, 0});
    disabledNames.insert(d.name);
  }
  for (const auto& d : defaults.disabled) {
    out.disabled.push_back(Plugin{d.name, 0});
    disabledNames.insert(d.name);
  }
  // Last occurrence wins, as upstream's map assignment.
  std::map<std::string, size_t> customIndex;
  for (size_t i = 0; i < custom.enabled.size(); i++) customIndex[custom.enabled[i].name] = i;
  std::set<size_t> replaced;
  if (disabledNames.count("*") == 0) {
    for (const auto& def : defaults.enabled) {
      if (disabledNames.count(def.name) != 0) continue;
      if (auto it = customIndex.find(def.name); it != customIndex.end()) {
        out.enabled.push_back(custom.enabled[it->second]);  // keeps the default's position
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(def);
      }
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); i++) {
    if (replaced.count(i) == 0) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

Plugins mergePlugins(const Plugins& d, const Plugins& c) {
  Plugins out;
  for (const auto& field : kPluginsFields) out.*field.set = mergePluginSet(d.*field.set, c.*field.set);
  return out;
}

namespace {
const std::vector<ResourceSpec> kDefaultResources = {{"cpu", 1}, {"memory", 1}};
constexpr int32_t kMaxCustomPriorityScore = 10;
}  // namespace

void setDefaultsPluginArgs(PluginArgs& args, const FeatureGates& features) {
  // DefaultPreemptionArgs, InterPodAffinityArgs and VolumeBindingArgs.bindTimeoutSeconds default through
  // their member initializers (the decoder starts from them), as upstream defaults nil pointers.
  if (auto* a = dynamic_cast<NodeResourcesFitArgs*>(&args)) {
    if (a->scoringStrategy.resources.empty()) a->scoringStrategy.resources = kDefaultResources;
    for (auto& r : a->scoringStrategy.resources) {
      if (r.weight == 0) r.weight = 1;
    }
  } else if (auto* b = dynamic_cast<NodeResourcesBalancedAllocationArgs*>(&args)) {
    if (b->resources.empty()) {
      b->resources = kDefaultResources;
    } else {
      for (auto& r : b->resources) {
        if (r.weight == 0) r.weight = 1;
      }
    }
  } else if (auto* p = dynamic_cast<PodTopologySpreadArgs*>(&args)) {
    if (p->defaultingType.empty()) p->defaultingType = "System";
  } else if (auto* v = dynamic_cast<VolumeBindingArgs*>(&args)) {
    if (v->shape.empty() && features.storageCapacityScoring) {
      v->shape = {{0, kMaxCustomPriorityScore}, {100, 0}};
    }
  } else if (auto* d = dynamic_cast<DynamicResourcesArgs*>(&args)) {
    if (!d->filterTimeout && features.draSchedulerFilterTimeout) d->filterTimeout = std::chrono::seconds(10);
    if (!d->bindingTimeout && features.draDeviceBindingConditions && features.draResourceClaimDeviceStatus) {
      d->bindingTimeout = std::chrono::seconds(600);
    }
  }
}

std::shared_ptr<PluginArgs> newDefaultPluginArgs(std::string_view name, const FeatureGates& features) {
  std::shared_ptr<PluginArgs> args;
  if (name == "DefaultPreemption")
    args = std::make_shared<DefaultPreemptionArgs>();
  else if (name == "DynamicResources")
    args = std::make_shared<DynamicResourcesArgs>();
  else if (name == "InterPodAffinity")
    args = std::make_shared<InterPodAffinityArgs>();
  else if (name == "NodeAffinity")
    args = std::make_shared<NodeAffinityArgs>();
  else if (name == "NodeResourcesBalancedAllocation")
    args = std::make_shared<NodeResourcesBalancedAllocationArgs>();
  else if (name == "NodeResourcesFit")
    args = std::make_shared<NodeResourcesFitArgs>();
  else if (name == "PodTopologySpread")
    args = std::make_shared<PodTopologySpreadArgs>();
  else if (name == "VolumeBinding")
    args = std::make_shared<VolumeBindingArgs>();
  if (args) setDefaultsPluginArgs(*args, features);
  return args;
}

bool pluginArgsEqual(const PluginArgs* a, const PluginArgs* b) {
  if (a == nullptr || b == nullptr) return a == b;
  if (typeid(*a) != typeid(*b)) return false;
#define KS_ARGS_EQ(T) \
  if (auto* x = dynamic_cast<const T*>(a)) return *x == *dynamic_cast<const T*>(b);
  KS_ARGS_EQ(OpaqueArgs)
  KS_ARGS_EQ(DefaultPreemptionArgs)
  KS_ARGS_EQ(DynamicResourcesArgs)
  KS_ARGS_EQ(InterPodAffinityArgs)
  KS_ARGS_EQ(NodeAffinityArgs)
  KS_ARGS_EQ(NodeResourcesBalancedAllocationArgs)
  KS_ARGS_EQ(NodeResourcesFitArgs)
  KS_ARGS_EQ(PodTopologySpreadArgs)
  KS_ARGS_EQ(VolumeBindingArgs)
#undef KS_ARGS_EQ
  return a == b;  // an args type this package does not know: identity
}

}  // namespace ks::config
