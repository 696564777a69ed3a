// Ported from upstream pkg/scheduler/backend/cache/node_tree_test.go.

#include "pkg/scheduler/backend/cache/node_tree.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ks::cache {
namespace {

using Tree = std::map<std::string, std::vector<std::string>>;

api::NodePtr node(const std::string& name, const api::Labels& labels = {}) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels = labels;
  return std::make_shared<const api::Node>(std::move(n));
}

const std::string kRegion(kLabelFailureDomainBetaRegion);
const std::string kZone(kLabelFailureDomainBetaZone);

// Zone keys contain a NUL: build them explicitly.
std::string key(const std::string& region, const std::string& zone) {
  return region + std::string(":\0:", 3) + zone;
}

const std::vector<api::NodePtr>& allNodes() {
  static const std::vector<api::NodePtr> nodes = {
      node("node-0"),                           // no region-zone label
      node("node-1", {{kRegion, "region-1"}}),  // region only
      node("node-2", {{kZone, "zone-2"}}),      // zone only
      node("node-3", {{kRegion, "region-1"}, {kZone, "zone-2"}}),
      node("node-4", {{kRegion, "region-1"}, {kZone, "zone-2"}}),
      node("node-5", {{kRegion, "region-1"}, {kZone, "zone-3"}}),  // other zone, same region
      node("node-6", {{kRegion, "region-2"}, {kZone, "zone-2"}}),  // new region
      node("node-7", {{kRegion, "region-2"}, {kZone, "zone-2"}}),
      node("node-8", {{kRegion, "region-2"}, {kZone, "zone-2"}}),
      // stable + deprecated labels
      node("node-9", {{std::string(kLabelTopologyRegion), "region-2"},
                      {std::string(kLabelTopologyZone), "zone-2"},
                      {kRegion, "region-2"},
                      {kZone, "zone-2"}}),
      node("node-10", {{kRegion, "region-2"}, {kZone, "zone-3"}}),  // deprecated only
  };
  return nodes;
}

std::vector<api::NodePtr> slice(std::size_t from, std::size_t to) {
  return {allNodes().begin() + static_cast<std::ptrdiff_t>(from),
          allNodes().begin() + static_cast<std::ptrdiff_t>(to)};
}

void verifyNodeTree(const NodeTree& nt, const Tree& expected) {
  int expectedNum = 0;
  for (const auto& [_, v] : expected) expectedNum += static_cast<int>(v.size());
  EXPECT_EQ(nt.numNodes(), expectedNum);
  EXPECT_EQ(nt.tree(), expected);
  EXPECT_EQ(nt.zones().size(), expected.size());
  for (const auto& z : nt.zones()) EXPECT_TRUE(expected.contains(z)) << "zone not expected in zones";
}

TEST(GetZoneKey, Labels) {
  EXPECT_EQ(getZoneKey(*node("a")), "");
  EXPECT_EQ(getZoneKey(*node("a", {{std::string(kLabelTopologyZone), "z"}})), key("", "z"));
  EXPECT_EQ(getZoneKey(*node(
                "a", {{std::string(kLabelTopologyRegion), "r"}, {std::string(kLabelTopologyZone), "z"}})),
            key("r", "z"));
  // The deprecated label wins when both are present.
  EXPECT_EQ(getZoneKey(*node("a", {{std::string(kLabelTopologyZone), "new"}, {kZone, "old"}})),
            key("", "old"));
}

TEST(NodeTree, AddNode) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodesToAdd;
    Tree expected;
  };
  const std::vector<Case> cases = {
      {"single node no labels", slice(0, 1), {{"", {"node-0"}}}},
      {"mix of nodes with and without proper labels",
       slice(0, 4),
       {{"", {"node-0"}},
        {key("region-1", ""), {"node-1"}},
        {key("", "zone-2"), {"node-2"}},
        {key("region-1", "zone-2"), {"node-3"}}}},
      {"mix of nodes with and without proper labels and some zones with multiple nodes",
       slice(0, 7),
       {{"", {"node-0"}},
        {key("region-1", ""), {"node-1"}},
        {key("", "zone-2"), {"node-2"}},
        {key("region-1", "zone-2"), {"node-3", "node-4"}},
        {key("region-1", "zone-3"), {"node-5"}},
        {key("region-2", "zone-2"), {"node-6"}}}},
      {"nodes also using deprecated zone/region label",
       slice(9, 11),
       {{key("region-2", "zone-2"), {"node-9"}}, {key("region-2", "zone-3"), {"node-10"}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeTree nt;
    for (const auto& n : tc.nodesToAdd) nt.addNode(*n);
    verifyNodeTree(nt, tc.expected);
  }
}

TEST(NodeTree, AddExistingNodeIsIgnored) {
  NodeTree nt(slice(0, 2));
  const uint64_t v = nt.version();
  nt.addNode(*allNodes()[1]);
  verifyNodeTree(nt, {{"", {"node-0"}}, {key("region-1", ""), {"node-1"}}});
  EXPECT_EQ(nt.version(), v);
}

TEST(NodeTree, RemoveNode) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> existing;
    std::vector<api::NodePtr> toRemove;
    Tree expected;
    bool expectError = false;
  };
  const std::vector<Case> cases = {
      {"remove a single node with no labels",
       slice(0, 7),
       slice(0, 1),
       {{key("region-1", ""), {"node-1"}},
        {key("", "zone-2"), {"node-2"}},
        {key("region-1", "zone-2"), {"node-3", "node-4"}},
        {key("region-1", "zone-3"), {"node-5"}},
        {key("region-2", "zone-2"), {"node-6"}}}},
      {"remove a few nodes including one from a zone with multiple nodes",
       slice(0, 7),
       slice(1, 4),
       {{"", {"node-0"}},
        {key("region-1", "zone-2"), {"node-4"}},
        {key("region-1", "zone-3"), {"node-5"}},
        {key("region-2", "zone-2"), {"node-6"}}}},
      {"remove all nodes", slice(0, 7), slice(0, 7), {}},
      {"remove non-existing node", {}, slice(0, 5), {}, true},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeTree nt(tc.existing);
    for (const auto& n : tc.toRemove) {
      auto r = nt.removeNode(*n);
      EXPECT_EQ(tc.expectError, !r.ok());
    }
    verifyNodeTree(nt, tc.expected);
  }
}

TEST(NodeTree, RemoveNodeErrorMessage) {
  NodeTree nt;
  auto r = nt.removeNode(*allNodes()[3]);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "node \"node-3\" in group \"region-1:\\x00:zone-2\" was not found");
}

TEST(NodeTree, UpdateNode) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> existing;
    api::NodePtr toUpdate;
    Tree expected;
  };
  const std::vector<Case> cases = {
      {"update a node without label",
       slice(0, 7),
       node("node-0", {{kRegion, "region-1"}, {kZone, "zone-2"}}),
       {{key("region-1", ""), {"node-1"}},
        {key("", "zone-2"), {"node-2"}},
        {key("region-1", "zone-2"), {"node-3", "node-4", "node-0"}},
        {key("region-1", "zone-3"), {"node-5"}},
        {key("region-2", "zone-2"), {"node-6"}}}},
      {"update the only existing node",
       slice(0, 1),
       node("node-0", {{kRegion, "region-1"}, {kZone, "zone-2"}}),
       {{key("region-1", "zone-2"), {"node-0"}}}},
      {"update non-existing node",
       slice(0, 1),
       node("node-new", {{kRegion, "region-1"}, {kZone, "zone-2"}}),
       {{"", {"node-0"}}, {key("region-1", "zone-2"), {"node-new"}}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeTree nt(tc.existing);
    api::NodePtr old;
    for (const auto& n : allNodes()) {
      if (n->metadata.name == tc.toUpdate->metadata.name) old = n;
    }
    if (!old) old = node("nonexisting-node");
    nt.updateNode(old.get(), *tc.toUpdate);
    verifyNodeTree(nt, tc.expected);
  }
}

TEST(NodeTree, List) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> nodes;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"empty tree", {}, {}},
      {"one node", slice(0, 1), {"node-0"}},
      {"four nodes", slice(0, 4), {"node-0", "node-1", "node-2", "node-3"}},
      {"all nodes",
       slice(0, 9),
       {"node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8"}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeTree nt(tc.nodes);
    std::optional<Error> err;
    EXPECT_EQ(nt.list(&err), tc.expected);
    EXPECT_FALSE(err.has_value());
  }
}

TEST(NodeTree, ListExhausted) {
  NodeTree nt(slice(0, 9));
  nt.setNumNodesForTest(nt.numNodes() + 1);
  std::optional<Error> err;
  EXPECT_EQ(nt.list(&err).size(), 9u);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->message(), "all zones exhausted before reaching count of nodes expected");
}

TEST(NodeTree, MultiOperations) {
  struct Case {
    std::string name;
    std::vector<api::NodePtr> toAdd;
    std::vector<api::NodePtr> toRemove;
    std::vector<std::string> ops;
    std::vector<std::string> expected;
  };
  auto concat = [](std::vector<api::NodePtr> a, const std::vector<api::NodePtr>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::vector<Case> cases = {
      {"add and remove all nodes",
       slice(2, 9),
       slice(2, 9),
       {"add", "add", "add", "remove", "remove", "remove"},
       {}},
      {"add and remove some nodes",
       slice(2, 9),
       slice(2, 9),
       {"add", "add", "add", "remove"},
       {"node-3", "node-4"}},
      {"remove three nodes",
       slice(2, 9),
       slice(2, 9),
       {"add", "add", "add", "remove", "remove", "remove", "add"},
       {"node-5"}},
      {"add more nodes to an exhausted zone",
       concat(slice(4, 9), slice(3, 4)),
       {},
       {"add", "add", "add", "add", "add", "add"},
       {"node-4", "node-5", "node-6", "node-3", "node-7", "node-8"}},
      {"remove zone and add new",
       concat(slice(3, 5), slice(6, 8)),
       slice(3, 5),
       {"add", "add", "remove", "add", "add", "remove"},
       {"node-6", "node-7"}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeTree nt;
    std::size_t addIndex = 0, removeIndex = 0;
    for (const auto& op : tc.ops) {
      if (op == "add") {
        ASSERT_LT(addIndex, tc.toAdd.size());
        nt.addNode(*tc.toAdd[addIndex++]);
      } else {
        ASSERT_LT(removeIndex, tc.toRemove.size());
        (void)nt.removeNode(*tc.toRemove[removeIndex++]);
      }
    }
    EXPECT_EQ(nt.list(), tc.expected);
  }
}

}  // namespace
}  // namespace ks::cache
