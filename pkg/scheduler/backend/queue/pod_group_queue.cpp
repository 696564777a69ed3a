#include "pkg/scheduler/backend/queue/pod_group_queue.h"

#include <algorithm>

namespace ks::queue {

using framework::QueuedPodGroupInfo;
using framework::QueuedPodInfo;

int comparePodGroupMemberPods(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  const int32_t pa = framework::podPriority(a.pod());
  const int32_t pb = framework::podPriority(b.pod());
  if (pa != pb) return pa > pb ? -1 : 1;
  // Timestamps are renewed by every attempt, so the members tried more often (the older ones) go first.
  if (a.attempts != b.attempts) return a.attempts > b.attempts ? -1 : 1;
  if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  const int c = a.pod().metadata.name.compare(b.pod().metadata.name);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

namespace {

bool isMemberOf(const QueuedPodGroupInfo& group, const api::Pod& pod) {
  const std::string* name = framework::podGroupNameOf(pod);
  return name != nullptr && *name == group.group.name && pod.metadata.namespace_ == group.group.namespace_;
}

std::ptrdiff_t indexOf(const QueuedPodGroupInfo& group, std::string_view ns, std::string_view name) {
  for (size_t i = 0; i < group.pods.size(); ++i) {
    const api::Pod& p = group.pods[i].pod();
    if (p.metadata.name == name && p.metadata.namespace_ == ns) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace

bool addPodToGroup(QueuedPodGroupInfo& group, QueuedPodInfo pInfo) {
  if (!group.group.podGroup || !isMemberOf(group, pInfo.pod())) return false;
  // The first position whose member is not before the new one (Go's slices.BinarySearchFunc).
  const auto it = std::lower_bound(group.pods.begin(), group.pods.end(), pInfo,
                                   [](const QueuedPodInfo& a, const QueuedPodInfo& b) {
                                     return comparePodGroupMemberPods(a, b) < 0;
                                   });
  const auto index = it - group.pods.begin();
  group.group.unscheduledPods.insert(group.group.unscheduledPods.begin() + index, pInfo.podInfo->podPtr());
  group.pods.insert(it, std::move(pInfo));
  return true;
}

std::optional<QueuedPodInfo> removePodFromGroup(QueuedPodGroupInfo& group, const api::Pod& pod) {
  if (!isMemberOf(group, pod)) return std::nullopt;
  const std::ptrdiff_t i = indexOf(group, pod.metadata.namespace_, pod.metadata.name);
  if (i < 0) return std::nullopt;
  std::optional<QueuedPodInfo> out(std::move(group.pods[static_cast<size_t>(i)]));
  group.pods.erase(group.pods.begin() + i);
  auto& unscheduled = group.group.unscheduledPods;
  unscheduled.erase(std::remove_if(unscheduled.begin(), unscheduled.end(),
                                   [&](const api::PodPtr& p) {
                                     return p->metadata.name == pod.metadata.name &&
                                            p->metadata.namespace_ == pod.metadata.namespace_;
                                   }),
                    unscheduled.end());
  return out;
}

QueuedPodInfo* updatePodInGroup(QueuedPodGroupInfo& group, const api::PodPtr& pod) {
  if (!isMemberOf(group, *pod)) return nullptr;
  const std::ptrdiff_t i = indexOf(group, pod->metadata.namespace_, pod->metadata.name);
  if (i < 0) return nullptr;
  QueuedPodInfo& member = group.pods[static_cast<size_t>(i)];
  member.podInfo = framework::PodInfo::create(pod);
  for (api::PodPtr& p : group.group.unscheduledPods) {
    if (p->metadata.name == pod->metadata.name && p->metadata.namespace_ == pod->metadata.namespace_) {
      p = pod;
      break;
    }
  }
  return &member;
}

const QueuedPodInfo* findPodInGroup(const QueuedPodGroupInfo& group, std::string_view ns, std::string_view name) {
  const std::ptrdiff_t i = indexOf(group, ns, name);
  return i < 0 ? nullptr : &group.pods[static_cast<size_t>(i)];
}

// ---- WorkloadForest ----

void WorkloadForest::addPodGroup(framework::PodGroupPtr pg) {
  std::string key = framework::podGroupKey(pg->metadata.namespace_, pg->metadata.name);
  podGroups_.insert_or_assign(std::move(key), std::move(pg));
}

void WorkloadForest::deletePodGroup(const api::PodGroup& pg) {
  podGroups_.erase(framework::podGroupKey(pg.metadata.namespace_, pg.metadata.name));
}

framework::PodGroupPtr WorkloadForest::podGroup(std::string_view ns, std::string_view name) const {
  auto it = podGroups_.find(framework::podGroupKey(ns, name));
  return it == podGroups_.end() ? nullptr : it->second;
}

std::optional<std::string> WorkloadForest::rootKeyForPod(const api::Pod& pod) const {
  const std::string* name = framework::podGroupNameOf(pod);
  if (name == nullptr) return std::nullopt;
  std::string key = framework::podGroupKey(pod.metadata.namespace_, *name);
  if (!podGroups_.contains(key)) return std::nullopt;
  return key;
}

std::optional<std::string> WorkloadForest::rootKeyForPodGroup(const api::PodGroup& pg) const {
  std::string key = framework::podGroupKey(pg.metadata.namespace_, pg.metadata.name);
  if (!podGroups_.contains(key)) return std::nullopt;
  return key;
}

std::optional<QueuedPodGroupInfo> WorkloadForest::buildQueuedPodGroupInfo(std::string_view rootKey) const {
  auto it = podGroups_.find(std::string(rootKey));
  if (it == podGroups_.end() || !it->second) return std::nullopt;
  QueuedPodGroupInfo out;
  out.group.namespace_ = it->second->metadata.namespace_;
  out.group.name = it->second->metadata.name;
  out.group.podGroup = it->second;
  return out;
}

// ---- PodGroupMemberPods ----

void PodGroupMemberPods::add(QueuedPodInfo pInfo) {
  auto& pods = byGroup_[podGroupKeyOfPod(pInfo.pod())];
  std::string key = pInfo.pod().metadata.namespace_ + "/" + pInfo.pod().metadata.name;
  auto [it, inserted] = pods.insert_or_assign(std::move(key), std::move(pInfo));
  if (inserted) {
    ++size_;
    gauge_.inc();
  }
}

const QueuedPodInfo* PodGroupMemberPods::get(const api::Pod& pod) const {
  if (!framework::isPodGroupMember(pod)) return nullptr;
  auto g = byGroup_.find(podGroupKeyOfPod(pod));
  if (g == byGroup_.end()) return nullptr;
  auto it = g->second.find(pod.metadata.namespace_ + "/" + pod.metadata.name);
  return it == g->second.end() ? nullptr : &it->second;
}

QueuedPodInfo* PodGroupMemberPods::update(const api::PodPtr& newPod) {
  auto* p = const_cast<QueuedPodInfo*>(get(*newPod));
  if (p != nullptr) p->podInfo = framework::PodInfo::create(newPod);
  return p;
}

std::optional<QueuedPodInfo> PodGroupMemberPods::remove(const api::Pod& pod) {
  if (!framework::isPodGroupMember(pod)) return std::nullopt;
  auto g = byGroup_.find(podGroupKeyOfPod(pod));
  if (g == byGroup_.end()) return std::nullopt;
  auto it = g->second.find(pod.metadata.namespace_ + "/" + pod.metadata.name);
  if (it == g->second.end()) return std::nullopt;
  std::optional<QueuedPodInfo> out(std::move(it->second));
  g->second.erase(it);
  if (g->second.empty()) byGroup_.erase(g);
  --size_;
  gauge_.dec();
  return out;
}

std::vector<QueuedPodInfo> PodGroupMemberPods::clear(std::string_view ns, std::string_view name) {
  std::vector<QueuedPodInfo> out;
  auto g = byGroup_.find(framework::podGroupKey(ns, name));
  if (g == byGroup_.end()) return out;
  out.reserve(g->second.size());
  for (auto& [key, p] : g->second) out.push_back(std::move(p));
  size_ -= out.size();
  gauge_.dec(static_cast<double>(out.size()));
  byGroup_.erase(g);
  return out;
}

std::vector<api::PodPtr> PodGroupMemberPods::list() const {
  std::vector<api::PodPtr> out;
  out.reserve(size_);
  forEach([&](const QueuedPodInfo& p) { out.push_back(p.podInfo->podPtr()); });
  return out;
}

}  // namespace ks::queue
