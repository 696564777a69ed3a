#include "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.h"

#include <string>

#include "pkg/api/taints.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::nodeunschedulable {

namespace {

const api::Taint& unschedulableTaint() {
  static const api::Taint kTaint{std::string(api::kTaintNodeUnschedulable), "",
                                 std::string(api::kTaintEffectNoSchedule), std::nullopt};
  return kTaint;
}

bool podToleratesUnschedulable(const api::Pod& pod) {
  return api::tolerationsTolerateTaint(pod.spec.tolerations, unschedulableTaint());
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeUnschedulable::create(const config::PluginArgs* /*args*/,
                                                                     framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeUnschedulable>());
}

framework::Status NodeUnschedulable::filter(framework::CycleState& /*state*/, const framework::PodInfo& pod,
                                            const framework::NodeInfo& nodeInfo) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  if (!node->spec.unschedulable) return framework::Status();
  // A pod that tolerates the unschedulable taint also tolerates spec.unschedulable.
  if (!podToleratesUnschedulable(pod.pod())) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::string(kErrReasonUnschedulable));
  }
  return framework::Status();
}

Result<std::vector<framework::ClusterEventWithHint>> NodeUnschedulable::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent{
           framework::EventResource::Node, framework::action::Add | framework::action::UpdateNodeTaint, {}},
       &NodeUnschedulable::isSchedulableAfterNodeChange});
  events.push_back({framework::ClusterEvent{
                        framework::EventResource::TargetPod, framework::action::UpdatePodToleration, {}},
                    &NodeUnschedulable::isSchedulableAfterTargetPodTolerationChange});
  return events;
}

Result<framework::QueueingHint> NodeUnschedulable::isSchedulableAfterNodeChange(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [original, modified] = *nodes;
  if (modified == nullptr) return Error("expected *v1.Node, but got <nil>");
  if ((original != nullptr && original->spec.unschedulable && !modified->spec.unschedulable) ||
      (original == nullptr && !modified->spec.unschedulable)) {
    return framework::QueueingHint::Queue;
  }
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> NodeUnschedulable::isSchedulableAfterTargetPodTolerationChange(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const api::Pod* modified = pods->second;
  if (modified == nullptr) return Error("expected *v1.Pod, but got <nil>");
  // Tolerations can only be added, and a pod that already tolerated the taint wasn't rejected here.
  return podToleratesUnschedulable(*modified) ? framework::QueueingHint::Queue
                                              : framework::QueueingHint::QueueSkip;
}

framework::Status NodeUnschedulable::signPod(const api::Pod& pod,
                                             std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kTolerationsSignerName), framework::tolerationsSigner(pod)});
  return {};
}

}  // namespace ks::plugins::nodeunschedulable
