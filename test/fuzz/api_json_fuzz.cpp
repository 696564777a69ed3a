// Fuzzes the JSON codec of every kind the REST client decodes (pkg/api/json/codec.h): one object, a
// list response and a watch event line, as the informers receive them from the API server.
// Input: byte 0 picks the kind (byte % kinds) and the shape (byte / kinds % 3); the rest is the JSON.
// When decoding succeeds, the object is encoded, decoded again and must come back equal, and its second
// encoding must equal the first (the codec's documented round trip).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/api/json/codec.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using namespace ks::api;

template <typename T>
void roundTripObject(std::string_view json) {
  auto decoded = decodeJson<T>(json);
  if (!decoded.ok()) {
    FUZZ_CHECK(!decoded.error().message().empty());
    return;
  }
  const std::string once = encodeJson(*decoded);
  auto again = decodeJson<T>(once);
  if (!again.ok())
    ks::fuzz::checkFailed("decode(encode(x)) ok", __FILE__, __LINE__, once, again.error().message());
  const std::string twice = encodeJson(*again);
  FUZZ_CHECK_EQ_STR(once, twice);
  FUZZ_CHECK(*again == *decoded);
}

template <typename T>
void roundTripList(std::string_view json) {
  auto decoded = decodeListJson<T>(json);
  if (!decoded.ok()) return;
  const std::string once = encodeListJson(*decoded);
  auto again = decodeListJson<T>(once);
  if (!again.ok())
    ks::fuzz::checkFailed("decode(encode(list)) ok", __FILE__, __LINE__, once, again.error().message());
  FUZZ_CHECK_EQ_STR(once, encodeListJson(*again));
  FUZZ_CHECK(again->metadata == decoded->metadata && again->items == decoded->items);
}

template <typename T>
void roundTripWatchEvent(std::string_view json) {
  auto decoded = decodeWatchEventJson<T>(json);
  if (!decoded.ok()) return;
  const std::string once = encodeWatchEventJson(*decoded);
  auto again = decodeWatchEventJson<T>(once);
  if (!again.ok())
    ks::fuzz::checkFailed("decode(encode(event)) ok", __FILE__, __LINE__, once, again.error().message());
  FUZZ_CHECK_EQ_STR(once, encodeWatchEventJson(*again));
  FUZZ_CHECK(again->type == decoded->type);
  if (decoded->type == WatchEventType::Error) {
    FUZZ_CHECK(again->status == decoded->status);
  } else {
    FUZZ_CHECK(again->object == decoded->object);
  }
}

template <typename T>
void fuzzKind(unsigned shape, std::string_view json) {
  switch (shape) {
    case 0:
      roundTripObject<T>(json);
      break;
    case 1:
      roundTripList<T>(json);
      break;
    default:
      roundTripWatchEvent<T>(json);
      break;
  }
}

using KindFn = void (*)(unsigned, std::string_view);

// Every kind with list and watch decoding: all of pkg/api/kinds.def, in its order (make_seeds.py's too).
constexpr KindFn kKinds[] = {
#define KS_WATCHED_KIND(Type, ...) fuzzKind<Type>,
#define KS_STORED_KIND(Type, ...) fuzzKind<Type>,
#define KS_CODEC_KIND(Type) fuzzKind<Type>,
#include "pkg/api/kinds.def"
};
constexpr unsigned kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0];
  const std::string_view json(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Two more object-only types (KS_JSON_INSTANTIATE_OBJECT): a Status body and a LabelSelector.
  constexpr unsigned kSlots = kKindCount + 2;
  const unsigned kind = selector % kSlots;
  if (kind == kKindCount) {
    roundTripObject<ApiStatus>(json);
  } else if (kind == kKindCount + 1) {
    roundTripObject<LabelSelector>(json);
  } else {
    kKinds[kind]((selector / kSlots) % 3, json);
  }
  return 0;
}
