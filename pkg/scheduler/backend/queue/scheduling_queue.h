#pragma once
// The scheduling queue (upstream backend/queue PriorityQueue, v1.34 semantics with queueing hints):
//
//   activeQ            pods ready to be scheduled, ordered by the profile's QueueSort plugin
//   backoffQ           pods waiting out their backoff (BackoffQueue: podBackoffQ for pods rejected by
//                      plugins, podErrorBackoffQ for pods whose attempt ended in an error)
//   unschedulablePods  pods rejected by plugins (or gated by PreEnqueue), waiting for a cluster event
//                      that one of the rejecting plugins registered with a hint that says Queue
//   in flight          pods popped and not yet done (keyed by UID); events that arrive meanwhile are
//                      recorded and checked when the pod comes back through addUnschedulableIfNotPresent
//
// Invariant: a pod (keyed by namespace/name) is in at most one of activeQ, backoffQ and
// unschedulablePods; a pod in flight is in none of them.
//
// Pod groups (QueueOptions::genericWorkload, upstream's queued entities): a pod naming a PodGroup in
// spec.schedulingGroup is queued inside its group's entity (framework::QueuedPodGroupInfo, keyed by
// namespace/groupName), which moves through activeQ, backoffQ and unschedulablePods as a pod does and is
// ordered with the pods by the QueueSort plugin; popEntity() hands it to the pod-group cycle whole. Members
// also wait in two buffers outside the sub-queues: "pending" (their group is in its cycle) and
// "incomplete" (their PodGroup is not observed). A member is in exactly one of: an entity, a buffer, flight.
// The pods-only path (gate off, or pods without a group) is unchanged.
//
// Threads: every public method may be called from any thread. One mutex guards all state; queueing
// hints and PreEnqueue plugins run under it (they must be cheap and must not call back into the
// queue). The nominator has its own lock, taken after the queue's (never the other way round). The
// periodic flushes run on the clock's timers under their own lock, taken before the queue's.
//
// Metrics (QueueOptions::metrics), as upstream: scheduler_queue_incoming_pods_total{queue,event} for each
// pod entering activeQ, backoffQ or unschedulablePods (events "UnscheduledPodAdd",
// "ScheduleAttemptFailure", "BackoffComplete", "ForceActivate", "UnschedulableTimeout", "PopFromBackoffQ",
// or a cluster event's label (ClusterEvent::label()) such as "NodeAdd" or "TargetPodUpdatePodLabel");
// scheduler_unschedulable_pods{plugin,profile} +1 per rejecting plugin when a failed pod comes back, -1
// when it is popped again or deleted;
// scheduler_inflight_events{event} for the events recorded while pods are in flight ("PodPopped" counts
// the in-flight pods); scheduler_queueing_hint_execution_duration_seconds per hint call.
// scheduler_pending_pods is the scheduler's periodic gauge (pendingCounts()).

#include <array>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "pkg/scheduler/backend/heap/heap.h"
#include "pkg/scheduler/backend/queue/backoff_queue.h"
#include "pkg/scheduler/backend/queue/nominator.h"
#include "pkg/scheduler/backend/queue/pod_group_queue.h"
#include "pkg/util/clock.h"
#include "pkg/scheduler/framework/events.h"
#include "pkg/scheduler/framework/runtime/framework.h"
#include "pkg/scheduler/framework/types.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::queue {

// Upstream's defaults.
inline constexpr std::chrono::seconds kDefaultPodInitialBackoff{1};
inline constexpr std::chrono::seconds kDefaultPodMaxBackoff{10};
inline constexpr std::chrono::minutes kDefaultPodMaxInUnschedulablePodsDuration{5};

struct QueueOptions {
  Clock* clock = nullptr;  // realClock() when null
  std::chrono::nanoseconds podInitialBackoff = kDefaultPodInitialBackoff;
  std::chrono::nanoseconds podMaxBackoff = kDefaultPodMaxBackoff;
  std::chrono::nanoseconds podMaxInUnschedulablePodsDuration = kDefaultPodMaxInUnschedulablePodsDuration;
  // SchedulerQueueingHints (on by default upstream): use plugins' hints and the events seen while a pod
  // was in flight. When off, any registered event moves a pod, and a move request during a pod's
  // cycle (moveRequestCycle) sends it to backoffQ instead of unschedulablePods.
  bool queueingHints = true;
  // SchedulerPopFromBackoffQ (on by default upstream): pop from backoffQ when activeQ is empty.
  bool popFromBackoffQ = true;
  // DynamicResourceAllocation (GA, on by default): a pod update that changes its generated claims is an
  // UpdatePodGeneratedResourceClaim event (podSchedulingPropertiesChange).
  bool dynamicResourceAllocation = true;
  // Where to record the queue's metrics; none when null. Must outlive the queue.
  metrics::Metrics* metrics = nullptr;
  // OpportunisticBatching (beta, on in v1.37): pods are signed (ProfileHooks::signPod) when added or
  // updated while queued.
  bool enableOpportunisticBatching = true;
  // GenericWorkload (beta, off by default): a pod with spec.schedulingGroup.podGroupName is queued as a
  // member of its PodGroup's entity (see "Pod groups" below); off, it is queued as any pod.
  bool genericWorkload = false;
};

// What the queue needs from one profile.
struct ProfileHooks {
  // Runs the profile's PreEnqueue plugins; empty = no PreEnqueue plugins.
  std::function<framework::Status(const framework::PodInfo&)> runPreEnqueuePlugins;
  // The events each plugin registered (Framework::eventsToRegister()).
  std::vector<framework::runtime::PluginEvents> pluginEvents;
  // Events registered by each PreEnqueue plugin, for gated pods.
  std::map<std::string, std::vector<framework::ClusterEvent>> preEnqueuePluginEvents;
  // The profile's pod signer (Framework::signPod, upstream PodSigner); empty = pods are not signed.
  std::function<framework::PodSignature(const api::Pod&)> signPod;
};

// Builds the hooks of a profile from its Framework.
Result<ProfileHooks> hooksFromFramework(framework::runtime::Framework& fw);

// PendingPodGroupPods / IncompletePodGroupPods: a group member held in the pending / incomplete buffer.
enum class QueueName {
  ActiveQ,
  BackoffQ,
  UnschedulablePods,
  InFlight,
  None,
  PendingPodGroupPods,
  IncompletePodGroupPods
};

// Pods (group members counted one by one) per scheduler_pending_pods{queue} value.
struct PendingCounts {
  size_t active = 0;
  size_t backoff = 0;
  size_t unschedulable = 0;  // excluding gated
  size_t gated = 0;
  size_t pending = 0;     // queue="pending": members waiting for their popped group to come back
  size_t incomplete = 0;  // queue="incomplete": members whose PodGroup is not observed yet
  bool operator==(const PendingCounts&) const = default;
};

// What popEntity() returns: a pod, or a pod group with its queued members (GenericWorkload).
using QueuedEntity = std::variant<framework::QueuedPodInfo, framework::QueuedPodGroupInfo>;

// Also the framework's PodNominator: nominated pods are resolved through the queue as upstream's
// NominatedPodsForNode does (the queued version of the pod, or a bare name/UID pod while it is in flight).
class PriorityQueue final : public framework::PodNominator {
 public:
  // `less` orders activeQ (the QueueSort plugin, identical across profiles); `profiles` is keyed by
  // schedulerName.
  PriorityQueue(framework::runtime::LessFunc less, std::map<std::string, ProfileHooks> profiles,
                QueueOptions options = {});
  ~PriorityQueue();
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  // A new unscheduled pod (signed): to activeQ, or to unschedulablePods as gated when PreEnqueue rejects it.
  void add(api::PodPtr pod);
  // An update of an unscheduled pod (upstream Update): updated in place in activeQ/backoffQ; in
  // unschedulablePods the pod is requeued when the change may make it schedulable; in flight it is
  // recorded; otherwise added. A queued pod is signed again; an in-flight one keeps its signature.
  void update(const api::PodPtr& oldPod, api::PodPtr newPod);
  // The pod was deleted (or bound by someone else): removed from every sub-queue and the nominator.
  void remove(const api::Pod& pod);
  // Moves these pods (if waiting in backoffQ or unschedulablePods) to activeQ at once; a pod in flight
  // gets a ForceActivate event for when it comes back.
  void activate(const std::vector<api::PodPtr>& pods);

  // Blocks until a pod is available or the queue is closed (nullopt). Takes activeQ's head, else (with
  // pop-from-backoffQ) podBackoffQ's head; podErrorBackoffQ is never popped early. The popped pod is in
  // flight until done(); its attempts and the scheduling cycle are incremented. A pod already in flight
  // (same UID) is discarded.
  std::optional<framework::QueuedPodInfo> pop();
  // As pop(), for pods and pod groups together, in the QueueSort plugin's order (a group ranks by its
  // PodGroup's spec.priority and its own timestamp). A popped group's members are all in flight (each
  // needs done() or addUnschedulableIfNotPresent, as a pod), its attempts and theirs are incremented,
  // and it counts as one scheduling cycle. pop() leaves groups to this method.
  std::optional<QueuedEntity> popEntity();
  // The pod's attempt finished (bound, requeued or deleted): forget its in-flight record. Idempotent.
  void done(const std::string& podUid);
  // Puts a pod whose attempt failed back: to unschedulablePods, or to backoffQ/activeQ if an event
  // seen while it was in flight (or a move request, without hints) may make it schedulable. Errors
  // when the pod is already queued.
  Result<void> addUnschedulableIfNotPresent(framework::QueuedPodInfo pInfo, int64_t podSchedulingCycle);
  int64_t schedulingCycle() const;

  // ---- Pod groups (GenericWorkload) ----
  // A member pod (add, update, addUnschedulableIfNotPresent) joins its group's entity wherever that is
  // queued (the entity is then requeued as it was, PreEnqueue running again); when the group was the
  // last entity popped (its cycle runs) it waits in the pending buffer; when its PodGroup is not observed
  // it waits in the incomplete buffer; otherwise it makes a new entity in activeQ. activate() of a member
  // activates the group; remove() takes the member out (an emptied entity is dropped).
  //
  // The PodGroup informer's handlers: an added group takes its members from the incomplete buffer; an
  // updated one replaces the object in its queued entity; a deleted one sends the members of its
  // entity (or of the pending buffer, while its cycle runs) to the incomplete buffer.
  void addPodGroup(framework::PodGroupPtr podGroup);
  void updatePodGroup(framework::PodGroupPtr podGroup);
  void deletePodGroup(const api::PodGroup& podGroup);
  // The popped group's cycle ended with `status` (upstream AddAttemptedPodGroupIfNeeded). The members
  // waiting in the pending buffer (those that joined meanwhile, and those the failure handler requeued
  // through addUnschedulableIfNotPresent) rejoin a new entity of the group with `group`'s queueing
  // parameters; nothing is queued when there are none. Success: to activeQ without backoff, the counts
  // reset, the timestamp kept when some member of this cycle failed (so that it is retried, and preempts,
  // at once); rejected: unschedulableCount+1; error: consecutiveErrorsCount+1; both then to backoffQ while
  // backing off, else activeQ. PreEnqueue may park it in unschedulablePods. Errors when the group is queued.
  Result<void> addAttemptedPodGroupIfNeeded(framework::QueuedPodGroupInfo group, int64_t schedulingCycle,
                                            const framework::Status& status);
  // Members in the pending / incomplete buffers.
  std::vector<api::PodPtr> pendingPodGroupPods() const;
  std::vector<api::PodPtr> incompletePodGroupPods() const;
  // The queued entity of the group "namespace/name".
  std::optional<framework::QueuedPodGroupInfo> getPodGroupForTest(const std::string& groupKey) const;

  // A cluster event: moves the unschedulable pods whose rejecting plugins registered it with a hint
  // that says Queue (preCheck, when set, filters candidates first).
  void moveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObject& oldObj,
                                     const framework::EventObject& newObj,
                                     const std::function<bool(const api::Pod&)>& preCheck = {});
  void assignedPodAdded(const api::PodPtr& pod);
  void assignedPodUpdated(const api::PodPtr& oldPod, const api::PodPtr& newPod, framework::ActionType action);

  // Periodic work (run() calls these; tests call them with a fake clock): backoffQ pods whose backoff
  // expired go to activeQ; pods in unschedulablePods for longer than podMaxInUnschedulablePodsDuration
  // are moved with the UnschedulableTimeout event.
  void flushBackoffQCompleted();
  void flushUnschedulablePodsLeftover();

  // Starts the periodic flushes on the clock (backoff every 1 s, unschedulable leftovers every 30 s).
  void run();
  // Wakes pop() callers (they get nullopt) and stops the flushes, waiting for a running one.
  void close();

  // PodNominator. Nominating asks the pod lister (when set) first: a pod gone or bound is not nominated.
  void addNominatedPod(const framework::PodInfoPtr& pod, const framework::NominatingInfo& info) override;
  void deleteNominatedPodIfExists(const api::Pod& pod) override;
  void updateNominatedPod(const api::Pod& oldPod, const framework::PodInfoPtr& newPodInfo) override;
  std::vector<framework::PodInfoPtr> nominatedPodsForNode(const std::string& nodeName) const override;
  // The informer's current version of a pod (namespace, name), null when absent.
  void setPodLister(Nominator::PodLister lister) { nominator_.setPodLister(std::move(lister)); }
  Nominator& nominator() { return nominator_; }

  PendingCounts pendingCounts() const;
  // Pods popped and not yet done.
  size_t inFlightCount() const;
  // All pending pods and upstream's summary line ("activeQ:N; backoffQ:N; unschedulablePods:N"; with
  // GenericWorkload upstream's extended one, "activeQ:N; backoffQ:N; unschedulableEntities:N;
  // pendingPodGroupMemberPods:N; incompletePodGroupPods:N"), members counted as pods.
  std::vector<api::PodPtr> pendingPods(std::string* summary = nullptr) const;
  // Where the pod (namespace/name) is.
  QueueName whereIs(const std::string& podKey) const;
  std::optional<framework::QueuedPodInfo> getForTest(const std::string& podKey) const;
  // The options the queue was built with (immutable).
  const QueueOptions& optionsForTest() const { return options_; }

  static std::string podKey(const api::Pod& pod) { return pod.metadata.namespace_ + "/" + pod.metadata.name; }

 private:
  enum class Strategy { Skip, AfterBackoff, Immediately };
  struct InFlightEvent {
    framework::ClusterEvent event;
    framework::EventObject oldObj;
    framework::EventObject newObj;
    // With metrics: the event's label and its scheduler_inflight_events series.
    std::string label;
    metrics::GaugeRef gauge;
  };
  // The in-flight list holds pod markers (podUid set) and events, in arrival order.
  struct InFlightEntry {
    std::string podUid;
    std::string podKey;
    std::optional<InFlightEvent> event;
  };
  struct HintEntry {
    std::string pluginName;
    framework::ClusterEvent event;
    framework::QueueingHintFn fn;
    metrics::PluginId pluginId;  // with metrics
  };
  struct Profile {
    ProfileHooks hooks;
    std::vector<HintEntry> hints;
    // With metrics: the profile handle and its scheduler_unschedulable_pods series by plugin (added on
    // first use, under mu_).
    metrics::ProfileId metricsProfile;
    std::map<std::string, metrics::GaugeRef, std::less<>> unschedulableGauges;
  };
  // The scheduler_queue_incoming_pods_total series of one event label, resolved per queue on first use
  // (under mu_), so series appear when first recorded as with upstream's CounterVec. Inert without metrics.
  class IncomingEvent {
   public:
    IncomingEvent(metrics::Metrics* m, std::string label) : metrics_(m), label_(std::move(label)) {}
    void inc(metrics::Queue queue);
    // A pod group of `size` members: scheduler_queue_incoming_pods_total += size, and
    // scheduler_queue_incoming_entities_total{type="podgroup"} += 1.
    void incGroup(metrics::Queue queue, size_t size);
    const std::string& label() const { return label_; }

   private:
    metrics::Metrics* metrics_;
    std::string label_;
    std::array<metrics::CounterRef, metrics::kQueueCount> refs_;
    std::array<metrics::CounterRef, metrics::kQueueCount> entityRefs_;
    std::array<metrics::CounterRef, metrics::kQueueCount> groupEntityRefs_;
  };

  framework::QueuedPodInfo newQueuedPodInfo(api::PodPtr pod);
  // The pod's signature from its profile's signer (upstream signPod); null with batching off, without a
  // signer, or for a pod of no profile.
  framework::PodSignature signPod(const api::Pod& pod) const;
  // When a pod enters (or re-enters) the queue: the clock's time, but strictly after the previous arrival,
  // as Go's monotonic time.Now() is in practice. Pods that arrive together so keep their arrival order in
  // PrioritySort's timestamp tie-break, also under a manual clock that does not move (simulate).
  framework::TimePoint arrivalTimeLocked();
  bool runPreEnqueue(framework::QueuedPodInfo& pInfo) const;
  bool moveToActiveQ(framework::QueuedPodInfo pInfo, IncomingEvent& event);
  bool moveToBackoffQ(framework::QueuedPodInfo pInfo, IncomingEvent& event);
  // Puts the pod in unschedulablePods (counted as incoming only when it wasn't there).
  void addToUnschedulablePods(framework::QueuedPodInfo pInfo, IncomingEvent& event);
  // To unschedulablePods (Skip), backoffQ (AfterBackoff, while backing off) or activeQ; a pod or a group.
  template <typename Entity>
  QueueName requeue(Entity entity, Strategy strategy, IncomingEvent& event);
  bool isBackingOff(const framework::QueuedPodInfo& pInfo) const { return backoffQ_.isPodBackingOff(pInfo); }
  bool isBackingOff(const framework::QueuedPodGroupInfo& group) const {
    return groupBackoffQ_.isPodBackingOff(group);
  }
  // scheduler_unschedulable_pods of the pod's rejecting plugins (unschedulable + pending) += delta.
  void recordUnschedulableReasons(const framework::QueuedPodInfo& pInfo, double delta);
  // Requeues the pods and groups the event may make schedulable, then records it for in-flight pods.
  void movePodsLocked(std::vector<framework::QueuedPodInfo> pods, std::vector<framework::QueuedPodGroupInfo> groups,
                      const framework::ClusterEvent& event, const framework::EventObject& oldObj,
                      const framework::EventObject& newObj);
  // `label` is the event's label for the queueing hint metric (empty without metrics).
  Strategy isPodWorthRequeuing(const framework::QueuedPodInfo& pInfo, const framework::ClusterEvent& event,
                               const framework::EventObject& oldObj, const framework::EventObject& newObj,
                               std::string_view label) const;
  Strategy hintForInFlightPod(const framework::QueuedPodInfo& pInfo) const;
  bool isEventOfInterest(const framework::ClusterEvent& event) const;
  bool addEventIfAnyInFlight(const framework::ClusterEvent& event, const framework::EventObject& oldObj,
                             const framework::EventObject& newObj);
  void doneLocked(const std::string& podUid);
  // ---- Pod groups ----
  using Group = framework::QueuedPodGroupInfo;
  bool isPodGroupMember(const api::Pod& pod) const {
    return options_.genericWorkload && framework::isPodGroupMember(pod);
  }
  // The QueueSort plugin's view of a group: a pod named as the group, of its priority, with its timestamp.
  framework::QueuedPodInfo sortKeyOf(const Group& group) const;
  bool lessGroup(const Group& a, const Group& b) const { return less_(sortKeyOf(a), sortKeyOf(b)); }
  // PreEnqueue for every member; the group is gated by the (last) gating plugin of a gated member.
  bool runPreEnqueueGroup(Group& group) const;
  bool moveToActiveQ(Group group, IncomingEvent& event, bool fromBackoffQ = false);
  bool moveToBackoffQ(Group group, IncomingEvent& event);
  void addToUnschedulablePods(Group group, IncomingEvent& event);
  // The group's entity, taken out of activeQ, backoffQ or unschedulablePods, with the strategy that
  // puts it back where it was (Immediately, AfterBackoff, Skip).
  std::optional<std::pair<Group, Strategy>> takeGroupLocked(const std::string& key);
  const Group* findGroupLocked(const std::string& key) const;
  // The queued entity of the group (if any) takes this version of the object.
  void setPodGroupObjectLocked(const framework::PodGroupPtr& podGroup);
  void addPodGroupMemberLocked(framework::QueuedPodInfo pInfo);
  void deletePodGroupMemberLocked(const api::Pod& pod);
  void updatePodGroupMemberLocked(const api::PodPtr& oldPod, const api::PodPtr& newPod,
                                  const std::vector<framework::ClusterEvent>& events);
  // The max of the members' strategies (upstream isEntityWorthRequeuing).
  Strategy isGroupWorthRequeuing(const Group& group, const framework::ClusterEvent& event,
                                 const framework::EventObject& oldObj, const framework::EventObject& newObj,
                                 std::string_view label) const;
  void moveGroupsLocked(std::vector<Group> groups, const framework::ClusterEvent& event,
                        const framework::EventObject& oldObj, const framework::EventObject& newObj, bool& activated);
  // The queued member (namespace/name) of a group and where it is; {None, null} when nowhere.
  std::pair<QueueName, const framework::QueuedPodInfo*> locateMemberLocked(const std::string& podKey) const;
  // The queued member by its group (the pod's schedulingGroup); null when not queued.
  const framework::QueuedPodInfo* findMemberLocked(const api::Pod& pod) const;
  // Takes activeQ's (or podBackoffQ's) head pod in flight; nullopt when it was discarded.
  std::optional<framework::QueuedPodInfo> popPodLocked();
  // Takes the popped group in flight; false when all its members were discarded.
  bool popGroupLocked(Group& group);

  struct Flushes;
  // Arms the next flush, which re-arms itself until close(). Requires flushes_->mu held.
  void armFlushLocked();

  Clock& clock_;
  const QueueOptions options_;
  metrics::Metrics* const metrics_;
  framework::runtime::LessFunc less_;
  std::map<std::string, Profile> profiles_;

  mutable std::mutex mu_;
  std::condition_variable cond_;
  framework::TimePoint lastArrival_{};
  heap::Heap<framework::QueuedPodInfo> activeQ_;
  BackoffQueue backoffQ_;
  std::unordered_map<std::string, framework::QueuedPodInfo> unschedulablePods_;
  std::list<InFlightEntry> inFlight_;
  std::unordered_map<std::string, std::list<InFlightEntry>::iterator> inFlightPods_;  // by UID
  int64_t schedulingCycle_ = 0;
  int64_t moveRequestCycle_ = -1;
  bool closed_ = false;

  // Pod groups (empty without GenericWorkload). A group's entity is in at most one of activeGroups_,
  // groupBackoffQ_ and unschedulableGroups_ (keyed by "namespace/name"); none while popped.
  heap::Heap<Group> activeGroups_;
  PodGroupBackoffQueue groupBackoffQ_;
  std::unordered_map<std::string, Group> unschedulableGroups_;
  WorkloadForest forest_;
  PodGroupMemberPods pendingMembers_;
  PodGroupMemberPods incompleteMembers_;
  // The key of the group popped last (upstream lastPoppedEntityKey); cleared when a pod is popped or a
  // group comes back.
  std::string lastPoppedGroup_;
  // The sort pods of the groups' objects (sortKeyOf), by group key; rebuilt when the object changes.
  mutable std::unordered_map<std::string, std::pair<framework::PodGroupPtr, framework::PodInfoPtr>> sortPods_;

  // Incoming-pods series of the fixed event labels, and the in-flight pods gauge (guarded by mu_).
  IncomingEvent podAdd_;
  IncomingEvent podUpdate_;
  IncomingEvent scheduleAttemptFailure_;
  IncomingEvent backoffComplete_;
  IncomingEvent forceActivate_;
  IncomingEvent popFromBackoffQ_;
  metrics::GaugeRef podPoppedInFlight_;

  Nominator nominator_;

  // Shared with the flush timer's callback, which may run after the queue is gone.
  const std::shared_ptr<Flushes> flushes_;
};

// The events an update of a pod represents (upstream PodSchedulingPropertiesChange): label, scale
// down, scale up, scheduling-gate and toleration changes, with the DynamicResourceAllocation gate changes
// of the claims generated for it (status.resourceClaimStatuses, status.extendedResourceClaimStatus), or
// UpdatePodOther when none of those changed. The resource is AssignedPod for a scheduled pod, else
// TargetPod when the update is of the pod being requeued (`isTargetPod`), else UnscheduledPod.
std::vector<framework::ClusterEvent> podSchedulingPropertiesChange(const api::Pod& newPod,
                                                                   const api::Pod& oldPod, bool isTargetPod,
                                                                   bool dynamicResourceAllocation = true);

// False when only the status (but for the generated claims in it), resourceVersion, generation or
// finalizers changed (upstream isPodUpdated).
bool isPodUpdated(const api::Pod& oldPod, const api::Pod& newPod);

}  // namespace ks::queue
