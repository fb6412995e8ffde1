// JSON text a person can read and diff: containers are broken over lines
// only when they do not fit on one, so a problem or a report with 60k
// buffers is one buffer per line instead of 300k lines. Deterministic.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace pto_mem {

namespace detail {

template <class Json>
std::string json_scalar(const Json& v) {
  // Ids read from CSV may hold bytes that are not UTF-8; write U+FFFD
  // instead of throwing.
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// Appends the one-line form of `v`; false as soon as it passes `limit` bytes.
template <class Json>
bool json_inline(const Json& v, std::string& out, std::size_t limit) {
  if (out.size() > limit) return false;
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += json_scalar(Json(it.key()));
      out += ": ";
      if (!json_inline(it.value(), out, limit)) return false;
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ", ";
      first = false;
      if (!json_inline(e, out, limit)) return false;
    }
    out += ']';
  } else {
    out += json_scalar(v);
  }
  return out.size() <= limit;
}

template <class Json>
void json_pretty(const Json& v, std::string& out, std::size_t indent, std::size_t width) {
  if (!v.is_object() && !v.is_array()) {  // scalars never break, however long
    out += json_scalar(v);
    return;
  }
  const std::size_t mark = out.size();
  if (json_inline(v, out, mark + (width > indent ? width - indent : 0))) return;
  out.resize(mark);
  const std::string pad(indent + 2, ' ');
  if (v.is_object()) {
    out += "{\n";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      out += json_scalar(Json(it.key()));
      out += ": ";
      json_pretty(it.value(), out, indent + 2, width);
    }
    out += '\n' + std::string(indent, ' ') + '}';
  } else {
    out += "[\n";
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      json_pretty(e, out, indent + 2, width);
    }
    out += '\n' + std::string(indent, ' ') + ']';
  }
}

}  // namespace detail

/// `v` as text ending in a newline; a container goes on one line when it
/// fits in `width` columns, otherwise one member per line.
template <class Json>
[[nodiscard]] std::string json_text(const Json& v, std::size_t width = 100) {
  std::string out;
  detail::json_pretty(v, out, 0, width);
  out += '\n';
  return out;
}

}  // namespace pto_mem
