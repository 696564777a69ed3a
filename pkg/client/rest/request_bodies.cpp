#include "pkg/client/rest/request_bodies.h"

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec.h"

namespace ks::client::rest {

using nlohmann::json;

namespace {
// As Go's json.Marshal: invalid UTF-8 (say, an extender's error text in a condition message) becomes
// U+FFFD instead of failing the encode.
std::string encode(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}
}  // namespace

std::string podStatusPatchBody(const PodStatusPatch& patch) {
  json status = json::object();
  if (patch.condition) {
    const api::PodCondition& c = *patch.condition;
    json cond = json::object();
    cond["type"] = c.type;
    cond["status"] = c.status;
    if (c.observedGeneration != 0) cond["observedGeneration"] = c.observedGeneration;
    if (!c.reason.empty()) cond["reason"] = c.reason;
    if (!c.message.empty()) cond["message"] = c.message;
    cond["lastProbeTime"] = c.lastProbeTime ? json(api::formatTime(*c.lastProbeTime)) : json(nullptr);
    cond["lastTransitionTime"] =
        c.lastTransitionTime ? json(api::formatTime(*c.lastTransitionTime)) : json(nullptr);
    status["conditions"] = json::array({std::move(cond)});
  }
  if (patch.nominatedNodeName) {
    status["nominatedNodeName"] =
        patch.nominatedNodeName->empty() ? json(nullptr) : json(*patch.nominatedNodeName);
  }
  if (patch.extendedResourceClaimStatus) {
    json mappings = json::array();
    for (const auto& m : patch.extendedResourceClaimStatus->requestMappings) {
      mappings.push_back(
          {{"containerName", m.containerName}, {"resourceName", m.resourceName}, {"requestName", m.requestName}});
    }
    status["extendedResourceClaimStatus"] = {{"requestMappings", std::move(mappings)},
                                             {"resourceClaimName",
                                              patch.extendedResourceClaimStatus->resourceClaimName}};
  }
  return encode(json{{"status", std::move(status)}});
}

std::string podGroupConditionPatchBody(const api::Condition& c) {
  json cond = json::object();
  cond["type"] = c.type;
  cond["status"] = c.status;
  if (c.observedGeneration != 0) cond["observedGeneration"] = c.observedGeneration;
  cond["lastTransitionTime"] = c.lastTransitionTime ? json(api::formatTime(*c.lastTransitionTime)) : json(nullptr);
  cond["reason"] = c.reason;
  cond["message"] = c.message;
  return encode(json{{"status", {{"conditions", json::array({std::move(cond)})}}}});
}

namespace {
json annotationsPatch(const api::ObjectMeta& meta) {
  json metadata = json::object();
  if (!meta.resourceVersion.empty()) metadata["resourceVersion"] = meta.resourceVersion;
  metadata["annotations"] = meta.annotations;
  return json{{"metadata", std::move(metadata)}};
}
}  // namespace

std::string annotationsPatchBody(const api::ObjectMeta& meta) { return encode(annotationsPatch(meta)); }

std::string persistentVolumeBindingPatchBody(const api::PersistentVolume& pv) {
  json patch = annotationsPatch(pv.metadata);
  json claimRef = nullptr;
  if (pv.spec.claimRef) {
    const api::ObjectReference& ref = *pv.spec.claimRef;
    claimRef = json::object();
    // A merge patch replaces claimRef's members one by one: name every member, null the unset ones.
    auto member = [&](const char* key, const std::string& v) { claimRef[key] = v.empty() ? json(nullptr) : json(v); };
    member("kind", ref.kind);
    member("namespace", ref.namespace_);
    member("name", ref.name);
    member("uid", ref.uid);
    member("apiVersion", ref.apiVersion);
    member("resourceVersion", ref.resourceVersion);
    member("fieldPath", ref.fieldPath);
  }
  patch["spec"] = json{{"claimRef", std::move(claimRef)}};
  return encode(patch);
}

std::string eventSeriesPatchBody(const api::EventSeries& series) {
  return encode(json{
      {"series",
       {{"count", series.count}, {"lastObservedTime", api::formatMicroTime(series.lastObservedTime)}}}});
}

std::string resourceClaimReservationRemovalPatchBody(const std::string& claimUid,
                                                     const std::string& consumerUid) {
  json entry = {{"$patch", "delete"}, {"uid", consumerUid}};
  return encode(json{{"metadata", {{"uid", claimUid}}},
                     {"status", {{"reservedFor", json::array({std::move(entry)})}}}});
}

std::string deleteOptionsBody(const DeleteOptions& options) {
  if (!options.preconditionUid && !options.preconditionResourceVersion && !options.gracePeriodSeconds) {
    return "";
  }
  json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.gracePeriodSeconds) body["gracePeriodSeconds"] = *options.gracePeriodSeconds;
  if (options.preconditionUid || options.preconditionResourceVersion) {
    json pre = json::object();
    if (options.preconditionUid) pre["uid"] = *options.preconditionUid;
    if (options.preconditionResourceVersion) pre["resourceVersion"] = *options.preconditionResourceVersion;
    body["preconditions"] = std::move(pre);
  }
  return encode(body);
}

std::string urlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace ks::client::rest
