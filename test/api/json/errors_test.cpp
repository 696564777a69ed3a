// Malformed input: every case gives an Error with the exact message (field path first), never a crash.

#include <string>

#include <gtest/gtest.h>

#include "test/api/json/test_util.h"

namespace ks::api {
namespace {

struct ErrorCase {
  const char* name;
  std::string input;
  std::string error;
};

const std::string kQuantityRegexError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

class PodErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(PodErrorTest, ReportsPathAndReason) {
  const ErrorCase& c = GetParam();
  auto pod = decodeJson<Pod>(c.input);
  ASSERT_FALSE(pod.ok()) << c.name;
  EXPECT_EQ(pod.error().message(), c.error) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, PodErrorTest,
    ::testing::Values(
        ErrorCase{"LabelsArray", R"({"metadata":{"labels":["a"]}})",
                  "metadata.labels: expected an object, got array"},
        ErrorCase{"LabelValueNumber", R"({"metadata":{"labels":{"app":1}}})",
                  "metadata.labels.app: expected a string, got number"},
        ErrorCase{"PriorityString", R"({"spec":{"priority":"high"}})",
                  "spec.priority: expected an integer, got string"},
        ErrorCase{"PriorityOverflowsInt32", R"({"spec":{"priority":3000000000}})",
                  "spec.priority: value 3000000000 overflows int32"},
        ErrorCase{"PriorityNegativeOverflow", R"({"spec":{"priority":-2147483649}})",
                  "spec.priority: value -2147483649 overflows int32"},
        ErrorCase{"PriorityFraction", R"({"spec":{"priority":1.5}})",
                  "spec.priority: expected an integer, got number 1.5"},
        ErrorCase{"GenerationBeyondInt64", R"({"metadata":{"generation":9223372036854775808}})",
                  "metadata.generation: value 9223372036854775808 overflows int64"},
        ErrorCase{"GenerationHuge", R"({"metadata":{"generation":123456789012345678901234567890}})",
                  "metadata.generation: value 1.2345678901234568e+29 overflows int64"},
        ErrorCase{"BadCpuQuantity",
                  R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"one"}}}]}})",
                  "spec.containers[0].resources.requests.cpu: " + kQuantityRegexError},
        ErrorCase{
            "EmptyQuantity",
            R"({"spec":{"containers":[{"name":"a"},{"name":"c","resources":{"limits":{"memory":""}}}]}})",
            "spec.containers[1].resources.limits.memory: " + kQuantityRegexError},
        ErrorCase{"QuantityBadSuffix", R"({"spec":{"overhead":{"cpu":"5Xi"}}})",
                  "spec.overhead.cpu: " + kQuantityRegexError},
        ErrorCase{"QuantityObject", R"({"spec":{"overhead":{"cpu":{"v":1}}}})",
                  "spec.overhead.cpu: expected a quantity string, got object"},
        ErrorCase{"ContainersObject", R"({"spec":{"containers":{"name":"c"}}})",
                  "spec.containers: expected an array, got object"},
        ErrorCase{"ContainerNotObject", R"({"spec":{"containers":["c"]}})",
                  "spec.containers[0]: expected an object, got string"},
        ErrorCase{
            "HostPortString",
            R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":80},{"containerPort":"81"}]}]}})",
            "spec.containers[0].ports[1].containerPort: expected an integer, got string"},
        ErrorCase{
            "DeepAffinity",
            R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
            R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":"a"}]}]}}}}})",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0].values: expected an array, got string"},
        ErrorCase{
            "PodAntiAffinityWeight",
            R"({"spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":)"
            R"([{"weight":true,"podAffinityTerm":{"topologyKey":"z"}}]}}}})",
            "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
            "expected an integer, got boolean"},
        ErrorCase{"TolerationSeconds", R"({"spec":{"tolerations":[{"key":"k","tolerationSeconds":"300"}]}})",
                  "spec.tolerations[0].tolerationSeconds: expected an integer, got string"},
        ErrorCase{"HostNetworkString", R"({"spec":{"hostNetwork":"true"}})",
                  "spec.hostNetwork: expected a boolean, got string"},
        ErrorCase{"BadCreationTimestamp", R"({"metadata":{"creationTimestamp":"2024-05-02 08:15:30"}})",
                  "metadata.creationTimestamp: parsing time \"2024-05-02 08:15:30\" as "
                  "\"2006-01-02T15:04:05Z07:00\": cannot parse \" 08:15:30\" as \"T\""},
        ErrorCase{"TimestampMonthRange", R"({"status":{"startTime":"2024-13-02T08:15:30Z"}})",
                  "status.startTime: parsing time \"2024-13-02T08:15:30Z\": month out of range"},
        ErrorCase{"TimestampNumber",
                  R"({"status":{"conditions":[{"type":"Ready","lastTransitionTime":1714637730}]}})",
                  "status.conditions[0].lastTransitionTime: expected a time string, got number"},
        ErrorCase{"VolumeSourceWrongType",
                  R"({"spec":{"volumes":[{"name":"v","persistentVolumeClaim":"x"}]}})",
                  "spec.volumes[0].persistentVolumeClaim: expected an object, got string"},
        ErrorCase{"EphemeralRequests",
                  R"({"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":)"
                  R"({"resources":{"requests":{"storage":"lots"}}}}}}]}})",
                  "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests.storage: " +
                      kQuantityRegexError},
        ErrorCase{"TopLevelArray", R"([{"metadata":{}}])", "expected an object, got array"},
        ErrorCase{"TopLevelString", R"("pod")", "expected an object, got string"},
        ErrorCase{"TopLevelNull", "null", "expected an object, got null"},
        ErrorCase{"Truncated", R"({"metadata":{"name":"p")",
                  "invalid JSON: parse error at line 1, column 24: syntax error while parsing object - "
                  "unexpected end of input; expected '}'"},
        ErrorCase{"Empty", "",
                  "invalid JSON: parse error at line 1, column 1: syntax error while parsing value - "
                  "unexpected end of input; expected '[', '{', or a literal"},
        ErrorCase{"TrailingGarbage", R"({"metadata":{}} x)",
                  "invalid JSON: parse error at line 1, column 17: syntax error while parsing value - "
                  "invalid literal; last read: '\"metadata\":{}} x'; expected end of input"}),
    [](const ::testing::TestParamInfo<ErrorCase>& param) { return std::string(param.param.name); });

TEST(CodecErrors, OtherKinds) {
  auto node = decodeJson<Node>(R"({"status":{"allocatable":{"cpu":"2","memory":"1.5.5Gi"}}})");
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.error().message(), "status.allocatable.memory: " + kQuantityRegexError);

  auto taint =
      decodeJson<Node>(R"({"spec":{"taints":[{"key":"k","effect":"NoSchedule","timeAdded":"yesterday"}]}})");
  ASSERT_FALSE(taint.ok());
  EXPECT_EQ(taint.error().message(),
            "spec.taints[0].timeAdded: parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": "
            "cannot parse \"yesterday\" as \"2006\"");

  auto ns = decodeJson<Namespace>(R"({"status":{"phase":7}})");
  ASSERT_FALSE(ns.ok());
  EXPECT_EQ(ns.error().message(), "status.phase: expected a string, got number");

  auto csinode =
      decodeJson<CSINode>(R"({"spec":{"drivers":[{"name":"d","allocatable":{"count":-3000000000}}]}})");
  ASSERT_FALSE(csinode.ok());
  EXPECT_EQ(csinode.error().message(),
            "spec.drivers[0].allocatable.count: value -3000000000 overflows int32");

  auto pdb = decodeJson<PodDisruptionBudget>(R"({"spec":{"minAvailable":true}})");
  ASSERT_FALSE(pdb.ok());
  EXPECT_EQ(pdb.error().message(), "spec.minAvailable: expected an integer or string, got boolean");

  auto pdbBig = decodeJson<PodDisruptionBudget>(R"({"spec":{"maxUnavailable":4294967296}})");
  ASSERT_FALSE(pdbBig.ok());
  EXPECT_EQ(pdbBig.error().message(), "spec.maxUnavailable: value 4294967296 overflows int32");

  auto lease = decodeJson<Lease>(R"({"spec":{"renewTime":"2024-05-02T08:15:29.987654+25:00"}})");
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.error().message(),
            "spec.renewTime: parsing time \"2024-05-02T08:15:29.987654+25:00\": time zone offset hour out of "
            "range");

  auto ev = decodeJson<Event>(R"({"series":{"count":"3"}})");
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.error().message(), "series.count: expected an integer, got string");

  auto st = decodeJson<ApiStatus>(R"({"code":"409"})");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), "code: expected an integer, got string");

  auto sc = decodeJson<StorageClass>(
      R"({"allowedTopologies":[{"matchLabelExpressions":[{"key":"k","values":[1]}]}]})");
  ASSERT_FALSE(sc.ok());
  EXPECT_EQ(sc.error().message(),
            "allowedTopologies[0].matchLabelExpressions[0].values[0]: expected a string, got number");

  auto cap = decodeJson<CSIStorageCapacity>(R"({"capacity":"10Gi","maximumVolumeSize":"ten"})");
  ASSERT_FALSE(cap.ok());
  EXPECT_EQ(cap.error().message(), "maximumVolumeSize: " + kQuantityRegexError);
}

class ResourceErrorTest : public ::testing::TestWithParam<ErrorCase> {};

// The four resource.k8s.io kinds, by the first word of the case's name.
TEST_P(ResourceErrorTest, ReportsPathAndReason) {
  const ErrorCase& c = GetParam();
  const std::string name = c.name;
  std::string message;
  if (name.rfind("Slice", 0) == 0) {
    auto r = decodeJson<ResourceSlice>(c.input);
    ASSERT_FALSE(r.ok()) << c.name;
    message = r.error().message();
  } else if (name.rfind("Class", 0) == 0) {
    auto r = decodeJson<DeviceClass>(c.input);
    ASSERT_FALSE(r.ok()) << c.name;
    message = r.error().message();
  } else if (name.rfind("Template", 0) == 0) {
    auto r = decodeJson<ResourceClaimTemplate>(c.input);
    ASSERT_FALSE(r.ok()) << c.name;
    message = r.error().message();
  } else {
    auto r = decodeJson<ResourceClaim>(c.input);
    ASSERT_FALSE(r.ok()) << c.name;
    message = r.error().message();
  }
  EXPECT_EQ(message, c.error) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ResourceErrorTest,
    ::testing::Values(
        ErrorCase{"ClaimNotAnObject", "[]", "expected an object, got array"},
        ErrorCase{"ClaimRequestsObject", R"({"spec":{"devices":{"requests":{"name":"a"}}}})",
                  "spec.devices.requests: expected an array, got object"},
        ErrorCase{
            "ClaimCountString",
            R"({"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c","count":"2"}}]}}})",
            "spec.devices.requests[0].exactly.count: expected an integer, got string"},
        ErrorCase{
            "ClaimSubrequestSelector",
            R"({"spec":{"devices":{"requests":[{"name":"a","firstAvailable":[{"name":"s",)"
            R"("deviceClassName":"c","selectors":[{"cel":{"expression":true}}]}]}]}}})",
            "spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: expected a string, got "
            "boolean"},
        ErrorCase{
            "ClaimCapacityQuantity",
            R"({"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c",)"
            R"("capacity":{"requests":{"example.com/mem":"lots"}}}}]}}})",
            "spec.devices.requests[0].exactly.capacity.requests.example.com/mem: " + kQuantityRegexError},
        ErrorCase{
            "ClaimTolerationSeconds",
            R"({"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c",)"
            R"("tolerations":[{"key":"k","tolerationSeconds":1.5}]}}]}}})",
            "spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds: expected an integer, got "
            "number 1.5"},
        ErrorCase{"ClaimReservedForUid",
                  R"({"status":{"reservedFor":[{"resource":"pods","name":"p","uid":7}]}})",
                  "status.reservedFor[0].uid: expected a string, got number"},
        ErrorCase{"ClaimAllocationNodeSelector",
                  R"({"status":{"allocation":{"nodeSelector":{"nodeSelectorTerms":{}}}}})",
                  "status.allocation.nodeSelector.nodeSelectorTerms: expected an array, got object"},
        ErrorCase{"ClaimAllocationTimestamp",
                  R"({"status":{"allocation":{"allocationTimestamp":"yesterday"}}})",
                  "status.allocation.allocationTimestamp: parsing time \"yesterday\" as "
                  "\"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\""},
        ErrorCase{"ClaimConsumedCapacity",
                  R"({"status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p",)"
                  R"("device":"x","consumedCapacity":{"bw":[]}}]}}}})",
                  "status.allocation.devices.results[0].consumedCapacity.bw: expected a quantity string, got "
                  "array"},
        ErrorCase{
            "ClaimDeviceCondition",
            R"({"status":{"devices":[{"driver":"d","pool":"p","device":"x","conditions":[{"type":"Ready",)"
            R"("status":"True","observedGeneration":"1"}]}]}})",
            "status.devices[0].conditions[0].observedGeneration: expected an integer, got string"},
        ErrorCase{"ClassSelectorsObject", R"({"spec":{"selectors":{"cel":{}}}})",
                  "spec.selectors: expected an array, got object"},
        ErrorCase{"ClassOpaqueDriver", R"({"spec":{"config":[{"opaque":{"driver":["a"]}}]}})",
                  "spec.config[0].opaque.driver: expected a string, got array"},
        ErrorCase{"TemplateRequestName", R"({"spec":{"spec":{"devices":{"requests":[{"name":1}]}}}})",
                  "spec.spec.devices.requests[0].name: expected a string, got number"},
        ErrorCase{"SliceGenerationString", R"({"spec":{"pool":{"name":"p","generation":"7"}}})",
                  "spec.pool.generation: expected an integer, got string"},
        ErrorCase{"SliceAttributeIntString",
                  R"({"spec":{"devices":[{"name":"d","attributes":{"example.com/index":{"int":"0"}}}]}})",
                  "spec.devices[0].attributes.example.com/index.int: expected an integer, got string"},
        ErrorCase{"SliceAttributeBoolNumber",
                  R"({"spec":{"devices":[{"name":"d","attributes":{"healthy":{"bool":1}}}]}})",
                  "spec.devices[0].attributes.healthy.bool: expected a boolean, got number"},
        ErrorCase{"SliceCapacityValue",
                  R"({"spec":{"devices":[{"name":"d","capacity":{"memory":{"value":"8 Gi"}}}]}})",
                  "spec.devices[0].capacity.memory.value: " + kQuantityRegexError},
        ErrorCase{"SliceRequestPolicyRange",
                  R"({"spec":{"devices":[{"name":"d","capacity":{"m":{"value":"8Gi","requestPolicy":)"
                  R"({"validRange":{"min":"1Gi","step":"x"}}}}}]}})",
                  "spec.devices[0].capacity.m.requestPolicy.validRange.step: " + kQuantityRegexError},
        ErrorCase{
            "SliceTaintTime",
            R"({"spec":{"devices":[{"name":"d","taints":[{"key":"k","effect":"NoSchedule","timeAdded":5}]}]}})",
            "spec.devices[0].taints[0].timeAdded: expected a time string, got number"},
        ErrorCase{"SliceCounterSet",
                  R"({"spec":{"sharedCounters":[{"name":"c","counters":{"sms":{"value":true}}}]}})",
                  "spec.sharedCounters[0].counters.sms.value: expected a quantity string, got boolean"},
        ErrorCase{"SliceAllNodesString", R"({"spec":{"allNodes":"yes"}})",
                  "spec.allNodes: expected a boolean, got string"}));

TEST(CodecErrors, PodResourceClaims) {
  auto spec = decodeJson<Pod>(R"({"spec":{"resourceClaims":[{"name":"a","resourceClaimName":5}]}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message(),
            "spec.resourceClaims[0].resourceClaimName: expected a string, got number");
  auto container =
      decodeJson<Pod>(R"({"spec":{"containers":[{"name":"c","resources":{"claims":[{"name":1}]}}]}})");
  ASSERT_FALSE(container.ok());
  EXPECT_EQ(container.error().message(),
            "spec.containers[0].resources.claims[0].name: expected a string, got number");
  auto status = decodeJson<Pod>(R"({"status":{"resourceClaimStatuses":{}}})");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(), "status.resourceClaimStatuses: expected an array, got object");
  auto extended = decodeJson<Pod>(
      R"({"status":{"extendedResourceClaimStatus":{"requestMappings":[{"containerName":2}]}}})");
  ASSERT_FALSE(extended.ok());
  EXPECT_EQ(
      extended.error().message(),
      "status.extendedResourceClaimStatus.requestMappings[0].containerName: expected a string, got number");
}

TEST(CodecErrors, WatchEvents) {
  auto unknown = decodeWatchEventJson<Pod>(R"({"type":"UPSERTED","object":{}})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "type: unknown watch event type \"UPSERTED\"");

  auto missing = decodeWatchEventJson<Pod>(R"({"type":"ADDED"})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "object: missing");

  auto bad = decodeWatchEventJson<Pod>(R"({"type":"MODIFIED","object":{"spec":{"nodeName":5}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "object.spec.nodeName: expected a string, got number");

  auto badStatus = decodeWatchEventJson<Pod>(R"({"type":"ERROR","object":{"code":"gone"}})");
  ASSERT_FALSE(badStatus.ok());
  EXPECT_EQ(badStatus.error().message(), "object.code: expected an integer, got string");

  auto notJson = decodeWatchEventJson<Pod>(R"({"type":"ADDED","object":{)");
  ASSERT_FALSE(notJson.ok());
  EXPECT_EQ(notJson.error().message().rfind("invalid JSON: parse error at line 1, column 27", 0), 0u)
      << notJson.error().message();

  auto list = decodeListJson<Pod>(R"({"metadata":{"remainingItemCount":"many"},"items":[]})");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message(), "metadata.remainingItemCount: expected an integer, got string");
}

TEST(CodecErrors, QuantitiesAsNumbersAndNullsAreAccepted) {
  // As upstream's Quantity.UnmarshalJSON: bare numbers are parsed as quantities; nulls leave zero values.
  auto pod = decodeJson<Pod>(R"({"metadata":{"labels":null,"name":null},
    "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":0.5,"memory":1073741824,"pods":null}}}],
    "priority":null,"tolerations":[null]}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const auto& req = pod->spec.containers[0].resources.requests;
  EXPECT_EQ(req.at("cpu").milliValue(), 500);
  EXPECT_EQ(req.at("memory").value(), 1LL << 30);
  EXPECT_TRUE(req.at("pods").isZero());
  EXPECT_FALSE(pod->spec.priority.has_value());
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  EXPECT_EQ(pod->spec.tolerations[0], Toleration{});
  // Quoted quantities are trimmed.
  auto trimmed = decodeJson<Node>(R"({"status":{"capacity":{"cpu":" 4 "}}})");
  ASSERT_TRUE(trimmed.ok());
  EXPECT_EQ(trimmed->status.capacity.at("cpu").value(), 4);
}

TEST(CodecErrors, NeverCrashesOnMutatedInput) {
  // Truncations and byte flips of a real object all return (ok or an error) without crashing.
  std::string pod = testing::readTestdata("pod.json");
  for (size_t n = 0; n < pod.size(); n += 97) {
    auto r = decodeJson<Pod>(std::string_view(pod).substr(0, n));
    EXPECT_FALSE(r.ok());
  }
  const char replacements[] = {'"', '[', '{', '1', 'x', '-', '}', ':'};
  size_t i = 0;
  for (size_t pos = 0; pos < pod.size(); pos += 13, ++i) {
    std::string m = pod;
    m[pos] = replacements[i % sizeof(replacements)];
    auto r = decodeJson<Pod>(m);
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message().empty());
    }
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(decodeJson<Pod>(deep).ok());
  std::string deepObj;
  for (int k = 0; k < 20000; ++k) deepObj += R"({"metadata":)";
  EXPECT_FALSE(decodeJson<Pod>(deepObj).ok());
  EXPECT_FALSE(decodeJson<Pod>(std::string("{\"metadata\":{\"name\":\"\xff\xfe\"}}")).ok());
  // Objects built in C++ may hold invalid UTF-8: encoding replaces it instead of throwing.
  Pod p;
  p.metadata.name = "bad\xff";
  EXPECT_EQ(encodeJson(p).find("bad\xff"), std::string::npos);
  EXPECT_NE(encodeJson(p).find("bad\xef\xbf\xbd"), std::string::npos);
}

}  // namespace
}  // namespace ks::api
