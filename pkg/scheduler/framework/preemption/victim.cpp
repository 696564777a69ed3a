#include "pkg/scheduler/framework/preemption/victim.h"

#include <algorithm>
#include <set>

#include "pkg/api/labels.h"
#include "pkg/util/strings.h"

namespace ks::framework::preemption {

Victim::Victim(std::vector<PodInfoPtr> pods, int32_t priority, VictimType type, api::Time now)
    : pods_(std::move(pods)), priority_(priority), type_(type), earliestStartTime_(now) {
  bool first = true;
  for (const auto& pi : pods_) {
    const api::Time t = pi->pod().status.startTime.value_or(now);
    if (first || t < earliestStartTime_) earliestStartTime_ = t;
    first = false;
  }
}

bool moreImportantVictim(const Victim& a, const Victim& b) {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  if (a.type() != b.type()) return a.isGroup();
  if (a.pods().size() != b.pods().size()) return a.pods().size() > b.pods().size();
  return a.earliestStartTime() < b.earliestStartTime();
}

int32_t podPreemptionPriority(const api::Pod& pod, const PodGroupManager* groups) {
  const std::string* group = podGroupNameOf(pod);
  if (group == nullptr || groups == nullptr) return podPriority(pod);
  const PodGroupPtr pg = groups->podGroup(pod.metadata.namespace_, *group);
  return pg ? podGroupPriority(*pg) : podPriority(pod);
}

Victim newPodVictim(PodInfoPtr pod, const PodGroupManager* groups, api::Time now) {
  const api::Pod& p = pod->pod();
  const int32_t priority = podPreemptionPriority(p, groups);
  const VictimType type = groups != nullptr && isPodGroupMember(p) ? VictimType::PodGroup : VictimType::Pod;
  return Victim({std::move(pod)}, priority, type, now);
}

namespace {

// The group the pod's eviction takes down whole: its PodGroup when that has disruptionMode `all`
// (upstream getHighestAllAncestor without composite groups).
PodGroupPtr disruptedWholeWith(const api::Pod& pod, const PodGroupManager& groups) {
  const std::string* name = podGroupNameOf(pod);
  if (name == nullptr) return nullptr;
  PodGroupPtr pg = groups.podGroup(pod.metadata.namespace_, *name);
  if (pg && pg->spec.disruptionMode && pg->spec.disruptionMode->all) return pg;
  return nullptr;
}

// Every scheduled pod of the group as one victim (upstream searchCrossNodesVictimPods); the pod alone
// when the group's state is unknown or lists no scheduled pod.
Victim wholeGroupVictim(const PodInfoPtr& found, const api::PodGroup& pg, const PodGroupManager& groups,
                        api::Time now) {
  const api::Pod& pod = found->pod();
  std::vector<PodInfoPtr> members;
  if (PodGroupStatePtr state = groups.podGroupState(pg.metadata.namespace_, pg.metadata.name)) {
    for (const api::PodPtr& p : state->scheduledPods()) {
      members.push_back(p->metadata.uid == pod.metadata.uid ? found : PodInfo::create(p));
    }
  }
  if (members.empty()) return newPodVictim(found, &groups, now);
  return Victim(std::move(members), podPreemptionPriority(pod, &groups), VictimType::PodGroup, now);
}

}  // namespace

Result<std::vector<Victim>> victimsOnNodes(const SharedLister& snapshot, const PodGroupManager* groups,
                                           std::span<const NodeInfoPtr> nodes, api::Time now) {
  std::vector<Victim> victims;
  std::set<std::string, std::less<>> seen;  // pod "namespace/name" or the whole group's key
  for (const NodeInfoPtr& node : nodes) {
    for (const PodInfoPtr& pi : node->pods()) {
      const api::Pod& pod = pi->pod();
      if (groups == nullptr) {
        victims.push_back(newPodVictim(pi, nullptr, now));
        continue;
      }
      if (PodGroupPtr whole = disruptedWholeWith(pod, *groups)) {
        if (seen.insert("podgroup/" + podGroupKey(whole->metadata.namespace_, whole->metadata.name)).second) {
          victims.push_back(wholeGroupVictim(pi, *whole, *groups, now));
        }
        continue;
      }
      if (seen.insert("pod/" + podGroupKey(pod.metadata.namespace_, pod.metadata.name)).second) {
        victims.push_back(newPodVictim(pi, groups, now));
      }
    }
  }
  for (Victim& v : victims) {
    std::map<std::string, NodeInfoPtr> affected;
    for (const PodInfoPtr& pi : v.pods()) {
      const std::string& nodeName = pi->pod().spec.nodeName;
      if (affected.contains(nodeName)) continue;
      auto info = snapshot.nodeInfos().get(nodeName);
      if (!info.ok()) {
        return Error("failed to get node info for node " + quote(nodeName) + " from snapshot: " +
                     info.error().message());
      }
      affected.emplace(nodeName, std::move(info).value());
    }
    v.setAffectedNodes(std::move(affected));
  }
  return victims;
}

VictimsByPDBViolation filterVictimsWithPDBViolation(std::span<const Victim* const> victims, const PDBList& pdbs) {
  std::vector<int32_t> allowed;
  allowed.reserve(pdbs.size());
  std::vector<std::optional<api::Selector>> selectors;
  selectors.reserve(pdbs.size());
  for (const auto& pdb : pdbs) {
    allowed.push_back(pdb->status.disruptionsAllowed);
    auto sel = api::Selector::fromLabelSelector(pdb->spec.selector);
    // A budget whose selector doesn't compile matches no pod.
    selectors.push_back(sel.ok() ? std::optional<api::Selector>(std::move(sel).value()) : std::nullopt);
  }
  // Draws the pod's eviction from every matching budget; true at the first one that goes below zero
  // (the later ones are not drawn on, as upstream).
  auto violates = [&](const api::Pod& pod) {
    // A pod without labels matches no budget.
    if (pod.metadata.labels.empty()) return false;
    for (size_t i = 0; i < pdbs.size(); ++i) {
      const api::PodDisruptionBudget& pdb = *pdbs[i];
      if (pdb.metadata.namespace_ != pod.metadata.namespace_ || !selectors[i]) continue;
      // A nil or empty selector matches nothing.
      if (selectors[i]->empty() || !selectors[i]->matches(pod.metadata.labels)) continue;
      // Already counted by the apiserver's eviction: don't take it from the budget twice.
      if (pdb.status.disruptedPods.contains(pod.metadata.name)) continue;
      if (--allowed[i] < 0) return true;
    }
    return false;
  };
  VictimsByPDBViolation out;
  for (const Victim* v : victims) {
    int violatingPods = 0;
    for (const auto& pi : v->pods()) {
      if (violates(pi->pod())) ++violatingPods;
    }
    if (violatingPods > 0) {
      out.violating.emplace_back(v, violatingPods);
    } else {
      out.nonViolating.push_back(v);
    }
  }
  return out;
}

bool podTerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletionTimestamp) return false;
  for (const auto& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") return c.status == "True" && c.reason == "PreemptionByScheduler";
  }
  return false;
}

}  // namespace ks::framework::preemption
