#include "pkg/leaderelection/healthz_adaptor.h"

namespace ks::leaderelection {

VoidResult HealthzAdaptor::check() const {
  std::lock_guard lock(mu_);
  if (le_ == nullptr) return {};
  return le_->check(timeout_);
}

void HealthzAdaptor::setLeaderElection(const LeaderElector* le) {
  std::lock_guard lock(mu_);
  le_ = le;
}

}  // namespace ks::leaderelection
