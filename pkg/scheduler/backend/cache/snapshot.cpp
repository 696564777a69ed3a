#include "pkg/scheduler/backend/cache/snapshot.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "pkg/util/strings.h"

namespace ks::cache {

namespace {

// The errors upstream's snapshot logs and carries on after.
void logSnapshotError(std::string_view msg) {
  std::fprintf(stderr, "scheduler snapshot: %.*s\n", static_cast<int>(msg.size()), msg.data());
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
  auto backup = [this](const std::string& key) {
    if (session_ == nullptr || session_->usedPVCs.contains(key)) return;
    auto it = usedPVCs_.find(key);
    session_->usedPVCs.emplace(key, it == usedPVCs_.end() ? 0 : it->second);
  };
  for (const auto& [key, _] : before) {
    if (after.contains(key)) continue;
    auto it = usedPVCs_.find(key);
    if (it == usedPVCs_.end()) continue;
    backup(key);
    if (--it->second <= 0) usedPVCs_.erase(it);
  }
  for (const auto& [key, _] : after) {
    if (before.contains(key)) continue;
    backup(key);
    ++usedPVCs_[key];
  }
}

void Snapshot::backupNode(std::string_view nodeName) {
  if (session_ == nullptr || session_->nodes.contains(nodeName)) return;
  MutationSession::NodeBackup b;
  if (auto it = nodeInfoMap_.find(nodeName); it != nodeInfoMap_.end()) {
    b.info = it->second;
    b.content.emplace(*it->second);
  }
  session_->nodes.emplace(std::string(nodeName), std::move(b));
}

const framework::NodeInfoPtr& Snapshot::nodeInfoForWrite(std::string_view nodeName) {
  backupNode(nodeName);
  auto it = nodeInfoMap_.find(nodeName);
  if (it == nodeInfoMap_.end()) {
    it = nodeInfoMap_.emplace(std::string(nodeName), std::make_shared<framework::NodeInfo>()).first;
  }
  return it->second;
}

void Snapshot::backupPodGroupState(const std::shared_ptr<PodGroupStateSnapshot>& state) {
  if (session_ == nullptr) return;
  auto& groups = session_->podGroupStates;
  if (!groups.contains(state.get())) groups.emplace(state.get(), std::make_pair(state, state->data()));
}

void Snapshot::appendToList(NodeInfoList Snapshot::*list, const framework::NodeInfoPtr& info) {
  NodeInfoList& l = this->*list;
  if (session_ != nullptr) session_->listChanges.push_back({list, l.size(), nullptr});
  l.push_back(info);
}

void Snapshot::swapRemoveFromList(NodeInfoList Snapshot::*list, std::size_t index) {
  NodeInfoList& l = this->*list;
  if (session_ != nullptr) session_->listChanges.push_back({list, index, l[index]});
  if (index != l.size() - 1) l[index] = std::move(l.back());
  l.pop_back();
}

std::shared_ptr<PodGroupStateSnapshot> Snapshot::podGroupStateOf(const api::Pod& pod) const {
  const std::string* group = framework::podGroupNameOf(pod);
  if (group == nullptr) return nullptr;
  auto it = podGroupStates_.find(framework::podGroupKey(pod.metadata.namespace_, *group));
  return it == podGroupStates_.end() ? nullptr : it->second;
}

namespace {

const char* listName(bool affinity) {
  return affinity ? "havePodsWithAffinityNodeInfoList" : "havePodsWithRequiredAntiAffinityNodeInfoList";
}

}  // namespace

VoidResult Snapshot::assumePod(framework::PodInfoPtr podInfo) {
  const api::PodPtr pod = podInfo->podPtr();
  const std::string& uid = pod->metadata.uid;
  if (uid.empty()) return Error("cannot get cache key for pod with empty UID");
  if (assumedPodStates_.contains(uid)) return Error("pod " + uid + " is already assumed in the snapshot");
  const framework::NodeInfoPtr& info = nodeInfoForWrite(pod->spec.nodeName);
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
    appendToList(&Snapshot::havePodsWithAffinityNodeInfoList_, info);
    state.addedToAffinityList = true;
  }
  if (!hadPodsWithRequiredAntiAffinity && !info->podsWithRequiredAntiAffinity().empty()) {
    appendToList(&Snapshot::havePodsWithRequiredAntiAffinityNodeInfoList_, info);
    state.addedToAntiAffinityList = true;
  }
  updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
  assumedPodStates_.emplace(uid, std::move(state));
  assumedPodKeys_.push_back(uid);
  if (auto group = podGroupStateOf(*pod)) {
    backupPodGroupState(group);
    group->data().assumePod(pod);
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
    backupNode(assumed.spec.nodeName);
    const framework::NodeInfoPtr info = it->second;
    const int64_t generation = info->generation();
    const std::map<std::string, int> pvcsBefore = info->pvcRefCounts();
    if (auto r = info->removePod(pod); !r) return r.error();
    info->setGenerationForTest(generation);
    // Undo what this pod's assumePod appended: pods are forgotten in reverse order of their assumption,
    // so it is the list's last entry; anything else is a broken contract, logged, the list left alone.
    auto revert = [&](NodeInfoList Snapshot::*list, bool affinity) {
      NodeInfoList& l = this->*list;
      if (l.empty() || l.back() != info) {
        logSnapshotError(
            "Cannot revert snapshot index on ForgetPod: list does not end with the assumed pod's node: "
            "list=" +
            std::string(listName(affinity)) + " pod=" + pod.metadata.namespace_ + "/" + pod.metadata.name +
            " node=" + info->nodeName());
        return;
      }
      swapRemoveFromList(list, l.size() - 1);
    };
    if (state.addedToAffinityList) revert(&Snapshot::havePodsWithAffinityNodeInfoList_, true);
    if (state.addedToAntiAffinityList)
      revert(&Snapshot::havePodsWithRequiredAntiAffinityNodeInfoList_, false);
    updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
    if (info->pods().empty() && info->node() == nullptr) nodeInfoMap_.erase(it);
  }
  if (auto group = podGroupStateOf(assumed)) {
    backupPodGroupState(group);
    group->data().forgetPod(uid);
  }
  return {};
}

VoidResult Snapshot::startMutations() {
  if (session_ != nullptr) return Error("cannot stack mutations");
  session_ = std::make_unique<MutationSession>();
  session_->assumedPodStates = assumedPodStates_;
  session_->assumedPodKeys = assumedPodKeys_;
  return {};
}

VoidResult Snapshot::endMutations() {
  if (session_ == nullptr) return Error("no mutation session started");
  // Taken out first: the restoring below must not record itself.
  const std::unique_ptr<MutationSession> session = std::move(session_);
  for (auto c = session->listChanges.rbegin(); c != session->listChanges.rend(); ++c) {
    NodeInfoList& l = this->*(c->list);
    if (c->removed == nullptr) {
      l.pop_back();
    } else if (c->index == l.size()) {
      l.push_back(std::move(c->removed));
    } else {
      l.push_back(l[c->index]);
      l[c->index] = std::move(c->removed);
    }
  }
  for (auto& [name, backup] : session->nodes) {
    if (backup.info == nullptr) {
      if (auto it = nodeInfoMap_.find(name); it != nodeInfoMap_.end()) nodeInfoMap_.erase(it);
      continue;
    }
    // In place: the lists and the cycle's holders point at this object.
    *backup.info = std::move(*backup.content);
    nodeInfoMap_.insert_or_assign(name, std::move(backup.info));
  }
  for (const auto& [key, count] : session->usedPVCs) {
    if (count == 0) {
      if (auto it = usedPVCs_.find(key); it != usedPVCs_.end()) usedPVCs_.erase(it);
    } else {
      usedPVCs_.insert_or_assign(key, count);
    }
  }
  for (auto& [_, backup] : session->podGroupStates) backup.first->data() = std::move(backup.second);
  assumedPodStates_ = std::move(session->assumedPodStates);
  assumedPodKeys_ = std::move(session->assumedPodKeys);
  return {};
}

void Snapshot::endMutationsLeftOpen(const std::function<void(std::string_view)>& logError) {
  if (session_ == nullptr) return;
  logError("Found a mutation session in the snapshot that was not ended");
  (void)endMutations();
}

VoidResult Snapshot::addPod(framework::PodInfoPtr podInfo, std::string_view nodeName) {
  if (session_ == nullptr) return Error("AddPod() called outside of mutation session");
  const framework::NodeInfoPtr& info = nodeInfoForWrite(nodeName);
  const bool hadPodsWithAffinity = !info->podsWithAffinity().empty();
  const bool hadPodsWithRequiredAntiAffinity = !info->podsWithRequiredAntiAffinity().empty();
  const std::map<std::string, int> pvcsBefore = info->pvcRefCounts();
  const api::PodPtr pod = podInfo->podPtr();
  info->addPodInfo(std::move(podInfo));
  if (!hadPodsWithAffinity && !info->podsWithAffinity().empty()) {
    appendToList(&Snapshot::havePodsWithAffinityNodeInfoList_, info);
  }
  if (!hadPodsWithRequiredAntiAffinity && !info->podsWithRequiredAntiAffinity().empty()) {
    appendToList(&Snapshot::havePodsWithRequiredAntiAffinityNodeInfoList_, info);
  }
  updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
  if (auto group = podGroupStateOf(*pod)) {
    backupPodGroupState(group);
    group->data().addPod(pod);
  }
  return {};
}

VoidResult Snapshot::removePod(const api::Pod& pod, std::string_view nodeName) {
  if (session_ == nullptr) return Error("RemovePod() called outside of mutation session");
  auto it = nodeInfoMap_.find(nodeName);
  if (it == nodeInfoMap_.end()) return Error("node " + quote(nodeName) + " not found in the snapshot");
  backupNode(nodeName);
  const framework::NodeInfoPtr info = it->second;
  const bool hadPodsWithAffinity = !info->podsWithAffinity().empty();
  const bool hadPodsWithRequiredAntiAffinity = !info->podsWithRequiredAntiAffinity().empty();
  const std::map<std::string, int> pvcsBefore = info->pvcRefCounts();
  if (auto r = info->removePod(pod); !r) return r.error();
  // The node leaves a list when its last pod with such terms went (upstream removeNodeInfoFromList: found
  // by a scan, the list's last entry moved into its place).
  auto leave = [&](NodeInfoList Snapshot::*list) {
    NodeInfoList& l = this->*list;
    auto pos = std::find(l.begin(), l.end(), info);
    if (pos == l.end()) {
      logSnapshotError("NodeInfo not found in the list: nodeInfo=" + info->nodeName());
      return;
    }
    swapRemoveFromList(list, static_cast<std::size_t>(pos - l.begin()));
  };
  if (hadPodsWithAffinity && info->podsWithAffinity().empty())
    leave(&Snapshot::havePodsWithAffinityNodeInfoList_);
  if (hadPodsWithRequiredAntiAffinity && info->podsWithRequiredAntiAffinity().empty()) {
    leave(&Snapshot::havePodsWithRequiredAntiAffinityNodeInfoList_);
  }
  updateUsedPVCs(pvcsBefore, info->pvcRefCounts());
  if (auto group = podGroupStateOf(pod)) {
    backupPodGroupState(group);
    group->data().deletePod(pod.metadata.uid);
  }
  if (info->pods().empty() && info->node() == nullptr) nodeInfoMap_.erase(it);
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
