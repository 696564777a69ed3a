#include "pkg/dra/cel/parser.h"

#include <gtest/gtest.h>

namespace ks::cel {
namespace {

std::string parseError(std::string_view text) {
  Issues issues;
  ParsedExpr p = parse(text, issues);
  return issues.empty() ? "" : issues.toString(p.source);
}

Value constantOf(std::string_view text) {
  Issues issues;
  ParsedExpr p = parse(text, issues);
  EXPECT_TRUE(issues.empty()) << issues.toString(p.source);
  EXPECT_TRUE(p.expr && p.expr->kind == ExprKind::Constant) << text;
  return p.expr ? p.expr->constant : Value();
}

TEST(CelParserTest, Literals) {
  EXPECT_EQ(constantOf("-9223372036854775808").asInt(), INT64_MIN);
  EXPECT_EQ(constantOf("0x1F").asInt(), 31);
  EXPECT_EQ(constantOf("18446744073709551615u").asUint(), UINT64_MAX);
  EXPECT_EQ(constantOf("1.5e3").asDouble(), 1500.0);
  EXPECT_EQ(constantOf(".5").asDouble(), 0.5);
  EXPECT_EQ(constantOf(R"("a\tb\u00e9\x41\101")").text(),
            "a\tb\xC3\xA9"
            "AA");
  EXPECT_EQ(constantOf(R"(r"a\tb")").text(), "a\\tb");
  EXPECT_EQ(constantOf("'''two\nlines'''").text(), "two\nlines");
  EXPECT_EQ(constantOf(R"(b"\xff")").text(), "\xff");
  EXPECT_EQ(constantOf("'single'").text(), "single");
}

TEST(CelParserTest, ErrorsPointAtTheirPosition) {
  EXPECT_EQ(parseError("a +"),
            "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', "
            "'(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
            "BYTES, IDENTIFIER}\n | a +\n | ...^");
  EXPECT_NE(parseError("a ? b").find("Syntax error"), std::string::npos);
  // As the oracle (oracle/) answers: ANTLR's lexer fails on the character after '=' and reports both.
  EXPECT_EQ(parseError("1 = 2"),
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '= '\n | 1 = 2\n | ..^\n"
            "ERROR: <input>:1:5: Syntax error: extraneous input '2' expecting <EOF>\n | 1 = 2\n | ....^");
  EXPECT_NE(parseError("\"unterminated").find("Syntax error"), std::string::npos);
  EXPECT_EQ(parseError("x.all(1, true)"),
            "ERROR: <input>:1:7: argument must be a simple name\n | x.all(1, true)\n | ......^");
  EXPECT_NE(parseError("has(x)").find("invalid argument to has() macro"), std::string::npos);
  EXPECT_NE(parseError("while").find("reserved identifier: while"), std::string::npos);
  EXPECT_NE(parseError("99999999999999999999").find("invalid int literal"), std::string::npos);
  EXPECT_EQ(parseError("a &&\n  (b"),
            "ERROR: <input>:2:5: Syntax error: missing ')' at '<EOF>'\n |   (b\n | ....^");
}

TEST(CelParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(300, '(');
  deep += "1";
  deep += std::string(300, ')');
  EXPECT_NE(parseError(deep).find("expression recursion limit exceeded: 250"), std::string::npos);
  // A long run of unary operators is one rule, not 100000 nested ones.
  EXPECT_EQ(parseError(std::string(100000, '!') + "true"), "");
}

TEST(CelParserTest, MacrosExpand) {
  Issues issues;
  ParsedExpr p = parse("[1].exists_one(x, x > 0) && has(a.b) && cel.bind(v, 1, v)", issues);
  ASSERT_TRUE(issues.empty()) << issues.toString(p.source);
  const Expr& and2 = *p.expr;
  ASSERT_EQ(and2.kind, ExprKind::Call);
  EXPECT_EQ(and2.name, op::kLogicalAnd);
  const Expr& and1 = *and2.args[0];
  EXPECT_EQ(and1.args[0]->kind, ExprKind::Comprehension);
  EXPECT_EQ(and1.args[1]->kind, ExprKind::Select);
  EXPECT_TRUE(and1.args[1]->testOnly);
  EXPECT_EQ(and2.args[1]->kind, ExprKind::Comprehension);
  EXPECT_EQ(and2.args[1]->accuVar, "v");
}

}  // namespace
}  // namespace ks::cel
