#include "pkg/client/rest/tls.h"

#include <vector>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace ks::client::rest {

struct TlsMaterial::State {
  std::vector<X509*> cas;
  std::vector<X509*> certChain;  // leaf first
  EVP_PKEY* key = nullptr;
  ~State() {
    for (X509* c : cas) X509_free(c);
    for (X509* c : certChain) X509_free(c);
    EVP_PKEY_free(key);
  }
};

namespace {

std::string opensslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return std::string(": ") + buf;
}

Result<std::vector<X509*>> readCerts(const std::string& pem, const char* what) {
  std::vector<X509*> out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return Error(std::string(what) + ": out of memory");
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.push_back(cert);
  ERR_clear_error();  // the loop ends with a "no start line" error
  BIO_free(bio);
  if (out.empty()) return Error(std::string(what) + ": no PEM certificate found");
  return out;
}

}  // namespace

TlsMaterial::TlsMaterial() : state_(std::make_unique<State>()) {}
TlsMaterial::~TlsMaterial() = default;

Result<std::shared_ptr<const TlsMaterial>> TlsMaterial::fromPem(const std::string& caPem,
                                                                const std::string& certPem,
                                                                const std::string& keyPem) {
  std::shared_ptr<TlsMaterial> m(new TlsMaterial());
  State& s = *m->state_;
  if (!caPem.empty()) {
    auto cas = readCerts(caPem, "certificate-authority");
    if (!cas.ok()) return cas.error();
    s.cas = std::move(cas).value();
  }
  if (certPem.empty() != keyPem.empty()) {
    return Error(certPem.empty() ? "client-key given without client-certificate"
                                 : "client-certificate given without client-key");
  }
  if (!certPem.empty()) {
    auto chain = readCerts(certPem, "client-certificate");
    if (!chain.ok()) return chain.error();
    s.certChain = std::move(chain).value();
    BIO* bio = BIO_new_mem_buf(keyPem.data(), static_cast<int>(keyPem.size()));
    s.key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (s.key == nullptr) return Error("client-key: no PEM private key found" + opensslError());
    if (X509_check_private_key(s.certChain.front(), s.key) != 1) {
      ERR_clear_error();
      return Error("client-key: does not match the client-certificate");
    }
  }
  return std::shared_ptr<const TlsMaterial>(std::move(m));
}

bool TlsMaterial::hasCa() const {
  return !state_->cas.empty();
}
bool TlsMaterial::hasClientCert() const {
  return state_->key != nullptr;
}

bool TlsMaterial::applyTo(ssl_ctx_st* ctx) const {
  const State& s = *state_;
  if (!s.cas.empty()) {
    // Only the given CAs are trusted, as client-go does with CAData.
    X509_STORE* store = X509_STORE_new();
    if (store == nullptr) return false;
    for (X509* c : s.cas) {
      if (X509_STORE_add_cert(store, c) != 1) {
        // Duplicate certificates in a bundle are harmless.
        ERR_clear_error();
      }
    }
    SSL_CTX_set_cert_store(ctx, store);  // takes ownership, frees the old store
  }
  if (s.key != nullptr) {
    if (SSL_CTX_use_certificate(ctx, s.certChain.front()) != 1) return false;
    for (size_t i = 1; i < s.certChain.size(); ++i) {
      if (SSL_CTX_add1_chain_cert(ctx, s.certChain[i]) != 1) return false;
    }
    if (SSL_CTX_use_PrivateKey(ctx, s.key) != 1) return false;
  }
  return true;
}

}  // namespace ks::client::rest
