#pragma once
// JSON codec for the API objects in pkg/api, as the kube-apiserver sends and accepts them.
// This header is light on purpose (no nlohmann): decode from / encode to text. Code that already holds
// parsed JSON uses pkg/api/json/codec_nlohmann.h instead.
//
// Decoding ignores unknown fields, applies the API's defaults for absent fields where scheduling depends
// on them (container port protocol TCP, schedulerName "default-scheduler"), and never throws: malformed
// input gives an Error whose message starts with the field path, e.g.
//   spec.containers[0].resources.requests.cpu: quantities must match the regular expression ...
//   metadata.labels: expected an object, got array
//   spec.priority: value 3000000000 overflows int32
// Times: metav1.Time fields are truncated to seconds on decode and MicroTime fields (Event.eventTime,
// series.lastObservedTime, Lease acquireTime/renewTime) to microseconds, so encode/decode round-trips.

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/coordination.h"
#include "pkg/api/core.h"
#include "pkg/api/events.h"
#include "pkg/api/meta.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::api {

// Decodes one object. Instantiated for every kind of pkg/api/kinds.def (with the list and watch functions
// below), ApiStatus and LabelSelector.
template <typename T>
Result<T> decodeJson(std::string_view json);

// Encodes one object as compact JSON, with apiVersion and kind for top-level kinds, omitting empty
// optional fields as the API server does (omitempty).
template <typename T>
std::string encodeJson(const T& object);

// Decodes a list response ({"kind":"PodList","metadata":{...},"items":[...]}).
template <typename T>
Result<List<T>> decodeListJson(std::string_view json);

// Decodes a list response as it arrives, item by item, so that neither the whole text nor its parse tree is
// ever held (a 100k-pod list is ~200 MB of JSON): feed() the body's chunks, then finish(). Gives what
// decodeListJson gives for the whole text; an item's error names it ("items[3]: spec..."). Items are
// decoded in batches, shared with one helper thread when the list is long: a start-up's lists are
// decoding-bound.
template <typename T>
class JsonListDecoder {
 public:
  JsonListDecoder();
  ~JsonListDecoder();
  JsonListDecoder(const JsonListDecoder&) = delete;
  JsonListDecoder& operator=(const JsonListDecoder&) = delete;
  // After an error, stop feeding.
  Result<void> feed(std::string_view chunk);
  // The list's metadata and items (call one of the two, once).
  Result<List<T>> finish();
  // The same with each item allocated once as a shared object (no contiguous vector of objects).
  Result<ListMeta> finishShared(std::vector<std::shared_ptr<const T>>& items);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Decodes one watch event line ({"type":"ADDED","object":{...}}); for ERROR, fills `status`.
template <typename T>
Result<WatchEvent<T>> decodeWatchEventJson(std::string_view line);

// The inverse of the two above (used by fake API servers in tests): a list response and one watch line
// (without the trailing newline).
template <typename T>
std::string encodeListJson(const List<T>& list);
template <typename T>
std::string encodeWatchEventJson(const WatchEvent<T>& event);

// The kind/apiVersion of the top-level type T ("Pod"/"v1", "Status"/"v1"); empty for nested types.
template <typename T>
constexpr std::string_view kindOf() {
  if constexpr (requires { T::kKind; }) {
    return T::kKind;
  } else if constexpr (std::is_same_v<T, ApiStatus>) {
    return "Status";
  } else {
    return {};
  }
}
template <typename T>
constexpr std::string_view apiVersionOf() {
  if constexpr (requires { T::kApiVersion; }) {
    return T::kApiVersion;
  } else if constexpr (std::is_same_v<T, ApiStatus>) {
    return "v1";
  } else {
    return {};
  }
}

// RFC 3339 as metav1.Time (seconds, "2024-01-02T03:04:05Z") and metav1.MicroTime (6 fractional digits).
std::string formatTime(Time t);
std::string formatMicroTime(Time t);
Result<Time> parseTime(std::string_view s);  // accepts any fractional precision and numeric offsets

}  // namespace ks::api
