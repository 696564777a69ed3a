// Strict decoding of KubeSchedulerConfiguration v1 from YAML, as upstream's UniversalDecoder with
// EnableStrict: unknown fields are collected ("strict decoding error: unknown field \"a.b\""), type
// mismatches stop decoding ("json: cannot unmarshal string into Go struct field ..."), plugin args are
// decoded per plugin name (DecodeNestedObjects) and unknown plugins keep their args as OpaqueArgs.

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "pkg/api/json/yaml.h"
#include "pkg/scheduler/apis/config/codec_internal.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/duration.h"
#include "pkg/scheduler/apis/config/validation.h"
#include "pkg/util/strings.h"

namespace ks::config {
namespace {

using nlohmann::json;

// Decoding state: strict errors are collected, the first other error stops decoding.
struct Ctx {
  std::vector<std::string> strict;
  std::optional<std::string> fatal;
  bool failed() const { return fatal.has_value(); }
  void fail(std::string message) {
    if (!fatal) fatal = std::move(message);
  }
};

std::string jsonKind(const json& j) {
  if (j.is_string()) return "string";
  if (j.is_boolean()) return "bool";
  if (j.is_number()) return "number";
  if (j.is_array()) return "array";
  if (j.is_object()) return "object";
  return "null";
}

// "profiles[0].pluginConfig[1].name" -> "profiles.pluginConfig.name" (Go's UnmarshalTypeError.Field).
std::string goFieldPath(std::string_view path) {
  std::string out;
  bool inIndex = false;
  for (char c : path) {
    if (c == '[')
      inIndex = true;
    else if (c == ']')
      inIndex = false;
    else if (!inIndex)
      out += c;
  }
  return out;
}

// Reads one object of a Go struct type; `st` is the Go struct name used in type errors.
class Reader {
 public:
  Reader(Ctx& ctx, std::string st) : ctx_(ctx), st_(std::move(st)) {}

  void typeError(const json& j, const std::string& path, std::string_view goType, bool withNumber = false) {
    std::string kind = jsonKind(j);
    if (withNumber && j.is_number()) kind += " " + j.dump();
    if (path.empty()) {
      ctx_.fail("json: cannot unmarshal " + kind + " into Go value of type " + std::string(goType));
    } else {
      ctx_.fail("json: cannot unmarshal " + kind + " into Go struct field " + st_ + "." + goFieldPath(path) +
                " of type " + std::string(goType));
    }
  }

  // Iterates the members of an object; `field` returns false for unknown names.
  void object(
      const json& j, const std::string& path, std::string_view goType,
      const std::function<bool(const std::string& key, const json& value, const std::string& child)>& field) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_object()) {
      typeError(j, path, goType);
      return;
    }
    for (const auto& [key, value] : j.items()) {
      if (ctx_.failed()) return;
      std::string child = childPath(path, key);
      if (!field(key, value, child)) ctx_.strict.push_back("unknown field " + goQuote(child));
    }
  }

  void str(const json& j, const std::string& path, std::string& out) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_string()) return typeError(j, path, "string");
    out = j.get<std::string>();
  }

  void optStr(const json& j, const std::string& path, std::optional<std::string>& out) {
    if (ctx_.failed() || j.is_null()) return;
    std::string s;
    str(j, path, s);
    if (!ctx_.failed()) out = std::move(s);
  }

  void boolean(const json& j, const std::string& path, bool& out) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_boolean()) return typeError(j, path, "bool");
    out = j.get<bool>();
  }

  template <typename T>
  void integer(const json& j, const std::string& path, T& out) {
    if (ctx_.failed() || j.is_null()) return;
    constexpr std::string_view goType = sizeof(T) == 8 ? "int64" : "int32";
    if (!j.is_number()) return typeError(j, path, goType);
    if (j.is_number_integer()) {
      if (j.is_number_unsigned()) {
        auto v = j.get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return typeError(j, path, goType, true);
        out = static_cast<T>(v);
        return;
      }
      auto v = j.get<int64_t>();
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        return typeError(j, path, goType, true);
      }
      out = static_cast<T>(v);
      return;
    }
    double d = j.get<double>();
    if (std::trunc(d) != d || d < static_cast<double>(std::numeric_limits<T>::min()) ||
        d > static_cast<double>(std::numeric_limits<T>::max())) {
      return typeError(j, path, goType, true);
    }
    out = static_cast<T>(d);
  }

  template <typename T>
  void optInteger(const json& j, const std::string& path, std::optional<T>& out) {
    if (ctx_.failed() || j.is_null()) return;
    T v{};
    integer(j, path, v);
    if (!ctx_.failed()) out = v;
  }

  // Go parses the number's JSON text as a float32 (strconv.ParseFloat(s, 32)) and refuses one that rounds
  // to infinity; a plain cast would make it +Inf, which encodes as null and reloads as the default.
  void float32(const json& j, const std::string& path, float& out) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_number()) return typeError(j, path, "float32");
    const float f = std::strtof(j.dump().c_str(), nullptr);
    if (std::isinf(f)) return typeError(j, path, "float32", true);
    out = f;
  }

  void duration(const json& j, const std::string& path, std::chrono::milliseconds& out) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_string()) {
      ctx_.fail(path + ": json: cannot unmarshal " + jsonKind(j) + " into Go value of type string");
      return;
    }
    auto d = parseGoDuration(j.get<std::string>());
    if (!d.ok()) {
      ctx_.fail(path + ": " + d.error().message());
      return;
    }
    out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  }

  void optDuration(const json& j, const std::string& path, std::optional<std::chrono::milliseconds>& out) {
    if (ctx_.failed() || j.is_null()) return;
    std::chrono::milliseconds d{0};
    duration(j, path, d);
    if (!ctx_.failed()) out = d;
  }

  template <typename T>
  void list(const json& j, const std::string& path, std::string_view goType, std::vector<T>& out,
            const std::function<void(const json&, const std::string&, T&)>& element) {
    if (ctx_.failed() || j.is_null()) return;
    if (!j.is_array()) return typeError(j, path, goType);
    out.clear();
    for (size_t i = 0; i < j.size() && !ctx_.failed(); i++) {
      T v{};
      element(j[i], indexPath(path, i), v);
      out.push_back(std::move(v));
    }
  }

  void strings(const json& j, const std::string& path, std::vector<std::string>& out) {
    list<std::string>(j, path, "[]string", out,
                      [this](const json& e, const std::string& p, std::string& v) { str(e, p, v); });
  }

  Ctx& ctx() { return ctx_; }
  Reader nested(std::string st) { return Reader(ctx_, std::move(st)); }

 private:
  Ctx& ctx_;
  std::string st_;
};

// ---- core/v1 and meta/v1 types used by plugin args ----

void readLabelSelector(Reader& r, const json& j, const std::string& path, api::LabelSelector& out) {
  Reader rs = r.nested("LabelSelector");
  rs.object(j, path, "v1.LabelSelector", [&](const std::string& k, const json& v, const std::string& c) {
    if (k == "matchLabels") {
      if (v.is_null()) return true;
      if (!v.is_object()) {
        rs.typeError(v, c, "map[string]string");
        return true;
      }
      for (const auto& [lk, lv] : v.items()) {
        std::string s;
        rs.str(lv, childPath(c, lk), s);
        out.matchLabels[lk] = s;
      }
      return true;
    }
    if (k == "matchExpressions") {
      rs.list<api::LabelSelectorRequirement>(
          v, c, "[]v1.LabelSelectorRequirement", out.matchExpressions,
          [&](const json& e, const std::string& p, api::LabelSelectorRequirement& req) {
            Reader rr = r.nested("LabelSelectorRequirement");
            rr.object(e, p, "v1.LabelSelectorRequirement",
                      [&](const std::string& k2, const json& v2, const std::string& c2) {
                        if (k2 == "key") return rr.str(v2, c2, req.key), true;
                        if (k2 == "operator") return rr.str(v2, c2, req.op), true;
                        if (k2 == "values") return rr.strings(v2, c2, req.values), true;
                        return false;
                      });
          });
      return true;
    }
    return false;
  });
}

void readNodeSelectorRequirement(Reader& r, const json& j, const std::string& path,
                                 api::NodeSelectorRequirement& out) {
  Reader rr = r.nested("NodeSelectorRequirement");
  rr.object(j, path, "v1.NodeSelectorRequirement",
            [&](const std::string& k, const json& v, const std::string& c) {
              if (k == "key") return rr.str(v, c, out.key), true;
              if (k == "operator") return rr.str(v, c, out.op), true;
              if (k == "values") return rr.strings(v, c, out.values), true;
              return false;
            });
}

void readNodeSelectorTerm(Reader& r, const json& j, const std::string& path, api::NodeSelectorTerm& out) {
  Reader rt = r.nested("NodeSelectorTerm");
  auto element = [&](const json& e, const std::string& p, api::NodeSelectorRequirement& req) {
    readNodeSelectorRequirement(r, e, p, req);
  };
  rt.object(j, path, "v1.NodeSelectorTerm", [&](const std::string& k, const json& v, const std::string& c) {
    if (k == "matchExpressions") {
      rt.list<api::NodeSelectorRequirement>(v, c, "[]v1.NodeSelectorRequirement", out.matchExpressions,
                                            element);
      return true;
    }
    if (k == "matchFields") {
      rt.list<api::NodeSelectorRequirement>(v, c, "[]v1.NodeSelectorRequirement", out.matchFields, element);
      return true;
    }
    return false;
  });
}

void readNodeAffinity(Reader& r, const json& j, const std::string& path, api::NodeAffinity& out) {
  Reader ra = r.nested("NodeAffinity");
  ra.object(j, path, "v1.NodeAffinity", [&](const std::string& k, const json& v, const std::string& c) {
    if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
      if (v.is_null()) return true;
      api::NodeSelector ns;
      Reader rn = r.nested("NodeSelector");
      rn.object(v, c, "v1.NodeSelector", [&](const std::string& k2, const json& v2, const std::string& c2) {
        if (k2 != "nodeSelectorTerms") return false;
        rn.list<api::NodeSelectorTerm>(v2, c2, "[]v1.NodeSelectorTerm", ns.nodeSelectorTerms,
                                       [&](const json& e, const std::string& p, api::NodeSelectorTerm& t) {
                                         readNodeSelectorTerm(r, e, p, t);
                                       });
        return true;
      });
      out.requiredDuringSchedulingIgnoredDuringExecution = std::move(ns);
      return true;
    }
    if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
      ra.list<api::PreferredSchedulingTerm>(
          v, c, "[]v1.PreferredSchedulingTerm", out.preferredDuringSchedulingIgnoredDuringExecution,
          [&](const json& e, const std::string& p, api::PreferredSchedulingTerm& t) {
            Reader rp = r.nested("PreferredSchedulingTerm");
            rp.object(e, p, "v1.PreferredSchedulingTerm",
                      [&](const std::string& k2, const json& v2, const std::string& c2) {
                        if (k2 == "weight") return rp.integer(v2, c2, t.weight), true;
                        if (k2 == "preference") return readNodeSelectorTerm(r, v2, c2, t.preference), true;
                        return false;
                      });
          });
      return true;
    }
    return false;
  });
}

void readTopologySpreadConstraint(Reader& r, const json& j, const std::string& path,
                                  api::TopologySpreadConstraint& out) {
  Reader rc = r.nested("TopologySpreadConstraint");
  rc.object(j, path, "v1.TopologySpreadConstraint",
            [&](const std::string& k, const json& v, const std::string& c) {
              if (k == "maxSkew") return rc.integer(v, c, out.maxSkew), true;
              if (k == "topologyKey") return rc.str(v, c, out.topologyKey), true;
              if (k == "whenUnsatisfiable") return rc.str(v, c, out.whenUnsatisfiable), true;
              if (k == "labelSelector") {
                if (v.is_null()) return true;
                api::LabelSelector sel;
                readLabelSelector(r, v, c, sel);
                out.labelSelector = std::move(sel);
                return true;
              }
              if (k == "minDomains") return rc.optInteger(v, c, out.minDomains), true;
              if (k == "nodeAffinityPolicy") return rc.optStr(v, c, out.nodeAffinityPolicy), true;
              if (k == "nodeTaintsPolicy") return rc.optStr(v, c, out.nodeTaintsPolicy), true;
              if (k == "matchLabelKeys") return rc.strings(v, c, out.matchLabelKeys), true;
              return false;
            });
}

// ---- plugin args ----

bool isTypeMeta(const std::string& k) {
  return k == "apiVersion" || k == "kind";
}

void readResourceSpecs(Reader& r, const json& j, const std::string& path, std::vector<ResourceSpec>& out) {
  r.list<ResourceSpec>(
      j, path, "[]v1.ResourceSpec", out, [&](const json& e, const std::string& p, ResourceSpec& rs) {
        rs.weight = 0;
        Reader rr = r.nested("ResourceSpec");
        rr.object(e, p, "v1.ResourceSpec", [&](const std::string& k, const json& v, const std::string& c) {
          if (k == "name") return rr.str(v, c, rs.name), true;
          if (k == "weight") return rr.integer(v, c, rs.weight), true;
          return false;
        });
      });
}

void readShape(Reader& r, const json& j, const std::string& path, std::vector<UtilizationShapePoint>& out) {
  r.list<UtilizationShapePoint>(j, path, "[]v1.UtilizationShapePoint", out,
                                [&](const json& e, const std::string& p, UtilizationShapePoint& pt) {
                                  Reader rp = r.nested("UtilizationShapePoint");
                                  rp.object(e, p, "v1.UtilizationShapePoint",
                                            [&](const std::string& k, const json& v, const std::string& c) {
                                              if (k == "utilization")
                                                return rp.integer(v, c, pt.utilization), true;
                                              if (k == "score") return rp.integer(v, c, pt.score), true;
                                              return false;
                                            });
                                });
}

std::shared_ptr<PluginArgs> readArgs(Ctx& ctx, std::string_view kind, const json& j) {
  const std::string root;
  const std::string st(kind);
  Reader r(ctx, st);
  const std::string goType = "v1." + st;
  if (kind == "DefaultPreemptionArgs") {
    auto a = std::make_shared<DefaultPreemptionArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "minCandidateNodesPercentage") return r.integer(v, c, a->minCandidateNodesPercentage), true;
      if (k == "minCandidateNodesAbsolute") return r.integer(v, c, a->minCandidateNodesAbsolute), true;
      return false;
    });
    return a;
  }
  if (kind == "InterPodAffinityArgs") {
    auto a = std::make_shared<InterPodAffinityArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "hardPodAffinityWeight") return r.integer(v, c, a->hardPodAffinityWeight), true;
      if (k == "ignorePreferredTermsOfExistingPods")
        return r.boolean(v, c, a->ignorePreferredTermsOfExistingPods), true;
      return false;
    });
    return a;
  }
  if (kind == "NodeResourcesFitArgs") {
    auto a = std::make_shared<NodeResourcesFitArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "ignoredResources") return r.strings(v, c, a->ignoredResources), true;
      if (k == "ignoredResourceGroups") return r.strings(v, c, a->ignoredResourceGroups), true;
      if (k == "scoringStrategy") {
        if (v.is_null()) return true;
        ScoringStrategy s;
        s.type.clear();
        s.resources.clear();
        Reader rs = r.nested("ScoringStrategy");
        rs.object(v, c, "v1.ScoringStrategy",
                  [&](const std::string& k2, const json& v2, const std::string& c2) {
                    if (k2 == "type") return rs.str(v2, c2, s.type), true;
                    if (k2 == "resources") return readResourceSpecs(rs, v2, c2, s.resources), true;
                    if (k2 == "requestedToCapacityRatio") {
                      if (v2.is_null()) return true;
                      RequestedToCapacityRatioParam p;
                      Reader rp = r.nested("RequestedToCapacityRatioParam");
                      rp.object(v2, c2, "v1.RequestedToCapacityRatioParam",
                                [&](const std::string& k3, const json& v3, const std::string& c3) {
                                  if (k3 == "shape") return readShape(rp, v3, c3, p.shape), true;
                                  return false;
                                });
                      s.requestedToCapacityRatio = std::move(p);
                      return true;
                    }
                    return false;
                  });
        a->scoringStrategy = std::move(s);
        return true;
      }
      return false;
    });
    return a;
  }
  if (kind == "NodeResourcesBalancedAllocationArgs") {
    auto a = std::make_shared<NodeResourcesBalancedAllocationArgs>();
    a->resources.clear();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "resources") return readResourceSpecs(r, v, c, a->resources), true;
      return false;
    });
    return a;
  }
  if (kind == "PodTopologySpreadArgs") {
    auto a = std::make_shared<PodTopologySpreadArgs>();
    a->defaultingType.clear();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "defaultingType") return r.str(v, c, a->defaultingType), true;
      if (k == "defaultConstraints") {
        r.list<api::TopologySpreadConstraint>(
            v, c, "[]v1.TopologySpreadConstraint", a->defaultConstraints,
            [&](const json& e, const std::string& p, api::TopologySpreadConstraint& t) {
              readTopologySpreadConstraint(r, e, p, t);
            });
        return true;
      }
      return false;
    });
    return a;
  }
  if (kind == "VolumeBindingArgs") {
    auto a = std::make_shared<VolumeBindingArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "bindTimeoutSeconds") return r.integer(v, c, a->bindTimeoutSeconds), true;
      if (k == "shape") return readShape(r, v, c, a->shape), true;
      return false;
    });
    return a;
  }
  if (kind == "NodeAffinityArgs") {
    auto a = std::make_shared<NodeAffinityArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "addedAffinity") {
        if (v.is_null()) return true;
        api::NodeAffinity na;
        readNodeAffinity(r, v, c, na);
        a->addedAffinity = std::move(na);
        return true;
      }
      return false;
    });
    return a;
  }
  if (kind == "DynamicResourcesArgs") {
    auto a = std::make_shared<DynamicResourcesArgs>();
    r.object(j, root, goType, [&](const std::string& k, const json& v, const std::string& c) {
      if (isTypeMeta(k)) return true;
      if (k == "filterTimeout") return r.optDuration(v, c, a->filterTimeout), true;
      if (k == "bindingTimeout") return r.optDuration(v, c, a->bindingTimeout), true;
      return false;
    });
    return a;
  }
  return nullptr;
}

// ---- KubeSchedulerConfiguration ----

void readPluginSet(Reader& r, const json& j, const std::string& path, PluginSet& out) {
  Reader rs = r.nested("PluginSet");
  auto element = [&](const json& e, const std::string& p, Plugin& pl) {
    Reader rp = r.nested("Plugin");
    rp.object(e, p, "v1.Plugin", [&](const std::string& k, const json& v, const std::string& c) {
      if (k == "name") return rp.str(v, c, pl.name), true;
      if (k == "weight") return rp.integer(v, c, pl.weight), true;
      return false;
    });
  };
  rs.object(j, path, "v1.PluginSet", [&](const std::string& k, const json& v, const std::string& c) {
    if (k == "enabled") return rs.list<Plugin>(v, c, "[]v1.Plugin", out.enabled, element), true;
    if (k == "disabled") return rs.list<Plugin>(v, c, "[]v1.Plugin", out.disabled, element), true;
    return false;
  });
}

void readPlugins(Reader& r, const json& j, const std::string& path, Plugins& out) {
  Reader rp = r.nested("Plugins");
  rp.object(j, path, "v1.Plugins", [&](const std::string& k, const json& v, const std::string& c) {
    for (const auto& field : kPluginsFields) {
      if (k != field.name) continue;
      readPluginSet(rp, v, c, out.*field.set);
      return true;
    }
    return false;
  });
}

// A pluginConfig entry before its args are decoded.
struct RawPluginConfig {
  size_t profile = 0;
  size_t index = 0;
  json args;
};

struct Presence {
  bool enableContentionProfiling = false;
  std::vector<bool> schedulerNameSet;
  std::vector<RawPluginConfig> rawArgs;
};

void readExtender(Reader& r, const json& j, const std::string& path, Extender& out) {
  Reader re = r.nested("Extender");
  re.object(j, path, "v1.Extender", [&](const std::string& k, const json& v, const std::string& c) {
    if (k == "urlPrefix") return re.str(v, c, out.urlPrefix), true;
    if (k == "filterVerb") return re.str(v, c, out.filterVerb), true;
    if (k == "preemptVerb") return re.str(v, c, out.preemptVerb), true;
    if (k == "prioritizeVerb") return re.str(v, c, out.prioritizeVerb), true;
    if (k == "weight") return re.integer(v, c, out.weight), true;
    if (k == "bindVerb") return re.str(v, c, out.bindVerb), true;
    if (k == "enableHTTPS") return re.boolean(v, c, out.enableHTTPS), true;
    if (k == "httpTimeout") return re.duration(v, c, out.httpTimeout), true;
    if (k == "nodeCacheCapable") return re.boolean(v, c, out.nodeCacheCapable), true;
    if (k == "ignorable") return re.boolean(v, c, out.ignorable), true;
    if (k == "managedResources") {
      re.list<ExtenderManagedResource>(
          v, c, "[]v1.ExtenderManagedResource", out.managedResources,
          [&](const json& e, const std::string& p, ExtenderManagedResource& m) {
            Reader rm = r.nested("ExtenderManagedResource");
            rm.object(e, p, "v1.ExtenderManagedResource",
                      [&](const std::string& k2, const json& v2, const std::string& c2) {
                        if (k2 == "name") return rm.str(v2, c2, m.name), true;
                        if (k2 == "ignoredByScheduler") return rm.boolean(v2, c2, m.ignoredByScheduler), true;
                        return false;
                      });
          });
      return true;
    }
    if (k == "tlsConfig") {
      if (v.is_null()) return true;
      ExtenderTLSConfig tls;
      Reader rt = r.nested("ExtenderTLSConfig");
      auto bytes = [&](const json& v2, const std::string& c2, std::string& dst) {
        std::string text;
        rt.str(v2, c2, text);
        if (rt.ctx().failed()) return;
        size_t bad = 0;
        auto decoded = internal::base64Decode(text, &bad);
        if (!decoded) {
          rt.ctx().fail(c2 + ": illegal base64 data at input byte " + std::to_string(bad));
          return;
        }
        dst = std::move(*decoded);
      };
      rt.object(v, c, "v1.ExtenderTLSConfig",
                [&](const std::string& k2, const json& v2, const std::string& c2) {
                  if (k2 == "insecure") return rt.boolean(v2, c2, tls.insecure), true;
                  if (k2 == "serverName") return rt.str(v2, c2, tls.serverName), true;
                  if (k2 == "certFile") return rt.str(v2, c2, tls.certFile), true;
                  if (k2 == "keyFile") return rt.str(v2, c2, tls.keyFile), true;
                  if (k2 == "caFile") return rt.str(v2, c2, tls.caFile), true;
                  if (k2 == "certData") return bytes(v2, c2, tls.certData), true;
                  if (k2 == "keyData") return bytes(v2, c2, tls.keyData), true;
                  if (k2 == "caData") return bytes(v2, c2, tls.caData), true;
                  return false;
                });
      out.tlsConfig = std::move(tls);
      return true;
    }
    return false;
  });
}

void readProfile(Reader& r, const json& j, const std::string& path, size_t index, KubeSchedulerProfile& out,
                 Presence& presence) {
  out.schedulerName.clear();
  presence.schedulerNameSet.push_back(false);
  Reader rp = r.nested("KubeSchedulerProfile");
  rp.object(j, path, "v1.KubeSchedulerProfile",
            [&](const std::string& k, const json& v, const std::string& c) {
              if (k == "schedulerName") {
                if (!v.is_null()) presence.schedulerNameSet[index] = true;
                rp.str(v, c, out.schedulerName);
                return true;
              }
              if (k == "percentageOfNodesToScore")
                return rp.optInteger(v, c, out.percentageOfNodesToScore), true;
              if (k == "plugins") return readPlugins(rp, v, c, out.plugins), true;
              if (k == "pluginConfig") {
                std::vector<json> argsByIndex;
                rp.list<PluginConfig>(
                    v, c, "[]v1.PluginConfig", out.pluginConfig,
                    [&](const json& e, const std::string& p, PluginConfig& pc) {
                      Reader rc = r.nested("PluginConfig");
                      json args;
                      rc.object(e, p, "v1.PluginConfig",
                                [&](const std::string& k2, const json& v2, const std::string& c2) {
                                  if (k2 == "name") return rc.str(v2, c2, pc.name), true;
                                  if (k2 == "args") return args = v2, true;
                                  return false;
                                });
                      argsByIndex.push_back(std::move(args));
                    });
                for (size_t i = 0; i < argsByIndex.size(); i++) {
                  presence.rawArgs.push_back(RawPluginConfig{index, i, std::move(argsByIndex[i])});
                }
                return true;
              }
              return false;
            });
}

void readConfig(Ctx& ctx, const json& j, KubeSchedulerConfiguration& out, Presence& presence) {
  Reader r(ctx, "KubeSchedulerConfiguration");
  r.object(j, "", "v1.KubeSchedulerConfiguration",
           [&](const std::string& k, const json& v, const std::string& c) {
             if (isTypeMeta(k)) return true;
             if (k == "parallelism") return r.integer(v, c, out.parallelism), true;
             if (k == "leaderElection") {
               Reader rl = r.nested("LeaderElectionConfiguration");
               auto& le = out.leaderElection;
               rl.object(v, c, "v1alpha1.LeaderElectionConfiguration",
                         [&](const std::string& k2, const json& v2, const std::string& c2) {
                           if (k2 == "leaderElect") return rl.boolean(v2, c2, le.leaderElect), true;
                           if (k2 == "leaseDuration") return rl.duration(v2, c2, le.leaseDuration), true;
                           if (k2 == "renewDeadline") return rl.duration(v2, c2, le.renewDeadline), true;
                           if (k2 == "retryPeriod") return rl.duration(v2, c2, le.retryPeriod), true;
                           if (k2 == "resourceLock") return rl.str(v2, c2, le.resourceLock), true;
                           if (k2 == "resourceName") return rl.str(v2, c2, le.resourceName), true;
                           if (k2 == "resourceNamespace") return rl.str(v2, c2, le.resourceNamespace), true;
                           return false;
                         });
               return true;
             }
             if (k == "clientConnection") {
               Reader rc = r.nested("ClientConnectionConfiguration");
               auto& cc = out.clientConnection;
               rc.object(v, c, "v1alpha1.ClientConnectionConfiguration",
                         [&](const std::string& k2, const json& v2, const std::string& c2) {
                           if (k2 == "kubeconfig") return rc.str(v2, c2, cc.kubeconfig), true;
                           if (k2 == "acceptContentTypes") return rc.str(v2, c2, cc.acceptContentTypes), true;
                           if (k2 == "contentType") return rc.str(v2, c2, cc.contentType), true;
                           if (k2 == "qps") return rc.float32(v2, c2, cc.qps), true;
                           if (k2 == "burst") return rc.integer(v2, c2, cc.burst), true;
                           return false;
                         });
               return true;
             }
             if (k == "enableProfiling") return r.boolean(v, c, out.debugging.enableProfiling), true;
             if (k == "enableContentionProfiling") {
               if (!v.is_null()) presence.enableContentionProfiling = true;
               r.boolean(v, c, out.debugging.enableContentionProfiling);
               return true;
             }
             if (k == "percentageOfNodesToScore")
               return r.optInteger(v, c, out.percentageOfNodesToScore), true;
             if (k == "podInitialBackoffSeconds") return r.integer(v, c, out.podInitialBackoffSeconds), true;
             if (k == "podMaxBackoffSeconds") return r.integer(v, c, out.podMaxBackoffSeconds), true;
             if (k == "delayCacheUntilActive") return r.boolean(v, c, out.delayCacheUntilActive), true;
             if (k == "profiles") {
               if (v.is_null()) return true;
               if (!v.is_array()) {
                 r.typeError(v, c, "[]v1.KubeSchedulerProfile");
                 return true;
               }
               out.profiles.clear();
               for (size_t i = 0; i < v.size() && !ctx.failed(); i++) {
                 KubeSchedulerProfile p;
                 readProfile(r, v[i], indexPath(c, i), i, p, presence);
                 out.profiles.push_back(std::move(p));
               }
               return true;
             }
             if (k == "extenders") {
               r.list<Extender>(
                   v, c, "[]v1.Extender", out.extenders,
                   [&](const json& e, const std::string& p, Extender& ex) { readExtender(r, e, p, ex); });
               return true;
             }
             return false;
           });
}

// DecodeNestedObjects for one pluginConfig entry: typed args for registered kinds, OpaqueArgs otherwise.
// Returns a non-strict error, or collects a strict one into `strictOut`.
std::optional<std::string> decodeArgs(const RawPluginConfig& raw, PluginConfig& pc,
                                      const FeatureGates& features, std::vector<std::string>& strictOut) {
  const std::string where = "decoding .profiles[" + std::to_string(raw.profile) + "].pluginConfig[" +
                            std::to_string(raw.index) + "]: ";
  const std::string kind = pc.name + "Args";
  if (!internal::isRegisteredArgsKind(kind)) {
    if (!raw.args.is_null()) {
      auto opaque = std::make_shared<OpaqueArgs>();
      opaque->json = raw.args.dump();
      pc.args = std::move(opaque);
    }
    return std::nullopt;
  }
  const std::string forPlugin = "decoding args for plugin " + pc.name + ": ";
  json args = raw.args.is_null() ? json::object() : raw.args;
  if (args.is_object()) {
    std::string gotVersion(kGroupVersion);
    std::string gotKind = kind;
    if (auto it = args.find("apiVersion");
        it != args.end() && it->is_string() && !it->get<std::string>().empty()) {
      gotVersion = it->get<std::string>();
    }
    if (auto it = args.find("kind"); it != args.end() && it->is_string() && !it->get<std::string>().empty()) {
      gotKind = it->get<std::string>();
    }
    if (gotVersion != kGroupVersion || !internal::isRegisteredArgsKind(gotKind)) {
      if (gotVersion == kGroupVersion && gotKind == "KubeSchedulerConfiguration") {
        return where + "args for plugin " + pc.name + " were not of type " + kind +
               ".kubescheduler.config.k8s.io, got KubeSchedulerConfiguration.kubescheduler.config.k8s.io";
      }
      return where + forPlugin + "no kind " + goQuote(gotKind) + " is registered for version " +
             goQuote(gotVersion) + " in scheme " + goQuote(internal::kSchemeName);
    }
    if (gotKind != kind) {
      return where + "args for plugin " + pc.name + " were not of type " + kind +
             ".kubescheduler.config.k8s.io, got " + gotKind + ".kubescheduler.config.k8s.io";
    }
  }
  Ctx ctx;
  std::shared_ptr<PluginArgs> typed = readArgs(ctx, kind, args);
  if (ctx.fatal) return where + forPlugin + *ctx.fatal;
  if (!ctx.strict.empty()) {
    strictOut.push_back(where + "strict decoding error: " + forPlugin +
                        "strict decoding error: " + join(ctx.strict, ", "));
  }
  setDefaultsPluginArgs(*typed, features);
  pc.args = std::move(typed);
  return std::nullopt;
}

// Upstream's SetDefaults_KubeSchedulerConfiguration for what the decoder could not do by itself.
void applyDefaults(KubeSchedulerConfiguration& c, const Presence& presence, const FeatureGates& features) {
  if (c.profiles.empty()) c.profiles.emplace_back();
  if (c.profiles.size() == 1 && (presence.schedulerNameSet.empty() || !presence.schedulerNameSet[0])) {
    c.profiles[0].schedulerName = std::string(kDefaultSchedulerName);
  }
  const Plugins defaults = getDefaultPlugins(features);
  for (auto& prof : c.profiles) {
    prof.plugins = mergePlugins(defaults, prof.plugins);
    std::set<std::string> existing;
    for (const auto& pc : prof.pluginConfig) existing.insert(pc.name);
    std::set<std::string> names;
    for (const auto& field : kPluginsFields) {
      if (!field.getsDefaultArgs) continue;
      for (const auto& p : (prof.plugins.*field.set).enabled) names.insert(p.name);
    }
    for (const auto& name : names) {
      if (existing.count(name) != 0) continue;
      auto args = newDefaultPluginArgs(name, features);
      if (args == nullptr) continue;
      prof.pluginConfig.push_back(PluginConfig{name, std::move(args)});
    }
  }
  if (!c.percentageOfNodesToScore) c.percentageOfNodesToScore = 0;
  auto& le = c.leaderElection;
  if (le.resourceLock.empty()) le.resourceLock = "leases";
  if (le.resourceNamespace.empty()) le.resourceNamespace = "kube-system";
  if (le.resourceName.empty()) le.resourceName = "kube-scheduler";
  auto& cc = c.clientConnection;
  if (cc.contentType.empty()) cc.contentType = "application/vnd.kubernetes.protobuf";
  if (cc.qps == 0.0f) cc.qps = 50.0f;
  if (cc.burst == 0) cc.burst = 100;
  if (le.leaseDuration.count() == 0) le.leaseDuration = std::chrono::seconds(15);
  if (le.renewDeadline.count() == 0) le.renewDeadline = std::chrono::seconds(10);
  if (le.retryPeriod.count() == 0) le.retryPeriod = std::chrono::seconds(2);
  if (!presence.enableContentionProfiling)
    c.debugging.enableContentionProfiling = c.debugging.enableProfiling;
}

// YAMLToJSONStrict: go-yaml's UnmarshalStrict rejects a mapping key that repeats within one mapping
// ("line 5: key \"foo\" already set in map"). yamlToJson keeps the last value, so look for them here.
void findDuplicateKeys(const YAML::Node& node, std::vector<std::string>& out) {
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it->first.IsScalar() && !seen.insert(it->first.Scalar()).second) {
        out.push_back("line " + std::to_string(it->first.Mark().line + 1) + ": key " +
                      goQuote(it->first.Scalar()) + " already set in map");
      }
      findDuplicateKeys(it->second, out);
    }
  } else if (node.IsSequence()) {
    for (const auto& e : node) findDuplicateKeys(e, out);
  }
}

std::optional<std::string> duplicateKeysError(std::string_view yaml) {
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(std::string(yaml));
    for (const auto& d : docs) {
      if (d.IsNull()) continue;
      std::vector<std::string> dups;
      findDuplicateKeys(d, dups);
      if (dups.empty()) return std::nullopt;
      return "strict decoding error: yaml: unmarshal errors:\n  " + join(dups, "\n  ");
    }
  } catch (const std::exception&) {
    // yamlToJson already accepted the text; nothing more to report here.
  }
  return std::nullopt;
}

}  // namespace

Result<KubeSchedulerConfiguration> decodeConfig(std::string_view yaml, const DecodeOptions& options) {
  auto docs = api::yamlToJson(yaml);
  if (!docs.ok()) return Error("error converting YAML to JSON: " + docs.error().message());
  const json doc = docs->empty() ? json() : (*docs)[0];

  // meta.Interpret: apiVersion and kind.
  std::string apiVersion;
  std::string kind;
  if (!doc.is_null()) {
    if (!doc.is_object()) {
      return Error("couldn't get version/kind; json parse error: json: cannot unmarshal " + jsonKind(doc) +
                   " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                   "Kind string \"json:\\\"kind,omitempty\\\"\" }");
    }
    for (const char* key : {"apiVersion", "kind"}) {
      auto it = doc.find(key);
      if (it == doc.end() || it->is_null()) continue;
      if (!it->is_string()) {
        return Error("couldn't get version/kind; json parse error: json: cannot unmarshal " + jsonKind(*it) +
                     " into Go struct field ." + key + " of type string");
      }
      (std::string_view(key) == "kind" ? kind : apiVersion) = it->get<std::string>();
    }
  }
  if (kind.empty()) return Error("Object 'Kind' is missing in '" + std::string(yaml) + "'");
  if (apiVersion.empty()) return Error("Object 'apiVersion' is missing in '" + std::string(yaml) + "'");
  if (apiVersion != kGroupVersion ||
      (kind != "KubeSchedulerConfiguration" && !internal::isRegisteredArgsKind(kind))) {
    return Error("no kind " + goQuote(kind) + " is registered for version " + goQuote(apiVersion) +
                 " in scheme " + goQuote(internal::kSchemeName));
  }
  if (kind != "KubeSchedulerConfiguration") {
    return Error("couldn't decode as KubeSchedulerConfiguration, got " + apiVersion + ", Kind=" + kind +
                 ": ");
  }

  if (auto dup = duplicateKeysError(yaml)) return Error(*dup);

  Ctx ctx;
  KubeSchedulerConfiguration config;
  Presence presence;
  readConfig(ctx, doc, config, presence);
  if (ctx.fatal) return Error(*ctx.fatal);
  std::vector<std::string> strictErrors = std::move(ctx.strict);
  for (const auto& raw : presence.rawArgs) {
    auto err =
        decodeArgs(raw, config.profiles[raw.profile].pluginConfig[raw.index], options.features, strictErrors);
    if (err) return Error(*err);
  }
  if (!strictErrors.empty()) return Error("strict decoding error: " + join(strictErrors, ", "));

  applyDefaults(config, presence, options.features);
  if (options.validate) {
    if (auto v = validateConfig(config, options.features); !v.ok()) return v.error();
  }
  return config;
}

Result<KubeSchedulerConfiguration> loadConfigFile(const std::string& path, const DecodeOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string reason = std::strerror(errno);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    return Error("open " + path + ": " + reason);
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return decodeConfig(buf.str(), options);
}

}  // namespace ks::config
