#include "pkg/scheduler/framework/plugins/nodeports/node_ports.h"

#include <string>

#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::nodeports {

bool fitsPorts(const std::vector<api::ContainerPort>& wantPorts, const framework::HostPortInfo& portsInUse) {
  for (const auto& cp : wantPorts) {
    if (portsInUse.checkConflict(cp.hostIP, cp.protocol, cp.hostPort)) return false;
  }
  return true;
}

bool fits(const api::Pod& pod, const framework::NodeInfo& nodeInfo) {
  return fitsPorts(framework::getHostPorts(pod), nodeInfo.usedPorts());
}

Result<std::unique_ptr<framework::Plugin>> NodePorts::create(const config::PluginArgs* /*args*/,
                                                             framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodePorts>());
}

framework::Status NodePorts::preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                       std::span<const framework::NodeInfoPtr> /*nodes*/,
                                       framework::PreFilterResult& /*result*/) {
  auto ports = framework::getHostPorts(pod.pod());
  if (ports.empty()) return framework::Status(framework::Code::Skip);
  state.write(std::make_unique<PreFilterState>(std::move(ports)));
  return framework::Status();
}

framework::Status NodePorts::filter(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                                    const framework::NodeInfo& nodeInfo) {
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr)
    return framework::Status::error("reading \"PreFilterNodePorts\" from cycleState: not found");
  if (!fitsPorts(s->ports(), nodeInfo.usedPorts())) {
    return framework::Status(framework::Code::Unschedulable, std::string(kErrReason));
  }
  return framework::Status();
}

Result<std::vector<framework::ClusterEventWithHint>> NodePorts::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  // Container ports are immutable, so pod updates never free a port.
  events.push_back(
      {framework::ClusterEvent{framework::EventResource::AssignedPod, framework::action::Delete, {}},
       &NodePorts::isSchedulableAfterAssignedPodDeleted});
  // No hint: a node add is always worth a retry (with backoff).
  events.push_back({framework::ClusterEvent{framework::EventResource::Node, framework::action::Add, {}}, {}});
  return events;
}

Result<framework::QueueingHint> NodePorts::isSchedulableAfterAssignedPodDeleted(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& /*newObj*/) {
  auto pods = helper::asTyped<api::Pod>(oldObj, framework::EventObject{});
  if (!pods.ok()) return pods.error();
  const api::Pod* deleted = pods->first;
  if (deleted == nullptr) return Error("expected *v1.Pod, but got <nil>");

  // An unscheduled (and not nominated) pod held no ports.
  if (deleted->spec.nodeName.empty() && deleted->status.nominatedNodeName.empty()) {
    return framework::QueueingHint::QueueSkip;
  }
  const auto ports = framework::getHostPorts(*deleted);
  if (ports.empty()) return framework::QueueingHint::QueueSkip;

  framework::HostPortInfo portsInUse;
  for (const auto& p : ports) portsInUse.add(p.hostIP, p.protocol, p.hostPort);
  // No common port: deleting that pod can't make this one schedulable.
  if (fitsPorts(framework::getHostPorts(pod), portsInUse)) return framework::QueueingHint::QueueSkip;
  return framework::QueueingHint::Queue;
}

framework::Status NodePorts::signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kHostPortsSignerName), framework::hostPortsSigner(pod)});
  return {};
}

}  // namespace ks::plugins::nodeports
