#include "pkg/scheduler/framework/runtime/batch.h"

#include <spdlog/spdlog.h>

#include "pkg/scheduler/framework/runtime/framework.h"

namespace ks::framework::runtime {

using metrics::BatchAttemptResult;
using metrics::BatchFlushReason;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string podName(const PodInfo& pod) {
  return pod.pod().metadata.namespace_ + "/" + pod.pod().metadata.name;
}

}  // namespace

OpportunisticBatch::OpportunisticBatch(Framework& fw, bool genericWorkloadEnabled)
    : fw_(fw), genericWorkloadEnabled_(genericWorkloadEnabled) {}

std::string OpportunisticBatch::getNodeHint(const PodInfo& pod, const PodSignature& signature,
                                            CycleState& state, int64_t cycleCount) {
  const auto start = std::chrono::steady_clock::now();
  std::string hint;
  if (batchStateCompatible(pod, signature, cycleCount) && refreshHintCandidates(pod, state, cycleCount)) {
    hint = state_->sortedNodes.pop().name;
    spdlog::debug(
        "OpportunisticBatch provided node hint profile={} pod={} cycleCount={} hint={} remainingNodes={}",
        fw_.profileName(), podName(pod), cycleCount, hint, state_->sortedNodes.size());
  } else {
    spdlog::trace("OpportunisticBatch no node hint available for pod profile={} pod={} cycleCount={}",
                  fw_.profileName(), podName(pod), cycleCount);
  }
  if (metrics::Metrics* m = fw_.metrics()) {
    if (hint.empty()) m->incBatchAttempt(fw_.metricsProfile(), BatchAttemptResult::NoHint);
    m->observeGetNodeHint(fw_.metricsProfile(), !hint.empty(), secondsSince(start));
  }
  return hint;
}

void OpportunisticBatch::storeScheduleResults(const PodSignature& signature, const std::string& hintedNode,
                                              const std::string& chosenNode,
                                              std::optional<SortedScoredNodes> otherNodes,
                                              int64_t cycleCount) {
  const auto start = std::chrono::steady_clock::now();
  metrics::Metrics* m = fw_.metrics();
  lastCycle_ = Cycle{cycleCount, chosenNode, true};
  if (hintedNode == chosenNode) {
    // The hint was taken: the rest of the batch stays for the next pod.
    if (m != nullptr) m->incBatchAttempt(fw_.metricsProfile(), BatchAttemptResult::HintUsed);
    ++batchedPods_;
  } else {
    if (!hintedNode.empty()) {
      if (m != nullptr) m->incBatchAttempt(fw_.metricsProfile(), BatchAttemptResult::HintNotUsed);
      spdlog::trace("OpportunisticBatch hint not used profile={} cycleCount={} hint={} chosen={}",
                    fw_.profileName(), cycleCount, hintedNode, chosenNode);
    }
    if (signature != nullptr && otherNodes && otherNodes->size() > 0) {
      state_ = State{signature, std::move(*otherNodes), fw_.clock().now()};
    } else {
      flush(!otherNodes || otherNodes->size() == 0 ? BatchFlushReason::EmptyList
                                                   : BatchFlushReason::PodNotBatchable,
            cycleCount);
      state_.reset();
    }
  }
  if (m != nullptr) m->observeStoreScheduleResults(fw_.metricsProfile(), secondsSince(start));
}

void OpportunisticBatch::flush(BatchFlushReason reason, int64_t cycleCount) {
  if (metrics::Metrics* m = fw_.metrics()) m->incBatchCacheFlushed(fw_.metricsProfile(), reason);
  spdlog::trace("OpportunisticBatch found unusable state profile={} cycleCount={} reason={}",
                fw_.profileName(), cycleCount, metrics::batchFlushReasonName(reason));
}

bool OpportunisticBatch::batchStateCompatible(const PodInfo& pod, const PodSignature& signature,
                                              int64_t cycleCount) {
  if (stateEmpty()) return false;
  // Another pod (of this or another profile) was tried in between; only the pods of one pod-group cycle
  // share a cycle count.
  if (cycleCount != lastCycle_.cycleCount + 1 &&
      (!genericWorkloadEnabled_ || cycleCount != lastCycle_.cycleCount)) {
    flush(BatchFlushReason::PodSkipped, cycleCount);
    return false;
  }
  if (!lastCycle_.succeeded) {
    flush(BatchFlushReason::PodFailed, cycleCount);
    return false;
  }
  // A nominated node is tried first anyway.
  if (!pod.pod().status.nominatedNodeName.empty()) {
    flush(BatchFlushReason::PodNominated, cycleCount);
    return false;
  }
  if (!sameSignature(signature, state_->signature)) {
    flush(BatchFlushReason::PodIncompatible, cycleCount);
    return false;
  }
  // Bounds both a long run of identical pods and a long wait between two of them.
  if (fw_.clock().now() > state_->creationTime + kMaxBatchAge) {
    flush(BatchFlushReason::Expired, cycleCount);
    return false;
  }
  return true;
}

bool OpportunisticBatch::refreshHintCandidates(const PodInfo& pod, CycleState& state, int64_t cycleCount) {
  const SharedLister* lister = fw_.snapshotSharedLister();
  Result<NodeInfoPtr> lastChosen = lister != nullptr ? lister->nodeInfos().get(lastCycle_.chosenNode)
                                                     : Result<NodeInfoPtr>(Error("no snapshot"));
  if (!lastChosen.ok() || *lastChosen == nullptr) {
    flush(BatchFlushReason::NodeMissing, cycleCount);
    return false;
  }
  Status s = fw_.runFilterPlugins(state, pod, **lastChosen);
  // Still feasible: score it again so that it competes with the cached nodes.
  if (s.isSuccess()) return rescoreHintedNode(pod, state, cycleCount, *lastChosen);
  if (!s.isRejected()) {
    flush(BatchFlushReason::FilterError, cycleCount);
    return false;
  }
  return true;
}

bool OpportunisticBatch::rescoreHintedNode(const PodInfo& pod, const CycleState& state, int64_t cycleCount,
                                           const NodeInfoPtr& lastChosen) {
  const auto start = std::chrono::steady_clock::now();
  metrics::Metrics* m = fw_.metrics();
  if (m != nullptr) m->incBatchRescoreAttempt(fw_.metricsProfile());
  auto done = [&](bool ok) {
    if (m != nullptr) m->observeBatchRescore(fw_.metricsProfile(), secondsSince(start));
    return ok;
  };

  // The cached nodes as the snapshot has them now, with their scores; all must still exist.
  const std::vector<NodePluginScores>& cached = state_->sortedNodes.unorderedList();
  std::vector<NodeInfoPtr> nodeInfos;
  std::vector<NodePluginScores> scores;
  nodeInfos.reserve(cached.size() + 1);
  scores.reserve(cached.size() + 1);
  const NodeInfoLister& lister = fw_.snapshotSharedLister()->nodeInfos();
  for (const NodePluginScores& ns : cached) {
    Result<NodeInfoPtr> ni = lister.get(ns.name);
    if (!ni.ok() || *ni == nullptr) {
      flush(BatchFlushReason::NodeMissing, cycleCount);
      return done(false);
    }
    nodeInfos.push_back(*ni);
    scores.push_back(ns);
  }
  // PreScore sees every candidate, the rescored node included; on a copy of the cycle state, so that
  // nothing written here leaks into the pod's own cycle.
  nodeInfos.push_back(lastChosen);
  std::unique_ptr<CycleState> rescoreState = state.clone();
  if (!fw_.runPreScorePlugins(*rescoreState, pod, nodeInfos).isSuccess()) {
    flush(BatchFlushReason::PreScoreError, cycleCount);
    return done(false);
  }
  NodePluginScores fresh;
  fresh.name = lastChosen->nodeName();
  if (!fw_.runRawScorePlugins(*rescoreState, pod, *lastChosen, fresh.rawScores).isSuccess()) {
    flush(BatchFlushReason::RescoreError, cycleCount);
    return done(false);
  }
  scores.push_back(std::move(fresh));
  if (!fw_.normalizeScores(*rescoreState, pod, scores).isSuccess()) {
    flush(BatchFlushReason::NormalizeError, cycleCount);
    return done(false);
  }
  state_->sortedNodes = SortedScoredNodes(std::move(scores));
  return done(true);
}

}  // namespace ks::framework::runtime
