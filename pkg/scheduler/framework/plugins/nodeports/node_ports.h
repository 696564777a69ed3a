#pragma once
// NodePorts (upstream plugins/nodeports): a pod fits a node only if none of its host ports
// (containers' and sidecar init containers' ports with hostPort > 0) conflicts with the node's used
// ports (same protocol and port, on the same IP or where either side is 0.0.0.0).

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::nodeports {

inline constexpr std::string_view kErrReason = "node(s) didn't have free ports for the requested pod ports";

// The pod's host ports, computed once in PreFilter. Immutable.
class PreFilterState final : public framework::StateData {
 public:
  explicit PreFilterState(std::vector<api::ContainerPort> ports) : ports_(std::move(ports)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  const std::vector<api::ContainerPort>& ports() const { return ports_; }

 private:
  std::vector<api::ContainerPort> ports_;
};

// True if none of `wantPorts` conflicts with `portsInUse`. Allocates nothing.
bool fitsPorts(const std::vector<api::ContainerPort>& wantPorts, const framework::HostPortInfo& portsInUse);

// True if the pod's host ports don't conflict with the node's used ports (upstream Fits).
bool fits(const api::Pod& pod, const framework::NodeInfo& nodeInfo);

class NodePorts final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions,
                        public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodePorts";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the host ports.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // Stores the pod's host ports; Skip when it has none.
  framework::Status preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<const framework::NodeInfoPtr> nodes,
                              framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* preFilterExtensions() override { return nullptr; }

  // Unschedulable kErrReason on a conflict; Error when PreFilter didn't run. Allocates nothing on success.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // AssignedPod Delete (with a hint) and Node Add (no hint), as upstream v1.37.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue only when the deleted pod was scheduled (or nominated) and held a port the pod wants.
  static Result<framework::QueueingHint> isSchedulableAfterAssignedPodDeleted(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
};

}  // namespace ks::plugins::nodeports
