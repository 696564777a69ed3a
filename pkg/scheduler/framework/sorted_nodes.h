#pragma once
// The scored nodes of a cycle as a max-heap (upstream framework.NewSortedScoredNodes): ordered by total
// score, then by Randomizer. Host selection pops the top; the rest stays ranked for whoever wants the
// runner-up (upstream's batching keeps it for the next pod with the same signature).
//
// The heap is built and popped exactly as Go's container/heap does (Init sifts down from n/2-1 to 0; Pop
// swaps the root to the end and sifts down), so that nodes with equal totals and equal Randomizers come out
// in the same order as upstream's from the same input order.

#include <vector>

#include "pkg/scheduler/framework/interface.h"

namespace ks::framework {

class SortedScoredNodes {
 public:
  explicit SortedScoredNodes(std::vector<NodePluginScores> nodes);

  // The highest-ranked node, removed from the heap. Requires size() > 0.
  NodePluginScores pop();
  size_t size() const { return nodes_.size(); }
  // The remaining nodes in heap order (not sorted).
  const std::vector<NodePluginScores>& unorderedList() const { return nodes_; }

 private:
  bool less(size_t i, size_t j) const;
  void down(size_t i, size_t n);

  std::vector<NodePluginScores> nodes_;
};

}  // namespace ks::framework
