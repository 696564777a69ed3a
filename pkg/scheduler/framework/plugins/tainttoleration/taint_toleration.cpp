#include "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.h"

#include <spdlog/spdlog.h>

#include <string>

#include "pkg/api/taints.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/plugins/helper/taint.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::tainttoleration {

namespace {

const api::TaintFilter& doNotScheduleFilter() {
  static const api::TaintFilter kFilter = &helper::doNotScheduleTaintsFilter;
  return kFilter;
}

const api::Taint* untoleratedTaint(const api::Node& node, const api::Pod& pod) {
  return api::findMatchingUntoleratedTaint(node.spec.taints, pod.spec.tolerations, doNotScheduleFilter());
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> TaintToleration::create(const config::PluginArgs* /*args*/,
                                                                   framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<TaintToleration>());
}

framework::Status TaintToleration::filter(framework::CycleState& /*state*/, const framework::PodInfo& pod,
                                          const framework::NodeInfo& nodeInfo) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  const api::Taint* taint = untoleratedTaint(*node, pod.pod());
  if (taint == nullptr) return framework::Status();
  // v1.34's reason names no taint (the taint is only logged), so nodes with different taints count as one
  // reason in the FitError.
  spdlog::debug("node had untolerated taints pod={}/{} node={} untoleratedTaint={}:{}:{}",
                pod.pod().metadata.namespace_, pod.pod().metadata.name, node->metadata.name, taint->key,
                taint->value, taint->effect);
  return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::string(kErrReasonNotMatch));
}

framework::Status TaintToleration::preScore(framework::CycleState& state, const framework::PodInfo& pod,
                                            std::span<const framework::NodeInfoPtr> /*nodes*/) {
  state.write(
      std::make_unique<PreScoreState>(api::tolerationsForPreferNoSchedule(pod.pod().spec.tolerations)));
  return framework::Status();
}

framework::Status TaintToleration::score(framework::CycleState& state, const framework::PodInfo& /*pod*/,
                                         const framework::NodeInfo& nodeInfo, int64_t& score) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  const auto* s = state.read<PreScoreState>();
  if (s == nullptr) {
    return framework::Status::error("failed to read \"PreScoreTaintToleration\" from cycleState: not found");
  }
  score = api::countIntolerableTaintsPreferNoSchedule(node->spec.taints, s->tolerationsPreferNoSchedule());
  return framework::Status();
}

framework::Status TaintToleration::normalizeScore(framework::CycleState& /*state*/,
                                                  const framework::PodInfo& /*pod*/,
                                                  framework::NodeScoreList& scores) {
  return helper::defaultNormalizeScore(framework::kMaxNodeScore, true, scores);
}

Result<std::vector<framework::ClusterEventWithHint>> TaintToleration::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent{
           framework::EventResource::Node, framework::action::Add | framework::action::UpdateNodeTaint, {}},
       &TaintToleration::isSchedulableAfterNodeChange});
  events.push_back({framework::ClusterEvent{
                        framework::EventResource::TargetPod, framework::action::UpdatePodToleration, {}},
                    &TaintToleration::isSchedulableAfterTargetPodTolerationChange});
  return events;
}

Result<framework::QueueingHint> TaintToleration::isSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [original, modified] = *nodes;
  if (modified == nullptr) return Error("expected *v1.Node, but got <nil>");
  const bool wasUntolerated = original == nullptr || untoleratedTaint(*original, pod) != nullptr;
  const bool isUntolerated = untoleratedTaint(*modified, pod) != nullptr;
  if (wasUntolerated && !isUntolerated) return framework::QueueingHint::Queue;
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> TaintToleration::isSchedulableAfterTargetPodTolerationChange(
    const api::Pod& /*pod*/, const framework::EventObject& /*oldObj*/,
    const framework::EventObject& /*newObj*/) {
  return framework::QueueingHint::Queue;
}

framework::Status TaintToleration::signPod(const api::Pod& pod,
                                           std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kTolerationsSignerName), framework::tolerationsSigner(pod)});
  return {};
}

}  // namespace ks::plugins::tainttoleration
