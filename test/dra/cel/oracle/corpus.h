#pragma once
// The oracle's corpus files (oracle/regenerate.sh): a header line with the devices, then one case per line
// with upstream's answer. Shared by oracle_test.cpp and the evaluation benchmark (oracle/bench.sh).

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pkg/dra/cel/compile.h"

namespace ks::cel {

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
  std::optional<double> nsPerEval;  // upstream's time per evaluation (the oracle's bench mode only)
};

struct Corpus {
  std::map<std::string, Device> devices;
  std::vector<OracleCase> cases;
};

inline Device parseOracleDevice(const nlohmann::json& j) {
  Device d;
  d.driver = j.value("driver", "");
  if (j.contains("allowMultipleAllocations"))
    d.allowMultipleAllocations = j["allowMultipleAllocations"].get<bool>();
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

inline Corpus loadOracleCorpus(const std::string& path) {
  using nlohmann::json;
  Corpus out;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  const json header = json::parse(line);
  for (const auto& [name, d] : header.at("devices").items()) out.devices[name] = parseOracleDevice(d);
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
    if (j.contains("nsPerEval")) k.nsPerEval = j["nsPerEval"].get<double>();
    k.nondeterministic = j.value("nondeterministic", false);
    k.nondeterministicCost = j.value("nondeterministicCost", false);
    out.cases.push_back(std::move(k));
  }
  return out;
}

}  // namespace ks::cel
