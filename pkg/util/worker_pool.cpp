#include "pkg/util/worker_pool.h"

namespace ks {

WorkerPool::WorkerPool(int threads) {
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  close();
}

bool WorkerPool::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    tasks_.push_back(std::move(task));
  }
  cond_.notify_one();
  return true;
}

void WorkerPool::waitIdle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return tasks_.empty() && running_ == 0; });
}

size_t WorkerPool::inFlight() const {
  std::lock_guard lock(mu_);
  return tasks_.size() + running_;
}

void WorkerPool::close() {
  {
    std::lock_guard lock(mu_);
    if (closed_ && threads_.empty()) return;
    closed_ = true;
  }
  cond_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void WorkerPool::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cond_.wait(lock, [&] { return closed_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // closed and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    task();
    {
      std::lock_guard lock(mu_);
      --running_;
      if (tasks_.empty() && running_ == 0) idle_.notify_all();
    }
  }
}

}  // namespace ks
