// encodeConfig: the v1 YAML upstream's --write-config-to prints for an (internal, defaulted) configuration.

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "pkg/api/json/yaml.h"
#include "pkg/scheduler/apis/config/codec_internal.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/duration.h"

namespace ks::config {
namespace internal {
namespace {

using nlohmann::json;

std::string dur(std::chrono::milliseconds d) {
  return formatGoDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(d));
}

// Go writes a float32 in its shortest form (0.1), not as the double it widens to (0.10000000149011612).
// That form has at most 9 digits, so the double read from it prints back the same.
json float32Json(float f) {
  double d = static_cast<double>(f);
  if (std::trunc(d) == d && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  char shortest[32];
  const auto end = std::to_chars(shortest, shortest + sizeof shortest, f).ptr;
  return std::strtod(std::string(shortest, end).c_str(), nullptr);
}

json pluginSetJson(const PluginSet& s) {
  json j = json::object();
  auto list = [](const std::vector<Plugin>& ps) {
    json a = json::array();
    for (const auto& p : ps) a.push_back(json{{"name", p.name}, {"weight", p.weight}});
    return a;
  };
  if (!s.enabled.empty()) j["enabled"] = list(s.enabled);
  if (!s.disabled.empty()) j["disabled"] = list(s.disabled);
  return j;
}

json pluginsJson(const Plugins& p) {
  json j = json::object();
  for (const auto& field : kPluginsFields) j[std::string(field.name)] = pluginSetJson(p.*field.set);
  return j;
}

json resourcesJson(const std::vector<ResourceSpec>& rs) {
  json a = json::array();
  for (const auto& r : rs) a.push_back(json{{"name", r.name}, {"weight", r.weight}});
  return a;
}

json shapeJson(const std::vector<UtilizationShapePoint>& shape) {
  json a = json::array();
  for (const auto& p : shape) a.push_back(json{{"utilization", p.utilization}, {"score", p.score}});
  return a;
}

json requirementJson(const std::string& key, const std::string& op, const std::vector<std::string>& values) {
  json j{{"key", key}, {"operator", op}};
  if (!values.empty()) j["values"] = values;
  return j;
}

json nodeSelectorTermJson(const api::NodeSelectorTerm& t) {
  json j = json::object();
  auto reqs = [](const std::vector<api::NodeSelectorRequirement>& rs) {
    json a = json::array();
    for (const auto& r : rs) a.push_back(requirementJson(r.key, r.op, r.values));
    return a;
  };
  if (!t.matchExpressions.empty()) j["matchExpressions"] = reqs(t.matchExpressions);
  if (!t.matchFields.empty()) j["matchFields"] = reqs(t.matchFields);
  return j;
}

json nodeAffinityJson(const api::NodeAffinity& na) {
  json j = json::object();
  if (na.requiredDuringSchedulingIgnoredDuringExecution) {
    json terms = json::array();
    for (const auto& t : na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
      terms.push_back(nodeSelectorTermJson(t));
    }
    j["requiredDuringSchedulingIgnoredDuringExecution"] = json{{"nodeSelectorTerms", terms}};
  }
  if (!na.preferredDuringSchedulingIgnoredDuringExecution.empty()) {
    json a = json::array();
    for (const auto& p : na.preferredDuringSchedulingIgnoredDuringExecution) {
      a.push_back(json{{"weight", p.weight}, {"preference", nodeSelectorTermJson(p.preference)}});
    }
    j["preferredDuringSchedulingIgnoredDuringExecution"] = a;
  }
  return j;
}

json labelSelectorJson(const api::LabelSelector& s) {
  json j = json::object();
  if (!s.matchLabels.empty()) j["matchLabels"] = s.matchLabels;
  if (!s.matchExpressions.empty()) {
    json a = json::array();
    for (const auto& r : s.matchExpressions) a.push_back(requirementJson(r.key, r.op, r.values));
    j["matchExpressions"] = a;
  }
  return j;
}

json constraintJson(const api::TopologySpreadConstraint& c) {
  json j{{"maxSkew", c.maxSkew}, {"topologyKey", c.topologyKey}, {"whenUnsatisfiable", c.whenUnsatisfiable}};
  if (c.labelSelector) j["labelSelector"] = labelSelectorJson(*c.labelSelector);
  if (c.minDomains) j["minDomains"] = *c.minDomains;
  if (c.nodeAffinityPolicy) j["nodeAffinityPolicy"] = *c.nodeAffinityPolicy;
  if (c.nodeTaintsPolicy) j["nodeTaintsPolicy"] = *c.nodeTaintsPolicy;
  if (!c.matchLabelKeys.empty()) j["matchLabelKeys"] = c.matchLabelKeys;
  return j;
}

json typed(std::string_view kind) {
  return json{{"apiVersion", kGroupVersion}, {"kind", kind}};
}

json extenderJson(const Extender& e) {
  json j{{"urlPrefix", e.urlPrefix}, {"httpTimeout", dur(e.httpTimeout)}};
  if (!e.filterVerb.empty()) j["filterVerb"] = e.filterVerb;
  if (!e.preemptVerb.empty()) j["preemptVerb"] = e.preemptVerb;
  if (!e.prioritizeVerb.empty()) j["prioritizeVerb"] = e.prioritizeVerb;
  if (e.weight != 0) j["weight"] = e.weight;
  if (!e.bindVerb.empty()) j["bindVerb"] = e.bindVerb;
  if (e.enableHTTPS) j["enableHTTPS"] = true;
  if (e.nodeCacheCapable) j["nodeCacheCapable"] = true;
  if (e.ignorable) j["ignorable"] = true;
  if (e.tlsConfig) {
    const auto& t = *e.tlsConfig;
    json tj = json::object();
    if (t.insecure) tj["insecure"] = true;
    if (!t.serverName.empty()) tj["serverName"] = t.serverName;
    if (!t.certFile.empty()) tj["certFile"] = t.certFile;
    if (!t.keyFile.empty()) tj["keyFile"] = t.keyFile;
    if (!t.caFile.empty()) tj["caFile"] = t.caFile;
    if (!t.certData.empty()) tj["certData"] = base64Encode(t.certData);
    if (!t.keyData.empty()) tj["keyData"] = base64Encode(t.keyData);
    if (!t.caData.empty()) tj["caData"] = base64Encode(t.caData);
    j["tlsConfig"] = tj;
  }
  if (!e.managedResources.empty()) {
    json a = json::array();
    for (const auto& m : e.managedResources) {
      json mj{{"name", m.name}};
      if (m.ignoredByScheduler) mj["ignoredByScheduler"] = true;
      a.push_back(mj);
    }
    j["managedResources"] = a;
  }
  return j;
}

}  // namespace

json encodeArgsJson(const PluginArgs& args) {
  if (auto* o = dynamic_cast<const OpaqueArgs*>(&args)) {
    json j = json::parse(o->json, nullptr, false);
    return j.is_discarded() ? json(o->json) : j;
  }
  if (auto* a = dynamic_cast<const DefaultPreemptionArgs*>(&args)) {
    json j = typed("DefaultPreemptionArgs");
    j["minCandidateNodesPercentage"] = a->minCandidateNodesPercentage;
    j["minCandidateNodesAbsolute"] = a->minCandidateNodesAbsolute;
    return j;
  }
  if (auto* a = dynamic_cast<const InterPodAffinityArgs*>(&args)) {
    json j = typed("InterPodAffinityArgs");
    j["hardPodAffinityWeight"] = a->hardPodAffinityWeight;
    j["ignorePreferredTermsOfExistingPods"] = a->ignorePreferredTermsOfExistingPods;
    return j;
  }
  if (auto* a = dynamic_cast<const NodeResourcesFitArgs*>(&args)) {
    json j = typed("NodeResourcesFitArgs");
    if (!a->ignoredResources.empty()) j["ignoredResources"] = a->ignoredResources;
    if (!a->ignoredResourceGroups.empty()) j["ignoredResourceGroups"] = a->ignoredResourceGroups;
    json s = json::object();
    if (!a->scoringStrategy.type.empty()) s["type"] = a->scoringStrategy.type;
    if (!a->scoringStrategy.resources.empty()) s["resources"] = resourcesJson(a->scoringStrategy.resources);
    if (a->scoringStrategy.requestedToCapacityRatio) {
      json r = json::object();
      if (!a->scoringStrategy.requestedToCapacityRatio->shape.empty()) {
        r["shape"] = shapeJson(a->scoringStrategy.requestedToCapacityRatio->shape);
      }
      s["requestedToCapacityRatio"] = r;
    }
    j["scoringStrategy"] = s;
    return j;
  }
  if (auto* a = dynamic_cast<const NodeResourcesBalancedAllocationArgs*>(&args)) {
    json j = typed("NodeResourcesBalancedAllocationArgs");
    if (!a->resources.empty()) j["resources"] = resourcesJson(a->resources);
    return j;
  }
  if (auto* a = dynamic_cast<const PodTopologySpreadArgs*>(&args)) {
    json j = typed("PodTopologySpreadArgs");
    if (!a->defaultingType.empty()) j["defaultingType"] = a->defaultingType;
    if (!a->defaultConstraints.empty()) {
      json c = json::array();
      for (const auto& dc : a->defaultConstraints) c.push_back(constraintJson(dc));
      j["defaultConstraints"] = c;
    }
    return j;
  }
  if (auto* a = dynamic_cast<const VolumeBindingArgs*>(&args)) {
    json j = typed("VolumeBindingArgs");
    j["bindTimeoutSeconds"] = a->bindTimeoutSeconds;
    if (!a->shape.empty()) j["shape"] = shapeJson(a->shape);
    return j;
  }
  if (auto* a = dynamic_cast<const NodeAffinityArgs*>(&args)) {
    json j = typed("NodeAffinityArgs");
    if (a->addedAffinity) j["addedAffinity"] = nodeAffinityJson(*a->addedAffinity);
    return j;
  }
  if (auto* a = dynamic_cast<const DynamicResourcesArgs*>(&args)) {
    json j = typed("DynamicResourcesArgs");
    if (a->filterTimeout) j["filterTimeout"] = dur(*a->filterTimeout);
    if (a->bindingTimeout) j["bindingTimeout"] = dur(*a->bindingTimeout);
    return j;
  }
  return json::object();
}

json encodeConfigJson(const KubeSchedulerConfiguration& c) {
  json j{{"apiVersion", kGroupVersion}, {"kind", "KubeSchedulerConfiguration"}};
  j["parallelism"] = c.parallelism;
  const auto& le = c.leaderElection;
  j["leaderElection"] = json{{"leaderElect", le.leaderElect},
                             {"leaseDuration", dur(le.leaseDuration)},
                             {"renewDeadline", dur(le.renewDeadline)},
                             {"retryPeriod", dur(le.retryPeriod)},
                             {"resourceLock", le.resourceLock},
                             {"resourceName", le.resourceName},
                             {"resourceNamespace", le.resourceNamespace}};
  const auto& cc = c.clientConnection;
  j["clientConnection"] = json{{"kubeconfig", cc.kubeconfig},
                               {"acceptContentTypes", cc.acceptContentTypes},
                               {"contentType", cc.contentType},
                               {"qps", float32Json(cc.qps)},
                               {"burst", cc.burst}};
  j["enableProfiling"] = c.debugging.enableProfiling;
  j["enableContentionProfiling"] = c.debugging.enableContentionProfiling;
  if (c.percentageOfNodesToScore) j["percentageOfNodesToScore"] = *c.percentageOfNodesToScore;
  j["podInitialBackoffSeconds"] = c.podInitialBackoffSeconds;
  j["podMaxBackoffSeconds"] = c.podMaxBackoffSeconds;
  if (c.delayCacheUntilActive) j["delayCacheUntilActive"] = true;
  if (!c.profiles.empty()) {
    json profiles = json::array();
    for (const auto& p : c.profiles) {
      json pj{{"schedulerName", p.schedulerName}, {"plugins", pluginsJson(p.plugins)}};
      if (p.percentageOfNodesToScore) pj["percentageOfNodesToScore"] = *p.percentageOfNodesToScore;
      if (!p.pluginConfig.empty()) {
        json pcs = json::array();
        for (const auto& pc : p.pluginConfig) {
          json pcj{{"name", pc.name}};
          if (pc.args) pcj["args"] = encodeArgsJson(*pc.args);
          pcs.push_back(pcj);
        }
        pj["pluginConfig"] = pcs;
      }
      profiles.push_back(pj);
    }
    j["profiles"] = profiles;
  }
  if (!c.extenders.empty()) {
    json ex = json::array();
    for (const auto& e : c.extenders) ex.push_back(extenderJson(e));
    j["extenders"] = ex;
  }
  return j;
}

std::string base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                 static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64Decode(std::string_view text, size_t* badIndex) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      padding++;
      continue;
    }
    int v = value(c);
    if (v < 0 || padding > 0) {
      *badIndex = i;
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if ((text.size() - padding) % 4 == 1 || padding > 2) {
    *badIndex = text.size();
    return std::nullopt;
  }
  return out;
}

}  // namespace internal

std::string encodeConfig(const KubeSchedulerConfiguration& config) {
  return api::jsonToYaml(internal::encodeConfigJson(config));
}

}  // namespace ks::config
