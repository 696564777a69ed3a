#pragma once
// The single-pod preemption evaluator (upstream framework/preemption/preemption.go, v1.37.2): what a
// PostFilter plugin runs when no node fits the pod.
//
//   preempt(): re-read the pod from the informer -> eligible? -> dry run on the nodes that failed with a
//   resolvable status (Unschedulable), from a random offset, until enough candidates are found ->
//   pick the best candidate -> evict its victims and clear lower-priority nominations on that node
//   (the Executor: synchronously, or on a worker thread with asynchronous preemption) -> nominate the node.
//
// The dry run works on victims (victim.h): each pod on the node on its own, except that with GenericWorkload
// the scheduled pods of a PodGroup with disruptionMode `all` are one victim across all their nodes, at the
// group's priority (upstream GetVictimsOnNode).
//
// What differs between preemption plugins (victim selection, eligibility, candidate count, node
// ordering) is behind Interface; DefaultPreemption implements it.
//
// Threads: preempt() runs on the scheduling thread; the dry run fans out on the framework's
// Parallelizer (each node gets its own NodeInfo and CycleState copies).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/policy.h"
#include "pkg/scheduler/framework/extender.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/preemption/executor.h"
#include "pkg/scheduler/framework/preemption/victim.h"
#include "pkg/util/result.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::framework::preemption {

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
  // The fewest victims whose eviction lets `pod` pass the filters on `nodeInfo`, their pods in `victims`
  // (most important first) with the number of those pods whose eviction violates a budget. The candidates
  // are `allPossibleVictims`, the victims with a pod on the node (a group's may span other nodes).
  // `state` and `nodeInfo` are this node's own copies; the plugin mutates both, and only them (the other
  // nodes a group victim touches are seen through PreFilter extensions only).
  virtual Status selectVictimsOnNode(CycleState& state, const PodInfo& pod, NodeInfo& nodeInfo,
                                     std::span<const Victim> allPossibleVictims, const PDBList& pdbs,
                                     Victims& victims) = 0;
  // Score functions applied in order to break ties between candidate nodes; empty means the default
  // criteria of pickOneNodeForPreemption.
  virtual std::vector<NodeScoreFunc> orderedScoreFuncs(
      const std::map<std::string, const Victims*>& nodesToVictims) = 0;
};

class Evaluator {
 public:
  // `executor` evicts the chosen candidate's victims; `pods` and `pdbs` are the informer stores the
  // preemptor and the budgets are read from. With GenericWorkload the victims are looked up with the
  // snapshot's pod groups.
  Evaluator(std::string pluginName, Handle& handle, Interface& plugin, Executor& executor,
            bool enableGenericWorkload, const informer::Store<api::Pod>& pods,
            const informer::Store<api::PodDisruptionBudget>& pdbs);
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Upstream Preempt. The outcomes:
  //   Error, result Noop:           transient (the pod's nomination is kept);
  //   Unschedulable, result Noop:   not eligible now (e.g. victims still terminating);
  //   Unschedulable, Override "":   preemption can't help; the message is a FitError over the dry run's
  //                                 statuses, other nodes "Preemption is not helpful for scheduling";
  //   Success, Override <node>:     victims are being evicted; nominate the pod to <node>.
  // The evaluation (everything before the eviction) is timed in
  // scheduler_preemption_evaluation_duration_seconds{preemptor="pod"}.
  Status preempt(CycleState& state, const PodInfo& pod, const NodeToStatus& filteredNodeStatus,
                 PostFilterResult& result);

  struct DryRunResult {
    // Candidates that violate no PodDisruptionBudget first, then the others.
    std::vector<Candidate> candidates;
    // Why the other nodes examined are no candidates.
    NodeToStatus nodeStatuses;
    // The aggregated Error statuses of the nodes examined, if any.
    std::optional<Error> error;
  };
  // Upstream DryRunPreemption: examines potentialNodes[(offset + i) % n] in parallel and stops once
  // candidatesNum are found, at least one of them violating no budget. A group victim spanning several
  // nodes may be a candidate's on each of them; at most one candidate is chosen.
  DryRunResult dryRunPreemption(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> potentialNodes,
                                const PDBList& pdbs, int32_t offset, int32_t candidatesNum);

  // Upstream GetVictimsOnNode: the victims with a pod on the node (the snapshot's NodeInfo): each pod on
  // its own with GenericWorkload off; with it on, a group with disruptionMode `all` is one victim of all its
  // scheduled pods. The affected nodes are the snapshot's.
  Result<std::vector<Victim>> getVictimsOnNode(const NodeInfoPtr& nodeInfo) const;

  // Upstream callExtenders: the extenders that support preemption and are interested in the pod, in
  // order, each given the previous one's node -> victims map; an ignorable extender's error (or a node it
  // left without victims) is skipped, another's fails preemption. `candidates` becomes the final map's.
  Status callExtenders(const api::Pod& pod, std::vector<Candidate>& candidates);

  // Upstream SelectCandidate: the best of the candidates (nullptr when there are none).
  const Candidate* selectCandidate(std::span<const Candidate> candidates);

  Executor& executor() { return executor_; }

 private:
  // Upstream evaluate(): steps 0-4 of preempt(); `best` is set on Success.
  Status evaluate(CycleState& state, const PodInfo& pod, const NodeToStatus& filteredNodeStatus,
                  PostFilterResult& result, std::optional<Candidate>& best, api::PodPtr& latest);

  const std::string pluginName_;
  Handle& handle_;
  Interface& plugin_;
  Executor& executor_;
  const bool enableGenericWorkload_;
  const informer::Store<api::Pod>& pods_;
  const informer::Store<api::PodDisruptionBudget>& pdbs_;
};

// Upstream pickOneNodeForPreemption: applies the score functions in order, keeping the nodes with the
// highest score, until one node is left; ties after the last function go to the first candidate. With
// no functions, the default criteria in order: fewest PDB violations, lowest highest-priority victim,
// lowest sum of priorities, fewest victims, latest start of the highest-priority victims. "" when empty.
std::string pickOneNodeForPreemption(std::span<const Candidate> candidates, std::vector<NodeScoreFunc> scoreFuncs);

// The earliest start time among the victims of the highest priority (upstream GetEarliestPodStartTime);
// unset start times count as `now`.
api::Time earliestPodStartTime(const Victims& victims, api::Time now);

}  // namespace ks::framework::preemption
