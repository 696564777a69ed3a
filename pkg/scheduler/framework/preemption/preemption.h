#pragma once
// The preemption evaluator (upstream framework/preemption/preemption.go, v1.34): what a PostFilter
// plugin runs when no node fits the pod.
//
//   preempt(): re-read the pod from the informer -> eligible? -> dry run on the nodes that failed with a
//   resolvable status (Unschedulable), from a random offset, until enough candidates are found ->
//   pick the best candidate -> evict its victims and clear lower-priority nominations on that node
//   (synchronously, or on a worker thread with asynchronous preemption) -> nominate the node.
//
// What differs between preemption plugins (victim selection, eligibility, candidate count, node
// ordering) is behind Interface; DefaultPreemption implements it.
//
// Threads: preempt() runs on the scheduling thread; the dry run fans out on the framework's
// Parallelizer (each node gets its own NodeInfo and CycleState copies). Asynchronous preemptions run on
// the evaluator's own workers; isPodRunningPreemption() (PreEnqueue) may be called from any thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/policy.h"
#include "pkg/scheduler/framework/extender.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"
#include "pkg/util/worker_pool.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::framework::preemption {

// The pods to evict from one node (upstream extenderv1.Victims): the extenders' type.
using framework::Victims;

// A node the preemptor can be nominated to once its victims are gone (upstream Candidate).
struct Candidate {
  std::string name;
  Victims victims;
};

using PDBList = std::vector<std::shared_ptr<const api::PodDisruptionBudget>>;
// Scores a candidate node; higher is better (upstream's ordered score functions).
using NodeScoreFunc = std::function<int64_t(const std::string& node)>;

// What a preemption plugin decides (upstream preemption.Interface, without the extender map).
class Interface {
 public:
  virtual ~Interface() = default;
  // A random offset into the potential nodes and how many candidates the dry run should find.
  virtual std::pair<int32_t, int32_t> getOffsetAndNumCandidates(int32_t numNodes) = 0;
  // Why `pod` may not preempt others now (e.g. preemptionPolicy Never), or nullopt when it may.
  // nominatedNodeStatus is the filter status of the pod's nominated node in this cycle.
  virtual std::optional<std::string> podEligibleToPreemptOthers(const api::Pod& pod,
                                                                const Status& nominatedNodeStatus) = 0;
  // The fewest victims on `nodeInfo` whose eviction lets `pod` pass the filters, in `victims`.
  // `state` and `nodeInfo` are this node's own copies; the plugin mutates both.
  virtual Status selectVictimsOnNode(CycleState& state, const PodInfo& pod, NodeInfo& nodeInfo,
                                     const PDBList& pdbs, Victims& victims) = 0;
  // Score functions applied in order to break ties between candidate nodes; empty means the default
  // criteria of pickOneNodeForPreemption.
  virtual std::vector<NodeScoreFunc> orderedScoreFuncs(
      const std::map<std::string, const Victims*>& nodesToVictims) = 0;
};

class Evaluator {
 public:
  // Preempts one victim for the preemptor; replaceable in tests. A victim waiting at Permit or in PreBind
  // is preempted in scheduler memory (its binding fails and it is retried), returning true; any other is
  // deleted through the API (true only in that memory case; an already deleted victim is no error).
  using PreemptPodFunc =
      std::function<Result<bool>(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim)>;

  // `pods` and `pdbs` are the informer stores the preemptor and the budgets are read from.
  Evaluator(std::string pluginName, Handle& handle, Interface& plugin, bool enableAsyncPreemption,
            const informer::Store<api::Pod>& pods, const informer::Store<api::PodDisruptionBudget>& pdbs);
  // Waits for the asynchronous preemptions in flight.
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Upstream Preempt. The outcomes:
  //   Error, result Noop:           transient (the pod's nomination is kept);
  //   Unschedulable, result Noop:   not eligible now (e.g. victims still terminating);
  //   Unschedulable, Override "":   preemption can't help; the message is a FitError over the dry run's
  //                                 statuses, other nodes "Preemption is not helpful for scheduling";
  //   Success, Override <node>:     victims are being evicted; nominate the pod to <node>.
  Status preempt(CycleState& state, const PodInfo& pod, const NodeToStatus& filteredNodeStatus,
                 PostFilterResult& result);

  // True while the pod's asynchronous preemption is still evicting (PreEnqueue keeps it out of activeQ).
  bool isPodRunningPreemption(const std::string& podUid) const;

  struct DryRunResult {
    // Candidates that violate no PodDisruptionBudget first, then the others.
    std::vector<Candidate> candidates;
    // Why the other nodes examined are no candidates.
    NodeToStatus nodeStatuses;
    // The aggregated Error statuses of the nodes examined, if any.
    std::optional<Error> error;
  };
  // Upstream DryRunPreemption: examines potentialNodes[(offset + i) % n] in parallel and stops once
  // candidatesNum are found, at least one of them violating no budget.
  DryRunResult dryRunPreemption(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> potentialNodes,
                                const PDBList& pdbs, int32_t offset, int32_t candidatesNum);

  // Upstream callExtenders: the extenders that support preemption and are interested in the pod, in
  // order, each given the previous one's node -> victims map; an ignorable extender's error (or a node it
  // left without victims) is skipped, another's fails preemption. `candidates` becomes the final map's.
  Status callExtenders(const api::Pod& pod, std::vector<Candidate>& candidates);

  // Upstream SelectCandidate: the best of the candidates (nullptr when there are none).
  const Candidate* selectCandidate(std::span<const Candidate> candidates);

  void setPreemptPodFunc(PreemptPodFunc fn) { preemptPod_ = std::move(fn); }
  // Preempts one victim as the evaluator does (upstream's PreemptPod field); true when in memory.
  Result<bool> preemptPod(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim) {
    return preemptPod_(c, preemptor, victim);
  }
  // Marks the pod as running an asynchronous preemption whose last victim is `lastVictimKey`
  // (namespace/name; empty: not registered yet).
  void setPreemptingForTest(const std::string& podUid, const std::string& lastVictimKey) {
    std::lock_guard lock(mu_);
    preempting_.insert(podUid);
    if (!lastVictimKey.empty()) lastVictimPending_[podUid] = lastVictimKey;
  }
  // Blocks until no asynchronous preemption is queued or running (tests).
  void waitForAsyncPreemptions() { asyncWorkers_.waitIdle(); }

 private:
  Result<bool> defaultPreemptPod(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim);
  // Preempts these victims in parallel; the first error, if any.
  std::optional<Error> preemptVictims(const Candidate& c, const api::Pod& pod,
                                      std::span<const api::Pod* const> victims);
  Status prepareCandidate(const Candidate& c, const api::Pod& pod);
  void prepareCandidateAsync(const Candidate& c, const api::PodPtr& pod);
  // Upstream getLowerPriorityNominatedPods + clearNominatedNodeName for the candidate's node.
  Result<void> clearLowerPriorityNominations(const api::Pod& pod, const std::string& nodeName);
  void setPreempting(const std::string& podUid, bool preempting);
  // Records the victim whose preemption the pod's asynchronous preemption waits for last.
  void setLastVictim(const std::string& podUid, const api::Pod& victim);

  const std::string pluginName_;
  Handle& handle_;
  Interface& plugin_;
  const bool enableAsyncPreemption_;
  const informer::Store<api::Pod>& pods_;
  const informer::Store<api::PodDisruptionBudget>& pdbs_;
  PreemptPodFunc preemptPod_;

  mutable std::mutex mu_;
  std::set<std::string> preempting_;  // UIDs of pods whose asynchronous preemption is evicting; under mu_
  // Preemptor UID -> namespace/name of the last victim, while it is being preempted; under mu_. Once that
  // victim is gone from the informer or terminating, the preemptor may be scheduled again, even though
  // its preemption task has not returned yet (upstream lastVictimsPendingPreemption).
  std::map<std::string, std::string> lastVictimPending_;
  // Upstream starts a goroutine per asynchronous preemption; these threads play that part. Declared
  // last: destroyed (and drained) first, while the members the tasks use are still alive.
  WorkerPool asyncWorkers_;
};

// Upstream pickOneNodeForPreemption: applies the score functions in order, keeping the nodes with the
// highest score, until one node is left; ties after the last function go to the first candidate. With
// no functions, the default criteria in order: fewest PDB violations, lowest highest-priority victim,
// lowest sum of priorities, fewest victims, latest start of the highest-priority victims. "" when empty.
std::string pickOneNodeForPreemption(std::span<const Candidate> candidates, std::vector<NodeScoreFunc> scoreFuncs);

// Upstream util.MoreImportantPod: higher priority first; among equal priorities the one that started
// earlier (a pod without startTime counts as starting at `now`).
bool moreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now);

// The earliest start time among the victims of the highest priority (upstream GetEarliestPodStartTime);
// unset start times count as `now`.
api::Time earliestPodStartTime(const Victims& victims, api::Time now);

}  // namespace ks::framework::preemption
