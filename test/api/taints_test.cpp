// Cases ported from k8s.io/api/core/v1/toleration_test.go (TestTolerationToleratesTaint, v1.34 operators),
// component-helpers scheduling/corev1/helpers_test.go and the TaintToleration plugin's helpers.

#include "pkg/api/taints.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks::api {
namespace {

Toleration tol(std::string key, std::string op, std::string value, std::string effect) {
  Toleration t;
  t.key = std::move(key);
  t.op = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

Taint taint(std::string key, std::string value, std::string effect) {
  Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

const std::string kNoSchedule(kTaintEffectNoSchedule);
const std::string kNoExecute(kTaintEffectNoExecute);
const std::string kPrefer(kTaintEffectPreferNoSchedule);

TEST(TaintsTest, TolerationToleratesTaint) {
  struct Case {
    std::string description;
    Toleration toleration;
    Taint taint;
    bool expect;
  };
  const std::vector<Case> cases = {
      {"same key and effect, Exists, taint has no value", tol("foo", "Exists", "", kNoSchedule),
       taint("foo", "", kNoSchedule), true},
      {"same key and effect, Exists, taint has some value", tol("foo", "Exists", "", kNoSchedule),
       taint("foo", "bar", kNoSchedule), true},
      {"same effect, empty key with Exists matches all keys", tol("", "Exists", "", kNoSchedule),
       taint("foo", "bar", kNoSchedule), true},
      {"same key, effect and value, Equal", tol("foo", "Equal", "bar", kNoSchedule),
       taint("foo", "bar", kNoSchedule), true},
      {"same key and effect, different values, Equal", tol("foo", "Equal", "value1", kNoSchedule),
       taint("foo", "value2", kNoSchedule), false},
      {"same key and value, different effects, Equal", tol("foo", "Equal", "bar", kNoSchedule),
       taint("foo", "bar", kNoExecute), false},
      {"empty operator means Equal", tol("foo", "", "bar", kNoSchedule), taint("foo", "bar", kNoSchedule),
       true},
      {"empty operator, different value", tol("foo", "", "baz", kNoSchedule),
       taint("foo", "bar", kNoSchedule), false},
      {"empty effect matches all effects", tol("foo", "Equal", "bar", ""), taint("foo", "bar", kNoExecute),
       true},
      {"empty key and Exists and empty effect tolerates everything", tol("", "Exists", "", ""),
       taint("any", "thing", kPrefer), true},
      {"different key", tol("foo", "Exists", "", ""), taint("bar", "", kNoSchedule), false},
      // Gt / Lt arrived after v1.34; there they tolerate nothing.
      {"Gt tolerates nothing in v1.34", tol("node.kubernetes.io/sla", "Gt", "750", kNoSchedule),
       taint("node.kubernetes.io/sla", "950", kNoSchedule), false},
      {"unknown operator", tol("foo", "Bogus", "bar", kNoSchedule), taint("foo", "bar", kNoSchedule), false},
  };
  for (const auto& c : cases) EXPECT_EQ(toleratesTaint(c.toleration, c.taint), c.expect) << c.description;

  Toleration withSeconds = tol("foo", "Exists", "", kNoExecute);
  withSeconds.tolerationSeconds = 10;
  EXPECT_TRUE(toleratesTaint(withSeconds, taint("foo", "", kNoExecute)));
}

TEST(TaintsTest, MatchAndToString) {
  EXPECT_TRUE(matchToleration(tol("a", "Equal", "b", kNoSchedule), tol("a", "Equal", "b", kNoSchedule)));
  EXPECT_FALSE(matchToleration(tol("a", "Equal", "b", kNoSchedule), tol("a", "Exists", "b", kNoSchedule)));
  EXPECT_TRUE(matchTaint(taint("a", "x", kNoSchedule), taint("a", "y", kNoSchedule)));
  EXPECT_FALSE(matchTaint(taint("a", "x", kNoSchedule), taint("a", "x", kNoExecute)));
  EXPECT_EQ(taintToString(taint("a", "x", kNoSchedule)), "a=x:NoSchedule");
  EXPECT_EQ(taintToString(taint("a", "", kNoExecute)), "a:NoExecute");
}

TEST(TaintsTest, FindMatchingUntoleratedTaint) {
  struct Case {
    std::string description;
    std::vector<Taint> taints;
    std::vector<Toleration> tolerations;
    bool useFilter;
    std::optional<std::string> expectKey;
  };
  const std::vector<Case> cases = {
      {"empty taints and tolerations", {}, {}, false, std::nullopt},
      {"non-empty taints, empty tolerations", {taint("foo", "bar", kNoSchedule)}, {}, false, "foo"},
      {"tolerated",
       {taint("foo", "bar", kNoSchedule)},
       {tol("foo", "Equal", "bar", kNoSchedule)},
       false,
       std::nullopt},
      {"first untolerated returned",
       {taint("a", "1", kNoSchedule), taint("b", "2", kNoSchedule), taint("c", "3", kNoSchedule)},
       {tol("a", "Exists", "", "")},
       false,
       "b"},
      {"filter skips PreferNoSchedule", {taint("p", "", kPrefer), taint("n", "", kNoExecute)}, {}, true, "n"},
      {"filter leaves only tolerated",
       {taint("p", "", kPrefer), taint("n", "", kNoExecute)},
       {tol("n", "Exists", "", kNoExecute)},
       true,
       std::nullopt},
  };
  for (const auto& c : cases) {
    const Taint* got = findMatchingUntoleratedTaint(
        c.taints, c.tolerations,
        c.useFilter ? TaintFilter(taintEffectIsNoScheduleOrNoExecute) : TaintFilter());
    if (!c.expectKey) {
      EXPECT_EQ(got, nullptr) << c.description;
    } else {
      ASSERT_NE(got, nullptr) << c.description;
      EXPECT_EQ(got->key, *c.expectKey) << c.description;
    }
  }
  EXPECT_TRUE(tolerationsTolerateTaint({tol("x", "Exists", "", ""), tol("foo", "Exists", "", "")},
                                       taint("foo", "", kNoSchedule)));
  EXPECT_FALSE(tolerationsTolerateTaint({}, taint("foo", "", kNoSchedule)));
}

TEST(TaintsTest, PreferNoScheduleHelpers) {
  std::vector<Toleration> tolerations = {tol("a", "Exists", "", kNoSchedule), tol("b", "Exists", "", kPrefer),
                                         tol("c", "Exists", "", "")};
  auto prefer = tolerationsForPreferNoSchedule(tolerations);
  ASSERT_EQ(prefer.size(), 2u);
  EXPECT_EQ(prefer[0].key, "b");
  EXPECT_EQ(prefer[1].key, "c");
  std::vector<Taint> taints = {taint("a", "", kPrefer), taint("b", "", kPrefer), taint("d", "", kPrefer),
                               taint("e", "", kNoSchedule)};
  EXPECT_EQ(countIntolerableTaintsPreferNoSchedule(taints, prefer), 2);  // a and d
  EXPECT_EQ(taintsWithEffect(taints, kPrefer).size(), 3u);
}

}  // namespace
}  // namespace ks::api
