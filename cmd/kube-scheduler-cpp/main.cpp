// kube-scheduler-cpp: parses the command line and starts; everything else lives in pkg/.

#include <cstdio>
#include <cstring>
#include <string_view>

namespace {

constexpr std::string_view kUsage = R"(kube-scheduler-cpp: a Kubernetes scheduler, compatible with kube-scheduler's
KubeSchedulerConfiguration profiles, flags and metrics.

Usage:
  kube-scheduler-cpp [flags]

Flags:
  -h, --help       print this help and exit
      --version    print the version and exit
)";

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage.data(), stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("kube-scheduler-cpp v%s\n", KS_VERSION);
      return 0;
    }
    std::fprintf(stderr, "kube-scheduler-cpp: unknown flag %s (see --help)\n", argv[i]);
    return 2;
  }
  std::fputs(kUsage.data(), stderr);
  return 2;
}
