#pragma once
// Events (events.k8s.io/v1) the scheduler reports: Scheduled, FailedScheduling, Preempted.
// eventf() only enqueues (it is called on the scheduling and binding threads); one background thread
// writes through the client. Like client-go's events broadcaster it
//   - aggregates repeats: the same (regarding object, type, reason, action, note) within 6 minutes
//     updates the existing Event's series (count, lastObservedTime) instead of creating a new one;
//   - rate-limits writes with a token bucket so an unschedulable storm cannot flood the API server;
//   - drops (and counts) events when its bounded queue is full: events are best effort.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "pkg/client/client.h"
#include "pkg/scheduler/framework/interface.h"

namespace ks::scheduler {

struct EventRecorderOptions {
  std::string reportingController = "default-scheduler";
  std::string reportingInstance;  // e.g. the leader-election identity
  size_t maxQueued = 10000;
  // New events per second across all objects (series updates of aggregated repeats are not counted).
  double qps = 50;
  int burst = 100;
  // Each (regarding, reason, ...) key may write this often at most; aggregation covers the rest.
  std::chrono::minutes seriesWindow{6};
};

class ApiEventRecorder final : public framework::EventRecorder {
 public:
  ApiEventRecorder(client::EventWriter& writer, EventRecorderOptions options = {});
  ~ApiEventRecorder() override;
  ApiEventRecorder(const ApiEventRecorder&) = delete;
  ApiEventRecorder& operator=(const ApiEventRecorder&) = delete;

  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related,
              std::string_view type, std::string_view reason, std::string_view action,
              std::string note) override;

  // Blocks until the queue is drained (tests, shutdown).
  void flush();
  uint64_t droppedForTest() const;

 private:
  struct Pending {
    api::Event event;
    std::string key;
  };
  struct Seen {
    std::string namespace_;
    std::string name;
    int32_t count = 1;
    std::chrono::steady_clock::time_point first;
  };

  void loop(std::stop_token stop);
  void write(Pending p);
  bool takeToken(std::chrono::steady_clock::time_point now);

  client::EventWriter& writer_;
  const EventRecorderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable_any cond_;
  std::condition_variable_any drained_;
  std::deque<Pending> queue_;
  bool writing_ = false;
  uint64_t dropped_ = 0;

  // Owned by the writer thread.
  std::map<std::string, Seen> seen_;
  double tokens_;
  std::chrono::steady_clock::time_point lastRefill_;

  std::jthread thread_;
};

using framework::podReference;

}  // namespace ks::scheduler
