// The tile-storage verifier on hand-written planned programs: what it
// accepts, what it rejects and what its diagnostics say; and its place at
// the end of compile() and of `pto-mem compile`.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/verify/tile_storage.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

const char* const header = R"(@function(type=InCore)
def main(x: Tensor[[16, 16], FP32, MemRef("mem_ddr_0", 0, 1024)],
         c: Scalar[INDEX],
         o: Out[Tensor[[16, 16], FP32, MemRef("mem_ddr_1", 0, 1024)]]) -> Tensor[[16, 16], FP32]:
    m0: Ptr = tile.alloc(Vec, 1024)
    m1: Ptr = tile.alloc(Vec, 1024)
    m2: Ptr = tile.alloc(Vec, 1024)
)";

std::string storage_tile(const char* base, int offset) {
  return "Tile[[16, 16], FP32, MemRef(" + std::string(base) + ", " + std::to_string(offset) + ", 1024), Vec]";
}

Diagnostics check(const std::string& body, bool addresses_assigned = true) {
  auto parsed = parse_program(std::string(header) + body, "k.pto");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.diagnostics.empty() ? "" : format(parsed.diagnostics.front())));
  TileStorageOptions o;
  o.addresses_assigned = addresses_assigned;
  return verify_tile_storage(parsed.program, o);
}

std::string text(const Diagnostics& ds) {
  std::string s;
  for (const auto& d : ds) s += format(d) + "\n";
  return s;
}

const std::string store_tail = "    r: Tensor[[16, 16], FP32] = tile.store(s, [0, 0], o)\n    return r\n";

}  // namespace

TEST_CASE("tile storage: a swap through a temporary is right, a swap in place is not") {
  const std::string pre = "    a0: " + storage_tile("m0", 0) +
                          " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
                          "    b0: " + storage_tile("m1", 1024) + " = tile.exp(a0)\n" +
                          "    for i, (a, b) in range(3, init_values=(a0, b0)):\n";
  const std::string post = "        ra, rb = yield_(b_mv, a_mv)\n    s: " + storage_tile("m2", 2048) +
                           " = tile.sub(ra, rb)\n" + store_tail;
  const std::string good =
      pre + "        t: " + storage_tile("m2", 2048) + " = tile.move(a, target_memory=Vec)\n" +
      "        b_mv: " + storage_tile("m0", 0) + " = tile.move(b, target_memory=Vec)\n" +
      "        a_mv: " + storage_tile("m1", 1024) + " = tile.move(t, target_memory=Vec)\n" + post;
  CHECK_MESSAGE(check(good).empty(), text(check(good)));
  const std::string bad =
      pre + "        b_mv: " + storage_tile("m0", 0) + " = tile.move(b, target_memory=Vec)\n" +
      "        a_mv: " + storage_tile("m1", 1024) + " = tile.move(a, target_memory=Vec)\n" + post;
  const auto ds = check(bad);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].code == "tile-storage");
  CHECK(ds[0].location->line == 12);
  CHECK(ds[0].message.find("'a' read by 'tile.move' does not hold its value") != std::string::npos);
  CHECK(ds[0].message.find("holds 'b_mv' (defined at line 11), which overwrote it") != std::string::npos);
}

TEST_CASE("tile storage: constant trip counts 0, 1 and more, and unknown ones") {
  // The body reads the initializer after the carry (on the same window) was updated.
  auto loop = [](const std::string& range) {
    return "    a0: " + storage_tile("m0", 0) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
           "    for i, (a,) in range(" + range + ", init_values=(a0,)):\n" +
           "        t: " + storage_tile("m1", 1024) + " = tile.exp(a0)\n" +
           "        n: " + storage_tile("m0", 0) + " = tile.add(a, t)\n" + "        q = yield_(n)\n" +
           "    s: " + storage_tile("m2", 2048) + " = tile.exp(q)\n" + store_tail;
  };
  CHECK(check(loop("0")).empty());  // the body never runs
  CHECK(check(loop("1")).empty());  // no back-edge
  CHECK(check(loop("2")).size() == 1);
  CHECK(check(loop("c")).size() == 1);
  CHECK(text(check(loop("2"))).find("'a0' read by 'tile.exp'") != std::string::npos);

  // A loop that may run zero times exits with the initializer: a result read
  // after it needs the initializer on the carry's window.
  const std::string zero =
      "    a0: " + storage_tile("m0", 0) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
      "    for i, (a,) in range(c, init_values=(a0,)):\n" + "        n: " + storage_tile("m1", 1024) +
      " = tile.exp(a)\n" + "        q = yield_(n)\n" + "    s: " + storage_tile("m2", 2048) +
      " = tile.exp(q)\n" + store_tail;
  const auto ds = check(zero);
  REQUIRE(!ds.empty());
  CHECK(text(ds).find("yielded value 'n' is not on the window of 'a' (they are different windows)") !=
        std::string::npos);
}

TEST_CASE(
    "tile storage: views are sub-windows of their source; not-in-place-safe ops may not overwrite inputs") {
  const std::string a =
      "    a: " + storage_tile("m0", 0) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n";
  const std::string half = "Tile[[8, 16], FP32, MemRef(m0, 512, 512), Vec]";
  CHECK(check(a + "    v: " + half +
              " = tile.slice(a, [8, 16], [8, 0])\n    w: Tile[[8, 16], FP32, MemRef(m1, 1024, 512), Vec] = "
              "tile.exp(v)\n    s: " +
              storage_tile("m2", 2048) + " = tile.exp(a)\n" + store_tail)
            .empty());
  // The view's window is not inside its source's.
  const auto off = check(a + "    v: " + storage_tile("m1", 1024) + " = tile.reshape(a, [16, 16])\n    s: " +
                         storage_tile("m2", 2048) + " = tile.exp(v)\n" + store_tail);
  REQUIRE(off.size() == 1);
  CHECK(off[0].message.find("'v' read by 'tile.exp'") != std::string::npos);
  // tile.recip is not in-place safe.
  const auto inplace = check(a + "    s: " + storage_tile("m0", 0) + " = tile.recip(a)\n" + store_tail);
  REQUIRE(inplace.size() == 1);
  CHECK(inplace[0].message.find("not in-place safe") != std::string::npos);
  CHECK(check(a + "    s: " + storage_tile("m0", 0) + " = tile.exp(a)\n" + store_tail).empty());
}

TEST_CASE("tile storage: phis, and one value for two phis") {
  const std::string pre = "    b: " + storage_tile("m0", 0) +
                          " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
                          "    e: " + storage_tile("m1", 1024) + " = tile.exp(b)\n" + "    if c < 1:\n";
  // p lives in e's buffer; the then arm copies b there.
  const std::string good = pre + "        b_mv: " + storage_tile("m1", 1024) +
                           " = tile.move(b, target_memory=Vec)\n" +
                           "        p = yield_(b_mv)\n    else:\n        p = yield_(e)\n" +
                           "    s: " + storage_tile("m2", 2048) + " = tile.add(p, b)\n" + store_tail;
  CHECK_MESSAGE(check(good).empty(), text(check(good)));
  // Without the copy (p takes the then value's window, b's), the else value is not on it.
  const std::string bad = pre + "        p = yield_(b)\n    else:\n        p = yield_(e)\n" +
                          "    s: " + storage_tile("m2", 2048) + " = tile.add(p, b)\n" + store_tail;
  const auto ds = check(bad);
  REQUIRE(ds.size() == 2);  // the missing copy, and then the read of p after the if
  CHECK(text(ds).find("branch value 'e' is not on the window of 'p'") != std::string::npos);
  CHECK(text(ds).find("'p' read by 'tile.add' does not hold its value") != std::string::npos);
}

TEST_CASE("tile storage: relative offsets are compared per base, absolute ones per space") {
  const std::string body = "    a: " + storage_tile("m0", 0) +
                           " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
                           "    b: " + storage_tile("m1", 0) + " = tile.exp(a)\n" +
                           "    s: " + storage_tile("m2", 0) + " = tile.add(a, b)\n" + store_tail;
  CHECK(check(body, false).empty());
  const auto ds = check(body, true);  // all three at address 0 of Vec: b overwrites a
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].message.find("'a' read by 'tile.add' does not hold its value: byte 0 of Vec holds 'b'") !=
        std::string::npos);
}

TEST_CASE("tile storage: a run-time slot is its own window; a write over its allocation forgets it") {
  const std::string decl = "    buf: Ptr = tile.alloc(Vec, 2048, pinned=True)\n";
  const std::string slot =
      "Tile[[16, 16], FP32, MemRef(buf, 4096 + i % 2 * 1024, 1024, slots=2)[i % 2], Vec]";
  const std::string ok =
      decl + "    a: " + storage_tile("m0", 0) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
      "    for i in range(4):\n" + "        p: " + slot +
      " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" + "        t: " + storage_tile("m1", 1024) +
      " = tile.add(p, a)\n" + "    s: " + storage_tile("m2", 2048) + " = tile.exp(a)\n" + store_tail;
  CHECK_MESSAGE(check(ok).empty(), text(check(ok)));
  // `a` on the declared allocation's bytes: the slot write may hit it.
  const std::string bad =
      decl + "    a: " + storage_tile("m0", 5120) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
      "    for i in range(4):\n" + "        p: " + slot +
      " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" + "        t: " + storage_tile("m1", 1024) +
      " = tile.add(p, a)\n" + "    s: " + storage_tile("m2", 2048) + " = tile.exp(a)\n" + store_tail;
  CHECK(!check(bad).empty());
}

TEST_CASE("tile storage: a phi at its own if's slot is, on each arm, the slot that arm yields") {
  // A logical tile selection: a and b in the two slots of `sel` (at 4096),
  // the phi at 4096 + p_slot * 1024; a view of the phi keeps its distance.
  const std::string sel = "    sel: Ptr = tile.alloc(Vec, 2048)\n";
  auto slot = [](int offset, int k) {
    return "Tile[[16, 16], FP32, MemRef(sel, " + std::to_string(offset) + ", 1024, slots=2)[" +
           std::to_string(k) + "], Vec]";
  };
  const std::string phi =
      "tuple[Tile[[16, 16], FP32, MemRef(sel, 4096 + p_slot * 1024, 1024, slots=2)[p_slot], Vec], "
      "Scalar[INDEX]]";
  const std::string half =
      "Tile[[8, 16], FP32, MemRef(sel, 4096 + p_slot * 1024 + 512, 512, slots=2)[p_slot], Vec]";
  auto program = [&](int then_slot, int else_slot, const std::string& after) {
    return sel + "    a: " + slot(4096, 0) + " = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n" +
           "    b: " + slot(5120, 1) + " = tile.exp(a)\n" + "    if c < 1:\n        p, p_slot: " + phi +
           " = yield_(a, " + std::to_string(then_slot) + ")\n    else:\n        p, p_slot: " + phi +
           " = yield_(b, " + std::to_string(else_slot) + ")\n" + after + "    h: " + half +
           " = tile.slice(p, [8, 16], [8, 0])\n" + "    s: " + storage_tile("m2", 2048) +
           " = tile.add(p, a)\n" + "    t: Tile[[8, 16], FP32, MemRef(m1, 0, 512), Vec] = tile.exp(h)\n" +
           store_tail;
  };
  const std::string good = program(0, 1, "");
  CHECK_MESSAGE(check(good).empty(), text(check(good)));
  // The then arm naming the else arm's slot: a is not where p would be.
  const auto flipped = check(program(1, 1, ""));
  REQUIRE_FALSE(flipped.empty());
  CHECK(text(flipped).find("branch value 'a' is not on the window of 'p'") != std::string::npos);
  // A write over one slot after the if: p (either slot) is forgotten.
  const auto clobbered = check(program(0, 1, "    w: " + slot(4096, 0) + " = tile.exp(b)\n"));
  REQUIRE_FALSE(clobbered.empty());
  CHECK(text(clobbered).find("'p' read by 'tile.add' does not hold its value") != std::string::npos);
  // A write elsewhere leaves it known.
  const std::string elsewhere = program(0, 1, "    w: " + storage_tile("m0", 0) + " = tile.exp(b)\n");
  CHECK_MESSAGE(check(elsewhere).empty(), text(check(elsewhere)));
}

TEST_CASE(
    "tile storage: compile() runs the verifier after every planner; the tool exits 2 and writes nothing") {
  const std::string src = R"(@function(type=InCore)
def main(x: Tensor[[64, 64], FP32], o: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:
    a0: Tile[[64, 64], FP32, Vec] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)
    b0: Tile[[64, 64], FP32, Vec] = tile.exp(a0)
    for i, (a, b) in range(3, init_values=(a0, b0)):
        ra, rb = yield_(b, a)
    s: Tile[[64, 64], FP32, Vec] = tile.sub(ra, rb)
    r: Tensor[[64, 64], FP32] = tile.store(s, [0, 0], o)
    return r
)";
  for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas}) {
    CAPTURE(to_string(p));
    CompileOptions o;
    o.planner = p;
    CompileResult r = compile_source(src, "swap.pto", o);
    // Whatever the passes do with a swap, the program that leaves compile()
    // is either right (the verifier found nothing) or refused with the
    // verifier's diagnostic.
    if (!r.ok()) {
      CHECK(r.exit_code() == 2);
    }
    o.verify_storage = false;
    CompileResult unchecked = compile_source(src, "swap.pto", o);
    REQUIRE(unchecked.ok());
    TileStorageOptions vo;
    vo.addresses_assigned = unchecked.addresses_assigned;
    const bool wrong = !verify_tile_storage(unchecked.program, vo).empty();
    bool flagged = false;
    for (const auto& d : r.diagnostics) flagged |= d.code == "tile-storage";
    CHECK(flagged == wrong);
    CHECK(r.ok() == !wrong);
  }
  // Stopping early skips it: an intermediate program is not a plan.
  CompileOptions early;
  early.until = Stage::init;
  CHECK(compile_source(src, "swap.pto", early).ok());

#ifdef PTO_MEM_TOOL
  // The tool: a refused plan exits 2 with the diagnostic and writes no file;
  // a right one exits 0 with the file.
  const auto dir = std::filesystem::temp_directory_path() / "pto_mem_tile_storage_test";
  std::filesystem::create_directories(dir);
  const auto in = dir / "swap.pto", out = dir / "out.pto", err = dir / "err.txt";
  std::ofstream(in) << src;
  for (const char* planner : {"pypto", "dsa_rp", "ptoas"}) {
    CAPTURE(planner);
    std::filesystem::remove(out);
    const std::string cmd = std::string(PTO_MEM_TOOL) + " compile " + in.string() + " --planner " + planner +
                            " -o " + out.string() + " 2> " + err.string();
    const int status = std::system(cmd.c_str());
    std::ifstream e(err);
    const std::string messages((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    if (messages.find("[tile-storage]") != std::string::npos) {
      CHECK(status != 0);
      CHECK(!std::filesystem::exists(out));
    } else {
      CHECK(status == 0);
      CHECK(std::filesystem::exists(out));
    }
  }
  std::filesystem::remove_all(dir);
#endif
}
