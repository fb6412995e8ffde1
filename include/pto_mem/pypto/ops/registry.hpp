// The op registry: name -> OpSpec. Passes and the parser look ops up here;
// users add their own (examples/pypto/register_op.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/ops/builtin_ops.hpp"

namespace pto_mem::pypto {

class OpRegistry {
 public:
  OpRegistry() = default;

  /// A registry holding every op of OPS.md §2.
  [[nodiscard]] static OpRegistry with_builtins() {
    OpRegistry r;
    for (auto& s : builtin_ops()) r.add_or_replace(std::move(s));
    return r;
  }

  /// The spec of `name`, or null for an unregistered op.
  [[nodiscard]] const OpSpec* find(std::string_view name) const {
    auto it = ops_.find(name);
    return it == ops_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return ops_.size(); }

  /// Adds a new op. Returns false and leaves the registry unchanged when the
  /// name is taken or the spec contradicts itself; `why` then says what to fix.
  bool add(OpSpec spec, std::string* why = nullptr) {
    std::string problem = check(spec);
    if (problem.empty() && contains(spec.name))
      problem = "op '" + spec.name + "' is already registered; use add_or_replace to redefine it";
    if (!problem.empty()) {
      if (why) *why = std::move(problem);
      return false;
    }
    std::string key = spec.name;
    ops_.emplace(std::move(key), std::move(spec));
    return true;
  }

  /// Adds or redefines an op (no consistency check beyond a non-empty name).
  void add_or_replace(OpSpec spec) {
    if (spec.name.empty()) return;
    std::string key = spec.name;
    ops_.insert_or_assign(std::move(key), std::move(spec));
  }

  bool remove(std::string_view name) {
    auto it = ops_.find(name);
    if (it == ops_.end()) return false;
    ops_.erase(it);
    return true;
  }

  /// Every spec, in name order (deterministic listings).
  [[nodiscard]] std::vector<const OpSpec*> ops() const {
    std::vector<const OpSpec*> out;
    out.reserve(ops_.size());
    for (const auto& [k, v] : ops_) out.push_back(&v);
    std::sort(out.begin(), out.end(), [](const OpSpec* a, const OpSpec* b) { return a->name < b->name; });
    return out;
  }

  /// Why `spec` is inconsistent, or empty.
  [[nodiscard]] static std::string check(const OpSpec& spec) {
    const std::string op = "op '" + spec.name + "': ";
    if (spec.name.empty()) return "an op needs a name";
    if (spec.reuses_input && !spec.args.empty() && *spec.reuses_input >= spec.args.size())
      return op + "output_reuses_input " + std::to_string(*spec.reuses_input) + " is past its " +
             std::to_string(spec.args.size()) + " arguments";
    for (auto k : spec.forbid_output_alias)
      if (!spec.args.empty() && k >= spec.args.size())
        return op + "forbid_output_alias index " + std::to_string(k) + " is past its arguments";
    if (spec.result != ResultKind::tile && spec.output != OutputSpace::none && spec.output != OutputSpace::inherit_input)
      return op + "only a tile result has an output-space rule";
    if (spec.result == ResultKind::tile && spec.output == OutputSpace::none)
      return op + "a tile result needs an output-space rule (fixed, target_kwarg, retargetable, inherit or call_type)";
    if (spec.output == OutputSpace::kwarg && !spec.accepts_target(spec.output_space))
      return op + "the target_memory default is not among its legal targets";
    return {};
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, OpSpec, Hash, std::equal_to<>> ops_;
};

/// The process-wide registry the parser and passes use by default; it starts
/// with the builtins. Register user ops at start-up, before any parsing or
/// compiling thread runs (it is not synchronised).
[[nodiscard]] inline OpRegistry& default_registry() {
  static OpRegistry r = OpRegistry::with_builtins();
  return r;
}

/// Adds `spec` to default_registry(); see OpRegistry::add.
inline bool register_op(OpSpec spec, std::string* why = nullptr) {
  return default_registry().add(std::move(spec), why);
}

}  // namespace pto_mem::pypto
