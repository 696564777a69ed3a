#pragma once
// Taint / toleration matching as upstream: core/v1 Toleration.ToleratesTaint and MatchToleration,
// Taint.MatchTaint and ToString (k8s.io/api/core/v1/toleration.go, taint.go), component-helpers
// TolerationsTolerateTaint / FindMatchingUntoleratedTaint (scheduling/corev1/helpers.go), and the
// PreferNoSchedule helpers of the TaintToleration plugin. Nothing here allocates on the match path.

#include <functional>
#include <string>
#include <vector>

#include "pkg/api/core.h"

namespace ks::api {

// Well-known taint keys set by the node lifecycle controller.
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr std::string_view kTaintNodeNotReady = "node.kubernetes.io/not-ready";
inline constexpr std::string_view kTaintNodeUnreachable = "node.kubernetes.io/unreachable";

inline constexpr std::string_view kTolerationOpExists = "Exists";
inline constexpr std::string_view kTolerationOpEqual = "Equal";

// Toleration.ToleratesTaint: an empty toleration effect matches every effect, an empty key (with
// Exists) every key; operator "" or Equal compares values, Exists ignores them, any other operator
// tolerates nothing. tolerationSeconds plays no part.
bool toleratesTaint(const Toleration& toleration, const Taint& taint);

// Toleration.MatchToleration: same key, operator, value and effect (tolerationSeconds ignored).
bool matchToleration(const Toleration& a, const Toleration& b);

// Taint.MatchTaint: same key and effect.
bool matchTaint(const Taint& a, const Taint& b);

// Taint.ToString: "key=value:effect", or "key:effect" when the value is empty.
std::string taintToString(const Taint& taint);

// TolerationsTolerateTaint: true when any toleration tolerates the taint.
bool tolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

using TaintFilter = std::function<bool(const Taint&)>;

// FindMatchingUntoleratedTaint: the first taint that passes `inclusionFilter` (all taints when the
// filter is empty) and is not tolerated, or nullptr when every such taint is tolerated. The pointer
// points into `taints`.
const Taint* findMatchingUntoleratedTaint(const std::vector<Taint>& taints,
                                          const std::vector<Toleration>& tolerations,
                                          const TaintFilter& inclusionFilter = {});

// Filter used by the TaintToleration Filter and by DaemonSet-style checks: NoSchedule or NoExecute.
bool taintEffectIsNoScheduleOrNoExecute(const Taint& taint);

// Returns the taints whose effect is `effect`.
std::vector<Taint> taintsWithEffect(const std::vector<Taint>& taints, std::string_view effect);

// TaintToleration plugin helpers: tolerations whose effect is empty or PreferNoSchedule, and the
// number of PreferNoSchedule taints none of `tolerations` tolerates.
std::vector<Toleration> tolerationsForPreferNoSchedule(const std::vector<Toleration>& tolerations);
int countIntolerableTaintsPreferNoSchedule(const std::vector<Taint>& taints,
                                           const std::vector<Toleration>& tolerations);

}  // namespace ks::api
