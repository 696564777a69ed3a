#pragma once
// RestConfig: where the API server is and how to talk to it (TLS material, credentials, client-side
// rate limits, timeouts), as client-go's rest.Config. Built from a kubeconfig file (clientcmd) or from
// the in-cluster service account (rest.InClusterConfig).

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "pkg/util/result.h"

namespace ks::client::rest {

class RequestMetrics;

// Retries of failed requests: exponential backoff with jitter, bounded attempts (see retry.h).
struct RetryParams {
  // Retries after the first attempt; 0 disables. 10 is client-go's Request.maxRetries, which bounds its
  // retries of 429 / 5xx answers carrying Retry-After (APF's 429s always do).
  int maxRetries = 10;
  // The retries client-go does not make (5xx without Retry-After, transport errors; see retry.h) wait for
  // their own exponential backoff and stop after min(maxRetries, maxBackoffRetries): 200ms doubling gives
  // up after ~6 s instead of holding a binding for a minute.
  int maxBackoffRetries = 5;
  std::chrono::milliseconds initialBackoff{200};
  std::chrono::milliseconds maxBackoff{10000};
  double jitter = 0.2;  // delay += rand[0,1) * jitter * delay
};

struct RestConfig {
  std::string server;  // https://host:port[/prefix]; http:// only for tests
  std::string caPem;   // PEM bundle of trusted CAs; empty = system roots
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string bearerToken;
  // Re-read every tokenFileRefresh (projected service account tokens rotate); the last value read
  // successfully takes precedence over bearerToken, as in client-go.
  std::string bearerTokenFile;
  std::string username;  // HTTP basic auth (rare; kubeconfig username/password)
  std::string password;
  bool insecureSkipTlsVerify = false;
  std::string namespace_;  // the context's namespace, "" when none

  double qps = 50;  // <= 0 disables client-side rate limiting
  int burst = 100;
  std::string userAgent = "kube-scheduler-cpp";
  std::chrono::seconds requestTimeout{60};   // idle timeout of ordinary requests (per chunk)
  std::chrono::seconds watchIdleMargin{30};  // watch idle timeout = timeoutSeconds + this
  std::chrono::seconds tokenFileRefresh{60};
  // clientConnection.contentType and acceptContentTypes, as client-go reads them: lists and watches ask for
  // acceptContentTypes when set, else "<contentType>, */*"; a Binding is sent as contentType. Either JSON
  // ("application/json") or protobuf ("application/vnd.kubernetes.protobuf", upstream kube-scheduler's
  // default); other calls always speak JSON. Responses are decoded as whatever the server chose.
  std::string contentType = "application/json";
  std::string acceptContentTypes;
  // rest.Config.DisableCompression: no "Accept-Encoding: gzip". kube-scheduler sets it on its clients
  // (createKubeConfig): on the fast links to an apiserver, gzip costs both ends more CPU than it saves.
  bool disableCompression = false;
  RetryParams retry;
  // Optional: receives the rest_client_* observations (request_metrics.h). Not owned; must outlive the
  // client.
  RequestMetrics* metrics = nullptr;
};

// Loads a kubeconfig file. `context` = "" uses current-context. Relative file paths in the file are
// resolved against the file's directory. Errors name the file and the field:
//   /home/u/.kube/config: clusters["kind"].cluster.server: missing
Result<RestConfig> loadKubeconfig(const std::string& path, const std::string& context = "");

// The same from text; `baseDir` resolves relative paths; `origin` prefixes error messages.
Result<RestConfig> parseKubeconfig(std::string_view yaml, const std::string& baseDir,
                                   const std::string& origin, const std::string& context = "");

struct InClusterOptions {
  std::string tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string caFile = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  // Environment lookup; default ::getenv.
  std::function<std::optional<std::string>(const std::string&)> getenv;
};

// rest.InClusterConfig: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the service
// account token (re-read periodically) and CA.
Result<RestConfig> inClusterConfig(const InClusterOptions& options = {});

// A component's clientConnection settings (component-base's ClientConnectionConfiguration).
struct ClientConnection {
  std::string kubeconfig;
  std::string acceptContentTypes;
  std::string contentType = "application/vnd.kubernetes.protobuf";
  double qps = 50;
  int burst = 100;
};

// Where the API server is and how to reach it, as upstream's createKubeConfig: the kubeconfig file when one
// is named, else (without `master`) the in-cluster config, with upstream's warning; `master` overrides the
// server. Then qps, burst and content types; compression off, as on upstream kube-scheduler's clients.
Result<RestConfig> restConfigFor(const ClientConnection& connection, const std::string& master);

// Reads a whole file; the error says which file and why.
Result<std::string> readFile(const std::string& path);

// Standard base64 (RFC 4648) with optional padding; whitespace is ignored.
Result<std::string> base64Decode(std::string_view in);
std::string base64Encode(std::string_view in);

}  // namespace ks::client::rest
