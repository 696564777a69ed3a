// The protobuf codec against the JSON codec on what a real kube-apiserver serves (testdata/, made
// by testdata/record.py): the same object read as protobuf and as JSON must decode equal, as a single
// object, as a list item and as a watch event.

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"
#include "pkg/api/proto/wire.h"
#include "test/support/scheduling_objects.h"

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
KS_PROTO_FIXTURE(Pod, pod_affinity)
KS_PROTO_FIXTURE(Node, node)
KS_PROTO_FIXTURE(Node, node_declared_features)
KS_PROTO_FIXTURE(Pod, pod_declared_features)
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
KS_PROTO_FIXTURE(DeviceTaintRule, devicetaintrule)
KS_PROTO_FIXTURE(Workload, workload)
KS_PROTO_FIXTURE(Workload, workload_composite)
KS_PROTO_FIXTURE(PodGroup, podgroup)
KS_PROTO_FIXTURE(Pod, pod_schedulinggroup)

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

TEST(ProtoObjects, CSIDriverPreventPodSchedulingIfMissingIsRead) {
  auto driver = decodeProto<CSIDriver>(readTestdata("csidriver.pb"));
  ASSERT_TRUE(driver.ok()) << driver.error().message();
  EXPECT_EQ(driver->spec.preventPodSchedulingIfMissing, std::optional<bool>(true));
  EXPECT_EQ(driver->spec.storageCapacity, std::optional<bool>(true));
}

// scheduling.k8s.io/v1beta1: every field the recordings set (empty union members included).
TEST(ProtoObjects, WorkloadAndPodGroupFieldsAreRead) {
  auto workload = decodeProto<Workload>(readTestdata("workload.pb"));
  ASSERT_TRUE(workload.ok()) << workload.error().message();
  EXPECT_TRUE(workload->spec == testing::expectedWorkloadSpec()) << encodeJson(*workload);
  auto composite = decodeProto<Workload>(readTestdata("workload_composite.pb"));
  ASSERT_TRUE(composite.ok()) << composite.error().message();
  EXPECT_TRUE(composite->spec == testing::expectedCompositeWorkloadSpec()) << encodeJson(*composite);
  auto group = decodeProto<PodGroup>(readTestdata("podgroup.pb"));
  ASSERT_TRUE(group.ok()) << group.error().message();
  EXPECT_TRUE(group->spec == testing::expectedPodGroupSpec()) << encodeJson(*group);
  EXPECT_TRUE(group->status == testing::expectedPodGroupStatus()) << encodeJson(*group);
  auto pod = decodeProto<Pod>(readTestdata("pod_schedulinggroup.pb"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_TRUE(pod->spec.schedulingGroup.has_value());
  EXPECT_EQ(pod->spec.schedulingGroup->podGroupName, std::optional<std::string>("training-workers-0"));
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

// The fields NodeDeclaredFeatures reads, recorded: status.declaredFeatures (NodeStatus 14); a pod's
// hostUsers (PodSpec 37), restartPolicyRules (Container 25) and volumeMounts (9) with bindMountOptions
// (VolumeMount 8). The fixtures' equality with JSON above would also hold if both codecs dropped them.
TEST(ProtoObjects, DeclaredFeatureFieldsDecoded) {
  auto node = decodeProto<Node>(readTestdata("node_declared_features.pb"));
  ASSERT_TRUE(node.ok()) << node.error().message();
  EXPECT_EQ(node->status.declaredFeatures,
            (std::vector<std::string>{"RestartAllContainersOnContainerExits",
                                      "UserNamespacesHostNetworkSupport", "VolumeBindMountOptions"}));
  auto pod = decodeProto<Pod>(readTestdata("pod_declared_features.pb"));
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  EXPECT_EQ(pod->spec.hostUsers, std::optional<bool>(false));
  const Container& web = pod->spec.containers.at(0);
  ASSERT_EQ(web.restartPolicyRules.size(), 1u);
  EXPECT_EQ(web.restartPolicyRules[0].action, "RestartAllContainers");
  EXPECT_EQ(web.restartPolicyRules[0].exitCodes->values, (std::vector<int32_t>{1, 42}));
  ASSERT_EQ(web.volumeMounts.size(), 1u);
  EXPECT_EQ(web.volumeMounts[0].bindMountOptions, (std::vector<std::string>{"noexec", "nosuid"}));
}

// What no recording can hold (the apiserver refuses ephemeral containers on create): the bytes are what
// Go's generated Marshal of k8s.io/api v0.37.2 writes for the object (every non-pointer field, zero or not),
// wrapped in the "k8s\0" envelope {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2}.
std::string goMarshaled(std::string_view kind, std::string_view hex) {
  auto bytesField = [](uint32_t number, std::string_view v) {
    proto::Writer w;
    w.bytes(number, v);
    return w.take();
  };
  std::string raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    raw.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return std::string("k8s\0", 4) + bytesField(1, bytesField(1, "v1") + bytesField(2, kind)) +
         bytesField(2, raw);
}

// ephemeralContainers (PodSpec 34, the common part embedded as field 1, volumeMounts 9 in it), with the
// other fields NodeDeclaredFeatures reads.
TEST(ProtoGoMarshal, PodDeclaredFeatureInputs) {
  const std::string pb = goMarshaled(
      "Pod",
      "0a100a0012001a0022002a0032003800420012d301126b0a0377656212002a0042004a230a046461746110011a052f64"
      "6174612200320042066e6f6578656342066e6f737569646a007200800100880100900100a20100c201054e65766572ca"
      "01200a1452657374617274416c6c436f6e7461696e65727312080a02496e1001102a1a00320042004a00520058016000"
      "68008201008a01009a0100c201009202440a3d0a056465627567120762757379626f782a0042004a170a046461746110"
      "001a022f642200320042056e6f6465766a007200800100880100900100a201001203776562a802001a130a001a002200"
      "2a0032004a005a007200880100");
  auto pod = decodeProto<Pod>(pb);
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  auto fromJson = decodeJson<Pod>(R"({"spec":{"hostNetwork":true,"hostUsers":false,
    "containers":[{"name":"web","resources":{},"restartPolicy":"Never",
      "restartPolicyRules":[{"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[1,42]}}],
      "volumeMounts":[{"name":"data","readOnly":true,"mountPath":"/data","bindMountOptions":["noexec","nosuid"]}]}],
    "ephemeralContainers":[{"name":"debug","image":"busybox","targetContainerName":"web",
      "volumeMounts":[{"name":"data","mountPath":"/d","bindMountOptions":["nodev"]}]}]}})");
  ASSERT_TRUE(fromJson.ok()) << fromJson.error().message();
  EXPECT_TRUE(*pod == *fromJson) << "proto: " << encodeJson(*pod) << "\n json: " << encodeJson(*fromJson);
  ASSERT_EQ(pod->spec.ephemeralContainers.size(), 1u);
  EXPECT_EQ(pod->spec.ephemeralContainers[0].targetContainerName, "web");
  EXPECT_EQ(pod->spec.ephemeralContainers[0].volumeMounts[0].bindMountOptions,
            std::vector<std::string>{"nodev"});
}

}  // namespace
}  // namespace ks::api
