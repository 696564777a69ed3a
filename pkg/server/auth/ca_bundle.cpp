#include "pkg/server/auth/ca_bundle.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

namespace ks::server::auth {
namespace {

struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

X509Ptr fromDer(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  return X509Ptr(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
}

std::string entryText(X509_NAME_ENTRY* e) {
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(e);
  unsigned char* utf8 = nullptr;
  int n = ASN1_STRING_to_UTF8(&utf8, data);
  std::string s;
  if (n > 0) s.assign(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return s;
}

// Go's x509 error texts for what OpenSSL reports.
std::string goVerifyError(int code) {
  switch (code) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      return "x509: certificate signed by unknown authority";
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "x509: certificate has expired or is not yet valid";
    case X509_V_ERR_INVALID_PURPOSE:
      return "x509: certificate specifies an incompatible key usage";
    default:
      return std::string("x509: ") + X509_verify_cert_error_string(code);
  }
}

}  // namespace

Result<CertificateInfo> parseCertificate(std::string_view der) {
  X509Ptr cert = fromDer(der);
  if (!cert) {
    ERR_clear_error();
    return Error("x509: malformed certificate");
  }
  CertificateInfo info;
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    // Go's pkix.Name keeps the last CommonName and every Organization in order.
    if (nid == NID_commonName) info.commonName = entryText(e);
    if (nid == NID_organizationName) info.organizations.push_back(entryText(e));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdLen = 0;
  EVP_Digest(der.data(), der.size(), md, &mdLen, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  for (unsigned int i = 0; i < mdLen; ++i) {
    info.sha256Hex.push_back(kHex[md[i] >> 4]);
    info.sha256Hex.push_back(kHex[md[i] & 0xf]);
  }
  if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert.get()), nullptr)) {
    if (char* dec = BN_bn2dec(bn)) {
      info.serialNumber = dec;
      OPENSSL_free(dec);
    }
    BN_free(bn);
  }
  return info;
}

CABundle::~CABundle() {
  X509_STORE_free(static_cast<X509_STORE*>(store_));
}

Result<std::shared_ptr<const CABundle>> CABundle::parse(std::string_view pem, std::string_view origin) {
  std::shared_ptr<CABundle> bundle(new CABundle());
  bundle->pem_ = std::string(pem);
  X509_STORE* store = X509_STORE_new();
  if (store == nullptr) return Error("allocating the CA store");
  bundle->store_ = store;
  BIO* bio = BIO_new_mem_buf(bundle->pem_.data(), static_cast<int>(bundle->pem_.size()));
  int count = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
    ++count;
  }
  BIO_free(bio);
  ERR_clear_error();
  if (count == 0) return Error(std::string(origin) + ": data does not contain any valid RSA or ECDSA certificates");
  return std::shared_ptr<const CABundle>(std::move(bundle));
}

VoidResult CABundle::verify(const std::vector<std::string>& chain) const {
  if (chain.empty()) return Error("x509: no certificate");
  X509Ptr leaf = fromDer(chain.front());
  if (!leaf) {
    ERR_clear_error();
    return Error("x509: malformed certificate");
  }
  STACK_OF(X509)* untrusted = sk_X509_new_null();
  for (size_t i = 1; i < chain.size(); ++i) {
    if (X509Ptr c = fromDer(chain[i])) sk_X509_push(untrusted, c.release());
  }
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  int code = X509_V_ERR_UNSPECIFIED;
  bool ok = false;
  if (ctx != nullptr && X509_STORE_CTX_init(ctx, static_cast<X509_STORE*>(store_), leaf.get(), untrusted) == 1) {
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
    ok = X509_verify_cert(ctx) == 1;
    if (!ok) code = X509_STORE_CTX_get_error(ctx);
  }
  X509_STORE_CTX_free(ctx);
  sk_X509_pop_free(untrusted, X509_free);
  ERR_clear_error();
  if (ok) return {};
  return Error(goVerifyError(code));
}

}  // namespace ks::server::auth
