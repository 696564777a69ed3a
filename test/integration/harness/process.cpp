#include "test/integration/harness/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace ks::integration {

std::string errnoMessage(std::string_view what) {
  std::string m(what);
  m += ": ";
  m += std::strerror(errno);
  return m;
}

namespace {

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
    return Error(joinArgs(argv) + ": timed out after " + std::to_string(timeout.count()) +
                 " s; stderr: " + result.err);
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string joinArgs(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

Process::Process(std::vector<std::string> argv, std::string logPath) : logPath_(std::move(logPath)) {
  if (argv.empty()) return;
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  SpawnActions sa;
  posix_spawn_file_actions_addopen(&sa.fa, 1, logPath_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&sa.fa, 1, 2);
  posix_spawn_file_actions_addopen(&sa.fa, 0, "/dev/null", O_RDONLY, 0);
  if (posix_spawn(&pid_, cargv[0], &sa.fa, nullptr, cargv.data(), environ) != 0) pid_ = -1;
}

Process::~Process() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    waitExit(std::chrono::seconds(10));
  }
}

void Process::signal(int sig) const {
  if (running()) ::kill(pid_, sig);
}

std::optional<int> Process::waitExit(std::chrono::milliseconds timeout) {
  if (exitCode_ || pid_ <= 0) return exitCode_;
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exitCode_;
    }
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::optional<int> Process::stop(std::chrono::milliseconds grace) {
  signal(SIGTERM);
  if (auto code = waitExit(grace)) return code;
  signal(SIGKILL);
  return waitExit(std::chrono::seconds(10));
}

std::string Process::log() const {
  return readFile(logPath_);
}

uint16_t freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool waitFor(const std::function<bool()>& pred, std::chrono::milliseconds timeout,
             std::chrono::milliseconds interval) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(interval);
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(s.size() - n);
}

std::optional<std::pair<int, std::string>> httpsGet(uint16_t port, const std::string& path,
                                                    const std::vector<std::string>& curlArgs) {
  std::vector<std::string> argv{"curl", "-sk", "--max-time", "5", "-w", "\n%{http_code}"};
  argv.insert(argv.end(), curlArgs.begin(), curlArgs.end());
  argv.push_back("https://127.0.0.1:" + std::to_string(port) + path);
  auto out = runProcess(argv, {}, {}, std::chrono::seconds(10));
  if (!out.ok() || out->exitCode != 0) return std::nullopt;
  const std::string& s = out->out;
  size_t nl = s.rfind('\n');
  if (nl == std::string::npos) return std::nullopt;
  return std::make_pair(std::atoi(s.c_str() + nl + 1), s.substr(0, nl));
}

}  // namespace ks::integration
