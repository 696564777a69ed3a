// Tables ported from k8s.io/apimachinery/pkg/api/resource/quantity_test.go.

#include "pkg/api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ks::api {
namespace {

using F = Quantity::Format;

constexpr int64_t kMostPositive = std::numeric_limits<int64_t>::max();
constexpr int64_t kMostNegative = std::numeric_limits<int64_t>::min();

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

Quantity q(int64_t value, int32_t exponent, F format = F::DecimalSI) {
  return Quantity::fromScaled(value, exponent, format);
}

Quantity mustParse(std::string_view s) {
  auto r = Quantity::parse(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : Quantity();
}

Quantity neg(const Quantity& x) {
  Quantity z = Quantity::fromInt(0, x.format());
  z.sub(x);
  return z;
}

TEST(QuantityTest, ParseZero) {
  EXPECT_EQ(mustParse("0").toString(), "0");
  EXPECT_FALSE(Quantity::parse("Non-Numeric").ok());
  auto empty = Quantity::parse("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(), kErrFormatWrong);
}

struct ParseCase {
  std::string input;
  Quantity expect;
};

std::vector<ParseCase> parseTable() {
  return {
      {"0", q(0, 0)},
      {"0n", q(0, 0)},
      {"0u", q(0, 0)},
      {"0m", q(0, 0)},
      {"0Ki", q(0, 0, F::BinarySI)},
      {"0k", q(0, 0)},
      {"0Mi", q(0, 0, F::BinarySI)},
      {"0M", q(0, 0)},
      {"0Gi", q(0, 0, F::BinarySI)},
      {"0G", q(0, 0)},
      {"0Ti", q(0, 0, F::BinarySI)},
      {"0T", q(0, 0)},
      // Quantity less numbers are allowed
      {"1", q(1, 0)},
      // Binary suffixes
      {"1Ki", q(1024, 0, F::BinarySI)},
      {"8Ki", q(8 * 1024, 0, F::BinarySI)},
      {"7Mi", q(7 * 1024 * 1024, 0, F::BinarySI)},
      {"6Gi", q(6LL * 1024 * 1024 * 1024, 0, F::BinarySI)},
      {"5Ti", q(5LL * 1024 * 1024 * 1024 * 1024, 0, F::BinarySI)},
      {"4Pi", q(4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0, F::BinarySI)},
      {"3Ei", q(3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, F::BinarySI)},
      {"10Ti", q(10LL * 1024 * 1024 * 1024 * 1024, 0, F::BinarySI)},
      {"100Ti", q(100LL * 1024 * 1024 * 1024 * 1024, 0, F::BinarySI)},
      // Decimal suffixes
      {"5n", q(5, -9)},
      {"4u", q(4, -6)},
      {"3m", q(3, -3)},
      {"9", q(9, 0)},
      {"8k", q(8, 3)},
      {"50k", q(5, 4)},
      {"7M", q(7, 6)},
      {"6G", q(6, 9)},
      {"5T", q(5, 12)},
      {"40T", q(4, 13)},
      {"300T", q(3, 14)},
      {"2P", q(2, 15)},
      {"1E", q(1, 18)},
      // Decimal exponents
      {"1E-3", q(1, -3, F::DecimalExponent)},
      {"1e3", q(1, 3, F::DecimalExponent)},
      {"1E6", q(1, 6, F::DecimalExponent)},
      {"1e9", q(1, 9, F::DecimalExponent)},
      {"1E12", q(1, 12, F::DecimalExponent)},
      {"1e15", q(1, 15, F::DecimalExponent)},
      {"1E18", q(1, 18, F::DecimalExponent)},
      // Nonstandard but still parsable
      {"1e14", q(1, 14, F::DecimalExponent)},
      {"1e13", q(1, 13, F::DecimalExponent)},
      {"1e3", q(1, 3, F::DecimalExponent)},
      {"100.035k", q(100035, 0)},
      // Things that look like floating point
      {"0.001", q(1, -3)},
      {"0.0005k", q(5, -1)},
      {"0.005", q(5, -3)},
      {"0.05", q(5, -2)},
      {"0.5", q(5, -1)},
      {"0.00050k", q(5, -1)},
      {"0.00500", q(5, -3)},
      {"0.05000", q(5, -2)},
      {"0.50000", q(5, -1)},
      {"0.5e0", q(5, -1, F::DecimalExponent)},
      {"0.5e-1", q(5, -2, F::DecimalExponent)},
      {"0.5e-2", q(5, -3, F::DecimalExponent)},
      {"0.5e0", q(5, -1, F::DecimalExponent)},
      {"10.035M", q(10035, 3)},
      {"1.2e3", q(12, 2, F::DecimalExponent)},
      {"1.3E+6", q(13, 5, F::DecimalExponent)},
      {"1.40e9", q(14, 8, F::DecimalExponent)},
      {"1.53E12", q(153, 10, F::DecimalExponent)},
      {"1.6e15", q(16, 14, F::DecimalExponent)},
      {"1.7E18", q(17, 17, F::DecimalExponent)},
      {"9.01", q(901, -2)},
      {"8.1k", q(81, 2)},
      {"7.123456M", q(7123456, 0)},
      {"6.987654321G", q(6987654321, 0)},
      {"5.444T", q(5444, 9)},
      {"40.1T", q(401, 11)},
      {"300.2T", q(3002, 11)},
      {"2.5P", q(25, 14)},
      {"1.01E", q(101, 16)},
      // Things that saturate/round
      {"3.001n", q(4, -9)},
      {"1.1E-9", q(2, -9, F::DecimalExponent)},
      {"0.0000000001", q(1, -9)},
      {"0.0000000005", q(1, -9)},
      {"0.00000000050", q(1, -9)},
      {"0.5e-9", q(1, -9, F::DecimalExponent)},
      {"0.9n", q(1, -9)},
      {"0.00000012345", q(124, -9)},
      {"0.00000012354", q(124, -9)},
      {"9Ei", q(kMostPositive, 0, F::BinarySI)},
      {"9223372036854775807Ki", q(kMostPositive, 0, F::BinarySI)},
      {"12E", q(12, 18)},
      // We'll accept fractional binary stuff, too.
      {"100.035Ki", q(10243584, -2, F::BinarySI)},
      {"0.5Mi", q(512 * 1024, 0, F::BinarySI)},
      {"0.05Gi", q(536870912, -1, F::BinarySI)},
      {"0.025Ti", q(274877906944, -1, F::BinarySI)},
      // Things written by trolls
      {"0.000000000001Ki", q(2, -9)},  // rounds up, changes format
      {".001", q(1, -3)},
      {".0001k", q(100, -3)},
      {"1.", q(1, 0)},
      {"1.G", q(1, 9)},
  };
}

TEST(QuantityTest, Parse) {
  for (const auto& item : parseTable()) {
    SCOPED_TRACE(item.input);
    auto got = Quantity::parse(item.input);
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(got->compare(item.expect), 0)
        << "expected " << item.expect.toString() << " got " << got->toString();
    EXPECT_EQ(got->format(), item.expect.format());
  }
}

TEST(QuantityTest, ParseNegative) {
  for (const auto& item : parseTable()) {
    SCOPED_TRACE("-" + item.input);
    auto got = Quantity::parse("-" + item.input);
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(got->compare(neg(item.expect)), 0) << got->toString();
    EXPECT_EQ(got->format(), item.expect.format());
    EXPECT_LE(got->sign(), 0);
  }
}

TEST(QuantityTest, ParsePlus) {
  for (const auto& item : parseTable()) {
    SCOPED_TRACE("+" + item.input);
    auto got = Quantity::parse("+" + item.input);
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(got->compare(item.expect), 0) << got->toString();
    EXPECT_EQ(got->format(), item.expect.format());
  }
}

TEST(QuantityTest, ParseInvalid) {
  struct Case {
    std::string input;
    std::string_view err;
  };
  const std::vector<Case> invalid = {
      {"1.1.M", kErrFormatWrong},
      {"1+1.0M", kErrFormatWrong},
      {"0.1mi", kErrSuffix},
      {"0.1am", kErrFormatWrong},
      {"aoeu", kErrFormatWrong},
      {".5i", kErrSuffix},
      {"1i", kErrSuffix},
      {"-3.01i", kErrSuffix},
      {"-3.01e-", kErrSuffix},
      // an exponent outside the int32 scale is rejected rather than truncated
      {"1e4294967297", kErrSuffix},
      {"1E2147483648", kErrSuffix},
      {"1E-2147483648", kErrSuffix},
      // whitespace is forbidden
      {" 1", kErrFormatWrong},
      {"1 ", kErrFormatWrong},
      {"1e", kErrSuffix},
      {"1K", kErrSuffix},
      {"1Mi3", kErrSuffix},
      {"1e3.5", kErrFormatWrong},
      {"", kErrFormatWrong},
  };
  for (const auto& c : invalid) {
    auto r = Quantity::parse(c.input);
    ASSERT_FALSE(r.ok()) << c.input << " parsed unexpectedly";
    EXPECT_EQ(r.error().message(), c.err) << c.input;
  }
}

TEST(QuantityTest, ParseOddButValid) {
  // parseQuantityString accepts a bare sign or dot as zero.
  for (std::string_view s : {".", "-.", "+", "-", "00", "-0"}) {
    auto r = Quantity::parse(s);
    ASSERT_TRUE(r.ok()) << s;
    EXPECT_TRUE(r->isZero()) << s;
    EXPECT_EQ(r->toString(), "0");
  }
  EXPECT_EQ(mustParse("1E2147483647").toString(), "10e2147483646");
  EXPECT_EQ(mustParse("1e+3").toString(), "1e3");
  EXPECT_EQ(mustParse("+1").toString(), "1");  // upstream would echo "+1" from its string cache
}

TEST(QuantityTest, Cmp) {
  struct Case {
    std::string x, y;
    int expect;
  };
  for (const auto& c :
       std::vector<Case>{{"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1}}) {
    EXPECT_EQ(mustParse(c.x).compare(mustParse(c.y)), c.expect) << c.x << " vs " << c.y;
  }
  EXPECT_EQ(Quantity().compare(q(10, 0)), -1);
  EXPECT_EQ(Quantity().compare(q(-10, 0)), 1);
  EXPECT_EQ(q(10, 0).compare(Quantity()), 1);
  EXPECT_EQ(q(-10, 0).compare(Quantity()), -1);
}

TEST(QuantityTest, CmpInt64AndDec) {
  struct Case {
    Quantity a, b;
    int cmp;
  };
  const int64_t e18 = 1000000LL * 1000000LL * 1000000LL;
  const std::vector<Case> table = {
      {q(901, -2), q(901, -2), 0},
      {q(90, -1), q(901, -2), -1},
      {q(901, -2), q(900, -2), 1},
      {q(0, 0), q(0, 0), 0},
      {q(0, 1), q(0, -1), 0},
      {q(0, -1), q(0, 1), 0},
      {q(800, -3), q(1, 0), -1},
      {q(800, -3), q(79, -2), 1},
      {q(kMostPositive, 0), q(1, -1), 1},
      {q(kMostPositive, 1), q(1, 0), 1},
      {q(kMostPositive, 1), q(1, 1), 1},
      {q(kMostPositive, 1), q(0, 1), 1},
      {q(kMostPositive, -16), q(1, 3), -1},
      {q(kMostNegative, 0), q(0, 0), -1},
      {q(kMostNegative, -18), q(-1, 0), -1},
      {q(kMostNegative, -19), q(-1, 0), 1},
      {q(e18, -17), q(1, 1), 0},
      {q(e18, -17), q(-10, 0), 1},
      {q(-e18, -17), q(-10, 0), 0},
      {q(e18, -17), q(1, 0), 1},
      {q(e18 + 1, -17), q(1, 1), 1},
      {q(e18 - 1, -17), q(1, 1), -1},
  };
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i].a.compare(table[i].b), table[i].cmp) << i;
    EXPECT_EQ(table[i].b.compare(table[i].a), -table[i].cmp) << i;
  }
}

TEST(QuantityTest, Neg) {
  EXPECT_EQ(neg(q(901, -2)).toString(), "-9010m");
  EXPECT_EQ(neg(q(10, 0, F::BinarySI)).compare(q(-10, 0)), 0);
  EXPECT_EQ(neg(q(-10, 0, F::BinarySI)).compare(q(10, 0)), 0);
  EXPECT_TRUE(neg(Quantity()).isZero());
}

TEST(QuantityTest, String) {
  struct Case {
    Quantity in;
    std::string expect;
    std::string alternate;
  };
  const std::vector<Case> table = {
      {q(1024 * 1024 * 1024, 0, F::BinarySI), "1Gi", "1024Mi"},
      {q(300 * 1024 * 1024, 0, F::BinarySI), "300Mi", "307200Ki"},
      {q(6 * 1024, 0, F::BinarySI), "6Ki", ""},
      {q(1001LL * 1024 * 1024 * 1024, 0, F::BinarySI), "1001Gi", "1025024Mi"},
      {q(1024LL * 1024 * 1024 * 1024, 0, F::BinarySI), "1Ti", "1024Gi"},
      {q(5, 0, F::BinarySI), "5", "5000m"},
      {q(500, -3, F::BinarySI), "500m", "0.5"},
      {q(1, 9), "1G", "1000M"},
      {q(1000, 6), "1G", "0.001T"},
      {q(1000000, 3), "1G", ""},
      {q(1000000000, 0), "1G", ""},
      {q(1, -3), "1m", "1000u"},
      {q(80, -3), "80m", ""},
      {q(1080, -3), "1080m", "1.08"},
      {q(108, -2), "1080m", "1080000000n"},
      {q(10800, -4), "1080m", ""},
      {q(300, 6), "300M", ""},
      {q(1, 12), "1T", ""},
      {q(1, 18), "1E", ""},
      {q(1, 21), "1e21", "1000E"},
      {q(5, 21), "5e21", "5000E"},
      {q(1, 24), "1e24", "1000000E"},
      {q(1, 70, F::BinarySI), "10e69", ""},
      {q(2, 70, F::BinarySI), "20e69", ""},
      {q(1, 72, F::BinarySI), "1e72", ""},
      {q(1234567, 6), "1234567M", ""},
      {q(1234567, -3, F::BinarySI), "1234567m", ""},
      {q(3, 3), "3k", ""},
      {q(1025, 0, F::BinarySI), "1025", ""},
      {q(0, 0), "0", ""},
      {q(0, 0, F::BinarySI), "0", ""},
      {q(1, 9, F::DecimalExponent), "1e9", ".001e12"},
      {q(1, -3, F::DecimalExponent), "1e-3", "0.001e0"},
      {q(1, -9, F::DecimalExponent), "1e-9", "1000e-12"},
      {q(80, -3, F::DecimalExponent), "80e-3", ""},
      {q(300, 6, F::DecimalExponent), "300e6", ""},
      {q(1, 12, F::DecimalExponent), "1e12", ""},
      {q(1, 3, F::DecimalExponent), "1e3", ""},
      {q(3, 3, F::DecimalExponent), "3e3", ""},
      {q(3, 3), "3k", ""},
      {q(0, 0, F::DecimalExponent), "0", "00"},
      {q(1, -9), "1n", ""},
      {q(80, -9), "80n", ""},
      {q(1080, -9), "1080n", ""},
      {q(108, -8), "1080n", ""},
      {q(10800, -10), "1080n", ""},
      {q(1, -6), "1u", ""},
      {q(80, -6), "80u", ""},
      {q(1080, -6), "1080u", ""},
  };
  for (const auto& item : table) {
    SCOPED_TRACE(item.expect);
    EXPECT_EQ(item.in.toString(), item.expect);
    Quantity parsed = mustParse(item.expect);
    EXPECT_EQ(parsed.toString(), item.expect);
    EXPECT_EQ(parsed.compare(item.in), 0);
    if (!item.alternate.empty()) {
      EXPECT_EQ(mustParse(item.alternate).toString(), item.expect) << item.alternate;
    }
    if (!item.in.isZero()) {
      EXPECT_EQ(neg(item.in).toString(), "-" + item.expect);
    }
  }
}

TEST(QuantityTest, BinarySIPastEiRoundTrip) {
  // 1Ei * 1024 = 2^70 has no binary suffix and no trailing decimal zeros.
  Quantity x = mustParse("1Ei");
  Quantity sum = x;
  for (int i = 1; i < 1024; ++i) sum.add(x);
  EXPECT_EQ(sum.toString(), "1180591620717411303424");
  EXPECT_EQ(mustParse(sum.toString()).compare(sum), 0);
  EXPECT_EQ(sum.value(), kMostPositive);
}

TEST(QuantityTest, BinarySIZeroExponentString) {
  EXPECT_EQ(q(2000, 0, F::BinarySI).toString(), "2000");
  EXPECT_EQ(q(-2000, 0, F::BinarySI).toString(), "-2000");
}

TEST(QuantityTest, StringBelowNano) {
  EXPECT_EQ(q(1, -12).toString(), "1e-12");
  EXPECT_EQ(q(1, -10).toString(), "100e-12");
}

TEST(QuantityTest, ParseEmit) {
  struct Case {
    std::string in, expect;
  };
  const std::vector<Case> table = {
      {"1Ki", "1Ki"},
      {"1Mi", "1Mi"},
      {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},
      {"1000M", "1G"},
      {".001Ki", "1024m"},
      {".000001Ki", "1024u"},
      {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"},
  };
  for (const auto& item : table) {
    EXPECT_EQ(mustParse(item.in).toString(), item.expect) << item.in;
    EXPECT_EQ(mustParse("-" + item.in).toString(), "-" + item.expect) << item.in;
  }
}

TEST(QuantityTest, AddSubZeroPreservesSuffix) {
  for (std::string_view v : {"100m", "1Gi"}) {
    Quantity value = mustParse(v);
    Quantity v1 = value;
    v1.add(mustParse("0"));
    EXPECT_EQ(v1.toString(), v);
    Quantity v2 = mustParse("0");
    v2.add(value);
    EXPECT_EQ(v2.toString(), v);
    Quantity v3 = value;
    v3.sub(mustParse("0"));
    EXPECT_EQ(v3.toString(), v);
    Quantity v4 = mustParse("0");
    v4.sub(value);
    EXPECT_EQ(v4.toString(), "-" + std::string(v));
  }
}

TEST(QuantityTest, CanonicalizeZero) {
  Quantity val = mustParse("1000m");
  val.sub(q(1, 0));
  EXPECT_EQ(val.toString(), "0");
}

TEST(QuantityTest, MilliNewSet) {
  struct Case {
    int64_t value;
    F format;
    std::string expect;
    bool exact;
  };
  const std::vector<Case> table = {
      {1, F::DecimalSI, "1m", true},
      {1000, F::DecimalSI, "1", true},
      {1234000, F::DecimalSI, "1234", true},
      {1024, F::BinarySI, "1024m", false},
      {1000000, F::DecimalExponent, "1e3", true},
      {1024 * 1024, F::BinarySI, "1048576m", false},
  };
  for (const auto& item : table) {
    Quantity x = Quantity::fromMilli(item.value, item.format);
    EXPECT_EQ(x.toString(), item.expect);
    if (item.exact) {
      EXPECT_EQ(mustParse(x.toString()).milliValue(), item.value);
    }
  }
}

TEST(QuantityTest, NewSet) {
  struct Case {
    int64_t value;
    F format;
    std::string expect;
  };
  const std::vector<Case> table = {
      {1, F::DecimalSI, "1"},     {1000, F::DecimalSI, "1k"},           {1234000, F::DecimalSI, "1234k"},
      {1024, F::BinarySI, "1Ki"}, {1000000, F::DecimalExponent, "1e6"}, {1024 * 1024, F::BinarySI, "1Mi"},
  };
  for (const auto& item : table) {
    Quantity x = Quantity::fromInt(item.value, item.format);
    EXPECT_EQ(x.toString(), item.expect);
    EXPECT_EQ(mustParse(x.toString()).value(), item.value);
  }
}

TEST(QuantityTest, NewScaledSet) {
  struct Case {
    int64_t value;
    int32_t scale;
    std::string expect;
  };
  const std::vector<Case> table = {
      {1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"}, {1, -3, "1m"}, {1000, -3, "1"},
      {1, 0, "1"},   {0, -9, "0"},     {0, -6, "0"},  {0, -3, "0"},     {0, 0, "0"},
  };
  for (const auto& item : table) {
    Quantity x = Quantity::fromScaled(item.value, item.scale);
    EXPECT_EQ(x.toString(), item.expect);
    EXPECT_EQ(mustParse(x.toString()).scaledValue(item.scale), item.value);
  }
}

TEST(QuantityTest, ScaledValue) {
  struct Case {
    int32_t from, to;
    int64_t expected;
  };
  const std::vector<Case> table = {
      {-9, -9, 1}, {-9, -6, 1},        {-9, -3, 1},         {-9, 0, 1},        {-6, -9, 1000},
      {-6, -6, 1}, {-6, -3, 1},        {-6, 0, 1},          {-3, -9, 1000000}, {-3, -6, 1000},
      {-3, -3, 1}, {-3, 0, 1},         {0, -9, 1000000000}, {0, -6, 1000000},  {0, -3, 1000},
      {0, 0, 1},   {2, -2, 100 * 100},
  };
  for (const auto& item : table) {
    EXPECT_EQ(Quantity::fromScaled(1, item.from).scaledValue(item.to), item.expected)
        << item.from << "->" << item.to;
  }
}

TEST(QuantityTest, NegativeValueRoundsAwayFromZero) {
  struct Case {
    std::string input;
    int64_t value, milli;
  };
  const std::vector<Case> table = {
      {"-.484785E-7466", -1, -1},
      {".484785E-7466", 1, 1},
      {"-.484785E-1", -1, -49},
      {".484785E-1", 1, 49},
      {"-0.0005", -1, -1},
      {"0.0005", 1, 1},
      {"-1500m", -2, -1500},
      {"1500m", 2, 1500},
      {"-9.5000000001Gi", -10200547329, -10200547328108},
      {"9.5000000001Gi", 10200547329, 10200547328108},
      {"-1", -1, -1000},
      {"1", 1, 1000},
      {"0", 0, 0},
  };
  for (const auto& item : table) {
    Quantity x = mustParse(item.input);
    EXPECT_EQ(x.value(), item.value) << item.input;
    EXPECT_EQ(x.milliValue(), item.milli) << item.input;
  }
}

TEST(QuantityTest, ValueSaturates) {
  EXPECT_EQ(mustParse("12E").value(), kMostPositive);
  EXPECT_EQ(mustParse("-12E").value(), kMostNegative);
  EXPECT_EQ(mustParse("9223372036854775807").value(), kMostPositive);
  EXPECT_EQ(mustParse("9223372036854775807").milliValue(), kMostPositive);
  EXPECT_EQ(mustParse("9223372036854775").milliValue(), 9223372036854775000);
  EXPECT_EQ(mustParse("99999999999999999999999").value(), kMostPositive);
  EXPECT_EQ(mustParse("99999999999999999999999").toString(), "99999999999999999999999");
  EXPECT_EQ(mustParse("1e2147483647").value(), kMostPositive);
}

TEST(QuantityTest, Sub) {
  struct Case {
    Quantity a, b, expected;
  };
  const std::vector<Case> table = {
      {q(10, 0), q(1, 1), q(0, 0)},
      {q(10, 0), q(1, 0, F::BinarySI), q(9, 0)},
      {q(10, 0, F::BinarySI), q(1, 0), q(9, 0, F::BinarySI)},
      {Quantity(), q(50, 0), q(-50, 0)},
      {q(50, 0), Quantity(), q(50, 0)},
      {Quantity(), Quantity(), q(0, 0)},
  };
  for (size_t i = 0; i < table.size(); ++i) {
    Quantity a = table[i].a;
    a.sub(table[i].b);
    EXPECT_EQ(a.compare(table[i].expected), 0) << i << ": " << a.toString();
    EXPECT_EQ(a.format(), table[i].expected.format()) << i;
  }
}

TEST(QuantityTest, NegAndSubAtMostNegative) {
  Quantity want = mustParse("9223372036854775808");  // 2^63
  Quantity sub;
  sub.sub(q(kMostNegative, 0));
  EXPECT_EQ(sub.toString(), "9223372036854775808");
  EXPECT_EQ(sub.compare(want), 0);
  EXPECT_EQ(sub.sign(), 1);

  Quantity oneSub = q(1, 0);
  oneSub.sub(q(kMostNegative, 0));
  EXPECT_EQ(oneSub.toString(), "9223372036854775809");

  Quantity neighbor;
  neighbor.sub(q(kMostNegative + 1, 0));
  EXPECT_EQ(neighbor.value(), kMostPositive);

  Quantity scaled;
  scaled.sub(q(kMostNegative, -3));
  EXPECT_EQ(scaled.toString(), "9223372036854775808m");

  Quantity scaledSub = q(1, -3);
  scaledSub.sub(q(kMostNegative, -3));
  EXPECT_EQ(scaledSub.toString(), "9223372036854775809m");
}

TEST(QuantityTest, AddOverflowsIntoBig) {
  Quantity a = q(kMostPositive, 0);
  a.add(q(1, 0));
  EXPECT_EQ(a.toString(), "9223372036854775808");
  a.sub(q(1, 0));
  EXPECT_EQ(a.compare(q(kMostPositive, 0)), 0);
  EXPECT_EQ(a.value(), kMostPositive);
  Quantity m = mustParse("1.5");
  m.add(mustParse("2500m"));
  EXPECT_EQ(m.toString(), "4");
  Quantity bin = mustParse("1Gi");
  bin.add(mustParse("1Gi"));
  EXPECT_EQ(bin.toString(), "2Gi");
  bin.sub(mustParse("512Mi"));
  EXPECT_EQ(bin.toString(), "1536Mi");
}

TEST(QuantityTest, AddHugeExponentGapKeepsLarger) {
  // Documented limit: exact alignment past 4096 digits is not attempted.
  Quantity a = mustParse("1e100000");
  a.add(q(1, 0));
  EXPECT_EQ(a.toString(), "10e99999");
}

TEST(QuantityTest, ValueAndMilliValue) {
  EXPECT_EQ(mustParse("1").milliValue(), 1000);
  EXPECT_EQ(mustParse("100m").milliValue(), 100);
  EXPECT_EQ(mustParse("100m").value(), 1);
  EXPECT_EQ(mustParse("1Gi").value(), 1073741824);
  EXPECT_EQ(mustParse("1.5Gi").value(), 1610612736);
  EXPECT_EQ(mustParse("0.1m").milliValue(), 1);
  EXPECT_EQ(mustParse("1n").value(), 1);
}

}  // namespace
}  // namespace ks::api
