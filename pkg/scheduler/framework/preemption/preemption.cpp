#include "pkg/scheduler/framework/preemption/preemption.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <stop_token>

#include "pkg/api/field.h"
#include "pkg/client/client.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/fit_error.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::framework::preemption {

namespace {

// Upstream's asynchronous preemption starts one goroutine per preemptor; this many threads run them.
constexpr int kAsyncPreemptionWorkers = 8;

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

bool moreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now) {
  const int32_t pa = podPriority(a), pb = podPriority(b);
  if (pa != pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}

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

Evaluator::Evaluator(std::string pluginName, Handle& handle, Interface& plugin, bool enableAsyncPreemption,
                     const informer::Store<api::Pod>& pods,
                     const informer::Store<api::PodDisruptionBudget>& pdbs)
    : pluginName_(std::move(pluginName)),
      handle_(handle),
      plugin_(plugin),
      enableAsyncPreemption_(enableAsyncPreemption),
      pods_(pods),
      pdbs_(pdbs),
      asyncWorkers_(kAsyncPreemptionWorkers) {
  preemptPod_ = [this](const Candidate& c, const api::Pod& preemptor, const api::Pod& victim) {
    return defaultPreemptPod(c, preemptor, victim);
  };
}

Evaluator::~Evaluator() {
  asyncWorkers_.close();
}

bool Evaluator::isPodRunningPreemption(const std::string& podUid) const {
  std::lock_guard lock(mu_);
  if (!preempting_.contains(podUid)) return false;
  auto last = lastVictimPending_.find(podUid);
  // The last victim isn't being preempted yet: the others still are.
  if (last == lastVictimPending_.end()) return true;
  // Its preemption is done once it is gone or terminating, even before the API call returns.
  const api::PodPtr victim = pods_.get(last->second);
  return victim != nullptr && !victim->metadata.deletionTimestamp.has_value();
}

void Evaluator::setLastVictim(const std::string& podUid, const api::Pod& victim) {
  std::lock_guard lock(mu_);
  lastVictimPending_[podUid] = victim.metadata.namespace_ + "/" + victim.metadata.name;
}

void Evaluator::setPreempting(const std::string& podUid, bool preempting) {
  std::lock_guard lock(mu_);
  if (preempting) {
    preempting_.insert(podUid);
  } else {
    preempting_.erase(podUid);
    lastVictimPending_.erase(podUid);
  }
}

Status Evaluator::preempt(CycleState& state, const PodInfo& podInfo, const NodeToStatus& filteredNodeStatus,
                          PostFilterResult& result) {
  result = PostFilterResult{};
  // 0) The informer's latest version of the pod (its nomination may have changed since it was popped).
  const api::Pod& popped = podInfo.pod();
  api::PodPtr latest = pods_.get(informer::metaNamespaceKey(popped.metadata));
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
  const Candidate* best = selectCandidate(dryRun.candidates);
  if (best == nullptr || best->name.empty()) return Status(Code::Unschedulable, "no candidate node for preemption");
  spdlog::info("the target node for the preemption is determined node={} pod={}", best->name, podName(*latest));

  // 5) Evict the victims, then nominate.
  if (enableAsyncPreemption_) {
    prepareCandidateAsync(*best, latest);
  } else if (Status s = prepareCandidate(*best, *latest); !s.isSuccess()) {
    return s;
  }
  result.nominatingInfo = NominatingInfo{best->name, NominatingMode::Override};
  // v1.37 says so in the FitError ("... preemption: found a potential placement ..."); v1.34 said nothing.
  return Status(Code::Success, "found a potential placement for pod on node " + best->name + ", preempting " +
                                   std::to_string(best->victims.pods.size()) + " victims");
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
    std::unique_ptr<NodeInfo> nodeInfo = potentialNodes[static_cast<size_t>((offset + i) % n)]->snapshot();
    const std::string& nodeName = nodeInfo->nodeName();
    std::unique_ptr<CycleState> stateCopy = state.clone();
    Victims victims;
    Status status = plugin_.selectVictimsOnNode(*stateCopy, pod, *nodeInfo, pdbs, victims);
    if (status.isSuccess() && !victims.pods.empty()) {
      const bool violates = victims.numPDBViolations != 0;
      (violates ? violating : nonViolating).add(Candidate{nodeName, std::move(victims)});
      const int32_t nvc = nonViolating.size(), vc = violating.size();
      if (nvc > 0 && nvc + vc >= candidatesNum) stop.request_stop();
      return;
    }
    if (status.isSuccess()) status = Status::error("expected at least one victim pod on node \"" + nodeName + "\"");
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

Result<bool> Evaluator::defaultPreemptPod(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim) {
  // A victim in its binding cycle has no node in the API yet: stop its binding in memory, and it goes
  // back to the queue. Otherwise delete it.
  bool inMemory = false;
  if (auto waiting = handle_.getWaitingPod(victim.metadata.uid)) {
    if (waiting->preempt(pluginName_, "preempted")) {
      spdlog::info("Preemptor preempted a waiting pod preemptorType=pod preemptor={} waitingPod={} node={}",
                   podName(preemptor), podName(victim), c.name);
      inMemory = true;
    }
  } else if (auto inPreBind = handle_.getPodInPreBind(victim.metadata.uid)) {
    if (inPreBind->cancelPod("preempted by " + pluginName_)) {
      spdlog::info("Preemptor rejected a pod in preBind preemptorType=pod preemptor={} podInPreBind={} node={}",
                   podName(preemptor), podName(victim), c.name);
      inMemory = true;
    } else {
      spdlog::debug("Failed to reject a pod in preBind, falling back to deletion via api call preemptor={} "
                    "podInPreBind={} node={}",
                    podName(preemptor), podName(victim), c.name);
    }
  }
  if (!inMemory) {
    client::Client* client = handle_.client();
    if (client == nullptr) return Error("no API client to preempt pod " + podName(victim));
    api::PodCondition cond;
    cond.type = "DisruptionTarget";
    cond.status = "True";
    cond.reason = "PreemptionByScheduler";
    cond.message = preemptor.spec.schedulerName + ": preempting to accommodate a higher priority pod";
    cond.observedGeneration = victim.metadata.generation;  // PodObservedGenerationTracking
    cond.lastTransitionTime = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    if (auto changed = updatePodCondition(victim.status, std::move(cond))) {
      client::PodStatusPatch patch;
      patch.condition = std::move(*changed);
      if (auto r = client->patchPodStatus(victim.metadata.namespace_, victim.metadata.name, patch); !r.ok()) {
        if (!r.error().isNotFound()) {
          spdlog::error("Could not add DisruptionTarget condition due to preemption pod={} preemptor={}: {}",
                        podName(victim), podName(preemptor), r.error().message());
          return Error(r.error().message());
        }
        spdlog::info("Victim Pod is already deleted preemptor={} victim={} node={}", podName(preemptor),
                     podName(victim), c.name);
        return false;
      }
    }
    if (auto r = client->deletePod(victim.metadata.namespace_, victim.metadata.name, {}); !r.ok()) {
      if (!r.error().isNotFound()) {
        spdlog::error("Tried to preempted pod pod={} preemptor={}: {}", podName(victim), podName(preemptor),
                      r.error().message());
        return Error(r.error().message());
      }
      spdlog::info("Victim Pod is already deleted preemptor={} victim={} node={}", podName(preemptor),
                   podName(victim), c.name);
      return false;
    }
    spdlog::info("Preemptor Pod preempted victim Pod preemptor={} victim={} node={}", podName(preemptor),
                 podName(victim), c.name);
  }
  if (EventRecorder* recorder = handle_.eventRecorder()) {
    const api::ObjectReference related = podReference(preemptor);
    std::string note = "Preempted by pod " + preemptor.metadata.uid + " on node " + c.name;
    if (inMemory) note += " (in kube-scheduler memory).";
    recorder->eventf(podReference(victim), &related, "Normal", "Preempted", "Preempting", std::move(note));
  }
  return inMemory;
}

Result<void> Evaluator::clearLowerPriorityNominations(const api::Pod& pod, const std::string& nodeName) {
  // Lower-priority pods nominated to this node may no longer fit there; clearing their nomination
  // updates them, which moves them back to activeQ to find another place.
  PodNominator* nominator = handle_.podNominator();
  if (nominator == nullptr) return {};
  std::vector<std::string> errors;
  for (const auto& pi : nominator->nominatedPodsForNode(nodeName)) {
    const api::Pod& p = pi->pod();
    if (podPriority(p) >= podPriority(pod) || p.status.nominatedNodeName.empty()) continue;
    client::Client* client = handle_.client();
    if (client == nullptr) return Error("no API client to clear the nomination of pod " + podName(p));
    client::PodStatusPatch patch;
    patch.nominatedNodeName = "";
    if (auto r = client->patchPodStatus(p.metadata.namespace_, p.metadata.name, patch); !r.ok()) {
      errors.push_back(r.error().message());
    }
  }
  if (errors.empty()) return {};
  return Error(api::aggregateMessages(errors));
}

std::optional<Error> Evaluator::preemptVictims(const Candidate& c, const api::Pod& pod,
                                               std::span<const api::Pod* const> victims) {
  parallelize::ErrorChannel errCh;
  std::stop_source cancel;
  handle_.parallelizer().until(
      static_cast<int>(victims.size()),
      [&](int i) {
        if (auto r = preemptPod_(c, pod, *victims[static_cast<size_t>(i)]); !r.ok()) {
          errCh.sendErrorWithCancel(r.error(), cancel);
        }
      },
      cancel.get_token());
  return errCh.receiveError();
}

namespace {

// The victims whose graceful deletion hasn't started: the others need no API call.
std::vector<const api::Pod*> victimsToPreempt(const Candidate& c) {
  std::vector<const api::Pod*> out;
  out.reserve(c.victims.pods.size());
  for (const auto& v : c.victims.pods) {
    if (v->pod().metadata.deletionTimestamp.has_value()) {
      spdlog::info("Victim Pod is already being deleted, skipping the API call for it node={} victim={}", c.name,
                   podName(v->pod()));
      continue;
    }
    out.push_back(&v->pod());
  }
  return out;
}

}  // namespace

Status Evaluator::prepareCandidate(const Candidate& c, const api::Pod& pod) {
  if (metrics::Metrics* m = handle_.metrics()) m->observePreemptionVictims(static_cast<int>(c.victims.pods.size()));
  const std::vector<const api::Pod*> victims = victimsToPreempt(c);
  if (auto err = preemptVictims(c, pod, victims)) return Status::fromError(std::move(*err));
  if (auto r = clearLowerPriorityNominations(pod, c.name); !r.ok()) {
    spdlog::error("Cannot clear 'NominatedNodeName' field: {}", r.error().message());  // not critical
  }
  return Status();
}

void Evaluator::prepareCandidateAsync(const Candidate& c, const api::PodPtr& pod) {
  if (metrics::Metrics* m = handle_.metrics()) m->observePreemptionVictims(static_cast<int>(c.victims.pods.size()));
  std::vector<const api::Pod*> victims = victimsToPreempt(c);
  // Every victim is terminating already: their deletions will bring the pod back.
  if (victims.empty()) return;
  const std::string uid = pod->metadata.uid;
  setPreempting(uid, true);
  auto task = [this, c, pod, uid, victims = std::move(victims)] {
    const auto start = std::chrono::steady_clock::now();
    bool ok = true;
    bool lastInMemory = false;
    spdlog::info("Start the preemption asynchronously preemptor={} node={} numVictims={} numVictimsToDelete={}",
                 podName(*pod), c.name, c.victims.pods.size(), victims.size());
    if (auto r = clearLowerPriorityNominations(*pod, c.name); !r.ok()) {
      spdlog::error("Cannot clear 'NominatedNodeName' field from lower priority pods on the same target node "
                    "node={}: {}",
                    c.name, r.error().message());
      ok = false;
    }
    // Every victim but the last in parallel. The pod stays gated while the last one is preempted, but
    // only until that victim is seen gone or terminating (isPodRunningPreemption): its deletion event
    // may reach the queue before this task returns, and must not find the pod still gated.
    bool preemptLast = true;
    if (victims.size() > 1) {
      if (auto err = preemptVictims(c, *pod, std::span(victims).first(victims.size() - 1))) {
        spdlog::error("Error occurred during async preemption: {}", err->message());
        ok = false;
        preemptLast = false;  // retry the pod sooner rather than finish half the preemption
      }
    }
    if (preemptLast) {
      const api::Pod& last = *victims.back();
      setLastVictim(uid, last);
      if (auto r = preemptPod_(c, *pod, last); !r.ok()) {
        spdlog::error("Error occurred during async preemption of the last victim: {}", r.error().message());
        ok = false;
      } else {
        lastInMemory = *r;
      }
    }
    setPreempting(uid, false);
    spdlog::info("Async Preemption finished completely preemptor={} node={} result={}", podName(*pod), c.name,
                 ok ? "success" : "error");
    if (metrics::Metrics* m = handle_.metrics()) {
      m->preemptionGoroutineFinished(ok, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    // A failed API call may leave the pod in unschedulablePods with no event to move it, and a victim
    // preempted in memory sends no deletion event: retry the pod now.
    if (!ok || lastInMemory) handle_.activate({pod});
  };
  // The pod is gated from here on; the evictions start when the scheduler lets them (Handle::handOff:
  // after the pod's status with its nomination is written).
  handle_.handOff([this, uid, task = std::move(task)]() mutable {
    if (!asyncWorkers_.submit(std::move(task))) setPreempting(uid, false);  // shutting down
  });
}

}  // namespace ks::framework::preemption
