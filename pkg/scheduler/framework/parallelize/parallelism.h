#pragma once
// Parallelizer: a fixed pool of worker threads that runs `fn(piece)` for pieces [0, n) in chunks, as
// upstream's parallelize.Parallelizer.Until (chunk size chunkSizeFor(n, parallelism)).
//
// The calling thread works on its own job too, so until() always completes even when every worker is
// busy (e.g. a nested until() from inside a piece) and at most min(parallelism, maxThreads) threads run
// one job. Several threads may call until() concurrently; jobs are served in arrival order.
//
// Why maxThreads: upstream runs `parallelism` goroutines, which Go multiplexes onto GOMAXPROCS (the CPUs
// the process may use). OS threads beyond the CPUs only add wake-ups and context switches: with 16 threads
// on 2 CPUs a third of the daemon's CPU went to the kernel switching threads. Chunking (and so which
// pieces run together) still follows `parallelism`, as upstream's does.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "pkg/util/result.h"

namespace ks::framework::parallelize {

inline constexpr int kDefaultParallelism = 16;

// Upstream chunkSizeFor: min(sqrt(n), n/parallelism + 1), at least 1.
int chunkSizeFor(int n, int parallelism);

// The CPUs this process may run on (its affinity mask), at least 1: Go's default GOMAXPROCS.
int usableCpus();

class Parallelizer {
 public:
  explicit Parallelizer(int parallelism = kDefaultParallelism, int maxThreads = usableCpus());
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  int parallelism() const { return parallelism_; }
  // Threads that may run one job, the caller included.
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for every i in [0, pieces) on up to parallelism() threads (the caller included) and
  // returns when all started pieces finished. Once `stop` is requested, pieces not yet started are
  // skipped. fn must be safe to call concurrently for different pieces.
  void until(int pieces, const std::function<void(int)>& fn, std::stop_token stop = {});

 private:
  struct Job;
  void workerLoop();
  static void runChunks(Job& job);

  const int parallelism_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;  // guarded by mu_
  bool shutdown_ = false;                  // guarded by mu_
  std::vector<std::thread> workers_;
};

// Keeps the first error sent from parallel pieces (upstream parallelize.ErrorChannel).
class ErrorChannel {
 public:
  void sendError(Error err);
  // Sends the error and requests stop on `cancel`, so that remaining pieces are skipped.
  void sendErrorWithCancel(Error err, std::stop_source& cancel);
  // The first error sent, if any; clears it.
  std::optional<Error> receiveError();

 private:
  std::mutex mu_;
  std::optional<Error> err_;
};

}  // namespace ks::framework::parallelize
