#pragma once
// A real etcd + kube-apiserver on 127.0.0.1 for integration tests, driven by
// test/integration/controlplane.sh; optionally kube-controller-manager running a chosen set of upstream
// controllers (e.g. the PDB status of the disruption controller, PV/PVC binding).
//
//   auto cp = ks::integration::ControlPlane::start();
//   ASSERT_TRUE(cp.ok()) << cp.error().message();
//   auto out = (*cp)->kubectl({"get", "nodes", "-o", "json"});
//
// start() uses the binaries in $KS_CONTROL_PLANE_BIN when set (scripts/test.sh exports it), otherwise it
// builds them (once, cached outside the repo; a cold build takes several minutes). Each ControlPlane has its
// own temp work dir, ports and certificates, so tests may run in parallel. The destructor stops all
// processes and removes the work dir (set KS_CONTROL_PLANE_KEEP_LOGS=1 to keep etcd.log /
// kube-apiserver.log / kube-controller-manager.log); if the test process dies without running it, a watcher
// started by the script tears the control plane down.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/result.h"
#include "test/integration/harness/process.h"

namespace ks::integration {

// The kubectl the tests run: $KS_KUBECTL, else $KS_CONTROL_PLANE_BIN/kubectl (v1.37.2, built by
// controlplane.sh), else kubectl from PATH.
std::string kubectlBinary();

struct ControlPlaneOptions {
  // Extra kube-apiserver flags, kept across restartApiserver(); each one "--name=value" without spaces.
  // They are appended to those in $KS_APISERVER_EXTRA_FLAGS, if set.
  // E.g. "--watch-cache=false" so that watches and lists are served by etcd directly (see compact()).
  std::vector<std::string> extraApiserverFlags;
  // When not empty, start() also runs startControllerManager(controllers), e.g. {"disruption-controller"}.
  std::vector<std::string> controllers;
};

class ControlPlane {
 public:
  // Builds (or reuses) the binaries and starts etcd + kube-apiserver; waits until /readyz answers.
  // The error carries the script's stderr (build errors, the kube-apiserver log tail).
  static Result<std::unique_ptr<ControlPlane>> start(const ControlPlaneOptions& options = {});

  // The directory of the pinned upstream binaries (etcd, kube-apiserver, kube-scheduler,
  // kube-controller-manager): $KS_CONTROL_PLANE_BIN when set, otherwise what `controlplane.sh build` prints
  // (building them once).
  static Result<std::string> binDir();

  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  const std::string& workDir() const { return workDir_; }
  const std::string& kubeconfigPath() const { return kubeconfig_; }
  const std::string& serverUrl() const { return serverUrl_; }  // https://127.0.0.1:<port>
  const std::string& etcdUrl() const { return etcdUrl_; }      // http://127.0.0.1:<port>
  const std::string& caFile() const { return caFile_; }
  const std::string& clientCertFile() const { return clientCertFile_; }  // admin, group system:masters
  const std::string& clientKeyFile() const { return clientKeyFile_; }
  const std::string& apiserverLog() const { return apiserverLog_; }
  // <workDir>/kube-controller-manager.log: every start appends to it after a "==== ... start" line.
  const std::string& controllerManagerLog() const { return controllerManagerLog_; }

  // Stops kube-apiserver (TERM) and starts it again on the same port with the same flags; returns once
  // /readyz answers. etcd and its data stay, so resourceVersions continue.
  Result<void> restartApiserver();

  // An apiserver crash: SIGKILLs kube-apiserver (no graceful shutdown, so requests in flight and watches
  // are cut without a response) and returns once the process is gone. etcd keeps running. Until
  // startApiserver(), clients get "connection refused".
  Result<void> killApiserver();
  // Starts kube-apiserver again after killApiserver() on the same port with the same flags; returns once
  // /readyz answers. An error when it already runs.
  Result<void> startApiserver();

  // Compacts etcd at its current revision (physical) and returns that revision. Watches and lists at an
  // older resourceVersion that reach etcd then fail with 410 Gone. With the watch cache on (the default)
  // kube-apiserver keeps serving older resourceVersions from its cache; to get 410 either start with
  // "--watch-cache=false" or call restartApiserver() after compact() (the new cache starts at the current
  // revision, so older resourceVersions are "too old" -- that alone also gives 410).
  Result<long long> compact();

  // Starts kube-controller-manager with --controllers=<controllers> (upstream names such as
  // "disruption-controller", "persistentvolume-binder-controller"; "*" and "-name" work as upstream) and
  // returns once /healthz lists each named controller, i.e. it runs. Admin credentials, no leader
  // election, 127.0.0.1 on a free port. An error (with the log tail) when a controller is unknown or never
  // starts (skipped for lack of flags), or when one already runs: stop it first.
  Result<void> startControllerManager(const std::vector<std::string>& controllers);
  // Stops kube-controller-manager (TERM, then KILL after 15 s) so that its controllers stop acting, e.g. to
  // see the scheduler wait for a PVC binding; start it again with startControllerManager(). A no-op when
  // it does not run. The destructor stops it as well.
  Result<void> stopControllerManager();

  // Runs `kubectl --kubeconfig=<this> args...`; returns stdout, or an Error with the exit code and stderr.
  Result<std::string> kubectl(const std::vector<std::string>& args) const;
  // Same, with `input` on stdin (e.g. {"apply", "-f", "-"} with a YAML document).
  Result<std::string> kubectl(const std::vector<std::string>& args, std::string_view input) const;

 private:
  explicit ControlPlane(std::string script, std::string workDir)
      : script_(std::move(script)), workDir_(std::move(workDir)) {}
  Result<void> loadEnv();
  // Runs `controlplane.sh <command> <workDir> args...`; returns stdout, or an Error with its stderr.
  Result<std::string> runScript(const std::string& command, std::chrono::seconds timeout,
                                std::vector<std::string> env = {},
                                const std::vector<std::string>& args = {}) const;

  std::string script_;
  std::string workDir_;
  std::string kubeconfig_;
  std::string serverUrl_;
  std::string etcdUrl_;
  std::string caFile_;
  std::string clientCertFile_;
  std::string clientKeyFile_;
  std::string apiserverLog_;
  std::string controllerManagerLog_;
  bool running_ = false;
};

}  // namespace ks::integration
