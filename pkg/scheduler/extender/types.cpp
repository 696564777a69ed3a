#include "pkg/scheduler/extender/types.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec_nlohmann.h"

namespace ks::extender {

namespace {

using json = nlohmann::json;

// An API object as Go marshals a typed client's object: without kind and apiVersion (empty TypeMeta).
template <typename T>
json objectJson(const T& object) {
  json j = api::toJson(object);
  j.erase("kind");
  j.erase("apiVersion");
  return j;
}

json nodeNamesJson(const std::vector<framework::NodeInfoPtr>& nodes) {
  json names = json::array();
  for (const auto& n : nodes) names.push_back(n->nodeName());
  return names;
}

json nodeListJson(const std::vector<framework::NodeInfoPtr>& nodes) {
  json items = json::array();
  for (const auto& n : nodes) items.push_back(objectJson(*n->node()));
  return json{{"metadata", json::object()}, {"items", std::move(items)}};
}

// Go's name for a JSON value's type in unmarshal errors.
std::string_view goJsonType(const json& j) {
  switch (j.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "number";
  }
}

Error typeError(const json& j, std::string_view field, std::string_view goType) {
  std::string value(goJsonType(j));
  if (j.is_number()) value = "number " + j.dump();
  return Error("json: cannot unmarshal " + value + " into Go struct field " + std::string(field) + " of type " +
               std::string(goType));
}

bool equalFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// The value for Go field `name` in object `j`: the exact key, else a case-insensitive match; null when
// absent (Go leaves the field at its zero value for both).
const json& field(const json& j, std::string_view name) {
  static const json kNull;
  if (auto it = j.find(name); it != j.end()) return *it;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (equalFold(it.key(), name)) return it.value();
  }
  return kNull;
}

Result<json> parseBody(std::string_view body) {
  size_t i = 0;
  while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  if (i == body.size()) return Error("EOF");
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error("invalid JSON in the extender's response");
  return j;
}

Result<std::string> readString(const json& j, std::string_view fieldPath) {
  if (j.is_null()) return std::string();
  if (!j.is_string()) return typeError(j, fieldPath, "string");
  return j.get<std::string>();
}

Result<int64_t> readInt64(const json& j, std::string_view fieldPath) {
  if (j.is_null()) return int64_t{0};
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return typeError(j, fieldPath, "int64");
    return static_cast<int64_t>(j.get<uint64_t>());
  }
  return typeError(j, fieldPath, "int64");
}

Result<framework::FailedNodesMap> readFailedNodes(const json& j, std::string_view fieldPath) {
  framework::FailedNodesMap out;
  if (j.is_null()) return out;
  if (!j.is_object()) return typeError(j, fieldPath, "v1.FailedNodesMap");
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto msg = readString(it.value(), fieldPath);
    if (!msg.ok()) return msg.error();
    out[it.key()] = std::move(*msg);
  }
  return out;
}

}  // namespace

std::string encodeExtenderArgs(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                               bool nodeNamesOnly) {
  json j;
  j["Pod"] = objectJson(pod);
  j["Nodes"] = nodeNamesOnly ? json(nullptr) : nodeListJson(nodes);
  j["NodeNames"] = nodeNamesOnly ? nodeNamesJson(nodes) : json(nullptr);
  return j.dump();
}

std::string encodePreemptionArgs(const api::Pod& pod, const std::map<std::string, framework::Victims>& victims,
                                 const std::map<std::string, MetaVictims>* metaVictims) {
  json j;
  j["Pod"] = objectJson(pod);
  if (metaVictims != nullptr) {
    j["NodeNameToVictims"] = nullptr;
    json m = json::object();
    for (const auto& [node, v] : *metaVictims) {
      json pods = json::array();
      for (const auto& p : v.pods) pods.push_back(json{{"UID", p.uid}});
      m[node] = json{{"Pods", std::move(pods)}, {"NumPDBViolations", v.numPDBViolations}};
    }
    j["NodeNameToMetaVictims"] = std::move(m);
  } else {
    json m = json::object();
    for (const auto& [node, v] : victims) {
      json pods = json::array();
      for (const auto& p : v.pods) pods.push_back(objectJson(p->pod()));
      m[node] = json{{"Pods", std::move(pods)}, {"NumPDBViolations", v.numPDBViolations}};
    }
    j["NodeNameToVictims"] = std::move(m);
    j["NodeNameToMetaVictims"] = nullptr;
  }
  return j.dump();
}

std::string encodeBindingArgs(const framework::ExtenderBinding& binding) {
  return json{{"PodName", binding.podName},
              {"PodNamespace", binding.podNamespace},
              {"PodUID", binding.podUID},
              {"Node", binding.node}}
      .dump();
}

Result<ExtenderFilterResult> decodeFilterResult(std::string_view body) {
  auto parsed = parseBody(body);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  ExtenderFilterResult out;
  if (j.is_null()) return out;
  if (!j.is_object()) return typeError(j, "ExtenderFilterResult", "v1.ExtenderFilterResult");
  if (const json& nodes = field(j, "Nodes"); !nodes.is_null()) {
    if (!nodes.is_object()) return typeError(nodes, "ExtenderFilterResult.Nodes", "v1.NodeList");
    std::vector<api::Node> list;
    if (const json& items = field(nodes, "items"); !items.is_null()) {
      if (!items.is_array()) return typeError(items, "ExtenderFilterResult.Nodes.items", "[]v1.Node");
      for (const json& item : items) {
        if (!item.is_object()) return typeError(item, "ExtenderFilterResult.Nodes.items", "v1.Node");
        auto node = api::fromJson<api::Node>(item);
        if (!node.ok()) return node.error().wrap("Nodes.items");
        list.push_back(std::move(*node));
      }
    }
    out.nodes = std::move(list);
  }
  if (const json& names = field(j, "NodeNames"); !names.is_null()) {
    if (!names.is_array()) return typeError(names, "ExtenderFilterResult.NodeNames", "[]string");
    std::vector<std::string> list;
    for (const json& n : names) {
      auto s = readString(n, "ExtenderFilterResult.NodeNames");
      if (!s.ok()) return s.error();
      list.push_back(std::move(*s));
    }
    out.nodeNames = std::move(list);
  }
  auto failed = readFailedNodes(field(j, "FailedNodes"), "ExtenderFilterResult.FailedNodes");
  if (!failed.ok()) return failed.error();
  out.failedNodes = std::move(*failed);
  auto unresolvable =
      readFailedNodes(field(j, "FailedAndUnresolvableNodes"), "ExtenderFilterResult.FailedAndUnresolvableNodes");
  if (!unresolvable.ok()) return unresolvable.error();
  out.failedAndUnresolvableNodes = std::move(*unresolvable);
  auto err = readString(field(j, "Error"), "ExtenderFilterResult.Error");
  if (!err.ok()) return err.error();
  out.error = std::move(*err);
  return out;
}

Result<framework::HostPriorityList> decodeHostPriorityList(std::string_view body) {
  auto parsed = parseBody(body);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  framework::HostPriorityList out;
  if (j.is_null()) return out;
  if (!j.is_array()) return typeError(j, "HostPriorityList", "v1.HostPriorityList");
  for (const json& e : j) {
    framework::HostPriority hp;
    if (!e.is_null()) {
      if (!e.is_object()) return typeError(e, "HostPriorityList", "v1.HostPriority");
      auto host = readString(field(e, "Host"), "HostPriority.Host");
      if (!host.ok()) return host.error();
      auto score = readInt64(field(e, "Score"), "HostPriority.Score");
      if (!score.ok()) return score.error();
      hp.host = std::move(*host);
      hp.score = *score;
    }
    out.push_back(std::move(hp));
  }
  return out;
}

Result<std::map<std::string, MetaVictims>> decodePreemptionResult(std::string_view body) {
  auto parsed = parseBody(body);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  std::map<std::string, MetaVictims> out;
  if (j.is_null()) return out;
  if (!j.is_object()) return typeError(j, "ExtenderPreemptionResult", "v1.ExtenderPreemptionResult");
  const json& m = field(j, "NodeNameToMetaVictims");
  if (m.is_null()) return out;
  if (!m.is_object()) {
    return typeError(m, "ExtenderPreemptionResult.NodeNameToMetaVictims", "map[string]*v1.MetaVictims");
  }
  for (auto it = m.begin(); it != m.end(); ++it) {
    MetaVictims v;
    const json& mv = it.value();
    if (!mv.is_null()) {
      if (!mv.is_object()) return typeError(mv, "ExtenderPreemptionResult.NodeNameToMetaVictims", "v1.MetaVictims");
      if (const json& pods = field(mv, "Pods"); !pods.is_null()) {
        if (!pods.is_array()) return typeError(pods, "MetaVictims.Pods", "[]*v1.MetaPod");
        for (const json& p : pods) {
          MetaPod mp;
          if (!p.is_null()) {
            if (!p.is_object()) return typeError(p, "MetaVictims.Pods", "v1.MetaPod");
            auto uid = readString(field(p, "UID"), "MetaPod.UID");
            if (!uid.ok()) return uid.error();
            mp.uid = std::move(*uid);
          }
          v.pods.push_back(std::move(mp));
        }
      }
      auto n = readInt64(field(mv, "NumPDBViolations"), "MetaVictims.NumPDBViolations");
      if (!n.ok()) return n.error();
      v.numPDBViolations = *n;
    }
    out[it.key()] = std::move(v);
  }
  return out;
}

Result<std::string> decodeBindingResult(std::string_view body) {
  auto parsed = parseBody(body);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  if (j.is_null()) return std::string();
  if (!j.is_object()) return typeError(j, "ExtenderBindingResult", "v1.ExtenderBindingResult");
  return readString(field(j, "Error"), "ExtenderBindingResult.Error");
}

}  // namespace ks::extender
