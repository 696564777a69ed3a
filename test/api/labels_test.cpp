// Tables ported from k8s.io/apimachinery/pkg/labels/selector_test.go and
// pkg/apis/meta/v1/helpers_test.go (TestLabelSelectorAsSelector).

#include "pkg/api/labels.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks::api {
namespace {

using Op = SelectionOp;

std::string removeSpaces(std::string s) {
  std::erase(s, ' ');
  return s;
}

Requirement req(const std::string& key, Op op, std::vector<std::string> values) {
  auto r = Requirement::create(key, op, std::move(values));
  EXPECT_TRUE(r.ok()) << key << ": " << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : *Requirement::create("invalid", Op::Exists, {});
}

Selector sel(std::vector<Requirement> reqs) {
  return Selector().add(std::move(reqs));
}

TEST(LabelsTest, SelectorParseGoodAndBad) {
  for (std::string s :
       {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"}) {
    auto r = Selector::parse(s);
    ASSERT_TRUE(r.ok()) << s << ": " << r.error().message();
    EXPECT_EQ(r->toString(), removeSpaces(s)) << s;
  }
  for (std::string s : {"x=a||y=b", "x==a==b", "!x=a", "x<a"}) {
    EXPECT_FALSE(Selector::parse(s).ok()) << s;
  }
}

TEST(LabelsTest, DeterministicParse) {
  auto s1 = Selector::parse("x=a,a=x");
  auto s2 = Selector::parse("a=x,x=a");
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_EQ(s1->toString(), s2->toString());
}

TEST(LabelsTest, Everything) {
  EXPECT_TRUE(Selector::everything().matches({{"x", "y"}}));
  EXPECT_TRUE(Selector::everything().empty());
  EXPECT_FALSE(Selector::nothing().matches({{"x", "y"}}));
  EXPECT_FALSE(Selector::nothing().matches({}));
  EXPECT_FALSE(Selector::nothing().empty());
  EXPECT_EQ(Selector::nothing().toString(), "");
}

TEST(LabelsTest, SelectorMatches) {
  struct Case {
    std::string selector;
    Labels labels;
    bool match;
  };
  const Labels labelset = {{"foo", "bar"}, {"baz", "blah"}};
  const std::vector<Case> cases = {
      {"", {{"x", "y"}}, true},
      {"x=y", {{"x", "y"}}, true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
      {"notin=in", {{"notin", "in"}}, true},
      {"x", {{"x", "z"}}, true},
      {"!x", {{"y", "z"}}, true},
      {"x>1", {{"x", "2"}}, true},
      {"x<1", {{"x", "0"}}, true},
      {"x=z", {}, false},
      {"x=y", {{"x", "z"}}, false},
      {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
      {"x", {{"y", "z"}}, false},
      {"!x", {{"x", "z"}}, false},
      {"x>1", {{"x", "0"}}, false},
      {"x<1", {{"x", "2"}}, false},
      {"foo=bar", labelset, true},
      {"baz=blah", labelset, true},
      {"foo=bar,baz=blah", labelset, true},
      {"foo=blah", labelset, false},
      {"baz=bar", labelset, false},
      {"foo=bar,foobar=bar,baz=blah", labelset, false},
      {"x>1", {{"x", "v2"}}, false},
      {"x>-1", {}, false},
  };
  for (const auto& c : cases) {
    auto s = Selector::parse(c.selector);
    if (c.selector == "x>-1") {
      // "-1" is not a valid label value, so upstream rejects it.
      EXPECT_FALSE(s.ok());
      continue;
    }
    ASSERT_TRUE(s.ok()) << c.selector << ": " << s.error().message();
    EXPECT_EQ(s->matches(c.labels), c.match) << c.selector;
  }
}

TEST(LabelsTest, SetMatches) {
  const Labels labelset = {{"foo", "bar"}, {"baz", "blah"}};
  EXPECT_TRUE(Selector::fromSet({}).matches(labelset));
  EXPECT_TRUE(Selector::fromSet({}).empty());
  EXPECT_TRUE(Selector::fromSet({{"foo", "bar"}}).matches(labelset));
  EXPECT_TRUE(Selector::fromSet({{"baz", "blah"}}).matches(labelset));
  EXPECT_TRUE(Selector::fromSet({{"foo", "bar"}, {"baz", "blah"}}).matches(labelset));
  EXPECT_FALSE(Selector::fromSet({{"foo", "bar"}, {"x", "y"}}).matches(labelset));
  EXPECT_EQ(Selector::fromSet({{"foo", "bar"}, {"baz", "blah"}}).toString(), "baz=blah,foo=bar");
}

TEST(LabelsTest, RequirementConstructor) {
  struct Case {
    std::string key;
    Op op;
    std::vector<std::string> vals;
    bool success;
  };
  const std::vector<Case> cases = {
      {"x", Op::In, {}, false},
      {"x", Op::NotIn, {}, false},
      {"x", Op::In, {"foo"}, true},
      {"x", Op::NotIn, {"foo"}, true},
      {"x", Op::Exists, {}, true},
      {"x", Op::DoesNotExist, {}, true},
      {"1foo", Op::In, {"bar"}, true},
      {"1234", Op::In, {"bar"}, true},
      {"y", Op::GreaterThan, {"1"}, true},
      {"z", Op::LessThan, {"6"}, true},
      {"foo", Op::GreaterThan, {"bar"}, false},
      {"barz", Op::LessThan, {"blah"}, false},
      {std::string(254, 'a'), Op::Exists, {}, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Requirement::create(c.key, c.op, c.vals).ok(), c.success) << c.key;
  }
}

TEST(LabelsTest, RequirementErrors) {
  const std::string nameRegex =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  struct Case {
    std::string key;
    Op op;
    std::vector<std::string> vals;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"x",
       Op::In,
       {},
       "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"},
      {"x",
       Op::Equals,
       {"a", "b"},
       "values: Invalid value: []string{\"a\", \"b\"}: exact-match compatibility requires one single value"},
      {"x",
       Op::Exists,
       {"a"},
       "values: Invalid value: []string{\"a\"}: values set must be empty for exists and does not exist"},
      {"x",
       Op::GreaterThan,
       {"a"},
       "values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"},
      {"x",
       Op::GreaterThan,
       {"1", "2"},
       "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is "
       "required"},
      {"a b", Op::Exists, {}, "key: Invalid value: \"a b\": name part " + nameRegex},
      {"", Op::Exists, {}, "key: Invalid value: \"\": name part must be non-empty; name part " + nameRegex},
      {"x",
       Op::In,
       {"a b"},
       "values[0][x]: Invalid value: \"a b\": a valid label must be an empty string or consist of "
       "alphanumeric "
       "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
       "or "
       "'my_value',  or '12345', regex used for validation is "
       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
      {"Example.com/x",
       Op::Exists,
       {},
       "key: Invalid value: \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain must consist of "
       "lower case "
       "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
       "'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"a b",
       Op::In,
       {},
       "[key: Invalid value: \"a b\": name part " + nameRegex +
           ", values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]"},
  };
  for (const auto& c : cases) {
    auto r = Requirement::create(c.key, c.op, c.vals);
    ASSERT_FALSE(r.ok()) << c.key;
    EXPECT_EQ(r.error().message(), c.err);
  }
  EXPECT_EQ(isQualifiedName(std::string(64, 'a')).at(0), "name part must be no more than 63 characters");
  EXPECT_EQ(isValidLabelValue(std::string(64, 'a')).at(0), "must be no more than 63 characters");
  EXPECT_TRUE(isValidLabelValue("").empty());
  EXPECT_TRUE(isQualifiedName("example.com/My_Name-1.2").empty());
  EXPECT_EQ(isQualifiedName("/x").at(0), "prefix part must be non-empty");
}

TEST(LabelsTest, ToString) {
  struct Case {
    std::vector<Requirement> reqs;
    std::string out;
  };
  const std::vector<Case> cases = {
      {{req("x", Op::In, {"abc", "def"}), req("y", Op::NotIn, {"jkl"}), req("z", Op::Exists, {})},
       "x in (abc,def),y notin (jkl),z"},
      {{req("x", Op::NotIn, {"abc", "def"}), req("y", Op::NotEquals, {"jkl"}),
        req("z", Op::DoesNotExist, {})},
       "x notin (abc,def),y!=jkl,!z"},
      {{req("x", Op::NotIn, {"abc"}), req("y", Op::In, {"jkl", "mno"}), req("z", Op::NotIn, {""})},
       "x notin (abc),y in (jkl,mno),z notin ()"},
      {{req("x", Op::Equals, {"abc"}), req("y", Op::DoubleEquals, {"jkl"}), req("z", Op::NotEquals, {"a"}),
        req("z", Op::Exists, {})},
       "x=abc,y==jkl,z!=a,z"},
      {{req("x", Op::GreaterThan, {"2"}), req("y", Op::LessThan, {"8"}), req("z", Op::Exists, {})},
       "x>2,y<8,z"},
      {{req("x", Op::In, {"def", "abc"})}, "x in (abc,def)"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(sel(c.reqs).toString(), c.out);
  }
}

TEST(LabelsTest, RequirementSelectorMatching) {
  struct Case {
    Labels set;
    std::vector<Requirement> reqs;
    bool match;
  };
  const std::vector<Case> cases = {
      {{{"x", "foo"}, {"y", "baz"}}, {req("x", Op::In, {"foo"}), req("y", Op::NotIn, {"alpha"})}, true},
      {{{"x", "foo"}, {"y", "baz"}}, {req("x", Op::In, {"foo"}), req("y", Op::In, {"alpha"})}, false},
      {{{"y", ""}}, {req("x", Op::NotIn, {""}), req("y", Op::Exists, {})}, true},
      {{{"y", ""}}, {req("x", Op::DoesNotExist, {}), req("y", Op::Exists, {})}, true},
      {{{"y", ""}}, {req("x", Op::NotIn, {""}), req("y", Op::DoesNotExist, {})}, false},
      {{{"y", "baz"}}, {req("x", Op::In, {""})}, false},
      {{{"z", "2"}}, {req("z", Op::GreaterThan, {"1"})}, true},
      {{{"z", "v2"}}, {req("z", Op::GreaterThan, {"1"})}, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(sel(cases[i].reqs).matches(cases[i].set), cases[i].match) << i;
  }
}

TEST(LabelsTest, SetSelectorParser) {
  struct Case {
    std::string in;
    std::vector<Requirement> out;
    bool match;  // compare the parsed requirements with `out`
    bool valid;
  };
  const std::vector<Case> cases = {
      {"", {}, true, true},
      {"\rx", {req("x", Op::Exists, {})}, true, true},
      {"this-is-a-dns.domain.com/key-with-dash",
       {req("this-is-a-dns.domain.com/key-with-dash", Op::Exists, {})},
       true,
       true},
      {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
       {req("this-is-another-dns.domain.com/key-with-dash", Op::In, {"so", "what"})},
       true,
       true},
      {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
       {req("0.1.2.domain/99", Op::NotIn, {"10.10.100.1", "tick.tack.clock"})},
       true,
       true},
      {"foo  in\t (abc)", {req("foo", Op::In, {"abc"})}, true, true},
      {"x notin\n (abc)", {req("x", Op::NotIn, {"abc"})}, true, true},
      {"x  notin\t\t\t(abc,def)", {req("x", Op::NotIn, {"abc", "def"})}, true, true},
      {"x in (abc,def)", {req("x", Op::In, {"abc", "def"})}, true, true},
      {"x in (abc,)", {req("x", Op::In, {"", "abc"})}, true, true},
      {"x in ()", {req("x", Op::In, {""})}, true, true},
      {"x notin (abc,,def),bar,z in (),w",
       {req("bar", Op::Exists, {}), req("w", Op::Exists, {}), req("x", Op::NotIn, {"", "abc", "def"}),
        req("z", Op::In, {""})},
       true,
       true},
      {"x,y in (a)", {req("y", Op::In, {"a"}), req("x", Op::Exists, {})}, false, true},
      {"x=a", {req("x", Op::Equals, {"a"})}, true, true},
      {"x>1", {req("x", Op::GreaterThan, {"1"})}, true, true},
      {"x<7", {req("x", Op::LessThan, {"7"})}, true, true},
      {"x=a,y!=b", {req("x", Op::Equals, {"a"}), req("y", Op::NotEquals, {"b"})}, true, true},
      {"x=a,y!=b,z in (h,i,j)",
       {req("x", Op::Equals, {"a"}), req("y", Op::NotEquals, {"b"}), req("z", Op::In, {"h", "i", "j"})},
       true,
       true},
      {"x=a||y=b", {}, false, false},
      {"x,y", {}, true, true},
      {",x,y", {}, true, false},
      {"x nott in (y)", {}, true, false},
      {"x notin ( )", {req("x", Op::NotIn, {""})}, true, true},
      {"x notin (, a)", {req("x", Op::NotIn, {"", "a"})}, true, true},
      {"a in (xyz),", {}, true, false},
      {"a in (xyz)b notin ()", {}, true, false},
      {"a ", {req("a", Op::Exists, {})}, true, true},
      {"a in (x,y,notin, z,in)", {req("a", Op::In, {"in", "notin", "x", "y", "z"})}, true, true},
      {"a in (xyz abc)", {}, false, false},
      {"a notin(", {}, true, false},
      {"a (", {}, false, false},
      {"(", {}, false, false},
  };
  for (const auto& c : cases) {
    auto s = Selector::parse(c.in);
    EXPECT_EQ(s.ok(), c.valid) << c.in << ": " << (s.ok() ? s->toString() : s.error().message());
    if (!s.ok() || !c.valid) continue;
    if (c.in == "x,y") {
      EXPECT_EQ(s->toString(), "x,y");
      continue;
    }
    if (c.match) {
      EXPECT_EQ(s->requirements(), c.out) << c.in;
    }
  }
}

TEST(LabelsTest, ParseErrorMessages) {
  struct Case {
    std::string in;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"x=a,y=b=c", "found '=', expected: ',' or 'end of string'"},
      {"x==a==b", "found '==', expected: ',' or 'end of string'"},
      {"!x=a", "found '=', expected: ',' or 'end of string'"},
      {"x<a",
       "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
       "must be an integer"},
      {",x,y", "found ',', expected: !, identifier, or 'end of string'"},
      {"x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"},
      {"a in (xyz),", "found '', expected: identifier after ','"},
      {"a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"},
      {"a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"},
      {"a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"},
      {"a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"},
      {"(", "found '(', expected: !, identifier, or 'end of string'"},
      {"x in y", "unable to parse requirement: found 'y' expected: '('"},
      {"x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
      {"x=(", "unable to parse requirement: found '(', expected: identifier"},
      {"!", "unable to parse requirement: found '', expected: identifier"},
      {"app:monolith",
       "unable to parse requirement: <nil>: Invalid value: \"app:monolith\": name part must consist of "
       "alphanumeric "
       "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
       "or "
       "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
      {"a/b/c=d",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of "
       "alphanumeric "
       "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
       "or "
       "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
       "with an "
       "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
  };
  for (const auto& c : cases) {
    auto s = Selector::parse(c.in);
    ASSERT_FALSE(s.ok()) << c.in;
    EXPECT_EQ(s.error().message(), c.err) << c.in;
  }
}

TEST(LabelsTest, ParseOperatorsAndExactMatch) {
  auto s = Selector::parse("a==b,c in (d),e in (f,g),h!=i");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->requiresExactMatch("a"), std::optional<std::string_view>("b"));
  EXPECT_EQ(s->requiresExactMatch("c"), std::optional<std::string_view>("d"));
  EXPECT_EQ(s->requiresExactMatch("e"), std::nullopt);
  EXPECT_EQ(s->requiresExactMatch("h"), std::nullopt);
  EXPECT_EQ(s->requiresExactMatch("zz"), std::nullopt);
}

TEST(LabelsTest, LabelSelectorAsSelector) {
  const std::map<std::string, std::string> matchLabels = {{"foo", "bar"}};
  const std::vector<LabelSelectorRequirement> matchExpressions = {{"baz", "In", {"qux", "norf"}}};
  struct Case {
    std::optional<LabelSelector> in;
    std::string out;
    bool nothing = false;
    bool everything = false;
    bool expectErr = false;
  };
  const std::vector<Case> cases = {
      {std::nullopt, "", true, false, false},
      {LabelSelector{}, "", false, true, false},
      {LabelSelector{matchLabels, {}}, "foo=bar"},
      {LabelSelector{{}, matchExpressions}, "baz in (norf,qux)"},
      {LabelSelector{matchLabels, matchExpressions}, "baz in (norf,qux),foo=bar"},
      {LabelSelector{{}, {{"baz", "Exists", {"qux", "norf"}}}}, "", false, false, true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    auto s = Selector::fromLabelSelector(cases[i].in);
    ASSERT_EQ(s.ok(), !cases[i].expectErr) << i;
    if (!s.ok()) continue;
    EXPECT_EQ(s->toString(), cases[i].out) << i;
    EXPECT_EQ(s->isNothing(), cases[i].nothing) << i;
    EXPECT_EQ(s->empty(), cases[i].everything) << i;
  }
  auto bad = Selector::fromLabelSelector(LabelSelector{{}, {{"k", "Seriously", {}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "\"Seriously\" is not a valid label selector operator");
  auto missing = Selector::fromLabelSelector(LabelSelector{{}, {{"name", "In", {}}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");

  auto s = Selector::fromLabelSelector(
      LabelSelector{matchLabels, {{"baz", "NotIn", {"x"}}, {"q", "DoesNotExist", {}}}});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->matches({{"foo", "bar"}}));
  EXPECT_TRUE(s->matches({{"foo", "bar"}, {"baz", "y"}}));
  EXPECT_FALSE(s->matches({{"foo", "bar"}, {"baz", "x"}}));
  EXPECT_FALSE(s->matches({{"foo", "bar"}, {"q", ""}}));
  EXPECT_FALSE(s->matches({}));
}

TEST(LabelsTest, GoInt64Parsing) {
  int64_t v = 0;
  EXPECT_TRUE(internal::parseGoInt64("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_TRUE(internal::parseGoInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(internal::parseGoInt64("9223372036854775808", &v));
  EXPECT_TRUE(internal::parseGoInt64("+5", &v));
  EXPECT_EQ(v, 5);
  EXPECT_FALSE(internal::parseGoInt64("", &v));
  EXPECT_FALSE(internal::parseGoInt64("-", &v));
  EXPECT_FALSE(internal::parseGoInt64("1.0", &v));
  EXPECT_FALSE(internal::parseGoInt64(" 1", &v));
}

}  // namespace
}  // namespace ks::api
