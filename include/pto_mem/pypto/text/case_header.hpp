// The comment header of a conformance case:
//
//     # from: <upstream test>
//     # passes: infer+init
//     # soc: a2a3
//     # planner: dsa_rp   (optional; only with `# passes: only ...`)
//     # flags: --logical-tile-selection   (optional; more `pto-mem compile` flags)
//     # note: free text
//     # expect:
//     #   space x_tile = Mat
//     <blank line>
//     <program>
//
// Facts are split into a kind and its arguments; the conformance runner
// (tests/conformance/) decides whether each holds.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto_mem::pypto {

/// One `# expect:` line. Kinds and arguments:
///   space v = S        -> "space",      {v, S}
///   move N from v to S -> "move",       {N, v, S}
///   no-move            -> "no-move",    {}
///   share a b          -> "share",      {a, b}
///   distinct a b       -> "distinct",   {a, b}
///   allocs S = n       -> "allocs",     {S, n}
///   alloc-size v = n   -> "alloc-size", {v, n}
///   addr v = n         -> "addr",       {v, n}  (n a constant or a run-time offset as printed)
///   pinned v           -> "pinned",     {v}
///   error s1|s2        -> "error",      {s1, s2}  (message alternatives)
///   diag s             -> "diag",       {s}  (a message containing s, or the code s)
///   no-diag s          -> "no-diag",    {s}  (no message containing s, no code s)
/// A line that fits none of these keeps kind "unknown" and `text`.
struct CaseFact {
  std::string kind;
  std::vector<std::string> args;
  std::string text;  ///< the fact as written
  std::size_t line = 0;
};

struct CaseHeader {
  std::string from;
  std::string passes;   ///< "infer", "infer+init", ..., "full-pypto", "full-dsa_rp", "full-ptoas"
  std::string soc;      ///< "a2a3", "a5"
  std::string planner;  ///< with `only ...` passes: the planner they run under ("pypto", "dsa_rp", "ptoas")
  std::vector<std::string> flags;  ///< `# flags:` more `pto-mem compile` flags, one word each
  std::vector<std::string> notes;
  std::vector<CaseFact> expects;
};

namespace detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

inline CaseFact parse_fact(std::string_view text, std::size_t line) {
  CaseFact f{"unknown", {}, std::string(text), line};
  const auto w = words(text);
  if (w.empty()) return f;
  const std::string& k = w[0];
  auto rest_after = [&](std::string_view prefix) { return std::string(trim(text.substr(prefix.size()))); };
  if (k == "error" || k == "diag" || k == "no-diag") {
    f.kind = k;
    const std::string rest = rest_after(k);
    if (k != "error") {
      f.args.push_back(rest);
    } else {
      std::size_t b = 0;
      for (;;) {
        std::size_t e = rest.find('|', b);
        f.args.push_back(
            std::string(trim(std::string_view(rest).substr(b, e == std::string::npos ? e : e - b))));
        if (e == std::string::npos) break;
        b = e + 1;
      }
    }
  } else if ((k == "space" || k == "allocs" || k == "alloc-size") && w.size() == 4 && w[2] == "=") {
    f.kind = k;
    f.args = {w[1], w[3]};
  } else if (k == "addr" && w.size() >= 4 &&
             w[2] == "=") {  // a constant, or a run-time offset: i % 2 * 16384
    f.kind = k;
    std::string offset = w[3];
    for (std::size_t x = 4; x < w.size(); ++x) offset += " " + w[x];
    f.args = {w[1], std::move(offset)};
  } else if (k == "move" && w.size() == 6 && w[2] == "from" && w[4] == "to") {
    f.kind = k;
    f.args = {w[1], w[3], w[5]};
  } else if (k == "no-move" && w.size() == 1) {
    f.kind = k;
  } else if ((k == "share" || k == "distinct") && w.size() == 3) {
    f.kind = k;
    f.args = {w[1], w[2]};
  } else if (k == "pinned" && w.size() == 2) {
    f.kind = k;
    f.args = {w[1]};
  }
  return f;
}

}  // namespace detail

/// Reads the leading `#` lines of a case file. Lines that are not part of
/// the header format are ignored; the program itself is left to the parser.
[[nodiscard]] inline CaseHeader parse_case_header(std::string_view text) {
  CaseHeader h;
  bool in_expect = false;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::string_view t = detail::trim(line);
    if (t.empty()) {
      if (in_expect) break;  // the fact list ends at the first blank line
      continue;
    }
    if (t.front() != '#') break;  // the program starts
    std::string_view c = detail::trim(t.substr(1));
    if (in_expect) {
      if (line.size() >= 4 && line.substr(0, 4) == "#   ") {
        h.expects.push_back(detail::parse_fact(c, line_no));
        continue;
      }
      in_expect = false;
    }
    auto value = [&](std::string_view key) -> std::optional<std::string> {
      if (c.substr(0, key.size()) == key) return std::string(detail::trim(c.substr(key.size())));
      return std::nullopt;
    };
    if (auto v = value("from:"))
      h.from = *v;
    else if (auto v = value("passes:"))
      h.passes = *v;
    else if (auto v = value("soc:"))
      h.soc = *v;
    else if (auto v = value("planner:"))
      h.planner = *v;
    else if (auto v = value("flags:"))
      for (auto& w : detail::words(*v)) h.flags.push_back(std::move(w));
    else if (auto v = value("note:"))
      h.notes.push_back(*v);
    else if (value("expect:"))
      in_expect = true;
  }
  return h;
}

}  // namespace pto_mem::pypto
