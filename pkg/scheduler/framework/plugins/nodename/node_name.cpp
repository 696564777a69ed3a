#include "pkg/scheduler/framework/plugins/nodename/node_name.h"
#include "pkg/scheduler/framework/signers.h"

#include <string>

namespace ks::plugins::nodename {

bool fits(const api::Pod& pod, const api::Node& node) {
  return pod.spec.nodeName.empty() || pod.spec.nodeName == node.metadata.name;
}

Result<std::unique_ptr<framework::Plugin>> NodeName::create(const config::PluginArgs* /*args*/,
                                                            framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeName>());
}

framework::Status NodeName::filter(framework::CycleState& /*state*/, const framework::PodInfo& pod,
                                   const framework::NodeInfo& nodeInfo) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  if (!fits(pod.pod(), *node)) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::string(kErrReason));
  }
  return framework::Status();
}

Result<std::vector<framework::ClusterEventWithHint>> NodeName::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  // No hint: a node add is always worth a retry (with backoff).
  events.push_back({framework::ClusterEvent{framework::EventResource::Node, framework::action::Add, {}}, {}});
  return events;
}

framework::Status NodeName::signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) {
  fragments.push_back(
      {std::string(framework::kNodeNameSignerName), framework::goJsonString(pod.spec.nodeName)});
  return {};
}

}  // namespace ks::plugins::nodename
