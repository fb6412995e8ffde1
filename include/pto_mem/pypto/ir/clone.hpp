// Deep copies: fresh variables and MemRefs with the same sharing structure,
// for a pass (or a test) that must keep its input intact while variables'
// types are refined in place.
#pragma once

#include <unordered_map>

#include "pto_mem/pypto/ir/visitor.hpp"

namespace pto_mem::pypto {

/// Maps every variable and MemRef of the original to its copy. Two variables
/// that shared a MemRef object share its copy; bases stay bases.
class Cloner : public IRMutator {
 public:
  VarPtr mutate_var(const VarPtr& v) override {
    if (!v) return v;
    if (auto it = vars_.find(v.get()); it != vars_.end()) return it->second;
    auto copy = make_var(v->name, nullptr, v->loc);
    vars_.emplace(v.get(), copy);  // before the type: its dims and base may refer back
    copy->type = clone_type(v->type);
    return copy;
  }

  TypePtr clone_type(const TypePtr& t) {
    if (!t) return t;
    if (const auto* tile = t->as<TileType>()) {
      TileView view = tile->view;
      for (auto& f : view.fields) f.value = mutate_expr(f.value);
      return tile_type(clone_exprs(tile->shape), tile->dtype, tile->space, clone_memref(tile->memref),
                       std::move(view));
    }
    if (const auto* tensor = t->as<TensorType>())
      return tensor_type(clone_exprs(tensor->shape), tensor->dtype, clone_memref(tensor->memref));
    if (const auto* tup = t->as<TupleType>()) {
      std::vector<TypePtr> elems;
      for (const auto& e : tup->elems) elems.push_back(clone_type(e));
      return tuple_type(std::move(elems));
    }
    return t;  // Scalar and Ptr hold no variables
  }

  MemRefPtr clone_memref(const MemRefPtr& m) {
    if (!m) return m;
    if (auto it = memrefs_.find(m.get()); it != memrefs_.end()) return it->second;
    auto copy = make_memref(mutate_var(m->base), mutate_expr(m->byte_offset), m->size, m->slot_count,
                            mutate_expr(m->slot_index), m->is_pinned);
    memrefs_.emplace(m.get(), copy);
    return copy;
  }

  Function mutate_function(const Function& f) override {
    Function out = IRMutator::mutate_function(f);
    for (auto& t : out.return_types) t = clone_type(t);
    for (auto& kw : out.attrs) kw.value = mutate_expr(kw.value);
    return out;
  }

  [[nodiscard]] const std::unordered_map<const Var*, VarPtr>& var_map() const noexcept { return vars_; }

 private:
  std::vector<ExprPtr> clone_exprs(const std::vector<ExprPtr>& in) {
    std::vector<ExprPtr> out;
    out.reserve(in.size());
    for (const auto& e : in) out.push_back(mutate_expr(e));
    return out;
  }
  std::unordered_map<const Var*, VarPtr> vars_;
  std::unordered_map<const MemRef*, MemRefPtr> memrefs_;
};

[[nodiscard]] inline Function clone(const Function& f) {
  Cloner c;
  return c.mutate_function(f);
}

[[nodiscard]] inline Program clone(const Program& p) {
  Program out;
  out.name = p.name;
  out.file = p.file;
  for (const auto& f : p.functions) out.functions.push_back(clone(f));
  return out;
}

}  // namespace pto_mem::pypto
