#pragma once
// Returns the allocator's free memory to the kernel at a fixed period, so that RSS follows the live heap.
//
// glibc keeps freed memory in its arenas (one per core pair, 16 on a 2-core machine with the daemon's
// ~70 threads) and gives back only the top of each heap. A burst of bindings, a relist or a large watch
// event leaves megabytes free in the middle of an arena; without a trim RSS keeps every past peak (the
// 30-minute soak grew 7-13% that way, with half the arena memory free). Go's runtime returns such memory
// in its background scavenger; this is our counterpart. malloc_trim(0) madvises the free pages of every
// arena away; a trim costs about a millisecond and the pages come back on first use.

#include <chrono>
#include <functional>
#include <thread>

namespace ks::app {

class HeapTrimmer {
 public:
  using TrimFunc = std::function<void()>;
  static constexpr std::chrono::seconds kDefaultPeriod{10};

  // Starts a thread that calls `trim` (default: malloc_trim(0)) every `period`; the destructor stops it.
  explicit HeapTrimmer(std::chrono::milliseconds period = kDefaultPeriod, TrimFunc trim = {});
  ~HeapTrimmer();
  HeapTrimmer(const HeapTrimmer&) = delete;
  HeapTrimmer& operator=(const HeapTrimmer&) = delete;

 private:
  std::jthread thread_;
};

}  // namespace ks::app
