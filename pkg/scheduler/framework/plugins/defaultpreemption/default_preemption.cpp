#include "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "pkg/api/labels.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/scheduler/metrics/metrics.h"

namespace ks::plugins::defaultpreemption {

using framework::Code;
using framework::PodInfoPtr;
using framework::Status;
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
  pl->evaluator_ = std::make_unique<framework::preemption::Evaluator>(
      std::string(kName), handle, *pl, features.enableAsyncPreemption, factory->pods().store(),
      factory->podDisruptionBudgets().store());
  return pl;
}

DefaultPreemption::DefaultPreemption(framework::Handle& handle, const config::DefaultPreemptionArgs& args,
                                     Features features)
    : handle_(handle), args_(args), features_(features), offsetFunc_(randomOffset) {}

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
  if (features_.enableAsyncPreemption && evaluator_->isPodRunningPreemption(pod.pod().metadata.uid)) {
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

bool DefaultPreemption::isPreemptionAllowed(const api::Pod& victim, const api::Pod& preemptor) {
  return framework::podPriority(victim) < framework::podPriority(preemptor);
}

bool podTerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletionTimestamp) return false;
  for (const auto& c : pod.status.conditions) {
    if (c.type == "DisruptionTarget") return c.status == "True" && c.reason == "PreemptionByScheduler";
  }
  return false;
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
      for (const auto& p : (*nodeInfo)->pods()) {
        if (isPreemptionAllowed(p->pod(), pod) && podTerminatingByPreemption(p->pod())) {
          return "not eligible due to a terminating pod on the nominated node.";
        }
      }
    }
  }
  return std::nullopt;
}

void filterPodsWithPDBViolation(const std::vector<PodInfoPtr>& pods, const framework::preemption::PDBList& pdbs,
                                std::vector<PodInfoPtr>& violating, std::vector<PodInfoPtr>& nonViolating) {
  std::vector<int32_t> allowed;
  allowed.reserve(pdbs.size());
  std::vector<std::optional<api::Selector>> selectors;
  selectors.reserve(pdbs.size());
  for (const auto& pdb : pdbs) {
    allowed.push_back(pdb->status.disruptionsAllowed);
    auto sel = api::Selector::fromLabelSelector(pdb->spec.selector);
    // A budget whose selector doesn't compile matches no pod.
    selectors.push_back(sel.ok() ? std::optional<api::Selector>(std::move(sel).value()) : std::nullopt);
  }
  for (const auto& pi : pods) {
    const api::Pod& pod = pi->pod();
    bool violated = false;
    // A pod without labels matches no budget.
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const api::PodDisruptionBudget& pdb = *pdbs[i];
        if (pdb.metadata.namespace_ != pod.metadata.namespace_ || !selectors[i]) continue;
        // A nil or empty selector matches nothing.
        if (selectors[i]->empty() || !selectors[i]->matches(pod.metadata.labels)) continue;
        // Already counted by the apiserver's eviction: don't take it from the budget twice.
        if (pdb.status.disruptedPods.contains(pod.metadata.name)) continue;
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : nonViolating).push_back(pi);
  }
}

Status DefaultPreemption::selectVictimsOnNode(framework::CycleState& state, const framework::PodInfo& pod,
                                              framework::NodeInfo& nodeInfo,
                                              const framework::preemption::PDBList& pdbs, Victims& victims) {
  auto removePod = [&](const PodInfoPtr& pi) -> Status {
    if (auto r = nodeInfo.removePod(pi->pod()); !r.ok()) return Status::fromError(r.error());
    return asErrorStatus(handle_.runPreFilterExtensionRemovePod(state, pod, pi, nodeInfo));
  };
  auto addPod = [&](const PodInfoPtr& pi) -> Status {
    nodeInfo.addPodInfo(pi);
    return asErrorStatus(handle_.runPreFilterExtensionAddPod(state, pod, pi, nodeInfo));
  };

  // First remove every pod that may be preempted and see whether the pod fits without them.
  std::vector<PodInfoPtr> potentialVictims;
  const std::vector<PodInfoPtr> podsOnNode = nodeInfo.pods();  // removePod changes the node's list
  for (const auto& pi : podsOnNode) {
    if (!isPreemptionAllowed(pi->pod(), pod.pod())) continue;
    potentialVictims.push_back(pi);
    if (Status s = removePod(pi); !s.isSuccess()) return s;
  }
  if (potentialVictims.empty()) {
    return Status(Code::UnschedulableAndUnresolvable, "No preemption victims found for incoming pod");
  }
  // If the pod doesn't fit even then, this node is no candidate. (Affinity of the pod to one of the
  // victims is not considered, as upstream: affinity to lower-priority pods is not recommended.)
  if (Status s = handle_.runFilterPluginsWithNominatedPods(state, pod, nodeInfo); !s.isSuccess()) return s;

  // Reprieve as many pods as possible, most important first; the ones whose eviction would violate a
  // budget before the others. Pods without startTime count as started now, one `now` for the whole sort
  // so that the order is consistent.
  const api::Time now = std::chrono::system_clock::now();
  auto moreImportant = [now](const PodInfoPtr& a, const PodInfoPtr& b) {
    return framework::preemption::moreImportantPod(a->pod(), b->pod(), now);
  };
  std::stable_sort(potentialVictims.begin(), potentialVictims.end(), moreImportant);
  std::vector<PodInfoPtr> violating, nonViolating;
  filterPodsWithPDBViolation(potentialVictims, pdbs, violating, nonViolating);
  // Adds the pod back; if the preemptor no longer fits, the pod is a victim after all.
  auto reprieve = [&](const PodInfoPtr& pi, bool& fits) -> Status {
    if (Status s = addPod(pi); !s.isSuccess()) return s;
    fits = handle_.runFilterPluginsWithNominatedPods(state, pod, nodeInfo).isSuccess();
    if (!fits) {
      if (Status s = removePod(pi); !s.isSuccess()) return s;
      victims.pods.push_back(pi);
    }
    return Status();
  };
  for (const auto& pi : violating) {
    bool fits = false;
    if (Status s = reprieve(pi, fits); !s.isSuccess()) return s;
    if (!fits) ++victims.numPDBViolations;
  }
  for (const auto& pi : nonViolating) {
    bool fits = false;
    if (Status s = reprieve(pi, fits); !s.isSuccess()) return s;
  }
  // Both groups were sorted on their own: restore one order of importance.
  if (!violating.empty() && !nonViolating.empty()) {
    std::stable_sort(victims.pods.begin(), victims.pods.end(), moreImportant);
  }
  return Status();
}

std::vector<framework::preemption::NodeScoreFunc> DefaultPreemption::orderedScoreFuncs(
    const std::map<std::string, const Victims*>& /*nodesToVictims*/) {
  return {};  // the default criteria
}

}  // namespace ks::plugins::defaultpreemption
