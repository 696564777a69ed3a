#include "pkg/util/strings.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

TEST(StringsTest, SplitKeepsEmptyFields) {
  auto parts = split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[2], "b");
  EXPECT_EQ(split("", ',').size(), 1u);
}

TEST(StringsTest, Trim) {
  EXPECT_EQ(trim("  a b \t\n"), "a b");
  EXPECT_EQ(trim("   "), "");
}

TEST(StringsTest, Join) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ", "), "");
}

TEST(StringsTest, QuoteLikeGo) {
  EXPECT_EQ(quote("a"), "\"a\"");
  EXPECT_EQ(quote("a\"b\\"), "\"a\\\"b\\\\\"");
  EXPECT_EQ(quote(std::string("\x01", 1)), "\"\\x01\"");
}

}  // namespace
}  // namespace ks
