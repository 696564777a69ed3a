#include "pkg/leaderelection/identity.h"

#include <unistd.h>

#include <array>
#include <cstdint>
#include <random>

namespace ks::leaderelection {

std::string newUuidV4() {
  std::random_device rd;
  std::array<uint8_t, 16> b{};
  for (size_t i = 0; i < b.size(); i += 4) {
    const uint32_t r = rd();
    for (size_t j = 0; j < 4; ++j) b[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10xx
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0x0f]);
  }
  return out;
}

std::string defaultIdentity() {
  // HOST_NAME_MAX is 64 on Linux; with a larger buffer gethostname cannot fail.
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return std::string(host.data()) + "_" + newUuidV4();
}

}  // namespace ks::leaderelection
