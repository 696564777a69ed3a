// Upstream plugins/interpodaffinity/plugin.go: construction, namespaces, events and queueing hints.
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

#include "pkg/informer/factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::interpodaffinity {

std::ostream& operator<<(std::ostream& os, const TopologyPair& p) {
  return os << "{" << p.key << ": " << p.value << "}";
}

void TopologyToMatchedTermCount::add(std::string_view key, std::string_view value, int64_t delta) {
  auto byKey = byKey_.find(key);
  if (byKey == byKey_.end()) {
    if (delta == 0) return;
    byKey = byKey_.try_emplace(std::string(key)).first;
    byKey->second.reserve(reserve_);
  }
  ValueCounts& values = byKey->second;
  int64_t& count = values[value];
  count += delta;
  if (count != 0) return;
  values.erase(value);
  if (values.empty()) byKey_.erase(byKey);
}

int64_t TopologyToMatchedTermCount::count(std::string_view key, std::string_view value) const {
  auto byKey = byKey_.find(key);
  if (byKey == byKey_.end()) return 0;
  const int64_t* count = byKey->second.find(value);
  return count == nullptr ? 0 : *count;
}

bool TopologyToMatchedTermCount::anyPositive(const api::Labels& labels) const {
  for (const auto& [key, values] : byKey_) {
    auto label = labels.find(key);
    if (label == labels.end()) continue;
    if (const int64_t* count = values.find(label->second); count != nullptr && *count > 0) return true;
  }
  return false;
}

std::ostream& operator<<(std::ostream& os, const TopologyToMatchedTermCount& m) {
  os << "{";
  const char* sep = "";
  for (const auto& [key, values] : m.byKey_) {
    std::map<std::string_view, int64_t> sorted;
    values.forEach([&](std::string_view value, int64_t count) { sorted.emplace(value, count); });
    for (const auto& [value, count] : sorted) {
      os << sep << TopologyPair{key, std::string(value)} << ": " << count;
      sep = ", ";
    }
  }
  return os << "}";
}

Result<std::unique_ptr<framework::Plugin>> InterPodAffinity::create(const config::PluginArgs* args,
                                                                    framework::Handle& handle) {
  if (handle.snapshotSharedLister() == nullptr) return Error("SnapshotSharedlister is nil");
  static const config::InterPodAffinityArgs kDefaults{};
  const config::InterPodAffinityArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::InterPodAffinityArgs*>(args);
    if (typed == nullptr) return Error("want args to be of type InterPodAffinityArgs");
  }
  if (const auto errs = config::validateInterPodAffinityArgs("", *typed); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  return std::unique_ptr<framework::Plugin>(
      new InterPodAffinity(handle, *typed, factory->namespaces().store()));
}

// The incoming pod's namespaceSelector is unrolled into its namespace set, so matching its terms never
// needs the other pod's namespace labels, and then matches nothing (v1.37). v1.34 cleared the selector on
// a copy of the term only, so a selector that matches "no labels" (DoesNotExist, NotIn) matched pods in
// every namespace.
void InterPodAffinity::mergeAffinityTermNamespaces(framework::AffinityTerm& term) const {
  if (term.namespaceSelector.empty()) return;
  for (const auto& ns : namespaces_.list()) {
    if (term.namespaceSelector.matches(ns->metadata.labels)) term.namespaces.insert(ns->metadata.name);
  }
  term.namespaceSelector = api::Selector::nothing();
}

api::Labels InterPodAffinity::namespaceLabels(const std::string& ns) const {
  // Namespaces are cluster-scoped: the store key is the name.
  if (auto obj = namespaces_.get(ns)) return obj->metadata.labels;
  return {};
}

Result<std::vector<framework::ClusterEventWithHint>> InterPodAffinity::eventsToRegister() {
  using framework::ClusterEvent;
  using framework::EventResource;
  using framework::action::Add;
  using framework::action::Delete;
  using framework::action::UpdateNodeLabel;
  using framework::action::UpdatePodLabel;
  return std::vector<framework::ClusterEventWithHint>{
      // Delete: an existing pod's anti-affinity may have rejected the pod; UpdatePodLabel: an existing
      // pod's labels may stop matching the pod's anti-affinity or start matching its affinity; Add: a new
      // assigned pod may satisfy the pod's affinity.
      {ClusterEvent{EventResource::AssignedPod, Add | UpdatePodLabel | Delete, {}},
       helper::bindHint(this, &InterPodAffinity::isSchedulableAfterAssignedPodChange)},
      // The pod's own labels may stop matching an existing pod's anti-affinity.
      {ClusterEvent{EventResource::TargetPod, UpdatePodLabel, {}},
       helper::bindHint(this, &InterPodAffinity::isSchedulableAfterTargetPodUpdateLabel)},
      // With queueing hints there is no preCheck, so UpdateNodeTaint is not needed (upstream).
      {ClusterEvent{EventResource::Node, Add | UpdateNodeLabel, {}},
       helper::bindHint(this, &InterPodAffinity::isSchedulableAfterNodeChange)},
  };
}

Result<framework::QueueingHint> InterPodAffinity::isSchedulableAfterAssignedPodChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const auto [originalPod, modifiedPod] = *pods;
  // A nominated pod counts as scheduled; a change of nodeName or nominatedNodeName comes as an Add or a
  // Delete, so either side being unplaced means the event is about an unscheduled pod.
  auto unplaced = [](const api::Pod* p) {
    return p != nullptr && p->spec.nodeName.empty() && p->status.nominatedNodeName.empty();
  };
  if (unplaced(modifiedPod) || unplaced(originalPod)) return framework::QueueingHint::QueueSkip;

  auto terms = framework::getAffinityTerms(pod, framework::getPodAffinityTerms(pod));
  if (!terms.ok()) return terms.error();
  auto antiTerms = framework::getAffinityTerms(pod, framework::getPodAntiAffinityTerms(pod));
  if (!antiTerms.ok()) return antiTerms.error();

  // Updated: Queue when the pod now matches the affinity (one existing pod has to satisfy all terms, so
  // they are checked together), or no longer matches any anti-affinity term.
  if (modifiedPod != nullptr && originalPod != nullptr) {
    if (!podMatchesAllAffinityTerms(*terms, *originalPod) &&
        podMatchesAllAffinityTerms(*terms, *modifiedPod)) {
      return framework::QueueingHint::Queue;
    }
    if (podMatchesAnyAffinityTerms(*antiTerms, *originalPod) &&
        !podMatchesAnyAffinityTerms(*antiTerms, *modifiedPod)) {
      return framework::QueueingHint::Queue;
    }
    return framework::QueueingHint::QueueSkip;
  }

  // Added: Queue when it matches the affinity.
  if (modifiedPod != nullptr) {
    return podMatchesAllAffinityTerms(*terms, *modifiedPod) ? framework::QueueingHint::Queue
                                                            : framework::QueueingHint::QueueSkip;
  }

  // Deleted: Queue when it matched the pod's anti-affinity, or the pod matches the deleted pod's.
  if (originalPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  if (podMatchesAnyAffinityTerms(*antiTerms, *originalPod)) return framework::QueueingHint::Queue;
  auto originalAntiTerms =
      framework::getAffinityTerms(*originalPod, framework::getPodAntiAffinityTerms(*originalPod));
  if (!originalAntiTerms.ok()) return originalAntiTerms.error();
  return podMatchesAnyAffinityTerms(*originalAntiTerms, pod) ? framework::QueueingHint::Queue
                                                             : framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> InterPodAffinity::isSchedulableAfterTargetPodUpdateLabel(
    const api::Pod& /*pod*/, const framework::EventObject& /*oldObj*/,
    const framework::EventObject& /*newObj*/) const {
  return framework::QueueingHint::Queue;
}

Result<framework::QueueingHint> InterPodAffinity::isSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [originalNode, modifiedNode] = *nodes;
  if (modifiedNode == nullptr) return Error("expected *v1.Node, but got <nil>");

  auto terms = framework::getAffinityTerms(pod, framework::getPodAffinityTerms(pod));
  if (!terms.ok()) return terms.error();
  // Affinity: a node added with the topology key, a node that gained the key, or a node whose value for
  // the key changed may make the pod schedulable.
  for (const auto& term : *terms) {
    const auto modifiedIt = modifiedNode->metadata.labels.find(term.topologyKey);
    const bool modifiedHasKey = modifiedIt != modifiedNode->metadata.labels.end();
    if (originalNode == nullptr) {
      if (modifiedHasKey) return framework::QueueingHint::Queue;
      continue;
    }
    const auto originalIt = originalNode->metadata.labels.find(term.topologyKey);
    const bool originalHasKey = originalIt != originalNode->metadata.labels.end();
    if (!originalHasKey && modifiedHasKey) return framework::QueueingHint::Queue;
    if (originalHasKey && modifiedHasKey && originalIt->second != modifiedIt->second) {
      return framework::QueueingHint::Queue;
    }
  }

  auto antiTerms = framework::getAffinityTerms(pod, framework::getPodAntiAffinityTerms(pod));
  if (!antiTerms.ok()) return antiTerms.error();
  // Anti-affinity: any added node (a node without the key always accepts the pod), a node that lost the
  // key, or a node whose value for the key changed may make the pod schedulable.
  for (const auto& term : *antiTerms) {
    if (originalNode == nullptr) return framework::QueueingHint::Queue;
    const auto originalIt = originalNode->metadata.labels.find(term.topologyKey);
    const auto modifiedIt = modifiedNode->metadata.labels.find(term.topologyKey);
    const bool originalHasKey = originalIt != originalNode->metadata.labels.end();
    const bool modifiedHasKey = modifiedIt != modifiedNode->metadata.labels.end();
    if (originalHasKey && !modifiedHasKey) return framework::QueueingHint::Queue;
    if (originalHasKey && modifiedHasKey && originalIt->second != modifiedIt->second) {
      return framework::QueueingHint::Queue;
    }
  }
  return framework::QueueingHint::QueueSkip;
}

framework::Status InterPodAffinity::signPod(const api::Pod& pod,
                                            std::vector<framework::SignFragment>& fragments) {
  if (pod.spec.affinity && (pod.spec.affinity->podAffinity || pod.spec.affinity->podAntiAffinity)) {
    return framework::Status(framework::Code::Unschedulable, "pods with InterPodAffinity are not signable");
  }
  // Without preferred terms of existing pods only pods with affinity terms can match this one, so its labels
  // don't matter; otherwise an existing pod's terms may match them.
  if (args_.ignorePreferredTermsOfExistingPods) return {};
  fragments.push_back(
      {std::string(framework::kLabelsSignerName), framework::goJsonStringMap(pod.metadata.labels)});
  return {};
}

}  // namespace ks::plugins::interpodaffinity
