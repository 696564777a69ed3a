#include "pkg/scheduler/framework/events.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/interface.h"

namespace ks::framework {
namespace {

// Upstream TestMatchClusterEvents.
TEST(EventsTest, MatchClusterEvents) {
  struct Case {
    std::string name;
    ClusterEvent registered;
    ClusterEvent incoming;
    bool want;
  };
  const std::vector<Case> cases = {
      {"wildcard event matches with all kinds of coming events",
       {EventResource::WildCard, action::All, {}},
       {EventResource::Pod, action::UpdatePodLabel, {}},
       true},
      {"event with resource = 'Pod' matching with coming events carries same actionType",
       {EventResource::Pod, action::UpdatePodLabel | action::UpdatePodToleration, {}},
       {EventResource::Pod, action::UpdatePodLabel, {}},
       true},
      {"event with resource = '*' matching with coming events carries same actionType",
       {EventResource::WildCard, action::UpdatePodLabel, {}},
       {EventResource::Pod, action::UpdatePodLabel, {}},
       true},
      {"event with resource = '*' matching with coming events carries different actionType",
       {EventResource::WildCard, action::UpdatePodLabel, {}},
       {EventResource::PersistentVolume, action::Delete, {}},
       false},
      {"event matches with coming events carries same actionType",
       {EventResource::PersistentVolume, action::Add, {}},
       {EventResource::PersistentVolume, action::Add, {}},
       true},
      {"event with resource = 'Pod' matches AssignedPod",
       {EventResource::Pod, action::Add, {}},
       {EventResource::AssignedPod, action::Add, {}},
       true},
      {"Update registration matches a specific update",
       {EventResource::Node, action::Update, {}},
       {EventResource::Node, action::UpdateNodeLabel, {}},
       true},
      {"Update registration matches a declared-features update",
       {EventResource::Node, action::Update, {}},
       {EventResource::Node, action::UpdateNodeDeclaredFeature, {}},
       true},
      {"specific registration doesn't match generic Update",
       {EventResource::Node, action::UpdateNodeLabel, {}},
       {EventResource::Node, action::Update, {}},
       false},
      {"wildcard incoming event matches only wildcard registration",
       {EventResource::Node, action::All, {}},
       {EventResource::WildCard, action::All, {}},
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(matchClusterEvents(c.registered, c.incoming), c.want);
  }
}

TEST(EventsTest, Labels) {
  EXPECT_EQ((ClusterEvent{EventResource::Node, action::Add, {}}).label(), "NodeAdd");
  EXPECT_EQ((ClusterEvent{EventResource::AssignedPod, action::Delete, {}}).label(), "AssignedPodDelete");
  EXPECT_EQ((ClusterEvent{EventResource::Node, action::UpdateNodeTaint, {}}).label(), "NodeUpdateNodeTaint");
  EXPECT_EQ((ClusterEvent{EventResource::CSINode, action::Update, {}}).label(),
            "storage.k8s.io/CSINodeUpdate");
  EXPECT_EQ(kEventUnschedulableTimeout.label(), "UnschedulableTimeout");
  EXPECT_EQ(actionTypeName(action::All), "All");
  EXPECT_EQ(actionTypeName(action::Add | action::Delete), "Add|Delete");
  EXPECT_EQ((ClusterEvent{EventResource::Node, action::UpdateNodeDeclaredFeature, {}}).label(),
            "NodeUpdateNodeDeclaredFeature");
  EXPECT_EQ(actionTypeName(action::Add | action::UpdateNodeDeclaredFeature), "Add|UpdateNodeDeclaredFeature");
  EXPECT_EQ(unrollWildCardResource().size(), 11u);
}

// Upstream TestPreFilterResultMerge.
TEST(EventsTest, PreFilterResultMerge) {
  auto set = [](std::set<std::string> s) { return PreFilterResult{std::move(s)}; };
  EXPECT_TRUE(PreFilterResult{}.merge(PreFilterResult{}).allNodes());
  EXPECT_EQ(PreFilterResult{}.merge(set({"node1"})), set({"node1"}));
  EXPECT_EQ(set({"node1"}).merge(PreFilterResult{}), set({"node1"}));
  EXPECT_EQ(set({}).merge(PreFilterResult{}), set({}));
  EXPECT_EQ(set({"node1", "node2"}).merge(set({"node2", "node3"})), set({"node2"}));
  EXPECT_EQ(set({"node1"}).merge(set({"node2"})), set({}));
}

}  // namespace
}  // namespace ks::framework
