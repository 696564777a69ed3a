// Ported from k8s.io/api/core/v1/toleration.go and taint.go, k8s.io/component-helpers/scheduling/corev1
// helpers.go, and pkg/scheduler/framework/plugins/tainttoleration.

#include "pkg/api/taints.h"

namespace ks::api {

bool toleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == kTolerationOpEqual) return toleration.value == taint.value;
  if (toleration.op == kTolerationOpExists) return true;
  return false;
}

bool matchToleration(const Toleration& a, const Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect;
}

bool matchTaint(const Taint& a, const Taint& b) {
  return a.key == b.key && a.effect == b.effect;
}

std::string taintToString(const Taint& taint) {
  std::string out = taint.key;
  if (!taint.value.empty()) {
    out += '=';
    out += taint.value;
  }
  out += ':';
  out += taint.effect;
  return out;
}

bool tolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const auto& t : tolerations) {
    if (toleratesTaint(t, taint)) return true;
  }
  return false;
}

const Taint* findMatchingUntoleratedTaint(const std::vector<Taint>& taints,
                                          const std::vector<Toleration>& tolerations,
                                          const TaintFilter& inclusionFilter) {
  for (const auto& taint : taints) {
    if (inclusionFilter && !inclusionFilter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

bool taintEffectIsNoScheduleOrNoExecute(const Taint& taint) {
  return taint.effect == kTaintEffectNoSchedule || taint.effect == kTaintEffectNoExecute;
}

std::vector<Taint> taintsWithEffect(const std::vector<Taint>& taints, std::string_view effect) {
  std::vector<Taint> out;
  for (const auto& t : taints) {
    if (t.effect == effect) out.push_back(t);
  }
  return out;
}

std::vector<Toleration> tolerationsForPreferNoSchedule(const std::vector<Toleration>& tolerations) {
  std::vector<Toleration> out;
  for (const auto& t : tolerations) {
    // An empty effect means all effects, PreferNoSchedule included.
    if (t.effect.empty() || t.effect == kTaintEffectPreferNoSchedule) out.push_back(t);
  }
  return out;
}

int countIntolerableTaintsPreferNoSchedule(const std::vector<Taint>& taints,
                                           const std::vector<Toleration>& tolerations) {
  int n = 0;
  for (const auto& taint : taints) {
    if (taint.effect != kTaintEffectPreferNoSchedule) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) ++n;
  }
  return n;
}

}  // namespace ks::api
