#include "pkg/scheduler/backend/cache/snapshot.h"

#include <utility>

#include "pkg/util/strings.h"

namespace ks::cache {

Result<framework::NodeInfoPtr> Snapshot::get(std::string_view nodeName) const {
  if (auto it = nodeInfoMap_.find(nodeName); it != nodeInfoMap_.end() && it->second->node() != nullptr) {
    return it->second;
  }
  return Error("nodeinfo not found for node name " + quote(nodeName));
}

ImageExistenceMap createImageExistenceMap(const std::vector<api::NodePtr>& nodes) {
  ImageExistenceMap out;
  for (const auto& node : nodes) {
    for (const auto& image : node->status.images) {
      for (const auto& name : image.names) out[name].insert(node->metadata.name);
    }
  }
  return out;
}

std::map<std::string, framework::ImageStateSummary> getNodeImageStates(const api::Node& node,
                                                                       const ImageExistenceMap& existence) {
  std::map<std::string, framework::ImageStateSummary> out;
  for (const auto& image : node.status.images) {
    for (const auto& name : image.names) {
      auto it = existence.find(name);
      framework::ImageStateSummary s;
      s.size = image.sizeBytes;
      s.numNodes = it == existence.end() ? 0 : static_cast<int>(it->second.size());
      out[name] = std::move(s);
    }
  }
  return out;
}

std::set<std::string, std::less<>> createUsedPVCSet(const std::vector<api::PodPtr>& pods) {
  std::set<std::string, std::less<>> out;
  for (const auto& pod : pods) {
    if (pod->spec.nodeName.empty()) continue;
    for (const auto& v : pod->spec.volumes) {
      if (!v.persistentVolumeClaim) continue;
      out.insert(pod->metadata.namespace_ + "/" + v.persistentVolumeClaim->claimName);
    }
  }
  return out;
}

Snapshot newSnapshot(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes) {
  Snapshot s;
  // Pods first, then the nodes, as upstream createNodeInfoMap.
  std::map<std::string, framework::NodeInfoPtr> byName;
  auto infoFor = [&](const std::string& name) -> framework::NodeInfo& {
    auto& slot = byName[name];
    if (!slot) slot = std::make_shared<framework::NodeInfo>();
    return *slot;
  };
  for (const auto& pod : pods) infoFor(pod->spec.nodeName).addPod(pod);
  const ImageExistenceMap existence = createImageExistenceMap(nodes);
  for (const auto& node : nodes) {
    framework::NodeInfo& info = infoFor(node->metadata.name);
    info.setNode(node);
    info.setImageStates(getNodeImageStates(*node, existence));
  }

  auto append = [&s](const framework::NodeInfoPtr& info) {
    s.nodeInfoList_.push_back(info);
    if (!info->podsWithAffinity().empty()) s.havePodsWithAffinityNodeInfoList_.push_back(info);
    if (!info->podsWithRequiredAntiAffinity().empty())
      s.havePodsWithRequiredAntiAffinityNodeInfoList_.push_back(info);
  };
  std::set<std::string> listed;
  for (const auto& node : nodes) {
    if (!listed.insert(node->metadata.name).second) continue;  // a node given twice is listed once
    append(byName.at(node->metadata.name));
  }
  for (const auto& [name, info] : byName) {
    if (!listed.contains(name)) append(info);
  }
  for (auto& [name, info] : byName) s.nodeInfoMap_.emplace(name, std::move(info));
  for (const std::string& key : createUsedPVCSet(pods)) s.usedPVCs_.emplace(key, 1);
  return s;
}

std::set<std::string, std::less<>> Snapshot::usedPVCSetForTest() const {
  std::set<std::string, std::less<>> out;
  for (const auto& [key, nodes] : usedPVCs_) out.insert(key);
  return out;
}

}  // namespace ks::cache
