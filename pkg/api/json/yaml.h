#pragma once
// YAML <-> JSON with sigs.k8s.io/yaml semantics (YAML is converted to JSON, then decoded as JSON), the
// way the API machinery and kube-scheduler's config loader read YAML. Wraps yaml-cpp; never throws.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/util/result.h"

namespace ks::api {

// Converts a multi-document YAML stream to one JSON value per non-empty document. Plain scalars resolve
// as go-yaml v2 does: true/false (and the YAML 1.1 y/yes/on/n/no/off forms) -> boolean,
// null/~/empty -> null, integers (decimal, 0x, 0o, 0b, leading-0 octal, '_' separators) -> integer,
// floats -> number, anything else -> string; quoted and block scalars are always strings; mapping keys
// become strings; merge keys (<<) are applied. Errors read "yaml: line 3, column 5: <what>".
Result<std::vector<nlohmann::json>> yamlToJson(std::string_view text);

// Block-style YAML (as kubectl -o yaml prints: sequences not indented under their key); strings that
// would re-parse as something else ("true", "1.0", "", "null", "a: b") are double-quoted.
std::string jsonToYaml(const nlohmann::json& j);

// JSON when the text parses as one JSON value (a "kind: List" stays one document), else YAML documents.
// When both fail, the error is the JSON one for text starting with '{' or '[', else the YAML one.
Result<std::vector<nlohmann::json>> parseJsonOrYaml(std::string_view text);

}  // namespace ks::api
