#pragma once
// The whole scheduler over an API client: its informers (with the scheduler's pod field selector), the
// event handlers, and scheduleOne running on a thread. The harness of the tests that drive Scheduler.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <stop_token>
#include <thread>

#include "pkg/client/client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/framework/runtime/registry.h"
#include "pkg/scheduler/scheduler.h"

namespace ks::scheduler::testing {

// A configuration whose one profile, default-scheduler, is the default one without DefaultPreemption and the
// plugins not implemented yet; `profileExtra` goes into the profile ("  pluginConfig: ...").
inline std::string defaultProfileWithoutPreemption(const std::string& profileExtra = "") {
  std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  plugins:\n    multiPoint:\n      disabled:\n"
      "      - name: DefaultPreemption\n";
  for (const auto& name : plugins::notYetImplementedPlugins()) yaml += "      - name: " + name + "\n";
  return yaml + profileExtra;
}

// Polls `pred` every 5 ms until it holds or `timeout` passes; its last answer.
inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

class RunningScheduler {
 public:
  RunningScheduler() = default;
  RunningScheduler(const RunningScheduler&) = delete;
  RunningScheduler& operator=(const RunningScheduler&) = delete;
  ~RunningScheduler() { stop(); }

  // Creates the scheduler (opts.informerFactory is set here), starts the informers, waits for their
  // sync and starts the scheduling loop. A failure fails the test.
  void start(client::Client& client, const config::KubeSchedulerConfiguration& cfg,
             const framework::runtime::Registry& registry, SchedulerOptions opts) {
    informer::SharedInformerFactoryOptions fo;
    fo.podFieldSelector = std::string(informer::kSchedulerPodFieldSelector);
    factory_ = std::make_unique<informer::SharedInformerFactory>(client, fo);
    opts.informerFactory = factory_.get();
    auto s = Scheduler::create(client, cfg, registry, opts);
    ASSERT_TRUE(s.ok()) << s.error().message();
    sched_ = std::move(s).value();
    sched_->addEventHandlers(*factory_);
    factory_->start();
    ASSERT_TRUE(factory_->waitForCacheSync(std::chrono::seconds(10)));
    runner_ = std::jthread([this](std::stop_token stop) { sched_->run(stop); });
  }

  // Stops the loop, closes the scheduler (waiting for its bindings) and stops the informers. Idempotent.
  void stop() {
    runner_ = {};
    if (sched_ && !closed_) sched_->close();
    closed_ = true;
    if (factory_) factory_->stop();
  }

  explicit operator bool() const { return sched_ != nullptr; }
  Scheduler* operator->() const { return sched_.get(); }
  Scheduler& operator*() const { return *sched_; }

 private:
  std::unique_ptr<informer::SharedInformerFactory> factory_;
  std::unique_ptr<Scheduler> sched_;
  std::jthread runner_;
  bool closed_ = false;
};

}  // namespace ks::scheduler::testing
