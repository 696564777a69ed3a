#include "pkg/dra/cel/semver.h"

#include <gtest/gtest.h>

namespace ks::cel {
namespace {

TEST(SemverTest, ParsesAsBlangSemverV4) {
  auto v = Semver::parse("1.2.3-rc.1+build.5");
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->major, 1u);
  EXPECT_EQ(v->toString(), "1.2.3-rc.1+build.5");
  EXPECT_EQ(Semver::parse("").error().message(), "Version string empty");
  EXPECT_EQ(Semver::parse("1.2").error().message(), "No Major.Minor.Patch elements found");
  EXPECT_EQ(Semver::parse("01.2.3").error().message(), "Major number must not contain leading zeroes \"01\"");
  EXPECT_EQ(Semver::parse("1.x.3").error().message(), "Invalid character(s) found in minor number \"x\"");
  EXPECT_EQ(Semver::parse("v1.2.3").error().message(), "Invalid character(s) found in major number \"v1\"");
  EXPECT_EQ(Semver::parse("1.2.3-01").error().message(),
            "Numeric PreRelease version must not contain leading zeroes \"01\"");
  EXPECT_EQ(Semver::parse("1.2.3-").error().message(), "Prerelease is empty");
  EXPECT_EQ(Semver::parse("1.2.3+").error().message(), "Build meta data is empty");
  EXPECT_EQ(Semver::parse("1.2.99999999999999999999").error().message(),
            "strconv.ParseUint: parsing \"99999999999999999999\": value out of range");
}

TEST(SemverTest, ComparesByPrecedence) {
  auto cmp = [](const char* a, const char* b) { return Semver::parse(a)->compare(*Semver::parse(b)); };
  EXPECT_EQ(cmp("1.0.0", "1.0.0+build"), 0);
  EXPECT_EQ(cmp("1.0.0-alpha", "1.0.0"), -1);
  EXPECT_EQ(cmp("1.0.0-alpha.1", "1.0.0-alpha"), 1);
  EXPECT_EQ(cmp("1.0.0-1", "1.0.0-alpha"), -1);
  EXPECT_EQ(cmp("1.0.0-alpha.10", "1.0.0-alpha.9"), 1);
  EXPECT_EQ(cmp("2.0.0", "10.0.0"), -1);
}

TEST(SemverTest, NormalizesAsTheCelLibrary) {
  EXPECT_EQ(Semver::parseNormalized("v1.02")->toString(), "1.2.0");
  EXPECT_EQ(Semver::parseNormalized("v01.002.0003")->toString(), "1.2.3");
  EXPECT_EQ(Semver::parseNormalized("1")->toString(), "1.0.0");
  EXPECT_EQ(Semver::parseNormalized("1.2-rc").error().message(),
            "short version cannot contain PreRelease/Build meta data");
}

}  // namespace
}  // namespace ks::cel
