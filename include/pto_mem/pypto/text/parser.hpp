// Parser for the tile-IR text (docs/pypto-ir.md): a superset of what PyPTO's
// printer emits (`pl.` prefixes optional, `Mem.X` / `MemorySpace.X`, the
// `@pl.program` class wrapper and `self`, `pl.const(0, pl.INT64)`, declared
// `MemRef("name", slots=N)[k]`) and exactly what our printer emits.
//
// The parser reads the syntax and builds the IR as it goes; what a name
// means (scopes and SSA renaming, allocation bases, the types of unannotated
// assignments) is the binder's (binder.hpp), which the parser asks at each
// name. The options and the result are in parse_options.hpp.
//
// The parser never throws out of parse_program / parse_file and never loops
// or recurses without bound: nesting of blocks, brackets and expressions is
// capped by ParseOptions::max_depth. The first error stops the parse and is
// reported as `file:line:column: error: expected X, found Y`.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/text/binder.hpp"
#include "pto_mem/pypto/text/dsl_names.hpp"
#include "pto_mem/pypto/text/lexer.hpp"
#include "pto_mem/pypto/text/lexical.hpp"
#include "pto_mem/pypto/text/parse_options.hpp"

namespace pto_mem::pypto {

namespace detail {

/// `def NAME` lines, so a call `foo(...)` can tell a program function from the
/// DSL shorthand `tile.foo` before `foo` is parsed.
[[nodiscard]] inline NameSet scan_function_names(std::string_view text) {
  NameSet names;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (line.substr(i, 4) == "def " || line.substr(i, 4) == "def\t") {
      i += 4;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      std::size_t b = i;
      while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
      if (i > b) names.emplace(line.substr(b, i - b));
    }
    pos = end + 1;
  }
  return names;
}

class Parser : protected Binder {
 public:
  Parser(std::string_view text, std::string file, const ParseOptions& opt)
      : Binder(std::move(file), opt), lex_(text), text_(text), function_names_(scan_function_names(text)) {}
  using Binder::fail;

  Program run() {
    Program prog;
    prog.file = file_;
    skip_newlines();
    skip_imports();
    std::vector<Decorator> decos = parse_decorators();
    if (peek().is_name("class")) {
      if (decos.size() > 1 || (decos.size() == 1 && decos[0].kind != Decorator::Kind::program))
        fail(decos.back().loc, "a program class takes only the @program decorator");
      take();
      prog.name = std::string(expect_name("a class name").text);
      if (accept_op("(")) expect_op(")");
      expect_op(":");
      expect_newline();
      expect(TokenKind::Indent, "an indented class body");
      skip_newlines();
      while (!peek().is(TokenKind::Dedent) && !peek().is(TokenKind::End)) {
        if (peek().is_name("pass") || peek().is(TokenKind::String)) {  // an empty class, a docstring
          take();
          expect_newline();
          skip_newlines();
          continue;
        }
        if (!peek().is_op("@") && !peek().is_name("def"))
          fail(peek().loc,
               "a statement in the class body (" + describe(peek()) +
                   ") computes a Python value when PyPTO defines the class; such values have no text "
                   "form in the IR: write the value where it is used");
        auto d = parse_decorators();
        prog.functions.push_back(parse_function(d, prog));
        skip_newlines();
      }
      expect(TokenKind::Dedent, "the end of the class body");
      skip_newlines();
      if (!peek().is(TokenKind::End))
        fail(peek().loc, "expected end of input after the program class, found " + describe(peek()));
      return prog;
    }
    for (;;) {
      if (peek().is(TokenKind::End)) {
        if (!decos.empty()) fail(decos.back().loc, "a decorator must be followed by a function definition");
        break;
      }
      for (const auto& d : decos)
        if (d.kind == Decorator::Kind::program)
          fail(d.loc, "@program must decorate a class: `@program` then `class Name:`");
      if (decos.empty() && peek().is(TokenKind::Name) && !peek().is_name("def") &&
          (peek(1).is_op("=") || peek(1).is_op(":") || peek(1).is_op(".") || peek(1).is_op("(")))
        fail(peek().loc,
             "expected 'def', found " + describe(peek()) +
                 "; a module-level statement computes a Python value when the file is run, which has "
                 "no text form in the IR: write the value where it is used");
      prog.functions.push_back(parse_function(decos, prog));
      skip_newlines();
      decos = parse_decorators();
    }
    return prog;
  }

  /// A module docstring and `import pypto.language as pl` / `from pypto
  /// import ...` lines at the top of a PyPTO file: nothing to read.
  void skip_imports() {
    while (peek().is_name("import") || peek().is_name("from") || peek().is(TokenKind::String)) {
      while (!peek().is(TokenKind::Newline) && !peek().is(TokenKind::End)) take();
      skip_newlines();
    }
  }

 private:
  // ---- tokens ---------------------------------------------------------------------------
  // Lookahead is at most 4 tokens: a ring buffer, not a deque (this is the
  // parser's hottest path).
  const Token& peek(std::size_t k = 0) {
    while (la_count_ <= k) {
      Token t = lex_.next();
      if (t.is(TokenKind::Error)) fail(t.loc, std::string(t.text));
      la_[(la_head_ + la_count_) & 7] = t;
      ++la_count_;
    }
    return la_[(la_head_ + k) & 7];
  }
  Token take() {
    peek();
    const Token t = la_[la_head_];
    la_head_ = (la_head_ + 1) & 7;
    --la_count_;
    return t;
  }
  bool accept_op(std::string_view op) {
    if (!peek().is_op(op)) return false;
    take();
    return true;
  }
  Token expect_op(std::string_view op) {
    if (!peek().is_op(op)) fail(peek().loc, "expected '" + std::string(op) + "', found " + describe(peek()));
    return take();
  }
  Token expect_keyword(std::string_view kw) {
    if (!peek().is_name(kw))
      fail(peek().loc, "expected '" + std::string(kw) + "', found " + describe(peek()));
    return take();
  }
  Token expect_name(std::string_view what) {
    if (!peek().is(TokenKind::Name))
      fail(peek().loc, "expected " + std::string(what) + ", found " + describe(peek()));
    return take();
  }
  Token expect(TokenKind k, std::string_view what) {
    if (!peek().is(k)) fail(peek().loc, "expected " + std::string(what) + ", found " + describe(peek()));
    return take();
  }
  void expect_newline() {
    if (peek().is(TokenKind::End)) return;
    expect(TokenKind::Newline, "end of line");
  }
  void skip_newlines() {
    while (peek().is(TokenKind::Newline)) take();
  }

  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, Loc loc) : p(parser) {
      if (++p.depth_ > p.opt_.max_depth)
        p.fail(loc, "nesting is too deep (more than " + std::to_string(p.opt_.max_depth) +
                        " levels of blocks, brackets or operators)");
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  // ---- dotted names: `pl.` stripped ------------------------------------------------------
  struct Dotted {
    std::array<std::string_view, 8> parts{};  // inline: a name is parsed at every use
    std::size_t count = 0;
    Loc loc;
    bool pl = false;  ///< written with the `pl.` prefix: PyPTO's meaning and defaults apply
    [[nodiscard]] std::size_t size() const noexcept { return count; }
    [[nodiscard]] std::string_view operator[](std::size_t i) const noexcept { return parts[i]; }
    [[nodiscard]] std::string_view back() const noexcept { return parts[count - 1]; }
    [[nodiscard]] bool is(std::string_view n) const noexcept { return count == 1 && parts[0] == n; }
    [[nodiscard]] std::string joined(std::size_t from = 0) const {
      std::string s;
      for (std::size_t i = from; i < count; ++i) {
        if (i > from) s += '.';
        s += parts[i];
      }
      return s;
    }
  };

  Dotted parse_dotted() {
    const Token first = expect_name("a name");
    Dotted d;
    d.loc = first.loc;
    d.parts[d.count++] = first.text;
    while (peek().is_op(".") && peek(1).is(TokenKind::Name)) {
      take();
      const Token part = take();
      if (d.count == d.parts.size()) fail(part.loc, "a dotted name may have at most 8 parts");
      d.parts[d.count++] = part.text;
    }
    if (d.count > 1 && d.parts[0] == "pl") {
      for (std::size_t i = 1; i < d.count; ++i) d.parts[i - 1] = d.parts[i];
      --d.count;
      d.pl = true;
    }
    return d;
  }

  static std::optional<MemorySpace> dotted_space(const Dotted& d) {
    std::string_view n;
    if (d.size() == 1)
      n = d[0];
    else if (d.size() == 2 && (d[0] == "Mem" || d[0] == "MemorySpace"))
      n = d[1];
    const Word w = classify_word(n);
    if (w.kind == Word::Kind::space) return w.space;
    return std::nullopt;
  }
  static std::optional<DataType> dotted_dtype(const Dotted& d) {
    std::string_view n;
    if (d.size() == 1)
      n = d[0];
    else if (d.size() == 2 && d[0] == "DataType")
      n = d[1];
    const Word w = classify_word(n);
    if (w.kind == Word::Kind::dtype) return w.dtype;
    return std::nullopt;
  }

  /// A new function: no bindings, no `pl.` calls.
  void reset_function_state() {
    pl_calls_.clear();
    reset_bindings();
  }

  // ---- functions ----------------------------------------------------------------------------------
  struct Decorator {
    enum class Kind { program, function } kind = Kind::function;
    Loc loc;
    std::optional<FunctionKind> fkind;
    std::vector<Kwarg> attrs;
    bool pl = false;  ///< `@pl.function`: PyPTO's default kind, Opaque
  };

  std::vector<Decorator> parse_decorators() {
    std::vector<Decorator> out;
    while (peek().is_op("@")) {
      Decorator d;
      d.loc = take().loc;
      Dotted name = parse_dotted();
      d.pl = name.pl;
      if (name.is("program")) {
        d.kind = Decorator::Kind::program;
        if (accept_op("(")) expect_op(")");
      } else if (name.is("function")) {
        if (accept_op("(")) {
          while (!peek().is_op(")")) {
            Token key = expect_name("a decorator keyword");
            expect_op("=");
            if (key.text == "type") {
              Dotted k = parse_dotted();
              std::string_view kn = k.back();
              if (k.size() > 2 || (k.size() == 2 && k[0] != "FunctionType") || !parse_function_kind(kn))
                fail(k.loc, "unknown function type '" + k.joined() +
                                "'; expected InCore, AIC, AIV, Orchestration or Opaque");
              d.fkind = parse_function_kind(kn);
            } else {
              d.attrs.push_back(Kwarg{std::string(key.text), parse_expr()});
            }
            if (!accept_op(",")) break;
          }
          expect_op(")");
        }
      } else {
        fail(name.loc, "unknown decorator '@" + name.joined() + "'; expected @function or @program");
      }
      expect_newline();
      skip_newlines();
      out.push_back(std::move(d));
    }
    return out;
  }

  Function parse_function(const std::vector<Decorator>& decos, const Program& prog) {
    program_ = &prog;
    Function fn;
    for (const auto& d : decos) {
      if (d.kind == Decorator::Kind::program) fail(d.loc, "@program decorates the class, not a function");
      if (d.fkind)
        fn.kind = *d.fkind;
      else if (d.pl && d.kind == Decorator::Kind::function)
        fn.kind = FunctionKind::Opaque;  // PyPTO's default
      fn.attrs.insert(fn.attrs.end(), d.attrs.begin(), d.attrs.end());
    }
    const Token def = expect_keyword("def");
    const Token name = expect_name("a function name");
    fn.name = std::string(name.text);
    fn.loc = def.loc;
    if (const Function* prev = prog.find(fn.name))
      fail(name.loc, "function '" + fn.name + "' is defined twice (first at line " +
                         std::to_string(prev->loc.line) + ")");
    reset_function_state();
    push_scope();
    expect_op("(");
    if (peek().is_name("self") && (peek(1).is_op(",") || peek(1).is_op(")"))) {
      take();
      accept_op(",");
    }
    while (!peek().is_op(")")) {
      const Token pname = expect_name("a parameter name");
      expect_op(":");
      Param p;
      Dotted d = parse_dotted();
      TypePtr t;
      if (d.is("Out") || d.is("InOut") || d.is("In")) {
        p.direction = d.is("Out")     ? ParamDirection::Out
                      : d.is("InOut") ? ParamDirection::InOut
                                      : ParamDirection::In;
        expect_op("[");
        t = parse_type(TypeContext::signature);
        expect_op("]");
      } else {
        t = parse_type_after(d, TypeContext::signature);
      }
      p.var = make_var(std::string(pname.text), std::move(t), pname.loc);
      define(p.var, pname.loc);
      fn.params.push_back(std::move(p));
      if (!accept_op(",")) break;
    }
    expect_op(")");
    if (accept_op("->")) {
      Dotted d = parse_dotted();
      if (d.is("tuple") || d.is("Tuple")) {
        expect_op("[");
        while (!peek().is_op("]")) {
          fn.return_types.push_back(parse_type(TypeContext::signature));
          if (!accept_op(",")) break;
        }
        expect_op("]");
      } else if (!d.is("None")) {
        fn.return_types.push_back(parse_type_after(d, TypeContext::signature));
      }
    }
    expect_op(":");
    Block b = parse_block(false);
    if (b.yield) fail(b.yield->loc, "yield_ outside a loop or if: a function body ends with return");
    fn.body = b.body;
    for (const auto& [base, loc] : pending_bare_) {
      auto it = bases_.find(base);
      if (it == bases_.end() || !alloc_vars_.count(it->second.get()))
        fail(loc, "MemRef base '" + base + "' is not defined by a tile.alloc or tensor.alloc in function '" +
                      fn.name + "' (write \"" + base + "\" for an external base)");
    }
    pop_scope();
    return fn;
  }

  // ---- types -----------------------------------------------------------------------------------------
  enum class TypeContext { signature, body };

  TypePtr parse_type(TypeContext ctx) { return parse_type_after(parse_dotted(), ctx); }

  TypePtr parse_type_after(const Dotted& d, TypeContext ctx) {
    DepthGuard guard(*this, d.loc);
    if (d.is("Tensor")) {
      expect_op("[");
      auto shape = parse_shape();
      expect_op(",");
      DataType dt = parse_dtype();
      MemRefPtr m;
      if (accept_op(",") && !peek().is_op("]")) {
        Dotted a = parse_dotted();
        if (!a.is("MemRef"))
          fail(a.loc, "expected MemRef(...) after the dtype of a Tensor, found '" + a.joined() + "'");
        m = parse_memref(ctx, a.loc, /*on_tensor=*/true);
        accept_op(",");
      }
      expect_op("]");
      return tensor_type(std::move(shape), dt, std::move(m));
    }
    if (d.is("Tile")) {
      expect_op("[");
      auto shape = parse_shape();
      expect_op(",");
      DataType dt = parse_dtype();
      MemRefPtr m;
      std::optional<MemorySpace> space;
      TileView view;
      bool has_view = false;
      while (accept_op(",")) {
        if (peek().is_op("]")) break;
        Dotted a = parse_dotted();
        if (a.is("MemRef")) {
          if (m) fail(a.loc, "a Tile type takes one MemRef");
          m = parse_memref(ctx, a.loc, false);
        } else if (a.is("TileView")) {
          if (has_view) fail(a.loc, "a Tile type takes one TileView");
          view = parse_tile_view();
          has_view = true;
        } else if (auto s = dotted_space(a)) {
          if (space) fail(a.loc, "a Tile type takes one memory space");
          space = s;
        } else {
          fail(a.loc, "expected MemRef(...), a memory space or TileView(...) in Tile[...], found '" +
                          a.joined() + "'");
        }
      }
      expect_op("]");
      if (m && m->is_pinned && !space)
        fail(d.loc, "a tile bound to the declared allocation '" + m->name() +
                        "' must state an explicit memory space, e.g. Tile[[64, 64], FP32, MemRef(\"" +
                        m->name() + "\"), Vec]");
      return tile_type(std::move(shape), dt, space, std::move(m), std::move(view));
    }
    if (d.is("Scalar")) {
      expect_op("[");
      DataType dt = parse_dtype();
      expect_op("]");
      return scalar_type(dt);
    }
    if (d.is("Ptr") || d.is("MemRefType")) return ptr_type();
    if (d.is("UnknownType")) return unknown_type();
    if (d.is("tuple") || d.is("Tuple")) {
      expect_op("[");
      std::vector<TypePtr> elems;
      while (!peek().is_op("]")) {
        elems.push_back(parse_type(ctx));
        if (!accept_op(",")) break;
      }
      expect_op("]");
      return tuple_type(std::move(elems));
    }
    fail(d.loc, "expected a type (Tensor, Tile, Scalar, Ptr or tuple), found '" + d.joined() + "'");
  }

  std::vector<ExprPtr> parse_shape() {
    expect_op("[");
    const bool saved = shape_mode_;
    shape_mode_ = true;
    std::vector<ExprPtr> dims;
    while (!peek().is_op("]")) {
      dims.push_back(parse_expr());
      if (!accept_op(",")) break;
    }
    shape_mode_ = saved;
    expect_op("]");
    return dims;
  }

  DataType parse_dtype() {
    Dotted d = parse_dotted();
    auto t = dotted_dtype(d);
    if (!t) fail(d.loc, "expected a data type (FP32, BF16, INT32, ...), found '" + d.joined() + "'");
    return *t;
  }

  std::uint64_t parse_count(std::string_view what) {
    const Loc loc = peek().loc;
    ExprPtr e = parse_expr();
    auto v = as_const_int(e);
    if (!v || *v < 0) fail(loc, "expected a non-negative integer for " + std::string(what));
    return static_cast<std::uint64_t>(*v);
  }

  MemRefPtr parse_memref(TypeContext ctx, Loc loc, bool on_tensor) {
    expect_op("(");
    const bool declaration =
        !peek().is_op(")") &&
        (peek(1).is_op(")") || (peek(1).is_op(",") && peek(2).is_name("slots") && peek(3).is_op("=")));
    if (declaration) {
      // A declaration: MemRef("name"[, slots=N])[k]?
      if (!peek().is(TokenKind::String))
        fail(peek().loc,
             "a declared allocation's name must be a non-empty string literal, e.g. "
             "MemRef(\"scratch\"), found '" +
                 std::string(peek().text) + "'");
      const std::string name = unescape(take().text);
      std::uint64_t slots = 1;
      Loc slots_loc = loc;
      if (accept_op(",")) {
        slots_loc = take().loc;  // `slots`
        expect_op("=");
        slots = parse_count("slots");
      }
      expect_op(")");
      ExprPtr index;
      Loc index_loc = loc;
      if (peek().is_op("[")) {
        index_loc = take().loc;
        index = parse_expr();
        expect_op("]");
      }
      if (ctx == TypeContext::signature)
        fail(loc, "a parameter cannot be bound to the declared allocation MemRef(\"" + name +
                      "\"); bind a tile defined in the body instead");
      if (on_tensor) fail(loc, "only tiles can be bound to a declared allocation MemRef(\"" + name + "\")");
      if (slots < 1) fail(slots_loc, "the declared allocation '" + name + "' must have at least one slot");
      if (index && slots == 1)
        fail(index_loc, "MemRef(\"" + name +
                            "\") has a single slot, so it cannot be subscripted; declare slots: "
                            "MemRef(\"" +
                            name + "\", slots=2)[k]");
      if (auto k = as_const_int(index); k && (*k < 0 || static_cast<std::uint64_t>(*k) >= slots))
        fail(index_loc, "slot index " + std::to_string(*k) + " is out of range for MemRef(\"" + name +
                            "\", slots=" + std::to_string(slots) + ")");
      return declared_memref(declared_base(name, loc), slots, std::move(index));
    }
    VarPtr base;
    const Token bt = peek();
    if (bt.is(TokenKind::String)) {
      take();
      base = string_base(unescape(bt.text), bt.loc);
    } else if (bt.is(TokenKind::Name)) {
      take();
      base = bare_base(std::string(bt.text), bt.loc);
    } else {
      fail(bt.loc, "expected a base name or a \"string\" in MemRef(...), found " + describe(bt));
    }
    expect_op(",");
    ExprPtr offset = parse_expr();
    if (const auto* i = offset->as<IntImm>(); i && i->dtype)
      offset = int_imm(i->value);  // const(0, INT64) is 0
    expect_op(",");
    const std::uint64_t size = parse_count("the MemRef size");
    std::uint64_t slots = 1;
    if (accept_op(",")) {
      expect_keyword("slots");
      expect_op("=");
      const Loc sl = peek().loc;
      slots = parse_count("slots");
      if (slots < 1) fail(sl, "a MemRef must have at least one slot");
    }
    expect_op(")");
    ExprPtr index;
    if (peek().is_op("[")) {
      const Loc il = take().loc;
      index = parse_expr();
      expect_op("]");
      if (auto k = as_const_int(index); k && (*k < 0 || static_cast<std::uint64_t>(*k) >= slots))
        fail(il, "slot index " + std::to_string(*k) + " is out of range for " + std::to_string(slots) +
                     " slot(s)");
    }
    return make_memref(std::move(base), std::move(offset), size, slots, std::move(index), false);
  }

  TileView parse_tile_view() {
    TileView v;
    expect_op("(");
    while (!peek().is_op(")")) {
      Token key = expect_name("a TileView field name");
      expect_op("=");
      if (v.field(key.text)) fail(key.loc, "TileView field '" + std::string(key.text) + "' is given twice");
      v.fields.push_back(Kwarg{std::string(key.text), parse_expr()});
      if (!accept_op(",")) break;
    }
    expect_op(")");
    return v;
  }

  // ---- blocks and statements ------------------------------------------------------------------------
  struct Block {
    StmtPtr body;
    std::optional<YieldInfo> yield;
    ExprPtr condition;  ///< while_ bodies: the leading cond(...)
    Loc loc;
    std::vector<ExprPtr> carried_out;  ///< the implicit carries' values at the end of a loop body
    std::vector<Rebind> rebinds;       ///< an if arm's own bindings, in order of first binding
  };

  /// `b`'s statements ending in a yield of `values` after whatever it yields already.
  static void extend_yield(Block& b, const std::vector<ExprPtr>& values, Loc loc) {
    std::vector<StmtPtr> stmts;
    if (const auto* q = b.body ? b.body->as<SeqStmts>() : nullptr) stmts = q->stmts;
    if (!stmts.empty())
      if (const auto* y = stmts.back()->as<YieldStmt>()) {
        std::vector<ExprPtr> all = y->values;
        all.insert(all.end(), values.begin(), values.end());
        stmts.back() = yield(std::move(all), y->loc);
        b.body = seq(std::move(stmts), b.loc);
        return;
      }
    stmts.push_back(yield(values, loc));
    b.body = seq(std::move(stmts), b.loc);
  }

  /// After the ':' of a compound statement. `carried`: names whose bindings
  /// at the end of the body are the loop's implicit carries; `arm`: record
  /// the names the block bound (an if arm's implicit phis).
  Block parse_block(bool while_condition, const std::vector<std::string>* carried = nullptr,
                    bool arm = false) {
    const Loc loc = peek().loc;
    expect(TokenKind::Newline, "end of line after ':'");
    expect(TokenKind::Indent, "an indented block");
    DepthGuard guard(*this, loc);
    push_scope();
    Block b;
    std::vector<StmtPtr> stmts;
    if (while_condition) {
      if (!at_keyword_call("cond"))
        fail(peek().loc, "a while_ loop body must start with cond(<condition>), found " + describe(peek()));
      skip_keyword_name();
      expect_op("(");
      b.condition = parse_expr();
      expect_op(")");
      expect_newline();
    }
    while (!peek().is(TokenKind::Dedent) && !peek().is(TokenKind::End)) {
      if (b.yield) fail(b.yield->loc, "yield_ must be the last statement of its block");
      parse_stmt(stmts, b.yield);
    }
    expect(TokenKind::Dedent, "end of block");
    if (carried)
      for (const auto& n : *carried) b.carried_out.push_back(lookup(n)->ref);
    if (arm) b.rebinds = collect_rebinds();
    pop_scope();
    b.loc = loc;
    b.body = seq(std::move(stmts), loc);
    return b;
  }

  /// A loop body or if arm: names bound below frame `root` may not be re-bound
  /// in a loop body (a loop carries what it re-binds); re-binding one in an if
  /// arm makes an implicit phi.
  Block rooted_block(BlockKind kind, std::size_t root, bool while_condition,
                     const std::vector<std::string>* carried = nullptr) {
    const std::size_t saved_root = block_root_;
    const BlockKind saved_kind = block_kind_;
    block_root_ = root;
    block_kind_ = kind;
    Block b = parse_block(while_condition, carried, kind == BlockKind::arm);
    block_root_ = saved_root;
    block_kind_ = saved_kind;
    return b;
  }

  // ---- implicit carries and phis (PyPTO's DSL) ----------------------------------------------------
  /// The names assigned anywhere in the body of the compound statement whose
  /// header starts with `header` (nested blocks included), sorted: the body
  /// is read ahead with a second lexer, so a loop knows what it carries
  /// before its body refers to it. A `yield_` assignment binds its names in
  /// the enclosing block, so the statement's own (one level in) do not count.
  std::vector<std::string> scan_assigned(const Token& header) {
    std::vector<std::string> out;
    if (header.text.data() < text_.data() || header.text.data() > text_.data() + text_.size()) return out;
    const std::size_t at = static_cast<std::size_t>(header.text.data() - text_.data());
    const std::size_t nl = text_.rfind('\n', at);
    const std::size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
    Lexer scan(text_.substr(line_start));
    int depth = 0;  // 1: the header's line, 2: the body
    bool entered = false;
    std::size_t k = 0;  // tokens seen on this line
    int brackets = 0;
    bool targets = false;  // the line so far is `name (, name)*`
    bool want_name = false;
    bool annotated = false;  // after `targets :`, waiting for '='
    bool after_eq = false;   // in the right-hand side of the target list's '='
    bool decided = false;    // the right-hand side is known to be a yield_ or not
    bool yield_rhs = false;
    std::vector<std::string_view> line_names;
    auto finish = [&] {
      if (targets && after_eq && depth >= (yield_rhs ? 3 : 2))
        for (auto n : line_names) out.emplace_back(n);
      k = 0;
      brackets = 0;
      targets = want_name = annotated = after_eq = decided = yield_rhs = false;
      line_names.clear();
    };
    for (;;) {
      const Token t = scan.next();
      if (t.is(TokenKind::End) || t.is(TokenKind::Error)) break;
      if (t.is(TokenKind::Indent)) {
        if (++depth >= 2) entered = true;
        continue;
      }
      if (t.is(TokenKind::Dedent)) {
        if (--depth < 2 && entered) break;
        continue;
      }
      if (t.is(TokenKind::Newline)) {
        finish();
        continue;
      }
      const std::size_t i = k++;
      if (i == 0) {
        if (t.is(TokenKind::Name) && classify_word(t.text).kind == Word::Kind::none && t.text != "pl") {
          targets = true;
          line_names.push_back(t.text);
        }
        continue;
      }
      if (!targets) continue;
      if (after_eq) {  // only whether the right-hand side is a yield_ matters
        if (decided || t.is_op("(") || t.is_name("pl") || t.is_op(".")) continue;
        decided = true;
        yield_rhs = t.is_name("yield_");
        continue;
      }
      if (annotated) {
        if (t.is_op("[") || t.is_op("("))
          ++brackets;
        else if (t.is_op("]") || t.is_op(")"))
          --brackets;
        else if (brackets == 0 && t.is_op("="))
          after_eq = true;
        continue;
      }
      if (want_name) {
        if (t.is(TokenKind::Name)) {
          line_names.push_back(t.text);
          want_name = false;
        } else {
          targets = false;
        }
        continue;
      }
      if (t.is_op(","))
        want_name = true;
      else if (t.is_op("="))
        after_eq = true;
      else if (t.is_op(":"))
        annotated = true;
      else
        targets = false;
    }
    finish();
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// `yield_`, `cond`, ... possibly written `pl.yield_`, followed by '('.
  bool at_keyword_call(std::string_view kw, std::size_t at = 0) {
    if (peek(at).is_name(kw)) return peek(at + 1).is_op("(");
    return peek(at).is_name("pl") && peek(at + 1).is_op(".") && peek(at + 2).is_name(kw) &&
           peek(at + 3).is_op("(");
  }
  void skip_keyword_name() {
    if (peek().is_name("pl")) {
      take();
      take();
    }
    take();
  }

  void parse_stmt(std::vector<StmtPtr>& out, std::optional<YieldInfo>& yield_info) {
    const Token t = peek();
    const Loc loc = t.loc;
    if (t.is(TokenKind::Indent)) fail(loc, "unexpected indentation");
    if (t.is(TokenKind::Name)) {
      const std::string_view kw = t.text;
      if (kw == "for") return out.push_back(parse_for());
      if (kw == "while") return out.push_back(parse_while());
      if (kw == "if") return out.push_back(parse_if());
      if (kw == "return") return out.push_back(parse_return());
      if (kw == "pass") {
        take();
        return expect_newline();
      }
      if (kw == "continue" || kw == "break") {
        // Kept as a no-operand call statement: no pass reads or writes through it.
        take();
        expect_newline();
        return out.push_back(eval(call(std::string(kw), {}, {}), loc));
      }
      if (kw == "with") return out.push_back(parse_with());
      if (kw == "else" || kw == "elif")
        fail(loc, "'" + std::string(kw) + "' without a matching 'if' (check the indentation)");
      if (kw == "def") fail(loc, "nested function definitions are not supported");
      if (kw == "class") fail(loc, "a class is only allowed as the @program wrapper at the top of the file");
      if (at_keyword_call("yield_")) {
        YieldInfo y;
        y.loc = loc;
        auto s = parse_yield_call(loc);
        expect_newline();
        y.stmt = s->as<YieldStmt>();
        yield_info = std::move(y);
        return out.push_back(std::move(s));
      }
      const Token& next = peek(1);
      if (next.is_op(",")) return parse_yield_assign(out, yield_info);
      if (next.is_op(":") || next.is_op("=")) return parse_assign(out, yield_info);
    }
    if (t.is(TokenKind::String) &&
        (peek(1).is(TokenKind::Newline) || peek(1).is(TokenKind::End) || peek(1).is(TokenKind::Dedent))) {
      take();  // a docstring: no IR
      return expect_newline();
    }
    if (t.is_op("(") && at_keyword_call("yield_", 1)) {  // `(pl.yield_(v))`
      YieldInfo y;
      y.loc = loc;
      take();
      auto s = parse_yield_call(loc);
      expect_op(")");
      expect_newline();
      y.stmt = s->as<YieldStmt>();
      yield_info = std::move(y);
      return out.push_back(std::move(s));
    }
    ExprPtr e = parse_expr();
    if (!e->is<Call>()) fail(loc, "expected a statement; an expression on its own line must be a call");
    expect_newline();
    out.push_back(eval(std::move(e), loc));
  }

  /// `with pl.manual_scope():` / `with pl.auto_scope():` — a scoped sequence;
  /// its names stay visible after it, as in Python.
  StmtPtr parse_with() {
    const Loc loc = take().loc;
    Dotted d = parse_dotted();
    const std::string name = d.joined();
    if (name != "manual_scope" && name != "auto_scope")
      fail(d.loc,
           "'with " + std::string(d.pl ? "pl." : "") + name +
               "(...)' has no form in this IR; only `with pl.manual_scope():` and `with pl.auto_scope():` "
               "are read (an SPMD launch is written `for i in pl.spmd(n):`)");
    expect_op("(");
    expect_op(")");
    expect_op(":");
    const Loc bl = peek().loc;
    expect(TokenKind::Newline, "end of line after ':'");
    expect(TokenKind::Indent, "an indented block");
    DepthGuard guard(*this, bl);
    std::vector<StmtPtr> stmts;
    std::optional<YieldInfo> y;
    while (!peek().is(TokenKind::Dedent) && !peek().is(TokenKind::End)) {
      parse_stmt(stmts, y);
      if (y) fail(y->loc, "yield_ cannot end a with block; end the enclosing loop or if body with it");
    }
    expect(TokenKind::Dedent, "end of block");
    return seq(std::move(stmts), loc, name);
  }

  StmtPtr parse_yield_call(Loc loc) {
    last_yield_pl_ = peek().is_name("pl");
    skip_keyword_name();
    expect_op("(");
    std::vector<ExprPtr> values;
    while (!peek().is_op(")")) {
      if (peek().is(TokenKind::Name) && peek(1).is_op("="))
        fail(peek().loc, "yield_ takes no keyword arguments");
      values.push_back(parse_expr());
      if (!accept_op(",")) break;
    }
    expect_op(")");
    return yield(std::move(values), loc);
  }

  void parse_yield_assign(std::vector<StmtPtr>& out, std::optional<YieldInfo>& yield_info) {
    YieldInfo y;
    y.named = true;
    y.loc = peek().loc;
    y.names.emplace_back(take().text);
    while (accept_op(",")) y.names.emplace_back(expect_name("a name").text);
    if (accept_op(":")) {
      OwnYieldNames own(*this, y.names, y.loc);
      y.annotation = parse_type(TypeContext::body);
    }
    expect_op("=");
    if (!at_keyword_call("yield_") && !(peek().is_op("(") && at_keyword_call("yield_", 1)))
      return parse_tuple_assign(y, out);
    finish_yield_assign(std::move(y), out, yield_info);
  }

  /// `a, b = f(...)` where `f` returns a tuple: as PyPTO's DSL unpacks it, the
  /// call's value is bound to a temporary `_tuple_tmp` and each name to one
  /// element of it (`a = _tuple_tmp[0]`, ...).
  void parse_tuple_assign(const YieldInfo& y, std::vector<StmtPtr>& out) {
    const Loc rhs_loc = peek().loc;
    std::string names;
    for (const auto& n : y.names) names += (names.empty() ? "" : ", ") + n;
    pl_calls_.clear();
    ExprPtr rhs = parse_expr();
    expect_newline();
    const auto* c = rhs->as<Call>();
    if (!c)
      fail(rhs_loc, "several names (" + names +
                        ") can only be assigned from a call that returns a tuple or from "
                        "yield_(...); assign one name at a time");
    TypePtr type = y.annotation ? y.annotation : deduce(rhs);
    const auto* tt = type ? type->as<TupleType>() : nullptr;
    if (!type)
      fail(rhs_loc, "cannot tell what '" + c->op + "(...)' returns, so it cannot be unpacked into " + names +
                        "; annotate the names: " + names + ": tuple[...] = ...");
    if (!tt)
      fail(rhs_loc, "'" + c->op + "(...)' returns one value, not a tuple, so it cannot be unpacked into " +
                        names + "; assign it to one name");
    if (tt->elems.size() != y.names.size())
      fail(rhs_loc, "'" + c->op + "(...)' returns a tuple of " + std::to_string(tt->elems.size()) +
                        " values but " + std::to_string(y.names.size()) + " names (" + names +
                        ") receive it");
    auto tmp = make_var("_tuple_tmp", type, y.loc);  // not a name the program can use
    out.push_back(assign(tmp, std::move(rhs), y.loc));
    const ExprPtr tmp_ref = var_ref(tmp);
    for (std::size_t i = 0; i < y.names.size(); ++i) {
      auto v = make_var(y.names[i], tt->elems[i], y.loc);
      define(v, y.loc);
      out.push_back(assign(std::move(v), subscript(tmp_ref, int_imm(static_cast<std::int64_t>(i))), y.loc));
    }
  }

  void finish_yield_assign(YieldInfo y, std::vector<StmtPtr>& out, std::optional<YieldInfo>& yield_info) {
    const bool parens = accept_op("(");  // `r = (pl.yield_(v))`, as formatters wrap it
    const Loc at = peek().loc;
    auto s = parse_yield_call(y.loc);
    if (parens) expect_op(")");
    expect_newline();
    const auto* ys = s->as<YieldStmt>();
    if (ys->values.size() != y.names.size())
      fail(at, "yield_ defines " + std::to_string(y.names.size()) + " name(s) but yields " +
                   std::to_string(ys->values.size()) + " value(s)");
    for (const auto& n : y.names) check_name(n, y.loc);
    if (y.annotation && y.names.size() > 1) {
      const auto* tt = y.annotation->as<TupleType>();
      if (!tt || tt->elems.size() != y.names.size())
        fail(y.loc, "the annotation of " + std::to_string(y.names.size()) +
                        " yielded names must be tuple[...] of " + std::to_string(y.names.size()) + " types");
    }
    y.stmt = ys;
    y.pl = last_yield_pl_;
    yield_info = std::move(y);
    out.push_back(std::move(s));
  }

  void parse_assign(std::vector<StmtPtr>& out, std::optional<YieldInfo>& yield_info) {
    const Token name = take();
    const Loc loc = name.loc;
    TypePtr ann;
    if (accept_op(":")) ann = parse_type(TypeContext::body);
    expect_op("=");
    if (at_keyword_call("yield_") || (peek().is_op("(") && at_keyword_call("yield_", 1))) {
      YieldInfo y;
      y.named = true;
      y.loc = loc;
      y.names.emplace_back(name.text);
      y.annotation = ann;
      return finish_yield_assign(std::move(y), out, yield_info);
    }
    const Loc rhs_loc = peek().loc;
    pl_calls_.clear();
    ExprPtr rhs = parse_expr();
    expect_newline();
    const std::string var_name(name.text);
    if (const auto* c = rhs->as<Call>(); c && (c->op == "tile.alloc" || c->op == "tensor.alloc"))
      return out.push_back(make_alloc(var_name, loc, ann, *c, rhs_loc));
    TypePtr type = ann ? ann : deduce(rhs);
    if (ann && pl_calls_.count(rhs.get())) type = complete_annotation(ann, rhs);
    if (!type)
      fail(loc, "cannot deduce the type of '" + var_name + "'; annotate it, e.g. " + var_name +
                    ": Tile[[64, 64], FP32, Vec] = ...");
    auto v = make_var(var_name, std::move(type), loc);
    define(v, loc);
    out.push_back(assign(std::move(v), std::move(rhs), loc));
  }

  StmtPtr make_alloc(const std::string& name, Loc loc, const TypePtr& ann, const Call& c, Loc rhs_loc) {
    if (ann && !ann->is<PtrType>()) fail(loc, "an allocation '" + name + "' has type Ptr");
    const std::string op = c.op;
    auto space = c.args.empty() ? std::nullopt : as_space(c.args[0]);
    if (!space)
      fail(rhs_loc, op + " needs a memory space as its first argument, e.g. " + op + "(Vec, 16384)");
    ExprPtr size_expr;
    if (c.args.size() == 2)
      size_expr = c.args[1];
    else if (c.args.size() == 4)
      size_expr = c.args[2];  // legacy (space, addr, size, id)
    else
      fail(rhs_loc, op + " takes (space, size[, pinned=True])");
    auto size = as_const_int(size_expr);
    if (!size || *size < 0) fail(rhs_loc, op + " needs a non-negative integer size");
    bool pinned = false;
    for (const auto& kw : c.kwargs) {
      if (kw.name != "pinned")
        fail(rhs_loc, "unknown keyword '" + kw.name + "' for " + op + "; only pinned= is accepted");
      const auto* b = kw.value->as<BoolImm>();
      if (!b) fail(rhs_loc, "pinned= takes True or False");
      pinned = b->value;
    }
    VarPtr v = define_alloc(name, loc);
    return alloc(std::move(v), *space, static_cast<Addr>(*size), pinned,
                 op == "tile.alloc" ? AllocOp::tile : AllocOp::tensor, loc);
  }

  StmtPtr parse_return() {
    const Loc loc = take().loc;
    std::vector<ExprPtr> values;
    if (!peek().is(TokenKind::Newline) && !peek().is(TokenKind::End) && !peek().is(TokenKind::Dedent)) {
      values.push_back(parse_expr());
      while (accept_op(",")) {
        if (peek().is(TokenKind::Newline)) break;
        values.push_back(parse_expr());
      }
    }
    expect_newline();
    return ret(std::move(values), loc);
  }

  /// The names a loop re-binds that are visible before it (PyPTO's DSL
  /// carries them implicitly), sorted, except `skip` (its own loop variable
  /// and explicit carries) and allocations.
  std::vector<std::string> implicit_carries(const Token& header, const std::vector<std::string>& skip) {
    std::vector<std::string> out;
    if (!opt_.allow_rebinding) return out;
    for (auto& n : scan_assigned(header)) {
      if (std::find(skip.begin(), skip.end(), n) != skip.end()) continue;
      const Binding* b = lookup(n);
      if (!b || alloc_vars_.count(b->var.get())) continue;
      out.push_back(std::move(n));
    }
    return out;
  }

  StmtPtr parse_for() {
    const Token header = take();
    const Loc loc = header.loc;
    struct Name {
      std::string name;
      Loc loc;
    };
    std::optional<Name> loop_var;
    std::vector<Name> carries;
    bool parenthesized = false;
    auto name_list_in_parens = [&] {
      parenthesized = true;
      while (!peek().is_op(")")) {
        Token n = expect_name("a carried value name");
        carries.push_back({std::string(n.text), n.loc});
        if (!accept_op(",")) break;
      }
      expect_op(")");
    };
    if (accept_op("(")) {
      name_list_in_parens();
    } else {
      Token n = expect_name("a loop variable");
      loop_var = Name{std::string(n.text), n.loc};
      if (accept_op(",")) {
        if (accept_op("(")) {
          name_list_in_parens();
        } else {
          do {
            Token c = expect_name("a carried value name");
            carries.push_back({std::string(c.text), c.loc});
          } while (accept_op(","));
        }
      }
    }
    expect_keyword("in");
    Dotted kind = parse_dotted();
    const bool is_while = kind.is("while_");
    ForKind fk = ForKind::Range;
    if (kind.is("range"))
      fk = ForKind::Range;
    else if (kind.is("parallel"))
      fk = ForKind::Parallel;
    else if (kind.is("pipeline"))
      fk = ForKind::Pipeline;
    else if (kind.is("unroll"))
      fk = ForKind::Unroll;
    else if (kind.is("spmd"))
      fk = ForKind::Spmd;
    else if (!is_while)
      fail(kind.loc, "expected range, parallel, pipeline, unroll, spmd or while_ after 'in', found '" +
                         kind.joined() + "'");
    last_open_ = expect_op("(").loc;
    std::vector<ExprPtr> args;
    std::vector<Kwarg> kwargs;
    parse_call_args(args, kwargs);
    expect_op(":");
    if (fk == ForKind::Spmd && args.empty()) {  // pl.spmd(core_num=n)
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it)
        if (it->name == "core_num") {
          args.push_back(it->value);
          kwargs.erase(it);
          break;
        }
    }

    std::vector<ExprPtr> inits;
    bool has_inits = false;
    std::optional<std::int64_t> stage;
    std::vector<Kwarg> attrs;
    for (auto& kw : kwargs) {
      if (kw.name == "init_values") {
        const auto* seq = as_sequence(kw.value);
        if (!seq) fail(loc, "init_values takes a tuple, e.g. init_values=(x,)");
        inits = *seq;
        has_inits = true;
      } else if (kw.name == "stage") {
        auto v = as_const_int(kw.value);
        if (fk != ForKind::Pipeline) fail(loc, "stage= is only valid for pipeline loops");
        if (!v || *v < 1) fail(loc, "stage= takes a positive integer");
        stage = *v;
      } else {
        if (is_while) fail(loc, "while_ takes only init_values=(...)");
        attrs.push_back(std::move(kw));
      }
    }
    if (is_while) {
      if (loop_var) carries.insert(carries.begin(), *loop_var);
      loop_var.reset();
      if (!args.empty())
        fail(loc, "while_ takes only init_values=(...); its condition is the body's first line, cond(...)");
      if (!has_inits || carries.empty())
        fail(loc, "a while_ loop needs carried values: for (x,) in while_(init_values=(x0,))");
    } else {
      if (!loop_var) fail(loc, "expected a loop variable: for i in range(...)");
      if (!carries.empty() && !parenthesized)
        fail(carries.front().loc, "write the carried values in parentheses: for i, (a, b) in range(...)");
      if (args.empty() || args.size() > 3)
        fail(loc, "range takes 1 to 3 positional arguments (stop | start, stop | start, stop, step)");
      if (has_inits && carries.empty())
        fail(loc, "init_values needs carried names: for i, (acc,) in range(...)");
    }
    if (!carries.empty() && !has_inits) fail(carries.front().loc, "carried values need init_values=(...)");
    if (carries.size() != inits.size())
      fail(loc, "the loop carries " + std::to_string(carries.size()) + " value(s) but init_values has " +
                    std::to_string(inits.size()));

    std::vector<IterArg> iter_args;
    std::vector<TypePtr> carry_types;
    std::vector<bool> typed_by_use;  // the init's type is taken from the loop's yield
    for (std::size_t i = 0; i < carries.size(); ++i) {
      TypePtr t = deduce(inits[i]);  // a call's type too: `init_values=(self.helper(x),)`
      const bool literal = (inits[i]->is<IntImm>() && !inits[i]->as<IntImm>()->dtype) ||
                           (inits[i]->is<FloatImm>() && !inits[i]->as<FloatImm>()->dtype);
      typed_by_use.push_back(!t || literal);
      if (!t) t = unknown_type();  // until the yield tells
      iter_args.push_back(IterArg{make_var(carries[i].name, t, carries[i].loc), inits[i]});
      carry_types.push_back(std::move(t));
    }
    const std::size_t n_explicit = iter_args.size();
    std::vector<std::string> skip;
    if (loop_var) skip.push_back(loop_var->name);
    for (const auto& c : carries) skip.push_back(c.name);
    const std::vector<std::string> implicit = implicit_carries(header, skip);
    const std::vector<std::string> rv_names = add_implicit_iter_args(implicit, loc, iter_args, carry_types);
    VarPtr lv;
    push_scope();
    if (loop_var) {
      lv = make_var(loop_var->name, scalar_type(DataType::INDEX), loop_var->loc);
      define(lv, loop_var->loc);
    }
    for (std::size_t i = 0; i < n_explicit; ++i) define(iter_args[i].var, iter_args[i].var->loc);
    for (std::size_t i = 0; i < implicit.size(); ++i) bind_as(implicit[i], iter_args[n_explicit + i].var);
    YieldNameFrame own_names(*this);
    Block b = rooted_block(BlockKind::loop, frames_.size() - 1, is_while, &implicit);
    pop_scope();

    std::vector<VarPtr> rvs;
    if (n_explicit > 0) {
      if (!b.yield || !b.yield->named)
        fail(loc, "a loop with init_values must end with `" + carries[0].name + "_out" +
                      (carries.size() > 1 ? ", ..." : "") + " = yield_(...)` carrying " +
                      std::to_string(carries.size()) + " value(s)");
      if (b.yield->names.size() != n_explicit)
        fail(b.yield->loc, "the loop carries " + std::to_string(n_explicit) +
                               " value(s) but yield_ defines " + std::to_string(b.yield->names.size()));
      for (std::size_t i = 0; i < n_explicit; ++i) {
        if (!typed_by_use[i]) continue;
        // An initializer whose type cannot be told alone (a literal, an unregistered call) takes the
        // type of what the loop yields in its place.
        const TypePtr t = deduce(b.yield->stmt->values.at(i));
        if (carry_types[i]->is<UnknownType>()) {
          if (!t || t->is<UnknownType>())
            fail(loc,
                 "cannot tell the type of init value " + std::to_string(i + 1) +
                     " from it or from what the loop yields for it; bind it to an annotated variable first");
        } else if (!t || !t->is<ScalarType>()) {
          continue;  // a literal whose loop yields no scalar keeps the literal's type
        }
        iter_args[i].var->type = t;
        carry_types[i] = t;
      }
      std::vector<TypePtr> explicit_types(carry_types.begin(),
                                          carry_types.begin() + static_cast<std::ptrdiff_t>(n_explicit));
      rvs = bind_return_vars(*b.yield, yielded_types(*b.yield, explicit_types));
    } else if (b.yield && b.yield->named) {
      fail(b.yield->loc, "a loop without init_values cannot define names with yield_");
    }
    if (!implicit.empty()) {
      extend_yield(b, b.carried_out, loc);
      for (std::size_t i = 0; i < implicit.size(); ++i) {
        auto rv = make_var(rv_names[i], carry_types[n_explicit + i], loc);
        bind_as(implicit[i], rv);
        rvs.push_back(std::move(rv));
      }
    }
    if (is_while) return make_node<WhileStmt>(b.condition, std::move(iter_args), b.body, std::move(rvs), loc);
    ExprPtr start = args.size() >= 2 ? args[0] : int_imm(0);
    ExprPtr stop = args.size() >= 2 ? args[1] : args[0];
    ExprPtr step = args.size() == 3 ? args[2] : int_imm(1);
    return make_node<ForStmt>(std::move(lv), std::move(start), std::move(stop), std::move(step),
                              std::move(iter_args), b.body, std::move(rvs), fk, stage, std::move(attrs), loc);
  }

  StmtPtr parse_while() {
    const Token header = take();
    const Loc loc = header.loc;
    // What the body re-binds is carried, and the condition reads the carried values too.
    const std::vector<std::string> implicit = implicit_carries(header, {});
    std::vector<IterArg> iter_args;
    std::vector<TypePtr> types;
    const std::vector<std::string> rv_names = add_implicit_iter_args(implicit, loc, iter_args, types);
    push_scope();
    for (std::size_t i = 0; i < implicit.size(); ++i) bind_as(implicit[i], iter_args[i].var);
    ExprPtr cond = parse_expr();
    expect_op(":");
    YieldNameFrame own_names(*this);
    Block b = rooted_block(BlockKind::loop, frames_.size() - 1, false, &implicit);
    pop_scope();
    if (b.yield && b.yield->named)
      fail(b.yield->loc, "a while loop without carries cannot define names with yield_");
    std::vector<VarPtr> rvs;
    if (!implicit.empty()) {
      extend_yield(b, b.carried_out, loc);
      for (std::size_t i = 0; i < implicit.size(); ++i) {
        auto rv = make_var(rv_names[i], types[i], loc);
        bind_as(implicit[i], rv);
        rvs.push_back(std::move(rv));
      }
    }
    return make_node<WhileStmt>(std::move(cond), std::move(iter_args), b.body, std::move(rvs), loc);
  }

  StmtPtr parse_if() {
    const Loc loc = take().loc;  // `if` or `elif`
    ExprPtr cond = parse_expr();
    expect_op(":");
    YieldNameFrame own_names(*this);
    Block then_b = rooted_block(BlockKind::arm, frames_.size(), false);
    std::optional<Block> else_b;
    if (peek().is_name("else")) {
      take();
      expect_op(":");
      else_b = rooted_block(BlockKind::arm, frames_.size(), false);
    } else if (peek().is_name("elif")) {
      const Loc eloc = peek().loc;
      const std::size_t saved_root = block_root_;
      const BlockKind saved_kind = block_kind_;
      push_scope();
      block_root_ = frames_.size() - 1;
      block_kind_ = BlockKind::arm;
      StmtPtr nested = parse_if();
      block_root_ = saved_root;
      block_kind_ = saved_kind;
      else_b = Block{};
      else_b->rebinds = collect_rebinds();  // the nested if's phis
      pop_scope();
      else_b->loc = eloc;
      else_b->body = seq({std::move(nested)}, eloc);
    }
    const YieldInfo* ty = then_b.yield && then_b.yield->named ? &*then_b.yield : nullptr;
    const YieldInfo* ey = else_b && else_b->yield && else_b->yield->named ? &*else_b->yield : nullptr;
    std::vector<VarPtr> rvs;
    if (ty) {
      if (!else_b)
        fail(ty->loc, "the then arm defines '" + ty->names[0] +
                          "' with yield_, so the if needs an else arm that "
                          "yields it too");
      if (!ey)
        fail(ty->loc, "the else arm must end with `" + ty->names[0] + " = yield_(...)` like the then arm");
      if (ty->names != ey->names) {
        std::string a, b;
        for (const auto& n : ty->names) a += (a.empty() ? "" : ", ") + n;
        for (const auto& n : ey->names) b += (b.empty() ? "" : ", ") + n;
        fail(ey->loc, "the if arms yield different names: '" + a + "' and '" + b + "'");
      }
      std::vector<TypePtr> types;
      for (std::size_t i = 0; i < ty->names.size(); ++i)
        types.push_back(phi_type(ty->stmt->values[i], ey->stmt->values[i]));
      YieldInfo merged = *ty;
      if (!merged.annotation) merged.annotation = ey->annotation;
      rvs = bind_return_vars(merged, yielded_types(merged, types));
    } else if (ey) {
      fail(ey->loc, "the else arm defines '" + ey->names[0] + "' with yield_ but the then arm does not");
    }
    if (opt_.allow_rebinding) add_implicit_phis(then_b, else_b, ty, rvs, loc);
    return make_node<IfStmt>(std::move(cond), then_b.body, else_b ? else_b->body : nullptr, std::move(rvs),
                             loc);
  }

  /// PyPTO's DSL merges what the arms of an if bind: a name visible before the
  /// if and re-bound in either arm, or new and bound in both (when the if has
  /// no explicit results), becomes a phi
  /// (`x__phi_vN`); an arm that leaves it alone yields the value from before
  /// the if. Sorted by name, after any explicit results; an if without else
  /// gets one that only yields.
  void add_implicit_phis(Block& then_b, std::optional<Block>& else_b, const YieldInfo* explicit_yield,
                         std::vector<VarPtr>& rvs, Loc loc) {
    struct Phi {
      std::string name;
      ExprPtr then_value, else_value;
    };
    std::vector<Phi> phis;
    auto find = [](const std::vector<Rebind>& r, const std::string& n) -> const Rebind* {
      for (const auto& x : r)
        if (x.name == n) return &x;
      return nullptr;
    };
    static const std::vector<Rebind> none;
    const std::vector<Rebind>& er = else_b ? else_b->rebinds : none;
    auto is_explicit = [&](const std::string& n) {
      return explicit_yield && std::find(explicit_yield->names.begin(), explicit_yield->names.end(), n) !=
                                   explicit_yield->names.end();
    };
    for (const auto& t : then_b.rebinds) {
      if (is_explicit(t.name)) continue;
      const Rebind* e = find(er, t.name);
      if (t.before.var) phis.push_back({t.name, t.after.ref, e ? e->after.ref : t.before.ref});
      // New in both arms: a phi only where the if has no explicit results.
      // With them the program is in the explicit form (as printed), where
      // every result is spelled out and such names stay local to their arm.
      else if (e && !e->before.var && !explicit_yield)
        phis.push_back({t.name, t.after.ref, e->after.ref});
    }
    for (const auto& e : er)
      if (e.before.var && !find(then_b.rebinds, e.name) && !is_explicit(e.name))
        phis.push_back({e.name, e.before.ref, e.after.ref});
    if (phis.empty()) return;
    std::sort(phis.begin(), phis.end(), [](const Phi& a, const Phi& b) { return a.name < b.name; });
    std::vector<ExprPtr> tv, ev;
    for (const auto& p : phis) {
      tv.push_back(p.then_value);
      ev.push_back(p.else_value);
    }
    extend_yield(then_b, tv, loc);
    if (!else_b) {
      else_b = Block{};
      else_b->loc = loc;
    }
    extend_yield(*else_b, ev, loc);
    for (const auto& p : phis) {
      auto v = make_var(implicit_name(p.name, "phi"), phi_type(p.then_value, p.else_value), loc);
      bind_as(p.name, v);
      rvs.push_back(std::move(v));
    }
  }

  // ---- expressions -------------------------------------------------------------------------------------
  struct PE {
    ExprPtr e;
    std::uint32_t h = 1;  ///< height of the expression tree (printing recurses this deep)
  };

  ExprPtr parse_expr() {
    DepthGuard guard(*this, peek().loc);
    return parse_or().e;
  }

  PE combine(BinaryOp op, const PE& l, const PE& r, Loc loc) {
    ExprPtr e = binary(op, l.e, r.e);
    std::uint32_t h = 1;
    if (e->is<BinaryExpr>())
      h = std::max(l.h, r.h) + 1;
    else if (e == l.e)
      h = l.h;
    else if (e == r.e)
      h = r.h;
    if (h > opt_.max_depth)
      fail(loc, "expression is nested too deeply (more than " + std::to_string(opt_.max_depth) + " levels)");
    return {std::move(e), h};
  }

  PE parse_or() {
    PE l = parse_and();
    while (peek().is_name("or")) {
      const Loc loc = take().loc;
      l = combine(BinaryOp::Or, l, parse_and(), loc);
    }
    return l;
  }
  PE parse_and() {
    PE l = parse_not();
    while (peek().is_name("and")) {
      const Loc loc = take().loc;
      l = combine(BinaryOp::And, l, parse_not(), loc);
    }
    return l;
  }
  PE parse_not() {
    if (peek().is_name("not")) {
      const Loc loc = take().loc;
      DepthGuard guard(*this, loc);
      PE x = parse_not();
      return {unary(UnaryOp::Not, x.e), x.h + 1};
    }
    return parse_comparison();
  }
  static std::optional<BinaryOp> comparison_op(const Token& t) {
    if (t.kind != TokenKind::Op) return std::nullopt;
    if (t.text == "<") return BinaryOp::Lt;
    if (t.text == "<=") return BinaryOp::Le;
    if (t.text == ">") return BinaryOp::Gt;
    if (t.text == ">=") return BinaryOp::Ge;
    if (t.text == "==") return BinaryOp::Eq;
    if (t.text == "!=") return BinaryOp::Ne;
    return std::nullopt;
  }
  PE parse_comparison() {
    PE l = parse_arith(5);
    if (auto op = comparison_op(peek())) {
      const Loc loc = take().loc;
      l = combine(*op, l, parse_arith(5), loc);
      if (comparison_op(peek()))
        fail(peek().loc, "chained comparisons are not supported; use parentheses or `and`");
    }
    return l;
  }

  /// The non-comparison binary operator of `t` and its precedence.
  static std::optional<std::pair<BinaryOp, int>> arith_op(const Token& t) {
    if (t.kind != TokenKind::Op) return std::nullopt;
    const std::string_view s = t.text;
    const bool one = s.size() == 1;
    switch (s[0]) {
      case '|': return std::pair{BinaryOp::BitOr, 5};
      case '^': return std::pair{BinaryOp::BitXor, 6};
      case '&': return std::pair{BinaryOp::BitAnd, 7};
      case '<':
        if (s == "<<") return std::pair{BinaryOp::Shl, 8};
        break;
      case '>':
        if (s == ">>") return std::pair{BinaryOp::Shr, 8};
        break;
      case '+': return std::pair{BinaryOp::Add, 9};
      case '-':
        if (one) return std::pair{BinaryOp::Sub, 9};
        break;
      case '*':
        if (one) return std::pair{BinaryOp::Mul, 10};
        break;
      case '/': return one ? std::pair{BinaryOp::Div, 10} : std::pair{BinaryOp::FloorDiv, 10};
      case '%': return std::pair{BinaryOp::Mod, 10};
      default: break;
    }
    return std::nullopt;
  }

  /// Precedence climbing over | ^ & (<< >>) (+ -) (* / // %), left-associative.
  PE parse_arith(int min_prec) {
    PE l = parse_unary();
    while (auto op = arith_op(peek())) {
      if (op->second < min_prec) break;
      const Loc loc = take().loc;
      l = combine(op->first, l, parse_arith(op->second + 1), loc);
    }
    return l;
  }

  PE parse_unary() {
    const Token t = peek();  // a copy: take() below pops it
    if (t.is_op("-") || t.is_op("+") || t.is_op("~")) {
      const Loc loc = take().loc;
      DepthGuard guard(*this, loc);
      if (t.is_op("-") && peek().is(TokenKind::Int) && !peek(1).is_op("[")) {
        // `-9223372036854775808` is representable although its magnitude is not.
        const Token lit = take();
        const std::uint64_t u = parse_uint(lit);
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1)
          fail(lit.loc, "integer literal -" + std::string(lit.text) + " does not fit in 64 bits");
        const std::int64_t v = u == static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1
                                   ? std::numeric_limits<std::int64_t>::min()
                                   : -static_cast<std::int64_t>(u);
        return {int_imm(v), 1};
      }
      const bool neg = t.is_op("-"), inv = t.is_op("~");
      PE x = parse_unary();
      if (!neg && !inv) return x;  // unary plus
      ExprPtr e = unary(neg ? UnaryOp::Neg : UnaryOp::Invert, x.e);
      return {e, e->is<UnaryExpr>() ? x.h + 1 : x.h};
    }
    if (t.is_op("**")) fail(t.loc, "'**' is not supported");
    return parse_postfix();
  }

  PE parse_postfix() {
    PE e = parse_primary();
    while (peek().is_op("[")) {
      const Loc loc = take().loc;
      DepthGuard guard(*this, loc);
      ExprPtr index = parse_expr();
      expect_op("]");
      e = {subscript(e.e, std::move(index)), e.h + 1};
      if (e.h > opt_.max_depth) fail(loc, "expression is nested too deeply");
    }
    return e;
  }

  std::uint64_t parse_uint(const Token& t) {
    std::uint64_t v = 0;
    std::string_view s = t.text;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s.remove_prefix(2);
      base = 16;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size())
      fail(t.loc, "integer literal " + std::string(t.text) + " does not fit in 64 bits");
    return v;
  }

  PE parse_primary() {
    const Token t = peek();
    switch (t.kind) {
      case TokenKind::Int: {
        take();
        const std::uint64_t u = parse_uint(t);
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          fail(t.loc, "integer literal " + std::string(t.text) + " does not fit in a signed 64-bit integer");
        return {int_imm(static_cast<std::int64_t>(u)), 1};
      }
      case TokenKind::Float: {
        take();
        double v = 0;
        auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
        if (ec != std::errc() || p != t.text.data() + t.text.size())
          fail(t.loc, "float literal " + std::string(t.text) + " is out of range");
        return {float_imm(v), 1};
      }
      case TokenKind::String: take(); return {string_imm(unescape(t.text)), 1};
      case TokenKind::Op:
        if (t.is_op("(")) {
          take();
          if (accept_op(")")) return {tuple({}), 1};
          ExprPtr first = parse_expr();
          if (accept_op(")")) return {first, 1};
          std::vector<ExprPtr> elems{first};
          if (!accept_op(",")) close_group(")", t);
          while (!peek().is_op(")")) {
            elems.push_back(parse_expr());
            if (!accept_op(",")) break;
          }
          close_group(")", t);
          return {tuple(std::move(elems)), 1};
        }
        if (t.is_op("[")) {
          take();
          std::vector<ExprPtr> elems;
          while (!peek().is_op("]")) {
            elems.push_back(parse_expr());
            if (!accept_op(",")) break;
          }
          close_group("]", t);
          return {list(std::move(elems)), 1};
        }
        if (t.is_op("{")) {  // a dict literal: PyPTO's attrs={...}
          take();
          std::vector<ExprPtr> pairs;
          while (!peek().is_op("}")) {
            ExprPtr key = parse_expr();
            expect_op(":");
            pairs.push_back(tuple({std::move(key), parse_expr()}));
            if (!accept_op(",")) break;
          }
          close_group("}", t);
          return {dict_expr(std::move(pairs)), 1};
        }
        break;
      case TokenKind::Name: return {parse_name_expr(), 1};
      default: break;
    }
    fail(t.loc, "expected an expression, found " + describe(t));
  }

  ExprPtr parse_name_expr() {
    Dotted d = parse_dotted();
    if (peek().is_op("(")) return parse_call(d);
    if (d.size() == 1) {
      const std::string_view n = d[0];
      const Word w = classify_word(n);
      switch (w.kind) {
        case Word::Kind::true_lit: return bool_imm(true);
        case Word::Kind::false_lit: return bool_imm(false);
        case Word::Kind::none_lit: return none_imm();
        case Word::Kind::space: return space_imm(w.space);
        case Word::Kind::dtype: return dtype_imm(w.dtype);
        case Word::Kind::keyword: fail(d.loc, "expected an expression, found '" + std::string(n) + "'");
        case Word::Kind::none: break;
      }
      if (const Binding* b = lookup(n)) return b->ref;
      if (shape_mode_) {
        // A symbolic dim nobody defines (`Tensor[[N, 64], FP32]`): a free symbol.
        auto it = free_symbols_.find(n);
        if (it == free_symbols_.end())
          it = free_symbols_
                   .emplace(std::string(n),
                            var_ref(make_var(std::string(n), scalar_type(DataType::INDEX), d.loc)))
                   .first;
        return it->second;
      }
      fail(d.loc,
           "undefined name '" + std::string(n) +
               "' (a Python value from outside the function, such as a module or class constant, has no text "
               "form: write its value)");
    }
    if (auto s = dotted_space(d)) return space_imm(*s);
    if (auto dt = dotted_dtype(d)) return dtype_imm(*dt);
    // `TileLayout.row_major`, `tile.MaskPattern.P0101`: the part before the
    // value is the capitalised enum name.
    if (const auto en = d[d.size() - 2]; !en.empty() && en[0] >= 'A' && en[0] <= 'Z') {
      std::string name = std::string(d[0]);
      for (std::size_t i = 1; i + 1 < d.size(); ++i) name += "." + std::string(d[i]);
      return enum_imm(std::move(name), std::string(d.back()));
    }
    fail(d.loc, "unexpected '" + d.joined() + "': attribute access is not supported");
  }

  /// The closing bracket of a group opened by `open`.
  void close_group(std::string_view close, const Token& open) {
    if (accept_op(close)) return;
    fail(peek().loc, "expected '" + std::string(close) + "' to close '" + std::string(open.text) +
                         "' at line " + std::to_string(open.loc.line) + ", column " +
                         std::to_string(open.loc.column) + ", found " + describe(peek()));
  }

  void parse_call_args(std::vector<ExprPtr>& args, std::vector<Kwarg>& kwargs) {
    const Token open{TokenKind::Op, "(", last_open_};
    while (!peek().is_op(")")) {
      if (peek().is(TokenKind::Name) && peek(1).is_op("=")) {
        const Token key = take();
        take();
        for (const auto& kw : kwargs)
          if (kw.name == key.text)
            fail(key.loc, "keyword argument '" + std::string(key.text) + "' is given twice");
        kwargs.push_back(Kwarg{std::string(key.text), parse_expr()});
      } else {
        if (!kwargs.empty()) fail(peek().loc, "positional argument after keyword arguments");
        args.push_back(parse_expr());
      }
      if (!accept_op(",")) break;
    }
    close_group(")", open);
  }

  ExprPtr parse_call(const Dotted& d) {
    std::string op;
    bool shorthand = false;
    if (d.size() == 1) {
      const std::string_view n = d[0];
      if (n == "const") return parse_const(d.loc);
      if (n == "yield_")
        fail(d.loc, "yield_ is a statement: write `r = yield_(v)` as the last line of a loop or if body");
      if (n == "cond") fail(d.loc, "cond(...) is only allowed as the first line of a while_ loop body");
      if (n == "range" || n == "parallel" || n == "pipeline" || n == "while_")
        fail(d.loc, "'" + std::string(n) + "' is only allowed in a for header");
      if (n == "submit" || n == "spmd_submit")
        fail(d.loc,
             "'" + std::string(d.pl ? "pl." : "") + std::string(n) +
                 "(...)' launches a function as a task, which has no form in this IR; call the function "
                 "instead: `r = self.kernel(...)`");
      if (function_names_.count(n)) {
        op = n;
      } else if (auto fixed = dsl::fixed_op(n)) {
        op = std::move(*fixed);
      } else {
        op = "tile." + std::string(n);
        shorthand = true;
      }
    } else if (d[0] == "self") {
      op = d.joined(1);
      if (!function_names_.count(op)) fail(d.loc, "the program has no function '" + op + "'");
    } else {
      op = d.joined();
    }
    if (op == "tile.func_attr" || op == "func_attr")
      fail(d.loc,
           "pl.func_attr({...}) is not read; put function attributes on the decorator: "
           "@pl.function(type=..., attrs={...})");
    last_open_ = take().loc;  // '('
    DepthGuard guard(*this, d.loc);
    std::vector<ExprPtr> args;
    std::vector<Kwarg> kwargs;
    parse_call_args(args, kwargs);
    // A unified DSL op on a Tensor is the tensor op (`pl.slice(t, ...)` is tensor.slice).
    if (shorthand && !args.empty() && dsl::dispatches_on_operand(d[0]) && as_tensor(expr_type(args[0])))
      op = "tensor." + std::string(d[0]);
    if ((shorthand || d.pl) && opt_.dsl_defaults && (op == "tile.load" || op == "tile.create")) {
      bool has = false;
      for (const auto& kw : kwargs) has |= kw.name == "target_memory";
      if (!has) kwargs.push_back(Kwarg{"target_memory", space_imm(MemorySpace::Vec)});
    }
    // The DSL's load takes valid_shape as a keyword; the op's fourth argument.
    if ((shorthand || d.pl) && op == "tile.load" && args.size() == 3)
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it)
        if (it->name == "valid_shape") {
          args.push_back(std::move(it->value));
          kwargs.erase(it);
          break;
        }
    ExprPtr c = call(std::move(op), std::move(args), std::move(kwargs));
    if (d.pl) pl_calls_.insert(c.get());
    return c;
  }

  ExprPtr parse_const(Loc loc) {
    take();  // '('
    ExprPtr value = parse_expr();
    expect_op(",");
    DataType dt = parse_dtype();
    accept_op(",");
    expect_op(")");
    if (const auto* i = value->as<IntImm>()) return int_imm(i->value, dt);
    if (const auto* f = value->as<FloatImm>()) return float_imm(f->value, dt);
    if (const auto* b = value->as<BoolImm>()) return int_imm(b->value ? 1 : 0, dt);
    fail(loc, "const(...) takes a number and a data type, e.g. const(0, INT64)");
  }

  std::unordered_set<const Expr*> pl_calls_;
  bool last_yield_pl_ = false;  ///< calls written `pl.op(...)` (PyPTO's typing rules)

  Lexer lex_;
  std::string_view text_;  ///< the whole source: loop bodies are scanned ahead from it
  std::array<Token, 8> la_{};
  std::size_t la_head_ = 0, la_count_ = 0;
  NameSet function_names_;
  std::size_t depth_ = 0;
  bool shape_mode_ = false;
  Loc last_open_;  // the '(' whose arguments parse_call_args reads
};

}  // namespace detail

/// Parses a whole program. On error the program is empty and the one
/// diagnostic says where and what was expected.
[[nodiscard]] PTO_MEM_PYPTO_INLINE ParseResult parse_program(std::string_view text,
                                                             std::string file = "<input>",
                                                             const ParseOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE ParseResult parse_program(std::string_view text, std::string file,
                                                             const ParseOptions& options) {
  ParseResult r;
  try {
    detail::Parser p(text, file, options);
    r.program = p.run();
  } catch (const detail::ParseFailure& f) {
    r.program = Program{};
    r.program.file = file;
    r.diagnostics.push_back(f.diagnostic);
  } catch (const std::bad_alloc&) {
    r.program = Program{};
    r.diagnostics.push_back(error_at(file, {}, "out of memory while parsing"));
  } catch (const std::exception& e) {
    r.program = Program{};
    r.diagnostics.push_back(error_at(file, {}, std::string("internal error while parsing: ") + e.what()));
  }
  return r;
}
#endif

/// Reads and parses `path`; an unreadable file is a diagnostic too.
[[nodiscard]] PTO_MEM_PYPTO_INLINE ParseResult parse_file(const std::string& path,
                                                          const ParseOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE ParseResult parse_file(const std::string& path,
                                                          const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParseResult r;
    r.program.file = path;
    r.diagnostics.push_back(error_at(path, {}, "cannot open '" + path + "' for reading"));
    return r;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_program(ss.str(), path, options);
}
#endif

}  // namespace pto_mem::pypto
