// The pod-group scheduling cycle (upstream schedule_one_podgroup.go, GenericWorkload, without composite
// groups and topology-aware placement):
//
//   updateSnapshot -> reconcile the group with the snapshot -> validate (one profile, the group's
//   priority, one preemption policy) -> skip deleting/assumed members -> PlacementFeasible -> for each
//   member in order: Filter/Score, assume in the snapshot, Reserve, PlacementFeasible -> revert every
//   snapshot assumption -> [unschedulable: PodGroupPostFilter] -> submit: when the placement is feasible,
//   each placed member is assumed in the cache, reserved, permitted (GangScheduling waits for the quorum)
//   and bound; otherwise every member goes through the failure handler and no member keeps anything.
//   The PodGroup's PodGroupInitiallyScheduled condition tells the outcome; the group goes back to the queue.

#include <spdlog/spdlog.h>

#include <algorithm>

#include "pkg/scheduler/scheduler.h"
#include "pkg/util/strings.h"

namespace ks::scheduler {

using framework::Code;
using framework::CycleState;
using framework::PodGroupInfo;
using framework::QueuedPodGroupInfo;
using framework::QueuedPodInfo;
using framework::Status;
using framework::runtime::Framework;

namespace {

Status podGroupUnschedulable(std::vector<std::string> reasons = {}) {
  reasons.insert(reasons.begin(), std::string(framework::kPodGroupUnschedulable));
  return Status(Code::Unschedulable, std::move(reasons));
}

// fwk.PodGroupKey(...).String().
std::string entityKey(const PodGroupInfo& g) { return "podgroup/" + g.key(); }

std::string_view preemptionPolicyOf(const api::Pod& pod) {
  return pod.spec.preemptionPolicy ? std::string_view(*pod.spec.preemptionPolicy) : "PreemptLowerPriority";
}

constexpr std::string_view kPodGroupInitiallyScheduled = "PodGroupInitiallyScheduled";

}  // namespace

// One member's attempt in the cycle (upstream algorithmResult).
struct Scheduler::PodGroupPodResult {
  AlgorithmResult algorithm;
  std::shared_ptr<CycleState> state;
  std::chrono::steady_clock::duration schedulingDuration{};
  // The member as assumed in the snapshot (reverted at the end of the algorithm).
  std::optional<QueuedPodInfo> assumed;
  AttemptRecord record;
};

// The group's attempt (upstream podGroupAlgorithmResult).
struct Scheduler::PodGroupAlgorithmResult {
  std::vector<PodGroupPodResult> pods;
  Status status;
  bool waitingOnPreemption = false;
  bool anyScheduled = false;
};

void Scheduler::scheduleOnePodGroup(QueuedPodGroupInfo group) {
  const auto start = std::chrono::steady_clock::now();
  if (auto r = cache_->updateSnapshot(snapshot_); !r.ok()) {
    spdlog::error("Error updating snapshot: {}", r.error().message());
    failPodGroupBeforeScheduling(group, r.error().message());
    return;
  }
  // The group as of this snapshot (upstream reconcilePodGroupWithSnapshot).
  const framework::PodGroupManager* groups = snapshot_.podGroupManager();
  framework::PodGroupStatePtr state =
      groups ? groups->podGroupState(group.group.namespace_, group.group.name) : nullptr;
  framework::PodGroupPtr podGroup = state ? groups->podGroup(group.group.namespace_, group.group.name) : nullptr;
  if (!podGroup) {
    const std::string err = std::string(state ? "pod group object not found for pod group "
                                              : "pod group state not found for pod group ") +
                            entityKey(group.group);
    group.group.podGroup = nullptr;
    failPodGroupBeforeScheduling(group, err);
    return;
  }
  group.group.podGroup = std::move(podGroup);
  if (std::string err = validatePodGroup(group, *state); !err.empty()) {
    failPodGroupBeforeScheduling(group, err);
    return;
  }
  Framework& fw = *frameworkForPod(group.pods.front().pod());

  // Members being deleted or already assumed are dropped from this attempt (upstream skipPodGroupPodSchedule).
  for (size_t i = 0; i < group.pods.size();) {
    if (skipPodSchedule(group.pods[i].pod())) {
      queue_->done(group.pods[i].pod().metadata.uid);
      group.pods.erase(group.pods.begin() + static_cast<std::ptrdiff_t>(i));
      group.group.unscheduledPods.erase(group.group.unscheduledPods.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  if (group.pods.empty()) {
    if (auto r = queue_->addAttemptedPodGroupIfNeeded(std::move(group), queue_->schedulingCycle(), Status::success());
        !r.ok()) {
      spdlog::error("Failed to finish skipped pod group scheduling attempt: {}", r.error().message());
    }
    return;
  }
  spdlog::debug("Attempting to schedule pod group podGroup={} pods={}", group.group.key(), group.pods.size());

  CycleState groupState;
  PodGroupAlgorithmResult result = podGroupSchedulingAlgorithm(fw, groupState, group);
  // The members the algorithm did not reach share the group's outcome.
  while (result.pods.size() < group.pods.size()) {
    PodGroupPodResult& r = result.pods.emplace_back();
    r.algorithm.status = result.status;
    r.algorithm.nominating = framework::NominatingInfo{};
    r.state = newCycleState();
    if (options_.observer) {
      r.record.pod = group.pods[result.pods.size() - 1].podInfo->podPtr();
      r.record.profile = fw.profileName();
    }
  }
  if (options_.metrics) {
    options_.metrics->observePodGroupSchedulingAlgorithm(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const Status rootStatus = result.status;
  if (result.status.code() == Code::Unschedulable) runPodGroupPostFilter(fw, groupState, group, result);
  submitPodGroupAlgorithmResult(fw, group, result, rootStatus, start);
}

void Scheduler::runPodGroupPostFilter(Framework& fw, CycleState& groupState, const QueuedPodGroupInfo& group,
                                      PodGroupAlgorithmResult& result) {
  auto memberStates = std::make_unique<framework::PodGroupMemberStates>();
  for (size_t i = 0; i < result.pods.size(); ++i) {
    const api::Pod& pod = group.pods[i].pod();
    memberStates->byPod[framework::podGroupKey(pod.metadata.namespace_, pod.metadata.name)] = result.pods[i].state;
  }
  groupState.write(std::move(memberStates));
  // Upstream's pgSchedulingFunc: the group's algorithm again, on a fresh group state, against the snapshot
  // as the plugin left it; only the members that fitted are proposed.
  const framework::PodGroupSchedulingFunc schedule = [&] {
    CycleState rerunState;
    PodGroupAlgorithmResult rerun = podGroupSchedulingAlgorithm(fw, rerunState, group);
    framework::PodGroupAssignments out;
    out.status = std::move(rerun.status);
    for (size_t i = 0; i < rerun.pods.size(); ++i) {
      PodGroupPodResult& r = rerun.pods[i];
      if (!r.algorithm.status.isSuccess() || r.algorithm.host.empty()) continue;
      out.proposed.push_back({group.pods[i].podInfo, r.algorithm.host, r.state});
    }
    return out;
  };
  framework::PodGroupPostFilterResult postFilter;
  Status status = fw.runPodGroupPostFilterPlugins(groupState, group.group, schedule, postFilter);
  if (status.isSuccess()) {
    // Room is being made: every member waits for it, nominated where the preemption placed it.
    result.waitingOnPreemption = true;
    for (size_t i = 0; i < result.pods.size(); ++i) {
      const api::Pod& pod = group.pods[i].pod();
      auto it = postFilter.nominatingInfos.find(framework::podGroupKey(pod.metadata.namespace_, pod.metadata.name));
      if (it != postFilter.nominatingInfos.end()) result.pods[i].algorithm.nominating = it->second;
    }
  }
  if (status.code() == Code::Error) {
    result.status = std::move(status);
  } else {
    result.status.appendReason(status.message());
  }
}

void Scheduler::failPodGroupBeforeScheduling(QueuedPodGroupInfo& group, const std::string& err) {
  const Status status = Status::error(err);
  for (QueuedPodInfo& member : group.pods) {
    Framework* fw = frameworkForPod(member.pod());
    if (fw == nullptr) {
      spdlog::error("no profile for scheduler name \"{}\" of pod {}", api::schedulerNameOf(member.pod()),
                    queue::PriorityQueue::podKey(member.pod()));
      queue_->done(member.pod().metadata.uid);
      continue;
    }
    handleSchedulingFailure(*fw, member, status, std::nullopt, kClearNominatedNode, std::chrono::steady_clock::now());
  }
  if (group.group.podGroup) {
    updatePodGroupCondition(group.group, "False", "SchedulerError", err);
  }
  if (auto r = queue_->addAttemptedPodGroupIfNeeded(std::move(group), queue_->schedulingCycle(), status); !r.ok()) {
    spdlog::error("Failed to add pod group back to scheduling queue: {}", r.error().message());
  }
}

std::string Scheduler::validatePodGroup(const QueuedPodGroupInfo& group, const framework::PodGroupState& state) {
  const std::string& schedulerName = api::schedulerNameOf(group.pods.front().pod());
  const int32_t groupPriority = group.priority();
  // Without PodGroupPreemptionPolicy (alpha) the members must agree among themselves.
  const std::string_view policy = preemptionPolicyOf(group.pods.front().pod());
  auto validatePod = [&](const api::Pod& pod) -> std::string {
    if (api::schedulerNameOf(pod) != schedulerName) {
      return "all pods in a single pod group should have the same .spec.schedulerName set, got: " +
             quote(api::schedulerNameOf(pod)) + " and " + quote(schedulerName);
    }
    if (const int32_t p = framework::podPriority(pod); p != groupPriority) {
      return "all pods in a single pod group should have the same priority as the pod group's priority, got " +
             std::to_string(p) + " and " + std::to_string(groupPriority);
    }
    if (preemptionPolicyOf(pod) != policy) {
      return "all pods in a single pod group should have the same preemption policy, got " +
             std::string(preemptionPolicyOf(pod)) + " and " + std::string(policy);
    }
    return {};
  };
  for (const QueuedPodInfo& member : group.pods) {
    if (std::string err = validatePod(member.pod()); !err.empty()) return err;
  }
  for (const api::PodPtr& pod : state.scheduledPods()) {
    if (std::string err = validatePod(*pod); !err.empty()) return err;
  }
  if (!servesSchedulerName(schedulerName)) return "profile not found for scheduler name " + quote(schedulerName);
  return {};
}

Scheduler::PodGroupAlgorithmResult Scheduler::podGroupSchedulingAlgorithm(Framework& fw, CycleState& groupState,
                                                                          const QueuedPodGroupInfo& group) {
  PodGroupAlgorithmResult result;
  result.status = podGroupUnschedulable();
  // Every snapshot assumption is undone before the group is submitted (upstream runRootSchedulingAlgorithm's
  // deferred revert), newest first.
  auto revertAll = [&] {
    for (auto it = result.pods.rbegin(); it != result.pods.rend(); ++it) {
      if (!it->assumed) continue;
      unreserveAndForget(fw, *it->state, *it->assumed, it->algorithm.host, /*inSnapshot=*/true);
      it->assumed.reset();
    }
  };
  const framework::PodGroupManager* groups = snapshot_.podGroupManager();
  framework::PodGroupStatePtr state = groups ? groups->podGroupState(group.group.namespace_, group.group.name) : nullptr;
  if (!state) {
    result.status = Status::error("failed to get podGroup state for podGroup " + group.group.key() +
                                  " to compute gang feasibility: pod group state not found for pod group " +
                                  group.group.key());
    return result;
  }
  framework::PlacementProgress progress{static_cast<int>(group.group.unscheduledPods.size()),
                                        state->scheduledPodsCount()};
  Status feasible = fw.runPlacementFeasiblePlugins(groupState, group.group, progress);
  if (feasible.code() == Code::Error) {
    result.status = Status::error("failed to evaluate placement feasibility: " + feasible.message());
    return result;
  }
  if (feasible.code() == Code::Unschedulable) {
    result.status = podGroupUnschedulable(feasible.reasons());
    return result;
  }
  result.status = feasible;

  bool anyScheduled = false;
  result.pods.reserve(group.pods.size());
  for (const QueuedPodInfo& member : group.pods) {
    PodGroupPodResult& r = result.pods.emplace_back(podGroupPodSchedulingAlgorithm(fw, member));
    const Status& podStatus = r.algorithm.status;
    if (!podStatus.isSuccess() && !podStatus.isRejected()) {
      result.status = Status::error("failed to schedule other pod from a pod group: " + podStatus.message());
      break;
    }
    --progress.remaining;
    if (podStatus.isSuccess()) ++progress.scheduled;
    feasible = fw.runPlacementFeasiblePlugins(groupState, group.group, progress);
    if (feasible.code() == Code::Error) {
      result.status = Status::error("failed to evaluate placement feasibility: " + feasible.message());
      break;
    }
    result.status = feasible;
    if (feasible.code() == Code::Unschedulable) break;
    anyScheduled = anyScheduled || podStatus.isSuccess();
  }
  if (result.status.isWait()) result.status = podGroupUnschedulable(result.status.reasons());
  revertAll();
  result.anyScheduled = result.status.isSuccess() && anyScheduled;
  if (result.status.isSuccess() && !result.anyScheduled) result.status = podGroupUnschedulable();
  return result;
}

Scheduler::PodGroupPodResult Scheduler::podGroupPodSchedulingAlgorithm(Framework& fw, const QueuedPodInfo& member) {
  const auto start = std::chrono::steady_clock::now();
  PodGroupPodResult r;
  r.state = newCycleState();
  AttemptRecord* rec = nullptr;
  if (options_.observer) {
    rec = &r.record;
    rec->pod = member.podInfo->podPtr();
    rec->profile = fw.profileName();
  }
  std::optional<HandOffHold> noHandOffs;  // no PostFilter runs per member
  r.algorithm = schedulingAlgorithm(fw, *r.state, member, rec, /*podGroupCycle=*/true, noHandOffs);
  if (r.algorithm.status.isSuccess()) {
    QueuedPodInfo assumed;
    std::optional<FitError> fitError;
    if (Status s = assumeAndReserve(fw, *r.state, member, r.algorithm.host, /*inSnapshot=*/true, assumed, fitError);
        !s.isSuccess()) {
      r.algorithm.status = std::move(s);
      r.algorithm.fitError = std::move(fitError);
      r.algorithm.nominating = kClearNominatedNode;
    } else {
      r.assumed = std::move(assumed);
    }
  }
  r.schedulingDuration = std::chrono::steady_clock::now() - start;
  return r;
}

void Scheduler::submitPodGroupAlgorithmResult(Framework& fw, QueuedPodGroupInfo& group, PodGroupAlgorithmResult& result,
                                              const Status& rootStatus, std::chrono::steady_clock::time_point start) {
  const Status& groupStatus = result.status;
  int scheduledPods = 0;
  int unschedulablePods = 0;
  for (size_t i = 0; i < group.pods.size(); ++i) {
    QueuedPodInfo& member = group.pods[i];
    PodGroupPodResult& r = result.pods[i];
    AttemptRecord* rec = options_.observer ? &r.record : nullptr;
    const auto podStart = std::chrono::steady_clock::now() - r.schedulingDuration;
    const Status& podStatus = r.algorithm.status;
    if (groupStatus.code() == Code::Error) {
      const Status& status = podStatus.code() == Code::Error ? podStatus : groupStatus;
      report(rec, AttemptResult::Error, "", status.message());
      handleSchedulingFailure(fw, member, status, std::nullopt, kClearNominatedNode, podStart);
      continue;
    }
    if (!podStatus.isSuccess()) {
      report(rec, podStatus.isRejected() ? AttemptResult::Unschedulable : AttemptResult::Error, "",
             podStatus.message());
      handleSchedulingFailure(fw, member, podStatus, r.algorithm.fitError, r.algorithm.nominating, podStart);
      ++unschedulablePods;
      continue;
    }
    if (groupStatus.isSuccess()) {
      QueuedPodInfo assumed;
      std::optional<FitError> fitError;
      if (Status s = prepareForBindingCycle(fw, *r.state, member, r.algorithm.host, assumed, fitError);
          !s.isSuccess()) {
        report(rec, s.isRejected() ? AttemptResult::Unschedulable : AttemptResult::Error, r.algorithm.host,
               s.message());
        handleSchedulingFailure(fw, assumed, s, fitError, kClearNominatedNode, podStart);
        ++unschedulablePods;
        continue;
      }
      report(rec, AttemptResult::Scheduled, r.algorithm.host, "");
      submitBindingCycle(fw, r.state, std::move(assumed), r.algorithm.host, podStart);
      ++scheduledPods;
    } else if (groupStatus.isRejected()) {
      // The member fitted, the group did not.
      if (result.waitingOnPreemption) {
        report(rec, AttemptResult::Unschedulable, "", groupStatus.message());
        handleSchedulingFailure(fw, member, groupStatus, std::nullopt, r.algorithm.nominating, podStart);
      } else {
        Status status = podGroupUnschedulable({groupStatus.message()});
        report(rec, AttemptResult::Unschedulable, "", status.message());
        handleSchedulingFailure(fw, member, status, std::nullopt, kClearNominatedNode, podStart);
      }
      ++unschedulablePods;
    } else {
      Status status = Status::error("received unexpected pod group scheduling algorithm status code: " +
                                    std::string(framework::codeName(groupStatus.code())));
      report(rec, AttemptResult::Error, "", status.message());
      handleSchedulingFailure(fw, member, status, std::nullopt, kClearNominatedNode, podStart);
      ++unschedulablePods;
    }
  }

  if (groupStatus.isSuccess()) {
    spdlog::info("Successfully scheduled a pod group podGroup={} scheduledPods={} unschedulablePods={}",
                 group.group.key(), scheduledPods, unschedulablePods);
    updatePodGroupCondition(group.group, "True", "Scheduled", groupStatus.message());
  } else if (groupStatus.isRejected()) {
    spdlog::info("{} podGroup={} unschedulablePods={} err=\"{}\"",
                 result.waitingOnPreemption ? "Pod group is waiting for preemption" : "Unable to schedule a pod group",
                 group.group.key(), unschedulablePods, groupStatus.message());
    updatePodGroupCondition(group.group, "False", "Unschedulable", groupStatus.message());
  } else {
    const std::string err = groupStatus.asError() ? groupStatus.asError()->message() : groupStatus.message();
    spdlog::error("Error scheduling pod group podGroup={} errorPods={}: {}", group.group.key(), group.pods.size(),
                  err);
    updatePodGroupCondition(group.group, "False", "SchedulerError", err);
  }
  if (options_.metrics) {
    using metrics::Metrics;
    const Metrics::PodGroupResult outcome =
        groupStatus.isSuccess()    ? Metrics::PodGroupResult::Scheduled
        : groupStatus.isRejected() ? (result.waitingOnPreemption ? Metrics::PodGroupResult::WaitingOnPreemption
                                                                 : Metrics::PodGroupResult::Unschedulable)
                                   : Metrics::PodGroupResult::Error;
    options_.metrics->podGroupAttempt(metricsProfile(fw), outcome,
                                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (auto r = queue_->addAttemptedPodGroupIfNeeded(std::move(group), queue_->schedulingCycle(), rootStatus); !r.ok()) {
    spdlog::error("Failed to add attempted pod group to scheduling queue: {}", r.error().message());
  }
}

void Scheduler::updatePodGroupCondition(const PodGroupInfo& group, std::string_view status, std::string_view reason,
                                        const std::string& message) {
  const api::PodGroup& pg = *group.podGroup;
  const auto& conditions = pg.status.conditions;
  auto existing = std::find_if(conditions.begin(), conditions.end(),
                               [](const api::Condition& c) { return c.type == kPodGroupInitiallyScheduled; });
  // Once True, the condition stays so (it records the initial scheduling).
  if (existing != conditions.end() && existing->status == "True" && status != "True") return;
  // apimachinery's SetStatusCondition: the transition time moves only with the status; nothing is sent
  // when status, reason, message and observed generation are unchanged.
  api::Condition cond;
  cond.type = std::string(kPodGroupInitiallyScheduled);
  cond.status = std::string(status);
  cond.reason = std::string(reason);
  cond.message = message;
  cond.observedGeneration = pg.metadata.generation;
  const api::Time now = std::chrono::time_point_cast<std::chrono::seconds>(clock_->now());
  if (existing != conditions.end()) {
    if (existing->status == cond.status && existing->reason == cond.reason && existing->message == cond.message &&
        existing->observedGeneration == cond.observedGeneration) {
      return;
    }
    cond.lastTransitionTime = existing->status == cond.status ? existing->lastTransitionTime : now;
  } else {
    cond.lastTransitionTime = now;
  }
  if (auto r = client_.patchPodGroupStatusCondition(group.namespace_, group.name, cond); !r.ok()) {
    spdlog::error("Failed to update PodGroup status podGroup={}: {}", group.key(), r.error().message());
  }
}

}  // namespace ks::scheduler
