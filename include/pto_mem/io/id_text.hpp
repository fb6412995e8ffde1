// The one rule for names in files (buffer ids, arena names), so that every
// name survives every format: a name is non-empty, valid UTF-8 (no overlong
// forms, no surrogates), and holds no control character (U+0000-U+001F,
// U+007F-U+009F, so no TAB or NUL either) and no noncharacter (U+FDD0-U+FDEF
// and U+xFFFE/U+xFFFF of every plane). Readers refuse anything else with its
// file:line:column; what remains is written losslessly: JSON escapes, XML
// escapes in SVG, CSV quoting (docs/formats.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "pto_mem/core/compiled_mode.hpp"

namespace pto_mem {

/// Where a name breaks the rule and why.
struct IdDefect {
  std::size_t offset = 0;  ///< byte offset of the first offending byte
  std::string reason;
};

/// Why `name` cannot be a name in a file, or nullopt when it can.
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<IdDefect> id_defect(std::string_view name);

/// `s` as XML text or attribute value: & < > " ' escaped. A name that
/// follows the rule comes out losslessly; anything XML cannot hold (only
/// possible from a problem built in code) becomes U+FFFD, so the document
/// stays well formed.
[[nodiscard]] PTO_MEM_IO_INLINE std::string xml_escape(std::string_view s);

/// `s` safe to print on a terminal inside a diagnostic: every control
/// character (C0 including TAB and newline, DEL, and the C1 range
/// U+0080-U+009F, which terminals may read as escape sequences) becomes
/// `<U+XXXX>`, and every byte that is not part of well-formed UTF-8 becomes
/// `<0xNN>`; the rest is kept. At most `max_bytes` of `s` are shown, cut at
/// a character boundary and followed by "..." when something was left out.
/// Diagnostics that quote what a user wrote (a field, a key, an id) quote it
/// through this, so that no input can drive the terminal.
[[nodiscard]] PTO_MEM_IO_INLINE std::string printable(std::string_view s,
                                                      std::size_t max_bytes = static_cast<std::size_t>(-1));

#if PTO_MEM_IO_DEFINE
namespace detail::id_text {

/// Decodes the UTF-8 sequence at s[i]; nullopt when it is not well formed
/// (then `len` is 1). Overlong forms, surrogates and values past U+10FFFF
/// are not well formed.
inline std::optional<std::uint32_t> decode(std::string_view s, std::size_t i, std::size_t& len) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  len = 1;
  if (c < 0x80) return c;
  std::size_t n = 0;
  std::uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
    min = 0x10000;
  } else
    return std::nullopt;
  if (i + n > s.size()) return std::nullopt;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  len = n;
  return cp;
}

inline bool is_control(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }
inline bool is_noncharacter(std::uint32_t cp) {
  return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}

inline std::string code_point_name(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

}  // namespace detail::id_text

PTO_MEM_IO_INLINE std::optional<IdDefect> id_defect(std::string_view name) {
  using namespace detail::id_text;
  if (name.empty()) return IdDefect{0, "it is empty"};
  for (std::size_t i = 0; i < name.size();) {
    std::size_t len = 1;
    const auto cp = decode(name, i, len);
    if (!cp) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(name[i])));
      return IdDefect{i, std::string("byte ") + buf + " is not valid UTF-8; names are UTF-8 text"};
    }
    if (is_control(*cp))
      return IdDefect{
          i, "it holds the control character " + code_point_name(*cp) + "; names may not hold controls"};
    if (is_noncharacter(*cp))
      return IdDefect{
          i, "it holds the noncharacter " + code_point_name(*cp) + "; names may not hold noncharacters"};
    i += len;
  }
  return std::nullopt;
}

PTO_MEM_IO_INLINE std::string printable(std::string_view s, std::size_t max_bytes) {
  using namespace detail::id_text;
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 8);
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = 1;
    const auto cp = decode(s, i, len);
    if (i + len > max_bytes) break;
    if (!cp) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned>(static_cast<unsigned char>(s[i])));
      out += buf;
    } else if (is_control(*cp)) {
      out += '<' + code_point_name(*cp) + '>';
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  if (i < s.size()) out += "...";
  return out;
}

PTO_MEM_IO_INLINE std::string xml_escape(std::string_view s) {
  using namespace detail::id_text;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = 1;
    const auto cp = decode(s, i, len);
    // XML 1.0 characters: TAB, LF, CR, then U+0020 on, except U+FFFE/U+FFFF.
    if (!cp || (*cp < 0x20 && *cp != '\t' && *cp != '\n' && *cp != '\r') || *cp == 0xFFFE || *cp == 0xFFFF) {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      switch (*cp) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out.append(s.substr(i, len));
      }
    }
    i += len;
  }
  return out;
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
