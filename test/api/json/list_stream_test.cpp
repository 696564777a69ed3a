// JsonListSplitter / JsonListDecoder: a list body decoded as it arrives, in chunks of any size, gives what
// decoding the whole text gives; metadata.managedFields never reaches the item parser; malformed bodies
// are errors.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pkg/api/json/codec.h"
#include "pkg/api/json/list_splitter.h"
#include "test/api/json/test_util.h"

namespace ks::api {
namespace {

using json = nlohmann::json;
using testing::readTestdata;

// Feeds `body` in chunks of `size` bytes (the last one shorter).
template <typename T>
Result<List<T>> decodeInChunks(std::string_view body, size_t size) {
  JsonListDecoder<T> d;
  for (size_t at = 0; at < body.size(); at += size) {
    if (auto r = d.feed(body.substr(at, size)); !r.ok()) return r.error();
  }
  return d.finish();
}

// Every item of `body` as the splitter hands it out, fed in chunks of `size`.
std::vector<std::string> splitInChunks(std::string_view body, size_t size, std::string* envelope = nullptr) {
  JsonListSplitter s;
  std::vector<std::string> items;
  for (size_t at = 0; at < body.size(); at += size) {
    auto r = s.feed(body.substr(at, size), [&](std::string&& item) -> Result<void> {
      items.push_back(std::move(item));
      return {};
    });
    EXPECT_TRUE(r.ok()) << r.error().message();
  }
  EXPECT_TRUE(s.finish().ok());
  if (envelope != nullptr) *envelope = s.envelope();
  return items;
}

TEST(JsonListDecoderTest, AnyChunkingGivesTheWholeTextsDecoding) {
  const std::string body = readTestdata("podlist.json");
  auto whole = decodeListJson<Pod>(body);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  ASSERT_GE(whole->items.size(), 2u);
  const std::string expected = encodeListJson(*whole);
  for (size_t size : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, size_t{1000}, body.size()}) {
    auto streamed = decodeInChunks<Pod>(body, size);
    ASSERT_TRUE(streamed.ok()) << size << ": " << streamed.error().message();
    EXPECT_EQ(encodeListJson(*streamed), expected) << "chunks of " << size;
    EXPECT_EQ(streamed->metadata.resourceVersion, "918500");
    EXPECT_FALSE(streamed->metadata.continue_.empty());
  }
}

TEST(JsonListDecoderTest, ManagedFieldsAreDroppedWhereverTheyAre) {
  // managedFields first, in the middle and last in metadata; strings holding braces, quotes, commas and
  // the key's own name; whitespace as a pretty printer writes it; a scalar value.
  const json managed = json::array({{{"manager", "m"}, {"fieldsV1", {{"f:spec", {{"k:{\"a\":\"}\"}", json::object()}}}}}}});
  std::vector<json> metas = {
      {{"managedFields", managed}, {"name", "first"}, {"labels", {{"x", "\"managedFields\": [,}"}}}},
      {{"name", "middle"}, {"managedFields", managed}, {"namespace", "ns"}},
      {{"name", "last"}, {"annotations", {{"managedFields", "kept: not metadata.managedFields"}}}, {"managedFields", managed}},
      {{"name", "scalar"}, {"managedFields", nullptr}, {"uid", "u"}},
      {{"name", "only"}, {"managedFields", managed}},
  };
  json list = {{"kind", "PodList"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", "7"}}}, {"items", json::array()}};
  for (const auto& m : metas) {
    list["items"].push_back({{"metadata", m}, {"spec", {{"managedFields", "in spec: kept"}}}});
  }
  for (const std::string& body : {list.dump(), list.dump(2)}) {
    for (size_t size : {size_t{1}, size_t{5}, size_t{13}, body.size()}) {
      const auto items = splitInChunks(body, size);
      ASSERT_EQ(items.size(), metas.size());
      for (size_t i = 0; i < items.size(); ++i) {
        json expected = list["items"][i];
        expected["metadata"].erase("managedFields");
        const json got = json::parse(items[i], nullptr, /*allow_exceptions=*/false);
        ASSERT_FALSE(got.is_discarded()) << "not JSON: " << items[i];
        EXPECT_EQ(got, expected) << "item " << i << ", chunks of " << size;
      }
    }
  }
}

TEST(JsonListDecoderTest, EnvelopeKeepsEverythingButTheItems) {
  const std::string body =
      R"({"kind":"NodeList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],)"
      R"("metadata":{"resourceVersion":"42","continue":"c"},"apiVersion":"v1"})";
  std::string envelope;
  const auto items = splitInChunks(body, 4, &envelope);
  EXPECT_EQ(items.size(), 2u);
  EXPECT_EQ(json::parse(envelope),
            json::parse(R"({"kind":"NodeList","items":[],"metadata":{"resourceVersion":"42","continue":"c"},)"
                        R"("apiVersion":"v1"})"));
  auto list = decodeInChunks<Node>(body, 3);
  ASSERT_TRUE(list.ok()) << list.error().message();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].metadata.name, "b");
  EXPECT_EQ(list->metadata.resourceVersion, "42");
  EXPECT_EQ(list->metadata.continue_, "c");
}

TEST(JsonListDecoderTest, EmptyAndNullItems) {
  for (const std::string body : {R"({"metadata":{"resourceVersion":"1"},"items":[]})",
                                 R"({"metadata":{"resourceVersion":"1"},"items":null})",
                                 R"({"metadata":{"resourceVersion":"1"}})"}) {
    auto list = decodeInChunks<Pod>(body, 2);
    ASSERT_TRUE(list.ok()) << body << ": " << list.error().message();
    EXPECT_TRUE(list->items.empty());
    EXPECT_EQ(list->metadata.resourceVersion, "1");
  }
}

TEST(JsonListDecoderTest, MalformedBodiesAreErrors) {
  struct Case {
    std::string body;
    std::string error;
  };
  const std::vector<Case> cases = {
      {R"([{"metadata":{}}])", "expected a JSON object"},
      {R"({"items":[1,2]})", "items: expected objects"},
      {R"({"items":[{"metadata":{"name":"a"}}]}{})", "text after the end of the list"},
      {R"({"items":[{"metadata":{"name":"a"}})", "unexpected end of the list"},
      {R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":7}}]})", "items[1]: metadata.name"},
      {R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"resourceVersion":]})", "invalid JSON"},
      {"", "unexpected end of the list"},
  };
  for (const auto& c : cases) {
    auto list = decodeInChunks<Pod>(c.body, 3);
    ASSERT_FALSE(list.ok()) << c.body;
    EXPECT_NE(list.error().message().find(c.error), std::string::npos) << c.body << ": " << list.error().message();
  }
}

// A long list is decoded in batches shared with a helper thread: the items keep their order, and the first
// bad item (wherever its batch was decoded) is the error.
TEST(JsonListDecoderTest, LongListsKeepOrderAndReportTheFirstBadItem) {
  auto body = [](int n, int bad) {
    json list = {{"metadata", {{"resourceVersion", "9"}}}, {"items", json::array()}};
    for (int i = 0; i < n; ++i) {
      json pod = {{"metadata", {{"name", "p-" + std::to_string(i)}, {"managedFields", json::array({{{"manager", "m"}}})}}},
                  {"spec", {{"nodeName", "n"}}}};
      if (i == bad || i == bad + 700) pod["spec"]["priority"] = "high";
      list["items"].push_back(std::move(pod));
    }
    return list.dump();
  };
  const std::string good = body(5000, -1000);
  for (size_t size : {size_t{997}, size_t{1} << 16}) {
    auto list = decodeInChunks<Pod>(good, size);
    ASSERT_TRUE(list.ok()) << list.error().message();
    ASSERT_EQ(list->items.size(), 5000u);
    for (size_t i = 0; i < list->items.size(); ++i) {
      ASSERT_EQ(list->items[i].metadata.name, "p-" + std::to_string(i));
    }
  }
  auto bad = decodeInChunks<Pod>(body(5000, 3210), 4096);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("items[3210]: spec.priority", 0), 0u) << bad.error().message();
}

// Random bodies cut at random places never crash the splitter, and a valid one always splits the same.
TEST(JsonListDecoderTest, RandomCutsOfAValidBody) {
  const std::string body = readTestdata("podlist.json");
  const auto reference = splitInChunks(body, body.size());
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    JsonListSplitter s;
    std::vector<std::string> items;
    size_t at = 0;
    while (at < body.size()) {
      const size_t n = std::uniform_int_distribution<size_t>(1, 40)(rng);
      ASSERT_TRUE(s.feed(std::string_view(body).substr(at, n), [&](std::string&& item) -> Result<void> {
                     items.push_back(std::move(item));
                     return {};
                   }).ok());
      at += n;
    }
    ASSERT_TRUE(s.finish().ok());
    EXPECT_EQ(items, reference);
  }
}

}  // namespace
}  // namespace ks::api
