#pragma once
// A fixed pool of threads running submitted tasks in FIFO order. Used for binding cycles and API
// writes that must not block the scheduling thread. close() finishes queued tasks, then joins.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ks {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues a task; returns false (and drops it) after close().
  bool submit(std::function<void()> task);
  // Blocks until no task is queued or running.
  void waitIdle();
  // Runs what is queued, then stops the threads. Idempotent.
  void close();
  // Tasks queued or running.
  size_t inFlight() const;

 private:
  void loop();

  mutable std::mutex mu_;
  std::condition_variable cond_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> tasks_;
  size_t running_ = 0;
  bool closed_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ks
