#include "pkg/scheduler/backend/cache/pod_group_state.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace ks::cache {

int64_t nextPodGroupGeneration() {
  static std::atomic<int64_t> generation{0};
  return generation.fetch_add(1, std::memory_order_relaxed) + 1;
}

void PodGroupStateData::addPod(api::PodPtr pod) {
  generation = nextPodGroupGeneration();
  const std::string uid = pod->metadata.uid;
  const bool assigned = !pod->spec.nodeName.empty();
  allPods[uid] = std::move(pod);
  if (assigned) {
    assignedPods.insert(uid);
    // It may have been known in another state, e.g. a queued member bound by someone else.
    unscheduledPods.erase(uid);
    assumedPods.erase(uid);
  } else {
    unscheduledPods.insert(uid);
  }
}

void PodGroupStateData::updatePod(const api::Pod& oldPod, api::PodPtr newPod) {
  generation = nextPodGroupGeneration();
  const std::string uid = newPod->metadata.uid;
  const bool bound = oldPod.spec.nodeName.empty() && !newPod->spec.nodeName.empty();
  allPods[uid] = std::move(newPod);
  if (bound) {
    assignedPods.insert(uid);
    unscheduledPods.erase(uid);
    assumedPods.erase(uid);
  }
}

void PodGroupStateData::deletePod(const std::string& uid) {
  generation = nextPodGroupGeneration();
  allPods.erase(uid);
  unscheduledPods.erase(uid);
  assumedPods.erase(uid);
  assignedPods.erase(uid);
}

void PodGroupStateData::assumePod(api::PodPtr pod) {
  const std::string uid = pod->metadata.uid;
  auto it = allPods.find(uid);
  if (it == allPods.end()) return;  // deleted while being scheduled
  generation = nextPodGroupGeneration();
  if (!it->second->spec.nodeName.empty()) {
    assignedPods.insert(uid);
  } else {
    assumedPods[uid] = std::move(pod);
  }
  unscheduledPods.erase(uid);
}

void PodGroupStateData::forgetPod(const std::string& uid) {
  auto it = allPods.find(uid);
  if (it == allPods.end()) return;  // deleted while being scheduled
  generation = nextPodGroupGeneration();
  assumedPods.erase(uid);
  if (!it->second->spec.nodeName.empty()) {
    assignedPods.insert(uid);
  } else {
    unscheduledPods.insert(uid);
  }
}

void PodGroupStateData::setPodGroup(framework::PodGroupPtr pg) {
  generation = nextPodGroupGeneration();
  podGroup = std::move(pg);
}

void PodGroupStateData::removePodGroup() {
  generation = nextPodGroupGeneration();
  podGroup.reset();
}

std::vector<api::PodPtr> PodGroupStateData::unscheduledPodList() const {
  std::vector<api::PodPtr> out;
  out.reserve(unscheduledPods.size());
  for (const auto& uid : unscheduledPods) out.push_back(allPods.at(uid));
  std::sort(out.begin(), out.end(),
            [](const api::PodPtr& a, const api::PodPtr& b) { return a->metadata.name < b->metadata.name; });
  return out;
}

std::vector<std::string> PodGroupStateData::assumedPodUids() const {
  std::vector<std::string> out;
  out.reserve(assumedPods.size());
  for (const auto& [uid, pod] : assumedPods) out.push_back(uid);
  return out;
}

std::vector<api::PodPtr> PodGroupStateData::scheduledPods() const {
  std::vector<api::PodPtr> out;
  out.reserve(assignedPods.size() + assumedPods.size());
  for (const auto& uid : assignedPods) out.push_back(allPods.at(uid));
  for (const auto& [uid, pod] : assumedPods) out.push_back(pod);
  return out;
}

int PodGroupStateImpl::allPodsCount() const {
  return read([](const PodGroupStateData& d) { return d.allPodsCount(); });
}

int PodGroupStateImpl::scheduledPodsCount() const {
  return read([](const PodGroupStateData& d) { return d.scheduledPodsCount(); });
}

std::vector<api::PodPtr> PodGroupStateImpl::unscheduledPods() const {
  return read([](const PodGroupStateData& d) { return d.unscheduledPodList(); });
}

std::vector<std::string> PodGroupStateImpl::assumedPodUids() const {
  return read([](const PodGroupStateData& d) { return d.assumedPodUids(); });
}

std::vector<api::PodPtr> PodGroupStateImpl::scheduledPods() const {
  return read([](const PodGroupStateData& d) { return d.scheduledPods(); });
}

framework::PodGroupPtr PodGroupStateImpl::podGroup() const {
  return read([](const PodGroupStateData& d) { return d.podGroup; });
}

}  // namespace ks::cache
