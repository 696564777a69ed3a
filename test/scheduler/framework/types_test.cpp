#include "pkg/scheduler/framework/types.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "pkg/api/nodedeclaredfeatures/framework.h"
#include "pkg/api/resources.h"
#include "test/scheduler/framework/test_pods.h"

namespace ks::framework {
namespace {

using testing::hostPort;
using testing::makeNode;
using testing::PodSpecBuilder;

api::PodPtr pod1() {
  return PodSpecBuilder("test-1", "test-1")
      .container("100m", "500", {hostPort("127.0.0.1", "TCP", 80)})
      .nodeName("test-node")
      .build();
}
api::PodPtr pod2() {
  return PodSpecBuilder("test-2", "test-2")
      .container("200m", "1Ki", {hostPort("127.0.0.1", "TCP", 8080)})
      .nodeName("test-node")
      .build();
}

// Upstream TestNewNodeInfo.
TEST(NodeInfoTest, NewNodeInfoAggregates) {
  const int64_t gen0 = nextGeneration();
  NodeInfo ni({pod1(), pod2()});
  EXPECT_EQ(ni.requested().milliCPU, 300);
  EXPECT_EQ(ni.requested().memory, 1524);
  EXPECT_EQ(ni.nonZeroRequested().milliCPU, 300);
  EXPECT_EQ(ni.nonZeroRequested().memory, 1524);
  EXPECT_EQ(ni.usedPorts().size(), 2u);
  EXPECT_TRUE(ni.usedPorts().checkConflict("127.0.0.1", "TCP", 80));
  EXPECT_TRUE(ni.usedPorts().checkConflict("127.0.0.1", "TCP", 8080));
  EXPECT_EQ(ni.pods().size(), 2u);
  EXPECT_EQ(ni.pods()[0]->pod().metadata.name, "test-1");
  EXPECT_EQ(ni.pods()[1]->pod().metadata.name, "test-2");
  EXPECT_GT(ni.generation(), gen0);
  EXPECT_EQ(ni.node(), nullptr);
}

TEST(NodeInfoTest, NonZeroDefaultsForPodsWithoutRequests) {
  NodeInfo ni;
  ni.addPod(PodSpecBuilder("besteffort").container("", "").build());
  EXPECT_EQ(ni.requested().milliCPU, 0);
  EXPECT_EQ(ni.requested().memory, 0);
  EXPECT_EQ(ni.nonZeroRequested().milliCPU, api::kDefaultMilliCPURequest);
  EXPECT_EQ(ni.nonZeroRequested().memory, api::kDefaultMemoryRequest);
}

TEST(NodeInfoTest, ScalarResources) {
  api::Pod p = PodSpecBuilder("gpu").container("1", "1Gi").pod;
  p.spec.containers[0].resources.requests["example.com/gpu"] = testing::q("2");
  p.spec.containers[0].resources.requests["hugepages-2Mi"] = testing::q("4Mi");
  p.spec.containers[0].resources.requests["ephemeral-storage"] = testing::q("1Gi");
  NodeInfo ni;
  ni.addPod(std::make_shared<const api::Pod>(p));
  EXPECT_EQ(ni.requested().scalarResources.at("example.com/gpu"), 2);
  EXPECT_EQ(ni.requested().scalarResources.at("hugepages-2Mi"), 4 * 1024 * 1024);
  EXPECT_EQ(ni.requested().ephemeralStorage, 1024LL * 1024 * 1024);
  ASSERT_TRUE(ni.removePod(p).ok());
  EXPECT_EQ(ni.requested().scalarResources.at("example.com/gpu"), 0);
  EXPECT_TRUE(isScalarResourceName("kubernetes.io/foo"));
  EXPECT_TRUE(isScalarResourceName("attachable-volumes-csi-x"));
  EXPECT_FALSE(isScalarResourceName("cpu"));
  EXPECT_FALSE(isScalarResourceName("requests.example.com/x"));
}

TEST(NodeInfoTest, SetNodeAndRemoveNode) {
  NodeInfo ni;
  const int64_t g = ni.generation();
  ni.setNode(makeNode("test-node", "2", "4Gi", "110"));
  EXPECT_GT(ni.generation(), g);
  EXPECT_EQ(ni.nodeName(), "test-node");
  EXPECT_EQ(ni.allocatable().milliCPU, 2000);
  EXPECT_EQ(ni.allocatable().memory, 4LL * 1024 * 1024 * 1024);
  EXPECT_EQ(ni.allocatable().allowedPodNumber, 110);
  ni.addPod(pod1());
  const int64_t g2 = ni.generation();
  ni.removeNode();
  EXPECT_EQ(ni.node(), nullptr);
  EXPECT_EQ(ni.pods().size(), 1u);
  EXPECT_GT(ni.generation(), g2);
}

// Upstream SetNode maps status.declaredFeatures with the default framework, dropping unknown features; the
// snapshot copies the set.
TEST(NodeInfoTest, SetNodeMapsDeclaredFeatures) {
  NodeInfo ni;
  EXPECT_EQ(ni.declaredFeatures().size(), 0);
  api::Node node = *makeNode("test-node", "2", "4Gi", "110");
  node.status.declaredFeatures = {"NotAFeatureWeKnow", "RestartAllContainersOnContainerExits"};
  ni.setNode(std::make_shared<const api::Node>(node));
  const auto& framework = api::nodedeclaredfeatures::defaultFramework();
  EXPECT_EQ(ni.declaredFeatures(), framework.mustMapSorted({"RestartAllContainersOnContainerExits"}));
  EXPECT_EQ(ni.snapshot()->declaredFeatures(), ni.declaredFeatures());
  ni.setNode(makeNode("test-node", "2", "4Gi", "110"));
  EXPECT_TRUE(ni.declaredFeatures().isEmpty());
  EXPECT_EQ(ni.declaredFeatures().size(), static_cast<int>(framework.registeredFeatures().size()));
}

// Upstream TestNodeInfoClone.
// Only persistentVolumeClaim volumes count in PVCRefCounts, not generic ephemeral volumes (upstream
// updatePVCRefCounts).
TEST(NodeInfoTest, PVCRefCountsCountOnlyClaimVolumes) {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  api::Volume claim;
  claim.name = "data";
  claim.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{"pvc-1", false};
  api::Volume scratch;
  scratch.name = "scratch";
  scratch.ephemeral = api::EphemeralVolumeSource{};
  pod.spec.volumes = {claim, scratch};
  NodeInfo ni;
  ni.addPod(std::make_shared<const api::Pod>(pod));
  EXPECT_EQ(ni.pvcRefCounts().size(), 1u);
  EXPECT_EQ(ni.pvcRefCounts().count("ns/pvc-1"), 1u);
}

TEST(NodeInfoTest, SnapshotIsIndependent) {
  NodeInfo ni({pod1(), pod2()});
  ni.setNode(makeNode("test-node", "1", "1Gi"));
  std::map<std::string, ImageStateSummary> images;
  images["gcr.io/10"] = ImageStateSummary{10 * 1024 * 1024, 2, {"test-node", "other"}};
  ni.setImageStates(images);
  auto c = ni.snapshot();
  EXPECT_EQ(c->generation(), ni.generation());
  EXPECT_EQ(c->requested(), ni.requested());
  EXPECT_EQ(c->usedPorts(), ni.usedPorts());
  EXPECT_EQ(c->pods().size(), 2u);
  EXPECT_EQ(c->imageStates().at("gcr.io/10").size, 10 * 1024 * 1024);
  EXPECT_EQ(c->imageStates().at("gcr.io/10").numNodes, 2);
  EXPECT_TRUE(c->imageStates().at("gcr.io/10").nodes.empty());
  ASSERT_TRUE(c->removePod(*pod1()).ok());
  EXPECT_EQ(ni.pods().size(), 2u);
  EXPECT_EQ(ni.requested().milliCPU, 300);
  EXPECT_EQ(c->requested().milliCPU, 200);
  EXPECT_TRUE(ni.usedPorts().checkConflict("127.0.0.1", "TCP", 80));
  EXPECT_FALSE(c->usedPorts().checkConflict("127.0.0.1", "TCP", 80));
}

// Upstream TestNodeInfoAddPod: affinity lists, PVC ref counts, sidecar host ports.
TEST(NodeInfoTest, AddPodTracksAffinityPvcsAndPorts) {
  api::Pod withAffinity = PodSpecBuilder("aff").container("100m", "500").pvc("pvc-1").pod;
  withAffinity.spec.affinity.emplace();
  withAffinity.spec.affinity->podAffinity.emplace();
  api::Pod withAnti = PodSpecBuilder("anti").container("200m", "1Ki").pvc("pvc-1").pod;
  withAnti.spec.affinity.emplace();
  withAnti.spec.affinity->podAntiAffinity.emplace();
  api::PodAffinityTerm term;
  term.topologyKey = "kubernetes.io/hostname";
  term.labelSelector = api::LabelSelector{{{"app", "x"}}, {}};
  withAnti.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.push_back(term);
  api::Container sidecar;
  sidecar.name = "sidecar";
  sidecar.restartPolicy = "Always";
  sidecar.ports = {hostPort("", "", 9090)};
  withAnti.spec.initContainers.push_back(sidecar);
  api::Container init;
  init.name = "init";
  init.ports = {hostPort("", "", 7070)};
  withAnti.spec.initContainers.push_back(init);

  NodeInfo ni;
  ni.setNode(makeNode("test-node", "1", "1Gi"));
  ni.addPod(std::make_shared<const api::Pod>(withAffinity));
  ni.addPod(std::make_shared<const api::Pod>(withAnti));
  EXPECT_EQ(ni.podsWithAffinity().size(), 2u);
  EXPECT_EQ(ni.podsWithRequiredAntiAffinity().size(), 1u);
  EXPECT_EQ(ni.pvcRefCounts().at("node_info_cache_test/pvc-1"), 2);
  EXPECT_TRUE(ni.usedPorts().checkConflict("", "TCP", 9090));
  EXPECT_FALSE(ni.usedPorts().checkConflict("", "TCP", 7070));
  const auto& pi = ni.podsWithRequiredAntiAffinity()[0];
  ASSERT_EQ(pi->requiredAntiAffinityTerms().size(), 1u);
  EXPECT_EQ(pi->requiredAntiAffinityTerms()[0].topologyKey, "kubernetes.io/hostname");
  EXPECT_EQ(pi->requiredAntiAffinityTerms()[0].namespaces, std::set<std::string>{"node_info_cache_test"});

  ASSERT_TRUE(ni.removePod(withAffinity).ok());
  EXPECT_EQ(ni.podsWithAffinity().size(), 1u);
  EXPECT_EQ(ni.pvcRefCounts().at("node_info_cache_test/pvc-1"), 1);
  ASSERT_TRUE(ni.removePod(withAnti).ok());
  EXPECT_TRUE(ni.podsWithAffinity().empty());
  EXPECT_TRUE(ni.podsWithRequiredAntiAffinity().empty());
  EXPECT_TRUE(ni.pvcRefCounts().empty());
  EXPECT_TRUE(ni.usedPorts().empty());
  EXPECT_EQ(ni.requested(), Resource{});
  EXPECT_EQ(ni.nonZeroRequested(), Resource{});
}

// Upstream TestNodeInfoRemovePod.
TEST(NodeInfoTest, RemovePod) {
  NodeInfo ni({pod1(), pod2()});
  ni.setNode(makeNode("test-node"));
  const int64_t g = ni.generation();
  auto missing = PodSpecBuilder("non-exist", "non-exist").build();
  auto r = ni.removePod(*missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "no corresponding pod non-exist in pods of node test-node");
  EXPECT_EQ(ni.generation(), g);

  api::Pod noUID = *pod1();
  noUID.metadata.uid.clear();
  EXPECT_EQ(ni.removePod(noUID).error().message(), "cannot get cache key for pod with empty UID");

  ASSERT_TRUE(ni.removePod(*pod1()).ok());
  EXPECT_GT(ni.generation(), g);
  ASSERT_EQ(ni.pods().size(), 1u);
  EXPECT_EQ(ni.pods()[0]->pod().metadata.name, "test-2");
  EXPECT_EQ(ni.requested().milliCPU, 200);
  EXPECT_EQ(ni.requested().memory, 1024);
  EXPECT_FALSE(ni.usedPorts().checkConflict("127.0.0.1", "TCP", 80));
  EXPECT_TRUE(ni.usedPorts().checkConflict("127.0.0.1", "TCP", 8080));
}

// Upstream TestHostPortInfo_AddRemove.
TEST(HostPortInfoTest, AddRemove) {
  struct Port {
    std::string ip, protocol;
    int32_t port;
  };
  struct Case {
    std::string desc;
    std::vector<Port> added, removed;
    std::size_t length;
  };
  const std::vector<Case> cases = {
      {"normal add case",
       {{"127.0.0.1", "TCP", 79},
        {"127.0.0.1", "UDP", 80},
        {"127.0.0.1", "TCP", 81},
        {"127.0.0.1", "TCP", 82},
        {"0.0.0.0", "TCP", 79},
        {"0.0.0.0", "UDP", 80},
        {"0.0.0.0", "TCP", 81},
        {"0.0.0.0", "TCP", 82},
        {"0.0.0.0", "TCP", 0},
        {"0.0.0.0", "TCP", -1}},
       {},
       8},
      {"empty ip and protocol add should work",
       {{"", "TCP", 79},
        {"", "UDP", 80},
        {"", "TCP", 81},
        {"", "TCP", 82},
        {"", "", 79},
        {"", "UDP", 80},
        {"", "", 81},
        {"", "", 82},
        {"", "", 0},
        {"", "", -1}},
       {},
       4},
      {"normal remove case",
       {{"127.0.0.1", "TCP", 79},
        {"127.0.0.1", "UDP", 80},
        {"127.0.0.1", "TCP", 81},
        {"127.0.0.1", "TCP", 82},
        {"0.0.0.0", "TCP", 79},
        {"0.0.0.0", "UDP", 80},
        {"0.0.0.0", "TCP", 81},
        {"0.0.0.0", "TCP", 82}},
       {{"127.0.0.1", "TCP", 79},
        {"127.0.0.1", "UDP", 80},
        {"127.0.0.1", "TCP", 81},
        {"127.0.0.1", "TCP", 82},
        {"0.0.0.0", "TCP", 79},
        {"0.0.0.0", "UDP", 80},
        {"0.0.0.0", "TCP", 81},
        {"0.0.0.0", "TCP", 82}},
       0},
      {"empty ip and protocol remove should work",
       {{"", "TCP", 79}, {"", "UDP", 80}, {"", "TCP", 81}, {"", "TCP", 82}},
       {{"", "", 79}, {"", "UDP", 80}, {"", "", 81}, {"", "", 82}},
       0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.desc);
    HostPortInfo h;
    for (const auto& p : c.added) h.add(p.ip, p.protocol, p.port);
    for (const auto& p : c.removed) h.remove(p.ip, p.protocol, p.port);
    EXPECT_EQ(h.size(), c.length);
    if (c.length == 0) {
      EXPECT_TRUE(h.empty());
    }
  }
}

// Upstream TestHostPortInfo_Check.
TEST(HostPortInfoTest, Check) {
  struct Port {
    std::string ip, protocol;
    int32_t port;
  };
  struct Case {
    std::string desc;
    std::vector<Port> added;
    Port check;
    bool expect;
  };
  const std::vector<Case> cases = {
      {"empty check should check 0.0.0.0 and TCP", {{"127.0.0.1", "TCP", 80}}, {"", "", 81}, false},
      {"empty check should check 0.0.0.0 and TCP (conflicted)",
       {{"127.0.0.1", "TCP", 80}},
       {"", "", 80},
       true},
      {"empty port check should pass", {{"127.0.0.1", "TCP", 80}}, {"", "", 0}, false},
      {"0.0.0.0 should check all registered IPs", {{"127.0.0.1", "TCP", 80}}, {"0.0.0.0", "TCP", 80}, true},
      {"0.0.0.0 with different protocol should be allowed",
       {{"127.0.0.1", "UDP", 80}},
       {"0.0.0.0", "TCP", 80},
       false},
      {"0.0.0.0 with different port should be allowed",
       {{"127.0.0.1", "TCP", 79}, {"127.0.0.1", "TCP", 81}, {"127.0.0.1", "TCP", 82}},
       {"0.0.0.0", "TCP", 80},
       false},
      {"normal ip should check all registered 0.0.0.0",
       {{"0.0.0.0", "TCP", 80}},
       {"127.0.0.1", "TCP", 80},
       true},
      {"normal ip with different port/protocol should be allowed (0.0.0.0)",
       {{"0.0.0.0", "TCP", 79}, {"0.0.0.0", "UDP", 80}, {"0.0.0.0", "TCP", 81}, {"0.0.0.0", "TCP", 82}},
       {"127.0.0.1", "TCP", 80},
       false},
      {"normal ip with different port/protocol should be allowed",
       {{"127.0.0.1", "TCP", 79},
        {"127.0.0.1", "UDP", 80},
        {"127.0.0.1", "TCP", 81},
        {"127.0.0.1", "TCP", 82}},
       {"127.0.0.1", "TCP", 80},
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.desc);
    HostPortInfo h;
    for (const auto& p : c.added) h.add(p.ip, p.protocol, p.port);
    EXPECT_EQ(h.checkConflict(c.check.ip, c.check.protocol, c.check.port), c.expect);
  }
}

// Upstream TestCalculatePodResourcesWithResize (v1.37; InPlacePodVerticalScaling and
// InPlacePodLevelResourcesVerticalScaling on): container c1, optional init container i1 and sidecar s1,
// each with spec requests and status (actuated) requests, optional pod-level spec and status requests.
TEST(PodInfoTest, CalculatePodResourcesWithResize) {
  using RL = api::ResourceList;
  const auto rl = [](const std::string& cpu, const std::string& mem) {
    return api::ResourceList{{"cpu", *api::Quantity::parse(cpu)}, {"memory", *api::Quantity::parse(mem)}};
  };
  const RL small = rl("500m", "500Mi");
  const RL mid = rl("700m", "500Mi");
  const RL big = rl("700m", "800Mi");
  const RL sum = rl("1200m", "1300Mi");  // small + big
  struct Case {
    std::string name;
    std::optional<RL> podLevelRequests;
    RL requests;
    RL statusResources;
    std::optional<RL> podLevelStatusResources;
    std::optional<RL> initRequests;
    std::optional<RL> initStatusResources;
    std::string resizeType;    // a condition of this type, status True, when set
    std::string resizeReason;  // and this reason
    std::optional<RL> sidecarRequests;
    std::optional<RL> sidecarStatusResources;
    RL want;  // requests and non-zero requests alike
  };
  const std::vector<Case> cases = {
      {"Pod with no pending resize", {}, small, small, {}, {}, {}, "", "", {}, {}, small},
      {"Pod with pod-level resources no pending resize", mid, small, mid, small, {}, {}, "", "", {}, {}, mid},
      {"Pod with resize in progress", {}, small, small, {}, {}, {}, "PodResizeInProgress", "", {}, {}, small},
      {"Pod with pod-level resources and resize in progress",
       mid,
       small,
       mid,
       small,
       {},
       {},
       "PodResizeInProgress",
       "",
       {},
       {},
       mid},
      {"Pod with deferred resize", {}, big, small, {}, {}, {}, "PodResizePending", "Deferred", {}, {}, big},
      {"Pod with pod-level resources and with deferred resize",
       big,
       small,
       small,
       small,
       {},
       {},
       "PodResizePending",
       "Deferred",
       {},
       {},
       big},
      {"Pod with infeasible resize",
       {},
       big,
       small,
       {},
       {},
       {},
       "PodResizePending",
       "Infeasible",
       {},
       {},
       small},
      {"Pod with init container and no pending resize", {}, small, small, {}, big, big, "", "", {}, {}, big},
      {"Pod with sider container and no pending resize",
       {},
       small,
       small,
       {},
       big,
       big,
       "",
       "",
       big,
       big,
       sum},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::Pod pod;
    pod.metadata.namespace_ = "pod_resize_test";
    pod.metadata.name = "testpod";
    pod.metadata.uid = "testpod";
    pod.status.phase = "Running";
    if (tc.podLevelRequests) pod.spec.resources = api::ResourceRequirements{{}, *tc.podLevelRequests};
    if (tc.podLevelStatusResources)
      pod.status.resources = api::ResourceRequirements{{}, *tc.podLevelStatusResources};
    const auto addContainer = [](std::vector<api::Container>& to, const std::string& name,
                                 const RL& requests) {
      api::Container c;
      c.name = name;
      c.resources.requests = requests;
      to.push_back(std::move(c));
    };
    const auto addStatus = [](std::vector<api::ContainerStatus>& to, const std::string& name,
                              const RL& requests) {
      api::ContainerStatus cs;
      cs.name = name;
      cs.resources = api::ResourceRequirements{{}, requests};
      to.push_back(std::move(cs));
    };
    addContainer(pod.spec.containers, "c1", tc.requests);
    addStatus(pod.status.containerStatuses, "c1", tc.statusResources);
    if (tc.initRequests) addContainer(pod.spec.initContainers, "i1", *tc.initRequests);
    if (tc.initStatusResources) addStatus(pod.status.initContainerStatuses, "i1", *tc.initStatusResources);
    if (tc.sidecarRequests) {
      addContainer(pod.spec.initContainers, "s1", *tc.sidecarRequests);
      pod.spec.initContainers.back().restartPolicy = "Always";
    }
    if (tc.sidecarStatusResources)
      addStatus(pod.status.initContainerStatuses, "s1", *tc.sidecarStatusResources);
    if (!tc.resizeType.empty()) {
      api::PodCondition c;
      c.type = tc.resizeType;
      c.status = "True";
      c.reason = tc.resizeReason;
      pod.status.conditions.push_back(std::move(c));
    }
    PodResource want;
    want.resource = Resource::fromResourceList(tc.want);
    want.non0CPU = want.resource.milliCPU;
    want.non0Mem = want.resource.memory;
    EXPECT_EQ(calculatePodResource(pod), want);
  }
}

// InPlacePodLevelResourcesVerticalScaling off (e.g. --emulated-version=1.35): the pod-level status does not
// count, only the spec (upstream's CalculateResource with the gate off).
TEST(CalculatePodResourceTest, PodLevelStatusCountsOnlyWithItsGate) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.status.phase = "Running";
  pod.spec.resources = api::ResourceRequirements{{}, {{"cpu", api::Quantity::parse("1").value()}}};
  api::Container c;
  c.name = "c";
  pod.spec.containers.push_back(c);
  pod.status.resources = api::ResourceRequirements{{}, {{"cpu", api::Quantity::parse("2").value()}}};
  pod.status.allocatedResources = {{"cpu", api::Quantity::parse("2").value()}};
  api::PodCondition resizing;
  resizing.type = "PodResizeInProgress";
  resizing.status = "True";
  pod.status.conditions.push_back(resizing);
  EXPECT_EQ(calculatePodResource(pod).resource.milliCPU, 2000);
  struct Restore {
    ~Restore() { setPodLevelResizeAccounting(true); }
  } restore;
  setPodLevelResizeAccounting(false);
  EXPECT_EQ(calculatePodResource(pod).resource.milliCPU, 1000);
  EXPECT_FALSE(accountingRequestOptions().inPlacePodLevelResourcesVerticalScalingEnabled);
}

TEST(PodInfoTest, ParsesAffinityTermsOnce) {
  api::Pod p = PodSpecBuilder("p").ns("ns1").container("1", "1").pod;
  p.spec.affinity.emplace();
  p.spec.affinity->podAffinity.emplace();
  api::PodAffinityTerm t;
  t.topologyKey = "zone";
  t.labelSelector = api::LabelSelector{{{"app", "web"}}, {}};
  t.namespaces = {"a", "b"};
  p.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution.push_back(t);
  api::PodAffinityTerm bad = t;
  bad.labelSelector->matchExpressions.push_back(api::LabelSelectorRequirement{"k", "Foo", {}});
  p.spec.affinity->podAffinity->preferredDuringSchedulingIgnoredDuringExecution.push_back(
      api::WeightedPodAffinityTerm{5, t});
  p.spec.affinity->podAffinity->preferredDuringSchedulingIgnoredDuringExecution.push_back(
      api::WeightedPodAffinityTerm{3, bad});
  auto pi = PodInfo::create(std::make_shared<const api::Pod>(p));
  ASSERT_EQ(pi->requiredAffinityTerms().size(), 1u);
  EXPECT_EQ(pi->requiredAffinityTerms()[0].namespaces, (std::set<std::string>{"a", "b"}));
  // A term that fails to parse fails its whole list, as upstream GetAffinityTerms.
  EXPECT_TRUE(pi->preferredAffinityTerms().empty());
  ASSERT_TRUE(pi->parseError().has_value());
  EXPECT_EQ(pi->parseError()->message(),
            "preferredAffinityTerms: \"Foo\" is not a valid label selector operator");

  api::Pod target = PodSpecBuilder("t").ns("a").pod;
  target.metadata.labels = {{"app", "web"}};
  EXPECT_TRUE(pi->requiredAffinityTerms()[0].matches(target, {}));
  target.metadata.namespace_ = "c";
  EXPECT_FALSE(pi->requiredAffinityTerms()[0].matches(target, {}));
  EXPECT_EQ(pi->resource().resource.milliCPU, 1000);
}

// Not upstream: PodInfo interns what terms and selectors see of a pod, so pods that nothing can tell apart
// share one identity (and term lists), and NodeInfo counts its pods per identity.
TEST(PodInfoTest, InternsMatchIdentityAndTerms) {
  auto withLabels = [](const std::string& name, const std::string& ns, api::Labels labels) {
    api::Pod p = PodSpecBuilder(name, name).ns(ns).nodeName("n").pod;
    p.metadata.labels = std::move(labels);
    p.spec.affinity.emplace();
    p.spec.affinity->podAntiAffinity.emplace();
    api::PodAffinityTerm t;
    t.topologyKey = "zone";
    t.labelSelector = api::LabelSelector{{{"app", "web"}}, {}};
    p.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.push_back(t);
    return std::make_shared<const api::Pod>(std::move(p));
  };
  auto a = PodInfo::create(withLabels("a", "ns1", {{"app", "web"}}));
  auto b = PodInfo::create(withLabels("b", "ns1", {{"app", "web"}}));
  auto otherLabels = PodInfo::create(withLabels("c", "ns1", {{"app", "db"}}));
  auto otherNamespace = PodInfo::create(withLabels("d", "ns2", {{"app", "web"}}));
  EXPECT_EQ(&a->matchIdentity(), &b->matchIdentity());
  EXPECT_NE(&a->matchIdentity(), &otherLabels->matchIdentity());
  EXPECT_NE(&a->matchIdentity(), &otherNamespace->matchIdentity());
  // Same terms, different labels: the term list is still one instance.
  EXPECT_EQ(&a->requiredAntiAffinityTerms(), &otherLabels->requiredAntiAffinityTerms());
  // The namespace is part of a term without namespaces: ns2's term differs.
  EXPECT_NE(&a->requiredAntiAffinityTerms(), &otherNamespace->requiredAntiAffinityTerms());

  api::Pod terminating = *withLabels("e", "ns1", {{"app", "web"}});
  terminating.metadata.deletionTimestamp = api::Time{};
  auto e = PodInfo::create(std::make_shared<const api::Pod>(terminating));
  EXPECT_NE(&a->matchIdentity(), &e->matchIdentity());
  EXPECT_TRUE(e->matchIdentity().terminating);

  NodeInfo ni;
  for (const auto& pi : {a, b, otherLabels, e}) ni.addPodInfo(pi);
  auto groupOf = [&](const PodInfoPtr& pi) -> int64_t {
    for (const auto& g : ni.podMatchGroups()) {
      if (g.identity.get() == &pi->matchIdentity()) return g.count;
    }
    return 0;
  };
  EXPECT_EQ(ni.podMatchGroups().size(), 3u);
  EXPECT_EQ(groupOf(a), 2);
  EXPECT_EQ(groupOf(otherLabels), 1);
  EXPECT_EQ(groupOf(e), 1);
  ASSERT_TRUE(ni.removePod(a->pod()).ok());
  EXPECT_EQ(groupOf(b), 1);
  ASSERT_TRUE(ni.removePod(b->pod()).ok());
  ASSERT_TRUE(ni.removePod(otherLabels->pod()).ok());
  EXPECT_EQ(groupOf(b), 0);
  ASSERT_EQ(ni.podMatchGroups().size(), 1u);
  EXPECT_EQ(ni.podMatchGroups()[0].identity.get(), &e->matchIdentity());
}

// Upstream PodInfo.Update aggregates the errors of the lists that fail ("[a, b]" when several).
TEST(PodInfoTest, AggregatesParseErrorsPerList) {
  api::Pod p = PodSpecBuilder("p").ns("ns1").pod;
  api::PodAffinityTerm bad;
  bad.topologyKey = "zone";
  bad.labelSelector = api::LabelSelector{{}, {api::LabelSelectorRequirement{"k", "Foo", {}}}};
  api::PodAffinityTerm good;
  good.topologyKey = "zone";
  good.labelSelector = api::LabelSelector{{{"app", "web"}}, {}};
  p.spec.affinity.emplace();
  p.spec.affinity->podAffinity.emplace();
  p.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution = {good, bad};
  p.spec.affinity->podAntiAffinity.emplace();
  p.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution = {good};
  p.spec.affinity->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution = {
      api::WeightedPodAffinityTerm{1, bad}};
  auto pi = PodInfo::create(std::make_shared<const api::Pod>(p));
  EXPECT_TRUE(pi->requiredAffinityTerms().empty());
  EXPECT_EQ(pi->requiredAntiAffinityTerms().size(), 1u);
  EXPECT_TRUE(pi->preferredAntiAffinityTerms().empty());
  ASSERT_TRUE(pi->parseError().has_value());
  EXPECT_EQ(pi->parseError()->message(),
            "[requiredAffinityTerms: \"Foo\" is not a valid label selector operator, "
            "preferredAntiAffinityTerms: \"Foo\" is not a valid label selector operator]");
}

TEST(QueuedPodInfoTest, GatedAndClear) {
  QueuedPodInfo q;
  q.podInfo = PodInfo::create(PodSpecBuilder("p").build());
  EXPECT_FALSE(q.gated());
  q.gatingPlugin = "SchedulingGates";
  q.unschedulablePlugins.insert("X");
  EXPECT_TRUE(q.gated());
  q.clearRejectorPlugins();
  EXPECT_FALSE(q.gated());
  EXPECT_TRUE(q.unschedulablePlugins.empty());
  EXPECT_EQ(q.pod().metadata.name, "p");
}

}  // namespace
}  // namespace ks::framework
