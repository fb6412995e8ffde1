// Statement points, use redirection, loop extension and phi families
// (for both the PYPTO and the DSA_RP planners).
#include <doctest/doctest.h>

#include "pass_facts.hpp"

using namespace pto_mem;
using namespace pto_mem::test;
using pypto::passes::compute_lifetimes;
using pypto::passes::Lifetimes;

namespace {

struct Range {
  Tick def, last;
  friend bool operator==(const Range&, const Range&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const Range& r) {
  return os << '[' << r.def << ", " << r.last << ']';
}

Range range_of(const Lifetimes& lt, const pypto::Program& p, const std::string& name) {
  auto v = find_var(p, name);
  REQUIRE_MESSAGE(v, name);
  auto i = lt.find(v.get());
  REQUIRE_MESSAGE(i, name << " is not tracked");
  return {lt.def[*i], lt.last[*i]};
}

// A tile type with its own base, for short programs.
std::string lifetime_tile(const char* base, int bytes = 1024) {
  return "Tile[[16, 16], FP32, MemRef(" + std::string(base) + ", 0, " + std::to_string(bytes) + "), Vec]";
}

}  // namespace

TEST_CASE("lifetimes: straight-line points, unused values live at their own point") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    m3: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    b: )" + lifetime_tile("m2") +
                           R"( = tile.exp(a)
    c: )" + lifetime_tile("m3") +
                           R"( = tile.add(a, a)
    r: Tensor[[16, 16], FP32] = tile.store(c, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  CHECK(range_of(lt, p, "a") == Range{0, 2});
  CHECK(range_of(lt, p, "b") == Range{1, 1});
  CHECK(range_of(lt, p, "c") == Range{2, 3});
  CHECK(lt.size() == 3);  // tensors and parameters are not tracked
  CHECK(lt.points == 5);  // alloc statements take no point
}

TEST_CASE("lifetimes: a value read inside nested loops lives to the outer loop's end") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    m3: Ptr = tile.alloc(Vec, 1024)
    m4: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for i in range(4):
        for j in range(4):
            b: )" + lifetime_tile("m2") +
                           R"( = tile.exp(a)
        d: )" + lifetime_tile("m3") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    e: )" + lifetime_tile("m4") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    r: Tensor[[16, 16], FP32] = tile.store(e, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  // a 0; inner loop: b 1, back-edge 2; d 3; outer back-edge 4; e 5; store 6
  // (every loop has a back-edge point, so values read in it span the whole loop).
  CHECK(range_of(lt, p, "a") == Range{0, 4});  // read at 1, extended by both loops
  CHECK(range_of(lt, p, "b") == Range{1, 1});  // defined inside: no extension
  CHECK(range_of(lt, p, "d") == Range{3, 3});
  CHECK(range_of(lt, p, "e") == Range{5, 6});
  CHECK(lt.loops.size() == 2);
}

TEST_CASE("lifetimes: a value defined before a loop and read in it spans the loop") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    m3: Ptr = tile.alloc(Vec, 1024)
    m4: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for i in range(4):
        b: )" + lifetime_tile("m2") +
                           R"( = tile.exp(a)
        c: )" + lifetime_tile("m3") +
                           R"( = tile.exp(b)
    d: )" + lifetime_tile("m4") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    r: Tensor[[16, 16], FP32] = tile.store(d, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  CHECK(range_of(lt, p, "a") == Range{0, 3});  // read at 1, extended to the loop's last point 2
  CHECK(range_of(lt, p, "b") == Range{1, 2});
  CHECK(range_of(lt, p, "c") == Range{2, 2});
}

TEST_CASE("lifetimes: loop return vars count for the init; phis for their branch-local sources") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], c: Scalar[INDEX], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    m3: Ptr = tile.alloc(Vec, 1024)
    m4: Ptr = tile.alloc(Vec, 1024)
    m5: Ptr = tile.alloc(Vec, 1024)
    init: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for i, (acc,) in range(4, init_values=(init,)):
        nxt: )" + lifetime_tile("m1") +
                           R"( = tile.add(acc, acc)
        out = yield_(nxt)
    if c < 1:
        t: )" + lifetime_tile("m2") +
                           R"( = tile.exp(out)
        phi = yield_(t)
    else:
        e: )" + lifetime_tile("m3") +
                           R"( = tile.exp(out)
        phi = yield_(e)
    late: )" + lifetime_tile("m4") +
                           R"( = tile.exp(x)
    z: )" + lifetime_tile("m5") +
                           R"( = tile.add(phi, late)
    r: Tensor[[16, 16], FP32] = tile.store(z, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  // init 0; loop: nxt 1, yield 2; then: t 3, yield 4; else: e 5, yield 6; late 7; z 8; store 9.
  CHECK(range_of(lt, p, "init") == Range{0, 6});  // `out` read at 3 and 5
  CHECK(range_of(lt, p, "nxt") == Range{1, 2});
  CHECK(range_of(lt, p, "t") == Range{4, 9});  // the phi read at 8
  CHECK(range_of(lt, p, "e") == Range{6, 9});
  const auto t = *lt.find(find_var(p, "t").get());
  const auto e = *lt.find(find_var(p, "e").get());
  REQUIRE(lt.families[t].size() == 1);
  CHECK(lt.families[t] == lt.families[e]);  // one family: the same value on exclusive paths
  CHECK(lt.families[*lt.find(find_var(p, "late").get())].empty());
}

TEST_CASE("lifetimes: a phi keeps the buffer it lives in alive, even when defined before the if") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], c: Scalar[INDEX], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    m3: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    b: )" + lifetime_tile("m2") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    if c < 1:
        phi = yield_(a)
    else:
        phi = yield_(b)
    z: )" + lifetime_tile("m3") +
                           R"( = tile.exp(phi)
    r: Tensor[[16, 16], FP32] = tile.store(z, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  // a 0, b 1, yields 2 and 3, z 4: the phi takes a's MemRef, so a lives to 4.
  CHECK(range_of(lt, p, "a") == Range{0, 4});
  CHECK(range_of(lt, p, "b") == Range{1, 3});  // its last read is the else yield (YieldFixup moves it there)
  CHECK(lt.families[*lt.find(find_var(p, "a").get())].empty());  // not branch-local: no family
}

TEST_CASE("lifetimes: on-chip tile parameters are defined at point 0 on request") {
  const std::string text = R"(
def main(p: Tile[[16, 16], FP32, MemRef("mp", 0, 1024), Vec], x: Tensor[[16, 16], FP32]) -> Tile[[16, 16], FP32, Vec]:
    m1: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    b: )" + lifetime_tile("m1") +
                           R"( = tile.add(a, p)
    return b
)";
  auto p = parse_ok(text);
  CHECK_FALSE(compute_lifetimes(p.functions[0]).find(find_var(p, "p").get()));
  const auto lt = compute_lifetimes(p.functions[0], {true});
  CHECK(range_of(lt, p, "p") == Range{0, 1});
  CHECK(lt.vars.front()->name == "p");  // parameters first
}

TEST_CASE("lifetimes: a while loop's condition and body") {
  const std::string text = R"(
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
    a: )" + lifetime_tile("m1") +
                           R"( = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for (k, acc) in while_(init_values=(0, a)):
        cond(k < 4)
        b: )" + lifetime_tile("m2") +
                           R"( = tile.exp(acc)
        k2: Scalar[INDEX] = k + 1
        kk, out = yield_(k2, b)
    r: Tensor[[16, 16], FP32] = tile.store(out, [0, 0], o)
    return r
)";
  auto p = parse_ok(text);
  const auto lt = compute_lifetimes(p.functions[0]);
  // a 0; body: b 1, k2 2, yield 3; store 4 reads `out` -> a.
  CHECK(range_of(lt, p, "a") == Range{0, 5});
  CHECK(range_of(lt, p, "b") == Range{1, 3});
}
