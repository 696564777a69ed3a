#include "pkg/app/observability.h"

namespace ks::app {
namespace {

std::string platform() {
#if defined(__x86_64__)
  constexpr const char* kArch = "amd64";
#elif defined(__aarch64__)
  constexpr const char* kArch = "arm64";
#elif defined(__i386__)
  constexpr const char* kArch = "386";
#elif defined(__arm__)
  constexpr const char* kArch = "arm";
#elif defined(__powerpc64__)
  constexpr const char* kArch = "ppc64le";
#elif defined(__s390x__)
  constexpr const char* kArch = "s390x";
#else
  constexpr const char* kArch = "unknown";
#endif
  return std::string("linux/") + kArch;
}

std::string compiler() {
#if defined(__clang__)
  return "clang";
#elif defined(__GNUC__)
  return "gcc";
#else
  return "unknown";
#endif
}

}  // namespace

metrics::BuildInfo buildInfo() {
  const std::string version = KS_VERSION;  // "0.1.0"
  const auto dot1 = version.find('.');
  const auto dot2 = version.find('.', dot1 + 1);
  metrics::BuildInfo info;
  info.major = version.substr(0, dot1);
  info.minor = dot1 == std::string::npos ? "" : version.substr(dot1 + 1, dot2 - dot1 - 1);
  info.gitVersion = "v" + version;
  info.gitCommit = KS_GIT_COMMIT;
  info.gitTreeState = KS_GIT_TREE_STATE;
  info.buildDate = "1970-01-01T00:00:00Z";
  info.goVersion = compiler() + " " + __VERSION__;
  info.compiler = compiler();
  info.platform = platform();
  return info;
}

std::string userAgent(std::string_view suffix) {
  const std::string commit = KS_GIT_COMMIT;
  std::string ua = std::string("kube-scheduler-cpp/v") + KS_VERSION + " (" + platform() + ") kubernetes/" +
                   (commit.size() >= 7 ? commit.substr(0, 7) : std::string("unknown"));
  if (!suffix.empty()) ua += "/" + std::string(suffix);
  return ua;
}

}  // namespace ks::app
