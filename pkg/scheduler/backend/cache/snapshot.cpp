#include "pkg/scheduler/backend/cache/snapshot.h"

#include <cstdio>
#include <utility>

#include "pkg/util/strings.h"

namespace ks::cache {

namespace {

// The errors upstream's snapshot logs and carries on after.
void logSnapshotError(std::string_view msg) {
  std::fprintf(stderr, "scheduler snapshot: %.*s\n", static_cast<int>(msg.size()), msg.data());
}

// Removes `info` from the end of `list`, where assumePod appended it; pods are forgotten in reverse order
// of their assumption, so anything else is a broken contract: logged, the list left alone.
void removeAssumedNodeInfo(std::vector<framework::NodeInfoPtr>& list, const framework::NodeInfoPtr& info,
                           std::string_view listName, const api::Pod& pod) {
  if (list.empty() || list.back() != info) {
    logSnapshotError("Cannot revert snapshot index on ForgetPod: list does not end with the assumed pod's node: list=" +
                     std::string(listName) + " pod=" + pod.metadata.namespace_ + "/" + pod.metadata.name +
                     " node=" + info->nodeName());
    return;
  }
  list.pop_back();
}

}  // namespace

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

framework::PodGroupPtr Snapshot::podGroup(std::string_view ns, std::string_view name) const {
  auto it = podGroupStates_.find(framework::podGroupKey(ns, name));
  return it == podGroupStates_.end() ? nullptr : it->second->data().podGroup;
}

framework::PodGroupStatePtr Snapshot::podGroupState(std::string_view ns, std::string_view name) const {
  auto it = podGroupStates_.find(framework::podGroupKey(ns, name));
  if (it == podGroupStates_.end()) return nullptr;
  return it->second;
}

void Snapshot::updateUsedPVCs(const std::map<std::string, int>& before, const std::map<std::string, int>& after) {
  for (const auto& [key, _] : before) {
    if (after.contains(key)) continue;
    auto it = usedPVCs_.find(key);
    if (it != usedPVCs_.end() && --it->second <= 0) usedPVCs_.erase(it);
  }
  for (const auto& [key, _] : after) {
    if (!before.contains(key)) ++usedPVCs_[key];
  }
}

VoidResult Snapshot::assumePod(framework::PodInfoPtr podInfo) {
  const api::PodPtr pod = podInfo->podPtr();
  const std::string& uid = pod->metadata.uid;
  if (uid.empty()) return Error("cannot get cache key for pod with empty UID");
  if (assumedPodStates_.contains(uid)) return Error("pod " + uid + " is already assumed in the snapshot");
  auto [it, inserted] = nodeInfoMap_.try_emplace(pod->spec.nodeName);
  if (inserted) it->second = std::make_shared<framework::NodeInfo>();
  const framework::NodeInfoPtr& info = it->second;
  // The NodeInfo keeps the cache's generation: the next updateSnapshot must see it as unchanged unless
  // the cache changed it.
  const int64_t generation = info->generation();
  const bool hadPodsWithAffinity = !info->podsWithAffinity().empty();
  const bool hadPodsWithRequiredAntiAffinity = !info->podsWithRequiredAntiAffinity().empty();
  const std::map<std::string, int> pvcsBefore = info->pvcRefCounts();
  info->addPodInfo(std::move(podInfo));
  info->setGenerationForTest(generation);
  AssumedPodState state{pod};
  if (!hadPodsWithAffinity && !info->podsWithAffinity().empty()) {
    havePodsWithAffinityNodeInfoList_.push_back(info);
    state.addedToAffinityList = true;
  }
  if (!hadPodsWithRequiredAntiAffinity && !info->podsWithRequiredAntiAffinity().empty()) {
    havePodsWithRequiredAntiAffinityNodeInfoList_.push_back(info);
    state.addedToAntiAffinityList = true;
  }
  updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
  assumedPodStates_.emplace(uid, std::move(state));
  assumedPodKeys_.push_back(uid);
  if (const std::string* group = framework::podGroupNameOf(*pod)) {
    if (auto g = podGroupStates_.find(framework::podGroupKey(pod->metadata.namespace_, *group));
        g != podGroupStates_.end()) {
      g->second->data().assumePod(pod);
    }
  }
  return {};
}

VoidResult Snapshot::forgetPod(const api::Pod& pod) {
  const std::string& uid = pod.metadata.uid;
  if (uid.empty()) return Error("cannot get cache key for pod with empty UID");
  auto stateIt = assumedPodStates_.find(uid);
  if (stateIt == assumedPodStates_.end()) return Error("assumed pod " + quote(uid) + " not found in the snapshot");
  const AssumedPodState state = std::move(stateIt->second);
  assumedPodStates_.erase(stateIt);
  if (!assumedPodKeys_.empty() && assumedPodKeys_.back() == uid) {
    assumedPodKeys_.pop_back();
  } else {
    logSnapshotError("Cannot remove assumed pod key on ForgetPod: the pod is not the last assumed one: pod=" +
                     pod.metadata.namespace_ + "/" + pod.metadata.name);
    std::erase(assumedPodKeys_, uid);
  }
  const api::Pod& assumed = *state.pod;
  if (auto it = nodeInfoMap_.find(assumed.spec.nodeName); it != nodeInfoMap_.end()) {
    const framework::NodeInfoPtr info = it->second;
    const int64_t generation = info->generation();
    const std::map<std::string, int> pvcsBefore = info->pvcRefCounts();
    if (auto r = info->removePod(pod); !r) return r.error();
    info->setGenerationForTest(generation);
    if (state.addedToAffinityList) {
      removeAssumedNodeInfo(havePodsWithAffinityNodeInfoList_, info, "havePodsWithAffinityNodeInfoList", pod);
    }
    if (state.addedToAntiAffinityList) {
      removeAssumedNodeInfo(havePodsWithRequiredAntiAffinityNodeInfoList_, info,
                            "havePodsWithRequiredAntiAffinityNodeInfoList", pod);
    }
    updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
    if (info->pods().empty() && info->node() == nullptr) nodeInfoMap_.erase(it);
  }
  if (const std::string* group = framework::podGroupNameOf(assumed)) {
    if (auto g = podGroupStates_.find(framework::podGroupKey(assumed.metadata.namespace_, *group));
        g != podGroupStates_.end()) {
      g->second->data().forgetPod(uid);
    }
  }
  return {};
}

void Snapshot::forgetAllAssumedPods(const std::function<void(std::string_view)>& logError) {
  if (assumedPodKeys_.empty()) return;
  logError("Found assumed pods in the snapshot that were not forgotten: assumedPodsCount=" +
           std::to_string(assumedPodKeys_.size()));
  const std::vector<std::string> keys = assumedPodKeys_;
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    auto state = assumedPodStates_.find(*it);
    if (state == assumedPodStates_.end()) continue;
    const api::PodPtr pod = state->second.pod;
    if (auto r = forgetPod(*pod); !r) logError("Failed to forget assumed pod: " + r.error().message());
  }
}

Snapshot newSnapshotWithPodGroups(const std::vector<api::PodPtr>& pods, const std::vector<api::NodePtr>& nodes,
                                  const std::vector<framework::PodGroupPtr>& podGroups) {
  Snapshot s = newSnapshot(pods, nodes);
  auto stateFor = [&s](const std::string& key) -> PodGroupStateData& {
    auto& slot = s.podGroupStates_[key];
    if (!slot) slot = std::make_shared<PodGroupStateSnapshot>();
    return slot->data();
  };
  for (const auto& pod : pods) {
    if (const std::string* group = framework::podGroupNameOf(*pod)) {
      stateFor(framework::podGroupKey(pod->metadata.namespace_, *group)).addPod(pod);
    }
  }
  for (const auto& pg : podGroups) {
    stateFor(framework::podGroupKey(pg->metadata.namespace_, pg->metadata.name)).setPodGroup(pg);
  }
  return s;
}

std::set<std::string, std::less<>> Snapshot::usedPVCSetForTest() const {
  std::set<std::string, std::less<>> out;
  for (const auto& [key, nodes] : usedPVCs_) out.insert(key);
  return out;
}

}  // namespace ks::cache
