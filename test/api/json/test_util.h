#pragma once
// Helpers shared by the codec tests: testdata loading and the round-trip assertion.

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "pkg/api/json/codec.h"
#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/api/json/yaml.h"

namespace ks::api::testing {

inline std::string readTestdata(const std::string& name) {
  std::ifstream in(std::string(KS_APIJSON_TESTDATA_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing testdata " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Loads a .json or .yaml fixture (one document) and decodes it as T; fails the test on error.
template <typename T>
T loadFixture(const std::string& name) {
  std::string text = readTestdata(name);
  auto docs = parseJsonOrYaml(text);
  EXPECT_TRUE(docs.ok()) << name << ": " << (docs.ok() ? "" : docs.error().message());
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << name << ": expected one document";
    return T{};
  }
  auto obj = fromJson<T>((*docs)[0]);
  EXPECT_TRUE(obj.ok()) << name << ": " << (obj.ok() ? "" : obj.error().message());
  if (!obj.ok()) return T{};
  return std::move(obj).value();
}

inline Time at(const char* rfc3339) {
  auto t = parseTime(rfc3339);
  EXPECT_TRUE(t.ok()) << rfc3339;
  return t.ok() ? *t : Time{};
}

// encode -> decode gives an equal object and a stable encoding; the same through block YAML.
template <typename T>
void expectRoundTrip(const T& obj) {
  std::string enc = encodeJson(obj);
  auto back = decodeJson<T>(enc);
  ASSERT_TRUE(back.ok()) << back.error().message() << "\n" << enc;
  EXPECT_TRUE(*back == obj) << "JSON round trip changed the object:\n" << enc;
  EXPECT_EQ(encodeJson(*back), enc);

  std::string yaml = jsonToYaml(toJson(obj));
  auto docs = yamlToJson(yaml);
  ASSERT_TRUE(docs.ok()) << docs.error().message() << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u) << yaml;
  EXPECT_EQ((*docs)[0], toJson(obj)) << yaml;
}

}  // namespace ks::api::testing
