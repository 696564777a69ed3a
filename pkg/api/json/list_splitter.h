#pragma once
// Splits a JSON list response ({"kind":"PodList","metadata":{...},"items":[{...},{...}]}) that arrives in
// arbitrary chunks into the text of each item and the envelope (everything but the items, with
// "items":[]), so that a list of 100k objects is decoded item by item as it arrives instead of being
// held, and parsed, whole. It only tracks strings, escapes and nesting; the item and envelope texts are
// validated by the JSON parser that decodes them. Holds at most one partial item.
// Items' metadata.managedFields are dropped before anyone parses them: nothing here reads them, and they
// are ~40% of a pod's JSON.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "pkg/util/result.h"

namespace ks::api {

class JsonListSplitter {
 public:
  using OnItem = std::function<Result<void>(std::string&& item)>;

  // Calls onItem for each item completed by `chunk`, in order; its error, or a malformed stream (a
  // top level that is not an object, items that are not objects, text after the end), ends the split.
  Result<void> feed(std::string_view chunk, const OnItem& onItem);
  // The end of the body: an error unless the top-level object was closed.
  Result<void> finish() const;
  // The top-level object without the items (valid once finish() succeeded).
  const std::string& envelope() const { return envelope_; }
  size_t itemCount() const { return items_; }

 private:
  Result<void> fail(std::string_view what) const;

  enum class Where { Before, Envelope, Items, Item, After };
  Where where_ = Where::Before;
  int depth_ = 0;  // nesting, counted from the top-level object (1)
  bool inString_ = false;
  bool escape_ = false;
  bool expectKey_ = false;    // at depth 1: the next string is a key
  bool readingKey_ = false;   // inside a depth-1 key string
  bool keyIsItems_ = false;   // at depth 1: the last key was "items"
  std::string key_;           // the depth-1 key being read (short keys only)
  // Inside an item (depth 3) and its metadata (depth 4): which keys, to drop metadata.managedFields.
  bool expectItemKey_ = false, readingItemKey_ = false, inMetadata_ = false;
  bool expectMetaKey_ = false, readingMetaKey_ = false, dropping_ = false;
  std::string itemKey_, metaKey_;
  size_t metaKeyStart_ = 0;  // where the metadata key being read starts in item_
  std::string envelope_;
  std::string item_;
  size_t items_ = 0;
  size_t offset_ = 0;  // bytes seen, for errors
};

}  // namespace ks::api
