#pragma once
// NodeDeclaredFeatures (upstream plugins/nodedeclaredfeatures, v1.37.2): a pod that needs features only
// some kubelets have (restart-all-containers rules, user namespaces with host network, bind mount options)
// fits only nodes whose status.declaredFeatures declare them. PreFilter infers the pod's requirements
// once; Filter is a subset test against the set NodeInfo mapped when the node was set.

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "pkg/api/nodedeclaredfeatures/framework.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"
#include "pkg/util/version.h"

namespace ks::plugins::nodedeclaredfeatures {

inline constexpr std::string_view kErrReasonUnsatisfiedRequirements =
    "node(s) didn't match Pod's required features";

// The pod's required features, computed in PreFilter. Immutable.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(api::nodedeclaredfeatures::FeatureSet reqs) : reqs_(std::move(reqs)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  const api::nodedeclaredfeatures::FeatureSet& reqs() const { return reqs_; }

 private:
  api::nodedeclaredfeatures::FeatureSet reqs_;
};

class NodeDeclaredFeatures final : public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions,
                                   public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeDeclaredFeatures";

  // The gates the plugin reads (upstream feature.Features).
  struct Features {
    // NodeDeclaredFeatures (GA, locked on in v1.37): off, the plugin does nothing and registers no events.
    bool enableNodeDeclaredFeatures = true;
    // InPlacePodVerticalScalingSchedulerPreemption (alpha, off): a pod whose resize is Deferred is not
    // checked (it is already running on its node).
    bool enableInPlacePodVerticalScalingSchedulerPreemption = false;
  };

  // Takes no args. Infers requirements with the default framework for this binary's version.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle, Features features);

  // `ndfFramework` (not owned, outliving the plugin) may be null when !enabled; `version` is the version
  // requirements are inferred for (none fails inference, as upstream's nil version).
  NodeDeclaredFeatures(const api::nodedeclaredfeatures::Framework* ndfFramework,
                       std::optional<Version> version, bool enabled,
                       bool enableInPlacePodVerticalScalingSchedulerPreemption = false);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the features the pod requires; Error when inference fails.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Stores the pod's required features; Skip when it needs none, when disabled, or for a deferred resize
  // (with InPlacePodVerticalScalingSchedulerPreemption). Error when inference fails.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // UnschedulableAndUnresolvable kErrReasonUnsatisfiedRequirements when the node lacks a required feature;
  // Error when PreFilter didn't run. Allocates nothing.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Node Add|UpdateNodeDeclaredFeature and TargetPod Update, each with a hint; none when disabled.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue on a node add, or when a node's declared features changed.
  static Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                                      const framework::EventObject& oldObj,
                                                                      const framework::EventObject& newObj);
  // Queue when the update changed the pod's required features; an inference error is returned (Queue).
  Result<framework::QueueingHint> isSchedulableAfterTargetPodUpdate(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const;

 private:
  const api::nodedeclaredfeatures::Framework* ndfFramework_;
  std::optional<Version> version_;
  bool enabled_;
  bool enableInPlacePodVerticalScalingSchedulerPreemption_;
};

}  // namespace ks::plugins::nodedeclaredfeatures
