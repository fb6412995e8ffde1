// Lexical rules the parser and the printer share: which names are reserved,
// and how string literals are escaped and unescaped.
#pragma once

#include <string>
#include <string_view>

#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"

namespace pto_mem::pypto {

/// Python keywords: never variable names.
[[nodiscard]] inline bool is_python_keyword(std::string_view n) noexcept {
  static constexpr std::string_view kws[] = {
      "False", "None",   "True",     "and",    "as",    "assert", "async",  "await",  "break",
      "class", "continue", "def",    "del",    "elif",  "else",   "except", "finally", "for",
      "from",  "global", "if",       "import", "in",    "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",    "return", "try",   "while",  "with",   "yield"};
  for (auto k : kws)
    if (k == n) return true;
  return false;
}

/// Names a variable may not take: keywords and the space / dtype literals.
[[nodiscard]] inline bool is_reserved_name(std::string_view n) noexcept {
  return is_python_keyword(n) || parse_memory_space(n) || parse_data_type(n);
}

/// The value of a string token (quotes removed, escapes resolved).
[[nodiscard]] inline std::string unescape(std::string_view quoted) {
  std::string out;
  if (quoted.size() < 2) return out;
  const std::string_view s = quoted.substr(1, quoted.size() - 2);
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
      default:
        out += '\\';
        out += e;
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
