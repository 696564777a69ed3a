// The Go behaviours the CEL libraries carry over (the differential oracle checks them against upstream
// end to end; these pin the pieces): strconv.Quote, net/netip, net/url, x/text number formatting.

#include <gtest/gtest.h>

#include "pkg/dra/cel/format.h"
#include "pkg/dra/cel/goquote.h"
#include "pkg/dra/cel/net.h"
#include "pkg/dra/cel/url.h"

namespace ks::cel {
namespace {

TEST(CelLibraryTest, QuotesAsGoDoes) {
  EXPECT_EQ(goQuote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(goQuote("\n\x01\x7f"), R"("\n\x01\x7f")");
  EXPECT_EQ(goQuote("\xC3\xA9\xff"), "\"\xC3\xA9\\xff\"");
  EXPECT_EQ(goQuote("\xC2\xA0"), R"("\u00a0")");
}

TEST(CelLibraryTest, ParsesAddressesAsNetipDoes) {
  EXPECT_EQ(parseIP("2001:0DB8::0001")->toString(), "2001:db8::1");
  EXPECT_EQ(parseIP("1:0:0:2:0:0:0:3")->toString(), "1:0:0:2::3");
  EXPECT_EQ(
      parseIP("010.0.0.1").error().message(),
      "IP Address \"010.0.0.1\" parse error during conversion from string: ParseAddr(\"010.0.0.1\"): IPv4 "
      "field has octet with leading zero");
  EXPECT_EQ(parseIP("fe80::1%eth0").error().message(),
            "IP address \"fe80::1%eth0\" with zone value is not allowed");
  EXPECT_EQ(parseIP("::ffff:1.2.3.4").error().message(),
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
  auto cidr = parseCIDR("10.1.2.3/8");
  ASSERT_TRUE(cidr.ok());
  EXPECT_EQ(cidr->toString(), "10.1.2.3/8");
  EXPECT_TRUE(cidr->contains(*parseIP("10.200.0.1")));
  EXPECT_FALSE(cidr->contains(*parseIP("::1")));
  EXPECT_FALSE(parseCIDR("10.0.0.0/08").ok());
}

TEST(CelLibraryTest, ParsesUrlsAsNetUrlDoes) {
  auto u = parseURL("HTTPS://user:p%20w@Example.com:8443/a%2Fb/c d?x=1&y=2&x=3#frag");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->hostname(), "Example.com");
  EXPECT_EQ(u->port(), "8443");
  // The raw path is not validly escaped (a space), so Go escapes the decoded path again.
  EXPECT_EQ(u->escapedPath(), "/a/b/c%20d");
  ASSERT_EQ(u->query().size(), 2u);
  EXPECT_EQ(u->query()[0].second, (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(u->toString(), "https://user:p%20w@Example.com:8443/a/b/c%20d?x=1&y=2&x=3#frag");
  EXPECT_EQ(parseURL("https://h/a%2Fb")->escapedPath(), "/a%2Fb");
  EXPECT_EQ(parseRequestURI("example.com").error().message(),
            "parse \"example.com\": invalid URI for request");
  EXPECT_EQ(parseRequestURI("https://[::1/").error().message(),
            "parse \"https://[::1/\": missing ']' in host");
}

std::string format(const std::string& f, const Value& v) {
  FormatOutcome out = interpolateFormat(
      f, 1, true, [&](size_t, char verb, std::optional<int64_t> p) { return formatClause(v, verb, p); });
  if (auto* e = std::get_if<FormatFailure>(&out)) return "error: " + e->message;
  return std::get<std::string>(out);
}

TEST(CelLibraryTest, FormatsAsCelGoDoes) {
  EXPECT_EQ(format("%f", Value::dbl(1234567.891)), "1,234,567.891000");
  EXPECT_EQ(format("%.0f", Value::dbl(-0.4)), "-0");
  EXPECT_EQ(format("%e", Value::dbl(1234.5)), "1.234500\u00D710\u2070\u00B3");
  EXPECT_EQ(format("%.8e", Value::string("NaN")), "     NaN");
  EXPECT_EQ(format("%x", Value::integer(-255)), "-ff");
  EXPECT_EQ(format("%s", Value::list({Value::string("a"), Value::dbl(1.5), Value()})),
            "[\"a\", 1.500000, null]");
  EXPECT_EQ(format("%d", Value::dbl(1.5)),
            "error: error during formatting: decimal clause can only be used on integers, was given double");
  EXPECT_EQ(format("%5d", Value::integer(1)),
            "error: could not parse formatting clause: unrecognized formatting clause \"5\"");
}

}  // namespace
}  // namespace ks::cel
