// Informer events -> cache and queue (upstream eventhandlers.go). Handlers run on the informers'
// dispatch threads; they only translate events into cache/queue calls and never run plugins (queueing
// hints aside, which the queue runs under its lock).

#include <spdlog/spdlog.h>

#include "pkg/informer/factory.h"
#include "pkg/scheduler/scheduler.h"

namespace ks::scheduler {

using framework::ClusterEvent;
using framework::EventObject;
using framework::EventResource;
namespace action = framework::action;

namespace {

template <typename T>
std::shared_ptr<const T> objectOf(const informer::DeletedObject<T>& d) {
  return d.object;
}

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
  return events;
}

bool Scheduler::isUnassignedForUs(const api::Pod& pod) const {
  if (!pod.spec.nodeName.empty()) return false;
  const std::string& name = pod.spec.schedulerName.empty() ? std::string("default-scheduler") : pod.spec.schedulerName;
  return servesSchedulerName(name);
}

// ---- Pending pods -> queue ----

void Scheduler::onPodAdd(const api::PodPtr& pod) { queue_->add(pod); }

void Scheduler::onPodUpdate(const api::PodPtr& oldPod, const api::PodPtr& newPod) {
  // Resync (same version) carries nothing new.
  if (oldPod->metadata.resourceVersion == newPod->metadata.resourceVersion) return;
  // An update of a pod we assumed (e.g. our own status patch racing the binding) must not requeue it.
  if (auto assumed = cache_->isAssumedPod(*newPod); assumed.ok() && *assumed) return;
  queue_->update(oldPod, newPod);
}

void Scheduler::onPodDelete(const api::PodPtr& pod) {
  queue_->remove(*pod);
  // A pod waiting on Permit is rejected; the resources it held as assumed are freed.
  for (auto& [name, fw] : profiles_) {
    if (fw->rejectWaitingPod(pod->metadata.uid)) {
      queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::AssignedPod, action::Delete},
                                            EventObject(pod), {});
      break;
    }
  }
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
  if (auto r = cache_->updatePod(*oldPod, newPod); !r.ok()) {
    spdlog::error("Scheduler cache UpdatePod failed pod={}/{}: {}", newPod->metadata.namespace_,
                  newPod->metadata.name, r.error().message());
  }
  for (const auto& e : queue::podSchedulingPropertiesChange(*newPod, *oldPod)) {
    queue_->assignedPodUpdated(oldPod, newPod, e.actionType);
  }
}

void Scheduler::onAssignedPodDelete(const api::PodPtr& pod) {
  if (auto r = cache_->removePod(*pod); !r.ok()) {
    spdlog::error("Scheduler cache RemovePod failed pod={}/{}: {}", pod->metadata.namespace_, pod->metadata.name,
                  r.error().message());
  }
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::AssignedPod, action::Delete}, EventObject(pod),
                                        {});
}

// ---- Nodes -> cache ----

void Scheduler::onNodeAdd(const api::NodePtr& node) {
  cache_->addNode(node);
  queue_->moveAllToActiveOrBackoffQueue(ClusterEvent{EventResource::Node, action::Add}, {}, EventObject(node));
}

void Scheduler::onNodeUpdate(const api::NodePtr& oldNode, const api::NodePtr& newNode) {
  cache_->updateNode(*oldNode, newNode);
  for (const auto& e : nodeSchedulingPropertiesChange(*newNode, *oldNode)) {
    queue_->moveAllToActiveOrBackoffQueue(e, EventObject(oldNode), EventObject(newNode));
  }
}

void Scheduler::onNodeDelete(const api::NodePtr& node) {
  if (auto r = cache_->removeNode(*node); !r.ok()) {
    spdlog::error("Scheduler cache RemoveNode failed node={}: {}", node->metadata.name, r.error().message());
  }
}

namespace {

// Add/update/delete of another resource become the cluster events plugins registered for.
template <typename T>
void addClusterEventHandlers(informer::SharedInformer<T>& informer, EventResource resource, queue::PriorityQueue& q) {
  informer::EventHandlerFuncs<T> h;
  h.onAdd = [&q, resource](const std::shared_ptr<const T>& obj, bool) {
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Add}, {}, EventObject(obj));
  };
  h.onUpdate = [&q, resource](const std::shared_ptr<const T>& oldObj, const std::shared_ptr<const T>& newObj) {
    if (oldObj->metadata.resourceVersion == newObj->metadata.resourceVersion) return;
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Update}, EventObject(oldObj), EventObject(newObj));
  };
  h.onDelete = [&q, resource](const informer::DeletedObject<T>& d) {
    q.moveAllToActiveOrBackoffQueue(ClusterEvent{resource, action::Delete}, EventObject(d.object), {});
  };
  informer.addEventHandler(std::move(h));
}

}  // namespace

void Scheduler::addEventHandlers(informer::SharedInformerFactory& factory) {
  auto& pods = factory.pods();
  podStore_ = &pods.store();

  informer::EventHandlerFuncs<api::Pod> assigned;
  assigned.filter = [](const api::Pod& p) { return !p.spec.nodeName.empty(); };
  assigned.onAdd = [this](const api::PodPtr& p, bool) { onAssignedPodAdd(p); };
  assigned.onUpdate = [this](const api::PodPtr& o, const api::PodPtr& n) { onAssignedPodUpdate(o, n); };
  assigned.onDelete = [this](const informer::DeletedObject<api::Pod>& d) { onAssignedPodDelete(objectOf(d)); };
  pods.addEventHandler(std::move(assigned));

  informer::EventHandlerFuncs<api::Pod> pending;
  pending.filter = [this](const api::Pod& p) {
    return p.status.phase != "Succeeded" && p.status.phase != "Failed" && isUnassignedForUs(p);
  };
  pending.onAdd = [this](const api::PodPtr& p, bool) { onPodAdd(p); };
  pending.onUpdate = [this](const api::PodPtr& o, const api::PodPtr& n) { onPodUpdate(o, n); };
  pending.onDelete = [this](const informer::DeletedObject<api::Pod>& d) { onPodDelete(objectOf(d)); };
  pods.addEventHandler(std::move(pending));

  informer::EventHandlerFuncs<api::Node> nodes;
  nodes.onAdd = [this](const api::NodePtr& n, bool) { onNodeAdd(n); };
  nodes.onUpdate = [this](const api::NodePtr& o, const api::NodePtr& n) { onNodeUpdate(o, n); };
  nodes.onDelete = [this](const informer::DeletedObject<api::Node>& d) { onNodeDelete(objectOf(d)); };
  factory.nodes().addEventHandler(std::move(nodes));

  auto wants = [&](EventResource r) {
    return interestingResources_.count(r) != 0 || interestingResources_.count(EventResource::WildCard) != 0;
  };
  if (wants(EventResource::PersistentVolume)) {
    addClusterEventHandlers(factory.persistentVolumes(), EventResource::PersistentVolume, *queue_);
  }
  if (wants(EventResource::PersistentVolumeClaim)) {
    addClusterEventHandlers(factory.persistentVolumeClaims(), EventResource::PersistentVolumeClaim, *queue_);
  }
  if (wants(EventResource::StorageClass)) {
    addClusterEventHandlers(factory.storageClasses(), EventResource::StorageClass, *queue_);
  }
  if (wants(EventResource::CSINode)) addClusterEventHandlers(factory.csiNodes(), EventResource::CSINode, *queue_);
  if (wants(EventResource::CSIDriver)) addClusterEventHandlers(factory.csiDrivers(), EventResource::CSIDriver, *queue_);
  if (wants(EventResource::CSIStorageCapacity)) {
    addClusterEventHandlers(factory.csiStorageCapacities(), EventResource::CSIStorageCapacity, *queue_);
  }
}

}  // namespace ks::scheduler
