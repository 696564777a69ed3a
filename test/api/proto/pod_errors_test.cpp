// Malformed Pod messages: each gives an Error naming the field path, as the JSON codec does for the same
// mistake (test/api/json/errors_test.cpp), never a crash or a partial object. The messages are written
// field by field, so each case shows the field numbers it is about.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"
#include "pkg/api/proto/wire.h"

namespace ks::api {
namespace {

using proto::Writer;

std::string bytesField(uint32_t number, std::string_view v) {
  Writer w;
  w.bytes(number, v);
  return w.take();
}

std::string varintField(uint32_t number, uint64_t v) {
  Writer w;
  w.varint(number, v);
  return w.take();
}

// "k8s\0" + runtime.Unknown{typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2}.
std::string envelope(std::string_view pod) {
  return std::string("k8s\0", 4) + bytesField(1, bytesField(1, "v1") + bytesField(2, "Pod")) +
         bytesField(2, pod);
}

// map<string, Quantity> entry {key = 1, value = 2 {string = 1}}.
std::string quantityEntry(uint32_t number, std::string_view key, std::string_view quantity) {
  return bytesField(number, bytesField(1, key) + bytesField(2, bytesField(1, quantity)));
}

// Pod{spec = 2 {containers = 2 [...]}}.
std::string podWithContainers(std::string_view containers) {
  return bytesField(2, containers);
}

// Pod{spec = 2 {volumes = 1 [{name = 1 "v", volumeSource = 2 {<source>}}]}}.
std::string podWithVolume(std::string_view source) {
  return bytesField(2, bytesField(1, bytesField(1, "v") + bytesField(2, source)));
}

std::string protoError(const std::string& pod) {
  auto r = decodeProto<Pod>(envelope(pod));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message();
}

std::string jsonError(std::string_view pod) {
  auto r = decodeJson<Pod>(pod);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message();
}

TEST(ProtoPodErrors, BadQuantityNamesItsPathAsJsonDoes) {
  // containers[0]{name = 1, resources = 8 {requests = 2 {cpu: "one"}}}
  const std::string pod =
      podWithContainers(bytesField(2, bytesField(1, "c") + bytesField(8, quantityEntry(2, "cpu", "one"))));
  const std::string err = protoError(pod);
  EXPECT_EQ(err,
            jsonError(R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"one"}}}]}})"));
  EXPECT_EQ(err.rfind("spec.containers[0].resources.requests.cpu: ", 0), 0u) << err;
}

// PodStatus allocatedResources = 19 and resources = 20 (v1.37, past the recorded v1.34 testdata): read as
// their JSON, and a bad quantity in them named by its path.
TEST(ProtoPodErrors, PodLevelResizeStatus) {
  const std::string status = quantityEntry(19, "cpu", "1500m") +
                             bytesField(20, quantityEntry(1, "cpu", "3") + quantityEntry(2, "cpu", "2"));
  auto proto = decodeProto<Pod>(envelope(bytesField(3, status)));
  ASSERT_TRUE(proto.ok()) << proto.error().message();
  auto json = decodeJson<Pod>(
      R"({"status":{"allocatedResources":{"cpu":"1500m"},"resources":{"limits":{"cpu":"3"},"requests":{"cpu":"2"}}}})");
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_EQ(proto->status, json->status);
  ASSERT_TRUE(proto->status.resources.has_value());
  EXPECT_EQ(proto->status.resources->requests.at("cpu").milliValue(), 2000);

  EXPECT_EQ(protoError(bytesField(3, quantityEntry(19, "memory", "lots"))),
            jsonError(R"({"status":{"allocatedResources":{"memory":"lots"}}})"));
  EXPECT_EQ(protoError(bytesField(3, bytesField(20, quantityEntry(2, "memory", "lots")))),
            jsonError(R"({"status":{"resources":{"requests":{"memory":"lots"}}}})"));
}

TEST(ProtoPodErrors, SecondContainerAndLimits) {
  const std::string pod =
      podWithContainers(bytesField(2, bytesField(1, "a")) +
                        bytesField(2, bytesField(1, "c") + bytesField(8, quantityEntry(1, "memory", ""))));
  EXPECT_EQ(
      protoError(pod),
      jsonError(
          R"({"spec":{"containers":[{"name":"a"},{"name":"c","resources":{"limits":{"memory":""}}}]}})"));
}

TEST(ProtoPodErrors, OverheadQuantity) {
  EXPECT_EQ(protoError(bytesField(2, quantityEntry(32, "cpu", "5Xi"))),
            jsonError(R"({"spec":{"overhead":{"cpu":"5Xi"}}})"));
}

TEST(ProtoPodErrors, WrongWireType) {
  // spec.priority = 25 is a varint; here length-delimited.
  EXPECT_EQ(protoError(bytesField(2, bytesField(25, "high"))),
            "spec.priority: field 25 has wire type length-delimited, expected varint");
  // spec.containers[0].ports[0].containerPort = 3 is a varint; here a string.
  EXPECT_EQ(
      protoError(podWithContainers(bytesField(2, bytesField(6, bytesField(3, "80"))))),
      "spec.containers[0].ports[0].containerPort: field 3 has wire type length-delimited, expected varint");
  // status.conditions[0].lastTransitionTime is a message; here a varint.
  EXPECT_EQ(
      protoError(bytesField(3, bytesField(2, varintField(4, 7)))),
      "status.conditions[0].lastTransitionTime: field 4 has wire type varint, expected length-delimited");
}

TEST(ProtoPodErrors, GarbledNestedMessage) {
  // A port whose bytes end inside a varint.
  EXPECT_EQ(protoError(podWithContainers(bytesField(2, bytesField(1, "c") + bytesField(6, "\x10")))),
            "spec.containers[0].ports[0]: truncated varint");
  // Inline VolumeSource (no path segment of its own, as in JSON): a gcePersistentDisk = 3 whose pdName
  // claims 5 bytes and has 2.
  EXPECT_EQ(protoError(podWithVolume(bytesField(3, std::string("\x0a\x05") + "ab"))),
            "spec.volumes[0].gcePersistentDisk: length-delimited value past the end of its message");
  // ephemeral = 29 {volumeClaimTemplate = 1 {spec = 2 {resources = 2 {requests = 2}}}}: JSON's path.
  const std::string ephemeral =
      bytesField(1, bytesField(2, bytesField(2, quantityEntry(2, "storage", "lots"))));
  EXPECT_EQ(protoError(podWithVolume(bytesField(29, ephemeral))),
            jsonError(R"({"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":)"
                      R"({"resources":{"requests":{"storage":"lots"}}}}}}]}})"));
}

TEST(ProtoPodErrors, TruncatedPodIsAnError) {
  const std::string metadata = bytesField(1, bytesField(1, "web"));
  const std::string pod =
      metadata +
      podWithContainers(bytesField(2, bytesField(1, "c") + bytesField(8, quantityEntry(2, "cpu", "250m"))));
  ASSERT_TRUE(decodeProto<Pod>(envelope(pod)).ok());
  // Any cut but the one between metadata and spec (a well-formed pod without spec) leaves a field
  // unfinished: an error, never a partial pod.
  for (size_t cut = 1; cut < pod.size(); ++cut) {
    if (cut == metadata.size()) continue;
    EXPECT_FALSE(decodeProto<Pod>(envelope(pod.substr(0, cut))).ok()) << cut;
  }
}

}  // namespace
}  // namespace ks::api
