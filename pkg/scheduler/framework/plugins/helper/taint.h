#pragma once
// Taint filters shared by plugins (upstream plugins/helper/taint.go).

#include "pkg/api/core.h"

namespace ks::plugins::helper {

// DoNotScheduleTaintsFilterFunc: true for taints that reject scheduling (NoSchedule, NoExecute).
inline bool doNotScheduleTaintsFilter(const api::Taint& t) {
  return t.effect == api::kTaintEffectNoSchedule || t.effect == api::kTaintEffectNoExecute;
}

}  // namespace ks::plugins::helper
