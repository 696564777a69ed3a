// Ports upstream plugins/helper/spread_test.go (v1.34.4): TestGetPodServices and TestDefaultSelector. As
// upstream, objects go straight into the informers' stores (GetStore().Add), and TestDefaultSelector's
// cases share one factory, each adding its objects to what the earlier cases added.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/helper/spread.h"
#include "test/support/wrappers.h"

namespace ks::plugins::helper {
namespace {

using ks::testing::MakePod;

TEST(SpreadTest, GetPodServices) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  auto& store = factory.services().store();
  std::vector<std::shared_ptr<const api::Service>> services;
  for (int i = 0; i < 3; ++i) {
    api::Service s;
    s.metadata.name = "service-" + std::to_string(i);
    s.metadata.namespace_ = "test";
    s.spec.selector = {{"app", "test-" + std::to_string(i)}};
    services.push_back(std::make_shared<const api::Service>(std::move(s)));
    store.upsert(services.back());
  }
  std::vector<api::Pod> pods;
  for (int i = 0; i < 5; ++i) {
    pods.push_back(MakePod()
                       .name("test-pod-" + std::to_string(i))
                       .namespace_("test")
                       .label("app", "test-" + std::to_string(i))
                       .label("label", "label-" + std::to_string(i))
                       .obj());
  }

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<std::shared_ptr<const api::Service>> expect;
  };
  const std::vector<Case> cases = {
      {"GetPodServices for pod-0", pods[0], {services[0]}},
      {"GetPodServices for pod-1", pods[1], {services[1]}},
      {"GetPodServices for pod-2", pods[2], {services[2]}},
      {"GetPodServices for pod-3", pods[3], {}},
      {"GetPodServices for pod-4", pods[4], {}},
  };
  for (const auto& test : cases) {
    SCOPED_TRACE(test.name);
    EXPECT_EQ(getPodServices(store, test.pod), test.expect);
  }
}

TEST(SpreadTest, GetPodServicesIgnoresOtherNamespacesAndEmptySelectors) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  auto& store = factory.services().store();
  api::Service other;
  other.metadata = {.name = "other", .namespace_ = "elsewhere"};
  other.spec.selector = {{"app", "web"}};
  store.upsert(std::make_shared<const api::Service>(other));
  api::Service headless;  // no selector: selects nothing, not everything
  headless.metadata = {.name = "headless", .namespace_ = "test"};
  store.upsert(std::make_shared<const api::Service>(headless));
  const auto pod = MakePod().name("p").namespace_("test").label("app", "web").obj();
  EXPECT_TRUE(getPodServices(store, pod).empty());
  // The same with the namespace index upstream's informers have.
  ASSERT_TRUE(
      store.addIndexer(std::string(informer::kNamespaceIndex), informer::metaNamespaceIndexFunc<api::Service>)
          .ok());
  EXPECT_TRUE(getPodServices(store, pod).empty());
}

TEST(SpreadTest, DefaultSelector) {
  const std::string ns = "test";
  const std::string podName = "test-pod";
  const std::string serviceName = "test-service";
  const std::string replicaSetName = "test-replicaset";
  const std::string replicationControllerName = "test-replicationcontroller";
  const std::string statefulSetName = "test-statefulset";
  const std::string podLabelKey = "podLabelKey";
  const std::string podLabelVal = "podLabelVal";
  const std::string replicaSetLabelKey = "replicaSetLabelKey";
  const std::string replicaSetLabelVal = "replicaSetLabelVal";
  const std::string replicationLabelKey = "replicationLabelKey";
  const std::string replicationLabelVal = "replicationLabelVal";
  const std::string statefulSetLabelKey = "statefulSetLabelKey";
  const std::string statefulSetLabelVal = "statefulSetLabelVal";

  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);

  auto addFakeService = [&] {
    api::Service s;
    s.metadata = {.name = serviceName, .namespace_ = ns};
    s.spec.selector = {{podLabelKey, podLabelVal}};
    factory.services().store().upsert(std::make_shared<const api::Service>(std::move(s)));
  };
  auto addFakeReplicaSet = [&] {
    api::ReplicaSet rs;
    rs.metadata = {.name = replicaSetName, .namespace_ = ns};
    rs.spec.selector = api::LabelSelector{{{replicaSetLabelKey, replicaSetLabelVal}}, {}};
    factory.replicaSets().store().upsert(std::make_shared<const api::ReplicaSet>(std::move(rs)));
  };
  auto addFakeReplicationController = [&] {
    api::ReplicationController rc;
    rc.metadata = {.name = replicationControllerName, .namespace_ = ns};
    rc.spec.selector = {{replicationLabelKey, replicationLabelVal}};
    factory.replicationControllers().store().upsert(
        std::make_shared<const api::ReplicationController>(std::move(rc)));
  };
  auto addFakeStatefulSet = [&] {
    api::StatefulSet ss;
    ss.metadata = {.name = statefulSetName, .namespace_ = ns};
    ss.spec.selector = api::LabelSelector{{{statefulSetLabelKey, statefulSetLabelVal}}, {}};
    factory.statefulSets().store().upsert(std::make_shared<const api::StatefulSet>(std::move(ss)));
  };

  struct Case {
    std::string name;
    api::Pod pod;
    api::Labels expect;
    std::vector<std::function<void()>> addFakeResourceList;
  };
  const std::vector<Case> cases = {
      {"DefaultSelector for default case",
       MakePod().name(podName).namespace_(ns).label(podLabelKey, podLabelVal).obj(),
       {},
       {}},
      {"DefaultSelector for no OwnerReference pod case",
       MakePod().name(podName).namespace_(ns).label(podLabelKey, podLabelVal).obj(),
       {{podLabelKey, podLabelVal}},
       {addFakeService}},
      {"DefaultSelector for ReplicaSet OwnerReference pod case",
       MakePod()
           .name(podName)
           .namespace_(ns)
           .label(podLabelKey, podLabelVal)
           .ownerReference(replicaSetName, "ReplicaSet", "apps/v1")
           .obj(),
       {{podLabelKey, podLabelVal}, {replicaSetLabelKey, replicaSetLabelVal}},
       {addFakeService, addFakeReplicaSet}},
      {"DefaultSelector for ReplicationController OwnerReference pod case",
       MakePod()
           .name(podName)
           .namespace_(ns)
           .label(podLabelKey, podLabelVal)
           .ownerReference(replicationControllerName, "ReplicationController", "v1")
           .obj(),
       {{podLabelKey, podLabelVal}, {replicationLabelKey, replicationLabelVal}},
       {addFakeService, addFakeReplicationController}},
      {"DefaultSelector for StatefulSet OwnerReference pod case",
       MakePod()
           .name(podName)
           .namespace_(ns)
           .label(podLabelKey, podLabelVal)
           .ownerReference(statefulSetName, "StatefulSet", "apps/v1")
           .obj(),
       {{podLabelKey, podLabelVal}, {statefulSetLabelKey, statefulSetLabelVal}},
       {addFakeService, addFakeStatefulSet}},
  };
  for (const auto& test : cases) {
    SCOPED_TRACE(test.name);
    for (const auto& add : test.addFakeResourceList) add();
    const api::Selector got =
        defaultSelector(test.pod, factory.services().store(), factory.replicationControllers().store(),
                        factory.replicaSets().store(), factory.statefulSets().store());
    // labels.Set.String(): "k=v" pairs sorted by key.
    EXPECT_EQ(api::Selector::fromSet(test.expect).toString(), got.toString());
  }
}

// Owners the default selector ignores: not a controller, an unknown kind, a bad apiVersion, a controller
// missing from the store, and a ReplicaSet without a selector.
TEST(SpreadTest, DefaultSelectorIgnoredOwners) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  api::ReplicaSet rs;
  rs.metadata = {.name = "rs", .namespace_ = "ns"};
  rs.spec.selector = api::LabelSelector{{{"app", "rs"}}, {}};
  factory.replicaSets().store().upsert(std::make_shared<const api::ReplicaSet>(rs));
  api::ReplicaSet nilSelector;
  nilSelector.metadata = {.name = "nil", .namespace_ = "ns"};
  factory.replicaSets().store().upsert(std::make_shared<const api::ReplicaSet>(nilSelector));
  auto selectorFor = [&](const api::Pod& pod) {
    return defaultSelector(pod, factory.services().store(), factory.replicationControllers().store(),
                           factory.replicaSets().store(), factory.statefulSets().store())
        .toString();
  };
  auto pod = MakePod().name("p").namespace_("ns").ownerReference("rs", "ReplicaSet", "apps/v1").obj();
  EXPECT_EQ(selectorFor(pod), "app=rs");
  pod.metadata.ownerReferences[0].controller = false;
  EXPECT_EQ(selectorFor(pod), "");
  EXPECT_EQ(
      selectorFor(MakePod().name("p").namespace_("ns").ownerReference("rs", "Deployment", "apps/v1").obj()),
      "");
  EXPECT_EQ(
      selectorFor(MakePod().name("p").namespace_("ns").ownerReference("rs", "ReplicaSet", "apps/v1/x").obj()),
      "");
  EXPECT_EQ(
      selectorFor(
          MakePod().name("p").namespace_("ns").ownerReference("rs", "ReplicaSet", "extensions/v1").obj()),
      "");
  EXPECT_EQ(selectorFor(
                MakePod().name("p").namespace_("other").ownerReference("rs", "ReplicaSet", "apps/v1").obj()),
            "");
  EXPECT_EQ(
      selectorFor(MakePod().name("p").namespace_("ns").ownerReference("nil", "ReplicaSet", "apps/v1").obj()),
      "");
}

}  // namespace
}  // namespace ks::plugins::helper
