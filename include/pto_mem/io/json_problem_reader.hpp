// Reading the JSON problem format: the whole model and an optional
// placement, with errors that point at the offending value (file:line:column
// plus its JSON pointer, /buffers/3/size). The schema is in docs/formats.md;
// json_problem.hpp holds the writer.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/io/id_text.hpp"
#include "pto_mem/io/json_position.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/io/source_text.hpp"

// What the reader itself needs: its users (with PTO_MEM_IO_COMPILED) only
// see the two functions below.
#if PTO_MEM_IO_DEFINE
#include <nlohmann/json.hpp>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/validator.hpp"
#endif

namespace pto_mem {

struct JsonReadOptions {
  std::size_t max_errors = 20;  ///< stop collecting after this many
};

/// Parses a JSON problem. `file` names the source in diagnostics.
[[nodiscard]] PTO_MEM_IO_INLINE ReadResult read_json_problem(std::string_view text,
                                                             const std::string& file = {},
                                                             const JsonReadOptions& options = {});

[[nodiscard]] PTO_MEM_IO_INLINE ReadResult read_json_problem_file(const std::filesystem::path& path,
                                                                  const JsonReadOptions& options = {});

#if PTO_MEM_IO_DEFINE
namespace detail {

/// A path into the document, kept on the stack while reading (no heap use
/// per value); turned into steps only when an error names it.
struct JsonPath {
  const JsonPath* parent = nullptr;
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
  bool root = true;

  [[nodiscard]] JsonPath operator/(std::string_view k) const { return {this, k, 0, false, false}; }
  [[nodiscard]] JsonPath at(std::size_t i) const { return {this, {}, i, true, false}; }
  [[nodiscard]] std::vector<JsonStep> steps() const {
    std::vector<JsonStep> out;
    for (const JsonPath* p = this; p != nullptr && !p->root; p = p->parent)
      out.push_back(JsonStep{std::string(p->key), p->index, p->is_index});
    return {out.rbegin(), out.rend()};
  }
};

inline constexpr std::pair<std::string_view, SeparationReason> separation_reason_names[] = {
    {"explicit", reason_explicit},
    {"semantic_no_alias", reason_semantic_no_alias},
    {"target_hazard", reason_target_hazard},
    {"pipeline_stage", reason_pipeline_stage},
    {"declared_allocation", reason_declared_allocation},
};

/// "found an object", "found the string \"x\"", "found 1.5": what a JSON
/// reader's error says it found instead, quoted safely for a terminal.
inline std::string found_json_value(const nlohmann::json& v) {
  if (v.is_object()) return "found an object";
  if (v.is_array()) return "found an array";
  if (v.is_null()) return "found null";
  // dump() escapes C0 controls; printable() spells out DEL and the C1 range.
  return std::string("found ") + (v.is_string() ? "the string " : "") +
         printable(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 40);
}

class JsonProblemReader {
  using json = nlohmann::json;

 public:
  // A UTF-8 byte-order mark (which some editors write) is skipped: every
  // position then counts from the byte after it, the first one an editor shows.
  JsonProblemReader(std::string_view text, std::string file, const JsonReadOptions& options)
      : text_(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text),
        file_(std::move(file)),
        options_(options) {}

  ReadResult run() {
    ReadResult out;
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::parse_error& e) {
      out.diagnostics.push_back(syntax_error(e));
      return out;
    } catch (const json::out_of_range& e) {
      // A number past the range of a double (1E400): nlohmann says so
      // without a position; the first such number is the one it stopped at.
      const auto at = overflowing_number(text_);
      const std::string number = at ? std::string(text_.substr(at->first, at->second)) : std::string();
      out.diagnostics.push_back(error_at(
          at ? location_at(file_, text_, at->first) : SourceLocation{file_, 0, 0},
          "invalid JSON: the number " + (number.empty() ? std::string() : printable(number, 40) + " ") +
              "is out of range (a number must fit a 64-bit integer or a double); write it in range"));
      return out;
    } catch (const json::exception& e) {
      out.diagnostics.push_back(
          error_at(SourceLocation{file_, 0, 0}, "invalid JSON: " + printable(e.what())));
      return out;
    }
    const JsonPath root;
    read_document(doc, root);
    if (errors_.empty()) finish();
    for (auto& e : errors_) {
      auto d = e.path ? error_at(locate(*e.path), printable(json_pointer(*e.path)) + ": " + e.message)
                      : error(e.message);
      if (!e.path) d.location = SourceLocation{file_, 0, 0};
      out.diagnostics.push_back(std::move(d));
    }
    if (stopped_)
      out.diagnostics.push_back(
          error_at(SourceLocation{file_, 0, 0},
                   "too many errors; stopping after " + std::to_string(options_.max_errors)));
    if (errors_.empty()) out.file = std::move(result_);
    return out;
  }

 private:
  struct Pending {
    std::optional<std::vector<JsonStep>> path;
    std::string message;
  };

  Diagnostic syntax_error(const json::parse_error& e) const {
    // nlohmann says "[json.exception.parse_error.101] parse error at line 3,
    // column 7: syntax error ..."; keep the part after the position and put
    // the position where every diagnostic has it.
    std::string what = e.what();
    if (auto col = what.find("column "); col != std::string::npos)
      if (auto colon = what.find(": ", col); colon != std::string::npos) what = what.substr(colon + 2);
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return error_at(location_at(file_, text_, offset), "invalid JSON: " + printable(what));
  }

  /// Where the first number literal whose value no double holds starts and
  /// how long it is, outside strings; in a text nlohmann refused for such a
  /// number, everything before it parsed, so this is the one.
  static std::optional<std::pair<std::size_t, std::size_t>> overflowing_number(std::string_view t) {
    for (std::size_t i = 0; i < t.size();) {
      const char c = t[i];
      if (c == '"') {  // skip the string, escapes included
        for (++i; i < t.size() && t[i] != '"'; ++i)
          if (t[i] == '\\') ++i;
        ++i;
        continue;
      }
      if (c != '-' && (c < '0' || c > '9')) {
        ++i;
        continue;
      }
      std::size_t end = i + 1;
      while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.' ||
                                t[end] == 'e' || t[end] == 'E' || t[end] == '+' || t[end] == '-'))
        ++end;
      const std::string literal(t.substr(i, end - i));
      const double v = std::strtod(literal.c_str(), nullptr);
      if (!std::isfinite(v)) return std::pair{i, end - i};
      i = end;
    }
    return std::nullopt;
  }

  SourceLocation locate(const std::vector<JsonStep>& path) const {
    const auto offset = json_value_offset(text_, path);
    return offset ? location_at(file_, text_, *offset) : SourceLocation{file_, 0, 0};
  }

  void fail(const JsonPath& at, std::string message) {
    if (errors_.size() >= options_.max_errors) {
      stopped_ = true;
      return;
    }
    errors_.push_back({at.steps(), std::move(message)});
  }

  static std::string found(const json& v) { return found_json_value(v); }

  /// Checks that `v` is an object holding only `allowed` keys.
  bool object(const json& v, const JsonPath& p, std::string_view what,
              std::initializer_list<std::string_view> allowed) {
    if (!v.is_object()) {
      fail(p, std::string(what) + " must be an object, " + found(v));
      return false;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      bool known = false;
      for (auto k : allowed) known = known || it.key() == k;
      if (known) continue;
      std::string list;
      for (auto k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
      const JsonPath at = p / it.key();
      fail(at, "unknown field '" + printable(it.key(), 40) + "' in " + std::string(what) +
                   "; the fields are " + list);
    }
    return true;
  }

  const json* field(const json& obj, const JsonPath& p, std::string_view key, std::string_view what,
                    bool required) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(p, std::string(what) + " has no '" + std::string(key) + "' field");
      return nullptr;
    }
    return &*it;
  }

  const json* array(const json& obj, const JsonPath& p, std::string_view key, bool required) {
    const json* v = field(obj, p, key, "the problem", required);
    if (v && !v->is_array()) {
      const JsonPath at = p / key;
      fail(at, "'" + std::string(key) + "' must be an array, " + found(*v));
      return nullptr;
    }
    return v;
  }

  std::optional<std::uint64_t> unsigned_value(const json& v, const JsonPath& p, std::string_view what) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer())
      fail(p, std::string(what) + " must not be negative, " + found(v));
    else
      fail(p, std::string(what) + " must be an integer from 0 to 2^64-1, " + found(v));
    return std::nullopt;
  }

  std::optional<std::int64_t> signed_value(const json& v, const JsonPath& p, std::string_view what) {
    if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(v.get<std::uint64_t>());
    fail(p, std::string(what) + " must be a 64-bit signed integer, " + found(v));
    return std::nullopt;
  }

  std::optional<std::uint64_t> positive(const json& v, const JsonPath& p, std::string_view what) {
    auto x = unsigned_value(v, p, what);
    if (x && *x == 0) {
      fail(p, std::string(what) + " must be positive, found 0");
      return std::nullopt;
    }
    return x;
  }

  /// Ids are strings or integers; integers are kept in decimal.
  std::optional<std::string> id_value(const json& v, const JsonPath& p, std::string_view what) {
    if (v.is_string()) {
      auto s = v.get<std::string>();
      if (s.empty()) {
        fail(p, std::string(what) + " is empty");
        return std::nullopt;
      }
      if (auto bad = id_defect(s)) {  // the name rule of io/id_text.hpp
        fail(p, std::string(what) + " cannot be a name (" + found(v) + "): " + bad->reason);
        return std::nullopt;
      }
      return s;
    }
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    fail(p, std::string(what) + " must be a string or an integer, " + found(v));
    return std::nullopt;
  }

  /// A reference to an arena listed in "arenas".
  std::optional<std::int64_t> arena_ref(const json& v, const JsonPath& p, std::string_view what) {
    auto x = signed_value(v, p, what);
    if (x && !arena_ids_.contains(*x)) {
      std::string known;
      for (const auto& a : result_.problem.arenas)
        known += (known.empty() ? "" : ", ") + std::to_string(a.id);
      fail(p, "unknown " + std::string(what) + " " + std::to_string(*x) +
                  (known.empty() ? std::string("; no arena is defined") : "; the arenas are " + known));
      x.reset();
    }
    return x;
  }

  /// A reference to a buffer listed in "buffers".
  std::optional<BufferId> buffer_ref(const json& v, const JsonPath& p, std::string_view what) {
    auto id = id_value(v, p, what);
    if (!id) return std::nullopt;
    auto it = buffer_at_.find(*id);
    if (it == buffer_at_.end()) {
      fail(p, std::string(what) + " names unknown buffer '" + *id + "'; list it under \"buffers\"");
      return std::nullopt;
    }
    return it->second;
  }

  /// A two-element array [begin, end].
  template <class T>
  std::optional<std::pair<T, T>> range(const json& v, const JsonPath& p, std::string_view what) {
    if (!v.is_array() || v.size() != 2) {
      fail(p, std::string(what) + " must be a pair [begin, end], " + found(v));
      return std::nullopt;
    }
    const JsonPath p0 = p.at(0), p1 = p.at(1);
    std::optional<T> b, e;
    if constexpr (std::is_signed_v<T>) {
      b = signed_value(v[0], p0, std::string(what) + " begin");
      e = signed_value(v[1], p1, std::string(what) + " end");
    } else {
      b = unsigned_value(v[0], p0, std::string(what) + " begin");
      e = unsigned_value(v[1], p1, std::string(what) + " end");
    }
    if (!b || !e) return std::nullopt;
    if (*b >= *e) {
      fail(p, std::string(what) + " [" + std::to_string(*b) + ", " + std::to_string(*e) +
                  ") is empty or reversed; write [begin, end) with begin < end");
      return std::nullopt;
    }
    return std::pair<T, T>{*b, *e};
  }

  void read_document(const json& doc, const JsonPath& root) {
    if (!object(doc, root, "the problem",
                {"arenas", "buffers", "must_alias", "separations", "penalties", "declared", "exclusions",
                 "conflict_graph", "placement"}))
      return;
    const json* arenas = array(doc, root, "arenas", true);
    const json* buffers = array(doc, root, "buffers", true);
    const JsonPath pa = root / "arenas";
    if (arenas)
      for (std::size_t i = 0; i < arenas->size(); ++i) read_arena((*arenas)[i], pa.at(i));
    const JsonPath pb = root / "buffers";
    if (buffers)
      for (std::size_t i = 0; i < buffers->size(); ++i) read_buffer((*buffers)[i], pb.at(i));
    if (!errors_.empty()) return;  // constraints refer to buffers; report those first

    if (const json* groups = array(doc, root, "must_alias", false)) {
      const JsonPath pg = root / "must_alias";
      for (std::size_t g = 0; g < groups->size(); ++g) read_alias_group((*groups)[g], pg.at(g));
    }
    if (const json* seps = array(doc, root, "separations", false)) {
      const JsonPath ps = root / "separations";
      for (std::size_t s = 0; s < seps->size(); ++s) read_separation((*seps)[s], ps.at(s));
    }
    if (const json* pens = array(doc, root, "penalties", false)) {
      const JsonPath pp = root / "penalties";
      for (std::size_t s = 0; s < pens->size(); ++s) read_penalty((*pens)[s], pp.at(s));
    }
    if (const json* decls = array(doc, root, "declared", false)) {
      const JsonPath pd = root / "declared";
      for (std::size_t s = 0; s < decls->size(); ++s) read_declared((*decls)[s], pd.at(s));
    }
    if (const json* xs = array(doc, root, "exclusions", false)) {
      const JsonPath px = root / "exclusions";
      for (std::size_t s = 0; s < xs->size(); ++s)
        if (auto ab = buffer_pair((*xs)[s], px.at(s), "an exclusion"))
          result_.problem.exclusions.push_back(Exclusion{ab->first, ab->second});
    }
    if (const json* cg = array(doc, root, "conflict_graph", false)) {
      const JsonPath pc = root / "conflict_graph";
      result_.problem.conflict_graph.emplace();
      for (std::size_t s = 0; s < cg->size(); ++s)
        if (auto ab = buffer_pair((*cg)[s], pc.at(s), "a conflict-graph edge"))
          result_.problem.conflict_graph->push_back(Conflict{ab->first, ab->second});
    }
    if (const json* pl = array(doc, root, "placement", false)) {
      const JsonPath pp = root / "placement";
      result_.placement.emplace();
      result_.placement->offsets.assign(result_.problem.buffers.size(), std::nullopt);
      for (std::size_t s = 0; s < pl->size(); ++s) read_offset((*pl)[s], pp.at(s));
    }
  }

  void read_arena(const json& v, const JsonPath& p) {
    if (!object(v, p, "an arena", {"id", "name", "capacity", "reserved"})) return;
    Arena a;
    bool ok = true;
    const JsonPath pid = p / "id", pname = p / "name", pcap = p / "capacity", pres = p / "reserved";
    if (const json* id = field(v, p, "id", "the arena", true)) {
      auto x = signed_value(*id, pid, "arena id");
      ok = ok && x;
      if (x) {
        a.id = *x;
        if (!arena_ids_.try_emplace(a.id, result_.problem.arenas.size()).second) {
          fail(pid, "duplicate arena id " + std::to_string(a.id) + "; give every arena its own id");
          ok = false;
        }
      }
    } else {
      ok = false;
    }
    if (const json* name = field(v, p, "name", "the arena", false)) {
      if (name->is_string()) {
        a.name = name->get<std::string>();
        if (auto bad = a.name.empty() ? std::nullopt : id_defect(a.name)) {
          fail(pname, "arena name refused (" + found(*name) + "): " + bad->reason);
          ok = false;
        }
      } else {
        fail(pname, "arena name must be a string, " + found(*name));
        ok = false;
      }
    }
    std::optional<Addr> capacity;
    if (const json* cap = field(v, p, "capacity", "the arena", false)) {
      capacity = positive(*cap, pcap, "capacity");
      ok = ok && capacity;
    }
    if (const json* res = field(v, p, "reserved", "the arena", false)) {
      if (!res->is_array()) {
        fail(pres, "reserved must be an array of [begin, end] byte ranges, " + found(*res));
        ok = false;
      } else {
        for (std::size_t i = 0; i < res->size(); ++i) {
          const JsonPath pr = pres.at(i);
          auto r = range<Addr>((*res)[i], pr, "reserved window");
          if (!r) {
            ok = false;
            continue;
          }
          if (capacity && r->second > *capacity) {
            fail(pr, "reserved window [" + std::to_string(r->first) + ", " + std::to_string(r->second) +
                         ") ends past the capacity " + std::to_string(*capacity));
            ok = false;
          }
          a.reserved.push_back({r->first, r->second});
        }
      }
    }
    a.capacity = capacity.value_or(0);
    if (!ok) return;
    unlimited_.push_back(!capacity);
    result_.problem.arenas.push_back(std::move(a));
  }

  void read_buffer(const json& v, const JsonPath& p) {
    if (!object(v, p, "a buffer", {"id", "size", "alignment", "arena", "arenas", "lifetime", "live", "pin"}))
      return;
    BufferSpec b;
    bool ok = true;
    const JsonPath pid = p / "id", psize = p / "size", palign = p / "alignment", parena = p / "arena",
                   plife = p / "lifetime", parenas = p / "arenas", plive = p / "live", ppin = p / "pin";
    if (const json* id = field(v, p, "id", "the buffer", true)) {
      auto x = id_value(*id, pid, "buffer id");
      if (x) {
        b.name = std::move(*x);
        if (auto [it, fresh] = first_seen_.try_emplace(b.name, p.index); !fresh) {
          fail(pid, "duplicate buffer id '" + b.name + "' (first at /buffers/" + std::to_string(it->second) +
                        "); ids must be unique");
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
    if (const json* size = field(v, p, "size", "the buffer", true)) {
      auto x = positive(*size, psize, "size");
      ok = ok && x;
      b.size = x.value_or(0);
    } else {
      ok = false;
    }
    if (const json* align = field(v, p, "alignment", "the buffer", false)) {
      auto x = positive(*align, palign, "alignment");
      ok = ok && x;
      b.alignment = x.value_or(1);
    }
    // "arenas": the candidate arenas, most preferred first; "arena" is then
    // optional and, when given, must be the first candidate.
    const json* candidates = field(v, p, "arenas", "the buffer", false);
    if (candidates) {
      if (!candidates->is_array() || candidates->empty()) {
        fail(parenas,
             "arenas must be a non-empty array of arena ids (the candidates, most preferred first), " +
                 found(*candidates));
        ok = false;
      } else {
        for (std::size_t k = 0; k < candidates->size(); ++k) {
          auto x = arena_ref((*candidates)[k], parenas.at(k), "candidate arena");
          if (x && std::find(b.candidate_arenas.begin(), b.candidate_arenas.end(), *x) !=
                       b.candidate_arenas.end()) {
            fail(parenas.at(k),
                 "candidate arena " + std::to_string(*x) + " is listed twice; list each arena once");
            x.reset();
          }
          ok = ok && x;
          if (x) b.candidate_arenas.push_back(*x);
        }
        if (ok) b.arena = b.candidate_arenas.front();
      }
    }
    if (const json* arena = field(v, p, "arena", "the buffer", candidates == nullptr)) {
      auto x = arena_ref(*arena, parena, "arena");
      if (x && candidates && !b.candidate_arenas.empty() && *x != b.candidate_arenas.front()) {
        fail(parena, "arena " + std::to_string(*x) + " is not the first candidate arena " +
                         std::to_string(b.candidate_arenas.front()) +
                         "; with \"arenas\" the arena is the first candidate (leave \"arena\" out)");
        x.reset();
      }
      ok = ok && x;
      if (x) b.arena = *x;
    } else if (!candidates) {
      ok = false;
    }
    // "live": the intervals the buffer is live on, ascending and disjoint
    // (they may touch); "lifetime" is then optional and, when given, must be
    // their hull.
    if (const json* live = field(v, p, "live", "the buffer", false)) {
      if (!live->is_array() || live->empty()) {
        fail(plive, "live must be a non-empty array of [begin, end) intervals, " + found(*live));
        ok = false;
      } else {
        for (std::size_t k = 0; k < live->size(); ++k) {
          const JsonPath pk = plive.at(k);
          auto r = range<Tick>((*live)[k], pk, "live interval");
          if (r && r->first < 0) {
            fail(pk, "live interval [" + std::to_string(r->first) + ", " + std::to_string(r->second) +
                         ") starts before 0; intervals are [begin, end) with 0 <= begin < end");
            r.reset();
          }
          if (r && !b.live.empty() && b.live.back().end > r->first) {
            fail(pk, "live interval [" + std::to_string(r->first) + ", " + std::to_string(r->second) +
                         ") overlaps or precedes the one before it [" + std::to_string(b.live.back().begin) +
                         ", " + std::to_string(b.live.back().end) +
                         "); list disjoint intervals in ascending order");
            r.reset();
          }
          ok = ok && r;
          if (r) b.live.push_back({r->first, r->second});
        }
        if (ok) b.lifetime = {b.live.front().begin, b.live.back().end};
      }
    }
    const bool has_live = v.contains("live");
    if (const json* life = field(v, p, "lifetime", "the buffer", !has_live)) {
      auto r = range<Tick>(*life, plife, "lifetime");
      if (r && r->first < 0) {
        fail(plife, "lifetime [" + std::to_string(r->first) + ", " + std::to_string(r->second) +
                        ") starts before 0; lifetimes are [begin, end) with 0 <= begin < end");
        r.reset();
      }
      if (r && !b.live.empty() && (r->first != b.lifetime.begin || r->second != b.lifetime.end)) {
        fail(plife, "lifetime [" + std::to_string(r->first) + ", " + std::to_string(r->second) +
                        ") is not the hull [" + std::to_string(b.lifetime.begin) + ", " +
                        std::to_string(b.lifetime.end) +
                        ") of the live intervals; leave it out or make it the hull");
        r.reset();
      }
      ok = ok && r;
      if (r) b.lifetime = {r->first, r->second};
    } else if (!has_live) {
      ok = false;
    }
    // "pin": a fixed offset (a number), or {"offset": n, "exclusive": bool}.
    if (const json* pin = field(v, p, "pin", "the buffer", false)) {
      Pin pn;
      if (pin->is_object()) {
        if (!object(*pin, ppin, "a pin", {"offset", "exclusive"})) {
          ok = false;
        } else {
          const JsonPath poff = ppin / "offset", pex = ppin / "exclusive";
          std::optional<std::uint64_t> off;
          if (const json* o = field(*pin, ppin, "offset", "the pin", true))
            off = unsigned_value(*o, poff, "pin offset");
          ok = ok && off;
          pn.offset = off.value_or(0);
          if (const json* ex = field(*pin, ppin, "exclusive", "the pin", false)) {
            if (ex->is_boolean())
              pn.exclusive = ex->get<bool>();
            else {
              fail(pex, "exclusive must be true or false, " + found(*ex));
              ok = false;
            }
          }
        }
      } else if (pin->is_number_unsigned()) {
        pn.offset = pin->get<std::uint64_t>();
      } else {
        fail(ppin,
             "pin must be an offset (an integer from 0 to 2^64-1) or {\"offset\": n, \"exclusive\": bool}, " +
                 found(*pin));
        ok = false;
      }
      if (ok && b.candidate_arenas.size() > 1) {
        fail(ppin,
             "a pinned buffer cannot have several candidate arenas (a pin fixes the arena); give one arena");
        ok = false;
      }
      b.pin = pn;
    }
    if (!ok) return;
    buffer_at_.emplace(b.name, static_cast<BufferId>(result_.problem.buffers.size()));
    result_.problem.buffers.push_back(std::move(b));
  }

  void read_alias_group(const json& v, const JsonPath& p) {
    if (!v.is_array() || v.empty()) {
      fail(p, "a must-alias group must be a non-empty array of members, " + found(v));
      return;
    }
    MustAliasGroup g;
    std::optional<std::int64_t> arena;
    for (std::size_t m = 0; m < v.size(); ++m) {
      const JsonPath pm = p.at(m);
      const json& member = v[m];
      AliasMember am;
      std::optional<BufferId> b;
      if (member.is_object()) {
        if (!object(member, pm, "a must-alias member", {"id", "offset"})) continue;
        const JsonPath pid = pm / "id", poff = pm / "offset";
        if (const json* id = field(member, pm, "id", "the must-alias member", true))
          b = buffer_ref(*id, pid, "member");
        if (const json* off = field(member, pm, "offset", "the must-alias member", false))
          am.offset = unsigned_value(*off, poff, "member offset").value_or(0);
        if (!b) continue;
        if (arena && result_.problem.buffers[*b].arena != *arena) {
          fail(pid, "member '" + result_.problem.buffers[*b].name + "' is in arena " +
                        std::to_string(result_.problem.buffers[*b].arena) + " but the group is in arena " +
                        std::to_string(*arena) + "; aliases share one arena");
          continue;
        }
      } else {
        b = buffer_ref(member, pm, "member");
        if (!b) continue;
        if (arena && result_.problem.buffers[*b].arena != *arena) {
          fail(pm, "member '" + result_.problem.buffers[*b].name + "' is in arena " +
                       std::to_string(result_.problem.buffers[*b].arena) + " but the group is in arena " +
                       std::to_string(*arena) + "; aliases share one arena");
          continue;
        }
      }
      arena = result_.problem.buffers[*b].arena;
      am.buffer = *b;
      g.members.push_back(std::move(am));
    }
    result_.problem.must_alias.push_back(std::move(g));
  }

  void read_separation(const json& v, const JsonPath& p) {
    Separation s;
    std::optional<BufferId> a, b;
    if (v.is_array()) {
      if (v.size() != 2) {
        fail(p, "a separation must be a pair [a, b] of buffer ids, " + found(v));
        return;
      }
      a = buffer_ref(v[0], p.at(0), "separation");
      b = buffer_ref(v[1], p.at(1), "separation");
    } else {
      if (!object(v, p, "a separation", {"a", "b", "reasons"})) return;
      const JsonPath pa = p / "a", pb = p / "b", pr = p / "reasons";
      if (const json* x = field(v, p, "a", "the separation", true)) a = buffer_ref(*x, pa, "separation");
      if (const json* x = field(v, p, "b", "the separation", true)) b = buffer_ref(*x, pb, "separation");
      if (const json* rs = field(v, p, "reasons", "the separation", false)) {
        if (!rs->is_array())
          fail(pr, "reasons must be an array of names, " + found(*rs));
        else
          for (std::size_t i = 0; i < rs->size(); ++i) {
            const JsonPath pi = pr.at(i);
            bool known = false;
            for (auto [name, bit] : separation_reason_names)
              if ((*rs)[i].is_string() && (*rs)[i].get<std::string>() == name) {
                s.reasons = static_cast<std::uint8_t>(s.reasons | bit);
                known = true;
              }
            if (!known)
              fail(pi, "unknown separation reason, " + found((*rs)[i]) +
                           "; use explicit, semantic_no_alias, target_hazard, pipeline_stage or "
                           "declared_allocation");
          }
      }
    }
    if (!a || !b) return;
    if (*a == *b) {
      fail(p, "separation names buffer '" + result_.problem.buffers[*a].name + "' twice");
      return;
    }
    s.a = *a;
    s.b = *b;
    result_.problem.separations.push_back(std::move(s));
  }

  /// A pair [a, b] of two distinct buffers (an exclusion, a conflict edge).
  std::optional<std::pair<BufferId, BufferId>> buffer_pair(const json& v, const JsonPath& p,
                                                           std::string_view what) {
    if (!v.is_array() || v.size() != 2) {
      fail(p, std::string(what) + " must be a pair [a, b] of buffer ids, " + found(v));
      return std::nullopt;
    }
    auto a = buffer_ref(v[0], p.at(0), what);
    auto b = buffer_ref(v[1], p.at(1), what);
    if (!a || !b) return std::nullopt;
    if (*a == *b) {
      fail(p, std::string(what) + " names buffer '" + result_.problem.buffers[*a].name + "' twice");
      return std::nullopt;
    }
    return std::pair{*a, *b};
  }

  void read_penalty(const json& v, const JsonPath& p) {
    if (!object(v, p, "a penalty", {"a", "b", "weight"})) return;
    const JsonPath pa = p / "a", pb = p / "b", pw = p / "weight";
    Penalty pen;
    std::optional<BufferId> a, b;
    if (const json* x = field(v, p, "a", "the penalty", true)) a = buffer_ref(*x, pa, "penalty");
    if (const json* x = field(v, p, "b", "the penalty", true)) b = buffer_ref(*x, pb, "penalty");
    if (const json* w = field(v, p, "weight", "the penalty", false)) {
      auto x = unsigned_value(*w, pw, "weight");
      if (!x) return;
      pen.weight = *x;
    }
    if (!a || !b) return;
    if (*a == *b) {
      fail(p, "penalty names buffer '" + result_.problem.buffers[*a].name + "' twice");
      return;
    }
    pen.a = *a;
    pen.b = *b;
    result_.problem.penalties.push_back(std::move(pen));
  }

  void read_declared(const json& v, const JsonPath& p) {
    if (!object(v, p, "a declared allocation", {"buffer", "slots", "slot_size", "bindings"})) return;
    const JsonPath pbuf = p / "buffer", pslots = p / "slots", psize = p / "slot_size", pbind = p / "bindings";
    DeclaredAllocation d;
    bool ok = true;
    if (const json* x = field(v, p, "buffer", "the declared allocation", true)) {
      auto b = buffer_ref(*x, pbuf, "declared allocation");
      ok = ok && b;
      if (b) d.buffer = *b;
    } else {
      ok = false;
    }
    if (const json* x = field(v, p, "slots", "the declared allocation", true)) {
      auto n = positive(*x, pslots, "slots");
      if (n && *n > std::numeric_limits<std::uint32_t>::max()) {
        fail(pslots, "slots must be at most 2^32-1, found " + std::to_string(*n));
        n.reset();
      }
      ok = ok && n;
      d.slots = static_cast<std::uint32_t>(n.value_or(1));
    } else {
      ok = false;
    }
    if (const json* x = field(v, p, "slot_size", "the declared allocation", true)) {
      auto n = positive(*x, psize, "slot_size");
      ok = ok && n;
      d.slot_size = n.value_or(0);
    } else {
      ok = false;
    }
    if (const json* bs = field(v, p, "bindings", "the declared allocation", false)) {
      if (!bs->is_array()) {
        fail(pbind, "bindings must be an array, " + found(*bs));
        ok = false;
      } else {
        for (std::size_t i = 0; i < bs->size(); ++i) {
          const JsonPath pi = pbind.at(i);
          const json& bind = (*bs)[i];
          if (!object(bind, pi, "a binding", {"buffer", "slot"})) {
            ok = false;
            continue;
          }
          const JsonPath pib = pi / "buffer", pis = pi / "slot";
          SlotBinding sb;
          std::optional<BufferId> b;
          if (const json* x = field(bind, pi, "buffer", "the binding", true))
            b = buffer_ref(*x, pib, "binding");
          if (!b) {
            ok = false;
            continue;
          }
          sb.buffer = *b;
          if (const json* slot = field(bind, pi, "slot", "the binding", false); slot && !slot->is_null()) {
            auto n = unsigned_value(*slot, pis, "slot (an integer, or null when chosen at run time)");
            if (n && *n >= d.slots) {
              fail(pis, "slot " + std::to_string(*n) + " is out of range; there are " +
                            std::to_string(d.slots) + " slots");
              n.reset();
            }
            if (!n) {
              ok = false;
              continue;
            }
            sb.slot = static_cast<std::uint32_t>(*n);
          }
          d.bindings.push_back(std::move(sb));
        }
      }
    }
    if (ok) result_.problem.declared.push_back(std::move(d));
  }

  void read_offset(const json& v, const JsonPath& p) {
    if (!object(v, p, "a placement entry", {"id", "offset", "arena"})) return;
    const JsonPath pid = p / "id", poff = p / "offset", parena = p / "arena";
    std::optional<BufferId> b;
    std::optional<Addr> off;
    std::optional<std::int64_t> arena;
    const json* ax = field(v, p, "arena", "the placement entry", false);
    if (const json* x = field(v, p, "id", "the placement entry", true))
      b = buffer_ref(*x, pid, "placement entry");
    if (const json* x = field(v, p, "offset", "the placement entry", true))
      off = unsigned_value(*x, poff, "offset");
    if (ax) {
      arena = arena_ref(*ax, parena, "arena");
      if (!arena) return;
    }
    if (!b || !off) return;
    const BufferSpec& spec = result_.problem.buffers[*b];
    if (arena && *arena != spec.arena &&
        std::find(spec.candidate_arenas.begin(), spec.candidate_arenas.end(), *arena) ==
            spec.candidate_arenas.end()) {
      fail(parena, "buffer '" + spec.name + "' is placed in arena " + std::to_string(*arena) +
                       ", which is not among its arenas; place it in one of its candidate arenas");
      return;
    }
    auto& slot = result_.placement->offsets[*b];
    if (slot) {
      fail(pid, "buffer '" + spec.name + "' is placed twice");
      return;
    }
    slot = *off;
    if (arena) {
      auto& arenas = result_.placement->arenas;
      if (arenas.empty()) {  // the buffers' own arenas, until an entry says otherwise
        arenas.reserve(result_.problem.buffers.size());
        for (const auto& bs : result_.problem.buffers) arenas.push_back(bs.arena);
      }
      arenas[*b] = *arena;
    }
  }

  void finish() {
    auto& p = result_.problem;
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      if (unlimited_[k]) p.arenas[k].capacity = reader_capacity(p, p.arenas[k].id);
    result_.no_capacity = unlimited_;
    // Everything with a position was checked above; the validator checks the
    // rules that join several buffers (alias classes, slots, penalties).
    for (auto& d : validate(p))
      if (d.severity == Severity::error) errors_.push_back({std::nullopt, std::move(d.message)});
    // The alias geometry (one offset per buffer across every group and
    // declaration, alignments, sizes) is what every planner needs before it
    // can place anything; refusing it here makes plan, validate and stats
    // agree on which files are well formed.
    if (errors_.empty() && (!p.must_alias.empty() || !p.declared.empty()))
      for (auto& d : unify_aliases(p).diagnostics)
        if (d.severity == Severity::error) errors_.push_back({std::nullopt, std::move(d.message)});
  }

  std::string_view text_;
  std::string file_;
  const JsonReadOptions& options_;
  std::vector<Pending> errors_;
  bool stopped_ = false;
  ProblemFile result_;
  std::vector<bool> unlimited_;  ///< per arena read: no capacity given
  std::unordered_map<std::int64_t, std::size_t> arena_ids_;
  std::unordered_map<std::string, std::size_t> first_seen_;  ///< buffer id -> index in the JSON array
  /// buffer id (its name) -> its BufferId; complete when every buffer was
  /// read without error, which is when constraints are read
  std::unordered_map<std::string, BufferId> buffer_at_;
};

}  // namespace detail

PTO_MEM_IO_INLINE ReadResult read_json_problem(std::string_view text, const std::string& file,
                                               const JsonReadOptions& options) {
  return detail::JsonProblemReader(text, file, options).run();
}

PTO_MEM_IO_INLINE ReadResult read_json_problem_file(const std::filesystem::path& path,
                                                    const JsonReadOptions& options) {
  auto src = read_source_text(path);
  if (!src.text) return ReadResult{std::nullopt, std::move(src.diagnostics)};
  return read_json_problem(*src.text, path.string(), options);
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
