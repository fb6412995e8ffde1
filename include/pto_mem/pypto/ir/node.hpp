// Where IR nodes live: every expression, type, MemRef, statement and
// variable the factories make comes from one pool of equal-size blocks per
// node size (std::pmr::synchronized_pool_resource), not from the general heap.
//
// Why: a pass rebuilds the statements and types it changes and frees the old
// ones. On a large kernel (100k statements, ~150 MB of IR) glibc's malloc then
// serves the next nodes from scattered, coalesced free chunks (its
// consolidation alone was 6 % of a 100k compile), and every later walk
// chases pointers across the whole heap. The pool keeps nodes of one size
// together and gives a freed block to the next node of that size: the 100k
// pipeline runs 16-20 % faster (docs/notes/benchmarks-history.md, "IR nodes from a pool").
// The standard pool hands out the lowest free block of a chunk first, so
// nodes made one after the other stay next to each other; a hand-written
// last-in-first-out free list, with fewer instructions, was slower (it
// scatters the nodes of a program after a few have been built and dropped).
//
// The pool is shared by every thread (synchronized: a node may be freed on
// another thread than the one that made it) and never destroyed (a static
// cache of shared constants may release its nodes at exit, after any other
// static). It keeps freed blocks for later nodes instead of returning them to
// the system. Its upstream is the plain heap, named explicitly: the pool is
// made at the first node, and the default memory resource then may be a
// caller's short-lived one (a scratch arena installed around other work),
// whose memory the pool would go on handing out after it is gone. Under
// AddressSanitizer nodes come from the plain heap, so a use after free of a
// node is still caught.
#pragma once

#include <memory>
#include <memory_resource>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define PTO_MEM_IR_NODES_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTO_MEM_IR_NODES_FROM_HEAP 1
#endif
#endif

namespace pto_mem::pypto {

/// The resource every IR node is allocated from.
[[nodiscard]] inline std::pmr::memory_resource* ir_node_resource() noexcept {
#ifdef PTO_MEM_IR_NODES_FROM_HEAP
  return std::pmr::new_delete_resource();
#else
  static auto* const pool =
      new std::pmr::synchronized_pool_resource(std::pmr::new_delete_resource());  // never freed: see above
  return pool;
#endif
}

/// `std::make_shared<T>(args...)` with the node and its reference counts in
/// one block of ir_node_resource().
template <class T, class... Args>
[[nodiscard]] std::shared_ptr<T> make_node(Args&&... args) {
  return std::allocate_shared<T>(std::pmr::polymorphic_allocator<T>(ir_node_resource()),
                                 std::forward<Args>(args)...);
}

}  // namespace pto_mem::pypto
