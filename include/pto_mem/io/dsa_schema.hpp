// PyPTO's DSA research format ("schema v1": a structured problem of pools,
// buffers, constraints, reuse penalties and a lexicographic objective), read
// natively into the problem model and answered with a schema-v1 solution.
// The mapping, field by field, and what is refused are in docs/formats.md,
// "DSA schema v1"; docs/external-solver.md shows a compiler calling it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/result.hpp"
#include "pto_mem/core/search_control.hpp"
#include "pto_mem/io/json_position.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/io/source_text.hpp"

#if PTO_MEM_IO_DEFINE
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/io/id_text.hpp"
#include "pto_mem/io/json_problem_reader.hpp"
#endif

namespace pto_mem {

/// What a schema-v1 document says beyond the problem model: what a solution
/// must repeat (instance, profile, the problem's fingerprint) and how the
/// model's buffers map back to the document's ids.
struct DsaDocument {
  std::string instance;
  std::string profile;
  /// FNV-1a 64 of the document's canonical text (keys sorted, two-space
  /// indent, as dsa-solver writes it), 16 lower-case hex digits.
  std::string fingerprint;
  /// The document's buffer id of each model buffer (aligned with problem.buffers).
  std::vector<std::uint32_t> buffer_ids;
  /// The objective's terms as written ("capacity_overflow", "reuse_cost", ...).
  std::vector<std::string> objective_terms;
  /// The goal the terms ask for: `minimise` when a peak term is present,
  /// else `fit` (fit every pool, then the least reuse cost).
  Goal goal = Goal::fit;
  /// Reuse penalties left out because the objective has no reuse_cost
  /// term, or because they can never be paid (the two buffers are in two
  /// pools, or live at the same time so never share bytes).
  std::size_t dropped_penalties = 0;
};

struct DsaReadResult {
  ReadResult read;                      ///< the problem, or the diagnostics
  std::optional<DsaDocument> document;  ///< present exactly when read is
  explicit operator bool() const noexcept { return static_cast<bool>(read); }
};

/// True when `text` is a JSON object with a top-level "schema_version" key:
/// a DSA schema-v1 document rather than a pto_mem JSON problem. A cheap scan
/// (no parse); a text that is not JSON at all says false.
[[nodiscard]] PTO_MEM_IO_INLINE bool looks_like_dsa_schema(std::string_view text);

/// Reads a schema-v1 problem document. `file` names the source in diagnostics.
[[nodiscard]] PTO_MEM_IO_INLINE DsaReadResult read_dsa_problem(std::string_view text,
                                                               const std::string& file = {});
[[nodiscard]] PTO_MEM_IO_INLINE DsaReadResult read_dsa_problem_file(const std::filesystem::path& path);

/// The schema-v1 status word of a plan result: "feasible" (a placement that
/// fits every pool; metadata optimality_proven says whether it is proved
/// best), "infeasible_proven" (a complete search proved that none fits),
/// "timeout" (a budget ended the search before a fit was found),
/// "best_effort_no_fit" (the strategy found none, proving nothing),
/// "unsupported" or "invalid_problem" (no answer).
[[nodiscard]] PTO_MEM_IO_INLINE std::string dsa_status(const PlanResult& r);

/// The schema-v1 solution of `r` for the problem `p` read from `doc`:
/// placements (buffer id, pool, offset) only when the status is "feasible",
/// and the metadata (strings, keys sorted): solver, status, pto_mem_status,
/// strategy, optimality_proven, stopped_by, lower_bound_total_peak and, for
/// a fit, capacity_overflow (0), total_peak, max_peak and reuse_cost (when
/// the objective has that term, with reuse_cost_lower_bound, what the search
/// proved no placement pays less than). optimality_proven is "true" when
/// every term of the document's objective is proved minimal (PlanResult::
/// proved), whatever goal was planned. Deterministic (no times).
[[nodiscard]] PTO_MEM_IO_INLINE std::string dsa_solution_text(const DsaDocument& doc, const Problem& p,
                                                              const PlanResult& r);

/// Reads a schema-v1 solution (the DSA solution format) of the problem
/// `p` read from `doc`: its placements become a Placement (an offset per
/// buffer and, when some buffer has several allowed pools, the pool each
/// went to). Refused, with the field and position: a solution of another
/// instance or fingerprint, an unknown buffer, a pool the buffer does not
/// allow, a buffer placed twice. A buffer the solution leaves out is
/// unplaced (the validator reports it). The rules of the model (capacity,
/// overlaps, pins, ...) are the validator's to check.
[[nodiscard]] PTO_MEM_IO_INLINE ReadResult read_dsa_solution(std::string_view text, const std::string& file,
                                                             const DsaDocument& doc, const Problem& p);

#if PTO_MEM_IO_DEFINE
namespace detail {

inline std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

class DsaReader {
  using json = nlohmann::json;

 public:
  DsaReader(std::string_view text, std::string file)
      : text_(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text), file_(std::move(file)) {}

  DsaReadResult run() {
    DsaReadResult out;
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::parse_error& e) {
      std::string what = e.what();
      if (auto col = what.find("column "); col != std::string::npos)
        if (auto colon = what.find(": ", col); colon != std::string::npos) what = what.substr(colon + 2);
      out.read.diagnostics.push_back(error_at(location_at(file_, text_, e.byte > 0 ? e.byte - 1 : 0),
                                              "invalid JSON: " + printable(what)));
      return out;
    } catch (const json::exception& e) {
      out.read.diagnostics.push_back(
          error_at(SourceLocation{file_, 0, 0}, "invalid JSON: " + printable(e.what())));
      return out;
    }
    const JsonPath root;
    read_root(doc, root);
    if (errors_.empty()) finish(doc);
    for (auto& e : errors_) {
      Diagnostic d = e.path ? error_at(locate(*e.path), printable(json_pointer(*e.path)) + ": " + e.message)
                            : error_at(SourceLocation{file_, 0, 0}, e.message);
      out.read.diagnostics.push_back(std::move(d));
    }
    if (stopped_)
      out.read.diagnostics.push_back(error_at(
          SourceLocation{file_, 0, 0}, "too many errors; stopping after " + std::to_string(max_errors_)));
    if (errors_.empty()) {
      out.read.file = std::move(result_);
      out.document = std::move(dsa_);
    }
    return out;
  }

 private:
  struct Pending {
    std::optional<std::vector<JsonStep>> path;
    std::string message;
  };
  struct Buf {
    std::uint32_t id = 0;
    BufferId index = 0;                ///< in problem.buffers
    std::vector<std::uint32_t> pools;  ///< allowed pools, in the listed order (one after a pin)
    std::vector<Interval> live;        ///< sorted, disjoint, not touching
  };

  SourceLocation locate(const std::vector<JsonStep>& path) const {
    const auto offset = json_value_offset(text_, path);
    return offset ? location_at(file_, text_, *offset) : SourceLocation{file_, 0, 0};
  }

  void fail(const JsonPath& at, std::string message) {
    if (errors_.size() >= max_errors_) {
      stopped_ = true;
      return;
    }
    errors_.push_back({at.steps(), std::move(message)});
  }

  static std::string found(const json& v) { return found_json_value(v); }

  bool object(const json& v, const JsonPath& p, std::string_view what,
              std::initializer_list<std::string_view> allowed,
              std::initializer_list<std::string_view> required) {
    if (!v.is_object()) {
      fail(p, std::string(what) + " must be an object, " + found(v));
      return false;
    }
    bool ok = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      bool known = false;
      for (auto k : allowed) known = known || it.key() == k;
      if (known) continue;
      std::string list;
      for (auto k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(p / it.key(), "unknown field '" + printable(it.key(), 40) + "' in " + std::string(what) +
                             " (DSA schema v1); the fields are " + list);
      ok = false;
    }
    for (auto k : required)
      if (!v.contains(k)) {
        fail(p, std::string(what) + " has no '" + std::string(k) + "' field (DSA schema v1 requires it)");
        ok = false;
      }
    return ok;
  }

  bool is_array(const json& v, const JsonPath& p, std::string_view what) {
    if (v.is_array()) return true;
    fail(p, std::string(what) + " must be an array, " + found(v));
    return false;
  }

  std::optional<std::uint64_t> unsigned_value(const json& v, const JsonPath& p, std::string_view what,
                                              std::uint64_t max = UINT64_MAX) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= max) return v.get<std::uint64_t>();
    fail(p, std::string(what) + " must be an integer from 0 to " + std::to_string(max) + ", " + found(v));
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
  std::optional<std::string> string_value(const json& v, const JsonPath& p, std::string_view what) {
    if (v.is_string()) return v.get<std::string>();
    fail(p, std::string(what) + " must be a string, " + found(v));
    return std::nullopt;
  }

  /// A reference to a buffer id listed under problem.buffers.
  const Buf* buffer_ref(const json& obj, const JsonPath& p, std::string_view key, std::string_view what) {
    const JsonPath at = p / key;
    auto id = unsigned_value(obj.at(key), at, std::string(what) + " " + std::string(key), UINT32_MAX);
    if (!id) return nullptr;
    auto it = buffers_.find(static_cast<std::uint32_t>(*id));
    if (it == buffers_.end()) {
      fail(at, std::string(what) + " names unknown buffer " + std::to_string(*id) +
                   "; list it under problem.buffers");
      return nullptr;
    }
    return &it->second;
  }

  std::optional<std::uint32_t> pool_ref(const json& v, const JsonPath& p, std::string_view what) {
    auto id = unsigned_value(v, p, what, UINT32_MAX);
    if (!id) return std::nullopt;
    if (!pools_.contains(static_cast<std::uint32_t>(*id))) {
      fail(p, std::string(what) + " names unknown pool " + std::to_string(*id) +
                  "; list it under problem.pools");
      return std::nullopt;
    }
    return static_cast<std::uint32_t>(*id);
  }

  void read_root(const json& doc, const JsonPath& root) {
    if (!object(doc, root, "the document",
                {"schema_version", "profile", "instance", "relaxed_from", "relaxed_features", "metadata",
                 "problem"},
                {"schema_version", "profile", "instance", "problem"}))
      return;
    const JsonPath pv = root / "schema_version", pp = root / "profile", pi = root / "instance",
                   pm = root / "metadata";
    if (!doc["schema_version"].is_number_unsigned() || doc["schema_version"].get<std::uint64_t>() != 1) {
      fail(pv,
           "schema_version must be 1 (the only version this reader knows), " + found(doc["schema_version"]));
      return;
    }
    static constexpr std::string_view profiles[] = {"standard_dsa",      "dsa_rp_v1",
                                                    "pypto_structured",  "pypto_hard_v1",
                                                    "pypto_research_v1", "pypto_core_relaxation"};
    if (auto s = string_value(doc["profile"], pp, "profile")) {
      if (std::find(std::begin(profiles), std::end(profiles), *s) == std::end(profiles))
        fail(pp, "unknown profile, " + found(doc["profile"]) +
                     "; the profiles are standard_dsa, dsa_rp_v1, pypto_structured, pypto_hard_v1, "
                     "pypto_research_v1, pypto_core_relaxation");
      dsa_.profile = *s;
    }
    if (auto s = string_value(doc["instance"], pi, "instance")) {
      if (s->empty()) fail(pi, "instance must not be empty");
      dsa_.instance = *s;
    }
    if (doc.contains("metadata")) {
      const json& m = doc["metadata"];
      if (!m.is_object())
        fail(pm, "metadata must be an object of strings, " + found(m));
      else
        for (auto it = m.begin(); it != m.end(); ++it)
          if (!it.value().is_string())
            fail(pm / it.key(), "a metadata value must be a string, " + found(it.value()));
    }
    read_problem(doc["problem"], root / "problem");
  }

  void read_problem(const json& v, const JsonPath& p) {
    if (!object(v, p, "problem",
                {"pools", "buffers", "constraints", "cost_model", "pypto_structure", "objective"},
                {"pools", "buffers", "constraints", "objective"}))
      return;
    const JsonPath ppools = p / "pools", pbuf = p / "buffers";
    if (is_array(v["pools"], ppools, "pools"))
      for (std::size_t i = 0; i < v["pools"].size(); ++i) read_pool(v["pools"][i], ppools.at(i));
    if (errors_.empty() && is_array(v["buffers"], pbuf, "buffers"))
      for (std::size_t i = 0; i < v["buffers"].size(); ++i) read_buffer(v["buffers"][i], pbuf.at(i));
    if (!errors_.empty()) return;  // the rest refers to pools and buffers: report those first
    if (result_.problem.buffers.empty()) fail(pbuf, "buffers must not be empty (DSA schema v1)");
    assign_names();
    read_objective(v["objective"], p / "objective");
    read_constraints(v["constraints"], p / "constraints");
    if (v.contains("cost_model")) read_cost_model(v["cost_model"], p / "cost_model");
    if (v.contains("pypto_structure")) read_structure(v["pypto_structure"], p / "pypto_structure");
  }

  void read_pool(const json& v, const JsonPath& p) {
    if (!object(v, p, "a pool", {"id", "name", "capacity", "reserved_ranges", "bank_geometry"},
                {"id", "name", "capacity", "reserved_ranges"}))
      return;
    Arena a;
    auto id = unsigned_value(v["id"], p / "id", "pool id", UINT32_MAX);
    auto name = string_value(v["name"], p / "name", "pool name");
    if (!id || !name) return;
    if (!pools_.emplace(static_cast<std::uint32_t>(*id), result_.problem.arenas.size()).second) {
      fail(p / "id", "duplicate pool id " + std::to_string(*id) + "; give every pool its own id");
      return;
    }
    a.id = static_cast<std::int64_t>(*id);
    // A name our reports cannot show unchanged is left out: the pool id still names it.
    if (!name->empty() && !id_defect(*name)) a.name = *name;
    std::optional<Addr> capacity;
    if (!v["capacity"].is_null()) {
      capacity = positive(v["capacity"], p / "capacity", "pool capacity (or null: no capacity)");
      if (!capacity) return;
    }
    const JsonPath pr = p / "reserved_ranges";
    if (!is_array(v["reserved_ranges"], pr, "reserved_ranges")) return;
    for (std::size_t i = 0; i < v["reserved_ranges"].size(); ++i) {
      const json& r = v["reserved_ranges"][i];
      const JsonPath pri = pr.at(i);
      if (!object(r, pri, "a reserved range", {"begin", "end"}, {"begin", "end"})) return;
      auto b = unsigned_value(r["begin"], pri / "begin", "begin");
      auto e = unsigned_value(r["end"], pri / "end", "end");
      if (!b || !e) return;
      if (*b >= *e) {
        fail(pri, "reserved range [" + std::to_string(*b) + ", " + std::to_string(*e) +
                      ") is empty or reversed; write begin < end");
        return;
      }
      if (capacity && *e > *capacity) {
        fail(pri, "reserved range [" + std::to_string(*b) + ", " + std::to_string(*e) +
                      ") ends past the capacity " + std::to_string(*capacity));
        return;
      }
      a.reserved.push_back({*b, *e});
    }
    if (v.contains("bank_geometry") && !object(v["bank_geometry"], p / "bank_geometry", "bank_geometry",
                                               {"bank_size", "num_banks"}, {"bank_size", "num_banks"}))
      return;
    a.capacity = capacity.value_or(0);
    unlimited_.push_back(!capacity);
    result_.problem.arenas.push_back(std::move(a));
  }

  void read_buffer(const json& v, const JsonPath& p) {
    if (!object(v, p, "a buffer", {"id", "name", "size", "alignment", "live_intervals", "allowed_pools"},
                {"id", "name", "size", "alignment", "live_intervals", "allowed_pools"}))
      return;
    auto id = unsigned_value(v["id"], p / "id", "buffer id", UINT32_MAX);
    auto name = string_value(v["name"], p / "name", "buffer name");
    auto size = positive(v["size"], p / "size", "size");
    auto align = positive(v["alignment"], p / "alignment", "alignment");
    const JsonPath pl = p / "live_intervals", pa = p / "allowed_pools";
    // Several intervals are sorted and merged where they overlap or touch:
    // [a, b) and [b, c) are live at exactly the instants of [a, c).
    std::vector<Interval> live;
    bool live_ok = false;
    if (is_array(v["live_intervals"], pl, "live_intervals")) {
      const json& l = v["live_intervals"];
      live_ok = !l.empty();
      if (l.empty()) fail(pl, "live_intervals must hold at least one interval, found none");
      for (std::size_t k = 0; k < l.size(); ++k) {
        const JsonPath pk = pl.at(k);
        if (!object(l[k], pk, "a live interval", {"lower", "upper"}, {"lower", "upper"})) {
          live_ok = false;
          continue;
        }
        const json& lo = l[k]["lower"];
        const json& up = l[k]["upper"];
        if (!lo.is_number_integer() || !up.is_number_integer()) {
          fail(pk, "lower and upper must be integers");
          live_ok = false;
          continue;
        }
        const std::int64_t b =
            lo.is_number_unsigned()
                ? static_cast<std::int64_t>(std::min<std::uint64_t>(lo.get<std::uint64_t>(), INT64_MAX))
                : lo.get<std::int64_t>();
        const std::int64_t e =
            up.is_number_unsigned()
                ? static_cast<std::int64_t>(std::min<std::uint64_t>(up.get<std::uint64_t>(), INT64_MAX))
                : up.get<std::int64_t>();
        if (b < 0) {
          fail(pk / "lower", "lower is " + std::to_string(b) + "; the model's lifetimes start at 0 or later");
          live_ok = false;
        } else if (b >= e) {
          fail(pk, "live interval [" + std::to_string(b) + ", " + std::to_string(e) +
                       ") is empty or reversed; intervals are half-open [lower, upper) with lower < upper");
          live_ok = false;
        } else {
          live.push_back(Interval{b, e});
        }
      }
      std::sort(live.begin(), live.end(), [](const Interval& x, const Interval& y) {
        return x.begin < y.begin || (x.begin == y.begin && x.end < y.end);
      });
      std::vector<Interval> merged;
      for (const auto& iv : live)
        if (!merged.empty() && iv.begin <= merged.back().end)
          merged.back().end = std::max(merged.back().end, iv.end);
        else
          merged.push_back(iv);
      live = std::move(merged);
    }
    std::vector<std::uint32_t> pools;
    bool pools_ok = false;
    if (is_array(v["allowed_pools"], pa, "allowed_pools")) {
      const json& a = v["allowed_pools"];
      pools_ok = !a.empty();
      if (a.empty()) fail(pa, "allowed_pools must name at least one pool, found none");
      for (std::size_t k = 0; k < a.size(); ++k) {
        auto pool = pool_ref(a[k], pa.at(k), "allowed pool");
        if (pool && std::find(pools.begin(), pools.end(), *pool) != pools.end()) {
          fail(pa.at(k),
               "allowed pool " + std::to_string(*pool) + " is listed twice (DSA schema v1: unique items)");
          pool.reset();
        }
        if (!pool)
          pools_ok = false;
        else
          pools.push_back(*pool);
      }
    }
    if (!id || !name || !size || !align || !live_ok || !pools_ok) return;
    const auto bid = static_cast<std::uint32_t>(*id);
    if (buffers_.contains(bid)) {
      fail(p / "id", "duplicate buffer id " + std::to_string(bid) + "; ids must be unique");
      return;
    }
    BufferSpec b;
    b.size = *size;
    b.alignment = *align;
    b.arena = pools.front();
    if (pools.size() > 1) b.candidate_arenas.assign(pools.begin(), pools.end());
    b.lifetime = Interval{live.front().begin, live.back().end};
    if (live.size() > 1) b.live = live;
    buffers_.emplace(bid, Buf{bid, static_cast<BufferId>(result_.problem.buffers.size()), std::move(pools),
                              std::move(live)});
    names_.push_back(*name);
    dsa_.buffer_ids.push_back(bid);
    result_.problem.buffers.push_back(std::move(b));
  }

  void read_objective(const json& v, const JsonPath& p) {
    if (!object(v, p, "objective", {"aggregation", "terms"}, {"aggregation", "terms"})) return;
    if (!v["aggregation"].is_string() || v["aggregation"].get<std::string>() != "lexicographic")
      fail(p / "aggregation", "aggregation must be \"lexicographic\", " + found(v["aggregation"]));
    const JsonPath pt = p / "terms";
    if (!is_array(v["terms"], pt, "terms")) return;
    if (v["terms"].empty()) fail(pt, "terms must name at least one metric");
    // Our objective ranks fit, then penalty, then the total peak, then the
    // largest peak: a term list is honoured when it follows that order.
    static constexpr std::string_view order[] = {"capacity_overflow", "reuse_cost", "total_peak", "max_peak"};
    int last = -1;
    bool total = false;
    for (std::size_t i = 0; i < v["terms"].size(); ++i) {
      const JsonPath pi = pt.at(i);
      auto s = string_value(v["terms"][i], pi, "an objective term");
      if (!s) continue;
      if (*s == "bank_cost") {
        fail(pi,
             "objective term bank_cost cannot be honoured: the model has no bank geometry; drop the term");
        continue;
      }
      const auto at = std::find(std::begin(order), std::end(order), *s);
      if (at == std::end(order)) {
        fail(pi, "unknown objective term, " + found(v["terms"][i]) +
                     "; the terms are capacity_overflow, total_peak, max_peak, reuse_cost, bank_cost");
        continue;
      }
      const int rank = static_cast<int>(at - std::begin(order));
      if (rank <= last) {
        fail(
            pi,
            "objective term " + *s + " after " + std::string(order[last]) +
                " cannot be honoured: the planner ranks capacity_overflow, then reuse_cost, then total_peak, "
                "then max_peak; list the terms in that order");
        continue;
      }
      if (*s == "max_peak" && !total && result_.problem.arenas.size() > 1) {
        fail(pi,
             "objective term max_peak without total_peak before it cannot be honoured with several pools: "
             "the planner minimises the sum of the pools' peaks first; write [\"total_peak\", \"max_peak\"]");
        continue;
      }
      total = total || *s == "total_peak";
      if (*s == "total_peak" || *s == "max_peak") dsa_.goal = Goal::minimise;
      last = rank;
      dsa_.objective_terms.push_back(*s);
    }
  }

  bool has_term(std::string_view t) const {
    return std::find(dsa_.objective_terms.begin(), dsa_.objective_terms.end(), t) !=
           dsa_.objective_terms.end();
  }

  std::pair<const Buf*, const Buf*> pair_refs(const json& v, const JsonPath& p, std::string_view what,
                                              std::initializer_list<std::string_view> allowed) {
    if (!object(v, p, what, allowed, {"first", "second"})) return {nullptr, nullptr};
    const Buf* a = buffer_ref(v, p, "first", what);
    const Buf* b = buffer_ref(v, p, "second", what);
    if (a && b && a == b) {
      fail(p, std::string(what) + " names buffer " + std::to_string(a->id) + " twice");
      return {nullptr, nullptr};
    }
    return {a, b};
  }

  /// Their live intervals meet (exclusions aside).
  static bool intervals_meet(const Buf& a, const Buf& b) {
    for (std::size_t i = 0, j = 0; i < a.live.size() && j < b.live.size();) {
      if (a.live[i].begin < b.live[j].end && b.live[j].begin < a.live[i].end) return true;
      if (a.live[i].end <= b.live[j].end)
        ++i;
      else
        ++j;
    }
    return false;
  }
  /// Live at the same time: their intervals meet and no exclusion separates them.
  bool co_live(const Buf& a, const Buf& b) const {
    return intervals_meet(a, b) && !excluded_.contains(std::minmax(a.index, b.index));
  }
  /// Some pool is allowed to both.
  static bool may_share_pool(const Buf& a, const Buf& b) {
    for (auto x : a.pools)
      if (std::find(b.pools.begin(), b.pools.end(), x) != b.pools.end()) return true;
    return false;
  }

  void read_constraints(const json& v, const JsonPath& p) {
    if (!object(v, p, "constraints",
                {"colocations", "separations", "temporal_exclusions", "pinned_allocations"},
                {"colocations", "separations", "temporal_exclusions", "pinned_allocations"}))
      return;
    const JsonPath pc = p / "colocations", ps = p / "separations", pt = p / "temporal_exclusions",
                   pp = p / "pinned_allocations";
    // Pins first: a pin fixes the buffer's pool, which the rest checks.
    if (is_array(v["pinned_allocations"], pp, "pinned_allocations"))
      for (std::size_t i = 0; i < v["pinned_allocations"].size(); ++i)
        read_pin(v["pinned_allocations"][i], pp.at(i));
    if (is_array(v["colocations"], pc, "colocations"))
      for (std::size_t i = 0; i < v["colocations"].size(); ++i) {
        auto [a, b] = pair_refs(v["colocations"][i], pc.at(i), "a colocation", {"first", "second"});
        if (!a || !b) continue;
        if (a->pools.size() != 1 || b->pools.size() != 1 || a->pools[0] != b->pools[0]) {
          fail(pc.at(i),
               "colocation of buffers " + std::to_string(a->id) + " and " + std::to_string(b->id) +
                   " cannot be expressed: a colocation shares one pool and offset, so both must have the "
                   "same single allowed pool (or be pinned to it); their allowed pools differ or offer a "
                   "choice");
          continue;
        }
        // Same pool, same offset: a must-alias pair at offset 0.
        result_.problem.must_alias.push_back(MustAliasGroup{{{a->index, 0}, {b->index, 0}}});
      }
    if (is_array(v["separations"], ps, "separations"))
      for (std::size_t i = 0; i < v["separations"].size(); ++i) {
        const JsonPath pi = ps.at(i);
        auto [a, b] = pair_refs(v["separations"][i], pi, "a separation", {"first", "second", "reasons"});
        if (!a || !b) continue;
        Separation s{a->index, b->index, reason_explicit};
        if (v["separations"][i].contains("reasons")) {
          const json& rs = v["separations"][i]["reasons"];
          const JsonPath pr = pi / "reasons";
          if (!is_array(rs, pr, "reasons")) continue;
          for (std::size_t k = 0; k < rs.size(); ++k) {
            const std::string r = rs[k].is_string() ? rs[k].get<std::string>() : std::string();
            if (r == "semantic_no_alias")
              s.reasons |= reason_semantic_no_alias;
            else if (r == "target_hazard")
              s.reasons |= reason_target_hazard;
            else if (r == "pipeline_stage")
              s.reasons |= reason_pipeline_stage;
            else if (r != "generic" && r != "cross_pipe")  // both: a plain hard separation
              fail(pr.at(k),
                   "unknown separation reason, " + found(rs[k]) +
                       "; the reasons are generic, pipeline_stage, target_hazard, semantic_no_alias, "
                       "cross_pipe");
          }
        }
        result_.problem.separations.push_back(std::move(s));
      }
    // A temporal exclusion says the two never live at once: kept when their
    // intervals meet and they may share a pool, left out when vacuous (they
    // never compete for bytes anyway), which keeps such problems plain.
    if (is_array(v["temporal_exclusions"], pt, "temporal_exclusions"))
      for (std::size_t i = 0; i < v["temporal_exclusions"].size(); ++i) {
        auto [a, b] =
            pair_refs(v["temporal_exclusions"][i], pt.at(i), "a temporal exclusion", {"first", "second"});
        if (!a || !b) continue;
        if (!may_share_pool(*a, *b) || !intervals_meet(*a, *b)) continue;
        if (!excluded_.insert(std::minmax(a->index, b->index)).second)
          continue;  // listed twice: once is enough
        result_.problem.exclusions.push_back(Exclusion{a->index, b->index});
      }
  }

  /// pinned_allocations[i]: {buffer, pool, offset, exclusive_for_all_time}
  /// -> the buffer's pin, in that pool (one of its allowed pools, which the
  /// pin then fixes).
  void read_pin(const json& v, const JsonPath& p) {
    if (!object(v, p, "a pinned allocation", {"buffer", "pool", "offset", "exclusive_for_all_time"},
                {"buffer", "pool", "offset", "exclusive_for_all_time"}))
      return;
    const Buf* b = buffer_ref(v, p, "buffer", "pinned allocation");
    auto pool = pool_ref(v["pool"], p / "pool", "pinned allocation pool");
    auto offset = unsigned_value(v["offset"], p / "offset", "pinned offset");
    const bool exclusive_ok = v["exclusive_for_all_time"].is_boolean();
    if (!exclusive_ok)
      fail(p / "exclusive_for_all_time",
           "exclusive_for_all_time must be true or false, " + found(v["exclusive_for_all_time"]));
    if (!b || !pool || !offset || !exclusive_ok) return;
    Buf& buf = buffers_.at(b->id);
    BufferSpec& spec = result_.problem.buffers[buf.index];
    if (spec.pin) {
      fail(p / "buffer", "buffer " + std::to_string(buf.id) + " is pinned twice; pin each buffer once");
      return;
    }
    if (std::find(buf.pools.begin(), buf.pools.end(), *pool) == buf.pools.end()) {
      fail(p / "pool", "buffer " + std::to_string(buf.id) + " is pinned in pool " + std::to_string(*pool) +
                           ", which is not among its allowed_pools; pin it in an allowed pool");
      return;
    }
    spec.pin = Pin{static_cast<Addr>(*offset), v["exclusive_for_all_time"].get<bool>()};
    spec.arena = *pool;
    spec.candidate_arenas.clear();  // the pin fixes the arena
    buf.pools.assign(1, *pool);
  }

  void read_cost_model(const json& v, const JsonPath& p) {
    if (!object(v, p, "cost_model", {"reuse_penalties"}, {"reuse_penalties"})) return;
    const JsonPath pr = p / "reuse_penalties";
    if (!is_array(v["reuse_penalties"], pr, "reuse_penalties")) return;
    static constexpr std::string_view reasons[] = {
        "generic",     "pipeline_serialization", "load_motion_serialization", "cross_pipe", "cross_core",
        "event_budget"};
    std::map<std::pair<BufferId, BufferId>, std::size_t> at;  // pair -> index in penalties
    for (std::size_t i = 0; i < v["reuse_penalties"].size(); ++i) {
      const JsonPath pi = pr.at(i);
      const json& e = v["reuse_penalties"][i];
      auto [a, b] = pair_refs(e, pi, "a reuse penalty", {"first", "second", "cost", "reason"});
      if (!e.is_object()) continue;
      if (!e.contains("cost") || !e.contains("reason")) {
        fail(pi, "a reuse penalty needs 'cost' and 'reason' (DSA schema v1)");
        continue;
      }
      auto cost = unsigned_value(e["cost"], pi / "cost", "cost");
      if (!e["reason"].is_string() || std::find(std::begin(reasons), std::end(reasons),
                                                e["reason"].get<std::string>()) == std::end(reasons))
        fail(pi / "reason",
             "unknown reuse-penalty reason, " + found(e["reason"]) +
                 "; the reasons are generic, pipeline_serialization, load_motion_serialization, "
                 "cross_pipe, cross_core, event_budget");
      if (!a || !b || !cost) continue;
      // A penalty is paid when two buffers never live at once share bytes.
      // Across pools, between co-live buffers or outside the objective it
      // can never be paid: left out. Repeated pairs add up.
      if (!has_term("reuse_cost") || !may_share_pool(*a, *b) || co_live(*a, *b)) {
        ++dsa_.dropped_penalties;
        continue;
      }
      const auto key = std::minmax(a->index, b->index);
      if (auto it = at.find(key); it != at.end()) {
        auto& w = result_.problem.penalties[it->second].weight;
        w = saturating_add(w, static_cast<Weight>(*cost));
        continue;
      }
      at.emplace(key, result_.problem.penalties.size());
      result_.problem.penalties.push_back(Penalty{a->index, b->index, static_cast<Weight>(*cost)});
    }
  }

  // Provenance only: alias classes list the values one buffer materialises;
  // pipeline groups record stages whose hard intent the producer already
  // wrote as pipeline_stage separations. Checked, not mapped.
  void read_structure(const json& v, const JsonPath& p) {
    if (!object(v, p, "pypto_structure", {"alias_classes", "pipeline_groups"},
                {"alias_classes", "pipeline_groups"}))
      return;
    const JsonPath pa = p / "alias_classes", pg = p / "pipeline_groups";
    if (is_array(v["alias_classes"], pa, "alias_classes"))
      for (std::size_t i = 0; i < v["alias_classes"].size(); ++i) {
        const json& c = v["alias_classes"][i];
        if (!object(c, pa.at(i), "an alias class", {"buffer", "members"}, {"buffer", "members"})) continue;
        buffer_ref(c, pa.at(i), "buffer", "alias class");
        is_array(c["members"], pa.at(i) / "members", "members");
      }
    if (is_array(v["pipeline_groups"], pg, "pipeline_groups"))
      for (std::size_t i = 0; i < v["pipeline_groups"].size(); ++i) {
        const json& g = v["pipeline_groups"][i];
        const JsonPath pi = pg.at(i);
        if (!object(g, pi, "a pipeline group",
                    {"group", "pool", "slot_size", "depth", "effective_depth", "members"},
                    {"group", "pool", "slot_size", "depth", "effective_depth", "members"}))
          continue;
        pool_ref(g["pool"], pi / "pool", "pipeline group pool");
        const JsonPath pm = pi / "members";
        if (!is_array(g["members"], pm, "members")) continue;
        for (std::size_t k = 0; k < g["members"].size(); ++k)
          if (object(g["members"][k], pm.at(k), "a pipeline member", {"buffer", "stage", "residue"},
                     {"buffer", "stage", "residue"}))
            buffer_ref(g["members"][k], pm.at(k), "buffer", "pipeline member");
      }
  }

  /// The model's buffer names (labels in diagnostics and reports): the
  /// document's names when every name is unique and a valid name, else the
  /// document's ids in decimal. Constraints refer to buffers by position.
  void assign_names() {
    auto& bs = result_.problem.buffers;
    bool names = true;
    std::set<std::string_view> seen;
    for (const auto& n : names_) names = names && !id_defect(n) && seen.insert(n).second;
    for (std::size_t i = 0; i < bs.size(); ++i)
      bs[i].name = names ? names_[i] : std::to_string(dsa_.buffer_ids[i]);
  }

  void finish(const json& doc) {
    auto& p = result_.problem;
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      if (unlimited_[k]) p.arenas[k].capacity = reader_capacity(p, p.arenas[k].id);
    result_.no_capacity = unlimited_;
    if (std::all_of(unlimited_.begin(), unlimited_.end(), [](bool u) { return u; }))
      dsa_.goal = Goal::minimise;
    for (auto& d : validate(p))
      if (d.severity == Severity::error) errors_.push_back({std::nullopt, std::move(d.message)});
    if (errors_.empty() && !p.must_alias.empty())
      for (auto& d : unify_aliases(p).diagnostics)
        if (d.severity == Severity::error) errors_.push_back({std::nullopt, std::move(d.message)});
    // The canonical text dsa-solver fingerprints: keys sorted, two-space
    // indent, a final newline, metadata always present.
    json canonical = doc;
    if (!canonical.contains("metadata")) canonical["metadata"] = json::object();
    dsa_.fingerprint = fnv1a64_hex(canonical.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  }

  std::string_view text_;
  std::string file_;
  std::size_t max_errors_ = 20;
  std::vector<Pending> errors_;
  bool stopped_ = false;
  ProblemFile result_;
  DsaDocument dsa_;
  std::vector<bool> unlimited_;
  std::vector<std::string> names_;
  std::unordered_map<std::uint32_t, std::size_t> pools_;  ///< pool id -> arena index
  std::unordered_map<std::uint32_t, Buf> buffers_;        ///< buffer id -> what the constraints need
  std::set<std::pair<BufferId, BufferId>> excluded_;      ///< exclusions read, (smaller, larger)
};

}  // namespace detail

PTO_MEM_IO_INLINE bool looks_like_dsa_schema(std::string_view t) {
  if (t.starts_with("\xEF\xBB\xBF")) t.remove_prefix(3);
  std::size_t i = 0;
  auto ws = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  };
  ws();
  if (i >= t.size() || t[i] != '{') return false;
  ++i;
  int depth = 1;
  bool expect_key = true;
  while (i < t.size() && depth > 0) {
    const char c = t[i];
    if (c == '"') {
      const std::size_t start = ++i;
      while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
      if (i >= t.size()) return false;
      const std::string_view s = t.substr(start, i - start);
      ++i;
      if (depth == 1 && expect_key) {
        ws();
        if (i < t.size() && t[i] == ':' && s == "schema_version") return true;
      }
      expect_key = false;
      continue;
    }
    if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']')
      --depth;
    else if (c == ',' && depth == 1)
      expect_key = true;
    ++i;
  }
  return false;
}

PTO_MEM_IO_INLINE DsaReadResult read_dsa_problem(std::string_view text, const std::string& file) {
  return detail::DsaReader(text, file).run();
}

PTO_MEM_IO_INLINE DsaReadResult read_dsa_problem_file(const std::filesystem::path& path) {
  auto src = read_source_text(path);
  if (!src.text) return DsaReadResult{ReadResult{std::nullopt, std::move(src.diagnostics)}, std::nullopt};
  return read_dsa_problem(*src.text, path.string());
}

PTO_MEM_IO_INLINE ReadResult read_dsa_solution(std::string_view text, const std::string& file,
                                               const DsaDocument& doc, const Problem& p) {
  using json = nlohmann::json;
  using detail::JsonPath;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  ReadResult out;
  json sol;
  try {
    sol = json::parse(text);
  } catch (const json::exception& e) {
    out.diagnostics.push_back(error_at(SourceLocation{file, 0, 0}, "invalid JSON: " + printable(e.what())));
    return out;
  }
  auto fail = [&](const JsonPath& at, std::string message) {
    const auto steps = at.steps();
    const auto offset = json_value_offset(text, steps);
    out.diagnostics.push_back(error_at(offset ? location_at(file, text, *offset) : SourceLocation{file, 0, 0},
                                       printable(json_pointer(steps)) + ": " + std::move(message)));
  };
  const JsonPath root;
  if (!sol.is_object() || !sol.contains("placements") || !sol["placements"].is_array()) {
    fail(root, "a schema-v1 solution is an object with a \"placements\" array (dsa-solution-v1.schema.json)");
    return out;
  }
  for (auto it = sol.begin(); it != sol.end(); ++it)
    if (it.key() != "schema_version" && it.key() != "profile" && it.key() != "instance" &&
        it.key() != "problem_fingerprint" && it.key() != "metadata" && it.key() != "placements")
      fail(root / it.key(),
           "unknown field '" + printable(it.key(), 40) +
               "' in a solution (DSA schema v1); the fields are schema_version, profile, instance, "
               "problem_fingerprint, metadata, placements");
  if (sol.contains("instance") && sol["instance"] != doc.instance)
    fail(root / "instance", "the solution is of instance " + printable(sol["instance"].dump(), 40) +
                                " but the problem is \"" + printable(doc.instance, 40) + "\"");
  if (sol.contains("problem_fingerprint") && sol["problem_fingerprint"] != doc.fingerprint)
    fail(root / "problem_fingerprint",
         "the solution's fingerprint " + printable(sol["problem_fingerprint"].dump(), 40) +
             " is not the problem's \"" + doc.fingerprint + "\": it answers another version of the problem");
  std::unordered_map<std::uint32_t, BufferId> index;
  for (std::size_t i = 0; i < doc.buffer_ids.size(); ++i)
    index.emplace(doc.buffer_ids[i], static_cast<BufferId>(i));
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  std::vector<std::int64_t> arenas;
  for (const auto& b : p.buffers) arenas.push_back(b.arena);
  bool moved = false;
  const JsonPath pp = root / "placements";
  const json& ps = sol["placements"];
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const JsonPath pk = pp.at(k);
    const json& e = ps[k];
    if (!e.is_object() || !e.contains("buffer") || !e.contains("pool") || !e.contains("offset")) {
      fail(pk, "a placement is {\"buffer\", \"pool\", \"offset\"}, " + detail::found_json_value(e));
      continue;
    }
    const json &jb = e["buffer"], &jp = e["pool"], &jo = e["offset"];
    if (!jb.is_number_unsigned() || jb.get<std::uint64_t>() > UINT32_MAX) {
      fail(pk / "buffer",
           "buffer must be a buffer id (an integer from 0 to 2^32-1), " + detail::found_json_value(jb));
      continue;
    }
    if (!jo.is_number_unsigned()) {
      fail(pk / "offset", "offset must be an integer from 0 to 2^64-1, " + detail::found_json_value(jo));
      continue;
    }
    const auto it = index.find(static_cast<std::uint32_t>(jb.get<std::uint64_t>()));
    if (it == index.end()) {
      fail(pk / "buffer",
           "unknown buffer " + std::to_string(jb.get<std::uint64_t>()) + "; the problem does not list it");
      continue;
    }
    const BufferSpec& b = p.buffers[it->second];
    const bool allowed =
        jp.is_number_integer() &&
        (jp.get<std::int64_t>() == b.arena || std::find(b.candidate_arenas.begin(), b.candidate_arenas.end(),
                                                        jp.get<std::int64_t>()) != b.candidate_arenas.end());
    if (!allowed) {
      fail(pk / "pool", "buffer " + std::to_string(jb.get<std::uint64_t>()) + " is placed in pool " +
                            printable(jp.dump(), 40) + ", which is not among its allowed pools");
      continue;
    }
    if (pl.offsets[it->second]) {
      fail(pk / "buffer", "buffer " + std::to_string(jb.get<std::uint64_t>()) + " is placed twice");
      continue;
    }
    pl.offsets[it->second] = jo.get<std::uint64_t>();
    arenas[it->second] = jp.get<std::int64_t>();
    moved = moved || arenas[it->second] != b.arena || b.candidate_arenas.size() > 1;
  }
  if (!out.diagnostics.empty()) return out;
  if (moved) pl.arenas = std::move(arenas);
  out.file = ProblemFile{p, std::move(pl), {}};
  return out;
}

PTO_MEM_IO_INLINE std::string dsa_status(const PlanResult& r) {
  switch (r.status) {
    case Status::optimal:
    case Status::feasible: return "feasible";
    case Status::infeasible: return "infeasible_proven";
    case Status::no_fit: return r.stopped_by == StopReason::completed ? "best_effort_no_fit" : "timeout";
    case Status::unsupported: return "unsupported";
    case Status::invalid_input:
    case Status::internal_error: return "invalid_problem";
  }
  return "invalid_problem";
}

PTO_MEM_IO_INLINE std::string dsa_solution_text(const DsaDocument& doc, const Problem& p,
                                                const PlanResult& r) {
  using json = nlohmann::ordered_json;
  json out;
  out["schema_version"] = 1;
  out["profile"] = doc.profile;
  out["instance"] = doc.instance;
  out["problem_fingerprint"] = doc.fingerprint;
  std::map<std::string, std::string> meta;  // sorted keys
  const std::string status = dsa_status(r);
  meta["solver"] = "pto_mem";
  meta["status"] = status;
  meta["strategy"] = r.strategy;
  meta["pto_mem_status"] = to_string(r.status);
  // Proved optimal for the document's objective: every term it ranks is
  // proved (the reuse cost, the peaks; capacity_overflow is 0 for any fit).
  auto term = [&](std::string_view t) {
    return std::find(doc.objective_terms.begin(), doc.objective_terms.end(), t) != doc.objective_terms.end();
  };
  const bool proved = r.fits() && (!term("reuse_cost") || r.proved.penalty) &&
                      (!(term("total_peak") || term("max_peak")) || r.proved.peak);
  meta["optimality_proven"] = proved ? "true" : "false";
  meta["stopped_by"] = std::string(to_string(r.stopped_by));
  Addr bound = 0;
  for (Addr b : r.lower_bound) bound = saturating_add(bound, b);
  meta["lower_bound_total_peak"] = std::to_string(bound);
  json placements = json::array();
  if (status == "feasible" && r.placement) {
    const Objective o = evaluate_objective(p, *r.placement);
    // Every metric the placement has; reuse_cost only when it is a term
    // (otherwise the penalties were not read).
    meta["capacity_overflow"] = "0";
    meta["total_peak"] = std::to_string(o.total_peak);
    meta["max_peak"] = std::to_string(o.max_peak);
    if (term("reuse_cost")) {
      meta["reuse_cost"] = std::to_string(o.penalty);
      meta["reuse_cost_lower_bound"] = std::to_string(r.proved.penalty_bound);
    }
    std::vector<std::pair<std::uint32_t, std::size_t>> order;
    for (std::size_t i = 0; i < p.buffers.size(); ++i) order.emplace_back(doc.buffer_ids[i], i);
    std::sort(order.begin(), order.end());  // by buffer id, as dsa-solver writes them
    for (auto [id, i] : order)
      placements.push_back(
          json{{"buffer", id},
               {"pool", static_cast<std::uint32_t>(i < r.placement->arenas.size() ? r.placement->arenas[i]
                                                                                  : p.buffers[i].arena)},
               {"offset", r.placement->offsets[i].value_or(0)}});
  }
  out["metadata"] = meta;
  out["placements"] = std::move(placements);
  return out.dump(2) + "\n";
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
