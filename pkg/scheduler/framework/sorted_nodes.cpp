#include "pkg/scheduler/framework/sorted_nodes.h"

#include <utility>

namespace ks::framework {

SortedScoredNodes::SortedScoredNodes(std::vector<NodePluginScores> nodes) : nodes_(std::move(nodes)) {
  const size_t n = nodes_.size();
  for (size_t i = n / 2; i-- > 0;) down(i, n);
}

NodePluginScores SortedScoredNodes::pop() {
  const size_t last = nodes_.size() - 1;
  std::swap(nodes_[0], nodes_[last]);
  down(0, last);
  NodePluginScores top = std::move(nodes_.back());
  nodes_.pop_back();
  return top;
}

// "Less" in heap terms: i ranks before j.
bool SortedScoredNodes::less(size_t i, size_t j) const {
  const NodePluginScores& a = nodes_[i];
  const NodePluginScores& b = nodes_[j];
  return a.totalScore > b.totalScore || (a.totalScore == b.totalScore && a.randomizer > b.randomizer);
}

void SortedScoredNodes::down(size_t i, size_t n) {
  for (;;) {
    const size_t left = 2 * i + 1;
    if (left >= n) return;
    size_t child = left;
    if (const size_t right = left + 1; right < n && less(right, left)) child = right;
    if (!less(child, i)) return;
    std::swap(nodes_[i], nodes_[child]);
    i = child;
  }
}

}  // namespace ks::framework
