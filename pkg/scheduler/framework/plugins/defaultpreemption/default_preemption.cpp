#include "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::plugins::defaultpreemption {

using framework::Code;
using framework::PodInfoPtr;
using framework::Status;
using framework::preemption::Victim;
using framework::preemption::Victims;

namespace {

int32_t randomOffset(int32_t numNodes) {
  thread_local std::mt19937 rng{std::random_device{}()};
  return std::uniform_int_distribution<int32_t>(0, numNodes - 1)(rng);
}

// A non-Success status of an AddPod/RemovePod extension aborts the node's evaluation as an Error
// carrying its message (upstream turns it into an error and back).
Status asErrorStatus(const Status& s) {
  if (s.isSuccess()) return s;
  return Status::fromError(s.asError().value_or(Error(s.message())));
}

}  // namespace

Result<std::unique_ptr<DefaultPreemption>> DefaultPreemption::create(const config::PluginArgs* args,
                                                                     framework::Handle& handle, Features features) {
  static const config::DefaultPreemptionArgs kDefaults{};
  const config::DefaultPreemptionArgs* typed = &kDefaults;
  if (args != nullptr) {
    typed = dynamic_cast<const config::DefaultPreemptionArgs*>(args);
    if (typed == nullptr) return Error("got args of unexpected type, want *DefaultPreemptionArgs");
  }
  if (const auto errs = config::validateDefaultPreemptionArgs("", *typed); !errs.empty()) {
    return Error(config::aggregateMessage(errs));
  }
  informer::SharedInformerFactory* factory = handle.sharedInformerFactory();
  if (factory == nullptr) return Error("SharedInformerFactory is nil");
  std::unique_ptr<DefaultPreemption> pl(new DefaultPreemption(handle, *typed, features));
  pl->executor_ = std::make_unique<framework::preemption::Executor>(
      std::string(kName), handle, features.enableAsyncPreemption, factory->pods().store());
  pl->evaluator_ = std::make_unique<framework::preemption::Evaluator>(
      std::string(kName), handle, *pl, *pl->executor_, features.enableGenericWorkload,
      factory->pods().store(), factory->podDisruptionBudgets().store());
  if (features.enableGenericWorkload) {
    pl->podGroupEvaluator_ = std::make_unique<framework::preemption::PodGroupEvaluator>(
        handle, *pl->executor_, factory->podDisruptionBudgets().store());
  }
  return pl;
}

Status DefaultPreemption::podGroupPostFilter(framework::CycleState&, const framework::PodGroupInfo& group,
                                             const framework::PodGroupSchedulingFunc& schedule,
                                             framework::PodGroupPostFilterResult& result) {
  Status status = [&]() -> Status {
    if (!podGroupEvaluator_) return Status::error("pod group preemption: GenericWorkload is disabled");
    framework::MutableSharedLister* snapshot = handle_.mutableSnapshotSharedLister();
    if (snapshot == nullptr) return Status::error("pod group preemption: failed to start mutations: no snapshot");
    if (auto r = snapshot->startMutations(); !r.ok()) {
      return Status::error("pod group preemption: failed to start mutations: " + r.error().message());
    }
    Status s = podGroupEvaluator_->preempt(group, schedule, result);
    // Every change the evaluation made to the snapshot is undone here; failing that fails the attempt.
    if (auto r = snapshot->endMutations(); !r.ok()) {
      return Status::error("pod group preemption: failed to end mutations: " + r.error().message());
    }
    if (const std::string msg = s.message(); !msg.empty()) return Status(s.code(), "pod group preemption: " + msg);
    return s;
  }();
  if (metrics::Metrics* m = handle_.metrics()) m->incWorkloadPreemptionAttempt(status.code());
  return status;
}

DefaultPreemption::DefaultPreemption(framework::Handle& handle, const config::DefaultPreemptionArgs& args,
                                     Features features)
    : handle_(handle),
      args_(args),
      features_(features),
      offsetFunc_(randomOffset),
      moreImportantVictim_(framework::preemption::moreImportantVictim) {}

Status DefaultPreemption::postFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                     const framework::NodeToStatus& filteredNodeStatusMap,
                                     framework::PostFilterResult& result) {
  Status s = evaluator_->preempt(state, pod, filteredNodeStatusMap, result);
  if (metrics::Metrics* m = handle_.metrics()) m->incPreemptionAttempts();
  const std::string msg = s.message();
  if (msg.empty()) return s;
  return Status(s.code(), "preemption: " + msg);
}

Status DefaultPreemption::preEnqueue(const framework::PodInfo& pod) {
  if (!features_.enableAsyncPreemption) return Status();
  const api::Pod& p = pod.pod();
  if (p.spec.schedulingGroup && features_.enableGenericWorkload) {
    // A member waits for its group's preemption, not its own. Without its PodGroup (not observed yet, or
    // gone) the pod is not this plugin's to hold back.
    const std::string* groupName = framework::podGroupNameOf(p);
    const framework::PodGroupManager* groups = handle_.podGroupManager();
    if (groupName == nullptr || groups == nullptr) return Status();
    const framework::PodGroupPtr pg = groups->podGroup(p.metadata.namespace_, *groupName);
    if (pg == nullptr) return Status();
    if (executor_->isPodGroupRunningPreemption(pg->metadata.uid)) {
      return Status(Code::UnschedulableAndUnresolvable,
                    "waiting for the preemption for this pod group to be finished");
    }
    return Status();
  }
  if (executor_->isPodRunningPreemption(p.metadata.uid)) {
    return Status(Code::UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished");
  }
  return Status();
}

Result<std::vector<framework::ClusterEventWithHint>> DefaultPreemption::eventsToRegister() {
  if (!features_.enableAsyncPreemption) return std::vector<framework::ClusterEventWithHint>{};
  return std::vector<framework::ClusterEventWithHint>{
      {framework::ClusterEvent{framework::EventResource::AssignedPod, framework::action::Delete, {}},
       [](const api::Pod&, const framework::EventObject&, const framework::EventObject&)
           -> Result<framework::QueueingHint> { return framework::QueueingHint::QueueSkip; }}};
}

int32_t DefaultPreemption::calculateNumCandidates(int32_t numNodes) const {
  int32_t n = numNodes * args_.minCandidateNodesPercentage / 100;
  n = std::max(n, args_.minCandidateNodesAbsolute);
  return std::min(n, numNodes);
}

std::pair<int32_t, int32_t> DefaultPreemption::getOffsetAndNumCandidates(int32_t numNodes) {
  return {offsetFunc_(numNodes), calculateNumCandidates(numNodes)};
}

bool DefaultPreemption::isPreemptionAllowed(const framework::NodeInfo& nodeInfo, const Victim& victim,
                                            const api::Pod& preemptor) const {
  return victim.priority() < framework::podPriority(preemptor) &&
         (!isEligiblePod_ || isEligiblePod_(nodeInfo, victim, preemptor));
}

bool DefaultPreemption::isPreemptionAllowedAcrossAllVictimNodes(const Victim& victim,
                                                                const api::Pod& preemptor) const {
  if (victim.priority() >= framework::podPriority(preemptor)) return false;
  if (!isEligiblePod_) return true;
  for (const auto& [name, nodeInfo] : victim.affectedNodes()) {
    if (!isEligiblePod_(*nodeInfo, victim, preemptor)) return false;
  }
  return true;
}

std::optional<std::string> DefaultPreemption::podEligibleToPreemptOthers(const api::Pod& pod,
                                                                         const Status& nominatedNodeStatus) {
  if (pod.spec.preemptionPolicy == "Never") return "not eligible due to preemptionPolicy=Never.";
  const std::string& nominated = pod.status.nominatedNodeName;
  if (nominated.empty()) return std::nullopt;
  // A nominated node the filters now reject outright can't be made to fit: look for another one.
  if (nominatedNodeStatus.code() == Code::UnschedulableAndUnresolvable) return std::nullopt;
  if (const framework::SharedLister* lister = handle_.snapshotSharedLister()) {
    if (auto nodeInfo = lister->nodeInfos().get(nominated); nodeInfo.ok()) {
      // A victim's priority is its group's with GenericWorkload.
      const framework::PodGroupManager* groups =
          features_.enableGenericWorkload ? lister->podGroupManager() : nullptr;
      const api::Time now = std::chrono::system_clock::now();
      for (const auto& p : (*nodeInfo)->pods()) {
        const Victim victim = framework::preemption::newPodVictim(p, groups, now);
        if (isPreemptionAllowed(**nodeInfo, victim, pod) &&
            framework::preemption::podTerminatingByPreemption(p->pod())) {
          return "not eligible due to a terminating pod on the nominated node.";
        }
      }
    }
  }
  return std::nullopt;
}

Status DefaultPreemption::selectVictimsOnNode(framework::CycleState& state, const framework::PodInfo& pod,
                                              framework::NodeInfo& nodeInfo,
                                              std::span<const Victim> allPossibleVictims,
                                              const framework::preemption::PDBList& pdbs, Victims& victims) {
  // Only the main node's NodeInfo (this node's copy) is mutated: the filters run against it alone. A group
  // victim's pods on other nodes go through the PreFilter extensions with that node's NodeInfo, so that
  // plugins keeping cross-node state in the CycleState (topology spread, inter-pod affinity) see them gone.
  const std::string mainNodeName = nodeInfo.nodeName();
  std::map<std::string, const framework::NodeInfo*, std::less<>> nameToNode{{mainNodeName, &nodeInfo}};
  auto nodeOf = [&](const api::Pod& p) -> const framework::NodeInfo* {
    auto it = nameToNode.find(p.spec.nodeName);
    return it == nameToNode.end() ? nullptr : it->second;
  };
  auto removeVictim = [&](const Victim& v) -> Status {
    for (const PodInfoPtr& pi : v.pods()) {
      const framework::NodeInfo* on = nodeOf(pi->pod());
      if (on == nullptr) return Status::error("no node info for node \"" + pi->pod().spec.nodeName + "\"");
      if (on == &nodeInfo) {
        if (auto r = nodeInfo.removePod(pi->pod()); !r.ok()) return Status::fromError(r.error());
      }
      if (Status s = asErrorStatus(handle_.runPreFilterExtensionRemovePod(state, pod, pi, *on));
          !s.isSuccess()) {
        return s;
      }
    }
    return Status();
  };
  auto addVictim = [&](const Victim& v) -> Status {
    for (const PodInfoPtr& pi : v.pods()) {
      const framework::NodeInfo* on = nodeOf(pi->pod());
      if (on == nullptr) return Status::error("no node info for node \"" + pi->pod().spec.nodeName + "\"");
      if (on == &nodeInfo) nodeInfo.addPodInfo(pi);
      if (Status s = asErrorStatus(handle_.runPreFilterExtensionAddPod(state, pod, pi, *on));
          !s.isSuccess()) {
        return s;
      }
    }
    return Status();
  };

  std::vector<const Victim*> potentialVictims;
  for (const Victim& v : allPossibleVictims) {
    if (isPreemptionAllowedAcrossAllVictimNodes(v, pod.pod())) potentialVictims.push_back(&v);
  }
  // Nothing to evict: the node's state didn't change, no need to run the filters again.
  if (potentialVictims.empty()) {
    return Status(Code::UnschedulableAndUnresolvable, "No preemption victims found for incoming pod");
  }
  // First remove every victim that may be preempted (learning the other nodes a group victim runs on) and
  // see whether the pod fits without them.
  for (const Victim* v : potentialVictims) {
    for (const auto& [name, info] : v->affectedNodes()) nameToNode.try_emplace(name, info.get());
    if (Status s = removeVictim(*v); !s.isSuccess()) return s;
  }
  // If the pod doesn't fit even then, this node is no candidate. (Affinity of the pod to one of the
  // victims is not considered, as upstream: affinity to lower-priority pods is not recommended.)
  if (Status s = handle_.runFilterPluginsWithNominatedPods(state, pod, nodeInfo); !s.isSuccess()) return s;

  // Reprieve as many victims as possible, most important first; the ones whose eviction would violate a
  // budget before the others.
  auto moreImportant = [this](const Victim* a, const Victim* b) { return moreImportantVictim_(*a, *b); };
  std::stable_sort(potentialVictims.begin(), potentialVictims.end(), moreImportant);
  const framework::preemption::VictimsByPDBViolation split =
      framework::preemption::filterVictimsWithPDBViolation(potentialVictims, pdbs);
  std::vector<const Victim*> chosen;
  // Adds the victim back; if the preemptor no longer fits, it is a victim after all.
  auto reprieve = [&](const Victim* v, bool& fits) -> Status {
    if (Status s = addVictim(*v); !s.isSuccess()) return s;
    fits = handle_.runFilterPluginsWithNominatedPods(state, pod, nodeInfo).isSuccess();
    if (!fits) {
      if (Status s = removeVictim(*v); !s.isSuccess()) return s;
      chosen.push_back(v);
    }
    return Status();
  };
  int64_t numViolatingPods = 0;
  for (const auto& [v, violatingPods] : split.violating) {
    bool fits = false;
    if (Status s = reprieve(v, fits); !s.isSuccess()) return s;
    if (!fits) numViolatingPods += violatingPods;
  }
  for (const Victim* v : split.nonViolating) {
    bool fits = false;
    if (Status s = reprieve(v, fits); !s.isSuccess()) return s;
  }
  // Both lists were sorted on their own: restore one order of importance.
  if (!split.violating.empty() && !split.nonViolating.empty()) {
    std::stable_sort(chosen.begin(), chosen.end(), moreImportant);
  }
  for (const Victim* v : chosen) victims.pods.insert(victims.pods.end(), v->pods().begin(), v->pods().end());
  victims.numPDBViolations = numViolatingPods;
  return Status();
}

std::vector<framework::preemption::NodeScoreFunc> DefaultPreemption::orderedScoreFuncs(
    const std::map<std::string, const Victims*>& /*nodesToVictims*/) {
  return {};  // the default criteria
}

}  // namespace ks::plugins::defaultpreemption
