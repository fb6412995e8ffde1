// The reuse-penalty recognizer's worked cases (R1 onwards) restated as the access traces a PyPTO adapter
// would hand to the generic recognizer. Each allocation is (space, bytes, inclusive statement points [def,
// last]); each statement is an op with an evidence and a pipe (the route's answer), the operands it reads and
// writes, and its structured region. Expected edge sets are derived by hand from the rule.
//
// Adapter-level (op metadata or placement, tested with the PyPTO adapter instead):
// R22 and R23 (evidence/pipe tables only), R25's "parameter gets an address",
// R29's "_consumed has a range", and every "Derived placement" line (they need
// the DSA-RP solver on the derived problem).
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "pto_mem/algorithms/reuse_penalties.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace {

enum class Pipe { MTE1, MTE2, MTE3, M, V, S, FIX, ALL };
enum Space : std::int64_t { Vec = 1, Mat = 2, Left = 3, Right = 4, Acc = 5 };

/// An op as the route sees it: the evidence the registry declares and the
/// pipe the backend infers (nullopt: no route).
struct Op {
  AccessEvidence evidence = AccessEvidence::functional;
  std::optional<Pipe> pipe;
};
Op on(Pipe p) { return {AccessEvidence::functional, p}; }
const Op no_access{AccessEvidence::no_access, std::nullopt};
const Op unknown{AccessEvidence::unknown, std::nullopt};
const Op no_route{AccessEvidence::functional, std::nullopt};

struct TableRoute {
  using pipe_type = Pipe;
  AccessEvidence evidence(const Op& op) const { return op.evidence; }
  std::optional<Pipe> pipe(const Op& op) const { return op.pipe; }
};
static_assert(HazardRoute<TableRoute, Op>);

using Edges = std::set<std::pair<std::string, std::string>>;

struct Trace {
  std::vector<BufferSpec> allocs;
  std::map<std::string, std::size_t> ids;
  std::vector<AccessEvent<Pipe>> events;
  std::vector<std::pair<std::size_t, std::size_t>> separated;
  std::uint32_t region = 0;
  bool in_loop = false;

  Trace& alloc(const std::string& name, Space space, Addr bytes, Tick def, Tick last) {
    ids[name] = allocs.size();
    allocs.push_back({name, bytes, 32, space, {def, last}});
    return *this;
  }
  Trace& separate(const std::string& a, const std::string& b) {
    separated.emplace_back(ids.at(a), ids.at(b));
    return *this;
  }
  /// Enter a structured region (a branch or loop body); 0 = top level.
  Trace& enter(std::uint32_t r, bool loop) {
    region = r;
    in_loop = loop;
    return *this;
  }
  OperandAccess whole(const std::string& a) const { return {ids.at(a), true, true}; }
  OperandAccess partial(const std::string& a) const { return {ids.at(a), false, true}; }
  Trace& at(std::uint64_t order, const Op& op, std::vector<OperandAccess> reads,
            std::vector<OperandAccess> writes) {
    record_op_accesses(TableRoute{}, op,
                       OpAccesses{order, region, in_loop, std::move(reads), std::move(writes)}, events);
    return *this;
  }
  /// Shorthand for whole-tile operands.
  Trace& at(std::uint64_t order, const Op& op, std::initializer_list<const char*> reads,
            std::initializer_list<const char*> writes) {
    std::vector<OperandAccess> r, w;
    for (const char* x : reads) r.push_back(whole(x));
    for (const char* x : writes) w.push_back(whole(x));
    return at(order, op, std::move(r), std::move(w));
  }

  [[nodiscard]] Edges edges() const {
    Edges out;
    for (const auto& e : recognize_reuse_penalties(allocs, events, separated)) {
      CHECK(e.a < e.b);
      CHECK(e.weight == 1);
      out.insert({allocs[e.a].name, allocs[e.b].name});
    }
    return out;
  }
};

}  // namespace

TEST_CASE("R1 recognizes a cross-pipe WAR (and the WAWs around it)") {
  Trace t;
  t.alloc("prior", Vec, 16384, 0, 1)
      .alloc("_consumed", Vec, 16384, 1, 1)
      .alloc("next_value", Vec, 16384, 2, 3);
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, on(Pipe::V), {"prior", "prior"}, {"_consumed"})
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"prior", "_consumed"}, {"prior", "next_value"}, {"_consumed", "next_value"}});
}

TEST_CASE("R2 recognizes a cross-pipe WAW") {
  Trace t;
  t.alloc("_prior", Vec, 16384, 0, 0).alloc("next_value", Vec, 16384, 1, 2);
  t.at(0, on(Pipe::V), {}, {"_prior"})
      .at(1, on(Pipe::MTE2), {}, {"next_value"})
      .at(2, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"_prior", "next_value"}});
}

TEST_CASE("R3 a same-pipe hand-off is free") {
  Trace t;
  t.alloc("_prior", Vec, 16384, 0, 0).alloc("next_value", Vec, 16384, 1, 2);
  t.at(0, on(Pipe::V), {}, {"_prior"})
      .at(1, on(Pipe::V), {}, {"next_value"})
      .at(2, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges().empty());
}

TEST_CASE("R4 R5 a semantic no-alias separation suppresses the candidate edge") {
  for (const char* op : {"recip", "tile.move"}) {
    CAPTURE(op);
    Trace t;
    t.alloc("source", Vec, 4096, 0, 1).alloc("result", Vec, 4096, 1, 2).separate("source", "result");
    t.at(0, on(Pipe::MTE2), {}, {"source"})
        .at(1, on(Pipe::V), {"source"}, {"result"})
        .at(2, on(Pipe::MTE3), {"result"}, {});
    CHECK(t.edges().empty());
    t.separated.clear();  // the candidate that the separation hides
    CHECK(t.edges() == Edges{{"source", "result"}});
  }
}

TEST_CASE("R6 an unknown tuple op poisons its inputs and every tuple element") {
  Trace t;
  t.alloc("source", Vec, 4096, 0, 2)
      .alloc("temporary", Vec, 1024, 1, 2)
      .alloc("destination", Vec, 512, 3, 6)
      .alloc("count", Vec, 64, 4, 5)
      .alloc("_count_copy", Vec, 64, 5, 5);
  t.separate("destination", "source")
      .separate("destination", "temporary")
      .separate("count", "source")
      .separate("count", "temporary");
  t.at(0, on(Pipe::MTE2), {}, {"source"})
      .at(1, no_access, {}, {"temporary"})
      .at(2, unknown, {"source", "temporary"}, {"destination", "count"})  // gather_compare
      .at(5, on(Pipe::V), {"count", "count"}, {"_count_copy"})
      .at(6, on(Pipe::MTE3), {"destination"}, {});
  CHECK(t.edges().empty());
}

TEST_CASE("R7 a partial endpoint keeps its allocation unpenalized") {
  Trace t;
  t.alloc("prior", Vec, 16384, 0, 2)
      .alloc("_consumed", Vec, 8192, 2, 2)
      .alloc("next_value", Vec, 16384, 3, 4);
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, no_access, {t.partial("prior")}, {t.partial("prior")})  // upper = prior[0:32, 0:64]
      .at(2, on(Pipe::V), {t.partial("prior"), t.partial("prior")}, {t.whole("_consumed")})
      .at(3, on(Pipe::MTE2), {}, {"next_value"})
      .at(4, on(Pipe::MTE3), {"next_value"}, {});
  const auto edges = t.edges();
  CHECK_FALSE(edges.contains({"prior", "next_value"}));
  CHECK(edges == Edges{{"_consumed", "next_value"}});
}

TEST_CASE("R8 a Vec-to-Vec tile.move runs on the vector pipe") {
  Trace t;
  t.alloc("prior", Vec, 4096, 0, 1).alloc("_moved", Vec, 4096, 1, 1).alloc("next_value", Vec, 4096, 2, 3);
  t.separate("prior", "_moved");
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, on(Pipe::V), {"prior"}, {"_moved"})
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"prior", "next_value"}, {"_moved", "next_value"}});
}

TEST_CASE("R9 an Acc-to-Acc tile.move runs on the vector pipe") {
  Trace t;
  t.alloc("lhs_l1", Mat, 2048, 0, 2)
      .alloc("rhs_l1", Mat, 8192, 1, 3)
      .alloc("lhs_l0", Left, 2048, 2, 6)
      .alloc("rhs_l0", Right, 8192, 3, 6)
      .alloc("prior", Acc, 4096, 4, 5)
      .alloc("_moved", Acc, 4096, 5, 5)
      .alloc("next_value", Acc, 4096, 6, 7);
  t.separate("prior", "_moved");
  t.at(0, on(Pipe::MTE2), {}, {"lhs_l1"})
      .at(1, on(Pipe::MTE2), {}, {"rhs_l1"})
      .at(2, on(Pipe::MTE1), {"lhs_l1"}, {"lhs_l0"})
      .at(3, on(Pipe::MTE1), {"rhs_l1"}, {"rhs_l0"})
      .at(4, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"prior"})
      .at(5, on(Pipe::V), {"prior"}, {"_moved"})
      .at(6, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"next_value"})
      .at(7, on(Pipe::FIX), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"prior", "next_value"}, {"_moved", "next_value"}});
}

TEST_CASE("R10 a same-address tile.move is still an access; edges named by the representative") {
  Trace t;  // allocation `source` = the group {source, moved}
  t.alloc("source", Vec, 4096, 0, 1).alloc("next_value", Vec, 4096, 2, 2);
  t.at(0, on(Pipe::MTE2), {}, {"source"})
      .at(1, on(Pipe::V), {"source"}, {"source"})
      .at(2, on(Pipe::MTE2), {}, {"next_value"});
  CHECK(t.edges() == Edges{{"source", "next_value"}});
}

TEST_CASE("R11 a move onto another offset of the same base is partial") {
  Trace t;
  t.alloc("shared", Vec, 4096, 0, 1).alloc("next", Vec, 4096, 2, 2);
  t.at(0, on(Pipe::MTE2), {}, {"shared"})
      .at(1, on(Pipe::V), {t.whole("shared")}, {t.partial("shared")})  // moved at offset 32
      .at(2, on(Pipe::V), {}, {"next"});
  CHECK(t.edges().empty());
}

TEST_CASE("R12 tile.create is not an execution write") {
  Trace t;
  t.alloc("_declaration", Vec, 16384, 0, 0).alloc("actual", Vec, 16384, 1, 2);
  t.at(0, no_access, {}, {"_declaration"})
      .at(1, on(Pipe::MTE2), {}, {"actual"})
      .at(2, on(Pipe::MTE3), {"actual"}, {});
  CHECK(t.edges().empty());
}

TEST_CASE("R13 a whole tile.assemble is an execution write of its target") {
  Trace t;  // allocation `target` = {target, _assembled}
  t.alloc("target", Vec, 16384, 0, 2).alloc("source", Vec, 16384, 1, 2).alloc("next_value", Vec, 16384, 3, 4);
  t.at(0, no_access, {}, {"target"})
      .at(1, on(Pipe::MTE2), {}, {"source"})
      .at(2, on(Pipe::V), {"source"}, {"target"})  // the target is overwritten, not read
      .at(3, on(Pipe::MTE2), {}, {"next_value"})
      .at(4, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"target", "next_value"}, {"source", "next_value"}});
}

TEST_CASE("R14 a partial tile.assemble poisons what it touches") {
  Trace t;
  t.alloc("target", Vec, 16384, 0, 2).alloc("source", Vec, 8192, 1, 2).alloc("next_value", Vec, 16384, 3, 4);
  t.at(0, on(Pipe::MTE2), {}, {"target"})
      .at(1, on(Pipe::MTE2), {}, {"source"})
      .at(2, unknown, {"target", "source"}, {"target"})
      .at(3, on(Pipe::MTE2), {}, {"next_value"})
      .at(4, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges().empty());
}

TEST_CASE("R15 an unknown tuple op poisons all its results") {
  Trace t;
  t.alloc("source", Vec, 4096, 0, 2)
      .alloc("temporary", Vec, 1024, 1, 2)
      .alloc("destination", Vec, 512, 3, 3)
      .alloc("_count", Vec, 64, 4, 4)
      .alloc("_next_count", Vec, 64, 5, 5)
      .alloc("next_destination", Vec, 512, 6, 7);
  t.at(0, on(Pipe::MTE2), {}, {"source"})
      .at(1, no_access, {}, {"temporary"})
      .at(2, unknown, {"source", "temporary"}, {"destination", "_count"})
      .at(5, on(Pipe::MTE2), {}, {"_next_count"})
      .at(6, on(Pipe::MTE2), {}, {"next_destination"})
      .at(7, on(Pipe::MTE3), {"next_destination"}, {});
  const auto edges = t.edges();
  CHECK_FALSE(edges.contains({"destination", "next_destination"}));
  CHECK_FALSE(edges.contains({"_count", "_next_count"}));
  CHECK(edges.empty());
}

TEST_CASE("R16 R17 tile.write and tile.read poison the tile they touch") {
  Trace t;
  t.alloc("prior", Vec, 16384, 0, 1)
      .alloc("_written", Vec, 16384, 1, 1)
      .alloc("next_value", Vec, 16384, 2, 3);
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, unknown, {"prior"}, {"_written"})
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges().empty());

  Trace r;  // R17: the scalar result of tile.read is not a tile
  r.alloc("prior", Vec, 16384, 0, 1).alloc("next_value", Vec, 16384, 2, 3);
  r.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, unknown, {"prior"}, {})
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(r.edges().empty());
}

TEST_CASE("R18 hand-offs nested in a loop body; the distance-1 rule only repeats them") {
  Trace t;
  t.alloc("prior", Vec, 16384, 0, 1)
      .alloc("_consumed", Vec, 16384, 1, 1)
      .alloc("_next_value", Vec, 16384, 2, 2)
      .alloc("result", Vec, 16384, 3, 4);
  t.enter(1, true)
      .at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, on(Pipe::V), {"prior", "prior"}, {"_consumed"})
      .at(2, on(Pipe::MTE2), {}, {"_next_value"})
      .enter(0, false)
      .at(3, on(Pipe::V), {}, {"result"})
      .at(4, on(Pipe::MTE3), {"result"}, {});
  CHECK(t.edges() == Edges{{"prior", "_consumed"}, {"prior", "_next_value"}, {"_consumed", "_next_value"}});
}

TEST_CASE("R19 a true distance-1 hand-off across the back edge") {
  Trace t;
  t.alloc("_first", Vec, 16384, 0, 0).alloc("second", Vec, 16384, 1, 2).alloc("result", Vec, 16384, 3, 4);
  t.enter(1, true)
      .at(0, on(Pipe::V), {}, {"_first"})
      .at(1, on(Pipe::V), {}, {"second"})
      .at(2, on(Pipe::MTE3), {"second"}, {})
      .enter(0, false)
      .at(3, on(Pipe::V), {}, {"result"})
      .at(4, on(Pipe::MTE3), {"result"}, {});
  CHECK(t.edges() == Edges{{"_first", "second"}});

  SUBCASE("the same trace outside a loop has no hand-off") {
    Trace s;
    s.alloc("_first", Vec, 16384, 0, 0).alloc("second", Vec, 16384, 1, 2);
    s.at(0, on(Pipe::V), {}, {"_first"})
        .at(1, on(Pipe::V), {}, {"second"})
        .at(2, on(Pipe::MTE3), {"second"}, {});
    CHECK(s.edges().empty());
  }
}

TEST_CASE("R20 mutually exclusive branches never hand off") {
  Trace t;
  t.alloc("branch_prior", Vec, 16384, 0, 1)
      .alloc("_branch_consumed", Vec, 16384, 1, 1)
      .alloc("_branch_next", Vec, 16384, 2, 2)
      .alloc("result", Vec, 16384, 3, 4);
  t.enter(1, false)  // then
      .at(0, on(Pipe::MTE2), {}, {"branch_prior"})
      .at(1, on(Pipe::V), {"branch_prior", "branch_prior"}, {"_branch_consumed"})
      .enter(2, false)  // else
      .at(2, on(Pipe::MTE2), {}, {"_branch_next"})
      .enter(0, false)
      .at(3, on(Pipe::V), {}, {"result"})
      .at(4, on(Pipe::MTE3), {"result"}, {});
  CHECK(t.edges() == Edges{{"branch_prior", "_branch_consumed"}});
}

TEST_CASE("R21 a hand-off ordered through DDR is still priced") {
  Trace t;
  t.alloc("prior", Vec, 16384, 0, 1).alloc("next_value", Vec, 16384, 2, 3);
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, on(Pipe::MTE3), {"prior"}, {})  // updated = store(prior -> scratch): DDR, untracked
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(t.edges() == Edges{{"prior", "next_value"}});
}

TEST_CASE("R24 matmul_acc is functional and keeps its accumulator priced") {
  Trace t;  // acc = {acc, acc_updated}; target = {target, _assembled}
  t.alloc("target", Mat, 1024, 0, 7)
      .alloc("lhs_l1", Mat, 512, 1, 3)
      .alloc("rhs_l1", Mat, 512, 2, 4)
      .alloc("lhs_l0", Left, 512, 3, 8)
      .alloc("rhs_l0", Right, 512, 4, 8)
      .alloc("acc", Acc, 1024, 5, 7)
      .alloc("later_acc", Acc, 1024, 8, 9);
  t.at(0, on(Pipe::MTE2), {}, {"target"})
      .at(1, on(Pipe::MTE2), {}, {"lhs_l1"})
      .at(2, on(Pipe::MTE2), {}, {"rhs_l1"})
      .at(3, on(Pipe::MTE1), {"lhs_l1"}, {"lhs_l0"})
      .at(4, on(Pipe::MTE1), {"rhs_l1"}, {"rhs_l0"})
      .at(5, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"acc"})
      .at(6, on(Pipe::M), {"acc", "lhs_l0", "rhs_l0"}, {"acc"})  // matmul_acc: output reuses input 0
      .at(7, on(Pipe::FIX), {"acc"}, {"target"})                 // whole assemble Acc -> Mat
      .at(8, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"later_acc"})
      .at(9, on(Pipe::FIX), {"later_acc"}, {});
  CHECK(t.edges() == Edges{{"acc", "later_acc"}});

  SUBCASE("were matmul_acc unknown, the accumulator would be poisoned") {
    Trace u = t;
    u.events.clear();
    u.at(5, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"acc"})
        .at(6, unknown, {"acc", "lhs_l0", "rhs_l0"}, {"acc"})
        .at(7, on(Pipe::FIX), {"acc"}, {"target"})
        .at(8, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"later_acc"});
    CHECK(u.edges().empty());
  }
}

TEST_CASE("R25 an on-chip tile parameter is first read, so it has no summary") {
  Trace t;
  t.alloc("tile_param", Vec, 1024, 0, 0).alloc("result", Vec, 1024, 0, 1);
  t.at(0, on(Pipe::V), {"tile_param", "tile_param"}, {"result"});
  CHECK(t.edges().empty());
}

TEST_CASE("R26 the L1-to-L0 route prices Mat reuse after MTE1 reads") {
  Trace t;
  t.alloc("prior", Mat, 512, 0, 1)
      .alloc("prior_l0", Left, 512, 1, 5)
      .alloc("_later", Mat, 512, 2, 2)
      .alloc("rhs_l1", Mat, 512, 3, 4)
      .alloc("rhs_l0", Right, 512, 4, 5)
      .alloc("result", Acc, 1024, 5, 6);
  t.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, on(Pipe::MTE1), {"prior"}, {"prior_l0"})
      .at(2, on(Pipe::MTE2), {}, {"_later"})
      .at(3, on(Pipe::MTE2), {}, {"rhs_l1"})
      .at(4, on(Pipe::MTE1), {"rhs_l1"}, {"rhs_l0"})
      .at(5, on(Pipe::M), {"prior_l0", "rhs_l0"}, {"result"})
      .at(6, on(Pipe::FIX), {"result"}, {});
  CHECK(t.edges() == Edges{{"prior", "_later"}, {"prior", "rhs_l1"}});
}

TEST_CASE("R27 the L0-to-L1 route (FIX assemble) prices the representative") {
  Trace t;  // target = {target, _assembled}
  t.alloc("target", Mat, 1024, 0, 6)
      .alloc("lhs_l1", Mat, 512, 1, 3)
      .alloc("rhs_l1", Mat, 512, 2, 4)
      .alloc("lhs_l0", Left, 512, 3, 5)
      .alloc("rhs_l0", Right, 512, 4, 5)
      .alloc("source", Acc, 1024, 5, 8)
      .alloc("_later", Mat, 1024, 7, 7);
  t.at(0, on(Pipe::MTE2), {}, {"target"})
      .at(1, on(Pipe::MTE2), {}, {"lhs_l1"})
      .at(2, on(Pipe::MTE2), {}, {"rhs_l1"})
      .at(3, on(Pipe::MTE1), {"lhs_l1"}, {"lhs_l0"})
      .at(4, on(Pipe::MTE1), {"rhs_l1"}, {"rhs_l0"})
      .at(5, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"source"})
      .at(6, on(Pipe::FIX), {"source"}, {"target"})
      .at(7, on(Pipe::MTE2), {}, {"_later"})
      .at(8, on(Pipe::FIX), {"source"}, {});
  CHECK(t.edges() == Edges{{"target", "_later"}, {"lhs_l1", "_later"}, {"rhs_l1", "_later"}});
}

TEST_CASE("R28 the SoC memory graph decides the Acc-to-Vec route") {
  for (bool a5 : {false, true}) {
    CAPTURE(a5);
    Trace t;
    t.alloc("lhs_l1", Mat, 512, 0, 2)
        .alloc("rhs_l1", Mat, 512, 1, 3)
        .alloc("lhs_l0", Left, 512, 2, 4)
        .alloc("rhs_l0", Right, 512, 3, 4)
        .alloc("product", Acc, 1024, 4, 5)
        .alloc("_moved", Vec, 1024, 5, 6)
        .alloc("_consumed", Vec, 1024, 6, 6)
        .alloc("later", Vec, 1024, 7, 8);
    t.at(0, on(Pipe::MTE2), {}, {"lhs_l1"})
        .at(1, on(Pipe::MTE2), {}, {"rhs_l1"})
        .at(2, on(Pipe::MTE1), {"lhs_l1"}, {"lhs_l0"})
        .at(3, on(Pipe::MTE1), {"rhs_l1"}, {"rhs_l0"})
        .at(4, on(Pipe::M), {"lhs_l0", "rhs_l0"}, {"product"})
        .at(5, a5 ? on(Pipe::FIX) : no_route, {"product"}, {"_moved"})
        .at(6, on(Pipe::V), {"_moved", "_moved"}, {"_consumed"})
        .at(7, on(Pipe::MTE2), {}, {"later"})
        .at(8, on(Pipe::MTE3), {"later"}, {});
    if (a5)
      CHECK(t.edges() == Edges{{"_moved", "_consumed"}, {"_moved", "later"}, {"_consumed", "later"}});
    else
      CHECK(t.edges() == Edges{{"_consumed", "later"}});
  }
}

TEST_CASE("R29 reinterpret_view is metadata only; a real access through the view counts") {
  Trace consume;  // prior = {prior, viewed}
  consume.alloc("prior", Vec, 16384, 0, 2)
      .alloc("_consumed", Vec, 16384, 2, 2)
      .alloc("next_value", Vec, 16384, 3, 4);
  consume.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, no_access, {"prior"}, {"prior"})
      .at(2, on(Pipe::V), {"prior", "prior"}, {"_consumed"})
      .at(3, on(Pipe::MTE2), {}, {"next_value"})
      .at(4, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(consume.edges() ==
        Edges{{"prior", "_consumed"}, {"prior", "next_value"}, {"_consumed", "next_value"}});

  Trace ignore;  // prior = {prior, _viewed}
  ignore.alloc("prior", Vec, 16384, 0, 1).alloc("next_value", Vec, 16384, 2, 3);
  ignore.at(0, on(Pipe::MTE2), {}, {"prior"})
      .at(1, no_access, {"prior"}, {"prior"})
      .at(2, on(Pipe::MTE2), {}, {"next_value"})
      .at(3, on(Pipe::MTE3), {"next_value"}, {});
  CHECK(ignore.edges().empty());
}

namespace {
Trace r30() {
  Trace t;
  t.alloc("prior_a", Vec, 16384, 0, 1)
      .alloc("_used_a", Vec, 16384, 1, 1)
      .alloc("prior_b", Vec, 16384, 2, 3)
      .alloc("_used_b", Vec, 16384, 3, 3)
      .alloc("_later_a", Vec, 16384, 4, 4)
      .alloc("later_b", Vec, 16384, 5, 6);
  t.at(0, on(Pipe::MTE2), {}, {"prior_a"})
      .at(1, on(Pipe::V), {"prior_a"}, {"_used_a"})
      .at(2, on(Pipe::MTE2), {}, {"prior_b"})
      .at(3, on(Pipe::V), {"prior_b"}, {"_used_b"})
      .at(4, on(Pipe::MTE2), {}, {"_later_a"})
      .at(5, on(Pipe::MTE2), {}, {"later_b"})
      .at(6, on(Pipe::MTE3), {"later_b"}, {});
  return t;
}
}  // namespace

TEST_CASE("R30 unit edges, exactly 13, deterministic") {
  const Trace t = r30();
  const Edges expected = {{"prior_a", "_used_a"},  {"prior_a", "prior_b"}, {"prior_a", "_used_b"},
                          {"prior_a", "_later_a"}, {"prior_a", "later_b"}, {"_used_a", "prior_b"},
                          {"_used_a", "_later_a"}, {"_used_a", "later_b"}, {"prior_b", "_used_b"},
                          {"prior_b", "_later_a"}, {"prior_b", "later_b"}, {"_used_b", "_later_a"},
                          {"_used_b", "later_b"}};
  CHECK(t.edges() == expected);
  const auto first = recognize_reuse_penalties(t.allocs, t.events, t.separated);
  CHECK(first.size() == 13);
  CHECK(first == recognize_reuse_penalties(t.allocs, t.events, t.separated));
  // Sweep order: each later allocation collects its predecessors.
  CHECK(first.front() == ReusePenalty{0, 1, 1});
}

TEST_CASE("recognizer: tick lifetimes on a Problem give the same edges, as Penalty{a, b, 1}") {
  const Trace t = r30();
  Problem p;
  p.arenas = {{Vec, "Vec", 1 << 20, {}}};
  for (const auto& a : t.allocs) {
    BufferSpec b = a;
    const Tick def = a.lifetime.begin, last = a.lifetime.end;
    b.lifetime = {2 * def + 1, std::max(2 * def + 2, 2 * last + 1)};
    p.buffers.push_back(b);
  }
  const test::BufferIds id{p};
  p.separations = {{id("_used_a"), id("prior_b")}};
  const auto pens = recognize_reuse_penalties(p, t.events);
  CHECK(pens.size() == 12);
  Edges got;
  for (const auto& pen : pens) {
    CHECK(pen.weight == 1);
    got.insert({buffer_label(p, pen.a), buffer_label(p, pen.b)});
  }
  CHECK_FALSE(got.contains({"_used_a", "prior_b"}));
  CHECK(got.contains({"prior_a", "later_b"}));
}

TEST_CASE("recognizer: the summary's conservative requirements") {
  SUBCASE("first accesses on two pipes: no verified first write") {
    Trace t;
    t.alloc("p", Vec, 64, 0, 1).alloc("q", Vec, 64, 2, 2);
    t.at(0, on(Pipe::MTE2), {}, {"p"})
        .at(0, on(Pipe::V), {}, {"p"})
        .at(1, on(Pipe::V), {"p"}, {})
        .at(2, on(Pipe::MTE2), {}, {"q"});
    CHECK(t.edges().empty());
  }
  SUBCASE("read and write in the first statement: no verified first write") {
    Trace t;
    t.alloc("p", Vec, 64, 0, 1).alloc("q", Vec, 64, 2, 2);
    t.at(0, on(Pipe::V), {"p"}, {"p"}).at(2, on(Pipe::MTE2), {}, {"q"});
    CHECK(t.edges().empty());
  }
  SUBCASE("an access that cannot be traced poisons its allocation") {
    Trace t;
    t.alloc("p", Vec, 64, 0, 1).alloc("q", Vec, 64, 2, 2);
    t.at(0, on(Pipe::MTE2), {}, {"p"})
        .at(1, on(Pipe::V), {OperandAccess{0, true, false}}, {})
        .at(2, on(Pipe::MTE2), {}, {"q"});
    CHECK(t.edges().empty());
  }
  SUBCASE("different arenas never pair; co-live allocations never pair") {
    Trace t;
    t.alloc("p", Vec, 64, 0, 1).alloc("q", Mat, 64, 2, 2).alloc("r", Vec, 64, 1, 3);
    t.at(0, on(Pipe::MTE2), {}, {"p"})
        .at(1, on(Pipe::V), {"p"}, {"r"})
        .at(2, on(Pipe::MTE2), {}, {"q"})
        .at(3, on(Pipe::MTE3), {"r"}, {});
    CHECK(t.edges() == Edges{{"p", "r"}});  // p [0,1] and r [1,3] touch; q is in Mat
  }
  SUBCASE("one allocation in two regions: no summary") {
    Trace t;
    t.alloc("p", Vec, 64, 0, 2).alloc("q", Vec, 64, 3, 3);
    t.at(0, on(Pipe::MTE2), {}, {"p"})
        .enter(1, true)
        .at(1, on(Pipe::V), {"p"}, {})
        .enter(0, false)
        .at(3, on(Pipe::MTE2), {}, {"q"});
    CHECK(t.edges().empty());
  }
  SUBCASE("events may arrive out of order") {
    Trace t = r30();
    std::reverse(t.events.begin(), t.events.end());
    CHECK(t.edges().size() == 13);
  }
}
