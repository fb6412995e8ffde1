// A random kernel generator for the storage property test (test only). It
// writes valid programs in the text format (so a failure prints as a
// reproducible program) that stress what a memory planner must keep apart:
// loop initializers read inside and after their loop, carries swapped,
// rotated, yielded unchanged or sharing one initializer, nested for / while
// loops, branches inside loops with phis used later (phis of phis, two phis
// of one if on one value), Acc accumulators (matmul / matmul_acc, a peeled
// `k == 0` seed), views of carries, declared multi-slot allocations
// (constant and run-time slots), zero- and one-trip constant loops, and
// values defined last in a loop body and never used, and cross-core
// receives (tile.tpop_from_aic: no MemRef) among the loaded tiles.
//
// Some accumulations are preceded by an if choosing one of two Mat operands
// that are both read again afterwards (where logical tile selection puts the
// two in the slots of one Mat allocation), from a stream of their own.
//
// It also runs in-place ops over values still read afterwards (carries,
// phis, outer values: the passes must give the op a copy; fillpad_inplace,
// and tile.assemble, a view that writes its source) and half-height phis of
// slices.
//
// From a stream of its own (the kernels are otherwise the same), the whole
// class of ops whose tile result lands in a source buffer appears: a whole
// view is a reshape, reinterpret_view, transpose_view or set_validshape, and
// a write over a whole tile fillpad_inplace, scatter_mask, gather_row or
// tget_scale_addr (reading a second tile) as well as assemble.
//
// Author-level rule it keeps (so every program is one a planner must get
// right): a tile bound to a declared slot is read only by the next
// statement (two tiles on one slot are never live at once).
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace pto_mem::test {

class StorageKernelGen {
 public:
  explicit StorageKernelGen(std::uint64_t seed)
      : rng_(seed),
        tag_rng_(seed),
        recv_rng_(seed ^ 0x9e3779b97f4a7c15ULL),
        mat_rng_(seed ^ 0x5bd1e9955bd1e995ULL),
        view_rng_(seed ^ 0xc2b2ae3d27d4eb4fULL) {}

  /// Tags about half of the defined tiles as clones of `pl.pipeline` bodies
  /// (`attrs={"pipeline_membership": "g:k"}`, groups 0-1, stages 0-2), from a
  /// random stream of their own: the kernels are otherwise the same.
  StorageKernelGen& with_stage_tags(bool on = true) {
    stage_tags_ = on;
    return *this;
  }

  /// The last kernel made needs a copy no hardware has (an Acc-to-Acc carry
  /// copy): a refusal naming it is the right answer.
  [[nodiscard]] bool needs_acc_copy() const noexcept { return needs_acc_copy_; }

  std::string make() {
    out_.str("");
    out_ << "@function(type=InCore)\n"
         << "def main(x: Tensor[[64, 64], FP32],\n"
         << "         a_ddr: Tensor[[64, 64], BF16],\n"
         << "         b_ddr: Tensor[[64, 64], BF16],\n"
         << "         c: Scalar[INDEX],\n"
         << "         o: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n";
    scopes_.assign(1, {});
    needs_acc_copy_ = false;
    loop_vars_.clear();
    budget_ = pick(6, 30);
    while (budget_ > 0) statement(0);
    const Val* v = any(S);
    std::string src = v ? v->name : load(S);
    const std::string r = fresh("r");
    line(1, r + ": Tensor[[64, 64], FP32] = tile.store(" + src + ", [0, 0], o)");
    line(1, "return " + r);
    return out_.str();
  }

 private:
  enum Shape { S, H };  // [16, 16] and [8, 16] FP32 Vec tiles
  struct Val {
    std::string name;
    Shape shape;
    bool plain;  ///< an op result of its block nothing else refers to: may be overwritten in place
  };

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
  std::string fresh(const char* prefix) { return prefix + std::to_string(next_++); }
  static const char* type(Shape s) {
    return s == S ? "Tile[[16, 16], FP32, Vec]" : "Tile[[8, 16], FP32, Vec]";
  }
  int depth() const { return static_cast<int>(scopes_.size()) - 1; }

  void line(int indent, const std::string& text) {
    out_ << std::string(static_cast<std::size_t>(4 * indent), ' ') << text << "\n";
  }
  void emit(const std::string& text) { line(depth() + 1, text); }

  std::vector<Val*> visible(Shape s) {
    std::vector<Val*> out;
    for (auto& sc : scopes_)
      for (auto& v : sc)
        if (v.shape == s) out.push_back(&v);
    return out;
  }
  Val* any(Shape s) {
    auto v = visible(s);
    if (v.empty()) return nullptr;
    return v[static_cast<std::size_t>(pick(0, static_cast<int>(v.size()) - 1))];
  }
  std::string def(Shape s, const std::string& rhs, bool plain = true) {
    const std::string n = fresh("v");
    emit(n + ": " + type(s) + " = " + tagged(rhs));
    scopes_.back().push_back(Val{n, s, plain});
    return n;
  }
  std::string tagged(const std::string& rhs) {
    if (!stage_tags_ || rhs.empty() || rhs.back() != ')' || !std::bernoulli_distribution(0.5)(tag_rng_))
      return rhs;
    const int g = std::uniform_int_distribution<int>(0, 1)(tag_rng_),
              k = std::uniform_int_distribution<int>(0, 2)(tag_rng_);
    return rhs.substr(0, rhs.size() - 1) + ", attrs={\"pipeline_membership\": \"" + std::to_string(g) + ":" +
           std::to_string(k) + "\"})";
  }
  void retire(const std::string& name) {
    for (auto& sc : scopes_)
      for (std::size_t i = 0; i < sc.size(); ++i)
        if (sc[i].name == name) sc.erase(sc.begin() + static_cast<std::ptrdiff_t>(i--));
  }
  std::string load(Shape s) {
    // Some full-size tiles come from a cross-core receive instead (no MemRef:
    // the value lives in its pipe slot), from a stream of their own, so the
    // kernels are otherwise the same.
    if (s == S && std::bernoulli_distribution(0.15)(recv_rng_)) return def(s, "tile.tpop_from_aic(split=0)");
    return def(s, s == S ? "tile.load(x, [0, 0], [16, 16], target_memory=Vec)"
                         : "tile.load(x, [8, 0], [8, 16], target_memory=Vec)");
  }
  /// A visible value of shape s, loading one when there is none.
  std::string use(Shape s) {
    Val* v = any(s);
    if (!v) return load(s);
    v->plain = false;
    return v->name;
  }

  /// A write over all of `a`'s window: fillpad_inplace, or an assemble of a
  /// half-height part into `a` (a view that writes its source).
  void in_place_over(const std::string& a) {
    if (coin(0.6)) {
      // fillpad_inplace, or another op writing over its first operand that reads a second tile.
      static const char* two[] = {"tile.scatter_mask", "tile.gather_row", "tile.tget_scale_addr"};
      const int k = std::uniform_int_distribution<int>(0, 3)(view_rng_);
      auto others = visible(S);
      if (k == 0 || others.empty()) {
        def(S, "tile.fillpad_inplace(" + a + ")");
        return;
      }
      Val* b = others[std::uniform_int_distribution<std::size_t>(0, others.size() - 1)(view_rng_)];
      b->plain = false;
      const std::string tail = k == 2 ? ", 0, 0, [16, 16])" : ")";
      def(S, std::string(two[k - 1]) + "(" + a + ", " + b->name + tail);
      return;
    }
    const std::string part = use(H);
    def(S, "tile.assemble(" + a + ", " + part + ", [" + (coin() ? "8" : "0") + ", 0])");
  }

  /// A view of all of `a` ([16, 16] FP32), the op from the view stream.
  std::string whole_view(const std::string& a) {
    switch (std::uniform_int_distribution<int>(0, 3)(view_rng_)) {
      case 1: return "tile.reinterpret_view(" + a + ", [16, 16], dtype=FP32)";
      case 2: return "tile.transpose_view(" + a + ")";
      case 3: return "tile.set_validshape(" + a + ", 16, 8)";
      default: return "tile.reshape(" + a + ", [16, 16])";
    }
  }

  void statement(int d) {
    --budget_;
    const int k = pick(0, d < 3 ? 17 : 10);
    switch (k) {
      case 0: load(coin(0.8) ? S : H); break;
      case 1:
      case 2: {
        static const char* unary[] = {"tile.exp", "tile.abs", "tile.neg", "tile.recip", "tile.relu"};
        const Shape s = coin(0.8) ? S : H;
        const std::string a = use(s);
        def(s, std::string(unary[pick(0, 4)]) + "(" + a + ")");
        break;
      }
      case 3:
      case 4: {
        static const char* binary[] = {"tile.add", "tile.mul", "tile.sub", "tile.maximum"};
        const std::string a = use(S), b = use(S);
        def(S, std::string(binary[pick(0, 3)]) + "(" + a + ", " + b + ")");
        break;
      }
      case 5: def(S, "tile.move(" + use(S) + ", target_memory=Vec)"); break;
      case 6: {  // views: a whole reshape or a half slice (of a carry, a phi, anything)
        const std::string a = use(S);
        if (coin())
          def(S, whole_view(a), false);
        else
          def(H, "tile.slice(" + a + ", [8, 16], [" + (coin() ? "8" : "0") + ", 0])", false);
        break;
      }
      case 7: {           // in place over a plain value of this block, which is then dead
        if (coin(0.4)) {  // or over any visible value (a carry, a phi, an outer value) still read later:
          const std::string a = use(S);  // the passes must let the op work on a copy
          in_place_over(a);
          break;
        }
        Val* target = nullptr;
        for (auto& v : scopes_.back())
          if (v.plain && v.shape == S) target = &v;
        if (!target) break;
        const std::string a = target->name;
        retire(a);
        in_place_over(a);
        break;
      }
      case 8: {
        const Shape s = coin(0.8) ? S : H;
        emit(fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + use(s) + ", [0, 0], o)");
        break;
      }
      case 9:
      case 10:
        if (loop_vars_.empty() || !coin(0.5)) break;
        slot_pingpong();
        break;
      case 11:
      case 12: branch(d); break;
      case 13:
      case 14: for_loop(d); break;
      case 15: while_loop(d); break;
      case 16: acc_loop(); break;
      case 17: declared_carry(); break;
      default: break;
    }
  }

  /// Statements of a nested block; true when it wrote any.
  bool body(int d, int lo, int hi) {
    const auto before = out_.tellp();
    for (int i = pick(lo, hi); i > 0; --i) statement(d + 1);
    return out_.tellp() != before;
  }

  /// yield values for `n` phis / carries of shape S, picked from what is visible.
  std::vector<std::string> yields(std::size_t n, const std::vector<std::string>& carries) {
    std::vector<std::string> out;
    if (!carries.empty() && coin(0.3)) {  // a rotation (a swap for two)
      const std::size_t r = static_cast<std::size_t>(pick(1, static_cast<int>(carries.size())));
      for (std::size_t k = 0; k < n; ++k) out.push_back(carries[(k + r) % carries.size()]);
      return out;
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (!carries.empty() && coin(0.25))
        out.push_back(carries[k < carries.size() ? k : 0]);  // unchanged
      else if (k > 0 && coin(0.2))
        out.push_back(out[0]);  // one value twice
      else
        out.push_back(use(S));
    }
    return out;
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  }

  void branch(int d) {
    std::string cond = "c < 1";
    if (!loop_vars_.empty() && coin(0.6)) cond = loop_vars_.back() + (coin() ? " == 0" : " < 2");
    const std::size_t phis = static_cast<std::size_t>(pick(0, 2));
    // Half-height phis are yielded slices or half loads (a phi of a view).
    const Shape shape = coin(0.2) ? H : S;
    std::vector<std::string> names;
    for (std::size_t k = 0; k < phis; ++k) names.push_back(fresh("p"));
    emit("if " + cond + ":");
    for (int arm = 0; arm < 2; ++arm) {
      if (arm == 1) emit("else:");
      scopes_.emplace_back();
      const bool wrote = body(d, 0, 2);
      if (phis) {
        std::vector<std::string> ys;
        if (shape == S) {
          ys = yields(phis, {});
        } else {
          for (std::size_t k = 0; k < phis; ++k) ys.push_back(k > 0 && coin(0.2) ? ys[0] : use(H));
        }
        emit(join(names) + " = yield_(" + join(ys) + ")");
      } else if (!wrote) {
        emit("pass");
      }
      scopes_.pop_back();
    }
    for (const auto& n : names) scopes_.back().push_back(Val{n, shape, false});
  }

  /// Initializers for `n` carries: visible values, sometimes one value twice.
  std::vector<std::string> inits(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < n; ++k) out.push_back(k > 0 && coin(0.25) ? out[0] : use(S));
    return out;
  }

  void for_loop(int d) {
    static const char* trips[] = {"0", "1", "2", "3", "c", "1, 3"};
    const std::string range = trips[pick(0, 5)];
    const std::size_t n = static_cast<std::size_t>(pick(0, 3));
    const auto init = inits(n);
    const std::string iv = fresh("i");
    std::vector<std::string> carries, results;
    for (std::size_t k = 0; k < n; ++k) {
      carries.push_back(fresh("a"));
      results.push_back(fresh("q"));
    }
    if (n)
      emit("for " + iv + ", (" + join(carries) + (n == 1 ? "," : "") + ") in range(" + range +
           ", init_values=(" + join(init) + (n == 1 ? "," : "") + ")):");
    else
      emit("for " + iv + " in range(" + range + "):");
    scopes_.emplace_back();
    loop_vars_.push_back(iv);
    for (const auto& a : carries) scopes_.back().push_back(Val{a, S, false});
    const bool wrote = body(d, 1, 4);
    if (n)
      emit(join(results) + " = yield_(" + join(yields(n, carries)) + ")");
    else if (!wrote)
      emit(fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + use(S) + ", [0, 0], o)");
    loop_vars_.pop_back();
    scopes_.pop_back();
    for (const auto& q : results) scopes_.back().push_back(Val{q, S, false});
  }

  void while_loop(int d) {
    const std::size_t n = static_cast<std::size_t>(pick(1, 2));
    const auto init = inits(n);
    const std::string k = fresh("k");
    std::vector<std::string> carries{k}, results{fresh("kq")};
    for (std::size_t j = 0; j < n; ++j) {
      carries.push_back(fresh("a"));
      results.push_back(fresh("q"));
    }
    emit("for (" + join(carries) + ") in while_(init_values=(0, " + join(init) + ")):");
    scopes_.emplace_back();
    line(depth() + 1, "cond(" + k + " < " + std::to_string(pick(0, 3)) + ")");
    std::vector<std::string> tiles(carries.begin() + 1, carries.end());
    for (const auto& a : tiles) scopes_.back().push_back(Val{a, S, false});
    body(d, 1, 3);
    const std::string k2 = fresh("k");
    emit(k2 + ": Scalar[INDEX] = " + k + " + 1");
    auto ys = yields(n, tiles);
    ys.insert(ys.begin(), k2);
    emit(join(results) + " = yield_(" + join(ys) + ")");
    scopes_.pop_back();
    for (std::size_t j = 1; j < results.size(); ++j) scopes_.back().push_back(Val{results[j], S, false});
  }

  /// An if choosing one of two Mat operands, both read again after it.
  void mat_select() {
    const std::string m0 = fresh("mm"), m1 = fresh("mm"), sel = fresh("ms"), c0 = fresh("mc"),
                      c1 = fresh("mc");
    emit(m0 + ": Tile[[16, 16], BF16] = tile.load(a_ddr, [0, 0], [16, 16], target_memory=Mat)");
    emit(m1 + ": Tile[[16, 16], BF16] = tile.load(b_ddr, [0, 0], [16, 16], target_memory=Mat)");
    emit("if c < 1:");
    line(depth() + 2, sel + " = yield_(" + m0 + ")");
    emit("else:");
    line(depth() + 2, sel + " = yield_(" + m1 + ")");
    emit(c0 + ": Tile[[16, 16], FP32] = tile.matmul(" + sel + ", " + m1 + ")");
    emit(c1 + ": Tile[[16, 16], FP32] = tile.matmul(" + m0 + ", " + m1 + ")");
    emit(fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + c0 + ", [0, 0], o)");
    emit(fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + c1 + ", [0, 0], o)");
  }

  /// A K-tiled accumulation in Acc, sometimes with the seed peeled into `if k == 0`.
  void acc_loop() {
    if (std::bernoulli_distribution(0.3)(mat_rng_)) mat_select();
    static const char* ranges[] = {"0, 64, 16", "0, 16, 16", "0, 0, 16", "0, 32, 16"};
    const std::string c0 = fresh("c"), k = fresh("k"), acc = fresh("acc"), res = fresh("cr");
    emit(c0 + ": Tile[[16, 16], FP32] = tile.create([16, 16], dtype=FP32, target_memory=Acc)");
    emit("for " + k + ", (" + acc + ",) in range(" + ranges[pick(0, 3)] + ", init_values=(" + c0 + ",)):");
    const int in = depth() + 2;
    const std::string a = fresh("ma"), b = fresh("mb");
    line(in, a + ": Tile[[16, 16], BF16] = tile.load(a_ddr, [0, " + k + "], [16, 16], target_memory=Mat)");
    line(in, b + ": Tile[[16, 16], BF16] = tile.load(b_ddr, [" + k + ", 0], [16, 16], target_memory=Mat)");
    if (coin()) {
      const std::string nx = fresh("cn");
      line(in, nx + ": Tile[[16, 16], FP32] = tile.matmul_acc(" + acc + ", " + a + ", " + b + ")");
      line(in, res + " = yield_(" + nx + ")");
    } else {
      const std::string s = fresh("cs"), m = fresh("cm"), ph = fresh("cp");
      line(in, "if " + k + " == 0:");
      line(in + 1, s + ": Tile[[16, 16], FP32] = tile.matmul(" + a + ", " + b + ")");
      line(in + 1, ph + " = yield_(" + s + ")");
      line(in, "else:");
      line(in + 1, m + ": Tile[[16, 16], FP32] = tile.matmul_acc(" + acc + ", " + a + ", " + b + ")");
      line(in + 1, ph + " = yield_(" + m + ")");
      // Reading the accumulator's input after the if keeps the seed off its
      // buffer, and the carry then needs an Acc-to-Acc copy, which does not
      // exist: the passes must refuse such a kernel (code unsupported-copy).
      if (coin(0.25)) {
        line(in, fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + acc + ", [0, 0], o)");
        needs_acc_copy_ = true;
      }
      line(in, res + " = yield_(" + ph + ")");
    }
    emit(fresh("st") + ": Tensor[[64, 64], FP32] = tile.store(" + res + ", [0, 0], o)");
  }

  /// A carry whose initializer is on slot 0 of a declaration and whose update on slot 1.
  void declared_carry() {
    const std::string decl = fresh("d"), s0 = fresh("s"), i = fresh("i"), a = fresh("a"), n = fresh("n"),
                      r = fresh("q");
    const std::string mr = "MemRef(\"" + decl + "\", slots=2)";
    emit(s0 + ": Tile[[16, 16], FP32, " + mr +
         "[0], Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)");
    emit("for " + i + ", (" + a + ",) in range(" + std::to_string(pick(1, 3)) + ", init_values=(" + s0 +
         ",)):");
    line(depth() + 2, n + ": Tile[[16, 16], FP32, " + mr + "[1], Vec] = tile.add(" + a + ", " + a + ")");
    line(depth() + 2, r + " = yield_(" + n + ")");
    scopes_.back().push_back(Val{r, S, false});
  }

  /// A ping-pong slot `[i % 2]` read right away.
  void slot_pingpong() {
    const std::string decl = fresh("d"), p = fresh("s");
    emit(p + ": Tile[[16, 16], FP32, MemRef(\"" + decl + "\", slots=2)[" + loop_vars_.back() +
         " % 2], Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)");
    def(S, "tile.exp(" + p + ")");
  }

  bool needs_acc_copy_ = false;
  std::mt19937_64 rng_;
  std::mt19937_64 tag_rng_;   // stage tags only, so tagging leaves the kernel itself unchanged
  std::mt19937_64 recv_rng_;  // which loads are cross-core receives
  std::mt19937_64 mat_rng_;   // which accumulations a Mat operand choice precedes
  std::mt19937_64 view_rng_;  // which view or in-place op of the class
  bool stage_tags_ = false;
  std::ostringstream out_;
  std::vector<std::vector<Val>> scopes_;
  std::vector<std::string> loop_vars_;
  int budget_ = 0;
  int next_ = 0;
};

}  // namespace pto_mem::test
