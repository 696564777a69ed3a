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

}  // namespace ks::client::rest
