#include "pkg/util/result.h"

#include <gtest/gtest.h>

#include <memory>

namespace ks {
namespace {

Result<int> half(int v) {
  if (v % 2 != 0) return Error("odd value " + std::to_string(v));
  return v / 2;
}

TEST(ResultTest, HoldsValueOrError) {
  auto ok = half(4);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 2);
  auto bad = half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "odd value 3");
}

TEST(ResultTest, WrapPrefixesContext) {
  Error e("expected a string");
  EXPECT_EQ(e.wrap("metadata.name").message(), "metadata.name: expected a string");
}

TEST(ResultTest, MovesOutMoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

TEST(ResultTest, VoidResult) {
  VoidResult good;
  EXPECT_TRUE(good.ok());
  VoidResult bad = Error("boom");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "boom");
}

}  // namespace
}  // namespace ks
