// How the parser reads PyPTO's DSL names (`pl.<name>(...)` without a
// namespace) and types the results of PyPTO ops our op registry does not
// describe (tensor-level ops, block indices, barriers). Both follow PyPTO's
// `pypto.language` exports and its ops' type deduction.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/types.hpp"

namespace pto_mem::pypto::dsl {

/// PyPTO keeps these in `system.` (`pl.reserve_buffer` is `system.reserve_buffer`).
inline constexpr std::array<std::string_view, 19> system_names = {"aic_initialize_pipe",
                                                                  "aiv_initialize_pipe",
                                                                  "import_peer_buffer",
                                                                  "reserve_buffer",
                                                                  "tfree_to_aic",
                                                                  "tfree_to_aiv",
                                                                  "sync_set",
                                                                  "sync_wait",
                                                                  "set_ffts",
                                                                  "syncall",
                                                                  "syncall_soft",
                                                                  "cacheinvalid",
                                                                  "fence",
                                                                  "bar_v",
                                                                  "bar_m",
                                                                  "bar_all",
                                                                  "task_invalid",
                                                                  "available_cluster_count",
                                                                  "available_aiv_count"};

/// `pl.<name>` exports that are tensor ops whatever their operands.
[[nodiscard]] inline std::optional<std::string> fixed_op(std::string_view n) {
  if (n == "create_tensor") return std::string("tensor.create");
  if (n == "create_tile") return std::string("tile.create");
  if (n == "get_block_idx" || n == "get_block_num" || n == "get_subblock_idx" || n == "create_l1" ||
      n == "dim" || n == "full" || n == "expand_clone")
    return "tensor." + std::string(n);
  for (auto s : system_names)
    if (s == n) return "system." + std::string(n);
  return std::nullopt;
}

/// Unified ops dispatch on their first operand: a Tensor makes `pl.slice`
/// `tensor.slice`, a Tile `tile.slice`. `load` reads a tensor into a tile, so
/// it is a tile op whatever its operand.
[[nodiscard]] inline bool dispatches_on_operand(std::string_view n) {
  return n != "load" && n != "store" && n != "move" && n != "prefetch";
}

/// The result type of an op the registry does not type, or null.
[[nodiscard]] inline TypePtr fallback_type(const Call& c) {
  const std::string_view op = c.op;
  auto list_arg = [&](std::size_t i) -> const std::vector<ExprPtr>* {
    return i < c.args.size() ? as_sequence(c.args[i]) : nullptr;
  };
  auto kwarg_dtype = [&](std::string_view name) -> std::optional<DataType> {
    const ExprPtr* v = c.kwarg(name);
    return v ? as_dtype(*v) : std::nullopt;
  };
  if (op == "tensor.create" || op == "tensor.full") {
    const auto* shape = list_arg(0);
    auto dt = kwarg_dtype("dtype");
    if (!dt && op == "tensor.full" && c.args.size() > 2) dt = as_dtype(c.args[2]);
    if (!shape || !dt) return nullptr;
    return tensor_type(*shape, *dt);
  }
  if (op == "tensor.slice" || op == "tensor.reshape") {
    const auto* src = c.args.empty() ? nullptr : as_tensor(expr_type(c.args[0]));
    const auto* shape = list_arg(1);
    if (!src || !shape) return nullptr;
    return tensor_type(*shape, src->dtype);
  }
  if (op == "tile.get_block_idx" || op == "tile.get_block_num" || op == "tile.get_subblock_idx" ||
      op == "tensor.get_block_idx" || op == "tensor.get_block_num" || op == "tensor.get_subblock_idx" ||
      op == "tensor.dim")
    return scalar_type(DataType::INDEX);
  if (op == "system.reserve_buffer" || op == "system.import_peer_buffer" || op == "system.task_invalid" ||
      op == "system.available_cluster_count" || op == "system.available_aiv_count")
    return scalar_type(DataType::INT32);
  if (op.substr(0, 7) == "system.") return unknown_type();  // barriers, pipe set-up, frees: no value
  if (op.substr(0, 7) == "tensor." && !c.args.empty()) {
    // Element-wise tensor ops keep their first operand's shape and dtype.
    const TypePtr first = expr_type(c.args[0]);  // kept alive: t points into it
    if (const auto* t = as_tensor(first)) return tensor_type(t->shape, t->dtype);
  }
  return nullptr;
}

}  // namespace pto_mem::pypto::dsl
