#pragma once
// Internal to the config package: JSON (nlohmann) <-> config types, shared by decode.cpp and encode.cpp.
// Not part of the public interface (keeps nlohmann out of config.h).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/types.h"

namespace ks::config::internal {

// The args kinds registered for kubescheduler.config.k8s.io/v1 (upstream's scheme), as "<Plugin>Args".
bool isRegisteredArgsKind(std::string_view kind);

// Upstream's scheme name, as it appears in "no kind ... is registered" errors.
inline constexpr std::string_view kSchemeName = "pkg/scheduler/apis/config/scheme/scheme.go:30";

nlohmann::json encodeConfigJson(const KubeSchedulerConfiguration& config);
nlohmann::json encodeArgsJson(const PluginArgs& args);  // with apiVersion/kind for typed args

std::string base64Encode(std::string_view bytes);
std::optional<std::string> base64Decode(std::string_view text, size_t* badIndex);

}  // namespace ks::config::internal
