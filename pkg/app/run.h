#pragma once
// run(): the daemon, as upstream kube-scheduler's app.Run (cmd/kube-scheduler/app/server.go):
//
//   effective config (options.h) -> [--write-config-to: write it, exit 0]
//   -> REST clients (kubeconfig, --master override, or in-cluster; one each for scheduling, events and
//   leader election, as upstream's createClients) -> metrics, event recorders (one per
//   profile, reportingController = the profile's schedulerName, as upstream's recorder factory)
//   -> pod informer with kSchedulerPodFieldSelector + the other informers -> Scheduler::create,
//   addEventHandlers -> HTTPS server (/healthz /livez /readyz /metrics /metrics/resources /metrics/slis
//   /configz, /debug/flags/v when enableProfiling) -> informers started and
//   synced (after winning the election when delayCacheUntilActive) -> with leader election: only the
//   leader schedules; losing the lease exits 1 ("Leaderelection lost"); without: schedule at once.
//
// SIGTERM / SIGINT: readiness fails, scheduling stops popping, in-flight binding cycles get up to
// kShutdownBindingDeadline to finish, the lease is released, exit 0. A second signal exits 1 at once.

#include <chrono>

#include "pkg/app/options.h"
#include "pkg/client/rest/config.h"

namespace ks::app {

inline constexpr std::chrono::seconds kShutdownBindingDeadline{30};

// client::rest::restConfigFor of the configuration's clientConnection, with our user agent. Also used by
// `explain`.
Result<client::rest::RestConfig> restConfigFor(const config::ClientConnectionConfiguration& cc,
                                               const std::string& master);

// Runs the daemon until a signal or lost leadership; returns the process exit code. Never throws.
int run(const Options& options);

}  // namespace ks::app
