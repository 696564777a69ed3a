// resource.k8s.io/v1 objects as the API server prints them (testdata/deviceclass.json, resourceclaim.json,
// resourceclaimtemplate.yaml, resourceslice.json): specific fields, the API's defaults, round trips, and the
// pod's side of dynamic resource allocation.

#include <gtest/gtest.h>

#include "test/api/json/test_util.h"

namespace ks::api {
namespace {

using testing::at;
using testing::expectRoundTrip;
using testing::loadFixture;

TEST(DeviceClassCodec, DecodesSelectorsConfigAndExtendedResourceName) {
  DeviceClass c = loadFixture<DeviceClass>("deviceclass.json");
  EXPECT_EQ(c.metadata.name, "gpu.example.com");
  EXPECT_EQ(c.metadata.generation, 2);
  ASSERT_EQ(c.spec.selectors.size(), 2u);
  ASSERT_TRUE(c.spec.selectors[0].cel.has_value());
  EXPECT_EQ(c.spec.selectors[0].cel->expression, R"(device.driver == "gpu.example.com")");
  ASSERT_EQ(c.spec.config.size(), 1u);
  ASSERT_TRUE(c.spec.config[0].opaque.has_value());
  EXPECT_EQ(c.spec.config[0].opaque->driver, "gpu.example.com");
  // Opaque parameters are kept as compact JSON with sorted keys.
  EXPECT_EQ(c.spec.config[0].opaque->parameters.json,
            R"({"apiVersion":"gpu.example.com/v1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"TimeSlicing","timeSlicingConfig":{"interval":"Long"}}})");
  EXPECT_EQ(c.spec.extendedResourceName, std::optional<std::string>("example.com/gpu"));
  expectRoundTrip(c);
  const std::string enc = encodeJson(c);
  EXPECT_NE(enc.find(R"("apiVersion":"resource.k8s.io/v1")"), std::string::npos);
  EXPECT_NE(enc.find(R"("kind":"DeviceClass")"), std::string::npos);
  EXPECT_NE(enc.find(R"("parameters":{"apiVersion":"gpu.example.com/v1")"), std::string::npos) << enc;
}

TEST(ResourceClaimCodec, DecodesRequestsConstraintsAndConfig) {
  ResourceClaim c = loadFixture<ResourceClaim>("resourceclaim.json");
  EXPECT_EQ(c.metadata.namespace_, "ml");
  EXPECT_EQ(c.metadata.finalizers, std::vector<std::string>{std::string(kResourceClaimFinalizer)});
  ASSERT_EQ(c.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(c.metadata.ownerReferences[0].kind, "Pod");

  const DeviceClaim& d = c.spec.devices;
  ASSERT_EQ(d.requests.size(), 2u);
  const DeviceRequest& gpus = d.requests[0];
  EXPECT_EQ(gpus.name, "gpus");
  ASSERT_TRUE(gpus.exactly.has_value());
  EXPECT_TRUE(gpus.firstAvailable.empty());
  EXPECT_EQ(gpus.exactly->deviceClassName, "gpu.example.com");
  EXPECT_EQ(gpus.exactly->allocationMode, "ExactCount");
  EXPECT_EQ(gpus.exactly->count, 2);
  EXPECT_EQ(gpus.exactly->adminAccess, std::optional<bool>(false));
  ASSERT_EQ(gpus.exactly->selectors.size(), 1u);
  EXPECT_EQ(gpus.exactly->selectors[0].cel->expression,
            R"(device.attributes["gpu.example.com"].model == "a100")");
  ASSERT_TRUE(gpus.exactly->capacity.has_value());
  EXPECT_EQ(gpus.exactly->capacity->requests.at("gpu.example.com/memory").value(), 40LL << 30);
  ASSERT_EQ(gpus.exactly->tolerations.size(), 2u);
  EXPECT_EQ(gpus.exactly->tolerations[0].op, "Exists");
  EXPECT_EQ(gpus.exactly->tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(gpus.exactly->tolerations[1].op, "Equal") << "the operator's default";
  EXPECT_EQ(gpus.exactly->tolerations[1].tolerationSeconds, std::optional<int64_t>(300));

  const DeviceRequest& nic = d.requests[1];
  EXPECT_FALSE(nic.exactly.has_value());
  ASSERT_EQ(nic.firstAvailable.size(), 2u);
  EXPECT_EQ(nic.firstAvailable[0].name, "big");
  EXPECT_EQ(nic.firstAvailable[0].allocationMode, "ExactCount") << "defaulted";
  EXPECT_EQ(nic.firstAvailable[0].count, 2);
  EXPECT_EQ(nic.firstAvailable[1].allocationMode, "All");
  EXPECT_EQ(nic.firstAvailable[1].count, 0) << "no count for All";

  ASSERT_EQ(d.constraints.size(), 2u);
  EXPECT_EQ(d.constraints[0].matchAttribute, std::optional<std::string>("gpu.example.com/numa"));
  EXPECT_EQ(d.constraints[0].requests, (std::vector<std::string>{"gpus", "nic"}));
  EXPECT_FALSE(d.constraints[0].distinctAttribute.has_value());
  EXPECT_EQ(d.constraints[1].distinctAttribute, std::optional<std::string>("nic.example.com/pciRoot"));
  EXPECT_TRUE(d.constraints[1].requests.empty());
  ASSERT_EQ(d.config.size(), 1u);
  EXPECT_EQ(d.config[0].requests, std::vector<std::string>{"gpus"});
  EXPECT_EQ(d.config[0].opaque->parameters.json, R"({"kind":"GpuConfig","mps":true})");
}

TEST(ResourceClaimCodec, DecodesAllocationReservationsAndDeviceStatus) {
  ResourceClaim c = loadFixture<ResourceClaim>("resourceclaim.json");
  ASSERT_TRUE(c.status.allocation.has_value());
  const AllocationResult& a = *c.status.allocation;
  ASSERT_TRUE(a.allocationTimestamp.has_value());
  EXPECT_EQ(formatTime(*a.allocationTimestamp), "2025-09-02T08:00:05Z");
  ASSERT_TRUE(a.nodeSelector.has_value());
  ASSERT_EQ(a.nodeSelector->nodeSelectorTerms.size(), 1u);
  EXPECT_EQ(a.nodeSelector->nodeSelectorTerms[0].matchFields[0].key, "metadata.name");
  EXPECT_EQ(a.nodeSelector->nodeSelectorTerms[0].matchFields[0].values, std::vector<std::string>{"node-1"});

  ASSERT_EQ(a.devices.results.size(), 3u);
  const DeviceRequestAllocationResult& gpu0 = a.devices.results[0];
  EXPECT_EQ(gpu0.request, "gpus");
  EXPECT_EQ(gpu0.driver, "gpu.example.com");
  EXPECT_EQ(gpu0.pool, "node-1");
  EXPECT_EQ(gpu0.device, "gpu-0");
  EXPECT_FALSE(gpu0.adminAccess.has_value());
  EXPECT_EQ(gpu0.bindingConditions, std::vector<std::string>{"dra.example.com/attached"});
  EXPECT_EQ(gpu0.bindingFailureConditions, std::vector<std::string>{"dra.example.com/attach-failed"});
  ASSERT_EQ(gpu0.tolerations.size(), 1u);
  EXPECT_EQ(a.devices.results[1].adminAccess, std::optional<bool>(false));
  const DeviceRequestAllocationResult& nic0 = a.devices.results[2];
  EXPECT_EQ(nic0.request, "nic/big");
  EXPECT_EQ(nic0.shareID, std::optional<std::string>("c1d2e3f4-0000-4000-8000-000000000001"));
  EXPECT_EQ(nic0.consumedCapacity.at("nic.example.com/bandwidth").value(), 25'000'000'000LL);
  ASSERT_EQ(a.devices.config.size(), 2u);
  EXPECT_EQ(a.devices.config[0].source, "FromClass");
  EXPECT_TRUE(a.devices.config[0].requests.empty());
  EXPECT_EQ(a.devices.config[1].source, "FromClaim");

  ASSERT_EQ(c.status.reservedFor.size(), 1u);
  EXPECT_EQ(c.status.reservedFor[0].resource, "pods");
  EXPECT_EQ(c.status.reservedFor[0].name, "trainer-0");
  EXPECT_EQ(c.status.reservedFor[0].uid, "aaaaaaaa-1111-4222-8333-444444444444");
  EXPECT_TRUE(c.status.reservedFor[0].apiGroup.empty());

  ASSERT_EQ(c.status.devices.size(), 2u);
  const AllocatedDeviceStatus& s = c.status.devices[0];
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].type, "Ready");
  EXPECT_EQ(s.conditions[0].observedGeneration, 1);
  EXPECT_EQ(s.conditions[0].lastTransitionTime, at("2025-09-02T08:00:30Z"));
  ASSERT_TRUE(s.data.has_value());
  EXPECT_EQ(s.data->json, R"({"temperature":41.5,"uuid":"GPU-1234"})");
  ASSERT_TRUE(s.networkData.has_value());
  EXPECT_EQ(s.networkData->interfaceName, "net1");
  EXPECT_EQ(s.networkData->ips, (std::vector<std::string>{"10.9.8.7/24", "2001:db8::5/64"}));
  EXPECT_EQ(s.networkData->hardwareAddress, "ea:9f:cb:40:b1:7b");
  EXPECT_EQ(c.status.devices[1].shareID, nic0.shareID);
  EXPECT_TRUE(c.status.devices[1].conditions.empty());
}

TEST(ResourceClaimCodec, RoundTripsEveryField) {
  ResourceClaim c = loadFixture<ResourceClaim>("resourceclaim.json");
  expectRoundTrip(c);
  const std::string enc = encodeJson(c);
  EXPECT_EQ(enc.find("futureField"), std::string::npos) << "unknown fields are dropped";
  // Required fields of the Go types are written even when empty; omitempty ones are not.
  EXPECT_NE(enc.find(R"("message":"")"), std::string::npos) << enc;
  EXPECT_EQ(enc.find(R"("apiGroup")"), std::string::npos) << enc;
  auto minimal = decodeJson<ResourceClaim>(R"({"metadata":{"name":"c"},"spec":{"devices":{}}})");
  ASSERT_TRUE(minimal.ok()) << minimal.error().message();
  EXPECT_EQ(encodeJson(*minimal),
            R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},)"
            R"("spec":{"devices":{"requests":[]}},"status":{}})");
  expectRoundTrip(*minimal);
}

TEST(ResourceClaimCodec, AppliesTheApiServersDefaults) {
  auto c = decodeJson<ResourceClaim>(R"({"spec":{"devices":{"requests":[
      {"name":"a","exactly":{"deviceClassName":"x","tolerations":[{"key":"k"}]}},
      {"name":"b","exactly":{"deviceClassName":"x","allocationMode":"All"}},
      {"name":"c","firstAvailable":[{"name":"s","deviceClassName":"x","count":3}]}]}},
    "status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"x",
      "tolerations":[{"key":"k","value":"v"}]}]}}}})");
  ASSERT_TRUE(c.ok()) << c.error().message();
  const auto& r = c->spec.devices.requests;
  EXPECT_EQ(r[0].exactly->allocationMode, "ExactCount");
  EXPECT_EQ(r[0].exactly->count, 1);
  EXPECT_EQ(r[0].exactly->tolerations[0].op, "Equal");
  EXPECT_EQ(r[1].exactly->count, 0);
  EXPECT_EQ(r[2].firstAvailable[0].allocationMode, "ExactCount");
  EXPECT_EQ(r[2].firstAvailable[0].count, 3);
  EXPECT_EQ(c->status.allocation->devices.results[0].tolerations[0].op, "Equal");
  expectRoundTrip(*c);
}

TEST(ResourceClaimTemplateCodec, DecodesTheClaimSpecAndItsMetadata) {
  ResourceClaimTemplate t = loadFixture<ResourceClaimTemplate>("resourceclaimtemplate.yaml");
  EXPECT_EQ(t.metadata.name, "single-gpu");
  EXPECT_EQ(t.metadata.namespace_, "ml");
  EXPECT_EQ(t.spec.metadata.labels.at("team"), "research");
  EXPECT_EQ(t.spec.metadata.annotations.at("example.com/cost-center"), "42");
  ASSERT_EQ(t.spec.spec.devices.requests.size(), 1u);
  const DeviceRequest& r = t.spec.spec.devices.requests[0];
  EXPECT_EQ(r.name, "gpu");
  ASSERT_TRUE(r.exactly.has_value());
  EXPECT_EQ(r.exactly->deviceClassName, "gpu.example.com");
  EXPECT_EQ(r.exactly->count, 1);
  EXPECT_EQ(r.exactly->selectors[0].cel->expression,
            R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")))");
  expectRoundTrip(t);
}

TEST(ResourceSliceCodec, DecodesPoolDevicesAttributesAndCapacity) {
  ResourceSlice s = loadFixture<ResourceSlice>("resourceslice.json");
  EXPECT_EQ(s.metadata.name, "node-1-gpu.example.com-5x9qz");
  EXPECT_TRUE(s.metadata.namespace_.empty());
  EXPECT_EQ(s.spec.driver, "gpu.example.com");
  EXPECT_EQ(s.spec.pool.name, "node-1");
  EXPECT_EQ(s.spec.pool.generation, 7);
  EXPECT_EQ(s.spec.pool.resourceSliceCount, 2);
  EXPECT_EQ(s.spec.nodeName, std::optional<std::string>("node-1"));
  EXPECT_FALSE(s.spec.nodeSelector.has_value());
  EXPECT_FALSE(s.spec.allNodes.has_value());
  EXPECT_FALSE(s.spec.perDeviceNodeSelection.has_value());

  ASSERT_EQ(s.spec.devices.size(), 2u);
  const Device& d = s.spec.devices[0];
  EXPECT_EQ(d.name, "gpu-0");
  ASSERT_EQ(d.attributes.size(), 5u);
  EXPECT_EQ(d.attributes.at("gpu.example.com/index").intValue, std::optional<int64_t>(0));
  EXPECT_FALSE(d.attributes.at("gpu.example.com/index").stringValue.has_value());
  EXPECT_EQ(d.attributes.at("gpu.example.com/model").stringValue, std::optional<std::string>("a100"));
  EXPECT_EQ(d.attributes.at("gpu.example.com/mig-capable").boolValue, std::optional<bool>(true));
  EXPECT_EQ(d.attributes.at("driverVersion").versionValue, std::optional<std::string>("1.2.3-rc.1"));

  const DeviceCapacity& memory = d.capacity.at("gpu.example.com/memory");
  EXPECT_EQ(memory.value.value(), 80LL << 30);
  ASSERT_TRUE(memory.requestPolicy.has_value());
  EXPECT_EQ(memory.requestPolicy->default_->value(), 10LL << 30);
  ASSERT_TRUE(memory.requestPolicy->validRange.has_value());
  EXPECT_EQ(memory.requestPolicy->validRange->min->value(), 10LL << 30);
  EXPECT_EQ(memory.requestPolicy->validRange->max->value(), 80LL << 30);
  EXPECT_EQ(memory.requestPolicy->validRange->step->value(), 10LL << 30);
  const DeviceCapacity& cores = d.capacity.at("gpu.example.com/cores");
  ASSERT_EQ(cores.requestPolicy->validValues.size(), 4u);
  EXPECT_EQ(cores.requestPolicy->validValues[3].value(), 8);
  EXPECT_FALSE(cores.requestPolicy->validRange.has_value());

  ASSERT_EQ(d.consumesCounters.size(), 1u);
  EXPECT_EQ(d.consumesCounters[0].counterSet, "gpu-0-counters");
  EXPECT_EQ(d.consumesCounters[0].counters.at("sms").value.value(), 54);
  ASSERT_EQ(d.taints.size(), 1u);
  EXPECT_EQ(d.taints[0].key, "gpu.example.com/unhealthy");
  EXPECT_EQ(d.taints[0].value, "ecc");
  EXPECT_EQ(d.taints[0].effect, "NoSchedule");
  EXPECT_EQ(d.taints[0].timeAdded, at("2025-09-02T07:00:00Z"));
  EXPECT_EQ(d.bindsToNode, std::optional<bool>(true));
  EXPECT_EQ(d.bindingConditions, std::vector<std::string>{"dra.example.com/attached"});
  EXPECT_EQ(d.bindingFailureConditions, std::vector<std::string>{"dra.example.com/attach-failed"});
  EXPECT_EQ(d.allowMultipleAllocations, std::optional<bool>(true));
  EXPECT_FALSE(d.nodeName.has_value());

  const Device& plain = s.spec.devices[1];
  EXPECT_TRUE(plain.capacity.empty());
  EXPECT_FALSE(plain.allowMultipleAllocations.has_value());

  ASSERT_EQ(s.spec.sharedCounters.size(), 1u);
  EXPECT_EQ(s.spec.sharedCounters[0].name, "gpu-0-counters");
  EXPECT_EQ(s.spec.sharedCounters[0].counters.at("memory").value.value(), 80LL << 30);
  expectRoundTrip(s);
}

TEST(ResourceSliceCodec, NodeSelectionAndExplicitFalse) {
  auto s = decodeJson<ResourceSlice>(R"({"metadata":{"name":"s"},"spec":{"driver":"d",
      "pool":{"name":"p","generation":1,"resourceSliceCount":1},"perDeviceNodeSelection":true,"devices":[
      {"name":"a","allNodes":true,"allowMultipleAllocations":false},
      {"name":"b","nodeSelector":{"nodeSelectorTerms":[{"matchExpressions":[
        {"key":"topology.kubernetes.io/zone","operator":"In","values":["z1"]}]}]}},
      {"name":"c","nodeName":"n1"}]}})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(s->spec.perDeviceNodeSelection, std::optional<bool>(true));
  EXPECT_EQ(s->spec.devices[0].allNodes, std::optional<bool>(true));
  EXPECT_EQ(s->spec.devices[0].allowMultipleAllocations, std::optional<bool>(false));
  ASSERT_TRUE(s->spec.devices[1].nodeSelector.has_value());
  EXPECT_EQ(s->spec.devices[1].nodeSelector->nodeSelectorTerms[0].matchExpressions[0].op, "In");
  EXPECT_EQ(s->spec.devices[2].nodeName, std::optional<std::string>("n1"));
  expectRoundTrip(*s);
  EXPECT_NE(encodeJson(*s).find(R"("allowMultipleAllocations":false)"), std::string::npos);
}

TEST(ResourceCodecs, ListsAndWatchEvents) {
  auto list = decodeListJson<ResourceSlice>(
      R"({"kind":"ResourceSliceList","apiVersion":"resource.k8s.io/v1","metadata":{"resourceVersion":"77"},
          "items":[{"metadata":{"name":"a"},"spec":{"driver":"d","pool":{"name":"p"},"devices":[]}}]})");
  ASSERT_TRUE(list.ok()) << list.error().message();
  EXPECT_EQ(list->metadata.resourceVersion, "77");
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].spec.driver, "d");
  EXPECT_NE(encodeListJson(*list).find(R"("kind":"ResourceSliceList")"), std::string::npos);

  auto ev = decodeWatchEventJson<ResourceClaim>(
      R"({"type":"MODIFIED","object":{"metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[]}},
          "status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}})");
  ASSERT_TRUE(ev.ok()) << ev.error().message();
  EXPECT_EQ(ev->type, WatchEventType::Modified);
  EXPECT_EQ(ev->object.status.reservedFor[0].uid, "u");

  auto cls =
      decodeWatchEventJson<DeviceClass>(R"({"type":"DELETED","object":{"metadata":{"name":"x"},"spec":{}}})");
  ASSERT_TRUE(cls.ok());
  EXPECT_EQ(cls->type, WatchEventType::Deleted);
}

TEST(RawExtensionCodec, KeepsAnyJsonAndNull) {
  auto c = decodeJson<DeviceClass>(R"({"spec":{"config":[
      {"opaque":{"driver":"a","parameters":[1,"two",{"z":null,"a":[true]}]}},
      {"opaque":{"driver":"b","parameters":null}},
      {"opaque":{"driver":"c","parameters":"text"}}]}})");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->spec.config[0].opaque->parameters.json, R"([1,"two",{"a":[true],"z":null}])");
  EXPECT_TRUE(c->spec.config[1].opaque->parameters.json.empty());
  EXPECT_EQ(c->spec.config[2].opaque->parameters.json, R"("text")");
  expectRoundTrip(*c);
  EXPECT_NE(encodeJson(*c).find(R"({"driver":"b","parameters":null})"), std::string::npos);
}

// The pod's side: spec.resourceClaims, containers[].resources.claims, the generated claims in the status.
TEST(PodCodec, ResourceClaimsInSpecContainersAndStatus) {
  auto pod = decodeJson<Pod>(R"({"metadata":{"name":"trainer-0","namespace":"ml"},"spec":{
      "resourceClaims":[{"name":"gpus","resourceClaimTemplateName":"single-gpu"},
                        {"name":"shared","resourceClaimName":"team-nic"}],
      "containers":[{"name":"train","resources":{"requests":{"cpu":"1"},
                     "claims":[{"name":"gpus"},{"name":"shared","request":"nic"}]}}]},
    "status":{"phase":"Pending",
      "resourceClaimStatuses":[{"name":"gpus","resourceClaimName":"trainer-0-gpus-x7k2p"},{"name":"none"}],
      "extendedResourceClaimStatus":{"resourceClaimName":"trainer-0-extended-resources-abcde",
        "requestMappings":[{"containerName":"train","resourceName":"example.com/gpu","requestName":"container-0-request-0"}]}}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const PodSpec& spec = pod->spec;
  ASSERT_EQ(spec.resourceClaims.size(), 2u);
  EXPECT_EQ(spec.resourceClaims[0].name, "gpus");
  EXPECT_EQ(spec.resourceClaims[0].resourceClaimTemplateName, std::optional<std::string>("single-gpu"));
  EXPECT_FALSE(spec.resourceClaims[0].resourceClaimName.has_value());
  EXPECT_EQ(spec.resourceClaims[1].resourceClaimName, std::optional<std::string>("team-nic"));
  const auto& claims = spec.containers[0].resources.claims;
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].name, "gpus");
  EXPECT_TRUE(claims[0].request.empty());
  EXPECT_EQ(claims[1].request, "nic");
  EXPECT_EQ(spec.containers[0].resources.requests.at("cpu").value(), 1);

  ASSERT_EQ(pod->status.resourceClaimStatuses.size(), 2u);
  EXPECT_EQ(pod->status.resourceClaimStatuses[0].resourceClaimName,
            std::optional<std::string>("trainer-0-gpus-x7k2p"));
  EXPECT_FALSE(pod->status.resourceClaimStatuses[1].resourceClaimName.has_value());
  ASSERT_TRUE(pod->status.extendedResourceClaimStatus.has_value());
  EXPECT_EQ(pod->status.extendedResourceClaimStatus->resourceClaimName, "trainer-0-extended-resources-abcde");
  ASSERT_EQ(pod->status.extendedResourceClaimStatus->requestMappings.size(), 1u);
  EXPECT_EQ(pod->status.extendedResourceClaimStatus->requestMappings[0].requestName, "container-0-request-0");
  expectRoundTrip(*pod);

  // Absent, they cost nothing in the encoding.
  auto plain = decodeJson<Pod>(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})");
  ASSERT_TRUE(plain.ok());
  const std::string enc = encodeJson(*plain);
  EXPECT_EQ(enc.find("laims"), std::string::npos) << enc;
  EXPECT_FALSE(plain->status.extendedResourceClaimStatus.has_value());
}

// A DeviceTaintRule as kube-apiserver v1.37.2 serves it (test/api/proto/testdata/record.py).
TEST(DeviceTaintRuleCodec, DecodesSelectorAndTaint) {
  DeviceTaintRule r = loadFixture<DeviceTaintRule>("devicetaintrule.json");
  EXPECT_EQ(r.metadata.name, "gpu-maintenance");
  EXPECT_TRUE(r.metadata.namespace_.empty());
  ASSERT_TRUE(r.spec.deviceSelector.has_value());
  EXPECT_EQ(r.spec.deviceSelector->driver, std::optional<std::string>("gpu.example.com"));
  EXPECT_EQ(r.spec.deviceSelector->pool, std::optional<std::string>("node-1"));
  EXPECT_EQ(r.spec.deviceSelector->device, std::optional<std::string>("gpu-0"));
  EXPECT_EQ(r.spec.taint.key, "example.com/maintenance");
  EXPECT_EQ(r.spec.taint.value, "firmware-upgrade");
  EXPECT_EQ(r.spec.taint.effect, "NoSchedule");
  EXPECT_TRUE(r.spec.taint.timeAdded.has_value());
  EXPECT_TRUE(r.status.conditions.empty());
  expectRoundTrip(r);

  // A selector with no field set selects every device; without a selector the rule selects none.
  auto any = decodeJson<DeviceTaintRule>(
      R"({"metadata":{"name":"all"},"spec":{"deviceSelector":{},"taint":{"key":"k","effect":"NoExecute"}}})");
  ASSERT_TRUE(any.ok()) << any.error().message();
  ASSERT_TRUE(any->spec.deviceSelector.has_value());
  EXPECT_FALSE(any->spec.deviceSelector->driver.has_value());
  auto none = decodeJson<DeviceTaintRule>(R"({"metadata":{"name":"none"},"spec":{"taint":{"key":"k"}}})");
  ASSERT_TRUE(none.ok()) << none.error().message();
  EXPECT_FALSE(none->spec.deviceSelector.has_value());
}

}  // namespace
}  // namespace ks::api
