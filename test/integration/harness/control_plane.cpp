#include "test/integration/harness/control_plane.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
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

extern char** environ;

namespace ks::integration {
namespace {

std::string errnoMessage(std::string_view what) {
  std::string m(what);
  m += ": ";
  m += std::strerror(errno);
  return m;
}

// Closes the descriptors it owns on every return path.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct SpawnActions {
  posix_spawn_file_actions_t fa{};
  posix_spawnattr_t attr{};
  SpawnActions() {
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
  }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() {
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }
};

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& o : overrides) {
      if (std::string_view(o).substr(0, o.find('=')) == name) overridden = true;
    }
    if (!overridden) env.emplace_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::string describe(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

std::string scriptPath() {
  if (const char* p = std::getenv("KS_CONTROL_PLANE_SCRIPT"); p != nullptr && *p != '\0') return p;
  return KS_CONTROLPLANE_SCRIPT;
}

}  // namespace

Result<ProcessOutput> runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                 std::string_view input, std::chrono::seconds timeout) {
  if (argv.empty()) return Error("runProcess: empty argv");

  // stdin: /dev/null, or an unlinked temp file holding `input` (no pipe, so no SIGPIPE or deadlock).
  Fd in;
  if (input.empty()) {
    in.fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  } else {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/ks-stdin-XXXXXX";
    in.fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (in.fd >= 0) {
      ::unlink(tmpl.c_str());
      size_t done = 0;
      while (done < input.size()) {
        ssize_t n = ::write(in.fd, input.data() + done, input.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Error(errnoMessage("runProcess: writing stdin file"));
        done += static_cast<size_t>(n);
      }
      ::lseek(in.fd, 0, SEEK_SET);
    }
  }
  if (in.fd < 0) return Error(errnoMessage("runProcess: stdin"));

  int outPipe[2];
  int errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) return Error(errnoMessage("runProcess: pipe"));
  Fd outR(outPipe[0]), outW(outPipe[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0) return Error(errnoMessage("runProcess: pipe"));
  Fd errR(errPipe[0]), errW(errPipe[1]);

  SpawnActions sa;
  posix_spawn_file_actions_adddup2(&sa.fa, in.fd, 0);
  posix_spawn_file_actions_adddup2(&sa.fa, outW.fd, 1);
  posix_spawn_file_actions_adddup2(&sa.fa, errW.fd, 2);
  // Own process group (so a timeout kills the whole tree), default signal dispositions, nothing blocked.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&sa.attr, &none);
  posix_spawnattr_setsigdefault(&sa.attr, &defaults);
  posix_spawnattr_setpgroup(&sa.attr, 0);
  posix_spawnattr_setflags(&sa.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> envStrings = mergedEnvironment(env);
  std::vector<char*> envp;
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argvp;
  for (auto& a : args) argvp.push_back(a.data());
  argvp.push_back(nullptr);

  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argvp[0], &sa.fa, &sa.attr, argvp.data(), envp.data());
  if (rc != 0) return Error("cannot run " + argv[0] + ": " + std::strerror(rc));
  outW.reset();
  errW.reset();
  in.reset();

  ProcessOutput result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timedOut = false;
  char buf[65536];
  while (outR.fd >= 0 || errR.fd >= 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd fds[2] = {{outR.fd, POLLIN, 0}, {errR.fd, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        (i == 0 ? outR : errR).reset();
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(got));
      }
    }
  }
  if (timedOut) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    return Error(describe(argv) + ": timed out after " + std::to_string(timeout.count()) +
                 " s; stderr: " + result.err);
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

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
  return cp;
}

ControlPlane::~ControlPlane() {
  if (!running_) return;
  auto down = runScript("down", std::chrono::seconds(120));
  if (!down.ok()) std::fprintf(stderr, "ControlPlane: %s\n", down.error().message().c_str());
}

Result<std::string> ControlPlane::runScript(const std::string& command, std::chrono::seconds timeout,
                                            std::vector<std::string> env) const {
  std::vector<std::string> argv = {script_, command, workDir_};
  env.push_back("KS_CONTROL_PLANE_OWNER_PID=" + std::to_string(::getpid()));
  auto r = runProcess(argv, env, {}, timeout);
  if (!r.ok()) return r.error();
  if (r->exitCode != 0) {
    return Error(describe(argv) + " failed (exit " + std::to_string(r->exitCode) + "):\n" + r->err);
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
        std::pair{"KS_APISERVER_LOG", &apiserverLog_}}) {
    if (auto r = get(name, *field); !r.ok()) return r.error();
  }
  return {};
}

Result<void> ControlPlane::restartApiserver() {
  auto r = runScript("restart-apiserver", std::chrono::seconds(300));
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

Result<std::string> ControlPlane::kubectl(const std::vector<std::string>& args) const {
  return kubectl(args, {});
}

Result<std::string> ControlPlane::kubectl(const std::vector<std::string>& args,
                                          std::string_view input) const {
  const char* bin = std::getenv("KS_KUBECTL");
  std::vector<std::string> argv = {bin != nullptr && *bin != '\0' ? bin : "kubectl",
                                   "--kubeconfig=" + kubeconfig_};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = runProcess(argv, {}, input, std::chrono::seconds(120));
  if (!r.ok()) return r.error();
  if (r->exitCode != 0) {
    return Error("kubectl " + describe(args) + ": exit " + std::to_string(r->exitCode) + ": " +
                 std::string(trim(r->err)));
  }
  return std::move(r->out);
}

}  // namespace ks::integration
