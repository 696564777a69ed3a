#pragma once
// metav1 types: ObjectMeta, LabelSelector, Status (API error body), List and watch event envelopes.
// Plain immutable-after-decode structs; JSON lives in pkg/api/json.h, matching in pkg/api/labels.h.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::api {

// metav1.Time is RFC 3339 with second precision; metav1.MicroTime with microseconds. Both are
// this one type; the codec picks the precision per field.
using Time = std::chrono::system_clock::time_point;

using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
  bool operator==(const OwnerReference&) const = default;
};

struct ObjectMeta {
  std::string name;
  std::string generateName;
  std::string namespace_;  // "namespace" in JSON
  std::string uid;
  std::string resourceVersion;
  int64_t generation = 0;
  Labels labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> ownerReferences;
  std::vector<std::string> finalizers;
  std::optional<Time> creationTimestamp;
  std::optional<Time> deletionTimestamp;
  std::optional<int64_t> deletionGracePeriodSeconds;
  bool operator==(const ObjectMeta&) const = default;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // "operator" in JSON: In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

// metav1.LabelSelector. An absent selector (std::nullopt where it is optional) matches nothing in
// most scheduler contexts, an empty one matches everything: see labels.h.
struct LabelSelector {
  std::map<std::string, std::string> matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  bool operator==(const LabelSelector&) const = default;
};

struct StatusCause {
  std::string type;  // "reason" in JSON
  std::string message;
  std::string field;
  bool operator==(const StatusCause&) const = default;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int32_t retryAfterSeconds = 0;
  bool operator==(const StatusDetails&) const = default;
};

// metav1.Status: the body of API errors ("kind":"Status").
struct ApiStatus {
  std::string status;  // "Success" or "Failure"
  std::string message;
  std::string reason;  // NotFound, AlreadyExists, Conflict, Expired, Gone, TooManyRequests, ...
  int32_t code = 0;
  std::optional<StatusDetails> details;
  bool operator==(const ApiStatus&) const = default;
};

struct ListMeta {
  std::string resourceVersion;
  std::string continue_;  // "continue" in JSON
  std::optional<int64_t> remainingItemCount;
  bool operator==(const ListMeta&) const = default;
};

template <typename T>
struct List {
  ListMeta metadata;
  std::vector<T> items;
};

// The list of items a list decoder made as shared objects that nothing else holds yet: each is moved out.
template <typename T>
List<T> listOfSoleOwners(ListMeta metadata, std::vector<std::shared_ptr<const T>>& shared) {
  List<T> list;
  list.metadata = std::move(metadata);
  list.items.reserve(shared.size());
  for (auto& obj : shared) {
    list.items.push_back(std::move(const_cast<T&>(*obj)));  // sole owner: made by the decoder, never shared
    obj.reset();
  }
  return list;
}

enum class WatchEventType : uint8_t { Added, Modified, Deleted, Bookmark, Error };

// "ADDED", "MODIFIED", ... as on the wire (JSON and protobuf alike).
std::string_view watchEventTypeName(WatchEventType t);
bool parseWatchEventType(std::string_view s, WatchEventType& out);

// One line of a watch stream. For Error, `status` holds the error; otherwise `object` (for Bookmark
// only object.metadata.resourceVersion is meaningful).
template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  T object;
  ApiStatus status;
};

// A reference to another object (core/v1 ObjectReference), as used by Binding, claimRef and Events.
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string apiVersion;
  std::string resourceVersion;
  std::string fieldPath;
  bool operator==(const ObjectReference&) const = default;
};

}  // namespace ks::api
