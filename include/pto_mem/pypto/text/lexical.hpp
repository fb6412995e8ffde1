// Lexical rules the parser and the printer share: which names are reserved,
// and how string literals are escaped and unescaped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"

namespace pto_mem::pypto {

/// What a bare word means before any variable is looked up.
struct Word {
  enum class Kind : std::uint8_t {
    none,
    keyword,
    space,
    dtype,
    true_lit,
    false_lit,
    none_lit
  } kind = Kind::none;
  MemorySpace space = MemorySpace::DDR;
  DataType dtype = DataType::FP32;
};

/// Classifies `n` with one hash lookup (identifiers are classified on every
/// use, so this is hot): Python keywords, True / False / None, memory-space
/// and data-type names.
[[nodiscard]] inline Word classify_word(std::string_view n) {
  constexpr std::size_t max_len = 11;
  if (n.size() < 2 || n.size() > max_len) return {};
  // Bucketed by (first character, length): a lookup compares against at most
  // a couple of words and never hashes.
  struct Entry {
    std::string_view text;
    Word word;
  };
  static const auto table = [] {
    std::vector<std::vector<Entry>> t(128 * (max_len + 1));
    auto put = [&](std::string_view w, Word word) {
      t[static_cast<std::size_t>(w[0]) * (max_len + 1) + w.size()].push_back(Entry{w, word});
    };
    for (std::string_view k :
         {"and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
          "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
          "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
          "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield"})
      put(k, Word{Word::Kind::keyword});
    put("True", Word{Word::Kind::true_lit});
    put("False", Word{Word::Kind::false_lit});
    put("None", Word{Word::Kind::none_lit});
    for (MemorySpace s : all_memory_spaces) put(to_string(s), Word{Word::Kind::space, s});
    for (DataType d : all_data_types) put(to_string(d), Word{Word::Kind::dtype, MemorySpace::DDR, d});
    return t;
  }();
  const auto c = static_cast<unsigned char>(n[0]);
  if (c >= 128) return {};
  for (const Entry& e : table[c * (max_len + 1) + n.size()])
    if (e.text == n) return e.word;
  return {};
}

/// Python keywords (True, False and None included): never variable names.
[[nodiscard]] inline bool is_python_keyword(std::string_view n) {
  const auto k = classify_word(n).kind;
  return k == Word::Kind::keyword || k == Word::Kind::true_lit || k == Word::Kind::false_lit ||
         k == Word::Kind::none_lit;
}

/// Names a variable may not take: keywords and the space / dtype literals.
[[nodiscard]] inline bool is_reserved_name(std::string_view n) {
  return classify_word(n).kind != Word::Kind::none;
}

/// The value of a string token (quotes removed, escapes resolved).
[[nodiscard]] inline std::string unescape(std::string_view quoted) {
  std::string out;
  if (quoted.size() < 2) return out;
  const std::size_t q = quoted.size() >= 6 && quoted[1] == quoted[0] && quoted[2] == quoted[0] ? 3 : 1;
  const std::string_view s = quoted.substr(q, quoted.size() - 2 * q);
  out.reserve(s.size());
  auto hexval = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case 'x':
        if (i + 2 < s.size() && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
          out += static_cast<char>(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
          i += 2;
          break;
        }
        [[fallthrough]];
      default: out += '\\'; out += e;
    }
  }
  return out;
}

/// `s` as a double-quoted literal that unescape() reads back.
[[nodiscard]] inline std::string quote(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace pto_mem::pypto
