// The value readers of internal.h: scalars, and the apimachinery types that are messages on the wire
// (Quantity, IntOrString, Time).

#include <chrono>
#include <limits>
#include <type_traits>
#include <string>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

namespace {

const char* wireTypeName(WireType t) {
  switch (t) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kBytes:
      return "length-delimited";
    case WireType::kStartGroup:
      return "group";
    case WireType::kEndGroup:
      return "end group";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "unknown";
}

// metav1.Time and MicroTime on the wire: {seconds = 1, nanos = 2}; the caller handles the empty message.
bool timestamp(DecodeContext& ctx, const Field& f, Time& out) {
  int64_t seconds = 0;
  int32_t nanos = 0;
  bool ok = each(ctx, f.bytes, [&](const Field& e) {
    if (e.number == 1) return value(ctx, e, seconds);
    if (e.number == 2) return value(ctx, e, nanos);
    return true;
  });
  if (!ok) return false;
  // system_clock counts nanoseconds in an int64: about years 1678..2261, as the JSON codec allows.
  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000000000 - 1;
  if (seconds > kMaxSeconds || seconds < -kMaxSeconds) return ctx.fail("time out of range");
  out = Time{} + std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::seconds{seconds} +
                                                                                 std::chrono::nanoseconds{nanos});
  return true;
}

// Reads a Time or an optional one (set only by a non-empty message), then truncates it to Precision.
template <typename Precision, typename T>
bool time(DecodeContext& ctx, const Field& f, T& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  if (f.bytes.empty()) {
    if constexpr (!std::is_same_v<T, Time>) out.reset();
    return true;
  }
  Time t{};
  if (!timestamp(ctx, f, t)) return false;
  out = std::chrono::floor<Precision>(t);
  return true;
}

}  // namespace

bool wrongWireType(DecodeContext& ctx, const Field& f, WireType want) {
  return ctx.fail(std::string("field ") + std::to_string(f.number) + " has wire type " + wireTypeName(f.type) +
                  ", expected " + wireTypeName(want));
}

bool value(DecodeContext& ctx, const Field& f, std::string& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  out.assign(f.bytes);
  return true;
}

bool value(DecodeContext& ctx, const Field& f, bool& out) {
  if (f.type != WireType::kVarint) return wrongWireType(ctx, f, WireType::kVarint);
  out = f.value != 0;
  return true;
}

// Go's generated Unmarshal keeps the low 32 bits: a negative int32 arrives as a 10-byte varint.
bool value(DecodeContext& ctx, const Field& f, int32_t& out) {
  if (f.type != WireType::kVarint) return wrongWireType(ctx, f, WireType::kVarint);
  out = static_cast<int32_t>(static_cast<uint32_t>(f.value));
  return true;
}

bool value(DecodeContext& ctx, const Field& f, int64_t& out) {
  if (f.type != WireType::kVarint) return wrongWireType(ctx, f, WireType::kVarint);
  out = static_cast<int64_t>(f.value);
  return true;
}

// resource.Quantity {string = 1}, parsed as Go's Quantity.Unmarshal does (ParseQuantity).
bool value(DecodeContext& ctx, const Field& f, Quantity& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  std::string text;
  if (!each(ctx, f.bytes, [&](const Field& e) { return e.number != 1 || value(ctx, e, text); })) return false;
  auto q = Quantity::parse(text);
  if (!q) return ctx.fail(q.error().message());
  out = std::move(*q);
  return true;
}

// intstr.IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}.
bool value(DecodeContext& ctx, const Field& f, IntOrString& out) {
  if (f.type != WireType::kBytes) return wrongWireType(ctx, f, WireType::kBytes);
  int64_t type = 0;
  IntOrString v;
  bool ok = each(ctx, f.bytes, [&](const Field& e) {
    switch (e.number) {
      case 1:
        return value(ctx, e, type);
      case 2:
        return value(ctx, e, v.intVal);
      case 3:
        return value(ctx, e, v.strVal);
      default:
        return true;
    }
  });
  if (!ok) return false;
  v.isString = type == 1;
  if (v.isString) {
    v.intVal = 0;
  } else {
    v.strVal.clear();
  }
  out = std::move(v);
  return true;
}

bool value(DecodeContext& ctx, const Field& f, Time& out) {
  return time<std::chrono::seconds>(ctx, f, out);
}
bool value(DecodeContext& ctx, const Field& f, std::optional<Time>& out) {
  return time<std::chrono::seconds>(ctx, f, out);
}
bool microTime(DecodeContext& ctx, const Field& f, Time& out) {
  return time<std::chrono::microseconds>(ctx, f, out);
}
bool microTime(DecodeContext& ctx, const Field& f, std::optional<Time>& out) {
  return time<std::chrono::microseconds>(ctx, f, out);
}

}  // namespace ks::api::protocodec
