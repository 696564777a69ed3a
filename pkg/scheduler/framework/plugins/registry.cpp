#include "pkg/scheduler/framework/plugins/registry.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "pkg/scheduler/framework/plugins/defaultbinder/default_binder.h"
#include "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/scheduler/framework/plugins/gangscheduling/gang_scheduling.h"
#include "pkg/scheduler/framework/plugins/imagelocality/image_locality.h"
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"
#include "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.h"
#include "pkg/scheduler/framework/plugins/nodedeclaredfeatures/node_declared_features.h"
#include "pkg/scheduler/framework/plugins/nodename/node_name.h"
#include "pkg/scheduler/framework/plugins/nodeports/node_ports.h"
#include "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.h"
#include "pkg/scheduler/framework/plugins/nodevolumelimits/csi.h"
#include "pkg/scheduler/framework/plugins/podtopologyspread/plugin.h"
#include "pkg/scheduler/framework/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.h"
#include "pkg/scheduler/framework/plugins/volumebinding/volume_binding.h"
#include "pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.h"
#include "pkg/scheduler/framework/plugins/volumezone/volume_zone.h"

namespace ks::plugins {

namespace {

// Registers P under P::kName; `extra` (e.g. feature gates) is passed to P::create after args and handle.
template <class P, class... Extra>
void add(framework::runtime::Registry& r, Extra... extra) {
  framework::runtime::PluginFactory factory =
      [extra...](const config::PluginArgs* args,
                 framework::Handle& handle) -> Result<std::unique_ptr<framework::Plugin>> {
    auto p = P::create(args, handle, extra...);
    if (!p.ok()) return p.error();
    return std::unique_ptr<framework::Plugin>(std::move(p).value());
  };
  auto added = r.registerPlugin(std::string(P::kName), std::move(factory));
  if (!added.ok()) std::abort();  // two in-tree plugins with one name: a programming error
}

}  // namespace

dynamicresources::DynamicResourcesFeatures dynamicResourcesFeatures(const Features& features) {
  dynamicresources::DynamicResourcesFeatures f;
  f.enableDynamicResourceAllocation = features.enableDynamicResourceAllocation;
  f.enableDRASchedulerFilterTimeout = features.enableDRASchedulerFilterTimeout;
  f.enableDRAAdminAccess = features.enableDRAAdminAccess;
  f.enableDRAPrioritizedList = features.enableDRAPrioritizedList;
  f.enableDRAResourceClaimDeviceStatus = features.enableDRAResourceClaimDeviceStatus;
  f.enablePartitionableDevices = features.enableDRAPartitionableDevices;
  f.enableDRADeviceBindingConditions = features.enableDRADeviceBindingConditions;
  f.enableConsumableCapacity = features.enableDRAConsumableCapacity;
  f.enableDRAFractionalCapacityRange = features.enableDRAFractionalCapacityRange;
  f.enableDRADeviceTaints = features.enableDRADeviceTaints;
  f.enableDRADeviceTaintRules = features.enableDRADeviceTaintRules;
  f.enableDRAExtendedResource = features.enableDRAExtendedResource;
  return f;
}

framework::runtime::Registry newInTreeRegistry(const Features& features) {
  framework::runtime::Registry r;
  add<queuesort::PrioritySort>(r);
  add<schedulinggates::SchedulingGates>(r);
  add<gangscheduling::GangScheduling>(r);
  add<nodeunschedulable::NodeUnschedulable>(r);
  add<nodename::NodeName>(r);
  add<nodeports::NodePorts>(r);
  add<tainttoleration::TaintToleration>(r);
  add<nodeaffinity::NodeAffinity>(r);
  noderesources::Features resources;
  resources.enableDRAExtendedResource = features.enableDRAExtendedResource;
  resources.enableInPlacePodLevelResourcesVerticalScaling = features.enableInPlacePodLevelResourcesVerticalScaling;
  add<noderesources::Fit>(r, resources);
  add<noderesources::BalancedAllocation>(r, resources);
  add<imagelocality::ImageLocality>(r);
  podtopologyspread::Features spread;
  spread.enableMatchLabelKeysInPodTopologySpread = features.enableMatchLabelKeysInPodTopologySpread;
  add<podtopologyspread::PodTopologySpread>(r, spread);
  add<interpodaffinity::InterPodAffinity>(r);
  add<defaultpreemption::DefaultPreemption>(
      r, defaultpreemption::DefaultPreemption::Features{features.enableAsyncPreemption,
                                                        features.enableGenericWorkload});
  add<nodevolumelimits::CSILimits>(
      r, nodevolumelimits::CSILimits::Features{features.enableVolumeLimitScaling,
                                               features.enableInPlacePodVerticalScalingSchedulerPreemption});
  add<volumerestrictions::VolumeRestrictions>(r);
  add<volumezone::VolumeZone>(r);
  volumebinding::VolumeBindingFeatures volumeBinding;
  volumeBinding.assumeBindingCompletes = features.assumeVolumeBindingCompletes;
  volumeBinding.enableStorageCapacityScoring = features.enableStorageCapacityScoring;
  volumeBinding.enableVolumeAttributesClass = features.enableVolumeAttributesClass;
  add<volumebinding::VolumeBinding>(r, volumeBinding);
  add<dynamicresources::DynamicResources>(r, dynamicResourcesFeatures(features));
  add<nodedeclaredfeatures::NodeDeclaredFeatures>(
      r,
      nodedeclaredfeatures::NodeDeclaredFeatures::Features{
          features.enableNodeDeclaredFeatures, features.enableInPlacePodVerticalScalingSchedulerPreemption});
  add<defaultbinder::DefaultBinder>(r);
  return r;
}

const std::vector<std::string>& notYetImplementedPlugins() {
  static const std::vector<std::string> kUpstream = {"DefaultPreemption",
                                                     "DynamicResources",
                                                     "ImageLocality",
                                                     "InterPodAffinity",
                                                     "NodeResourcesBalancedAllocation",
                                                     "NodeResourcesFit",
                                                     "NodeVolumeLimits",
                                                     "PodTopologySpread",
                                                     "VolumeBinding",
                                                     "VolumeRestrictions",
                                                     "VolumeZone"};
  static const std::vector<std::string> kMissing = [] {
    auto registry = newInTreeRegistry();
    std::vector<std::string> out;
    for (const auto& name : kUpstream) {
      if (!registry.contains(name)) out.push_back(name);
    }
    return out;
  }();
  return kMissing;
}

Result<void> checkProfileImplemented(const config::KubeSchedulerProfile& profile,
                                     const framework::runtime::Registry& registry) {
  const config::Plugins& p = profile.plugins;
  std::set<std::string> disabledEverywhere;
  for (const auto& d : p.multiPoint.disabled) disabledEverywhere.insert(d.name);
  std::set<std::string> missing;
  for (const auto& field : config::kPluginsFields) {
    const config::PluginSet& set = p.*field.set;
    std::set<std::string> disabled = disabledEverywhere;
    for (const auto& d : set.disabled) disabled.insert(d.name);
    for (const auto& e : set.enabled) {
      if (registry.contains(e.name) || disabled.count(e.name) || disabled.count("*")) continue;
      const auto& todo = notYetImplementedPlugins();
      if (std::find(todo.begin(), todo.end(), e.name) != todo.end()) missing.insert(e.name);
    }
  }
  if (missing.empty()) return {};
  std::string names;
  for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
  return Error("profile \"" + profile.schedulerName +
               "\" enables upstream plugin(s) that kube-scheduler-cpp does not " + "implement yet: " + names +
               "; disable them under plugins.multiPoint.disabled (see " + "config/demo-scheduler.yaml)");
}

}  // namespace ks::plugins
