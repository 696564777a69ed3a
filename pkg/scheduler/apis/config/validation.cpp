// ValidateKubeSchedulerConfiguration (upstream pkg/scheduler/apis/config/validation/validation.go). The
// field.Error formatting and name validation it uses are pkg/api's (field.h, labels.h).

#include "pkg/scheduler/apis/config/validation.h"

#include <map>
#include <set>

#include "pkg/api/labels.h"
#include "pkg/scheduler/apis/config/duration.h"
#include "pkg/util/strings.h"

namespace ks::config {

std::string aggregateMessage(const FieldErrors& errors) {
  return api::aggregateFieldErrors(errors);
}

std::string goQuote(std::string_view s) {
  return api::field::quoteValue(s);
}

std::string childPath(std::string_view parent, std::string_view child) {
  return api::field::child(parent, child);
}

std::string indexPath(std::string_view parent, size_t index) {
  return api::field::index(parent, index);
}

std::vector<std::string> isDNS1123Subdomain(std::string_view value) {
  return api::isDNS1123Subdomain(value);
}

std::vector<std::string> isQualifiedName(std::string_view value) {
  return api::isQualifiedName(value);
}

std::vector<std::string> isValidLabelValue(std::string_view value) {
  return api::isValidLabelValue(value);
}

// ---- ValidateKubeSchedulerConfiguration ----

namespace {

FieldError invalid(std::string field, std::string badValue, std::string detail) {
  return FieldError{FieldError::Type::kInvalid, std::move(field), std::move(badValue), std::move(detail)};
}

std::string durationValue(std::chrono::milliseconds d) {
  return formatGoDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(d));
}

// Go's %#v of a config.PluginSet.
std::string goSyntax(const PluginSet& s) {
  auto list = [](const std::vector<Plugin>& ps) {
    if (ps.empty()) return std::string("[]config.Plugin(nil)");
    std::string out = "[]config.Plugin{";
    for (size_t i = 0; i < ps.size(); i++) {
      if (i > 0) out += ", ";
      out += "config.Plugin{Name:" + goQuote(ps[i].name) + ", Weight:" + std::to_string(ps[i].weight) + "}";
    }
    return out + "}";
  };
  return "config.PluginSet{Enabled:" + list(s.enabled) + ", Disabled:" + list(s.disabled) + "}";
}

std::string argsValue(const PluginArgs* args) {
  if (args == nullptr) return "null";
  if (auto* o = dynamic_cast<const OpaqueArgs*>(args)) return "runtime.Unknown{Raw:" + goQuote(o->json) + "}";
  return "{...}";
}

// Removed plugins per config version (invalidPluginsByVersion). Upstream records the version as core "v1".
constexpr std::string_view kInvalidPluginsVersion = "v1";
const std::set<std::string_view> kInvalidPlugins = {"AzureDiskLimits", "CinderLimits", "EBSLimits",
                                                    "GCEPDLimits"};

std::string invalidPluginDetail(std::string_view apiVersion) {
  return "was invalid in version " + goQuote(kInvalidPluginsVersion) +
         " (KubeSchedulerConfiguration is version " + goQuote(apiVersion) + ")";
}

void validatePercentage(const std::string& path, const std::optional<int32_t>& p, FieldErrors& errs) {
  if (p && (*p < 0 || *p > 100))
    errs.push_back(invalid(path, std::to_string(*p), "not in valid range [0-100]"));
}

void append(FieldErrors& out, FieldErrors more) {
  for (auto& e : more) out.push_back(std::move(e));
}

void validatePluginConfig(const std::string& path, std::string_view apiVersion,
                          const KubeSchedulerProfile& profile, const FeatureGates& features,
                          FieldErrors& errs) {
  const std::string pluginsPath = childPath(path, "plugins");
  for (const auto& field : kPluginsFields) {
    if (!field.checkedForRemovedPlugins) continue;
    const PluginSet& set = profile.plugins.*field.set;
    const std::string enabledPath = childPath(childPath(pluginsPath, field.name), "enabled");
    for (size_t i = 0; i < set.enabled.size(); i++) {
      if (kInvalidPlugins.count(set.enabled[i].name) != 0) {
        errs.push_back(invalid(indexPath(enabledPath, i), goQuote(set.enabled[i].name),
                               invalidPluginDetail(apiVersion)));
      }
    }
  }

  std::set<std::string> seen;
  for (size_t i = 0; i < profile.pluginConfig.size(); i++) {
    const std::string pcPath = indexPath(childPath(path, "pluginConfig"), i);
    const auto& name = profile.pluginConfig[i].name;
    const PluginArgs* args = profile.pluginConfig[i].args.get();
    if (!seen.insert(name).second) {
      errs.push_back(FieldError{FieldError::Type::kDuplicate, pcPath, goQuote(name), ""});
    }
    const std::string argsPath = childPath(pcPath, "args");
    if (kInvalidPlugins.count(name) != 0) {
      errs.push_back(invalid(pcPath, goQuote(name), invalidPluginDetail(apiVersion)));
      continue;
    }
    auto mismatch = [&] { errs.push_back(invalid(argsPath, argsValue(args), "has to match plugin args")); };
    auto check = [&]<typename T>(auto&& fn) {
      if (auto* a = dynamic_cast<const T*>(args))
        append(errs, fn(*a));
      else
        mismatch();
    };
    if (name == "DefaultPreemption") {
      check.template operator()<DefaultPreemptionArgs>(
          [&](const auto& a) { return validateDefaultPreemptionArgs(argsPath, a); });
    } else if (name == "InterPodAffinity") {
      check.template operator()<InterPodAffinityArgs>(
          [&](const auto& a) { return validateInterPodAffinityArgs(argsPath, a); });
    } else if (name == "NodeAffinity") {
      check.template operator()<NodeAffinityArgs>(
          [&](const auto& a) { return validateNodeAffinityArgs(argsPath, a); });
    } else if (name == "NodeResourcesBalancedAllocation") {
      check.template operator()<NodeResourcesBalancedAllocationArgs>(
          [&](const auto& a) { return validateNodeResourcesBalancedAllocationArgs(argsPath, a); });
    } else if (name == "PodTopologySpread") {
      check.template operator()<PodTopologySpreadArgs>(
          [&](const auto& a) { return validatePodTopologySpreadArgs(argsPath, a); });
    } else if (name == "VolumeBinding") {
      check.template operator()<VolumeBindingArgs>(
          [&](const auto& a) { return validateVolumeBindingArgs(argsPath, a, features); });
    } else if (name == "DynamicResources") {
      check.template operator()<DynamicResourcesArgs>(
          [&](const auto& a) { return validateDynamicResourcesArgs(argsPath, a, features); });
    }
  }
}

void validateCommonQueueSort(const std::vector<KubeSchedulerProfile>& profiles, FieldErrors& errs) {
  const PluginSet& canon = profiles[0].plugins.queueSort;
  std::string queueSortName;
  if (!canon.enabled.empty()) queueSortName = canon.enabled[0].name;
  if (canon.enabled.size() > 1) {
    errs.push_back(invalid("profiles[0].plugins.queueSort.Enabled", std::to_string(canon.enabled.size()),
                           "only one queue sort plugin can be enabled"));
  }
  const PluginArgs* queueSortArgs = nullptr;
  for (const auto& pc : profiles[0].pluginConfig) {
    if (!queueSortName.empty() && pc.name == queueSortName) queueSortArgs = pc.args.get();
  }
  for (size_t i = 1; i < profiles.size(); i++) {
    const std::string path = indexPath("profiles", i);
    const PluginSet& curr = profiles[i].plugins.queueSort;
    if (!(canon == curr)) {
      errs.push_back(
          invalid(path + ".plugins.queueSort", goSyntax(curr), "must be the same for all profiles"));
    }
    for (const auto& pc : profiles[i].pluginConfig) {
      if (pc.name == queueSortName && !pluginArgsEqual(queueSortArgs, pc.args.get())) {
        errs.push_back(invalid(path + ".pluginConfig.args", argsValue(pc.args.get()),
                               "queueSort must be the same for all profiles"));
      }
    }
  }
}

bool isExtendedResourceName(std::string_view name) {
  // Native: no '/' or a kubernetes.io/ prefix; extended names may not start with "requests.".
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  if (name.substr(0, 9) == "requests.") return false;
  return isQualifiedName("requests." + std::string(name)).empty();
}

void validateExtenders(const std::vector<Extender>& extenders, FieldErrors& errs) {
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); i++) {
    const auto& e = extenders[i];
    const std::string path = indexPath("extenders", i);
    if (!e.prioritizeVerb.empty() && e.weight <= 0) {
      errs.push_back(
          invalid(path + ".weight", std::to_string(e.weight), "must have a positive weight applied to it"));
    }
    if (!e.bindVerb.empty()) binders++;
    for (size_t j = 0; j < e.managedResources.size(); j++) {
      const auto& name = e.managedResources[j].name;
      const std::string namePath = indexPath(path + ".managedResources", j) + ".name";
      auto msgs = isQualifiedName(name);
      for (const auto& m : msgs) errs.push_back(invalid(namePath, goQuote(name), m));
      if (msgs.empty() && !isExtendedResourceName(name)) {
        errs.push_back(invalid(namePath, goQuote(name), "is an invalid extended resource name"));
      }
      if (managed.count(name) != 0) {
        errs.push_back(invalid(namePath, goQuote(name), "duplicate extender managed resource name"));
      }
      managed.insert(name);
    }
  }
  if (binders > 1) {
    errs.push_back(invalid("extenders",
                           goQuote("found " + std::to_string(binders) + " extenders implementing bind"),
                           "only one extender can implement bind"));
  }
}

}  // namespace

FieldErrors validateKubeSchedulerConfiguration(const KubeSchedulerConfiguration& c,
                                               const FeatureGates& features, std::string_view apiVersion) {
  FieldErrors errs;
  if (c.clientConnection.burst < 0) {
    errs.push_back(
        invalid("clientConnection.burst", std::to_string(c.clientConnection.burst), "must be non-negative"));
  }
  const auto& le = c.leaderElection;
  if (le.leaderElect) {
    if (le.leaseDuration.count() <= 0) {
      errs.push_back(invalid("leaderElection.leaseDuration", durationValue(le.leaseDuration),
                             "must be greater than zero"));
    }
    if (le.renewDeadline.count() <= 0) {
      errs.push_back(invalid("leaderElection.renewDeadline", durationValue(le.renewDeadline),
                             "must be greater than zero"));
    }
    if (le.retryPeriod.count() <= 0) {
      errs.push_back(
          invalid("leaderElection.retryPeriod", durationValue(le.retryPeriod), "must be greater than zero"));
    }
    if (le.leaseDuration <= le.renewDeadline) {
      errs.push_back(invalid("leaderElection.leaseDuration", durationValue(le.renewDeadline),
                             "LeaseDuration must be greater than RenewDeadline"));
    }
    if (le.resourceLock.empty()) {
      errs.push_back(
          invalid("leaderElection.resourceLock", goQuote(le.resourceLock), "resourceLock is required"));
    }
    if (le.resourceNamespace.empty()) {
      errs.push_back(invalid("leaderElection.resourceNamespace", goQuote(le.resourceNamespace),
                             "resourceNamespace is required"));
    }
    if (le.resourceName.empty()) {
      errs.push_back(
          invalid("leaderElection.resourceName", goQuote(le.resourceName), "resourceName is required"));
    }
    if (le.resourceLock != "leases") {
      errs.push_back(invalid("leaderElection.resourceLock", goQuote(le.resourceLock),
                             "resourceLock value must be \"leases\""));
    }
  }
  if (c.parallelism <= 0) {
    errs.push_back(invalid("parallelism", std::to_string(c.parallelism),
                           "should be an integer value greater than zero"));
  }
  if (c.profiles.empty()) {
    errs.push_back(FieldError{FieldError::Type::kRequired, "profiles", "", ""});
  } else {
    std::map<std::string, size_t> existing;
    for (size_t i = 0; i < c.profiles.size(); i++) {
      const auto& p = c.profiles[i];
      const std::string path = indexPath("profiles", i);
      if (p.schedulerName.empty()) {
        errs.push_back(FieldError{FieldError::Type::kRequired, path + ".schedulerName", "", ""});
      }
      validatePercentage(path + ".percentageOfNodesToScore", p.percentageOfNodesToScore, errs);
      validatePluginConfig(path, apiVersion, p, features, errs);
      if (auto it = existing.find(p.schedulerName); it != existing.end()) {
        errs.push_back(FieldError{FieldError::Type::kDuplicate, path + ".schedulerName",
                                  indexPath("profiles", it->second) + ".schedulerName", ""});
      }
      existing[p.schedulerName] = i;
    }
    validateCommonQueueSort(c.profiles, errs);
  }
  validatePercentage("percentageOfNodesToScore", c.percentageOfNodesToScore, errs);
  if (c.podInitialBackoffSeconds <= 0) {
    errs.push_back(invalid("podInitialBackoffSeconds", std::to_string(c.podInitialBackoffSeconds),
                           "must be greater than 0"));
  }
  if (c.podMaxBackoffSeconds < c.podInitialBackoffSeconds) {
    errs.push_back(invalid("podMaxBackoffSeconds", std::to_string(c.podMaxBackoffSeconds),
                           "must be greater than or equal to PodInitialBackoffSeconds"));
  }
  validateExtenders(c.extenders, errs);
  return errs;
}

VoidResult validateConfig(const KubeSchedulerConfiguration& config, const FeatureGates& features) {
  FieldErrors errs = validateKubeSchedulerConfiguration(config, features);
  if (errs.empty()) return {};
  return Error(aggregateMessage(errs));
}

}  // namespace ks::config
