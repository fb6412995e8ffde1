// Where a value of a JSON text starts, found from its path. nlohmann-json
// forgets positions once a document is parsed; errors are rare, so instead
// of indexing every value up front we rescan the (already valid) text for
// the few values an error names.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"

namespace pto_mem {

/// One step of a path into a JSON document: an object key or an array index.
struct JsonStep {
  std::string key;  ///< used when !is_index
  std::size_t index = 0;
  bool is_index = false;
};

/// Byte offset of the value at `path` in a syntactically valid JSON text, or
/// nullopt when the path does not lead to a value.
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<std::size_t> json_value_offset(
    std::string_view text, const std::vector<JsonStep>& path);

/// The RFC 6901 JSON pointer of a path, e.g. "/buffers/3/size".
[[nodiscard]] PTO_MEM_IO_INLINE std::string json_pointer(const std::vector<JsonStep>& path);

#if PTO_MEM_IO_DEFINE
namespace detail {

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : t_(text) {}

  std::optional<std::size_t> find(const std::vector<JsonStep>& path) {
    skip_ws();
    for (const auto& step : path) {
      if (i_ >= t_.size()) return std::nullopt;
      if (step.is_index ? !enter_index(step.index) : !enter_key(step.key)) return std::nullopt;
      skip_ws();
    }
    return i_;
  }

 private:
  void skip_ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }

  /// Reads a string literal at i_ and returns its text with the simple
  /// escapes decoded (enough to compare against our ASCII keys).
  std::string read_string() {
    std::string out;
    ++i_;  // opening quote
    while (i_ < t_.size() && t_[i_] != '"') {
      if (t_[i_] == '\\' && i_ + 1 < t_.size()) {
        ++i_;
        switch (t_[i_]) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u':
            out += '?';
            i_ += 4;
            break;  // never part of our keys
          default: out += t_[i_];
        }
        ++i_;
      } else {
        out += t_[i_++];
      }
    }
    ++i_;  // closing quote
    return out;
  }

  void skip_value() {
    skip_ws();
    if (i_ >= t_.size()) return;
    const char c = t_[i_];
    if (c == '"') {
      read_string();
      return;
    }
    if (c != '{' && c != '[') {
      while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']' && t_[i_] != ' ' &&
             t_[i_] != '\n' && t_[i_] != '\t' && t_[i_] != '\r')
        ++i_;
      return;
    }
    int depth = 0;
    while (i_ < t_.size()) {
      const char d = t_[i_];
      if (d == '"') {
        read_string();
        continue;
      }
      if (d == '{' || d == '[') ++depth;
      if (d == '}' || d == ']') --depth;
      ++i_;
      if (depth == 0) return;
    }
  }

  bool enter_index(std::size_t index) {
    if (t_[i_] != '[') return false;
    ++i_;
    for (std::size_t k = 0;; ++k) {
      skip_ws();
      if (i_ >= t_.size() || t_[i_] == ']') return false;
      if (k == index) return true;
      skip_value();
      skip_ws();
      if (i_ < t_.size() && t_[i_] == ',') ++i_;
    }
  }

  /// The last member with the key wins, as in nlohmann-json's parser.
  bool enter_key(const std::string& key) {
    if (t_[i_] != '{') return false;
    ++i_;
    std::optional<std::size_t> found;
    while (true) {
      skip_ws();
      if (i_ >= t_.size() || t_[i_] == '}') break;
      const std::string k = read_string();
      skip_ws();
      ++i_;  // ':'
      skip_ws();
      if (k == key) found = i_;
      skip_value();
      skip_ws();
      if (i_ < t_.size() && t_[i_] == ',') ++i_;
    }
    if (!found) return false;
    i_ = *found;
    return true;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

}  // namespace detail

PTO_MEM_IO_INLINE std::optional<std::size_t> json_value_offset(std::string_view text,
                                                               const std::vector<JsonStep>& path) {
  return detail::JsonScanner(text).find(path);
}

PTO_MEM_IO_INLINE std::string json_pointer(const std::vector<JsonStep>& path) {
  std::string out;
  for (const auto& s : path) {
    out += '/';
    if (s.is_index) {
      out += std::to_string(s.index);
      continue;
    }
    for (char c : s.key) {
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
    }
  }
  return out.empty() ? "/" : out;
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
