#include "pkg/scheduler/framework/plugins/helper/normalize_score.h"

namespace ks::plugins::helper {

framework::Status defaultNormalizeScore(int64_t maxPriority, bool reverse, framework::NodeScoreList& scores) {
  int64_t maxCount = 0;
  for (const auto& s : scores) {
    if (s.score > maxCount) maxCount = s.score;
  }
  if (maxCount == 0) {
    if (reverse) {
      for (auto& s : scores) s.score = maxPriority;
    }
    return framework::Status();
  }
  for (auto& s : scores) {
    int64_t score = maxPriority * s.score / maxCount;
    if (reverse) score = maxPriority - score;
    s.score = score;
  }
  return framework::Status();
}

int64_t BrokenLinearFunction::operator()(int64_t p) const {
  for (std::size_t i = 0; i < shape_.size(); i++) {
    if (p <= shape_[i].utilization) {
      if (i == 0) return shape_[0].score;
      const auto& lo = shape_[i - 1];
      const auto& hi = shape_[i];
      return lo.score + (hi.score - lo.score) * (p - lo.utilization) / (hi.utilization - lo.utilization);
    }
  }
  return shape_.empty() ? 0 : shape_.back().score;
}

}  // namespace ks::plugins::helper
