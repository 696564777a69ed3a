// Fuzzes the protobuf codec (pkg/api/proto/codec.h) the REST client uses when it asks for
// application/vnd.kubernetes.protobuf: one enveloped object (decodeProto), a list response fed to
// ProtoListDecoder in chunks, and a watch stream cut into frames by ProtoFrameSplitter, each frame through
// decodeWatchEventProto.
// Input: byte 0 picks the kind (byte % (N + 1): the N watched kinds of pkg/api/kinds.def, then Status) and
// the shape (byte / (N + 1) % 3: object, list, watch; Status is always an object). For a list or a watch,
// byte 1 = n (n % 16 chunk lengths follow, one byte each) and the rest is the body; for an object the rest is
// the body. Checks: decoding twice gives the same result; an error carries a message; a list's and a watch
// stream's outcome does not depend on where the chunks were cut; an object that decodes also decodes equal as
// the only item of a list built around it, and as the object of an ADDED watch frame (a Status: of an ERROR
// one).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/proto/codec.h"
#include "pkg/api/proto/wire.h"
#include "test/fuzz/fuzz_check.h"

namespace {

using namespace ks::api;

template <typename T>
bool sameResult(const ks::Result<T>& a, const ks::Result<T>& b) {
  if (a.ok() != b.ok()) return false;
  return a.ok() ? a.value() == b.value() : a.error().message() == b.error().message();
}

template <typename T>
bool sameList(const ks::Result<List<T>>& a, const ks::Result<List<T>>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.error().message() == b.error().message();
  return a->metadata == b->metadata && a->items == b->items;
}

template <typename T>
bool sameEvent(const ks::Result<WatchEvent<T>>& a, const ks::Result<WatchEvent<T>>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.error().message() == b.error().message();
  return a->type == b->type && a->object == b->object && a->status == b->status;
}

template <typename R>
void checkErrorMessage(const R& r) {
  if (!r.ok()) FUZZ_CHECK(!r.error().message().empty());
}

// The chunk lengths at the front of a list or watch input, and the body after them.
struct Chunked {
  std::vector<size_t> lengths;
  std::string_view body;
};

std::optional<Chunked> splitInput(std::string_view in) {
  if (in.empty()) return std::nullopt;
  const size_t cuts = static_cast<unsigned char>(in[0]) % 16;
  if (in.size() < 1 + cuts) return std::nullopt;
  Chunked out;
  for (size_t i = 0; i < cuts; ++i) out.lengths.push_back(static_cast<unsigned char>(in[1 + i]));
  out.body = in.substr(1 + cuts);
  return out;
}

// The body cut at the input's lengths (a zero length is an empty feed); the rest is the last chunk.
std::vector<std::string_view> chunksOf(const Chunked& c) {
  std::vector<std::string_view> out;
  std::string_view rest = c.body;
  for (size_t n : c.lengths) {
    n = std::min(n, rest.size());
    out.push_back(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  out.push_back(rest);
  return out;
}

// The envelope's fields the codec reads: the last raw (2), and typeMeta (1), contentEncoding (3) and
// contentType (4) when they are length-delimited. nullopt when `body` is no well-formed envelope.
struct Envelope {
  std::string_view raw;
  std::vector<std::pair<uint32_t, std::string_view>> others;
};

std::optional<Envelope> parseEnvelope(std::string_view body) {
  if (!isProtobufEnvelope(body)) return std::nullopt;
  proto::Reader r(body.substr(4));
  proto::Field f;
  Envelope env;
  while (r.next(f)) {
    if (f.type != proto::WireType::kBytes) continue;
    if (f.number == 2) {
      env.raw = f.bytes;
    } else if (f.number == 1 || f.number == 3 || f.number == 4) {
      env.others.emplace_back(f.number, f.bytes);
    }
  }
  if (r.error() != nullptr) return std::nullopt;
  return env;
}

std::string withEnvelope(const Envelope& env, std::string_view raw) {
  proto::Writer w;
  for (const auto& field : env.others) {
    if (field.first == 1) w.bytes(1, field.second);
  }
  w.bytes(2, raw);
  for (const auto& field : env.others) {
    if (field.first != 1) w.bytes(field.first, field.second);
  }
  return std::string("k8s\0", 4) + w.data();
}

// A watch frame {type, object: RawExtension{raw: enveloped object}}.
std::string watchFrame(std::string_view type, std::string_view enveloped) {
  proto::Writer object;
  object.bytes(1, enveloped);
  proto::Writer event;
  event.bytes(1, type);
  event.bytes(2, object.data());
  return event.take();
}

template <typename T>
void fuzzObject(std::string_view body) {
  auto first = decodeProto<T>(body);
  checkErrorMessage(first);
  FUZZ_CHECK(sameResult(first, decodeProto<T>(body)));
  if (!first.ok()) return;

  // The decoder accepted the envelope, so it parses; the list around the object's message must decode to
  // that one item (with empty list metadata), and the ADDED frame around the body to the same object.
  auto env = parseEnvelope(body);
  FUZZ_CHECK(env.has_value());
  proto::Writer listMessage;
  listMessage.bytes(2, env->raw);
  const std::string listBody = withEnvelope(*env, listMessage.data());
  auto list = decodeListProto<T>(listBody);
  if (!list.ok()) ks::fuzz::checkFailed("list around a decoded object decodes", __FILE__, __LINE__,
                                        list.error().message());
  FUZZ_CHECK(list->items.size() == 1);
  FUZZ_CHECK(list->items[0] == *first);
  FUZZ_CHECK(list->metadata == ListMeta{});

  auto event = decodeWatchEventProto<T>(watchFrame("ADDED", body));
  if (!event.ok()) ks::fuzz::checkFailed("ADDED frame around a decoded object decodes", __FILE__, __LINE__,
                                         event.error().message());
  FUZZ_CHECK(event->type == WatchEventType::Added);
  FUZZ_CHECK(event->object == *first);
}

template <typename T>
void fuzzStatus(std::string_view body) {
  auto first = decodeProto<ApiStatus>(body);
  checkErrorMessage(first);
  FUZZ_CHECK(sameResult(first, decodeProto<ApiStatus>(body)));
  if (!first.ok()) return;
  // An ERROR watch event carries the same Status (whatever the watched kind).
  auto event = decodeWatchEventProto<T>(watchFrame("ERROR", body));
  if (!event.ok()) ks::fuzz::checkFailed("ERROR frame around a decoded Status decodes", __FILE__, __LINE__,
                                         event.error().message());
  FUZZ_CHECK(event->type == WatchEventType::Error);
  FUZZ_CHECK(event->status == *first);
}

// Feeds the chunks until one fails, then finishes (through finishShared, as the informers do).
template <typename T>
ks::Result<List<T>> decodeChunks(const std::vector<std::string_view>& chunks) {
  ProtoListDecoder<T> decoder;
  for (std::string_view chunk : chunks) {
    auto r = decoder.feed(chunk);
    checkErrorMessage(r);
    if (!r.ok()) return r.error();
  }
  std::vector<std::shared_ptr<const T>> shared;
  auto meta = decoder.finishShared(shared);
  checkErrorMessage(meta);
  if (!meta.ok()) return meta.error();
  List<T> list;
  list.metadata = *meta;
  for (const auto& item : shared) {
    FUZZ_CHECK(item != nullptr);
    list.items.push_back(*item);
  }
  return list;
}

template <typename T>
void fuzzList(std::string_view in) {
  auto input = splitInput(in);
  if (!input) return;
  auto whole = decodeListProto<T>(input->body);
  checkErrorMessage(whole);
  FUZZ_CHECK(sameList(whole, decodeListProto<T>(input->body)));
  auto chunked = decodeChunks<T>(chunksOf(*input));
  if (!sameList(whole, chunked)) {
    ks::fuzz::checkFailed("chunked list == whole list", __FILE__, __LINE__,
                          whole.ok() ? "ok" : whole.error().message(),
                          chunked.ok() ? "ok" : chunked.error().message());
  }
}

struct Frames {
  std::vector<std::string> frames;
  std::optional<std::string> error;
  size_t pending = 0;
  bool operator==(const Frames&) const = default;
};

Frames splitFrames(const std::vector<std::string_view>& chunks) {
  Frames out;
  ProtoFrameSplitter splitter;
  for (std::string_view chunk : chunks) {
    auto r = splitter.feed(chunk, [&](std::string_view frame) { out.frames.emplace_back(frame); });
    if (!r.ok()) {
      FUZZ_CHECK(!r.error().message().empty());
      out.error = r.error().message();
      break;
    }
  }
  if (!out.error) out.pending = splitter.pending();
  return out;
}

template <typename T>
void fuzzWatch(std::string_view in) {
  auto input = splitInput(in);
  if (!input) return;
  const Frames whole = splitFrames({input->body});
  FUZZ_CHECK(whole == splitFrames(chunksOf(*input)));
  FUZZ_CHECK(whole.pending <= input->body.size());
  for (const std::string& frame : whole.frames) {
    auto event = decodeWatchEventProto<T>(frame);
    checkErrorMessage(event);
    FUZZ_CHECK(sameEvent(event, decodeWatchEventProto<T>(frame)));
  }
}

template <typename T>
void fuzzKind(unsigned shape, std::string_view in) {
  switch (shape) {
    case 0:
      fuzzObject<T>(in);
      break;
    case 1:
      fuzzList<T>(in);
      break;
    default:
      fuzzWatch<T>(in);
      break;
  }
}

using KindFn = void (*)(unsigned, std::string_view);

// Every kind with list and watch decoding: the watched kinds of pkg/api/kinds.def, in its order
// (make_seeds.py's too).
constexpr KindFn kKinds[] = {
#define KS_WATCHED_KIND(Type, ...) fuzzKind<Type>,
#include "pkg/api/kinds.def"
};
constexpr unsigned kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  constexpr unsigned kSlots = kKindCount + 1;  // + Status
  const unsigned kind = selector % kSlots;
  if (kind == kKindCount) {
    fuzzStatus<Pod>(rest);
  } else {
    kKinds[kind]((selector / kSlots) % 3, rest);
  }
  return 0;
}
