#pragma once
// Processes and small helpers the integration tests share:
//
//   runProcess    run a command to completion (no shell), capture stdout / stderr, with a timeout
//   Process       a long-running child (a scheduler) whose output goes to a log file
//   freePort, waitFor, readFile, tail, httpsGet

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/result.h"

namespace ks::integration {

struct ProcessOutput {
  int exitCode = 0;  // the exit status, or 128 + signal number when killed by a signal
  std::string out;
  std::string err;
};

// Runs argv[0] (looked up in PATH when it has no '/') with argv, without a shell: arguments are passed as
// they are. `env` entries ("NAME=value") are added to / override the current environment; `input` is fed
// on stdin. Errors only when the process cannot be started or runs longer than `timeout` (then it is
// killed); a non-zero exit is reported in exitCode.
Result<ProcessOutput> runProcess(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env = {}, std::string_view input = {},
                                 std::chrono::seconds timeout = std::chrono::seconds(120));

// "a b c": argv joined by spaces, for messages.
std::string joinArgs(const std::vector<std::string>& argv);

// "<what>: <strerror(errno)>".
std::string errnoMessage(std::string_view what);

// A child process started from an executable path (argv[0]) with stdin /dev/null and stdout + stderr
// appended to `logPath`. The destructor kills it (SIGKILL) if it still runs.
class Process {
 public:
  Process(std::vector<std::string> argv, std::string logPath);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  bool started() const { return pid_ > 0; }
  bool running() const { return pid_ > 0 && !exitCode_; }
  // The child's process id (e.g. to read /proc/<pid>/status), -1 when it could not be started.
  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // The exit status (128 + signal when killed), or nullopt if still running after `timeout`.
  std::optional<int> waitExit(std::chrono::milliseconds timeout);
  // SIGTERM, then SIGKILL if it has not exited after `grace`; returns the exit status.
  std::optional<int> stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  const std::string& logPath() const { return logPath_; }
  std::string log() const;

 private:
  std::string logPath_;
  pid_t pid_ = -1;
  std::optional<int> exitCode_;
};

// A TCP port on 127.0.0.1 that nobody listens on right now (bound to port 0 and released).
uint16_t freePort();

// Polls `pred` every `interval` until it is true (returns true) or `timeout` has passed (returns false).
bool waitFor(const std::function<bool()>& pred, std::chrono::milliseconds timeout,
             std::chrono::milliseconds interval = std::chrono::milliseconds(200));

// The whole file, or "" when it cannot be read.
std::string readFile(const std::string& path);

// The last `n` characters of `s` (for logs in failure messages).
std::string tail(const std::string& s, size_t n = 4000);

// GET https://127.0.0.1:<port><path> with curl, certificate verification off: the status and body, or
// nullopt when no response came within 5 s.
// `curlArgs` go before the URL (e.g. {"--cert", crt, "--key", key} or {"-H", "Authorization: Bearer t"}).
std::optional<std::pair<int, std::string>> httpsGet(uint16_t port, const std::string& path,
                                                    const std::vector<std::string>& curlArgs = {});

}  // namespace ks::integration
