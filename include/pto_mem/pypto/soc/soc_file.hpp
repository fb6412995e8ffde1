// A chip described in a JSON file (`pto-mem compile --soc-file chip.json`),
// read into a SocPolicy. The format is in docs/soc-file.md; an example for an
// invented chip is examples/data/tiny_npu.soc.json.
//
// Every mistake is reported at the offending value (file:line:column and its
// JSON pointer, `/spaces/Vec/capacity`), all of them in one go; a file with
// any error gives no policy at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/io/json_position.hpp"
#include "pto_mem/io/source_text.hpp"
#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

struct SocFileResult {
  std::optional<SocPolicy> soc;  ///< set only when there is no error
  Diagnostics diagnostics;
};

namespace detail::soc_file {

using json = nlohmann::json;

class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  SocFileResult run() {
    SocFileResult out;
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::parse_error& e) {
      std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 3, column 7: ..."
      if (auto col = what.find("column "); col != std::string::npos)
        if (auto colon = what.find(": ", col); colon != std::string::npos) what = what.substr(colon + 2);
      out.diagnostics.push_back(
          error_at(location_at(file_, text_, e.byte > 0 ? e.byte - 1 : 0), "invalid JSON: " + what));
      return out;
    }
    read(doc);
    out.diagnostics = std::move(errors_);
    if (out.diagnostics.empty()) out.soc = std::move(soc_);
    return out;
  }

 private:
  using Path = std::vector<JsonStep>;

  static Path operator_slash(Path p, std::string key) {
    p.push_back(JsonStep{std::move(key), 0, false});
    return p;
  }
  static Path at(Path p, std::size_t i) {
    p.push_back(JsonStep{{}, i, true});
    return p;
  }

  void fail(const Path& p, const std::string& message) {
    const auto offset = json_value_offset(text_, p);
    SourceLocation where = offset ? location_at(file_, text_, *offset) : SourceLocation{file_, 0, 0};
    errors_.push_back(error_at(std::move(where), json_pointer(p) + ": " + message));
  }

  static std::string found(const json& v) {
    if (v.is_object()) return "found an object";
    if (v.is_array()) return "found an array";
    if (v.is_null()) return "found null";
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return std::string("found ") + (v.is_string() ? "the string " : "") + s;
  }

  /// `v` is an object with only `allowed` keys (an unknown key is a typo);
  /// every unknown key is reported.
  bool object(const json& v, const Path& p, std::string_view what,
              std::initializer_list<std::string_view> allowed) {
    if (!v.is_object()) {
      fail(p, std::string(what) + " must be an object, " + found(v));
      return false;
    }
    bool ok = true;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(operator_slash(p, it.key()),
             "unknown key \"" + it.key() + "\" in " + std::string(what) + " (expected one of: " + list + ")");
        ok = false;
      }
    return ok;
  }

  /// A positive integer of at most 2^40 (a terabyte is no on-chip memory).
  std::optional<Addr> positive(const json& v, const Path& p, std::string_view what) {
    constexpr std::uint64_t limit = std::uint64_t{1} << 40;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0 && v.get<std::uint64_t>() <= limit)
      return v.get<std::uint64_t>();
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() > 0 &&
        static_cast<std::uint64_t>(v.get<std::int64_t>()) <= limit)
      return static_cast<Addr>(v.get<std::int64_t>());
    fail(p, std::string(what) + " must be a positive integer of at most 2^40, " + found(v));
    return std::nullopt;
  }

  std::optional<Addr> address(const json& v, const Path& p, std::string_view what) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<Addr>(v.get<std::int64_t>());
    fail(p, std::string(what) + " must be a non-negative integer, " + found(v));
    return std::nullopt;
  }

  std::optional<MemorySpace> space_name(std::string_view name, const Path& p) {
    if (auto s = parse_memory_space(name)) return s;
    std::string list;
    for (MemorySpace s : all_memory_spaces) list += (list.empty() ? "" : ", ") + std::string(to_string(s));
    fail(p, "unknown memory space \"" + std::string(name) + "\" (expected one of: " + list + ")");
    return std::nullopt;
  }

  void read(const json& doc) {
    const Path root;
    object(doc, root, "a SoC description",
           {"name", "description", "alignment", "acc_rows", "placement_order", "spaces", "routes"});
    if (!doc.is_object()) return;
    soc_.configured = true;
    soc_.address_alignment = 32;
    soc_.acc_rows = AccRowAlignment{16, 16};

    if (auto it = doc.find("name"); it == doc.end()) {
      fail(root, "a SoC description needs a \"name\" (a non-empty string, e.g. \"tiny\")");
    } else if (!it->is_string() || it->get<std::string>().empty()) {
      fail(operator_slash(root, "name"), "name must be a non-empty string, " + found(*it));
    } else {
      soc_.soc_name = it->get<std::string>();
      soc_.description = soc_.soc_name;
    }
    if (auto it = doc.find("description"); it != doc.end()) {
      if (it->is_string())
        soc_.description = it->get<std::string>();
      else
        fail(operator_slash(root, "description"), "description must be a string, " + found(*it));
    }
    if (auto it = doc.find("alignment"); it != doc.end())
      if (auto a = positive(*it, operator_slash(root, "alignment"), "alignment")) soc_.address_alignment = *a;
    if (auto it = doc.find("acc_rows"); it != doc.end()) {
      const Path p = operator_slash(root, "acc_rows");
      object(*it, p, "acc_rows", {"int32", "other"});
      if (it->is_object()) {
        if (auto r = it->find("int32"); r != it->end())
          if (auto v = positive(*r, operator_slash(p, "int32"), "acc_rows.int32"))
            soc_.acc_rows.int32_rows = *v;
        if (auto r = it->find("other"); r != it->end())
          if (auto v = positive(*r, operator_slash(p, "other"), "acc_rows.other"))
            soc_.acc_rows.other_rows = *v;
      }
    }
    if (auto it = doc.find("placement_order"); it != doc.end()) {
      const auto o = it->is_string() ? parse_placement_order(it->get<std::string>()) : std::nullopt;
      if (o)
        soc_.placement_order = *o;
      else
        fail(operator_slash(root, "placement_order"),
             "placement_order must be \"name\", \"first_seen\" or \"size_descending\", " + found(*it));
    }
    if (auto it = doc.find("spaces"); it == doc.end()) {
      fail(root,
           "a SoC description needs \"spaces\": an object from space name (Vec, Mat, Left, Right, Acc, "
           "Bias, LeftScale, RightScale) to {\"capacity\": bytes, ...}");
    } else {
      spaces(*it, operator_slash(root, "spaces"));
    }
    if (auto it = doc.find("routes"); it != doc.end()) routes(*it, operator_slash(root, "routes"));
  }

  void spaces(const json& v, const Path& p) {
    if (!v.is_object())
      return fail(p, "spaces must be an object from space name to its description, " + found(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      const Path sp = operator_slash(p, it.key());
      auto s = space_name(it.key(), sp);
      if (!s) continue;
      if (*s == MemorySpace::DDR || *s == MemorySpace::ScalarLocal) {
        fail(sp, std::string(to_string(*s)) + " is never planned (" +
                     (*s == MemorySpace::DDR ? "off-chip memory" : "scalar arrays") +
                     "); remove it from spaces");
        continue;
      }
      const json& d = it.value();
      object(d, sp, "a space description",
             {"planned", "capacity", "alignment", "reserved"});  // typos reported
      if (!d.is_object()) continue;
      if (auto f = d.find("planned"); f != d.end()) {
        if (f->is_boolean())
          soc_.plan(*s, f->get<bool>());
        else
          fail(operator_slash(sp, "planned"), "planned must be true or false, " + found(*f));
      }
      std::optional<Addr> cap;
      if (auto f = d.find("capacity"); f != d.end()) {
        cap = positive(*f, operator_slash(sp, "capacity"), "capacity");
        soc_.capacity(*s, cap);
      }
      if (auto f = d.find("alignment"); f != d.end())
        if (auto a = positive(*f, operator_slash(sp, "alignment"), "alignment")) soc_.align(*s, *a);
      if (auto f = d.find("reserved"); f != d.end()) reserved(*f, operator_slash(sp, "reserved"), *s, cap);
    }
  }

  void reserved(const json& v, const Path& p, MemorySpace s, std::optional<Addr> cap) {
    if (!v.is_array()) return fail(p, "reserved must be an array of [begin, end) byte windows, " + found(v));
    std::vector<AddrRange> windows;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const Path wp = at(p, i);
      const json& w = v[i];
      if (!w.is_array() || w.size() != 2) {
        fail(wp, "a reserved window must be [begin, end], " + found(w));
        continue;
      }
      auto b = address(w[0], at(wp, 0), "a window begin");
      auto e = address(w[1], at(wp, 1), "a window end");
      if (!b || !e) continue;
      if (*b >= *e) {
        fail(wp, "a reserved window must have begin < end, found [" + std::to_string(*b) + ", " +
                     std::to_string(*e) + "]");
        continue;
      }
      if (cap && *e > *cap) {
        fail(wp, "the reserved window [" + std::to_string(*b) + ", " + std::to_string(*e) +
                     ") ends beyond the " + std::string(to_string(s)) + " capacity (" + std::to_string(*cap) +
                     " bytes)");
        continue;
      }
      for (const auto& o : windows)
        if (*b < o.end && o.begin < *e) {
          fail(wp, "the reserved window [" + std::to_string(*b) + ", " + std::to_string(*e) + ") overlaps [" +
                       std::to_string(o.begin) + ", " + std::to_string(o.end) + "); merge them into one");
          b.reset();
          break;
        }
      if (!b) continue;
      windows.push_back({*b, *e});
      soc_.reserve(s, {*b, *e});
    }
  }

  void routes(const json& v, const Path& p) {
    if (!v.is_object())
      return fail(p, "routes must be an object from a space to the spaces it moves data to, " + found(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      const Path rp = operator_slash(p, it.key());
      auto from = space_name(it.key(), rp);
      if (!from) continue;
      if (!it.value().is_array()) {
        fail(rp, "a route list must be an array of space names, " + found(it.value()));
        continue;
      }
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        const json& t = it.value()[i];
        if (!t.is_string()) {
          fail(at(rp, i), "a route target must be a space name, " + found(t));
          continue;
        }
        if (auto to = space_name(t.get<std::string>(), at(rp, i))) soc_.route(*from, {*to});
      }
    }
  }

  std::string_view text_;
  std::string file_;
  SocPolicy soc_;
  Diagnostics errors_;
};

}  // namespace detail::soc_file

/// The SoC described by JSON `text` (named `file` in diagnostics).
[[nodiscard]] PTO_MEM_PYPTO_INLINE SocFileResult read_soc_json(std::string_view text,
                                                               std::string file = "<soc>");
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE SocFileResult read_soc_json(std::string_view text, std::string file) {
  return detail::soc_file::Reader(text, std::move(file)).run();
}
#endif

/// The SoC described by the JSON file at `path`.
[[nodiscard]] PTO_MEM_PYPTO_INLINE SocFileResult load_soc_file(const std::filesystem::path& path);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE SocFileResult load_soc_file(const std::filesystem::path& path) {
  SourceText src = read_source_text(path);
  if (!src.text) return SocFileResult{std::nullopt, std::move(src.diagnostics)};
  return read_soc_json(*src.text, path.string());
}
#endif

}  // namespace pto_mem::pypto
