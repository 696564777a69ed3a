#pragma once
// SchedulingGates (upstream plugins/schedulinggates): keeps pods with spec.schedulingGates out of
// activeQ until every gate is removed.

#include <memory>
#include <string_view>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::schedulinggates {

class SchedulingGates final : public framework::PreEnqueuePlugin, public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "SchedulingGates";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Success without gates; otherwise UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]".
  framework::Status preEnqueue(const framework::PodInfo& pod) override;

  // TargetPod UpdatePodSchedulingGatesEliminated (the gated pod's own update) with a hint that always
  // answers Queue (upstream v1.37).
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override;

  // The hint for the gates-eliminated update: always Queue.
  static Result<framework::QueueingHint> isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated(
      const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj);
};

}  // namespace ks::plugins::schedulinggates
