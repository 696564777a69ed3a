#pragma once
// /metrics/resources: upstream's pod resource collector (pkg/scheduler/metrics/resources), computed at
// scrape time from the pods the caller passes (the daemon: its pod informer's store).
//
//   kube_pod_resource_request{namespace,pod,node,scheduler,priority,resource,unit}  [STABLE] gauge
//   kube_pod_resource_limit{...}                                                     [STABLE] gauge
//
// Per pod: skipped when bound to a node and Succeeded or Failed; requests and limits as
// resourcehelper.PodRequests / PodLimits (containers, init containers, sidecars, pod-level resources,
// overhead); zero quantities are left out. unit: cpu "cores"; memory, storage, ephemeral-storage and
// hugepages-* "bytes"; attachable-volumes-* "integer"; else "". priority is spec.priority or "".

#include <memory>
#include <string>
#include <vector>

#include "pkg/api/core.h"

namespace ks::metrics {

// The exposition text (format 0.0.4): families sorted by name, series by label values, as client_golang.
// Empty when no pod has a non-zero request or limit.
std::string podResourceMetricsText(const std::vector<std::shared_ptr<const api::Pod>>& pods);

}  // namespace ks::metrics
