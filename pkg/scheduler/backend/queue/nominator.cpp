#include "pkg/scheduler/backend/queue/nominator.h"

#include <algorithm>

namespace ks::queue {

void Nominator::addNominatedPod(const framework::PodInfoPtr& pod, const framework::NominatingInfo& info) {
  std::lock_guard lock(mu_);
  std::string nodeName = info.mode == framework::NominatingMode::Override
                             ? info.nominatedNodeName
                             : pod->pod().status.nominatedNodeName;
  addLocked(pod, nodeName);
}

void Nominator::addLocked(const framework::PodInfoPtr& pod, const std::string& nodeName) {
  const std::string& uid = pod->pod().metadata.uid;
  // Always drop the old entry first, so a pod is nominated to at most one node.
  deleteLocked(uid);
  if (nodeName.empty() || !pod->pod().spec.nodeName.empty()) return;
  if (podLister_) {
    const api::PodPtr current = podLister_(pod->pod().metadata.namespace_, pod->pod().metadata.name);
    if (!current || !current->spec.nodeName.empty()) return;  // deleted, or already scheduled
  }
  nominatedPodToNode_[uid] = nodeName;
  nominatedCount_.store(nominatedPodToNode_.size(), std::memory_order_relaxed);
  auto& pods = nominatedPods_[nodeName];
  for (const auto& p : pods) {
    if (p->pod().metadata.uid == uid) return;
  }
  pods.push_back(pod);
}

void Nominator::deleteLocked(const std::string& uid) {
  auto it = nominatedPodToNode_.find(uid);
  if (it == nominatedPodToNode_.end()) return;
  auto podsIt = nominatedPods_.find(it->second);
  if (podsIt != nominatedPods_.end()) {
    auto& pods = podsIt->second;
    pods.erase(std::remove_if(pods.begin(), pods.end(),
                              [&](const framework::PodInfoPtr& p) { return p->pod().metadata.uid == uid; }),
               pods.end());
    if (pods.empty()) nominatedPods_.erase(podsIt);
  }
  nominatedPodToNode_.erase(it);
  nominatedCount_.store(nominatedPodToNode_.size(), std::memory_order_relaxed);
}

void Nominator::deleteNominatedPodIfExists(const api::Pod& pod) {
  std::lock_guard lock(mu_);
  deleteLocked(pod.metadata.uid);
}

void Nominator::updateNominatedPod(const api::Pod& oldPod, const framework::PodInfoPtr& newPodInfo) {
  std::lock_guard lock(mu_);
  // When the scheduler nominated the pod but the update doesn't carry the nomination yet (and the old
  // object didn't either), keep the node we know of, as upstream does; a bound pod drops out.
  std::string nodeName;
  const api::Pod& newPod = newPodInfo->pod();
  if (oldPod.status.nominatedNodeName.empty() && newPod.status.nominatedNodeName.empty()) {
    if (auto it = nominatedPodToNode_.find(oldPod.metadata.uid); it != nominatedPodToNode_.end()) {
      nodeName = it->second;
    }
  } else {
    nodeName = newPod.status.nominatedNodeName;
  }
  deleteLocked(oldPod.metadata.uid);
  addLocked(newPodInfo, nodeName);
}

std::vector<framework::PodInfoPtr> Nominator::nominatedPodsForNode(const std::string& nodeName) const {
  if (nominatedCount_.load(std::memory_order_relaxed) == 0) return {};
  std::lock_guard lock(mu_);
  auto it = nominatedPods_.find(nodeName);
  if (it == nominatedPods_.end()) return {};
  return it->second;
}

std::string Nominator::nominatedNodeFor(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = nominatedPodToNode_.find(uid);
  return it == nominatedPodToNode_.end() ? std::string() : it->second;
}

}  // namespace ks::queue
