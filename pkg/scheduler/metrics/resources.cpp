#include "pkg/scheduler/metrics/resources.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "pkg/api/resources.h"
#include "pkg/scheduler/metrics/text_format.h"

namespace ks::metrics {
namespace {

constexpr std::string_view kHelpTail =
    "broken down by pod. This shows the resource usage the scheduler and kubelet expect per pod for "
    "resources along with the unit for the resource if any.";

std::string unitOf(const std::string& resource) {
  if (resource == "cpu") return "cores";
  if (resource == "memory" || resource == "storage" || resource == "ephemeral-storage") return "bytes";
  if (resource.starts_with(api::kResourceHugePagesPrefix)) return "bytes";
  if (resource.starts_with("attachable-volumes-")) return "integer";
  return "";
}

// resource.Quantity.AsApproximateFloat64, close enough for whole and milli values (what requests use).
double approximate(const api::Quantity& q) {
  const int64_t whole = q.value();
  if (std::abs(whole) < (int64_t{1} << 42)) return static_cast<double>(q.milliValue()) / 1000.0;
  return static_cast<double>(whole);
}

}  // namespace

std::string podResourceMetricsText(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  // label values in label-name order: namespace, node, pod, priority, resource, scheduler, unit
  using Series = std::array<std::string, 7>;
  std::map<Series, double> requests, limits;
  api::PodRequestsOptions opts;
  opts.useStatusResources = false;  // upstream's collector passes only Reuse
  for (const auto& pod : pods) {
    if (!pod) continue;
    const auto& phase = pod->status.phase;
    if (!pod->spec.nodeName.empty() && (phase == "Succeeded" || phase == "Failed")) continue;
    const std::string priority = pod->spec.priority ? std::to_string(*pod->spec.priority) : "";
    auto add = [&](std::map<Series, double>& out, const api::ResourceList& list) {
      for (const auto& [name, q] : list) {
        if (q.isZero()) continue;
        out[Series{pod->metadata.namespace_, pod->spec.nodeName, pod->metadata.name, priority, name,
                   pod->spec.schedulerName, unitOf(name)}] = approximate(q);
      }
    };
    add(requests, api::podRequests(*pod, opts));
    add(limits, api::podLimits(*pod, opts));
  }
  static constexpr std::array<std::string_view, 7> kLabels = {"namespace", "node",      "pod", "priority",
                                                              "resource",  "scheduler", "unit"};
  std::string out;
  auto write = [&](std::string_view name, std::string_view help, const std::map<Series, double>& series) {
    if (series.empty()) return;
    out += "# HELP " + std::string(name) + " [STABLE] " + std::string(help) + std::string(kHelpTail) + "\n";
    out += "# TYPE " + std::string(name) + " gauge\n";
    for (const auto& [labels, value] : series) {
      out += name;
      out += '{';
      for (size_t i = 0; i < kLabels.size(); ++i) {
        if (i > 0) out += ',';
        out += kLabels[i];
        out += "=\"" + escapeLabelValue(labels[i]) + "\"";
      }
      out += "} " + formatValue(value) + "\n";
    }
  };
  write("kube_pod_resource_limit", "Resources limit for workloads on the cluster, ", limits);
  write("kube_pod_resource_request", "Resources requested by workloads on the cluster, ", requests);
  return out;
}

}  // namespace ks::metrics
