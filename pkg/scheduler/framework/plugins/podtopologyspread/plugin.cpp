// Construction, default constraints and queueing hints (upstream podtopologyspread/plugin.go, common.go).
#include "pkg/scheduler/framework/plugins/podtopologyspread/plugin.h"

#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/plugins/helper/event_objects.h"
#include "pkg/scheduler/framework/plugins/helper/spread.h"
#include "pkg/scheduler/framework/signers.h"

namespace ks::plugins::podtopologyspread {

namespace {

// systemDefaultConstraints: spread over hosts and zones, softly.
std::vector<api::TopologySpreadConstraint> systemDefaultConstraints() {
  api::TopologySpreadConstraint hostname;
  hostname.topologyKey = std::string(kLabelHostname);
  hostname.whenUnsatisfiable = std::string(kScheduleAnyway);
  hostname.maxSkew = 3;
  api::TopologySpreadConstraint zone;
  zone.topologyKey = std::string(kLabelTopologyZone);
  zone.whenUnsatisfiable = std::string(kScheduleAnyway);
  zone.maxSkew = 5;
  return {hostname, zone};
}

// involvedInTopologySpreading: the incoming pod is scheduled or nominated, in the pod's namespace.
bool involvedInTopologySpreading(const api::Pod& incomingPod, const api::Pod& podWithSpreading) {
  if (incomingPod.spec.nodeName.empty() && incomingPod.status.nominatedNodeName.empty()) return false;
  return incomingPod.metadata.namespace_ == podWithSpreading.metadata.namespace_;
}

// The hint for an updated pod (assigned, or the pod itself): Queue when the update makes it match, or stop
// matching, some constraint's selector (upstream isSchedulableAfterPodLabelChange).
framework::QueueingHint podLabelChangeHint(const api::Pod& originalPod, const api::Pod& modifiedPod,
                                           const std::vector<TopologySpreadConstraint>& constraints) {
  if (modifiedPod.metadata.labels == originalPod.metadata.labels) return framework::QueueingHint::QueueSkip;
  for (const auto& c : constraints) {
    if (c.selector.matches(originalPod.metadata.labels) != c.selector.matches(modifiedPod.metadata.labels)) {
      return framework::QueueingHint::Queue;
    }
  }
  return framework::QueueingHint::QueueSkip;
}

bool hasConstraintWithNodeTaintsPolicyHonor(const std::vector<TopologySpreadConstraint>& constraints) {
  for (const auto& c : constraints) {
    if (c.nodeTaintsPolicy == NodeInclusionPolicy::Honor) return true;
  }
  return false;
}

// checkTopologyKeyLabelsChanged: some topologyKey's value differs (a missing label reads as "").
bool checkTopologyKeyLabelsChanged(const api::Labels& originalLabels, const api::Labels& modifiedLabels,
                                   const std::vector<TopologySpreadConstraint>& constraints) {
  for (const auto& c : constraints) {
    if (labelValueOrEmpty(originalLabels, c.topologyKey) !=
        labelValueOrEmpty(modifiedLabels, c.topologyKey)) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> PodTopologySpread::create(const config::PluginArgs* args,
                                                                     framework::Handle& handle,
                                                                     Features features) {
  static const config::PodTopologySpreadArgs kDefaults{};
  const config::PodTopologySpreadArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::PodTopologySpreadArgs*>(args);
    if (typed == nullptr) return Error("want args to be of type PodTopologySpreadArgs");
  }
  auto pl = create(*typed, handle, features);
  if (!pl.ok()) return pl.error();
  return std::unique_ptr<framework::Plugin>(std::move(pl).value());
}

Result<std::unique_ptr<PodTopologySpread>> PodTopologySpread::create(
    const config::PodTopologySpreadArgs& args, framework::Handle& handle, const Features& features) {
  if (handle.snapshotSharedLister() == nullptr) return Error("SnapshotSharedlister is nil");
  const auto errs = config::validatePodTopologySpreadArgs("", args);
  if (!errs.empty()) return Error(config::aggregateMessage(errs));

  std::unique_ptr<PodTopologySpread> pl(new PodTopologySpread(handle, features));
  pl->defaultConstraints_ = args.defaultConstraints;
  if (args.defaultingType == "System") {
    pl->defaultConstraints_ = systemDefaultConstraints();
    pl->systemDefaulted_ = true;
  }
  if (!pl->defaultConstraints_.empty()) {
    informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
    if (factory == nullptr) return Error("SharedInformerFactory is nil");
    // Taking the informers registers them, so that the scheduler starts and syncs them.
    auto& services = factory->services().store();
    // Services are listed per namespace for every pod with default constraints: index them as
    // upstream's informers are. An index that already exists (another profile) is fine.
    (void)services.addIndexer(std::string(informer::kNamespaceIndex),
                              informer::metaNamespaceIndexFunc<api::Service>);
    pl->services_ = &services;
    pl->replicationCtrls_ = &factory->replicationControllers().store();
    pl->replicaSets_ = &factory->replicaSets().store();
    pl->statefulSets_ = &factory->statefulSets().store();
  }
  return pl;
}

Result<std::vector<TopologySpreadConstraint>> PodTopologySpread::buildDefaultConstraints(
    const api::Pod& pod, std::string_view action) const {
  auto constraints =
      filterTopologySpreadConstraints(defaultConstraints_, pod.metadata.labels, action, features_);
  if (!constraints.ok() || constraints->empty()) return constraints;
  api::Selector selector =
      helper::defaultSelector(pod, *services_, *replicationCtrls_, *replicaSets_, *statefulSets_);
  if (selector.empty()) return std::vector<TopologySpreadConstraint>{};
  for (auto& c : *constraints) c.selector = selector;
  return constraints;
}

Result<std::vector<TopologySpreadConstraint>> PodTopologySpread::getConstraints(const api::Pod& pod) const {
  if (!pod.spec.topologySpreadConstraints.empty()) {
    // The apiserver strips fields of disabled gates, so the constraints are taken as they are.
    auto cs = filterTopologySpreadConstraints(pod.spec.topologySpreadConstraints, pod.metadata.labels,
                                              kDoNotSchedule, features_);
    if (!cs.ok()) return cs.error().wrap("obtaining pod's hard topology spread constraints");
    return cs;
  }
  auto cs = buildDefaultConstraints(pod, kDoNotSchedule);
  if (!cs.ok()) return cs.error().wrap("setting default hard topology spread constraints");
  return cs;
}

Result<std::vector<framework::ClusterEventWithHint>> PodTopologySpread::eventsToRegister() {
  using framework::ClusterEvent;
  using framework::EventResource;
  namespace action = framework::action;
  return std::vector<framework::ClusterEventWithHint>{
      // An added or deleted assigned pod changes the counts; a label update may make it (stop) match.
      {ClusterEvent{EventResource::AssignedPod, action::Add | action::UpdatePodLabel | action::Delete, {}},
       helper::bindHint(this, &PodTopologySpread::isSchedulableAfterAssignedPodChange)},
      // The pod's own labels count when they match its selectors; a new toleration matters for
      // constraints honouring taints.
      {ClusterEvent{EventResource::TargetPod, action::UpdatePodToleration | action::UpdatePodLabel, {}},
       helper::bindHint(this, &PodTopologySpread::isSchedulableAfterTargetPodChange)},
      // Domains appear, disappear or change.
      {ClusterEvent{EventResource::Node,
                    action::Add | action::Delete | action::UpdateNodeLabel | action::UpdateNodeTaint,
                    {}},
       helper::bindHint(this, &PodTopologySpread::isSchedulableAfterNodeChange)},
  };
}

Result<framework::QueueingHint> PodTopologySpread::isSchedulableAfterTargetPodChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const auto [originalPod, modifiedPod] = *pods;
  if (originalPod == nullptr || modifiedPod == nullptr) return Error("expected *v1.Pod, but got <nil>");
  auto constraints = getConstraints(pod);
  if (!constraints.ok()) return constraints.error();
  // A new toleration may let the pod onto nodes a constraint honouring taints left out.
  if (modifiedPod->spec.tolerations != originalPod->spec.tolerations &&
      hasConstraintWithNodeTaintsPolicyHonor(*constraints)) {
    return framework::QueueingHint::Queue;
  }
  return podLabelChangeHint(*originalPod, *modifiedPod, *constraints);
}

Result<framework::QueueingHint> PodTopologySpread::isSchedulableAfterAssignedPodChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto pods = helper::asTyped<api::Pod>(oldObj, newObj);
  if (!pods.ok()) return pods.error();
  const auto [originalPod, modifiedPod] = *pods;

  // An unscheduled pod or one in another namespace doesn't count.
  if ((modifiedPod != nullptr && !involvedInTopologySpreading(*modifiedPod, pod)) ||
      (originalPod != nullptr && !involvedInTopologySpreading(*originalPod, pod))) {
    return framework::QueueingHint::QueueSkip;
  }

  auto constraints = getConstraints(pod);
  if (!constraints.ok()) return constraints.error();

  if (modifiedPod != nullptr && originalPod != nullptr) {
    return podLabelChangeHint(*originalPod, *modifiedPod, *constraints);
  }
  // Added: Queue when it matches some selector.
  if (modifiedPod != nullptr) {
    return podLabelsMatchSpreadConstraints(*constraints, modifiedPod->metadata.labels)
               ? framework::QueueingHint::Queue
               : framework::QueueingHint::QueueSkip;
  }
  // Deleted: Queue when it matched some selector.
  if (originalPod != nullptr && podLabelsMatchSpreadConstraints(*constraints, originalPod->metadata.labels)) {
    return framework::QueueingHint::Queue;
  }
  return framework::QueueingHint::QueueSkip;
}

Result<framework::QueueingHint> PodTopologySpread::isSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& oldObj, const framework::EventObject& newObj) const {
  auto nodes = helper::asTyped<api::Node>(oldObj, newObj);
  if (!nodes.ok()) return nodes.error();
  const auto [originalNode, modifiedNode] = *nodes;

  auto constraints = getConstraints(pod);
  if (!constraints.ok()) return constraints.error();

  const bool originalNodeMatching =
      originalNode != nullptr &&
      nodeLabelsMatchSpreadConstraints(originalNode->metadata.labels, *constraints);
  const bool modifiedNodeMatching =
      modifiedNode != nullptr &&
      nodeLabelsMatchSpreadConstraints(modifiedNode->metadata.labels, *constraints);

  // Updated: Queue when the node starts or stops having every topologyKey, or keeps them and changes a
  // topologyKey value or its taints.
  if (originalNode != nullptr && modifiedNode != nullptr) {
    if (originalNodeMatching != modifiedNodeMatching) return framework::QueueingHint::Queue;
    if (modifiedNodeMatching && (checkTopologyKeyLabelsChanged(originalNode->metadata.labels,
                                                               modifiedNode->metadata.labels, *constraints) ||
                                 originalNode->spec.taints != modifiedNode->spec.taints)) {
      return framework::QueueingHint::Queue;
    }
    return framework::QueueingHint::QueueSkip;
  }
  // Added: Queue when it has every topologyKey.
  if (modifiedNode != nullptr) {
    return modifiedNodeMatching ? framework::QueueingHint::Queue : framework::QueueingHint::QueueSkip;
  }
  // Deleted: Queue when it had every topologyKey.
  return originalNodeMatching ? framework::QueueingHint::Queue : framework::QueueingHint::QueueSkip;
}

framework::Status PodTopologySpread::signPod(const api::Pod& pod,
                                             std::vector<framework::SignFragment>& /*fragments*/) {
  if (!pod.spec.topologySpreadConstraints.empty()) {
    return framework::Status(framework::Code::Unschedulable,
                             "pods with topology constraints are not signable");
  }
  if (!defaultConstraints_.empty()) {
    return framework::Status(framework::Code::Unschedulable,
                             "pods with default topology constraints are not signable");
  }
  return {};
}

}  // namespace ks::plugins::podtopologyspread
