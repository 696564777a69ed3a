#pragma once
// NodeName (upstream plugins/nodename): a pod with spec.nodeName fits only the node of that name.

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::nodename {

inline constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

// True when the pod names no node or names `node` (upstream Fits).
bool fits(const api::Pod& pod, const api::Node& node);

class NodeName final : public framework::FilterPlugin,
                       public framework::EnqueueExtensions,
                       public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "NodeName";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the pod's spec.nodeName.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // UnschedulableAndUnresolvable kErrReason when the pod names another node; Error "node not found"
  // for a node-less NodeInfo. Allocates nothing on success.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Node Add without a hint (always Queue), as upstream with queueing hints enabled.
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;
};

}  // namespace ks::plugins::nodename
