#pragma once
// Server: the daemon's HTTPS endpoint, as upstream kube-scheduler's secure serving (--bind-address,
// --secure-port, --tls-cert-file / --tls-private-key-file; without them a self-signed certificate, in memory
// or kept in --cert-dir; --tls-sni-cert-key certificates chosen by the client's server name;
// --tls-curve-preferences; --permit-port-sharing / --permit-address-sharing). Routes are exact paths
// registered before start(); healthz.h installs the
// scheduler's /healthz /livez /readyz /metrics /configz on it.
//
// Why our own small server on POSIX sockets + OpenSSL rather than cpprestsdk's http_listener: the listener
// cannot bind port 0 and report the port it got (tests need that), its HTTPS path needs Boost.Asio SSL
// context plumbing for what is a handful of GET endpoints, and its behaviour on malformed input is hard to
// bound. Here every connection is one request/response (Connection: close), parsed with hard limits
// (headers 64 KiB, body 1 MiB, read/write timeouts), served on its own thread up to maxConnections at once;
// anything malformed gets a 400 (or the connection is dropped for a broken TLS handshake) and never
// reaches a handler.
//
// Threads: create() binds and listens on the caller's thread; start() spawns the accept thread; handlers
// run on connection threads, concurrently, and must be thread-safe. stop() (and the destructor) closes the
// listener, aborts open connections and waits for all of them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/result.h"

namespace ks::server {

struct Request {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // percent-decoded path, without the query
  std::string rawQuery;
  // Decoded query parameters in order; a key without '=' has an empty value ("?verbose").
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  // The client's certificate chain from the TLS handshake, DER, leaf first; empty when the client sent
  // none. The server requests (never requires) one and does NOT verify it: the authentication filter
  // does, against its (dynamic) client CAs, as upstream's x509 authenticator.
  std::vector<std::string> peerCertificates;

  bool hasQuery(std::string_view key) const;
  std::vector<std::string> queryValues(std::string_view key) const;
};

struct Response {
  int status = 200;
  std::string contentType = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // As Go's http.Error: the message plus "\n", text/plain, X-Content-Type-Options: nosniff.
  static Response error(int status, std::string message);
};

// One --tls-sni-cert-key: PEM files (the certificate file may carry the chain after the leaf) and the
// server names it answers for; without names, the certificate's own (its CN when a DNS name, its DNS SANs).
struct SniCertKey {
  std::string certFile;
  std::string keyFile;
  std::vector<std::string> names;
};

using Handler = std::function<Response(const Request&)>;
// Runs in front of every request (routed or not), as upstream's handler chain: nullopt lets the request
// through to its handler, a Response answers it instead (401, 403, 500).
using Filter = std::function<std::optional<Response>(const Request&)>;

struct ServerOptions {
  // IP address to listen on ("0.0.0.0", "127.0.0.1", "::"); empty means all interfaces.
  std::string bindAddress = "0.0.0.0";
  // 0 picks a free port (see port()). The daemon maps --secure-port=0 to "no server" itself.
  uint16_t port = 10259;
  // Serve HTTPS (the default, as upstream). Plain HTTP is for the simulator and tests only.
  bool tls = true;
  // PEM files; both empty means a self-signed certificate: generated in memory without certDirectory,
  // else <certDirectory>/<pairName>.crt|.key, loaded when both exist, generated and written (certificate
  // 0644, key 0600, directories 0755) when neither does, an error when only one does (upstream
  // MaybeDefaultWithSelfSignedCerts).
  std::string certFile;
  std::string keyFile;
  std::string certDirectory;
  std::string pairName = "kube-scheduler";
  // Certificates served by SNI instead of the default one (upstream's NamedCertificates): an exact name
  // beats a wildcard ("*.example.com" matches one label), explicit names beat names taken from a
  // certificate, earlier entries beat later ones. Without SNI the local IP address is looked up. Names are
  // matched lower-cased against the table as given.
  std::vector<SniCertKey> sniCertKeys;
  // Extra DNS names / IP addresses for the self-signed certificate's SAN (besides localhost, 127.0.0.1
  // and the bind address).
  std::vector<std::string> alternateNames;
  // Minimum TLS protocol version (OpenSSL's TLS1_VERSION .. TLS1_3_VERSION); 0 means TLS 1.2, upstream's
  // default (--tls-min-version).
  int minTlsVersion = 0;
  // OpenSSL cipher list for TLS 1.0-1.2 (--tls-cipher-suites mapped by tls_options.h); empty keeps
  // OpenSSL's defaults. As in Go, TLS 1.3 suites are not configurable.
  std::string cipherList;
  // OpenSSL groups list for the key exchange ("X25519:P-256", from --tls-curve-preferences by
  // tls_options.h); empty keeps OpenSSL's defaults.
  std::string groupsList;
  // --permit-port-sharing: SO_REUSEPORT on the listener, so several servers can bind the same address and
  // port. --permit-address-sharing: SO_REUSEADDR; the listener sets it anyway, as Go's net.Listen does on
  // every Unix listener, so the flag changes nothing here (nor, on Linux, upstream).
  bool permitPortSharing = false;
  bool permitAddressSharing = false;
  // Ask clients for a certificate in the handshake (never require one), as Go's tls.RequestClientCert, which
  // upstream sets whenever a client CA is configured.
  bool requestClientCertificates = true;
  int maxConnections = 64;
  std::chrono::milliseconds ioTimeout{10000};
};

class Server {
 public:
  // Sets up TLS (loading or generating the certificate) and binds and listens. Errors name the step
  // ("loading --tls-cert-file /x: ...", "listen on 0.0.0.0:10259: Address already in use").
  static Result<std::unique_ptr<Server>> create(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Routes `path` (exact match) to `handler`, and lists it (listedPaths). Call before start().
  void handle(std::string path, Handler handler);
  // Routes `path` without listing it, as upstream's PathRecorderMux.UnlistedHandle (/debug/flags).
  void handleUnlisted(std::string path, Handler handler);
  // The paths routed with handle(), sorted (upstream ListedPaths; /statusz reports them).
  std::vector<std::string> listedPaths() const;
  // Installs the filter every request passes first (authentication and authorization). Call before start().
  void setFilter(Filter filter);
  // Adds header `name: value` to every response that does not set `name` itself (upstream's
  // WithCacheControl: "Cache-Control: no-cache, private"). Call before start().
  void addDefaultHeader(std::string name, std::string value);
  // Starts accepting connections on a background thread.
  void start();
  // Stops accepting, aborts open connections and waits for their threads. Idempotent.
  void stop();

  // The port actually bound.
  uint16_t port() const;
  // The serving certificate in PEM (the generated one, or the one loaded); empty without TLS.
  const std::string& certificatePem() const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Generates a self-signed certificate and private key (PEM) as upstream's
// GenerateSelfSignedCertKey: CN "<host>@<unix time>", SANs: DNS localhost, IP 127.0.0.1 and
// `alternateNames` (each as IP when it parses as one, else DNS), valid one year.
struct CertKeyPem {
  std::string certPem;
  std::string keyPem;
};
Result<CertKeyPem> generateSelfSignedCertKey(std::string_view host,
                                             const std::vector<std::string>& alternateNames);

}  // namespace ks::server
