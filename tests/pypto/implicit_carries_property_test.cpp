// Property: a random scalar program written as PyPTO's DSL writes it (names
// re-bound in loop bodies and if arms, nested to depth 3, zero-trip loops
// included) computes, after the parser made its carries and phis explicit,
// what the same program computes under Python's rules (one mutable variable
// per name). The source is run by a direct interpreter of the generated
// statements, the IR by an SSA interpreter of iter-args, yields and return
// vars; the printed explicit form must re-parse strictly and compute the same.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

// ---- generated source and its Python meaning ------------------------------------------
struct GStmt {
  enum class Kind { assign, loop, branch } kind = Kind::assign;
  std::string target, lhs, rhs;  // assign: target = lhs + rhs + k;  branch: if lhs < k
  std::int64_t k = 0;
  std::string loop_var;  // loop: for loop_var in range(k)
  std::vector<GStmt> body, other;
  bool has_else = false;
};

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  std::vector<GStmt> block(std::vector<std::string> visible, int depth) {
    std::vector<GStmt> out;
    const int n = 1 + pick(3);
    for (int i = 0; i < n; ++i) {
      const int what = depth >= 3 ? 0 : pick(5);
      GStmt s;
      if (what <= 2) {
        s.kind = GStmt::Kind::assign;
        s.lhs = visible[pick(static_cast<int>(visible.size()))];
        s.rhs = visible[pick(static_cast<int>(visible.size()))];
        s.k = pick(5);
        // Re-bind a variable of the pool, or define a temporary of this block.
        if (pick(3) == 0) {
          s.target = "t" + std::to_string(depth) + "_" + std::to_string(pick(2));
          bool seen = false;
          for (const auto& v : visible) seen |= v == s.target;
          if (!seen) visible.push_back(s.target);
        } else {
          s.target = pool[pick(4)];
        }
      } else if (what == 3) {
        s.kind = GStmt::Kind::loop;
        s.loop_var = "i" + std::to_string(depth);
        s.k = pick(4);  // 0 .. 3 trips
        auto inner = visible;
        inner.push_back(s.loop_var);
        s.body = block(inner, depth + 1);
      } else {
        s.kind = GStmt::Kind::branch;
        s.lhs = visible[pick(static_cast<int>(visible.size()))];
        s.k = pick(12);
        s.body = block(visible, depth + 1);
        s.has_else = pick(2) == 0;
        if (s.has_else) s.other = block(visible, depth + 1);
      }
      out.push_back(std::move(s));
    }
    return out;
  }
  static constexpr const char* pool[4] = {"a", "b", "c", "d"};

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  std::mt19937_64 rng_;
};

void write(const std::vector<GStmt>& b, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (const auto& s : b) {
    switch (s.kind) {
      case GStmt::Kind::assign:
        out += pad + s.target + " = " + s.lhs + " + " + s.rhs + " + " + std::to_string(s.k) + "\n";
        break;
      case GStmt::Kind::loop:
        out += pad + "for " + s.loop_var + " in pl.range(" + std::to_string(s.k) + "):\n";
        write(s.body, indent + 4, out);
        break;
      case GStmt::Kind::branch:
        out += pad + "if " + s.lhs + " < " + std::to_string(s.k) + ":\n";
        write(s.body, indent + 4, out);
        if (s.has_else) {
          out += pad + "else:\n";
          write(s.other, indent + 4, out);
        }
        break;
    }
  }
}

void run_source(const std::vector<GStmt>& b, std::map<std::string, std::int64_t>& env) {
  for (const auto& s : b) {
    switch (s.kind) {
      case GStmt::Kind::assign: env[s.target] = env.at(s.lhs) + env.at(s.rhs) + s.k; break;
      case GStmt::Kind::loop:
        for (std::int64_t i = 0; i < s.k; ++i) {
          env[s.loop_var] = i;
          run_source(s.body, env);
        }
        break;
      case GStmt::Kind::branch:
        if (env.at(s.lhs) < s.k)
          run_source(s.body, env);
        else if (s.has_else)
          run_source(s.other, env);
        break;
    }
  }
}

// ---- the IR's meaning ------------------------------------------------------------------------
class Ssa {
 public:
  std::unordered_map<const Var*, std::int64_t> env;
  std::vector<std::int64_t> yielded, returned;

  std::int64_t eval(const ExprPtr& e) {
    if (const auto* i = e->as<IntImm>()) return i->value;
    if (const auto v = as_var(e)) {
      auto it = env.find(v.get());
      REQUIRE_MESSAGE(it != env.end(), "read of an unset variable " << v->name);
      return it->second;
    }
    const auto* b = e->as<BinaryExpr>();
    REQUIRE(b);
    const std::int64_t l = eval(b->lhs), r = eval(b->rhs);
    switch (b->op) {
      case BinaryOp::Add: return l + r;
      case BinaryOp::Lt: return l < r ? 1 : 0;
      default: FAIL("unexpected operator"); return 0;
    }
  }
  void run(const StmtPtr& s) {
    if (!s) return;
    if (const auto* q = s->as<SeqStmts>()) {
      for (const auto& c : q->stmts) run(c);
    } else if (const auto* a = s->as<AssignStmt>()) {
      env[a->var.get()] = eval(a->value);
    } else if (const auto* y = s->as<YieldStmt>()) {
      yielded.clear();
      for (const auto& v : y->values) yielded.push_back(eval(v));
    } else if (const auto* f = s->as<ForStmt>()) {
      std::vector<std::int64_t> carry;
      for (const auto& ia : f->iter_args) carry.push_back(eval(ia.init));
      const std::int64_t start = eval(f->start), stop = eval(f->stop), step = eval(f->step);
      for (std::int64_t i = start; i < stop; i += step) {
        env[f->loop_var.get()] = i;
        for (std::size_t k = 0; k < carry.size(); ++k) env[f->iter_args[k].var.get()] = carry[k];
        run(f->body);
        if (!carry.empty()) {
          REQUIRE(yielded.size() == carry.size());
          carry = yielded;
        }
      }
      REQUIRE(f->return_vars.size() == carry.size());
      for (std::size_t k = 0; k < carry.size(); ++k) env[f->return_vars[k].get()] = carry[k];
    } else if (const auto* i = s->as<IfStmt>()) {
      yielded.clear();
      if (eval(i->condition))
        run(i->then_body);
      else
        run(i->else_body);
      REQUIRE(yielded.size() == i->return_vars.size());
      for (std::size_t k = 0; k < yielded.size(); ++k) env[i->return_vars[k].get()] = yielded[k];
    } else if (const auto* r = s->as<ReturnStmt>()) {
      for (const auto& v : r->values) returned.push_back(eval(v));
    } else {
      FAIL("unexpected statement");
    }
  }
};

std::vector<std::int64_t> run_ir(const Program& p, std::int64_t arg) {
  const Function& f = p.functions.at(0);
  Ssa m;
  m.env[f.params.at(0).var.get()] = arg;
  m.run(f.body);
  return m.returned;
}

}  // namespace

TEST_CASE("implicit carries property: the explicit IR computes what the DSL program computes") {
  ParseOptions rebinding;
  rebinding.allow_rebinding = true;
  int carried_loops = 0, phis = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Gen g(seed);
    const std::vector<std::string> visible{"a", "b", "c", "d"};
    const auto body = g.block(visible, 1);
    std::string text =
        "@pl.function(type=pl.FunctionType.InCore)\n"
        "def k(p: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], "
        "pl.Scalar[pl.INDEX], "
        "pl.Scalar[pl.INDEX]]:\n"
        "    a = p + 1\n    b = p + 2\n    c = p + 3\n    d = p + 4\n";
    write(body, 4, text);
    text += "    return a, b, c, d\n";
    CAPTURE(seed);
    CAPTURE(text);
    const Program p = test::parse_ok(text, "gen.pto", rebinding);
    const std::string printed = print(p);
    CAPTURE(printed);
    const Program again = test::parse_ok(printed, "printed.pto");  // explicit: no re-binding left
    CHECK(print(again) == printed);
    for (std::int64_t arg : {0, 3, 7}) {
      std::map<std::string, std::int64_t> env{
          {"p", arg}, {"a", arg + 1}, {"b", arg + 2}, {"c", arg + 3}, {"d", arg + 4}};
      run_source(body, env);
      const std::vector<std::int64_t> want{env["a"], env["b"], env["c"], env["d"]};
      CHECK(run_ir(p, arg) == want);
      CHECK(run_ir(again, arg) == want);
    }
    for_each_stmt(p.functions.at(0).body, [&](const Stmt& s) {
      if (const auto* f = s.as<ForStmt>(); f && !f->iter_args.empty()) ++carried_loops;
      if (const auto* i = s.as<IfStmt>(); i && !i->return_vars.empty()) ++phis;
    });
  }
  CHECK(carried_loops > 100);
  CHECK(phis > 100);
  MESSAGE(carried_loops << " loops with implicit carries, " << phis << " ifs with implicit phis");
}
