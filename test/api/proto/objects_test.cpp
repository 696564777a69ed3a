// The protobuf codec against the JSON codec on what a real kube-apiserver v1.34.4 serves (testdata/, made
// by testdata/record.py): the same object read as protobuf and as JSON must decode equal, as a single
// object, as a list item and as a watch event.

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"

namespace ks::api {
namespace {

std::string readTestdata(const std::string& name) {
  std::ifstream in(std::string(KS_APIPROTO_TESTDATA_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing testdata " << name << " (testdata/record.py records it)";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The watch recording holds the frames of one watch: the object's ADDED event first.
std::string firstFrame(const std::string& stream) {
  std::string frame;
  ProtoFrameSplitter splitter;
  auto r = splitter.feed(stream, [&](std::string_view f) {
    if (frame.empty()) frame = f;
  });
  EXPECT_TRUE(r.ok());
  return frame;
}

template <typename T>
void expectProtoEqualsJson(const std::string& stem) {
  SCOPED_TRACE(stem);
  auto fromJson = decodeJson<T>(readTestdata(stem + ".json"));
  ASSERT_TRUE(fromJson.ok()) << fromJson.error().message();

  const std::string pb = readTestdata(stem + ".pb");
  ASSERT_TRUE(isProtobufEnvelope(pb));
  auto object = decodeProto<T>(pb);
  ASSERT_TRUE(object.ok()) << object.error().message();
  EXPECT_TRUE(*object == *fromJson) << "object: " << encodeJson(*object) << "\n  json: " << encodeJson(*fromJson);

  auto list = decodeListProto<T>(readTestdata(stem + ".list.pb"));
  ASSERT_TRUE(list.ok()) << list.error().message();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_TRUE(list->items[0] == *fromJson) << "list item: " << encodeJson(list->items[0]);
  EXPECT_FALSE(list->metadata.resourceVersion.empty());

  auto event = decodeWatchEventProto<T>(firstFrame(readTestdata(stem + ".watch.pb")));
  ASSERT_TRUE(event.ok()) << event.error().message();
  EXPECT_EQ(event->type, WatchEventType::Added);
  EXPECT_TRUE(event->object == *fromJson) << "watch event: " << encodeJson(event->object);
}

// The list decoder gives the same result however the body is cut into chunks.
template <typename T>
void expectChunkingIrrelevant(const std::string& stem) {
  SCOPED_TRACE(stem);
  const std::string body = readTestdata(stem + ".list.pb");
  auto whole = decodeListProto<T>(body);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  for (size_t chunk : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    ProtoListDecoder<T> decoder;
    for (size_t pos = 0; pos < body.size(); pos += chunk) {
      ASSERT_TRUE(decoder.feed(std::string_view(body).substr(pos, chunk)).ok()) << "chunk " << chunk;
    }
    auto list = decoder.finish();
    ASSERT_TRUE(list.ok()) << list.error().message();
    ASSERT_EQ(list->items.size(), whole->items.size());
    EXPECT_TRUE(list->items[0] == whole->items[0]) << "chunk " << chunk;
    EXPECT_EQ(list->metadata, whole->metadata);
  }
}

#define KS_PROTO_FIXTURE(Kind, stem)                             \
  TEST(ProtoObjects, Kind##_##stem) {                            \
    expectProtoEqualsJson<Kind>(#stem);                          \
  }                                                              \
  TEST(ProtoListChunks, Kind##_##stem) {                         \
    expectChunkingIrrelevant<Kind>(#stem);                       \
  }

// One row per recorded manifest (testdata/objects/<stem>.*).
KS_PROTO_FIXTURE(Namespace, namespace)
KS_PROTO_FIXTURE(Pod, pod)
KS_PROTO_FIXTURE(Pod, pod_volumes)
KS_PROTO_FIXTURE(Node, node)
KS_PROTO_FIXTURE(PersistentVolume, pv)
KS_PROTO_FIXTURE(PersistentVolume, pv_aws)
KS_PROTO_FIXTURE(PersistentVolume, pv_azuredisk)
KS_PROTO_FIXTURE(PersistentVolume, pv_azurefile)
KS_PROTO_FIXTURE(PersistentVolume, pv_cinder)
KS_PROTO_FIXTURE(PersistentVolume, pv_gce)
KS_PROTO_FIXTURE(PersistentVolume, pv_portworx)
KS_PROTO_FIXTURE(PersistentVolume, pv_vsphere)
KS_PROTO_FIXTURE(PersistentVolumeClaim, pvc)
KS_PROTO_FIXTURE(Service, service)
KS_PROTO_FIXTURE(ReplicationController, rc)
KS_PROTO_FIXTURE(StorageClass, storageclass)
KS_PROTO_FIXTURE(CSINode, csinode)
KS_PROTO_FIXTURE(CSIDriver, csidriver)
KS_PROTO_FIXTURE(CSIStorageCapacity, csistoragecapacity)
KS_PROTO_FIXTURE(VolumeAttachment, volumeattachment)
KS_PROTO_FIXTURE(PodDisruptionBudget, pdb)
KS_PROTO_FIXTURE(PodDisruptionBudget, pdb_min)
KS_PROTO_FIXTURE(ReplicaSet, replicaset)
KS_PROTO_FIXTURE(StatefulSet, statefulset)
KS_PROTO_FIXTURE(DeviceClass, deviceclass)
KS_PROTO_FIXTURE(ResourceClaim, resourceclaim)
KS_PROTO_FIXTURE(ResourceSlice, resourceslice)
KS_PROTO_FIXTURE(ResourceSlice, resourceslice_counters)
KS_PROTO_FIXTURE(ResourceSlice, resourceslice_perdevice)
KS_PROTO_FIXTURE(ResourceSlice, resourceslice_allnodes)

// Fields the equality above would miss if both codecs dropped them.
TEST(ProtoObjects, PodImageVolumeIsRead) {
  auto pod = decodeProto<Pod>(readTestdata("pod_volumes.pb"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const Volume* oci = nullptr;
  for (const auto& v : pod->spec.volumes) {
    if (v.name == "oci") oci = &v;
  }
  ASSERT_NE(oci, nullptr);
  ASSERT_TRUE(oci->image.has_value());
  EXPECT_EQ(oci->image->reference, "registry.example/models/llama:v2");
  EXPECT_EQ(oci->image->pullPolicy, "IfNotPresent");
  EXPECT_EQ(oci->otherSource, "");
}

TEST(ProtoStatus, NotFoundDecodesAsItsJson) {
  auto fromJson = decodeJson<ApiStatus>(readTestdata("status-notfound.json"));
  ASSERT_TRUE(fromJson.ok());
  auto status = decodeProto<ApiStatus>(readTestdata("status-notfound.pb"));
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(*status, *fromJson);
  EXPECT_EQ(status->code, 404);
  EXPECT_EQ(status->reason, "NotFound");
}

TEST(ProtoList, TruncatedBodyIsAnError) {
  const std::string body = readTestdata("namespace.list.pb");
  for (size_t cut : {size_t{2}, size_t{10}, body.size() / 2, body.size() - 1}) {
    ProtoListDecoder<Namespace> decoder;
    ASSERT_TRUE(decoder.feed(std::string_view(body).substr(0, cut)).ok());
    EXPECT_FALSE(decoder.finish().ok()) << "cut at " << cut;
  }
}

TEST(ProtoList, JsonBodyIsAnError) {
  ProtoListDecoder<Namespace> decoder;
  auto r = decoder.feed(R"({"kind":"NamespaceList","items":[]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("k8s"), std::string::npos);
}

TEST(ProtoBinding, EncodesWhatTheApiserverDecodes) {
  Binding b;
  b.metadata.name = "web-1";
  b.metadata.namespace_ = "shop";
  b.metadata.uid = "u-1";
  b.target.kind = "Node";
  b.target.name = "node-3";
  const std::string body = encodeProto(b);
  ASSERT_TRUE(isProtobufEnvelope(body));
  auto back = decodeProto<Binding>(body);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, b);
}

}  // namespace
}  // namespace ks::api
