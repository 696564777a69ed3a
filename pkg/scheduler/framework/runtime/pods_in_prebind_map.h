#pragma once
// Pods in the PreBind phase of their binding cycle (upstream pods_in_prebind_map.go), shared by all
// profiles' frameworks. Preemption cancels such a victim in memory instead of deleting it: cancelPod()
// stops its PreBind plugins, and the binding cycle checks markPrebound() before Bind, so that a pod is
// either cancelled or bound, never both.

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/cancel.h"

namespace ks::framework::runtime {

class PodInPreBindImpl final : public PodInPreBind {
 public:
  bool cancelPod(const std::string& message) override;
  bool markPrebound() override;
  // Requested by cancelPod; the pod's PreBind plugins run under it.
  const CancelWithCause& cancellation() const { return cancel_; }

 private:
  std::mutex mu_;
  bool finished_ = false;  // guarded by mu_
  CancelWithCause cancel_;
};

class PodsInPreBindMap {
 public:
  // Registers the pod (replacing an earlier entry) and returns its entry.
  std::shared_ptr<PodInPreBindImpl> add(const std::string& uid);
  std::shared_ptr<PodInPreBindImpl> get(const std::string& uid) const;
  void remove(const std::string& uid);

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<PodInPreBindImpl>> pods_;  // guarded by mu_
};

}  // namespace ks::framework::runtime
