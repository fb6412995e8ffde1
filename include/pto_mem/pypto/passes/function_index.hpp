// One walk of a function, recorded: its program points, every definition and
// every read (with the statement holding it and the chain of statements
// enclosing it), its loops and its branch regions. Lifetimes, the access
// trace, the storage-observation index (UseIndex) and the memory map read
// their facts from here instead of walking the IR each on their own.
//
//     a = tile.load(x, ...)          point 0   region 0
//     for i in range(4):             (header reads at point 1)
//         b = tile.add(a, a)         point 1   region 1, in a loop
//         yield_()                   point 2   region 1, in a loop
//                                    point 3   the loop's back edge
//     return b                       point 4   region 0
//
// The numbering. Walking in program order, every assignment, expression
// statement, yield and return takes the next point; every loop whose body
// took a point takes one more after its body, its *back-edge* point (a read
// inside the loop repeats after everything the body defines). A read or a
// definition in a statement that takes no point (a loop header, an if
// condition, an alloc, a loop's return vars, an if's phis) is at the next
// free point. Two consumers number differently, on purpose, and derive their
// numbers from this one:
//  * the access trace counts only the statements that can access a tile
//    (assignments, expression statements, returns): op_number();
//  * the memory map counts statements from 1, with no back-edge points, and
//    puts a header's reads at the statement before it (its loops are drawn
//    without an extra step, as the program text reads): map_number().
//
// An index describes the function it was built from. A pass that rewrites
// statements returns a new body, which needs a new index: built_from() tells
// (debug builds check it wherever a consumer is given a function too).
// Refining a variable's type in place (a new MemRef) keeps the index valid:
// it records variables, not their types.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/path_pool.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

class FunctionIndex {
 public:
  /// What takes a program point.
  enum class PointKind : std::uint8_t {
    op,        ///< an assignment, expression statement or return
    yield,     ///< a yield
    back_edge  ///< the end of a loop body
  };
  struct Point {
    const Stmt* stmt = nullptr;  ///< the statement, or the loop of a back edge
    PointKind kind = PointKind::op;
    bool in_loop = false;      ///< inside some loop body
    std::uint32_t region = 0;  ///< 0: top level; each if arm and loop body opens the next
  };
  /// Where a read or a definition sits.
  struct Site {
    const Var* var = nullptr;
    const Stmt* holder = nullptr;  ///< the innermost statement holding it (null: a parameter)
    StmtPath path;                 ///< its enclosing statements, outermost first
    Tick at = 0;                   ///< its point (see the numbering above)
  };
  struct Use : Site {
    bool attribute = false;  ///< in a for loop's keyword attributes
  };
  struct Def : Site {
    std::uint32_t uses_before = 0;  ///< reads recorded before it (the walk interleaves the two)
  };
  struct Loop {
    const Stmt* stmt = nullptr;  ///< the ForStmt or WhileStmt
    Tick first = 0;              ///< the first point of its body
    Tick back_edge = -1;         ///< its back-edge point; -1 when the body took no point
  };

  explicit FunctionIndex(const Function& f) : body_(f.body) {
    const std::size_t expected =
        f.params.size() + (f.body && f.body->is<SeqStmts>() ? f.body->as<SeqStmts>()->stmts.size() : 1);
    points_.reserve(expected + expected / 8);
    defs_.reserve(expected);
    def_of_.reserve(expected);
    uses_.reserve(2 * expected);  // about two reads per statement
    use_paths_.reserve(2 * expected);
    def_paths_.reserve(expected);
    pool_.reserve(expected);
    for (const auto& p : f.params) params_.push_back(p.var.get());
    Walk w{*this};
    w.visit_function(f);
    // The paths are final now: point every record at its own.
    for (std::size_t i = 0; i < uses_.size(); ++i) uses_[i].path = pool_[use_paths_[i]];
    for (std::size_t i = 0; i < defs_.size(); ++i) defs_[i].path = pool_[def_paths_[i]];
    use_paths_ = {};
    def_paths_ = {};
    op_before_.resize(points_.size() + 1);
    stmt_before_.resize(points_.size() + 1);
    for (std::size_t t = 0; t < points_.size(); ++t) {
      op_before_[t + 1] = op_before_[t] + (points_[t].kind == PointKind::op ? 1 : 0);
      stmt_before_[t + 1] = stmt_before_[t] + (points_[t].kind == PointKind::back_edge ? 0 : 1);
    }
  }
  FunctionIndex(const FunctionIndex&) = delete;  // its paths point into its own pool
  FunctionIndex& operator=(const FunctionIndex&) = delete;
  FunctionIndex(FunctionIndex&&) = default;  // (moving the pool keeps its entries where they are)

  /// Whether this index was built from `f` as it is now (a rewritten body is
  /// a new body; the index holds the body it was built from, so a new body
  /// never reuses its address).
  [[nodiscard]] bool built_from(const Function& f) const noexcept {
    if (f.body != body_ || f.params.size() != params_.size()) return false;
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (f.params[i].var.get() != params_[i]) return false;
    return true;
  }

  [[nodiscard]] const std::vector<Point>& points() const noexcept { return points_; }
  /// Every read, in walk order.
  [[nodiscard]] const std::vector<Use>& uses() const noexcept { return uses_; }
  /// Every definition, in walk order (parameters first); a variable defined
  /// twice has two.
  [[nodiscard]] const std::vector<Def>& defs() const noexcept { return defs_; }
  /// The first definition of `v`, or null (never defined in this function).
  [[nodiscard]] const Def* def(const Var* v) const {
    const std::uint32_t* i = def_of_.find(v);
    return i ? &defs_[*i] : nullptr;
  }
  /// Every loop, in the order their bodies end (inner loops first).
  [[nodiscard]] const std::vector<Loop>& loops() const noexcept { return loops_; }

  /// The access trace's number of point `t`: how many assignments,
  /// expression statements and returns come before it.
  [[nodiscard]] std::uint64_t op_number(Tick t) const noexcept {
    return static_cast<std::uint64_t>(op_before_[static_cast<std::size_t>(t)]);
  }
  /// The memory map's number of a site: statements (not back edges) counted
  /// from 1; a site in a statement without a point of its own gets the
  /// number of the statement before it (0 before the first).
  [[nodiscard]] Tick map_number(const Site& s) const noexcept {
    const Tick before = stmt_before_[static_cast<std::size_t>(s.at)];
    return s.holder && takes_point(*s.holder) ? before + 1 : before;
  }
  /// The memory map's [first, last] statement numbers of a loop's body
  /// (first > last when the body has no statement taking a point).
  [[nodiscard]] std::pair<Tick, Tick> map_range(const Loop& l) const noexcept {
    const Tick start = stmt_before_[static_cast<std::size_t>(l.first)] + 1;
    const Tick end = stmt_before_[static_cast<std::size_t>(l.back_edge >= 0 ? l.back_edge : l.first)];
    return {start, end};
  }
  /// The points used (the next free point).
  [[nodiscard]] Tick point_count() const noexcept { return static_cast<Tick>(points_.size()); }
  /// The memory map's statement count.
  [[nodiscard]] Tick map_count() const noexcept { return stmt_before_.back(); }

  [[nodiscard]] static bool takes_point(const Stmt& s) noexcept {
    return s.is<AssignStmt>() || s.is<EvalStmt>() || s.is<YieldStmt>() || s.is<ReturnStmt>();
  }

 private:
  /// The walk: IRWalker's order, holders and paths (a read in a loop header
  /// or an if condition is held by that statement, a while's condition
  /// inside the loop's path).
  struct Walk : IRWalker<Walk> {
    FunctionIndex& out;
    std::vector<PathEntry> path{};
    const Stmt* holder = nullptr;
    Tick here = 0;  // the point of what is visited now
    std::uint32_t region = 0, next_region = 1;
    bool in_loop = false, in_attrs = false;
    PathPool::Handle here_path{};
    bool dirty = true;  // the path changed since `here_path` was interned

    explicit Walk(FunctionIndex& o) : out(o) {}

    PathPool::Handle current_path() {
      if (dirty) here_path = out.pool_.intern(path), dirty = false;
      return here_path;
    }
    void enter_child(const Stmt& s, std::size_t child) {
      path.push_back({&s, child});
      dirty = true;
    }
    void leave_child(const Stmt&) {
      path.pop_back();
      dirty = true;
    }
    Tick take(const Stmt* s, PointKind k) {
      out.points_.push_back(Point{s, k, in_loop, region});
      return static_cast<Tick>(out.points_.size() - 1);
    }

    void visit_stmt(const StmtPtr& sp) {
      if (!sp) return;
      const Stmt* s = sp.get();
      const Stmt* before = holder;
      holder = s;
      if (takes_point(*s)) {
        here = take(s, s->is<YieldStmt>() ? PointKind::yield : PointKind::op);
        IRWalker<Walk>::visit_stmt(sp);
        here = out.point_count();
      } else {
        IRWalker<Walk>::visit_stmt(sp);
      }
      holder = before;
    }
    void visit_for(const ForStmt& s) {
      visit_expr(s.start);
      visit_expr(s.stop);
      visit_expr(s.step);
      for (const auto& ia : s.iter_args) visit_expr(ia.init);
      in_attrs = true;
      for (const auto& kw : s.attrs) visit_expr(kw.value);
      in_attrs = false;
      visit_var_def(s.loop_var);
      for (const auto& ia : s.iter_args) visit_var_def(ia.var);
      body(s, nullptr, s.body);
      for (const auto& rv : s.return_vars) visit_var_def(rv);
    }
    void visit_while(const WhileStmt& s) {
      for (const auto& ia : s.iter_args) visit_expr(ia.init);
      for (const auto& ia : s.iter_args) visit_var_def(ia.var);
      body(s, &s.condition, s.body);
      for (const auto& rv : s.return_vars) visit_var_def(rv);
    }
    /// A loop body: a fresh region, in a loop; its back edge is taken when
    /// the body took a point, before the return vars are defined.
    void body(const Stmt& s, const ExprPtr* condition, const StmtPtr& b) {
      const std::uint32_t outer = region;
      const bool outer_in_loop = in_loop;
      region = next_region++;
      in_loop = true;
      Loop l{&s, out.point_count(), -1};
      enter_child(s, 0);
      if (condition) visit_expr(*condition);
      visit_stmt(b);
      leave_child(s);
      if (out.point_count() > l.first) l.back_edge = take(&s, PointKind::back_edge);
      out.loops_.push_back(l);
      region = outer;
      in_loop = outer_in_loop;
      here = out.point_count();
    }

    void visit_if(const IfStmt& s) {
      visit_expr(s.condition);
      const std::uint32_t outer = region;
      for (std::size_t arm = 0; arm < 2; ++arm) {
        region = next_region++;
        enter_child(s, arm);
        visit_stmt(arm == 0 ? s.then_body : s.else_body);
        leave_child(s);
      }
      region = outer;
      for (const auto& rv : s.return_vars) visit_var_def(rv);
    }
    void visit_var_use(const VarPtr& v) {
      if (!v) return;
      Use u;
      u.var = v.get();
      u.holder = holder;
      u.at = here;
      u.attribute = in_attrs;
      out.uses_.push_back(u);
      out.use_paths_.push_back(current_path());
    }
    void visit_var_def(const VarPtr& v) {
      if (!v) return;
      Def d;
      d.var = v.get();
      d.holder = holder;
      d.at = here;
      d.uses_before = static_cast<std::uint32_t>(out.uses_.size());
      out.def_of_.try_emplace(v.get(), static_cast<std::uint32_t>(out.defs_.size()));
      out.defs_.push_back(d);
      out.def_paths_.push_back(current_path());
    }
  };

  StmtPtr body_;
  std::vector<const Var*> params_;
  std::vector<Point> points_;
  std::vector<Use> uses_;
  std::vector<Def> defs_;
  std::vector<Loop> loops_;
  PointerMap<const Var*, std::uint32_t> def_of_;
  PathPool pool_;
  std::vector<PathPool::Handle> use_paths_, def_paths_;  // while building
  std::vector<Tick> op_before_, stmt_before_;            // prefix counts over the points
};

/// The index of the function a pass is working on, shared by the steps that
/// read it: built again only when the body changed since (a step that adds
/// or replaces statements), so consecutive steps that only move values
/// between windows share one walk.
class FunctionIndexCache {
 public:
  [[nodiscard]] std::shared_ptr<const FunctionIndex> of(const Function& f) {
    if (!index_ || !index_->built_from(f)) index_ = std::make_shared<const FunctionIndex>(f);
    return index_;
  }

 private:
  std::shared_ptr<const FunctionIndex> index_;
};

}  // namespace pto_mem::pypto::passes
