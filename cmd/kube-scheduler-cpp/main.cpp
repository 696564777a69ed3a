// kube-scheduler-cpp: parses the command line and starts; everything else lives in pkg/.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <vector>

#include "pkg/app/options.h"
#include "pkg/app/run.h"
#include "pkg/explain/explain.h"
#include "pkg/simulator/simulator.h"
#include "pkg/util/version.h"

int main(int argc, char** argv) {
  // Logs go to stderr: stdout carries command output (e.g. simulate -o json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("kube-scheduler-cpp"));
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "simulate") {
    spdlog::set_level(spdlog::level::warn);
    return ks::simulator::runSimulateCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (!args.empty() && args[0] == "explain") {
    spdlog::set_level(spdlog::level::warn);
    return ks::explain::runExplainCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  auto options = ks::app::parseFlags(args);
  if (!options.ok()) {
    std::fprintf(stderr, "Error: %s\nRun 'kube-scheduler-cpp --help' for usage.\n",
                 options.error().message().c_str());
    return 1;
  }
  if (options->help) {
    std::fputs(ks::app::usage().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("kube-scheduler-cpp v%s (follows kube-scheduler %s)\n", KS_VERSION,
                std::string(ks::kUpstreamVersion).c_str());
    return 0;
  }
  return ks::app::run(*options);
}
