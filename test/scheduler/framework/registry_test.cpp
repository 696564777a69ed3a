#include "pkg/scheduler/framework/runtime/registry.h"

#include <gtest/gtest.h>

namespace ks::framework::runtime {
namespace {

class NamedPlugin final : public Plugin {
 public:
  explicit NamedPlugin(Handle&) {}
  std::string_view name() const override { return "named"; }
};

PluginFactory factory() {
  return makeFactory<NamedPlugin>();
}

// Upstream TestMerge / TestRegister / TestUnregister.
TEST(RegistryTest, RegisterDuplicateIsError) {
  Registry r;
  ASSERT_TRUE(r.registerPlugin("a", factory()).ok());
  auto dup = r.registerPlugin("a", factory());
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message(), "a plugin named a already exists");
  EXPECT_TRUE(r.contains("a"));
}

TEST(RegistryTest, Unregister) {
  Registry r;
  ASSERT_TRUE(r.registerPlugin("a", factory()).ok());
  ASSERT_TRUE(r.unregisterPlugin("a").ok());
  EXPECT_FALSE(r.contains("a"));
  auto missing = r.unregisterPlugin("a");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "no plugin named a exists");
}

TEST(RegistryTest, Merge) {
  Registry a, b, c;
  ASSERT_TRUE(a.registerPlugin("x", factory()).ok());
  ASSERT_TRUE(b.registerPlugin("y", factory()).ok());
  ASSERT_TRUE(a.merge(b).ok());
  EXPECT_EQ(a.size(), 2u);
  ASSERT_TRUE(c.registerPlugin("y", factory()).ok());
  auto r = a.merge(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "a plugin named y already exists");
}

// A handle that offers nothing; the factories under test only forward it.
class NullHandle final : public Handle {
 public:
  Status runPreScorePlugins(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>) override { return {}; }
  Status runScorePlugins(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>,
                         std::vector<NodePluginScores>&) override {
    return {};
  }
  Status runFilterPlugins(CycleState&, const PodInfo&, const NodeInfo&) override { return {}; }
  Status runPreFilterExtensionAddPod(CycleState&, const PodInfo&, const PodInfoPtr&,
                                     const NodeInfo&) override {
    return {};
  }
  Status runPreFilterExtensionRemovePod(CycleState&, const PodInfo&, const PodInfoPtr&,
                                        const NodeInfo&) override {
    return {};
  }
  const SharedLister* snapshotSharedLister() const override { return nullptr; }
  client::Client* client() const override { return nullptr; }
  EventRecorder* eventRecorder() const override { return nullptr; }
  parallelize::Parallelizer& parallelizer() override { return parallelizer_; }
  PodNominator* podNominator() const override { return nullptr; }
  informer::SharedInformerFactory* sharedInformerFactory() const override { return nullptr; }
  metrics::Metrics* metrics() const override { return nullptr; }
  void activate(const std::vector<api::PodPtr>&) override {}
  std::stop_token stopToken() const override { return {}; }
  void iterateOverWaitingPods(const std::function<void(WaitingPod&)>&) override {}
  std::shared_ptr<WaitingPod> getWaitingPod(const std::string&) override { return nullptr; }
  bool rejectWaitingPod(const std::string&) override { return false; }
  Status runFilterPluginsWithNominatedPods(CycleState&, const PodInfo&, const NodeInfo&) override {
    return {};
  }
  Status runReservePluginsReserve(CycleState&, const PodInfo&, const std::string&) override { return {}; }
  void runReservePluginsUnreserve(CycleState&, const PodInfo&, const std::string&) override {}

 private:
  parallelize::Parallelizer parallelizer_{1};
};

struct MyArgs final : config::PluginArgs {
  int value = 3;
};
struct OtherArgs final : config::PluginArgs {};

class ArgsPlugin final : public Plugin {
 public:
  ArgsPlugin(const MyArgs& a, Handle&) : value(a.value) {}
  std::string_view name() const override { return "args"; }
  int value;
};

TEST(RegistryTest, MakeFactoryWithArgs) {
  auto f = makeFactory<ArgsPlugin, MyArgs>();
  NullHandle nh;
  Handle* h = &nh;
  auto defaulted = f(nullptr, *h);
  ASSERT_TRUE(defaulted.ok());
  EXPECT_EQ(dynamic_cast<ArgsPlugin&>(*defaulted.value()).value, 3);
  MyArgs custom;
  custom.value = 9;
  auto withArgs = f(&custom, *h);
  ASSERT_TRUE(withArgs.ok());
  EXPECT_EQ(dynamic_cast<ArgsPlugin&>(*withArgs.value()).value, 9);
  OtherArgs wrong;
  EXPECT_FALSE(f(&wrong, *h).ok());
}

}  // namespace
}  // namespace ks::framework::runtime
