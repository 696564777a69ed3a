#pragma once
// Events (events.k8s.io/v1) the scheduler reports: Scheduled, FailedScheduling, Preempted.
// eventf() only enqueues (it is called on the scheduling and binding threads); a few background threads
// write through the events client. Like client-go's events broadcaster (tools/events), which writes each
// event from a goroutine of its own:
//   - repeats aggregate: the same (regarding object, type, reason, action, note) within 6 minutes
//     updates the existing Event's series (count, lastObservedTime) instead of creating a new one;
//   - there is no rate limit of its own: the events client's limiter (clientConnection.qps/burst, a client
//     separate from the one that binds) paces the writes, and an event waits for it rather than being
//     dropped;
//   - a bounded queue: past it, events are dropped (and counted), as the broadcaster drops when its
//     channel is full. Events are best effort.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pkg/client/client.h"
#include "pkg/scheduler/framework/interface.h"

namespace ks::scheduler {

struct EventRecorderOptions {
  std::string reportingController = "default-scheduler";
  std::string reportingInstance;  // e.g. the leader-election identity
  size_t maxQueued = 10000;
  // Writes in flight at once (client-go starts a goroutine per event; the client's limiter bounds them).
  int writers = 8;
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
  // One aggregation key's Event. `busy` while a writer sends its create or series updates: writes for one
  // key are serialized (a later count never lands before an earlier one), and repeats meanwhile only bump
  // `count`, which the busy writer sends before it lets go.
  struct Seen {
    std::string namespace_;
    std::string name;
    int32_t count = 1;
    int32_t written = 0;  // the count the API server has
    api::Time lastObserved;
    bool busy = false;
    std::chrono::steady_clock::time_point first;
  };

  void loop(std::stop_token stop);
  void write(Pending p);
  void forgetOldSeries(std::chrono::steady_clock::time_point now);  // seenMu_ held

  client::EventWriter& writer_;
  const EventRecorderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable_any cond_;
  std::condition_variable_any drained_;
  std::deque<Pending> queue_;
  int writing_ = 0;
  uint64_t dropped_ = 0;

  std::mutex seenMu_;
  std::map<std::string, Seen> seen_;
  // Keys in order of their series' start, to forget them without scanning seen_.
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> seenOrder_;

  std::vector<std::jthread> threads_;
};

using framework::podReference;

}  // namespace ks::scheduler
