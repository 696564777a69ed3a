#pragma once
// Test PKI for the authentication tests: a CA and client certificates signed by it (EC P-256, in memory).

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

namespace ks::server::auth::testing {

struct KeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct CertFree {
  void operator()(X509* p) const { X509_free(p); }
};

struct TestCert {
  std::shared_ptr<EVP_PKEY> key;
  std::shared_ptr<X509> cert;
  std::string certPem;
  std::string keyPem;
  std::string der;
};

inline std::string toPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string keyToPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string toDer(X509* cert) {
  unsigned char* buf = nullptr;
  int n = i2d_X509(cert, &buf);
  std::string out(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
  OPENSSL_free(buf);
  return out;
}

inline void addExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `cn` with organizations `orgs`; self-signed CA when `issuer` is null.
inline TestCert makeCert(const std::string& cn, const std::vector<std::string>& orgs, const TestCert* issuer,
                         bool ca = false, const char* extKeyUsage = "clientAuth") {
  static long serial = 1;
  TestCert out;
  out.key.reset(EVP_EC_gen("P-256"), KeyFree());
  out.cert.reset(X509_new(), CertFree());
  X509* c = out.cert.get();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial++);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c), 24 * 3600);
  X509_set_pubkey(c, out.key.get());
  X509_NAME* name = X509_get_subject_name(c);
  for (const auto& o : orgs) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1,
                               0);
  }
  if (!cn.empty()) {
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                               -1, 0);
  }
  X509* issuerCert = issuer != nullptr ? issuer->cert.get() : c;
  EVP_PKEY* issuerKey = issuer != nullptr ? issuer->key.get() : out.key.get();
  X509_set_issuer_name(c, X509_get_subject_name(issuerCert));
  if (ca) {
    addExt(c, issuerCert, NID_basic_constraints, "critical,CA:TRUE");
    addExt(c, issuerCert, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  } else {
    addExt(c, issuerCert, NID_basic_constraints, "critical,CA:FALSE");
    addExt(c, issuerCert, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    if (extKeyUsage != nullptr) addExt(c, issuerCert, NID_ext_key_usage, extKeyUsage);
  }
  X509_sign(c, issuerKey, EVP_sha256());
  out.certPem = toPem(c);
  out.keyPem = keyToPem(out.key.get());
  out.der = toDer(c);
  return out;
}

inline TestCert makeCa(const std::string& cn) {
  return makeCert(cn, {}, nullptr, true);
}

}  // namespace ks::server::auth::testing
