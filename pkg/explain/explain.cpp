#include "pkg/explain/explain.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <type_traits>

#include "pkg/app/options.h"
#include "pkg/app/run.h"
#include "pkg/client/rest/rest_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/duration.h"
#include "pkg/scheduler/framework/plugins/registry.h"

namespace ks::explain {

namespace {

constexpr std::string_view kUsage =
    "Usage: kube-scheduler-cpp explain [--kubeconfig KUBECONFIG] [--config CONFIG.yaml] [-o table|json]\n"
    "                                  [--timeout DURATION] [--feature-gates A=true,...] NAMESPACE/POD\n";
// --help: the usage, then this.
constexpr std::string_view kHelp =
    "\n"
    "Why is this pod pending, or where would it go: lists the cluster read-only, then runs the pod's\n"
    "profile once for this pod alone and prints the per-node filter reasons, scores and preemption.\n"
    "A bound pod is evaluated as if pending. Nothing is written to the cluster.\n"
    "\n"
    "  --kubeconfig   kubeconfig file (default: the configuration's clientConnection.kubeconfig, else\n"
    "                 the in-cluster service account)\n"
    "  --config       KubeSchedulerConfiguration file, as the daemon's --config (default: the default\n"
    "                 profile default-scheduler)\n"
    "  -o, --output   table (default) or json\n"
    "  --timeout      time limit of the whole command, e.g. 30s, 2m (default 1m0s)\n"
    "  --feature-gates  the daemon's feature gates (e.g. GenericWorkload=true: a PodGroup member is explained\n"
    "                 with its group)\n";

// Pages of the lists: what client-go's reflectors ask for.
constexpr int64_t kListPageSize = 500;

template <typename T>
Result<void> copyKind(client::ListWatcher<T>& lw, client::MemoryClient& cluster, std::string_view resource) {
  client::ListOptions options;
  options.limit = kListPageSize;
  auto list = client::rest::listAll(lw, options);
  if (!list.ok()) return Error("listing " + std::string(resource) + ": " + list.error().message());
  for (const T& obj : list->items) {
    if (auto created = cluster.create(obj); !created.ok()) {
      return Error("copying " + std::string(resource) + " " + obj.metadata.name + ": " +
                   created.error().message());
    }
  }
  return {};
}

std::string profileNames(const config::KubeSchedulerConfiguration& cfg) {
  std::string out;
  for (const auto& p : cfg.profiles) out += (out.empty() ? "" : ", ") + p.schedulerName;
  return out;
}

// Ends the process when the command outlives --timeout (a list stuck on a slow server, say): nothing
// needs undoing, the live cluster was only read.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::milliseconds timeout)
      : thread_([timeout](std::stop_token stop) {
          std::mutex mu;
          std::condition_variable_any cv;
          std::unique_lock lock(mu);
          cv.wait_for(lock, stop, timeout, [] { return false; });
          if (stop.stop_requested()) return;
          std::fprintf(stderr, "explain: timed out after %s\n",
                       config::formatGoDuration(std::chrono::nanoseconds(timeout)).c_str());
          std::fflush(stderr);
          std::_Exit(1);
        }) {}

 private:
  std::jthread thread_;
};

}  // namespace

Result<ExplainArgs> parseExplainArgs(const std::vector<std::string>& args) {
  ExplainArgs out;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool hasValue = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      hasValue = true;
    } else if (a.size() > 2 && a.rfind("-o", 0) == 0) {
      // pflag's shorthand forms, as kubectl takes them: -ojson, -o=json.
      value = a.substr(a[2] == '=' ? 3 : 2);
      a = "-o";
      hasValue = true;
    }
    if (a == "-h" || a == "--help") {
      out.help = true;
      return out;
    }
    if (a == "--kubeconfig" || a == "--config" || a == "-o" || a == "--output" || a == "--timeout" ||
        a == "--feature-gates") {
      if (!hasValue) {
        if (i + 1 >= args.size()) return Error("flag " + a + " needs a value");
        value = args[++i];
      }
      if (a == "--kubeconfig") {
        out.kubeconfig = value;
      } else if (a == "--feature-gates") {
        out.featureGates.push_back(value);
      } else if (a == "--config") {
        out.configPath = value;
      } else if (a == "--timeout") {
        auto d = config::parseGoDuration(value);
        if (!d.ok())
          return Error("invalid argument \"" + value + "\" for \"--timeout\" flag: " + d.error().message());
        if (d->count() <= 0)
          return Error("invalid argument \"" + value + "\" for \"--timeout\" flag: must be positive");
        out.timeout =
            std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(*d));
      } else {
        if (value != "table" && value != "json")
          return Error("-o must be json or table, got \"" + value + "\"");
        out.output = value;
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-') return Error("unknown flag " + args[i]);
    positional.push_back(args[i]);
  }
  if (positional.size() != 1) {
    return Error(positional.empty()
                     ? "NAMESPACE/POD is required"
                     : "expected one NAMESPACE/POD, got " + std::to_string(positional.size()) + " arguments");
  }
  const std::string& target = positional.front();
  const size_t slash = target.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == target.size() ||
      target.find('/', slash + 1) != std::string::npos) {
    return Error("expected NAMESPACE/POD, got \"" + target + "\"");
  }
  out.namespace_ = target.substr(0, slash);
  out.name = target.substr(slash + 1);
  return out;
}

Result<config::KubeSchedulerConfiguration> explainConfig(const std::string& configPath,
                                                         const features::SchedulerFeatures& features) {
  if (!configPath.empty()) {
    app::Options options;
    options.configFile = configPath;
    options.schedulerFeatures = features;
    return app::buildConfig(options);
  }
  config::DecodeOptions decode;
  decode.features = features.config;
  // The daemon's default configuration, minus the upstream plugins it would refuse to run (they would
  // make the default profile unusable here; a pod they would act on is explained without them).
  std::string text =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n";
  const auto& missing = plugins::notYetImplementedPlugins();
  if (!missing.empty()) {
    text += "profiles:\n- schedulerName: " + std::string(config::kDefaultSchedulerName) +
            "\n  plugins:\n    multiPoint:\n      disabled:\n";
    for (const auto& name : missing) text += "      - name: " + name + "\n";
  }
  return config::decodeConfig(text, decode);
}

Result<LiveCopy> copyLiveCluster(client::ListWatchers& live, client::MemoryClient& cluster,
                                 const std::string& namespace_, const std::string& name, bool genericWorkload) {
  // Every watched kind but pods, in kinds.def's order; not the kinds of groups served only when enabled
  // (scheduling.k8s.io/v1beta1): their gates are off here.
#define KS_WATCHED_KIND(Type, accessor, resource, namespaced)                                \
  if constexpr (!std::is_same_v<api::Type, api::Pod> && api::servedByDefault<api::Type>()) { \
    if (auto r = copyKind(live.accessor(), cluster, resource); !r.ok()) return r.error();    \
  }
#include "pkg/api/kinds.def"
  // ... but for PodGroups with GenericWorkload (the scheduler watches them; not Workloads).
  if (genericWorkload) {
    if (auto r = copyKind(live.podGroups(), cluster, "podgroups"); !r.ok()) return r.error();
  }

  // Pods as the scheduler's informer lists them (terminated ones are not its business).
  client::ListOptions options;
  options.limit = kListPageSize;
  options.fieldSelector = std::string(informer::kSchedulerPodFieldSelector);
  auto pods = client::rest::listAll(live.pods(), options);
  if (!pods.ok()) return Error("listing pods: " + pods.error().message());
  std::optional<LiveCopy> found;
  for (api::Pod& pod : pods->items) {
    if (pod.metadata.namespace_ == namespace_ && pod.metadata.name == name) {
      found.emplace();
      // Bound: where would it go now, with its node's resources no longer held by it.
      found->boundNode = std::move(pod.spec.nodeName);
      pod.spec.nodeName.clear();
      found->pod = pod;
    }
    if (auto created = cluster.create(pod); !created.ok()) {
      return Error("copying pod " + pod.metadata.namespace_ + "/" + pod.metadata.name + ": " +
                   created.error().message());
    }
  }
  if (found) return std::move(*found);

  // Not among them: terminated, or not there at all (kubectl's wording).
  client::ListOptions exact;
  exact.fieldSelector = "metadata.namespace=" + namespace_ + ",metadata.name=" + name;
  auto any = client::rest::listAll(live.pods(), exact);
  if (!any.ok()) return Error("listing pods: " + any.error().message());
  if (!any->items.empty()) {
    return Error("pod " + namespace_ + "/" + name + " has terminated (phase " +
                 any->items.front().status.phase + "): the scheduler does not schedule it");
  }
  return Error("pods \"" + name + "\" not found");
}

Result<simulator::SimulationResult> explainPod(client::ListWatchers& live,
                                               const config::KubeSchedulerConfiguration& cfg,
                                               const std::string& namespace_, const std::string& name,
                                               std::chrono::milliseconds timeout,
                                               const features::SchedulerFeatures& features) {
  client::MemoryClientOptions mo;
  mo.keepUidsOnCreate = true;
  client::MemoryClient cluster(mo);
  auto copied = copyLiveCluster(live, cluster, namespace_, name, features.config.genericWorkload);
  if (!copied.ok()) return copied.error();
  const api::Pod& pod = copied->pod;
  const std::string key = namespace_ + "/" + name;
  const std::string& schedulerName = api::schedulerNameOf(pod);
  if (std::none_of(cfg.profiles.begin(), cfg.profiles.end(),
                   [&](const config::KubeSchedulerProfile& p) { return p.schedulerName == schedulerName; })) {
    return Error("pod " + key + " has schedulerName \"" + schedulerName +
                 "\", which no profile of the configuration serves (profiles: " + profileNames(cfg) + ")");
  }
  if (pod.metadata.deletionTimestamp) {
    return Error("pod " + key + " is being deleted: the scheduler does not schedule it");
  }
  simulator::SimulateOptions options;
  options.onlyPod = key;
  options.timeout = timeout;
  options.features = features;
  auto result = simulator::simulate(cfg, cluster, options);
  if (!result.ok()) return result.error();
  for (auto& p : result->pods) p.boundNode = copied->boundNode;
  return result;
}

int runExplainCommand(const std::vector<std::string>& args) {
  auto parsed = parseExplainArgs(args);
  if (!parsed.ok()) {
    std::cerr << "explain: " << parsed.error().message() << "\n" << kUsage;
    return 2;
  }
  if (parsed->help) {
    std::cout << kUsage << kHelp;
    return 0;
  }
  const ExplainArgs& a = *parsed;
  Watchdog watchdog(a.timeout);

  std::vector<std::string> warnings;
  auto gates = features::schedulerFeaturesFromFlags(a.featureGates, &warnings);
  for (const auto& w : warnings) std::cerr << "explain: warning: " << w << "\n";
  if (!gates.ok()) {
    std::cerr << "explain: " << gates.error().message() << "\n";
    return 1;
  }
  auto cfg = explainConfig(a.configPath, *gates);
  if (!cfg.ok()) {
    std::cerr << "explain: " << cfg.error().message() << "\n";
    return 1;
  }
  config::ClientConnectionConfiguration cc = cfg->clientConnection;
  if (!a.kubeconfig.empty()) cc.kubeconfig = a.kubeconfig;
  auto rc = app::restConfigFor(cc, "");
  if (!rc.ok()) {
    std::cerr << "explain: " << rc.error().message() << "\n";
    return 1;
  }
  rc->requestTimeout = std::min(rc->requestTimeout, std::chrono::ceil<std::chrono::seconds>(a.timeout));
  auto created = client::rest::RestClient::create(std::move(rc).value());
  if (!created.ok()) {
    std::cerr << "explain: creating the API client: " << created.error().message() << "\n";
    return 1;
  }
  std::unique_ptr<client::rest::RestClient> restClient = std::move(created).value();
  // Only the list side goes further: nothing below can write to the cluster.
  client::ListWatchers& live = *restClient;

  auto result = explainPod(live, *cfg, a.namespace_, a.name, a.timeout, *gates);
  if (!result.ok()) {
    std::cerr << "explain: " << result.error().message() << "\n";
    return 1;
  }
  std::cout << (a.output == "json" ? simulator::toJson(*result, true) : simulator::toTable(*result, true));
  return 0;
}

}  // namespace ks::explain
