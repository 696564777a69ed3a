// The pod signers (upstream k8s.io/kube-scheduler/framework signers_test.go) and Go's sort.Slice order
// (pkg/util/go_sort.h) they rely on.
#include "pkg/scheduler/framework/signers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/util/go_sort.h"

namespace ks::framework {
namespace {

api::Container containerWithHostPorts(std::vector<int32_t> hostPorts, int32_t containerPort = 0) {
  api::Container c;
  for (int32_t p : hostPorts) {
    api::ContainerPort cp;
    cp.hostPort = p;
    cp.containerPort = containerPort;
    c.ports.push_back(cp);
  }
  return c;
}

TEST(SignersTest, HostPortsSigner) {
  api::Pod none;
  EXPECT_EQ(hostPortsSigner(none), "[]");

  api::Pod withoutHostPorts;
  withoutHostPorts.spec.containers = {containerWithHostPorts({0}, 80)};
  EXPECT_EQ(hostPortsSigner(withoutHostPorts), "[]");

  api::Pod single;
  single.spec.containers = {containerWithHostPorts({8080})};
  EXPECT_EQ(hostPortsSigner(single), "[8080]");

  // Multiple containers, unsorted host ports, duplicates.
  api::Pod multiple;
  multiple.spec.initContainers = {containerWithHostPorts({9090})};
  multiple.spec.containers = {containerWithHostPorts({80}), containerWithHostPorts({443, 80})};
  EXPECT_EQ(hostPortsSigner(multiple), "[80,443,9090]");
}

api::Toleration toleration(std::string key, std::string value, std::string effect = "") {
  api::Toleration t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

TEST(SignersTest, TolerationsSigner) {
  api::Pod none;
  EXPECT_EQ(tolerationsSigner(none), "[]");

  api::Pod single;
  single.spec.tolerations = {toleration("key1", "value1", "NoSchedule")};
  EXPECT_EQ(tolerationsSigner(single), R"([{"key":"key1","value":"value1","effect":"NoSchedule"}])");

  api::Pod unsorted;
  unsorted.spec.tolerations = {toleration("b", "2"), toleration("a", "1"), toleration("b", "1")};
  EXPECT_EQ(tolerationsSigner(unsorted),
            R"([{"key":"a","value":"1"},{"key":"b","value":"1"},{"key":"b","value":"2"}])");

  // Every field, as Go's json.Marshal of v1.Toleration writes it.
  api::Pod full;
  api::Toleration t = toleration("k", "v", "NoExecute");
  t.op = "Equal";
  t.tolerationSeconds = 30;
  full.spec.tolerations = {t};
  EXPECT_EQ(tolerationsSigner(full),
            R"([{"key":"k","operator":"Equal","value":"v","effect":"NoExecute","tolerationSeconds":30}])");
}

TEST(SignersTest, VolumesSigner) {
  api::Volume hostPath;
  hostPath.name = "v1";
  hostPath.otherSource = "hostPath";
  api::Volume configMap;
  configMap.name = "v2";
  configMap.otherSource = "configMap";
  api::Volume secret;
  secret.name = "v2";
  secret.otherSource = "secret";
  api::Volume emptyDir;
  emptyDir.name = "v3";
  emptyDir.otherSource = "emptyDir";

  api::Pod none;
  EXPECT_EQ(volumesSigner(none), "[]");

  api::Pod ignored;
  ignored.spec.volumes = {configMap, secret};
  EXPECT_EQ(volumesSigner(ignored), "[]");

  // Filtered and sorted: {"emptyDir":{}} before {"hostPath":...}.
  api::Pod mixed;
  mixed.spec.volumes = {hostPath, configMap, emptyDir};
  EXPECT_EQ(volumesSigner(mixed), R"(["{\"emptyDir\":{}}","{\"hostPath\":{}}"])");

  // Volume names are not part of it; claim names are.
  api::Volume claimA;
  claimA.name = "data";
  claimA.persistentVolumeClaim = api::PersistentVolumeClaimVolumeSource{"claim-a", false};
  api::Volume claimARenamed = claimA;
  claimARenamed.name = "other";
  api::Volume claimB = claimA;
  claimB.persistentVolumeClaim->claimName = "claim-b";
  api::Pod a;
  a.spec.volumes = {claimA};
  api::Pod aRenamed;
  aRenamed.spec.volumes = {claimARenamed};
  api::Pod b;
  b.spec.volumes = {claimB};
  EXPECT_EQ(volumesSigner(a), volumesSigner(aRenamed));
  EXPECT_NE(volumesSigner(a), volumesSigner(b));
  EXPECT_EQ(volumesSigner(a), R"(["{\"persistentVolumeClaim\":{\"claimName\":\"claim-a\"}}"])");
}

api::NodeSelectorRequirement in(std::string key, std::vector<std::string> values) {
  return api::NodeSelectorRequirement{std::move(key), "In", std::move(values)};
}

TEST(SignersTest, NodeAffinitySigner) {
  api::Pod nilAffinity;
  EXPECT_EQ(nodeAffinitySigner(nilAffinity), "null");

  api::Pod empty;
  empty.spec.affinity.emplace();
  empty.spec.affinity->nodeAffinity.emplace();
  empty.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution.emplace();
  EXPECT_EQ(nodeAffinitySigner(empty), R"({"Required":[],"Preferred":[]})");

  api::Pod unsorted;
  unsorted.spec.affinity.emplace();
  api::NodeAffinity& na = unsorted.spec.affinity->nodeAffinity.emplace();
  api::NodeSelector required;
  required.nodeSelectorTerms = {
      api::NodeSelectorTerm{{in("kk3", {"v3", "kv4"}), in("kk2", {"kv1", "v2"})}, {in("kk1", {"kv3", "v4"})}},
      api::NodeSelectorTerm{{in("k2", {"v1", "v2"})}, {in("k1", {"v3", "v4"})}},
  };
  na.requiredDuringSchedulingIgnoredDuringExecution = required;
  na.preferredDuringSchedulingIgnoredDuringExecution = {
      api::PreferredSchedulingTerm{
          3, api::NodeSelectorTerm{{in("ppk2", {"ppv1", "v2"})}, {in("ppk1", {"ppv3", "v4"})}}},
      api::PreferredSchedulingTerm{
          1, api::NodeSelectorTerm{{in("pk2", {"pv1", "v2"})}, {in("pk1", {"pv3", "v4"})}}},
  };
  // Upstream's expected nodeAffinitySignerResult, as Go's json.Marshal writes it.
  const std::vector<std::string> wantRequired = {
      R"({"MatchExpressions":["{\"key\":\"k2\",\"operator\":\"In\",\"values\":[\"v1\",\"v2\"]}"],"MatchFields":["{\"key\":\"k1\",\"operator\":\"In\",\"values\":[\"v3\",\"v4\"]}"]})",
      R"({"MatchExpressions":["{\"key\":\"kk2\",\"operator\":\"In\",\"values\":[\"kv1\",\"v2\"]}","{\"key\":\"kk3\",\"operator\":\"In\",\"values\":[\"kv4\",\"v3\"]}"],"MatchFields":["{\"key\":\"kk1\",\"operator\":\"In\",\"values\":[\"kv3\",\"v4\"]}"]})",
  };
  const std::vector<std::string> wantPreferred = {
      R"({"Weight":1,"Preference":{"MatchExpressions":["{\"key\":\"pk2\",\"operator\":\"In\",\"values\":[\"pv1\",\"v2\"]}"],"MatchFields":["{\"key\":\"pk1\",\"operator\":\"In\",\"values\":[\"pv3\",\"v4\"]}"]}})",
      R"({"Weight":3,"Preference":{"MatchExpressions":["{\"key\":\"ppk2\",\"operator\":\"In\",\"values\":[\"ppv1\",\"v2\"]}"],"MatchFields":["{\"key\":\"ppk1\",\"operator\":\"In\",\"values\":[\"ppv3\",\"v4\"]}"]}})",
  };
  EXPECT_EQ(nodeAffinitySigner(unsorted), "{\"Required\":" + goJsonStringList(wantRequired) +
                                              ",\"Preferred\":" + goJsonStringList(wantPreferred) + "}");
}

TEST(SignersTest, GoJsonString) {
  EXPECT_EQ(goJsonString("plain"), R"("plain")");
  EXPECT_EQ(goJsonString("q\"b\\n\n"), R"("q\"b\\n\n")");
  EXPECT_EQ(goJsonString("<a&b>"), R"("\u003ca\u0026b\u003e")");
  EXPECT_EQ(goJsonString(std::string("\x01", 1)), R"("\u0001")");
  EXPECT_EQ(goJsonString("\xE2\x80\xA8"), R"("\u2028")");
  EXPECT_EQ(goJsonString("h\xC3\xA9"), "\"h\xC3\xA9\"");
}

TEST(SignersTest, StringMapsAndResources) {
  EXPECT_EQ(goJsonStringMap({}), "null");
  EXPECT_EQ(goJsonStringMap({{"foo", "bar"}, {"a", "b"}}), R"({"a":"b","foo":"bar"})");
  Resource r;
  r.milliCPU = 1000;
  r.memory = 2000;
  EXPECT_EQ(
      resourceSigner(r),
      R"({"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})");
  r.scalarResources["example.com/foo"] = 0;
  EXPECT_EQ(
      resourceSigner(r),
      R"({"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":{"example.com/foo":0}})");
}

// Go's sort.Slice moves equal elements exactly this way (outputs recorded with go1.26's sort package).
TEST(GoSortTest, MatchesGoSortSliceOnTies) {
  struct T {
    std::string k, v;
    int id;
  };
  auto ids = [](const std::vector<T>& xs) {
    std::vector<int> out;
    for (const auto& x : xs) out.push_back(x.id);
    return out;
  };
  {
    const std::vector<std::string> keys = {"b", "a", "c", "a", "b", "a", "c", "b", "a", "a",
                                           "c", "b", "b", "a", "c", "a", "b", "c", "a", "b",
                                           "a", "c", "a", "b", "c", "a", "b", "a", "c", "a"};
    std::vector<T> xs;
    for (int i = 0; i < static_cast<int>(keys.size()); ++i) xs.push_back({keys[i], std::to_string(i % 3), i});
    goSortSlice(xs, [](const T& a, const T& b) { return a.k < b.k || (a.k == b.k && a.v < b.v); });
    EXPECT_EQ(ids(xs), (std::vector<int>{9, 18, 3,  15, 27, 1,  22, 25, 13, 5, 8,  29, 20, 12, 0,
                                         7, 4,  16, 19, 26, 11, 23, 21, 24, 6, 10, 28, 17, 14, 2}));
  }
  {
    std::vector<T> ys;
    for (int i = 0; i < 60; ++i) {
      char k[8];
      std::snprintf(k, sizeof k, "%02d", (60 - i) / 4);
      ys.push_back({k, "", i});
    }
    goSortSlice(ys, [](const T& a, const T& b) { return a.k < b.k; });
    EXPECT_EQ(ids(ys), (std::vector<int>{59, 58, 57, 56, 55, 54, 53, 49, 52, 51, 50, 48, 45, 47, 46,
                                         42, 44, 43, 41, 40, 39, 38, 37, 33, 36, 35, 34, 30, 31, 29,
                                         32, 26, 28, 27, 25, 24, 23, 22, 21, 17, 20, 19, 18, 16, 15,
                                         14, 13, 9,  12, 11, 10, 8,  7,  6,  5,  4,  3,  2,  1,  0}));
  }
  {
    std::vector<T> zs;
    uint32_t r = 7;
    for (int i = 0; i < 200; ++i) {
      r = r * 1103515245u + 12345u;
      zs.push_back({std::to_string((r >> 16) % 5), "", i});
    }
    goSortSlice(zs, [](const T& a, const T& b) { return a.k < b.k; });
    EXPECT_EQ(
        ids(zs),
        (std::vector<int>{145, 81,  82,  77,  83,  196, 195, 7,   8,   75,  194, 88,  12,  193, 73,  190, 16,
                          72,  95,  97,  20,  182, 102, 104, 113, 178, 119, 58,  57,  137, 142, 31,  166, 163,
                          50,  35,  144, 37,  159, 157, 123, 41,  42,  153, 152, 45,  151, 39,  161, 49,  162,
                          30,  52,  167, 132, 127, 56,  171, 27,  126, 80,  120, 177, 24,  108, 23,  180, 184,
                          185, 93,  92,  91,  186, 192, 11,  9,   4,   198, 199, 1,   150, 114, 13,  14,  15,
                          21,  86,  179, 74,  89,  172, 71,  70,  28,  94,  38,  158, 154, 98,  0,   146, 140,
                          79,  130, 65,  128, 106, 55,  124, 60,  110, 122, 61,  117, 139, 40,  116, 2,   197,
                          5,   10,  121, 111, 109, 76,  125, 59,  107, 191, 189, 188, 131, 54,  18,  19,  135,
                          136, 183, 181, 69,  29,  32,  33,  34,  48,  36,  100, 147, 68,  96,  115, 156, 155,
                          43,  176, 169, 46,  99,  149, 148, 160, 47,  143, 51,  164, 165, 141, 101, 168, 26,
                          170, 66,  90,  173, 174, 175, 44,  67,  64,  87,  22,  138, 85,  53,  134, 133, 17,
                          187, 103, 129, 84,  105, 25,  78,  112, 6,   62,  118, 3,   63}));
  }
}

}  // namespace
}  // namespace ks::framework
