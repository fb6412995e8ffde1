// The tile-storage verifier: the IR-level twin of validate(problem,
// placement). From a planned program alone it proves that every read of a
// tile value observes the bytes that value's definition wrote, along every
// path: loop back-edges and repeated outer iterations, zero-trip loops,
// branches; views are sub-windows of their source, in-place results writes
// over their input, a yield or branch exit one parallel copy.
//
// A must-analysis over the structured IR (storage_state.hpp): each byte of
// each region carries the set of values that definitely denote its content.
//   * a definition writes {v} over its window (after its reads: an op reads
//     its inputs before it writes, except that an op that is not in-place
//     safe may not write over a forbidden input at all, and scratch operands
//     are clobbered before the inputs are read);
//   * a pure view (inherit-input, in-place safe, no memory access) and
//     `a = b` add their name where the source's name is on their window;
//   * a read of v needs v on every byte of v's window;
//   * loop entry: each initializer must be on its iter-arg's window, which
//     then also carries the iter-arg; at the back-edge every yielded value is
//     checked first, then the iter-args are re-bound (a parallel copy); the
//     loop header is the meet of entry and back-edge, iterated to a fixpoint
//     (names only ever disappear, so it terminates); constant trip counts of
//     0, 1 and more decide which states reach the loop's exit;
//   * an if: each arm's yielded values must be on their phis' windows; the
//     state after the if is the meet of both arms. A phi whose window is at
//     a run-time offset of one of the if's own scalar results (a logical
//     tile selection: `p_slot * 512` with `p_slot` yielded 0 by one arm and 1
//     by the other) is, on each arm, the window that arm's yielded slot
//     gives it: the arm's value must be there, and the phi then names its
//     run-time window (every write that may touch the allocation forgets it).
// A window at a run-time offset `c + X` (X: the sum of the offset's
// non-constant terms) lies in a region of its own per (allocation, X), at
// bytes [c, c + size): windows with one X keep their distances (a view of a
// run-time slot is at its source's bytes). The region's footprint, the bytes
// its windows may occupy, is [min c, min c + allocation size) of the
// allocation's space (X >= 0 and the windows stay inside their allocation).
// It shares no code with pypto/passes/.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/sizes.hpp"
#include "pto_mem/pypto/verify/storage_state.hpp"

namespace pto_mem::pypto {

struct TileStorageOptions {
  /// MemRef offsets of kernel functions are absolute addresses (PYPTO,
  /// DSA_RP): bytes are compared per space. Otherwise (PTOAS, or any
  /// function AllocateMemoryAddr does not place) per allocation base.
  bool addresses_assigned = true;
  const OpRegistry* ops = nullptr;  ///< null: default_registry()
  std::string soc;                  ///< for per-SoC no-alias overrides ("a5")
  std::size_t max_errors = 20;      ///< per function
};

namespace detail::tile_storage {

using verify::Missing;
using verify::Names;
using verify::RegionKey;
using verify::StorageState;
using verify::ValueId;
using verify::Window;

/// A structural key for a run-time slot expression (variables by identity).
inline void expr_key(const ExprPtr& e, std::string& out) {
  if (!e) {
    out += "_";
    return;
  }
  if (auto c = as_const_int(e)) {
    out += std::to_string(*c);
    return;
  }
  if (auto v = as_var(e)) {
    out += v->name + "@" + std::to_string(reinterpret_cast<std::uintptr_t>(v.get()));
    return;
  }
  if (const auto* b = e->as<BinaryExpr>()) {
    out += "(";
    expr_key(b->lhs, out);
    out += " " + std::to_string(static_cast<int>(b->op)) + " ";
    expr_key(b->rhs, out);
    out += ")";
    return;
  }
  if (const auto* u = e->as<UnaryExpr>()) {
    out += "u" + std::to_string(static_cast<int>(u->op));
    expr_key(u->operand, out);
    return;
  }
  // Anything else: a key no other expression shares, so it never matches.
  out += "?" + std::to_string(reinterpret_cast<std::uintptr_t>(e.get()));
}

/// The verifier's id of each variable it has met: open addressing keyed by
/// the variable's address (a node-based map allocated once per variable).
class VarIds {
 public:
  /// The id of `v`, or null.
  [[nodiscard]] const ValueId* find(const Var* v) const noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = slot(v);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].first == v) return &slots_[i].second;
      if (!slots_[i].first) return nullptr;
    }
  }
  void reserve(std::size_t n) {
    std::size_t cap = 64;
    while (cap < 2 * n) cap *= 2;
    if (cap > slots_.size()) grow(cap);
  }
  /// Records `v` (not null, not yet recorded) as `id`.
  void add(const Var* v, ValueId id) {
    if (2 * (size_ + 1) > slots_.size()) grow(slots_.empty() ? 64 : 2 * slots_.size());
    std::size_t i = slot(v);
    while (slots_[i].first) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = {v, id};
    ++size_;
  }

 private:
  [[nodiscard]] std::size_t slot(const Var* v) const noexcept {
    const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(v));
    return static_cast<std::size_t>((a >> 4) * 0x9E3779B97F4A7C15ull >> 24) & (slots_.size() - 1);
  }
  void grow(std::size_t cap) {
    std::vector<std::pair<const Var*, ValueId>> old(cap);
    old.swap(slots_);
    size_ = 0;
    for (const auto& [v, id] : old)
      if (v) add(v, id);
  }
  std::vector<std::pair<const Var*, ValueId>> slots_;
  std::size_t size_ = 0;
};

struct ValueInfo {
  const Var* var;
  std::optional<Window> window;
  std::string note;  ///< why the value never got onto its window (a misplaced view)
};

/// One function's analysis.
class Checker {
 public:
  Checker(const Program& program, const Function& f, const TileStorageOptions& o, Diagnostics& out)
      : program_(program),
        f_(f),
        options_(o),
        out_(out),
        ops_(o.ops ? *o.ops : default_registry()),
        absolute_(o.addresses_assigned && is_kernel(f.kind)) {}

  void run() {
    for_each_alloc(f_.body);
    values_.reserve(f_.params.size() + defined_);  // no moves of the windows as values are met
    ids_.reserve(f_.params.size() + defined_);
    // Every window first, so that each run-time region's footprint is final
    // before any state uses it.
    for (const auto& p : f_.params) (void)tracked(p.var);
    track_all(f_.body);
    for (auto& info : values_)
      if (info.window && info.window->region.is_virtual()) {
        const verify::Footprint& foot = feet_->at(info.window->region);
        info.window->foot_begin = foot.begin;
        info.window->foot_end = foot.end;
      }
    feet_final_ = true;
    StorageState s(feet_);
    for (const auto& p : f_.params)
      if (auto id = tracked(p.var)) s.write(*window_of(*id), *id);
    report_ = true;
    for (const auto& info : values_) check_fits(*info.var);
    exec(f_.body, s);
  }

 private:
  // ---- values and their windows --------------------------------------------------------

  void for_each_alloc(const StmtPtr& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::Seq:
        for (const auto& c : st->as<SeqStmts>()->stmts) for_each_alloc(c);
        break;
      case StmtKind::Alloc: alloc_size_[st->as<AllocStmt>()->var.get()] = st->as<AllocStmt>()->size; break;
      case StmtKind::Assign: ++defined_; break;
      case StmtKind::For:
        defined_ += 2 * st->as<ForStmt>()->iter_args.size();
        for_each_alloc(st->as<ForStmt>()->body);
        break;
      case StmtKind::While:
        defined_ += 2 * st->as<WhileStmt>()->iter_args.size();
        for_each_alloc(st->as<WhileStmt>()->body);
        break;
      case StmtKind::If:
        defined_ += st->as<IfStmt>()->return_vars.size();
        for_each_alloc(st->as<IfStmt>()->then_body);
        for_each_alloc(st->as<IfStmt>()->else_body);
        break;
      default: break;
    }
  }

  void track_all(const StmtPtr& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::Seq:
        for (const auto& c : st->as<SeqStmts>()->stmts) track_all(c);
        break;
      case StmtKind::Assign: (void)tracked(st->as<AssignStmt>()->var); break;
      case StmtKind::For: {
        const auto* l = st->as<ForStmt>();
        for (const auto& ia : l->iter_args) (void)tracked(ia.var);
        track_all(l->body);
        for (const auto& r : l->return_vars) (void)tracked(r);
        break;
      }
      case StmtKind::While: {
        const auto* l = st->as<WhileStmt>();
        for (const auto& ia : l->iter_args) (void)tracked(ia.var);
        track_all(l->body);
        for (const auto& r : l->return_vars) (void)tracked(r);
        break;
      }
      case StmtKind::If: {
        const auto* i = st->as<IfStmt>();
        track_all(i->then_body);
        track_all(i->else_body);
        for (const auto& r : i->return_vars) (void)tracked(r);
        break;
      }
      default: break;
    }
  }

  /// The id of a tile value with on-chip storage, else nullopt.
  std::optional<ValueId> tracked(const VarPtr& v) {
    if (!v) return std::nullopt;
    if (const ValueId* id = ids_.find(v.get()))
      return values_[*id].window ? std::optional<ValueId>(*id) : std::nullopt;
    const auto id = static_cast<ValueId>(values_.size());
    ids_.add(v.get(), id);
    values_.push_back(ValueInfo{v.get(), compute_window(*v), {}});
    return values_.back().window ? std::optional<ValueId>(id) : std::nullopt;
  }
  std::optional<ValueId> tracked(const ExprPtr& e) { return tracked(as_var(e)); }
  const std::optional<Window>& window_of(ValueId id) const { return values_[id].window; }

  std::optional<Window> compute_window(const Var& v) {
    const auto* t = as_tile(v.type);
    if (!t || !t->memref || !t->memref->base || !t->space) return std::nullopt;
    const MemorySpace space = *t->space;
    if (space == MemorySpace::DDR || space == MemorySpace::ScalarLocal) return std::nullopt;
    const MemRef& m = *t->memref;
    Window w;
    w.region.space = space;
    w.region.base = absolute_ ? nullptr : m.base.get();
    const auto size = static_cast<std::int64_t>(m.size);
    if (auto off = m.const_offset()) {
      w.begin = *off;
      w.end = *off + size;
      return w;
    }
    // A run-time offset `c + X`: region (base, X), bytes [c, c + size);
    // footprint [min c, min c + alloc size) of the physical region.
    std::int64_t c = 0;
    std::vector<ExprPtr> terms;
    if (!split_sum(m.byte_offset, c, terms)) {
      c = 0;
      terms = {m.byte_offset};
    }
    w.physical = w.region;
    w.region.base = m.base.get();
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (i) w.region.slot += " + ";
      expr_key(terms[i], w.region.slot);
    }
    w.begin = c;
    w.end = c + size;
    auto a = alloc_size_.find(m.base.get());
    const std::int64_t span = a != alloc_size_.end() ? static_cast<std::int64_t>(a->second)
                                                     : std::numeric_limits<std::int64_t>::max() / 4;
    auto [foot, fresh] = feet_->try_emplace(w.region, verify::Footprint{w.physical, c, c + span});
    if (!fresh && !feet_final_ && c < foot->second.begin)
      foot->second = verify::Footprint{w.physical, c, c + span};
    w.foot_begin = foot->second.begin;
    w.foot_end = foot->second.end;
    return w;
  }

  /// `e` as a constant plus non-constant terms, through nested additions
  /// (false when a constant overflows).
  static bool split_sum(const ExprPtr& e, std::int64_t& c, std::vector<ExprPtr>& terms) {
    if (auto k = as_const_int(e)) return !__builtin_add_overflow(c, *k, &c);
    if (const auto* b = e ? e->as<BinaryExpr>() : nullptr; b && b->op == BinaryOp::Add)
      return split_sum(b->lhs, c, terms) && split_sum(b->rhs, c, terms);
    terms.push_back(e);
    return true;
  }

  /// `e` evaluated with the scalars of `known` (sums, differences and
  /// products of constants and those variables), or nullopt.
  static std::optional<std::int64_t> evaluate(const ExprPtr& e,
                                              const std::map<const Var*, std::int64_t>& known) {
    if (auto k = as_const_int(e)) return k;
    if (auto v = as_var(e)) {
      auto it = known.find(v.get());
      return it == known.end() ? std::nullopt : std::optional<std::int64_t>(it->second);
    }
    const auto* b = e ? e->as<BinaryExpr>() : nullptr;
    if (!b) return std::nullopt;
    auto l = evaluate(b->lhs, known), r = evaluate(b->rhs, known);
    if (!l || !r) return std::nullopt;
    std::int64_t out = 0;
    switch (b->op) {
      case BinaryOp::Add:
        return __builtin_add_overflow(*l, *r, &out) ? std::nullopt : std::optional<std::int64_t>(out);
      case BinaryOp::Sub:
        return __builtin_sub_overflow(*l, *r, &out) ? std::nullopt : std::optional<std::int64_t>(out);
      case BinaryOp::Mul:
        return __builtin_mul_overflow(*l, *r, &out) ? std::nullopt : std::optional<std::int64_t>(out);
      default: return std::nullopt;
    }
  }

  // ---- diagnostics -----------------------------------------------------------------------

  [[nodiscard]] std::string describe(ValueId id) const {
    const Var& v = *values_[id].var;
    std::string s = "'" + v.name + "'";
    if (v.loc.known()) s += " (defined at line " + std::to_string(v.loc.line) + ")";
    return s;
  }

  [[nodiscard]] std::string where(const Window& w) const {
    std::string s = std::string(to_string(w.region.space));
    if (w.region.base) s += " allocation " + w.region.base->name;
    if (w.region.is_virtual()) s += " (run-time slot)";
    return s;
  }

  /// Why byte `m.byte` does not hold the value.
  [[nodiscard]] std::string because(const Missing& m, const Window& w) const {
    std::string s = "byte " + std::to_string(m.byte) + " of " + where(w);
    if (m.holds.empty())
      return s +
             " is not known to hold it on every path here (a branch, an earlier loop iteration or a "
             "zero-trip loop leaves something else there)";
    // The earliest-numbered value is the write itself; later ones are its views and relabels.
    return s + " holds " + describe(*m.holds.begin()) + ", which overwrote it";
  }

  /// A value's data (its elements, without Acc row padding) fits its
  /// window: a view or in-place result annotated larger than its source's
  /// window would read and write bytes of other allocations.
  void check_fits(const Var& v) {
    const auto* t = as_tile(v.type);
    if (!t || !t->memref) return;
    std::uint64_t elements = 1;
    for (const auto& d : t->shape) {
      const auto c = as_const_int(d);
      if (!c || *c <= 0) return;  // InitMemRef refuses such shapes; nothing to compare
      const auto e = checked_mul(elements, static_cast<std::uint64_t>(*c));
      if (!e) return;
      elements = *e;
    }
    const auto data = storage_bytes(elements, t->dtype);
    if (data && *data > t->memref->size)
      fail(v.loc, "'" + v.name + "' holds " + std::to_string(*data) + " bytes of data, but its window (" +
                      t->memref->name() + ") is only " + std::to_string(t->memref->size) + " bytes");
  }

  void fail(Loc at, std::string message) {
    if (!report_ || errors_ >= options_.max_errors) return;
    const std::string key = std::to_string(at.line) + ":" + std::to_string(at.column) + ":" + message;
    if (!reported_.emplace(key).second) return;
    ++errors_;
    out_.push_back(error_at(program_.file, at,
                            "tile storage: " + message +
                                ". The planned program would compute a wrong result; this is a bug in the "
                                "memory passes (or in MemRefs written by hand), please report it with this "
                                "program"));
    out_.back().code = "tile-storage";
  }

  /// `v` is read at `at` by call `by` (null: by the return).
  void read(const StorageState& s, ValueId v, Loc at, const Call* by) {
    const Window& w = *window_of(v);
    if (auto m = s.missing(w, v))
      fail(at,
           "'" + values_[v].var->name + "' read by " + (by ? "'" + by->op + "'" : std::string("the return")) +
               " does not hold its value: " + (values_[v].note.empty() ? because(*m, w) : values_[v].note));
  }

  /// `src` must be on every byte of `dst`'s window (a carry or phi transfer),
  /// or of `on` when given (the window a phi has on one arm).
  void transfer(const StorageState& s, ValueId src, ValueId dst, Loc at, std::string_view role,
                const Window* on = nullptr) {
    const Window& w = on ? *on : *window_of(dst);
    if (auto m = s.missing(w, src)) {
      const Window& ws = *window_of(src);
      const bool same = ws.region == w.region && ws.begin == w.begin && ws.end == w.end;
      fail(at, std::string(role) + " '" + values_[src].var->name + "' is not on the window of '" +
                   values_[dst].var->name + "'" +
                   (same ? ": " + because(*m, w)
                         : std::string(" (they are different windows) and no copy was made")));
    }
  }

  // ---- statements ---------------------------------------------------------------------------

  void exec(const StmtPtr& st, StorageState& s) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::Seq:
        for (const auto& c : st->as<SeqStmts>()->stmts) exec(c, s);
        break;
      case StmtKind::Assign: assign(*st->as<AssignStmt>(), s); break;
      case StmtKind::Eval:
        if (const auto* c = st->as<EvalStmt>()->value->as<Call>()) call(*c, nullptr, st->loc, s);
        break;
      case StmtKind::Return:
        for (const auto& v : st->as<ReturnStmt>()->values)
          if (auto id = tracked(v)) read(s, *id, st->loc, nullptr);
        break;
      case StmtKind::For: {
        const auto* l = st->as<ForStmt>();
        loop(l->iter_args, l->body, l->return_vars, trip_count(*l), st->loc, s);
        break;
      }
      case StmtKind::While: {
        const auto* l = st->as<WhileStmt>();
        loop(l->iter_args, l->body, l->return_vars, std::nullopt, st->loc, s);
        break;
      }
      case StmtKind::If: branch(*st->as<IfStmt>(), s); break;
      case StmtKind::Alloc:
      case StmtKind::Yield: break;  // a yield is handled by its loop or if
    }
  }

  void assign(const AssignStmt& a, StorageState& s) {
    if (const auto* c = a.value ? a.value->as<Call>() : nullptr) {
      call(*c, &a, a.loc, s);
      return;
    }
    auto v = tracked(a.var);
    auto src = tracked(a.value);
    if (v && src) s.add_where(*window_of(*v), *src, *v);  // `a = b`: a view of b
  }

  [[nodiscard]] bool widening(const Call& c, const AssignStmt* a) const {
    if (!a || c.args.empty()) return false;
    auto in = as_var(c.args[0]);
    auto from = in ? dtype_of(in->type) : std::nullopt;
    auto to = dtype_of(a->var->type);
    return from && to && storage_bits(*to) > storage_bits(*from);
  }

  void call(const Call& c, const AssignStmt* a, Loc at, StorageState& s) {
    const OpSpec* spec = ops_.find(c.op);
    auto result = a ? tracked(a->var) : std::nullopt;
    if (result && spec && spec->is_view() && spec->evidence == AccessEvidence::no_access) {
      // A zero-copy view: no bytes move; it denotes its source's bytes at the
      // offset the op gives.
      if (!c.args.empty())
        if (auto src = tracked(c.args[0])) {
          if (auto note = misplaced_view(c, *src, *result))
            values_[*result].note = *note;
          else if (window_of(*result)->region.is_virtual() && !window_of(*src)->region.is_virtual())
            s.add_virtual_view(*window_of(*result), *window_of(*src), *src,
                               *result);  // a page chosen at run time
          else
            s.add_where(*window_of(*result), *src, *result);
        }
      return;
    }
    // Scratch operands are workspace the op overwrites while it runs.
    for (std::size_t i = 0; i < c.args.size(); ++i)
      if (spec && i < spec->args.size() && spec->args[i].scratch)
        if (auto id = tracked(c.args[i])) s.clobber(*window_of(*id));
    for (std::size_t i = 0; i < c.args.size(); ++i)
      if (!(spec && i < spec->args.size() && spec->args[i].scratch))
        if (auto id = tracked(c.args[i])) read(s, *id, at, &c);
    if (!result) return;
    const Window& w = *window_of(*result);
    if (spec)
      for (std::size_t k : spec->forbidden_operands(c.args.size(), options_.soc, widening(c, a)))
        if (auto id = tracked(c.args[k]); id && may_overlap(*window_of(*id), w))
          fail(at, "'" + a->var->name + "' = " + c.op + "(...) writes over its input '" +
                       values_[*id].var->name + "', but " + c.op +
                       " may not write a buffer it reads (not in-place safe)");
    s.write(w, *result);
  }

  /// Why view `v` of `src` is not where the op puts it, when both windows
  /// and the view's offset are constants.
  std::optional<std::string> misplaced_view(const Call& c, ValueId src, ValueId v) {
    const Window &ws = *window_of(src), &wv = *window_of(v);
    if (ws.region.is_virtual() || wv.region.is_virtual()) return std::nullopt;
    std::int64_t offset = 0;
    if (c.op == "tile.slice") {
      const auto* t = as_tile(values_[src].var->type);
      const auto* shape = c.args.size() > 1 ? as_sequence(c.args[1]) : nullptr;
      const auto* offs = c.args.size() > 2 ? as_sequence(c.args[2]) : nullptr;
      if (!t || !shape || !offs) return std::nullopt;
      auto w = slice_window(t->shape, t->dtype, *offs, *shape);
      if (!w) return std::nullopt;
      auto k = as_const_int(w->byte_offset);
      if (!k) return std::nullopt;
      offset = *k;
    }
    if (wv.region == ws.region && wv.begin == ws.begin + offset) return std::nullopt;
    return "it is a view of '" + values_[src].var->name + "' by " + c.op + ", which puts it at byte " +
           std::to_string(offset) + " of its source, but its MemRef is not there";
  }

  [[nodiscard]] static bool may_overlap(const Window& a, const Window& b) {
    if (a.region == b.region) return a.begin < b.end && b.begin < a.end;
    if (a.region.is_virtual() && b.region.is_virtual())
      return a.physical == b.physical && a.foot_begin < b.foot_end && b.foot_begin < a.foot_end;
    if (a.region.is_virtual()) return a.physical == b.region && a.foot_begin < b.end && b.begin < a.foot_end;
    if (b.region.is_virtual()) return may_overlap(b, a);
    return false;
  }

  // ---- loops ---------------------------------------------------------------------------------

  /// The number of iterations when the bounds are constants.
  [[nodiscard]] static std::optional<std::int64_t> trip_count(const ForStmt& l) {
    auto b = as_const_int(l.start), e = as_const_int(l.stop), st = as_const_int(l.step);
    if (!b || !e || !st || *st == 0) return std::nullopt;
    const auto span = *st > 0 ? *e - *b : *b - *e;
    const auto step = *st > 0 ? *st : -*st;
    if (span <= 0) return 0;
    return (span + step - 1) / step;
  }

  /// The back-edge: every yielded value is checked, then the iter-args are
  /// re-bound (parallel copy: every check and every source is read in `s`
  /// as it was before the copy, the changes collect in a fork).
  void back_edge(const std::vector<IterArg>& carries, const StmtPtr& body, StorageState& s) {
    const auto* y = terminating_yield(body);
    if (!y) return;
    const Loc at = y->loc;
    StorageState after = s.fork();
    std::vector<std::pair<ValueId, ValueId>> rebind;  // (yielded, iter-arg)
    for (std::size_t k = 0; k < carries.size() && k < y->values.size(); ++k) {
      auto ia = tracked(carries[k].var);
      if (!ia) continue;
      auto yv = tracked(y->values[k]);
      if (!yv) {
        after.remove_name(*window_of(*ia), *ia);  // no tracked value: the carry's bytes are unknown
        continue;
      }
      transfer(s, *yv, *ia, at, "yielded value");
      rebind.emplace_back(*yv, *ia);
    }
    for (const auto& [yv, ia] : rebind) after.remove_name(*window_of(ia), ia);
    for (const auto& [yv, ia] : rebind) after.add_where(s, *window_of(ia), yv, ia);
    s.absorb(std::move(after));
  }

  void loop(const std::vector<IterArg>& carries, const StmtPtr& body, const std::vector<VarPtr>& results,
            std::optional<std::int64_t> trips, Loc at, StorageState& s) {
    {  // Entry: each initializer onto its iter-arg's window (parallel).
      StorageState after = s.fork();
      for (const auto& c : carries) {
        auto ia = tracked(c.var);
        if (!ia) continue;
        if (auto init = tracked(c.init)) {
          transfer(s, *init, *ia, at, "loop initializer");
          after.add_where(s, *window_of(*ia), *init, *ia);
        }
      }
      s.absorb(std::move(after));
    }
    // `s` is the entry state now; the header and each pass over the body are forks of it.
    if (!trips || *trips > 0) {
      const bool outer_report = report_;
      report_ = false;
      StorageState header = s.fork();
      std::optional<StorageState> after_body;  // a fork of header: one pass over the body
      for (;;) {
        after_body.emplace(header.fork());
        exec(body, *after_body);
        back_edge(carries, body, *after_body);
        if (trips && *trips == 1) break;
        StorageState next = StorageState::join(s, s, *after_body);
        if (StorageState::same(s, next, header)) break;
        after_body.reset();
        header = std::move(next);
      }
      report_ = outer_report;
      if (report_) {  // one more pass over the fixpoint, reporting (it ends in the same state)
        after_body.emplace(header.fork());
        exec(body, *after_body);
        back_edge(carries, body, *after_body);
      }
      // At least one iteration: the loop exits after a back-edge; maybe none: also from the entry.
      s.absorb(std::move(header));
      if (trips) s.absorb(std::move(*after_body));
      after_body.reset();
    }
    // Loop results take the iter-args' final values.
    StorageState after = s.fork();
    for (std::size_t k = 0; k < results.size() && k < carries.size(); ++k) {
      auto rv = tracked(results[k]);
      auto ia = tracked(carries[k].var);
      if (!rv || !ia) continue;
      transfer(s, *ia, *rv, at, "loop-carried value");
      after.add_where(s, *window_of(*rv), *ia, *rv);
    }
    s.absorb(std::move(after));
  }

  // ---- branches ---------------------------------------------------------------------------

  void arm_exit(const StmtPtr& arm, const std::vector<VarPtr>& phis, StorageState& s) {
    const auto* y = terminating_yield(arm);
    if (!y) return;
    // The if's scalar results this arm yields as constants: a phi's run-time
    // window may depend on them (a logical tile selection's slot index).
    std::map<const Var*, std::int64_t> known;
    for (std::size_t k = 0; k < phis.size() && k < y->values.size(); ++k)
      if (auto c = as_const_int(y->values[k]);
          c && phis[k] && phis[k]->type && phis[k]->type->is<ScalarType>())
        known.emplace(phis[k].get(), *c);
    StorageState after = s.fork();
    for (std::size_t k = 0; k < phis.size() && k < y->values.size(); ++k) {
      auto p = tracked(phis[k]);
      auto v = tracked(y->values[k]);
      if (!p || !v) continue;
      if (auto on = arm_window(*phis[k], *p, known)) {
        transfer(s, *v, *p, y->loc, "branch value", &*on);
        after.add_where(s, *on, *v, *p);
        if (!s.missing(*on, *v)) after.name_whole(*window_of(*p), *p);
        continue;
      }
      transfer(s, *v, *p, y->loc, "branch value");
      after.add_where(s, *window_of(*p), *v, *p);
    }
    s.absorb(std::move(after));
  }

  /// The window phi `p` has on an arm that yields the scalars `known`, when
  /// its run-time offset depends only on them; else nullopt.
  std::optional<Window> arm_window(const Var& phi, ValueId p,
                                   const std::map<const Var*, std::int64_t>& known) const {
    const Window& w = *window_of(p);
    if (known.empty() || !w.region.is_virtual()) return std::nullopt;
    const MemRef& m = *as_tile(phi.type)->memref;
    auto off = evaluate(m.byte_offset, known);
    if (!off) return std::nullopt;
    Window on;
    on.region = w.physical;
    on.begin = *off;
    on.end = *off + static_cast<std::int64_t>(m.size);
    if (on.begin < w.foot_begin || on.end > w.foot_end) return std::nullopt;  // outside its allocation
    return on;
  }

  void branch(const IfStmt& i, StorageState& s) {
    StorageState t = s.fork();
    exec(i.then_body, t);
    arm_exit(i.then_body, i.return_vars, t);
    StorageState e = s.fork();
    if (i.else_body) {
      exec(i.else_body, e);
      arm_exit(i.else_body, i.return_vars, e);
    }
    StorageState joined = StorageState::join(s, t, e);
    s.absorb(std::move(joined));
  }

  const Program& program_;
  const Function& f_;
  const TileStorageOptions& options_;
  Diagnostics& out_;
  const OpRegistry& ops_;
  bool absolute_;
  bool report_ = true;
  std::size_t errors_ = 0;
  std::set<std::string> reported_;
  VarIds ids_;
  std::vector<ValueInfo> values_;
  std::unordered_map<const Var*, Addr> alloc_size_;
  std::size_t defined_ = 0;  ///< values the body defines (for reserving values_)
  std::shared_ptr<verify::Footprints> feet_ = std::make_shared<verify::Footprints>();
  bool feet_final_ = false;  ///< every defined value's window is known: footprints no longer grow
};

}  // namespace detail::tile_storage

/// Proves that every read of a tile value in `program` (a planned program:
/// MemRefs bound, addresses assigned when `options.addresses_assigned`)
/// observes the bytes its definition wrote. Returns one error diagnostic
/// (code `tile-storage`) per violation; empty when the program is right.
/// Orchestration functions hold no on-chip tiles and are skipped.
[[nodiscard]] PTO_MEM_PYPTO_INLINE Diagnostics verify_tile_storage(const Program& program,
                                                                   const TileStorageOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Diagnostics verify_tile_storage(const Program& program,
                                                                   const TileStorageOptions& options) {
  Diagnostics out;
  for (const auto& f : program.functions) {
    if (f.kind == FunctionKind::Orchestration) continue;
    detail::tile_storage::Checker(program, f, options, out).run();
  }
  return out;
}
#endif

}  // namespace pto_mem::pypto
