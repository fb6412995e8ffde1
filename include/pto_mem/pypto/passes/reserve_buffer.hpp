// `system.reserve_buffer(name=..., size=S, base=B)` windows:
// leading windows of a function's cross-core space (Mat for AIC
// functions, Vec for AIV and InCore ones) that no tile may use.
//
// In program order, an explicit base B >= 0 is kept as written and an
// automatic one (B absent or -1) takes the next free base; the window is
// [base, Align(base + S)). Overlapping an earlier window is an error, as is
// S <= 0 or a size that is not a constant. Tiles are placed from the
// highest window end (a floor, not a free list: [0, B) below an explicit
// base stays unused). AllocateMemoryAddr writes each resolved base back into
// its call.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

struct ReserveWindow {
  std::string name;
  MemorySpace space = MemorySpace::Vec;
  Addr base = 0;
  Addr end = 0;  ///< aligned end
};

struct ReserveResolution {
  std::vector<ReserveWindow> windows;
  std::array<Addr, memory_space_count> reserved_end{};  ///< per space
  std::unordered_map<const Call*, Addr> resolved_base;  ///< per reserve_buffer call
  Diagnostics errors;

  [[nodiscard]] Addr floor(MemorySpace s) const noexcept { return reserved_end[index_of(s)]; }
};

/// The space a function's reserve buffers live in.
[[nodiscard]] constexpr MemorySpace cross_core_space(FunctionKind k) noexcept {
  return k == FunctionKind::AIC ? MemorySpace::Mat : MemorySpace::Vec;
}

[[nodiscard]] inline ReserveResolution resolve_reserve_buffers(const Function& f, const Program& p,
                                                               const PassContext& ctx) {
  ReserveResolution out;
  const MemorySpace space = cross_core_space(f.kind);
  const Addr align = space_alignment(ctx, space);
  Addr next_base = 0;
  auto fail = [&](Loc loc, std::string m) {
    out.errors.push_back(pass_error(p, loc, std::move(m), code::reserve_buffer));
  };
  auto visit = [&](const ExprPtr& e, Loc loc) {
    const Call* c = call_of(e);
    // (as a string_view: the length is compared first, so other ops cost no memcmp)
    if (!c || std::string_view(c->op) != "system.reserve_buffer" || !out.errors.empty()) return;
    auto arg = [&](const char* kw, std::size_t pos) -> const ExprPtr* {
      if (const ExprPtr* k = c->kwarg(kw)) return k;
      return pos < c->args.size() ? &c->args[pos] : nullptr;
    };
    std::string name = "reserve_buffer";
    if (const ExprPtr* n = arg("name", 0))
      if (const auto* s = (*n)->as<StringImm>()) name = s->value;
    const ExprPtr* size_expr = arg("size", 1);
    const auto size = size_expr ? as_const_int(*size_expr) : std::nullopt;
    if (!size) {
      fail(loc, "system.reserve_buffer '" + name + "' in function '" + f.name +
                    "' needs a compile-time constant size (size=<bytes>)");
      return;
    }
    if (*size <= 0) {
      fail(loc, "reserve_buffer requires size > 0: '" + name + "' in function '" + f.name + "' has size " +
                    std::to_string(*size));
      return;
    }
    std::optional<std::int64_t> base = -1;
    if (const ExprPtr* b = arg("base", 2)) base = as_const_int(*b);
    if (!base) {
      fail(loc, "system.reserve_buffer '" + name + "' in function '" + f.name +
                    "' needs a constant base (or none, or -1, for an automatic one)");
      return;
    }
    const Addr start = *base >= 0 ? static_cast<Addr>(*base) : next_base;
    const auto raw_end = checked_add(start, static_cast<Addr>(*size));
    const auto end = raw_end ? align_up(*raw_end, align) : std::nullopt;
    if (!end) {
      fail(loc, "system.reserve_buffer '" + name + "' in function '" + f.name + "' ends beyond 2^64 bytes");
      return;
    }
    for (const auto& w : out.windows)
      if (start < w.end && w.base < *end) {
        fail(loc, "overlapping reserve_buffer ranges in function '" + f.name + "': [" +
                      std::to_string(start) + ", " + std::to_string(*end) + ") overlaps with [" +
                      std::to_string(w.base) + ", " + std::to_string(w.end) + ") ('" + name + "' and '" +
                      w.name +
                      "'); give one of them a base outside the other's window, or leave both automatic");
        return;
      }
    out.windows.push_back({name, space, start, *end});
    out.resolved_base[c] = start;
    next_base = std::max(next_base, *end);
    auto& floor = out.reserved_end[index_of(space)];
    floor = std::max(floor, *end);
  };
  for_each_statement(f.body, [&](const Stmt& s) {
    if (const auto* a = s.as<AssignStmt>()) visit(a->value, s.loc);
    if (const auto* e = s.as<EvalStmt>()) visit(e->value, s.loc);
  });
  return out;
}

/// `f` with each resolved reserve_buffer call carrying `base=<address>`.
[[nodiscard]] inline Function write_reserve_bases(const Function& f, const ReserveResolution& r) {
  if (r.resolved_base.empty()) return f;
  struct Rewrite : IRMutator {
    const ReserveResolution* r;
    ExprPtr mutate_call(const Call& c, const ExprPtr& self) override {
      auto it = r->resolved_base.find(&c);
      if (it == r->resolved_base.end()) return IRMutator::mutate_call(c, self);
      std::vector<ExprPtr> args = c.args;
      std::vector<Kwarg> kwargs = c.kwargs;
      const ExprPtr value = int_imm(static_cast<std::int64_t>(it->second));
      bool set = false;
      for (auto& kw : kwargs)
        if (kw.name == "base") kw.value = value, set = true;
      if (!set && args.size() > 2) args[2] = value, set = true;
      if (!set) kwargs.push_back({"base", value});
      return call(c.op, std::move(args), std::move(kwargs));
    }
  } m;
  m.r = &r;
  return m.mutate_function(f);
}

/// The note appended to a capacity error of a space with a
/// reserved floor, with the cross-core ring advice when one of the windows is
/// the kernel's automatic pipe ring.
[[nodiscard]] inline std::string reserve_note(const Function& f, const ReserveResolution& r, MemorySpace s) {
  const Addr floor = r.floor(s);
  if (floor == 0) return {};
  std::string note =
      ". The first " + std::to_string(floor) +
      " bytes of that space are reserved by system.reserve_buffer, so tiles are allocated above them";
  std::string kernel = f.name;
  for (const char* suffix : {"_aic", "_aiv"})
    if (kernel.size() > 4 && kernel.ends_with(suffix)) kernel.resize(kernel.size() - 4);
  for (const auto& w : r.windows)
    if (w.space == s && (w.name == kernel + "_c2v_slot_buffer" || w.name == kernel + "_v2c_slot_buffer")) {
      note +=
          "; '" + w.name +
          "' is the automatic cross-core pipe ring: lower pl.cross_core_slot(slot_num=N) or shrink the tile "
          "crossing the cube/vector boundary";
      break;
    }
  return note;
}

}  // namespace pto_mem::pypto::passes
