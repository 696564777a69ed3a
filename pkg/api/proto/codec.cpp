// The envelope (runtime.Unknown behind "k8s\0"), lists decoded as they arrive, watch frames, and the Binding
// the scheduler posts.

#include "pkg/api/proto/codec.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/api/proto/internal.h"

namespace ks::api {

using protocodec::Field;
using protocodec::WireType;
using protocodec::Writer;

namespace {

constexpr std::string_view kMagic("k8s\0", 4);

// Go's serializer refuses an envelope whose payload is compressed or not protobuf; so do we.
Result<void> checkEncoding(std::string_view contentEncoding, std::string_view contentType) {
  if (!contentEncoding.empty()) {
    return Error("protobuf envelope with contentEncoding \"" + std::string(contentEncoding) + "\" is not supported");
  }
  if (!contentType.empty() && contentType != kProtobufContentType) {
    return Error("protobuf envelope carries content type \"" + std::string(contentType) + "\"");
  }
  return {};
}

// The payload (raw) of an enveloped object; it points into `body`.
Result<std::string_view> unwrap(std::string_view body) {
  if (!isProtobufEnvelope(body)) return Error("not a protobuf object: the \"k8s\\0\" prefix is missing");
  DecodeContext ctx;
  std::string_view raw;
  std::string contentEncoding, contentType;
  bool ok = protocodec::each(ctx, body.substr(kMagic.size()), [&](const Field& f) {
    switch (f.number) {
      case 2:
        if (f.type != WireType::kBytes) return protocodec::wrongWireType(ctx, f, WireType::kBytes);
        raw = f.bytes;
        return true;
      case 3:
        return protocodec::get(ctx, f, "contentEncoding", contentEncoding);
      case 4:
        return protocodec::get(ctx, f, "contentType", contentType);
      default:
        return true;  // typeMeta: the caller knows the type it asked for
    }
  });
  if (!ok) return ctx.error();
  if (auto r = checkEncoding(contentEncoding, contentType); !r.ok()) return r.error();
  return raw;
}

template <typename T>
Result<T> decodeMessage(std::string_view msg) {
  DecodeContext ctx;
  T out{};
  if (!protocodec::read(ctx, msg, out)) return ctx.error();
  return out;
}

std::string envelope(std::string_view apiVersion, std::string_view kind, std::string_view raw) {
  Writer typeMeta;
  typeMeta.bytes(1, apiVersion);
  typeMeta.bytes(2, kind);
  Writer unknown;
  unknown.bytes(1, typeMeta.data());
  unknown.bytes(2, raw);
  std::string out(kMagic);
  out += unknown.data();
  return out;
}

}  // namespace

bool isProtobufEnvelope(std::string_view body) {
  return body.substr(0, kMagic.size()) == kMagic;
}

template <typename T>
Result<T> decodeProto(std::string_view body) {
  auto raw = unwrap(body);
  if (!raw.ok()) return raw.error();
  return decodeMessage<T>(*raw);
}

template <>
std::string encodeProto<Binding>(const Binding& b) {
  Writer w;
  w.bytes(1, protocodec::write(b.metadata));
  w.bytes(2, protocodec::write(b.target));
  return envelope(Binding::kApiVersion, Binding::kKind, w.data());
}

// ---- lists ----------------------------------------------------------------------------------------------

// Walks the envelope and the list message inside it as their bytes arrive: a field is handled once it is
// whole, and only an item (or a small envelope field) is ever buffered.
template <typename T>
struct ProtoListDecoder<T>::State {
  enum class Stage { kMagic, kEnvelope, kList };
  Stage stage = Stage::kMagic;
  std::string buffer;          // bytes not yet consumed
  uint64_t listRemaining = 0;  // bytes of the list message (the envelope's raw) not yet consumed
  std::string contentEncoding, contentType;
  ListMeta metadata;
  std::vector<std::shared_ptr<const T>> items;
  std::optional<Error> error;

  // One whole field at the front of `in`, or nullopt when more bytes are needed (or on error).
  struct Whole {
    Field field;
    size_t size;  // bytes of tag, length and value
  };
  std::optional<Whole> takeField(std::string_view in, bool& needMore) {
    std::string_view rest = in;
    uint64_t key = 0;
    needMore = false;
    if (!proto::takeVarint(rest, key)) {
      needMore = rest.size() < 10;
      if (!needMore) error = Error("malformed field key");
      return std::nullopt;
    }
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.type = static_cast<WireType>(key & 7);
    switch (f.type) {
      case WireType::kVarint:
        if (!proto::takeVarint(rest, f.value)) {
          needMore = rest.size() < 10;
          if (!needMore) error = Error("malformed varint");
          return std::nullopt;
        }
        break;
      case WireType::kFixed32:
      case WireType::kFixed64: {
        const size_t n = f.type == WireType::kFixed64 ? 8 : 4;
        if (rest.size() < n) {
          needMore = true;
          return std::nullopt;
        }
        rest.remove_prefix(n);
        break;
      }
      case WireType::kBytes: {
        uint64_t len = 0;
        if (!proto::takeVarint(rest, len)) {
          needMore = rest.size() < 10;
          if (!needMore) error = Error("malformed length");
          return std::nullopt;
        }
        if (rest.size() < len) {
          needMore = true;
          return std::nullopt;
        }
        f.bytes = rest.substr(0, len);
        rest.remove_prefix(len);
        break;
      }
      default:
        error = Error("unsupported wire type in a list");
        return std::nullopt;
    }
    return Whole{f, in.size() - rest.size()};
  }

  // The envelope's raw field is the list: its key and length are consumed, its body streams.
  bool enterList(std::string_view in, size_t& used) {
    std::string_view rest = in;
    uint64_t key = 0, len = 0;
    if (!proto::takeVarint(rest, key) || !proto::takeVarint(rest, len)) return false;
    if ((key >> 3) != 2 || (key & 7) != static_cast<uint64_t>(WireType::kBytes)) return false;
    listRemaining = len;
    used = in.size() - rest.size();
    return true;
  }

  Result<void> consume() {
    size_t pos = 0;
    for (;;) {
      std::string_view in = std::string_view(buffer).substr(pos);
      if (stage == Stage::kMagic) {
        if (in.size() < kMagic.size()) break;
        if (in.substr(0, kMagic.size()) != kMagic) return fail("not a protobuf list: the \"k8s\\0\" prefix is missing");
        pos += kMagic.size();
        stage = Stage::kEnvelope;
        continue;
      }
      if (stage == Stage::kEnvelope) {
        if (in.empty()) break;
        size_t used = 0;
        if (enterList(in, used)) {
          pos += used;
          stage = Stage::kList;
          continue;
        }
        bool needMore = false;
        auto whole = takeField(in, needMore);
        if (!whole) {
          if (error) return *error;
          // The raw field's key and length may still be arriving.
          if (needMore) break;
          return fail("malformed envelope");
        }
        DecodeContext ctx;
        if (whole->field.number == 3 && !protocodec::get(ctx, whole->field, "contentEncoding", contentEncoding)) {
          return ctx.error();
        }
        if (whole->field.number == 4 && !protocodec::get(ctx, whole->field, "contentType", contentType)) {
          return ctx.error();
        }
        pos += whole->size;
        continue;
      }
      // Stage::kList
      if (listRemaining == 0) {
        stage = Stage::kEnvelope;
        continue;
      }
      if (in.empty()) break;
      bool needMore = false;
      auto whole = takeField(in.substr(0, std::min<uint64_t>(in.size(), listRemaining)), needMore);
      if (!whole) {
        if (error) return *error;
        if (needMore && in.size() < listRemaining) break;
        return fail("malformed list");
      }
      if (auto r = listField(whole->field); !r.ok()) return r;
      pos += whole->size;
      listRemaining -= whole->size;
    }
    buffer.erase(0, pos);
    return {};
  }

  Result<void> listField(const Field& f) {
    DecodeContext ctx;
    if (f.number == 1) {
      if (!protocodec::get(ctx, f, "metadata", metadata)) return ctx.error();
    } else if (f.number == 2) {
      const size_t index = items.size();
      auto item = std::make_shared<T>();
      PathScope field(ctx, "items");
      PathScope at(ctx, index);
      if (!protocodec::value(ctx, f, *item)) return ctx.error();
      items.push_back(std::move(item));
    }
    return {};
  }

  Result<void> fail(std::string message) {
    error = Error(std::move(message));
    return *error;
  }
};

template <typename T>
ProtoListDecoder<T>::ProtoListDecoder() : state_(std::make_unique<State>()) {}
template <typename T>
ProtoListDecoder<T>::~ProtoListDecoder() = default;

template <typename T>
Result<void> ProtoListDecoder<T>::feed(std::string_view chunk) {
  State& st = *state_;
  if (st.error) return *st.error;
  st.buffer.append(chunk);
  return st.consume();
}

template <typename T>
Result<ListMeta> ProtoListDecoder<T>::finishShared(std::vector<std::shared_ptr<const T>>& items) {
  State& st = *state_;
  if (st.error) return *st.error;
  if (st.stage == State::Stage::kMagic) return Error("not a protobuf list: the body ended before its prefix");
  if (st.stage == State::Stage::kList || !st.buffer.empty()) return Error("protobuf list truncated");
  if (auto r = checkEncoding(st.contentEncoding, st.contentType); !r.ok()) return r.error();
  items.reserve(items.size() + st.items.size());
  for (auto& item : st.items) items.push_back(std::move(item));
  st.items.clear();
  return std::move(st.metadata);
}

template <typename T>
Result<List<T>> ProtoListDecoder<T>::finish() {
  std::vector<std::shared_ptr<const T>> shared;
  auto meta = finishShared(shared);
  if (!meta.ok()) return meta.error();
  return listOfSoleOwners(std::move(meta).value(), shared);
}

template <typename T>
Result<List<T>> decodeListProto(std::string_view body) {
  ProtoListDecoder<T> decoder;
  if (auto r = decoder.feed(body); !r.ok()) return r.error();
  return decoder.finish();
}

// ---- watch ----------------------------------------------------------------------------------------------

template <typename T>
Result<WatchEvent<T>> decodeWatchEventProto(std::string_view frame) {
  DecodeContext ctx;
  std::string type;
  std::optional<std::string_view> object;  // the RawExtension's raw: an enveloped object
  bool ok = protocodec::each(ctx, frame, [&](const Field& f) {
    if (f.number == 1) return protocodec::get(ctx, f, "type", type);
    if (f.number != 2) return true;
    if (f.type != WireType::kBytes) return protocodec::wrongWireType(ctx, f, WireType::kBytes);
    PathScope scope(ctx, "object");
    return protocodec::each(ctx, f.bytes, [&](const Field& r) {
      if (r.number != 1) return true;
      if (r.type != WireType::kBytes) return protocodec::wrongWireType(ctx, r, WireType::kBytes);
      object = r.bytes;
      return true;
    });
  });
  if (!ok) return ctx.error();
  WatchEvent<T> event;
  if (!parseWatchEventType(type, event.type)) return Error("type: unknown watch event type \"" + type + "\"");
  if (!object) return Error("object: missing");
  auto raw = unwrap(*object);
  if (!raw.ok()) return Error("object: " + raw.error().message());
  PathScope scope(ctx, "object");
  ok = event.type == WatchEventType::Error ? protocodec::read(ctx, *raw, event.status)
                                          : protocodec::read(ctx, *raw, event.object);
  if (!ok) return ctx.error();
  return event;
}

#define KS_PROTO_INSTANTIATE_KIND(T)                                       \
  template Result<T> decodeProto<T>(std::string_view);                     \
  template Result<List<T>> decodeListProto<T>(std::string_view);           \
  template class ProtoListDecoder<T>;                                      \
  template Result<WatchEvent<T>> decodeWatchEventProto<T>(std::string_view);

template Result<ApiStatus> decodeProto<ApiStatus>(std::string_view);
// The watched kinds of kinds.def, and the objects of the others.
#define KS_WATCHED_KIND(Type, ...) KS_PROTO_INSTANTIATE_KIND(Type)
#define KS_CODEC_KIND(Type) template Result<Type> decodeProto<Type>(std::string_view);
#include "pkg/api/kinds.def"
#undef KS_PROTO_INSTANTIATE_KIND

}  // namespace ks::api
