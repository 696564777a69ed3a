#include "test/support/wrappers.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ks::testing {

api::Quantity mustParse(std::string_view s) {
  auto q = api::Quantity::parse(s);
  if (!q.ok()) {
    std::fprintf(stderr, "testsupport: cannot parse quantity '%.*s': %s\n", static_cast<int>(s.size()),
                 s.data(), q.error().message().c_str());
    std::abort();
  }
  return *q;
}

api::ResourceList resourceList(const ResourceMap& resources) {
  api::ResourceList out;
  for (const auto& [name, value] : resources) out[name] = mustParse(value);
  return out;
}

namespace {

api::LabelSelector selectorFor(std::string key, std::string op, std::vector<std::string> vals) {
  api::LabelSelector s;
  s.matchExpressions.push_back(api::LabelSelectorRequirement{std::move(key), std::move(op), std::move(vals)});
  return s;
}

api::Container makeContainer(std::string name, api::ResourceRequirements resources = {}) {
  api::Container c;
  c.name = std::move(name);
  c.image = std::string(kPauseImage);
  c.resources = std::move(resources);
  return c;
}

}  // namespace

PodWrapper MakePod() {
  return PodWrapper();
}
NodeWrapper MakeNode() {
  return NodeWrapper();
}

// ---------------------------------------------------------------------------------------------
// PodWrapper

PodWrapper& PodWrapper::name(std::string s) {
  pod_.metadata.name = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::namespace_(std::string s) {
  pod_.metadata.namespace_ = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::uid(std::string s) {
  pod_.metadata.uid = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::resourceVersion(std::string s) {
  pod_.metadata.resourceVersion = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::label(std::string k, std::string v) {
  pod_.metadata.labels[std::move(k)] = std::move(v);
  return *this;
}
PodWrapper& PodWrapper::labels(const api::Labels& labels) {
  for (const auto& [k, v] : labels) pod_.metadata.labels[k] = v;
  return *this;
}
PodWrapper& PodWrapper::annotation(std::string k, std::string v) {
  pod_.metadata.annotations[std::move(k)] = std::move(v);
  return *this;
}
PodWrapper& PodWrapper::ownerReference(std::string name, std::string kind, std::string apiVersion) {
  api::OwnerReference ref;
  ref.apiVersion = std::move(apiVersion);
  ref.kind = std::move(kind);
  ref.name = std::move(name);
  ref.controller = true;
  pod_.metadata.ownerReferences = {ref};
  return *this;
}
PodWrapper& PodWrapper::terminating() {
  pod_.metadata.deletionTimestamp = std::chrono::system_clock::now();
  return *this;
}
PodWrapper& PodWrapper::creationTimestamp(api::Time t) {
  pod_.metadata.creationTimestamp = t;
  return *this;
}

PodWrapper& PodWrapper::schedulerName(std::string s) {
  pod_.spec.schedulerName = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::node(std::string s) {
  pod_.spec.nodeName = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::priority(int32_t p) {
  pod_.spec.priority = p;
  return *this;
}
PodWrapper& PodWrapper::priorityClassName(std::string s) {
  pod_.spec.priorityClassName = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::preemptionPolicy(std::string s) {
  pod_.spec.preemptionPolicy = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::nodeSelector(const std::map<std::string, std::string>& m) {
  pod_.spec.nodeSelector = m;
  return *this;
}

api::NodeSelectorTerm& PodWrapper::firstRequiredTerm() {
  if (!pod_.spec.affinity) pod_.spec.affinity = api::Affinity{};
  auto& aff = *pod_.spec.affinity;
  if (!aff.nodeAffinity) aff.nodeAffinity = api::NodeAffinity{};
  auto& required = aff.nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) required = api::NodeSelector{};
  if (required->nodeSelectorTerms.empty()) required->nodeSelectorTerms.emplace_back();
  return required->nodeSelectorTerms.front();
}

PodWrapper& PodWrapper::nodeAffinityIn(std::string key, std::vector<std::string> vals, bool matchFields) {
  auto& term = firstRequiredTerm();
  (matchFields ? term.matchFields : term.matchExpressions)
      .push_back(api::NodeSelectorRequirement{std::move(key), "In", std::move(vals)});
  return *this;
}
PodWrapper& PodWrapper::nodeAffinityNotIn(std::string key, std::vector<std::string> vals, bool matchFields) {
  auto& term = firstRequiredTerm();
  (matchFields ? term.matchFields : term.matchExpressions)
      .push_back(api::NodeSelectorRequirement{std::move(key), "NotIn", std::move(vals)});
  return *this;
}
PodWrapper& PodWrapper::preferredNodeAffinity(int32_t weight, api::NodeSelectorTerm preference) {
  if (!pod_.spec.affinity) pod_.spec.affinity = api::Affinity{};
  auto& aff = *pod_.spec.affinity;
  if (!aff.nodeAffinity) aff.nodeAffinity = api::NodeAffinity{};
  aff.nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.push_back(
      api::PreferredSchedulingTerm{weight, std::move(preference)});
  return *this;
}

PodWrapper& PodWrapper::toleration(std::string key) {
  api::Toleration t;
  t.key = std::move(key);
  t.op = "Exists";
  t.effect = std::string(api::kTaintEffectNoSchedule);
  pod_.spec.tolerations.push_back(std::move(t));
  return *this;
}
PodWrapper& PodWrapper::toleration(api::Toleration t) {
  pod_.spec.tolerations.push_back(std::move(t));
  return *this;
}
PodWrapper& PodWrapper::tolerations(std::vector<api::Toleration> t) {
  for (auto& x : t) pod_.spec.tolerations.push_back(std::move(x));
  return *this;
}

api::PodAffinity& PodWrapper::affinityBlock(bool anti) {
  if (!pod_.spec.affinity) pod_.spec.affinity = api::Affinity{};
  auto& slot = anti ? pod_.spec.affinity->podAntiAffinity : pod_.spec.affinity->podAffinity;
  if (!slot) slot = api::PodAffinity{};
  return *slot;
}

PodWrapper& PodWrapper::podAffinityTerm(api::PodAffinityTerm term, AffinityKind kind, int32_t weight) {
  auto& block = affinityBlock(false);
  if (kind == AffinityKind::Required) {
    block.requiredDuringSchedulingIgnoredDuringExecution.push_back(std::move(term));
  } else {
    block.preferredDuringSchedulingIgnoredDuringExecution.push_back(
        api::WeightedPodAffinityTerm{weight, std::move(term)});
  }
  return *this;
}
PodWrapper& PodWrapper::podAntiAffinityTerm(api::PodAffinityTerm term, AffinityKind kind, int32_t weight) {
  auto& block = affinityBlock(true);
  if (kind == AffinityKind::Required) {
    block.requiredDuringSchedulingIgnoredDuringExecution.push_back(std::move(term));
  } else {
    block.preferredDuringSchedulingIgnoredDuringExecution.push_back(
        api::WeightedPodAffinityTerm{weight, std::move(term)});
  }
  return *this;
}
PodWrapper& PodWrapper::podAffinity(std::string topologyKey, std::optional<api::LabelSelector> selector,
                                    AffinityKind kind, int32_t weight) {
  api::PodAffinityTerm term;
  term.labelSelector = std::move(selector);
  term.topologyKey = std::move(topologyKey);
  return podAffinityTerm(std::move(term), kind, weight);
}
PodWrapper& PodWrapper::podAntiAffinity(std::string topologyKey, std::optional<api::LabelSelector> selector,
                                        AffinityKind kind, int32_t weight) {
  api::PodAffinityTerm term;
  term.labelSelector = std::move(selector);
  term.topologyKey = std::move(topologyKey);
  return podAntiAffinityTerm(std::move(term), kind, weight);
}
PodWrapper& PodWrapper::podAffinityExists(std::string labelKey, std::string topologyKey, AffinityKind kind) {
  return podAffinity(std::move(topologyKey), selectorFor(std::move(labelKey), "Exists", {}), kind);
}
PodWrapper& PodWrapper::podAntiAffinityExists(std::string labelKey, std::string topologyKey,
                                              AffinityKind kind) {
  return podAntiAffinity(std::move(topologyKey), selectorFor(std::move(labelKey), "Exists", {}), kind);
}
PodWrapper& PodWrapper::podAffinityIn(std::string labelKey, std::string topologyKey,
                                      std::vector<std::string> vals, AffinityKind kind) {
  return podAffinity(std::move(topologyKey), selectorFor(std::move(labelKey), "In", std::move(vals)), kind);
}
PodWrapper& PodWrapper::podAntiAffinityIn(std::string labelKey, std::string topologyKey,
                                          std::vector<std::string> vals, AffinityKind kind) {
  return podAntiAffinity(std::move(topologyKey), selectorFor(std::move(labelKey), "In", std::move(vals)),
                         kind);
}

PodWrapper& PodWrapper::spreadConstraint(int32_t maxSkew, std::string topologyKey,
                                         std::string whenUnsatisfiable,
                                         std::optional<api::LabelSelector> selector,
                                         std::optional<int32_t> minDomains,
                                         std::optional<std::string> nodeAffinityPolicy,
                                         std::optional<std::string> nodeTaintsPolicy,
                                         std::vector<std::string> matchLabelKeys) {
  api::TopologySpreadConstraint c;
  c.maxSkew = maxSkew;
  c.topologyKey = std::move(topologyKey);
  c.whenUnsatisfiable = std::move(whenUnsatisfiable);
  c.labelSelector = std::move(selector);
  c.minDomains = minDomains;
  c.nodeAffinityPolicy = std::move(nodeAffinityPolicy);
  c.nodeTaintsPolicy = std::move(nodeTaintsPolicy);
  c.matchLabelKeys = std::move(matchLabelKeys);
  pod_.spec.topologySpreadConstraints.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::schedulingGates(const std::vector<std::string>& gates) {
  for (const auto& g : gates) pod_.spec.schedulingGates.push_back(api::PodSchedulingGate{g});
  return *this;
}

PodWrapper& PodWrapper::pvc(std::string claimName) {
  api::Volume v;
  v.name = claimName;
  v.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{std::move(claimName), false};
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}
PodWrapper& PodWrapper::volume(api::Volume v) {
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}

PodWrapper& PodWrapper::container(std::string image) {
  api::Container c = makeContainer("con" + std::to_string(pod_.spec.containers.size()));
  c.image = std::move(image);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::req(const ResourceMap& requests) {
  api::ResourceRequirements r;
  r.requests = resourceList(requests);
  pod_.spec.containers.push_back(
      makeContainer("con" + std::to_string(pod_.spec.containers.size()), std::move(r)));
  return *this;
}
PodWrapper& PodWrapper::lim(const ResourceMap& limits) {
  api::ResourceRequirements r;
  r.limits = resourceList(limits);
  pod_.spec.containers.push_back(
      makeContainer("con" + std::to_string(pod_.spec.containers.size()), std::move(r)));
  return *this;
}
PodWrapper& PodWrapper::initReq(const ResourceMap& requests) {
  api::ResourceRequirements r;
  r.requests = resourceList(requests);
  pod_.spec.initContainers.push_back(
      makeContainer("init-con" + std::to_string(pod_.spec.initContainers.size()), std::move(r)));
  return *this;
}
PodWrapper& PodWrapper::sidecarReq(const ResourceMap& requests) {
  api::ResourceRequirements r;
  r.requests = resourceList(requests);
  api::Container c =
      makeContainer("sidecar-con" + std::to_string(pod_.spec.initContainers.size()), std::move(r));
  c.restartPolicy = "Always";
  pod_.spec.initContainers.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::hostPort(int32_t port, std::string protocol, std::string hostIP) {
  api::Container c = makeContainer("container");
  api::ContainerPort p;
  p.hostPort = port;
  p.protocol = std::move(protocol);
  p.hostIP = std::move(hostIP);
  c.ports.push_back(std::move(p));
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::containerPort(std::vector<api::ContainerPort> ports) {
  api::Container c = makeContainer("container");
  c.ports = std::move(ports);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::overhead(const ResourceMap& overhead) {
  pod_.spec.overhead = resourceList(overhead);
  return *this;
}
PodWrapper& PodWrapper::res(const ResourceMap& podLevelRequests) {
  if (!pod_.spec.resources) pod_.spec.resources = api::ResourceRequirements{};
  pod_.spec.resources->requests = resourceList(podLevelRequests);
  return *this;
}
PodWrapper& PodWrapper::podLevelLimits(const ResourceMap& limits) {
  if (!pod_.spec.resources) pod_.spec.resources = api::ResourceRequirements{};
  pod_.spec.resources->limits = resourceList(limits);
  return *this;
}

PodWrapper& PodWrapper::nominatedNodeName(std::string s) {
  pod_.status.nominatedNodeName = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::phase(std::string s) {
  pod_.status.phase = std::move(s);
  return *this;
}
PodWrapper& PodWrapper::condition(std::string type, std::string status, std::string reason) {
  api::PodCondition c;
  c.type = std::move(type);
  c.status = std::move(status);
  c.reason = std::move(reason);
  pod_.status.conditions.push_back(std::move(c));
  return *this;
}
PodWrapper& PodWrapper::conditions(std::vector<api::PodCondition> conditions) {
  pod_.status.conditions = std::move(conditions);
  return *this;
}
PodWrapper& PodWrapper::startTime(api::Time t) {
  pod_.status.startTime = t;
  return *this;
}

// ---------------------------------------------------------------------------------------------
// NodeWrapper

NodeWrapper::NodeWrapper() {
  capacity({});
}

NodeWrapper& NodeWrapper::name(std::string s) {
  node_.metadata.name = std::move(s);
  return *this;
}
NodeWrapper& NodeWrapper::uid(std::string s) {
  node_.metadata.uid = std::move(s);
  return *this;
}
NodeWrapper& NodeWrapper::label(std::string k, std::string v) {
  node_.metadata.labels[std::move(k)] = std::move(v);
  return *this;
}
NodeWrapper& NodeWrapper::annotation(std::string k, std::string v) {
  node_.metadata.annotations[std::move(k)] = std::move(v);
  return *this;
}
NodeWrapper& NodeWrapper::capacity(const ResourceMap& resources) {
  api::ResourceList res;
  res[std::string(api::kResourcePods)] = mustParse("32");
  for (const auto& [name, value] : resources) res[name] = mustParse(value);
  node_.status.capacity = res;
  node_.status.allocatable = std::move(res);
  return *this;
}
NodeWrapper& NodeWrapper::allocatable(const ResourceMap& resources) {
  node_.status.allocatable = resourceList(resources);
  return *this;
}
NodeWrapper& NodeWrapper::taints(std::vector<api::Taint> taints) {
  node_.spec.taints = std::move(taints);
  return *this;
}
NodeWrapper& NodeWrapper::unschedulable(bool u) {
  node_.spec.unschedulable = u;
  return *this;
}
NodeWrapper& NodeWrapper::images(const std::map<std::string, int64_t>& images) {
  node_.status.images.clear();
  for (const auto& [name, size] : images) node_.status.images.push_back(api::ContainerImage{{name}, size});
  return *this;
}
NodeWrapper& NodeWrapper::condition(std::string type, std::string status) {
  api::NodeCondition c;
  c.type = std::move(type);
  c.status = std::move(status);
  node_.status.conditions.push_back(std::move(c));
  return *this;
}
NodeWrapper& NodeWrapper::declaredFeatures(std::vector<std::string> features) {
  node_.status.declaredFeatures = std::move(features);
  return *this;
}

}  // namespace ks::testing
