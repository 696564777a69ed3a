#pragma once
// HealthzAdaptor: the leader-election health check of /healthz and /readyz (client-go's
// leaderelection.HealthzAdaptor). The HTTP server may register it before the elector exists; until
// setLeaderElection() is called, and while we are not the leader, it passes. It fails when we believe we
// lead but have not renewed for longer than leaseDuration + timeout: the renew loop is stuck and the
// kubelet should restart us. kube-scheduler uses a timeout of 20 s.

#include <mutex>
#include <string_view>

#include "pkg/leaderelection/leader_elector.h"
#include "pkg/util/result.h"

namespace ks::leaderelection {

class HealthzAdaptor {
 public:
  explicit HealthzAdaptor(Duration timeout) : timeout_(timeout) {}

  // The check's name in /healthz?verbose output.
  static constexpr std::string_view name() { return "leaderElection"; }
  // OK, or "failed election to renew leadership on lease <name>". Any thread.
  VoidResult check() const;
  // Ties the adaptor to `le` (non-owning; null detaches). Any thread.
  void setLeaderElection(const LeaderElector* le);

 private:
  const Duration timeout_;
  mutable std::mutex mu_;
  const LeaderElector* le_ = nullptr;  // guarded by mu_
};

}  // namespace ks::leaderelection
