// CEL evaluation cost per device, ks::cel against upstream's k8s.io/dynamic-resource-allocation/cel, on the
// same expressions and devices: reads the oracle's output in bench mode (oracle/bench.sh; each case that
// upstream evaluated without error carries its nsPerEval), times ks::cel's deviceMatches on the same case
// the same number of times, and prints both side by side. A benchmark, not a test: it asserts nothing.
//
//   dracel_bench <answers.jsonl> [evaluations per case, default 200]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pkg/dra/cel/compile.h"
#include "test/dra/cel/oracle/corpus.h"

namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(v.size())))];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: dracel_bench <answers.jsonl> [evaluations per case]\n");
    return 2;
  }
  const int evals = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  const ks::cel::Corpus corpus = ks::cel::loadOracleCorpus(argv[1]);
  std::vector<double> ours, upstream, ratio;
  for (const auto& c : corpus.cases) {
    if (!c.nsPerEval) continue;
    const ks::cel::CompilationResult compiled = ks::cel::compileExpression(c.expr);
    if (compiled.error()) continue;  // a known mismatch class; not comparable
    const ks::cel::Device& device = corpus.devices.at(c.deviceName);
    if (!compiled.deviceMatches(device).ok()) continue;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < evals; ++i) (void)compiled.deviceMatches(device);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                      evals;
    ours.push_back(ns);
    upstream.push_back(*c.nsPerEval);
    ratio.push_back(*c.nsPerEval / ns);
  }
  std::printf("%zu expressions evaluated by both, %d evaluations each (ns per evaluation)\n", ours.size(), evals);
  std::printf("%-22s %12s %12s\n", "", "upstream", "ks::cel");
  std::printf("%-22s %12.0f %12.0f\n", "mean", mean(upstream), mean(ours));
  std::printf("%-22s %12.0f %12.0f\n", "p50", percentile(upstream, 50), percentile(ours, 50));
  std::printf("%-22s %12.0f %12.0f\n", "p90", percentile(upstream, 90), percentile(ours, 90));
  std::printf("%-22s %12.0f %12.0f\n", "p99", percentile(upstream, 99), percentile(ours, 99));
  std::printf("upstream / ks::cel per expression: p10 %.2fx, p50 %.2fx, p90 %.2fx\n", percentile(ratio, 10),
              percentile(ratio, 50), percentile(ratio, 90));
  return 0;
}
