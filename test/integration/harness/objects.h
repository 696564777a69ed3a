#pragma once
// Kubernetes objects and scheduler configuration shared by the integration tests.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ks::integration {

// The upstream default-profile plugins kube-scheduler-cpp does not implement yet: every profile of ours
// must disable them (the daemon refuses to start otherwise), and the differential test disables the same
// ones in upstream's profile so both run the same plugin set. Implementing a plugin removes it here.
inline constexpr std::array<std::string_view, 1> kNotYetImplementedPlugins = {
    "DynamicResources",
};

// The `plugins:` block of a KubeSchedulerConfiguration profile that disables kNotYetImplementedPlugins at
// multiPoint, indented for a profile that is a list item ("  - schedulerName: ...").
inline std::string disabledPluginsYaml() {
  std::string out =
      "    plugins:\n"
      "      multiPoint:\n"
      "        disabled:\n";
  for (std::string_view p : kNotYetImplementedPlugins) {
    out += "          - name: ";
    out += p;
    out += '\n';
  }
  return out;
}

// {"apiVersion": "v1", "kind": "List", "items": items}: what `kubectl create -f -` takes for many objects.
inline nlohmann::json listOf(const std::vector<nlohmann::json>& items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

}  // namespace ks::integration
