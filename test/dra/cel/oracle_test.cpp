// The differential oracle: every case of test/dra/cel/oracle/corpus.jsonl (generated expressions and
// devices, with the answers the real k8s.io/dynamic-resource-allocation/cel v0.34.4 gave; see
// oracle/regenerate.sh) evaluated with ks::cel. The compile error text, the match result and the runtime
// error text must be exactly upstream's. The runtime cost is compared too (CelOracle.Cost).
//
// Cases upstream answers nondeterministically (Go's random map iteration order) are skipped; cases whose
// cost alone varies are skipped by the cost comparison only. Disagreements not fixed yet are listed in
// knownMismatches() with the reason; a listed case that starts agreeing fails the test so that the list
// stays accurate.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/dra/cel/compile.h"

namespace ks::cel {
namespace {

using nlohmann::json;

struct OracleCase {
  std::string id;
  std::string expr;
  std::string deviceName;
  std::optional<std::string> compileError;
  std::optional<bool> result;
  std::optional<std::string> runtimeError;
  std::optional<uint64_t> cost;
  bool nondeterministic = false;
  bool nondeterministicCost = false;
};

struct Corpus {
  std::map<std::string, Device> devices;
  std::vector<OracleCase> cases;
};

Device parseDevice(const json& j) {
  Device d;
  d.driver = j.value("driver", "");
  if (j.contains("allowMultipleAllocations")) d.allowMultipleAllocations = j["allowMultipleAllocations"].get<bool>();
  if (j.contains("attributes")) {
    for (const auto& [name, v] : j["attributes"].items()) {
      DeviceAttributeValue a;
      if (v.contains("int")) a.intValue = v["int"].get<int64_t>();
      if (v.contains("bool")) a.boolValue = v["bool"].get<bool>();
      if (v.contains("string")) a.stringValue = v["string"].get<std::string>();
      if (v.contains("version")) a.versionValue = v["version"].get<std::string>();
      d.attributes[name] = a;
    }
  }
  if (j.contains("capacity")) {
    for (const auto& [name, v] : j["capacity"].items()) {
      auto q = api::Quantity::parse(v.get<std::string>());
      if (!q.ok()) throw std::runtime_error("capacity " + name + ": " + q.error().message());
      d.capacity.emplace(name, *q);
    }
  }
  return d;
}

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus out;
    std::ifstream in(std::string(KS_SOURCE_DIR) + "/test/dra/cel/oracle/corpus.jsonl");
    if (!in) throw std::runtime_error("cannot open corpus.jsonl");
    std::string line;
    std::getline(in, line);
    const json header = json::parse(line);
    for (const auto& [name, d] : header.at("devices").items()) out.devices[name] = parseDevice(d);
    while (std::getline(in, line)) {
      const json j = json::parse(line);
      OracleCase k;
      k.id = j.at("id").get<std::string>();
      k.expr = j.at("expr").get<std::string>();
      k.deviceName = j.at("device").get<std::string>();
      if (j.contains("compileError")) k.compileError = j["compileError"].get<std::string>();
      if (j.contains("result")) k.result = j["result"].get<bool>();
      if (j.contains("runtimeError")) k.runtimeError = j["runtimeError"].get<std::string>();
      if (j.contains("cost")) k.cost = j["cost"].get<uint64_t>();
      k.nondeterministic = j.value("nondeterministic", false);
      k.nondeterministicCost = j.value("nondeterministicCost", false);
      out.cases.push_back(std::move(k));
    }
    return out;
  }();
  return c;
}

// A class of disagreement not fixed yet: which cases, and why.
struct KnownMismatch {
  std::string reason;
  std::function<bool(const OracleCase&)> matches;
};

const std::vector<KnownMismatch>& knownMismatches() {
  static const std::vector<KnownMismatch> list = {};
  return list;
}

const KnownMismatch* knownMismatch(const OracleCase& c) {
  for (const auto& k : knownMismatches())
    if (k.matches(c)) return &k;
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

Outcome evaluate(const OracleCase& c) {
  Outcome o;
  const CompilationResult compiled = compileExpression(c.expr);
  if (compiled.error()) {
    o.compileError = *compiled.error();
    return o;
  }
  const auto r = compiled.deviceMatches(corpus().devices.at(c.deviceName));
  o.cost = CompilationResult::lastActualCost();
  if (r.ok())
    o.result = *r;
  else
    o.runtimeError = r.error().message();
  return o;
}

TEST(CelOracle, Corpus) {
  const Corpus& corp = corpus();
  ASSERT_GT(corp.cases.size(), 1000u);
  size_t compared = 0, skipped = 0, known = 0, disagreements = 0;
  std::map<std::string, size_t> knownByReason;
  // KS_CEL_ORACLE_DUMP=<file>: the disagreements as JSON lines, for sorting them into classes.
  std::ofstream dump;
  if (const char* path = std::getenv("KS_CEL_ORACLE_DUMP")) dump.open(path);
  for (const OracleCase& c : corp.cases) {
    if (c.nondeterministic) {
      ++skipped;
      continue;
    }
    const Outcome o = evaluate(c);
    const std::string want = describe(c.compileError, c.result, c.runtimeError);
    const std::string got = describe(o.compileError, o.result, o.runtimeError);
    ++compared;
    const KnownMismatch* k = knownMismatch(c);
    if (k) {
      ++known;
      ++knownByReason[k->reason];
      EXPECT_NE(want, got) << c.id << " is listed as a known mismatch (" << k->reason
                           << ") but agrees now: remove it from the list\n  expr: " << c.expr;
      continue;
    }
    if (want != got) {
      ++disagreements;
      if (dump) dump << json{{"id", c.id}, {"device", c.deviceName}, {"expr", c.expr}, {"upstream", want}, {"ks", got}}.dump() << "\n";
      ADD_FAILURE() << c.id << " (device " << c.deviceName << ")\n  expr: " << c.expr << "\n  upstream: " << want
                    << "\n  ks::cel:  " << got;
    }
  }
  std::cout << "CelOracle: " << compared << " cases compared, " << disagreements << " disagreements, " << known
            << " known mismatches, " << skipped << " skipped (nondeterministic upstream)\n";
  for (const auto& [reason, n] : knownByReason) std::cout << "  known: " << n << " x " << reason << "\n";
}

TEST(CelOracle, Cost) {
  size_t compared = 0, disagreements = 0;
  for (const OracleCase& c : corpus().cases) {
    if (c.nondeterministic || c.nondeterministicCost || !c.cost || knownMismatch(c)) continue;
    const Outcome o = evaluate(c);
    if (o.compileError) continue;
    ++compared;
    if (o.cost != *c.cost) {
      ++disagreements;
      ADD_FAILURE() << c.id << " (device " << c.deviceName << ")\n  expr: " << c.expr
                    << "\n  upstream cost: " << *c.cost << "\n  ks::cel cost:  " << o.cost;
    }
  }
  std::cout << "CelOracle.Cost: " << compared << " costs compared, " << disagreements << " disagreements\n";
}

}  // namespace
}  // namespace ks::cel
