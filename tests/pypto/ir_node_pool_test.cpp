// IR nodes come from one process-wide pool (ir/node.hpp). Its upstream is
// the plain heap, named explicitly: the default memory resource when the
// first node is made may be a caller's short-lived one (a scratch arena
// installed around some unrelated work), and a pool drawing its chunks from
// it would hand out dead memory once that arena is gone.
#include <doctest/doctest.h>

#include <memory_resource>
#include <string>
#include <vector>

#include "pto_mem/pypto/ir/expr.hpp"
#include "pto_mem/pypto/ir/node.hpp"

using namespace pto_mem::pypto;

TEST_CASE(
    "IR nodes: the pool draws from the plain heap whatever the default resource was at the first node") {
  {
    // When this case runs first (alone, or first in its binary) this makes
    // the first node: with the pool's upstream taken from the default
    // resource, the nodes below came from `scratch` after its end.
    std::pmr::monotonic_buffer_resource scratch;
    std::pmr::memory_resource* const old = std::pmr::set_default_resource(&scratch);
    const ExprPtr first = string_imm("made while a scratch arena is the default");
    std::pmr::set_default_resource(old);
    CHECK(first->as<StringImm>()->value == "made while a scratch arena is the default");
  }
  if (auto* pool = dynamic_cast<std::pmr::synchronized_pool_resource*>(ir_node_resource()))
    CHECK(pool->upstream_resource() == std::pmr::new_delete_resource());
  // Enough nodes that the pool asks its upstream for more chunks.
  std::vector<ExprPtr> nodes;
  for (int i = 0; i < 200000; ++i) nodes.push_back(string_imm("n" + std::to_string(i)));
  CHECK(nodes.back()->as<StringImm>()->value == "n199999");
}
