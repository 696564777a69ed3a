// Ported from upstream pkg/scheduler/framework/runtime/framework_test.go (v1.37.2):
// TestRunPlacementFeasiblePlugins and TestNewFramework_PlacementFeasible, plus the pod group manager
// handle and the GenericWorkload events of plugins without EnqueueExtensions.

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/pod_group.h"
#include "pkg/scheduler/framework/runtime/framework.h"

namespace ks::framework::runtime {
namespace {

constexpr std::string_view kGang = "GangScheduling";

class SortAndBind final : public QueueSortPlugin, public BindPlugin {
 public:
  std::string_view name() const override { return "SortAndBind"; }
  bool less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }
  Status bind(CycleState&, const PodInfo&, const std::string&) override { return {}; }
};

class MockPlacementFeasible final : public PlacementFeasiblePlugin {
 public:
  MockPlacementFeasible(std::string name, Status status) : name_(std::move(name)), status_(std::move(status)) {}
  std::string_view name() const override { return name_; }
  Status placementFeasible(CycleState&, const PodGroupInfo&, const PlacementProgress&) override {
    called = true;
    return status_;
  }
  bool called = false;

 private:
  std::string name_;
  Status status_;
};

// A GangScheduling stand-in that is only a PreEnqueue plugin.
class GangWithoutPlacementFeasible final : public PreEnqueuePlugin {
 public:
  std::string_view name() const override { return kGang; }
  Status preEnqueue(const PodInfo&) override { return {}; }
};

class GangWithPlacementFeasible final : public PreEnqueuePlugin, public PlacementFeasiblePlugin {
 public:
  std::string_view name() const override { return kGang; }
  Status preEnqueue(const PodInfo&) override { return {}; }
  Status placementFeasible(CycleState&, const PodGroupInfo&, const PlacementProgress&) override { return {}; }
};

Registry baseRegistry() {
  Registry r;
  EXPECT_TRUE(r.registerPlugin("SortAndBind", [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
                 return std::unique_ptr<Plugin>(std::make_unique<SortAndBind>());
               }).ok());
  return r;
}

config::KubeSchedulerProfile baseProfile() {
  config::KubeSchedulerProfile p;
  p.plugins.queueSort.enabled = {{"SortAndBind", 0}};
  p.plugins.bind.enabled = {{"SortAndBind", 0}};
  return p;
}

FrameworkOptions options(bool genericWorkload) {
  FrameworkOptions o;
  o.parallelizer = std::make_shared<parallelize::Parallelizer>(1);
  o.enableGenericWorkload = genericWorkload;
  return o;
}

TEST(FrameworkPodGroupTest, RunPlacementFeasiblePlugins) {
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, Status>> plugins;
    Status want;
    std::vector<bool> called;
  };
  const std::vector<Case> cases = {
      {"All plugins succeed", {{"p1", {}}, {"p2", {}}}, {}, {true, true}},
      {"First plugin returns Wait, continues",
       {{"p1", Status(Code::Wait, "wait")}, {"p2", {}}},
       Status(Code::Wait, "wait").withPlugin("p1"),
       {true, true}},
      {"First plugin returns Unschedulable, breaks",
       {{"p1", Status(Code::Unschedulable, "unschedulable")}, {"p2", {}}},
       Status(Code::Unschedulable, "unschedulable").withPlugin("p1"),
       {true, false}},
      {"First plugin returns Wait, second returns Unschedulable, returns Unschedulable",
       {{"p1", Status(Code::Wait, "wait")}, {"p2", Status(Code::Unschedulable, "unschedulable")}},
       Status(Code::Unschedulable, "unschedulable").withPlugin("p2"),
       {true, true}},
      {"First plugin returns Wait, second returns Wait, returns last Wait",
       {{"p1", Status(Code::Wait, "wait1")}, {"p2", Status(Code::Wait, "wait2")}},
       Status(Code::Wait, "wait2").withPlugin("p2"),
       {true, true}},
      {"Plugin returns Error, breaks",
       {{"p1", Status::error("error")}, {"p2", {}}},
       Status::error("running PlacementFeasible plugin: error").withPlugin("p1"),
       {true, false}},
      {"Plugin returns unexpected status, breaks",
       {{"p1", Status(Code::Skip, "error")}, {"p2", {}}},
       Status::error("unexpected status from PlacementFeasible plugin: Skip").withPlugin("p1"),
       {true, false}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto f = Framework::create(baseRegistry(), baseProfile(), options(false));
    ASSERT_TRUE(f.ok()) << f.error().message();
    std::vector<std::unique_ptr<MockPlacementFeasible>> plugins;
    std::vector<PlacementFeasiblePlugin*> raw;
    for (const auto& [name, status] : tc.plugins) {
      plugins.push_back(std::make_unique<MockPlacementFeasible>(name, status));
      raw.push_back(plugins.back().get());
    }
    (*f)->setPlacementFeasiblePluginsForTest(raw);
    CycleState state;
    const Status got = (*f)->runPlacementFeasiblePlugins(state, PodGroupInfo{}, PlacementProgress{});
    EXPECT_EQ(got, tc.want) << got.message();
    EXPECT_EQ(got.plugin(), tc.want.plugin());
    for (std::size_t i = 0; i < plugins.size(); ++i) EXPECT_EQ(plugins[i]->called, tc.called[i]) << i;
  }
}

TEST(FrameworkPodGroupTest, NewFrameworkPlacementFeasible) {
  struct Case {
    std::string name;
    bool genericWorkload;
    bool registerGang;
    bool fulfilled;
    std::string wantErr;
    bool wantPlacementFeasible;
  };
  const std::vector<Case> cases = {
      {"GenericWorkload enabled, GangScheduling does not fulfill PlacementFeasiblePlugin interface", true, true, false,
       "GenericWorkload is enabled, but GangScheduling plugin does not fulfill PlacementFeasiblePlugin interface",
       false},
      {"GenericWorkload disabled, GangScheduling does not fulfill PlacementFeasiblePlugin interface", false, true,
       false, "", false},
      {"GenericWorkload enabled, GangScheduling plugin not present", true, false, false, "", false},
      {"GenericWorkload enabled, GangScheduling fulfills PlacementFeasiblePlugin interface", true, true, true, "", true},
      {"GenericWorkload disabled, GangScheduling fulfills PlacementFeasiblePlugin interface", false, true, true, "",
       false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Registry r = baseRegistry();
    config::KubeSchedulerProfile p = baseProfile();
    if (tc.registerGang) {
      const bool fulfilled = tc.fulfilled;
      ASSERT_TRUE(r.registerPlugin(std::string(kGang),
                                   [fulfilled](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
                                     if (fulfilled) return std::unique_ptr<Plugin>(std::make_unique<GangWithPlacementFeasible>());
                                     return std::unique_ptr<Plugin>(std::make_unique<GangWithoutPlacementFeasible>());
                                   })
                      .ok());
      p.plugins.multiPoint.enabled = {{std::string(kGang), 0}};
    }
    auto f = Framework::create(r, p, options(tc.genericWorkload));
    if (!tc.wantErr.empty()) {
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.error().message(), tc.wantErr);
      continue;
    }
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_EQ((*f)->hasPlacementFeasiblePlugins(), tc.wantPlacementFeasible);
  }
}

class FakePodGroupManager final : public PodGroupManager {
 public:
  PodGroupPtr podGroup(std::string_view, std::string_view) const override { return nullptr; }
  PodGroupStatePtr podGroupState(std::string_view, std::string_view) const override { return nullptr; }
};

TEST(FrameworkPodGroupTest, HandleGivesThePodGroupManager) {
  FakePodGroupManager manager;
  FrameworkOptions o = options(true);
  o.podGroupManager = &manager;
  auto f = Framework::create(baseRegistry(), baseProfile(), std::move(o));
  ASSERT_TRUE(f.ok());
  const Handle& h = **f;
  EXPECT_EQ(h.podGroupManager(), &manager);
  auto g = Framework::create(baseRegistry(), baseProfile(), options(false));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(static_cast<const Handle&>(**g).podGroupManager(), nullptr);
}

// A Permit plugin without EnqueueExtensions registers for every resource; PodGroup only with GenericWorkload
// (upstream UnrollWildCardResource).
TEST(FrameworkPodGroupTest, WildCardEventsIncludePodGroupWithGenericWorkload) {
  class PermitOnly final : public PermitPlugin {
   public:
    std::string_view name() const override { return "PermitOnly"; }
    Status permit(CycleState&, const PodInfo&, const std::string&, std::chrono::milliseconds&) override { return {}; }
  };
  for (const bool genericWorkload : {false, true}) {
    SCOPED_TRACE(genericWorkload);
    Registry r = baseRegistry();
    ASSERT_TRUE(r.registerPlugin("PermitOnly", [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
                   return std::unique_ptr<Plugin>(std::make_unique<PermitOnly>());
                 }).ok());
    config::KubeSchedulerProfile p = baseProfile();
    p.plugins.permit.enabled = {{"PermitOnly", 0}};
    auto f = Framework::create(r, p, options(genericWorkload));
    ASSERT_TRUE(f.ok()) << f.error().message();
    auto events = (*f)->eventsToRegister();
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    bool hasPodGroup = false;
    for (const auto& e : (*events)[0].events) hasPodGroup = hasPodGroup || e.event.resource == EventResource::PodGroup;
    EXPECT_EQ(hasPodGroup, genericWorkload);
    EXPECT_EQ((*events)[0].events.size(), unrollWildCardResource(genericWorkload).size());
  }
}

}  // namespace
}  // namespace ks::framework::runtime
