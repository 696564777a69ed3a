#include "pkg/api/json/list_splitter.h"

#include <array>

namespace ks::api {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr size_t kMaxKey = 16;  // only "items" matters

// The characters that mean something inside an item outside strings.
constexpr auto kItemStructural = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"{}[]:,")) t[c] = true;
  return t;
}();
}  // namespace

Result<void> JsonListSplitter::fail(std::string_view what) const {
  return Error("list body at byte " + std::to_string(offset_) + ": " + std::string(what));
}

Result<void> JsonListSplitter::feed(std::string_view chunk, const OnItem& onItem) {
  // Bytes [runStart, i) still to be appended to the current sink (item_ or envelope_); appended in runs
  // rather than byte by byte.
  size_t runStart = 0;
  auto flush = [&](size_t end) {
    if (where_ == Where::Item && !dropping_) item_.append(chunk.data() + runStart, end - runStart);
    if (where_ == Where::Envelope) envelope_.append(chunk.data() + runStart, end - runStart);
    runStart = end;
  };
  const size_t size = chunk.size();
  const char* const data = chunk.data();
  for (size_t i = 0; i < size; ++i, ++offset_) {
    if (inString_ && !escape_ && !readingKey_ && !readingItemKey_ && !readingMetaKey_) {
      // Fast path: most of a body is string contents; only a quote or a backslash matters there.
      const size_t from = i;
      while (i < size && data[i] != '"' && data[i] != '\\') ++i;
      offset_ += i - from;
      if (i == size) break;
    } else if (where_ == Where::Item && !inString_) {
      // Likewise numbers, literals and whitespace inside an item.
      const size_t from = i;
      while (i < size && !kItemStructural[static_cast<unsigned char>(data[i])]) ++i;
      offset_ += i - from;
      if (i == size) break;
    }
    const char c = data[i];
    if (inString_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        inString_ = false;
        if (readingKey_) {
          readingKey_ = false;
          keyIsItems_ = key_ == "items";
        }
        readingItemKey_ = readingMetaKey_ = false;
      } else if (readingKey_ && key_.size() <= kMaxKey) {
        key_ += c;
      } else if (readingItemKey_ && itemKey_.size() <= kMaxKey) {
        itemKey_ += c;
      } else if (readingMetaKey_ && metaKey_.size() <= kMaxKey) {
        metaKey_ += c;
      }
      continue;
    }
    switch (where_) {
      case Where::Before:
        if (c == '{') {
          where_ = Where::Envelope;
          depth_ = 1;
          expectKey_ = true;
          runStart = i;
        } else if (!isSpace(c)) {
          return fail("expected a JSON object");
        } else {
          runStart = i + 1;
        }
        break;
      case Where::After:
        if (!isSpace(c)) return fail("text after the end of the list");
        runStart = i + 1;
        break;
      case Where::Items:  // between items
        if (c == '{') {
          where_ = Where::Item;
          depth_ = 3;
          expectItemKey_ = true;
          inMetadata_ = false;
          runStart = i;
        } else if (c == ']') {
          where_ = Where::Envelope;
          depth_ = 1;
          runStart = i;
        } else if (isSpace(c) || c == ',') {
          runStart = i + 1;
        } else {
          return fail("items: expected objects");
        }
        break;
      case Where::Item:
        if (dropping_ && depth_ == 4 && (c == ',' || c == '}')) {
          // The end of metadata.managedFields' value: drop "managedFields":<value> and one comma.
          dropping_ = false;
          item_.resize(metaKeyStart_);
          if (c == ',') {
            runStart = i + 1;
            expectMetaKey_ = true;
            break;
          }
          while (!item_.empty() && (isSpace(item_.back()) || item_.back() == ',')) item_.pop_back();
          runStart = i;
        }
        if (c == '"') {
          inString_ = true;
          if (depth_ == 3 && expectItemKey_) {
            readingItemKey_ = true;
            itemKey_.clear();
          } else if (depth_ == 4 && inMetadata_ && expectMetaKey_ && !dropping_) {
            flush(i);
            metaKeyStart_ = item_.size();
            readingMetaKey_ = true;
            metaKey_.clear();
          }
        } else if (c == ':') {
          if (depth_ == 3) expectItemKey_ = false;
          if (depth_ == 4 && inMetadata_ && expectMetaKey_) {
            expectMetaKey_ = false;
            if (metaKey_ == "managedFields") {
              flush(i);
              dropping_ = true;
            }
          }
        } else if (c == ',') {
          if (depth_ == 3) expectItemKey_ = true;
          if (depth_ == 4) expectMetaKey_ = true;
        } else if (c == '{' || c == '[') {
          if (++depth_ == 4 && c == '{' && itemKey_ == "metadata" && !expectItemKey_) {
            inMetadata_ = true;
            expectMetaKey_ = true;
          }
        } else if (c == '}' || c == ']') {
          if (--depth_ == 3) inMetadata_ = false;
          if (depth_ == 2) {
            flush(i + 1);
            where_ = Where::Items;
            ++items_;
            std::string item;
            item.swap(item_);
            if (auto r = onItem(std::move(item)); !r.ok()) return r;
          }
        }
        break;
      case Where::Envelope:
        if (c == '"') {
          inString_ = true;
          if (depth_ == 1 && expectKey_) {
            readingKey_ = true;
            key_.clear();
            keyIsItems_ = false;
          }
        } else if (depth_ == 1 && c == ':') {
          expectKey_ = false;
        } else if (depth_ == 1 && c == ',') {
          expectKey_ = true;
        } else if (c == '[' && depth_ == 1 && !expectKey_ && keyIsItems_) {
          flush(i + 1);
          where_ = Where::Items;
          depth_ = 2;
        } else if (c == '{' || c == '[') {
          ++depth_;
        } else if (c == '}' || c == ']') {
          if (--depth_ == 0) {
            flush(i + 1);
            where_ = Where::After;
          }
        }
        break;
    }
  }
  flush(chunk.size());
  return {};
}

Result<void> JsonListSplitter::finish() const {
  if (where_ != Where::After) return fail("unexpected end of the list");
  return {};
}

}  // namespace ks::api
