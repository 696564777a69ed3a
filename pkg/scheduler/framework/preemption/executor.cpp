#include "pkg/scheduler/framework/preemption/executor.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <stop_token>

#include "pkg/api/field.h"
#include "pkg/client/client.h"
#include "pkg/informer/store.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::framework::preemption {

namespace {

// Upstream's asynchronous preemption starts one goroutine per preemptor; this many threads run them.
constexpr int kAsyncPreemptionWorkers = 8;

std::string podName(const api::Pod& pod) {
  return informer::metaNamespaceKey(pod.metadata);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The victims whose graceful deletion hasn't started: the others need no API call.
std::vector<const api::Pod*> victimsToPreempt(const Candidate& c, const ExecutorPreemptor& preemptor) {
  std::vector<const api::Pod*> out;
  out.reserve(c.victims.pods.size());
  for (const auto& v : c.victims.pods) {
    if (v->pod().metadata.deletionTimestamp.has_value()) {
      spdlog::info(
          "Victim Pod is already being deleted, skipping the API call for it preemptor={} node={} victim={}",
          preemptor.key, c.name, podName(v->pod()));
      continue;
    }
    out.push_back(&v->pod());
  }
  return out;
}

}  // namespace

ExecutorPreemptor ExecutorPreemptor::forPod(const api::PodPtr& pod) {
  ExecutorPreemptor p;
  p.uid = pod->metadata.uid;
  p.schedulerName = pod->spec.schedulerName;
  p.priority = podPriority(*pod);
  p.type = kPodPreemptor;
  p.key = podName(*pod);
  p.object = podReference(*pod);
  p.pods = {pod};
  return p;
}

ExecutorPreemptor ExecutorPreemptor::forPodGroup(const api::PodGroup& pg,
                                                 const std::vector<api::PodPtr>& members) {
  ExecutorPreemptor p;
  p.uid = pg.metadata.uid;
  // All members of a group use the same scheduler.
  if (!members.empty()) p.schedulerName = members.front()->spec.schedulerName;
  p.priority = podGroupPriority(pg);
  p.type = kPodGroupPreemptor;
  p.key = podGroupKey(pg.metadata.namespace_, pg.metadata.name);
  p.object.kind = std::string(api::PodGroup::kKind);
  p.object.apiVersion = std::string(api::PodGroup::kApiVersion);
  p.object.namespace_ = pg.metadata.namespace_;
  p.object.name = pg.metadata.name;
  p.object.uid = pg.metadata.uid;
  p.object.resourceVersion = pg.metadata.resourceVersion;
  p.pods = members;
  return p;
}

Executor::Executor(std::string pluginName, Handle& handle, bool enableAsyncPreemption,
                   const informer::Store<api::Pod>& pods)
    : pluginName_(std::move(pluginName)),
      handle_(handle),
      enableAsyncPreemption_(enableAsyncPreemption),
      pods_(pods),
      asyncWorkers_(kAsyncPreemptionWorkers) {
  preemptPod_ = [this](const Candidate& c, const ExecutorPreemptor& preemptor, const api::Pod& victim) {
    return defaultPreemptPod(c, preemptor, victim);
  };
}

Executor::~Executor() {
  asyncWorkers_.close();
}

Status Executor::actuatePodPreemption(const Candidate& c, const api::PodPtr& pod) {
  return actuate(c, ExecutorPreemptor::forPod(pod));
}

Status Executor::actuatePodGroupPreemption(const Candidate& c, const api::PodGroup& pg,
                                           const std::vector<api::PodPtr>& members) {
  return actuate(c, ExecutorPreemptor::forPodGroup(pg, members));
}

Status Executor::actuate(const Candidate& c, ExecutorPreemptor preemptor) {
  if (enableAsyncPreemption_) {
    prepareCandidateAsync(c, std::move(preemptor));
    return Status();
  }
  return prepareCandidate(c, preemptor);
}

bool Executor::isRunningPreemption(const std::string& uid) const {
  std::lock_guard lock(mu_);
  if (!preempting_.contains(uid)) return false;
  auto last = lastVictimPending_.find(uid);
  // The last victim isn't being preempted yet: the others still are.
  if (last == lastVictimPending_.end()) return true;
  // Its preemption is done once it is gone or terminating, even before the API call returns.
  const api::PodPtr victim = pods_.get(last->second);
  return victim != nullptr && !victim->metadata.deletionTimestamp.has_value();
}

void Executor::setLastVictim(const std::string& uid, const api::Pod& victim) {
  std::lock_guard lock(mu_);
  lastVictimPending_[uid] = informer::metaNamespaceKey(victim.metadata);  // the pod store's key
}

void Executor::setPreempting(const std::string& uid, bool preempting) {
  std::lock_guard lock(mu_);
  if (preempting) {
    preempting_.insert(uid);
  } else {
    preempting_.erase(uid);
    lastVictimPending_.erase(uid);
  }
}

void Executor::observeVictims(const ExecutorPreemptor& preemptor, const Candidate& c) const {
  metrics::Metrics* m = handle_.metrics();
  if (m == nullptr) return;
  const int numVictims = static_cast<int>(c.victims.pods.size());
  if (preemptor.type == kPodGroupPreemptor) {
    m->observeWorkloadPreemptionVictims(numVictims);
  } else {
    m->observePreemptionVictims(numVictims);
  }
  if (c.numPodGroupDisruptions > 0)
    m->observePreemptionWorkloadDisruptions(preemptor.type, c.numPodGroupDisruptions);
  if (c.victims.numPDBViolations > 0)
    m->addPreemptionPDBViolations(preemptor.type, c.victims.numPDBViolations);
}

Result<bool> Executor::defaultPreemptPod(const Candidate& c, const ExecutorPreemptor& preemptor,
                                         const api::Pod& victim) {
  // A victim in its binding cycle has no node in the API yet: stop its binding in memory, and it goes
  // back to the queue. Otherwise delete it.
  bool inMemory = false;
  std::string note =
      "Preempted by " + std::string(preemptor.type) + " " + preemptor.uid + " on node " + c.name;
  if (auto waiting = handle_.getWaitingPod(victim.metadata.uid)) {
    if (waiting->preempt(pluginName_, "preempted")) {
      spdlog::info("Preemptor preempted a waiting pod preemptorType={} preemptor={} waitingPod={} node={}",
                   preemptor.type, preemptor.key, podName(victim), c.name);
      inMemory = true;
    }
  } else if (auto inPreBind = handle_.getPodInPreBind(victim.metadata.uid)) {
    if (inPreBind->cancelPod("preempted by " + pluginName_)) {
      spdlog::info(
          "Preemptor rejected a pod in preBind preemptorType={} preemptor={} podInPreBind={} node={}",
          preemptor.type, preemptor.key, podName(victim), c.name);
      inMemory = true;
    } else {
      spdlog::debug(
          "Failed to reject a pod in preBind, falling back to deletion via api call preemptor={} "
          "podInPreBind={} node={}",
          preemptor.key, podName(victim), c.name);
    }
  }
  if (!inMemory) {
    client::Client* client = handle_.client();
    if (client == nullptr) return Error("no API client to preempt pod " + podName(victim));
    api::PodCondition cond;
    cond.type = "DisruptionTarget";
    cond.status = "True";
    cond.reason = "PreemptionByScheduler";
    cond.message = preemptor.schedulerName + ": preempting to accommodate a higher priority " +
                   std::string(preemptor.type);
    cond.observedGeneration = victim.metadata.generation;  // PodObservedGenerationTracking
    cond.lastTransitionTime =
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    if (auto changed = updatePodCondition(victim.status, std::move(cond))) {
      client::PodStatusPatch patch;
      patch.condition = std::move(*changed);
      if (auto r = client->patchPodStatus(victim.metadata.namespace_, victim.metadata.name, patch); !r.ok()) {
        if (!r.error().isNotFound()) {
          spdlog::error(
              "Could not add DisruptionTarget condition due to preemption preemptor={} victim={}: {}",
              preemptor.key, podName(victim), r.error().message());
          return Error(r.error().message());
        }
        spdlog::info("Victim Pod is already deleted preemptor={} victim={} node={}", preemptor.key,
                     podName(victim), c.name);
        return false;
      }
    }
    if (auto r = client->deletePod(victim.metadata.namespace_, victim.metadata.name, {}); !r.ok()) {
      if (!r.error().isNotFound()) {
        spdlog::error("Tried to preempted pod pod={} preemptor={}: {}", podName(victim), preemptor.key,
                      r.error().message());
        return Error(r.error().message());
      }
      spdlog::info("Victim Pod is already deleted preemptor={} victim={} node={}", preemptor.key,
                   podName(victim), c.name);
      return false;
    }
    spdlog::info("Preemptor Pod preempted victim Pod preemptor={} victim={} node={}", preemptor.key,
                 podName(victim), c.name);
  } else {
    note += " (in kube-scheduler memory).";
  }
  if (EventRecorder* recorder = handle_.eventRecorder()) {
    recorder->eventf(podReference(victim), &preemptor.object, "Normal", "Preempted", "Preempting",
                     std::move(note));
  }
  return inMemory;
}

Result<void> Executor::clearLowerPriorityNominations(int32_t priority, const std::string& nodeName) {
  // Lower-priority pods nominated to this node may no longer fit there; clearing their nomination
  // updates them, which moves them back to activeQ to find another place.
  PodNominator* nominator = handle_.podNominator();
  if (nominator == nullptr) return {};
  std::vector<std::string> errors;
  for (const auto& pi : nominator->nominatedPodsForNode(nodeName)) {
    const api::Pod& p = pi->pod();
    if (podPriority(p) >= priority || p.status.nominatedNodeName.empty()) continue;
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

std::optional<Error> Executor::preemptVictims(const Candidate& c, const ExecutorPreemptor& preemptor,
                                              std::span<const api::Pod* const> victims) {
  parallelize::ErrorChannel errCh;
  std::stop_source cancel;
  handle_.parallelizer().until(
      static_cast<int>(victims.size()),
      [&](int i) {
        if (auto r = preemptPod_(c, preemptor, *victims[static_cast<size_t>(i)]); !r.ok()) {
          errCh.sendErrorWithCancel(r.error(), cancel);
        }
      },
      cancel.get_token());
  return errCh.receiveError();
}

Status Executor::prepareCandidate(const Candidate& c, const ExecutorPreemptor& preemptor) {
  observeVictims(preemptor, c);
  const auto start = std::chrono::steady_clock::now();
  metrics::Metrics* m = handle_.metrics();
  const std::vector<const api::Pod*> victims = victimsToPreempt(c, preemptor);
  if (auto err = preemptVictims(c, preemptor, victims)) {
    if (m != nullptr) m->observePreemptionExecution(preemptor.type, false, secondsSince(start));
    return Status::fromError(std::move(*err));
  }
  if (auto r = clearLowerPriorityNominations(preemptor.priority, c.name); !r.ok()) {
    spdlog::error("Cannot clear 'NominatedNodeName' field: {}", r.error().message());  // not critical
  }
  if (m != nullptr) m->observePreemptionExecution(preemptor.type, true, secondsSince(start));
  return Status();
}

void Executor::prepareCandidateAsync(const Candidate& c, ExecutorPreemptor preemptor) {
  observeVictims(preemptor, c);
  std::vector<const api::Pod*> victims = victimsToPreempt(c, preemptor);
  // Every victim is terminating already: their deletions will bring the preemptor back.
  if (victims.empty()) return;
  const std::string uid = preemptor.uid;
  setPreempting(uid, true);
  auto task = [this, c, preemptor = std::move(preemptor), uid, victims = std::move(victims)] {
    const auto start = std::chrono::steady_clock::now();
    bool ok = true;
    bool lastInMemory = false;
    spdlog::info(
        "Start the preemption asynchronously preemptor={} node={} numVictims={} numVictimsToDelete={}",
        preemptor.key, c.name, c.victims.pods.size(), victims.size());
    if (auto r = clearLowerPriorityNominations(preemptor.priority, c.name); !r.ok()) {
      spdlog::error(
          "Cannot clear 'NominatedNodeName' field from lower priority pods on the same target node "
          "node={}: {}",
          c.name, r.error().message());
      ok = false;
    }
    // Every victim but the last in parallel. The preemptor stays gated while the last one is preempted, but
    // only until that victim is seen gone or terminating (isRunningPreemption): its deletion event may reach
    // the queue before this task returns, and must not find the preemptor still gated.
    bool preemptLast = true;
    if (victims.size() > 1) {
      if (auto err = preemptVictims(c, preemptor, std::span(victims).first(victims.size() - 1))) {
        spdlog::error("Error occurred during async preemption: {}", err->message());
        ok = false;
        preemptLast = false;  // retry the preemptor sooner rather than finish half the preemption
      }
    }
    if (preemptLast) {
      const api::Pod& last = *victims.back();
      setLastVictim(uid, last);
      if (auto r = preemptPod_(c, preemptor, last); !r.ok()) {
        spdlog::error("Error occurred during async preemption of the last victim: {}", r.error().message());
        ok = false;
      } else {
        lastInMemory = *r;
      }
    }
    setPreempting(uid, false);
    spdlog::info("Async Preemption finished completely preemptor={} node={} result={}", preemptor.key, c.name,
                 ok ? "success" : "error");
    // A failed API call may leave the preemptor's pods in unschedulablePods with no event to move them, and a
    // victim preempted in memory sends no deletion event: retry them now.
    if (!ok || lastInMemory) handle_.activate(preemptor.pods);
    if (metrics::Metrics* m = handle_.metrics()) {
      const double seconds = secondsSince(start);
      m->preemptionGoroutineFinished(ok, seconds);
      m->observePreemptionExecution(preemptor.type, ok, seconds);
    }
  };
  // The preemptor is gated from here on; the evictions start when the scheduler lets them (Handle::handOff:
  // after the pod's status with its nomination is written).
  handle_.handOff([this, uid, task = std::move(task)]() mutable {
    if (!asyncWorkers_.submit(std::move(task))) setPreempting(uid, false);  // shutting down
  });
}

}  // namespace ks::framework::preemption
