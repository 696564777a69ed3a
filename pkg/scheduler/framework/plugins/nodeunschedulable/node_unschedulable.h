#pragma once
// NodeUnschedulable (upstream plugins/nodeunschedulable): filters out nodes with
// spec.unschedulable=true unless the pod tolerates {node.kubernetes.io/unschedulable, NoSchedule}.

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::nodeunschedulable {

inline constexpr std::string_view kErrReasonUnknownCondition = "node(s) had unknown conditions";
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";

class NodeUnschedulable final : public framework::FilterPlugin,
                                public framework::EnqueueExtensions,
                                public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeUnschedulable";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the tolerations.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // UnschedulableAndUnresolvable kErrReasonUnschedulable for an unschedulable node the pod doesn't
  // tolerate; Error "node not found" for a node-less NodeInfo. Allocates nothing on success.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Node Add|UpdateNodeTaint and TargetPod UpdatePodToleration, each with a hint (upstream v1.37).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when a node is added schedulable or turns from unschedulable to schedulable.
  static Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                                      const framework::EventObject& oldObj,
                                                                      const framework::EventObject& newObj);
  // Queue when the rejected pod itself now tolerates the unschedulable taint.
  static Result<framework::QueueingHint> isSchedulableAfterTargetPodTolerationChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
};

}  // namespace ks::plugins::nodeunschedulable
