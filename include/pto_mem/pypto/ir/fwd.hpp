// Forward declarations and the pointer vocabulary of the tile IR.
//
// Ownership model: expressions, types, MemRefs and statements are immutable
// once built and shared through shared_ptr<const T>, so a pass that rewrites
// one statement shares every untouched subtree with its input. A Var is the
// one mutable node: it is a symbol whose identity (its address) is the
// variable, and whose type a pass may refine in place (see var.hpp).
#pragma once

#include <memory>

namespace pto_mem::pypto {

struct Var;
struct Expr;
struct Type;
struct MemRef;
struct Stmt;

using VarPtr = std::shared_ptr<Var>;
using ExprPtr = std::shared_ptr<const Expr>;
using TypePtr = std::shared_ptr<const Type>;
using MemRefPtr = std::shared_ptr<const MemRef>;
using StmtPtr = std::shared_ptr<const Stmt>;

}  // namespace pto_mem::pypto
