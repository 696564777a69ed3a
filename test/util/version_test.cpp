// Ports upstream k8s.io/apimachinery/pkg/util/version/version_test.go (the semantic-version tests).
#include "pkg/util/version.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

// Upstream TestSemanticVersions: each version orders after the previous one, or equals it.
TEST(VersionTest, SemanticVersions) {
  struct Item {
    std::string version;
    std::string unparsed;  // toString() when not the version itself
    bool equalsPrev = false;
  };
  const std::vector<Item> items = {
      // Every version string of the semver 2.0 spec, in increasing order except as noted.
      {"0.1.0", "", false},
      {"1.0.0-0.3.7", "", false},
      {"1.0.0-alpha", "", false},
      {"1.0.0-alpha+001", "", true},
      {"1.0.0-alpha.1", "", false},
      {"1.0.0-alpha.beta", "", false},
      {"1.0.0-beta", "", false},
      {"1.0.0-beta+exp.sha.5114f85", "", true},
      {"1.0.0-beta.2", "", false},
      {"1.0.0-beta.11", "", false},
      {"1.0.0-rc.1", "", false},
      {"1.0.0-x.7.z.92", "", false},
      {"1.0.0", "", false},
      {"1.0.0+20130313144700", "", true},
      {"1.8.0-alpha.3", "", false},
      {"1.8.0-alpha.3.673+73326ef01d2d7c", "", false},
      {"1.9.0", "", false},
      {"1.10.0", "", false},
      {"1.11.0", "", false},
      {"2.0.0", "", false},
      {"2.1.0", "", false},
      {"2.1.1", "", false},
      {"42.0.0", "", false},
      // Whitespace and a "v" prefix are allowed.
      {"   42.0.0", "42.0.0", true},
      {"\t42.0.0  ", "42.0.0", true},
      {"43.0.0-1", "43.0.0-1", false},
      {"43.0.0-1  ", "43.0.0-1", true},
      {"v43.0.0-1", "43.0.0-1", true},
      {"  v43.0.0", "43.0.0", false},
      {" 43.0.0 ", "43.0.0", true},
  };
  std::optional<Version> prev;
  for (const auto& item : items) {
    SCOPED_TRACE(item.version);
    auto v = Version::parseSemantic(item.version);
    ASSERT_TRUE(v.ok()) << v.error().message();
    EXPECT_EQ(v->toString(), item.unparsed.empty() ? item.version : item.unparsed);
    if (prev) {
      EXPECT_EQ(v->compare(*prev), item.equalsPrev ? 0 : 1);
      EXPECT_EQ(prev->compare(*v), -v->compare(*prev));
    }
    prev = *v;
  }
}

// Upstream TestBadSemanticVersions.
TEST(VersionTest, BadSemanticVersions) {
  for (const char* bad :
       {// "MUST take the form X.Y.Z"
        "1", "1.2", "1.2.3.4", ".2.3", "1..3", "1.2.", "", "..",
        // "where X, Y, and Z are non-negative integers"
        "-1.2.3", "1.-2.3", "1.2.-3", "1a.2.3", "1.2a.3", "1.2.3a", "a1.2.3", "a.b.c", "1 .2.3", "1. 2.3",
        // "and MUST NOT contain leading zeroes."
        "01.2.3", "1.02.3", "1.2.03",
        // pre-release identifiers: only ASCII alphanumerics and hyphen, not empty, numeric ones without
        // leading zeroes
        "1.2.3-/", "1.2.3-", "1.2.3-.", "1.2.3-foo.", "1.2.3-.foo", "1.2.3-01",
        // build metadata identifiers: only ASCII alphanumerics and hyphen, not empty
        "1.2.3+/", "1.2.3+", "1.2.3+.", "1.2.3+foo.", "1.2.3+.foo",
        // whitespace and "v" prefix
        "v 1.2.3", "vv1.2.3"}) {
    EXPECT_FALSE(Version::parseSemantic(bad).ok()) << bad;
  }
}

TEST(VersionTest, ErrorMessages) {
  EXPECT_EQ(Version::parseSemantic("1.2").error().message(), "illegal version string \"1.2\"");
  EXPECT_EQ(Version::parseSemantic("x").error().message(), "could not parse \"x\" as version");
  EXPECT_EQ(Version::parseSemantic("1.02.3").error().message(),
            "illegal zero-prefixed version component \"02\" in \"1.02.3\"");
  EXPECT_EQ(Version::parseSemantic("1.2.3a").error().message(),
            "could not parse pre-release/metadata (a) in version \"1.2.3a\"");
}

}  // namespace
}  // namespace ks
