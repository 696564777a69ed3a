// The log formats and the logs flags' parsers (pkg/app/logging.h), as upstream's klog text and
// component-base JSON output.

#include "pkg/app/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>
#include <spdlog/details/log_msg.h>
#include <spdlog/spdlog.h>

namespace ks::app {
namespace {

using ::testing::HasSubstr;

std::string formatLine(spdlog::formatter& f, spdlog::level::level_enum level, std::string_view text,
                       spdlog::source_loc source = {}) {
  spdlog::details::log_msg msg(source, "test", level, text);
  // 2026-11-24 17:21:03.123456 local time.
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 10;
  tm.tm_mday = 24;
  tm.tm_hour = 17;
  tm.tm_min = 21;
  tm.tm_sec = 3;
  tm.tm_isdst = -1;
  msg.time = std::chrono::system_clock::from_time_t(std::mktime(&tm)) + std::chrono::microseconds(123456);
  msg.thread_id = 12345;
  spdlog::memory_buf_t buf;
  f.format(msg, buf);
  return std::string(buf.data(), buf.size());
}

TEST(KlogTextFormat, Header) {
  auto f = newKlogTextFormatter();
  EXPECT_EQ(formatLine(*f, spdlog::level::info, "Starting"), "I1124 17:21:03.123456   12345 ???:1] Starting\n");
  EXPECT_EQ(formatLine(*f, spdlog::level::warn, "w"), "W1124 17:21:03.123456   12345 ???:1] w\n");
  EXPECT_EQ(formatLine(*f, spdlog::level::err, "e"), "E1124 17:21:03.123456   12345 ???:1] e\n");
  EXPECT_EQ(formatLine(*f, spdlog::level::debug, "d"), "I1124 17:21:03.123456   12345 ???:1] d\n");
  EXPECT_EQ(formatLine(*f, spdlog::level::info, "m", spdlog::source_loc{"/src/pkg/app/run.cpp", 123, "f"}),
            "I1124 17:21:03.123456   12345 run.cpp:123] m\n");
}

TEST(JsonFormat, Line) {
  auto f = newJsonFormatter();
  const std::string line = formatLine(*f, spdlog::level::info, "Starting \"x\"");
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  auto j = nlohmann::ordered_json::parse(line);
  // Keys in component-base's order: ts (unix milliseconds, fractional), msg, v.
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"ts", "msg", "v"}));
  EXPECT_EQ(j["msg"], "Starting \"x\"");
  EXPECT_EQ(j["v"], 0);
  const double ts = j["ts"].get<double>();
  EXPECT_NEAR(std::fmod(ts, 1.0), 0.456, 1e-3);  // microseconds kept as the fraction of a millisecond
  auto withCaller = nlohmann::ordered_json::parse(
      formatLine(*f, spdlog::level::err, "failed", spdlog::source_loc{"/x/server.cpp", 7, "f"}));
  EXPECT_EQ(withCaller.dump(), "{\"ts\":" + withCaller["ts"].dump() + ",\"caller\":\"server.cpp:7\",\"msg\":\"failed\"}");
  EXPECT_EQ(nlohmann::json::parse(formatLine(*f, spdlog::level::debug, "d"))["v"], 2);
}

TEST(ParseVModule, KlogSyntax) {
  auto m = parseVModule("a=1,,b*=10,");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (std::vector<VModuleEntry>{{"a", 1}, {"b*", 10}}));
  EXPECT_EQ(parseVModule("foo").error().message(), "\"foo\" does not have the pattern=N format");
  EXPECT_EQ(parseVModule("a=1=2").error().message(), "\"a=1=2\" does not have the pattern=N format");
  EXPECT_EQ(parseVModule("a=").error().message(), "\"a=\" does not have the pattern=N format");
  EXPECT_EQ(parseVModule("a=b").error().message(),
            "parsing verbosity in \"a=b\": strconv.ParseUint: parsing \"b\": invalid syntax");
  EXPECT_EQ(parseVModule("a=2147483648").error().message(),
            "parsing verbosity in \"a=2147483648\": strconv.ParseUint: parsing \"2147483648\": value out of range");
}

TEST(ParseQuantity, Sizes) {
  EXPECT_EQ(*parseQuantity("512"), 512u);
  EXPECT_EQ(*parseQuantity("1k"), 1000u);
  EXPECT_EQ(parseQuantity("1K").error().message(), "unable to parse quantity's suffix");  // as upstream
  EXPECT_EQ(*parseQuantity("0.5Ki"), 512u);
  EXPECT_EQ(*parseQuantity("2Ki"), 2048u);
  EXPECT_EQ(*parseQuantity("3M"), 3000000u);
  EXPECT_EQ(*parseQuantity("5Mi"), 5u * 1024 * 1024);
  EXPECT_EQ(*parseQuantity("1e3"), 1000u);
  EXPECT_EQ(*parseQuantity("0"), 0u);
  EXPECT_THAT(parseQuantity("x").error().message(), HasSubstr("quantities must match the regular expression"));
  EXPECT_THAT(parseQuantity("1x").error().message(), HasSubstr("quantities must match the regular expression"));
}

TEST(ValidateLogging, GatesAndFormats) {
  features::FeatureGate gates;
  LoggingOptions o;
  EXPECT_TRUE(validateLogging(o, gates).ok());
  o.format = "json";
  EXPECT_TRUE(validateLogging(o, gates).ok());  // LoggingBetaOptions is on by default
  o.jsonSplitStream = true;
  o.jsonInfoBufferSize = 1;
  EXPECT_EQ(validateLogging(o, gates).error().message(),
            "[options.json.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled, "
            "options.json.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled]");
  ASSERT_TRUE(gates.set("LoggingAlphaOptions=true").ok());
  EXPECT_TRUE(validateLogging(o, gates).ok());
}

TEST(Verbosity, SetAtRunTime) {
  setVerbosity(4);
  EXPECT_EQ(verbosity(), 4);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::trace);
  setVerbosity(2);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::debug);
  setVerbosity(0);
  EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::info);
}

}  // namespace
}  // namespace ks::app
