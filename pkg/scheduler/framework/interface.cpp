#include "pkg/scheduler/framework/interface.h"

namespace ks::framework {

api::ObjectReference podReference(const api::Pod& pod) {
  api::ObjectReference ref;
  ref.kind = "Pod";
  ref.apiVersion = "v1";
  ref.namespace_ = pod.metadata.namespace_;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  ref.resourceVersion = pod.metadata.resourceVersion;
  return ref;
}

PreFilterResult PreFilterResult::merge(const PreFilterResult& other) const {
  if (allNodes() && other.allNodes()) return {};
  if (allNodes()) return other;
  if (other.allNodes()) return *this;
  PreFilterResult out;
  out.nodeNames.emplace();
  for (const auto& n : *nodeNames) {
    if (other.nodeNames->contains(n)) out.nodeNames->insert(n);
  }
  return out;
}

const Status& NodeToStatus::get(const std::string& nodeName) const {
  auto it = nodeToStatus_.find(nodeName);
  return it == nodeToStatus_.end() ? absentNodesStatus_ : it->second;
}

void NodeToStatus::forEachExplicitNode(
    const std::function<void(const std::string&, const Status&)>& fn) const {
  for (const auto& [name, s] : nodeToStatus_) fn(name, s);
}

std::vector<NodeInfoPtr> NodeToStatus::nodesForStatusCode(const NodeInfoLister& lister, Code code) const {
  std::vector<NodeInfoPtr> out;
  for (const auto& ni : lister.list()) {
    if (get(ni->nodeName()).code() == code) out.push_back(ni);
  }
  return out;
}

}  // namespace ks::framework
