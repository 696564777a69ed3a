#pragma once
// The Scheduler (upstream pkg/scheduler scheduler.go + schedule_one.go + eventhandlers.go): one
// scheduling thread pops pods and runs the scheduling cycle; a pool of binding threads runs binding
// cycles; informer handlers feed the cache (assigned pods, nodes) and the queue (pending pods of our
// profiles, cluster events).
//
//   scheduleOne: pop -> profile -> updateSnapshot -> PreFilter -> Filter (parallel, rotating start,
//     stop at numFeasibleNodesToFind; nominated node, else batching's hinted node, first) -> [none:
//     PostFilter, failure handler] -> PreScore -> Score -> top of the ranked nodes (the rest kept for
//     the next pod of the same signature) -> assume -> Reserve -> Permit -> binding pool:
//     WaitOnPermit -> PreBind -> Bind -> finishBinding -> PostBind; any failure after assume:
//     Unreserve -> forget -> failure handler (PodScheduled=False condition, FailedScheduling event,
//     requeue).
//
// Every popped pod ends bound, requeued with a recorded reason, or dropped because the API deleted it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/backend/cache/cache.h"
#include "pkg/scheduler/backend/cache/snapshot.h"
#include "pkg/scheduler/backend/queue/scheduling_queue.h"
#include "pkg/scheduler/framework/fit_error.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/runtime/registry.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/util/worker_pool.h"

namespace ks::informer {
class SharedInformerFactory;
template <typename T>
class Store;
}  // namespace ks::informer

namespace ks::extender {
enum class CallError;
}  // namespace ks::extender

namespace ks::plugins::dynamicresources {
class DefaultDRAManager;
}  // namespace ks::plugins::dynamicresources

namespace ks::scheduler {

using framework::Diagnosis;
using framework::FitError;
using framework::kNoNodesAvailableMsg;
using framework::truncateMessage;

enum class AttemptResult { Scheduled, Unschedulable, Error };

// Upstream's clearNominatedNode: a failure that clears the pod's status.nominatedNodeName.
inline const framework::NominatingInfo kClearNominatedNode{"", framework::NominatingMode::Override};
std::string_view attemptResultName(AttemptResult r);

// What happened in one scheduling attempt, for `simulate --explain` and tests. Filled on the scheduling
// thread (result Scheduled means "assumed and handed to binding"; see onBound for the outcome).
struct AttemptRecord {
  api::PodPtr pod;
  std::string profile;
  AttemptResult result = AttemptResult::Error;
  std::string node;
  std::string message;
  // All nodes of the snapshot, in order; nodes without an explicit status in `filtered` were feasible
  // or (when `filtered.absentNodesStatus()` has reasons) excluded by PreFilter.
  std::vector<std::string> allNodes;
  std::vector<std::string> feasibleNodes;
  framework::NodeToStatus filtered;
  bool preFilterRejected = false;
  // Per node: per plugin score after NormalizeScore and before weight; and the weighted total.
  std::map<std::string, std::map<std::string, int64_t>> scores;
  std::map<std::string, int64_t> totalScores;
  // The node PostFilter (preemption) nominated the pod to; empty when it nominated none.
  std::string nominatedNode;
};

class AttemptObserver {
 public:
  virtual ~AttemptObserver() = default;
  // Scheduling thread, after each attempt's scheduling cycle.
  virtual void onAttempt(const AttemptRecord& record) = 0;
  // Binding thread, after a binding cycle: ok, or the failure message (the pod is requeued).
  virtual void onBindingDone(const api::Pod& pod, const std::string& node,
                             const framework::Status& status) = 0;
};

struct SchedulerOptions {
  // Threads for the binding cycles and asynchronous API writes.
  int bindingWorkers = 16;
  AttemptObserver* observer = nullptr;
  framework::EventRecorder* eventRecorder = nullptr;  // none: events are not recorded
  // Given to plugins as Handle::sharedInformerFactory() (namespace, service ... listers); must be the
  // factory passed to addEventHandlers and outlive the scheduler. None: plugins that need it fail.
  informer::SharedInformerFactory* informerFactory = nullptr;
  metrics::Metrics* metrics = nullptr;                // none: nothing is recorded
  Clock* clock = nullptr;                  // realClock() when null
  // SchedulerPopFromBackoffQ feature gate (upstream reads it in NewSchedulingQueue).
  bool popFromBackoffQ = true;
  // DynamicResourceAllocation feature gate: the resource.k8s.io event handlers and the pod update event
  // for generated claims.
  bool dynamicResourceAllocation = true;
  // DRAConsumableCapacity feature gate: the DRA manager tracks shared devices' consumed capacity.
  bool draConsumableCapacity = true;
  // DRADeviceTaintRules feature gate (GA, on in v1.37): the DRA manager applies DeviceTaintRules to the
  // slices, and a rule's add, update or delete is a ResourceSlice update event (upstream's slice tracker).
  bool draDeviceTaintRules = true;
  // DRAExtendedResource (GA and locked on in v1.37): the DRA manager keeps the extended-resource cache.
  bool draExtendedResource = true;
  // NominatedNodeNameForExpectation feature gate: the binding cycle runs PreBind's pre-flight first and,
  // when PreBind or a Permit wait lies ahead, sets the pod's nominatedNodeName to its node before them,
  // so that other components (the cluster autoscaler) see where the pod is going.
  bool nominatedNodeNameForExpectation = true;
  // OpportunisticBatching feature gate (beta, on in v1.37): the queue signs pods and each profile reuses
  // the ranking of the previous pod with the same signature (framework/runtime/batch.h).
  bool enableOpportunisticBatching = true;
  // GenericWorkload feature gate (beta, off in v1.37): PodGroups are watched, their members counted in the
  // cache and scheduled together by the pod-group cycle.
  bool genericWorkload = false;
  // --pod-max-in-unschedulable-pods-duration (upstream WithPodMaxInUnschedulablePodsDuration).
  std::chrono::nanoseconds podMaxInUnschedulablePodsDuration = queue::kDefaultPodMaxInUnschedulablePodsDuration;
  // Overrides of the queue options derived from the config and the two above (tests).
  std::optional<queue::QueueOptions> queueOptions;
  // Extenders to use besides the config's HTTP extenders, after them (tests' fakes, as upstream's tests
  // set Scheduler.Extenders); not owned, must outlive the scheduler.
  std::vector<framework::Extender*> extenders;
};

class Scheduler {
 public:
  // Builds one Framework per profile (all must share the same QueueSort), the cache, the queue.
  static Result<std::unique_ptr<Scheduler>> create(client::Client& client,
                                                   const config::KubeSchedulerConfiguration& cfg,
                                                   const framework::runtime::Registry& registry,
                                                   SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Registers the informer handlers (upstream addAllEventHandlers). Call before factory.start().
  void addEventHandlers(informer::SharedInformerFactory& factory);

  // Runs scheduleOne until stop is requested or the queue is closed; also starts the queue's flushes.
  void run(std::stop_token stop);
  // Schedules one pod; returns false when the queue was closed.
  bool scheduleOne();
  // Closes the queue (pop returns), waits for in-flight bindings, stops background work.
  void close();
  // Waits until no binding cycle or API write is queued or running.
  void waitForBindings();
  // Binding cycles and API writes queued or running.
  size_t bindingsInFlight() const { return bindingPool_->inFlight(); }

  queue::PriorityQueue& schedulingQueue() { return *queue_; }
  cache::Cache& schedulerCache() { return *cache_; }
  bool servesSchedulerName(const std::string& name) const;
  const std::map<std::string, std::unique_ptr<framework::runtime::Framework>>& profiles() const {
    return profiles_;
  }

 private:
  struct ScheduleResult {
    std::string suggestedHost;
    int evaluatedNodes = 0;
    int feasibleNodes = 0;
  };
  // What the scheduling algorithm decided for one pod (upstream ScheduleResult and status).
  struct AlgorithmResult {
    std::string host;  // when the status is success
    framework::Status status;
    std::optional<FitError> fitError;  // when no node fits
    // What the failure handler does with the pod's nomination (clear it, by default).
    framework::NominatingInfo nominating = kClearNominatedNode;
  };
  // Holds what a profile's PostFilter hands off (framework::Handle::handOff) until the failure handler has
  // written the pod's status: released when destroyed.
  class HandOffHold {
   public:
    explicit HandOffHold(framework::runtime::Framework& fw) : fw_(fw) { fw_.holdHandOffs(); }
    ~HandOffHold() { fw_.releaseHandOffs(); }
    HandOffHold(const HandOffHold&) = delete;
    HandOffHold& operator=(const HandOffHold&) = delete;

   private:
    framework::runtime::Framework& fw_;
  };
  struct PodGroupAlgorithmResult;
  struct PodGroupPodResult;

  Scheduler(client::Client& client, SchedulerOptions options);

  // One popped pod: the scheduling cycle, then the binding cycle handed to the pool (upstream scheduleOnePod).
  void scheduleOnePod(framework::QueuedPodInfo pInfo);
  // One popped pod group (schedule_one_podgroup.cpp, upstream scheduleOnePodGroup): every queued member is
  // placed against one snapshot, assumed in it as it goes; the group is committed (assumed in the cache,
  // Reserve, Permit, binding) only when the placement is feasible as a whole, else no member is.
  void scheduleOnePodGroup(framework::QueuedPodGroupInfo group);
  // The members of a group that could not be attempted (no snapshot, the group gone, invalid) fail with
  // `err`; the group's condition says SchedulerError (upstream handlePodGroupFailureBeforeScheduling).
  void failPodGroupBeforeScheduling(framework::QueuedPodGroupInfo& group, const std::string& err);
  // Upstream validatePodGroup: the queued and the scheduled members share one profile, the group's priority
  // and one preemption policy; the error text, or empty.
  std::string validatePodGroup(const framework::QueuedPodGroupInfo& group, const framework::PodGroupState& state);
  // Upstream podGroupSchedulingDefaultAlgorithm (with runRootSchedulingAlgorithm's revert): the members in
  // order against the snapshot, PlacementFeasible after each; every snapshot assumption is undone on return.
  PodGroupAlgorithmResult podGroupSchedulingAlgorithm(framework::runtime::Framework& fw,
                                                      framework::CycleState& groupState,
                                                      const framework::QueuedPodGroupInfo& group);
  // One member: Filter/Score, then assumed in the snapshot and reserved (upstream podGroupPodSchedulingAlgorithm).
  PodGroupPodResult podGroupPodSchedulingAlgorithm(framework::runtime::Framework& fw,
                                                   const framework::QueuedPodInfo& member);
  // The group was found unschedulable: PodGroupPostFilter (group preemption) with a re-run of the group's
  // algorithm as its scheduling function, then upstream applyPodGroupPostFilterResult (on success the
  // members wait on the preemption with the nominations it made; its verdict is appended to the group's).
  void runPodGroupPostFilter(framework::runtime::Framework& fw, framework::CycleState& groupState,
                             const framework::QueuedPodGroupInfo& group, PodGroupAlgorithmResult& result);
  // Upstream submitPodGroupAlgorithmResult: binds the placed members of a feasible group, sends the others
  // through the failure handler, sets the group's condition and requeues the group.
  void submitPodGroupAlgorithmResult(framework::runtime::Framework& fw, framework::QueuedPodGroupInfo& group,
                                     PodGroupAlgorithmResult& result, const framework::Status& rootStatus,
                                     std::chrono::steady_clock::time_point start);
  // Sets the PodGroupInitiallyScheduled condition as upstream's updatePodGroupCondition (never back from True).
  void updatePodGroupCondition(const framework::PodGroupInfo& group, std::string_view status,
                               std::string_view reason, const std::string& message);
  // Pods being deleted (with an event) and pods already assumed are not scheduled (upstream skipPodSchedule).
  bool skipPodSchedule(const api::Pod& pod);
  std::shared_ptr<framework::CycleState> newCycleState();
  // Hands the attempt's record to the observer (none without one).
  void report(AttemptRecord* record, AttemptResult result, std::string node, std::string message);
  // Upstream schedulingAlgorithm: Filter and Score over the current snapshot; when no node fits, PostFilter
  // (preemption; `handOffs` then holds what it hands off), except in a pod-group cycle, whose PostFilter runs
  // for the whole group.
  AlgorithmResult schedulingAlgorithm(framework::runtime::Framework& fw, framework::CycleState& state,
                                      const framework::QueuedPodInfo& pInfo, AttemptRecord* record,
                                      bool podGroupCycle, std::optional<HandOffHold>& handOffs);
  // Upstream assumeAndReserve: `assumed` is the pod on `host`, assumed in the cache (in the snapshot when
  // `inSnapshot`, in a pod-group cycle), then Reserve. On failure it is forgotten again; a rejection reads as
  // a FitError on the host (`fitError`).
  framework::Status assumeAndReserve(framework::runtime::Framework& fw, framework::CycleState& state,
                                     const framework::QueuedPodInfo& pInfo, const std::string& host,
                                     bool inSnapshot, framework::QueuedPodInfo& assumed,
                                     std::optional<FitError>& fitError);
  void unreserveAndForget(framework::runtime::Framework& fw, framework::CycleState& state,
                          const framework::QueuedPodInfo& assumed, const std::string& host, bool inSnapshot);
  // A Reserve or Permit rejection as a FitError on that one node (other failures as they are).
  static framework::Status rejectionOnHost(const framework::Status& s, const std::string& host,
                                           std::optional<FitError>& fitError);
  // Upstream prepareForBindingCycle: assumeAndReserve in the cache, then Permit (a Wait is a success).
  framework::Status prepareForBindingCycle(framework::runtime::Framework& fw, framework::CycleState& state,
                                           const framework::QueuedPodInfo& pInfo, const std::string& host,
                                           framework::QueuedPodInfo& assumed, std::optional<FitError>& fitError);
  void submitBindingCycle(framework::runtime::Framework& fw, std::shared_ptr<framework::CycleState> state,
                          framework::QueuedPodInfo assumed, const std::string& host,
                          std::chrono::steady_clock::time_point start);

  framework::runtime::Framework* frameworkForPod(const api::Pod& pod) const;
  // Upstream buildExtenders: an HTTPExtender per configured extender (non-ignorable first), and the
  // resources they manage with ignoredByScheduler set into each profile's NodeResourcesFit args.
  Result<void> buildExtenders(const std::vector<config::Extender>& configured,
                              std::vector<config::KubeSchedulerProfile>& profiles);
  // Records an extender's calls in the per-extender metrics (nothing without metrics).
  std::function<void(std::string_view, double, extender::CallError)> extenderCallObserver(
      const std::string& extenderName);
  // Runs PreFilter/Filter/Score over the snapshot (updated by the caller); on no fit returns a FitError via
  // `fitError`. `signature` is the pod's (opportunistic batching).
  Result<ScheduleResult> schedulePod(framework::runtime::Framework& fw, framework::CycleState& state,
                                     const framework::PodInfo& pod, const framework::PodSignature& signature,
                                     std::optional<FitError>& fitError, AttemptRecord* record);
  // `nodeHint` receives the node opportunistic batching hinted at ("" when none).
  Result<std::vector<framework::NodeInfoPtr>> findNodesThatFitPod(
      framework::runtime::Framework& fw, framework::CycleState& state, const framework::PodInfo& pod,
      const framework::PodSignature& signature, Diagnosis& diagnosis, std::string& nodeHint);
  Result<std::vector<framework::NodeInfoPtr>> findNodesThatPassFilters(
      framework::runtime::Framework& fw, framework::CycleState& state, const framework::PodInfo& pod,
      Diagnosis& diagnosis, const std::vector<framework::NodeInfoPtr>& nodes);
  // Upstream prioritizeNodes: PreScore + Score, then the interested extenders' scores (in parallel),
  // each x weight x (MaxNodeScore / MaxExtenderPriority), with a random tie-breaker for those nodes.
  Result<std::vector<framework::NodePluginScores>> prioritizeNodes(framework::runtime::Framework& fw,
                                                                   framework::CycleState& state,
                                                                   const framework::PodInfo& pod,
                                                                   const std::vector<framework::NodeInfoPtr>& nodes);
  // Upstream hasScoring / hasExtenderFilters.
  bool hasScoring(const framework::runtime::Framework& fw) const;
  bool hasExtenderFilters() const;

  void bindingCycle(framework::runtime::Framework& fw, std::shared_ptr<framework::CycleState> state,
                    framework::QueuedPodInfo assumed, const std::string& host,
                    std::chrono::steady_clock::time_point start);
  void handleBindingCycleError(framework::runtime::Framework& fw, framework::CycleState& state,
                               framework::QueuedPodInfo& assumed, const std::string& host,
                               const framework::Status& status, const std::optional<FitError>& fitError,
                               std::chrono::steady_clock::time_point start);
  // Upstream handleSchedulingFailure: requeue (unless the pod is gone or bound), nomination, event,
  // PodScheduled=False condition.
  void handleSchedulingFailure(framework::runtime::Framework& fw, framework::QueuedPodInfo& pInfo,
                               const framework::Status& status, const std::optional<FitError>& fitError,
                               const framework::NominatingInfo& nominatingInfo,
                               std::chrono::steady_clock::time_point start);
  // A pod assumed by its binding cycle was deleted (or its graceful deletion began): reject it at Permit
  // or drop it from the cache, and requeue the pods its resources may let in (upstream
  // handleAssumedPodDeletion).
  void handleAssumedPodDeletion(const api::Pod& pod);
  // Patches status.nominatedNodeName to `node` unless it is already; a failure is logged, not returned.
  void setNominatedNodeName(const api::Pod& pod, const std::string& node);
  // Patches PodScheduled=False (reason, message) and the nominated node when they change.
  void updatePodStatus(const api::Pod& pod, const std::string& reason, const std::string& message,
                       const framework::NominatingInfo& nominatingInfo);
  // Sets the pending-pods and cache-size gauges (after each attempt and once a second).
  void updateGauges();
  metrics::ProfileId metricsProfile(const framework::runtime::Framework& fw) const;
  void recordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string_view action, std::string note);

  // Event handlers.
  void onPodAdd(const api::PodPtr& pod);
  void onPodUpdate(const api::PodPtr& oldPod, const api::PodPtr& newPod);
  void onPodDelete(const api::PodPtr& pod);
  void onAssignedPodAdd(const api::PodPtr& pod);
  void onAssignedPodUpdate(const api::PodPtr& oldPod, const api::PodPtr& newPod);
  void onAssignedPodDelete(const api::PodPtr& pod);
  void onPodGroupAdd(const framework::PodGroupPtr& group);
  void onPodGroupUpdate(const framework::PodGroupPtr& oldGroup, const framework::PodGroupPtr& newGroup);
  void onPodGroupDelete(const framework::PodGroupPtr& group);
  void onNodeAdd(const api::NodePtr& node);
  void onNodeUpdate(const api::NodePtr& oldNode, const api::NodePtr& newNode);
  void onNodeDelete(const api::NodePtr& node);
  bool isUnassignedForUs(const api::Pod& pod) const;

  client::Client& client_;
  SchedulerOptions options_;
  Clock* clock_;
  std::shared_ptr<framework::parallelize::Parallelizer> parallelizer_;
  std::shared_ptr<framework::runtime::WaitingPodsMap> waitingPods_;
  std::shared_ptr<framework::runtime::PodsInPreBindMap> podsInPreBind_;
  // The DRA objects as DynamicResources sees them (upstream's DRA manager), shared by the profiles; with
  // the DynamicResourceAllocation gate and an informer factory. Outlives the profiles' plugins.
  std::unique_ptr<plugins::dynamicresources::DefaultDRAManager> draManager_;
  std::map<std::string, std::unique_ptr<framework::runtime::Framework>> profiles_;
  std::unique_ptr<cache::CacheImpl> cache_;
  std::unique_ptr<queue::PriorityQueue> queue_;
  cache::Snapshot snapshot_;
  int32_t percentageOfNodesToScore_ = 0;
  int nextStartNodeIndex_ = 0;
  // Picks the cycles whose per-plugin durations are recorded.
  std::minstd_rand sampleRng_{std::random_device{}()};
  std::unique_ptr<WorkerPool> bindingPool_;
  // Resources some profile registered events for; handlers are added only for those.
  std::set<framework::EventResource> interestingResources_;
  // The pod informer's store (set by addEventHandlers): the failure handler requeues its version.
  informer::Store<api::Pod>* podStore_ = nullptr;
  // Metric handles per profile name (when options_.metrics is set).
  std::map<std::string, metrics::ProfileId> metricProfiles_;
  metrics::GaugeRef bindingGoroutines_;
  metrics::GaugeRef prioritizingExtenderGoroutines_;
  // The extenders, non-ignorable first (upstream buildExtenders), then options_.extenders. The config's
  // are owned here; their names are kept for the score records.
  std::vector<std::unique_ptr<framework::Extender>> ownedExtenders_;
  std::vector<framework::Extender*> extenders_;
  std::vector<std::string> extenderNames_;
  std::mutex randomizerMu_;
  std::mt19937_64 randomizer_{std::random_device{}()};
  bool closed_ = false;
};

// Upstream findNodesThatPassExtenders: each interested extender in turn filters what the previous one left;
// the nodes they reject get their statuses (named after the extender); an error fails unless the extender
// is ignorable.
Result<std::vector<framework::NodeInfoPtr>> findNodesThatPassExtenders(
    const std::vector<framework::Extender*>& extenders, const api::Pod& pod,
    std::vector<framework::NodeInfoPtr> feasible, framework::NodeToStatus& statuses);

// Upstream extendersBinding: the first interested binder binds (an ignorable one's error moves on to the
// next); nullopt when none did, so the Bind plugins run.
std::optional<framework::Status> extendersBinding(const std::vector<framework::Extender*>& extenders,
                                                  const api::Pod& pod, const std::string& node);

// The events an update of a node represents (upstream NodeSchedulingPropertiesChange).
std::vector<framework::ClusterEvent> nodeSchedulingPropertiesChange(const api::Node& newNode,
                                                                    const api::Node& oldNode);

// Upstream's "minFeasibleNodesToFind" and "minFeasibleNodesPercentageToFind".
inline constexpr int kMinFeasibleNodesToFind = 100;
inline constexpr int kMinFeasibleNodesPercentageToFind = 5;

// How many feasible nodes Filter looks for before stopping (upstream numFeasibleNodesToFind): all of them
// below 100 nodes; otherwise the profile's percentageOfNodesToScore, else the global one, else the
// adaptive 50% - nodes/125 (at least 5%); never fewer than 100.
int numFeasibleNodesToFind(std::optional<int32_t> profilePercentage, int32_t globalPercentage,
                           int numAllNodes);

}  // namespace ks::scheduler
