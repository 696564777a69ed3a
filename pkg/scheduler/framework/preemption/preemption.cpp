#include "pkg/scheduler/framework/preemption/preemption.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <stop_token>

#include "pkg/api/field.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/fit_error.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::framework::preemption {

namespace {

std::string podName(const api::Pod& pod) {
  return informer::metaNamespaceKey(pod.metadata);
}

// Upstream candidateList: a fixed-capacity list filled concurrently; adds beyond capacity are dropped.
// Read items only after every add() returned.
class CandidateList {
 public:
  explicit CandidateList(int32_t capacity) : items_(static_cast<size_t>(capacity)) {}
  void add(Candidate c) {
    const int32_t i = next_.fetch_add(1) ;
    if (i < static_cast<int32_t>(items_.size())) items_[static_cast<size_t>(i)] = std::move(c);
  }
  int32_t size() const { return std::min(next_.load(), static_cast<int32_t>(items_.size())); }
  void moveInto(std::vector<Candidate>& out) {
    for (int32_t i = 0; i < size(); ++i) out.push_back(std::move(items_[static_cast<size_t>(i)]));
  }

 private:
  std::atomic<int32_t> next_{0};
  std::vector<Candidate> items_;
};

int64_t unixNanos(api::Time t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

api::Time podStartTime(const api::Pod& pod, api::Time now) {
  return pod.status.startTime.value_or(now);
}

}  // namespace

api::Time earliestPodStartTime(const Victims& victims, api::Time now) {
  api::Time earliest = podStartTime(victims.pods.front()->pod(), now);
  int32_t maxPriority = podPriority(victims.pods.front()->pod());
  for (const auto& pi : victims.pods) {
    const int32_t p = podPriority(pi->pod());
    if (p == maxPriority) {
      earliest = std::min(earliest, podStartTime(pi->pod(), now));
    } else if (p > maxPriority) {
      maxPriority = p;
      earliest = podStartTime(pi->pod(), now);
    }
  }
  return earliest;
}

std::string pickOneNodeForPreemption(std::span<const Candidate> candidates, std::vector<NodeScoreFunc> scoreFuncs) {
  // One entry per node, in candidate order; a node listed twice keeps its last victims (as upstream's
  // map assignment).
  std::vector<std::string> nodes;
  std::map<std::string, const Victims*> victimsOf;
  for (const auto& c : candidates) {
    if (victimsOf.insert_or_assign(c.name, &c.victims).second) nodes.push_back(c.name);
  }
  if (nodes.empty()) return "";

  if (scoreFuncs.empty()) {
    const api::Time now = std::chrono::system_clock::now();
    scoreFuncs = {
        // The fewest PodDisruptionBudget violations.
        [&](const std::string& n) { return -victimsOf.at(n)->numPDBViolations; },
        // The lowest priority of the most important victim.
        [&](const std::string& n) { return -int64_t{podPriority(victimsOf.at(n)->pods.front()->pod())}; },
        // The lowest sum of priorities, each shifted by MaxInt32+1 so that negative priorities don't make
        // more victims look cheaper.
        [&](const std::string& n) {
          int64_t sum = 0;
          for (const auto& pi : victimsOf.at(n)->pods) {
            sum += int64_t{podPriority(pi->pod())} + int64_t{std::numeric_limits<int32_t>::max()} + 1;
          }
          return -sum;
        },
        // The fewest victims.
        [&](const std::string& n) { return -static_cast<int64_t>(victimsOf.at(n)->pods.size()); },
        // The latest start among the most important victims.
        [&, now](const std::string& n) { return unixNanos(earliestPodStartTime(*victimsOf.at(n), now)); },
    };
  }

  for (const auto& score : scoreFuncs) {
    std::vector<std::string> best;
    int64_t maxScore = std::numeric_limits<int64_t>::min();
    for (const auto& n : nodes) {
      const int64_t s = score(n);
      if (s > maxScore) {
        maxScore = s;
        best.clear();
      }
      if (s == maxScore) best.push_back(n);
    }
    if (best.size() == 1) return best.front();
    nodes = std::move(best);
  }
  return nodes.front();
}

Evaluator::Evaluator(std::string pluginName, Handle& handle, Interface& plugin, Executor& executor,
                     bool enableGenericWorkload, const informer::Store<api::Pod>& pods,
                     const informer::Store<api::PodDisruptionBudget>& pdbs)
    : pluginName_(std::move(pluginName)),
      handle_(handle),
      plugin_(plugin),
      executor_(executor),
      enableGenericWorkload_(enableGenericWorkload),
      pods_(pods),
      pdbs_(pdbs) {}

Status Evaluator::preempt(CycleState& state, const PodInfo& podInfo, const NodeToStatus& filteredNodeStatus,
                          PostFilterResult& result) {
  result = PostFilterResult{};
  std::optional<Candidate> best;
  api::PodPtr latest;
  const auto start = std::chrono::steady_clock::now();
  Status status = evaluate(state, podInfo, filteredNodeStatus, result, best, latest);
  if (metrics::Metrics* m = handle_.metrics()) {
    m->observePreemptionEvaluation(
        kPodPreemptor, status.code(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!status.isSuccess()) return status;
  spdlog::info("the target node for the preemption is determined node={} pod={}", best->name,
               podName(*latest));

  // 5) Evict the victims, then nominate.
  if (Status s = executor_.actuatePodPreemption(*best, latest); !s.isSuccess()) return s;
  result.nominatingInfo = NominatingInfo{best->name, NominatingMode::Override};
  // v1.37 says so in the FitError ("... preemption: found a potential placement ..."); v1.34 said nothing.
  return Status(Code::Success, "found a potential placement for pod on node " + best->name + ", preempting " +
                                   std::to_string(best->victims.pods.size()) + " victims");
}

Status Evaluator::evaluate(CycleState& state, const PodInfo& podInfo, const NodeToStatus& filteredNodeStatus,
                           PostFilterResult& result, std::optional<Candidate>& best, api::PodPtr& latest) {
  // 0) The informer's latest version of the pod (its nomination may have changed since it was popped).
  const api::Pod& popped = podInfo.pod();
  latest = pods_.get(informer::metaNamespaceKey(popped.metadata));
  if (!latest) {
    spdlog::error("Could not get the updated preemptor pod object pod={}", podName(popped));
    return Status::error("pod \"" + popped.metadata.name + "\" not found");
  }
  PodInfoPtr latestInfo = latest == podInfo.podPtr() ? nullptr : PodInfo::create(latest);
  const PodInfo& pod = latestInfo ? *latestInfo : podInfo;

  // 1) Is the pod eligible to preempt others?
  if (auto why = plugin_.podEligibleToPreemptOthers(*latest, filteredNodeStatus.get(latest->status.nominatedNodeName))) {
    spdlog::debug("Pod is not eligible for preemption pod={} reason=\"{}\"", podName(*latest), *why);
    return Status(Code::Unschedulable, std::move(*why));
  }

  // 2) Candidates: the nodes that failed with a resolvable status, dry-run in parallel.
  const SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) return Status::error("no snapshot lister");
  const std::vector<NodeInfoPtr>& allNodes = lister->nodeInfos().list();
  if (allNodes.empty()) return Status::error("no nodes available");
  DryRunResult dryRun;
  const std::vector<NodeInfoPtr> potentialNodes =
      filteredNodeStatus.nodesForStatusCode(lister->nodeInfos(), Code::Unschedulable);
  if (potentialNodes.empty()) {
    spdlog::debug("Preemption will not help schedule pod on any node pod={}", podName(*latest));
  } else {
    PDBList pdbs = pdbs_.list();
    const auto [offset, candidatesNum] = plugin_.getOffsetAndNumCandidates(static_cast<int32_t>(potentialNodes.size()));
    dryRun = dryRunPreemption(state, pod, potentialNodes, pdbs, offset, candidatesNum);
    if (dryRun.error && dryRun.candidates.empty()) return Status::fromError(std::move(*dryRun.error));
  }

  // Preemption can't help: say why per node, as a FitError of its own.
  if (dryRun.candidates.empty()) {
    spdlog::info("No preemption candidate is found; preemption is not helpful for scheduling pod={}",
                 podName(*latest));
    FitError fitError;
    fitError.numAllNodes = static_cast<int>(allNodes.size());
    fitError.diagnosis.nodeToStatus = std::move(dryRun.nodeStatuses);
    fitError.diagnosis.nodeToStatus.setAbsentNodesStatus(
        Status(Code::UnschedulableAndUnresolvable, "Preemption is not helpful for scheduling"));
    result.nominatingInfo = NominatingInfo{"", NominatingMode::Override};  // clears a stale nomination
    return Status(Code::Unschedulable, fitError.message());
  }

  // 3) The extenders that support preemption may drop candidates or change their victims.
  if (Status s = callExtenders(*latest, dryRun.candidates); !s.isSuccess()) return s;

  // 4) The best candidate.
  const Candidate* chosen = selectCandidate(dryRun.candidates);
  if (chosen == nullptr || chosen->name.empty()) {
    return Status(Code::Unschedulable, "no candidate node for preemption");
  }
  best = *chosen;
  return Status();
}

Status Evaluator::callExtenders(const api::Pod& pod, std::vector<Candidate>& candidates) {
  const std::vector<Extender*>& extenders = handle_.extenders();
  const SharedLister* lister = handle_.snapshotSharedLister();
  if (extenders.empty() || lister == nullptr) return {};
  // Upstream CandidatesToVictimsMap (a later candidate on the same node replaces an earlier one).
  std::map<std::string, Victims> victimsMap;
  for (auto& c : candidates) victimsMap[c.name] = c.victims;
  if (victimsMap.empty()) return {};
  for (Extender* extender : extenders) {
    if (!extender->supportsPreemption() || !extender->isInterested(pod)) continue;
    auto nodeNameToVictims = extender->processPreemption(pod, victimsMap, lister->nodeInfos());
    if (!nodeNameToVictims.ok()) {
      if (extender->isIgnorable()) {
        spdlog::debug("Skipped extender as it returned error and has ignorable flag set extender={} err=\"{}\"",
                      extender->name(), nodeNameToVictims.error().message());
        continue;
      }
      candidates.clear();
      return Status::error(nodeNameToVictims.error().message());
    }
    for (auto it = nodeNameToVictims->begin(); it != nodeNameToVictims->end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!extender->isIgnorable()) {
        candidates.clear();
        return Status::error("expected at least one victim pod on node \"" + it->first + "\"");
      }
      spdlog::debug("Ignored node for which the extender didn't report victims node={} extender={}", it->first,
                    extender->name());
      it = nodeNameToVictims->erase(it);
    }
    // The next extender works on what this one left.
    victimsMap = std::move(nodeNameToVictims).value();
    if (victimsMap.empty()) break;
  }
  // Rebuilt from the map, i.e. in node name order (upstream iterates its map at random).
  candidates.clear();
  for (auto& [name, victims] : victimsMap) candidates.push_back(Candidate{name, std::move(victims)});
  return {};
}

Evaluator::DryRunResult Evaluator::dryRunPreemption(CycleState& state, const PodInfo& pod,
                                                    std::span<const NodeInfoPtr> potentialNodes, const PDBList& pdbs,
                                                    int32_t offset, int32_t candidatesNum) {
  CandidateList nonViolating(candidatesNum), violating(candidatesNum);
  DryRunResult out;
  std::mutex statusesMu;
  std::vector<std::string> errors;
  std::stop_source stop;
  const auto n = static_cast<int64_t>(potentialNodes.size());
  auto checkNode = [&](int i) {
    const NodeInfoPtr& shared = potentialNodes[static_cast<size_t>((offset + i) % n)];
    // The victims come from the snapshot's NodeInfos (a group victim's other nodes included), which
    // selectVictimsOnNode doesn't mutate; it works on this node's copy.
    auto allPossibleVictims = getVictimsOnNode(shared);
    if (!allPossibleVictims.ok()) {
      std::lock_guard lock(statusesMu);
      errors.push_back(allPossibleVictims.error().message());
      return;
    }
    std::unique_ptr<NodeInfo> nodeInfo = shared->snapshot();
    const std::string& nodeName = nodeInfo->nodeName();
    std::unique_ptr<CycleState> stateCopy = state.clone();
    Victims victims;
    Status status =
        plugin_.selectVictimsOnNode(*stateCopy, pod, *nodeInfo, *allPossibleVictims, pdbs, victims);
    if (status.isSuccess() && !victims.pods.empty()) {
      const bool violates = victims.numPDBViolations != 0;
      (violates ? violating : nonViolating).add(Candidate{nodeName, std::move(victims)});
      const int32_t nvc = nonViolating.size(), vc = violating.size();
      if (nvc > 0 && nvc + vc >= candidatesNum) stop.request_stop();
      return;
    }
    if (status.isSuccess()) {
      status = Status::error("expected at least one victim pod on node \"" + nodeName + "\"");
    }
    std::lock_guard lock(statusesMu);
    if (status.code() == Code::Error) errors.push_back(status.message());
    out.nodeStatuses.set(nodeName, std::move(status));
  };
  handle_.parallelizer().until(static_cast<int>(n), checkNode, stop.get_token());
  nonViolating.moveInto(out.candidates);
  violating.moveInto(out.candidates);
  if (!errors.empty()) out.error = Error(api::aggregateMessages(errors));
  return out;
}

const Candidate* Evaluator::selectCandidate(std::span<const Candidate> candidates) {
  if (candidates.empty()) return nullptr;
  if (candidates.size() == 1) return &candidates.front();
  std::map<std::string, const Victims*> nodesToVictims;
  for (const auto& c : candidates) nodesToVictims.insert_or_assign(c.name, &c.victims);
  const std::string node = pickOneNodeForPreemption(candidates, plugin_.orderedScoreFuncs(nodesToVictims));
  // The node's last entry, as upstream's map lookup.
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (it->name == node) return &*it;
  }
  spdlog::error("Unexpected case no candidate was selected");
  return &candidates.front();
}

Result<std::vector<Victim>> Evaluator::getVictimsOnNode(const NodeInfoPtr& nodeInfo) const {
  const SharedLister* lister = handle_.snapshotSharedLister();
  if (lister == nullptr) return Error("no snapshot lister");
  // With GenericWorkload off every pod is a victim at its own priority, even of a group: the group's
  // priority is the gate's to give (upstream passes no pod group lister then).
  const PodGroupManager* groups = enableGenericWorkload_ ? lister->podGroupManager() : nullptr;
  const NodeInfoPtr nodes[] = {nodeInfo};
  return victimsOnNodes(*lister, groups, nodes, std::chrono::system_clock::now());
}

}  // namespace ks::framework::preemption
