#include "pkg/scheduler/framework/parallelize/parallelism.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <sched.h>

namespace ks::framework::parallelize {

int chunkSizeFor(int n, int parallelism) {
  int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
  if (int r = n / parallelism + 1; s > r) s = r;
  return std::max(s, 1);
}

int usableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

struct Parallelizer::Job {
  const std::function<void(int)>* fn = nullptr;
  std::stop_token stop;
  int pieces = 0;
  int chunkSize = 1;
  int numChunks = 0;
  std::atomic<int> nextChunk{0};
  std::atomic<int> doneChunks{0};
  std::mutex mu;
  std::condition_variable done;
};

Parallelizer::Parallelizer(int parallelism, int maxThreads) : parallelism_(std::max(parallelism, 1)) {
  const int threads = std::min(parallelism_, std::max(maxThreads, 1));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void Parallelizer::runChunks(Job& job) {
  for (;;) {
    const int c = job.nextChunk.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.numChunks) return;
    if (!job.stop.stop_requested()) {
      const int begin = c * job.chunkSize;
      const int end = std::min(begin + job.chunkSize, job.pieces);
      for (int i = begin; i < end; ++i) {
        if (job.stop.stop_requested()) break;
        (*job.fn)(i);
      }
    }
    if (job.doneChunks.fetch_add(1, std::memory_order_acq_rel) + 1 == job.numChunks) {
      std::lock_guard lock(job.mu);
      job.done.notify_all();
    }
  }
}

void Parallelizer::workerLoop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
      if (shutdown_) return;
      job = jobs_.front();
      // Once every chunk is claimed nobody needs to find this job any more.
      if (job->nextChunk.load(std::memory_order_relaxed) + 1 >= job->numChunks) jobs_.pop_front();
    }
    runChunks(*job);
    std::lock_guard lock(mu_);
    if (!jobs_.empty() && jobs_.front() == job) jobs_.pop_front();
  }
}

void Parallelizer::until(int pieces, const std::function<void(int)>& fn, std::stop_token stop) {
  if (pieces <= 0) return;
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->stop = std::move(stop);
  job->pieces = pieces;
  job->chunkSize = chunkSizeFor(pieces, parallelism_);
  job->numChunks = (pieces + job->chunkSize - 1) / job->chunkSize;
  const int helpers = std::min(threads(), job->numChunks) - 1;
  if (helpers > 0 && !workers_.empty()) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(job);
    }
    if (helpers >= static_cast<int>(workers_.size())) {
      cv_.notify_all();
    } else {
      for (int i = 0; i < helpers; ++i) cv_.notify_one();
    }
  }
  runChunks(*job);
  {
    std::lock_guard lock(mu_);
    auto it = std::find(jobs_.begin(), jobs_.end(), job);
    if (it != jobs_.end()) jobs_.erase(it);
  }
  std::unique_lock lock(job->mu);
  job->done.wait(lock, [&] { return job->doneChunks.load(std::memory_order_acquire) == job->numChunks; });
}

void ErrorChannel::sendError(Error err) {
  std::lock_guard lock(mu_);
  if (!err_) err_ = std::move(err);
}

void ErrorChannel::sendErrorWithCancel(Error err, std::stop_source& cancel) {
  sendError(std::move(err));
  cancel.request_stop();
}

std::optional<Error> ErrorChannel::receiveError() {
  std::lock_guard lock(mu_);
  std::optional<Error> out = std::move(err_);
  err_.reset();
  return out;
}

}  // namespace ks::framework::parallelize
