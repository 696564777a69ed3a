#pragma once
// Score helpers shared by plugins (upstream plugins/helper: normalize_score.go, shape_score.go).

#include <cstdint>
#include <vector>

#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/status.h"

namespace ks::plugins::helper {

// Rescales scores from [0, max(scores)] to [0, maxPriority] in place (integer arithmetic, as upstream
// DefaultNormalizeScore). With `reverse`, each score becomes maxPriority - score; when every score is 0,
// reverse sets them all to maxPriority and non-reverse leaves them at 0. Scores are assumed
// non-negative. Always returns Success. Allocates nothing.
framework::Status defaultNormalizeScore(int64_t maxPriority, bool reverse, framework::NodeScoreList& scores);

// One point of a piecewise-linear function (upstream FunctionShapePoint).
struct FunctionShapePoint {
  // The function argument (e.g. utilization in percent).
  int64_t utilization = 0;
  // The function value at `utilization`.
  int64_t score = 0;
  bool operator==(const FunctionShapePoint&) const = default;
};

// Points ordered by increasing utilization; at least one point.
using FunctionShape = std::vector<FunctionShapePoint>;

// A piecewise-linear function through `shape` (upstream BuildBrokenLinearFunction):
//   f(p) = shape[0].score for p <= shape[0].utilization,
//   f(p) = shape[n-1].score for p > shape[n-1].utilization,
//   linear (integer division) between neighbouring points otherwise.
class BrokenLinearFunction {
 public:
  explicit BrokenLinearFunction(FunctionShape shape) : shape_(std::move(shape)) {}

  // Evaluates f(p). Allocates nothing.
  int64_t operator()(int64_t p) const;

  const FunctionShape& shape() const { return shape_; }

 private:
  FunctionShape shape_;
};

inline BrokenLinearFunction buildBrokenLinearFunction(FunctionShape shape) {
  return BrokenLinearFunction(std::move(shape));
}

}  // namespace ks::plugins::helper
