#include "pkg/app/heap_trimmer.h"

#include <malloc.h>

#include <condition_variable>
#include <mutex>

namespace ks::app {

HeapTrimmer::HeapTrimmer(std::chrono::milliseconds period, TrimFunc trim) {
  if (!trim) trim = [] { ::malloc_trim(0); };
  thread_ = std::jthread([period, trim = std::move(trim)](std::stop_token stop) {
    std::mutex mu;
    std::condition_variable_any wake;
    std::unique_lock lock(mu);
    // wait_for returns true (stop requested) at once when the destructor asks, false after each period.
    while (!wake.wait_for(lock, stop, period, [&stop] { return stop.stop_requested(); })) trim();
  });
}

HeapTrimmer::~HeapTrimmer() {
  thread_.request_stop();
  thread_.join();
}

}  // namespace ks::app
