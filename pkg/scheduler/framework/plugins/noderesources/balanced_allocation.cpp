#include "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.h"

#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::noderesources {

Result<std::unique_ptr<BalancedAllocation>> BalancedAllocation::create(
    const config::NodeResourcesBalancedAllocationArgs& args, const Features& features,
    const framework::DeviceClassResolver* deviceClasses, framework::SharedDRAManager* draManager) {
  if (auto errs = config::validateNodeResourcesBalancedAllocationArgs("", args); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  ResourceAllocationScorer::Options opts;
  opts.useRequested = true;
  opts.useStatusResources = features.enableInPlacePodVerticalScaling;
  opts.inPlacePodLevelResourcesVerticalScaling = features.enableInPlacePodLevelResourcesVerticalScaling;
  opts.skipPodLevelResources = !features.enablePodLevelResources;
  ResourceAllocationScorer scorer(std::string(kName), ScoringStrategyType::Balanced, args.resources, opts);
  if (features.enableDRAExtendedResource) scorer.enableDRAExtendedResource(draManager, deviceClasses);
  return std::unique_ptr<BalancedAllocation>(new BalancedAllocation(
      std::move(scorer),
      ResourceRequestsOptions{features.enablePodLevelResources, features.enableDRAExtendedResource},
      features.enableDRAExtendedResource ? deviceClasses : nullptr));
}

Result<std::unique_ptr<framework::Plugin>> BalancedAllocation::create(const config::PluginArgs* args,
                                                                      framework::Handle& handle,
                                                                      const Features& features) {
  static const config::NodeResourcesBalancedAllocationArgs kDefaults{};
  const config::NodeResourcesBalancedAllocationArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::NodeResourcesBalancedAllocationArgs*>(args);
    if (typed == nullptr) return Error("want args to be of type NodeResourcesBalancedAllocationArgs");
  }
  framework::SharedDRAManager* dra = handle.sharedDRAManager();
  auto p = create(*typed, features, dra != nullptr ? dra->deviceClassResolver() : nullptr, dra);
  if (!p.ok()) return p.error();
  return std::unique_ptr<framework::Plugin>(std::move(p).value());
}

framework::Status BalancedAllocation::preScore(framework::CycleState& state, const framework::PodInfo& pod,
                                               std::span<const framework::NodeInfoPtr> /*nodes*/) {
  std::vector<int64_t> requests = scorer_.podRequests(pod.pod());
  // Scoring best-effort pods would pile them onto the same node.
  if (ResourceAllocationScorer::isBestEffortPod(requests)) return framework::Status(framework::Code::Skip);
  auto dra = scorer_.draPreScoreState();
  if (!dra.ok()) return framework::Status::error(dra.error().message());
  state.write(std::make_unique<BalancedAllocationPreScoreState>(std::move(requests), std::move(*dra)));
  return framework::Status();
}

framework::Status BalancedAllocation::score(framework::CycleState& state, const framework::PodInfo& pod,
                                            const framework::NodeInfo& nodeInfo, int64_t& score) {
  return scoreWithPreScoreState<BalancedAllocationPreScoreState>(scorer_, state, pod.pod(), nodeInfo, true,
                                                                 score);
}

framework::Status BalancedAllocation::signPod(const api::Pod& pod,
                                              std::vector<framework::SignFragment>& fragments) {
  return signPodResources(pod, requestsOptions_, deviceClasses_, fragments);
}

}  // namespace ks::plugins::noderesources
