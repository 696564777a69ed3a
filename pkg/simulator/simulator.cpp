#include "pkg/scheduler/features/scheduler_options.h"
#include "pkg/simulator/simulator.h"

#include "pkg/util/manual_clock.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/api/json/yaml.h"
#include "pkg/api/validation.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/scheduler.h"

namespace ks::simulator {

namespace {

using nlohmann::json;

bool isPending(const api::Pod& pod, const config::KubeSchedulerConfiguration& cfg) {
  if (!pod.spec.nodeName.empty() || pod.status.phase == "Succeeded" || pod.status.phase == "Failed")
    return false;
  const std::string& name = api::schedulerNameOf(pod);
  return std::any_of(cfg.profiles.begin(), cfg.profiles.end(),
                     [&](const config::KubeSchedulerProfile& p) { return p.schedulerName == name; });
}

template <typename T>
Result<void> createDecoded(client::MemoryClient& cluster, const T& obj, LoadSummary& summary) {
  auto created = cluster.create(obj);
  if (!created.ok()) return Error(created.error().message());
  summary.objectsByKind[std::string(T::kKind)]++;
  return {};
}

template <typename T>
Result<void> createObject(client::MemoryClient& cluster, const json& item, LoadSummary& summary) {
  auto obj = api::fromJson<T>(item);
  if (!obj.ok()) return obj.error();
  return createDecoded(cluster, *obj, summary);
}

// What the apiserver's pod strategy does at creation with the v1.34 gates (PrepareForCreate:
// mutatePodAffinity, mutateTopologySpreadConstraints): each matchLabelKeys / mismatchLabelKeys key the pod
// has a label for becomes a `key In|NotIn [value]` expression of the term's selector. Pods dumped from a
// cluster were merged already: a key whose expression is there is not added twice.
void applyLabelKeys(api::LabelSelector& selector, const std::vector<std::string>& keys, const char* op,
                    const api::Labels& podLabels) {
  for (const std::string& key : keys) {
    auto label = podLabels.find(key);
    if (label == podLabels.end()) continue;
    api::LabelSelectorRequirement merged{key, op, {label->second}};
    if (std::find(selector.matchExpressions.begin(), selector.matchExpressions.end(), merged) ==
        selector.matchExpressions.end()) {
      selector.matchExpressions.push_back(std::move(merged));
    }
  }
}

void mergeLabelKeysAsTheApiserverDoes(api::Pod& pod) {
  const api::Labels& labels = pod.metadata.labels;
  auto mergeTerm = [&](api::PodAffinityTerm& term) {
    if (!term.labelSelector) return;  // a nil selector matches nothing: nothing to merge into
    applyLabelKeys(*term.labelSelector, term.matchLabelKeys, "In", labels);
    applyLabelKeys(*term.labelSelector, term.mismatchLabelKeys, "NotIn", labels);
  };
  if (pod.spec.affinity) {
    for (auto* a : {pod.spec.affinity->podAffinity ? &*pod.spec.affinity->podAffinity : nullptr,
                    pod.spec.affinity->podAntiAffinity ? &*pod.spec.affinity->podAntiAffinity : nullptr}) {
      if (a == nullptr) continue;
      for (auto& t : a->requiredDuringSchedulingIgnoredDuringExecution) mergeTerm(t);
      for (auto& t : a->preferredDuringSchedulingIgnoredDuringExecution) mergeTerm(t.podAffinityTerm);
    }
  }
  for (auto& c : pod.spec.topologySpreadConstraints) {
    if (c.labelSelector) applyLabelKeys(*c.labelSelector, c.matchLabelKeys, "In", labels);
  }
}

std::string describe(const json& item) {
  std::string kind =
      item.contains("kind") && item["kind"].is_string() ? item["kind"].get<std::string>() : "object";
  std::string ns;
  std::string name;
  if (item.contains("metadata") && item["metadata"].is_object()) {
    const json& m = item["metadata"];
    if (m.contains("namespace") && m["namespace"].is_string()) ns = m["namespace"].get<std::string>();
    if (m.contains("name") && m["name"].is_string()) name = m["name"].get<std::string>();
  }
  return kind + " " + (ns.empty() ? name : ns + "/" + name);
}

// The kinds a cluster file may hold: the watched ones and the stored ones the simulator loads, in
// kinds.def's order.
std::string supportedKinds() {
  std::string out;
  auto add = [&out](std::string_view kind) {
    if (!out.empty()) out += ", ";
    out += kind;
  };
#define KS_WATCHED_KIND(Type, ...) add(api::Type::kKind);
#define KS_STORED_KIND(Type, resource, namespaced, simulatorLoads) \
  if (simulatorLoads) add(api::Type::kKind);
#include "pkg/api/kinds.def"
  return out;
}

Result<void> loadItem(client::MemoryClient& cluster, const json& item,
                      const config::KubeSchedulerConfiguration& cfg, LoadSummary& summary) {
  if (!item.is_object()) return Error("expected an object");
  if (!item.contains("kind") || !item["kind"].is_string()) return Error("object has no kind");
  const std::string kind = item["kind"].get<std::string>();
  if (kind == "Pod") {
    auto pod = api::fromJson<api::Pod>(item);
    if (!pod.ok()) return pod.error();
    mergeLabelKeysAsTheApiserverDoes(*pod);
    // What the apiserver would reject at creation must not be scheduled here as if it were valid.
    if (auto errs = api::validatePodSchedulingConstraints(*pod); !errs.empty()) {
      return Error(api::aggregateFieldErrors(errs));
    }
    if (isPending(*pod, cfg)) summary.pendingPods++;
    return createDecoded(cluster, *pod, summary);
  }
  // Every other kind as it is (Pod's entry below is not reached).
#define KS_WATCHED_KIND(Type, ...) \
  if (kind == api::Type::kKind) return createObject<api::Type>(cluster, item, summary);
#define KS_STORED_KIND(Type, resource, namespaced, simulatorLoads)                        \
  if constexpr (simulatorLoads) {                                                         \
    if (kind == api::Type::kKind) return createObject<api::Type>(cluster, item, summary); \
  }
#include "pkg/api/kinds.def"
  return Error("unknown kind \"" + kind + "\" (supported: " + supportedKinds() + ")");
}

// Records the last attempt of every pod (scheduling thread) and binding failures (binding threads).
class Recorder final : public scheduler::AttemptObserver {
 public:
  void onAttempt(const scheduler::AttemptRecord& record) override {
    std::lock_guard lock(mu_);
    const std::string k = key(*record.pod);
    attempts_[k] = record;
    if (record.nominatedNode.empty()) {
      bindingsAtLastAttempt_[k] = bindings_;
    } else {
      // Preemption evicted pods for this one within the attempt: its retry may fare differently.
      nominatedNodes_[k] = record.nominatedNode;
      bindingsAtLastAttempt_.erase(k);
      newNomination_.emplace(k, record.nominatedNode);
    }
  }
  void onBindingDone(const api::Pod& pod, const std::string& node, const framework::Status& status) override {
    std::lock_guard lock(mu_);
    if (status.isSuccess()) {
      ++bindings_;
      return;
    }
    bindErrors_[key(pod)] = "binding to " + node + " failed: " + status.message();
  }
  // Whether a pod was bound since the pod's last attempt: only then can a retry of it (in a static
  // cluster) come out differently.
  bool clusterChangedSinceLastAttempt(const std::string& podKey) const {
    std::lock_guard lock(mu_);
    auto it = bindingsAtLastAttempt_.find(podKey);
    return it == bindingsAtLastAttempt_.end() || it->second != bindings_;
  }
  std::map<std::string, scheduler::AttemptRecord> attempts() const {
    std::lock_guard lock(mu_);
    return attempts_;
  }
  std::map<std::string, std::string> bindErrors() const {
    std::lock_guard lock(mu_);
    return bindErrors_;
  }
  // The node the pod's last preemption nominated it to, or "".
  std::string nominatedNode(const std::string& podKey) const {
    std::lock_guard lock(mu_);
    auto it = nominatedNodes_.find(podKey);
    return it == nominatedNodes_.end() ? "" : it->second;
  }
  // The pod and node of a nomination made since the last call, if any.
  std::optional<std::pair<std::string, std::string>> takeNewNomination() {
    std::lock_guard lock(mu_);
    return std::exchange(newNomination_, std::nullopt);
  }
  static std::string key(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

 private:
  mutable std::mutex mu_;
  std::map<std::string, scheduler::AttemptRecord> attempts_;
  std::map<std::string, std::string> bindErrors_;
  std::map<std::string, uint64_t> bindingsAtLastAttempt_;
  std::map<std::string, std::string> nominatedNodes_;
  std::optional<std::pair<std::string, std::string>> newNomination_;
  uint64_t bindings_ = 0;
};

// Waits (at most a second) until the queue holds `podKey` with the nomination its status patch wrote, or
// no longer holds it. Its retry (synchronous preemption sends it to backoffQ at once) must see the
// nomination, as upstream's evaluateNominatedNode reads it from the pod; the patch comes back through the
// informer while the scheduling thread could already pop the pod again.
void awaitQueuedNomination(const queue::PriorityQueue& q, const std::string& podKey, const std::string& node) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    bool queued = false;
    for (const auto& p : q.pendingPods()) {
      if (Recorder::key(*p) != podKey) continue;
      queued = true;
      if (p->status.nominatedNodeName == node) return;
    }
    if (!queued) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Collects the "Preempted" events: which pods were evicted for which preemptor.
class PreemptionRecorder final : public framework::EventRecorder {
 public:
  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related, std::string_view,
              std::string_view reason, std::string_view, std::string) override {
    if (reason != "Preempted" || related == nullptr) return;
    std::lock_guard lock(mu_);
    const std::string preemptor = related->namespace_ + "/" + related->name;
    const std::string victim = regarding.namespace_ + "/" + regarding.name;
    victims_[preemptor].push_back(victim);
    preemptors_[victim] = preemptor;
  }
  // The pod a victim was evicted for, or "".
  std::string preemptorOf(const std::string& victimKey) const {
    std::lock_guard lock(mu_);
    auto it = preemptors_.find(victimKey);
    return it == preemptors_.end() ? "" : it->second;
  }
  std::vector<std::string> victimsOf(const std::string& preemptorKey) const {
    std::lock_guard lock(mu_);
    auto it = victims_.find(preemptorKey);
    return it == victims_.end() ? std::vector<std::string>{} : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::string>> victims_;
  std::map<std::string, std::string> preemptors_;
};

void fillExplain(const scheduler::AttemptRecord& rec, PodResult& out) {
  std::set<std::string> feasible(rec.feasibleNodes.begin(), rec.feasibleNodes.end());
  rec.filtered.forEachExplicitNode([&](const std::string& node, const framework::Status& s) {
    out.filtered[node] = NodeRejection{s.plugin(), s.reasons()};
  });
  // Nodes excluded as a whole: by a PreFilter rejection of the pod, or by a PreFilter result.
  const framework::Status& absent = rec.filtered.absentNodesStatus();
  if (!absent.reasons().empty()) {
    for (const auto& node : rec.allNodes) {
      if (feasible.count(node) || out.filtered.count(node)) continue;
      out.filtered[node] = NodeRejection{absent.plugin(), absent.reasons()};
    }
  }
  out.scores = rec.scores;
  out.totalScores = rec.totalScores;
}

int64_t maxPodResourceVersion(client::MemoryClient& cluster) {
  int64_t maxRv = 0;
  for (const auto& p : cluster.objects<api::Pod>()) {
    maxRv = std::max<int64_t>(maxRv, std::strtoll(p->metadata.resourceVersion.c_str(), nullptr, 10));
  }
  return maxRv;
}

}  // namespace

Result<LoadSummary> loadClusterText(std::string_view text, const std::string& sourceName,
                                    client::MemoryClient& cluster,
                                    const config::KubeSchedulerConfiguration& cfg) {
  auto docs = api::parseJsonOrYaml(text);
  if (!docs.ok()) return docs.error().wrap(sourceName);
  LoadSummary summary;
  int docIndex = 0;
  for (const json& doc : *docs) {
    ++docIndex;
    if (doc.is_null()) continue;
    const std::string where = sourceName + ": document " + std::to_string(docIndex);
    const bool isList = doc.is_object() && doc.contains("kind") && doc["kind"].is_string() &&
                        doc["kind"].get<std::string>().ends_with("List");
    if (isList) {
      if (!doc.contains("items") || !doc["items"].is_array())
        return Error(where + ": " + "List without items");
      int i = 0;
      for (const json& item : doc["items"]) {
        if (auto r = loadItem(cluster, item, cfg, summary); !r.ok()) {
          return r.error().wrap(where + ": items[" + std::to_string(i) + "] (" + describe(item) + ")");
        }
        ++i;
      }
    } else if (auto r = loadItem(cluster, doc, cfg, summary); !r.ok()) {
      return r.error().wrap(where + " (" + describe(doc) + ")");
    }
  }
  return summary;
}

Result<LoadSummary> loadClusterFile(const std::string& path, client::MemoryClient& cluster,
                                    const config::KubeSchedulerConfiguration& cfg) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(path + ": cannot open the cluster file");
  std::stringstream ss;
  ss << in.rdbuf();
  return loadClusterText(ss.str(), path, cluster, cfg);
}

namespace {

std::string tolerationText(const api::DeviceToleration& t) {
  std::string s = t.key;
  if (t.op == "Exists") {
    s += s.empty() ? "*" : ":Exists";
  } else if (!t.value.empty()) {
    s += "=" + t.value;
  }
  return t.effect.empty() ? s : s + ":" + t.effect;
}

// The devices of the pod's claims (those in its status: from templates, named, and the extended-resource
// claim) whose allocation is reserved for this pod.
std::vector<DeviceAllocation> deviceAllocations(const api::Pod& pod, client::MemoryClient& cluster) {
  std::vector<std::string> claimNames;
  for (const auto& s : pod.status.resourceClaimStatuses)
    if (s.resourceClaimName) claimNames.push_back(*s.resourceClaimName);
  for (const auto& c : pod.spec.resourceClaims)
    if (c.resourceClaimName) claimNames.push_back(*c.resourceClaimName);
  if (pod.status.extendedResourceClaimStatus)
    claimNames.push_back(pod.status.extendedResourceClaimStatus->resourceClaimName);
  std::vector<DeviceAllocation> out;
  for (const auto& name : claimNames) {
    auto claim = cluster.get<api::ResourceClaim>(pod.metadata.namespace_, name);
    if (!claim.ok() || !claim->status.allocation) continue;
    const auto& reserved = claim->status.reservedFor;
    if (std::none_of(reserved.begin(), reserved.end(),
                     [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod.metadata.uid; }))
      continue;
    for (const auto& d : claim->status.allocation->devices.results) {
      DeviceAllocation a{name, d.request, d.driver + "/" + d.pool + "/" + d.device, {}, d.bindingConditions};
      if (d.shareID) a.device += "#" + *d.shareID;
      for (const auto& t : d.tolerations) a.tolerations.push_back(tolerationText(t));
      out.push_back(std::move(a));
    }
  }
  return out;
}

// One scheduler over the in-memory cluster, its informers synced: what simulate() and simulate() of one pod
// (explain) share. Virtual time: a pod waiting out a backoff is retried at once when nothing else can happen.
struct SchedulerRun {
  SchedulerRun(client::MemoryClient& cluster, const informer::SharedInformerFactoryOptions& fo)
      : clock(std::chrono::system_clock::now()), factory(cluster, fo) {}

  // `registry` adds to the in-tree plugins (explain's gate); `cfg` is the profile set to run.
  static Result<std::unique_ptr<SchedulerRun>> start(const config::KubeSchedulerConfiguration& cfg,
                                                     client::MemoryClient& cluster,
                                                     const SimulateOptions& options,
                                                     const framework::runtime::Registry& extra) {
    informer::SharedInformerFactoryOptions fo;
    fo.podFieldSelector = std::string(informer::kSchedulerPodFieldSelector);
    fo.reflector.useWatchList = options.features.watchListClient;
    auto run = std::make_unique<SchedulerRun>(cluster, fo);
    scheduler::SchedulerOptions so;
    so.observer = &run->recorder;
    so.eventRecorder = &run->preemptions;
    so.clock = &run->clock;
    so.informerFactory = &run->factory;
    // Synchronous preemption: the victims are gone when the attempt ends, so "settled" needs no notion of
    // evictions still in flight (as bindings, the outcome is what matters here, not its timing).
    features::applySchedulerFeatures(options.features, so);
    plugins::Features pluginFeatures = options.features.plugins;
    pluginFeatures.enableAsyncPreemption = false;
    pluginFeatures.assumeVolumeBindingCompletes = true;
    auto registry = plugins::newInTreeRegistry(pluginFeatures);
    if (auto merged = registry.merge(extra); !merged.ok()) return merged.error();
    // The extenders filter, score and pick victims (read-only calls), but never bind: a binder extender
    // would bind the real pod in the real cluster (explain runs against a copy of a live one). Pods bind
    // in memory, through the profile's bind plugins.
    config::KubeSchedulerConfiguration runCfg = cfg;
    for (auto& e : runCfg.extenders) e.bindVerb.clear();
    auto created = scheduler::Scheduler::create(cluster, runCfg, registry, so);
    if (!created.ok()) return created.error();
    run->sched = std::move(created).value();
    run->genericWorkload_ = so.genericWorkload;
    run->sched->addEventHandlers(run->factory);
    run->factory.start();
    if (!run->factory.waitForCacheSync(std::chrono::seconds(30))) return Error("informers did not sync");
    return run;
  }

  // Closes the scheduler (in-flight bindings finish) and stops the informers.
  void stop() {
    if (stopped_) return;
    stopped_ = true;
    if (sched) sched->close();
    factory.stop();
  }
  ~SchedulerRun() { stop(); }

  // What happened to `original` (a pod pending when the run started); call after stop().
  PodResult podResult(const api::PodPtr& original, client::MemoryClient& cluster) const {
    const auto attempts = recorder.attempts();
    const auto bindErrors = recorder.bindErrors();
    PodResult r;
    r.namespace_ = original->metadata.namespace_;
    r.name = original->metadata.name;
    r.profile = api::schedulerNameOf(*original);
    const std::string key = Recorder::key(*original);
    auto now = cluster.get<api::Pod>(r.namespace_, r.name);
    auto attempt = attempts.find(key);
    if (now.ok() && !now->spec.nodeName.empty()) {
      r.result = "Scheduled";
      r.node = now->spec.nodeName;
    } else if (const std::string preemptor = preemptions.preemptorOf(key); !now.ok() && !preemptor.empty()) {
      // Placed during the simulation, then evicted for a higher-priority pod.
      r.result = "Preempted";
      r.message = "preempted by " + preemptor;
    } else if (auto be = bindErrors.find(key);
               be != bindErrors.end() && attempt != attempts.end() &&
               attempt->second.result == scheduler::AttemptResult::Scheduled) {
      r.result = "Error";
      r.message = be->second;
    } else if (attempt != attempts.end()) {
      r.result = std::string(scheduler::attemptResultName(attempt->second.result));
      r.message = attempt->second.message;
    } else {
      // Never attempted: gated by a PreEnqueue plugin (scheduling gates).
      r.result = "Unschedulable";
      auto fw = sched->profiles().find(r.profile);
      if (fw != sched->profiles().end()) {
        framework::Status s = fw->second->runPreEnqueuePlugins(*framework::PodInfo::create(original));
        r.message = s.isSuccess() ? "not attempted before the simulation settled" : s.message();
      }
    }
    if (attempt != attempts.end()) fillExplain(attempt->second, r);
    if (now.ok()) r.devices = deviceAllocations(*now, cluster);
    if (genericWorkload_) r.podGroup = podGroupSummary(*original, cluster);
    r.nominatedNode = recorder.nominatedNode(key);
    r.victims = preemptions.victimsOf(key);
    return r;
  }

  Recorder recorder;
  ManualClock clock;
  informer::SharedInformerFactory factory;
  PreemptionRecorder preemptions;
  std::unique_ptr<scheduler::Scheduler> sched;

 private:
  // The pod's PodGroup as the run left it; nullopt when the pod names none.
  static std::optional<PodGroupSummary> podGroupSummary(const api::Pod& pod, client::MemoryClient& cluster) {
    const std::string* name = framework::podGroupNameOf(pod);
    if (name == nullptr) return std::nullopt;
    PodGroupSummary g;
    g.name = *name;
    if (auto group = cluster.get<api::PodGroup>(pod.metadata.namespace_, *name); group.ok()) {
      g.found = true;
      g.policy = group->spec.schedulingPolicy.gang ? "gang" : "basic";
      g.minCount = framework::podGroupMinCount(*group);
    }
    for (const auto& p : cluster.objects<api::Pod>()) {
      const std::string* other = framework::podGroupNameOf(*p);
      if (other == nullptr || *other != *name || p->metadata.namespace_ != pod.metadata.namespace_) continue;
      if (p->status.phase == "Succeeded" || p->status.phase == "Failed") continue;
      ++g.members;
      if (!p->spec.nodeName.empty()) ++g.bound;
    }
    return g;
  }

  bool stopped_ = false;
  bool genericWorkload_ = false;
};

// Keeps every pod but one out of activeQ, so that a run schedules that pod alone (explain). Enabled last at
// PreEnqueue in every profile: a pod that reaches it passed the profile's own PreEnqueue plugins, so the
// real queue would have put it in activeQ and recorded its nomination (upstream moveToActiveQ); the gate
// remembers those pods for that. It registers no events: a gated pod never moves.
class OnlyPodGate final : public framework::PreEnqueuePlugin, public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = "KubeSchedulerCppExplainOnlyPod";

  // Shared by the gate of every profile; PreEnqueue runs on informer threads.
  class State {
   public:
    // `groupKey`: "namespace/group" of the explained pod's PodGroup, whose members are scheduled with it
    // (the pod-group cycle); empty when it names none.
    State(std::string onlyPodKey, std::string groupKey)
        : only_(std::move(onlyPodKey)), group_(std::move(groupKey)) {}
    const std::string& only() const { return only_; }
    bool together(const api::Pod& pod) const {
      if (Recorder::key(pod) == only_) return true;
      const std::string* name = framework::podGroupNameOf(pod);
      return !group_.empty() && name != nullptr && framework::podGroupKey(pod.metadata.namespace_, *name) == group_;
    }
    void passed(const api::PodPtr& pod) {
      std::lock_guard lock(mu_);
      passed_[Recorder::key(*pod)] = pod;
    }
    // The pods other than `only` that passed the profile's own PreEnqueue plugins, latest versions.
    std::vector<api::PodPtr> passedPods() const {
      std::lock_guard lock(mu_);
      std::vector<api::PodPtr> out;
      for (const auto& [key, pod] : passed_) out.push_back(pod);
      return out;
    }

   private:
    const std::string only_;
    const std::string group_;
    mutable std::mutex mu_;
    std::map<std::string, api::PodPtr> passed_;
  };

  explicit OnlyPodGate(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::string_view name() const override { return kName; }

  framework::Status preEnqueue(const framework::PodInfo& pod) override {
    if (state_->together(pod.pod())) return {};
    state_->passed(pod.podPtr());
    return framework::Status(framework::Code::UnschedulableAndUnresolvable,
                             "not the pod being explained (" + state_->only() + ")");
  }
  Result<std::vector<framework::ClusterEventWithHint>> eventsToRegister() override {
    return std::vector<framework::ClusterEventWithHint>{};
  }

 private:
  std::shared_ptr<State> state_;
};

Result<SimulationResult> simulateAll(const config::KubeSchedulerConfiguration& cfg,
                                     client::MemoryClient& cluster, const SimulateOptions& options) {
  auto started = SchedulerRun::start(cfg, cluster, options, {});
  if (!started.ok()) return started.error();
  std::unique_ptr<SchedulerRun> run = std::move(started).value();
  Recorder& recorder = run->recorder;
  scheduler::Scheduler& sched = *run->sched;

  std::vector<api::PodPtr> pending;
  for (const auto& p : cluster.objects<api::Pod>()) {
    if (isPending(*p, cfg)) pending.push_back(p);
  }
  // Not run(): its periodic flushes would release backed-off pods window by window while the clock is
  // stepped below, racing this thread's attempts; the flush after each step releases them at once.
  queue::PriorityQueue& q = sched.schedulingQueue();
  std::jthread runner([&] {
    while (sched.scheduleOne()) {
      if (auto n = recorder.takeNewNomination()) awaitQueuedNomination(q, n->first, n->second);
    }
  });

  // Settled: nothing queued to run, nothing in flight or binding, the informer has seen every pod change
  // (bindings and status patches come back through it), and no pod waiting out a backoff could fare
  // differently on a retry (nothing was bound since its last attempt), for a few consecutive checks.
  // Backoffs pass in virtual time, so this takes as long as the scheduling work, not the backoffs.
  auto backoffRetryMayHelp = [&] {
    for (const auto& p : q.pendingPods()) {
      const std::string k = Recorder::key(*p);
      if (q.whereIs(k) == queue::QueueName::BackoffQ && recorder.clusterChangedSinceLastAttempt(k))
        return true;
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  int quietChecks = 0;
  bool timedOut = false;
  while (quietChecks < 5) {
    if (std::chrono::steady_clock::now() > deadline) {
      timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto counts = q.pendingCounts();
    const bool idle = counts.active == 0 && q.inFlightCount() == 0 && sched.bindingsInFlight() == 0 &&
                      std::strtoll(run->factory.pods().lastSyncResourceVersion().c_str(), nullptr, 10) >=
                          maxPodResourceVersion(cluster);
    if (idle && counts.backoff != 0 && backoffRetryMayHelp()) {
      run->clock.step(std::chrono::seconds(cfg.podMaxBackoffSeconds) + queue::kBackoffQOrderingWindow);
      q.flushBackoffQCompleted();
      quietChecks = 0;
      continue;
    }
    quietChecks = idle ? quietChecks + 1 : 0;
  }
  q.close();
  runner.join();
  run->stop();
  // A safety net only: every input settles (each retry needs a binding since the last one, and bindings
  // are finite), so reaching it is a bug.
  if (timedOut)
    spdlog::error("simulation did not settle within {} ms (a bug); reporting the state so far",
                  options.timeout.count());

  SimulationResult result;
  for (const auto& original : pending) result.pods.push_back(run->podResult(original, cluster));
  return result;
}

// One scheduling cycle of options.onlyPod, the other pending pods gated (see OnlyPodGate).
Result<SimulationResult> simulateOnePod(const config::KubeSchedulerConfiguration& cfg,
                                        client::MemoryClient& cluster, const SimulateOptions& options) {
  const std::string& key = options.onlyPod;
  const size_t slash = key.find('/');
  if (slash == std::string::npos)
    return Error("the pod to schedule must be NAMESPACE/NAME, got \"" + key + "\"");
  auto target = cluster.get<api::Pod>(key.substr(0, slash), key.substr(slash + 1));
  if (!target.ok()) return Error(target.error().message());
  if (!isPending(*target, cfg)) {
    return Error("pod " + key + " is not pending for any profile (bound, terminated, or schedulerName \"" +
                 api::schedulerNameOf(*target) + "\" served by no profile)");
  }

  // A member of a PodGroup is scheduled with its group (GenericWorkload): the other members pass the gate.
  std::string groupKey;
  if (const std::string* group = framework::podGroupNameOf(*target);
      group != nullptr && options.features.config.genericWorkload) {
    groupKey = framework::podGroupKey(target->metadata.namespace_, *group);
  }
  auto gate = std::make_shared<OnlyPodGate::State>(key, groupKey);
  config::KubeSchedulerConfiguration gated = cfg;
  for (auto& profile : gated.profiles)
    profile.plugins.preEnqueue.enabled.push_back(config::Plugin{std::string(OnlyPodGate::kName), 0});
  framework::runtime::Registry extra;
  if (auto r = extra.registerPlugin(std::string(OnlyPodGate::kName),
                                    [gate](const config::PluginArgs*,
                                           framework::Handle&) -> Result<std::unique_ptr<framework::Plugin>> {
                                      return std::unique_ptr<framework::Plugin>(
                                          std::make_unique<OnlyPodGate>(gate));
                                    });
      !r.ok()) {
    return r.error();
  }
  auto started = SchedulerRun::start(gated, cluster, options, extra);
  if (!started.ok()) return started.error();
  std::unique_ptr<SchedulerRun> run = std::move(started).value();
  for (const auto& [name, fw] : run->sched->profiles()) {
    const auto& pre = fw->preEnqueuePlugins();
    if (pre.empty() || pre.back()->name() != OnlyPodGate::kName)
      return Error("profile \"" + name + "\": the explain gate is not the last PreEnqueue plugin");
  }

  // The informers synced, so every pending pod went through the queue's add.
  queue::PriorityQueue& q = run->sched->schedulingQueue();
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  while (q.whereIs(key) == queue::QueueName::None) {
    if (std::chrono::steady_clock::now() > deadline) return Error("pod " + key + " never reached the queue");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (const auto& pod : gate->passedPods()) {
    if (!pod->status.nominatedNodeName.empty())
      q.addNominatedPod(framework::PodInfo::create(pod), framework::NominatingInfo{});
  }
  // In activeQ alone (else gated by the profile's PreEnqueue plugins): exactly one attempt, on this thread.
  if (q.whereIs(key) == queue::QueueName::ActiveQ) run->sched->scheduleOne();
  run->stop();

  SimulationResult result;
  result.pods.push_back(run->podResult(std::make_shared<const api::Pod>(std::move(target).value()), cluster));
  return result;
}

}  // namespace

Result<SimulationResult> simulate(const config::KubeSchedulerConfiguration& cfg,
                                  client::MemoryClient& cluster, const SimulateOptions& options) {
  return options.onlyPod.empty() ? simulateAll(cfg, cluster, options) : simulateOnePod(cfg, cluster, options);
}

std::string toJson(const SimulationResult& result, bool explain) {
  nlohmann::ordered_json pods = nlohmann::ordered_json::array();
  for (const auto& p : result.pods) {
    nlohmann::ordered_json j;
    j["namespace"] = p.namespace_;
    j["name"] = p.name;
    j["profile"] = p.profile;
    j["result"] = p.result;
    j["node"] = p.node;
    j["message"] = p.message;
    if (explain) {
      nlohmann::ordered_json filtered = nlohmann::ordered_json::object();
      for (const auto& [node, rej] : p.filtered)
        filtered[node] = {{"plugin", rej.plugin}, {"reasons", rej.reasons}};
      nlohmann::ordered_json scores = nlohmann::ordered_json::object();
      for (const auto& [node, perPlugin] : p.scores) {
        nlohmann::ordered_json n = nlohmann::ordered_json::object();
        for (const auto& [plugin, score] : perPlugin) n[plugin] = score;
        scores[node] = n;
      }
      nlohmann::ordered_json totals = nlohmann::ordered_json::object();
      for (const auto& [node, total] : p.totalScores) totals[node] = total;
      j["filtered"] = filtered;
      j["scores"] = scores;
      j["totalScores"] = totals;
      j["nominatedNode"] = p.nominatedNode;
      j["victims"] = p.victims;
      nlohmann::ordered_json devices = nlohmann::ordered_json::array();
      for (const auto& d : p.devices)
        devices.push_back({{"claim", d.claim},
                           {"request", d.request},
                           {"device", d.device},
                           {"tolerations", d.tolerations},
                           {"bindingConditions", d.bindingConditions}});
      j["devices"] = std::move(devices);
    }
    if (!p.boundNode.empty()) j["boundNode"] = p.boundNode;
    if (p.podGroup) {
      const PodGroupSummary& g = *p.podGroup;
      j["podGroup"] = {{"name", g.name}, {"found", g.found},     {"policy", g.policy},
                       {"minCount", g.minCount}, {"members", g.members}, {"bound", g.bound}};
    }
    pods.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["pods"] = std::move(pods);
  return out.dump(2) + "\n";
}

namespace {

std::string joinReasons(const NodeRejection& r) {
  std::string s = r.plugin.empty() ? "" : r.plugin + ": ";
  for (size_t i = 0; i < r.reasons.size(); ++i) s += (i ? "; " : "") + r.reasons[i];
  return s;
}

// "pod group ns/name: gang, minCount 3: 2 members, 0 bound", or why the group is not there.
std::string podGroupLine(const std::string& ns, const PodGroupSummary& g) {
  std::string line = "pod group " + ns + "/" + g.name + ": ";
  if (!g.found) {
    return line + "not found; its " + std::to_string(g.members) +
           " member(s) wait for the PodGroup to be created";
  }
  line += g.policy;
  if (g.policy == "gang") line += ", minCount " + std::to_string(g.minCount);
  line += ": " + std::to_string(g.members) + " member(s), " + std::to_string(g.bound) + " bound";
  if (g.policy == "gang" && g.members < g.minCount) {
    line += "; below quorum, no member is attempted until " + std::to_string(g.minCount) + " exist";
  }
  return line;
}

std::string joinWords(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

void printRows(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows,
               const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

}  // namespace

std::string toTable(const SimulationResult& result, bool explain) {
  std::ostringstream out;
  for (const auto& p : result.pods) {
    if (!p.boundNode.empty())
      out << "pod " << p.namespace_ << "/" << p.name << " is bound to " << p.boundNode
          << "; evaluating it as if pending\n\n";
  }
  std::vector<std::vector<std::string>> rows{{"POD", "RESULT", "NODE", "MESSAGE"}};
  int scheduled = 0;
  for (const auto& p : result.pods) {
    rows.push_back({p.namespace_ + "/" + p.name, p.result, p.node.empty() ? "-" : p.node, p.message});
    if (p.result == "Scheduled") ++scheduled;
  }
  printRows(out, rows, "");
  out << "\n" << scheduled << "/" << result.pods.size() << " pending pods scheduled\n";
  if (!explain) return out.str();
  for (const auto& p : result.pods) {
    out << "\n"
        << p.namespace_ << "/" << p.name << " (" << p.result << (p.node.empty() ? "" : " on " + p.node)
        << ")\n";
    if (p.podGroup) out << "  " << podGroupLine(p.namespace_, *p.podGroup) << "\n";
    if (!p.nominatedNode.empty() || !p.victims.empty()) {
      out << "  preemption: nominated to " << (p.nominatedNode.empty() ? "-" : p.nominatedNode) << ", evicted "
          << (p.victims.empty() ? "none" : joinWords(p.victims)) << "\n";
    }
    for (const auto& d : p.devices) {
      out << "  device: " << d.claim << "/" << d.request << " -> " << d.device;
      if (!d.tolerations.empty()) out << " (tolerates " << joinWords(d.tolerations) << ")";
      if (!d.bindingConditions.empty()) out << " (binds once " << joinWords(d.bindingConditions) << ")";
      out << "\n";
    }
    std::vector<std::vector<std::string>> nodes{{"NODE", "TOTAL", "SCORES / FILTERED BY"}};
    std::vector<std::pair<int64_t, std::string>> ranked;
    for (const auto& [node, total] : p.totalScores) ranked.emplace_back(-total, node);
    std::sort(ranked.begin(), ranked.end());
    for (const auto& [negTotal, node] : ranked) {
      std::string detail;
      if (auto it = p.scores.find(node); it != p.scores.end()) {
        for (const auto& [plugin, score] : it->second) {
          detail += (detail.empty() ? "" : " ") + plugin + "=" + std::to_string(score);
        }
      }
      nodes.push_back({node + (node == p.node ? " *" : ""), std::to_string(-negTotal), detail});
    }
    for (const auto& [node, rej] : p.filtered) nodes.push_back({node, "-", "filtered: " + joinReasons(rej)});
    if (nodes.size() == 1) {
      out << "  (no per-node detail: " << (p.node.empty() ? "not evaluated" : "only one feasible node")
          << ")\n";
      continue;
    }
    printRows(out, nodes, "  ");
  }
  return out.str();
}

int runSimulateCommand(const std::vector<std::string>& args) {
  static constexpr std::string_view kUsage =
      "Usage: kube-scheduler-cpp simulate --config CONFIG.yaml --cluster CLUSTER.yaml [--explain] [-o "
      "json|table]\n"
      "                                   [--feature-gates kube:A=true,B=false]\n";
  std::string configPath;
  std::string clusterPath;
  std::string output = "table";
  bool explain = false;
  SimulateOptions options;
  std::vector<std::string> featureGatesFlags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool hasValue = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      hasValue = true;
    }
    auto next = [&]() -> std::optional<std::string> {
      if (hasValue) return value;
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--config" || a == "--cluster" || a == "-o" || a == "--output" ||
               a == "--feature-gates") {
      auto v = next();
      if (!v) {
        std::cerr << "simulate: flag " << a << " needs a value\n" << kUsage;
        return 2;
      }
      if (a == "--config")
        configPath = *v;
      else if (a == "--cluster")
        clusterPath = *v;
      else if (a == "--feature-gates")
        featureGatesFlags.push_back(*v);
      else
        output = *v;
    } else {
      std::cerr << "simulate: unknown flag " << args[i] << "\n" << kUsage;
      return 2;
    }
  }
  if (configPath.empty() || clusterPath.empty()) {
    std::cerr << "simulate: --config and --cluster are required\n" << kUsage;
    return 2;
  }
  if (output != "json" && output != "table") {
    std::cerr << "simulate: -o must be json or table, got \"" << output << "\"\n";
    return 2;
  }
  // The daemon's --feature-gates, with the same errors and refusals.
  std::vector<std::string> warnings;
  auto sf = features::schedulerFeaturesFromFlags(featureGatesFlags, &warnings);
  for (const auto& w : warnings) std::cerr << "simulate: warning: " << w << "\n";
  if (!sf.ok()) {
    std::cerr << "simulate: " << sf.error().message() << "\n";
    return 1;
  }
  options.features = std::move(sf).value();
  config::DecodeOptions decode;
  decode.features = options.features.config;
  auto cfg = config::loadConfigFile(configPath, decode);
  if (!cfg.ok()) {
    std::cerr << "simulate: " << cfg.error().message() << "\n";
    return 1;
  }
  client::MemoryClient cluster;
  auto loaded = loadClusterFile(clusterPath, cluster, *cfg);
  if (!loaded.ok()) {
    std::cerr << "simulate: " << loaded.error().message() << "\n";
    return 1;
  }
  auto result = simulate(*cfg, cluster, options);
  if (!result.ok()) {
    std::cerr << "simulate: " << result.error().message() << "\n";
    return 1;
  }
  std::cout << (output == "json" ? toJson(*result, explain) : toTable(*result, explain));
  return 0;
}

}  // namespace ks::simulator
