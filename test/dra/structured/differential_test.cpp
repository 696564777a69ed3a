// Random allocation problems solved by upstream's incubating allocator (v0.37.2): the port must give the
// same results, in the same order, or the same error text. allocator_diff_cases.json comes from
// gen/gen_cases.py --diff; problems whose upstream answer depends on Go's random pool order, or on which
// upstream panics, are not in it.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/dra/structured/allocator.h"

namespace ks::dra::structured {
namespace {

constexpr const char* kFixedShareID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa";

class ClassLister : public DeviceClassLister {
 public:
  explicit ClassLister(std::vector<std::shared_ptr<const api::DeviceClass>> classes)
      : classes_(std::move(classes)) {}
  Result<std::shared_ptr<const api::DeviceClass>> get(const std::string& name) const override {
    for (const auto& c : classes_)
      if (c->metadata.name == name) return c;
    return Error("device class \"" + name + "\" not found");  // as the generator's lister
  }

 private:
  std::vector<std::shared_ptr<const api::DeviceClass>> classes_;
};

template <typename T>
T decode(const nlohmann::json& j) {
  auto r = api::fromJson<T>(j);
  if (!r.ok()) throw std::runtime_error(r.error().message());
  return std::move(*r);
}

nlohmann::json allocationJson(const api::AllocationResult& r) {
  api::ResourceClaim wrapper;
  wrapper.status.allocation = r;
  return api::toJson(wrapper)["status"]["allocation"];
}

const nlohmann::json& allCases() {
  static const nlohmann::json cases = [] {
    std::ifstream in(KS_DRA_ALLOCATOR_DIFF_CASES);
    if (!in) throw std::runtime_error(std::string("cannot open ") + KS_DRA_ALLOCATOR_DIFF_CASES);
    return nlohmann::json::parse(in);
  }();
  return cases;
}

std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  for (const auto& c : allCases()) names.push_back(c.at("name").get<std::string>());
  return names;
}

class DifferentialTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DifferentialTest, SameAnswerAsUpstream) {
  const nlohmann::json* found = nullptr;
  for (const auto& c : allCases())
    if (c.at("name") == GetParam()) found = &c;
  ASSERT_NE(found, nullptr);
  const nlohmann::json& j = *found;
  auto items = [&](const char* key) { return j.at(key).is_null() ? nlohmann::json::array() : j.at(key); };

  const auto& f = j.at("features");
  auto parsedFeatures = Features::fromFieldNames(f.get<std::map<std::string, bool>>());
  ASSERT_TRUE(parsedFeatures.ok()) << parsedFeatures.error().message();
  const Features features = *parsedFeatures;
  AllocatedState state;
  for (const auto& d : items("allocatedDevices"))
    state.allocatedDevices.insert(DeviceID{d.at("driver"), d.at("pool"), d.at("device")});
  for (const auto& d : items("allocatedCapacity")) {
    DeviceConsumedCapacity consumed{.deviceID = DeviceID{d.at("driver"), d.at("pool"), d.at("device")},
                                    .consumedCapacity = {}};
    for (const auto& [name, q] : d.at("capacity").items())
      consumed.consumedCapacity.emplace(name, *api::Quantity::parse(q.get<std::string>()));
    state.aggregatedCapacity.insert(consumed);
  }
  std::vector<std::shared_ptr<const api::DeviceClass>> classes;
  for (const auto& c : items("classes"))
    classes.push_back(std::make_shared<const api::DeviceClass>(decode<api::DeviceClass>(c)));
  std::vector<ResourceSlicePtr> slices;
  for (const auto& s : items("slices"))
    slices.push_back(std::make_shared<const api::ResourceSlice>(decode<api::ResourceSlice>(s)));
  std::vector<ResourceClaimPtr> claims;
  for (const auto& c : items("claims"))
    claims.push_back(std::make_shared<const api::ResourceClaim>(decode<api::ResourceClaim>(c)));
  const api::Node node = decode<api::Node>(j.at("node"));

  Allocator allocator(features, std::move(state), std::make_shared<ClassLister>(std::move(classes)),
                      std::move(slices), std::make_shared<cel::Cache>(10));
  auto results = allocator.allocate(&node, claims);
  if (!j.at("error").is_null()) {
    ASSERT_FALSE(results.ok()) << "expected error: " << j.at("error").get<std::string>();
    EXPECT_EQ(results.error().message(), j.at("error").get<std::string>());
    return;
  }
  ASSERT_TRUE(results.ok()) << results.error().message();
  nlohmann::json got = nlohmann::json::array();
  for (auto& r : *results) {
    for (auto& d : r.devices.results)
      if (d.shareID) d.shareID = kFixedShareID;
    got.push_back(allocationJson(r));
  }
  nlohmann::json want = nlohmann::json::array();
  for (const auto& r : items("results")) {
    nlohmann::json wrapper = {{"status", {{"allocation", r}}}};
    want.push_back(allocationJson(*decode<api::ResourceClaim>(wrapper).status.allocation));
  }
  EXPECT_EQ(got, want) << "got:\n" << got.dump(1) << "\nwant:\n" << want.dump(1);
}

std::string testName(const ::testing::TestParamInfo<std::string>& param) {
  std::string name = param.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Random, DifferentialTest, ::testing::ValuesIn(caseNames()), testName);

}  // namespace
}  // namespace ks::dra::structured
