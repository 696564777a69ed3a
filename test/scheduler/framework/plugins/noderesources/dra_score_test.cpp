// Scoring extended resources backed by a DeviceClass (DRAExtendedResource), upstream v1.37.2:
//   - resource_allocation_test.go TestCalculateResourceAllocatableRequest (all 9 cases);
//   - fit_test.go TestFitScore's two "LeastAllocated with Extended resources" cases;
//   - balanced_allocation_test.go TestNodeResourcesBalancedAllocation's two "include DRA resource" cases;
//   - resource_allocation_test.go TestNodeMatchCaching / TestNodeMatchesCacheHit as what they check of node
//     matching (slice- and device-level selection); their cache bookkeeping and TestDeviceMatchCaching test
//     upstream's cross-cycle caches, which this port does not have (DRAPreScoreState is per cycle).
// Plus our own: the slice index (all-nodes, selector and name-less slices), class selectors that fail,
// a device plugin's allocatable winning over DRA, the gather error in PreScore and Score, the feature off,
// and the cross-cycle cache of class matches.
// As upstream's newTestDRAManager, the objects are served by a DefaultDRAManager over informers (here on
// the in-memory API).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.h"
#include "pkg/scheduler/framework/plugins/noderesources/fit.h"
#include "test/scheduler/framework/plugins/noderesources/test_util.h"
#include "test/support/wrappers.h"

namespace ks::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

const std::string kExtendedResourceName = "extended.resource.dra.io/something";
const std::string kDeviceClassName = "device-class-name";
const std::string kDriverName = "test-driver";
const std::string kImplicitResource = std::string(framework::kResourceDeviceClassPrefix) + kDeviceClassName;

api::DeviceClass deviceClass(std::optional<std::string> extendedResourceName = kExtendedResourceName,
                             std::vector<std::string> celSelectors = {}) {
  api::DeviceClass c;
  c.metadata.name = kDeviceClassName;
  c.spec.extendedResourceName = std::move(extendedResourceName);
  for (auto& e : celSelectors) c.spec.selectors.push_back(api::DeviceSelector{api::CELDeviceSelector{e}});
  return c;
}

// st.MakeResourceSlice(node, driver).Devices(names...): pool and slice named after the node.
api::ResourceSlice slice(const std::string& node, const std::vector<std::string>& devices,
                         const std::string& driver = kDriverName) {
  api::ResourceSlice s;
  s.metadata.name = node + "-" + driver;
  s.spec.nodeName = node;
  s.spec.pool.name = node;
  s.spec.pool.resourceSliceCount = 1;
  s.spec.driver = driver;
  for (const auto& d : devices) s.spec.devices.push_back(api::Device{.name = d});
  return s;
}

// A claim (of the class) allocated `device` of `pool`, shared under `shareID` when given.
api::ResourceClaim allocatedClaim(const std::string& name, const std::string& pool, const std::string& device,
                                  std::optional<std::string> shareID = std::nullopt) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = name;
  api::DeviceRequestAllocationResult r;
  r.request = "req-1";
  r.driver = kDriverName;
  r.pool = pool;
  r.device = device;
  r.shareID = std::move(shareID);
  c.status.allocation.emplace();
  c.status.allocation->devices.results.push_back(std::move(r));
  return c;
}

api::NodeSelector zoneSelector(const std::string& zone) {
  api::NodeSelector s;
  api::NodeSelectorTerm t;
  t.matchExpressions.push_back(api::NodeSelectorRequirement{"zone", "In", {zone}});
  s.nodeSelectorTerms.push_back(std::move(t));
  return s;
}

using DRAObject = std::variant<api::DeviceClass, api::ResourceSlice, api::ResourceClaim>;

// upstream newTestDRAManager: the objects in an in-memory API, a DefaultDRAManager (consumable capacity
// on, as v1.37's default) over synced informers.
class TestDRAManager {
 public:
  explicit TestDRAManager(const std::vector<DRAObject>& objects) : factory_(client_) {
    size_t classes = 0;
    for (const auto& o : objects) {
      std::visit([&](const auto& obj) { EXPECT_TRUE(client_.create(obj).ok()); }, o);
      classes += std::holds_alternative<api::DeviceClass>(o) ? 1 : 0;
    }
    manager_ = std::make_unique<dynamicresources::DefaultDRAManager>(factory_, /*enableConsumableCapacity=*/true);
    factory_.start();
    EXPECT_TRUE(factory_.waitForCacheSync(std::chrono::seconds(30)));
    // The class resolver learns classes from the class informer's handler.
    for (int i = 0; i < 1000 && classes > 0 && resolver()->getDeviceClass(kImplicitResource) == nullptr; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~TestDRAManager() { factory_.stop(); }

  framework::SharedDRAManager* manager() { return manager_.get(); }
  client::MemoryClient& client() { return client_; }
  const framework::DeviceClassResolver* resolver() const { return manager_->deviceClassResolver(); }

 private:
  client::MemoryClient client_;
  informer::SharedInformerFactory factory_;
  std::unique_ptr<dynamicresources::DefaultDRAManager> manager_;
};

// ---- upstream TestCalculateResourceAllocatableRequest ----

struct AllocatableCase {
  std::string name;
  bool enableDRAExtendedResource;
  api::NodePtr node;
  std::string resource;
  std::vector<DRAObject> objects;
  int64_t wantAllocatable;
  int64_t wantAllocated;
};

std::pair<int64_t, int64_t> allocatableRequest(const AllocatableCase& tc) {
  TestDRAManager dra(tc.objects);
  ResourceAllocationScorer scorer("test", ScoringStrategyType::LeastAllocated, {{tc.resource, 1}}, {});
  std::shared_ptr<const DRAPreScoreState> state;
  if (tc.enableDRAExtendedResource) {
    scorer.enableDRAExtendedResource(dra.manager(), dra.resolver());
    auto s = scorer.draPreScoreState();
    EXPECT_TRUE(s.ok()) << s.error().message();
    if (s.ok()) state = *s;
  }
  framework::NodeInfo nodeInfo;
  nodeInfo.setNode(tc.node);
  return scorer.allocatableRequest(nodeInfo, 0, state.get());
}

TEST(DRAScoreTest, CalculateResourceAllocatableRequest) {
  const std::string nodeName = "resource-node";
  const auto node = [&] { return MakeNode().name(nodeName); };
  // device-1 on this node, device-2 on another, device-3 by the node's zone; all three pass the class's
  // selector, which a device outside the slice's driver or model would fail.
  api::ResourceSlice perDevice;
  perDevice.metadata.name = "per-device-slice";
  perDevice.spec.driver = kDriverName;
  perDevice.spec.pool = {"per-device-pool", 0, 1};
  perDevice.spec.perDeviceNodeSelection = true;
  auto gpu = [](std::string name, std::string model, const char* memory) {
    api::Device d;
    d.name = std::move(name);
    d.attributes["model"] = api::DeviceAttribute{.stringValue = std::move(model)};
    d.capacity["memory"] = api::DeviceCapacity{api::Quantity::parse(memory).value()};
    return d;
  };
  perDevice.spec.devices.push_back(gpu("device-1", "SOME-XYZ", "16Gi"));
  perDevice.spec.devices.back().nodeName = nodeName;
  perDevice.spec.devices.push_back(gpu("device-2", "SOME-ZYX", "12Gi"));
  perDevice.spec.devices.back().nodeName = "other-node";
  perDevice.spec.devices.push_back(gpu("device-3", "SOME-XZY", "24Gi"));
  perDevice.spec.devices.back().nodeSelector = zoneSelector("us-east-1a");

  const std::vector<AllocatableCase> cases = {
      {"device-plugin-resource-feature-disabled", false,
       node().capacity({{kExtendedResourceName, "4"}}).ptr(), kExtendedResourceName, {}, 4, 0},
      {"device-plugin-resource-feature-enabled", true, node().capacity({{kExtendedResourceName, "4"}}).ptr(),
       kExtendedResourceName, {}, 4, 0},
      {"DRA-backed-resource-explicit", true, node().ptr(), kExtendedResourceName,
       {deviceClass(), slice(nodeName, {"device-1"})}, 1, 0},
      {"DRA-backed-resource-implicit", true, node().ptr(), kImplicitResource,
       {deviceClass(std::nullopt), slice(nodeName, {"device-1"})}, 1, 0},
      {"DRA-backed-resource-no-slices", true, node().ptr(), kExtendedResourceName, {deviceClass()}, 0, 0},
      {"DRA-backed-resource-with-allocated-device", true, node().ptr(), kExtendedResourceName,
       {deviceClass(), slice(nodeName, {"device-1", "device-2"}), allocatedClaim("test-claim", nodeName, "device-1")},
       2, 1},
      {"DRA-backed-resource-with-shared-device-allocation", true, node().ptr(), kExtendedResourceName,
       {deviceClass(), slice(nodeName, {"device-1", "device-2"}),
        allocatedClaim("test-claim", nodeName, "device-1", "share-123")},
       2, 1},
      {"DRA-backed-resource-multiple-devices-mixed-allocation", true, node().ptr(), kExtendedResourceName,
       {deviceClass(), slice(nodeName, {"device-1", "device-2", "device-3"}),
        allocatedClaim("test-claim-1", nodeName, "device-1"),
        allocatedClaim("test-claim-2", nodeName, "device-2", "share-456")},
       3, 2},
      {"DRA-backed-resource-with-per-device-node-selection", true, node().label("zone", "us-east-1a").ptr(),
       kExtendedResourceName,
       {deviceClass(kExtendedResourceName,
                    {R"(device.driver == "test-driver" && device.capacity["test-driver"].memory.compareTo(quantity("8Gi")) >= 0 && device.attributes["test-driver"].model.startsWith("SOME-"))"}),
        perDevice, allocatedClaim("test-claim", "per-device-pool", "device-1")},
       2, 1},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(allocatableRequest(tc), (std::pair<int64_t, int64_t>{tc.wantAllocatable, tc.wantAllocated}));
  }
}

// ---- upstream TestNodeMatchCaching / TestNodeMatchesCacheHit, through slice selection ----

TEST(DRAScoreTest, SliceAndDeviceNodeSelection) {
  const api::NodePtr node =
      MakeNode().name("test-node-1").label("zone", "us-east-1a").label("instance.type", "gpu-xlarge").ptr();
  auto selected = [&](api::ResourceSlice s) {
    AllocatableCase tc{"", true, node, kExtendedResourceName, {deviceClass(), std::move(s)}, 0, 0};
    return allocatableRequest(tc).first;
  };
  // Slice level: exact node name, another node's name, all nodes, a matching and a failing selector; a
  // slice naming nothing counts everywhere (as upstream).
  EXPECT_EQ(selected(slice("test-node-1", {"a", "b"})), 2);
  EXPECT_EQ(selected(slice("different-node", {"a"})), 0);
  auto all = slice("x", {"a"});
  all.spec.nodeName.reset();
  all.spec.allNodes = true;
  EXPECT_EQ(selected(all), 1);
  auto bySelector = slice("x", {"a", "b", "c"});
  bySelector.spec.nodeName.reset();
  bySelector.spec.nodeSelector = zoneSelector("us-east-1a");
  EXPECT_EQ(selected(bySelector), 3);
  bySelector.spec.nodeSelector = zoneSelector("us-west-2a");
  EXPECT_EQ(selected(bySelector), 0);
  auto nothing = slice("x", {"a"});
  nothing.spec.nodeName.reset();
  EXPECT_EQ(selected(nothing), 1);
  // Device level: all nodes and a selector count, a device with no selection does not.
  auto perDevice = slice("x", {"a", "b", "c", "d"});
  perDevice.spec.nodeName.reset();
  perDevice.spec.perDeviceNodeSelection = true;
  perDevice.spec.devices[0].allNodes = true;
  perDevice.spec.devices[1].nodeSelector = zoneSelector("us-east-1a");
  perDevice.spec.devices[2].nodeSelector = zoneSelector("us-west-2a");
  EXPECT_EQ(selected(perDevice), 2);
  // A selector that does not parse makes the whole resource (0, 0).
  bySelector.spec.nodeSelector->nodeSelectorTerms[0].matchExpressions[0].op = "Bogus";
  EXPECT_EQ(selected(bySelector), 0);
}

// ---- ours ----

TEST(DRAScoreTest, ClassSelectorsAndDevicePluginPrecedence) {
  const api::NodePtr plain = MakeNode().name("n1").ptr();
  auto withClass = [&](api::DeviceClass c, api::NodePtr node = nullptr) {
    AllocatableCase tc{"", true, node ? node : plain, kExtendedResourceName,
                       {std::move(c), slice("n1", {"a", "b"}, "other-driver"), slice("n1", {"c"})}, 0, 0};
    return allocatableRequest(tc);
  };
  EXPECT_EQ(withClass(deviceClass()), (std::pair<int64_t, int64_t>{3, 0}));
  EXPECT_EQ(withClass(deviceClass(kExtendedResourceName, {R"(device.driver == "test-driver")"})),
            (std::pair<int64_t, int64_t>{1, 0}));
  // Every selector must match; upstream's scorer gives no allowMultipleAllocations to CEL (false).
  EXPECT_EQ(withClass(deviceClass(kExtendedResourceName, {"true", "device.allowMultipleAllocations"})),
            (std::pair<int64_t, int64_t>{0, 0}));
  // A runtime error and a compile error drop the resource from the score.
  EXPECT_EQ(withClass(deviceClass(kExtendedResourceName, {R"(device.attributes["x"].missing)"})),
            (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(withClass(deviceClass(kExtendedResourceName, {"device.("})), (std::pair<int64_t, int64_t>{0, 0}));
  // A node whose allocatable has the resource is scored from its allocatable.
  EXPECT_EQ(withClass(deviceClass(), MakeNode().name("n1").capacity({{kExtendedResourceName, "7"}}).ptr()),
            (std::pair<int64_t, int64_t>{7, 0}));
  // Other names than extended ones are not looked up: no DRA data at all.
  TestDRAManager dra({deviceClass()});
  ResourceAllocationScorer scorer("test", ScoringStrategyType::LeastAllocated, {{"cpu", 1}, {"memory", 1}}, {});
  scorer.enableDRAExtendedResource(dra.manager(), dra.resolver());
  auto state = scorer.draPreScoreState();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, nullptr);
}

// Runs PreScore (when asked; it must succeed) and Score on every node, returning the scores in node order.
template <class Plugin>
std::vector<int64_t> scoreNodes(Plugin& p, const api::Pod& pod, const std::vector<api::NodePtr>& nodes,
                                const std::vector<api::PodPtr>& existing, bool runPreScore) {
  auto lister = plugintesting::FakeSharedLister::create(existing, nodes);
  framework::CycleState state;
  auto pi = plugintesting::podInfo(pod);
  if (runPreScore) {
    auto status = p.preScore(state, *pi, plugintesting::buildNodeInfos(nodes));
    EXPECT_TRUE(status.isSuccess()) << status.toString();
  }
  std::vector<int64_t> got;
  for (const auto& n : nodes) {
    int64_t score = -1;
    auto status = p.score(state, *pi, **lister->get(n->metadata.name), score);
    EXPECT_TRUE(status.isSuccess()) << status.toString();
    got.push_back(score);
  }
  return got;
}

// ---- upstream TestFitScore's DRA cases ----

TEST(DRAScoreTest, FitLeastAllocatedWithExtendedResources) {
  TestDRAManager dra({deviceClass(), slice("node1", {"device-1", "device-2", "device-3"}),
                      slice("node2", {"device-1", "device-2"})});
  const std::vector<api::NodePtr> nodes = {MakeNode().name("node1").ptr(), MakeNode().name("node2").ptr()};
  const api::Pod pod = MakePod().req({{kExtendedResourceName, "1"}}).obj();
  config::NodeResourcesFitArgs args;
  args.scoringStrategy.type = "LeastAllocated";
  args.scoringStrategy.resources = {{kExtendedResourceName, 1}};
  Features features;
  features.enableDRAExtendedResource = true;
  for (bool runPreScore : {true, false}) {
    SCOPED_TRACE(runPreScore ? "with PreScore" : "if PreScore is not called");
    auto p = Fit::create(args, features, dra.resolver(), dra.manager());
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_EQ(scoreNodes(**p, pod, nodes, {}, runPreScore), (std::vector<int64_t>{66, 50}));
  }
}

// ---- upstream TestNodeResourcesBalancedAllocation's DRA cases ----

TEST(DRAScoreTest, BalancedAllocationIncludesDRAResource) {
  // node1: cpu 3000/3500, memory 0, DRA 0 -> 1 of 8; S 60 -> 62, score 76.
  // node2: cpu 3000/3500, memory 5000/40000, DRA nothing there; S 63 -> 63, score 75.
  TestDRAManager dra({deviceClass(), slice("node1", {"device-1", "device-2", "device-3", "device-4", "device-5",
                                                     "device-6", "device-7", "device-8"})});
  const std::vector<api::NodePtr> nodes = {makeNode("node1", 3500, 40000), makeNode("node2", 3500, 40000)};
  const std::vector<api::PodPtr> existing = {
      MakePod().node("node1").req({{"cpu", "1000m"}}).req({{"cpu", "2000m"}}).ptr(),
      MakePod().node("node2").req({{"cpu", "1000m"}, {"memory", "2000"}}).req({{"cpu", "2000m"}, {"memory", "3000"}}).ptr()};
  const api::Pod pod = MakePod().req({{kExtendedResourceName, "1"}}).obj();
  config::NodeResourcesBalancedAllocationArgs args;
  args.resources = {{"cpu", 1}, {"memory", 1}, {kExtendedResourceName, 1}};
  const Features features{.enableInPlacePodVerticalScaling = false,
                          .enableSidecarContainers = false,
                          .enableSchedulingQueueHint = false,
                          .enablePodLevelResources = false,
                          .enableInPlacePodLevelResourcesVerticalScaling = false,
                          .enableDRAExtendedResource = true};
  for (bool runPreScore : {true, false}) {
    SCOPED_TRACE(runPreScore ? "with PreScore" : "if PreScore not called");
    auto p = BalancedAllocation::create(args, features, dra.resolver(), dra.manager());
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_EQ(scoreNodes(**p, pod, nodes, existing, runPreScore), (std::vector<int64_t>{76, 75}));
  }
}

// A manager whose claim tracker is caught in a concurrent modification (upstream's GatherAllocatedState
// error, which the scorers do not retry).
class ConflictingClaims final : public framework::ResourceClaimTracker {
 public:
  Result<framework::ResourceClaimPtr> get(const std::string&, const std::string&) const override {
    return Error("not found");
  }
  std::vector<framework::ResourceClaimPtr> list() const override { return {}; }
  Result<std::set<dra::structured::DeviceID>> listAllAllocatedDevices() const override { return conflict(); }
  Result<dra::structured::AllocatedState> gatherAllocatedState() const override { return conflict(); }
  bool claimHasPendingAllocation(const std::string&) const override { return false; }
  Result<void> signalClaimPendingAllocation(const std::string&, framework::ResourceClaimPtr) override {
    return {};
  }
  bool removeClaimPendingAllocation(const std::string&) override { return false; }
  Result<void> assumeClaimAfterAPICall(framework::ResourceClaimPtr) override { return {}; }
  void assumedClaimRestore(const std::string&, const std::string&) override {}

 private:
  static Error conflict() { return Error(std::string(framework::kConcurrentModification)); }
};

class ConflictingDRAManager final : public framework::SharedDRAManager {
 public:
  explicit ConflictingDRAManager(framework::SharedDRAManager& inner) : inner_(inner) {}
  framework::ResourceClaimTracker& resourceClaims() override { return claims_; }
  const framework::ResourceSliceLister& resourceSlices() const override { return inner_.resourceSlices(); }
  std::shared_ptr<const framework::DeviceClassLister> deviceClasses() const override {
    return inner_.deviceClasses();
  }
  const framework::DeviceClassResolver* deviceClassResolver() const override {
    return inner_.deviceClassResolver();
  }

 private:
  framework::SharedDRAManager& inner_;
  ConflictingClaims claims_;
};

TEST(DRAScoreTest, GatherErrorFailsPreScoreAndScore) {
  TestDRAManager dra({deviceClass(), slice("node1", {"device-1"})});
  ConflictingDRAManager conflicting(*dra.manager());
  const std::vector<api::NodePtr> nodes = {MakeNode().name("node1").ptr()};
  auto lister = plugintesting::FakeSharedLister::create({}, nodes);
  auto pi = plugintesting::podInfo(MakePod().req({{kExtendedResourceName, "1"}}).obj());
  config::NodeResourcesFitArgs fitArgs;
  fitArgs.scoringStrategy.resources = {{"cpu", 1}, {kExtendedResourceName, 1}};
  config::NodeResourcesBalancedAllocationArgs baArgs;
  baArgs.resources = fitArgs.scoringStrategy.resources;
  auto fit = Fit::create(fitArgs, {}, conflicting.deviceClassResolver(), &conflicting);
  auto ba = BalancedAllocation::create(baArgs, {}, conflicting.deviceClassResolver(), &conflicting);
  ASSERT_TRUE(fit.ok() && ba.ok());
  for (auto* p : std::initializer_list<framework::ScorePlugin*>{fit->get(), ba->get()}) {
    SCOPED_TRACE(p->name());
    framework::CycleState state;
    auto status = dynamic_cast<framework::PreScorePlugin*>(p)->preScore(state, *pi,
                                                                         plugintesting::buildNodeInfos(nodes));
    EXPECT_EQ(status.code(), Code::Error);
    EXPECT_EQ(status.message(), framework::kConcurrentModification);
    int64_t score = -1;
    status = p->score(state, *pi, **lister->get("node1"), score);
    EXPECT_EQ(status.code(), Code::Error);
    EXPECT_EQ(status.message(), framework::kConcurrentModification);
  }
  // Scoring cpu only, nothing is gathered.
  fitArgs.scoringStrategy.resources = {{"cpu", 1}};
  fit = Fit::create(fitArgs, {}, conflicting.deviceClassResolver(), &conflicting);
  ASSERT_TRUE(fit.ok());
  framework::CycleState state;
  EXPECT_TRUE((*fit)->preScore(state, *pi, plugintesting::buildNodeInfos(nodes)).isSuccess());
}

// Class matches are kept across cycles, per class and slice version: a changed slice or class is
// evaluated again, slices that went away are pruned. The class is mapped by its implicit name: the
// resolver (as upstream's extended-resource cache) keeps the first version of a class that maps an
// explicit extendedResourceName, so only an implicit mapping sees the class change.
TEST(DRAScoreTest, ClassMatchesFollowSliceAndClassChanges) {
  auto withModels = [](std::vector<std::string> models) {
    auto s = slice("n1", {"a", "b"});
    for (std::size_t i = 0; i < models.size(); i++) s.spec.devices[i].attributes["model"].stringValue = models[i];
    return s;
  };
  TestDRAManager dra({deviceClass(std::nullopt, {R"(device.attributes["test-driver"].model == "a100")"}),
                      withModels({"a100", "t4"})});
  ResourceAllocationScorer scorer("test", ScoringStrategyType::LeastAllocated, {{kImplicitResource, 1}}, {});
  scorer.enableDRAExtendedResource(dra.manager(), dra.resolver());
  framework::NodeInfo nodeInfo;
  nodeInfo.setNode(MakeNode().name("n1").ptr());
  auto allocatable = [&] {
    auto state = scorer.draPreScoreState();
    EXPECT_TRUE(state.ok() && *state != nullptr);
    return scorer.allocatableRequest(nodeInfo, 0, state->get()).first;
  };
  // Waits until the manager lists what `done` wants.
  auto waitFor = [](const std::function<bool()>& done) {
    for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(done());
  };
  EXPECT_EQ(allocatable(), 1);
  EXPECT_EQ(allocatable(), 1);  // from the cache

  auto stored = dra.client().get<api::ResourceSlice>("", "n1-test-driver");
  ASSERT_TRUE(stored.ok());
  api::ResourceSlice changed = *stored;
  changed.spec.devices[1].attributes["model"].stringValue = "a100";
  ASSERT_TRUE(dra.client().update(changed).ok());
  waitFor([&] {
    auto slices = dra.manager()->resourceSlices().listWithDeviceTaintRules();
    return slices.ok() && slices->size() == 1 && (*slices)[0]->spec.devices[1].attributes.at("model").stringValue == "a100";
  });
  EXPECT_EQ(allocatable(), 2);

  auto cls = dra.client().get<api::DeviceClass>("", kDeviceClassName);
  ASSERT_TRUE(cls.ok());
  api::DeviceClass t4 = *cls;
  t4.spec.selectors[0].cel->expression = R"(device.attributes["test-driver"].model == "t4")";
  ASSERT_TRUE(dra.client().update(t4).ok());
  waitFor([&] {
    auto c = dra.resolver()->getDeviceClass(kImplicitResource);
    return c != nullptr && c->spec.selectors[0].cel->expression == t4.spec.selectors[0].cel->expression;
  });
  EXPECT_EQ(allocatable(), 0);
}

TEST(DRAScoreTest, MatchCachePrunesSlicesThatWentAway) {
  DeviceClassMatchCache cache;
  api::DeviceClass c = deviceClass();
  c.metadata.uid = "class";
  c.metadata.resourceVersion = "1";
  std::vector<framework::ResourceSlicePtr> slices;
  for (int i = 0; i < 40; i++) {
    auto s = slice("n" + std::to_string(i), {"a"});
    s.metadata.uid = "slice-" + std::to_string(i);
    s.metadata.resourceVersion = "1";
    slices.push_back(std::make_shared<const api::ResourceSlice>(std::move(s)));
    cache.put(c, *slices.back(), std::make_shared<const DeviceClassMatchCache::Matches>(1, 1));
  }
  EXPECT_NE(cache.get(c, slices)[39], nullptr);
  // Another version of the class or the slice misses.
  api::DeviceClass c2 = c;
  c2.metadata.resourceVersion = "2";
  EXPECT_EQ(cache.get(c2, slices)[0], nullptr);
  api::ResourceSlice s2 = *slices[0];
  s2.metadata.resourceVersion = "2";
  EXPECT_EQ(cache.get(c, std::vector<framework::ResourceSlicePtr>{std::make_shared<const api::ResourceSlice>(s2)})[0],
            nullptr);
  // Within twice the live entries (plus a few) nothing goes; beyond, the dead ones do.
  cache.prune(std::span(slices).first(12), 1);
  EXPECT_EQ(cache.sizeForTest(), 40u);
  cache.prune(std::span(slices).first(10), 1);
  EXPECT_EQ(cache.sizeForTest(), 10u);
}

// Without DRAExtendedResource the resource is scored from the nodes' allocatable only (nothing here).
TEST(DRAScoreTest, FeatureOffScoresFromAllocatableOnly) {
  TestDRAManager dra({deviceClass(), slice("node1", {"device-1", "device-2", "device-3"})});
  const std::vector<api::NodePtr> nodes = {MakeNode().name("node1").ptr()};
  config::NodeResourcesFitArgs args;
  args.scoringStrategy.type = "MostAllocated";
  args.scoringStrategy.resources = {{kExtendedResourceName, 1}};
  Features off;
  off.enableDRAExtendedResource = false;
  auto p = Fit::create(args, off, dra.resolver(), dra.manager());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(scoreNodes(**p, MakePod().req({{kExtendedResourceName, "1"}}).obj(), nodes, {}, true),
            (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace ks::plugins::noderesources
