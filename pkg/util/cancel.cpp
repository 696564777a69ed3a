#include "pkg/util/cancel.h"

namespace ks {

bool CancelWithCause::cancel(const std::string& cause) {
  {
    std::lock_guard lock(mu_);
    if (requested_) return false;
    requested_ = true;
    cause_ = cause;
  }
  // Outside the lock: request_stop runs the stop callbacks on this thread, and they may read cause().
  stop_.request_stop();
  return true;
}

bool CancelWithCause::cancelled() const {
  std::lock_guard lock(mu_);
  return requested_;
}

std::string CancelWithCause::cause() const {
  std::lock_guard lock(mu_);
  return cause_;
}

}  // namespace ks
