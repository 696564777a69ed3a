#include "pkg/scheduler/framework/runtime/framework.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <thread>
#include <utility>

#include "pkg/scheduler/framework/signers.h"
#include "pkg/util/strings.h"

namespace ks::framework::runtime {

using metrics::ExtensionPoint;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Upstream `rand.Intn(100) < pluginMetricsSamplePercent`, for calls outside a scheduling cycle.
bool samplePluginMetrics() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return static_cast<int>(rng() % 100) < kPluginMetricsSamplePercent;
}

// The plugin upstream makes the profile's PlacementFeasible plugin (names.GangScheduling).
constexpr std::string_view kGangSchedulingName = "GangScheduling";

std::string errorMessage(const Status& s) {
  auto err = s.asError();
  return err ? err->message() : s.message();
}

// Insertion-ordered set with deletion, as upstream's orderedSet.
class OrderedSet {
 public:
  void insert(const std::string& s) {
    if (!has(s)) list_.push_back(s);
  }
  bool has(const std::string& s) const { return std::find(list_.begin(), list_.end(), s) != list_.end(); }
  void erase(const std::string& s) {
    auto it = std::find(list_.begin(), list_.end(), s);
    if (it != list_.end()) list_.erase(it);
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::vector<std::string> list_;
};

template <class T>
Result<void> updatePluginList(std::vector<T*>& list, const config::PluginSet& set, std::string_view typeName,
                              const std::map<std::string, Plugin*>& pluginsMap) {
  std::set<std::string> seen;
  for (const auto& ep : set.enabled) {
    auto it = pluginsMap.find(ep.name);
    if (it == pluginsMap.end())
      return Error(std::string(typeName) + " " + quote(ep.name) + " does not exist");
    T* typed = dynamic_cast<T*>(it->second);
    if (typed == nullptr) {
      return Error("plugin " + quote(ep.name) + " does not extend " + std::string(typeName) + " plugin");
    }
    if (!seen.insert(ep.name).second) {
      return Error("plugin " + quote(ep.name) + " already registered as " + quote(typeName));
    }
    list.push_back(typed);
  }
  return {};
}

// The placement extension points (v1.37). Only TopologyAwareWorkloadScheduling runs them, and
// kube-scheduler-cpp refuses that gate; a profile may still list plugins there and gets upstream's checks,
// against the in-tree plugins that implement each point upstream. (podGroupPostFilter is a real point.)
struct PodGroupExtensionPoint {
  config::PluginSet config::Plugins::*set;
  std::string_view typeName;
  std::set<std::string_view> implementers;
};
const PodGroupExtensionPoint kPodGroupExtensionPoints[] = {
    {&config::Plugins::placementGenerate, "PlacementGeneratePlugin", {"TopologyPlacementGenerator"}},
    {&config::Plugins::placementScore, "PlacementScorePlugin", {"NodeResourcesFit", "PodGroupPodsCount"}},
};

Result<void> checkPodGroupExtensionPoints(const config::Plugins& plugins,
                                          const std::map<std::string, Plugin*>& pluginsMap) {
  for (const auto& point : kPodGroupExtensionPoints) {
    std::set<std::string> seen;
    for (const auto& ep : (plugins.*point.set).enabled) {
      if (!pluginsMap.contains(ep.name))
        return Error(std::string(point.typeName) + " " + quote(ep.name) + " does not exist");
      if (!point.implementers.contains(ep.name))
        return Error("plugin " + quote(ep.name) + " does not extend " + std::string(point.typeName) + " plugin");
      if (!seen.insert(ep.name).second)
        return Error("plugin " + quote(ep.name) + " already registered as " + quote(point.typeName));
    }
  }
  return {};
}

template <class T>
Result<void> expandMultiPoint(std::vector<T*>& list, const config::PluginSet& set,
                              const config::PluginSet& multiPoint, std::string_view typeName,
                              const std::map<std::string, Plugin*>& pluginsMap) {
  OrderedSet enabledSet;
  for (const auto& p : set.enabled) enabledSet.insert(p.name);
  std::set<std::string> disabled;
  for (const auto& p : set.disabled) disabled.insert(p.name);
  if (disabled.contains("*")) return {};

  OrderedSet multiPointEnabled;
  OrderedSet overridePlugins;
  for (const auto& ep : multiPoint.enabled) {
    auto it = pluginsMap.find(ep.name);
    if (it == pluginsMap.end())
      return Error(std::string(typeName) + " " + quote(ep.name) + " does not exist");
    if (dynamic_cast<T*>(it->second) == nullptr) continue;  // doesn't implement this point
    if (disabled.contains(ep.name)) continue;               // disabled for this point
    if (enabledSet.has(ep.name)) {                          // explicitly configured here: override
      overridePlugins.insert(ep.name);
      continue;
    }
    if (multiPointEnabled.has(ep.name)) {
      return Error("plugin " + quote(ep.name) + " already registered as " + quote(typeName));
    }
    multiPointEnabled.insert(ep.name);
  }

  // Order: overrides (in their specific-point order), then multiPoint-only, then the other specific ones.
  std::vector<T*> out;
  for (const auto& name : std::vector<std::string>(enabledSet.list())) {
    if (overridePlugins.has(name)) {
      out.push_back(dynamic_cast<T*>(pluginsMap.at(name)));
      enabledSet.erase(name);
    }
  }
  for (const auto& name : multiPointEnabled.list()) out.push_back(dynamic_cast<T*>(pluginsMap.at(name)));
  for (const auto& name : enabledSet.list()) out.push_back(dynamic_cast<T*>(pluginsMap.at(name)));
  list = std::move(out);
  return {};
}

bool shouldHaveEnqueueExtensions(Plugin* p) {
  return dynamic_cast<PreEnqueuePlugin*>(p) != nullptr || dynamic_cast<PreFilterPlugin*>(p) != nullptr ||
         dynamic_cast<FilterPlugin*>(p) != nullptr || dynamic_cast<ReservePlugin*>(p) != nullptr ||
         dynamic_cast<PermitPlugin*>(p) != nullptr;
}

}  // namespace

Framework::Framework(FrameworkOptions options)
    : snapshotSharedLister_(options.snapshotSharedLister),
      mutableSnapshotSharedLister_(options.mutableSnapshotSharedLister),
      client_(options.client),
      informerFactory_(options.informerFactory),
      sharedDRAManager_(options.sharedDRAManager),
      podGroupManager_(options.podGroupManager),
      enableGenericWorkload_(options.enableGenericWorkload),
      eventRecorder_(options.eventRecorder),
      podNominator_(options.podNominator),
      parallelizer_(std::move(options.parallelizer)),
      waitingPods_(std::move(options.waitingPods)),
      podsInPreBind_(std::move(options.podsInPreBind)),
      clock_(options.clock),
      metrics_(options.metrics),
      extenders_(std::move(options.extenders)) {
  if (!parallelizer_)
    parallelizer_ = std::make_shared<parallelize::Parallelizer>(parallelize::kDefaultParallelism);
  if (!waitingPods_) waitingPods_ = std::make_shared<WaitingPodsMap>();
  if (!podsInPreBind_) podsInPreBind_ = std::make_shared<PodsInPreBindMap>();
  if (clock_ == nullptr) clock_ = &realClock();
}

Framework::~Framework() = default;

template <class Fn>
Status Framework::timedExtensionPoint(ExtensionPoint point, Fn&& fn) {
  if (metrics_ == nullptr) return fn();
  const auto start = std::chrono::steady_clock::now();
  Status s = fn();
  metrics_->observeExtensionPoint(point, s.code(), metricsProfile_, secondsSince(start));
  return s;
}

template <class Fn>
Status Framework::timedPlugin(bool sample, metrics::PluginId id, ExtensionPoint point, Fn&& fn) {
  if (!sample) return fn();
  const auto start = std::chrono::steady_clock::now();
  Status s = fn();
  metrics_->observePluginExecution(id, point, s.code(), secondsSince(start));
  return s;
}

// Calls fn(list, pluginSet, typeName) for every extension point, in upstream's getExtensionPoints order.
template <class Fn>
Result<void> Framework::forEachExtensionPoint(const config::Plugins& p, Fn&& fn) {
  if (auto r = fn(preFilterPlugins_, p.preFilter, "PreFilterPlugin"); !r) return r;
  if (auto r = fn(filterPlugins_, p.filter, "FilterPlugin"); !r) return r;
  if (auto r = fn(postFilterPlugins_, p.postFilter, "PostFilterPlugin"); !r) return r;
  if (auto r = fn(reservePlugins_, p.reserve, "ReservePlugin"); !r) return r;
  if (auto r = fn(preScorePlugins_, p.preScore, "PreScorePlugin"); !r) return r;
  if (auto r = fn(scorePlugins_, p.score, "ScorePlugin"); !r) return r;
  if (auto r = fn(preBindPlugins_, p.preBind, "PreBindPlugin"); !r) return r;
  if (auto r = fn(bindPlugins_, p.bind, "BindPlugin"); !r) return r;
  if (auto r = fn(postBindPlugins_, p.postBind, "PostBindPlugin"); !r) return r;
  if (auto r = fn(permitPlugins_, p.permit, "PermitPlugin"); !r) return r;
  if (auto r = fn(preEnqueuePlugins_, p.preEnqueue, "PreEnqueuePlugin"); !r) return r;
  if (auto r = fn(queueSortPlugins_, p.queueSort, "QueueSortPlugin"); !r) return r;
  return fn(podGroupPostFilterPlugins_, p.podGroupPostFilter, "PodGroupPostFilterPlugin");
}

Result<std::unique_ptr<Framework>> Framework::create(const Registry& registry,
                                                     const config::KubeSchedulerProfile& profile,
                                                     FrameworkOptions options) {
  const bool batching = options.enableOpportunisticBatching;
  std::unique_ptr<Framework> f(new Framework(std::move(options)));
  f->profileName_ = profile.schedulerName;
  f->percentageOfNodesToScore_ = profile.percentageOfNodesToScore;
  const config::Plugins& plugins = profile.plugins;

  // The plugins any point (or multiPoint) enables.
  std::set<std::string> needed;
  for (const auto& field : config::kPluginsFields) {
    for (const auto& p : (plugins.*field.set).enabled) needed.insert(p.name);
  }

  std::map<std::string, const config::PluginArgs*> pluginConfig;
  for (const auto& pc : profile.pluginConfig) {
    if (!pluginConfig.emplace(pc.name, pc.args.get()).second) {
      return Error("repeated config for plugin " + pc.name);
    }
  }

  for (const auto& [name, factory] : registry.factories()) {
    if (!needed.contains(name)) continue;
    auto it = pluginConfig.find(name);
    const config::PluginArgs* args = it == pluginConfig.end() ? nullptr : it->second;
    auto p = factory(args, *f);
    if (!p) return p.error().wrap("initializing plugin " + quote(name));
    Plugin* raw = p.value().get();
    f->plugins_.push_back(std::move(p).value());
    f->pluginsMap_[name] = raw;
    if (shouldHaveEnqueueExtensions(raw)) f->enqueuePlugins_.push_back(raw);
  }

  const auto& pm = f->pluginsMap_;
  if (auto r = f->forEachExtensionPoint(plugins,
                                        [&](auto& list, const config::PluginSet& set, std::string_view type) {
                                          return updatePluginList(list, set, type, pm);
                                        });
      !r) {
    return r.error();
  }
  if (auto r = checkPodGroupExtensionPoints(plugins, pm); !r) return r.error();
  if (!plugins.multiPoint.enabled.empty()) {
    if (auto r =
            f->forEachExtensionPoint(plugins,
                                     [&](auto& list, const config::PluginSet& set, std::string_view type) {
                                       return expandMultiPoint(list, set, plugins.multiPoint, type, pm);
                                     });
        !r) {
      return r.error();
    }
  }

  if (f->queueSortPlugins_.size() != 1) {
    return Error("only one queue sort plugin required for profile with scheduler name " +
                 quote(profile.schedulerName) + ", but got " + std::to_string(f->queueSortPlugins_.size()));
  }
  if (f->bindPlugins_.empty()) {
    return Error("at least one bind plugin is needed for profile with scheduler name " +
                 quote(profile.schedulerName));
  }

  // Score weights: the specific Score point takes precedence over multiPoint; 0 means 1.
  std::vector<config::Plugin> weighted = plugins.score.enabled;
  weighted.insert(weighted.end(), plugins.multiPoint.enabled.begin(), plugins.multiPoint.enabled.end());
  int64_t totalPriority = 0;
  for (const auto& e : weighted) {
    auto it = pm.find(e.name);
    if (it == pm.end() || dynamic_cast<ScorePlugin*>(it->second) == nullptr) continue;
    if (f->scorePluginWeight_.contains(e.name)) continue;
    const int w = e.weight == 0 ? 1 : e.weight;
    f->scorePluginWeight_[e.name] = w;
    if (static_cast<int64_t>(w) * kMaxNodeScore > kMaxTotalScore - totalPriority) {
      return Error("total score of Score plugins could overflow");
    }
    totalPriority += static_cast<int64_t>(w) * kMaxNodeScore;
  }
  for (ScorePlugin* sp : f->scorePlugins_) {
    if (f->scorePluginWeight(std::string(sp->name())) == 0) {
      return Error("score plugin " + quote(sp->name()) + " is not configured with weight");
    }
  }

  // GangScheduling is the only PlacementFeasible plugin, and only with GenericWorkload.
  if (f->enableGenericWorkload_) {
    if (auto it = pm.find(std::string(kGangSchedulingName)); it != pm.end()) {
      auto* pf = dynamic_cast<PlacementFeasiblePlugin*>(it->second);
      if (pf == nullptr) {
        return Error(
            "GenericWorkload is enabled, but GangScheduling plugin does not fulfill PlacementFeasiblePlugin "
            "interface");
      }
      f->placementFeasiblePlugins_.push_back(pf);
    } else {
      spdlog::error(
          "GenericWorkload is enabled, but GangScheduling plugin is not set. Gang scheduling using PodGroups "
          "may not work as expected. profile={}",
          profile.schedulerName);
    }
  }

  // Metrics handles, resolved once (empty handles without metrics, so the lists can always be indexed).
  metrics::Metrics* m = f->metrics_;
  if (m != nullptr) f->metricsProfile_ = m->profile(profile.schedulerName);
  auto ids = [m](const auto& list) {
    std::vector<metrics::PluginId> out;
    out.reserve(list.size());
    for (const auto* pl : list) out.push_back(m != nullptr ? m->plugin(pl->name()) : metrics::PluginId());
    return out;
  };
  f->ids_.preEnqueue = ids(f->preEnqueuePlugins_);
  f->ids_.preFilter = ids(f->preFilterPlugins_);
  f->ids_.filter = ids(f->filterPlugins_);
  f->ids_.postFilter = ids(f->postFilterPlugins_);
  f->ids_.podGroupPostFilter = ids(f->podGroupPostFilterPlugins_);
  f->ids_.preScore = ids(f->preScorePlugins_);
  f->ids_.score = ids(f->scorePlugins_);
  f->ids_.reserve = ids(f->reservePlugins_);
  f->ids_.permit = ids(f->permitPlugins_);
  f->ids_.preBind = ids(f->preBindPlugins_);
  f->ids_.bind = ids(f->bindPlugins_);
  f->ids_.postBind = ids(f->postBindPlugins_);
  if (batching) {
    f->computeSignPlugins();
    f->signIds_ = ids(f->signPlugins_);
    f->batch_ = std::make_unique<OpportunisticBatch>(*f, f->enableGenericWorkload_);
  }
  return f;
}

void Framework::computeSignPlugins() {
  // Extenders see the whole pod: a profile with extenders signs none (batching never hints).
  enableSignatures_ = extenders_.empty();
  if (!enableSignatures_) {
    spdlog::info("Disabling signatures for profile because it has extenders configured. profile={}", profileName_);
  }
  std::set<std::string_view> seen;
  std::vector<std::string> unsupported;
  auto add = [&](const auto& list) {
    for (Plugin* pl : list) {
      if (!seen.insert(pl->name()).second) continue;
      if (auto* sp = dynamic_cast<SignPlugin*>(pl)) {
        signPlugins_.push_back(sp);
      } else {
        unsupported.emplace_back(pl->name());
        enableSignatures_ = false;
      }
    }
  };
  add(preFilterPlugins_);
  add(filterPlugins_);
  add(preScorePlugins_);
  add(scorePlugins_);
  if (!enableSignatures_) {
    spdlog::info(
        "Disabling signatures for profile because plugins do not support it. profile={} plugins=[{}]",
        profileName_, join(unsupported, " "));
  }
}

PodSignature Framework::signPod(const api::Pod& pod) {
  const auto start = std::chrono::steady_clock::now();
  PodSignature signature;
  if (enableSignatures_) {
    // Keys sorted, a later fragment replacing an earlier one with the same key: Go's json.Marshal of a map.
    std::map<std::string, std::string, std::less<>> parts;
    parts.emplace(kSchedulerNameSignerName, goJsonString(pod.spec.schedulerName));
    std::vector<SignFragment> fragments;
    bool signable = true;
    for (std::size_t i = 0; i < signPlugins_.size() && signable; ++i) {
      fragments.clear();
      const auto pluginStart = std::chrono::steady_clock::now();
      Status s = signPlugins_[i]->signPod(pod, fragments);
      if (metrics_ != nullptr)
        metrics_->observePluginExecution(signIds_[i], ExtensionPoint::Sign, s.code(),
                                         secondsSince(pluginStart));
      if (!s.isSuccess()) {
        if (s.code() == Code::Error) {
          spdlog::error("SignPod failed for plugin plugin={}: {}", signPlugins_[i]->name(), errorMessage(s));
        }
        signable = false;
        break;
      }
      for (SignFragment& f : fragments) parts.insert_or_assign(std::move(f.key), std::move(f.value));
    }
    if (signable) {
      std::string text = "{";
      for (const auto& [key, value] : parts) {
        if (text.size() > 1) text += ',';
        text += goJsonString(key);
        text += ':';
        text += value;
      }
      text += '}';
      signature = std::make_shared<const std::string>(std::move(text));
    }
  }
  // As upstream, the extension point's status is always Success.
  if (metrics_ != nullptr)
    metrics_->observeExtensionPoint(ExtensionPoint::Sign, Code::Success, metricsProfile_,
                                    secondsSince(start));
  return signature;
}

std::string Framework::getNodeHint(const PodInfo& pod, const PodSignature& signature, CycleState& state,
                                   int64_t cycleCount) {
  return batch_ ? batch_->getNodeHint(pod, signature, state, cycleCount) : std::string();
}

void Framework::storeScheduleResults(const PodSignature& signature, const std::string& hintedNode,
                                     const std::string& chosenNode,
                                     std::optional<SortedScoredNodes> otherNodes, int64_t cycleCount) {
  if (batch_)
    batch_->storeScheduleResults(signature, hintedNode, chosenNode, std::move(otherNodes), cycleCount);
}

int Framework::scorePluginWeight(const std::string& name) const {
  auto it = scorePluginWeight_.find(name);
  return it == scorePluginWeight_.end() ? 0 : it->second;
}

config::Plugins Framework::listPlugins() const {
  config::Plugins out;
  auto fill = [&](const auto& list, config::PluginSet& set, bool weights) {
    for (const auto* p : list) {
      config::Plugin cp{std::string(p->name()), 0};
      if (weights) cp.weight = scorePluginWeight(cp.name);
      set.enabled.push_back(std::move(cp));
    }
  };
  fill(preEnqueuePlugins_, out.preEnqueue, false);
  fill(queueSortPlugins_, out.queueSort, false);
  fill(preFilterPlugins_, out.preFilter, false);
  fill(filterPlugins_, out.filter, false);
  fill(postFilterPlugins_, out.postFilter, false);
  fill(preScorePlugins_, out.preScore, false);
  fill(scorePlugins_, out.score, true);
  fill(reservePlugins_, out.reserve, false);
  fill(permitPlugins_, out.permit, false);
  fill(preBindPlugins_, out.preBind, false);
  fill(bindPlugins_, out.bind, false);
  fill(postBindPlugins_, out.postBind, false);
  fill(podGroupPostFilterPlugins_, out.podGroupPostFilter, false);
  return out;
}

LessFunc Framework::queueSortFunc() const {
  QueueSortPlugin* qs = queueSortPlugins_.front();
  return [qs](const QueuedPodInfo& a, const QueuedPodInfo& b) { return qs->less(a, b); };
}

Result<std::vector<PluginEvents>> Framework::eventsToRegister() const {
  std::vector<PluginEvents> out;
  // Extenders register no events: a pod they rejected nodes for is requeued by any event, as upstream's
  // defaultEnqueueExtension for "Extender" (listed before the plugins).
  if (!extenders_.empty()) {
    out.push_back(PluginEvents{std::string(kExtenderName), unrollWildCardResource(enableGenericWorkload_)});
  }
  for (Plugin* p : enqueuePlugins_) {
    PluginEvents pe{std::string(p->name()), {}};
    if (auto* ext = dynamic_cast<EnqueueExtensions*>(p)) {
      auto events = ext->eventsToRegister();
      if (!events) return events.error().wrap("plugin " + pe.pluginName + " eventsToRegister");
      pe.events = std::move(events).value();
    } else {
      pe.events = unrollWildCardResource(enableGenericWorkload_);
    }
    out.push_back(std::move(pe));
  }
  return out;
}

Status Framework::runPreEnqueuePlugins(const PodInfo& pod) {
  const bool sample = metrics_ != nullptr && samplePluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PreEnqueue, [&]() -> Status {
    for (std::size_t i = 0; i < preEnqueuePlugins_.size(); ++i) {
      PreEnqueuePlugin* pl = preEnqueuePlugins_[i];
      Status s = timedPlugin(sample, ids_.preEnqueue[i], ExtensionPoint::PreEnqueue,
                             [&] { return pl->preEnqueue(pod); });
      if (s.isSuccess()) continue;
      s.setPlugin(std::string(pl->name()));
      return s;
    }
    return {};
  });
}

Status Framework::runPreFilterPlugins(CycleState& state, const PodInfo& pod, PreFilterResult& result,
                                      std::set<std::string>* pluginsWithNodesOut) {
  return timedExtensionPoint(ExtensionPoint::PreFilter, [&] {
    return runPreFilterPluginsImpl(state, pod, result, pluginsWithNodesOut);
  });
}

Status Framework::runPreFilterPluginsImpl(CycleState& state, const PodInfo& pod, PreFilterResult& result,
                                          std::set<std::string>* pluginsWithNodesOut) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  PluginNameSet skip;
  std::set<std::string> pluginsWithNodes;
  static const std::vector<NodeInfoPtr> kNoNodes;
  const std::vector<NodeInfoPtr>& nodes =
      snapshotSharedLister_ != nullptr ? snapshotSharedLister_->nodeInfos().list() : kNoNodes;
  result = PreFilterResult{};
  Status returnStatus;
  auto finish = [&](Status s) {
    state.setSkipFilterPlugins(std::move(skip));
    if (pluginsWithNodesOut != nullptr) *pluginsWithNodesOut = pluginsWithNodes;
    return s;
  };
  for (std::size_t i = 0; i < preFilterPlugins_.size(); ++i) {
    PreFilterPlugin* pl = preFilterPlugins_[i];
    PreFilterResult r;
    Status s = timedPlugin(sample, ids_.preFilter[i], ExtensionPoint::PreFilter,
                           [&] { return pl->preFilter(state, pod, nodes, r); });
    if (s.isSkip()) {
      skip.insert(pl->name());
      continue;
    }
    if (metrics_ != nullptr)
      metrics_->incPluginEvaluation(ids_.preFilter[i], ExtensionPoint::PreFilter, metricsProfile_);
    if (!s.isSuccess()) {
      s.setPlugin(std::string(pl->name()));
      if (s.code() == Code::UnschedulableAndUnresolvable) {
        // Preemption can't help: no need to run the remaining PreFilter plugins.
        result = PreFilterResult{};
        pluginsWithNodes.clear();
        return finish(std::move(s));
      }
      if (s.code() == Code::Unschedulable) {
        // Preemption may help later in this cycle, so every PreFilter must still run.
        returnStatus = std::move(s);
        continue;
      }
      result = PreFilterResult{};
      pluginsWithNodes.clear();
      return finish(Status::error("running PreFilter plugin " + quote(pl->name()) + ": " + errorMessage(s))
                        .withPlugin(std::string(pl->name())));
    }
    if (!r.allNodes()) pluginsWithNodes.insert(std::string(pl->name()));
    result = result.merge(r);
    if (!result.allNodes() && result.nodeNames->empty()) {
      std::string msg;
      if (pluginsWithNodes.size() == 1) {
        msg = "node(s) didn't satisfy plugin " + *pluginsWithNodes.begin();
      } else {
        msg = "node(s) didn't satisfy plugin(s) [";
        bool first = true;
        for (const auto& n : pluginsWithNodes) {
          if (!first) msg += " ";
          first = false;
          msg += n;
        }
        msg += "] simultaneously";
      }
      return finish(Status(Code::UnschedulableAndUnresolvable, msg));
    }
  }
  return finish(std::move(returnStatus));
}

Status Framework::runPreFilterExtensionAddPod(CycleState& state, const PodInfo& podToSchedule,
                                              const PodInfoPtr& podInfoToAdd, const NodeInfo& nodeInfo) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  for (std::size_t i = 0; i < preFilterPlugins_.size(); ++i) {
    PreFilterPlugin* pl = preFilterPlugins_[i];
    PreFilterExtensions* ext = pl->preFilterExtensions();
    if (ext == nullptr || state.skipFilterPlugins().contains(pl->name())) continue;
    Status s = timedPlugin(sample, ids_.preFilter[i], ExtensionPoint::PreFilterExtensionAddPod,
                           [&] { return ext->addPod(state, podToSchedule, *podInfoToAdd, nodeInfo); });
    if (!s.isSuccess()) {
      return Status::error("running AddPod on PreFilter plugin " + quote(pl->name()) + ": " +
                           errorMessage(s));
    }
  }
  return {};
}

Status Framework::runPreFilterExtensionRemovePod(CycleState& state, const PodInfo& podToSchedule,
                                                 const PodInfoPtr& podInfoToRemove,
                                                 const NodeInfo& nodeInfo) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  for (std::size_t i = 0; i < preFilterPlugins_.size(); ++i) {
    PreFilterPlugin* pl = preFilterPlugins_[i];
    PreFilterExtensions* ext = pl->preFilterExtensions();
    if (ext == nullptr || state.skipFilterPlugins().contains(pl->name())) continue;
    Status s = timedPlugin(sample, ids_.preFilter[i], ExtensionPoint::PreFilterExtensionRemovePod,
                           [&] { return ext->removePod(state, podToSchedule, *podInfoToRemove, nodeInfo); });
    if (!s.isSuccess()) {
      return Status::error("running RemovePod on PreFilter plugin " + quote(pl->name()) + ": " +
                           errorMessage(s));
    }
  }
  return {};
}

// Called per node from the Filter workers: no extension-point timing here (the scheduler times the whole
// Filter phase); plugin durations only in sampled cycles.
Status Framework::runFilterPlugins(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo) {
  const PluginNameSet& skip = state.skipFilterPlugins();
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  for (std::size_t i = 0; i < filterPlugins_.size(); ++i) {
    FilterPlugin* pl = filterPlugins_[i];
    if (!skip.empty() && skip.contains(pl->name())) continue;
    if (metrics_ != nullptr)
      metrics_->incPluginEvaluation(ids_.filter[i], ExtensionPoint::Filter, metricsProfile_);
    Status s = timedPlugin(sample, ids_.filter[i], ExtensionPoint::Filter,
                           [&] { return pl->filter(state, pod, nodeInfo); });
    if (s.isSuccess()) continue;
    if (!s.isRejected()) {
      // Filter plugins may only return Success or a rejection; anything else is an error.
      s = Status::error("running " + quote(pl->name()) + " filter plugin: " + errorMessage(s));
    }
    s.setPlugin(std::string(pl->name()));
    return s;
  }
  return {};
}

Status Framework::runPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& filteredNodeStatusMap, PostFilterResult& result) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PostFilter, [&]() -> Status {
    result = PostFilterResult{};
    std::vector<std::string> reasons;
    std::string rejectorPlugin;
    for (std::size_t i = 0; i < postFilterPlugins_.size(); ++i) {
      PostFilterPlugin* pl = postFilterPlugins_[i];
      PostFilterResult r;
      Status s = timedPlugin(sample, ids_.postFilter[i], ExtensionPoint::PostFilter,
                             [&] { return pl->postFilter(state, pod, filteredNodeStatusMap, r); });
      if (s.isSuccess()) {
        result = std::move(r);
        return s;
      }
      if (s.code() == Code::UnschedulableAndUnresolvable) {
        result = std::move(r);
        return std::move(s).withPlugin(std::string(pl->name()));
      }
      if (!s.isRejected()) {
        result = PostFilterResult{};
        return Status::error(errorMessage(s)).withPlugin(std::string(pl->name()));
      }
      // Remember the last meaningful result.
      if (r.nominatingInfo.mode != NominatingMode::Noop) result = std::move(r);
      for (const auto& reason : s.reasons()) reasons.push_back(reason);
      if (rejectorPlugin.empty()) rejectorPlugin = pl->name();
    }
    return Status(Code::Unschedulable, std::move(reasons)).withPlugin(std::move(rejectorPlugin));
  });
}

Status Framework::runFilterPluginsWithNominatedPods(CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& info) {
  // First pass with nominated pods of equal or higher priority added (they must not lose the space
  // they were promised); if that passes and pods were added, a second pass without them, because
  // filters such as pod affinity may need them absent. Both must pass.
  std::unique_ptr<CycleState> stateOut;
  std::unique_ptr<NodeInfo> nodeInfoOut;
  bool podsAdded = false;
  if (podNominator_ != nullptr && info.node() != nullptr) {
    const auto nominated = podNominator_->nominatedPodsForNode(info.nodeName());
    for (const auto& pi : nominated) {
      if (podPriority(pi->pod()) < podPriority(pod.pod()) ||
          pi->pod().metadata.uid == pod.pod().metadata.uid) {
        continue;
      }
      if (!podsAdded) {
        stateOut = state.clone();
        nodeInfoOut = info.snapshot();
        podsAdded = true;
      }
      nodeInfoOut->addPodInfo(pi);
      Status s = runPreFilterExtensionAddPod(*stateOut, pod, pi, *nodeInfoOut);
      if (!s.isSuccess()) return s;
    }
  }
  Status status =
      podsAdded ? runFilterPlugins(*stateOut, pod, *nodeInfoOut) : runFilterPlugins(state, pod, info);
  if (!status.isSuccess() && !status.isRejected()) return status;
  if (!podsAdded || !status.isSuccess()) return status;
  return runFilterPlugins(state, pod, info);
}

Status Framework::runPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     std::span<const NodeInfoPtr> nodes) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PreScore, [&]() -> Status {
    PluginNameSet skip;
    for (std::size_t i = 0; i < preScorePlugins_.size(); ++i) {
      PreScorePlugin* pl = preScorePlugins_[i];
      Status s = timedPlugin(sample, ids_.preScore[i], ExtensionPoint::PreScore,
                             [&] { return pl->preScore(state, pod, nodes); });
      if (s.isSkip()) {
        skip.insert(pl->name());
        continue;
      }
      if (metrics_ != nullptr)
        metrics_->incPluginEvaluation(ids_.preScore[i], ExtensionPoint::PreScore, metricsProfile_);
      if (!s.isSuccess()) {
        state.setSkipScorePlugins(std::move(skip));
        return Status::error("running PreScore plugin " + quote(pl->name()) + ": " + errorMessage(s));
      }
    }
    state.setSkipScorePlugins(std::move(skip));
    return {};
  });
}

Status Framework::runScorePlugins(CycleState& state, const PodInfo& pod, std::span<const NodeInfoPtr> nodes,
                                  std::vector<NodePluginScores>& out) {
  return timedExtensionPoint(ExtensionPoint::Score,
                             [&] { return runScorePluginsImpl(state, pod, nodes, out); });
}

Framework::ActiveScorePlugins Framework::nonSkippedScorePlugins(const CycleState& state) const {
  ActiveScorePlugins active;
  const PluginNameSet& skip = state.skipScorePlugins();
  for (std::size_t i = 0; i < scorePlugins_.size(); ++i) {
    ScorePlugin* pl = scorePlugins_[i];
    if (skip.contains(pl->name())) continue;
    active.plugins.push_back(pl);
    active.ids.push_back(ids_.score[i]);
    active.weights.push_back(scorePluginWeight(std::string(pl->name())));
  }
  return active;
}

Status Framework::runRawScore(const ActiveScorePlugins& active, CycleState& state, const PodInfo& pod,
                              const NodeInfo& nodeInfo, std::vector<PluginScore>& out) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  out.clear();
  out.reserve(active.plugins.size());
  for (std::size_t i = 0; i < active.plugins.size(); ++i) {
    ScorePlugin* pl = active.plugins[i];
    int64_t s = 0;
    if (metrics_ != nullptr)
      metrics_->incPluginEvaluation(active.ids[i], ExtensionPoint::Score, metricsProfile_);
    Status st = timedPlugin(sample, active.ids[i], ExtensionPoint::Score,
                            [&] { return pl->score(state, pod, nodeInfo, s); });
    if (!st.isSuccess()) {
      out.clear();
      return Status::error("plugin " + quote(pl->name()) + " failed with: " + errorMessage(st));
    }
    out.push_back(PluginScore{pl->name(), s});
  }
  return {};
}

Status Framework::runScorePluginsImpl(CycleState& state, const PodInfo& pod,
                                      std::span<const NodeInfoPtr> nodes,
                                      std::vector<NodePluginScores>& out) {
  out.clear();
  const ActiveScorePlugins active = nonSkippedScorePlugins(state);
  const int numNodes = static_cast<int>(nodes.size());
  std::vector<NodePluginScores> all(nodes.size());
  std::vector<NodeScoreList> pluginToNodeScores(active.plugins.size(), NodeScoreList(nodes.size()));
  std::stop_source cancel;
  parallelize::ErrorChannel errCh;
  parallelizer_->until(
      numNodes,
      [&](int index) {
        const auto n = static_cast<std::size_t>(index);
        const NodeInfo& nodeInfo = *nodes[n];
        NodePluginScores& nps = all[n];
        nps.name = nodeInfo.nodeName();
        if (active.plugins.empty()) return;
        if (Status st = runRawScore(active, state, pod, nodeInfo, nps.rawScores); !st.isSuccess()) {
          errCh.sendErrorWithCancel(Error(st.message()), cancel);
          return;
        }
        for (std::size_t i = 0; i < nps.rawScores.size(); ++i) {
          pluginToNodeScores[i][n] = NodeScore{nps.name, nps.rawScores[i].score};
        }
      },
      cancel.get_token());
  if (auto err = errCh.receiveError()) return Status::fromError(err->wrap("running Score plugins"));
  if (Status st = normalizeAndWeigh(active, state, pod, all, pluginToNodeScores); !st.isSuccess()) return st;
  out = std::move(all);
  return {};
}

Status Framework::runRawScorePlugins(CycleState& state, const PodInfo& pod, const NodeInfo& nodeInfo,
                                     std::vector<PluginScore>& out) {
  return runRawScore(nonSkippedScorePlugins(state), state, pod, nodeInfo, out);
}

Status Framework::normalizeScores(CycleState& state, const PodInfo& pod,
                                  std::vector<NodePluginScores>& scores) {
  const ActiveScorePlugins active = nonSkippedScorePlugins(state);
  if (active.plugins.empty()) {
    for (NodePluginScores& nps : scores) {
      nps.scores.clear();
      nps.totalScore = 0;
    }
    return {};
  }
  // Each node's raw score of each running plugin, by name; a missing one counts 0 (with no node name).
  std::vector<NodeScoreList> pluginToNodeScores(active.plugins.size(), NodeScoreList(scores.size()));
  for (std::size_t n = 0; n < scores.size(); ++n) {
    for (const PluginScore& raw : scores[n].rawScores) {
      for (std::size_t i = 0; i < active.plugins.size(); ++i) {
        if (active.plugins[i]->name() == raw.name)
          pluginToNodeScores[i][n] = NodeScore{scores[n].name, raw.score};
      }
    }
  }
  return normalizeAndWeigh(active, state, pod, scores, pluginToNodeScores);
}

Status Framework::normalizeAndWeigh(const ActiveScorePlugins& active, CycleState& state, const PodInfo& pod,
                                    std::vector<NodePluginScores>& scores,
                                    std::vector<NodeScoreList>& pluginToNodeScores) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  std::stop_source cancel;
  parallelize::ErrorChannel errCh;
  parallelizer_->until(
      static_cast<int>(active.plugins.size()),
      [&](int index) {
        const auto i = static_cast<std::size_t>(index);
        ScorePlugin* pl = active.plugins[i];
        ScoreExtensions* ext = pl->scoreExtensions();
        if (ext == nullptr) return;
        Status st = timedPlugin(sample, active.ids[i], ExtensionPoint::ScoreExtensionNormalize,
                                [&] { return ext->normalizeScore(state, pod, pluginToNodeScores[i]); });
        if (!st.isSuccess()) {
          errCh.sendErrorWithCancel(
              Error("plugin " + quote(pl->name()) + " failed with: " + errorMessage(st)), cancel);
        }
      },
      cancel.get_token());
  if (auto err = errCh.receiveError())
    return Status::fromError(err->wrap("running Normalize on Score plugins"));

  parallelizer_->until(
      static_cast<int>(scores.size()),
      [&](int index) {
        const auto n = static_cast<std::size_t>(index);
        std::vector<PluginScore> weightedScores(active.plugins.size());
        int64_t total = 0;
        for (std::size_t i = 0; i < active.plugins.size(); ++i) {
          const int64_t score = pluginToNodeScores[i][n].score;
          if (score > kMaxNodeScore || score < kMinNodeScore) {
            errCh.sendErrorWithCancel(Error("plugin " + quote(active.plugins[i]->name()) +
                                            " returns an invalid score " + std::to_string(score) +
                                            ", it should in the range of [" + std::to_string(kMinNodeScore) +
                                            ", " + std::to_string(kMaxNodeScore) + "] after normalizing"),
                                      cancel);
            return;
          }
          const int64_t weighted = score * active.weights[i];
          weightedScores[i] = PluginScore{active.plugins[i]->name(), weighted};
          total += weighted;
        }
        scores[n].scores = std::move(weightedScores);
        scores[n].totalScore = total;
      },
      cancel.get_token());
  if (auto err = errCh.receiveError()) {
    return Status::fromError(err->wrap("applying score defaultWeights on Score plugins"));
  }
  return {};
}

Status Framework::runReservePluginsReserve(CycleState& state, const PodInfo& pod,
                                           const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::Reserve, [&]() -> Status {
    for (std::size_t i = 0; i < reservePlugins_.size(); ++i) {
      ReservePlugin* pl = reservePlugins_[i];
      Status s = timedPlugin(sample, ids_.reserve[i], ExtensionPoint::Reserve,
                             [&] { return pl->reserve(state, pod, nodeName); });
      if (s.isSuccess()) continue;
      if (s.isRejected()) {
        s.setPlugin(std::string(pl->name()));
        return s;
      }
      return Status::error("running Reserve plugin " + quote(pl->name()) + ": " + errorMessage(s));
    }
    return {};
  });
}

void Framework::runReservePluginsUnreserve(CycleState& state, const PodInfo& pod,
                                           const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  static_cast<void>(timedExtensionPoint(ExtensionPoint::Unreserve, [&] {
    for (std::size_t i = reservePlugins_.size(); i-- > 0;) {
      static_cast<void>(timedPlugin(sample, ids_.reserve[i], ExtensionPoint::Unreserve, [&] {
        reservePlugins_[i]->unreserve(state, pod, nodeName);
        return Status();
      }));
    }
    return Status();
  }));
}

Status Framework::runPermitPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::Permit, [&]() -> Status {
    std::map<std::string, Clock::Duration> pluginsWaitTime;
    bool wait = false;
    for (std::size_t i = 0; i < permitPlugins_.size(); ++i) {
      PermitPlugin* pl = permitPlugins_[i];
      std::chrono::milliseconds timeout{0};
      Status s = timedPlugin(sample, ids_.permit[i], ExtensionPoint::Permit,
                             [&] { return pl->permit(state, pod, nodeName, timeout); });
      if (s.isSuccess()) continue;
      if (s.isRejected()) return std::move(s).withPlugin(std::string(pl->name()));
      if (s.isWait()) {
        pluginsWaitTime[std::string(pl->name())] = std::min(timeout, kMaxPermitTimeout);
        wait = true;
        continue;
      }
      return Status::error("running Permit plugin " + quote(pl->name()) + ": " + errorMessage(s))
          .withPlugin(std::string(pl->name()));
    }
    if (wait) {
      waitingPods_->add(WaitingPodImpl::create(pod.podPtr(), pluginsWaitTime, *clock_));
      return Status(Code::Wait, "one or more plugins asked to wait and no plugin rejected pod " +
                                    quote(pod.pod().metadata.name));
    }
    return {};
  });
}

Status Framework::runPlacementFeasiblePlugins(CycleState& placementState, const PodGroupInfo& group,
                                              const PlacementProgress& progress) {
  Status status;
  for (PlacementFeasiblePlugin* pl : placementFeasiblePlugins_) {
    Status s = pl->placementFeasible(placementState, group, progress);
    if (s.isSuccess()) continue;
    std::string name(pl->name());
    if (s.isWait()) {
      status = std::move(s).withPlugin(std::move(name));
      continue;
    }
    if (s.code() == Code::Unschedulable) return std::move(s).withPlugin(std::move(name));
    if (s.code() == Code::Error) {
      return Status::error("running PlacementFeasible plugin: " + errorMessage(s)).withPlugin(std::move(name));
    }
    return Status::error("unexpected status from PlacementFeasible plugin: " + std::string(codeName(s.code())))
        .withPlugin(std::move(name));
  }
  return status;
}

Status Framework::runPodGroupPostFilterPlugins(CycleState& groupState, const PodGroupInfo& group,
                                               const PodGroupSchedulingFunc& schedule,
                                               PodGroupPostFilterResult& result) {
  result = PodGroupPostFilterResult{};
  if (!enableGenericWorkload_) {
    return Status(Code::Unschedulable, "generic workload feature is disabled, cannot perform PodGroupPostFilter");
  }
  const bool sample = metrics_ != nullptr && groupState.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PodGroupPostFilter, [&]() -> Status {
    std::vector<std::string> reasons;
    std::string rejectorPlugin;
    for (std::size_t i = 0; i < podGroupPostFilterPlugins_.size(); ++i) {
      PodGroupPostFilterPlugin* pl = podGroupPostFilterPlugins_[i];
      PodGroupPostFilterResult r;
      Status s = timedPlugin(sample, ids_.podGroupPostFilter[i], ExtensionPoint::PodGroupPostFilter,
                             [&] { return pl->podGroupPostFilter(groupState, group, schedule, r); });
      if (s.isSuccess()) {
        result = std::move(r);
        return s;
      }
      if (s.code() == Code::UnschedulableAndUnresolvable) {
        result = std::move(r);
        return std::move(s).withPlugin(std::string(pl->name()));
      }
      if (s.code() != Code::Unschedulable) {
        return Status::error("error in " + quote(pl->name()) + " PodGroupPostFilter plugins: " + s.message())
            .withPlugin(std::string(pl->name()));
      }
      for (const auto& reason : s.reasons()) reasons.push_back(reason);
      if (rejectorPlugin.empty()) rejectorPlugin = pl->name();
    }
    return Status(Code::Unschedulable, std::move(reasons)).withPlugin(std::move(rejectorPlugin));
  });
}

bool Framework::willWaitOnPermit(const api::Pod& pod) const {
  return waitingPods_->get(pod.metadata.uid) != nullptr;
}

Status Framework::waitOnPermit(const api::Pod& pod) {
  auto wp = waitingPods_->get(pod.metadata.uid);
  if (!wp) return {};
  const auto start = std::chrono::steady_clock::now();
  Status s = wp->wait();
  if (metrics_ != nullptr) metrics_->observePermitWait(s.code(), secondsSince(start));
  waitingPods_->remove(pod.metadata.uid);
  if (s.isSuccess() || s.isRejected()) return s;
  return Status::error("waiting on permit for pod: " + errorMessage(s)).withPlugin(s.plugin());
}

Status Framework::runPreBindPreFlights(CycleState& state, const PodInfo& pod, const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PreBindPreFlight, [&]() -> Status {
    PluginNameSet skip;
    PluginNameSet parallel;
    Status returning(Code::Skip);
    for (std::size_t i = 0; i < preBindPlugins_.size(); ++i) {
      PreBindPlugin* pl = preBindPlugins_[i];
      PreBindPreFlightResult result;
      Status s = timedPlugin(sample, ids_.preBind[i], ExtensionPoint::PreBindPreFlight,
                             [&] { return pl->preBindPreFlight(state, pod, nodeName, result); });
      if (result.allowParallel) parallel.insert(pl->name());
      if (s.code() == Code::Error) {
        return Status::error("running PreBindPreFlight " + quote(pl->name()) + ": " + errorMessage(s));
      }
      if (s.isSuccess()) {
        returning = Status();
      } else if (s.isSkip()) {
        skip.insert(pl->name());
      } else {
        return Status::error(
            "PreBindPreFlight " + std::string(pl->name()) + " returned " + quote(codeName(s.code())) +
            ", which is unsupported. It is supposed to return Success, Skip, or Error status");
      }
    }
    state.setSkipPreBindPlugins(std::move(skip));
    state.setParallelPreBindPlugins(std::move(parallel));
    return returning;
  });
}

std::vector<std::vector<std::size_t>> Framework::preBindPluginGroups(const CycleState& state) const {
  const PluginNameSet& skip = state.skipPreBindPlugins();
  const PluginNameSet& parallel = state.parallelPreBindPlugins();
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group;  // the parallel run being collected
  for (std::size_t i = 0; i < preBindPlugins_.size(); ++i) {
    const std::string name(preBindPlugins_[i]->name());
    if (parallel.contains(name)) {
      if (!skip.contains(name)) group.push_back(i);
      continue;
    }
    if (!group.empty()) groups.push_back(std::exchange(group, {}));
    if (!skip.contains(name)) groups.push_back({i});
  }
  if (!group.empty()) groups.push_back(std::move(group));
  return groups;
}

std::vector<std::vector<std::string>> Framework::preBindPluginGroupsForTest(const CycleState& state) const {
  std::vector<std::vector<std::string>> out;
  for (const auto& group : preBindPluginGroups(state)) {
    auto& names = out.emplace_back();
    for (std::size_t i : group) names.emplace_back(preBindPlugins_[i]->name());
  }
  return out;
}

Status Framework::runPreBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName,
                                    const CancelWithCause* podCancel) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::PreBind, [&]() -> Status {
    // The plugins' stop: the pod's cancellation, the scheduler's shutdown, or a failed sibling.
    CancelWithCause cancel;
    std::optional<std::stop_callback<std::function<void()>>> onPodCancel;
    if (podCancel != nullptr) {
      onPodCancel.emplace(podCancel->token(), [&] { cancel.cancel(podCancel->cause()); });
    }
    std::stop_callback onShutdown(stop_.get_token(), [&] { cancel.cancel("context canceled"); });
    auto run = [&](std::size_t i) -> Status {
      PreBindPlugin* pl = preBindPlugins_[i];
      Status s = timedPlugin(sample, ids_.preBind[i], ExtensionPoint::PreBind,
                             [&] { return pl->preBind(state, pod, nodeName, cancel.token()); });
      if (s.isSuccess()) return s;
      if (s.isRejected()) {
        s.setPlugin(std::string(pl->name()));
        return s;
      }
      // A plugin that gave up because it was stopped reports why it was (context.Cause).
      const std::string err = cancel.cancelled() ? cancel.cause() : errorMessage(s);
      return Status::error("running PreBind plugin " + quote(pl->name()) + ": " + err);
    };
    for (const std::vector<std::size_t>& group : preBindPluginGroups(state)) {
      if (group.size() == 1) {
        if (Status s = run(group[0]); !s.isSuccess()) return s;
        continue;
      }
      // A parallel group: the first failure is returned and stops the rest. PreBind plugins wait on the
      // API for long, so each gets its own thread rather than the parallelizer's workers.
      std::mutex mu;
      std::optional<Status> first;
      auto runOne = [&](std::size_t i) {
        Status s = run(i);
        if (s.isSuccess()) return;
        std::lock_guard lock(mu);
        if (first) return;
        first = std::move(s);
        cancel.cancel("some other PreBind operation failed");
      };
      {
        std::vector<std::jthread> others;
        for (std::size_t k = 1; k < group.size(); ++k) others.emplace_back(runOne, group[k]);
        runOne(group[0]);
      }
      if (first) return *first;
    }
    return {};
  });
}

Status Framework::runBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  return timedExtensionPoint(ExtensionPoint::Bind, [&]() -> Status {
    if (bindPlugins_.empty()) return Status(Code::Skip);
    Status status;
    for (std::size_t i = 0; i < bindPlugins_.size(); ++i) {
      BindPlugin* pl = bindPlugins_[i];
      status = timedPlugin(sample, ids_.bind[i], ExtensionPoint::Bind,
                           [&] { return pl->bind(state, pod, nodeName); });
      if (status.isSkip()) continue;
      if (!status.isSuccess()) {
        if (status.isRejected()) {
          status.setPlugin(std::string(pl->name()));
          return status;
        }
        return Status::error("running Bind plugin " + quote(pl->name()) + ": " + errorMessage(status));
      }
      return status;
    }
    return status;
  });
}

void Framework::runPostBindPlugins(CycleState& state, const PodInfo& pod, const std::string& nodeName) {
  const bool sample = metrics_ != nullptr && state.shouldRecordPluginMetrics();
  static_cast<void>(timedExtensionPoint(ExtensionPoint::PostBind, [&] {
    for (std::size_t i = 0; i < postBindPlugins_.size(); ++i) {
      static_cast<void>(timedPlugin(sample, ids_.postBind[i], ExtensionPoint::PostBind, [&] {
        postBindPlugins_[i]->postBind(state, pod, nodeName);
        return Status();
      }));
    }
    return Status();
  }));
}

void Framework::handOff(std::function<void()> start) {
  {
    std::lock_guard lock(handOffMu_);
    if (holdingHandOffs_) {
      heldHandOffs_.push_back(std::move(start));
      return;
    }
  }
  start();
}

void Framework::holdHandOffs() {
  std::lock_guard lock(handOffMu_);
  holdingHandOffs_ = true;
}

void Framework::releaseHandOffs() {
  std::vector<std::function<void()>> held;
  {
    std::lock_guard lock(handOffMu_);
    holdingHandOffs_ = false;
    held.swap(heldHandOffs_);
  }
  for (auto& start : held) start();
}

void Framework::iterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) {
  waitingPods_->iterate(fn);
}

std::shared_ptr<WaitingPod> Framework::getWaitingPod(const std::string& uid) {
  return waitingPods_->get(uid);
}

bool Framework::rejectWaitingPod(const std::string& uid) {
  if (auto wp = waitingPods_->get(uid)) return wp->reject("", "removed");
  return false;
}

std::shared_ptr<PodInPreBind> Framework::getPodInPreBind(const std::string& uid) {
  return podsInPreBind_->get(uid);
}

std::shared_ptr<PodInPreBindImpl> Framework::addPodInPreBind(const std::string& uid) {
  return podsInPreBind_->add(uid);
}

void Framework::removePodInPreBind(const std::string& uid) { podsInPreBind_->remove(uid); }

}  // namespace ks::framework::runtime
