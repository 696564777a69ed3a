#pragma once
// Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), which upstream kube-scheduler asks
// for by default (--kube-api-content-type): the kinds the scheduler lists and watches, the Status of API
// errors, and the Binding it posts. Decoding gives exactly what the JSON codec (pkg/api/json/codec.h)
// gives for the same object, with the same error paths; it never throws.
//
// On the wire an object is the magic "k8s\0" followed by a runtime.Unknown {typeMeta, raw, contentEncoding,
// contentType} whose raw holds the object's message. A watch stream is a sequence of frames, each a
// 4-byte big-endian length and a metav1.WatchEvent without the envelope, whose object.raw is an enveloped
// object.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/core.h"
#include "pkg/api/meta.h"
#include "pkg/api/policy.h"
#include "pkg/api/resource.h"
#include "pkg/api/scheduling.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::api {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
// The watch stream's media type, as the apiserver names it in Content-Type.
inline constexpr std::string_view kProtobufWatchContentType = "application/vnd.kubernetes.protobuf;stream=watch";

// True when `body` starts with the envelope's magic: the apiserver answered in protobuf (it may answer
// JSON instead, e.g. for errors produced before content negotiation).
bool isProtobufEnvelope(std::string_view body);

// Decodes one enveloped object. Instantiated for ApiStatus, every kind ProtoListDecoder is and the codec-only
// kinds of kinds.def (Binding).
template <typename T>
Result<T> decodeProto(std::string_view body);

// Encodes one object with its envelope. Instantiated for Binding.
template <typename T>
std::string encodeProto(const T& object);

// Decodes a list response ({metadata = 1, items = 2} inside the envelope).
template <typename T>
Result<List<T>> decodeListProto(std::string_view body);

// Decodes a list response as it arrives, item by item, holding at most one item's bytes: the same contract
// as JsonListDecoder. Instantiated for the watched kinds of pkg/api/kinds.def.
template <typename T>
class ProtoListDecoder {
 public:
  ProtoListDecoder();
  ~ProtoListDecoder();
  ProtoListDecoder(const ProtoListDecoder&) = delete;
  ProtoListDecoder& operator=(const ProtoListDecoder&) = delete;
  // After an error, stop feeding.
  Result<void> feed(std::string_view chunk);
  // The list's metadata and items (call one of the two, once).
  Result<List<T>> finish();
  Result<ListMeta> finishShared(std::vector<std::shared_ptr<const T>>& items);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Decodes one watch frame (without its length prefix); for ERROR, fills `status`.
template <typename T>
Result<WatchEvent<T>> decodeWatchEventProto(std::string_view frame);

// Splits a protobuf watch stream into frames: feed() the body's chunks as they arrive; each complete frame
// goes to onFrame. A frame longer than kMaxFrameBytes is an error (the stream is then unusable).
class ProtoFrameSplitter {
 public:
  static constexpr size_t kMaxFrameBytes = size_t{64} << 20;

  template <typename OnFrame>
  Result<void> feed(std::string_view chunk, OnFrame&& onFrame) {
    buffer_.append(chunk);
    size_t pos = 0;
    while (buffer_.size() - pos >= 4) {
      const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + pos);
      const size_t len = size_t{p[0]} << 24 | size_t{p[1]} << 16 | size_t{p[2]} << 8 | size_t{p[3]};
      if (len > kMaxFrameBytes) {
        return Error("watch frame of " + std::to_string(len) + " bytes exceeds the limit of " +
                     std::to_string(kMaxFrameBytes));
      }
      if (buffer_.size() - pos - 4 < len) break;
      onFrame(std::string_view(buffer_).substr(pos + 4, len));
      pos += 4 + len;
    }
    buffer_.erase(0, pos);
    return {};
  }
  // Bytes of an incomplete frame left at the end of the stream.
  size_t pending() const { return buffer_.size(); }

 private:
  std::string buffer_;
};

}  // namespace ks::api
