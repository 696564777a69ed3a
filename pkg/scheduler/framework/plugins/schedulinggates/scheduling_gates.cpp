#include "pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.h"

#include <string>

namespace ks::plugins::schedulinggates {

Result<std::unique_ptr<framework::Plugin>> SchedulingGates::create(const config::PluginArgs* /*args*/,
                                                                   framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<SchedulingGates>());
}

framework::Status SchedulingGates::preEnqueue(const framework::PodInfo& pod) {
  const auto& gates = pod.pod().spec.schedulingGates;
  if (gates.empty()) return framework::Status();
  // Go's %v of a []string: "[a b]".
  std::string msg = "waiting for scheduling gates: [";
  for (std::size_t i = 0; i < gates.size(); i++) {
    if (i > 0) msg += ' ';
    msg += gates[i].name;
  }
  msg += ']';
  return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::move(msg));
}

Result<std::vector<framework::ClusterEventWithHint>> SchedulingGates::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent{
           framework::EventResource::TargetPod, framework::action::UpdatePodSchedulingGatesEliminated, {}},
       &SchedulingGates::isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated});
  return events;
}

Result<framework::QueueingHint> SchedulingGates::isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated(
    const api::Pod& /*pod*/, const framework::EventObject& /*oldObj*/,
    const framework::EventObject& /*newObj*/) {
  return framework::QueueingHint::Queue;
}

}  // namespace ks::plugins::schedulinggates
