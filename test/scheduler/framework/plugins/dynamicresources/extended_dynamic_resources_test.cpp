// Ports upstream (v1.37.2) plugins/dynamicresources/extendeddynamicresources_test.go
// (Test_createRequestsAndMappings_requests, Test_createRequestsAndMappings_mappings: every case) and
// k8s.io/dynamic-resource-allocation v0.37.2 deviceclass/extendedresourcecache's TestNil,
// TestExtendedResourceCache and TestDeviceClassMapping.
//
// Differences from upstream:
//   - The cache is driven through its handlers directly rather than through a fake clientset's informer
//     (the in-memory API server stamps creationTimestamp itself, and the ordering cases need chosen ones);
//     DRAManagerResolvesThroughTheClassInformer checks the wiring through DefaultDRAManager.
//   - TestHandlers (chaining further handlers after the cache) has no counterpart: DefaultDRAManager
//     registers the cache on the class informer ahead of the scheduler's handlers instead.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/dra_manager.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/extended_dynamic_resources.h"
#include "pkg/scheduler/framework/plugins/dynamicresources/extended_resource_cache.h"
#include "test/support/wrappers.h"

namespace ks::plugins::dynamicresources {
namespace {

using ks::testing::MakePod;

const std::string kExt = "example.com/gpu";
const std::string kPodName = "my-pod";
const std::string kNamespace = "default";
const std::string kPodUID = "1234";

// upstream's mockDeviceClassResolver: a fixed resource -> class map.
class MapResolver final : public framework::DeviceClassResolver {
 public:
  explicit MapResolver(const std::map<std::string, std::string>& resourceToClass) {
    for (const auto& [resource, cls] : resourceToClass) {
      auto c = std::make_shared<api::DeviceClass>();
      c->metadata.name = cls;
      classes_[resource] = std::move(c);
    }
  }
  std::shared_ptr<const api::DeviceClass> getDeviceClass(std::string_view resourceName) const override {
    auto it = classes_.find(std::string(resourceName));
    return it == classes_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, std::shared_ptr<const api::DeviceClass>> classes_;
};

api::DeviceRequest devReq(const std::string& name, const std::string& cls, int64_t count) {
  api::DeviceRequest r;
  r.name = name;
  r.exactly.emplace();
  r.exactly->deviceClassName = cls;
  r.exactly->allocationMode = "ExactCount";
  r.exactly->count = count;
  return r;
}

ks::testing::PodWrapper basePod() {
  return MakePod().name(kPodName).namespace_(kNamespace).uid(kPodUID);
}

TEST(CreateRequestsAndMappings, Requests) {
  const api::Pod pod1 = basePod().req({{kExt, "1"}, {kExt + "1", "2"}}).obj();
  const api::Pod pod2 = basePod().req({{kExt, "1"}}).req({{kExt + "1", "2"}}).obj();
  const api::Pod podInit = basePod().req({{kExt, "1"}}).initReq({{kExt + "init", "2"}}).obj();
  const api::Pod podInit2 =
      basePod().req({{kExt, "1"}}).initReq({{kExt + "init", "1"}}).initReq({{kExt + "init", "2"}}).obj();
  const api::Pod podInit3 = basePod()
                                .req({{kExt, "1"}})
                                .initReq({{kExt + "init", "1"}})
                                .sidecarReq({{kExt + "init", "1"}})
                                .initReq({{kExt + "init", "2"}})
                                .obj();
  const std::map<std::string, int64_t> res = {{kExt, 1}};
  const std::map<std::string, int64_t> res2 = {{kExt, 1}, {kExt + "1", 2}};
  const std::map<std::string, int64_t> resInit = {{kExt, 1}, {kExt + "init", 2}};
  const MapResolver devMap({{kExt, "class"}});
  const MapResolver devMap2({{kExt, "class"}, {kExt + "1", "class1"}});
  const MapResolver devMapInit({{kExt, "class"}, {kExt + "init", "classInit"}});

  struct Case {
    std::string name;
    api::Pod pod;
    std::map<std::string, int64_t> extendedResources;
    const framework::DeviceClassResolver* resolver;
    std::vector<api::DeviceRequest> want;
  };
  const std::vector<Case> cases = {
      {"nil", pod1, {}, nullptr, {}},
      {"one resource match", pod1, res, &devMap, {devReq("container-0-request-0", "class", 1)}},
      {"one resource match, one resource not match",
       pod1,
       res2,
       &devMap,
       {devReq("container-0-request-0", "class", 1)}},
      {"two resources match",
       pod1,
       res2,
       &devMap2,
       {devReq("container-0-request-0", "class", 1), devReq("container-0-request-1", "class1", 2)}},
      {"two containers match",
       pod2,
       res2,
       &devMap2,
       {devReq("container-0-request-0", "class", 1), devReq("container-1-request-0", "class1", 2)}},
      {"one init container, one regular container",
       podInit,
       resInit,
       &devMapInit,
       {devReq("container-0-request-0", "classInit", 2), devReq("container-1-request-0", "class", 1)}},
      {"two init containers, one regular container",
       podInit2,
       resInit,
       &devMapInit,
       {devReq("container-1-request-0", "classInit", 2), devReq("container-2-request-0", "class", 1)}},
      {"three init containers, one sidecar, one regular container",
       podInit3,
       resInit,
       &devMapInit,
       {devReq("container-1-request-0", "classInit", 1), devReq("container-2-request-0", "classInit", 2),
        devReq("container-3-request-0", "class", 1)}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(createRequestsAndMappings(tc.pod, tc.extendedResources, tc.resolver).requests, tc.want);
  }
}

TEST(CreateRequestsAndMappings, Mappings) {
  const std::string implicitInit = std::string(framework::kResourceDeviceClassPrefix) + "classInit";
  const api::Pod pod1 = basePod().req({{kExt, "1"}, {kExt + "1", "2"}}).obj();
  const api::Pod pod1InitImplicit = basePod().initReq({{kExt + "init", "1"}, {implicitInit, "2"}}).obj();
  const api::Pod pod2 = basePod().req({{kExt, "1"}}).req({{kExt + "1", "2"}}).obj();
  const api::Pod podInit = basePod().req({{kExt, "1"}}).initReq({{kExt + "init", "2"}}).obj();
  const api::Pod podInit2 =
      basePod().req({{kExt, "1"}}).initReq({{kExt + "init", "1"}}).initReq({{kExt + "init", "2"}}).obj();
  const api::Pod podInitImplicit =
      basePod().req({{kExt, "1"}}).initReq({{kExt + "init", "1"}}).initReq({{implicitInit, "2"}}).obj();
  const api::Pod podInit3 = basePod()
                                .req({{kExt, "1"}})
                                .initReq({{kExt + "init", "1"}})
                                .sidecarReq({{kExt + "init", "1"}})
                                .initReq({{kExt + "init", "2"}})
                                .obj();
  const std::map<std::string, int64_t> res = {{kExt, 1}, {kExt + "1", 2}};
  const std::map<std::string, int64_t> resInit = {{kExt, 1}, {kExt + "init", 2}};
  const std::map<std::string, int64_t> resInitImplicit = {{kExt, 1}, {kExt + "init", 2}, {implicitInit, 2}};
  const MapResolver devMap({{kExt, "class"}, {kExt + "1", "class1"}});
  const MapResolver devMapInit({{kExt, "class"}, {kExt + "init", "classInit"}, {implicitInit, "classInit"}});

  using M = api::ContainerExtendedResourceRequest;
  const M cer{"con0", kExt, "container-0-request-0"};
  const M cer1{"con0", kExt + "1", "container-0-request-1"};
  const M cer2{"con1", kExt + "1", "container-1-request-0"};
  const M cer3{"con0", kExt, "container-1-request-0"};
  const M cer4{"con0", kExt, "container-2-request-0"};
  const M cer5{"con0", kExt, "container-3-request-0"};
  const M cerInit{"init-con0", kExt + "init", "container-1-request-0"};
  const M cerInit0{"init-con0", kExt + "init", "container-0-request-0"};
  const M cerInit1{"init-con0", kExt + "init", "container-1-request-0"};
  const M cerInit2{"init-con1", kExt + "init", "container-1-request-0"};
  const M cerInit3{"init-con2", kExt + "init", "container-2-request-0"};
  const M cerSidecar{"sidecar-con1", kExt + "init", "container-1-request-0"};
  const M cerInitImplicit{"init-con0", kExt + "init", "container-0-request-0"};
  const M cerInit4Implicit{"init-con0", kExt + "init", "container-0-request-1"};
  const M cerInit2Implicit{"init-con1", implicitInit, "container-1-request-0"};
  const M cerInit3Implicit{"init-con0", implicitInit, "container-0-request-0"};

  struct Case {
    std::string name;
    api::Pod pod;
    std::map<std::string, int64_t> extendedResources;
    const framework::DeviceClassResolver* resolver;
    std::vector<M> want;
  };
  const std::vector<Case> cases = {
      {"one container, two requests", pod1, res, &devMap, {cer, cer1}},
      {"one container, one explicit and one implicit request",
       pod1InitImplicit,
       resInitImplicit,
       &devMapInit,
       {cerInit3Implicit, cerInit4Implicit}},
      {"two containers, two requests", pod2, res, &devMap, {cer, cer2}},
      {"one init container, one regular container, one request",
       podInit,
       resInit,
       &devMapInit,
       {cerInit0, cer3}},
      {"three containers (two are init container), two requests",
       podInit2,
       resInit,
       &devMapInit,
       {cerInit, cerInit2, cer4}},
      {"three containers (two are init container), both explicit and implicit resources",
       podInitImplicit,
       resInitImplicit,
       &devMapInit,
       {cerInitImplicit, cerInit2Implicit, cer4}},
      {"four containers (two are init container, one sidecar), three requests",
       podInit3,
       resInit,
       &devMapInit,
       {cerInit1, cerSidecar, cerInit3, cer5}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = createRequestsAndMappings(tc.pod, tc.extendedResources, tc.resolver).mappings;
    // As upstream: compared sorted by request name, then container name.
    std::sort(got.begin(), got.end(), [](const M& a, const M& b) {
      return std::tie(a.requestName, a.containerName) < std::tie(b.requestName, b.containerName);
    });
    EXPECT_EQ(got, tc.want);
  }
}

// ---- ExtendedResourceCache ----

std::shared_ptr<const api::DeviceClass> makeClass(const std::string& name, std::optional<std::string> ext,
                                                  std::optional<api::Time> created = std::nullopt) {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = name;
  c->metadata.creationTimestamp = created;
  c->spec.extendedResourceName = std::move(ext);
  return c;
}

std::string classNameOf(const ExtendedResourceCache& cache, const std::string& resource) {
  auto c = cache.getDeviceClass(resource);
  return c ? c->metadata.name : "<none>";
}

// upstream TestNil: an empty cache maps nothing.
TEST(ExtendedResourceCache, Empty) {
  ExtendedResourceCache cache;
  EXPECT_EQ(cache.getDeviceClass("example.com/gpu"), nullptr);
  EXPECT_EQ(cache.getExtendedResource("gpu-class"), "");
}

TEST(ExtendedResourceCache, NewestClassWinsAndUpdatesAndDeletes) {
  const api::Time now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const auto class1 = makeClass("gpu-class", "example.com/gpu", now);
  const auto class2 = makeClass("fpga-class", std::nullopt);
  const auto class3 = makeClass("gpu-class-3", "example.com/gpu", now - std::chrono::hours(24));
  const auto class4 = makeClass("gpu-class-4", "example.com/gpu", now + std::chrono::hours(1));
  const auto class0 = makeClass("gpu-class-0", "example.com/gpu", now + std::chrono::hours(1));
  ExtendedResourceCache cache;
  cache.onAdd(class1);
  cache.onAdd(class2);
  EXPECT_EQ(classNameOf(cache, "example.com/gpu"), "gpu-class");
  EXPECT_EQ(classNameOf(cache, "deviceclass.resource.kubernetes.io/fpga-class"), "fpga-class");
  EXPECT_EQ(classNameOf(cache, "deviceclass.resource.kubernetes.io/gpu-class"), "gpu-class");
  // Older: keeps class1.
  cache.onAdd(class3);
  EXPECT_EQ(classNameOf(cache, "example.com/gpu"), "gpu-class");
  // Newer: replaces it.
  cache.onAdd(class4);
  EXPECT_EQ(classNameOf(cache, "example.com/gpu"), "gpu-class-4");
  // As old, smaller name: replaces it.
  cache.onAdd(class0);
  EXPECT_EQ(classNameOf(cache, "example.com/gpu"), "gpu-class-0");

  auto modified = std::make_shared<api::DeviceClass>(*class0);
  modified->spec.extendedResourceName = "test.com/gpu";
  cache.onUpdate(class0, modified);
  EXPECT_EQ(classNameOf(cache, "test.com/gpu"), "gpu-class-0");
  EXPECT_EQ(cache.getDeviceClass("example.com/gpu"), nullptr);

  cache.onDelete(modified);
  EXPECT_EQ(cache.getDeviceClass("test.com/gpu"), nullptr);
  EXPECT_EQ(cache.getDeviceClass("deviceclass.resource.kubernetes.io/gpu-class-0"), nullptr);
}

// upstream TestDeviceClassMapping: class -> explicit name.
TEST(ExtendedResourceCache, ClassToExtendedResource) {
  const auto class1 = makeClass("gpu-class", "example.com/gpu");
  ExtendedResourceCache cache;
  cache.onAdd(class1);
  cache.onAdd(makeClass("tpu-class", std::nullopt));
  EXPECT_EQ(cache.getExtendedResource("gpu-class"), "example.com/gpu");
  EXPECT_EQ(cache.getExtendedResource("tpu-class"), "");
  const auto modified = makeClass("gpu-class", "my.com/gpu");
  cache.onUpdate(class1, modified);
  EXPECT_EQ(cache.getExtendedResource("gpu-class"), "my.com/gpu");
  cache.onDelete(modified);
  EXPECT_EQ(cache.getExtendedResource("gpu-class"), "");
}

// DefaultDRAManager keeps the cache from the class informer (and none without DRAExtendedResource).
TEST(ExtendedResourceCache, DRAManagerResolvesThroughTheClassInformer) {
  client::MemoryClient api;
  api::DeviceClass cls;
  cls.metadata.name = "gpu-class";
  cls.spec.extendedResourceName = "example.com/gpu";
  ASSERT_TRUE(api.create(cls).ok());
  informer::SharedInformerFactory factory(api);
  DefaultDRAManager manager(factory);
  DefaultDRAManager without(factory, false, /*enableDeviceTaintRules=*/true, /*enableExtendedResource=*/false);
  EXPECT_EQ(without.deviceClassResolver(), nullptr);
  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(std::chrono::seconds(30)));
  const framework::DeviceClassResolver* resolver = manager.deviceClassResolver();
  ASSERT_NE(resolver, nullptr);
  for (int i = 0; i < 1000 && resolver->getDeviceClass("example.com/gpu") == nullptr; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_NE(resolver->getDeviceClass("example.com/gpu"), nullptr);
  EXPECT_EQ(resolver->getDeviceClass("deviceclass.resource.kubernetes.io/gpu-class")->metadata.name,
            "gpu-class");
  factory.stop();
}

}  // namespace
}  // namespace ks::plugins::dynamicresources
