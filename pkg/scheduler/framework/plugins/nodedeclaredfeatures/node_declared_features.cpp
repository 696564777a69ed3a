#include "pkg/scheduler/framework/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <string>

#include "pkg/api/resources.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"
#include "pkg/util/version.h"

namespace ks::plugins::nodedeclaredfeatures {

Result<std::unique_ptr<framework::Plugin>> NodeDeclaredFeatures::create(const config::PluginArgs* /*args*/,
                                                                        framework::Handle& /*handle*/,
                                                                        Features fts) {
  if (!fts.enableNodeDeclaredFeatures) {
    return std::unique_ptr<framework::Plugin>(
        std::make_unique<NodeDeclaredFeatures>(nullptr, std::nullopt, false));
  }
  // Upstream parses the binary's version (version.Get()): the release this project follows.
  const Version binary(kUpstreamMajor, kUpstreamMinor, kUpstreamPatch);
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeDeclaredFeatures>(&api::nodedeclaredfeatures::defaultFramework(), binary, true,
                                             fts.enableInPlacePodVerticalScalingSchedulerPreemption));
}

NodeDeclaredFeatures::NodeDeclaredFeatures(const api::nodedeclaredfeatures::Framework* ndfFramework,
                                           std::optional<Version> version, bool enabled,
                                           bool enableInPlacePodVerticalScalingSchedulerPreemption)
    : ndfFramework_(ndfFramework),
      version_(std::move(version)),
      enabled_(enabled),
      enableInPlacePodVerticalScalingSchedulerPreemption_(
          enableInPlacePodVerticalScalingSchedulerPreemption) {}

framework::Status NodeDeclaredFeatures::preFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                                  std::span<const framework::NodeInfoPtr> /*nodes*/,
                                                  framework::PreFilterResult& /*result*/) {
  // A deferred resize is of a pod already running on its node.
  if (enableInPlacePodVerticalScalingSchedulerPreemption_ && api::isPodResizeDeferred(pod.pod())) {
    return framework::Status(framework::Code::Skip);
  }
  if (!enabled_) return framework::Status(framework::Code::Skip);
  // Only the spec: the pod's status says nothing about what it will need of a node.
  auto reqs = ndfFramework_->inferForPodScheduling(pod.pod().spec, version_);
  if (!reqs.ok()) return framework::Status::error(reqs.error().message());
  if (reqs->isEmpty()) return framework::Status(framework::Code::Skip);
  state.write(std::make_unique<PreFilterState>(std::move(reqs).value()));
  return framework::Status();
}

framework::Status NodeDeclaredFeatures::filter(framework::CycleState& state, const framework::PodInfo& pod,
                                               const framework::NodeInfo& nodeInfo) {
  if (enableInPlacePodVerticalScalingSchedulerPreemption_ && api::isPodResizeDeferred(pod.pod())) {
    return framework::Status();
  }
  if (!enabled_) return framework::Status();
  const auto* s = state.read<PreFilterState>();
  if (s == nullptr) {
    return framework::Status::error("error reading \"PreFilter" + std::string(kName) +
                                    "\" from cycle-state: not found");
  }
  // The subset test alone (upstream skips MatchNodeFeatureSet's diff here): it allocates nothing.
  auto isMatch = s->reqs().isSubset(nodeInfo.declaredFeatures());
  if (!isMatch.ok()) return framework::Status::error(isMatch.error().message());
  if (!*isMatch) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             std::string(kErrReasonUnsatisfiedRequirements));
  }
  return framework::Status();
}

Result<std::vector<framework::ClusterEventWithHint>> NodeDeclaredFeatures::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  if (!enabled_) return events;
  events.push_back(
      {framework::ClusterEvent{framework::EventResource::Node,
                               framework::action::Add | framework::action::UpdateNodeDeclaredFeature,
                               {}},
       &NodeDeclaredFeatures::isSchedulableAfterNodeChange});
  // Any update of the rejected pod itself may change the features it needs.
  events.push_back(
      {framework::ClusterEvent{framework::EventResource::TargetPod, framework::action::Update, {}},
       helper::bindHint(this, &NodeDeclaredFeatures::isSchedulableAfterTargetPodUpdate)});
  return events;
}

Result<framework::QueueingHint> NodeDeclaredFeatures::isSchedulableAfterNodeChange(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj, const framework::EventObject& newObj) {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [oldNode, newNode] = *nodes;
  if (newNode == nullptr) return Error("expected *v1.Node, but got <nil>");
  // declaredFeatures is kept sorted, so comparing in order is enough.
  if (oldNode != nullptr && oldNode->status.declaredFeatures == newNode->status.declaredFeatures) {
    return framework::QueueingHint::QueueSkip;
  }
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> NodeDeclaredFeatures::isSchedulableAfterTargetPodUpdate(
    const api::Pod& /*pod*/, const framework::EventObject& oldObj,
    const framework::EventObject& newObj) const {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const auto [oldPod, newPod] = *pods;
  if (oldPod == nullptr || newPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  auto oldReqs = ndfFramework_->inferForPodScheduling(oldPod->spec, version_);
  if (!oldReqs.ok()) return oldReqs.error();
  auto newReqs = ndfFramework_->inferForPodScheduling(newPod->spec, version_);
  if (!newReqs.ok()) return newReqs.error();
  return *newReqs == *oldReqs ? framework::QueueingHint::QueueSkip : framework::QueueingHint::Queue;
}

framework::Status NodeDeclaredFeatures::signPod(const api::Pod& pod,
                                                std::vector<framework::SignFragment>& fragments) {
  // Upstream has no framework when the gate is off (GA and locked on in v1.37); nothing to require then.
  if (ndfFramework_ == nullptr) {
    fragments.push_back({std::string(framework::kFeaturesSignerName), framework::goJsonString("")});
    return {};
  }
  auto reqs = ndfFramework_->inferForPodScheduling(pod.spec, version_);
  if (!reqs.ok()) return framework::Status::error(reqs.error().message());
  fragments.push_back(
      {std::string(framework::kFeaturesSignerName), framework::goJsonString(reqs->toString())});
  return {};
}

}  // namespace ks::plugins::nodedeclaredfeatures
