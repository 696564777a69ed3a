#include "pkg/api/meta.h"

namespace ks::api {

std::string_view watchEventTypeName(WatchEventType t) {
  switch (t) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "ERROR";
}

bool parseWatchEventType(std::string_view s, WatchEventType& out) {
  if (s == "ADDED")
    out = WatchEventType::Added;
  else if (s == "MODIFIED")
    out = WatchEventType::Modified;
  else if (s == "DELETED")
    out = WatchEventType::Deleted;
  else if (s == "BOOKMARK")
    out = WatchEventType::Bookmark;
  else if (s == "ERROR")
    out = WatchEventType::Error;
  else
    return false;
  return true;
}

}  // namespace ks::api
