#include "pkg/scheduler/scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "pkg/informer/store.h"
#include "pkg/scheduler/extender/http_extender.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/util/clock.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/framework/sorted_nodes.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/util/strings.h"

namespace ks::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfoPtr;
using framework::PodInfo;
using framework::QueuedPodInfo;
using framework::Status;
using framework::runtime::Framework;

namespace {

std::string podName(const api::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}


}  // namespace

std::string_view attemptResultName(AttemptResult r) {
  switch (r) {
    case AttemptResult::Scheduled:
      return "Scheduled";
    case AttemptResult::Unschedulable:
      return "Unschedulable";
    case AttemptResult::Error:
      return "Error";
  }
  return "Error";
}

Scheduler::Scheduler(client::Client& client, SchedulerOptions options)
    : client_(client), options_(std::move(options)) {
  clock_ = options_.clock ? options_.clock : &realClock();
}

Scheduler::~Scheduler() {
  close();
}

Result<std::unique_ptr<Scheduler>> Scheduler::create(client::Client& client,
                                                     const config::KubeSchedulerConfiguration& cfg,
                                                     const framework::runtime::Registry& registry,
                                                     SchedulerOptions options) {
  if (cfg.profiles.empty()) return Error("profiles: at least one profile is required");
  std::unique_ptr<Scheduler> s(new Scheduler(client, std::move(options)));
  std::vector<config::KubeSchedulerProfile> profiles = cfg.profiles;
  if (auto r = s->buildExtenders(cfg.extenders, profiles); !r.ok()) return r.error().wrap("couldn't build extenders");
  s->percentageOfNodesToScore_ = cfg.percentageOfNodesToScore.value_or(0);
  // Go runs `parallelism` goroutines on GOMAXPROCS threads; more OS threads than cores only adds
  // context switches (measured: 16 workers on 2 cores halve throughput).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  s->parallelizer_ = std::make_shared<framework::parallelize::Parallelizer>(std::min(cfg.parallelism, cores));
  s->waitingPods_ = std::make_shared<framework::runtime::WaitingPodsMap>();
  s->podsInPreBind_ = std::make_shared<framework::runtime::PodsInPreBindMap>();
  s->cache_ = std::make_unique<cache::CacheImpl>(
      cache::CacheOptions{.clock = s->clock_, .logError = {}, .genericWorkload = s->options_.genericWorkload});
  if (s->options_.dynamicResourceAllocation && s->options_.informerFactory != nullptr) {
    s->draManager_ = std::make_unique<plugins::dynamicresources::DefaultDRAManager>(
        *s->options_.informerFactory, s->options_.draConsumableCapacity, s->options_.draDeviceTaintRules,
        s->options_.draExtendedResource);
  }

  for (const auto& profile : profiles) {
    if (auto implemented = plugins::checkProfileImplemented(profile, registry); !implemented.ok()) {
      return implemented.error();
    }
    framework::runtime::FrameworkOptions fo;
    fo.snapshotSharedLister = &s->snapshot_;
    fo.mutableSnapshotSharedLister = &s->snapshot_;
    fo.client = &client;
    fo.informerFactory = s->options_.informerFactory;
    fo.sharedDRAManager = s->draManager_.get();
    fo.eventRecorder = s->options_.eventRecorder;
    fo.parallelizer = s->parallelizer_;
    fo.waitingPods = s->waitingPods_;
    fo.podsInPreBind = s->podsInPreBind_;
    fo.clock = s->clock_;
    fo.metrics = s->options_.metrics;
    fo.enableOpportunisticBatching = s->options_.enableOpportunisticBatching;
    fo.extenders = s->extenders_;
    fo.enableGenericWorkload = s->options_.genericWorkload;
    if (s->options_.genericWorkload) fo.podGroupManager = s->cache_.get();
    auto fw = Framework::create(registry, profile, fo);
    if (!fw.ok()) return fw.error().wrap("initializing profile \"" + profile.schedulerName + "\"");
    if (s->profiles_.count(profile.schedulerName)) {
      return Error("duplicate profile with scheduler name \"" + profile.schedulerName + "\"");
    }
    s->profiles_.emplace(profile.schedulerName, std::move(fw).value());
    if (s->options_.metrics)
      s->metricProfiles_[profile.schedulerName] = s->options_.metrics->profile(profile.schedulerName);
  }

  if (s->options_.genericWorkload && s->options_.metrics) s->options_.metrics->registerPodGroupMetrics();
  std::map<std::string, queue::ProfileHooks> hooks;
  for (auto& [name, fw] : s->profiles_) {
    auto h = queue::hooksFromFramework(*fw);
    if (!h.ok()) return h.error().wrap("profile \"" + name + "\"");
    for (const auto& pe : h->pluginEvents) {
      for (const auto& e : pe.events) s->interestingResources_.insert(e.event.resource);
    }
    hooks.emplace(name, std::move(h).value());
  }
  queue::QueueOptions qo;
  qo.clock = s->clock_;
  qo.podInitialBackoff = std::chrono::seconds(cfg.podInitialBackoffSeconds);
  qo.podMaxBackoff = std::chrono::seconds(cfg.podMaxBackoffSeconds);
  qo.podMaxInUnschedulablePodsDuration = s->options_.podMaxInUnschedulablePodsDuration;
  qo.popFromBackoffQ = s->options_.popFromBackoffQ;
  qo.dynamicResourceAllocation = s->options_.dynamicResourceAllocation;
  qo.enableOpportunisticBatching = s->options_.enableOpportunisticBatching;
  qo.genericWorkload = s->options_.genericWorkload;
  if (s->options_.queueOptions) {
    qo = *s->options_.queueOptions;
    if (!qo.clock) qo.clock = s->clock_;
  }
  if (qo.metrics == nullptr) qo.metrics = s->options_.metrics;
  s->queue_ = std::make_unique<queue::PriorityQueue>(s->profiles_.begin()->second->queueSortFunc(),
                                                     std::move(hooks), qo);
  for (auto& [name, fw] : s->profiles_) {
    fw->setPodNominator(s->queue_.get());
    fw->setPodActivator([q = s->queue_.get()](const std::vector<api::PodPtr>& pods) { q->activate(pods); });
  }
  // spdlog creates its default logger on first use, inside the (uninstrumented) shared library: create it
  // before the scheduling and binding threads may first log at once, so ThreadSanitizer sees it published.
  (void)spdlog::default_logger_raw();
  s->bindingPool_ = std::make_unique<WorkerPool>(std::max(1, s->options_.bindingWorkers));
  if (s->options_.metrics) {
    s->bindingGoroutines_ = s->options_.metrics->goroutines(metrics::kBindingOperation);
    s->prioritizingExtenderGoroutines_ = s->options_.metrics->goroutines(metrics::kPrioritizingExtenderOperation);
  }
  return s;
}

std::function<void(std::string_view, double, extender::CallError)> Scheduler::extenderCallObserver(
    const std::string& extenderName) {
  metrics::Metrics* m = options_.metrics;
  if (m == nullptr) return {};
  // The four verbs' duration series, resolved once; error series are looked up when an error happens.
  struct Series {
    std::map<std::string, metrics::HistogramRef, std::less<>> duration;
  };
  auto series = std::make_shared<Series>();
  for (std::string_view verb : {"filter", "prioritize", "preempt", "bind"}) {
    series->duration.emplace(std::string(verb), m->extenderRequestDurationRef(extenderName, verb));
  }
  return [m, series, extenderName](std::string_view verb, double seconds, extender::CallError error) {
    // Response errors are found after the call was observed: they count as errors only.
    if (error != extender::CallError::Response) {
      if (auto it = series->duration.find(verb); it != series->duration.end()) it->second.observe(seconds);
    }
    if (error != extender::CallError::None) {
      m->extenderErrorsRef(extenderName, verb, extender::callErrorName(error)).inc();
    }
  };
}

Result<void> Scheduler::buildExtenders(const std::vector<config::Extender>& configured,
                                       std::vector<config::KubeSchedulerProfile>& profiles) {
  std::vector<std::string> ignoredExtendedResources;
  std::vector<framework::Extender*> ignorable;
  for (const auto& e : configured) {
    auto ext = extender::HTTPExtender::create(e, extenderCallObserver(e.urlPrefix));
    if (!ext.ok()) return ext.error();
    framework::Extender* raw = ext->get();
    ownedExtenders_.push_back(std::move(ext).value());
    (raw->isIgnorable() ? ignorable : extenders_).push_back(raw);
    for (const auto& r : e.managedResources) {
      if (r.ignoredByScheduler) ignoredExtendedResources.push_back(r.name);
    }
  }
  // Ignorable extenders last.
  extenders_.insert(extenders_.end(), ignorable.begin(), ignorable.end());
  extenders_.insert(extenders_.end(), options_.extenders.begin(), options_.extenders.end());
  for (framework::Extender* e : extenders_) extenderNames_.push_back(e->name());
  if (ignoredExtendedResources.empty()) return {};
  // The resources the extenders manage and the scheduler should not count replace NodeResourcesFit's
  // ignoredResources in every profile.
  for (auto& profile : profiles) {
    bool found = false;
    for (auto& pc : profile.pluginConfig) {
      if (pc.name != "NodeResourcesFit") continue;
      const auto* args = dynamic_cast<const config::NodeResourcesFitArgs*>(pc.args.get());
      if (args == nullptr) return Error("want args to be of type NodeResourcesFitArgs");
      auto updated = std::make_shared<config::NodeResourcesFitArgs>(*args);
      updated->ignoredResources = ignoredExtendedResources;
      pc.args = std::move(updated);
      found = true;
      break;
    }
    if (!found) return Error("can't find NodeResourcesFitArgs in plugin config");
  }
  return {};
}

bool Scheduler::servesSchedulerName(const std::string& name) const {
  return profiles_.count(name) != 0;
}

Framework* Scheduler::frameworkForPod(const api::Pod& pod) const {
  auto it = profiles_.find(api::schedulerNameOf(pod));
  return it == profiles_.end() ? nullptr : it->second.get();
}

void Scheduler::run(std::stop_token stop) {
  queue_->run();
  std::stop_callback onStop(stop, [this] { queue_->close(); });
  std::jthread gauges;
  if (options_.metrics) {
    gauges = std::jthread([this](std::stop_token s) {
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock lock(mu);
      while (!cv.wait_for(lock, s, std::chrono::seconds(1), [] { return false; })) {
        if (s.stop_requested()) return;
        updateGauges();
      }
    });
  }
  while (!stop.stop_requested() && scheduleOne()) {
    if (options_.metrics) updateGauges();
  }
}

metrics::ProfileId Scheduler::metricsProfile(const Framework& fw) const {
  auto it = metricProfiles_.find(fw.profileName());
  return it == metricProfiles_.end() ? metrics::ProfileId() : it->second;
}

void Scheduler::updateGauges() {
  metrics::Metrics& m = *options_.metrics;
  const queue::PendingCounts c = queue_->pendingCounts();
  m.pendingPods(metrics::Queue::Active).set(static_cast<double>(c.active));
  m.pendingPods(metrics::Queue::Backoff).set(static_cast<double>(c.backoff));
  m.pendingPods(metrics::Queue::Unschedulable).set(static_cast<double>(c.unschedulable));
  m.pendingPods(metrics::Queue::Gated).set(static_cast<double>(c.gated));
  m.setQueuedPodEntities(metrics::Queue::Active, static_cast<double>(c.active));
  m.setQueuedPodEntities(metrics::Queue::Backoff, static_cast<double>(c.backoff));
  m.setQueuedPodEntities(metrics::Queue::Unschedulable, static_cast<double>(c.unschedulable));
  m.setQueuedPodEntities(metrics::Queue::Gated, static_cast<double>(c.gated));
  m.cacheSize(metrics::CacheItem::Nodes).set(cache_->nodeCount());
  m.cacheSize(metrics::CacheItem::Pods).set(cache_->podCount());
  m.cacheSize(metrics::CacheItem::AssumedPods).set(static_cast<double>(cache_->assumedPodCount()));
}

void Scheduler::close() {
  if (closed_) return;
  closed_ = true;
  // First, so that bindings waiting in PreBind (volume binding) end before the pool drains.
  for (auto& [name, fw] : profiles_) fw->requestStop();
  if (queue_) queue_->close();
  if (bindingPool_) bindingPool_->close();
}

void Scheduler::waitForBindings() {
  bindingPool_->waitIdle();
}

void Scheduler::recordEvent(const api::Pod& pod, std::string_view type, std::string_view reason,
                            std::string_view action, std::string note) {
  if (options_.eventRecorder == nullptr) return;
  const api::ObjectReference ref = podReference(pod);
  options_.eventRecorder->eventf(ref, nullptr, type, reason, action, std::move(note));
}

// ---- Scheduling cycle ----

bool Scheduler::scheduleOne() {
  std::optional<queue::QueuedEntity> popped = queue_->popEntity();
  if (!popped) return false;
  if (auto* group = std::get_if<framework::QueuedPodGroupInfo>(&*popped)) {
    scheduleOnePodGroup(std::move(*group));
  } else {
    scheduleOnePod(std::move(std::get<QueuedPodInfo>(*popped)));
  }
  return true;
}

bool Scheduler::skipPodSchedule(const api::Pod& pod) {
  // Skip pods being deleted, and pods already assumed (an update raced with their binding).
  if (pod.metadata.deletionTimestamp.has_value()) {
    recordEvent(pod, "Warning", "FailedScheduling", "Scheduling", "skip schedule deleting pod: " + podName(pod));
    return true;
  }
  auto assumed = cache_->isAssumedPod(pod);
  return assumed.ok() && *assumed;
}

std::shared_ptr<CycleState> Scheduler::newCycleState() {
  auto state = std::make_shared<CycleState>();
  // Per-plugin durations are recorded in a sample of the cycles, as upstream.
  if (options_.metrics) {
    state->setRecordPluginMetrics(static_cast<int>(sampleRng_() % 100) <
                                  framework::runtime::kPluginMetricsSamplePercent);
  }
  return state;
}

void Scheduler::report(AttemptRecord* record, AttemptResult result, std::string node, std::string message) {
  if (record == nullptr) return;
  record->result = result;
  record->node = std::move(node);
  record->message = std::move(message);
  options_.observer->onAttempt(*record);
}

void Scheduler::scheduleOnePod(QueuedPodInfo pInfo) {
  // Held for the whole cycle: the failure handler replaces pInfo's PodInfo with the informer's version.
  const api::PodPtr podPtr = pInfo.podInfo->podPtr();
  const api::Pod& pod = *podPtr;
  Framework* fw = frameworkForPod(pod);
  if (fw == nullptr) {
    spdlog::error("no profile for scheduler name \"{}\" of pod {}", api::schedulerNameOf(pod), podName(pod));
    queue_->done(pod.metadata.uid);
    return;
  }
  if (skipPodSchedule(pod)) {
    queue_->done(pod.metadata.uid);
    return;
  }

  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<CycleState> state = newCycleState();
  AttemptRecord record;
  AttemptRecord* rec = options_.observer ? &record : nullptr;
  if (rec) {
    rec->pod = podPtr;
    rec->profile = fw->profileName();
  }

  // What PostFilter hands off (the asynchronous preemption) starts once the failure handler has written
  // the pod's status (framework::Handle::handOff), at the latest when this function returns.
  std::optional<HandOffHold> handOffs;
  AlgorithmResult result;
  if (auto r = cache_->updateSnapshot(snapshot_); !r.ok()) {
    result.status = Status::error(r.error().message());
  } else {
    result = schedulingAlgorithm(*fw, *state, pInfo, rec, /*podGroupCycle=*/false, handOffs);
  }
  if (!result.status.isSuccess()) {
    report(rec, result.status.isRejected() ? AttemptResult::Unschedulable : AttemptResult::Error, "",
           result.status.message());
    handleSchedulingFailure(*fw, pInfo, result.status, result.fitError, result.nominating, start);
    return;
  }
  QueuedPodInfo assumed;
  std::optional<FitError> fitError;
  if (Status s = prepareForBindingCycle(*fw, *state, pInfo, result.host, assumed, fitError); !s.isSuccess()) {
    report(rec, s.isRejected() ? AttemptResult::Unschedulable : AttemptResult::Error, result.host, s.message());
    handleSchedulingFailure(*fw, assumed, s, fitError, kClearNominatedNode, start);
    return;
  }
  report(rec, AttemptResult::Scheduled, result.host, "");
  submitBindingCycle(*fw, std::move(state), std::move(assumed), result.host, start);
}

Scheduler::AlgorithmResult Scheduler::schedulingAlgorithm(Framework& fw, CycleState& state,
                                                          const QueuedPodInfo& pInfo, AttemptRecord* record,
                                                          bool podGroupCycle, std::optional<HandOffHold>& handOffs) {
  const auto start = std::chrono::steady_clock::now();
  AlgorithmResult out;
  std::optional<FitError> fitError;
  auto result = schedulePod(fw, state, *pInfo.podInfo, pInfo.podSignature, fitError, record);
  if (options_.metrics) {
    options_.metrics->observeSchedulingAlgorithm(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (result.ok() && !fitError) {
    out.host = result->suggestedHost;
    return out;
  }
  if (!result.ok()) {
    out.nominating = kClearNominatedNode;
    if (result.error().message() == kNoNodesAvailableMsg) {
      out.status = Status(Code::UnschedulableAndUnresolvable, std::vector<std::string>{std::string(kNoNodesAvailableMsg)});
    } else {
      out.status = Status::error(result.error().message());
    }
    return out;
  }
  // No node fits. In a pod-group cycle the group's PostFilter runs once at its end instead, and the
  // nomination is left as it is until then (upstream's nil NominatingInfo).
  if (podGroupCycle) {
    out.nominating = framework::NominatingInfo{};
  } else if (!fw.hasPostFilterPlugins()) {
    out.nominating = kClearNominatedNode;
  } else {
    handOffs.emplace(fw);
    framework::PostFilterResult pfr;
    Status pfs = fw.runPostFilterPlugins(state, *pInfo.podInfo, fitError->diagnosis.nodeToStatus, pfr);
    fitError->diagnosis.postFilterMsg = pfs.message();
    out.nominating = pfr.nominatingInfo;
    if (record && out.nominating.mode == framework::NominatingMode::Override) {
      record->nominatedNode = out.nominating.nominatedNodeName;
    }
  }
  out.status = Status(Code::Unschedulable, std::vector<std::string>{fitError->message()});
  out.fitError = std::move(fitError);
  return out;
}

Status Scheduler::assumeAndReserve(Framework& fw, CycleState& state, const QueuedPodInfo& pInfo,
                                   const std::string& host, bool inSnapshot, QueuedPodInfo& assumed,
                                   std::optional<FitError>& fitError) {
  // The assumed copy: the cache (or, in a pod-group cycle, the snapshot) accounts the pod on the host while
  // binding runs asynchronously.
  auto assumedPod = std::make_shared<api::Pod>(pInfo.pod());
  assumedPod->spec.nodeName = host;
  assumed = pInfo;
  assumed.podInfo = PodInfo::create(assumedPod);
  if (inSnapshot) {
    if (auto r = snapshot_.assumePod(assumed.podInfo); !r.ok()) {
      spdlog::error("Scheduler snapshot AssumePod failed: {}", r.error().message());
      return Status::error(r.error().message());
    }
  } else if (auto r = cache_->assumePod(assumedPod); !r.ok()) {
    spdlog::error("Scheduler cache AssumePod failed: {}", r.error().message());
    return Status::error(r.error().message());
  }
  queue_->deleteNominatedPodIfExists(*assumedPod);
  if (Status s = fw.runReservePluginsReserve(state, *assumed.podInfo, host); !s.isSuccess()) {
    unreserveAndForget(fw, state, assumed, host, inSnapshot);
    return rejectionOnHost(s, host, fitError);
  }
  return Status::success();
}

void Scheduler::unreserveAndForget(Framework& fw, CycleState& state, const QueuedPodInfo& assumed,
                                   const std::string& host, bool inSnapshot) {
  fw.runReservePluginsUnreserve(state, *assumed.podInfo, host);
  if (!inSnapshot) {
    if (auto r = cache_->forgetPod(assumed.pod()); !r.ok()) {
      spdlog::error("scheduler cache ForgetPod failed: {}", r.error().message());
    }
    return;
  }
  if (auto r = snapshot_.forgetPod(assumed.pod()); !r.ok()) {
    spdlog::error("scheduler snapshot ForgetPod failed: {}", r.error().message());
  }
  // The nomination assumeAndReserve dropped comes back: the pod is still pending.
  if (!assumed.pod().status.nominatedNodeName.empty()) {
    queue_->addNominatedPod(assumed.podInfo, framework::NominatingInfo{assumed.pod().status.nominatedNodeName,
                                                                       framework::NominatingMode::Override});
  }
}

Status Scheduler::rejectionOnHost(const Status& s, const std::string& host, std::optional<FitError>& fitError) {
  if (!s.isRejected()) return s;
  // A rejection at Reserve or Permit reads like a FitError on that one node.
  FitError fe;
  fe.numAllNodes = 1;
  fe.diagnosis.nodeToStatus.set(host, s);
  fe.diagnosis.addPluginStatus(s);
  Status failure(s.code(), std::vector<std::string>{fe.message()});
  fitError = std::move(fe);
  return failure;
}

Status Scheduler::prepareForBindingCycle(Framework& fw, CycleState& state, const QueuedPodInfo& pInfo,
                                         const std::string& host, QueuedPodInfo& assumed,
                                         std::optional<FitError>& fitError) {
  if (Status s = assumeAndReserve(fw, state, pInfo, host, /*inSnapshot=*/false, assumed, fitError);
      !s.isSuccess()) {
    return s;
  }
  if (Status s = fw.runPermitPlugins(state, *assumed.podInfo, host); !s.isSuccess() && !s.isWait()) {
    unreserveAndForget(fw, state, assumed, host, /*inSnapshot=*/false);
    return rejectionOnHost(s, host, fitError);
  }
  return Status::success();
}

void Scheduler::submitBindingCycle(Framework& fw, std::shared_ptr<CycleState> state, QueuedPodInfo assumed,
                                   const std::string& host, std::chrono::steady_clock::time_point start) {
  bindingGoroutines_.inc();
  bindingPool_->submit([this, fw = &fw, state = std::move(state), assumed = std::move(assumed), host, start]() mutable {
    bindingCycle(*fw, std::move(state), std::move(assumed), host, start);
    bindingGoroutines_.dec();
  });
}

Result<Scheduler::ScheduleResult> Scheduler::schedulePod(Framework& fw, CycleState& state, const PodInfo& pod,
                                                         const framework::PodSignature& signature,
                                                         std::optional<FitError>& fitError,
                                                         AttemptRecord* record) {
  const int numNodes = snapshot_.numNodes();
  if (record) {
    record->allNodes.reserve(numNodes);
    for (const auto& ni : snapshot_.list()) record->allNodes.push_back(ni->nodeName());
  }
  if (numNodes == 0) return Error(std::string(kNoNodesAvailableMsg));

  Diagnosis diagnosis;
  std::string nodeHint;
  auto feasible = findNodesThatFitPod(fw, state, pod, signature, diagnosis, nodeHint);
  if (!feasible.ok()) return feasible.error();
  if (record) {
    record->filtered = diagnosis.nodeToStatus;
    record->preFilterRejected = !diagnosis.preFilterMsg.empty();
    for (const auto& ni : *feasible) record->feasibleNodes.push_back(ni->nodeName());
  }
  if (feasible->empty()) {
    fitError = FitError{numNodes, std::move(diagnosis)};
    return ScheduleResult{};
  }
  const int evaluated = static_cast<int>(feasible->size() + diagnosis.nodeToStatus.size());
  if (feasible->size() == 1) {
    const std::string& node = (*feasible)[0]->nodeName();
    fw.storeScheduleResults(signature, nodeHint, node, std::nullopt, queue_->schedulingCycle());
    return ScheduleResult{node, 1 + static_cast<int>(diagnosis.nodeToStatus.size()), 1};
  }

  auto prioritized = prioritizeNodes(fw, state, pod, *feasible);
  if (!prioritized.ok()) return prioritized.error();
  std::vector<framework::NodePluginScores> scores = std::move(prioritized).value();
  if (record) {
    for (const auto& ns : scores) {
      auto& perPlugin = record->scores[ns.name];
      for (const auto& ps : ns.scores) {
        const int weight = std::max(1, fw.scorePluginWeight(std::string(ps.name)));
        perPlugin[std::string(ps.name)] = ps.score / weight;
      }
      record->totalScores[ns.name] = ns.totalScore;
    }
  }
  // Highest total first; equal totals by the randomizer extenders' scores drew, then in heap order over the
  // feasible nodes, as upstream v1.37 chooses (no longer at random without extenders).
  framework::SortedScoredNodes ranked(std::move(scores));
  std::string host = ranked.pop().name;
  // The runners-up stay ranked for the next pod with the same signature (opportunistic batching).
  fw.storeScheduleResults(signature, nodeHint, host, std::move(ranked), queue_->schedulingCycle());
  return ScheduleResult{std::move(host), evaluated, static_cast<int>(feasible->size())};
}

Result<std::vector<NodeInfoPtr>> Scheduler::findNodesThatFitPod(Framework& fw, CycleState& state,
                                                                const PodInfo& pod,
                                                                const framework::PodSignature& signature,
                                                                Diagnosis& diagnosis, std::string& nodeHint) {
  const std::vector<NodeInfoPtr>& allNodes = snapshot_.list();
  framework::PreFilterResult preRes;
  std::set<std::string> pluginsWithNodes;
  Status s = fw.runPreFilterPlugins(state, pod, preRes, &pluginsWithNodes);
  // The plugins that narrowed the node set count as rejectors, also when PreFilter then failed (e.g. two
  // node sets without a common node): their events may make the pod schedulable.
  diagnosis.unschedulablePlugins.insert(pluginsWithNodes.begin(), pluginsWithNodes.end());
  if (!s.isSuccess()) {
    if (!s.isRejected()) return Error(s.message());
    // Every node gets PreFilter's status; its message replaces the per-node reasons.
    diagnosis.nodeToStatus.setAbsentNodesStatus(s);
    diagnosis.preFilterMsg = s.message();
    diagnosis.addPluginStatus(s);
    return std::vector<NodeInfoPtr>{};
  }

  // Opportunistic batching's hint (asked even with a nominated node, as upstream; the batch then drops).
  nodeHint = fw.getNodeHint(pod, signature, state, queue_->schedulingCycle());
  // A node nominated by an earlier preemption is likely the only one that fits: try it first; else the
  // hinted node. Its failure is part of the diagnosis (the node's reason, its plugin, and the start-index
  // rotation).
  const std::string& nominated = pod.pod().status.nominatedNodeName;
  const std::string& first = nominated.empty() ? nodeHint : nominated;
  if (!first.empty()) {
    if (auto ni = snapshot_.get(first); ni.ok()) {
      auto feasible = findNodesThatPassFilters(fw, state, pod, diagnosis, {*ni});
      if (feasible.ok()) {
        feasible = findNodesThatPassExtenders(extenders_, pod.pod(), std::move(feasible).value(),
                                              diagnosis.nodeToStatus);
      }
      if (!feasible.ok()) {
        spdlog::error("Evaluation failed on nominated node pod={} node={}: {}", podName(pod.pod()), first,
                      feasible.error().message());
      } else if (!feasible->empty()) {
        return feasible;
      }
    }
  }

  std::vector<NodeInfoPtr> nodes;
  const std::vector<NodeInfoPtr>* candidates = &allNodes;
  if (!preRes.allNodes()) {
    // The allowed names come as a set, i.e. in name order (upstream iterates its set in random order).
    // Names the snapshot doesn't know are dropped.
    for (const auto& name : *preRes.nodeNames) {
      if (auto ni = snapshot_.get(name); ni.ok()) nodes.push_back(*ni);
    }
    const std::vector<std::string> plugins(pluginsWithNodes.begin(), pluginsWithNodes.end());
    diagnosis.nodeToStatus.setAbsentNodesStatus(
        Status(Code::UnschedulableAndUnresolvable,
               std::vector<std::string>{"node(s) didn't satisfy plugin(s) [" + join(plugins, " ") + "]"})
            .withPlugin(join(plugins, ",")));
    candidates = &nodes;
  }
  auto feasible = findNodesThatPassFilters(fw, state, pod, diagnosis, *candidates);
  const int processed =
      static_cast<int>((feasible.ok() ? feasible->size() : 0) + diagnosis.nodeToStatus.size());
  if (!allNodes.empty())
    nextStartNodeIndex_ = (nextStartNodeIndex_ + processed) % static_cast<int>(allNodes.size());
  if (!feasible.ok()) return feasible;
  const size_t beforeExtenders = feasible->size();
  auto afterExtenders =
      findNodesThatPassExtenders(extenders_, pod.pod(), std::move(feasible).value(), diagnosis.nodeToStatus);
  // Extenders register no events: when they rejected nodes, any event may make the pod schedulable.
  if (afterExtenders.ok() && afterExtenders->size() != beforeExtenders) {
    diagnosis.unschedulablePlugins.insert(std::string(framework::kExtenderName));
  }
  return afterExtenders;
}

bool Scheduler::hasScoring(const Framework& fw) const {
  if (fw.hasScorePlugins()) return true;
  return std::any_of(extenders_.begin(), extenders_.end(),
                     [](const framework::Extender* e) { return e->isPrioritizer(); });
}

bool Scheduler::hasExtenderFilters() const {
  return std::any_of(extenders_.begin(), extenders_.end(),
                     [](const framework::Extender* e) { return e->isFilter(); });
}

Result<std::vector<NodeInfoPtr>> findNodesThatPassExtenders(const std::vector<framework::Extender*>& extenders,
                                                            const api::Pod& pod, std::vector<NodeInfoPtr> feasible,
                                                            framework::NodeToStatus& statuses) {
  for (framework::Extender* extender : extenders) {
    if (feasible.empty()) break;
    if (!extender->isInterested(pod)) continue;
    auto result = extender->filter(pod, feasible);
    if (!result.ok()) {
      if (extender->isIgnorable()) {
        spdlog::info("Skipping extender as it returned error and has ignorable flag set extender={} err=\"{}\"",
                     extender->name(), result.error().message());
        continue;
      }
      return result.error();
    }
    // The statuses name the extender (upstream's name none) so that `explain` shows whose verdict it was;
    // the FitError reads only their messages.
    for (const auto& [node, msg] : result->failedAndUnresolvableNodes) {
      statuses.set(node, Status(Code::UnschedulableAndUnresolvable, msg).withPlugin(extender->name()));
    }
    for (const auto& [node, msg] : result->failedNodes) {
      if (result->failedAndUnresolvableNodes.count(node) != 0) continue;  // the unresolvable one stands
      statuses.set(node, Status(Code::Unschedulable, msg).withPlugin(extender->name()));
    }
    feasible = std::move(result->nodes);
  }
  return feasible;
}

Result<std::vector<framework::NodePluginScores>> Scheduler::prioritizeNodes(Framework& fw, CycleState& state,
                                                                            const PodInfo& pod,
                                                                            const std::vector<NodeInfoPtr>& nodes) {
  std::vector<framework::NodePluginScores> scores;
  // Without any scoring every node scores 1.
  if (extenders_.empty() && !fw.hasScorePlugins()) {
    scores.reserve(nodes.size());
    for (const auto& ni : nodes) scores.push_back(framework::NodePluginScores{ni->nodeName(), {}, 1});
    return scores;
  }
  if (Status s = fw.runPreScorePlugins(state, pod, nodes); !s.isSuccess()) return Error(s.message());
  if (Status s = fw.runScorePlugins(state, pod, nodes, scores); !s.isSuccess()) return Error(s.message());
  if (extenders_.empty() || nodes.empty()) return scores;

  // Each interested extender on a thread of its own (upstream's goroutines); their scores are summed per
  // node under a lock, in the order the extenders answer.
  struct ExtenderScores {
    std::vector<framework::PluginScore> scores;
    int64_t total = 0;
  };
  std::map<std::string, ExtenderScores, std::less<>> byNode;
  std::mutex mu;
  const api::Pod& p = pod.pod();
  auto run = [&](size_t i) {
    prioritizingExtenderGoroutines_.inc();
    auto result = extenders_[i]->prioritize(p, nodes);
    prioritizingExtenderGoroutines_.dec();
    if (!result.ok()) {
      // The others (and the plugins) decide without this extender's scores.
      spdlog::debug("Failed to run extender's priority function. No score given by this extender. error=\"{}\" "
                    "pod={} extender={}",
                    result.error().message(), podName(p), extenderNames_[i]);
      return;
    }
    std::lock_guard lock(mu);
    for (const auto& hp : result->priorities) {
      // Extender scores are 0..MaxExtenderPriority; the plugins' 0..MaxNodeScore.
      const int64_t finalScore =
          hp.score * result->weight * (framework::kMaxNodeScore / framework::kMaxExtenderPriority);
      ExtenderScores& e = byNode[hp.host];
      e.scores.push_back(framework::PluginScore{extenderNames_[i], finalScore});
      e.total += finalScore;
    }
  };
  std::vector<size_t> interested;
  for (size_t i = 0; i < extenders_.size(); ++i) {
    if (extenders_[i]->isInterested(p)) interested.push_back(i);
  }
  if (interested.size() == 1) {
    run(interested[0]);  // no thread to hand one call to
  } else {
    std::vector<std::jthread> threads;
    for (size_t i : interested) threads.emplace_back(run, i);
  }  // joins
  std::lock_guard lock(randomizerMu_);
  for (auto& ns : scores) {
    auto it = byNode.find(ns.name);
    if (it == byNode.end()) continue;
    ns.scores.insert(ns.scores.end(), it->second.scores.begin(), it->second.scores.end());
    ns.totalScore += it->second.total;
    ns.randomizer = static_cast<int64_t>(randomizer_() >> 1);  // Go's rand.Int(): non-negative
  }
  return scores;
}

std::optional<Status> extendersBinding(const std::vector<framework::Extender*>& extenders, const api::Pod& pod,
                                       const std::string& node) {
  for (framework::Extender* extender : extenders) {
    if (!extender->isBinder() || !extender->isInterested(pod)) continue;
    auto r = extender->bind(
        framework::ExtenderBinding{pod.metadata.name, pod.metadata.namespace_, pod.metadata.uid, node});
    if (!r.ok() && extender->isIgnorable()) {
      spdlog::info("Skipping extender in bind as it returned error and has ignorable flag set extender={} err=\"{}\"",
                   extender->name(), r.error().message());
      continue;
    }
    return r.ok() ? Status::success() : Status::error(r.error().message());
  }
  return std::nullopt;
}

int numFeasibleNodesToFind(std::optional<int32_t> profilePercentage, int32_t globalPercentage,
                           int numAllNodes) {
  if (numAllNodes < kMinFeasibleNodesToFind) return numAllNodes;
  int percentage = profilePercentage.has_value() ? *profilePercentage : globalPercentage;
  if (percentage == 0) {
    percentage = 50 - numAllNodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) percentage = kMinFeasibleNodesPercentageToFind;
  }
  const int numNodes = static_cast<int>(static_cast<int64_t>(numAllNodes) * percentage / 100);
  return numNodes < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : numNodes;
}

Result<std::vector<NodeInfoPtr>> Scheduler::findNodesThatPassFilters(Framework& fw, CycleState& state,
                                                                     const PodInfo& pod, Diagnosis& diagnosis,
                                                                     const std::vector<NodeInfoPtr>& nodes) {
  const int numAllNodes = static_cast<int>(nodes.size());
  if (numAllNodes == 0) return std::vector<NodeInfoPtr>{};
  // Without scoring or extender filters any feasible node is as good as another: take the first one from
  // the rotating start.
  const int numNodesToFind =
      hasExtenderFilters() || hasScoring(fw)
          ? numFeasibleNodesToFind(fw.percentageOfNodesToScore(), percentageOfNodesToScore_, numAllNodes)
          : 1;
  const int startIndex = nextStartNodeIndex_ % numAllNodes;
  if (!fw.hasFilterPlugins()) {
    std::vector<NodeInfoPtr> feasible;
    feasible.reserve(numNodesToFind);
    for (int i = 0; i < numNodesToFind; ++i) feasible.push_back(nodes[(startIndex + i) % numAllNodes]);
    return feasible;
  }

  // The Filter extension point is timed here, over all nodes of the cycle (RunFilterPlugins runs per
  // node), as upstream; this includes the nominated pods' PreFilter AddPod calls.
  const auto filterStart = std::chrono::steady_clock::now();
  auto observeFilter = [&](Code code) {
    if (options_.metrics == nullptr) return;
    options_.metrics->observeExtensionPoint(
        metrics::ExtensionPoint::Filter, code, fw.metricsProfile(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - filterStart).count());
  };
  // Which nodes passed, by position in the rotated order: the feasible list keeps that order whichever
  // thread finished first, so that equal scores resolve the same way in every run (as upstream does with
  // parallelism 1; its own order follows thread timing).
  std::vector<char> passed(numAllNodes, 0);
  std::atomic<int> feasibleLen{0};
  std::vector<std::optional<Status>> statuses(numAllNodes);
  std::stop_source cancel;
  framework::parallelize::ErrorChannel errors;
  auto checkNode = [&](int i) {
    const NodeInfoPtr& nodeInfo = nodes[(startIndex + i) % numAllNodes];
    Status status = fw.runFilterPluginsWithNominatedPods(state, pod, *nodeInfo);
    if (status.code() == Code::Error) {
      errors.sendErrorWithCancel(Error(status.message()), cancel);
      return;
    }
    if (status.isSuccess()) {
      const int length = feasibleLen.fetch_add(1) + 1;
      if (length > numNodesToFind) {
        cancel.request_stop();
        feasibleLen.fetch_sub(1);
      } else {
        passed[i] = 1;
      }
    } else {
      statuses[i] = std::move(status);
    }
  };
  fw.parallelizer().until(numAllNodes, checkNode, cancel.get_token());
  std::vector<NodeInfoPtr> feasible;
  feasible.reserve(feasibleLen.load());
  for (int i = 0; i < numAllNodes; ++i) {
    if (passed[i]) feasible.push_back(nodes[(startIndex + i) % numAllNodes]);
  }
  for (int i = 0; i < numAllNodes; ++i) {
    if (!statuses[i]) continue;
    const NodeInfoPtr& nodeInfo = nodes[(startIndex + i) % numAllNodes];
    diagnosis.addPluginStatus(*statuses[i]);
    diagnosis.nodeToStatus.set(nodeInfo->nodeName(), std::move(*statuses[i]));
  }
  if (auto err = errors.receiveError()) {
    observeFilter(Code::Error);
    return *err;
  }
  observeFilter(Code::Success);
  return feasible;
}

// ---- Binding cycle ----

void Scheduler::bindingCycle(Framework& fw, std::shared_ptr<CycleState> state, QueuedPodInfo assumed,
                             const std::string& host, std::chrono::steady_clock::time_point start) {
  // Held for the whole cycle: the failure handler replaces `assumed`'s PodInfo.
  const api::PodPtr podPtr = assumed.podInfo->podPtr();
  const api::Pod& pod = *podPtr;
  auto fail = [&](const Status& s, const std::optional<FitError>& fitError = std::nullopt) {
    if (options_.observer) options_.observer->onBindingDone(pod, host, s);
    handleBindingCycleError(fw, *state, assumed, host, s, fitError, start);
  };
  // Without the gate no pre-flight runs here and every PreBind plugin runs (its own check skips work).
  Status preFlight;
  if (options_.nominatedNodeNameForExpectation) {
    preFlight = fw.runPreBindPreFlights(*state, *assumed.podInfo, host);
    // Unschedulable is not a pre-flight result: it fails the binding like an error, as upstream.
    if (preFlight.code() == Code::Error || preFlight.isRejected()) {
      fail(preFlight);
      return;
    }
    // PreBind or a Permit wait lies ahead: tell other components (the cluster autoscaler) where the pod
    // goes. Otherwise it is bound at once anyway.
    if (preFlight.isSuccess() || fw.willWaitOnPermit(pod)) setNominatedNodeName(pod, host);
  }
  if (Status s = fw.waitOnPermit(pod); !s.isSuccess()) {
    if (s.isRejected()) {
      // A rejection at Permit reads like a FitError on the host, with the rejecting plugin.
      FitError fe;
      fe.numAllNodes = 1;
      fe.diagnosis.nodeToStatus.set(host, s);
      fe.diagnosis.unschedulablePlugins.insert(s.plugin());
      fail(Status(s.code(), std::vector<std::string>{fe.message()}), fe);
    } else {
      fail(s);
    }
    return;
  }
  // From here on a failure is an error, never "unschedulable" (Permit is the last point that may reject),
  // so the events seen while in flight no longer matter: free them now, as upstream.
  queue_->done(pod.metadata.uid);
  // A pod whose PreBind has work can be preempted in memory until it is bound: preemption cancels its
  // PreBind rather than deleting it (a pre-flight of Skip means Bind follows at once).
  std::shared_ptr<framework::runtime::PodInPreBindImpl> inPreBind;
  if (preFlight.isSuccess()) inPreBind = fw.addPodInPreBind(pod.metadata.uid);
  struct RemoveInPreBind {
    Framework& fw;
    const std::string& uid;
    bool active;
    ~RemoveInPreBind() {
      if (active) fw.removePodInPreBind(uid);
    }
  } removeInPreBind{fw, pod.metadata.uid, inPreBind != nullptr};
  const CancelWithCause* cancel = inPreBind ? &inPreBind->cancellation() : nullptr;
  if (Status s = fw.runPreBindPlugins(*state, *assumed.podInfo, host, cancel); !s.isSuccess()) {
    fail(s);
    return;
  }
  // Preempted while PreBind ran (or just after): not bound.
  if (inPreBind && !inPreBind->markPrebound()) {
    fail(Status::error(inPreBind->cancellation().cause()));
    return;
  }
  // An extender that binds takes precedence over the Bind plugins.
  std::optional<Status> byExtender = extendersBinding(extenders_, pod, host);
  Status bound = byExtender ? std::move(*byExtender) : fw.runBindPlugins(*state, *assumed.podInfo, host);
  if (auto r = cache_->finishBinding(pod); !r.ok())
    spdlog::error("scheduler cache FinishBinding failed: {}", r.error().message());
  if (!bound.isSuccess()) {
    fail(bound);
    return;
  }
  recordEvent(pod, "Normal", "Scheduled", "Binding",
              "Successfully assigned " + pod.metadata.namespace_ + "/" + pod.metadata.name + " to " + host);
  if (options_.metrics) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    options_.metrics->podScheduled(metricsProfile(fw), seconds);
    double sinceFirst = 0;
    if (assumed.initialAttemptTimestamp) {
      sinceFirst = std::chrono::duration<double>(clock_->now() - *assumed.initialAttemptTimestamp).count();
    }
    options_.metrics->podBound(assumed.attempts, sinceFirst);
    if (assumed.wasFlushedFromUnschedulable) options_.metrics->podScheduledAfterFlush();
  }
  fw.runPostBindPlugins(*state, *assumed.podInfo, host);
  if (options_.observer) options_.observer->onBindingDone(pod, host, Status::success());
}

void Scheduler::handleBindingCycleError(Framework& fw, CycleState& state, QueuedPodInfo& assumed,
                                        const std::string& host, const Status& status,
                                        const std::optional<FitError>& fitError,
                                        std::chrono::steady_clock::time_point start) {
  const api::PodPtr assumedPod = assumed.podInfo->podPtr();  // a copy: the failure handler replaces it
  fw.runReservePluginsUnreserve(state, *assumed.podInfo, host);
  // Forgetting the assumed pod frees what it held on the node, like an assigned pod's delete.
  bool forgotten = true;
  if (auto r = cache_->forgetPod(*assumedPod); !r.ok()) {
    spdlog::error("scheduler cache ForgetPod failed: {}", r.error().message());
    forgotten = false;
  } else if (!status.isRejected()) {
    queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete,
                                          framework::EventObject(assumedPod), {});
  }
  // Only a Permit rejection comes with a FitError: a PreBind or Bind failure (even a rejection) has no
  // rejecting plugins, so the pod goes through backoff rather than waiting for an event, as upstream.
  handleSchedulingFailure(fw, assumed, status, fitError, kClearNominatedNode, start);
  // For a rejected pod the move comes after its requeue (upstream defers it), so that the pod does not
  // see its own delete as an in-flight event; the pod itself is excluded.
  if (forgotten && status.isRejected()) {
    const std::string uid = assumedPod->metadata.uid;
    queue_->moveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete,
                                          framework::EventObject(assumedPod), {},
                                          [&](const api::Pod& p) { return p.metadata.uid != uid; });
  }
}

void Scheduler::handleSchedulingFailure(Framework& fw, QueuedPodInfo& pInfo, const Status& status,
                                        const std::optional<FitError>& fitError,
                                        const framework::NominatingInfo& nominatingInfo,
                                        std::chrono::steady_clock::time_point start) {
  if (options_.metrics) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const metrics::ProfileId profile = metricsProfile(fw);
    if (status.isRejected()) {
      options_.metrics->podUnschedulable(profile, seconds);
    } else {
      options_.metrics->podScheduleError(profile, seconds);
    }
  }
  // The attempted version of the pod, kept alive here: pInfo's PodInfo is replaced below.
  const api::PodPtr podPtr = pInfo.podInfo->podPtr();
  const api::Pod& pod = *podPtr;
  const std::string key = queue::PriorityQueue::podKey(pod);
  const std::string reason = status.isRejected() ? "Unschedulable" : "SchedulerError";
  const std::string errMsg = status.message();
  // The rejectors of an earlier attempt are stale: only a FitError names this attempt's.
  pInfo.unschedulablePlugins.clear();
  pInfo.pendingPlugins.clear();
  if (fitError) {
    pInfo.unschedulablePlugins = fitError->diagnosis.unschedulablePlugins;
    pInfo.pendingPlugins = fitError->diagnosis.pendingPlugins;
    spdlog::info("Unable to schedule pod; no fit; waiting pod={} err=\"{}\"", podName(pod), errMsg);
  } else if (errMsg == kNoNodesAvailableMsg) {
    spdlog::info("Unable to schedule pod; no nodes are registered to the cluster; waiting pod={}",
                 podName(pod));
  } else if (status.isRejected() && errMsg.starts_with(framework::kPodGroupUnschedulable)) {
    spdlog::info("Unable to schedule pod belonging to a pod group; waiting pod={} err=\"{}\"", podName(pod), errMsg);
  } else {
    spdlog::error("Error scheduling pod; retrying pod={} err=\"{}\"", podName(pod), errMsg);
  }

  // Requeue the informer's current version of the pod, unless it is gone or was bound meanwhile.
  api::PodPtr current = podPtr;
  bool requeue = true;
  if (podStore_ != nullptr) {
    current = podStore_->get(key);
    if (!current) {
      spdlog::info("Pod doesn't exist in informer cache pod={}", podName(pod));
      requeue = false;
    } else if (!current->spec.nodeName.empty()) {
      spdlog::info("Pod has been assigned to node. Abort adding it back to queue. pod={} node={}",
                   podName(pod), current->spec.nodeName);
      requeue = false;
    } else if (current->metadata.uid != pod.metadata.uid) {
      // Deleted and created again under the same name: the new pod is queued on its own.
      spdlog::debug("Pod was recreated while handling scheduling failure. Skip requeueing and status updates. "
                    "pod={} oldUID={} newUID={}",
                    podName(pod), pod.metadata.uid, current->metadata.uid);
      queue_->done(pod.metadata.uid);
      return;
    }
  } else if (!current->spec.nodeName.empty()) {
    // No informer (tests): requeue the pod as it was before assume.
    auto copy = std::make_shared<api::Pod>(*current);
    copy->spec.nodeName.clear();
    current = copy;
  }
  if (requeue) {
    pInfo.podInfo = PodInfo::create(current);
    if (auto r = queue_->addUnschedulableIfNotPresent(pInfo, queue_->schedulingCycle()); !r.ok()) {
      spdlog::error("Error occurred: {}", r.error().message());
    }
  } else {
    queue_->done(pod.metadata.uid);  // addUnschedulableIfNotPresent would have called it
  }
  queue_->addNominatedPod(pInfo.podInfo, nominatingInfo);

  // The event and the status patch go to the informer's version when requeued: its nominatedNodeName
  // may have been set in the binding cycle since the attempt began, and must be cleared.
  const api::Pod& latest = requeue ? pInfo.podInfo->pod() : pod;
  const std::string msg = truncateMessage(errMsg);
  recordEvent(latest, "Warning", "FailedScheduling", "Scheduling", msg);
  updatePodStatus(latest, reason, errMsg, nominatingInfo);
}

void Scheduler::setNominatedNodeName(const api::Pod& pod, const std::string& node) {
  if (pod.status.nominatedNodeName == node) return;
  client::PodStatusPatch patch;
  patch.nominatedNodeName = node;
  // Not critical: the binding goes on without it, as upstream's.
  if (auto r = client_.patchPodStatus(pod.metadata.namespace_, pod.metadata.name, patch); !r.ok()) {
    spdlog::error("Failed to update the nominated node name in the binding cycle pod={} nominatedNodeName={}: {}",
                  podName(pod), node, r.error().message());
  }
}

void Scheduler::updatePodStatus(const api::Pod& pod, const std::string& reason, const std::string& message,
                                const framework::NominatingInfo& nominatingInfo) {
  // PodScheduled=False as podutil.UpdatePodCondition: the transition time moves only when the status
  // does, and an unchanged condition (status, reason, message) is not sent again.
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = reason;
  cond.message = message;
  cond.observedGeneration = pod.metadata.generation;  // PodObservedGenerationTracking, on in v1.34
  cond.lastTransitionTime = std::chrono::time_point_cast<std::chrono::seconds>(clock_->now());
  std::optional<api::PodCondition> changed = framework::updatePodCondition(pod.status, std::move(cond));
  const bool nominationChanged = nominatingInfo.mode == framework::NominatingMode::Override &&
                                 pod.status.nominatedNodeName != nominatingInfo.nominatedNodeName;
  if (!changed && !nominationChanged) return;
  client::PodStatusPatch patch;
  patch.condition = std::move(changed);
  if (nominationChanged) patch.nominatedNodeName = nominatingInfo.nominatedNodeName;
  // Synchronous, as upstream (SchedulerAsyncAPICalls is off in v1.34): patches for one pod can't reorder.
  auto r = client_.patchPodStatus(pod.metadata.namespace_, pod.metadata.name, patch);
  if (!r.ok() && !r.error().isNotFound()) {
    spdlog::error("Error updating pod {}: {}", podName(pod), r.error().message());
  }
}

}  // namespace ks::scheduler
