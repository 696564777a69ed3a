#pragma once
// VolumeBinding (upstream plugins/volumebinding/volume_binding.go): a pod's PersistentVolumeClaims
// decide where it may run and get bound on the way.
//
//   PreFilter  the claims exist (ephemeral ones created for this pod), none is lost or being deleted,
//              no unbound Immediate claim (the PV controller binds those first); Skip without claims.
//   Filter     bound PVs' node affinity; unbound WaitForFirstConsumer claims need a matching static PV
//              or dynamic provisioning allowed on the node (StorageClass topology, CSIStorageCapacity).
//   Reserve    assumes the chosen PVs' claimRef and the provisioned claims' selected-node annotation.
//   PreBind    writes them to the API and waits until the PV controller has bound every claim (at most
//              bindTimeoutSeconds), so the pod never starts without its volumes.
//   Unreserve  reverts the assumptions.
// Score only with the StorageCapacityScoring gate (alpha, off in v1.34).

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/plugins/volumebinding/binder.h"
#include "pkg/util/result.h"

namespace ks::plugins::volumebinding {

using namespace ks::volumebinding;

// The gates the plugin reads, v1.34 defaults.
struct VolumeBindingFeatures {
  bool enableSchedulingQueueHint = true;
  bool enableStorageCapacityScoring = false;
  bool enableVolumeAttributesClass = true;
  bool enableCSIMigrationPortworx = true;
  // Not a gate: simulate's mode, where no PV controller completes bindings (see VolumeBinderOptions).
  bool assumeBindingCompletes = false;
};

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions,
                            public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "VolumeBinding";

  using Features = VolumeBindingFeatures;

  // Args: VolumeBindingArgs (validated; null means defaults). Needs Handle::sharedInformerFactory()
  // (pods, nodes, PVs, PVCs, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities) and
  // Handle::client().
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args, framework::Handle& handle,
                                                           Features features = Features());
  // The plugin over a given binder (tests).
  VolumeBinding(std::unique_ptr<SchedulerVolumeBinder> binder, framework::Handle& handle, Features features,
                const config::VolumeBindingArgs& args);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the volume sources.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return nullptr; }
  framework::Status reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& nodeName) override;
  void unreserve(framework::CycleState& state, const framework::PodInfo& pod, const std::string& nodeName) override;
  // Success with allowParallel: its PreBind may run beside the other parallel PreBind plugins.
  framework::Status preBindPreFlight(framework::CycleState& state, const framework::PodInfo& pod,
                                     const std::string& nodeName,
                                     framework::PreBindPreFlightResult& result) override;
  framework::Status preBind(framework::CycleState& state, const framework::PodInfo& pod,
                            const std::string& nodeName, std::stop_token stop) override;
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queueing hints (upstream isSchedulableAfter*).
  static Result<framework::QueueingHint> isSchedulableAfterCSINodeChange(const api::Pod& pod,
                                                                         const framework::EventObject& oldObj,
                                                                         const framework::EventObject& newObj);
  static Result<framework::QueueingHint> isSchedulableAfterPersistentVolumeClaimChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  static Result<framework::QueueingHint> isSchedulableAfterStorageClassChange(const api::Pod& pod,
                                                                              const framework::EventObject& oldObj,
                                                                              const framework::EventObject& newObj);
  static Result<framework::QueueingHint> isSchedulableAfterCSIStorageCapacityChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
  static Result<framework::QueueingHint> isSchedulableAfterCSIDriverChange(const api::Pod& pod,
                                                                           const framework::EventObject& oldObj,
                                                                           const framework::EventObject& newObj);

 private:
  // Whether the pod has claims, and an error when one is missing, lost, being deleted or (ephemeral)
  // not the pod's.
  Result<bool> podHasPVCs(const api::Pod& pod) const;

  std::unique_ptr<SchedulerVolumeBinder> binder_;
  framework::Handle& handle_;
  const Features features_;
  // The StorageCapacityScoring scorer's utilization → score function; empty without the gate.
  std::optional<helper::BrokenLinearFunction> scorer_;
  // Claims by "namespace/name" (the PVC informer's store).
  std::function<std::shared_ptr<const api::PersistentVolumeClaim>(const std::string& key)> pvcLister_;
};

}  // namespace ks::plugins::volumebinding
