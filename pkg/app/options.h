#pragma once
// The daemon's command line, as upstream kube-scheduler's (cmd/kube-scheduler/app/options), and how it
// combines with the configuration file into the effective KubeSchedulerConfiguration:
//
//   - without --config: the defaulted configuration, then the deprecated flags (--kubeconfig,
//     --kube-api-qps/-burst/-content-type), then the --leader-elect* flags;
//   - with --config: the file (strict decoding, defaults); the deprecated flags are ignored with a warning
//     (upstream: "This parameter is ignored if a config file is specified in --config"); the
//     --leader-elect* flags still override the file, as upstream's ApplyLeaderElectionTo does;
//   - then validation (upstream's ValidateKubeSchedulerConfiguration messages).
//
// Both "--flag=value" and "--flag value" are accepted; boolean flags take "--flag", "--flag=true|false".
// Unknown flags, bad values and positional arguments are errors (the binary exits 1, as upstream).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/app/logging.h"
#include "pkg/features/features.h"
#include "pkg/scheduler/features/scheduler_features.h"
#include "pkg/scheduler/apis/config/config.h"
#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/metrics/component_metrics.h"
#include "pkg/server/auth/delegating.h"
#include "pkg/server/server.h"
#include "pkg/util/result.h"

namespace ks::app {

inline constexpr uint16_t kDefaultSecurePort = 10259;

// Flags of the leader election flag set; unset ones leave the configuration's value alone.
struct LeaderElectionFlags {
  std::optional<bool> leaderElect;
  std::optional<std::chrono::milliseconds> leaseDuration;
  std::optional<std::chrono::milliseconds> renewDeadline;
  std::optional<std::chrono::milliseconds> retryPeriod;
  std::optional<std::string> resourceLock;
  std::optional<std::string> resourceName;
  std::optional<std::string> resourceNamespace;
};

// Deprecated flags: applied only without --config.
struct DeprecatedFlags {
  std::optional<std::string> kubeconfig;
  std::optional<float> kubeApiQps;
  std::optional<int32_t> kubeApiBurst;
  std::optional<std::string> kubeApiContentType;
  std::optional<bool> profiling;            // --profiling: enableProfiling
  std::optional<bool> contentionProfiling;  // --contention-profiling: enableContentionProfiling
  // --pod-max-in-unschedulable-pods-duration: not in the configuration file, so applied with and without
  // --config (upstream Options.ApplyTo).
  std::chrono::milliseconds podMaxInUnschedulablePodsDuration{std::chrono::minutes(5)};
};

struct Options {
  bool help = false;
  bool version = false;

  // misc
  std::string configFile;     // --config
  std::string writeConfigTo;  // --write-config-to
  std::string master;         // --master: overrides the kubeconfig's server

  // secure serving
  std::string bindAddress = "0.0.0.0";       // --bind-address
  uint16_t securePort = kDefaultSecurePort;  // --secure-port; 0 disables serving
  std::string tlsCertFile;                   // --tls-cert-file
  std::string tlsPrivateKeyFile;             // --tls-private-key-file
  std::string tlsMinVersion;                 // --tls-min-version ("" = VersionTLS12)
  std::vector<std::string> tlsCipherSuites;  // --tls-cipher-suites (Go names)
  std::vector<int32_t> tlsCurvePreferences;  // --tls-curve-preferences (Go CurveIDs)
  std::vector<server::SniCertKey> tlsSniCertKeys;  // --tls-sni-cert-key, in order
  std::string certDir;                             // --cert-dir: where the self-signed pair is kept
  bool permitPortSharing = false;                  // --permit-port-sharing: SO_REUSEPORT
  bool permitAddressSharing = false;  // --permit-address-sharing: SO_REUSEADDR (always set anyway)
  // --disable-http2-serving, --http2-max-streams-per-connection: accepted and validated as upstream, with
  // no effect: the secure port speaks HTTP/1.1 only and never offers HTTP/2 (ALPN "h2").
  bool disableHttp2Serving = false;
  int64_t http2MaxStreamsPerConnection = 0;

  // authentication / authorization of the secure port, delegated to kube-apiserver
  server::auth::DelegatingAuthenticationOptions authentication;
  server::auth::DelegatingAuthorizationOptions authorization;

  // logs
  int verbosity = 0;  // -v / --v
  LoggingOptions logging;  // --logging-format, --vmodule, --log-*; logging.verbosity mirrors -v

  // feature gate: --feature-gates and --emulated-version values, as given; parseFlags applies them to
  // featureGates (upstream componentGlobalsRegistry.Set).
  std::vector<std::string> featureGatesFlags;
  std::vector<std::string> emulatedVersion;
  std::vector<std::string> minCompatibilityVersion;
  features::FeatureGate featureGates;
  features::SchedulerFeatures schedulerFeatures;  // what the gates switch in the scheduler
  std::vector<std::string> featureGateWarnings;   // "Setting GA feature gate ...", logged at start

  LeaderElectionFlags leaderElection;
  DeprecatedFlags deprecated;
  metrics::MetricsConfiguration metrics;  // the "Metrics flags" section

  // The deprecated flags given on the command line, as "--name", in order (for the warning).
  std::vector<std::string> deprecatedFlagsSet;
  // Every flag given, by name (without dashes), in order: list flags replace their default when first
  // given and append when repeated, as pflag's StringSlice.
  std::vector<std::string> flagsSet;
};

// Parses argv (without the program name). Errors read as upstream's pflag errors where they exist
// ("unknown flag: --foo", "invalid argument \"x\" for \"--secure-port\" flag: ...").
Result<Options> parseFlags(const std::vector<std::string>& args);

// /flagz's flag reader (upstream flagz.NamedFlagSetsReader over kube-scheduler's flag sets): every flag of
// the table, by name, with its value as upstream's pflag Value.String() prints it ("[a,b]" for lists, Go
// durations, "true"/"false"); unset deprecated and leader election flags show their defaults, as upstream,
// where they are bound to the defaulted configuration. No kube-scheduler flag is "classified" upstream, so
// nothing is redacted.
std::map<std::string, std::string> flagzValues(const Options& options);
// The table's flags flagzValues has no value for (must be empty).
std::vector<std::string> flagsWithoutFlagzValueForTest();

// One feature gate as kubernetes_feature_enabled{name,stage} reports it.
struct FeatureGateState {
  std::string name;
  std::string stage;  // "ALPHA", "BETA", "DEPRECATED", "" when GA
  bool enabled = false;
};
// Every gate upstream v1.34.4 knows, with its stage and value in `gates`, sorted by name.
std::vector<FeatureGateState> featureGateStates(const features::FeatureGate& gates);

// The effective configuration (see the file comment). Warnings (ignored deprecated flags) are appended to
// `warnings` when given.
Result<config::KubeSchedulerConfiguration> buildConfig(const Options& options,
                                                       std::vector<std::string>* warnings = nullptr);

// The --help text.
std::string usage();

}  // namespace ks::app
