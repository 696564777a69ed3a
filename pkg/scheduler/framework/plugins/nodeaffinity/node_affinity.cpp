#include "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.h"

#include <set>
#include <string>

#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::nodeaffinity {

namespace {

constexpr std::string_view kObjectNameField = "metadata.name";

const api::NodeSelector* requiredNodeSelector(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->nodeAffinity ||
      !affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    return nullptr;
  }
  return &*affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

// getPodPreferredNodeAffinity: nullopt when the pod has no preferred terms.
Result<std::optional<api::PreferredSchedulingTerms>> podPreferredNodeAffinity(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (affinity && affinity->nodeAffinity &&
      !affinity->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty()) {
    auto terms = api::PreferredSchedulingTerms::create(
        affinity->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution);
    if (!terms.ok()) return terms.error();
    return std::optional<api::PreferredSchedulingTerms>(std::move(terms).value());
  }
  return std::optional<api::PreferredSchedulingTerms>();
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeAffinity::create(const config::PluginArgs* args,
                                                                framework::Handle& /*handle*/) {
  static const config::NodeAffinityArgs kDefaults{};
  const config::NodeAffinityArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::NodeAffinityArgs*>(args);
    if (typed == nullptr) return Error("args are not of type NodeAffinityArgs");
  }
  auto pl = create(*typed);
  if (!pl.ok()) return pl.error();
  return std::unique_ptr<framework::Plugin>(std::move(pl).value());
}

Result<std::unique_ptr<NodeAffinity>> NodeAffinity::create(const config::NodeAffinityArgs& args) {
  const auto errs = config::validateNodeAffinityArgs("", args);
  if (!errs.empty()) return Error(config::aggregateMessage(errs));
  std::unique_ptr<NodeAffinity> pl(new NodeAffinity());
  if (args.addedAffinity) {
    if (const auto& ns = args.addedAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
      auto sel = api::CompiledNodeSelector::create(*ns);
      if (!sel.ok())
        return sel.error().wrap("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution");
      pl->addedNodeSelector_ = std::move(sel).value();
    }
    if (const auto& terms = args.addedAffinity->preferredDuringSchedulingIgnoredDuringExecution;
        !terms.empty()) {
      auto pref = api::PreferredSchedulingTerms::create(terms);
      if (!pref.ok())
        return pref.error().wrap("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution");
      pl->addedPrefSchedTerms_ = std::move(pref).value();
    }
  }
  return pl;
}

framework::Status NodeAffinity::preFilter(framework::CycleState& state, const framework::PodInfo& podInfo,
                                          std::span<const framework::NodeInfoPtr> /*nodes*/,
                                          framework::PreFilterResult& result) {
  const api::Pod& pod = podInfo.pod();
  const api::NodeSelector* required = requiredNodeSelector(pod);
  // An empty nodeSelector map is treated as absent (upstream distinguishes nil from empty).
  if (required == nullptr && !addedNodeSelector_ && pod.spec.nodeSelector.empty()) {
    return framework::Status(framework::Code::Skip);
  }
  state.write(std::make_unique<PreFilterState>(api::RequiredNodeAffinity::fromPod(pod)));

  if (required == nullptr || required->nodeSelectorTerms.empty()) return framework::Status();

  // If every term names nodes through matchFields metadata.name In, only those nodes can match.
  std::optional<std::set<std::string>> nodeNames;
  for (const auto& term : required->nodeSelectorTerms) {
    std::optional<std::set<std::string>> termNodeNames;
    for (const auto& r : term.matchFields) {
      if (r.key != kObjectNameField || r.op != "In") continue;
      // Requirements are ANDed: intersect.
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!termNodeNames) {
        termNodeNames = std::move(s);
      } else {
        std::set<std::string> both;
        for (const auto& n : *termNodeNames) {
          if (s.contains(n)) both.insert(n);
        }
        termNodeNames = std::move(both);
      }
    }
    // A term without node-name affinity makes every node eligible (terms are ORed).
    if (!termNodeNames) return framework::Status();
    if (!nodeNames) nodeNames.emplace();
    nodeNames->insert(termNodeNames->begin(), termNodeNames->end());
  }
  if (nodeNames && nodeNames->empty()) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::string(kErrReasonConflict));
  }
  if (nodeNames) result.nodeNames = std::move(nodeNames);
  return framework::Status();
}

framework::Status NodeAffinity::filter(framework::CycleState& state, const framework::PodInfo& pod,
                                       const framework::NodeInfo& nodeInfo) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  if (addedNodeSelector_ && !addedNodeSelector_->match(*node)) {
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::string(kErrReasonEnforced));
  }
  bool match = false;
  if (const auto* s = state.read<PreFilterState>()) {
    match = s->requiredNodeSelectorAndAffinity().match(*node);
  } else {
    // PreFilter disabled: compile here. Parse errors are ignored (no match), as upstream.
    match = api::RequiredNodeAffinity::fromPod(pod.pod()).match(*node);
  }
  if (!match)
    return framework::Status(framework::Code::UnschedulableAndUnresolvable, std::string(kErrReasonPod));
  return framework::Status();
}

framework::Status NodeAffinity::preScore(framework::CycleState& state, const framework::PodInfo& pod,
                                         std::span<const framework::NodeInfoPtr> /*nodes*/) {
  auto preferred = podPreferredNodeAffinity(pod.pod());
  if (!preferred.ok()) return framework::Status::fromError(preferred.error());
  if (!preferred->has_value() && !addedPrefSchedTerms_) return framework::Status(framework::Code::Skip);
  state.write(std::make_unique<PreScoreState>(std::move(preferred).value()));
  return framework::Status();
}

framework::Status NodeAffinity::score(framework::CycleState& state, const framework::PodInfo& pod,
                                      const framework::NodeInfo& nodeInfo, int64_t& score) {
  const api::Node* node = nodeInfo.node();
  if (node == nullptr) return framework::Status::error("node not found");
  int64_t count = 0;
  if (addedPrefSchedTerms_) count += addedPrefSchedTerms_->score(*node);
  if (const auto* s = state.read<PreScoreState>()) {
    if (s->preferredNodeAffinity()) count += s->preferredNodeAffinity()->score(*node);
  } else {
    // PreScore disabled: compile here (slow path).
    auto preferred = podPreferredNodeAffinity(pod.pod());
    if (!preferred.ok()) return framework::Status::fromError(preferred.error());
    if (preferred->has_value()) count += (*preferred)->score(*node);
  }
  score = count;
  return framework::Status();
}

framework::Status NodeAffinity::normalizeScore(framework::CycleState& /*state*/,
                                               const framework::PodInfo& /*pod*/,
                                               framework::NodeScoreList& scores) {
  return helper::defaultNormalizeScore(framework::kMaxNodeScore, false, scores);
}

Result<std::vector<framework::ClusterEventWithHint>> NodeAffinity::eventsToRegister() {
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent{
           framework::EventResource::Node, framework::action::Add | framework::action::UpdateNodeLabel, {}},
       [this](const api::Pod& pod, const framework::EventObject& oldObj,
              const framework::EventObject& newObj) {
         return isSchedulableAfterNodeChange(pod, oldObj, newObj);
       }});
  return events;
}

Result<framework::QueueingHint> NodeAffinity::isSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [original, modified] = *nodes;
  if (modified == nullptr) return Error("expected *v1.Node, but got <nil>");

  if (addedNodeSelector_ && !addedNodeSelector_->match(*modified)) return framework::QueueingHint::QueueSkip;

  const auto required = api::RequiredNodeAffinity::fromPod(pod);
  std::string err;
  const bool isMatched = required.match(*modified, &err);
  if (!err.empty()) return Error(err);
  if (!isMatched) return framework::QueueingHint::QueueSkip;
  // An added node that matches may make the pod schedulable.
  if (original == nullptr) return framework::QueueingHint::Queue;
  // An update helps only when the node didn't match before.
  const bool wasMatched = required.match(*original, &err);
  if (!err.empty()) return Error(err);
  return wasMatched ? framework::QueueingHint::QueueSkip : framework::QueueingHint::Queue;
}

framework::Status NodeAffinity::signPod(const api::Pod& pod,
                                        std::vector<framework::SignFragment>& fragments) {
  fragments.push_back({std::string(framework::kNodeAffinitySignerName), framework::nodeAffinitySigner(pod)});
  fragments.push_back(
      {std::string(framework::kNodeSelectorSignerName), framework::goJsonStringMap(pod.spec.nodeSelector)});
  return {};
}

}  // namespace ks::plugins::nodeaffinity
