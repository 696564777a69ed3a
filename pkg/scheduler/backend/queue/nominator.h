#pragma once
// Nominated pods per node (upstream backend/queue/nominator.go): pods that preemption nominated to a
// node, so Filter can account for them (runFilterPluginsWithNominatedPods) before they are bound.
// Thread-safe with its own mutex; never calls out while holding it.

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/interface.h"

namespace ks::queue {

class Nominator final : public framework::PodNominator {
 public:
  // The informer's current version of a pod (namespace, name); null when it doesn't exist.
  using PodLister = std::function<api::PodPtr(const std::string& ns, const std::string& name)>;
  // Set before use (not thread-safe against concurrent nominations).
  void setPodLister(PodLister lister) { podLister_ = std::move(lister); }

  // Records the pod as nominated to info.nominatedNodeName (Override) or to the pod's
  // status.nominatedNodeName (Noop); a pod already nominated elsewhere is moved. Pods already bound
  // (spec.nodeName set), with no node to nominate to, or (with a lister) gone from the informer or bound
  // there are not nominated.
  void addNominatedPod(const framework::PodInfoPtr& pod, const framework::NominatingInfo& info) override;
  void deleteNominatedPodIfExists(const api::Pod& pod) override;
  // Replaces the pod's entry, keeping the nominated node when the update didn't carry one (the
  // scheduler may have nominated the pod before the API reflected it).
  void updateNominatedPod(const api::Pod& oldPod, const framework::PodInfoPtr& newPodInfo) override;
  std::vector<framework::PodInfoPtr> nominatedPodsForNode(const std::string& nodeName) const override;

  // The node the pod (by UID) is nominated to, or "".
  std::string nominatedNodeFor(const std::string& uid) const;

 private:
  void addLocked(const framework::PodInfoPtr& pod, const std::string& nodeName);
  void deleteLocked(const std::string& uid);

  PodLister podLister_;
  mutable std::mutex mu_;
  std::map<std::string, std::vector<framework::PodInfoPtr>> nominatedPods_;  // node -> pods
  std::map<std::string, std::string> nominatedPodToNode_;                    // uid -> node
  // Size of nominatedPodToNode_, readable without the lock: Filter asks for every node of every cycle,
  // and almost always nothing is nominated.
  std::atomic<size_t> nominatedCount_{0};
};

}  // namespace ks::queue
