#include "pkg/leaderelection/identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <regex>
#include <set>

namespace ks::leaderelection {
namespace {

TEST(IdentityTest, UuidIsVersion4) {
  const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string u = newUuidV4();
    EXPECT_TRUE(std::regex_match(u, re)) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(IdentityTest, HostnameUnderscoreUuid) {
  std::array<char, 256> host{};
  ASSERT_EQ(gethostname(host.data(), host.size() - 1), 0);
  const std::string prefix = std::string(host.data()) + "_";
  const std::string a = defaultIdentity();
  const std::string b = defaultIdentity();
  ASSERT_EQ(a.rfind(prefix, 0), 0u) << a;
  EXPECT_EQ(a.size(), prefix.size() + 36);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace ks::leaderelection
