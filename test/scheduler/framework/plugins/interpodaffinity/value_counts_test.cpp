#include "pkg/scheduler/framework/plugins/interpodaffinity/value_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace ks::plugins::interpodaffinity {
namespace {

std::map<std::string, int64_t> entries(const ValueCounts& c) {
  std::map<std::string, int64_t> out;
  c.forEach([&](std::string_view v, int64_t n) { out.emplace(std::string(v), n); });
  return out;
}

TEST(ValueCountsTest, InsertFindEraseAcrossRehashes) {
  ValueCounts c;
  EXPECT_EQ(c.find("a"), nullptr);
  std::map<std::string, int64_t> want;
  // Long values (no small-string storage) and enough of them to rehash several times.
  for (int i = 0; i < 1000; ++i) {
    const std::string v = "ip-10-0-" + std::to_string(i) + ".ec2.internal";
    c[v] += i;
    want[v] += i;
  }
  for (int i = 0; i < 1000; i += 3) {
    const std::string v = "ip-10-0-" + std::to_string(i) + ".ec2.internal";
    c.erase(v);
    want.erase(v);
  }
  c.erase("absent");
  // Erased slots are reused and skipped by lookups.
  for (int i = 0; i < 1000; i += 6) {
    const std::string v = "ip-10-0-" + std::to_string(i) + ".ec2.internal";
    c[v] = 7;
    want[v] = 7;
  }
  EXPECT_EQ(c.size(), want.size());
  EXPECT_EQ(entries(c), want);
  ASSERT_NE(c.find("ip-10-0-6.ec2.internal"), nullptr);
  EXPECT_EQ(*c.find("ip-10-0-6.ec2.internal"), 7);
  EXPECT_EQ(c.find("ip-10-0-3.ec2.internal"), nullptr);
  EXPECT_EQ(*c.find("ip-10-0-1.ec2.internal"), 1);
}

TEST(ValueCountsTest, EqualityIgnoresOrderAndErasedEntries) {
  ValueCounts a;
  ValueCounts b;
  b.reserve(100);
  a["x"] = 1;
  a["y"] = 2;
  b["gone"] = 5;
  b["y"] = 2;
  b["x"] = 1;
  EXPECT_FALSE(a == b);
  b.erase("gone");
  EXPECT_TRUE(a == b);
  b["x"] = 3;
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(ValueCounts{} == ValueCounts{});
  EXPECT_TRUE(ValueCounts{}.empty());
}

}  // namespace
}  // namespace ks::plugins::interpodaffinity
