// kube-scheduler-cpp: parses the command line and starts; everything else lives in pkg/.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/simulator/simulator.h"

namespace {

constexpr std::string_view kUsage = R"(kube-scheduler-cpp: a Kubernetes scheduler, compatible with kube-scheduler's
KubeSchedulerConfiguration profiles, flags and metrics.

Usage:
  kube-scheduler-cpp simulate --config CONFIG.yaml --cluster CLUSTER.yaml [--explain] [-o json|table]
      Schedule the pending pods of a cluster file (as `kubectl get nodes,pods -A -o yaml` prints it)
      with the real scheduler over an in-memory API server, and print where each pod goes and why.

Flags:
  -h, --help       print this help and exit
      --version    print the version and exit
)";

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr: stdout carries command output (e.g. simulate -o json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("kube-scheduler-cpp"));
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "simulate") {
    spdlog::set_level(spdlog::level::warn);
    return ks::simulator::runSimulateCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  for (const auto& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage.data(), stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("kube-scheduler-cpp v%s\n", KS_VERSION);
      return 0;
    }
    std::fprintf(stderr, "kube-scheduler-cpp: unknown flag %s (see --help)\n", arg.c_str());
    return 2;
  }
  std::fputs(kUsage.data(), stderr);
  return 2;
}
