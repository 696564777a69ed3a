#pragma once
// Pods waiting at Permit (upstream waiting_pods_map.go).
//
// A WaitingPodImpl has one timer per plugin that returned Wait. allow(p) stops p's timer and removes it;
// when no plugin is pending, Success is delivered. reject() (by a plugin, a timeout, or the pod's
// deletion) delivers Unschedulable with the message; preempt() (by preemption) delivers an Error.
// Exactly one result is ever delivered: the first; later allow/reject/preempt/timeouts are no-ops. Any thread may call allow/reject concurrently with the timers.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "pkg/api/core.h"
#include "pkg/util/clock.h"
#include "pkg/scheduler/framework/interface.h"

namespace ks::framework::runtime {

class WaitingPodImpl final : public WaitingPod, public std::enable_shared_from_this<WaitingPodImpl> {
 public:
  // Starts a timer per plugin in pluginsMaxWaitTime on `clock`; a timer that fires rejects the pod with
  // "rejected due to timeout after waiting <d> at plugin <p>".
  static std::shared_ptr<WaitingPodImpl> create(
      api::PodPtr pod, const std::map<std::string, Clock::Duration>& pluginsMaxWaitTime, Clock& clock);

  const api::Pod& pod() const override { return *pod_; }
  std::vector<std::string> pendingPlugins() const override;
  void allow(const std::string& pluginName) override;
  bool reject(const std::string& pluginName, const std::string& msg) override;
  bool preempt(const std::string& pluginName, const std::string& msg) override;

  // Blocks until a result was delivered and returns it (the binding thread, WaitOnPermit).
  Status wait();
  // The delivered result, if any, without blocking.
  std::optional<Status> tryResult() const;

  explicit WaitingPodImpl(api::PodPtr pod) : pod_(std::move(pod)) {}

 private:
  // Delivers s unless a result was delivered already; false if one was. Requires mu_.
  bool deliverLocked(Status s);
  // Stops the timers and delivers `code` with msg attributed to pluginName (reject and preempt).
  bool stopWithStatus(Code code, const std::string& pluginName, const std::string& msg);

  api::PodPtr pod_;
  mutable std::mutex mu_;
  std::condition_variable delivered_;
  std::map<std::string, std::unique_ptr<Timer>> pendingPlugins_;  // guarded by mu_
  std::optional<Status> result_;                                  // guarded by mu_
};

// UID -> waiting pod; shared by all profiles' frameworks.
class WaitingPodsMap {
 public:
  void add(std::shared_ptr<WaitingPodImpl> wp);
  void remove(const std::string& uid);
  std::shared_ptr<WaitingPodImpl> get(const std::string& uid) const;
  // Calls fn for every waiting pod under the read lock (fn must not add/remove).
  void iterate(const std::function<void(WaitingPod&)>& fn) const;
  std::size_t size() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<WaitingPodImpl>> pods_;  // guarded by mu_
};

// Formats a duration as Go's time.Duration.String() does ("10s", "1m30s", "500ms", "1h0m0s").
std::string formatDuration(Clock::Duration d);

}  // namespace ks::framework::runtime
