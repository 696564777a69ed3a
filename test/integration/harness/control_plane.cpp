#include "test/integration/harness/control_plane.h"
#include "test/integration/harness/process.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "pkg/util/strings.h"

namespace ks::integration {
namespace {

std::string scriptPath() {
  if (const char* p = std::getenv("KS_CONTROL_PLANE_SCRIPT"); p != nullptr && *p != '\0') return p;
  return KS_CONTROLPLANE_SCRIPT;
}

}  // namespace

Result<std::unique_ptr<ControlPlane>> ControlPlane::start(const ControlPlaneOptions& options) {
  // Flags from the environment (e.g. KS_APISERVER_EXTRA_FLAGS=--v=4 while debugging) come first.
  const char* fromEnv = std::getenv("KS_APISERVER_EXTRA_FLAGS");
  std::string extra = fromEnv != nullptr ? fromEnv : "";
  for (const auto& flag : options.extraApiserverFlags) {
    if (flag.find_first_of(" \t\n'") != std::string::npos) {
      return Error("ControlPlane: extra apiserver flag must not contain spaces or quotes: " + flag);
    }
    if (!extra.empty()) extra += ' ';
    extra += flag;
  }
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/ks-controlplane-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return Error(errnoMessage("ControlPlane: mkdtemp " + tmpl));
  std::unique_ptr<ControlPlane> cp(new ControlPlane(scriptPath(), tmpl));
  cp->running_ = true;  // from here on the destructor runs `down`, which also removes the work dir
  // A cold build of the binaries happens inside `up` when KS_CONTROL_PLANE_BIN is not set.
  auto up = cp->runScript("up", std::chrono::seconds(3600), {"KS_APISERVER_EXTRA_FLAGS=" + extra});
  if (!up.ok()) return up.error().wrap("control plane did not start");
  if (auto env = cp->loadEnv(); !env.ok()) return env.error().wrap("control plane started but");
  if (!options.controllers.empty()) {
    if (auto kcm = cp->startControllerManager(options.controllers); !kcm.ok()) return kcm.error();
  }
  return cp;
}

Result<std::string> ControlPlane::binDir() {
  if (const char* bin = std::getenv("KS_CONTROL_PLANE_BIN"); bin != nullptr && *bin != '\0')
    return std::string(bin);
  const std::vector<std::string> argv = {scriptPath(), "build"};
  auto r = runProcess(argv, {}, {}, std::chrono::seconds(3600));
  if (!r.ok()) return r.error();
  if (r->exitCode != 0) {
    return Error(joinArgs(argv) + " failed (exit " + std::to_string(r->exitCode) + "):\n" + r->err);
  }
  return std::string(trim(r->out));
}

ControlPlane::~ControlPlane() {
  if (!running_) return;
  auto down = runScript("down", std::chrono::seconds(120));
  if (!down.ok()) std::fprintf(stderr, "ControlPlane: %s\n", down.error().message().c_str());
}

Result<std::string> ControlPlane::runScript(const std::string& command, std::chrono::seconds timeout,
                                            std::vector<std::string> env,
                                            const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {script_, command, workDir_};
  argv.insert(argv.end(), args.begin(), args.end());
  env.push_back("KS_CONTROL_PLANE_OWNER_PID=" + std::to_string(::getpid()));
  auto r = runProcess(argv, env, {}, timeout);
  if (!r.ok()) return r.error();
  if (r->exitCode != 0) {
    return Error(joinArgs(argv) + " failed (exit " + std::to_string(r->exitCode) + "):\n" + r->err);
  }
  return std::move(r->out);
}

Result<void> ControlPlane::loadEnv() {
  std::ifstream f(workDir_ + "/env");
  if (!f) return Error("cannot read " + workDir_ + "/env");
  std::map<std::string, std::string, std::less<>> vars;
  std::string line;
  while (std::getline(f, line)) {
    std::string_view l = trim(line);
    if (l.starts_with("export ")) l.remove_prefix(7);
    auto eq = l.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = l.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'')
      value = value.substr(1, value.size() - 2);
    vars[std::string(l.substr(0, eq))] = std::string(value);
  }
  auto get = [&](const char* name, std::string& out) -> Result<void> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return Error(workDir_ + "/env has no " + name);
    out = it->second;
    return {};
  };
  for (auto [name, field] :
       {std::pair{"KUBECONFIG", &kubeconfig_}, std::pair{"KS_APISERVER_URL", &serverUrl_},
        std::pair{"KS_ETCD_URL", &etcdUrl_}, std::pair{"KS_CA_FILE", &caFile_},
        std::pair{"KS_CLIENT_CERT_FILE", &clientCertFile_}, std::pair{"KS_CLIENT_KEY_FILE", &clientKeyFile_},
        std::pair{"KS_APISERVER_LOG", &apiserverLog_},
        std::pair{"KS_CONTROLLER_MANAGER_LOG", &controllerManagerLog_}}) {
    if (auto r = get(name, *field); !r.ok()) return r.error();
  }
  return {};
}

Result<void> ControlPlane::restartApiserver() {
  auto r = runScript("restart-apiserver", std::chrono::seconds(300));
  if (!r.ok()) return r.error();
  return loadEnv();
}

Result<void> ControlPlane::killApiserver() {
  auto r = runScript("kill-apiserver", std::chrono::seconds(60));
  if (!r.ok()) return r.error();
  return loadEnv();
}

Result<void> ControlPlane::startApiserver() {
  auto r = runScript("start-apiserver", std::chrono::seconds(300));
  if (!r.ok()) return r.error();
  return loadEnv();
}

Result<long long> ControlPlane::compact() {
  auto r = runScript("compact", std::chrono::seconds(120));
  if (!r.ok()) return r.error();
  std::string_view rev = trim(*r);
  try {
    return std::stoll(std::string(rev));
  } catch (const std::exception&) {
    return Error("controlplane.sh compact printed no revision: " + *r);
  }
}

Result<void> ControlPlane::startControllerManager(const std::vector<std::string>& controllers) {
  if (controllers.empty()) return Error("startControllerManager: no controllers given");
  std::string list;
  for (const auto& c : controllers) {
    // The script takes one comma-separated argument; a name with a comma would silently become two.
    if (c.empty() || c.find_first_of(", \t\n'") != std::string::npos) {
      return Error("startControllerManager: bad controller name \"" + c + "\"");
    }
    if (!list.empty()) list += ',';
    list += c;
  }
  auto r = runScript("start-controller-manager", std::chrono::seconds(300), {}, {list});
  if (!r.ok()) return r.error().wrap("kube-controller-manager did not start");
  return {};
}

Result<void> ControlPlane::stopControllerManager() {
  auto r = runScript("stop-controller-manager", std::chrono::seconds(60));
  if (!r.ok()) return r.error();
  return {};
}

std::string kubectlBinary() {
  if (const char* bin = std::getenv("KS_KUBECTL"); bin != nullptr && *bin != '\0') return bin;
  // kubectl v1.37.2, built by controlplane.sh next to kube-apiserver.
  if (const char* dir = std::getenv("KS_CONTROL_PLANE_BIN"); dir != nullptr && *dir != '\0') {
    const std::string built = std::string(dir) + "/kubectl";
    if (::access(built.c_str(), X_OK) == 0) return built;
  }
  return "kubectl";
}

Result<std::string> ControlPlane::kubectl(const std::vector<std::string>& args) const {
  return kubectl(args, {});
}

Result<std::string> ControlPlane::kubectl(const std::vector<std::string>& args,
                                          std::string_view input) const {
  std::vector<std::string> argv = {kubectlBinary(), "--kubeconfig=" + kubeconfig_};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = runProcess(argv, {}, input, std::chrono::seconds(120));
  if (!r.ok()) return r.error();
  if (r->exitCode != 0) {
    return Error("kubectl " + joinArgs(args) + ": exit " + std::to_string(r->exitCode) + ": " +
                 std::string(trim(r->err)));
  }
  return std::move(r->out);
}

}  // namespace ks::integration
