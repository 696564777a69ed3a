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
// ones in upstream's profile so both run the same plugin set. Implementing a plugin removes it here; none
// is left (DynamicResources was the last).
inline constexpr std::array<std::string_view, 0> kNotYetImplementedPlugins = {};

// The `plugins:` block of a KubeSchedulerConfiguration profile that disables kNotYetImplementedPlugins at
// multiPoint, indented for a profile that is a list item ("  - schedulerName: ...").
inline std::string disabledPluginsYaml() {
  std::string out = "    plugins:\n";
  if (kNotYetImplementedPlugins.empty()) return out;
  out += "      multiPoint:\n        disabled:\n";
  for (std::string_view p : kNotYetImplementedPlugins) {
    out += "          - name: ";
    out += p;
    out += '\n';
  }
  return out;
}

// A KubeSchedulerConfiguration without leader election and with one profile, `schedulerName`, that disables
// kNotYetImplementedPlugins. `extra` follows clientConnection's kubeconfig line, so indented lines extend
// clientConnection ("  qps: 1000\n") and unindented ones add top-level sections; `profileExtra` goes into
// the profile (e.g. "    pluginConfig: ...").
inline std::string schedulerConfig(const std::string& kubeconfig, const std::string& extra = "",
                                   const std::string& profileExtra = "",
                                   const std::string& schedulerName = "kube-scheduler-cpp") {
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         "clientConnection:\n"
         "  kubeconfig: " +
         kubeconfig + "\n" + extra +
         "leaderElection:\n"
         "  leaderElect: false\n"
         "  resourceNamespace: kube-system\n"
         "  resourceName: kube-scheduler-cpp\n"
         "profiles:\n"
         "  - schedulerName: " +
         schedulerName + "\n" + disabledPluginsYaml() + profileExtra;
}

// {"apiVersion": "v1", "kind": "List", "items": items}: what `kubectl create -f -` takes for many objects.
inline nlohmann::json listOf(const std::vector<nlohmann::json>& items) {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

}  // namespace ks::integration
