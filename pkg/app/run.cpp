#include "pkg/app/run.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>

#include "pkg/api/json/yaml.h"
#include "pkg/app/heap_trimmer.h"
#include "pkg/app/logging.h"
#include "pkg/app/observability.h"
#include "pkg/client/rest/config.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/informer/factory.h"
#include "pkg/leaderelection/healthz_adaptor.h"
#include "pkg/leaderelection/identity.h"
#include "pkg/leaderelection/leader_elector.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/scheduler/features/scheduler_options.h"
#include "pkg/scheduler/framework/plugins/registry.h"
#include "pkg/scheduler/metrics/component_metrics.h"
#include "pkg/scheduler/metrics/metrics.h"
#include "pkg/scheduler/metrics/process_collector.h"
#include "pkg/scheduler/metrics/resources.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/server/auth/delegating.h"
#include "pkg/server/healthz.h"
#include "pkg/server/server.h"
#include "pkg/server/tls_options.h"

namespace ks::app {
namespace {

using namespace std::chrono_literals;

// upstream leaderelection.NewLeaderHealthzAdaptor(time.Second * 20)
constexpr std::chrono::seconds kLeaderHealthzTolerance{20};
constexpr std::chrono::minutes kCacheSyncTimeout{5};

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

// SIGTERM / SIGINT, delivered to one thread through sigtimedwait (the signals are blocked in every thread:
// run() blocks them before it starts any). The first one requests `shutdown`; a second one exits 1 at once,
// as upstream's SetupSignalHandler.
class SignalHandler {
 public:
  explicit SignalHandler(std::stop_source shutdown) : shutdown_(std::move(shutdown)) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
  }

 private:
  void loop(std::stop_token stop) {
    const timespec timeout{0, 200'000'000};
    while (!stop.stop_requested()) {
      siginfo_t info;
      const int sig = sigtimedwait(&set_, &info, &timeout);
      if (sig < 0) continue;  // EAGAIN (timeout) or EINTR
      if (shutdown_.stop_requested()) {
        spdlog::error("received signal {} again; exiting now", sig);
        spdlog::default_logger()->flush();
        std::_Exit(1);
      }
      spdlog::info("received signal {} ({}); shutting down", sig, sig == SIGTERM ? "SIGTERM" : "SIGINT");
      shutdown_.request_stop();
    }
  }

  std::stop_source shutdown_;
  sigset_t set_;
  std::jthread thread_;
};

// Sends each pod's events through the recorder of the pod's profile (upstream gives every profile a
// recorder whose reportingController is its schedulerName). The pod's schedulerName comes from the pod
// informer's store; events about anything else go to the first profile's recorder.
class ProfileEventRecorder final : public framework::EventRecorder {
 public:
  ProfileEventRecorder(std::map<std::string, std::unique_ptr<scheduler::ApiEventRecorder>> recorders,
                       std::string first, const informer::Store<api::Pod>& pods)
      : recorders_(std::move(recorders)), first_(std::move(first)), pods_(pods) {}

  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related,
              std::string_view type, std::string_view reason, std::string_view action,
              std::string note) override {
    framework::EventRecorder* target = recorders_.at(first_).get();
    if (recorders_.size() > 1 && regarding.kind == "Pod") {
      if (auto pod = pods_.get(regarding.namespace_ + "/" + regarding.name)) {
        if (auto it = recorders_.find(api::schedulerNameOf(*pod)); it != recorders_.end())
          target = it->second.get();
      }
    }
    target->eventf(regarding, related, type, reason, action, std::move(note));
  }

  void flush() {
    for (auto& [name, r] : recorders_) r->flush();
  }

 private:
  std::map<std::string, std::unique_ptr<scheduler::ApiEventRecorder>> recorders_;
  const std::string first_;
  const informer::Store<api::Pod>& pods_;
};

// client-go's leader election metrics on our registry.
class LeaderMetricsAdapter final : public leaderelection::LeaderMetrics {
 public:
  explicit LeaderMetricsAdapter(metrics::Metrics& m) : m_(m) {}
  void leaderOn(const std::string& name) override { m_.setLeaderStatus(name, true); }
  void leaderOff(const std::string& name) override { m_.setLeaderStatus(name, false); }
  void slowpathExercised(const std::string& name) override { m_.incLeaderSlowpath(name); }

 private:
  metrics::Metrics& m_;
};

}  // namespace

// Declared in run.h (explain uses it too).
Result<client::rest::RestConfig> restConfigFor(const config::ClientConnectionConfiguration& cc,
                                               const std::string& master) {
  client::rest::ClientConnection connection;
  connection.kubeconfig = cc.kubeconfig;
  connection.acceptContentTypes = cc.acceptContentTypes;
  connection.contentType = cc.contentType;
  connection.qps = cc.qps;
  connection.burst = cc.burst;
  auto rc = client::rest::restConfigFor(connection, master);
  if (rc.ok()) rc->userAgent = userAgent();
  return rc;
}

namespace {

// upstream createClients + resourcelock.NewFromKubeconfig: each client has its own connection pool and
// token bucket, so events and lease renewals never queue behind bindings.
struct Clients {
  std::unique_ptr<client::rest::RestClient> scheduling;      // user agent ".../scheduler"
  std::unique_ptr<client::rest::RestClient> events;          // the default user agent
  std::unique_ptr<client::rest::RestClient> leaderElection;  // ".../leader-election", timeout renewDeadline
};

Result<Clients> createClients(const client::rest::RestConfig& base, bool leaderElect,
                              std::chrono::milliseconds renewDeadline) {
  Clients c;
  auto make = [&](std::string_view suffix, std::unique_ptr<client::rest::RestClient>& out) -> VoidResult {
    client::rest::RestConfig rc = base;
    rc.userAgent = userAgent(suffix);
    if (suffix == "leader-election") {
      // config.Timeout = renewDeadline (ours is an idle timeout per read, rounded up to whole seconds).
      rc.requestTimeout = std::max(std::chrono::seconds(1),
                                   std::chrono::ceil<std::chrono::seconds>(renewDeadline));
      // No retries inside a Lease call: the elector retries every retryPeriod until renewDeadline itself.
      // client-go's Lease calls run under a context that ends at renewDeadline, which cuts any retry
      // short; ours have no such deadline, so a retry could outlast it. Backed-off retries (~6 s per
      // call) kept a leader that could not renew alive 20 s past its renewDeadline while the apiserver
      // was down, and ten honoured Retry-Afters would do the same under API Priority and Fairness 429s.
      rc.retry.maxRetries = 0;
    }
    auto created = client::rest::RestClient::create(std::move(rc));
    if (!created.ok()) return created.error();
    out = std::move(created).value();
    return {};
  };
  if (auto r = make("scheduler", c.scheduling); !r.ok()) return r.error();
  if (auto r = make("", c.events); !r.ok()) return r.error();
  if (leaderElect) {
    if (auto r = make("leader-election", c.leaderElection); !r.ok()) return r.error();
  }
  return c;
}

// component-base metrics Options.Apply: the allow-list flag wins over the manifest. Both were validated with
// the flags (parseFlags), so a manifest that cannot be read or parsed has already failed the start.
metrics::MetricsOptions metricsOptions(const metrics::MetricsConfiguration& flags) {
  metrics::MetricsOptions o;
  o.disabledMetrics.insert(flags.disabledMetrics.begin(), flags.disabledMetrics.end());
  o.showHiddenMetricsForVersion = flags.showHiddenMetricsForVersion;
  std::optional<std::map<std::string, std::string>> mapping = flags.allowListMapping;
  if (!mapping && !flags.allowListMappingManifest.empty()) {
    if (auto read = metrics::readAllowListManifest(flags.allowListMappingManifest); read.ok()) {
      mapping = std::move(read).value();
    } else {
      spdlog::error("Failed to read allow list manifest: {}", read.error().message());
    }
  }
  if (mapping && mapping->empty()) spdlog::error("empty allow-list mapping supplied, ignoring.");
  if (mapping) {
    if (auto l = metrics::parseLabelAllowList(*mapping); l.ok()) o.allowLabels = std::move(l).value();
  }
  return o;
}

std::string configzJson(const config::KubeSchedulerConfiguration& cfg) {
  auto docs = api::yamlToJson(config::encodeConfig(cfg));
  if (!docs.ok() || docs->empty()) return "{}";
  return docs->front().dump();
}

VoidResult writeConfigFile(const std::string& path, const config::KubeSchedulerConfiguration& cfg) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error("open " + path + ": cannot create file");
  out << config::encodeConfig(cfg);
  out.close();
  if (!out) return Error("write " + path + ": write failed");
  return {};
}

// Waits until no binding cycle is queued or running, at most `deadline`. Returns false on timeout.
bool drainBindings(scheduler::Scheduler& sched, std::chrono::steady_clock::duration deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (sched.bindingsInFlight() > 0) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// Sleeps until `stop` is requested or `done()` returns true.
template <typename Pred>
void waitUntil(std::stop_token stop, Pred done) {
  while (!stop.stop_requested() && !done()) std::this_thread::sleep_for(50ms);
}

// What /statusz reports for this binary. Upstream reports kube-scheduler's Go toolchain, its own release as
// the binary version and that release's minor as the emulation version; here: the compiler (as
// kubernetes_build_info's go_version label), kube-scheduler-cpp's version (as --version) and the Kubernetes
// minor whose behaviour it implements (the feature gate table's binary version: upstream's statusz registry
// takes the build's default effective version, not the --emulated-version one).
server::StatuszInfo statuszInfo() {
  server::StatuszInfo info;
  const auto stats = metrics::readProcessStats();
  if (stats.stat && stats.stat->startTimeSeconds) {
    info.startTime = std::chrono::system_clock::time_point(
        std::chrono::seconds(static_cast<int64_t>(*stats.stat->startTimeSeconds)));
  } else {
    info.startTime = std::chrono::system_clock::now();
  }
  info.goVersion = buildInfo().goVersion;
  info.binaryVersion = KS_VERSION;
  info.emulationVersion =
      std::to_string(features::kBinaryMajor) + "." + std::to_string(features::kBinaryMinor);
  return info;
}

int fail(const Error& e) {
  spdlog::error("{}", e.message());
  return 1;
}

int runDaemon(const Options& options) {
  std::vector<std::string> warnings;
  auto built = buildConfig(options, &warnings);
  for (const auto& w : warnings) spdlog::warn("{}", w);
  if (!built.ok()) return fail(built.error());
  const config::KubeSchedulerConfiguration cfg = std::move(built).value();

  if (!options.writeConfigTo.empty()) {
    if (auto w = writeConfigFile(options.writeConfigTo, cfg); !w.ok()) return fail(w.error());
    spdlog::info("Wrote configuration to: {}", options.writeConfigTo);
    return 0;
  }

  // Block the signals before any thread starts, so only the handler's thread receives them.
  std::stop_source shutdown;
  SignalHandler signals(shutdown);

  spdlog::info("Starting kube-scheduler-cpp version v{}", KS_VERSION);
  const auto& le = cfg.leaderElection;
  if (le.leaderElect && le.resourceLock != "leases") {
    return fail(Error("couldn't create resource lock: Invalid lock-type " + le.resourceLock +
                      " (kube-scheduler-cpp supports \"leases\")"));
  }

  HeapTrimmer heapTrimmer;
  metrics::ComponentMetrics componentMetrics(metricsOptions(options.metrics));
  componentMetrics.setBuildInfo(buildInfo());
  {
    std::vector<metrics::FeatureState> features;
    for (const auto& g : featureGateStates(options.featureGates)) features.push_back({g.name, g.stage, g.enabled});
    componentMetrics.setFeatures(features);
  }
  RestClientMetricsAdapter restClientMetrics(componentMetrics);

  auto rc = restConfigFor(cfg.clientConnection, options.master);
  if (!rc.ok()) return fail(rc.error());
  rc->metrics = &restClientMetrics;
  auto createdClients = createClients(*rc, le.leaderElect, le.renewDeadline);
  if (!createdClients.ok()) return fail(createdClients.error().wrap("creating the API client"));
  Clients clients = std::move(createdClients).value();
  client::rest::RestClient& client = *clients.scheduling;

  metrics::Metrics metrics;
  const std::string identity = leaderelection::defaultIdentity();
  const std::string host = hostname();

  informer::SharedInformerFactoryOptions fo;
  fo.podFieldSelector = std::string(informer::kSchedulerPodFieldSelector);
  fo.reflector.useWatchList = options.schedulerFeatures.watchListClient;
  informer::SharedInformerFactory factory(client, fo);

  std::map<std::string, std::unique_ptr<scheduler::ApiEventRecorder>> recorders;
  for (const auto& profile : cfg.profiles) {
    scheduler::EventRecorderOptions eo;
    eo.reportingController = profile.schedulerName;
    eo.reportingInstance = profile.schedulerName + "-" + host;  // client-go events.NewRecorder
    recorders.emplace(profile.schedulerName, std::make_unique<scheduler::ApiEventRecorder>(*clients.events, eo));
  }
  const std::string firstProfile =
      cfg.profiles.empty() ? std::string(config::kDefaultSchedulerName) : cfg.profiles.front().schedulerName;
  if (recorders.empty()) {
    recorders.emplace(firstProfile, std::make_unique<scheduler::ApiEventRecorder>(*clients.events));
  }
  ProfileEventRecorder recorder(std::move(recorders), firstProfile, factory.pods().store());

  scheduler::SchedulerOptions so;
  features::applySchedulerFeatures(options.schedulerFeatures, so);
  so.podMaxInUnschedulablePodsDuration = options.deprecated.podMaxInUnschedulablePodsDuration;
  so.eventRecorder = &recorder;
  so.informerFactory = &factory;
  so.metrics = &metrics;
  auto createdSched =
      scheduler::Scheduler::create(client, cfg, plugins::newInTreeRegistry(options.schedulerFeatures.plugins), so);
  if (!createdSched.ok()) return fail(createdSched.error().wrap("couldn't create scheduler"));
  std::unique_ptr<scheduler::Scheduler> sched = std::move(createdSched).value();
  sched->addEventHandlers(factory);

  // HTTPS endpoints (before the election, so that candidates serve health and metrics too).
  std::atomic<bool> synced{false};
  // upstream isLeader for /metrics/resources: true once leading, or at once without leader election.
  std::atomic<bool> leading{!le.leaderElect};
  leaderelection::HealthzAdaptor leaderHealth(kLeaderHealthzTolerance);
  // Declared before the server: its filter uses the authenticators' clients until the server stops.
  std::unique_ptr<server::auth::DelegatingAuth> delegatingAuth;
  std::unique_ptr<server::Server> srv;
  if (options.securePort != 0) {
    server::ServerOptions sopts;
    sopts.bindAddress = options.bindAddress;
    sopts.port = options.securePort;
    sopts.certFile = options.tlsCertFile;
    sopts.keyFile = options.tlsPrivateKeyFile;
    auto minVersion = server::tlsVersion(options.tlsMinVersion);
    if (!minVersion.ok()) return fail(minVersion.error());
    sopts.minTlsVersion = *minVersion;
    auto ciphers = server::tlsCipherList(options.tlsCipherSuites);
    if (!ciphers.ok()) return fail(ciphers.error());
    sopts.cipherList = std::move(ciphers).value();
    auto groups = server::tlsCurveGroups(options.tlsCurvePreferences);
    if (!groups.ok()) return fail(groups.error());
    sopts.groupsList = std::move(groups).value();
    sopts.certDirectory = options.certDir;  // pair name "kube-scheduler", as upstream
    sopts.sniCertKeys = options.tlsSniCertKeys;
    sopts.permitPortSharing = options.permitPortSharing;
    sopts.permitAddressSharing = options.permitAddressSharing;
    // As upstream: delegated authentication and authorization only when serving (Options.ApplyTo).
    std::vector<std::string> authWarnings;
    if (auto v = server::auth::validateAuthentication(options.authentication, &authWarnings); !v.ok()) {
      return fail(v.error());
    }
    for (const auto& w : authWarnings) spdlog::warn("{}", w);
    auto createdAuth = server::auth::DelegatingAuth::create(options.authentication, options.authorization,
                                                            server::auth::restAuthApiFactory());
    if (!createdAuth.ok()) return fail(createdAuth.error());
    delegatingAuth = std::move(createdAuth).value();
    sopts.requestClientCertificates = delegatingAuth->usesClientCertificates();
    auto createdSrv = server::Server::create(sopts);
    if (!createdSrv.ok()) return fail(createdSrv.error());
    srv = std::move(createdSrv).value();
    srv->setFilter(delegatingAuth->filter());
    srv->addDefaultHeader("Cache-Control", "no-cache, private");  // upstream's WithCacheControl
    delegatingAuth->start();
    server::SchedulerEndpointsOptions eo;
    eo.handlersSynced = [&synced] { return synced.load(); };
    eo.shuttingDown = [token = shutdown.get_token()] { return token.stop_requested(); };
    if (le.leaderElect) {
      eo.leaderElection = server::HealthCheck{std::string(leaderelection::HealthzAdaptor::name()),
                                              [&leaderHealth] { return leaderHealth.check(); }};
    }
    eo.metrics = [&metrics, &componentMetrics] { return componentMetrics.scrape(&metrics); };
    eo.resourceMetrics = [&leading, &factory]() -> std::string {
      if (!leading.load()) return "";
      return metrics::podResourceMetricsText(factory.pods().store().list());
    };
    eo.slisMetrics = [&componentMetrics] { return componentMetrics.scrapeSlis(); };
    eo.healthcheckObserver = [&componentMetrics](std::string_view check, std::string_view type, bool ok) {
      componentMetrics.observeHealthcheck(check, type, ok);
    };
    eo.configzJson = [json = configzJson(cfg)] { return json; };
    if (cfg.debugging.enableProfiling) {
      // upstream routes.DebugFlags with logs.GlogSetter; /debug/pprof is Go's runtime profiler and has no
      // counterpart here (docs/running.md: use perf).
      eo.verbositySetter = [](int v) { setVerbosity(v); };
    }
    // upstream newEndpointsHandler: the zpages when their gates are on (Beta, on by default in v1.37).
    if (options.featureGates.enabled("ComponentFlagz")) {
      eo.flagz = [values = flagzValues(options)] { return values; };
    }
    if (options.featureGates.enabled("ComponentStatusz")) eo.statusz = statuszInfo();
    eo.zpagesCbor = options.featureGates.enabled("CBORServingAndStorage");
    server::installSchedulerEndpoints(*srv, std::move(eo));
    srv->start();
    spdlog::info("Serving securely on {}:{}", options.bindAddress.empty() ? "0.0.0.0" : options.bindAddress,
                 srv->port());
  }

  auto startInformers = [&]() -> bool {
    factory.start();
    const auto until = std::chrono::steady_clock::now() + kCacheSyncTimeout;
    while (!factory.waitForCacheSync(500ms)) {
      if (shutdown.stop_requested() || std::chrono::steady_clock::now() >= until) return false;
    }
    synced = true;
    spdlog::info("informer caches are synced");
    return true;
  };

  // Stops popping, lets in-flight bindings finish (bounded), flushes events.
  auto drain = [&] {
    if (!drainBindings(*sched, kShutdownBindingDeadline)) {
      spdlog::warn("abandoning {} in-flight binding cycles after {}s", sched->bindingsInFlight(),
                   kShutdownBindingDeadline.count());
      return false;
    }
    recorder.flush();
    return true;
  };

  auto shutdownEverything = [&](int code) {
    if (srv) srv->stop();
    sched->close();
    factory.stop();
    return code;
  };

  if (!cfg.delayCacheUntilActive || !le.leaderElect) {
    if (!startInformers()) {
      if (shutdown.stop_requested()) return shutdownEverything(0);
      return fail(Error("timed out waiting for informer caches to sync"));
    }
  }

  if (!le.leaderElect) {
    std::jthread scheduling([&](std::stop_token) { sched->run(shutdown.get_token()); });
    scheduling.join();  // returns when shutdown is requested (the queue is closed)
    const bool drained = drain();
    spdlog::info("Requested to terminate, exiting");
    if (!drained) {
      spdlog::default_logger()->flush();
      std::_Exit(0);
    }
    return shutdownEverything(0);
  }

  // Leader election: only the leader schedules.
  LeaderMetricsAdapter leaderMetrics(metrics);
  std::atomic<bool> started{false};
  std::atomic<bool> drained{false};
  std::atomic<bool> electorDone{false};
  leaderelection::LeaderElectionConfig lec;
  lec.leaseNamespace = le.resourceNamespace;
  lec.leaseName = le.resourceName;
  lec.identity = identity;
  lec.leaseDuration = le.leaseDuration;
  lec.renewDeadline = le.renewDeadline;
  lec.retryPeriod = le.retryPeriod;
  lec.releaseOnCancel = true;
  lec.name = "kube-scheduler";
  lec.metrics = &leaderMetrics;
  lec.logInfo = [](std::string_view m) { spdlog::info("{}", m); };
  lec.logError = [](std::string_view m) { spdlog::error("{}", m); };
  lec.recordEvent = [&recorder, &le](const std::string& message) {
    api::ObjectReference lease;
    lease.kind = "Lease";
    lease.apiVersion = "coordination.k8s.io/v1";
    lease.namespace_ = le.resourceNamespace;
    lease.name = le.resourceName;
    recorder.eventf(lease, nullptr, "Normal", "LeaderElection", "LeaderElection", message);
  };
  lec.callbacks.onStartedLeading = [&](std::stop_token stillLeading) {
    started = true;
    leading = true;
    if (cfg.delayCacheUntilActive && !startInformers()) {
      drained = true;
      return;
    }
    // Scheduling stops when leadership ends or on shutdown; on shutdown the bindings drain before the
    // lease is released (the elector is only stopped once `drained` is set).
    std::stop_source schedStop;
    std::stop_callback onLost(stillLeading, [&schedStop] { schedStop.request_stop(); });
    std::stop_callback onShutdown(shutdown.get_token(), [&schedStop] { schedStop.request_stop(); });
    sched->run(schedStop.get_token());
    if (shutdown.stop_requested()) drain();
    drained = true;
  };
  lec.callbacks.onStoppedLeading = [] {};
  lec.callbacks.onNewLeader = [identity](const std::string& holder) {
    if (holder == identity) return;
    spdlog::info("new leader elected: {}", holder.empty() ? "<none>" : holder);
  };

  auto createdLe = leaderelection::LeaderElector::create(std::move(lec), *clients.leaderElection);
  if (!createdLe.ok()) return fail(createdLe.error().wrap("couldn't create leader elector"));
  std::unique_ptr<leaderelection::LeaderElector> elector = std::move(createdLe).value();
  leaderHealth.setLeaderElection(elector.get());

  std::stop_source electorStop;
  std::jthread electing([&](std::stop_token) {
    elector->run(electorStop.get_token());
    electorDone = true;
  });

  waitUntil(shutdown.get_token(), [&] { return electorDone.load(); });
  if (shutdown.stop_requested()) {
    // Finish (or abandon, after the deadline) the leader's work, then release the lease.
    if (started) waitUntil(std::stop_token{}, [&] { return drained.load() || electorDone.load(); });
    electorStop.request_stop();
    electing.join();
    leaderHealth.setLeaderElection(nullptr);
    spdlog::info("Requested to terminate, exiting");
    if (sched->bindingsInFlight() > 0) {
      spdlog::default_logger()->flush();
      std::_Exit(0);
    }
    return shutdownEverything(0);
  }
  // The elector returned on its own: the lease was lost (upstream: klog.FlushAndExit(1)).
  electing.join();
  spdlog::error("Leaderelection lost");  // upstream's text, capital L
  spdlog::default_logger()->flush();
  std::_Exit(1);
}

}  // namespace

int run(const Options& options) {
  // setupLogging starts spdlog's flusher thread: block SIGTERM / SIGINT first, so that it inherits the mask
  // and the signals reach only SignalHandler's sigtimedwait (an unblocked thread would take the default
  // action and kill the process).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  setupLogging(options.logging);
  for (const auto& w : options.featureGateWarnings) spdlog::warn("{}", w);
  if (!options.featureGates.explicitlySet().empty()) {
    spdlog::info("feature gates: {}", options.featureGates.toString());
  }
  try {
    return runDaemon(options);
  } catch (const std::exception& e) {
    spdlog::critical("unexpected error: {}", e.what());
    return 1;
  } catch (...) {
    spdlog::critical("unexpected error");
    return 1;
  }
}

}  // namespace ks::app
