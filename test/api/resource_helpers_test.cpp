// Upstream's k8s.io/component-helpers/resource tests (helpers_test.go, v0.37.2: TestPodRequestsAndLimits,
// TestPodRequestsAndLimitsWithoutOverhead, TestPodResourceRequests, TestPodResourceRequestsReuse,
// TestPodResourceLimits, TestIsPodLevelResourcesSet, TestIsPodLevelLimitsSet, TestPodLevelResourceRequests,
// TestIsSupportedPodLevelResource, TestAggregateContainerRequestsAndLimits,
// TestPodRequestsAndLimitsVerticalScalingWrappers), run against pkg/api/resources. The table lives in
// resource_helpers_cases.json: gen/gen_resource_cases.py records every call those tests make (pod, options,
// result) while they check the results, so the cases here are exactly upstream's. Results compare as
// upstream's equality.Semantic: the same resource names, quantities equal by value.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/api/resources.h"

namespace ks::api {
namespace {

struct Case {
  std::string name;  // test/case: function
  nlohmann::json record;
};

std::vector<Case> loadCases() {
  std::ifstream in(KS_RESOURCE_HELPERS_CASES);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<Case> out;
  for (auto& r : nlohmann::json::parse(ss.str())) {
    out.push_back({r.at("test").get<std::string>() + "/" + r.at("case").get<std::string>() + ": " +
                       r.at("fn").get<std::string>(),
                   std::move(r)});
  }
  return out;
}

ResourceList toList(const nlohmann::json& j, const std::string& what) {
  ResourceList out;
  if (j.is_null()) return out;
  for (const auto& [name, q] : j.items()) {
    auto parsed = Quantity::parse(q.get<std::string>());
    if (!parsed.ok()) ADD_FAILURE() << what << ": " << parsed.error().message();
    out.emplace(name, parsed.ok() ? *parsed : Quantity());
  }
  return out;
}

std::string show(const ResourceList& l) {
  std::string out = "{";
  for (const auto& [k, v] : l) out += k + ":" + v.toString() + " ";
  return out + "}";
}

bool semanticEqual(const ResourceList& a, const ResourceList& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, q] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.compare(q) != 0) return false;
  }
  return true;
}

TEST(ResourceHelpersTest, UpstreamCases) {
  const std::vector<Case> cases = loadCases();
  ASSERT_EQ(cases.size(), 126u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const nlohmann::json& r = c.record;
    // The generator flags a case whose pod reads differently once on the wire; there are none.
    ASSERT_FALSE(r.value("roundTripDiffers", false));
    const std::string fn = r.at("fn").get<std::string>();
    if (fn == "IsSupportedPodLevelResource") {
      EXPECT_EQ(isSupportedPodLevelResource(r.at("resource").get<std::string>()), r.at("result").get<bool>());
      continue;
    }
    auto pod = fromJson<Pod>(r.at("pod"));
    ASSERT_TRUE(pod.ok()) << pod.error().message();
    if (fn == "IsPodLevelResourcesSet") {
      EXPECT_EQ(isPodLevelResourcesSet(*pod), r.at("result").get<bool>());
      continue;
    }
    if (fn == "IsPodLevelLimitsSet") {
      EXPECT_EQ(isPodLevelLimitsSet(*pod), r.at("result").get<bool>());
      continue;
    }
    const nlohmann::json& o = r.at("options");
    const ResourceList nonMissing =
        toList(o.value("nonMissingContainerRequests", nlohmann::json()), "options");
    const PodRequestsOptions opts{
        .excludeOverhead = o.at("excludeOverhead").get<bool>(),
        .useStatusResources = o.at("useStatusResources").get<bool>(),
        .inPlacePodLevelResourcesVerticalScalingEnabled =
            o.at("inPlacePodLevelResourcesVerticalScalingEnabled").get<bool>(),
        .skipPodLevelResources = o.at("skipPodLevelResources").get<bool>(),
        .skipContainerLevelResources = o.at("skipContainerLevelResources").get<bool>(),
        .nonMissingContainerRequests = &nonMissing,
    };
    ResourceList got;
    if (fn == "PodRequests") {
      got = podRequests(*pod, opts);
    } else if (fn == "PodLimits") {
      got = podLimits(*pod, opts);
    } else if (fn == "AggregateContainerRequests") {
      got = aggregateContainerRequests(*pod, opts);
    } else if (fn == "AggregateContainerLimits") {
      got = aggregateContainerLimits(*pod, opts);
    } else {
      ADD_FAILURE() << "unknown function " << fn;
      continue;
    }
    const ResourceList want = toList(r.at("result"), "result");
    EXPECT_TRUE(semanticEqual(got, want)) << "got " << show(got) << " want " << show(want);
  }
}

}  // namespace
}  // namespace ks::api
