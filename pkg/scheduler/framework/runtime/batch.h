#pragma once
// OpportunisticBatch (upstream framework/runtime/batch.go, KEP-5598 opportunistic batching; the
// OpportunisticBatching gate, beta and on in v1.37): one per profile. After a pod is scheduled through the
// full Filter/Score path, the ranked nodes it did not take are kept. The next pod, if it is the very next
// cycle, has the same signature and no nominated node, and comes within kMaxBatchAge, gets the best of
// them as a hint; the scheduler then evaluates only that node, as it would a nominated node, and takes it
// if it passes the filters.
//
// The previously chosen node is checked first: if the new pod still fits there (pods don't block one
// another), it is scored again (PreScore over the cached nodes plus it, on a copy of the cycle state) and
// the cached nodes are normalized again with it, so that it competes for the hint; if Filter rejects it,
// the cached ranking is used as it is.
//
// Metrics (with Framework metrics): scheduler_batch_attempts_total{profile,result},
// scheduler_batch_cache_flushed_total{profile,reason}, scheduler_batch_rescore_attempts_total and
// _duration_seconds, scheduler_get_node_hint_duration_seconds{hinted,profile} and
// scheduler_store_schedule_results_duration_seconds.
//
// Scheduling thread only.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/sorted_nodes.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::framework::runtime {

class Framework;

// How long the nodes ranked for one pod may serve later pods (upstream maxBatchAge), on the scheduler's
// clock.
inline constexpr std::chrono::milliseconds kMaxBatchAge{500};

class OpportunisticBatch {
 public:
  // `genericWorkloadEnabled` (the GenericWorkload gate): pods of one pod-group cycle share a cycle count.
  OpportunisticBatch(Framework& fw, bool genericWorkloadEnabled);

  // The node hint for `pod` in scheduling cycle `cycleCount`, or "" (upstream GetNodeHint). Runs Filter on
  // the previously chosen node with `state` (after PreFilter), and PreScore/Score/NormalizeScore on a copy.
  std::string getNodeHint(const PodInfo& pod, const PodSignature& signature, CycleState& state,
                          int64_t cycleCount);
  // After host selection (upstream StoreScheduleResults): `otherNodes` are the ranked nodes left after
  // `chosenNode` was popped (nullopt when only one node was feasible). Keeps the current batch when the hint
  // was taken; otherwise keeps `otherNodes` for the next pod when the pod is signed and some remain.
  void storeScheduleResults(const PodSignature& signature, const std::string& hintedNode,
                            const std::string& chosenNode, std::optional<SortedScoredNodes> otherNodes,
                            int64_t cycleCount);

  // Pods scheduled on a hint.
  int64_t batchedPodsForTest() const { return batchedPods_; }
  // The kept signature and nodes; null when there is no batch.
  const PodSignature* stateSignatureForTest() const { return state_ ? &state_->signature : nullptr; }
  SortedScoredNodes* stateNodesForTest() { return state_ ? &state_->sortedNodes : nullptr; }

 private:
  struct State {
    PodSignature signature;
    SortedScoredNodes sortedNodes;
    TimePoint creationTime;
  };
  struct Cycle {
    int64_t cycleCount = 0;
    std::string chosenNode;
    bool succeeded = false;
  };

  bool stateEmpty() const { return !state_ || state_->sortedNodes.size() == 0; }
  // Records why the batch can't be used (upstream logUnusableState).
  void flush(metrics::BatchFlushReason reason, int64_t cycleCount);
  bool batchStateCompatible(const PodInfo& pod, const PodSignature& signature, int64_t cycleCount);
  bool refreshHintCandidates(const PodInfo& pod, CycleState& state, int64_t cycleCount);
  bool rescoreHintedNode(const PodInfo& pod, const CycleState& state, int64_t cycleCount,
                         const NodeInfoPtr& lastChosen);

  Framework& fw_;
  std::optional<State> state_;
  Cycle lastCycle_;
  int64_t batchedPods_ = 0;
  bool genericWorkloadEnabled_;
};

}  // namespace ks::framework::runtime
