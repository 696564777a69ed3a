#pragma once
// The preemption executor (upstream framework/preemption/executor.go, v1.37.2): evicts a chosen candidate's
// victims for a preemptor that is a pod (the single-pod evaluator) or a pod group (the pod-group evaluator,
// GenericWorkload).
//
// Eviction of one victim: a victim waiting at Permit or in PreBind is preempted in scheduler memory (its
// binding fails and it is retried); any other gets the DisruptionTarget condition and is deleted through
// the API. Each victim gets a Preempted event related to the preemptor's object. After the victims, the
// lower-priority pods nominated to the candidate's node lose their nomination (for a pod group the
// candidate is the whole cluster, named "cluster", so none do).
//
// Synchronously (asynchronous preemption off) all of this happens before actuate*() returns. Asynchronously
// (SchedulerAsyncPreemption, on) actuate*() marks the preemptor's UID as preempting and hands the work to a
// worker; PreEnqueue keeps the preemptor (or the group's members) out of activeQ while
// is*RunningPreemption() says so. On an API error, or when the last victim was preempted in memory (no
// deletion event will come), the preemptor's pods are activated.
//
// Threads: actuate*() runs on the scheduling thread; the asynchronous evictions on the executor's own
// workers; is*RunningPreemption() (PreEnqueue) on any thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/api/scheduling.h"
#include "pkg/scheduler/framework/extender.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"
#include "pkg/util/worker_pool.h"

namespace ks::informer {
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::framework::preemption {

// The pods to evict (upstream extenderv1.Victims): the extenders' type.
using framework::Victims;

// Where the preemptor is nominated once its victims are gone (upstream Candidate): a node for a pod, the
// cluster ("cluster") for a pod group.
struct Candidate {
  std::string name;
  Victims victims;
  // Pod-group victims among them (a whole group with disruptionMode `all` counts once, a pod of a group with
  // `single` once each); set by the pod-group evaluator, 0 for a pod's preemption.
  int numPodGroupDisruptions = 0;
};

// The preemptor's type (upstream fwk.PodKeyType / PodGroupKeyType): metric labels and texts.
inline constexpr std::string_view kPodPreemptor = "pod";
inline constexpr std::string_view kPodGroupPreemptor = "podgroup";

// Who preempts (upstream ExecutorPreemptor).
struct ExecutorPreemptor {
  std::string uid;
  // The scheduler the preemptor's pods name (a group's: its first member's).
  std::string schedulerName;
  // Lower-priority pods nominated to the candidate lose their nomination.
  int32_t priority = 0;
  std::string_view type = kPodPreemptor;
  // "namespace/name", for logs.
  std::string key;
  // What the victims' Preempted events are related to: the pod, or the PodGroup.
  api::ObjectReference object;
  // Activated when the asynchronous preemption fails or ends with a victim preempted in memory: the pod,
  // or the group's members this cycle tried.
  std::vector<api::PodPtr> pods;

  // Upstream podExecutorPreemptor.
  static ExecutorPreemptor forPod(const api::PodPtr& pod);
  // Upstream podGroupExecutorPreemptor (priority: the group's spec.priority).
  static ExecutorPreemptor forPodGroup(const api::PodGroup& pg, const std::vector<api::PodPtr>& members);
};

class Executor {
 public:
  // Preempts one victim (upstream's PreemptPod field); replaceable in tests. True when the victim was
  // preempted in scheduler memory (waiting at Permit, or in PreBind) rather than deleted; an already
  // deleted victim is no error.
  using PreemptPodFunc = std::function<Result<bool>(const Candidate& c, const ExecutorPreemptor& preemptor,
                                                    const api::Pod& victim)>;

  // `pods` is the pod informer's store (isRunningPreemption looks the last victim up there). The handle
  // gives the client, the event recorder, the nominator, the activator and the metrics.
  Executor(std::string pluginName, Handle& handle, bool enableAsyncPreemption,
           const informer::Store<api::Pod>& pods);
  // Waits for the asynchronous preemptions in flight.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Evicts the candidate's victims for `pod` (upstream actuatePodPreemption): the Error of the first failed
  // eviction (synchronous), or Success at once (asynchronous).
  Status actuatePodPreemption(const Candidate& c, const api::PodPtr& pod);
  // The same for a pod group (upstream actuatePodGroupPreemption): its UID is what is marked preempting,
  // `members` (the group's pods the cycle tried) are what is activated.
  Status actuatePodGroupPreemption(const Candidate& c, const api::PodGroup& pg,
                                   const std::vector<api::PodPtr>& members);

  // True while the pod's / the group's asynchronous preemption is still evicting: until its last victim is
  // seen gone from the informer or terminating (upstream IsPodRunningPreemption /
  // IsPodGroupRunningPreemption).
  bool isPodRunningPreemption(const std::string& podUid) const { return isRunningPreemption(podUid); }
  bool isPodGroupRunningPreemption(const std::string& podGroupUid) const {
    return isRunningPreemption(podGroupUid);
  }

  void setPreemptPodFunc(PreemptPodFunc fn) { preemptPod_ = std::move(fn); }
  // Preempts one victim as the executor does (through the replaceable function).
  Result<bool> preemptPod(const Candidate& c, const ExecutorPreemptor& preemptor, const api::Pod& victim) {
    return preemptPod_(c, preemptor, victim);
  }
  // The built-in eviction, for tests that wrap it.
  Result<bool> defaultPreemptPod(const Candidate& c, const ExecutorPreemptor& preemptor,
                                 const api::Pod& victim);

  // Puts `uid` in the preempting set / registers its last victim (namespace/name), as an asynchronous
  // preemption does.
  void setPreemptingForTest(const std::string& uid) {
    std::lock_guard lock(mu_);
    preempting_.insert(uid);
  }
  void setLastVictimPendingForTest(const std::string& uid, const std::string& lastVictimKey) {
    std::lock_guard lock(mu_);
    lastVictimPending_[uid] = lastVictimKey;
  }
  // The UIDs running an asynchronous preemption, and the last victim registered for one.
  std::set<std::string> preemptingForTest() const {
    std::lock_guard lock(mu_);
    return preempting_;
  }
  std::optional<std::string> lastVictimPendingForTest(const std::string& uid) const {
    std::lock_guard lock(mu_);
    auto it = lastVictimPending_.find(uid);
    return it == lastVictimPending_.end() ? std::nullopt : std::optional(it->second);
  }
  // Blocks until no asynchronous preemption is queued or running (tests).
  void waitForAsyncPreemptions() { asyncWorkers_.waitIdle(); }

 private:
  Status actuate(const Candidate& c, ExecutorPreemptor preemptor);
  // Upstream prepareCandidate: every victim in parallel, then the nominations.
  Status prepareCandidate(const Candidate& c, const ExecutorPreemptor& preemptor);
  // Upstream prepareCandidateAsync.
  void prepareCandidateAsync(const Candidate& c, ExecutorPreemptor preemptor);
  // Upstream observeVictims: the victim count, the pod-group disruptions and the PDB violations.
  void observeVictims(const ExecutorPreemptor& preemptor, const Candidate& c) const;
  // Preempts these victims in parallel; the first error, if any.
  std::optional<Error> preemptVictims(const Candidate& c, const ExecutorPreemptor& preemptor,
                                      std::span<const api::Pod* const> victims);
  // Upstream getLowerPriorityNominatedPods + clearNominatedNodeName.
  Result<void> clearLowerPriorityNominations(int32_t priority, const std::string& nodeName);
  bool isRunningPreemption(const std::string& uid) const;
  void setPreempting(const std::string& uid, bool preempting);
  // Records the victim whose preemption the asynchronous preemption of `uid` waits for last.
  void setLastVictim(const std::string& uid, const api::Pod& victim);

  const std::string pluginName_;
  Handle& handle_;
  const bool enableAsyncPreemption_;
  const informer::Store<api::Pod>& pods_;
  PreemptPodFunc preemptPod_;

  mutable std::mutex mu_;
  // UIDs of the pods / pod groups whose asynchronous preemption is evicting; under mu_.
  std::set<std::string> preempting_;
  // Preemptor UID -> the pod store's key of its last victim, while that one is being preempted; under mu_. Once
  // that victim is gone from the informer or terminating, the preemptor may be scheduled again, even though
  // its preemption task has not returned yet (upstream lastVictimsPendingPreemption).
  std::map<std::string, std::string> lastVictimPending_;
  // Upstream starts a goroutine per asynchronous preemption; these threads play that part. Declared last:
  // destroyed (and drained) first, while the members the tasks use are still alive.
  WorkerPool asyncWorkers_;
};

}  // namespace ks::framework::preemption
