#include "pkg/informer/backoff.h"

#include <condition_variable>
#include <mutex>

namespace ks::informer {

bool sleepFor(std::chrono::milliseconds d, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace ks::informer
