// scheduling.k8s.io/v1beta1 Workload and PodGroup, and a pod's spec.schedulingGroup, as kube-apiserver
// v1.37.2 serves them (test/api/proto/testdata, recorded by its record.py with every field set): decoded
// field by field, round trips, and the writer's JSON equal to the server's (omitempty as in Go).

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "test/api/json/test_util.h"
#include "test/support/scheduling_objects.h"

namespace ks::api {
namespace {

using nlohmann::json;
using testing::expectRoundTrip;

json recorded(const std::string& stem) {
  std::ifstream in(std::string(KS_APIPROTO_TESTDATA_DIR) + "/" + stem + ".json", std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing recording " << stem << ".json";
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

template <typename T>
T decoded(const json& j) {
  auto r = fromJson<T>(j);
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? std::move(r).value() : T{};
}

TEST(WorkloadCodec, EveryFieldOfPodGroupTemplates) {
  const json server = recorded("workload");
  const Workload w = decoded<Workload>(server);
  EXPECT_EQ(w.metadata.name, "training");
  EXPECT_EQ(w.metadata.namespace_, "gang");
  EXPECT_EQ(w.metadata.labels.at("app"), "training");
  EXPECT_TRUE(w.spec == testing::expectedWorkloadSpec()) << encodeJson(w);
  expectRoundTrip(w);
  // "schedulingConstraints": null where a template has none (no omitempty on that pointer).
  EXPECT_EQ(toJson(w)["spec"], server["spec"]);
}

TEST(WorkloadCodec, CompositeTemplateTree) {
  const json server = recorded("workload_composite");
  const Workload w = decoded<Workload>(server);
  EXPECT_TRUE(w.spec == testing::expectedCompositeWorkloadSpec()) << encodeJson(w);
  expectRoundTrip(w);
  // Go writes the absent podGroupTemplates (no omitempty) as null, the model as [] (as every such list).
  json spec = server["spec"];
  ASSERT_TRUE(spec["podGroupTemplates"].is_null());
  spec["podGroupTemplates"] = json::array();
  EXPECT_EQ(toJson(w)["spec"], spec);
}

TEST(PodGroupCodec, EveryFieldOfSpecAndStatus) {
  const json server = recorded("podgroup");
  const PodGroup pg = decoded<PodGroup>(server);
  EXPECT_EQ(pg.metadata.name, "training-workers-0");
  EXPECT_EQ(pg.metadata.namespace_, "gang");
  EXPECT_TRUE(pg.spec == testing::expectedPodGroupSpec()) << encodeJson(pg);
  EXPECT_TRUE(pg.status == testing::expectedPodGroupStatus()) << encodeJson(pg);
  expectRoundTrip(pg);
  const json ours = toJson(pg);
  EXPECT_EQ(ours["spec"], server["spec"]);
  EXPECT_EQ(ours["status"], server["status"]);
}

TEST(PodGroupCodec, UnionMembersWithoutFields) {
  auto basic = decodeJson<PodGroup>(R"({"spec":{"schedulingPolicy":{"basic":{"future":1}},)"
                                    R"("disruptionMode":{"single":{}}}})");
  ASSERT_TRUE(basic.ok()) << basic.error().message();
  EXPECT_TRUE(basic->spec.schedulingPolicy.basic.has_value());
  EXPECT_FALSE(basic->spec.schedulingPolicy.gang.has_value());
  EXPECT_EQ(basic->spec.disruptionMode, testing::disruptSingle());
  EXPECT_EQ(toJson(*basic)["spec"]["schedulingPolicy"], json::parse(R"({"basic":{}})"));

  auto none = decodeJson<PodGroup>(R"({"spec":{"schedulingPolicy":{"basic":null}},"status":{}})");
  ASSERT_TRUE(none.ok()) << none.error().message();
  EXPECT_FALSE(none->spec.schedulingPolicy.basic.has_value());
  EXPECT_FALSE(none->spec.disruptionMode.has_value());
  // The value fields are written even when empty, the pointers only when set.
  EXPECT_EQ(toJson(*none)["spec"], json::parse(R"({"schedulingPolicy":{}})"));
  EXPECT_EQ(toJson(*none)["status"], json::object());

  auto bad = decodeJson<PodGroup>(R"({"spec":{"disruptionMode":{"all":[]}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "spec.disruptionMode.all: expected an object, got array");
}

TEST(PodCodec, SchedulingGroup) {
  const json server = recorded("pod_schedulinggroup");
  const Pod pod = decoded<Pod>(server);
  ASSERT_TRUE(pod.spec.schedulingGroup.has_value());
  EXPECT_EQ(pod.spec.schedulingGroup->podGroupName, std::optional<std::string>("training-workers-0"));
  expectRoundTrip(pod);
  EXPECT_EQ(toJson(pod)["spec"]["schedulingGroup"], server["spec"]["schedulingGroup"]);

  auto plain = decodeJson<Pod>(R"({"metadata":{"name":"p"},"spec":{"schedulingGroup":{}}})");
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  ASSERT_TRUE(plain->spec.schedulingGroup.has_value());
  EXPECT_FALSE(plain->spec.schedulingGroup->podGroupName.has_value());
  EXPECT_FALSE(toJson(Pod{})["spec"].contains("schedulingGroup"));
}

}  // namespace
}  // namespace ks::api
