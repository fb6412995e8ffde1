// Which pipe performs an op's memory accesses (upstream DSA-RP's
// `TryInferPipe`), from its memory contract, the spaces involved and the
// SoC's direct transfer routes. "No pipe" makes the recognizer price nothing.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "pto_mem/pypto/ops/op_spec.hpp"
#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

/// The pipe of a direct transfer src -> dst, when the SoC has that route.
[[nodiscard]] inline std::optional<Pipe> transfer_pipe(const SocPolicy& soc, MemorySpace src,
                                                       MemorySpace dst) {
  using enum MemorySpace;
  if (!soc.has_route(src, dst)) return std::nullopt;
  if (src == DDR && (dst == Vec || dst == Mat)) return Pipe::MTE2;
  if ((src == Vec || src == Mat) && dst == DDR) return Pipe::MTE3;
  if (src == Acc && (dst == DDR || dst == Mat || dst == Vec)) return Pipe::FIX;
  if (src == Mat && is_l0(dst)) return Pipe::MTE1;
  if (src == Vec && dst == Mat) return Pipe::MTE3;
  return std::nullopt;
}

/// The pipe of a call of `op` (null: unregistered) whose result lives in
/// `result` (nullopt: no single result space) and whose arguments with a
/// space are in `args`.
[[nodiscard]] inline std::optional<Pipe> infer_pipe(const OpSpec* spec, std::string_view op,
                                                    std::optional<MemorySpace> result,
                                                    std::span<const MemorySpace> args, const SocPolicy& soc) {
  using enum MemorySpace;
  if (spec && spec->evidence == AccessEvidence::no_access) return std::nullopt;
  if (spec && spec->pipe) return spec->pipe;
  if (op == "tile.move") {
    if (!result || args.size() != 1) return std::nullopt;
    const MemorySpace s = args[0];
    if (s == *result && s != DDR && s != ScalarLocal) return Pipe::V;  // same-space TMOV
    return transfer_pipe(soc, s, *result);
  }
  if (result == ScalarLocal) return Pipe::S;
  auto single_other = [&](std::initializer_list<MemorySpace> ignore) -> std::optional<MemorySpace> {
    std::optional<MemorySpace> only;
    for (auto a : args) {
      bool skip = false;
      for (auto i : ignore) skip |= a == i;
      if (skip) continue;
      if (only && *only != a) return std::nullopt;
      only = a;
    }
    return only;
  };
  if (result && *result != DDR) {
    const MemorySpace r = *result;
    for (auto a : args)
      if (a == DDR) return transfer_pipe(soc, DDR, r);
    if (auto s = single_other({DDR, ScalarLocal, r}))
      if (auto p = transfer_pipe(soc, *s, r)) return p;
    bool all_vec = true, all_l0 = true;
    for (auto a : args) {
      all_vec &= a == Vec || a == ScalarLocal;
      all_l0 &= is_l0(a);
    }
    if (r == Vec && all_vec) return Pipe::V;
    if (is_l0(r) && all_l0) return Pipe::M;
    return std::nullopt;
  }
  if (result == DDR)
    if (auto s = single_other({DDR, ScalarLocal})) return transfer_pipe(soc, *s, DDR);
  return std::nullopt;
}

}  // namespace pto_mem::pypto
