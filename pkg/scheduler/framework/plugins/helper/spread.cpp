#include "pkg/scheduler/framework/plugins/helper/spread.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ks::plugins::helper {

namespace {

// metav1.GetControllerOfNoCopy: the first owner reference with controller=true.
const api::OwnerReference* controllerOf(const api::Pod& pod) {
  for (const auto& ref : pod.metadata.ownerReferences) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

struct GroupVersion {
  std::string_view group;
  std::string_view version;
};

// schema.ParseGroupVersion: "" -> {}, "v1" -> {"", "v1"}, "apps/v1" -> {"apps", "v1"}; more than one
// '/' is an error.
std::optional<GroupVersion> parseGroupVersion(std::string_view gv) {
  const auto slash = gv.find('/');
  if (slash == std::string_view::npos) return GroupVersion{"", gv};
  if (gv.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return GroupVersion{gv.substr(0, slash), gv.substr(slash + 1)};
}

// The store key of an object named `name` in the pod's namespace (cache.MetaNamespaceKeyFunc).
std::string keyInNamespace(const api::Pod& pod, const std::string& name) {
  return pod.metadata.namespace_.empty() ? name : pod.metadata.namespace_ + "/" + name;
}

// selector.Add(other's requirements...) when `other` compiles and is not Nothing (a nil selector).
api::Selector addLabelSelector(const api::Selector& selector,
                               const std::optional<api::LabelSelector>& other) {
  auto compiled = api::Selector::fromLabelSelector(other);
  if (!compiled.ok() || compiled->isNothing()) return selector;
  return selector.add(compiled->requirements());
}

// labels.Set(selector).AsSelectorPreValidated().Matches(labels): every key present with the same value.
// Allocates nothing.
bool setMatches(const std::map<std::string, std::string>& selector, const api::Labels& labels) {
  for (const auto& [k, v] : selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

std::vector<std::shared_ptr<const api::Service>> getPodServices(const informer::Store<api::Service>& services,
                                                                const api::Pod& pod) {
  const std::string& ns = pod.metadata.namespace_;
  auto inNamespace = services.byIndex(std::string(informer::kNamespaceIndex), ns);
  std::vector<std::shared_ptr<const api::Service>> candidates;
  if (inNamespace.ok()) {
    candidates = std::move(inNamespace).value();
  } else {
    for (auto& s : services.list()) {
      if (s->metadata.namespace_ == ns) candidates.push_back(std::move(s));
    }
  }
  std::vector<std::shared_ptr<const api::Service>> out;
  for (auto& service : candidates) {
    // A nil selector selects nothing, not everything. The API drops empty maps (omitempty), so an empty
    // map here is a nil one.
    if (service->spec.selector.empty()) continue;
    if (setMatches(service->spec.selector, pod.metadata.labels)) out.push_back(std::move(service));
  }
  return out;
}

api::Selector defaultSelector(const api::Pod& pod, const informer::Store<api::Service>& services,
                              const informer::Store<api::ReplicationController>& replicationControllers,
                              const informer::Store<api::ReplicaSet>& replicaSets,
                              const informer::Store<api::StatefulSet>& statefulSets) {
  api::Labels labelSet;
  for (const auto& service : getPodServices(services, pod)) {
    // labels.Merge: later values win.
    for (const auto& [k, v] : service->spec.selector) labelSet[k] = v;
  }
  api::Selector selector = api::Selector::fromSet(labelSet);

  const api::OwnerReference* owner = controllerOf(pod);
  if (owner == nullptr) return selector;
  const auto gv = parseGroupVersion(owner->apiVersion);
  if (!gv) return selector;

  if (gv->group.empty() && gv->version == "v1" && owner->kind == api::ReplicationController::kKind) {
    if (auto rc = replicationControllers.get(keyInNamespace(pod, owner->name))) {
      for (const auto& [k, v] : rc->spec.selector) labelSet[k] = v;
      selector = api::Selector::fromSet(labelSet);
    }
  } else if (gv->group == "apps" && gv->version == "v1" && owner->kind == api::ReplicaSet::kKind) {
    if (auto rs = replicaSets.get(keyInNamespace(pod, owner->name))) {
      selector = addLabelSelector(selector, rs->spec.selector);
    }
  } else if (gv->group == "apps" && gv->version == "v1" && owner->kind == api::StatefulSet::kKind) {
    if (auto ss = statefulSets.get(keyInNamespace(pod, owner->name))) {
      selector = addLabelSelector(selector, ss->spec.selector);
    }
  }
  return selector;
}

}  // namespace ks::plugins::helper
