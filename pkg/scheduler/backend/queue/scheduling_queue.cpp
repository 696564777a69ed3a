#include "pkg/scheduler/backend/queue/scheduling_queue.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "pkg/api/resources.h"

namespace ks::queue {

using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfo;
namespace action = framework::action;

namespace {

std::string keyOf(const QueuedPodInfo& p) {
  return PriorityQueue::podKey(p.pod());
}
std::string groupKeyOf(const framework::QueuedPodGroupInfo& g) {
  return g.group.key();
}

// Upstream's special event labels (framework/events.go) and metrics.PodPoppedInFlightEvent.
constexpr std::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
constexpr std::string_view kBackoffComplete = "BackoffComplete";
constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
constexpr std::string_view kPodPoppedInFlightEvent = "PodPopped";
constexpr std::chrono::seconds kLeftoverFlushPeriod{30};

std::string labelIf(metrics::Metrics* m, std::string_view label) {
  return m ? std::string(label) : std::string();
}
std::string labelIf(metrics::Metrics* m, const ClusterEvent& event) {
  return m ? event.label() : std::string();
}

}  // namespace

// The periodic flushes, on the clock's timers. `mu` is held while they run, so that close() waits for them.
struct PriorityQueue::Flushes {
  std::mutex mu;
  bool stopped = false;               // guarded by mu
  std::unique_ptr<Timer> timer;       // guarded by mu; set by run()
  framework::TimePoint nextLeftover;  // guarded by mu
};

void PriorityQueue::IncomingEvent::inc(metrics::Queue queue) {
  if (metrics_ == nullptr) return;
  metrics::CounterRef& ref = refs_[static_cast<std::size_t>(queue)];
  metrics::CounterRef& entitiesRef = entityRefs_[static_cast<std::size_t>(queue)];
  if (!entitiesRef) {
    ref = metrics_->queueIncomingPodsRef(queue, label_);
    entitiesRef = metrics_->queueIncomingEntitiesRef(queue, label_);
  }
  ref.inc();
  entitiesRef.inc();
}

void PriorityQueue::IncomingEvent::incGroup(metrics::Queue queue, size_t size) {
  if (metrics_ == nullptr) return;
  metrics::CounterRef& ref = refs_[static_cast<std::size_t>(queue)];
  metrics::CounterRef& groupsRef = groupEntityRefs_[static_cast<std::size_t>(queue)];
  if (!ref) ref = metrics_->queueIncomingPodsRef(queue, label_);
  if (!groupsRef) groupsRef = metrics_->queueIncomingEntitiesRef(queue, label_, /*podGroup=*/true);
  ref.inc(static_cast<double>(size));
  groupsRef.inc();
}

Result<ProfileHooks> hooksFromFramework(framework::runtime::Framework& fw) {
  auto events = fw.eventsToRegister();
  if (!events.ok()) return events.error();
  ProfileHooks hooks;
  hooks.pluginEvents = std::move(events).value();
  // As upstream buildQueueingHintMap: a plugin that registers Node/Add but not Node/UpdateNodeTaint also
  // gets {Node, UpdateNodeTaint} with an always-Queue hint (kubernetes#109437: preCheck used to hide
  // node adds from hints; e.g. uncordoning a node must requeue pods rejected by NodeResourcesFit).
  for (auto& pe : hooks.pluginEvents) {
    bool nodeAdded = false;
    bool nodeTaintUpdated = false;
    for (const auto& e : pe.events) {
      if (e.event.resource != framework::EventResource::Node) continue;
      nodeAdded = nodeAdded || (e.event.actionType & action::Add) != 0;
      nodeTaintUpdated = nodeTaintUpdated || (e.event.actionType & action::UpdateNodeTaint) != 0;
    }
    if (nodeAdded && !nodeTaintUpdated) {
      pe.events.push_back(
          framework::ClusterEventWithHint{{framework::EventResource::Node, action::UpdateNodeTaint}, {}});
    }
  }
  if (!fw.preEnqueuePlugins().empty()) {
    hooks.runPreEnqueuePlugins = [&fw](const framework::PodInfo& p) { return fw.runPreEnqueuePlugins(p); };
  }
  hooks.signPod = [&fw](const api::Pod& pod) { return fw.signPod(pod); };
  for (const auto& pe : hooks.pluginEvents) {
    for (auto* plugin : fw.preEnqueuePlugins()) {
      if (plugin->name() != pe.pluginName) continue;
      auto& out = hooks.preEnqueuePluginEvents[pe.pluginName];
      for (const auto& e : pe.events) out.push_back(e.event);
    }
  }
  return hooks;
}

PriorityQueue::PriorityQueue(framework::runtime::LessFunc less, std::map<std::string, ProfileHooks> profiles,
                             QueueOptions options)
    : clock_(options.clock ? *options.clock : realClock()),
      options_(options),
      metrics_(options.metrics),
      less_(std::move(less)),
      activeQ_(keyOf, [this](const QueuedPodInfo& a, const QueuedPodInfo& b) { return less_(a, b); }),
      backoffQ_(
          clock_, options.podInitialBackoff, options.podMaxBackoff,
          [this](const QueuedPodInfo& a, const QueuedPodInfo& b) { return less_(a, b); },
          options.popFromBackoffQ, keyOf),
      activeGroups_(groupKeyOf, [this](const Group& a, const Group& b) { return lessGroup(a, b); }),
      groupBackoffQ_(
          clock_, options.podInitialBackoff, options.podMaxBackoff,
          [this](const Group& a, const Group& b) { return lessGroup(a, b); }, options.popFromBackoffQ, groupKeyOf),
      pendingMembers_(metrics_ != nullptr && options.genericWorkload ? metrics_->podGroupMemberPods(false)
                                                                     : metrics::GaugeRef()),
      incompleteMembers_(metrics_ != nullptr && options.genericWorkload ? metrics_->podGroupMemberPods(true)
                                                                        : metrics::GaugeRef()),
      podAdd_(metrics_, labelIf(metrics_, framework::kEventUnscheduledPodAdd)),
      podUpdate_(metrics_, labelIf(metrics_, framework::kEventUnscheduledPodUpdate)),
      scheduleAttemptFailure_(metrics_, labelIf(metrics_, kScheduleAttemptFailure)),
      backoffComplete_(metrics_, labelIf(metrics_, kBackoffComplete)),
      forceActivate_(metrics_, labelIf(metrics_, framework::kEventForceActivate)),
      popFromBackoffQ_(metrics_, labelIf(metrics_, kPopFromBackoffQ)),
      flushes_(std::make_shared<Flushes>()) {
  for (auto& [name, hooks] : profiles) {
    Profile p;
    if (metrics_ != nullptr) p.metricsProfile = metrics_->profile(name);
    for (const auto& pe : hooks.pluginEvents) {
      const metrics::PluginId id =
          metrics_ != nullptr ? metrics_->plugin(pe.pluginName) : metrics::PluginId();
      for (const auto& e : pe.events)
        p.hints.push_back(HintEntry{pe.pluginName, e.event, e.queueingHintFn, id});
    }
    p.hooks = std::move(hooks);
    profiles_.emplace(name, std::move(p));
  }
}

PriorityQueue::~PriorityQueue() {
  close();
}

QueuedPodInfo PriorityQueue::newQueuedPodInfo(api::PodPtr pod) {
  QueuedPodInfo p;
  p.podSignature = signPod(*pod);
  p.podInfo = framework::PodInfo::create(std::move(pod));
  p.timestamp = arrivalTimeLocked();
  return p;
}

framework::PodSignature PriorityQueue::signPod(const api::Pod& pod) const {
  if (!options_.enableOpportunisticBatching) return nullptr;
  auto it = profiles_.find(api::schedulerNameOf(pod));
  if (it == profiles_.end()) {
    spdlog::error("No signer registered for scheduler profile pod={}/{} schedulerName={}",
                  pod.metadata.namespace_, pod.metadata.name, api::schedulerNameOf(pod));
    return nullptr;
  }
  return it->second.hooks.signPod ? it->second.hooks.signPod(pod) : nullptr;
}

framework::TimePoint PriorityQueue::arrivalTimeLocked() {
  lastArrival_ = std::max(clock_.now(), lastArrival_ + std::chrono::nanoseconds(1));
  return lastArrival_;
}

// Runs PreEnqueue; on rejection records the gating plugin and its events. Returns true if not gated.
bool PriorityQueue::runPreEnqueue(QueuedPodInfo& pInfo) const {
  pInfo.gatingPlugin.clear();
  pInfo.gatingPluginEvents.clear();
  auto it = profiles_.find(api::schedulerNameOf(pInfo.pod()));
  if (it == profiles_.end() || !it->second.hooks.runPreEnqueuePlugins) return true;
  framework::Status s = it->second.hooks.runPreEnqueuePlugins(*pInfo.podInfo);
  if (s.isSuccess()) return true;
  pInfo.gatingPlugin = s.plugin().empty() ? std::string("PreEnqueue") : s.plugin();
  if (auto e = it->second.hooks.preEnqueuePluginEvents.find(pInfo.gatingPlugin);
      e != it->second.hooks.preEnqueuePluginEvents.end()) {
    pInfo.gatingPluginEvents = e->second;
  }
  return false;
}

bool PriorityQueue::moveToActiveQ(QueuedPodInfo pInfo, IncomingEvent& event) {
  std::string key = keyOf(pInfo);
  // With pop-from-backoffQ, PreEnqueue ran when the pod entered backoffQ.
  const bool preEnqueueDone = options_.popFromBackoffQ && &event == &backoffComplete_;
  if (!preEnqueueDone && !runPreEnqueue(pInfo)) {
    // Gated: park it in unschedulablePods (kept there, with its gating plugin, until an event or update
    // lets PreEnqueue pass). It never attempts, so a later non-flush wake-up must not count as a flush.
    pInfo.wasFlushedFromUnschedulable = false;
    backoffQ_.remove(key);
    addToUnschedulablePods(std::move(pInfo), event);
    return false;
  }
  if (activeQ_.has(key)) return false;
  if (!pInfo.initialAttemptTimestamp.has_value()) pInfo.initialAttemptTimestamp = clock_.now();
  backoffQ_.remove(key);
  unschedulablePods_.erase(key);
  // An Add or Update of the pod itself records its nomination, once it is in activeQ (a gated pod holds
  // no capacity).
  if (&event == &podAdd_ || &event == &podUpdate_)
    nominator_.addNominatedPod(pInfo.podInfo, framework::NominatingInfo{});
  activeQ_.addOrUpdate(std::move(pInfo));
  event.inc(metrics::Queue::Active);
  return true;
}

bool PriorityQueue::moveToBackoffQ(QueuedPodInfo pInfo, IncomingEvent& event) {
  std::string key = keyOf(pInfo);
  // With pop-from-backoffQ a pod there may be popped at any time, so it must pass PreEnqueue first.
  if (options_.popFromBackoffQ && !runPreEnqueue(pInfo)) {
    pInfo.wasFlushedFromUnschedulable = false;
    addToUnschedulablePods(std::move(pInfo), event);
    return false;
  }
  unschedulablePods_.erase(key);
  backoffQ_.add(std::move(pInfo));
  event.inc(metrics::Queue::Backoff);
  return true;
}

void PriorityQueue::addToUnschedulablePods(QueuedPodInfo pInfo, IncomingEvent& event) {
  auto [it, inserted] = unschedulablePods_.insert_or_assign(keyOf(pInfo), std::move(pInfo));
  if (inserted) event.inc(metrics::Queue::Unschedulable);
}

template <typename Entity>
QueueName PriorityQueue::requeue(Entity entity, Strategy strategy, IncomingEvent& event) {
  if (strategy == Strategy::Skip) {
    addToUnschedulablePods(std::move(entity), event);
    return QueueName::UnschedulablePods;
  }
  if (strategy == Strategy::AfterBackoff && isBackingOff(entity)) {
    return moveToBackoffQ(std::move(entity), event) ? QueueName::BackoffQ : QueueName::UnschedulablePods;
  }
  return moveToActiveQ(std::move(entity), event) ? QueueName::ActiveQ : QueueName::UnschedulablePods;
}

void PriorityQueue::recordUnschedulableReasons(const QueuedPodInfo& pInfo, double delta) {
  if (metrics_ == nullptr || (pInfo.unschedulablePlugins.empty() && pInfo.pendingPlugins.empty())) return;
  auto profile = profiles_.find(api::schedulerNameOf(pInfo.pod()));
  if (profile == profiles_.end()) return;
  Profile& p = profile->second;
  auto record = [&](const std::string& plugin) {
    auto it = p.unschedulableGauges.find(plugin);
    if (it == p.unschedulableGauges.end()) {
      it = p.unschedulableGauges
               .emplace(plugin, metrics_->unschedulablePods(metrics_->plugin(plugin), p.metricsProfile))
               .first;
    }
    it->second.inc(delta);
  };
  for (const auto& plugin : pInfo.unschedulablePlugins) record(plugin);
  for (const auto& plugin : pInfo.pendingPlugins) {
    if (!pInfo.unschedulablePlugins.contains(plugin)) record(plugin);
  }
}

void PriorityQueue::add(api::PodPtr pod) {
  std::lock_guard lock(mu_);
  QueuedPodInfo pInfo = newQueuedPodInfo(std::move(pod));
  if (isPodGroupMember(pInfo.pod())) {
    // Recorded at once, gated or not (upstream addPod), as the group may wait for other members.
    nominator_.addNominatedPod(pInfo.podInfo, framework::NominatingInfo{});
    addPodGroupMemberLocked(std::move(pInfo));
    return;
  }
  if (moveToActiveQ(std::move(pInfo), podAdd_)) cond_.notify_one();
}

void PriorityQueue::update(const api::PodPtr& oldPod, api::PodPtr newPod) {
  std::lock_guard lock(mu_);
  const std::string key = podKey(*newPod);
  std::vector<ClusterEvent> events;
  if (options_.queueingHints && oldPod) {
    // The pod itself changed: TargetPod events, which only this pod's hints see.
    events = podSchedulingPropertiesChange(*newPod, *oldPod, /*isTargetPod=*/true,
                                           options_.dynamicResourceAllocation);
    // The in-flight pod comes back through addUnschedulableIfNotPresent, which checks these events.
    if (inFlightPods_.count(newPod->metadata.uid)) {
      for (const auto& e : events) addEventIfAnyInFlight(e, EventObject(oldPod), EventObject(newPod));
      return;
    }
  }
  if (isPodGroupMember(oldPod ? *oldPod : *newPod)) {
    updatePodGroupMemberLocked(oldPod, newPod, events);
    return;
  }
  auto replacePod = [&](QueuedPodInfo& p) {
    p.podInfo = framework::PodInfo::create(newPod);
    if (oldPod) nominator_.updateNominatedPod(*oldPod, p.podInfo);
    p.podSignature = signPod(*newPod);
  };
  if (const QueuedPodInfo* inActive = activeQ_.get(key)) {
    QueuedPodInfo p = *inActive;
    replacePod(p);
    activeQ_.addOrUpdate(std::move(p));
    return;
  }
  if (const QueuedPodInfo* inBackoff = backoffQ_.get(key)) {
    QueuedPodInfo p = *inBackoff;
    replacePod(p);
    backoffQ_.update(std::move(p));
    return;
  }
  if (auto it = unschedulablePods_.find(key); it != unschedulablePods_.end()) {
    QueuedPodInfo p = it->second;
    replacePod(p);
    if (options_.queueingHints) {
      for (const auto& e : events) {
        IncomingEvent incoming(metrics_, labelIf(metrics_, e));
        // A gated pod has no rejecting plugins, so any update retries it (PreEnqueue runs again).
        Strategy s = isPodWorthRequeuing(p, e, EventObject(oldPod), EventObject(newPod), incoming.label());
        if (s == Strategy::Skip) continue;
        // requeue() takes it out of unschedulablePods unless PreEnqueue still gates it (then it stays,
        // and isn't counted as incoming again).
        QueueName q = requeue(p, s, incoming);
        if (q != QueueName::UnschedulablePods) {
          if (q == QueueName::ActiveQ || options_.popFromBackoffQ) cond_.notify_one();
          return;
        }
        p = unschedulablePods_.at(key);  // still gated by PreEnqueue
        if (p.gated()) return;
      }
      unschedulablePods_.insert_or_assign(key, std::move(p));
      return;
    }
    if (oldPod && isPodUpdated(*oldPod, *newPod)) {
      if (requeue(std::move(p), Strategy::AfterBackoff, podUpdate_) != QueueName::UnschedulablePods)
        cond_.notify_one();
      return;
    }
    unschedulablePods_.insert_or_assign(key, std::move(p));
    return;
  }
  if (inFlightPods_.count(newPod->metadata.uid)) return;
  // Not queued anywhere: added as a new pod would be (upstream addPod, counted as UnscheduledPodAdd).
  QueuedPodInfo pInfo = newQueuedPodInfo(std::move(newPod));
  if (moveToActiveQ(std::move(pInfo), podAdd_)) cond_.notify_one();
}

void PriorityQueue::remove(const api::Pod& pod) {
  std::lock_guard lock(mu_);
  const std::string key = podKey(pod);
  nominator_.deleteNominatedPodIfExists(pod);
  if (isPodGroupMember(pod)) {
    deletePodGroupMemberLocked(pod);
    return;
  }
  // The pod's rejecting plugins stop counting wherever it waited (upstream fix for kubernetes#138444).
  if (const QueuedPodInfo* p = activeQ_.get(key)) {
    recordUnschedulableReasons(*p, -1);
    activeQ_.remove(key);
  } else if (const QueuedPodInfo* b = backoffQ_.get(key)) {
    recordUnschedulableReasons(*b, -1);
    backoffQ_.remove(key);
  } else if (auto it = unschedulablePods_.find(key); it != unschedulablePods_.end()) {
    recordUnschedulableReasons(it->second, -1);
    unschedulablePods_.erase(it);
  }
}

void PriorityQueue::activate(const std::vector<api::PodPtr>& pods) {
  std::lock_guard lock(mu_);
  bool activated = false;
  for (const auto& pod : pods) {
    if (isPodGroupMember(*pod)) {
      // The whole group is activated (an unobserved group has nothing queued).
      const std::optional<std::string> root = forest_.rootKeyForPod(*pod);
      if (!root) continue;
      std::optional<Group> group;
      bool fromBackoffQ = false;
      if (auto it = unschedulableGroups_.find(*root); it != unschedulableGroups_.end()) {
        group = std::move(it->second);
        unschedulableGroups_.erase(it);
      } else if ((group = groupBackoffQ_.take(*root))) {
        fromBackoffQ = true;
      }
      if (group) {
        if (moveToActiveQ(std::move(*group), forceActivate_, fromBackoffQ)) activated = true;
        continue;
      }
      if (inFlightPods_.count(pod->metadata.uid))
        addEventIfAnyInFlight(framework::kEventForceActivate, EventObject(), EventObject(pod));
      continue;
    }
    const std::string key = podKey(*pod);
    std::optional<QueuedPodInfo> pInfo;
    if (auto it = unschedulablePods_.find(key); it != unschedulablePods_.end()) {
      pInfo = it->second;
      unschedulablePods_.erase(it);
    } else if (const QueuedPodInfo* b = backoffQ_.get(key)) {
      pInfo = *b;
      backoffQ_.remove(key);
    } else {
      // In flight: checked when the pod comes back from its attempt (an unknown pod is ignored).
      if (inFlightPods_.count(pod->metadata.uid)) {
        addEventIfAnyInFlight(framework::kEventForceActivate, EventObject(), EventObject(pod));
      }
      moveRequestCycle_ = schedulingCycle_;
      continue;
    }
    if (pInfo && moveToActiveQ(std::move(*pInfo), forceActivate_)) activated = true;
  }
  if (activated) cond_.notify_all();
}

std::optional<QueuedPodInfo> PriorityQueue::pop() {
  std::unique_lock lock(mu_);
  std::optional<QueuedPodInfo> pInfo;
  while (!pInfo) {
    cond_.wait(lock, [&] {
      return closed_ || !activeQ_.empty() || (options_.popFromBackoffQ && backoffQ_.sizeBackoff() != 0);
    });
    if (closed_) return std::nullopt;
    pInfo = popPodLocked();
  }
  return pInfo;
}

std::optional<QueuedEntity> PriorityQueue::popEntity() {
  std::unique_lock lock(mu_);
  while (true) {
    cond_.wait(lock, [&] {
      return closed_ || !activeQ_.empty() || !activeGroups_.empty() ||
             (options_.popFromBackoffQ && (backoffQ_.sizeBackoff() != 0 || groupBackoffQ_.sizeBackoff() != 0));
    });
    if (closed_) return std::nullopt;
    // The head of activeQ over pods and groups; else (pop-from-backoffQ) that of podBackoffQ, by
    // (window, QueueSort) as its heap orders it. A tie goes to the pod.
    bool group = false;
    bool fromBackoffQ = false;
    if (!activeQ_.empty() || !activeGroups_.empty()) {
      const QueuedPodInfo* p = activeQ_.peek();
      const Group* g = activeGroups_.peek();
      group = g != nullptr && (p == nullptr || less_(sortKeyOf(*g), *p));
    } else {
      fromBackoffQ = true;
      const QueuedPodInfo* p = backoffQ_.peekBackoff();
      const Group* g = groupBackoffQ_.peekBackoff();
      if (g != nullptr && p != nullptr) {
        const auto tg = groupBackoffQ_.backoffTime(*g);
        const auto tp = backoffQ_.backoffTime(*p);
        group = tg < tp || (tg == tp && less_(sortKeyOf(*g), *p));
      } else {
        group = g != nullptr;
      }
    }
    if (!group) {
      if (std::optional<QueuedPodInfo> pInfo = popPodLocked()) return QueuedEntity(std::move(*pInfo));
      continue;
    }
    Group g = fromBackoffQ ? *groupBackoffQ_.popBackoff() : *activeGroups_.pop();
    if (fromBackoffQ) popFromBackoffQ_.incGroup(metrics::Queue::Active, g.size());
    if (popGroupLocked(g)) return QueuedEntity(std::move(g));
  }
}

bool PriorityQueue::popGroupLocked(Group& group) {
  // Members already in flight (a bug elsewhere) are discarded, as upstream; the group with them.
  if (options_.queueingHints) {
    std::vector<api::PodPtr> duplicates;
    for (const QueuedPodInfo& p : group.pods) {
      if (inFlightPods_.count(p.pod().metadata.uid)) duplicates.push_back(p.podInfo->podPtr());
    }
    for (const api::PodPtr& pod : duplicates) {
      spdlog::error("Discarding the popped pod group member, tracked in multiple places in the scheduler pod={} "
                    "podGroup={}", podKey(*pod), group.group.key());
      removePodFromGroup(group, *pod);
    }
    if (group.pods.empty()) return false;
  }
  group.attempts++;
  schedulingCycle_++;
  for (QueuedPodInfo& p : group.pods) {
    p.attempts++;
    recordUnschedulableReasons(p, -1);
    p.unschedulablePlugins.clear();
    p.pendingPlugins.clear();
    const std::string& uid = p.pod().metadata.uid;
    inFlightPods_[uid] = inFlight_.insert(inFlight_.end(), InFlightEntry{uid, keyOf(p), std::nullopt});
    if (metrics_ != nullptr) {
      if (!podPoppedInFlight_) podPoppedInFlight_ = metrics_->inflightEvents(kPodPoppedInFlightEvent);
      podPoppedInFlight_.inc();
    }
  }
  group.unschedulablePlugins.clear();
  group.pendingPlugins.clear();
  lastPoppedGroup_ = group.group.key();
  return true;
}

std::optional<QueuedPodInfo> PriorityQueue::popPodLocked() {
  const bool fromBackoffQ = activeQ_.empty();
  std::optional<QueuedPodInfo> pInfo = fromBackoffQ ? backoffQ_.popBackoff() : activeQ_.pop();
  if (fromBackoffQ) popFromBackoffQ_.inc(metrics::Queue::Active);
  // The same pod tracked twice (e.g. deleted and recreated while its old attempt still runs would have
  // another UID, so this is a bug elsewhere): discard the duplicate, as upstream does.
  if (options_.queueingHints && inFlightPods_.count(pInfo->pod().metadata.uid)) {
    spdlog::error("The same pod is tracked in multiple places in the scheduler, and just discard it pod={}",
                  keyOf(*pInfo));
    return std::nullopt;
  }
  if (!lastPoppedGroup_.empty()) lastPoppedGroup_.clear();
  pInfo->attempts++;
  schedulingCycle_++;
  recordUnschedulableReasons(*pInfo, -1);
  pInfo->unschedulablePlugins.clear();
  pInfo->pendingPlugins.clear();
  const std::string& uid = pInfo->pod().metadata.uid;
  inFlightPods_[uid] = inFlight_.insert(inFlight_.end(), InFlightEntry{uid, keyOf(*pInfo), std::nullopt});
  if (metrics_ != nullptr) {
    if (!podPoppedInFlight_) podPoppedInFlight_ = metrics_->inflightEvents(kPodPoppedInFlightEvent);
    podPoppedInFlight_.inc();
  }
  return pInfo;
}

void PriorityQueue::done(const std::string& podUid) {
  std::lock_guard lock(mu_);
  doneLocked(podUid);
}

void PriorityQueue::doneLocked(const std::string& podUid) {
  auto it = inFlightPods_.find(podUid);
  if (it == inFlightPods_.end()) return;
  inFlight_.erase(it->second);
  inFlightPods_.erase(it);
  podPoppedInFlight_.dec();
  // Events older than the oldest in-flight pod can no longer matter.
  while (!inFlight_.empty() && inFlight_.front().event.has_value()) {
    inFlight_.front().event->gauge.dec();
    inFlight_.pop_front();
  }
}

void PriorityQueue::addNominatedPod(const framework::PodInfoPtr& pod, const framework::NominatingInfo& info) {
  nominator_.addNominatedPod(pod, info);
}

void PriorityQueue::deleteNominatedPodIfExists(const api::Pod& pod) {
  nominator_.deleteNominatedPodIfExists(pod);
}

void PriorityQueue::updateNominatedPod(const api::Pod& oldPod, const framework::PodInfoPtr& newPodInfo) {
  nominator_.updateNominatedPod(oldPod, newPodInfo);
}

std::vector<framework::PodInfoPtr> PriorityQueue::nominatedPodsForNode(const std::string& nodeName) const {
  std::vector<framework::PodInfoPtr> pods = nominator_.nominatedPodsForNode(nodeName);
  if (pods.empty()) return pods;  // the common case: no lock taken
  std::lock_guard lock(mu_);
  // The version of the pod the queue holds; while it is in flight, only its name and UID (upstream
  // nominatedPodToInfo), so a nominated pod being scheduled reserves nothing but a pod slot.
  for (framework::PodInfoPtr& p : pods) {
    const std::string key = podKey(p->pod());
    if (const QueuedPodInfo* q = activeQ_.get(key)) {
      p = q->podInfo;
    } else if (auto it = unschedulablePods_.find(key); it != unschedulablePods_.end()) {
      p = it->second.podInfo;
    } else if (const QueuedPodInfo* b = backoffQ_.get(key)) {
      p = b->podInfo;
    } else if (const QueuedPodInfo* m = isPodGroupMember(p->pod()) ? findMemberLocked(p->pod()) : nullptr) {
      p = m->podInfo;
    } else {
      auto bare = std::make_shared<api::Pod>();
      bare->metadata.name = p->pod().metadata.name;
      bare->metadata.namespace_ = p->pod().metadata.namespace_;
      bare->metadata.uid = p->pod().metadata.uid;
      p = framework::PodInfo::create(std::move(bare));
    }
  }
  return pods;
}

int64_t PriorityQueue::schedulingCycle() const {
  std::lock_guard lock(mu_);
  return schedulingCycle_;
}

Result<void> PriorityQueue::addUnschedulableIfNotPresent(QueuedPodInfo pInfo, int64_t podSchedulingCycle) {
  std::lock_guard lock(mu_);
  const std::string key = keyOf(pInfo);
  const std::string uid = pInfo.pod().metadata.uid;
  if (unschedulablePods_.count(key)) {
    doneLocked(uid);
    return Error("Pod " + key + " is already present in unschedulable queue");
  }
  if (activeQ_.has(key)) {
    doneLocked(uid);
    return Error("Pod " + key + " is already present in the active queue");
  }
  if (backoffQ_.has(key)) {
    doneLocked(uid);
    return Error("Pod " + key + " is already present in the backoff queue");
  }
  const bool rejectedByPlugins = !pInfo.unschedulablePlugins.empty() || !pInfo.pendingPlugins.empty();
  recordUnschedulableReasons(pInfo, +1);
  if (rejectedByPlugins) {
    pInfo.consecutiveErrorsCount = 0;
    pInfo.unschedulableCount++;
  } else {
    pInfo.consecutiveErrorsCount++;
  }
  pInfo.timestamp = arrivalTimeLocked();
  pInfo.backoffExpiration = framework::TimePoint{};
  // Back from an attempt: whatever flushed it is over.
  pInfo.wasFlushedFromUnschedulable = false;
  pInfo.flushTimestamp.reset();

  if (isPodGroupMember(pInfo.pod())) {
    // Done first, so that the member may join a queued group and be popped again at once.
    doneLocked(uid);
    addPodGroupMemberLocked(std::move(pInfo));
    return {};
  }
  if (!lastPoppedGroup_.empty()) lastPoppedGroup_.clear();

  Strategy strategy;
  if (!options_.queueingHints) {
    strategy = (moveRequestCycle_ >= podSchedulingCycle || !rejectedByPlugins) ? Strategy::AfterBackoff
                                                                               : Strategy::Skip;
  } else {
    strategy = hintForInFlightPod(pInfo);
  }
  QueueName q = requeue(std::move(pInfo), strategy, scheduleAttemptFailure_);
  doneLocked(uid);
  if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) cond_.notify_one();
  return {};
}

PriorityQueue::Strategy PriorityQueue::hintForInFlightPod(const QueuedPodInfo& pInfo) const {
  if (pInfo.unschedulablePlugins.empty() && pInfo.pendingPlugins.empty()) {
    // An error (not a plugin rejection): retry after backoff, don't wait for an event.
    return Strategy::AfterBackoff;
  }
  auto it = inFlightPods_.find(pInfo.pod().metadata.uid);
  // Not in flight (a bug elsewhere, or done() already ran): retry after backoff rather than park it.
  if (it == inFlightPods_.end()) return Strategy::AfterBackoff;
  Strategy result = Strategy::Skip;
  for (auto e = std::next(it->second); e != inFlight_.end(); ++e) {
    if (!e->event) continue;
    switch (
        isPodWorthRequeuing(pInfo, e->event->event, e->event->oldObj, e->event->newObj, e->event->label)) {
      case Strategy::Skip:
        break;
      case Strategy::Immediately:
        return Strategy::Immediately;
      case Strategy::AfterBackoff:
        // Only a pending plugin can still make it Immediately.
        if (pInfo.pendingPlugins.empty()) return Strategy::AfterBackoff;
        result = Strategy::AfterBackoff;
        break;
    }
  }
  return result;
}

PriorityQueue::Strategy PriorityQueue::isPodWorthRequeuing(const QueuedPodInfo& pInfo,
                                                           const ClusterEvent& event,
                                                           const EventObject& oldObj,
                                                           const EventObject& newObj,
                                                           std::string_view label) const {
  if (pInfo.unschedulablePlugins.empty() && pInfo.pendingPlugins.empty()) return Strategy::AfterBackoff;
  if (event.isWildCard()) {
    // A wildcard event carrying a pod (ForceActivate of that pod) is for that pod only.
    if (const auto* target = std::get_if<api::PodPtr>(&newObj);
        target != nullptr && (*target)->metadata.uid != pInfo.pod().metadata.uid) {
      return Strategy::Skip;
    }
    return Strategy::AfterBackoff;
  }
  auto profile = profiles_.find(api::schedulerNameOf(pInfo.pod()));
  if (profile == profiles_.end()) return Strategy::AfterBackoff;
  Strategy result = Strategy::Skip;
  for (const HintEntry& h : profile->second.hints) {
    if (!framework::matchClusterEvents(h.event, event)) continue;
    const bool pending = pInfo.pendingPlugins.count(h.pluginName) != 0;
    if (!pending && pInfo.unschedulablePlugins.count(h.pluginName) == 0) continue;
    framework::QueueingHint hint = framework::QueueingHint::Queue;
    if (options_.queueingHints && h.fn) {
      const auto start = std::chrono::steady_clock::now();
      auto r = h.fn(pInfo.pod(), oldObj, newObj);
      hint = r.ok() ? *r : framework::QueueingHint::Queue;  // an error is treated as Queue
      if (metrics_ != nullptr && !label.empty()) {
        const auto hintResult = !r.ok() ? metrics::QueueingHintResult::Error
                                : hint == framework::QueueingHint::Queue
                                    ? metrics::QueueingHintResult::Queue
                                    : metrics::QueueingHintResult::QueueSkip;
        metrics_->observeQueueingHint(
            h.pluginId, label, hintResult,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
    if (hint == framework::QueueingHint::QueueSkip) continue;
    if (pending) return Strategy::Immediately;
    if (pInfo.pendingPlugins.empty()) return Strategy::AfterBackoff;
    result = Strategy::AfterBackoff;
  }
  return result;
}

bool PriorityQueue::isEventOfInterest(const ClusterEvent& event) const {
  if (event.isWildCard()) return true;
  for (const auto& [name, profile] : profiles_) {
    for (const HintEntry& h : profile.hints) {
      if (framework::matchClusterEvents(h.event, event)) return true;
    }
    for (const auto& [plugin, events] : profile.hooks.preEnqueuePluginEvents) {
      if (framework::matchAnyClusterEvent(event, events)) return true;
    }
  }
  return false;
}

bool PriorityQueue::addEventIfAnyInFlight(const ClusterEvent& event, const EventObject& oldObj,
                                          const EventObject& newObj) {
  if (inFlightPods_.empty()) return false;
  InFlightEvent e{event, oldObj, newObj, {}, {}};
  if (metrics_ != nullptr) {
    e.label = event.label();
    e.gauge = metrics_->inflightEvents(e.label);
    e.gauge.inc();
  }
  inFlight_.push_back(InFlightEntry{std::string(), std::string(), std::move(e)});
  return true;
}

void PriorityQueue::movePodsLocked(std::vector<QueuedPodInfo> pods, std::vector<Group> groups,
                                   const ClusterEvent& event, const EventObject& oldObj, const EventObject& newObj) {
  bool activated = false;
  IncomingEvent incoming(metrics_, pods.empty() ? std::string() : labelIf(metrics_, event));
  for (auto& pInfo : pods) {
    // A gated pod only moves on events its gating plugin registered, and (v1.37) on wildcard events such
    // as the leftover flush, so that a wrong hint cannot strand it; PreEnqueue then runs again.
    if (pInfo.gated() && !event.isWildCard() &&
        !framework::matchAnyClusterEvent(event, pInfo.gatingPluginEvents)) {
      continue;
    }
    const Strategy s = isPodWorthRequeuing(pInfo, event, oldObj, newObj, incoming.label());
    if (s == Strategy::Skip) continue;
    QueueName q = requeue(std::move(pInfo), s, incoming);
    if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) activated = true;
  }
  if (!groups.empty()) moveGroupsLocked(std::move(groups), event, oldObj, newObj, activated);
  moveRequestCycle_ = schedulingCycle_;
  if (options_.queueingHints) addEventIfAnyInFlight(event, oldObj, newObj);
  if (activated) cond_.notify_all();
}

void PriorityQueue::moveAllToActiveOrBackoffQueue(const ClusterEvent& event, const EventObject& oldObj,
                                                  const EventObject& newObj,
                                                  const std::function<bool(const api::Pod&)>& preCheck) {
  std::lock_guard lock(mu_);
  if (!isEventOfInterest(event)) return;
  std::vector<QueuedPodInfo> candidates;
  candidates.reserve(unschedulablePods_.size());
  for (const auto& [key, pInfo] : unschedulablePods_) {
    if (!preCheck || preCheck(pInfo.pod())) candidates.push_back(pInfo);
  }
  // A group is a candidate when one of its members is.
  std::vector<Group> groups;
  for (const auto& [key, group] : unschedulableGroups_) {
    if (!preCheck || std::any_of(group.pods.begin(), group.pods.end(),
                                 [&](const QueuedPodInfo& p) { return preCheck(p.pod()); })) {
      groups.push_back(group);
    }
  }
  movePodsLocked(std::move(candidates), std::move(groups), event, oldObj, newObj);
}

void PriorityQueue::assignedPodAdded(const api::PodPtr& pod) {
  moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodAdd, EventObject(), EventObject(pod));
}

void PriorityQueue::assignedPodUpdated(const api::PodPtr& oldPod, const api::PodPtr& newPod,
                                       framework::ActionType actionType) {
  moveAllToActiveOrBackoffQueue(ClusterEvent{framework::EventResource::AssignedPod, actionType},
                                EventObject(oldPod), EventObject(newPod));
}

void PriorityQueue::flushBackoffQCompleted() {
  std::lock_guard lock(mu_);
  bool activated = false;
  for (QueuedPodInfo& p : backoffQ_.popAllBackoffCompleted()) {
    if (moveToActiveQ(std::move(p), backoffComplete_)) activated = true;
  }
  if (!groupBackoffQ_.empty()) {
    for (Group& g : groupBackoffQ_.popAllBackoffCompleted()) {
      if (moveToActiveQ(std::move(g), backoffComplete_, /*fromBackoffQ=*/true)) activated = true;
    }
  }
  if (activated) cond_.notify_all();
}

void PriorityQueue::flushUnschedulablePodsLeftover() {
  std::lock_guard lock(mu_);
  const auto now = clock_.now();
  std::vector<QueuedPodInfo> stale;
  for (auto& [key, pInfo] : unschedulablePods_) {
    const auto last = std::max(pInfo.timestamp, pInfo.flushTimestamp.value_or(framework::TimePoint{}));
    if (now - last > options_.podMaxInUnschedulablePodsDuration) {
      pInfo.wasFlushedFromUnschedulable = true;
      pInfo.flushTimestamp = now;
      stale.push_back(pInfo);
    }
  }
  std::vector<Group> staleGroups;
  for (auto& [key, group] : unschedulableGroups_) {
    const auto last = std::max(group.timestamp, group.flushTimestamp.value_or(framework::TimePoint{}));
    if (now - last > options_.podMaxInUnschedulablePodsDuration) {
      group.wasFlushedFromUnschedulable = true;
      group.flushTimestamp = now;
      staleGroups.push_back(group);
    }
  }
  if (!stale.empty() || !staleGroups.empty()) {
    movePodsLocked(std::move(stale), std::move(staleGroups), framework::kEventUnschedulableTimeout, {}, {});
  }
}

void PriorityQueue::run() {
  std::lock_guard lock(flushes_->mu);
  if (flushes_->timer || flushes_->stopped) return;
  flushes_->nextLeftover = clock_.now() + kLeftoverFlushPeriod;
  armFlushLocked();
}

void PriorityQueue::armFlushLocked() {
  // The backoff flush runs on whole seconds of the clock, so that each ordering window of podBackoffQ is
  // flushed at once, right when it ends (upstream waitUntilAlignedWithOrderingWindow).
  const auto now = clock_.now();
  const Clock::Duration untilNextWindow = backoffQ_.alignToWindow(now + kBackoffQOrderingWindow) - now;
  flushes_->timer = clock_.afterFunc(untilNextWindow, [this, flushes = flushes_] {
    std::lock_guard lock(flushes->mu);
    if (flushes->stopped) return;  // the queue may be gone
    flushBackoffQCompleted();
    if (clock_.now() >= flushes->nextLeftover) {
      flushUnschedulablePodsLeftover();
      flushes->nextLeftover = clock_.now() + kLeftoverFlushPeriod;
    }
    armFlushLocked();
  });
}

void PriorityQueue::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cond_.notify_all();
  std::lock_guard lock(flushes_->mu);
  flushes_->stopped = true;
  if (flushes_->timer) flushes_->timer->stop();
}

PendingCounts PriorityQueue::pendingCounts() const {
  std::lock_guard lock(mu_);
  PendingCounts c;
  c.active = activeQ_.size();
  c.backoff = backoffQ_.size();
  for (const auto& [key, p] : unschedulablePods_) (p.gated() ? c.gated : c.unschedulable)++;
  activeGroups_.forEach([&](const Group& g) { c.active += g.size(); });
  groupBackoffQ_.forEach([&](const Group& g) { c.backoff += g.size(); });
  for (const auto& [key, g] : unschedulableGroups_) (g.gated() ? c.gated : c.unschedulable) += g.size();
  c.pending = pendingMembers_.size();
  c.incomplete = incompleteMembers_.size();
  return c;
}

size_t PriorityQueue::inFlightCount() const {
  std::lock_guard lock(mu_);
  return inFlightPods_.size();
}

std::vector<api::PodPtr> PriorityQueue::pendingPods(std::string* summary) const {
  std::lock_guard lock(mu_);
  std::vector<api::PodPtr> out;
  auto members = [&](const Group& g) {
    for (const QueuedPodInfo& p : g.pods) out.push_back(p.podInfo->podPtr());
  };
  activeQ_.forEach([&](const QueuedPodInfo& p) { out.push_back(p.podInfo->podPtr()); });
  activeGroups_.forEach(members);
  const size_t active = out.size();
  backoffQ_.forEach([&](const QueuedPodInfo& p) { out.push_back(p.podInfo->podPtr()); });
  groupBackoffQ_.forEach(members);
  const size_t backoff = out.size() - active;
  for (const auto& [key, p] : unschedulablePods_) out.push_back(p.podInfo->podPtr());
  for (const auto& [key, g] : unschedulableGroups_) members(g);
  const size_t unschedulable = out.size() - active - backoff;
  if (options_.genericWorkload) {
    for (api::PodPtr& p : incompleteMembers_.list()) out.push_back(std::move(p));
    for (api::PodPtr& p : pendingMembers_.list()) out.push_back(std::move(p));
    if (summary) {
      *summary = "activeQ:" + std::to_string(active) + "; backoffQ:" + std::to_string(backoff) +
                 "; unschedulableEntities:" + std::to_string(unschedulable) +
                 "; pendingPodGroupMemberPods:" + std::to_string(pendingMembers_.size()) +
                 "; incompletePodGroupPods:" + std::to_string(incompleteMembers_.size());
    }
    return out;
  }
  if (summary) {
    *summary = "activeQ:" + std::to_string(activeQ_.size()) +
               "; backoffQ:" + std::to_string(backoffQ_.size()) +
               "; unschedulablePods:" + std::to_string(unschedulablePods_.size());
  }
  return out;
}

QueueName PriorityQueue::whereIs(const std::string& podKey) const {
  std::lock_guard lock(mu_);
  if (activeQ_.has(podKey)) return QueueName::ActiveQ;
  if (backoffQ_.has(podKey)) return QueueName::BackoffQ;
  if (unschedulablePods_.count(podKey)) return QueueName::UnschedulablePods;
  if (options_.genericWorkload) {
    if (const QueueName q = locateMemberLocked(podKey).first; q != QueueName::None) return q;
  }
  for (const auto& [uid, marker] : inFlightPods_) {
    if (marker->podKey == podKey) return QueueName::InFlight;
  }
  return QueueName::None;
}

std::optional<QueuedPodInfo> PriorityQueue::getForTest(const std::string& podKey) const {
  std::lock_guard lock(mu_);
  if (const auto* p = activeQ_.get(podKey)) return *p;
  if (const auto* p = backoffQ_.get(podKey)) return *p;
  if (auto it = unschedulablePods_.find(podKey); it != unschedulablePods_.end()) return it->second;
  if (const QueuedPodInfo* p = locateMemberLocked(podKey).second) return *p;
  return std::nullopt;
}

// ---- Pod groups ----

namespace {

// The group's queueing parameters (upstream QueueingParams), from one entity to another.
void copyQueueingParams(const framework::QueuedPodGroupInfo& from, framework::QueuedPodGroupInfo& to) {
  to.timestamp = from.timestamp;
  to.attempts = from.attempts;
  to.unschedulableCount = from.unschedulableCount;
  to.consecutiveErrorsCount = from.consecutiveErrorsCount;
  to.initialAttemptTimestamp = from.initialAttemptTimestamp;
  to.backoffExpiration = from.backoffExpiration;
  to.unschedulablePlugins = from.unschedulablePlugins;
  to.pendingPlugins = from.pendingPlugins;
  to.gatingPlugin = from.gatingPlugin;
  to.gatingPluginEvents = from.gatingPluginEvents;
  to.flushTimestamp = from.flushTimestamp;
  to.wasFlushedFromUnschedulable = from.wasFlushedFromUnschedulable;
}

}  // namespace

QueuedPodInfo PriorityQueue::sortKeyOf(const Group& group) const {
  auto& [source, podInfo] = sortPods_[group.group.key()];
  if (!podInfo || source != group.group.podGroup) {
    auto pod = std::make_shared<api::Pod>();
    pod->metadata.namespace_ = group.group.namespace_;
    pod->metadata.name = group.group.name;
    pod->spec.priority = group.priority();
    source = group.group.podGroup;
    podInfo = framework::PodInfo::create(std::move(pod));
  }
  QueuedPodInfo key;
  key.podInfo = podInfo;
  key.timestamp = group.timestamp;
  key.attempts = group.attempts;
  return key;
}

bool PriorityQueue::runPreEnqueueGroup(Group& group) const {
  // Every member runs (a gated member is kept gated by its own plugin); one gated member gates the group.
  const QueuedPodInfo* gated = nullptr;
  for (QueuedPodInfo& p : group.pods) {
    if (!runPreEnqueue(p)) gated = &p;
  }
  if (gated == nullptr) {
    group.gatingPlugin.clear();
    group.gatingPluginEvents.clear();
    return true;
  }
  group.gatingPlugin = gated->gatingPlugin;
  group.gatingPluginEvents = gated->gatingPluginEvents;
  return false;
}

bool PriorityQueue::moveToActiveQ(Group group, IncomingEvent& event, bool fromBackoffQ) {
  const std::string key = group.group.key();
  // With pop-from-backoffQ, PreEnqueue ran when the group entered backoffQ.
  if (!(options_.popFromBackoffQ && fromBackoffQ) && !runPreEnqueueGroup(group)) {
    group.wasFlushedFromUnschedulable = false;
    groupBackoffQ_.remove(key);
    addToUnschedulablePods(std::move(group), event);
    return false;
  }
  if (activeGroups_.has(key)) return false;
  const auto now = clock_.now();
  if (!group.initialAttemptTimestamp.has_value()) group.initialAttemptTimestamp = now;
  for (QueuedPodInfo& p : group.pods) {
    if (!p.initialAttemptTimestamp.has_value()) p.initialAttemptTimestamp = now;
  }
  groupBackoffQ_.remove(key);
  unschedulableGroups_.erase(key);
  const size_t size = group.size();
  activeGroups_.addOrUpdate(std::move(group));
  event.incGroup(metrics::Queue::Active, size);
  return true;
}

bool PriorityQueue::moveToBackoffQ(Group group, IncomingEvent& event) {
  const std::string key = group.group.key();
  if (options_.popFromBackoffQ && !runPreEnqueueGroup(group)) {
    group.wasFlushedFromUnschedulable = false;
    addToUnschedulablePods(std::move(group), event);
    return false;
  }
  unschedulableGroups_.erase(key);
  const size_t size = group.size();
  groupBackoffQ_.add(std::move(group));
  event.incGroup(metrics::Queue::Backoff, size);
  return true;
}

void PriorityQueue::addToUnschedulablePods(Group group, IncomingEvent& event) {
  const size_t size = group.size();
  auto [it, inserted] = unschedulableGroups_.insert_or_assign(group.group.key(), std::move(group));
  if (inserted) event.incGroup(metrics::Queue::Unschedulable, size);
}

std::optional<std::pair<PriorityQueue::Group, PriorityQueue::Strategy>> PriorityQueue::takeGroupLocked(
    const std::string& key) {
  if (const Group* g = activeGroups_.get(key)) {
    std::pair<Group, Strategy> out{*g, Strategy::Immediately};
    activeGroups_.remove(key);
    return out;
  }
  if (std::optional<Group> g = groupBackoffQ_.take(key)) return std::pair{std::move(*g), Strategy::AfterBackoff};
  if (auto it = unschedulableGroups_.find(key); it != unschedulableGroups_.end()) {
    std::pair<Group, Strategy> out{std::move(it->second), Strategy::Skip};
    unschedulableGroups_.erase(it);
    return out;
  }
  return std::nullopt;
}

const PriorityQueue::Group* PriorityQueue::findGroupLocked(const std::string& key) const {
  if (const Group* g = activeGroups_.get(key)) return g;
  if (const Group* g = groupBackoffQ_.get(key)) return g;
  auto it = unschedulableGroups_.find(key);
  return it == unschedulableGroups_.end() ? nullptr : &it->second;
}

void PriorityQueue::addPodGroupMemberLocked(QueuedPodInfo pInfo) {
  const std::optional<std::string> root = forest_.rootKeyForPod(pInfo.pod());
  if (!root) {
    // Not schedulable before its PodGroup is observed.
    incompleteMembers_.add(std::move(pInfo));
    return;
  }
  if (auto taken = takeGroupLocked(*root)) {
    // Joins the queued entity, which goes back where it was (PreEnqueue runs again).
    addPodToGroup(taken->first, std::move(pInfo));
    const QueueName q = requeue(std::move(taken->first), taken->second, podAdd_);
    if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) cond_.notify_all();
    return;
  }
  if (lastPoppedGroup_ == *root) {
    // The group's cycle runs: the member rejoins it when it comes back (addAttemptedPodGroupIfNeeded).
    pendingMembers_.add(std::move(pInfo));
    return;
  }
  // The first queued member: a new entity, with the member's queueing times.
  std::optional<Group> group = forest_.buildQueuedPodGroupInfo(*root);
  group->timestamp = pInfo.timestamp;
  group->initialAttemptTimestamp = pInfo.initialAttemptTimestamp;
  addPodToGroup(*group, std::move(pInfo));
  if (moveToActiveQ(std::move(*group), podAdd_)) cond_.notify_all();
}

void PriorityQueue::deletePodGroupMemberLocked(const api::Pod& pod) {
  const std::optional<std::string> root = forest_.rootKeyForPod(pod);
  if (!root) {
    if (auto p = incompleteMembers_.remove(pod)) recordUnschedulableReasons(*p, -1);
    return;
  }
  auto taken = takeGroupLocked(*root);
  if (!taken) {
    if (auto p = pendingMembers_.remove(pod)) recordUnschedulableReasons(*p, -1);
    return;
  }
  if (auto p = removePodFromGroup(taken->first, pod)) recordUnschedulableReasons(*p, -1);
  if (taken->first.pods.empty()) return;  // an empty entity is dropped
  const QueueName q = requeue(std::move(taken->first), taken->second, podAdd_);
  if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) cond_.notify_all();
}

void PriorityQueue::updatePodGroupMemberLocked(const api::PodPtr& oldPod, const api::PodPtr& newPod,
                                               const std::vector<ClusterEvent>& events) {
  auto replaced = [&](QueuedPodInfo& p) {
    if (oldPod) nominator_.updateNominatedPod(*oldPod, p.podInfo);
    p.podSignature = signPod(*newPod);
  };
  const std::optional<std::string> root = forest_.rootKeyForPod(oldPod ? *oldPod : *newPod);
  if (!root) {
    if (QueuedPodInfo* p = incompleteMembers_.update(newPod)) replaced(*p);
    return;
  }
  const std::string& key = *root;
  if (const Group* g = activeGroups_.get(key)) {
    Group copy = *g;
    if (QueuedPodInfo* p = updatePodInGroup(copy, newPod)) {
      replaced(*p);
      activeGroups_.addOrUpdate(std::move(copy));
      return;
    }
  } else if (const Group* b = groupBackoffQ_.get(key)) {
    Group copy = *b;
    if (QueuedPodInfo* p = updatePodInGroup(copy, newPod)) {
      replaced(*p);
      groupBackoffQ_.update(std::move(copy));
      return;
    }
  } else if (auto it = unschedulableGroups_.find(key); it != unschedulableGroups_.end()) {
    if (QueuedPodInfo* p = updatePodInGroup(it->second, newPod)) {
      replaced(*p);
      // The update may make the group schedulable: its members' hints decide, per event.
      if (!options_.queueingHints) {
        if (oldPod && isPodUpdated(*oldPod, *newPod)) {
          Group moving = it->second;
          if (requeue(std::move(moving), Strategy::AfterBackoff, podUpdate_) != QueueName::UnschedulablePods)
            cond_.notify_one();
        }
        return;
      }
      for (const auto& e : events) {
        IncomingEvent incoming(metrics_, labelIf(metrics_, e));
        auto current = unschedulableGroups_.find(key);
        if (current == unschedulableGroups_.end()) return;
        const Strategy s =
            isGroupWorthRequeuing(current->second, e, EventObject(oldPod), EventObject(newPod), incoming.label());
        if (s == Strategy::Skip) continue;
        Group moving = current->second;
        const QueueName q = requeue(std::move(moving), s, incoming);
        if (q != QueueName::UnschedulablePods) {
          if (q == QueueName::ActiveQ || options_.popFromBackoffQ) cond_.notify_one();
          return;
        }
      }
      return;
    }
  }
  if (QueuedPodInfo* p = pendingMembers_.update(newPod)) {
    replaced(*p);
    return;
  }
  if (inFlightPods_.count(newPod->metadata.uid)) return;
  // Not queued anywhere: added as a new member would be.
  QueuedPodInfo pInfo = newQueuedPodInfo(newPod);
  nominator_.addNominatedPod(pInfo.podInfo, framework::NominatingInfo{});
  addPodGroupMemberLocked(std::move(pInfo));
}

PriorityQueue::Strategy PriorityQueue::isGroupWorthRequeuing(const Group& group, const ClusterEvent& event,
                                                             const EventObject& oldObj, const EventObject& newObj,
                                                             std::string_view label) const {
  Strategy best = Strategy::Skip;
  for (const QueuedPodInfo& p : group.pods) {
    best = std::max(best, isPodWorthRequeuing(p, event, oldObj, newObj, label));
    if (best == Strategy::Immediately) break;
  }
  return best;
}

void PriorityQueue::moveGroupsLocked(std::vector<Group> groups, const ClusterEvent& event, const EventObject& oldObj,
                                     const EventObject& newObj, bool& activated) {
  IncomingEvent incoming(metrics_, labelIf(metrics_, event));
  for (Group& group : groups) {
    if (group.gated() && !event.isWildCard() && !framework::matchAnyClusterEvent(event, group.gatingPluginEvents)) {
      continue;
    }
    const Strategy s = isGroupWorthRequeuing(group, event, oldObj, newObj, incoming.label());
    if (s == Strategy::Skip) continue;
    const QueueName q = requeue(std::move(group), s, incoming);
    if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) activated = true;
  }
}

void PriorityQueue::addPodGroup(framework::PodGroupPtr podGroup) {
  std::lock_guard lock(mu_);
  forest_.addPodGroup(podGroup);
  setPodGroupObjectLocked(podGroup);
  // The members that waited for it (upstream adds them one by one, as addPodGroupMember).
  for (QueuedPodInfo& p : incompleteMembers_.clear(podGroup->metadata.namespace_, podGroup->metadata.name))
    addPodGroupMemberLocked(std::move(p));
}

void PriorityQueue::updatePodGroup(framework::PodGroupPtr podGroup) {
  std::lock_guard lock(mu_);
  forest_.updatePodGroup(podGroup);
  setPodGroupObjectLocked(podGroup);
}

void PriorityQueue::setPodGroupObjectLocked(const framework::PodGroupPtr& podGroup) {
  const std::string key = framework::podGroupKey(podGroup->metadata.namespace_, podGroup->metadata.name);
  // The queued entity takes the new object (its priority may reorder it).
  if (const Group* g = activeGroups_.get(key)) {
    Group copy = *g;
    copy.group.podGroup = podGroup;
    activeGroups_.addOrUpdate(std::move(copy));
  } else if (const Group* b = groupBackoffQ_.get(key)) {
    Group copy = *b;
    copy.group.podGroup = podGroup;
    groupBackoffQ_.update(std::move(copy));
  } else if (auto it = unschedulableGroups_.find(key); it != unschedulableGroups_.end()) {
    it->second.group.podGroup = podGroup;
  }
}

void PriorityQueue::deletePodGroup(const api::PodGroup& podGroup) {
  std::lock_guard lock(mu_);
  const std::optional<std::string> root = forest_.rootKeyForPodGroup(podGroup);
  forest_.deletePodGroup(podGroup);
  if (!root) return;
  sortPods_.erase(*root);
  auto taken = takeGroupLocked(*root);
  if (!taken) {
    // Not queued: its members are scheduled or gone, unless its cycle runs (those in the pending buffer).
    if (lastPoppedGroup_ != *root) return;
    for (QueuedPodInfo& p : pendingMembers_.clear(podGroup.metadata.namespace_, podGroup.metadata.name))
      incompleteMembers_.add(std::move(p));
    return;
  }
  // The root itself goes: every member waits for the group to be observed again.
  for (QueuedPodInfo& p : taken->first.pods) incompleteMembers_.add(std::move(p));
}

Result<void> PriorityQueue::addAttemptedPodGroupIfNeeded(Group group, int64_t schedulingCycle,
                                                         const framework::Status& status) {
  std::lock_guard lock(mu_);
  const std::string key = group.group.key();
  if (unschedulableGroups_.count(key)) return Error("pod group " + key + " is already present in unschedulable queue");
  if (activeGroups_.has(key)) return Error("pod group " + key + " is already present in the active queue");
  if (groupBackoffQ_.has(key)) return Error("pod group " + key + " is already present in the backoff queue");
  lastPoppedGroup_.clear();
  std::vector<QueuedPodInfo> pending = pendingMembers_.clear(group.group.namespace_, group.group.name);
  if (pending.empty()) return {};  // nothing left to schedule
  // Some member tried in this cycle failed (it came back through addUnschedulableIfNotPresent).
  const bool hadFailedMembers = std::any_of(pending.begin(), pending.end(), [&](const QueuedPodInfo& p) {
    return std::any_of(group.pods.begin(), group.pods.end(), [&](const QueuedPodInfo& tried) {
      return tried.pod().metadata.uid == p.pod().metadata.uid;
    });
  });
  std::optional<Group> requeued = forest_.buildQueuedPodGroupInfo(key);
  if (!requeued) {
    // The group went meanwhile (deletePodGroup moves the pending members already; defensive).
    for (QueuedPodInfo& p : pending) incompleteMembers_.add(std::move(p));
    return {};
  }
  for (QueuedPodInfo& p : pending) addPodToGroup(*requeued, std::move(p));
  copyQueueingParams(group, *requeued);
  Group& g = *requeued;
  bool withoutBackoff = false;
  bool keepTimestamp = false;
  if (status.isSuccess()) {
    // The rest of the group goes straight back; with failed members it keeps its timestamp, so that it
    // is retried (and preempts) next unless something more important arrived.
    withoutBackoff = true;
    keepTimestamp = hadFailedMembers;
    g.consecutiveErrorsCount = 0;
    g.unschedulableCount = 0;
  } else if (status.isRejected()) {
    g.unschedulableCount++;
    g.consecutiveErrorsCount = 0;
    g.backoffExpiration = framework::TimePoint{};
  } else {
    g.consecutiveErrorsCount++;
    g.backoffExpiration = framework::TimePoint{};
  }
  if (!keepTimestamp) g.timestamp = arrivalTimeLocked();
  g.wasFlushedFromUnschedulable = false;
  g.flushTimestamp.reset();
  QueueName q = QueueName::UnschedulablePods;
  if (!withoutBackoff && groupBackoffQ_.isPodBackingOff(g)) {
    if (moveToBackoffQ(std::move(g), scheduleAttemptFailure_)) q = QueueName::BackoffQ;
  } else if (moveToActiveQ(std::move(g), scheduleAttemptFailure_)) {
    q = QueueName::ActiveQ;
  }
  spdlog::debug("Pod group moved to an internal scheduling queue podGroup={} queue={} schedulingCycle={}", key,
                static_cast<int>(q), schedulingCycle);
  if (q == QueueName::ActiveQ || (options_.popFromBackoffQ && q == QueueName::BackoffQ)) cond_.notify_all();
  return {};
}

std::pair<QueueName, const QueuedPodInfo*> PriorityQueue::locateMemberLocked(const std::string& podKey) const {
  const auto slash = podKey.find('/');
  if (slash == std::string::npos) return {QueueName::None, nullptr};
  const std::string_view ns = std::string_view(podKey).substr(0, slash);
  const std::string_view name = std::string_view(podKey).substr(slash + 1);
  std::pair<QueueName, const QueuedPodInfo*> found{QueueName::None, nullptr};
  auto in = [&](QueueName q) {
    return [&, q](const Group& g) {
      if (found.second == nullptr) {
        if (const QueuedPodInfo* p = findPodInGroup(g, ns, name)) found = {q, p};
      }
    };
  };
  activeGroups_.forEach(in(QueueName::ActiveQ));
  groupBackoffQ_.forEach(in(QueueName::BackoffQ));
  for (const auto& [key, g] : unschedulableGroups_) in(QueueName::UnschedulablePods)(g);
  auto buffered = [&](const PodGroupMemberPods& buffer, QueueName q) {
    buffer.forEach([&](const QueuedPodInfo& p) {
      if (found.second == nullptr && p.pod().metadata.name == name && p.pod().metadata.namespace_ == ns)
        found = {q, &p};
    });
  };
  buffered(pendingMembers_, QueueName::PendingPodGroupPods);
  buffered(incompleteMembers_, QueueName::IncompletePodGroupPods);
  return found;
}

const QueuedPodInfo* PriorityQueue::findMemberLocked(const api::Pod& pod) const {
  if (const Group* g = findGroupLocked(podGroupKeyOfPod(pod))) {
    if (const QueuedPodInfo* p = findPodInGroup(*g, pod.metadata.namespace_, pod.metadata.name)) return p;
  }
  if (const QueuedPodInfo* p = pendingMembers_.get(pod)) return p;
  return incompleteMembers_.get(pod);
}

std::vector<api::PodPtr> PriorityQueue::pendingPodGroupPods() const {
  std::lock_guard lock(mu_);
  return pendingMembers_.list();
}

std::vector<api::PodPtr> PriorityQueue::incompletePodGroupPods() const {
  std::lock_guard lock(mu_);
  return incompleteMembers_.list();
}

std::optional<framework::QueuedPodGroupInfo> PriorityQueue::getPodGroupForTest(const std::string& groupKey) const {
  std::lock_guard lock(mu_);
  if (const Group* g = findGroupLocked(groupKey)) return *g;
  return std::nullopt;
}

// ---- Pod change detection ----

namespace {

// Some request of `from` is missing from `to`, or is larger there (upstream extractPodScaleDown, and
// extractPodScaleUp with the two pods swapped).
bool someRequestDropped(const api::ResourceList& from, const api::ResourceList& to) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end() || q.milliValue() > it->second.milliValue()) return true;
  }
  return false;
}

}  // namespace

std::vector<ClusterEvent> podSchedulingPropertiesChange(const api::Pod& newPod, const api::Pod& oldPod,
                                                        bool isTargetPod, bool dynamicResourceAllocation) {
  // A scheduled pod is AssignedPod even when it is the pod being updated.
  const auto resource = !newPod.spec.nodeName.empty() ? framework::EventResource::AssignedPod
                        : isTargetPod                 ? framework::EventResource::TargetPod
                                                      : framework::EventResource::UnscheduledPod;
  std::vector<ClusterEvent> events;
  if (newPod.metadata.labels != oldPod.metadata.labels) events.push_back({resource, action::UpdatePodLabel});
  const api::PodRequestsOptions accounting = framework::accountingRequestOptions();
  const api::ResourceList newRequests = api::podRequests(newPod, accounting);
  const api::ResourceList oldRequests = api::podRequests(oldPod, accounting);
  if (someRequestDropped(oldRequests, newRequests)) events.push_back({resource, action::UpdatePodScaleDown});
  if (someRequestDropped(newRequests, oldRequests)) events.push_back({resource, action::UpdatePodScaleUp});
  if (newPod.spec.schedulingGates.empty() && !oldPod.spec.schedulingGates.empty()) {
    events.push_back({resource, action::UpdatePodSchedulingGatesEliminated});
  }
  // Upstream compares only the number of tolerations (they can only be added).
  if (newPod.spec.tolerations.size() != oldPod.spec.tolerations.size())
    events.push_back({resource, action::UpdatePodToleration});
  // resourceclaim.PodStatusEqual / PodExtendedStatusEqual: entries compared in order.
  if (dynamicResourceAllocation &&
      (newPod.status.resourceClaimStatuses != oldPod.status.resourceClaimStatuses ||
       newPod.status.extendedResourceClaimStatus != oldPod.status.extendedResourceClaimStatus)) {
    events.push_back({resource, action::UpdatePodGeneratedResourceClaim});
  }
  if (events.empty()) events.push_back({resource, action::UpdatePodOther});
  return events;
}

bool isPodUpdated(const api::Pod& oldPod, const api::Pod& newPod) {
  auto strip = [](const api::Pod& p) {
    api::Pod c = p;
    c.metadata.resourceVersion.clear();
    c.metadata.generation = 0;
    c.metadata.finalizers.clear();
    c.status = api::PodStatus{};
    // Changes of the claims generated for the pod may make it schedulable.
    c.status.resourceClaimStatuses = p.status.resourceClaimStatuses;
    c.status.extendedResourceClaimStatus = p.status.extendedResourceClaimStatus;
    return c;
  };
  return !(strip(oldPod) == strip(newPod));
}

}  // namespace ks::queue
