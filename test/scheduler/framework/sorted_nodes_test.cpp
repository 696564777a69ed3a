#include "pkg/scheduler/framework/sorted_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ks::framework {
namespace {

NodePluginScores node(std::string name, int64_t total, int64_t randomizer = 0) {
  NodePluginScores n;
  n.name = std::move(name);
  n.totalScore = total;
  n.randomizer = randomizer;
  return n;
}

std::vector<std::string> popAll(SortedScoredNodes s) {
  std::vector<std::string> names;
  while (s.size() > 0) names.push_back(s.pop().name);
  return names;
}

// Upstream TestSortedScoredNodes_Pop and Test_SelectHost.
TEST(SortedScoredNodesTest, PopsByTotalThenRandomizer) {
  struct Case {
    const char* name;
    std::vector<NodePluginScores> input;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"empty", {}, {}},
      {"single node", {node("node1", 5)}, {"node1"}},
      {"descending by TotalScore",
       {node("node1", 1), node("node3", 3), node("node2", 2)},
       {"node3", "node2", "node1"}},
      {"tie-break by Randomizer",
       {node("nodeA", 5, 1), node("nodeB", 5, 3), node("nodeC", 5, 2)},
       {"nodeB", "nodeC", "nodeA"}},
      {"mixed scores and tie-breaks",
       {node("node3.1", 3, 1), node("node2", 2), node("node1", 1), node("node3.2", 3, 2)},
       {"node3.2", "node3.1", "node2", "node1"}},
      {"unique properly ordered scores", {node("node1", 1), node("node2", 2)}, {"node2", "node1"}},
      {"equal scores",
       {node("node2.2", 2, 2), node("node2.1", 2, 1), node("node2.3", 2, 3)},
       {"node2.3", "node2.2", "node2.1"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(popAll(SortedScoredNodes(c.input)), c.want) << c.name;
  }
}

// Without randomizers, equal totals come out in the order Go's container/heap gives them (printed by a Go
// program with upstream's Less over this input): not input order, not random.
TEST(SortedScoredNodesTest, EqualTotalsFollowGoHeapOrder) {
  const std::vector<NodePluginScores> input = {node("a", 5), node("b", 5), node("c", 7), node("d", 5),
                                               node("e", 7), node("f", 5), node("g", 3)};
  EXPECT_EQ(popAll(SortedScoredNodes(input)), (std::vector<std::string>{"e", "c", "a", "b", "d", "f", "g"}));
}

// Upstream TestSortedScoredNodes_Len and TestSortedScoredNodes_List.
TEST(SortedScoredNodesTest, SizeAndRemainingNodes) {
  SortedScoredNodes s({node("node1", 10), node("node2", 20), node("node3", 30)});
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.pop().name, "node3");
  EXPECT_EQ(s.size(), 2u);
  std::vector<std::string> rest;
  for (const auto& n : s.unorderedList()) rest.push_back(n.name);
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(rest, (std::vector<std::string>{"node1", "node2"}));
  s.pop();
  s.pop();
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.unorderedList().empty());
}

}  // namespace
}  // namespace ks::framework
