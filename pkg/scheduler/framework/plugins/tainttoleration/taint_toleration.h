#pragma once
// TaintToleration (upstream plugins/tainttoleration): Filter rejects nodes with a NoSchedule or
// NoExecute taint the pod doesn't tolerate; Score prefers nodes with fewer untolerated PreferNoSchedule
// taints (the count, normalized in reverse).

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::tainttoleration {

// The pod's tolerations with an empty or PreferNoSchedule effect, computed once in PreScore.
class PreScoreState final : public framework::StateData {
 public:
  explicit PreScoreState(std::vector<api::Toleration> t) : tolerationsPreferNoSchedule_(std::move(t)) {}
  std::unique_ptr<framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
  const std::vector<api::Toleration>& tolerationsPreferNoSchedule() const {
    return tolerationsPreferNoSchedule_;
  }

 private:
  std::vector<api::Toleration> tolerationsPreferNoSchedule_;
};

// The Filter reason (upstream ErrReasonNotMatch).
inline constexpr std::string_view kErrReasonNotMatch = "node(s) had untolerated taint(s)";

class TaintToleration final : public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::ScoreExtensions,
                              public framework::EnqueueExtensions,
                              public framework::SignPlugin {
 public:
  static constexpr std::string_view kName = "TaintToleration";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Opportunistic batching (upstream SignPod): the tolerations.
  framework::Status signPod(const api::Pod& pod, std::vector<framework::SignFragment>& fragments) override;

  // UnschedulableAndUnresolvable "node(s) had untolerated taint(s)" (the first untolerated
  // NoSchedule/NoExecute taint, v1.34 text); Error "node not found" for a node-less NodeInfo.
  // Allocates nothing on success.
  framework::Status filter(framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& nodeInfo) override;

  // Stores the pod's PreferNoSchedule tolerations. Always Success.
  framework::Status preScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfoPtr> nodes) override;
  // The number of PreferNoSchedule taints of the node the pod doesn't tolerate.
  framework::Status score(framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& nodeInfo, int64_t& score) override;
  framework::ScoreExtensions* scoreExtensions() override { return this; }
  // DefaultNormalizeScore(MaxNodeScore, reverse=true).
  framework::Status normalizeScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;

  // Node Add|UpdateNodeTaint and TargetPod UpdatePodToleration, each with a hint (upstream v1.37).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // Queue when the node goes from having an untolerated NoSchedule/NoExecute taint (or not existing)
  // to having none.
  static Result<framework::QueueingHint> isSchedulableAfterNodeChange(const api::Pod& pod,
                                                                      const framework::EventObject& oldObj,
                                                                      const framework::EventObject& newObj);
  // Always Queue: the rejected pod itself got a new toleration (tolerations can only be added).
  static Result<framework::QueueingHint> isSchedulableAfterTargetPodTolerationChange(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
};

}  // namespace ks::plugins::tainttoleration
