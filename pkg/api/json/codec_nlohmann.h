#pragma once
// The JSON codec of codec.h on already-parsed nlohmann::json values, for callers that hold parsed JSON
// (the simulator's cluster files, the REST client, the config loader). Same instantiations, same errors.

#include <nlohmann/json.hpp>

#include "pkg/api/json/codec.h"

namespace ks::api {

// Decodes one object; `j` must be a JSON object.
template <typename T>
Result<T> fromJson(const nlohmann::json& j);

// Encodes one object, with apiVersion and kind for top-level kinds.
template <typename T>
nlohmann::json toJson(const T& object);

// {"kind":"PodList","apiVersion":"v1","metadata":{...},"items":[...]}
template <typename T>
Result<List<T>> listFromJson(const nlohmann::json& j);
template <typename T>
nlohmann::json listToJson(const List<T>& list);

// {"type":"ADDED","object":{...}}; for ERROR the object is a Status.
template <typename T>
Result<WatchEvent<T>> watchEventFromJson(const nlohmann::json& j);
template <typename T>
nlohmann::json watchEventToJson(const WatchEvent<T>& event);

}  // namespace ks::api
