#include "pkg/scheduler/framework/events.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/interface.h"

namespace ks::framework {
namespace {

// Upstream TestClusterEventMatching (v1.37.2; its one repeated case once), then cases added here.
TEST(EventsTest, MatchClusterEvents) {
  struct Case {
    std::string name;
    ClusterEvent registered;
    ClusterEvent incoming;
    bool want;
  };
  using R = EventResource;
  const std::vector<Case> cases = {
      {"wildcard event matches with all kinds of coming events",
       {R::WildCard, action::All, {}},
       {R::Pod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = 'Pod' matching with coming events carries matching actionType",
       {R::Pod, action::UpdateNodeLabel | action::UpdateNodeTaint, {}},
       {R::Pod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = 'Pod' also matches event with 'UnscheduledPod' resource and matching "
       "actionType",
       {R::Pod, action::UpdateNodeLabel | action::UpdateNodeTaint, {}},
       {R::UnscheduledPod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = '*' matching with coming events carries same actionType",
       {R::WildCard, action::UpdateNodeLabel, {}},
       {R::Pod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = '*' matching with coming events carries different actionType",
       {R::WildCard, action::UpdateNodeLabel, {}},
       {R::Pod, action::UpdateNodeAllocatable, {}},
       false},
      {"event matching with coming events carries '*' resources",
       {R::Pod, action::UpdateNodeLabel, {}},
       {R::WildCard, action::UpdateNodeLabel, {}},
       false},
      {"event with resource = '*' matching with coming events carrying a too broad actionType",
       {R::WildCard, action::UpdateNodeLabel, {}},
       {R::Pod, action::Update, {}},
       false},
      {"event with resource = '*' matching with coming events carrying a more specific actionType",
       {R::WildCard, action::Update, {}},
       {R::Pod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = 'Pod' also matches event with AssignedPod resource and same actionType",
       {R::Pod, action::UpdateNodeLabel, {}},
       {R::AssignedPod, action::UpdateNodeLabel, {}},
       true},
      {"event with resource = 'Pod' also matches event with 'TargetPod' resource and same actionType",
       {R::Pod, action::UpdateNodeTaint, {}},
       {R::TargetPod, action::UpdateNodeTaint, {}},
       true},
      {"event with resource 'AssignedPod' does not match event with 'UnscheduledPod' resource and same "
       "actionType",
       {R::AssignedPod, action::Add, {}},
       {R::UnscheduledPod, action::Add, {}},
       false},
      {"event with resource 'AssignedPod' does not match event with 'TargetPod' resource and same actionType",
       {R::AssignedPod, action::Update, {}},
       {R::TargetPod, action::Update, {}},
       false},
      {"event with resource 'TargetPod' does not match event with 'AssignedPod' resource and same actionType",
       {R::TargetPod, action::Update, {}},
       {R::AssignedPod, action::Update, {}},
       false},
      {"event with resource 'AssignedPod' does not match with broad 'Pod' resource and same actionType",
       {R::AssignedPod, action::Add, {}},
       {R::Pod, action::Add, {}},
       false},
      {"event with resource 'AssignedPod' does not match with 'WildCard' resource and same actionType",
       {R::AssignedPod, action::Add, {}},
       {R::WildCard, action::Add, {}},
       false},
      {"event with resource 'UnscheduledPod' does not match with broad 'Pod' resource and same actionType",
       {R::UnscheduledPod, action::Add, {}},
       {R::Pod, action::Add, {}},
       false},
      {"event with resource 'UnscheduledPod' does not match with 'WildCard' resource and same actionType",
       {R::UnscheduledPod, action::Add, {}},
       {R::WildCard, action::Add, {}},
       false},
      {"WildCard matches with a pod sub-type resource 'TargetPod' and any actionType",
       {R::WildCard, action::All, {}},
       {R::TargetPod, action::Update, {}},
       true},
      // Added here.
      {"Update registration matches a specific update",
       {R::Node, action::Update, {}},
       {R::Node, action::UpdateNodeLabel, {}},
       true},
      {"Update registration matches a declared-features update",
       {R::Node, action::Update, {}},
       {R::Node, action::UpdateNodeDeclaredFeature, {}},
       true},
      {"Update registration matches a scale up",
       {R::TargetPod, action::Update, {}},
       {R::TargetPod, action::UpdatePodScaleUp, {}},
       true},
      {"specific registration doesn't match generic Update",
       {R::Node, action::UpdateNodeLabel, {}},
       {R::Node, action::Update, {}},
       false},
      {"specific registration doesn't match an update none of the specific types covers",
       {R::TargetPod, action::UpdatePodToleration | action::UpdatePodLabel, {}},
       {R::TargetPod, action::UpdatePodOther, {}},
       false},
      {"wildcard incoming event matches only wildcard registration",
       {R::Node, action::All, {}},
       {R::WildCard, action::All, {}},
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
  // The pod events upstream v1.37 labels its metrics with.
  EXPECT_EQ(kEventUnscheduledPodAdd.label(), "UnscheduledPodAdd");
  EXPECT_EQ(kEventAssignedPodUpdate.label(), "AssignedPodUpdate");
  EXPECT_EQ((ClusterEvent{EventResource::TargetPod, action::UpdatePodLabel, {}}).label(),
            "TargetPodUpdatePodLabel");
  EXPECT_EQ((ClusterEvent{EventResource::TargetPod, action::UpdatePodOther, {}}).label(), "TargetPodUpdate");
  EXPECT_EQ((ClusterEvent{EventResource::AssignedPod, action::UpdatePodScaleUp, {}}).label(),
            "AssignedPodUpdatePodScaleUp");
  EXPECT_EQ(eventResourceName(EventResource::Pod), "Pod");
  // Plugins without EnqueueExtensions: every resource but Pod (split into its three kinds), ResourceSlice
  // and VolumeAttachment, as upstream UnrollWildCardResource.
  std::vector<EventResource> unrolled;
  for (const auto& e : unrollWildCardResource()) {
    EXPECT_EQ(e.event.actionType, action::All);
    unrolled.push_back(e.event.resource);
  }
  EXPECT_EQ(unrolled,
            (std::vector<EventResource>{
                EventResource::AssignedPod, EventResource::UnscheduledPod, EventResource::TargetPod,
                EventResource::Node, EventResource::PersistentVolume, EventResource::PersistentVolumeClaim,
                EventResource::CSINode, EventResource::CSIDriver, EventResource::CSIStorageCapacity,
                EventResource::StorageClass, EventResource::ResourceClaim, EventResource::DeviceClass}));
  // With GenericWorkload, PodGroup too (last).
  const auto withPodGroup = unrollWildCardResource(/*genericWorkload=*/true);
  ASSERT_EQ(withPodGroup.size(), unrolled.size() + 1);
  EXPECT_EQ(withPodGroup.back().event.resource, EventResource::PodGroup);
  EXPECT_EQ(withPodGroup.back().event.actionType, action::All);
  EXPECT_EQ(eventResourceName(EventResource::PodGroup), "scheduling.k8s.io/PodGroup");
  EXPECT_EQ((ClusterEvent{EventResource::PodGroup, action::Update, {}}).label(), "scheduling.k8s.io/PodGroupUpdate");
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
