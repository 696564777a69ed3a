// The protobuf wire reader and the value readers, on bytes built by hand.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/api/proto/internal.h"
#include "pkg/api/proto/wire.h"

namespace ks::api::protocodec {
namespace {

std::vector<Field> fields(std::string_view msg, const char** error = nullptr) {
  std::vector<Field> out;
  Reader r(msg);
  Field f;
  while (r.next(f)) out.push_back(f);
  if (error != nullptr) *error = r.error();
  return out;
}

TEST(ProtoWire, ReadsWhatTheWriterWrites) {
  Writer w;
  w.varint(1, 150);
  w.bytes(2, "testing");
  w.boolean(15, true);
  w.varint(536870911, 1);  // the largest field number
  auto f = fields(w.data());
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].number, 1u);
  EXPECT_EQ(f[0].value, 150u);
  EXPECT_EQ(f[1].type, WireType::kBytes);
  EXPECT_EQ(f[1].bytes, "testing");
  EXPECT_EQ(f[2].number, 15u);
  EXPECT_EQ(f[3].number, 536870911u);
  // The encoding of 150 in field 1, from the protobuf documentation.
  EXPECT_EQ(w.data().substr(0, 3), std::string("\x08\x96\x01"));
}

TEST(ProtoWire, NegativeInt32IsTheTruncatedTenByteVarint) {
  Writer w;
  w.varint(1, static_cast<uint64_t>(int64_t{-5}));
  EXPECT_EQ(w.data().size(), 11u);
  DecodeContext ctx;
  int32_t v = 0;
  auto f = fields(w.data());
  ASSERT_TRUE(value(ctx, f[0], v));
  EXPECT_EQ(v, -5);
}

TEST(ProtoWire, MalformedInputIsAnErrorNotACrash) {
  const char* error = nullptr;
  for (std::string bad : {std::string("\x08"), std::string("\x12\x05" "abc"), std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
                          std::string("\x0c"), std::string("\x00\x01", 2), std::string("\x0f")}) {
    fields(bad, &error);
    EXPECT_NE(error, nullptr) << "input of " << bad.size() << " bytes";
  }
}

TEST(ProtoWire, GroupsAreSkippedWhole) {
  // field 1 group { field 2 varint 1 } end, then field 3 varint 7
  const std::string msg("\x0b\x10\x01\x0c\x18\x07", 6);
  auto f = fields(msg);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].type, WireType::kStartGroup);
  EXPECT_EQ(f[1].number, 3u);
  EXPECT_EQ(f[1].value, 7u);
}

TEST(ProtoWire, FieldOfTheWrongWireTypeNamesItsPath) {
  Writer w;
  w.varint(1, 3);  // ObjectMeta.name as a varint
  DecodeContext ctx;
  ObjectMeta meta;
  EXPECT_FALSE(read(ctx, w.data(), meta));
  EXPECT_EQ(ctx.error().message(), "name: field 1 has wire type varint, expected length-delimited");
}

TEST(ProtoWire, BadQuantityNamesItsPath) {
  Writer quantity;
  quantity.bytes(1, "12x");
  Writer entry;
  entry.bytes(1, "cpu");
  entry.bytes(2, quantity.data());
  Writer field;
  field.bytes(1, entry.data());
  DecodeContext ctx;
  std::map<std::string, Quantity> out;
  auto f = fields(field.data());
  EXPECT_FALSE(get(ctx, f[0], "requests", out));
  EXPECT_EQ(ctx.error().message().rfind("requests.cpu: ", 0), 0u) << ctx.error().message();
}

TEST(ProtoWire, ZeroTimeLeavesAnOptionalTimeUnset) {
  Writer w;
  w.bytes(8, "");  // creationTimestamp: Go writes the zero time as an empty message
  DecodeContext ctx;
  ObjectMeta meta;
  ASSERT_TRUE(read(ctx, w.data(), meta));
  EXPECT_FALSE(meta.creationTimestamp.has_value());
}

TEST(ProtoWire, PackedRepeatedScalarsAreAccepted) {
  Writer packed;
  std::string payload("\x01\x96\x01\x03", 4);  // 1, 150, 3
  packed.bytes(4, payload);
  DecodeContext ctx;
  std::vector<int64_t> out;
  auto f = fields(packed.data());
  ASSERT_TRUE(value(ctx, f[0], out));
  EXPECT_EQ(out, (std::vector<int64_t>{1, 150, 3}));
}

}  // namespace
}  // namespace ks::api::protocodec
