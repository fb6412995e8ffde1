// The tile-memory pipeline: which passes each planner runs, --until, dumps,
// stopping at the first error, exit codes, allocation addresses; and the
// memory map built from a planned program.
#include <doctest/doctest.h>

#include "pass_support.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/pypto/memory_map.hpp"
#include "pto_mem/pypto/passes/pipeline_impl.hpp"  // detail::pipeline

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

const std::string pipeline_program =
    test::kernel("x: Tensor[[64, 64], FP32],\n         out: Out[Tensor[[64, 64], FP32]]",
                 "    t = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                 "    e = tile.exp(t)\n"
                 "    r = tile.store(e, [0, 0], out)\n"
                 "    return r\n");

bool mentions_pass(const Diagnostics& ds, const std::string& pass) {
  for (const auto& d : ds)
    if (d.message.find(pass) != std::string::npos) return true;
  return false;
}

bool contains(const std::vector<Stage>& v, Stage s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("each planner runs its passes") {
  CHECK(runs(Planner::pypto, Stage::reuse));
  CHECK(runs(Planner::pypto, Stage::alloc));
  CHECK_FALSE(runs(Planner::dsa_rp, Stage::reuse));
  CHECK(runs(Planner::dsa_rp, Stage::alloc));
  CHECK_FALSE(runs(Planner::ptoas, Stage::reuse));
  CHECK_FALSE(runs(Planner::ptoas, Stage::alloc));
  for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
    for (Stage s : {Stage::infer, Stage::init, Stage::alias}) CHECK(runs(p, s));
  for (Stage s : all_stages) CHECK(parse_stage(to_string(s)) == s);
  CHECK_FALSE(parse_stage("lower"));
  CHECK(parse_planner("dsa_rp") == Planner::dsa_rp);
  CHECK_FALSE(parse_planner("greedy"));
}

TEST_CASE("--until stops after the named stage; a skipped pass is a no-op") {
  for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas}) {
    CAPTURE(to_string(p));
    auto parsed = test::compile_ok(pipeline_program, Stage::parse, p);
    CHECK(parsed.ran == std::vector<Stage>{Stage::parse});
    CHECK(memory_space_of(test::var(parsed.program, "e")->type) ==
          MemorySpace::Vec);  // as typed by the parser
    CHECK_FALSE(memref_of(test::var(parsed.program, "e")->type));
    auto inferred = test::compile_ok(pipeline_program, Stage::infer, p);
    CHECK(inferred.ran == std::vector<Stage>{Stage::parse, Stage::infer});
    CHECK(inferred.moves.size() == 1);
    auto init = test::compile_ok(pipeline_program, Stage::init, p);
    CHECK(init.ran == std::vector<Stage>{Stage::parse, Stage::infer, Stage::init});
    CHECK(memref_of(test::var(init.program, "e")->type));
    CHECK_FALSE(init.addresses_assigned);
    // MemoryReuse runs only under pypto, AllocateMemoryAddr never under ptoas,
    // whatever --until asks for (the others' results depend on their passes).
    for (Stage until : {Stage::reuse, Stage::alloc}) {
      auto r = test::compile_text(pipeline_program, until, p);
      CHECK(contains(r.ran, Stage::reuse) <= (p == Planner::pypto));
      CHECK(contains(r.ran, Stage::alloc) <= (p != Planner::ptoas));
      if (p != Planner::pypto) CHECK_FALSE(mentions_pass(r.diagnostics, "MemoryReuse"));
      if (p == Planner::ptoas) {
        CHECK_FALSE(mentions_pass(r.diagnostics, "AllocateMemoryAddr"));
        CHECK_FALSE(r.addresses_assigned);
      }
    }
  }
}

TEST_CASE("the first failing pass stops the pipeline") {
  auto r = test::compile_text(
      "@function(type=InCore)\n"
      "def main(t: Tile[[64, 64], FP32, Vec]):\n"
      "    e = tile.exp(t)\n"
      "    return\n",
      Stage::alloc);
  CHECK_FALSE(r.ok());
  CHECK(r.ran == std::vector<Stage>{Stage::parse});
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "tile-parameter");
  CHECK_FALSE(memref_of(test::var(r.program, "e")->type));  // InitMemRef never ran
  CHECK(r.exit_code() == 2);

  auto bad = test::compile_text("def main(:\n", Stage::alloc);
  CHECK(bad.ran.empty());
  CHECK(bad.exit_code() == 2);
  REQUIRE(bad.diagnostics.size() == 1);
  CHECK(bad.diagnostics[0].location->file == "test.pto");
}

TEST_CASE("exit codes: 0 ok (warnings allowed), 1 only capacity errors, 2 anything else") {
  CompileResult r;
  CHECK(r.exit_code() == 0);
  r.diagnostics.push_back(warning("a warning", "whatever"));
  CHECK(r.exit_code() == 0);
  r.diagnostics.push_back(
      error("Vec buffer usage (192512 bytes) exceeds platform limit (188416 bytes)", "capacity"));
  CHECK(r.exit_code() == 1);
  r.diagnostics.push_back(error("something else", "internal"));
  CHECK(r.exit_code() == 2);
}

TEST_CASE("dumps: the program text after each requested stage that ran") {
  CompileOptions o;
  o.until = Stage::init;
  o.dump_after = {Stage::parse, Stage::init, Stage::alloc};
  auto r = compile_source(pipeline_program, "test.pto", o);
  REQUIRE(r.ok());
  REQUIRE(r.dumps.size() == 2);
  CHECK(r.dumps[0].stage == Stage::parse);
  CHECK(r.dumps[0].text == print(test::parse_ok(pipeline_program)));
  CHECK(r.dumps[1].stage == Stage::init);
  CHECK(r.dumps[1].text == print(r.program));
  // compile() on a parsed program dumps its input for `parse` too.
  o.dump_after = {Stage::parse, Stage::infer};
  auto c = compile(test::parse_ok(pipeline_program), o);
  REQUIRE(c.dumps.size() == 2);
  CHECK(c.dumps[0].text.find("t_Vec") == std::string::npos);
  CHECK(c.dumps[1].text.find("t_Vec") != std::string::npos);
  CHECK(c.ran == std::vector<Stage>{Stage::infer, Stage::init});
}

TEST_CASE("allocation addresses: a window's address minus its offset before AllocateMemoryAddr") {
  // Simulate AllocateMemoryAddr on a program after InitMemRef: every window
  // of allocation mem_vec_2 moves up by 4096; the slice keeps its +64.
  auto init = test::compile_ok(test::kernel("x: Tensor[[64, 64], FP32]",
                                            "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                            "    s = tile.slice(t, [1, 16], [1, 0])\n"
                                            "    u = tile.exp(s)\n"
                                            "    return\n"),
                               Stage::init);
  const auto rel = pypto::detail::pipeline::relative_offsets(init.program);
  CHECK(as_const_int(rel.at("main").at("s")) == 256);
  for (const char* v : {"t", "s", "u"}) {
    auto var = test::var(init.program, v);
    const MemRefPtr m = memref_of(var->type);
    const std::int64_t shift = m->name() == "mem_vec_1" ? 4096 : 0;
    var->type = with_memref(var->type, make_memref(m->base, add(m->byte_offset, int_imm(shift)), m->size));
  }
  CompileResult r;
  pypto::detail::pipeline::allocation_addresses(init.program, rel, r);
  CHECK(r.allocation_addresses.at("main").at("mem_vec_1") == 4096);
  CHECK(r.allocation_addresses.at("main").at("mem_vec_2") == 0);
  // The report uses them.
  r.addresses_assigned = true;
  const auto j = report_json(init.program, {}, r.report_options());
  CHECK(j["functions"][0]["allocations"][0]["addr"] == 4096);
}

TEST_CASE("allocation addresses: runtime slot windows (base + slot expression)") {
  auto i = make_var("i", scalar_type(DataType::INDEX));
  const ExprPtr slot = mul(mod(var_ref(i), int_imm(2)), int_imm(16384));
  using pypto::detail::pipeline::start_address;
  CHECK(start_address(int_imm(4096), int_imm(1024)) == 3072);
  CHECK(start_address(add(int_imm(32768), slot), slot) == 32768);
  CHECK(start_address(add(slot, int_imm(32768)), slot) == 32768);
  CHECK(start_address(slot, slot) == 0);  // placed at 0: `0 + rel` folds to rel
  CHECK(start_address(var_ref(i), slot) == std::nullopt);
  CHECK(start_address(add(int_imm(32768), slot), mul(var_ref(i), int_imm(4))) == std::nullopt);
  CHECK(start_address(nullptr, int_imm(0)) == std::nullopt);
}

TEST_CASE("the memory map of a planned program is a valid generic placement") {
  const Program p = test::parse_ok(
      "@function(type=AIV)\n"
      "def k(x: Tensor[[64, 64], FP32, MemRef(\"mem_ddr_0\", 0, 16384)]):\n"
      "    buf: Ptr = tile.alloc(Vec, 32768, pinned=True)\n"
      "    mem_vec_1: Ptr = tile.alloc(Vec, 16384)\n"
      "    mem_acc_2: Ptr = tile.alloc(Acc, 4096)\n"
      "    rb: Scalar[INT32] = system.reserve_buffer(name=\"ring\", size=1000, base=0)\n"
      "    a: Tile[[64, 64], FP32, MemRef(buf, 1024, 16384, slots=2)[0], Vec] = tile.load(x, [0, 0], [64, "
      "64], target_memory=Vec)\n"
      "    b: Tile[[64, 64], FP32, MemRef(mem_vec_1, 33792, 16384), Vec] = tile.exp(a)\n"
      "    for i in range(4):\n"
      "        c: Tile[[64, 64], FP32, MemRef(buf, 1024 + i % 2 * 16384, 16384, slots=2)[i % 2], Vec] = "
      "tile.exp(b)\n"
      "        e = tile.exp(c)\n"
      "    d: Tile[[16, 64], FP32, MemRef(mem_acc_2, 0, 4096), Acc] = tile.create([16, 64], dtype=FP32, "
      "target_memory=Acc)\n"
      "    return\n");
  const MemoryMap m = memory_map(p, soc_a2a3());
  REQUIRE(m.problem.arenas.size() == 2);
  CHECK(m.problem.arenas[0].name == "k: Vec");
  CHECK(m.problem.arenas[0].capacity == 188416);
  REQUIRE(m.problem.arenas[0].reserved.size() == 1);
  CHECK(m.problem.arenas[0].reserved[0] == AddrRange{0, 1024});  // 1000 bytes, 32-aligned
  CHECK(m.problem.arenas[1].name == "k: Acc");
  CHECK(m.problem.arenas[1].reserved.empty());
  REQUIRE(m.problem.buffers.size() == 3);
  CHECK(m.problem.buffers[0].name == "k/buf");
  CHECK(m.problem.buffers[0].size == 32768);
  CHECK(m.placement.offsets[0] == 1024);
  CHECK(m.placement.offsets[1] == 33792);
  CHECK(m.placement.offsets[2] == 0);
  // Points: rb 1, a 2, b 3, loop body 4..5 (c, e), d 6, return 7.
  CHECK(m.problem.buffers[0].lifetime == Interval{2, 6});  // a at 2 ... c read at 5
  CHECK(m.problem.buffers[1].lifetime == Interval{3, 6});  // b read at 4 in the loop: lives to its end
  CHECK(m.problem.buffers[2].lifetime == Interval{6, 7});
  INFO(test::dump(validate(m.problem, m.placement)));
  CHECK(validate(m.problem, m.placement).empty());
  // Known addresses win over the lowest window.
  const MemoryMap known = memory_map(p, soc_a2a3(), {{"k", {{"buf", 2048}}}});
  CHECK(known.placement.offsets[0] == 2048);
  // Without a backend the arena is drawn up to the high-water mark.
  CHECK(memory_map(p, soc_none()).problem.arenas[0].capacity == 33792 + 16384);
}
