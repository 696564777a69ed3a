// Informer events -> cache and queue (upstream eventhandlers.go). Handlers run on the informers'
// dispatch threads; they only translate events into cache/queue calls and never run plugins (queueing
// hints aside, which the queue runs under its lock).
//
// Each handler records scheduler_event_handling_duration_seconds{event} with upstream's labels:
// "UnscheduledPodAdd/Update/Delete", "AssignedPodAdd/Update/Delete", "NodeAdd", "NodeDelete", the
// per-change labels of node and pod updates ("NodeUpdateNodeLabel", "AssignedPodUpdatePodLabel",
// "UnscheduledPodUpdatePodLabel", ...; for assigned pods and nodes, updating the cache plus moving pods
// for that event), and "<Resource>Add/Update/Delete" of the other resources ("PersistentVolumeAdd",
// "storage.k8s.io/CSINodeUpdate", ...).

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>

#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/scheduler.h"

namespace ks::scheduler {

using framework::ClusterEvent;
using framework::EventObject;
using framework::EventResource;
using framework::runtime::Framework;
namespace action = framework::action;

namespace {

template <typename T>
std::shared_ptr<const T> objectOf(const informer::DeletedObject<T>& d) {
  return d.object;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// scheduler_event_handling_duration_seconds{event} of one fixed label, resolved on first use (handlers run
// on several informer threads; a racing double lookup returns the same series).
class EventHandlingSeries {
 public:
  EventHandlingSeries(metrics::Metrics& m, std::string label) : metrics_(m), label_(std::move(label)) {}
  metrics::HistogramRef get() {
    metrics::HistogramRef r = ref_.load(std::memory_order_acquire);
    if (!r) {
      r = metrics_.eventHandlingRef(label_);
      ref_.store(r, std::memory_order_release);
    }
    return r;
  }

 private:
  metrics::Metrics& metrics_;
  const std::string label_;
  std::atomic<metrics::HistogramRef> ref_{};
};

// Observes the time from construction to destruction (upstream's deferred Observe); inert for null.
class EventHandlingTimer {
 public:
  explicit EventHandlingTimer(EventHandlingSeries* series)
      : series_(series),
        start_(series ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}) {}
  ~EventHandlingTimer() {
    if (series_ != nullptr) series_->get().observe(secondsSince(start_));
  }
  EventHandlingTimer(const EventHandlingTimer&) = delete;
  EventHandlingTimer& operator=(const EventHandlingTimer&) = delete;

 private:
  EventHandlingSeries* series_;
  std::chrono::steady_clock::time_point start_;
};

// The fixed-label series of the pod and node handlers.
struct HandlerSeries {
  explicit HandlerSeries(metrics::Metrics& m)
      : unscheduledPodAdd(m, framework::kEventUnscheduledPodAdd.label()),
        unscheduledPodUpdate(m, framework::kEventUnscheduledPodUpdate.label()),
        unscheduledPodDelete(m, framework::kEventUnscheduledPodDelete.label()),
        assignedPodAdd(m, framework::kEventAssignedPodAdd.label()),
        assignedPodUpdate(m, framework::kEventAssignedPodUpdate.label()),
        assignedPodDelete(m, framework::kEventAssignedPodDelete.label()),
        nodeAdd(m, "NodeAdd"),
        nodeDelete(m, "NodeDelete") {}
  EventHandlingSeries unscheduledPodAdd, unscheduledPodUpdate, unscheduledPodDelete;
  EventHandlingSeries assignedPodAdd, assignedPodUpdate, assignedPodDelete;
  EventHandlingSeries nodeAdd, nodeDelete;
};

// Conditions compared by type and status only: heartbeats and transition times change constantly.
bool conditionsChanged(const api::Node& a, const api::Node& b) {
  std::map<std::string, std::string> ca;
  std::map<std::string, std::string> cb;
  for (const auto& c : a.status.conditions) ca[c.type] = c.status;
  for (const auto& c : b.status.conditions) cb[c.type] = c.status;
  return ca != cb;
}

}  // namespace

std::vector<ClusterEvent> nodeSchedulingPropertiesChange(const api::Node& newNode, const api::Node& oldNode) {
  std::vector<ClusterEvent> events;
  auto add = [&](framework::ActionType a) { events.push_back(ClusterEvent{EventResource::Node, a}); };
  // Becoming schedulable acts like removing the unschedulable taint.
  if (newNode.spec.unschedulable != oldNode.spec.unschedulable && !newNode.spec.unschedulable) {
    add(action::UpdateNodeTaint);
  }
  if (newNode.status.allocatable != oldNode.status.allocatable) add(action::UpdateNodeAllocatable);
  if (newNode.metadata.labels != oldNode.metadata.labels) add(action::UpdateNodeLabel);
  if (newNode.spec.taints != oldNode.spec.taints) add(action::UpdateNodeTaint);
  if (conditionsChanged(newNode, oldNode)) add(action::UpdateNodeCondition);
  if (newNode.metadata.annotations != oldNode.metadata.annotations) add(action::UpdateNodeAnnotation);
  // Kept sorted by the kubelet, so comparing in order is enough (upstream extractNodeFeaturesChange, behind
  // the NodeDeclaredFeatures gate, GA and locked on in v1.37).
  if (newNode.status.declaredFeatures != oldNode.status.declaredFeatures)
    add(action::UpdateNodeDeclaredFeature);
  return events;
}

bool Scheduler::isUnassignedForUs(const api::Pod& pod) const {
  if (!pod.spec.nodeName.empty()) return false;
  return servesSchedulerName(api::schedulerNameOf(pod));
}

// ---- Pending pods -> queue ----

void Scheduler::onPodAdd(const api::PodPtr& pod) {
  const bool member = options_.genericWorkload && framework::isPodGroupMember(*pod);
  if (member) cache_->addPodGroupMember(pod);
  queue_->add(pod);
  // A new member may complete its group's quorum (GangScheduling's hint for this event).
  if (member) queue_->moveAllToActiveOrBackoffQueue(framework::kEventUnscheduledPodAdd, {}, EventObject(pod));
}

namespace {

// A nominated pod holds capacity on its node for pods of lower or equal priority; when it lets go of it,
// those pods may fit (upstream's preCheck for these moves).
std::function<bool(const api::Pod&)> lowerOrEqualPriorityThan(const api::Pod& pod) {
  const int32_t priority = framework::podPriority(pod);
  return [priority](const api::Pod& p) { return framework::podPriority(p) <= priority; };
}

}  // namespace

void Scheduler::onPodUpdate(const api::PodPtr& oldPod, const api::PodPtr& newPod) {
  // Resync (same version) carries nothing new.
  if (oldPod->metadata.resourceVersion == newPod->metadata.resourceVersion) return;
  if (options_.genericWorkload && (framework::isPodGroupMember(*oldPod) || framework::isPodGroupMember(*newPod))) {
    cache_->updatePodGroupMember(*oldPod, newPod);
  }
  // An update of a pod we assumed (e.g. our own status patch racing the binding) must not requeue it;
  // one whose graceful deletion just started frees what it holds.
  if (auto assumed = cache_->isAssumedPod(*newPod); assumed.ok() && *assumed) {
    if (newPod->metadata.deletionTimestamp.has_value() && !oldPod->metadata.deletionTimestamp.has_value()) {
      handleAssumedPodDeletion(*newPod);
    }
    return;
  }
  queue_->update(oldPod, newPod);
  // A changed or cleared nomination frees the old node's reserved capacity, like a delete of an assigned
  // pod there.
  if (!oldPod->status.nominatedNodeName.empty() &&
      oldPod->status.nominatedNodeName != newPod->status.nominatedNodeName) {
    queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, EventObject(oldPod), {},
                                          lowerOrEqualPriorityThan(*oldPod));
  }
}

void Scheduler::handleAssumedPodDeletion(const api::Pod& pod) {
  // The cache's object carries the node and the resources the pod holds; the event's does not.
  auto assumed = cache_->getPod(pod);
  if (!assumed.ok()) return;  // its binding cycle ended and forgot it meanwhile
  const api::PodPtr assumedPod = *assumed;
  Framework* fw = frameworkForPod(*assumedPod);
  if (fw == nullptr) return;
  // Waiting at Permit: rejecting it ends its binding cycle, which forgets it. Further on (PreBind, Bind)
  // it can't be stopped at once, so its resources are released here.
  if (!fw->rejectWaitingPod(assumedPod->metadata.uid)) {
    if (auto r = cache_->removeAssumedPod(*assumedPod); !r.ok()) {
      spdlog::error("Scheduler cache RemoveAssumedPod failed pod={}/{}: {}", assumedPod->metadata.namespace_,
                    assumedPod->metadata.name, r.error().message());
    }
  }
  queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, EventObject(assumedPod), {});
}

void Scheduler::onPodDelete(const api::PodPtr& pod) {
  queue_->remove(*pod);
  if (frameworkForPod(*pod) == nullptr) return;
  if (auto assumed = cache_->isAssumedPod(*pod); assumed.ok() && *assumed) {
    handleAssumedPodDeletion(*pod);
    return;
  }
  // Deleted while pending: its group no longer counts it. (A pod that leaves this handler's filter because it
  // was bound is in the cache by now, which counts it as assigned.)
  if (options_.genericWorkload && framework::isPodGroupMember(*pod) && !cache_->getPod(*pod).ok()) {
    cache_->removePodGroupMember(*pod);
  }
  if (!pod->status.nominatedNodeName.empty()) {
    // A deleted nominated pod frees the capacity it reserved for pods of lower or equal priority.
    queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, EventObject(pod), {},
                                          lowerOrEqualPriorityThan(*pod));
  }
}

// ---- PodGroups -> cache and queue (GenericWorkload) ----

void Scheduler::onPodGroupAdd(const framework::PodGroupPtr& group) {
  cache_->addPodGroup(group);
  queue_->addPodGroup(group);
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::PodGroup, action::Add}, {}, EventObject(group));
}

void Scheduler::onPodGroupUpdate(const framework::PodGroupPtr& oldGroup, const framework::PodGroupPtr& newGroup) {
  if (oldGroup->metadata.resourceVersion == newGroup->metadata.resourceVersion) return;
  cache_->updatePodGroup(*oldGroup, newGroup);
  queue_->updatePodGroup(newGroup);
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::PodGroup, action::Update},
                                        EventObject(oldGroup), EventObject(newGroup));
}

void Scheduler::onPodGroupDelete(const framework::PodGroupPtr& group) {
  cache_->removePodGroup(*group);
  queue_->deletePodGroup(*group);
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::PodGroup, action::Delete}, EventObject(group),
                                        {});
}

// ---- Assigned pods -> cache ----

void Scheduler::onAssignedPodAdd(const api::PodPtr& pod) {
  if (auto r = cache_->addPod(pod); !r.ok()) {
    spdlog::error("Scheduler cache AddPod failed pod={}/{}: {}", pod->metadata.namespace_, pod->metadata.name,
                  r.error().message());
  }
  // The pod may have been bound by someone else while pending here.
  queue_->remove(*pod);
  queue_->assignedPodAdded(pod);
}

void Scheduler::onAssignedPodUpdate(const api::PodPtr& oldPod, const api::PodPtr& newPod) {
  const auto start = std::chrono::steady_clock::now();
  if (auto r = cache_->updatePod(*oldPod, newPod); !r.ok()) {
    spdlog::error("Scheduler cache UpdatePod failed pod={}/{}: {}", newPod->metadata.namespace_,
                  newPod->metadata.name, r.error().message());
  }
  const auto events = queue::podSchedulingPropertiesChange(*newPod, *oldPod, /*isTargetPod=*/false,
                                                           options_.dynamicResourceAllocation);
  const double updating = options_.metrics ? secondsSince(start) : 0;
  for (const auto& e : events) {
    const auto moveStart = std::chrono::steady_clock::now();
    queue_->assignedPodUpdated(oldPod, newPod, e.actionType);
    if (options_.metrics)
      options_.metrics->observeEventHandling(e.label(), updating + secondsSince(moveStart));
  }
}

void Scheduler::onAssignedPodDelete(const api::PodPtr& pod) {
  if (auto r = cache_->removePod(*pod); !r.ok()) {
    spdlog::error("Scheduler cache RemovePod failed pod={}/{}: {}", pod->metadata.namespace_,
                  pod->metadata.name, r.error().message());
  }
  queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, EventObject(pod), {});
}

// ---- Nodes -> cache ----

void Scheduler::onNodeAdd(const api::NodePtr& node) {
  cache_->addNode(node);
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::Node, action::Add}, {},
                                        EventObject(node));
}

void Scheduler::onNodeUpdate(const api::NodePtr& oldNode, const api::NodePtr& newNode) {
  const auto start = std::chrono::steady_clock::now();
  cache_->updateNode(*oldNode, newNode);
  const auto events = nodeSchedulingPropertiesChange(*newNode, *oldNode);
  const double updating = options_.metrics ? secondsSince(start) : 0;
  // Only the changes that may make pods schedulable move them (and are recorded, per change).
  for (const auto& e : events) {
    const auto moveStart = std::chrono::steady_clock::now();
    queue_->moveAllToActiveOrBackoffQueue(e, EventObject(oldNode), EventObject(newNode));
    if (options_.metrics)
      options_.metrics->observeEventHandling(e.label(), updating + secondsSince(moveStart));
  }
}

void Scheduler::onNodeDelete(const api::NodePtr& node) {
  if (auto r = cache_->removeNode(*node); !r.ok()) {
    spdlog::error("Scheduler cache RemoveNode failed node={}: {}", node->metadata.name, r.error().message());
  }
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::Node, action::Delete}, EventObject(node),
                                        {});
}

namespace {

// Add/update/delete of another resource become the cluster events plugins registered for.
// `source` is an informer or an assume cache.
template <typename T, template <typename> class Source>
void addClusterEventHandlers(Source<T>& source, EventResource resource,
                             queue::PriorityQueue& q, metrics::Metrics* m) {
  struct Series {
    Series(metrics::Metrics& mm, EventResource r)
        : add(mm, ClusterEvent{r, action::Add}.label()),
          update(mm, ClusterEvent{r, action::Update}.label()),
          del(mm, ClusterEvent{r, action::Delete}.label()) {}
    EventHandlingSeries add, update, del;
  };
  std::shared_ptr<Series> series = m ? std::make_shared<Series>(*m, resource) : nullptr;
  informer::EventHandlerFuncs<T> h;
  h.onAdd = [&q, resource, series](const std::shared_ptr<const T>& obj, bool) {
    EventHandlingTimer timer(series ? &series->add : nullptr);
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Add}, {}, EventObject(obj));
  };
  h.onUpdate = [&q, resource, series](const std::shared_ptr<const T>& oldObj,
                                      const std::shared_ptr<const T>& newObj) {
    if (oldObj->metadata.resourceVersion == newObj->metadata.resourceVersion) return;
    EventHandlingTimer timer(series ? &series->update : nullptr);
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Update}, EventObject(oldObj),
                                    EventObject(newObj));
  };
  h.onDelete = [&q, resource, series](const informer::DeletedObject<T>& d) {
    EventHandlingTimer timer(series ? &series->del : nullptr);
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Delete}, EventObject(d.object), {});
  };
  source.addEventHandler(std::move(h));
}

// A DeviceTaintRule change as the ResourceSlice update event upstream's slice tracker derives from it. The
// event carries no objects (upstream's carries the patched slices); no plugin has a hint for slice events.
void addDeviceTaintRuleHandlers(informer::SharedInformer<api::DeviceTaintRule>& rules,
                                queue::PriorityQueue& q, metrics::Metrics* m) {
  const ClusterEvent event{EventResource::ResourceSlice, action::Update};
  std::shared_ptr<EventHandlingSeries> series =
      m ? std::make_shared<EventHandlingSeries>(*m, event.label()) : nullptr;
  auto moved = [&q, event, series] {
    EventHandlingTimer timer(series.get());
    q.moveAllToActiveOrBackoffQueue(event, {}, {});
  };
  informer::EventHandlerFuncs<api::DeviceTaintRule> h;
  h.onAdd = [moved](const std::shared_ptr<const api::DeviceTaintRule>&, bool) { moved(); };
  h.onUpdate = [moved](const std::shared_ptr<const api::DeviceTaintRule>& oldObj,
                       const std::shared_ptr<const api::DeviceTaintRule>& newObj) {
    if (oldObj->spec != newObj->spec) moved();  // only the taint and its selector change slices
  };
  h.onDelete = [moved](const informer::DeletedObject<api::DeviceTaintRule>&) { moved(); };
  rules.addEventHandler(std::move(h));
}

}  // namespace

void Scheduler::addEventHandlers(informer::SharedInformerFactory& factory) {
  auto& pods = factory.pods();
  podStore_ = &pods.store();
  queue_->setPodLister([store = podStore_](const std::string& ns, const std::string& name) {
    return store->get(ns + "/" + name);
  });
  metrics::Metrics* m = options_.metrics;
  // Null without metrics: the timers are then inert.
  std::shared_ptr<HandlerSeries> hs = m ? std::make_shared<HandlerSeries>(*m) : nullptr;
  auto series = [hs](EventHandlingSeries HandlerSeries::*member) { return hs ? &(*hs.*member) : nullptr; };

  informer::EventHandlerFuncs<api::Pod> assigned;
  assigned.filter = [](const api::Pod& p) { return !p.spec.nodeName.empty(); };
  // The last known state of a pod deleted while the watch was down may be stale (e.g. not yet bound when
  // we assumed it): clean up anyway; removing an unknown pod is harmless.
  assigned.filterFinalStateUnknown = [](const api::Pod&) { return true; };
  assigned.onAdd = [this, s = series(&HandlerSeries::assignedPodAdd), hs](const api::PodPtr& p, bool) {
    EventHandlingTimer timer(s);
    onAssignedPodAdd(p);
  };
  assigned.onUpdate = [this, s = series(&HandlerSeries::assignedPodUpdate), hs](const api::PodPtr& o,
                                                                                const api::PodPtr& n) {
    EventHandlingTimer timer(s);
    onAssignedPodUpdate(o, n);
  };
  assigned.onDelete = [this, s = series(&HandlerSeries::assignedPodDelete),
                       hs](const informer::DeletedObject<api::Pod>& d) {
    EventHandlingTimer timer(s);
    onAssignedPodDelete(objectOf(d));
  };
  pods.addEventHandler(std::move(assigned));

  informer::EventHandlerFuncs<api::Pod> pending;
  pending.filter = [this](const api::Pod& p) {
    return p.status.phase != "Succeeded" && p.status.phase != "Failed" && isUnassignedForUs(p);
  };
  // A stale last known state: only whether the pod is ours counts (upstream responsibleForPod).
  pending.filterFinalStateUnknown = [this](const api::Pod& p) {
    return servesSchedulerName(api::schedulerNameOf(p));
  };
  pending.onAdd = [this, s = series(&HandlerSeries::unscheduledPodAdd), hs](const api::PodPtr& p, bool) {
    EventHandlingTimer timer(s);
    onPodAdd(p);
  };
  pending.onUpdate = [this, s = series(&HandlerSeries::unscheduledPodUpdate), hs](const api::PodPtr& o,
                                                                                  const api::PodPtr& n) {
    // A resync (same version) is dropped before anything is recorded, as upstream.
    if (o->metadata.resourceVersion == n->metadata.resourceVersion) return;
    EventHandlingTimer timer(s);
    const auto start = std::chrono::steady_clock::now();
    onPodUpdate(o, n);
    if (s == nullptr) return;
    // Upstream also records the update under each specific change's label. The pod is not the target pod
    // here (the queue's update raises those events), so these are UnscheduledPod events.
    const double seconds = secondsSince(start);
    for (const auto& e : queue::podSchedulingPropertiesChange(*n, *o, /*isTargetPod=*/false,
                                                              options_.dynamicResourceAllocation)) {
      const std::string label = e.label();
      if (label != framework::kEventUnscheduledPodUpdate.label()) {
        options_.metrics->observeEventHandling(label, seconds);
      }
    }
  };
  pending.onDelete = [this, s = series(&HandlerSeries::unscheduledPodDelete),
                      hs](const informer::DeletedObject<api::Pod>& d) {
    EventHandlingTimer timer(s);
    onPodDelete(objectOf(d));
  };
  pods.addEventHandler(std::move(pending));

  informer::EventHandlerFuncs<api::Node> nodes;
  nodes.onAdd = [this, s = series(&HandlerSeries::nodeAdd), hs](const api::NodePtr& n, bool) {
    EventHandlingTimer timer(s);
    onNodeAdd(n);
  };
  nodes.onUpdate = [this](const api::NodePtr& o, const api::NodePtr& n) { onNodeUpdate(o, n); };
  nodes.onDelete = [this, s = series(&HandlerSeries::nodeDelete),
                    hs](const informer::DeletedObject<api::Node>& d) {
    EventHandlingTimer timer(s);
    onNodeDelete(objectOf(d));
  };
  factory.nodes().addEventHandler(std::move(nodes));

  if (options_.genericWorkload) {
    const auto timed = [m](EventResource r, framework::ActionType a) {
      return m ? std::make_shared<EventHandlingSeries>(*m, ClusterEvent{r, a}.label()) : nullptr;
    };
    informer::EventHandlerFuncs<api::PodGroup> groups;
    groups.onAdd = [this, s = timed(EventResource::PodGroup, action::Add)](const framework::PodGroupPtr& g, bool) {
      EventHandlingTimer timer(s.get());
      onPodGroupAdd(g);
    };
    groups.onUpdate = [this, s = timed(EventResource::PodGroup, action::Update)](const framework::PodGroupPtr& o,
                                                                                const framework::PodGroupPtr& n) {
      EventHandlingTimer timer(s.get());
      onPodGroupUpdate(o, n);
    };
    groups.onDelete = [this, s = timed(EventResource::PodGroup, action::Delete)](
                          const informer::DeletedObject<api::PodGroup>& d) {
      EventHandlingTimer timer(s.get());
      onPodGroupDelete(objectOf(d));
    };
    factory.podGroups().addEventHandler(std::move(groups));
  }

  auto wants = [&](EventResource r) {
    return interestingResources_.count(r) != 0 || interestingResources_.count(EventResource::WildCard) != 0;
  };
  if (wants(EventResource::PersistentVolume)) {
    addClusterEventHandlers(factory.persistentVolumes(), EventResource::PersistentVolume, *queue_, m);
  }
  if (wants(EventResource::PersistentVolumeClaim)) {
    addClusterEventHandlers(factory.persistentVolumeClaims(), EventResource::PersistentVolumeClaim, *queue_,
                            m);
  }
  if (wants(EventResource::StorageClass)) {
    addClusterEventHandlers(factory.storageClasses(), EventResource::StorageClass, *queue_, m);
  }
  if (wants(EventResource::CSINode))
    addClusterEventHandlers(factory.csiNodes(), EventResource::CSINode, *queue_, m);
  if (wants(EventResource::CSIDriver))
    addClusterEventHandlers(factory.csiDrivers(), EventResource::CSIDriver, *queue_, m);
  if (wants(EventResource::CSIStorageCapacity)) {
    addClusterEventHandlers(factory.csiStorageCapacities(), EventResource::CSIStorageCapacity, *queue_, m);
  }
  if (wants(EventResource::VolumeAttachment)) {
    addClusterEventHandlers(factory.volumeAttachments(), EventResource::VolumeAttachment, *queue_, m);
  }
  // As upstream, claim events come from the DRA manager's assume cache over the claim informer, so that the
  // scheduler's own assumed allocations (and their restores) count as updates too. Slice events come from
  // the informer, and with DRADeviceTaintRules a DeviceTaintRule's add, update or delete is a slice update
  // (upstream's slice tracker sends one for each slice whose devices' taints it changes).
  if (options_.dynamicResourceAllocation) {
    if (wants(EventResource::ResourceClaim)) {
      if (draManager_) {
        addClusterEventHandlers(draManager_->claimsCache(), EventResource::ResourceClaim, *queue_, m);
      } else {
        addClusterEventHandlers(factory.resourceClaims(), EventResource::ResourceClaim, *queue_, m);
      }
    }
    if (wants(EventResource::ResourceSlice)) {
      addClusterEventHandlers(factory.resourceSlices(), EventResource::ResourceSlice, *queue_, m);
      if (options_.draDeviceTaintRules) addDeviceTaintRuleHandlers(factory.deviceTaintRules(), *queue_, m);
    }
    if (wants(EventResource::DeviceClass)) {
      addClusterEventHandlers(factory.deviceClasses(), EventResource::DeviceClass, *queue_, m);
    }
  }
}

}  // namespace ks::scheduler
