// Entry points of codec.h / codec_nlohmann.h: top-level objects, lists and watch events, with the
// explicit instantiations for every supported type.

#include <condition_variable>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pkg/api/json/codec.h"
#include "pkg/api/json/codec_nlohmann.h"
#include "pkg/api/json/internal.h"
#include "pkg/api/json/list_splitter.h"

namespace ks::api {

using jsoncodec::DecodeContext;
using jsoncodec::Json;
using jsoncodec::ObjectReader;
using jsoncodec::PathScope;

namespace {

// Compact JSON; invalid UTF-8 (possible in objects built in C++) is replaced rather than thrown on.
std::string dumpCompact(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

template <typename T>
std::string listKind() {
  return std::string(kindOf<T>()) + "List";
}

}  // namespace

template <typename T>
Result<T> fromJson(const nlohmann::json& j) {
  return jsoncodec::decodeTop<T>(j);
}

template <typename T>
nlohmann::json toJson(const T& object) {
  Json o = jsoncodec::write(object);
  if constexpr (!kindOf<T>().empty()) {
    o["apiVersion"] = apiVersionOf<T>();
    o["kind"] = kindOf<T>();
  }
  return o;
}

template <typename T>
Result<List<T>> listFromJson(const nlohmann::json& j) {
  DecodeContext ctx;
  List<T> list;
  if (!ObjectReader(ctx, j).field("metadata", list.metadata).field("items", list.items).ok()) {
    return ctx.error();
  }
  return list;
}

template <typename T>
nlohmann::json listToJson(const List<T>& list) {
  Json o = Json::object();
  o["apiVersion"] = apiVersionOf<T>();
  o["kind"] = listKind<T>();
  o["metadata"] = jsoncodec::write(list.metadata);
  Json items = Json::array();
  for (const T& item : list.items) items.push_back(toJson(item));
  o["items"] = std::move(items);
  return o;
}

template <typename T>
Result<WatchEvent<T>> watchEventFromJson(const nlohmann::json& j) {
  DecodeContext ctx;
  WatchEvent<T> event;
  ObjectReader r(ctx, j);
  std::string type;
  if (!r.field("type", type).ok()) return ctx.error();
  if (!parseWatchEventType(type, event.type)) {
    PathScope scope(ctx, "type");
    ctx.fail("unknown watch event type \"" + type + "\"");
    return ctx.error();
  }
  const Json* object = r.find("object");
  if (object == nullptr) {
    PathScope scope(ctx, "object");
    ctx.fail("missing");
    return ctx.error();
  }
  PathScope scope(ctx, "object");
  bool ok = event.type == WatchEventType::Error ? jsoncodec::read(ctx, *object, event.status)
                                                : jsoncodec::read(ctx, *object, event.object);
  if (!ok) return ctx.error();
  return event;
}

template <typename T>
nlohmann::json watchEventToJson(const WatchEvent<T>& event) {
  Json o = Json::object();
  o["type"] = watchEventTypeName(event.type);
  o["object"] = event.type == WatchEventType::Error ? toJson(event.status) : toJson(event.object);
  return o;
}

template <typename T>
Result<T> decodeJson(std::string_view json) {
  auto parsed = jsoncodec::parseText(json);
  if (!parsed) return parsed.error();
  return fromJson<T>(*parsed);
}

template <typename T>
std::string encodeJson(const T& object) {
  return dumpCompact(toJson(object));
}

template <typename T>
Result<List<T>> decodeListJson(std::string_view json) {
  auto parsed = jsoncodec::parseText(json);
  if (!parsed) return parsed.error();
  return listFromJson<T>(*parsed);
}

template <typename T>
struct JsonListDecoder<T>::State {
  static constexpr size_t kBatchItems = 256;
  static constexpr size_t kMaxPendingBatches = 4;  // beyond that the feeding thread decodes itself

  struct Batch {
    size_t firstIndex = 0;
    std::vector<std::string> texts;
    std::vector<std::shared_ptr<T>> objects;
    std::optional<Error> error;
  };

  JsonListSplitter splitter;
  std::deque<std::unique_ptr<Batch>> batches;  // all of them, in order
  std::unique_ptr<Batch> open;                 // being filled
  size_t itemCount = 0;

  // The helper takes batches from `pending`; what it decoded is read after join() only.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Batch*> pending;  // guarded by mu
  bool closing = false;        // guarded by mu
  std::jthread helper;

  ~State() { join(); }

  static void decode(Batch& b) {
    b.objects.reserve(b.texts.size());
    for (size_t i = 0; i < b.texts.size(); ++i) {
      auto item = decodeJson<T>(b.texts[i]);
      if (!item.ok()) {
        b.error = Error("items[" + std::to_string(b.firstIndex + i) + "]: " + item.error().message());
        break;
      }
      b.objects.push_back(std::make_shared<T>(std::move(item).value()));
    }
    b.texts = {};
  }

  Result<void> add(std::string&& text) {
    if (!open) {
      open = std::make_unique<Batch>();
      open->firstIndex = itemCount;
      open->texts.reserve(kBatchItems);
    }
    open->texts.push_back(std::move(text));
    ++itemCount;
    if (open->texts.size() < kBatchItems) return {};
    return submit();
  }

  // Hands the open batch to the helper unless it is behind; then decodes it on this thread.
  Result<void> submit() {
    Batch* b = open.get();
    batches.push_back(std::move(open));
    bool handed = false;
    {
      std::lock_guard lock(mu);
      if (pending.size() < kMaxPendingBatches) {
        pending.push_back(b);
        handed = true;
      }
    }
    if (handed) {
      if (!helper.joinable()) helper = std::jthread([this] { helperLoop(); });
      cv.notify_one();
      return {};
    }
    decode(*b);
    if (!b->error) return {};
    join();  // an earlier batch, decoded by the helper, may hold the first error
    return *firstError();
  }

  // The error of the first bad batch in order (call after join()).
  std::optional<Error> firstError() const {
    for (const auto& b : batches) {
      if (b->error) return b->error;
    }
    return std::nullopt;
  }

  void helperLoop() {
    for (;;) {
      Batch* b = nullptr;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [this] { return closing || !pending.empty(); });
        if (pending.empty()) return;
        b = pending.front();
        pending.pop_front();
      }
      decode(*b);
    }
  }

  // Lets the helper finish what it was given, then joins it.
  void join() {
    {
      std::lock_guard lock(mu);
      closing = true;
    }
    cv.notify_all();
    if (helper.joinable()) helper.join();
  }
};

template <typename T>
JsonListDecoder<T>::JsonListDecoder() : state_(std::make_unique<State>()) {}
template <typename T>
JsonListDecoder<T>::~JsonListDecoder() = default;

template <typename T>
Result<void> JsonListDecoder<T>::feed(std::string_view chunk) {
  return state_->splitter.feed(chunk, [this](std::string&& text) { return state_->add(std::move(text)); });
}

template <typename T>
Result<ListMeta> JsonListDecoder<T>::finishShared(std::vector<std::shared_ptr<const T>>& items) {
  State& st = *state_;
  if (st.open) {
    State::decode(*st.open);
    st.batches.push_back(std::move(st.open));
  }
  st.join();
  if (auto r = st.splitter.finish(); !r.ok()) return r.error();
  auto list = decodeListJson<T>(st.splitter.envelope());
  if (!list.ok()) return list.error();
  if (auto err = st.firstError()) return *err;
  items.reserve(items.size() + st.itemCount);
  for (auto& b : st.batches) {
    items.insert(items.end(), std::make_move_iterator(b->objects.begin()), std::make_move_iterator(b->objects.end()));
    b.reset();
  }
  return std::move(list->metadata);
}

template <typename T>
Result<List<T>> JsonListDecoder<T>::finish() {
  std::vector<std::shared_ptr<const T>> shared;
  auto meta = finishShared(shared);
  if (!meta.ok()) return meta.error();
  return listOfSoleOwners(std::move(meta).value(), shared);
}

template <typename T>
Result<WatchEvent<T>> decodeWatchEventJson(std::string_view line) {
  auto parsed = jsoncodec::parseText(line);
  if (!parsed) return parsed.error();
  return watchEventFromJson<T>(*parsed);
}

template <typename T>
std::string encodeListJson(const List<T>& list) {
  return dumpCompact(listToJson(list));
}

template <typename T>
std::string encodeWatchEventJson(const WatchEvent<T>& event) {
  return dumpCompact(watchEventToJson(event));
}

#define KS_JSON_INSTANTIATE_OBJECT(T)                    \
  template Result<T> decodeJson<T>(std::string_view);    \
  template std::string encodeJson<T>(const T&);          \
  template Result<T> fromJson<T>(const nlohmann::json&); \
  template nlohmann::json toJson<T>(const T&);

#define KS_JSON_INSTANTIATE_KIND(T)                                            \
  KS_JSON_INSTANTIATE_OBJECT(T)                                                \
  template Result<List<T>> decodeListJson<T>(std::string_view);                \
  template class JsonListDecoder<T>;                                           \
  template Result<WatchEvent<T>> decodeWatchEventJson<T>(std::string_view);    \
  template std::string encodeListJson<T>(const List<T>&);                      \
  template std::string encodeWatchEventJson<T>(const WatchEvent<T>&);          \
  template Result<List<T>> listFromJson<T>(const nlohmann::json&);             \
  template nlohmann::json listToJson<T>(const List<T>&);                       \
  template Result<WatchEvent<T>> watchEventFromJson<T>(const nlohmann::json&); \
  template nlohmann::json watchEventToJson<T>(const WatchEvent<T>&);

// Every kind of kinds.def.
#define KS_WATCHED_KIND(Type, ...) KS_JSON_INSTANTIATE_KIND(Type)
#define KS_STORED_KIND(Type, ...) KS_JSON_INSTANTIATE_KIND(Type)
#define KS_CODEC_KIND(Type) KS_JSON_INSTANTIATE_KIND(Type)
#include "pkg/api/kinds.def"
KS_JSON_INSTANTIATE_OBJECT(ApiStatus)
KS_JSON_INSTANTIATE_OBJECT(LabelSelector)

#undef KS_JSON_INSTANTIATE_KIND
#undef KS_JSON_INSTANTIATE_OBJECT

}  // namespace ks::api
