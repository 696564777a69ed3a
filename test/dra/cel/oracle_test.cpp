// The differential oracle: every case of test/dra/cel/oracle/corpus.jsonl (generated expressions and
// devices, with the answers the real k8s.io/dynamic-resource-allocation/cel v0.37.2 gave; see
// oracle/regenerate.sh) evaluated with ks::cel. The compile error text, the match result and the runtime
// error text must be exactly upstream's. The runtime cost is compared too (CelOracle.Cost).
//
// Cases upstream answers nondeterministically (Go's random map iteration order) are skipped; cases whose
// cost alone varies are skipped by the cost comparison only. Disagreements not fixed yet are classified
// by knownMismatches() (each class with its reason); any other disagreement fails the test, and so does
// a class that no case falls into any more, so that the list stays accurate.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/dra/cel/compile.h"
#include "test/dra/cel/oracle/corpus.h"

namespace ks::cel {
namespace {

using nlohmann::json;

Corpus loadCorpus(const std::string& file) {
  return loadOracleCorpus(std::string(KS_SOURCE_DIR) + "/test/dra/cel/oracle/" + file);
}

// The generated corpus (generate.py) and the cel-spec conformance tests (conformance.py), with
// upstream's answers.
const Corpus& corpus() {
  static const Corpus c = loadCorpus("corpus.jsonl");
  return c;
}
const Corpus& conformance() {
  static const Corpus c = loadCorpus("conformance.jsonl");
  return c;
}

// A class of disagreement not fixed yet: which cases (by the case and ks::cel's answer), and why.
struct KnownMismatch {
  std::string reason;
  std::function<bool(const OracleCase&, const std::string& got)> matches;
};

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// The first reported error (up to its source snippet).
std::string firstError(const std::string& text) {
  return text.substr(0, text.find("\n | "));
}

const std::vector<KnownMismatch>& knownMismatches() {
  static const std::vector<KnownMismatch> list = {
      {"not implemented: literals of the protobuf well-known message types (google.protobuf.Value, Struct, "
       "ListValue, Any and the wrappers), which cel-go knows in every environment; ks::cel refuses to "
       "compile "
       "them (a clear compile error, never a different answer)",
       [](const OracleCase&, const std::string& got) {
         return contains(got, "message type '") &&
                contains(got, "is not supported by kube-scheduler-cpp's CEL evaluator yet");
       }},
      {"syntax error recovery: both fail with the same first syntax error; ANTLR's recovery then reports "
       "further errors that ks::cel's recursive-descent parser does not reproduce (or vice versa)",
       [](const OracleCase& c, const std::string& got) {
         return c.compileError && contains(*c.compileError, "Syntax error") &&
                contains(got, "Syntax error") &&
                firstError("compile error: " + *c.compileError) == firstError(got);
       }},
      {"syntax error wording: both fail with a syntax error, but ANTLR's adaptive prediction words or places "
       "the first one differently (\"no viable alternative\", expected-token sets of other decisions, errors "
       "after a token recognition error)",
       [](const OracleCase& c, const std::string& got) {
         return c.compileError && contains(*c.compileError, "Syntax error") && contains(got, "Syntax error");
       }},
      {"type inference: cel-go unifies type variables across the whole expression (an empty literal's "
       "element "
       "type is bound by later uses: [].filter(n, n % 2 == 0) is list(int); unbound ones print as _varN); "
       "ks::cel "
       "binds them only where they meet a concrete type and prints dyn (seen only in compile errors' types)",
       [](const OracleCase& c, const std::string& got) {
         // cel-go prints a type variable left free (an empty list literal's element) as _varN.
         if (c.compileError && contains(*c.compileError, "_var")) return true;
         return c.expr == "[1, 2, 3].map(x, x, x)" || c.expr.starts_with("[[1], [2, [3]]].flatten(") ||
                (c.compileError &&
                 (c.compileError->starts_with("must evaluate to bool or the unknown type, not list(") ||
                  c.compileError->starts_with("must evaluate to bool or the unknown type, not map(")) &&
                 (got.ends_with("not dyn") || got.ends_with("not list(dyn)") ||
                  got.ends_with("not map(dyn, dyn)")));
       }},
      {"cel-go checker quirk: 'unexpected failed resolution of kubernetes.Quantity' for a field selection on "
       "a "
       "Quantity",
       [](const OracleCase& c, const std::string&) {
         return c.compileError && contains(*c.compileError, "unexpected failed resolution");
       }},
  };
  return list;
}

const KnownMismatch* knownMismatch(const OracleCase& c, const std::string& got) {
  for (const auto& k : knownMismatches())
    if (k.matches(c, got)) return &k;
  return nullptr;
}

std::string describe(const std::optional<std::string>& compileError, const std::optional<bool>& result,
                     const std::optional<std::string>& runtimeError) {
  if (compileError) return "compile error: " + *compileError;
  if (runtimeError) return "runtime error: " + *runtimeError;
  if (result) return *result ? "true" : "false";
  return "(nothing)";
}

struct Outcome {
  std::optional<std::string> compileError;
  std::optional<bool> result;
  std::optional<std::string> runtimeError;
  uint64_t cost = 0;
};

Outcome evaluate(const Corpus& corp, const OracleCase& c) {
  Outcome o;
  const CompilationResult compiled = compileExpression(c.expr);
  if (compiled.error()) {
    o.compileError = *compiled.error();
    return o;
  }
  const auto r = compiled.deviceMatches(corp.devices.at(c.deviceName));
  o.cost = CompilationResult::lastActualCost();
  if (r.ok())
    o.result = *r;
  else
    o.runtimeError = r.error().message();
  return o;
}

// Compares every case; returns the number of cases per known-mismatch class.
std::map<std::string, size_t> compareAll(const Corpus& corp, const std::string& name) {
  size_t compared = 0, skipped = 0, known = 0, disagreements = 0;
  std::map<std::string, size_t> knownByReason;
  // KS_CEL_ORACLE_DUMP=<file>: the disagreements (with their known class, if any) as JSON lines, for
  // sorting them into classes; <file>.<name> per corpus.
  std::ofstream dump;
  if (const char* path = std::getenv("KS_CEL_ORACLE_DUMP")) dump.open(std::string(path) + "." + name);
  for (const OracleCase& c : corp.cases) {
    if (c.nondeterministic) {
      ++skipped;
      continue;
    }
    const Outcome o = evaluate(corp, c);
    const std::string want = describe(c.compileError, c.result, c.runtimeError);
    const std::string got = describe(o.compileError, o.result, o.runtimeError);
    ++compared;
    const KnownMismatch* k = want == got ? nullptr : knownMismatch(c, got);
    if (dump && want != got)
      dump << json{{"id", c.id}, {"device", c.deviceName},     {"expr", c.expr}, {"upstream", want},
                   {"ks", got},  {"known", k ? k->reason : ""}}
                  .dump()
           << "\n";
    if (k) {
      ++known;
      ++knownByReason[k->reason];
      continue;
    }
    if (want != got) {
      ++disagreements;
      ADD_FAILURE() << c.id << " (device " << c.deviceName << ")\n  expr: " << c.expr
                    << "\n  upstream: " << want << "\n  ks::cel:  " << got;
    }
  }
  std::cout << name << ": " << compared << " cases compared, " << disagreements << " disagreements, " << known
            << " known mismatches, " << skipped << " skipped (nondeterministic upstream)\n";
  for (const auto& [reason, n] : knownByReason) std::cout << "  known: " << n << " x " << reason << "\n";
  return knownByReason;
}

TEST(CelOracle, Corpus) {
  ASSERT_GT(corpus().cases.size(), 1000u);
  ASSERT_GT(conformance().cases.size(), 1000u);
  auto known = compareAll(corpus(), "CelOracle.Corpus");
  for (const auto& [reason, n] : compareAll(conformance(), "CelOracle.Conformance")) known[reason] += n;
  for (const auto& k : knownMismatches())
    EXPECT_GT(known[k.reason], 0u) << "no case falls into the known mismatch class any more: " << k.reason;
}

// The runtime cost ks::cel charges is compared with upstream's actual cost too, for both corpora (cases
// whose cost upstream varies between runs are skipped). A ratchet: a known difference would be listed
// here with its number; any new difference fails.
constexpr size_t kKnownCostDisagreements = 0;

size_t compareCosts(const Corpus& corp, const std::string& name) {
  size_t compared = 0, disagreements = 0;
  for (const OracleCase& c : corp.cases) {
    if (c.nondeterministic || c.nondeterministicCost || !c.cost) continue;
    const Outcome o = evaluate(corp, c);
    if (o.compileError || c.compileError) continue;
    ++compared;
    if (o.cost != *c.cost) {
      ++disagreements;
      if (std::getenv("KS_CEL_ORACLE_COSTS"))
        std::cout << c.id << " (device " << c.deviceName << ")\n  expr: " << c.expr
                  << "\n  upstream cost: " << *c.cost << "\n  ks::cel cost:  " << o.cost << "\n";
    }
  }
  std::cout << name << ": " << compared << " costs compared, " << disagreements
            << " disagreements (KS_CEL_ORACLE_COSTS=1 lists them)\n";
  return disagreements;
}

TEST(CelOracle, Cost) {
  const size_t disagreements =
      compareCosts(corpus(), "CelOracle.Cost") + compareCosts(conformance(), "CelOracle.Cost (conformance)");
  EXPECT_LE(disagreements, kKnownCostDisagreements);
}

}  // namespace
}  // namespace ks::cel
