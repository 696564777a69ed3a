#pragma once
// The scheduler's HTTP endpoints, as upstream kube-scheduler's newHealthEndpointsAndMetricsHandler:
//   /healthz  checks: leaderElection (when leader election is on), else ping
//   /livez    checks: ping
//   /readyz   checks: leaderElection (when on), shutdown, sched-handler-sync
//   /<endpoint>/<check> for each check, /metrics (Prometheus text 0.0.4), /configz ({"componentconfig":
//   ...}).
// Output follows k8s.io/apiserver/pkg/server/healthz: "ok" on success; with ?verbose one "[+]<check> ok" line
// per check then "<endpoint> check passed"; on any failure a 500 listing "[-]<check> failed: reason
// withheld" (the reason is only logged) and "<endpoint> check failed"; ?exclude=<check> skips a check.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/server/server.h"
#include "pkg/server/zpages.h"
#include "pkg/util/result.h"

namespace ks::server {

// A named health check. check() is called on server threads, concurrently; it must be cheap and
// thread-safe. An Error's message is logged, never sent by the root endpoint.
struct HealthCheck {
  std::string name;
  std::function<VoidResult()> check;
};

// "ping": always ok.
HealthCheck pingCheck();
// "sched-handler-sync": ok once `synced()` returns true (informer caches synced and handlers registered).
HealthCheck handlerSyncCheck(std::function<bool()> synced);
// "shutdown": fails once `shuttingDown()` returns true.
HealthCheck shutdownCheck(std::function<bool()> shuttingDown);
// "leaderElection": upstream's leader election watchdog (HealthzAdaptor). Ok when not leading; when
// leading, fails once the lease was last renewed more than leaseDuration + tolerance ago (upstream
// tolerance: 20s), i.e. the elector is stuck. `now` defaults to steady_clock::now.
HealthCheck leaderElectionCheck(std::function<bool()> isLeader,
                                std::function<std::chrono::steady_clock::time_point()> lastRenewed,
                                std::chrono::milliseconds leaseDuration,
                                std::chrono::milliseconds tolerance = std::chrono::seconds(20),
                                std::function<std::chrono::steady_clock::time_point()> now = {});

// component-base slis.ObserveHealthcheck: told the result of every check a root endpoint ran (excluded
// checks and the per-check paths are not observed, as upstream). `type` is "healthz", "livez" or "readyz".
using HealthcheckObserver = std::function<void(std::string_view check, std::string_view type, bool ok)>;

// Serves a root health endpoint; `name` is "healthz", "livez" or "readyz".
Response serveHealth(std::string_view name, const std::vector<HealthCheck>& checks, const Request& req,
                     const HealthcheckObserver& observer = {});

// Routes `path` and `path/<check>` for every check (only ping when `checks` is empty), as upstream
// InstallPathHandler.
void installHealthChecks(Server& server, const std::string& path, std::vector<HealthCheck> checks,
                         HealthcheckObserver observer = {});

struct SchedulerEndpointsOptions {
  // Required: true once informer caches synced and event handlers are registered.
  std::function<bool()> handlersSynced;
  // Optional: true once the daemon started shutting down.
  std::function<bool()> shuttingDown;
  // Set when leader election is on (leaderElectionCheck(...)).
  std::optional<HealthCheck> leaderElection;
  // Required: the metrics scrape (metrics::Metrics::scrape).
  std::function<std::string()> metrics;
  // Optional: the effective KubeSchedulerConfiguration as a JSON object; /configz is 404 without it.
  std::function<std::string()> configzJson;
  // Optional: /metrics/resources (upstream: the pod resource collector, an empty 200 unless leading; the
  // function decides) and /metrics/slis with the health checks' results reported to healthcheckObserver.
  std::function<std::string()> resourceMetrics;
  std::function<std::string()> slisMetrics;
  HealthcheckObserver healthcheckObserver;
  // Optional (enableProfiling): sets the log verbosity; installs /debug/flags (index) and /debug/flags/v
  // (PUT a number, as upstream's routes.DebugFlags with logs.GlogSetter).
  std::function<void(int)> verbositySetter;
  // Optional (ComponentFlagz): /flagz over these flags.
  FlagReader flagz;
  // Optional (ComponentStatusz): /statusz. Installed last; its listedPaths are the server's listed paths
  // at that point, as upstream's statusz.NewRegistry(..., WithListedPaths(mux.ListedPaths())).
  std::optional<StatuszInfo> statusz;
  // Both offer application/cbor (upstream: the CBORServingAndStorage gate).
  bool zpagesCbor = false;
};

// The component name /flagz and /statusz report (upstream's kubeScheduler constant).
inline constexpr std::string_view kSchedulerComponentName = "kube-scheduler";

// Installs /healthz, /livez, /readyz (+ per-check paths), /metrics, /metrics/resources, /metrics/slis,
// /configz, with verbositySetter /debug/flags/v (unlisted), then /flagz and /statusz when given.
void installSchedulerEndpoints(Server& server, SchedulerEndpointsOptions options);

}  // namespace ks::server
