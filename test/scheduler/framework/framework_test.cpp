#include "pkg/scheduler/framework/runtime/framework.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "pkg/scheduler/metrics/metrics.h"
#include "test/scheduler/framework/fake_clock.h"
#include "test/scheduler/framework/test_pods.h"
#include "test/scheduler/metrics/scrape.h"

namespace ks::framework::runtime {
namespace {

using namespace std::chrono_literals;

constexpr const char* kQueueSort = "no-op-queue-sort-plugin";
constexpr const char* kBind = "bind-plugin";
constexpr const char* kTestPlugin = "test-plugin";
constexpr const char* kScorePlugin1 = "score-plugin-1";
constexpr const char* kScoreWithNormalize1 = "score-with-normalize-plugin-1";
constexpr const char* kScoreWithNormalize2 = "score-with-normalize-plugin-2";
constexpr const char* kNotImplementingScore = "plugin-not-implementing-score";
constexpr const char* kInjectReason = "injected status";

// What a TestPlugin returns at each point (upstream's injectedResult).
struct Injected final : config::PluginArgs {
  int64_t scoreRes = 0;
  Code scoreStatus = Code::Success;
  int64_t normalizeRes = 0;
  Code normalizeStatus = Code::Success;
  Code preFilterStatus = Code::Success;
  std::optional<std::set<std::string>> preFilterNodes;
  Code preFilterAddPodStatus = Code::Success;
  Code preFilterRemovePodStatus = Code::Success;
  Code filterStatus = Code::Success;
  Code postFilterStatus = Code::Success;
  Code preScoreStatus = Code::Success;
  Code reserveStatus = Code::Success;
  Code permitStatus = Code::Success;
  std::chrono::milliseconds permitTimeout{0};
  Code preBindPreFlightStatus = Code::Success;
  Code preBindStatus = Code::Success;
  Code bindStatus = Code::Success;
};

Status injected(Code c) {
  return c == Code::Success ? Status() : Status(c, kInjectReason);
}

// Every extension point; records calls in `calls` when given.
class TestPlugin : public PreEnqueuePlugin,
                   public PreFilterPlugin,
                   public PreFilterExtensions,
                   public FilterPlugin,
                   public PostFilterPlugin,
                   public PreScorePlugin,
                   public ScorePlugin,
                   public ScoreExtensions,
                   public ReservePlugin,
                   public PermitPlugin,
                   public PreBindPlugin,
                   public BindPlugin,
                   public PostBindPlugin {
 public:
  TestPlugin(std::string name, Injected inj, std::vector<std::string>* calls = nullptr)
      : name_(std::move(name)), inj_(std::move(inj)), calls_(calls) {}
  std::string_view name() const override { return name_; }
  Status preEnqueue(const PodInfo&) override { return Status(); }
  Status preFilter(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>, PreFilterResult& r) override {
    r.nodeNames = inj_.preFilterNodes;
    return injected(inj_.preFilterStatus);
  }
  PreFilterExtensions* preFilterExtensions() override { return this; }
  Status addPod(CycleState&, const PodInfo&, const PodInfo&, const NodeInfo&) override {
    return injected(inj_.preFilterAddPodStatus);
  }
  Status removePod(CycleState&, const PodInfo&, const PodInfo&, const NodeInfo&) override {
    return injected(inj_.preFilterRemovePodStatus);
  }
  Status filter(CycleState&, const PodInfo&, const NodeInfo&) override { return injected(inj_.filterStatus); }
  Status postFilter(CycleState&, const PodInfo&, const NodeToStatus&, PostFilterResult& r) override {
    r.nominatingInfo = NominatingInfo{"", NominatingMode::Noop};
    return injected(inj_.postFilterStatus);
  }
  Status preScore(CycleState&, const PodInfo&, std::span<const NodeInfoPtr>) override {
    return injected(inj_.preScoreStatus);
  }
  Status score(CycleState&, const PodInfo&, const NodeInfo&, int64_t& s) override {
    s = inj_.scoreRes;
    return injected(inj_.scoreStatus);
  }
  ScoreExtensions* scoreExtensions() override { return this; }
  Status normalizeScore(CycleState&, const PodInfo&, NodeScoreList& scores) override {
    for (auto& s : scores) s.score = inj_.normalizeRes;
    return injected(inj_.normalizeStatus);
  }
  Status reserve(CycleState&, const PodInfo&, const std::string&) override {
    record("reserve");
    return injected(inj_.reserveStatus);
  }
  void unreserve(CycleState&, const PodInfo&, const std::string&) override { record("unreserve"); }
  Status permit(CycleState&, const PodInfo&, const std::string&,
                std::chrono::milliseconds& timeout) override {
    timeout = inj_.permitTimeout;
    return injected(inj_.permitStatus);
  }
  Status preBindPreFlight(CycleState&, const PodInfo&, const std::string&, PreBindPreFlightResult&) override {
    return injected(inj_.preBindPreFlightStatus);
  }
  Status preBind(CycleState&, const PodInfo&, const std::string&, std::stop_token) override {
    record("preBind");
    return injected(inj_.preBindStatus);
  }
  Status bind(CycleState&, const PodInfo&, const std::string&) override {
    record("bind");
    return injected(inj_.bindStatus);
  }
  void postBind(CycleState&, const PodInfo&, const std::string&) override { record("postBind"); }

 private:
  void record(const std::string& what) {
    if (calls_ != nullptr) calls_->push_back(name_ + "." + what);
  }
  std::string name_;
  Injected inj_;
  std::vector<std::string>* calls_;
};

class ScoreOnly : public ScorePlugin {
 public:
  ScoreOnly(std::string name, Injected inj) : name_(std::move(name)), inj_(std::move(inj)) {}
  std::string_view name() const override { return name_; }
  Status score(CycleState&, const PodInfo&, const NodeInfo&, int64_t& s) override {
    s = inj_.scoreRes;
    return injected(inj_.scoreStatus);
  }
  ScoreExtensions* scoreExtensions() override { return nullptr; }

 private:
  std::string name_;
  Injected inj_;
};

class ScoreWithNormalize final : public ScoreOnly, public ScoreExtensions {
 public:
  using ScoreOnly::ScoreOnly;
  ScoreWithNormalize(std::string name, Injected inj) : ScoreOnly(std::move(name), inj), inj_(inj) {}
  ScoreExtensions* scoreExtensions() override { return this; }
  Status normalizeScore(CycleState&, const PodInfo&, NodeScoreList& scores) override {
    for (auto& s : scores) s.score = inj_.normalizeRes;
    return injected(inj_.normalizeStatus);
  }

 private:
  Injected inj_;
};

class FilterOnly final : public FilterPlugin {
 public:
  explicit FilterOnly(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Status filter(CycleState&, const PodInfo&, const NodeInfo&) override { return Status(); }

 private:
  std::string name_;
};

class QueueSortOnly final : public QueueSortPlugin {
 public:
  std::string_view name() const override { return kQueueSort; }
  bool less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }
};

class BindOnly final : public BindPlugin {
 public:
  explicit BindOnly(std::string name = kBind, Code code = Code::Success,
                    std::vector<std::string>* calls = nullptr)
      : name_(std::move(name)), code_(code), calls_(calls) {}
  std::string_view name() const override { return name_; }
  Status bind(CycleState&, const PodInfo&, const std::string&) override {
    if (calls_ != nullptr) calls_->push_back(name_ + ".bind");
    return injected(code_);
  }

 private:
  std::string name_;
  Code code_;
  std::vector<std::string>* calls_;
};

const Injected& argsOr(const config::PluginArgs* args) {
  static const Injected kNone;
  return args != nullptr ? dynamic_cast<const Injected&>(*args) : kNone;
}

// The registry used by most tests (upstream's registry + test plugins).
Registry testRegistry(std::vector<std::string>* calls = nullptr) {
  Registry r;
  auto add = [&](const std::string& name, PluginFactory f) {
    EXPECT_TRUE(r.registerPlugin(name, std::move(f)).ok());
  };
  add(kQueueSort, [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<QueueSortOnly>());
  });
  add(kBind, [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<BindOnly>());
  });
  for (std::string name : {kTestPlugin, "test-plugin-2", "test-plugin-3"}) {
    add(name, [name, calls](const config::PluginArgs* a, Handle&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(std::make_unique<TestPlugin>(name, argsOr(a), calls));
    });
  }
  add(kScorePlugin1, [](const config::PluginArgs* a, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<ScoreOnly>(kScorePlugin1, argsOr(a)));
  });
  for (std::string name : {kScoreWithNormalize1, kScoreWithNormalize2}) {
    add(name, [name](const config::PluginArgs* a, Handle&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(std::make_unique<ScoreWithNormalize>(name, argsOr(a)));
    });
  }
  add(kNotImplementingScore, [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<FilterOnly>(kNotImplementingScore));
  });
  return r;
}

config::PluginSet enabled(std::vector<config::Plugin> ps) {
  return config::PluginSet{std::move(ps), {}};
}

// A profile with the required queue sort and bind plugins.
config::KubeSchedulerProfile baseProfile() {
  config::KubeSchedulerProfile p;
  p.plugins.queueSort = enabled({{kQueueSort, 0}});
  p.plugins.bind = enabled({{kBind, 0}});
  return p;
}

class FakeLister final : public SharedLister, public NodeInfoLister, public StorageInfoLister {
 public:
  explicit FakeLister(std::vector<NodeInfoPtr> nodes) : nodes_(std::move(nodes)) {}
  const NodeInfoLister& nodeInfos() const override { return *this; }
  const StorageInfoLister& storageInfos() const override { return *this; }
  const std::vector<NodeInfoPtr>& list() const override { return nodes_; }
  const std::vector<NodeInfoPtr>& havePodsWithAffinityList() const override { return empty_; }
  const std::vector<NodeInfoPtr>& havePodsWithRequiredAntiAffinityList() const override { return empty_; }
  Result<NodeInfoPtr> get(std::string_view name) const override {
    for (const auto& n : nodes_) {
      if (n->nodeName() == name) return n;
    }
    return Error("nodeinfo not found for node name \"" + std::string(name) + "\"");
  }
  bool isPVCUsedByPods(std::string_view) const override { return false; }

 private:
  std::vector<NodeInfoPtr> nodes_;
  std::vector<NodeInfoPtr> empty_;
};

std::vector<NodeInfoPtr> makeNodes(std::initializer_list<const char*> names) {
  std::vector<NodeInfoPtr> out;
  for (const char* n : names) {
    auto ni = std::make_shared<NodeInfo>();
    ni->setNode(testing::makeNode(n));
    out.push_back(ni);
  }
  return out;
}

std::shared_ptr<const PodInfo> testPod(const std::string& uid = "pod-uid") {
  return PodInfo::create(testing::PodSpecBuilder("pod", uid).build());
}

std::unique_ptr<Framework> mustCreate(const Registry& r, const config::KubeSchedulerProfile& p,
                                      FrameworkOptions o = {}) {
  if (!o.parallelizer) o.parallelizer = std::make_shared<parallelize::Parallelizer>(2);
  auto f = Framework::create(r, p, std::move(o));
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message());
  return f.ok() ? std::move(f).value() : nullptr;
}

// ---- Construction ----

// Upstream TestNewFrameworkErrors (and the construction errors of NewFramework).
TEST(FrameworkTest, NewFrameworkErrors) {
  auto injectedArgs = std::make_shared<Injected>();
  struct Case {
    std::string name;
    std::function<void(config::KubeSchedulerProfile&)> edit;
    std::string wantErr;
  };
  const std::vector<Case> cases = {
      {"duplicate plugin config",
       [&](auto& p) {
         p.plugins.preFilter = enabled({{kTestPlugin, 0}});
         p.pluginConfig = {{kTestPlugin, injectedArgs}, {kTestPlugin, injectedArgs}};
       },
       "repeated config for plugin test-plugin"},
      {"unknown plugin",
       [](auto& p) {
         p.plugins.filter = enabled({{"unknown", 0}});
       },
       "FilterPlugin \"unknown\" does not exist"},
      {"plugin at a point it doesn't implement",
       [](auto& p) {
         p.plugins.score = enabled({{kNotImplementingScore, 0}});
       },
       "plugin \"plugin-not-implementing-score\" does not extend ScorePlugin plugin"},
      {"duplicate plugin in a point",
       [](auto& p) {
         p.plugins.filter = enabled({{kTestPlugin, 0}, {kTestPlugin, 0}});
       },
       "plugin \"test-plugin\" already registered as \"FilterPlugin\""},
      {"no queue sort", [](auto& p) { p.plugins.queueSort = {}; },
       "only one queue sort plugin required for profile with scheduler name \"default-scheduler\", but got "
       "0"},
      {"queue sort enabled twice via multiPoint",
       [](auto& p) {
         p.plugins.queueSort = {};
         p.plugins.multiPoint = enabled({{kQueueSort, 0}, {kQueueSort, 0}});
       },
       "plugin \"no-op-queue-sort-plugin\" already registered as \"QueueSortPlugin\""},
      {"no bind", [](auto& p) { p.plugins.bind = {}; },
       "at least one bind plugin is needed for profile with scheduler name \"default-scheduler\""},
      {"score weight overflow",
       [](auto& p) {
         p.plugins.score = enabled({{kScorePlugin1, INT32_MAX}, {kScoreWithNormalize1, INT32_MAX}});
       },
       ""},
      // The pod-group cycle's points (v1.37) are checked like the others, against the in-tree plugins that
      // implement them upstream.
      {"unknown plugin at PlacementScore",
       [](auto& p) {
         p.plugins.placementScore = enabled({{"unknown", 0}});
       },
       "PlacementScorePlugin \"unknown\" does not exist"},
      {"plugin at PodGroupPostFilter it doesn't implement",
       [](auto& p) {
         p.plugins.podGroupPostFilter = enabled({{kNotImplementingScore, 0}});
       },
       "plugin \"plugin-not-implementing-score\" does not extend PodGroupPostFilterPlugin plugin"},
      {"unknown plugin in multiPoint",
       [](auto& p) {
         p.plugins.multiPoint = enabled({{"unknown", 0}});
       },
       "PreFilterPlugin \"unknown\" does not exist"},
  };
  const Registry r = testRegistry();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    c.edit(p);
    FrameworkOptions o;
    o.parallelizer = std::make_shared<parallelize::Parallelizer>(1);
    auto f = Framework::create(r, p, std::move(o));
    if (c.wantErr.empty()) {
      // int32 weights times 100 can't overflow int64: construction succeeds, as upstream.
      EXPECT_TRUE(f.ok());
      continue;
    }
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(), c.wantErr);
  }
}

TEST(FrameworkTest, FactoryErrorIsWrapped) {
  Registry r = testRegistry();
  ASSERT_TRUE(
      r.registerPlugin("broken", [](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
         return Error("bad args");
       }).ok());
  auto p = baseProfile();
  p.plugins.filter = enabled({{"broken", 0}});
  auto f = Framework::create(r, p);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message(), "initializing plugin \"broken\": bad args");
}

TEST(FrameworkTest, OnlyNeededPluginsAreInstantiatedWithTheirArgs) {
  Registry r = testRegistry();
  int created = 0;
  ASSERT_TRUE(
      r.registerPlugin("counted", [&](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
         ++created;
         return std::unique_ptr<Plugin>(std::make_unique<FilterOnly>("counted"));
       }).ok());
  auto p = baseProfile();
  auto f = mustCreate(r, p);
  EXPECT_EQ(created, 0);
  p.plugins.filter = enabled({{"counted", 0}});
  p.plugins.multiPoint = enabled({{"counted", 0}});
  f = mustCreate(r, p);
  EXPECT_EQ(created, 1);
}

std::vector<std::string> names(const config::PluginSet& s) {
  std::vector<std::string> out;
  for (const auto& p : s.enabled) out.push_back(p.name);
  return out;
}

// Upstream TestNewFrameworkMultiPointExpansion.
TEST(FrameworkTest, MultiPointExpansion) {
  const Registry r = testRegistry();
  {
    SCOPED_TRACE("plugin expansion");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 5}, {kScorePlugin1, 0}, {kQueueSort, 0}, {kBind, 0}});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    auto got = f->listPlugins();
    EXPECT_EQ(names(got.queueSort), std::vector<std::string>{kQueueSort});
    EXPECT_EQ(names(got.preEnqueue), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.preFilter), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.filter), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.postFilter), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.preScore), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(got.score.enabled, (std::vector<config::Plugin>{{kTestPlugin, 5}, {kScorePlugin1, 1}}));
    EXPECT_EQ(names(got.reserve), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.permit), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.preBind), std::vector<std::string>{kTestPlugin});
    EXPECT_EQ(names(got.bind), (std::vector<std::string>{kTestPlugin, kBind}));
    EXPECT_EQ(names(got.postBind), std::vector<std::string>{kTestPlugin});
  }
  {
    SCOPED_TRACE("disable MultiPoint plugin at some extension points");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 0}, {kQueueSort, 0}, {kBind, 0}});
    p.plugins.preScore.disabled = {{kTestPlugin, 0}};
    p.plugins.score.disabled = {{kTestPlugin, 0}};
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    auto got = f->listPlugins();
    EXPECT_TRUE(got.preScore.enabled.empty());
    EXPECT_TRUE(got.score.enabled.empty());
    EXPECT_EQ(names(got.filter), std::vector<std::string>{kTestPlugin});
  }
  {
    SCOPED_TRACE("Reorder MultiPoint plugins (specific extension takes precedence)");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint =
        enabled({{kScoreWithNormalize1, 0}, {kTestPlugin, 0}, {kQueueSort, 0}, {kBind, 0}});
    p.plugins.score = enabled({{kTestPlugin, 3}});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->listPlugins().score.enabled,
              (std::vector<config::Plugin>{{kTestPlugin, 3}, {kScoreWithNormalize1, 1}}));
  }
  {
    SCOPED_TRACE(
        "Reorder MultiPoint plugins (specific extension only takes precedence when it exists in MultiPoint)");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 0}, {kQueueSort, 0}, {kBind, 0}});
    p.plugins.score = enabled({{kScoreWithNormalize1, 5}});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->listPlugins().score.enabled,
              (std::vector<config::Plugin>{{kTestPlugin, 1}, {kScoreWithNormalize1, 5}}));
  }
  {
    SCOPED_TRACE("Override MultiPoint plugins weights");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 5}, {kQueueSort, 0}, {kBind, 0}});
    p.plugins.score = enabled({{kTestPlugin, 3}});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->listPlugins().score.enabled, (std::vector<config::Plugin>{{kTestPlugin, 3}}));
  }
  {
    SCOPED_TRACE("disable and enable MultiPoint plugins with '*'");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kQueueSort, 0}, {kBind, 0}, {kScorePlugin1, 0}});
    p.plugins.score = config::PluginSet{{{kScoreWithNormalize1, 0}}, {{"*", 0}}};
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->listPlugins().score.enabled, (std::vector<config::Plugin>{{kScoreWithNormalize1, 1}}));
  }
  {
    SCOPED_TRACE("error: enable plugin twice in multipoint");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 0}, {kTestPlugin, 0}, {kQueueSort, 0}, {kBind, 0}});
    auto f = Framework::create(r, p);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message(), "plugin \"test-plugin\" already registered as \"PreFilterPlugin\"");
  }
  {
    SCOPED_TRACE("Expand multipoint & enable plugin at extension point");
    config::KubeSchedulerProfile p;
    p.plugins.multiPoint = enabled({{kTestPlugin, 0}, {kQueueSort, 0}, {kBind, 0}});
    p.plugins.filter = enabled({{"test-plugin-2", 0}, {kTestPlugin, 0}});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    // Overrides first (in their specific order), then multiPoint-only, then the remaining specific ones.
    EXPECT_EQ(names(f->listPlugins().filter), (std::vector<std::string>{kTestPlugin, "test-plugin-2"}));
    EXPECT_EQ(names(f->listPlugins().preFilter), (std::vector<std::string>{kTestPlugin}));
  }
}

// ---- Score ----

Injected scoreArgs(int64_t score, int64_t normalize = 0, Code scoreStatus = Code::Success,
                   Code normalizeStatus = Code::Success) {
  Injected i;
  i.scoreRes = score;
  i.normalizeRes = normalize;
  i.scoreStatus = scoreStatus;
  i.normalizeStatus = normalizeStatus;
  return i;
}

// Upstream TestRunScorePlugins.
TEST(FrameworkTest, RunScorePlugins) {
  struct Case {
    std::string name;
    std::vector<config::Plugin> score;
    std::vector<config::Plugin> multiPoint;
    std::map<std::string, Injected> args;
    std::vector<std::string> skipped;
    std::string wantErr;  // empty: success
    std::vector<PluginScore> want;
  };
  const std::vector<Case> cases = {
      {"no Score plugins", {}, {}, {}, {}, "", {}},
      {"single Score plugin",
       {{kScorePlugin1, 1}},
       {},
       {{kScorePlugin1, scoreArgs(1)}},
       {},
       "",
       {{kScorePlugin1, 1}}},
      {"single ScoreWithNormalize plugin",
       {{kScoreWithNormalize1, 1}},
       {},
       {{kScoreWithNormalize1, scoreArgs(10, 5)}},
       {},
       "",
       {{kScoreWithNormalize1, 5}}},
      {"3 Score plugins, 2 NormalizeScore plugins",
       {{kScorePlugin1, 1}, {kScoreWithNormalize1, 3}, {kScoreWithNormalize2, 4}},
       {},
       {{kScorePlugin1, scoreArgs(1)},
        {kScoreWithNormalize1, scoreArgs(3, 4)},
        {kScoreWithNormalize2, scoreArgs(4, 5)}},
       {},
       "",
       {{kScorePlugin1, 1}, {kScoreWithNormalize1, 12}, {kScoreWithNormalize2, 20}}},
      {"score fails",
       {{kScorePlugin1, 1}, {kScoreWithNormalize1, 1}},
       {},
       {{kScoreWithNormalize1, scoreArgs(0, 0, Code::Error)}},
       {},
       "running Score plugins: plugin \"score-with-normalize-plugin-1\" failed with: injected status",
       {}},
      {"normalize fails",
       {{kScorePlugin1, 1}, {kScoreWithNormalize1, 1}},
       {},
       {{kScoreWithNormalize1, scoreArgs(0, 0, Code::Success, Code::Error)}},
       {},
       "running Normalize on Score plugins: plugin \"score-with-normalize-plugin-1\" failed with: injected "
       "status",
       {}},
      {"Score plugin return score greater than MaxNodeScore",
       {{kScorePlugin1, 1}},
       {},
       {{kScorePlugin1, scoreArgs(kMaxNodeScore + 1)}},
       {},
       "applying score defaultWeights on Score plugins: plugin \"score-plugin-1\" returns an invalid score "
       "101, it "
       "should in the range of [0, 100] after normalizing",
       {}},
      {"Score plugin return score less than MinNodeScore",
       {{kScorePlugin1, 1}},
       {},
       {{kScorePlugin1, scoreArgs(kMinNodeScore - 1)}},
       {},
       "applying score defaultWeights on Score plugins: plugin \"score-plugin-1\" returns an invalid score "
       "-1, it "
       "should in the range of [0, 100] after normalizing",
       {}},
      {"ScoreWithNormalize plugin return score greater than MaxNodeScore",
       {{kScoreWithNormalize1, 1}},
       {},
       {{kScoreWithNormalize1, scoreArgs(0, kMaxNodeScore + 1)}},
       {},
       "applying score defaultWeights on Score plugins: plugin \"score-with-normalize-plugin-1\" returns an "
       "invalid "
       "score 101, it should in the range of [0, 100] after normalizing",
       {}},
      {"ScoreWithNormalize plugin return score less than MinNodeScore",
       {{kScoreWithNormalize1, 1}},
       {},
       {{kScoreWithNormalize1, scoreArgs(0, kMinNodeScore - 1)}},
       {},
       "applying score defaultWeights on Score plugins: plugin \"score-with-normalize-plugin-1\" returns an "
       "invalid "
       "score -1, it should in the range of [0, 100] after normalizing",
       {}},
      {"single Score plugin with MultiPointExpansion",
       {{kScorePlugin1, 3}},
       {{kScorePlugin1, 0}},
       {{kScorePlugin1, scoreArgs(1)}},
       {},
       "",
       {{kScorePlugin1, 3}}},
      {"one success plugin, one skip plugin",
       {{kScorePlugin1, 1}, {kScoreWithNormalize1, 1}},
       {},
       {{kScorePlugin1, scoreArgs(1)}, {kScoreWithNormalize1, scoreArgs(1, 1, Code::Error)}},
       {kScoreWithNormalize1},
       "",
       {{kScorePlugin1, 1}}},
      {"all plugins are skipped in prescore",
       {{kScorePlugin1, 1}},
       {},
       {{kScorePlugin1, scoreArgs(1, 0, Code::Error)}},
       {kScorePlugin1},
       "",
       {}},
  };
  const Registry r = testRegistry();
  auto nodes = makeNodes({"node1", "node2"});
  auto pod = testPod();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    p.plugins.score = enabled(c.score);
    auto mp = c.multiPoint;
    if (!mp.empty()) {
      mp.push_back({kQueueSort, 0});
      mp.push_back({kBind, 0});
      p.plugins.queueSort = {};
      p.plugins.bind = {};
      p.plugins.multiPoint = enabled(mp);
    }
    for (const auto& [name, a] : c.args) p.pluginConfig.push_back({name, std::make_shared<Injected>(a)});
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    CycleState state;
    PluginNameSet skip;
    for (const auto& s : c.skipped) skip.insert(s);
    state.setSkipScorePlugins(skip);
    std::vector<NodePluginScores> got;
    Status s = f->runScorePlugins(state, *pod, nodes, got);
    if (!c.wantErr.empty()) {
      EXPECT_EQ(s.code(), Code::Error);
      EXPECT_EQ(s.message(), c.wantErr);
      continue;
    }
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    ASSERT_EQ(got.size(), 2u);
    int64_t total = 0;
    for (const auto& ps : c.want) total += ps.score;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].name, nodes[i]->nodeName());
      EXPECT_EQ(got[i].scores, c.want);
      EXPECT_EQ(got[i].totalScore, total);
    }
  }
}

TEST(FrameworkTest, RunPreScoreSkipAndError) {
  const Registry r = testRegistry();
  auto p = baseProfile();
  Injected skip;
  skip.preScoreStatus = Code::Skip;
  Injected fail;
  fail.preScoreStatus = Code::Error;
  p.plugins.preScore = enabled({{kTestPlugin, 0}, {"test-plugin-2", 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(skip)}};
  auto f = mustCreate(r, p);
  CycleState state;
  EXPECT_TRUE(f->runPreScorePlugins(state, *testPod(), {}).isSuccess());
  EXPECT_EQ(state.skipScorePlugins().names(), std::vector<std::string>{kTestPlugin});

  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(fail)}};
  f = mustCreate(r, p);
  Status s = f->runPreScorePlugins(state, *testPod(), {});
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "running PreScore plugin \"test-plugin\": injected status");
}

// ---- PreFilter / Filter ----

Injected preFilter(Code c, std::optional<std::set<std::string>> nodes = std::nullopt) {
  Injected i;
  i.preFilterStatus = c;
  i.preFilterNodes = std::move(nodes);
  return i;
}

// Upstream TestPreFilterPlugins / TestRunPreFilterPlugins.
TEST(FrameworkTest, RunPreFilterPlugins) {
  struct Case {
    std::string name;
    std::vector<Injected> plugins;  // test-plugin, test-plugin-2, test-plugin-3
    PreFilterResult wantResult;
    Status wantStatus;
    std::vector<std::string> wantSkip;
  };
  using S = std::set<std::string>;
  const std::vector<Case> cases = {
      {"all PreFilter returned success",
       {preFilter(Code::Success), preFilter(Code::Success)},
       {},
       Status(),
       {}},
      {"one PreFilter plugin returned success, but another PreFilter plugin returned non-success",
       {preFilter(Code::Success), preFilter(Code::Error)},
       {},
       Status::error("running PreFilter plugin \"test-plugin-2\": injected status")
           .withPlugin("test-plugin-2"),
       {}},
      {"one PreFilter plugin returned Unschedulable, but another PreFilter plugin returned "
       "UnschedulableAndUnresolvable",
       {preFilter(Code::Unschedulable), preFilter(Code::UnschedulableAndUnresolvable)},
       {},
       Status(Code::UnschedulableAndUnresolvable, kInjectReason).withPlugin("test-plugin-2"),
       {}},
      {"all PreFilter plugins returned Unschedulable: the first is reported",
       {preFilter(Code::Unschedulable), preFilter(Code::Unschedulable)},
       {},
       Status(Code::Unschedulable, kInjectReason).withPlugin("test-plugin-2"),
       {}},
      {"all PreFilter plugins returned skip",
       {preFilter(Code::Skip), preFilter(Code::Skip)},
       {},
       Status(),
       {kTestPlugin, "test-plugin-2"}},
      {"one PreFilter plugin returned success, but another PreFilter plugin returned skip",
       {preFilter(Code::Success), preFilter(Code::Skip)},
       {},
       Status(),
       {"test-plugin-2"}},
      {"one PreFilter plugin returned skip, but another PreFilter plugin returned non-success",
       {preFilter(Code::Skip), preFilter(Code::Error)},
       {},
       Status::error("running PreFilter plugin \"test-plugin-2\": injected status")
           .withPlugin("test-plugin-2"),
       {kTestPlugin}},
      {"node sets are intersected",
       {preFilter(Code::Success, S{"a", "b"}), preFilter(Code::Success, S{"b", "c"})},
       PreFilterResult{S{"b"}},
       Status(),
       {}},
      {"empty intersection from one plugin",
       {preFilter(Code::Success, S{}), preFilter(Code::Success)},
       PreFilterResult{S{}},
       Status(Code::UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin test-plugin"),
       {}},
      {"empty intersection from several plugins",
       {preFilter(Code::Success, S{"a"}), preFilter(Code::Success, S{"b"}), preFilter(Code::Success, S{"c"})},
       PreFilterResult{S{}},
       Status(Code::UnschedulableAndUnresolvable,
              "node(s) didn't satisfy plugin(s) [test-plugin test-plugin-2] simultaneously"),
       {}},
  };
  const Registry r = testRegistry();
  const std::vector<std::string> pluginNames = {kTestPlugin, "test-plugin-2", "test-plugin-3"};
  FakeLister lister(makeNodes({"a", "b", "c"}));
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    for (std::size_t i = 0; i < c.plugins.size(); ++i) {
      p.plugins.preFilter.enabled.push_back({pluginNames[i], 0});
      p.pluginConfig.push_back({pluginNames[i], std::make_shared<Injected>(c.plugins[i])});
    }
    FrameworkOptions o;
    o.snapshotSharedLister = &lister;
    auto f = mustCreate(r, p, o);
    ASSERT_TRUE(f);
    CycleState state;
    PreFilterResult result;
    Status s = f->runPreFilterPlugins(state, *testPod(), result);
    EXPECT_EQ(s, c.wantStatus) << s.toString() << " want " << c.wantStatus.toString();
    EXPECT_EQ(result, c.wantResult);
    EXPECT_EQ(state.skipFilterPlugins().names(), c.wantSkip);
  }
}

// Upstream TestFilterPlugins.
TEST(FrameworkTest, RunFilterPlugins) {
  struct Case {
    std::string name;
    std::vector<Code> codes;
    Status want;
  };
  const std::vector<Case> cases = {
      {"SuccessFilter", {Code::Success}, Status()},
      {"ErrorFilter",
       {Code::Error},
       Status::error("running \"test-plugin\" filter plugin: injected status").withPlugin(kTestPlugin)},
      {"UnschedulableFilter",
       {Code::Unschedulable},
       Status(Code::Unschedulable, kInjectReason).withPlugin(kTestPlugin)},
      {"UnschedulableAndUnresolvableFilter",
       {Code::UnschedulableAndUnresolvable},
       Status(Code::UnschedulableAndUnresolvable, kInjectReason).withPlugin(kTestPlugin)},
      {"ErrorAndErrorFilters",
       {Code::Error, Code::Error},
       Status::error("running \"test-plugin\" filter plugin: injected status").withPlugin(kTestPlugin)},
      {"UnschedulableAndUnschedulableFilters",
       {Code::Unschedulable, Code::Unschedulable},
       Status(Code::Unschedulable, kInjectReason).withPlugin(kTestPlugin)},
      {"SuccessAndSuccessFilters", {Code::Success, Code::Success}, Status()},
      {"SuccessAndErrorFilters",
       {Code::Success, Code::Error},
       Status::error("running \"test-plugin-2\" filter plugin: injected status").withPlugin("test-plugin-2")},
      {"SuccessAndUnschedulableFilters",
       {Code::Success, Code::Unschedulable},
       Status(Code::Unschedulable, kInjectReason).withPlugin("test-plugin-2")},
      {"SkipFilter returned wrong code is an error",
       {Code::Skip},
       Status::error("running \"test-plugin\" filter plugin: ").withPlugin(kTestPlugin)},
  };
  const Registry r = testRegistry();
  const std::vector<std::string> pluginNames = {kTestPlugin, "test-plugin-2"};
  auto node = makeNodes({"node"})[0];
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    for (std::size_t i = 0; i < c.codes.size(); ++i) {
      Injected inj;
      inj.filterStatus = c.codes[i];
      p.plugins.filter.enabled.push_back({pluginNames[i], 0});
      p.pluginConfig.push_back({pluginNames[i], std::make_shared<Injected>(inj)});
    }
    auto f = mustCreate(r, p);
    ASSERT_TRUE(f);
    CycleState state;
    Status s = f->runFilterPlugins(state, *testPod(), *node);
    if (c.codes == std::vector<Code>{Code::Skip}) {
      // Skip from Filter: AsError of a Skip status is nil upstream, so the message is empty.
      EXPECT_EQ(s.code(), Code::Error);
      EXPECT_EQ(s.plugin(), kTestPlugin);
      continue;
    }
    EXPECT_EQ(s, c.want) << s.toString();
  }
}

TEST(FrameworkTest, FilterSkippedAfterPreFilterSkip) {
  const Registry r = testRegistry();
  auto p = baseProfile();
  Injected inj = preFilter(Code::Skip);
  inj.filterStatus = Code::Unschedulable;
  p.plugins.preFilter = enabled({{kTestPlugin, 0}});
  p.plugins.filter = enabled({{kTestPlugin, 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(inj)}};
  auto f = mustCreate(r, p);
  CycleState state;
  PreFilterResult result;
  EXPECT_TRUE(f->runPreFilterPlugins(state, *testPod(), result).isSuccess());
  auto node = makeNodes({"n"})[0];
  EXPECT_TRUE(f->runFilterPlugins(state, *testPod(), *node).isSuccess());
  // Extensions of a skipped plugin are skipped too.
  Injected failAdd = inj;
  failAdd.preFilterAddPodStatus = Code::Error;
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(failAdd)}};
  f = mustCreate(r, p);
  EXPECT_TRUE(f->runPreFilterExtensionAddPod(state, *testPod(), testPod("other"), *node).isSuccess());
  CycleState fresh;
  Status s = f->runPreFilterExtensionAddPod(fresh, *testPod(), testPod("other"), *node);
  EXPECT_EQ(s.message(), "running AddPod on PreFilter plugin \"test-plugin\": injected status");
}

// Upstream TestPostFilterPlugins.
TEST(FrameworkTest, RunPostFilterPlugins) {
  struct Case {
    std::string name;
    std::vector<Code> codes;
    Status want;
  };
  const std::vector<Case> cases = {
      {"a single plugin makes a Pod schedulable", {Code::Success}, Status()},
      {"plugin1 failed to make a Pod schedulable, followed by plugin2 which makes the Pod schedulable",
       {Code::Unschedulable, Code::Success},
       Status()},
      {"plugin1 makes a Pod schedulable, followed by plugin2 which cannot make the Pod schedulable",
       {Code::Success, Code::Unschedulable},
       Status()},
      {"plugin1 failed with UnschedulableAndUnresolvable",
       {Code::UnschedulableAndUnresolvable, Code::Success},
       Status(Code::UnschedulableAndUnresolvable, kInjectReason).withPlugin(kTestPlugin)},
      {"both plugins failed to make a Pod schedulable",
       {Code::Unschedulable, Code::Unschedulable},
       Status(Code::Unschedulable, std::vector<std::string>{kInjectReason, kInjectReason})
           .withPlugin(kTestPlugin)},
      {"plugin errors", {Code::Error}, Status::error(kInjectReason).withPlugin(kTestPlugin)},
  };
  const Registry r = testRegistry();
  const std::vector<std::string> pluginNames = {kTestPlugin, "test-plugin-2"};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    for (std::size_t i = 0; i < c.codes.size(); ++i) {
      Injected inj;
      inj.postFilterStatus = c.codes[i];
      p.plugins.postFilter.enabled.push_back({pluginNames[i], 0});
      p.pluginConfig.push_back({pluginNames[i], std::make_shared<Injected>(inj)});
    }
    auto f = mustCreate(r, p);
    CycleState state;
    PostFilterResult result;
    Status s = f->runPostFilterPlugins(state, *testPod(), NodeToStatus(), result);
    EXPECT_EQ(s, c.want) << s.toString();
  }
}

class FakeNominator final : public PodNominator {
 public:
  void addNominatedPod(const PodInfoPtr& pod, const NominatingInfo&) override { pods.push_back(pod); }
  void deleteNominatedPodIfExists(const api::Pod&) override {}
  void updateNominatedPod(const api::Pod&, const PodInfoPtr&) override {}
  std::vector<PodInfoPtr> nominatedPodsForNode(const std::string&) const override { return pods; }
  std::vector<PodInfoPtr> pods;
};

// A filter that fails when the node has more than `maxPods` pods.
class MaxPodsFilter final : public FilterPlugin {
 public:
  explicit MaxPodsFilter(std::size_t maxPods) : maxPods_(maxPods) {}
  std::string_view name() const override { return "max-pods"; }
  Status filter(CycleState&, const PodInfo&, const NodeInfo& n) override {
    ++calls;
    return n.pods().size() > maxPods_ ? Status(Code::Unschedulable, "too many pods") : Status();
  }
  int calls = 0;

 private:
  std::size_t maxPods_;
};

// Upstream TestRunFilterPluginsWithNominatedPods (shape).
TEST(FrameworkTest, RunFilterPluginsWithNominatedPods) {
  Registry r = testRegistry();
  MaxPodsFilter* filter = nullptr;
  ASSERT_TRUE(r.registerPlugin("max-pods",
                               [&](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
                                 auto p = std::make_unique<MaxPodsFilter>(0);
                                 filter = p.get();
                                 return std::unique_ptr<Plugin>(std::move(p));
                               })
                  .ok());
  auto p = baseProfile();
  p.plugins.filter = enabled({{"max-pods", 0}});
  FakeNominator nominator;
  FrameworkOptions o;
  o.podNominator = &nominator;
  auto f = mustCreate(r, p, o);
  auto node = makeNodes({"node1"})[0];
  auto pod = PodInfo::create(testing::PodSpecBuilder("p", "p").priority(10).build());
  CycleState state;
  // No nominated pods: one pass.
  EXPECT_TRUE(f->runFilterPluginsWithNominatedPods(state, *pod, *node).isSuccess());
  EXPECT_EQ(filter->calls, 1);
  // A lower-priority nominated pod is ignored.
  nominator.pods = {PodInfo::create(testing::PodSpecBuilder("low", "low").priority(1).build())};
  EXPECT_TRUE(f->runFilterPluginsWithNominatedPods(state, *pod, *node).isSuccess());
  EXPECT_EQ(filter->calls, 2);
  // A higher-priority nominated pod is added: the first pass fails.
  nominator.pods = {PodInfo::create(testing::PodSpecBuilder("high", "high").priority(100).build())};
  Status s = f->runFilterPluginsWithNominatedPods(state, *pod, *node);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "max-pods");
  EXPECT_EQ(filter->calls, 3);
  EXPECT_TRUE(node->pods().empty());  // the node itself is untouched
}

// ---- Reserve / Permit / Bind ----

// Upstream TestReservePlugins and Unreserve order.
TEST(FrameworkTest, ReserveAndUnreserveOrder) {
  std::vector<std::string> calls;
  const Registry r = testRegistry(&calls);
  auto p = baseProfile();
  p.plugins.reserve = enabled({{kTestPlugin, 0}, {"test-plugin-2", 0}, {"test-plugin-3", 0}});
  Injected fail;
  fail.reserveStatus = Code::Error;
  p.pluginConfig = {{"test-plugin-2", std::make_shared<Injected>(fail)}};
  auto f = mustCreate(r, p);
  CycleState state;
  Status s = f->runReservePluginsReserve(state, *testPod(), "node");
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "running Reserve plugin \"test-plugin-2\": injected status");
  f->runReservePluginsUnreserve(state, *testPod(), "node");
  EXPECT_EQ(calls, (std::vector<std::string>{"test-plugin.reserve", "test-plugin-2.reserve",
                                             "test-plugin-3.unreserve", "test-plugin-2.unreserve",
                                             "test-plugin.unreserve"}));

  Injected reject;
  reject.reserveStatus = Code::Unschedulable;
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(reject)}};
  f = mustCreate(r, p);
  s = f->runReservePluginsReserve(state, *testPod(), "node");
  EXPECT_EQ(s, Status(Code::Unschedulable, kInjectReason).withPlugin(kTestPlugin));
}

Injected permit(Code c, std::chrono::milliseconds timeout = 0ms) {
  Injected i;
  i.permitStatus = c;
  i.permitTimeout = timeout;
  return i;
}

// Upstream TestPermitPlugins.
TEST(FrameworkTest, RunPermitPlugins) {
  struct Case {
    std::string name;
    std::vector<Injected> plugins;
    Status want;
  };
  const std::vector<Case> cases = {
      {"NilPermitPlugin", {}, Status()},
      {"SuccessPermitPlugin", {permit(Code::Success)}, Status()},
      {"UnschedulablePermitPlugin",
       {permit(Code::Unschedulable)},
       Status(Code::Unschedulable, kInjectReason).withPlugin(kTestPlugin)},
      {"ErrorPermitPlugin",
       {permit(Code::Error)},
       Status::error("running Permit plugin \"test-plugin\": injected status").withPlugin(kTestPlugin)},
      {"UnschedulableAndUnresolvablePermitPlugin",
       {permit(Code::UnschedulableAndUnresolvable)},
       Status(Code::UnschedulableAndUnresolvable, kInjectReason).withPlugin(kTestPlugin)},
      {"WaitPermitPlugin",
       {permit(Code::Wait, 10ms)},
       Status(Code::Wait, "one or more plugins asked to wait and no plugin rejected pod \"pod\"")},
      {"SuccessSuccessPermitPlugin", {permit(Code::Success), permit(Code::Success)}, Status()},
      {"ErrorAndErrorPlugins",
       {permit(Code::Error), permit(Code::Error)},
       Status::error("running Permit plugin \"test-plugin\": injected status").withPlugin(kTestPlugin)},
      {"WaitThenReject",
       {permit(Code::Wait, 10ms), permit(Code::Unschedulable)},
       Status(Code::Unschedulable, kInjectReason).withPlugin("test-plugin-2")},
  };
  const Registry r = testRegistry();
  const std::vector<std::string> pluginNames = {kTestPlugin, "test-plugin-2"};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = baseProfile();
    for (std::size_t i = 0; i < c.plugins.size(); ++i) {
      p.plugins.permit.enabled.push_back({pluginNames[i], 0});
      p.pluginConfig.push_back({pluginNames[i], std::make_shared<Injected>(c.plugins[i])});
    }
    testing::FakeClock clock;
    FrameworkOptions o;
    o.clock = &clock;
    auto f = mustCreate(r, p, o);
    CycleState state;
    auto pod = testPod();
    Status s = f->runPermitPlugins(state, *pod, "node");
    EXPECT_EQ(s, c.want) << s.toString();
    EXPECT_EQ(f->willWaitOnPermit(pod->pod()), s.isWait());
  }
}

TEST(FrameworkTest, WaitOnPermitAllowRejectTimeout) {
  const Registry r = testRegistry();
  auto p = baseProfile();
  p.plugins.permit = enabled({{kTestPlugin, 0}, {"test-plugin-2", 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(permit(Code::Wait, 30min))},
                    {"test-plugin-2", std::make_shared<Injected>(permit(Code::Wait, 5s))}};
  testing::FakeClock clock;
  FrameworkOptions o;
  o.clock = &clock;
  auto f = mustCreate(r, p, o);
  CycleState state;

  // Allowed by both plugins.
  auto pod = testPod("allowed");
  EXPECT_TRUE(f->runPermitPlugins(state, *pod, "node").isWait());
  auto wp = f->getWaitingPod("allowed");
  ASSERT_NE(wp, nullptr);
  EXPECT_EQ(wp->pendingPlugins(), (std::vector<std::string>{kTestPlugin, "test-plugin-2"}));
  wp->allow(kTestPlugin);
  wp->allow("test-plugin-2");
  EXPECT_TRUE(f->waitOnPermit(pod->pod()).isSuccess());
  EXPECT_FALSE(f->willWaitOnPermit(pod->pod()));

  // Timed out by the shorter plugin; the 30 min timeout is capped at 15 min.
  pod = testPod("timeout");
  EXPECT_TRUE(f->runPermitPlugins(state, *pod, "node").isWait());
  f->getWaitingPod("timeout")->allow("test-plugin-2");
  clock.step(15min);
  Status s = f->waitOnPermit(pod->pod());
  EXPECT_EQ(s,
            Status(Code::Unschedulable, "rejected due to timeout after waiting 15m0s at plugin test-plugin")
                .withPlugin(kTestPlugin));

  // Deleted while waiting.
  pod = testPod("deleted");
  EXPECT_TRUE(f->runPermitPlugins(state, *pod, "node").isWait());
  int waiting = 0;
  f->iterateOverWaitingPods([&](WaitingPod&) { ++waiting; });
  EXPECT_EQ(waiting, 1);
  EXPECT_TRUE(f->rejectWaitingPod("deleted"));
  EXPECT_FALSE(f->rejectWaitingPod("unknown"));
  s = f->waitOnPermit(pod->pod());
  EXPECT_EQ(s, Status(Code::Unschedulable, "removed").withPlugin(""));
  EXPECT_EQ(f->getWaitingPod("deleted"), nullptr);
}

TEST(FrameworkTest, BindPreBindPostBind) {
  std::vector<std::string> calls;
  Registry r = testRegistry(&calls);
  ASSERT_TRUE(
      r.registerPlugin("bind-2", [&](const config::PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
         return std::unique_ptr<Plugin>(std::make_unique<BindOnly>("bind-2", Code::Success, &calls));
       }).ok());
  auto p = baseProfile();
  Injected skipBind;
  skipBind.bindStatus = Code::Skip;
  skipBind.preBindPreFlightStatus = Code::Skip;
  p.plugins.bind = enabled({{kTestPlugin, 0}, {"bind-2", 0}});
  p.plugins.preBind = enabled({{kTestPlugin, 0}, {"test-plugin-2", 0}});
  p.plugins.postBind = enabled({{kTestPlugin, 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(skipBind)}};
  auto f = mustCreate(r, p);
  CycleState state;
  auto pod = testPod();
  EXPECT_TRUE(f->runPreBindPreFlights(state, *pod, "node").isSuccess());
  EXPECT_EQ(state.skipPreBindPlugins().names(), std::vector<std::string>{kTestPlugin});
  EXPECT_TRUE(f->runPreBindPlugins(state, *pod, "node").isSuccess());
  EXPECT_TRUE(f->runBindPlugins(state, *pod, "node").isSuccess());
  f->runPostBindPlugins(state, *pod, "node");
  EXPECT_EQ(calls, (std::vector<std::string>{"test-plugin-2.preBind", "test-plugin.bind", "bind-2.bind",
                                             "test-plugin.postBind"}));

  // All preflights skip -> Skip; errors are wrapped.
  Injected allSkip;
  allSkip.preBindPreFlightStatus = Code::Skip;
  Injected preBindErr;
  preBindErr.preBindStatus = Code::Error;
  preBindErr.bindStatus = Code::Error;
  p.plugins.preBind = enabled({{kTestPlugin, 0}});
  p.plugins.bind = enabled({{kTestPlugin, 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(allSkip)}};
  f = mustCreate(r, p);
  CycleState st2;
  EXPECT_TRUE(f->runPreBindPreFlights(st2, *pod, "node").isSkip());
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(preBindErr)}};
  f = mustCreate(r, p);
  CycleState st3;
  EXPECT_EQ(f->runPreBindPlugins(st3, *pod, "node").message(),
            "running PreBind plugin \"test-plugin\": injected status");
  EXPECT_EQ(f->runBindPlugins(st3, *pod, "node").message(),
            "running Bind plugin \"test-plugin\": injected status");
}

// A PreBind plugin whose pre-flight and PreBind are scripted; PreBind may block until stopped.
class ScriptedPreBind final : public PreBindPlugin {
 public:
  struct Script {
    Code preFlight = Code::Success;
    bool allowParallel = false;
    Code preBind = Code::Success;
    // PreBind waits for its stop (then fails with "context canceled"), as VolumeBinding's wait does.
    bool blockUntilStopped = false;
  };
  ScriptedPreBind(std::string name, Script script, std::vector<std::string>* calls, std::mutex* mu)
      : name_(std::move(name)), script_(script), calls_(calls), mu_(mu) {}
  std::string_view name() const override { return name_; }
  Status preBindPreFlight(CycleState&, const PodInfo&, const std::string&, PreBindPreFlightResult& r) override {
    r.allowParallel = script_.allowParallel;
    return injected(script_.preFlight);
  }
  Status preBind(CycleState&, const PodInfo&, const std::string&, std::stop_token stop) override {
    if (calls_ != nullptr) {
      std::lock_guard lock(*mu_);
      calls_->push_back(name_);
    }
    if (script_.blockUntilStopped) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait(lock, stop, [] { return false; });
      return Status::error("context canceled");
    }
    return injected(script_.preBind);
  }

 private:
  std::string name_;
  Script script_;
  std::vector<std::string>* calls_;
  std::mutex* mu_;
};

// A framework whose PreBind plugins are `plugins`, in order.
std::unique_ptr<Framework> preBindFramework(const std::vector<std::pair<std::string, ScriptedPreBind::Script>>& plugins,
                                            std::vector<std::string>* calls = nullptr, std::mutex* mu = nullptr) {
  Registry r = testRegistry();
  auto p = baseProfile();
  for (const auto& [name, script] : plugins) {
    EXPECT_TRUE(r.registerPlugin(name, [name, script, calls, mu](const config::PluginArgs*, Handle&)
                                           -> Result<std::unique_ptr<Plugin>> {
                   return std::unique_ptr<Plugin>(std::make_unique<ScriptedPreBind>(name, script, calls, mu));
                 }).ok());
    p.plugins.preBind.enabled.push_back({name, 0});
  }
  return mustCreate(r, p);
}

// Upstream TestPreBindPlugins.
TEST(FrameworkTest, PreBindPlugins) {
  using S = ScriptedPreBind::Script;
  auto ok = S{};
  auto with = [](Code c) { return S{.preBind = c}; };
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, S>> plugins;
    Status want;
  };
  const std::string errTestPlugin = "running PreBind plugin \"TestPlugin\": injected status";
  const std::string errTestPlugin1 = "running PreBind plugin \"TestPlugin 1\": injected status";
  const std::vector<Case> cases = {
      {"NoPreBindPlugin", {}, Status()},
      {"SuccessPreBindPlugins", {{"TestPlugin", ok}}, Status()},
      {"UnschedulablePreBindPlugin", {{"TestPlugin", with(Code::Unschedulable)}},
       Status(Code::Unschedulable, "injected status").withPlugin("TestPlugin")},
      {"ErrorPreBindPlugin", {{"TestPlugin", with(Code::Error)}}, Status::error(errTestPlugin)},
      {"UnschedulableAndUnresolvablePreBindPlugin", {{"TestPlugin", with(Code::UnschedulableAndUnresolvable)}},
       Status(Code::UnschedulableAndUnresolvable, "injected status").withPlugin("TestPlugin")},
      {"SuccessErrorPreBindPlugins", {{"TestPlugin", ok}, {"TestPlugin 1", with(Code::Error)}},
       Status::error(errTestPlugin1)},
      {"ErrorSuccessPreBindPlugin", {{"TestPlugin", with(Code::Error)}, {"TestPlugin 1", ok}},
       Status::error(errTestPlugin)},
      {"SuccessSuccessPreBindPlugin", {{"TestPlugin", ok}, {"TestPlugin 1", ok}}, Status()},
      {"ErrorAndErrorPlugins", {{"TestPlugin", with(Code::Error)}, {"TestPlugin 1", with(Code::Error)}},
       Status::error(errTestPlugin)},
      {"UnschedulableAndSuccessPreBindPlugin", {{"TestPlugin", with(Code::Unschedulable)}, {"TestPlugin 1", ok}},
       Status(Code::Unschedulable, "injected status").withPlugin("TestPlugin")},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto f = preBindFramework(tc.plugins);
    ASSERT_NE(f, nullptr);
    CycleState state;
    Status got = f->runPreBindPlugins(state, *testPod(), "");
    EXPECT_EQ(got.code(), tc.want.code());
    EXPECT_EQ(got.message(), tc.want.message());
    EXPECT_EQ(got.plugin(), tc.want.plugin());
  }
}

// Upstream TestGetPreBindPluginGroups: adjacent parallel plugins form one group; skipped plugins drop
// out, and a skipped serial plugin still separates its parallel neighbours.
TEST(FrameworkTest, PreBindPluginGroups) {
  struct Case {
    std::string name;
    std::vector<std::string> plugins;
    std::vector<std::string> skipped;
    std::vector<std::string> parallel;
    std::vector<std::vector<std::string>> want;
  };
  const std::vector<Case> cases = {
      {"No plugins", {}, {}, {}, {}},
      {"Single plugin, not skipped, not parallel", {"p1"}, {}, {}, {{"p1"}}},
      {"Single plugin, skipped", {"p1"}, {"p1"}, {}, {}},
      {"Single plugin, parallel", {"p1"}, {}, {"p1"}, {{"p1"}}},
      {"Single plugin, parallel & skipped", {"p1"}, {"p1"}, {"p1"}, {}},
      {"Multiple plugins, consecutive serial", {"p1", "p2"}, {}, {}, {{"p1"}, {"p2"}}},
      {"Multiple plugins, consecutive parallel", {"p1", "p2"}, {}, {"p1", "p2"}, {{"p1", "p2"}}},
      {"Multiple plugins, mixed parallel and serial", {"p1", "p2", "p3", "p4"}, {}, {"p2", "p3"},
       {{"p1"}, {"p2", "p3"}, {"p4"}}},
      {"Parallel plugins separated by serial", {"p1", "p2", "p3"}, {}, {"p1", "p3"}, {{"p1"}, {"p2"}, {"p3"}}},
      {"Skipped plugins", {"p1", "p2", "p3"}, {"p2"}, {}, {{"p1"}, {"p3"}}},
      {"Parallel plugins with one skipped in between", {"p1", "p2", "p3"}, {"p2"}, {"p1", "p2", "p3"},
       {{"p1", "p3"}}},
      {"Parallel plugins with one serial & skipped in between", {"p1", "p2", "p3"}, {"p2"}, {"p1", "p3"},
       {{"p1"}, {"p3"}}},
      {"Complex mix", {"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}, {"p3", "p5"}, {"p2", "p4", "p5", "p6"},
       {{"p1"}, {"p2"}, {"p4", "p6"}, {"p7"}, {"p8"}}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<std::pair<std::string, ScriptedPreBind::Script>> plugins;
    for (const auto& n : tc.plugins) plugins.emplace_back(n, ScriptedPreBind::Script{});
    auto f = preBindFramework(plugins);
    ASSERT_NE(f, nullptr);
    CycleState state;
    PluginNameSet skipped;
    for (const auto& n : tc.skipped) skipped.insert(n);
    PluginNameSet parallel;
    for (const auto& n : tc.parallel) parallel.insert(n);
    state.setSkipPreBindPlugins(std::move(skipped));
    state.setParallelPreBindPlugins(std::move(parallel));
    EXPECT_EQ(f->preBindPluginGroupsForTest(state), tc.want);
  }
}

// The pre-flight records which plugins allowed parallel PreBind; a parallel group's failure stops its
// other members, which report it as their cause.
TEST(FrameworkTest, ParallelPreBindStopsTheGroupOnTheFirstFailure) {
  using S = ScriptedPreBind::Script;
  std::vector<std::string> calls;
  std::mutex mu;
  auto f = preBindFramework({{"serial", S{}},
                             {"waits", S{.allowParallel = true, .blockUntilStopped = true}},
                             {"fails", S{.allowParallel = true, .preBind = Code::Error}},
                             {"after", S{}}},
                            &calls, &mu);
  ASSERT_NE(f, nullptr);
  CycleState state;
  ASSERT_TRUE(f->runPreBindPreFlights(state, *testPod(), "node").isSuccess());
  EXPECT_EQ(state.parallelPreBindPlugins().names(), (std::vector<std::string>{"fails", "waits"}));
  EXPECT_EQ(f->preBindPluginGroupsForTest(state),
            (std::vector<std::vector<std::string>>{{"serial"}, {"waits", "fails"}, {"after"}}));
  Status s = f->runPreBindPlugins(state, *testPod(), "node");
  EXPECT_EQ(s.message(), "running PreBind plugin \"fails\": injected status");
  std::lock_guard lock(mu);
  EXPECT_EQ(calls.size(), 3u) << "the group after the failed one does not run";
  EXPECT_EQ(calls.front(), "serial");
}

// Preemption cancels a pod in PreBind: a plugin that gives up reports the preemption as its cause, as
// upstream's context.Cause does.
TEST(FrameworkTest, CancelledPreBindReportsTheCause) {
  using S = ScriptedPreBind::Script;
  auto f = preBindFramework({{"waits", S{.blockUntilStopped = true}}});
  ASSERT_NE(f, nullptr);
  auto inPreBind = f->addPodInPreBind("pod-uid");
  EXPECT_EQ(f->getPodInPreBind("pod-uid"), inPreBind);
  CycleState state;
  std::thread preemptor([&] { EXPECT_TRUE(f->getPodInPreBind("pod-uid")->cancelPod("preempted by DefaultPreemption")); });
  Status s = f->runPreBindPlugins(state, *testPod(), "node", &inPreBind->cancellation());
  preemptor.join();
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "running PreBind plugin \"waits\": preempted by DefaultPreemption");
  EXPECT_FALSE(inPreBind->markPrebound());
  f->removePodInPreBind("pod-uid");
  EXPECT_EQ(f->getPodInPreBind("pod-uid"), nullptr);
}

TEST(FrameworkTest, QueueSortAndEvents) {
  const Registry r = testRegistry();
  auto p = baseProfile();
  p.plugins.filter = enabled({{kTestPlugin, 0}});
  p.plugins.score = enabled({{kScorePlugin1, 0}});
  auto f = mustCreate(r, p);
  auto less = f->queueSortFunc();
  QueuedPodInfo a, b;
  EXPECT_FALSE(less(a, b));
  auto events = f->eventsToRegister();
  ASSERT_TRUE(events.ok());
  // Only the Filter plugin is asked; it doesn't implement EnqueueExtensions, so it gets every event.
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].pluginName, kTestPlugin);
  EXPECT_EQ((*events)[0].events.size(), unrollWildCardResource().size());
  EXPECT_EQ(f->profileName(), "default-scheduler");
  EXPECT_TRUE(f->hasFilterPlugins());
  EXPECT_TRUE(f->hasScorePlugins());
  EXPECT_FALSE(f->hasPostFilterPlugins());
  EXPECT_EQ(f->scorePluginWeight(kScorePlugin1), 1);
  EXPECT_TRUE(f->runPreEnqueuePlugins(*testPod()).isSuccess());
}

// The snapshot the scheduler gives its frameworks is also reachable as a MutableSharedLister (upstream
// WithMutableSnapshotLister / MutableSnapshotSharedLister()).
TEST(FrameworkTest, MutableSnapshotSharedLister) {
  class FakeMutableLister final : public MutableSharedLister {
   public:
    const NodeInfoLister& nodeInfos() const override { return lister_.nodeInfos(); }
    const StorageInfoLister& storageInfos() const override { return lister_.storageInfos(); }
    VoidResult startMutations() override { return {}; }
    VoidResult endMutations() override { return {}; }
    VoidResult addPod(PodInfoPtr, std::string_view) override { return {}; }
    VoidResult removePod(const api::Pod&, std::string_view) override { return {}; }

   private:
    FakeLister lister_{makeNodes({"a"})};
  };
  const Registry r = testRegistry();
  auto f = mustCreate(r, baseProfile());
  EXPECT_EQ(f->mutableSnapshotSharedLister(), nullptr);
  FakeMutableLister lister;
  FrameworkOptions o;
  o.snapshotSharedLister = &lister;
  o.mutableSnapshotSharedLister = &lister;
  f = mustCreate(r, baseProfile(), o);
  const Handle& h = *f;
  EXPECT_EQ(h.mutableSnapshotSharedLister(), &lister);
  EXPECT_EQ(h.snapshotSharedLister(), &lister);
  f->setMutableSnapshotSharedLister(nullptr);
  EXPECT_EQ(h.mutableSnapshotSharedLister(), nullptr);
}

// ---- Metrics ----

TEST(FrameworkTest, MetricsPerExtensionPointAndSampledPerPlugin) {
  using metrics::testing::sum;
  const Registry r = testRegistry();
  auto p = baseProfile();
  p.plugins.preFilter = enabled({{kTestPlugin, 0}, {"test-plugin-2", 0}});
  p.plugins.filter = enabled({{kTestPlugin, 0}});
  p.plugins.preScore = enabled({{kTestPlugin, 0}});
  p.plugins.score = enabled({{kTestPlugin, 1}});
  p.plugins.reserve = enabled({{kTestPlugin, 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>()},
                    {"test-plugin-2", std::make_shared<Injected>(preFilter(Code::Skip))}};
  metrics::Metrics m;
  FakeLister lister(makeNodes({"a", "b", "c"}));
  FrameworkOptions o;
  o.snapshotSharedLister = &lister;
  o.metrics = &m;
  auto f = mustCreate(r, p, o);
  ASSERT_TRUE(f);
  const auto& nodes = lister.list();
  auto pod = testPod();
  auto runCycle = [&](CycleState& state) {
    PreFilterResult pre;
    ASSERT_TRUE(f->runPreFilterPlugins(state, *pod, pre).isSuccess());
    for (const auto& n : nodes) ASSERT_TRUE(f->runFilterPlugins(state, *pod, *n).isSuccess());
    ASSERT_TRUE(f->runPreScorePlugins(state, *pod, nodes).isSuccess());
    std::vector<NodePluginScores> scores;
    ASSERT_TRUE(f->runScorePlugins(state, *pod, nodes, scores).isSuccess());
    ASSERT_TRUE(f->runReservePluginsReserve(state, *pod, "a").isSuccess());
    f->runReservePluginsUnreserve(state, *pod, "a");
  };

  // An unsampled cycle: extension points and evaluations, no per-plugin durations.
  CycleState state;
  runCycle(state);
  std::string text = m.scrape();
  const char* kExtension = "scheduler_framework_extension_point_duration_seconds_count";
  for (const char* point : {"PreFilter", "PreScore", "Score", "Reserve", "Unreserve"}) {
    EXPECT_EQ(sum(text, kExtension,
                  {{"extension_point", point}, {"status", "Success"}, {"profile", "default-scheduler"}}),
              1)
        << point;
  }
  EXPECT_EQ(sum(text, kExtension, {{"extension_point", "Filter"}}), 0)
      << "the scheduler times the Filter phase";
  const char* kEvaluation = "scheduler_plugin_evaluation_total";
  auto evaluations = [&](const char* plugin, const char* point) {
    return sum(text, kEvaluation,
               {{"plugin", plugin}, {"extension_point", point}, {"profile", "default-scheduler"}});
  };
  EXPECT_EQ(evaluations(kTestPlugin, "PreFilter"), 1);
  EXPECT_EQ(evaluations("test-plugin-2", "PreFilter"), 0) << "a Skip is not an evaluation";
  EXPECT_EQ(evaluations(kTestPlugin, "Filter"), 3);
  EXPECT_EQ(evaluations(kTestPlugin, "PreScore"), 1);
  EXPECT_EQ(evaluations(kTestPlugin, "Score"), 3);
  const char* kExecution = "scheduler_plugin_execution_duration_seconds_count";
  EXPECT_EQ(sum(text, kExecution), 0);

  // A sampled cycle: per-plugin durations as well.
  CycleState sampled;
  sampled.setRecordPluginMetrics(true);
  runCycle(sampled);
  text = m.scrape();
  auto executions = [&](const char* plugin, const char* point, const char* status = "Success") {
    return sum(text, kExecution, {{"plugin", plugin}, {"extension_point", point}, {"status", status}});
  };
  EXPECT_EQ(executions(kTestPlugin, "PreFilter"), 1);
  EXPECT_EQ(executions("test-plugin-2", "PreFilter", "Skip"), 1);
  EXPECT_EQ(executions(kTestPlugin, "Filter"), 3);
  EXPECT_EQ(executions(kTestPlugin, "PreScore"), 1);
  EXPECT_EQ(executions(kTestPlugin, "Score"), 3);
  EXPECT_EQ(executions(kTestPlugin, "ScoreExtensionNormalize"), 1);
  EXPECT_EQ(executions(kTestPlugin, "Reserve"), 1);
  EXPECT_EQ(executions(kTestPlugin, "Unreserve"), 1);
  EXPECT_EQ(sum(text, kExtension, {{"extension_point", "PreFilter"}}), 2);
}

TEST(FrameworkTest, MetricsStatusLabelsAndPermitWait) {
  using metrics::testing::sum;
  const Registry r = testRegistry();
  auto p = baseProfile();
  p.schedulerName = "my-profile";
  Injected inj = permit(Code::Wait, 5s);
  p.plugins.permit = enabled({{kTestPlugin, 0}});
  p.pluginConfig = {{kTestPlugin, std::make_shared<Injected>(inj)}};
  testing::FakeClock clock;
  metrics::Metrics m;
  FrameworkOptions o;
  o.clock = &clock;
  o.metrics = &m;
  auto f = mustCreate(r, p, o);
  ASSERT_TRUE(f);
  CycleState state;

  auto allowed = testPod("allowed");
  EXPECT_TRUE(f->runPermitPlugins(state, *allowed, "node").isWait());
  f->getWaitingPod("allowed")->allow(kTestPlugin);
  EXPECT_TRUE(f->waitOnPermit(allowed->pod()).isSuccess());
  auto rejected = testPod("rejected");
  EXPECT_TRUE(f->runPermitPlugins(state, *rejected, "node").isWait());
  EXPECT_TRUE(f->rejectWaitingPod("rejected"));
  EXPECT_FALSE(f->waitOnPermit(rejected->pod()).isSuccess());
  EXPECT_TRUE(f->waitOnPermit(testPod("not-waiting")->pod()).isSuccess());

  const std::string text = m.scrape();
  EXPECT_EQ(sum(text, "scheduler_permit_wait_duration_seconds_count", {{"result", "Success"}}), 1);
  EXPECT_EQ(sum(text, "scheduler_permit_wait_duration_seconds_count", {{"result", "Unschedulable"}}), 1);
  EXPECT_EQ(sum(text, "scheduler_permit_wait_duration_seconds_count"), 2) << "no wait, no observation";
  EXPECT_EQ(sum(text, "scheduler_framework_extension_point_duration_seconds_count",
                {{"extension_point", "Permit"}, {"status", "Wait"}, {"profile", "my-profile"}}),
            2);
}

TEST(FrameworkTest, MetricsPreEnqueueAndBindingPoints) {
  using metrics::testing::sum;
  const Registry r = testRegistry();
  auto p = baseProfile();
  p.plugins.preEnqueue = enabled({{kTestPlugin, 0}});
  p.plugins.preBind = enabled({{kTestPlugin, 0}});
  p.plugins.postBind = enabled({{kTestPlugin, 0}});
  metrics::Metrics m;
  FrameworkOptions o;
  o.metrics = &m;
  auto f = mustCreate(r, p, o);
  ASSERT_TRUE(f);
  auto pod = testPod();
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(f->runPreEnqueuePlugins(*pod).isSuccess());
  CycleState state;
  ASSERT_TRUE(f->runPreBindPreFlights(state, *pod, "node").isSuccess());
  ASSERT_TRUE(f->runPreBindPlugins(state, *pod, "node").isSuccess());
  ASSERT_TRUE(f->runBindPlugins(state, *pod, "node").isSuccess());
  f->runPostBindPlugins(state, *pod, "node");

  const std::string text = m.scrape();
  const char* kExtension = "scheduler_framework_extension_point_duration_seconds_count";
  EXPECT_EQ(sum(text, kExtension, {{"extension_point", "PreEnqueue"}, {"status", "Success"}}), 200);
  for (const char* point : {"PreBindPreFlight", "PreBind", "Bind", "PostBind"}) {
    EXPECT_EQ(sum(text, kExtension, {{"extension_point", point}, {"status", "Success"}}), 1) << point;
  }
  // PreEnqueue runs outside a cycle and samples its own calls (10%; 200 calls make 0 or 200 unlikely).
  const double sampled = sum(text, "scheduler_plugin_execution_duration_seconds_count",
                             {{"plugin", kTestPlugin}, {"extension_point", "PreEnqueue"}});
  EXPECT_GT(sampled, 0);
  EXPECT_LT(sampled, 80);
}

}  // namespace
}  // namespace ks::framework::runtime
