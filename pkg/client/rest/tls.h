#pragma once
// TLS material decoded once from PEM (CA bundle, client certificate chain and key) and applied to
// each new connection's SSL_CTX. OpenSSL types stay opaque here.

#include <memory>
#include <string>

#include "pkg/util/result.h"

struct ssl_ctx_st;  // SSL_CTX

namespace ks::client::rest {

class TlsMaterial {
 public:
  // Decodes the PEM blocks; errors say which input is bad ("client-key: no private key found").
  // Empty inputs mean: system roots / no client certificate.
  static Result<std::shared_ptr<const TlsMaterial>> fromPem(const std::string& caPem,
                                                            const std::string& certPem,
                                                            const std::string& keyPem);
  ~TlsMaterial();
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;

  // Installs the trusted CAs (replacing the default roots when a CA was given) and the client
  // certificate and key. Takes references; safe to call concurrently. Returns false on failure.
  bool applyTo(ssl_ctx_st* ctx) const;

  bool hasCa() const;
  bool hasClientCert() const;

 private:
  TlsMaterial();
  struct State;
  std::unique_ptr<State> state_;
};

// cpprest loads OpenSSL's default CA bundle file into every new connection's SSL_CTX before applyTo()
// replaces the store with the given CAs; OpenSSL 3 parses that bundle in ~30 ms of CPU per connection
// (7.8% of the daemon's CPU in an e2e run, most of it at start-up). Call this before the first connection
// (and before other threads read the environment) when every client of the process has its own CA:
// SSL_CERT_FILE then names no file, so nothing is parsed; the CA directory (looked up lazily by hash)
// still serves a client without CAs. A SSL_CERT_FILE the user set is left alone.
void skipDefaultCaBundleLoad();

}  // namespace ks::client::rest
