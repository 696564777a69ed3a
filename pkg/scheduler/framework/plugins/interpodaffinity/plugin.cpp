// Upstream plugins/interpodaffinity/plugin.go: construction, namespaces, events and queueing hints.
#include "pkg/scheduler/framework/plugins/interpodaffinity/plugin.h"

#include "pkg/informer/factory.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"

namespace ks::plugins::interpodaffinity {

std::ostream& operator<<(std::ostream& os, const TopologyPair& p) {
  return os << "{" << p.key << ": " << p.value << "}";
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
  using framework::action::Add;
  using framework::action::Delete;
  using framework::action::UpdateNodeLabel;
  using framework::action::UpdatePodLabel;
  std::vector<framework::ClusterEventWithHint> events;
  // Delete: an existing pod's anti-affinity may have rejected the pod; UpdatePodLabel: an existing pod's
  // labels may stop matching the pod's anti-affinity or start matching its affinity; Add: a new assigned
  // pod may satisfy the pod's affinity.
  events.push_back({framework::ClusterEvent{framework::EventResource::Pod, Add | UpdatePodLabel | Delete, {}},
                    [this](const api::Pod& pod, const framework::EventObject& oldObj,
                           const framework::EventObject& newObj) {
                      return isSchedulableAfterPodChange(pod, oldObj, newObj);
                    }});
  // With queueing hints there is no preCheck, so UpdateNodeTaint is not needed (upstream).
  events.push_back({framework::ClusterEvent{framework::EventResource::Node, Add | UpdateNodeLabel, {}},
                    [this](const api::Pod& pod, const framework::EventObject& oldObj,
                           const framework::EventObject& newObj) {
                      return isSchedulableAfterNodeChange(pod, oldObj, newObj);
                    }});
  return events;
}

Result<framework::QueueingHint> InterPodAffinity::isSchedulableAfterPodChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const auto [originalPod, modifiedPod] = *pods;
  if ((modifiedPod != nullptr && modifiedPod->spec.nodeName.empty()) ||
      (originalPod != nullptr && originalPod->spec.nodeName.empty())) {
    // An unscheduled pod doesn't make the target pod schedulable.
    return framework::QueueingHint::QueueSkip;
  }

  auto terms = framework::getAffinityTerms(pod, framework::getPodAffinityTerms(pod));
  if (!terms.ok()) return terms.error();
  auto antiTerms = framework::getAffinityTerms(pod, framework::getPodAntiAffinityTerms(pod));
  if (!antiTerms.ok()) return antiTerms.error();

  // Updated: Queue when the pod now matches the affinity, or no longer matches the anti-affinity. One
  // existing pod has to satisfy all terms, so the terms are checked together.
  if (modifiedPod != nullptr && originalPod != nullptr) {
    if (!podMatchesAllAffinityTerms(*terms, *originalPod) &&
        podMatchesAllAffinityTerms(*terms, *modifiedPod)) {
      return framework::QueueingHint::Queue;
    }
    if (podMatchesAllAffinityTerms(*antiTerms, *originalPod) &&
        !podMatchesAllAffinityTerms(*antiTerms, *modifiedPod)) {
      return framework::QueueingHint::Queue;
    }
    return framework::QueueingHint::QueueSkip;
  }

  // Added: Queue when it matches the affinity.
  if (modifiedPod != nullptr) {
    return podMatchesAllAffinityTerms(*terms, *modifiedPod) ? framework::QueueingHint::Queue
                                                            : framework::QueueingHint::QueueSkip;
  }

  // Deleted: Queue when it matched the anti-affinity.
  if (originalPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  return podMatchesAllAffinityTerms(*antiTerms, *originalPod) ? framework::QueueingHint::Queue
                                                              : framework::QueueingHint::QueueSkip;
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

}  // namespace ks::plugins::interpodaffinity
