// field.Error rendering and ToAggregate joining (k8s.io/apimachinery/pkg/util/validation/field).

#include "pkg/api/field.h"

#include <gtest/gtest.h>

namespace ks::api {
namespace {

TEST(FieldErrorTest, Messages) {
  EXPECT_EQ(field::required("spec.x", "").message(), "spec.x: Required value");
  EXPECT_EQ(field::required("spec.x", "can not be empty").message(),
            "spec.x: Required value: can not be empty");
  EXPECT_EQ(field::forbidden("spec.x", "not here").message(), "spec.x: Forbidden: not here");
  EXPECT_EQ(field::invalid("spec.w", "1000", "must be in the range 1-100").message(),
            "spec.w: Invalid value: 1000: must be in the range 1-100");
  EXPECT_EQ(field::duplicate("a[0]", field::quoteValue("{k, v}")).message(),
            "a[0]: Duplicate value: \"{k, v}\"");
  EXPECT_EQ(field::notSupported("p", field::jsonValue("Foo"), {"Honor", "Ignore"}).message(),
            "p: Unsupported value: \"Foo\": supported values: \"Honor\", \"Ignore\"");
  EXPECT_EQ(field::notSupported("p", field::jsonValue("Foo"), {}).message(), "p: Unsupported value: \"Foo\"");
}

TEST(FieldErrorTest, Paths) {
  EXPECT_EQ(field::child("", "spec"), "spec");
  EXPECT_EQ(field::child("spec", "affinity"), "spec.affinity");
  EXPECT_EQ(field::index("spec.items", 3), "spec.items[3]");
}

TEST(FieldErrorTest, Aggregate) {
  EXPECT_EQ(aggregateFieldErrors({}), "");
  EXPECT_EQ(aggregateFieldErrors({field::required("a", "")}), "a: Required value");
  EXPECT_EQ(
      aggregateFieldErrors({field::required("a", ""), field::required("b", ""), field::required("a", "")}),
      "[a: Required value, b: Required value]");
  EXPECT_EQ(aggregateFieldErrors({field::required("a", ""), field::required("a", "")}), "a: Required value");
}

// json.Marshal of a string (HTML-escaped) vs %q.
TEST(FieldErrorTest, ValueRendering) {
  EXPECT_EQ(field::quoteValue("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(field::jsonValue("In"), "\"In\"");
  EXPECT_EQ(field::jsonValue("a<b>&c"), "\"a\\u003cb\\u003e\\u0026c\"");
  EXPECT_EQ(field::jsonValue("q\"\\"), "\"q\\\"\\\\\"");
  EXPECT_EQ(field::jsonValue("\n\r\t\b\f\x01\x7f"), "\"\\n\\r\\t\\b\\f\\u0001\x7f\"");
  EXPECT_EQ(field::jsonValue("z\xc3\xa9"), "\"z\xc3\xa9\"");   // é kept
  EXPECT_EQ(field::jsonValue("\xe2\x80\xa8"), "\"\\u2028\"");  // line separator escaped
  EXPECT_EQ(field::jsonValue("a\xff"
                             "b"),
            "\"a\\ufffdb\"");                                                // invalid UTF-8
  EXPECT_EQ(field::jsonValue("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // surrogate: 3 invalid bytes
}

}  // namespace
}  // namespace ks::api
