// Upstream's TestCEL and TestInterrupt (k8s.io/dynamic-resource-allocation/cel v0.37.2 compile_test.go):
// the same expressions, devices and expected results and errors. The estimated-cost column is left
// out: the scheduler never estimates cost (it compiles with DisableCostEstimation).

#include "pkg/dra/cel/compile.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace ks::cel {
namespace {

DeviceAttributeValue boolAttr(bool b) {
  return {.boolValue = b};
}
DeviceAttributeValue intAttr(int64_t i) {
  return {.intValue = i};
}
DeviceAttributeValue stringAttr(std::string s) {
  return {.stringValue = std::move(s)};
}
DeviceAttributeValue versionAttr(std::string v) {
  return {.versionValue = std::move(v)};
}
api::Quantity q(const char* s) {
  return *api::Quantity::parse(s);
}

struct Case {
  std::string name;
  std::string expression;
  Device device;
  std::string compileError;  // substring
  std::string matchError;    // substring
  bool match = false;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"true", "true", {}, "", "", true});
  c.push_back({"false", "false", {}, "", "", false});
  c.push_back({"syntax-error", "?!", {}, "Syntax error", "", false});
  c.push_back({"type-error", "1", {}, "must evaluate to bool or the unknown type, not int", "", false});
  c.push_back({"runtime-error-lookup-identifier",
               R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
               {},
               "",
               "no such key: noSuchAttr",
               false});
  c.push_back({"runtime-error-lookup-map",
               R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))",
               {},
               "",
               "no such key: noSuchAttr",
               false});
  c.push_back({"domain-check-negative", R"("no-such-domain" in device.attributes)", {}, "", "", false});
  c.push_back({"domain-check-positive", R"("dra.example.com" in device.attributes)",
               Device{.attributes = {{"dra.example.com/something", boolAttr(true)}}}, "", "", true});
  c.push_back({"empty-driver-name", R"(device.driver == "")", {}, "", "", true});
  c.push_back({"real-driver-name", R"(device.driver == "dra.example.com")",
               Device{.driver = "dra.example.com"}, "", "", true});
  const Device nameBool{.driver = "dra.example.com", .attributes = {{"name", boolAttr(true)}}};
  c.push_back(
      {"driver-name-qualifier", R"(device.attributes["dra.example.com"].name)", nameBool, "", "", true});
  c.push_back({"driver-name-qualifier-map-lookup", R"(device.attributes["dra.example.com"]["name"])",
               nameBool, "", "", true});
  c.push_back(
      {"bind", R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", nameBool, "", "", true});
  c.push_back(
      {"qualified-attribute-name", R"(device.attributes["other.example.com"].name)",
       Device{.driver = "dra.example.com", .attributes = {{"other.example.com/name", boolAttr(true)}}}, "",
       "", true});
  c.push_back({"bool", R"(device.attributes["dra.example.com"].name)", nameBool, "", "", true});
  c.push_back({"int", R"(device.attributes["dra.example.com"].name > 0)",
               Device{.driver = "dra.example.com", .attributes = {{"name", intAttr(1)}}}, "", "", true});
  c.push_back({"string", R"(device.attributes["dra.example.com"].name == "fish")",
               Device{.driver = "dra.example.com", .attributes = {{"name", stringAttr("fish")}}}, "", "",
               true});
  const Device version{.driver = "dra.example.com", .attributes = {{"name", versionAttr("1.0.0")}}};
  c.push_back({"version", R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
               version, "", "", true});
  c.push_back(
      {"version_v",
       R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
       version, "", "", true});
  const Device capacity{.driver = "dra.example.com", .capacity = {{"name", q("1Mi")}}};
  c.push_back({"quantity", R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
               capacity, "", "", true});
  c.push_back(
      {"check-positive",
       R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       capacity, "", "", true});
  c.push_back(
      {"check-negative",
       R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
       {},
       "",
       "",
       true});
  c.push_back({"all", R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
               Device{.driver = "dra.example.com",
                      .attributes = {{"bool", boolAttr(true)},
                                     {"int", intAttr(1)},
                                     {"string", stringAttr("fish")},
                                     {"version", versionAttr("1.0.0")}},
                      .capacity = {{"quantity", q("1Mi")}}},
               "", "", true});
  c.push_back(
      {"many",
       R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
       Device{.driver = "dra.example.com",
              .attributes = {{"a", boolAttr(true)}, {"b", boolAttr(true)}, {"c", boolAttr(true)}}},
       "", "", true});
  const Device services{.driver = "dra.example.com",
                        .attributes = {{"services", stringAttr("some_example_value")}}};
  c.push_back({"check_attribute_domains", R"(device.attributes.exists_one(x, x == "dra.example.com"))",
               services, "", "", true});
  c.push_back({"check_attribute_ids",
               R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))", services, "", "",
               true});
  c.push_back({"split_attribute",
               R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)", services, "",
               "", true});
  c.push_back({"regexp_attribute", R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
               Device{.driver = "dra.example.com", .attributes = {{"services", stringAttr("asymetric")}}}, "",
               "", true});
  const Device memory{.driver = "dra.example.com", .capacity = {{"memory", q("1Mi")}}};
  c.push_back({"check_capacity_domains", R"(device.capacity.exists_one(x, x == "dra.example.com"))", memory,
               "", "", true});
  c.push_back({"check_capacity_ids", R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))",
               memory, "", "", true});
  {
    Device expensive{.driver = "dra.example.com"};
    for (int i = 0; i < 32; ++i) {
      const std::string suffix = "-" + std::to_string(i);
      expensive.attributes["dra.example.com/" + std::string(32 - suffix.size(), 'x') + suffix] =
          stringAttr("abc");
    }
    c.push_back(
        {"expensive",
         "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, "
         "7, "
         "8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, "
         "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, "
         "int('1'.find('[0-9]*')) < 100)))))))",
         expensive, "", "actual cost limit exceeded", false});
  }
  // allowMultipleAllocations is declared in the scheduler's (StoredExpressions) environment whatever
  // the ConsumableCapacity gate says; unset means false.
  c.push_back({"allow_multiple_allocations", "device.allowMultipleAllocations == true",
               Device{.driver = "dra.example.com", .allowMultipleAllocations = true}, "", "", true});
  c.push_back({"allow_multiple_allocations_default", "device.allowMultipleAllocations == false",
               Device{.driver = "dra.example.com"}, "", "", true});
  c.push_back({"allow_multiple_allocations_false", "device.allowMultipleAllocations == false",
               Device{.driver = "dra.example.com", .allowMultipleAllocations = false}, "", "", true});
  return c;
}

class CelTest : public ::testing::TestWithParam<Case> {};

TEST_P(CelTest, MatchesAsUpstream) {
  const Case& c = GetParam();
  const CompilationResult r = compileExpression(c.expression);
  if (!c.compileError.empty()) {
    ASSERT_TRUE(r.error()) << "expected compile error " << c.compileError;
    EXPECT_NE(r.error()->find(c.compileError), std::string::npos) << *r.error();
    return;
  }
  ASSERT_FALSE(r.error()) << *r.error();
  auto m = r.deviceMatches(c.device);
  if (!c.matchError.empty()) {
    ASSERT_FALSE(m.ok()) << "expected match error " << c.matchError;
    EXPECT_NE(m.error().message().find(c.matchError), std::string::npos) << m.error().message();
    return;
  }
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(*m, c.match);
}

INSTANTIATE_TEST_SUITE_P(Upstream, CelTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           std::string n = param.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// TestInterrupt: an evaluation over 1000 attributes stops when interrupted, with upstream's error.
TEST(CelInterruptTest, InterruptedEvaluationStops) {
  const auto r = compileExpression(
      R"(device.attributes["dra.example.com"].map(key, device.attributes["dra.example.com"][key] * 20).filter(e, e > 50).exists(e, e == 60))");
  ASSERT_FALSE(r.error()) << *r.error();
  Device d;
  for (int64_t i = 0; i < 1000; ++i) d.attributes["dra.example.com/attr" + std::to_string(i)] = intAttr(i);
  auto notInterrupted = r.deviceMatches(d);
  ASSERT_TRUE(notInterrupted.ok()) << notInterrupted.error().message();
  EXPECT_TRUE(*notInterrupted);

  int polls = 0;
  EvalOptions options;
  options.interrupted = [&] { return ++polls >= 1; };
  auto interrupted = r.deviceMatches(d, options);
  ASSERT_FALSE(interrupted.ok());
  EXPECT_EQ(interrupted.error().message(), kInterrupted);
  EXPECT_EQ(polls, 1);
}

// Measured upstream behaviours the research recorded (../shared/reviews/dra-cel.md, 1.3 and 1.7).
TEST(CelBehaviourTest, UpstreamQuirksAndErrors) {
  Device d{.driver = "gpu.example.com", .attributes = {{"healthy", boolAttr(true)}, {"numa", intAttr(1)}}};
  auto eval = [&](const std::string& e) {
    auto r = compileExpression(e);
    if (r.error()) return std::string("compile: ") + *r.error();
    auto m = r.deviceMatches(d);
    return m.ok() ? std::string(*m ? "true" : "false") : "error: " + m.error().message();
  };
  EXPECT_EQ(eval("has(device.attributes.foo)"), "true");  // presence goes through the defaulting map
  EXPECT_EQ(eval(R"("other" in device.attributes)"), "false");
  EXPECT_EQ(eval(R"(device.attributes["other"] == {})"), "true");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].missing || true)"), "true");
  EXPECT_EQ(eval(R"(true || device.attributes["gpu.example.com"].missing)"), "true");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].missing && false)"), "false");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].numa < 1.5)"), "true");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].numa == 1u)"), "true");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].numa == "x")"), "false");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"].numa > "x")"), "error: no such overload");
  // Only bool and dyn (what attribute values are declared as since v1.37) pass the output check; the
  // result is then converted at runtime (checked with the differential oracle, oracle/).
  EXPECT_EQ(eval(R"(dyn(device.attributes["gpu.example.com"].healthy ? "a" : "b"))"),
            "error: CEL result of type string could not be converted to bool: unsupported native conversion "
            "from string to 'bool'");
  EXPECT_EQ(eval(R"(device.attributes["gpu.example.com"])"),
            "compile: must evaluate to bool or the unknown type, not map(string, dyn)");
  EXPECT_EQ(eval("device.attributes.`gpu.example.com`.healthy"), "true");
  EXPECT_EQ(eval("1 / 0 == 1"), "error: division by zero");
  EXPECT_EQ(eval("9223372036854775807 + 1 > 0"), "error: integer overflow");
  EXPECT_EQ(eval("[1, 2][5] == 1"), "error: index out of bounds: 5");
  EXPECT_EQ(eval(R"(quantity("80Gi") == quantity("81920Mi"))"), "true");
  EXPECT_EQ(eval(R"(quantity("1.5").asInteger() == 1)"), "error: cannot convert value to integer");
  EXPECT_EQ(eval(R"("abc".upperAscii().lowerAscii() == "abc" && "a,b".split(",").size() == 2)"), "true");
  EXPECT_EQ(eval(R"(sets.contains([1, 2, 3], [2]) && [3, 1].max() == 3 && [1, 2].isSorted())"), "true");
  EXPECT_EQ(eval(R"("h100-sxm".find("[0-9]+") == "100" && "a1b22".findAll("[0-9]+").size() == 2)"), "true");
  EXPECT_EQ(eval(R"(semver("1.2.3-rc.1").isLessThan(semver("1.2.3")) && semver("1.2.3").major() == 1)"),
            "true");

  const std::string undeclared = eval("noSuchVar");
  EXPECT_NE(undeclared.find("undeclared reference to 'noSuchVar' (in container '')"), std::string::npos)
      << undeclared;
  EXPECT_EQ(
      eval(R"(device.driver > 1)"),
      "compile: compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to "
      "'(string, int)'\n | device.driver > 1\n | ..............^");
  EXPECT_NE(eval("device.foo").find("undefined field 'foo'"), std::string::npos);
  EXPECT_NE(eval(R"([1, "a"].size() == 2)").find("expected type 'int' but found 'string'"),
            std::string::npos);
  EXPECT_EQ(eval(R"(duration("1h") > duration("1m"))"), "true");
  EXPECT_NE(eval(R"(google.protobuf.Int64Value{value: 1} == 1)").find("not supported by kube-scheduler-cpp"),
            std::string::npos);
  EXPECT_NE(eval("device.driver.").find("Syntax error"), std::string::npos);
}

TEST(CelBehaviourTest, BadVersionAttributeFailsEverySelectorOnTheDevice) {
  Device d{.driver = "d", .attributes = {{"v", versionAttr("1.0")}, {"x", {}}}};
  auto r = compileExpression("true");
  auto m = r.deviceMatches(d);
  ASSERT_FALSE(m.ok());
  // Attributes are converted in name order; "v" comes first.
  EXPECT_EQ(m.error().message(), "attribute v: parse semantic version: No Major.Minor.Patch elements found");
  d.attributes.erase("v");
  m = r.deviceMatches(d);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "attribute x: unsupported attribute value");
}

// cache_test.go: the same result from the cache, and safe under concurrency.
TEST(CelCacheTest, ReturnsTheSameProgramAndIsThreadSafe) {
  Cache cache(10);
  auto a = cache.getOrCompile("true");
  auto b = cache.getOrCompile("true");
  EXPECT_EQ(a, b);
  auto bad = cache.getOrCompile("?!");
  EXPECT_TRUE(bad->error());
  EXPECT_NE(bad, cache.getOrCompile("?!"));  // failures are not cached

  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string e = "device.driver == \"d" + std::to_string((i + t) % 15) + "\"";
        auto r = cache.getOrCompile(e);
        Device d{.driver = "d" + std::to_string((i + t) % 15)};
        auto m = r->deviceMatches(d);
        if (!m.ok() || !*m) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ks::cel
