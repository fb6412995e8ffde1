// Property test: random post-InitMemRef kernels (loads, vector ops, views,
// in-place ops, stores, if-phis, loop carries) run through MaterializeSemantic-
// Aliases, MemoryReuse and AllocateMemoryAddr under each planner, then an
// abstract interpreter that knows nothing of the passes executes the result:
// every write stamps a fresh tag on the bytes of its MemRef window, every read
// checks that the window still holds the tag of the value it reads. A value
// overwritten while still live, a loop carry or phi living in the wrong
// buffer, or an op writing a buffer it may not read from, fails the test.
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "pass_facts.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "storage_interpreter.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using namespace pto_mem::test;

namespace {

// ---- the generator ----------------------------------------------------------------------

struct Shape {
  std::int64_t rows, cols;
  [[nodiscard]] Addr bytes() const { return static_cast<Addr>(rows * cols * 4); }
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed, bool ifs = true) : rng_(seed), ifs_(ifs) {}

  Program make() {
    FunctionBuilder fb("kernel");
    x_ = fb.param("x", tensor_type({64, 64}, DataType::FP32,
                                   make_memref(make_var("mem_ddr_0", ptr_type()), int_imm(0), 16384)));
    cond_ = fb.param("c", scalar_type(DataType::INDEX));
    out_ = fb.param("o",
                    tensor_type({64, 64}, DataType::FP32,
                                make_memref(make_var("mem_ddr_1", ptr_type()), int_imm(0), 16384)),
                    ParamDirection::Out);
    fb_ = &fb;
    scopes_.push_back({});
    const int n = pick(6, 24);
    for (int i = 0; i < n; ++i) statement(0);
    fb.ret({out_});
    Function f = fb.build();
    // InitMemRef prepends the allocs.
    auto* s = f.body->as<SeqStmts>();
    std::vector<StmtPtr> body = allocs_;
    body.insert(body.end(), s->stmts.begin(), s->stmts.end());
    f.body = seq(std::move(body));
    Program p;
    p.functions.push_back(std::move(f));
    return p;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  std::vector<VarPtr>& live() { return scopes_.back(); }
  std::vector<VarPtr> visible() const {
    std::vector<VarPtr> out;
    for (const auto& s : scopes_) out.insert(out.end(), s.begin(), s.end());
    return out;
  }
  VarPtr any() {
    auto v = visible();
    if (v.empty()) return nullptr;
    return v[static_cast<std::size_t>(pick(0, static_cast<int>(v.size()) - 1))];
  }
  void retire(const VarPtr& v) {
    for (auto& s : scopes_) s.erase(std::remove(s.begin(), s.end(), v), s.end());
  }

  /// v's buffer holds no value of an enclosing block.
  bool own_buffer(const VarPtr& v) const {
    for (std::size_t k = 0; k + 1 < scopes_.size(); ++k)
      for (const auto& w : scopes_[k])
        if (passes::var_base(w) == passes::var_base(v)) return false;
    return true;
  }

  /// Every visible value on v's buffer is dead from here on.
  void retire_buffer(const VarPtr& v) {
    const Var* b = passes::var_base(v);
    for (const auto& w : visible())
      if (passes::var_base(w) == b) retire(w);
  }

  TypePtr fresh(const Shape& s) {
    auto base = make_var("mem_vec_" + std::to_string(next_id_++), ptr_type());
    allocs_.push_back(alloc(base, MemorySpace::Vec, s.bytes()));
    return tile_type({s.rows, s.cols}, DataType::FP32, MemorySpace::Vec,
                     make_memref(base, int_imm(0), s.bytes()));
  }
  static Shape shape_of_var(const VarPtr& v) {
    const auto* t = as_tile(v->type);
    return {*as_const_int(t->shape[0]), *as_const_int(t->shape[1])};
  }
  std::string name() { return "t" + std::to_string(next_name_++); }

  VarPtr define(TypePtr type, ExprPtr value) {
    auto v = fb_->let(name(), std::move(type), value);
    live().push_back(v);
    return v;
  }

  VarPtr load() {
    static const Shape shapes[] = {{16, 16}, {32, 16}, {16, 64}};
    const Shape s = shapes[pick(0, 2)];
    return define(fresh(s),
                  op("tile.load", {x_, {0, 0}, {s.rows, s.cols}}, {{"target_memory", MemorySpace::Vec}}));
  }

  void statement(int depth) {
    VarPtr a = any();
    if (!a) {
      load();
      return;
    }
    const int k = pick(0, depth < 2 ? 11 : 8);
    switch (k) {
      case 0:
      case 1: load(); break;
      case 2: {
        static const char* unary[] = {"tile.exp", "tile.recip", "tile.abs"};
        define(fresh(shape_of_var(a)), op(unary[pick(0, 2)], {a}));
        break;
      }
      case 3:
        define(fresh(shape_of_var(a)), op("tile.move", {a}, {{"target_memory", MemorySpace::Vec}}));
        break;
      case 4: {
        VarPtr b = any();
        static const char* binary[] = {"tile.add", "tile.mul", "tile.maximum"};
        define(fresh(shape_of_var(a)), op(binary[pick(0, 2)], {a, b}));
        break;
      }
      case 5: {  // a whole view: the very same MemRef
        define(a->type, op("tile.reshape", {a, {shape_of_var(a).rows, shape_of_var(a).cols}}));
        break;
      }
      case 6: {  // the lower half of a root tile: a window at an offset
        const auto* t = as_tile(a->type);
        if (!t->memref->const_offset() || *t->memref->const_offset() != 0 ||
            t->memref->size != shape_of_var(a).bytes())
          break;
        const Shape s = shape_of_var(a);
        const Shape half{s.rows / 2, s.cols};
        auto m = make_memref(t->memref->base, int_imm(static_cast<std::int64_t>(half.bytes())), half.bytes());
        define(tile_type({half.rows, half.cols}, DataType::FP32, MemorySpace::Vec, m),
               op("tile.slice", {a, {half.rows, half.cols}, {half.rows, 0}}));
        break;
      }
      case 7: {  // in place: the input is dead afterwards
        // Only on a whole window of this block's own buffer: overwriting a
        // value from an enclosing block would change it for the next loop
        // iteration or the other if-arm.
        a = live().empty() ? nullptr : live().back();
        if (!a || as_tile(a->type)->memref->size != shape_of_var(a).bytes() || !own_buffer(a)) break;
        retire_buffer(a);  // the input and its views are overwritten
        define(a->type, op("tile.fillpad_inplace", {a}));
        break;
      }
      case 8: fb_->let(name(), out_->type, op("tile.store", {a, {0, 0}, out_})); break;
      case 9:
      case 10:
        if (ifs_) branch(depth);
        break;
      case 11: loop(depth); break;
      default: break;
    }
  }

  void branch(int depth) {
    VarPtr outside = any();
    // The then value may be a value of this block from before the if: the
    // phi then lives in its buffer (the else arm's value is moved there), so
    // that value is dead after the if, like a loop init.
    VarPtr then_outside;
    if (coin(0.3))
      for (const auto& v : live())
        if (own_buffer(v) && as_tile(v->type)->memref->size == shape_of_var(v).bytes()) then_outside = v;
    fb_->begin_if(lt(var_ref(cond_), int_imm(1)));
    scopes_.push_back({});
    VarPtr t;
    if (then_outside) {
      t = then_outside;
    } else {
      for (int i = pick(0, 2); i > 0; --i) statement(depth + 1);
      VarPtr a = any();
      t = define(fresh(shape_of_var(a)), op("tile.add", {a, a}));
    }
    fb_->yield({t});
    scopes_.pop_back();
    fb_->begin_else();
    scopes_.push_back({});
    VarPtr e;
    if (coin() || !outside || outside == then_outside ||
        shape_of_var(outside).bytes() != shape_of_var(t).bytes()) {
      for (int i = pick(0, 2); i > 0; --i) statement(depth + 1);
      VarPtr b = any();
      e = define(fresh(shape_of_var(t)), op("tile.exp", {b}));
    } else {
      e = outside;  // a value from before the if: YieldFixup moves it
    }
    fb_->yield({e});
    scopes_.pop_back();
    auto phis = fb_->end_if({name()});
    if (then_outside) retire_buffer(then_outside);
    live().push_back(phis[0]);
  }

  void loop(int depth) {
    // The init's buffer becomes the carried buffer (InitMemRef): like an
    // in-place input, it must belong to this block (a value from an enclosing
    // loop would be needed again by that loop's next iteration).
    VarPtr init;
    for (const auto& v : live())
      if (own_buffer(v)) init = v;
    if (!init) {
      load();
      return;
    }
    // The init's buffer is the carried buffer (InitMemRef): the init and
    // everything on its buffer are not read again once the loop starts.
    retire_buffer(init);
    const std::string ia = name();
    auto l = fb_->begin_for("i" + std::to_string(next_name_), 0, 3, 1, {{ia, init}});
    scopes_.push_back({l.iter_args[0]});
    for (int i = pick(1, 4); i > 0; --i) statement(depth + 1);
    // Yield something of the carry's shape, fresh or from the body.
    std::vector<VarPtr> same;
    for (const auto& v : live())
      if (shape_of_var(v).bytes() == shape_of_var(init).bytes()) same.push_back(v);
    VarPtr y;
    if (same.empty() || coin(0.3)) {
      VarPtr a = any();
      y = define(fresh(shape_of_var(init)), op("tile.add", {a, any()}));
    } else {
      y = same[static_cast<std::size_t>(pick(0, static_cast<int>(same.size()) - 1))];
    }
    scopes_.pop_back();
    auto rv = fb_->end_for({y}, {name()});
    live().push_back(rv[0]);
  }

  std::mt19937_64 rng_;
  bool ifs_ = true;
  FunctionBuilder* fb_ = nullptr;
  VarPtr x_, cond_, out_;
  std::vector<std::vector<VarPtr>> scopes_;
  std::vector<StmtPtr> allocs_;
  int next_id_ = 2;
  int next_name_ = 0;
};

// ---- the interpreter ----------------------------------------------------------------------

class Interpreter {
 public:
  Interpreter(const Function& f, std::uint64_t seed) : f_(f), rng_(seed) {}

  /// Empty when every read found its value; otherwise what went wrong first.
  std::string run() {
    exec(f_.body);
    return error_;
  }

 private:
  struct Window {
    MemorySpace space;
    Addr begin, end;
  };

  std::optional<Window> window(const VarPtr& v) {
    const auto* t = as_tile(v->type);
    if (!t || !t->memref || !t->space || *t->space == MemorySpace::DDR) return std::nullopt;
    auto at = t->memref->const_offset();
    if (!at) {
      fail("'" + v->name + "' has no constant address");
      return std::nullopt;
    }
    return Window{*t->space, static_cast<Addr>(*at), static_cast<Addr>(*at) + t->memref->size};
  }

  void fail(std::string m) {
    if (error_.empty()) error_ = std::move(m);
  }

  void write(const Window& w, std::uint64_t tag) {
    auto& mem = memory_[w.space];
    for (Addr a = w.begin; a < w.end; a += 32) mem[a] = tag;  // 32-byte granules: every window is aligned
  }
  void check(const VarPtr& v) {
    auto w = window(v);
    auto tag = tags_.find(v.get());
    if (!w || tag == tags_.end()) return;
    auto& mem = memory_[w->space];
    for (Addr a = w->begin; a < w->end; a += 32) {
      auto it = mem.find(a);
      if (it == mem.end() || it->second != tag->second) {
        fail("'" + v->name + "' was overwritten before this read (byte " + std::to_string(a) + " of " +
             std::string(to_string(w->space)) + ")");
        return;
      }
    }
  }

  void exec(const StmtPtr& s) {
    if (!s || !error_.empty()) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const auto& c : s->as<SeqStmts>()->stmts) exec(c);
        break;
      case StmtKind::Assign: assign(*s->as<AssignStmt>()); break;
      case StmtKind::Return:
        for (const auto& v : s->as<ReturnStmt>()->values)
          if (auto x = as_var(v)) check(x);
        break;
      case StmtKind::If: {
        const auto* i = s->as<IfStmt>();
        const StmtPtr& arm = std::bernoulli_distribution(0.5)(rng_) ? i->then_body : i->else_body;
        exec(arm);
        const auto* y = terminating_yield(arm);
        for (std::size_t k = 0; y && k < i->return_vars.size(); ++k) bind(i->return_vars[k], y->values[k]);
        break;
      }
      case StmtKind::For: {
        const auto* l = s->as<ForStmt>();
        for (const auto& ia : l->iter_args) bind(ia.var, ia.init);
        const auto* y = terminating_yield(l->body);
        for (int it = 0; it < 3 && error_.empty(); ++it) {
          exec(l->body);
          for (std::size_t k = 0; y && k < l->iter_args.size(); ++k) bind(l->iter_args[k].var, y->values[k]);
        }
        for (std::size_t k = 0; k < l->return_vars.size(); ++k)
          bind(l->return_vars[k], var_ref(l->iter_args[k].var));
        break;
      }
      default: break;
    }
  }

  /// `v` now stands for the value `e` holds (a yield, an init, a phi).
  void bind(const VarPtr& v, const ExprPtr& e) {
    auto src = as_var(e);
    if (!src) return;
    if (auto it = tags_.find(src.get()); it != tags_.end()) tags_[v.get()] = it->second;
  }

  void assign(const AssignStmt& a) {
    const Call* c = a.value ? a.value->as<Call>() : nullptr;
    if (!c) {
      if (auto src = as_var(a.value)) {
        check(src);
        bind(a.var, a.value);
      }
      return;
    }
    for (const auto& arg : c->args)
      if (auto v = as_var(arg)) check(v);
    if (!as_tile(a.var->type)) return;                       // a store: nothing on chip is written
    if (c->op == "tile.reshape" || c->op == "tile.slice") {  // views write nothing
      bind(a.var, c->args[0]);
      return;
    }
    auto w = window(a.var);
    if (!w) return;
    if (c->op == "tile.recip" || c->op == "tile.move")  // not in-place safe: may not write what they read
      for (const auto& arg : c->args)
        if (auto v = as_var(arg))
          if (auto r = window(v); r && r->space == w->space && r->begin < w->end && w->begin < r->end)
            fail("'" + a.var->name + "' = " + c->op + " writes over its input '" + v->name + "'");
    const std::uint64_t tag = next_tag_++;
    write(*w, tag);
    tags_[a.var.get()] = tag;
  }

  const Function& f_;
  std::mt19937_64 rng_;
  std::map<MemorySpace, std::map<Addr, std::uint64_t>> memory_;
  std::map<const Var*, std::uint64_t> tags_;
  std::uint64_t next_tag_ = 1;
  std::string error_;
};

void check_program(std::uint64_t seed, Planner planner, const char* passes, const char* soc,
                   bool ifs = true) {
  Generator g(seed, ifs);
  PassRun r;
  r.program = g.make();
  const std::string before = print(r.program);
  r.soc = *soc_by_name(soc);
  r.ctx.planner = planner;
  run_passes(r, passes);
  INFO("seed " << seed << " planner " << to_string(planner) << "\n"
               << before << "\nafter:\n"
               << print(r.program) << dump(r.ctx.diagnostics));
  REQUIRE(r.ok());
  // The result re-parses (the printer and parser agree on what the passes built).
  CHECK(parse_program(print(r.program)).ok());
  for (std::uint64_t run = 0; run < 4; ++run) {
    Interpreter in(r.program.functions.front(), seed * 7 + run);
    const std::string why = in.run();
    INFO("run " << run);
    CHECK(why.empty());
    if (!why.empty()) MESSAGE(why);
  }
}

}  // namespace

TEST_CASE("property: every value survives until its last read (PYPTO: alias, reuse, sequential)") {
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    check_program(seed, Planner::pypto, "alias+reuse+alloc", "none");
}

TEST_CASE("property: every value survives until its last read (DSA_RP: alias, canonical greedy)") {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) check_program(seed, Planner::dsa_rp, "alias+alloc", "a5");
}

TEST_CASE("property: PTOAS loop fix-ups, then the sequential policy (no if-phis: ptoas reconciles those)") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed)
    check_program(seed, Planner::ptoas, "alias+alloc", "a2a3", false);
}

// ---- random kernels as source text, through the whole pipeline ----------------------------
//
// Patterns that once broke the storage passes: initial values read inside and after their loops,
// carries swapped, rotated, yielded unchanged or starting from one value,
// phis of phis and phis yielding one value twice, views of carries,
// multi-slot declared allocations (init on slot 0, yield on slot 1), values
// defined last in a body and never read, in-place ops on values read again,
// loops of 0, 1, 2 or 3 trips nested
// in loops and branches, and a peeled Acc accumulator loop. Each kernel is
// compiled under the three planners and run by the byte-window interpreter.

namespace {

class KernelText {
 public:
  explicit KernelText(std::uint64_t seed) : rng_(seed) {}

  std::string make() {
    out_ =
        "@function(type=InCore)\n"
        "def main(x: Tensor[[64, 64], FP32], lhs: Tensor[[16, 16], BF16], rhs: Tensor[[16, 16], BF16],\n"
        "         f: Scalar[INDEX], o: Out[Tensor[[64, 64], FP32]],\n"
        "         ao: Out[Tensor[[16, 16], FP32]]) -> tuple[Tensor[[64, 64], FP32], Tensor[[16, 16], "
        "FP32]]:\n";
    scopes_.push_back({});
    indent_ = 1;
    const int n = pick(4, 14);
    for (int i = 0; i < n; ++i) statement(0);
    const std::string acc = coin(0.35) ? accumulator() : std::string{};
    const Val last = any(0);
    const std::string r = name("r");
    line(r + ": Tensor[[64, 64], FP32] = tile.store(" + last.name + ", [0, 0], o)");
    line("return " + r + ", " + (acc.empty() ? std::string("ao") : acc));
    return out_;
  }

 private:
  struct Val {
    std::string name;
    int shape = 0;  // 0: [16, 16], 1: [8, 16]
  };

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
  std::string name(const char* p) { return p + std::to_string(next_++); }
  static std::string type(int shape) {
    return shape == 0 ? "Tile[[16, 16], FP32, Vec]" : "Tile[[8, 16], FP32, Vec]";
  }
  void line(const std::string& l) {
    out_ += std::string(static_cast<std::size_t>(4 * indent_), ' ') + l + "\n";
  }

  std::vector<Val> visible(int shape) const {
    std::vector<Val> v;
    for (const auto& s : scopes_)
      for (const auto& x : s)
        if (x.shape == shape) v.push_back(x);
    return v;
  }
  /// A visible value of `shape` (a fresh load when there is none).
  Val any(int shape) {
    auto v = visible(shape);
    if (v.empty()) return shape == 0 ? load() : slice(load());
    // Favour recent values a little.
    const int n = static_cast<int>(v.size());
    return v[static_cast<std::size_t>(coin(0.5) ? pick(std::max(0, n - 3), n - 1) : pick(0, n - 1))];
  }
  Val def(const std::string& n, int shape, const std::string& rhs, const std::string& ty = {}) {
    line(n + ": " + (ty.empty() ? type(shape) : ty) + " = " + rhs);
    scopes_.back().push_back({n, shape});
    return scopes_.back().back();
  }

  Val load() {
    const std::string n = name("l");
    std::string ty;
    if (declared_ < 4 && coin(0.15)) {  // each slot of d0, d1 bound once
      ty = "Tile[[16, 16], FP32, MemRef(\"d" + std::to_string(declared_ / 2) + "\", slots=2)[" +
           std::to_string(declared_ % 2) + "], Vec]";
      ++declared_;
    }
    return def(n, 0, "tile.load(x, [0, 0], [16, 16], target_memory=Vec)", ty);
  }
  Val slice(const Val& a) { return def(name("v"), 1, "tile.slice(" + a.name + ", [8, 16], [8, 0])"); }

  void statement(int depth) {
    const int shape = coin(0.8) ? 0 : 1;
    switch (pick(0, depth < 3 ? 12 : 8)) {
      case 0: load(); break;
      case 1: {
        static const char* ops[] = {"tile.exp", "tile.abs", "tile.recip"};
        const Val a = any(shape);
        def(name("u"), shape, std::string(ops[pick(0, 2)]) + "(" + a.name + ")");
        break;
      }
      case 2:
      case 3: {
        static const char* ops[] = {"tile.add", "tile.mul", "tile.sub", "tile.maximum"};
        const Val a = any(shape), b = any(shape);
        def(name("b"), shape, std::string(ops[pick(0, 3)]) + "(" + a.name + ", " + b.name + ")");
        break;
      }
      case 4: {
        const Val a = any(shape);
        def(name("m"), shape, "tile.move(" + a.name + ", target_memory=Vec)");
        break;
      }
      case 5: {
        const Val a = any(0);
        if (coin())
          def(name("w"), 0, "tile.reshape(" + a.name + ", [16, 16])");
        else
          slice(a);
        break;
      }
      case 6: {
        const Val a = any(shape);
        line(name("s") + ": Tensor[[64, 64], FP32] = tile.store(" + a.name + ", [0, 0], o)");
        break;
      }
      case 7: {  // in place, also on a value read again later
        const Val a = any(0);
        def(name("q"), 0, "tile.fillpad_inplace(" + a.name + ")");
        break;
      }
      case 8: load(); break;
      case 9:
      case 10: branch(depth); break;
      default: loop(depth); break;
    }
  }

  /// An arm's yielded value of `shape`: from before the if, from the arm, or fresh.
  Val arm_value(int shape) {
    if (coin(0.3)) {
      const Val a = any(shape);
      return def(name("e"), shape, "tile.exp(" + a.name + ")");
    }
    return any(shape);
  }

  void branch(int depth) {
    const int n = pick(1, 2);
    std::vector<int> shapes;
    for (int k = 0; k < n; ++k) shapes.push_back(coin(0.85) ? 0 : 1);
    std::vector<std::string> phis;
    for (int k = 0; k < n; ++k) phis.push_back(name("p"));
    line("if f < " + std::to_string(pick(0, 2)) + ":");
    for (int arm = 0; arm < 2; ++arm) {
      if (arm == 1) {
        --indent_;
        line("else:");
      }
      ++indent_;
      scopes_.push_back({});
      for (int i = pick(0, 2); i > 0; --i) statement(depth + 1);
      std::vector<Val> ys;
      for (int k = 0; k < n; ++k) {
        if (k > 0 && shapes[k] == shapes[0] && coin(0.25))
          ys.push_back(ys[0]);  // one value twice
        else
          ys.push_back(arm_value(shapes[static_cast<std::size_t>(k)]));
      }
      std::string ns, vs;
      for (int k = 0; k < n; ++k) {
        vs += (k ? ", " : "") + ys[static_cast<std::size_t>(k)].name;
      }
      scopes_.pop_back();
      for (int k = 0; k < n; ++k) ns += (k ? ", " : "") + phis[static_cast<std::size_t>(k)];
      line(ns + " = yield_(" + vs + ")");
    }
    --indent_;
    for (int k = 0; k < n; ++k)
      scopes_.back().push_back({phis[static_cast<std::size_t>(k)], shapes[static_cast<std::size_t>(k)]});
  }

  void loop(int depth) {
    const int n = pick(1, 3);
    std::vector<Val> inits;
    for (int k = 0; k < n; ++k) inits.push_back(k > 0 && coin(0.2) ? inits[0] : any(0));
    std::vector<std::string> ias, rvs;
    for (int k = 0; k < n; ++k) {
      ias.push_back(name("c"));
      rvs.push_back(name("o"));
    }
    std::string ia_list, init_list;
    for (int k = 0; k < n; ++k) {
      ia_list += (k ? ", " : "") + ias[static_cast<std::size_t>(k)];
      init_list += (k ? ", " : "") + inits[static_cast<std::size_t>(k)].name;
    }
    line("for " + name("i") + ", (" + ia_list + (n == 1 ? ",)" : ")") + " in range(" +
         std::to_string(pick(0, 3)) + ", init_values=(" + init_list + (n == 1 ? ",))" : "))") + ":");
    ++indent_;
    scopes_.push_back({});
    for (const auto& c : ias) scopes_.back().push_back({c, 0});
    for (int i = pick(0, 3); i > 0; --i) statement(depth + 1);
    std::string ys;
    for (int k = 0; k < n; ++k) {
      std::string y;
      const int how = pick(0, 4);
      if (how == 0)
        y = ias[static_cast<std::size_t>((k + 1) % n)];  // rotation / swap
      else if (how == 1)
        y = ias[static_cast<std::size_t>(k)];  // unchanged
      else if (how == 2)
        y = def(name("n"), 0, "tile.add(" + ias[static_cast<std::size_t>(k)] + ", " + any(0).name + ")").name;
      else
        y = any(0).name;  // a body value or one from outside (an init, too)
      ys += (k ? ", " : "") + y;
    }
    scopes_.pop_back();
    std::string rv_list;
    for (int k = 0; k < n; ++k) rv_list += (k ? ", " : "") + rvs[static_cast<std::size_t>(k)];
    line(rv_list + " = yield_(" + ys + ")");
    --indent_;
    for (const auto& r : rvs) scopes_.back().push_back({r, 0});
  }

  /// A peeled Acc accumulator loop; returns the stored tensor's name.
  std::string accumulator() {
    line("sa: Tile[[16, 16], BF16, Mat] = tile.load(lhs, [0, 0], [16, 16], target_memory=Mat)");
    line("sb: Tile[[16, 16], BF16, Mat] = tile.load(rhs, [0, 0], [16, 16], target_memory=Mat)");
    line("la: Tile[[16, 16], BF16, Left] = tile.move(sa, target_memory=Left)");
    line("rb: Tile[[16, 16], BF16, Right] = tile.move(sb, target_memory=Right)");
    line("c0: Tile[[16, 16], FP32, Acc] = tile.matmul(la, rb)");
    line("for k, (acc,) in range(" + std::to_string(pick(0, 3)) + ", init_values=(c0,)):");
    ++indent_;
    if (coin()) {
      line("if k < 1:");
      line("    s: Tile[[16, 16], FP32, Acc] = tile.matmul(la, rb)");
      line("    ph = yield_(s)");
      line("else:");
      line("    m: Tile[[16, 16], FP32, Acc] = tile.matmul_acc(acc, la, rb)");
      line("    ph = yield_(m)");
      line("res = yield_(ph)");
    } else {
      line("m: Tile[[16, 16], FP32, Acc] = tile.matmul_acc(acc, la, rb)");
      line("res = yield_(m)");
    }
    --indent_;
    line("st: Tensor[[16, 16], FP32] = tile.store(res, [0, 0], ao)");
    return "st";
  }

  std::mt19937_64 rng_;
  std::string out_;
  int indent_ = 1;
  int next_ = 0;
  int declared_ = 0;
  std::vector<std::vector<Val>> scopes_;
};

/// Compiles `text` under `planner` and runs the interpreter `runs` times.
void check_source(const std::string& text, const std::string& what, Planner planner, std::uint64_t seed,
                  int runs = 4) {
  CompileOptions o;
  o.planner = planner;
  const CompileResult r = compile_source(text, what, o);
  INFO(what << " planner " << to_string(planner) << "\n"
            << text << "\nafter:\n"
            << print(r.program) << dump(r.diagnostics));
  REQUIRE(r.ok());
  for (int run = 0; run < runs; ++run) {
    for (const auto& f : r.program.functions) {
      StorageInterpreter::Options io;
      io.addresses_assigned = r.addresses_assigned;
      io.seed = seed * 31 + static_cast<std::uint64_t>(run);
      io.soc = "a2a3";
      const std::string why = StorageInterpreter(f, io).run();
      INFO("run " << run);
      CHECK_MESSAGE(why.empty(), why);
      if (!why.empty()) return;
    }
  }
}

}  // namespace

TEST_CASE(
    "property: random source kernels compute their values under every planner (byte-window interpreter)") {
  const char* env = std::getenv("PTO_MEM_PROPERTY_SEEDS");
  const std::uint64_t n = env ? std::strtoull(env, nullptr, 10) : 150;
  for (std::uint64_t seed = 1; seed <= n; ++seed) {
    const std::string text = KernelText(seed).make();
    for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
      check_source(text, "kernel_" + std::to_string(seed) + ".pto", p, seed);
  }
}

TEST_CASE("storage reproducers: every planner's program computes its values") {
  const auto files = pto_files(std::string(PTO_MEM_SOURCE_DIR) + "/tests/pypto/cases");
  std::size_t seen = 0;
  for (const auto& path : files) {
    if (path.find("/storage_") == std::string::npos) continue;
    ++seen;
    const std::string text = read_text(path);
    const pypto::CaseHeader h = pypto::parse_case_header(text);
    bool refused = false;
    for (const auto& e : h.expects) refused |= e.kind == "error";
    for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas}) {
      if (refused) {  // refused under every planner, with the error naming the value
        CompileOptions o;
        o.planner = p;
        const CompileResult r = compile_source(program_text(text), path, o);
        INFO(path << " " << to_string(p) << dump(r.diagnostics));
        CHECK_FALSE(r.ok());
        continue;
      }
      check_source(program_text(text), path, p, 1, 8);
    }
  }
  CHECK(seen >= 9);
}
