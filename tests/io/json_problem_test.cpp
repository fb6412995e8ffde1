#include <doctest/doctest.h>

#include <string>

#include "problem_equal.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

bool json_contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string json_errors_of(const std::string& text) {
  auto r = read_json_problem(text, "p.json");
  CHECK_FALSE(r.file.has_value());
  CHECK(has_errors(r.diagnostics));
  return dump(r.diagnostics);
}

/// A small valid document with one hole to fill in each error test.
std::string doc(const std::string& buffers, const std::string& extra = "") {
  return "{\"arenas\": [{\"id\": 0, \"capacity\": 100}],\n \"buffers\": [\n" + buffers + "\n ]" + extra + "}";
}

const char* full_model = R"({
  "arenas": [
    {"id": 0, "name": "Vec", "capacity": 196608, "reserved": [[0, 4096]]},
    {"id": 1, "capacity": 1024}
  ],
  "buffers": [
    {"id": "t0", "size": 16384, "alignment": 32, "arena": 0, "lifetime": [0, 5]},
    {"id": "t1", "size": 4096, "arena": 0, "lifetime": [5, 9]},
    {"id": "t2", "size": 4096, "arena": 0, "lifetime": [9, 12]},
    {"id": "t3", "size": 8192, "arena": 0, "lifetime": [3, 7]},
    {"id": 7, "size": 64, "arena": 1, "lifetime": [0, 2]},
    {"id": "decl", "size": 2048, "arena": 1, "lifetime": [0, 10]},
    {"id": "s0", "size": 512, "arena": 1, "lifetime": [2, 4]},
    {"id": "s1", "size": 1024, "arena": 1, "lifetime": [4, 6]}
  ],
  "must_alias": [["t0", {"id": "t3", "offset": 8192}]],
  "separations": [["t1", "t2"], {"a": "t0", "b": "t1", "reasons": ["target_hazard", "pipeline_stage"]}],
  "penalties": [{"a": "t1", "b": "t2", "weight": 3}, {"a": "t0", "b": "t2"}],
  "declared": [{"buffer": "decl", "slots": 2, "slot_size": 1024,
                "bindings": [{"buffer": "s0", "slot": 0}, {"buffer": "s1", "slot": null}]}]
})";

}  // namespace

TEST_CASE("json: the whole model is read, with defaults for optional fields") {
  auto r = read_json_problem(full_model, "p.json");
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  const Problem& p = r.file->problem;
  REQUIRE(p.arenas.size() == 2);
  CHECK(p.arenas[0].name == "Vec");
  CHECK(p.arenas[0].reserved == std::vector<AddrRange>{{0, 4096}});
  CHECK(p.arenas[1].name.empty());
  REQUIRE(p.buffers.size() == 8);
  CHECK(p.buffers[0].alignment == 32);
  CHECK(p.buffers[1].alignment == 1);
  CHECK(p.buffers[4].name == "7");
  CHECK(p.buffers[0].lifetime == Interval{0, 5});
  REQUIRE(p.must_alias.size() == 1);
  CHECK(buffer_label(p, p.must_alias[0].members[0].buffer) == "t0");
  CHECK(p.must_alias[0].members[0].offset == 0);
  CHECK(p.must_alias[0].members[1].offset == 8192);
  REQUIRE(p.separations.size() == 2);
  CHECK(p.separations[0].reasons == reason_explicit);
  CHECK(p.separations[1].reasons == (reason_target_hazard | reason_pipeline_stage));
  REQUIRE(p.penalties.size() == 2);
  CHECK(p.penalties[0].weight == 3);
  CHECK(p.penalties[1].weight == 1);
  REQUIRE(p.declared.size() == 1);
  CHECK(p.declared[0].bindings[0].slot == std::optional<std::uint32_t>{0});
  // Every constraint names its buffers by position in "buffers".
  CHECK(p.must_alias[0].members[0].buffer == 0);
  CHECK(p.must_alias[0].members[1].buffer == 3);
  CHECK((p.separations[0].a == 1 && p.separations[0].b == 2 && p.separations[1].a == 0 &&
         p.separations[1].b == 1));
  CHECK((p.penalties[0].a == 1 && p.penalties[0].b == 2 && p.penalties[1].a == 0 && p.penalties[1].b == 2));
  CHECK(p.declared[0].buffer == 5);
  CHECK((p.declared[0].bindings[0].buffer == 6 && p.declared[0].bindings[1].buffer == 7));
  CHECK_FALSE(p.declared[0].bindings[1].slot.has_value());
  CHECK_FALSE(r.file->placement.has_value());
}

TEST_CASE("json: write then read gives the same problem and placement") {
  auto r = read_json_problem(full_model);
  REQUIRE(r);
  Placement pl;
  pl.offsets.assign(r.file->problem.buffers.size(), std::nullopt);
  pl.offsets[0] = 4096;
  pl.offsets[4] = 0;
  const std::string text = json_problem_text(r.file->problem, &pl);
  auto back = read_json_problem(text);
  REQUIRE_MESSAGE(back, dump(back.diagnostics) << text);
  CHECK(pto_mem::test::first_difference(r.file->problem, back.file->problem) == "");
  REQUIRE(back.file->placement);
  CHECK(back.file->placement->offsets == pl.offsets);
  CHECK(json_problem_text(back.file->problem, &*back.file->placement) == text);  // byte-identical
  CHECK(json_contains(
      text, "{\"id\": 7, \"size\": 64, \"arena\": 1, \"lifetime\": [0, 2]}"));  // integer ids stay integers
}

TEST_CASE("json: a missing capacity becomes one every placement fits into") {
  auto r = read_json_problem(R"({"arenas": [{"id": 3, "reserved": [[0, 10]]}],
    "buffers": [{"id": 1, "size": 5, "arena": 3, "lifetime": [0, 1]}]})");
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  CHECK(r.file->problem.arenas[0].capacity == always_fitting_capacity(r.file->problem, 3));
  CHECK(r.file->problem.arenas[0].capacity >= 15);
}

TEST_CASE("json: syntax errors carry line and column") {
  const auto e = json_errors_of("{\"arenas\": [\n  {\"id\": 0,, \"capacity\": 1}]}");
  CHECK_MESSAGE(json_contains(e, "p.json:2:12: error: invalid JSON: syntax error"), e);
  CHECK(json_contains(json_errors_of("{\"arenas\": ["), "p.json:1:13: error: invalid JSON"));
  CHECK(json_contains(json_errors_of(""), "p.json:1:1: error: invalid JSON"));
}

TEST_CASE("json: semantic errors point at the offending value") {
  auto at = [](const std::string& text, const std::string& expected) {
    const auto e = json_errors_of(text);
    CHECK_MESSAGE(json_contains(e, expected), e);
  };
  const std::string ok = "  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [0, 2]}";
  at(doc("  {\"id\": \"a\", \"size\": -4, \"arena\": 0, \"lifetime\": [0, 2]}"),
     "p.json:3:23: error: /buffers/0/size: size must not be negative, found -4");
  at(doc(ok + ",\n  {\"id\": \"b\", \"size\": 0, \"arena\": 0, \"lifetime\": [0, 2]}"),
     "p.json:4:23: error: /buffers/1/size: size must be positive, found 0");
  at(doc("  {\"id\": \"a\", \"size\": \"4\", \"arena\": 0, \"lifetime\": [0, 2]}"),
     "/buffers/0/size: size must be an integer from 0 to 2^64-1, found the string \"4\"");
  at(doc("  {\"id\": \"a\", \"size\": 4.5, \"arena\": 0, \"lifetime\": [0, 2]}"), "found 4.5");
  at(doc("  {\"id\": \"a\", \"arena\": 0, \"lifetime\": [0, 2]}"),
     "p.json:3:3: error: /buffers/0: the buffer has no 'size' field");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [2, 2]}"),
     "p.json:3:50: error: /buffers/0/lifetime: lifetime [2, 2) is empty or reversed");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [-1, 2]}"),
     "/buffers/0/lifetime: lifetime [-1, 2) starts before 0");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [0]}"),
     "/buffers/0/lifetime: lifetime must be a pair [begin, end]");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 5, \"lifetime\": [0, 2]}"),
     "p.json:3:35: error: /buffers/0/arena: unknown arena 5; the arenas are 0");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"alignment\": 0, \"arena\": 0, \"lifetime\": [0, 2]}"),
     "/buffers/0/alignment: alignment must be positive");
  at(doc("  {\"id\": [1], \"size\": 4, \"arena\": 0, \"lifetime\": [0, 2]}"),
     "/buffers/0/id: buffer id must be a string or an integer, found an array");
  at(doc("  {\"id\": \"\", \"size\": 4, \"arena\": 0, \"lifetime\": [0, 2]}"),
     "/buffers/0/id: buffer id is empty");
  at(doc(ok + ",\n" + ok),
     "p.json:4:10: error: /buffers/1/id: duplicate buffer id 'a' (first at /buffers/0)");
  at(doc("  {\"id\": 1, \"size\": 4, \"arena\": 0, \"lifetime\": [0, 2]},\n  {\"id\": \"1\", \"size\": 4, "
         "\"arena\": 0, \"lifetime\": [0, 2]}"),
     "duplicate buffer id '1'");
  at(doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetme\": [0, 2]}"),
     "/buffers/0/lifetme: unknown field 'lifetme' in a buffer");
  at(doc(ok, ", \"colour\": 1"), "/colour: unknown field 'colour' in the problem");
  at("{\"arenas\": [{\"id\": 0, \"capacity\": 100}], \"buffers\": {}}",
     "/buffers: 'buffers' must be an array, found an object");
  at("{\"buffers\": []}", "p.json:1:1: error: /: the problem has no 'arenas' field");
  at("[1, 2]", "/: the problem must be an object, found an array");
  at("{\"arenas\": [{\"id\": 0, \"capacity\": 0}], \"buffers\": []}",
     "/arenas/0/capacity: capacity must be positive");
  at("{\"arenas\": [{\"id\": 0}, {\"id\": 0}], \"buffers\": []}", "/arenas/1/id: duplicate arena id 0");
  at("{\"arenas\": [{\"id\": 0, \"capacity\": 100, \"reserved\": [[0, 200]]}], \"buffers\": []}",
     "/arenas/0/reserved/0: reserved window [0, 200) ends past the capacity 100");
  at("{\"arenas\": [{\"id\": 0, \"reserved\": [[5, 5]]}], \"buffers\": []}",
     "/arenas/0/reserved/0: reserved window [5, 5) is empty");
  at("{\"arenas\": [{\"id\": 0, \"name\": 3}], \"buffers\": []}",
     "/arenas/0/name: arena name must be a string");
  at("{\"arenas\": [{\"id\": 1.5}], \"buffers\": []}",
     "/arenas/0/id: arena id must be a 64-bit signed integer, found 1.5");
}

TEST_CASE("json: constraint errors point at the reference") {
  auto at = [](const std::string& text, const std::string& expected) {
    const auto e = json_errors_of(text);
    CHECK_MESSAGE(json_contains(e, expected), e);
  };
  const std::string bufs =
      "  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [0, 2]},\n"
      "  {\"id\": \"b\", \"size\": 4, \"arena\": 0, \"lifetime\": [2, 4]},\n"
      "  {\"id\": \"c\", \"size\": 4, \"arena\": 1, \"lifetime\": [0, 4]}";
  auto two = [&](const std::string& extra) {
    return "{\"arenas\": [{\"id\": 0, \"capacity\": 100}, {\"id\": 1, \"capacity\": 100}],\n \"buffers\": "
           "[\n" +
           bufs + "\n ]" + extra + "}";
  };
  at(two(",\n \"must_alias\": [[\"a\", \"zz\"]]"),
     "p.json:7:23: error: /must_alias/0/1: member names unknown buffer 'zz'");
  at(two(", \"must_alias\": [[\"a\", \"c\"]]"),
     "/must_alias/0/1: member 'c' is in arena 1 but the group is in arena 0");
  at(two(", \"must_alias\": [[\"a\", {\"id\": \"b\", \"offset\": -1}]]"),
     "/must_alias/0/1/offset: member offset must not be negative");
  at(two(", \"must_alias\": [[]]"), "/must_alias/0: a must-alias group must be a non-empty array");
  at(two(", \"separations\": [[\"a\"]]"), "/separations/0: a separation must be a pair [a, b]");
  at(two(", \"separations\": [[\"a\", \"a\"]]"), "/separations/0: separation names buffer 'a' twice");
  at(two(", \"separations\": [{\"a\": \"a\", \"b\": \"q\"}]"),
     "/separations/0/b: separation names unknown buffer 'q'");
  at(two(", \"separations\": [{\"a\": \"a\", \"b\": \"b\", \"reasons\": [\"because\"]}]"),
     "/separations/0/reasons/0: unknown separation reason, found the string \"because\"");
  at(two(", \"penalties\": [{\"a\": \"a\", \"b\": \"b\", \"weight\": -2}]"),
     "/penalties/0/weight: weight must not be negative");
  at(two(", \"penalties\": [{\"a\": \"a\"}]"), "/penalties/0: the penalty has no 'b' field");
  at(two(", \"declared\": [{\"buffer\": \"a\", \"slots\": 2, \"slot_size\": 2, \"bindings\": [{\"buffer\": "
         "\"b\", \"slot\": 2}]}]"),
     "/declared/0/bindings/0/slot: slot 2 is out of range; there are 2 slots");
  at(two(", \"declared\": [{\"buffer\": \"a\", \"slots\": 0, \"slot_size\": 2}]"),
     "/declared/0/slots: slots must be positive");
  at(two(", \"placement\": [{\"id\": \"a\", \"offset\": 0}, {\"id\": \"a\", \"offset\": 4}]"),
     "/placement/1/id: buffer 'a' is placed twice");
  at(two(", \"placement\": [{\"id\": \"nope\", \"offset\": 0}]"),
     "/placement/0/id: placement entry names unknown buffer 'nope'");
  // Rules joining several buffers come from the validator, attributed to the file.
  at(two(", \"penalties\": [{\"a\": \"a\", \"b\": \"c\"}]"),
     "p.json: error: penalty ('a', 'c') joins buffers of different arenas");
}

TEST_CASE("json: errors are capped, and the cap is said") {
  std::string bufs;
  for (int i = 0; i < 30; ++i)
    bufs += std::string(i ? ",\n" : "") + "  {\"id\": " + std::to_string(i) +
            ", \"size\": 0, \"arena\": 0, \"lifetime\": [0, 2]}";
  auto r = read_json_problem(doc(bufs), "p.json", JsonReadOptions{4});
  CHECK_FALSE(r);
  REQUIRE(r.diagnostics.size() == 5);
  CHECK(pto_mem::test::mentions(r.diagnostics, "too many errors; stopping after 4"));
}

TEST_CASE("json: the position index finds values by path in tricky text") {
  const std::string text = "{\"a\\\"b\": [1, {\"x\": \"]}\"}], \"k\": {\"k\": 5}, \"k\": [10,\n 20]}";
  auto off = json_value_offset(text, {{"k", 0, false}, {"", 1, true}});  // the last "k" wins
  REQUIRE(off);
  CHECK(text.substr(*off, 2) == "20");
  CHECK_FALSE(json_value_offset(text, {{"missing", 0, false}}));
  CHECK_FALSE(json_value_offset(text, {{"k", 0, false}, {"", 5, true}}));
  CHECK(json_pointer({{"a/b~", 0, false}, {"", 3, true}}) == "/a~1b~0/3");
}

TEST_CASE("json: files are read whole and written atomically") {
  pto_mem::test::TempDir dir;
  auto r = read_json_problem(full_model);
  REQUIRE(r);
  const auto path = dir.file("p.json");
  CHECK(write_json_problem_file(path, r.file->problem).empty());
  auto back = read_json_problem_file(path);
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  CHECK(pto_mem::test::first_difference(r.file->problem, back.file->problem) == "");
  CHECK(dir.entries() == std::vector<std::string>{"p.json"});
}

// Found by fuzz/csv_problem_fuzz: a file without a capacity
// was written with the reader's always-fitting capacity as a real one, so the
// JSON copy of a placement `validate` passes (capacity unchecked) failed it.
TEST_CASE("json: a file without a capacity is written without one") {
  auto csv = read_csv("id,lower,upper,size,offset\na,0,1,4,100\nb,0,1,4,0\n", {}, "vc.csv");
  REQUIRE(csv);
  REQUIRE(csv.file->no_capacity == std::vector<bool>{true});
  const std::string text = json_problem_text(*csv.file);
  CHECK_FALSE(json_contains(text, "capacity"));
  auto back = read_json_problem(text, "vc.json");
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  CHECK(pto_mem::test::first_difference(csv.file->problem, back.file->problem) == "");
  CHECK(back.file->no_capacity == std::vector<bool>{true});
  REQUIRE(back.file->placement);
  CHECK(back.file->placement->offsets == csv.file->placement->offsets);

  // A capacity the file gives is kept, in every arena that has one.
  auto two = read_json_problem(
      R"({"arenas": [{"id": 0, "capacity": 64}, {"id": 1}],
          "buffers": [{"id": "a", "size": 4, "arena": 0, "lifetime": [0, 1]},
                      {"id": "b", "size": 4, "arena": 1, "lifetime": [0, 1]}]})");
  REQUIRE(two);
  auto again = read_json_problem(json_problem_text(*two.file));
  REQUIRE_MESSAGE(again, dump(again.diagnostics));
  CHECK(again.file->no_capacity == std::vector<bool>{false, true});
  CHECK(again.file->problem.arenas[0].capacity == 64);
  CHECK(pto_mem::test::first_difference(two.file->problem, again.file->problem) == "");

  pto_mem::test::TempDir dir;
  CHECK(write_json_problem_file(dir.file("vc.json"), *csv.file).empty());
  auto file = read_json_problem_file(dir.file("vc.json"));
  REQUIRE(file);
  CHECK(file.file->no_capacity == std::vector<bool>{true});
}

TEST_CASE("json: a byte-order mark is skipped and every position is kept") {
  const std::string body = doc("  {\"id\": \"a\", \"size\": -4, \"arena\": 0, \"lifetime\": [0, 1]}");
  const std::string plain = json_errors_of(body);
  const std::string marked = json_errors_of("\xEF\xBB\xBF" + body);
  CHECK(json_contains(plain, "p.json:3:23: error: /buffers/0/size: size must not be negative"));
  CHECK(marked == plain);  // columns count from the byte after the mark, as an editor shows them
  CHECK(json_errors_of("\xEF\xBB\xBF{\"arenas\": [}") == json_errors_of("{\"arenas\": [}"));
  auto ok = read_json_problem("\xEF\xBB\xBF" +
                              doc("  {\"id\": \"a\", \"size\": 4, \"arena\": 0, \"lifetime\": [0, 1]}"));
  CHECK_MESSAGE(ok, dump(ok.diagnostics));
}

TEST_CASE("json: a number out of range is named with its position") {
  CHECK(json_contains(json_errors_of("{\"arenas\": [{\"id\": 0, \"capacity\": 1E400}], \"buffers\": []}"),
                      "p.json:1:35: error: invalid JSON: the number 1E400 is out of range"));
  // The same digits inside a string earlier do not mislead it.
  CHECK(json_contains(
      json_errors_of("{\"arenas\": [{\"id\": 0, \"name\": \"1E400\"}],\n \"buffers\": [-2e999]}"),
      "p.json:2:14: error: invalid JSON: the number -2e999 is out of range"));
  // A tiny number rounds to 0 (nlohmann accepts it): the reader then says it is no integer.
  CHECK(json_contains(
      json_errors_of(doc("  {\"id\": \"a\", \"size\": 1e-400, \"arena\": 0, \"lifetime\": [0, 1]}")),
      "p.json:3:23: error: /buffers/0/size"));
}

TEST_CASE("json: no diagnostic echoes a control character or a stray byte") {
  // C0, DEL, C1 (U+009B is CSI to some terminals) and a lone 0x9B byte, in
  // every place a message quotes the input: a syntax error's excerpt, an
  // unknown key and its pointer, a value found where another was expected.
  const std::string nasty = "x\x01\x7f\xc2\x9b\x9b";
  const std::vector<std::string> texts = {
      "{\"arenas\": [], \"" + nasty + "\": 1}",
      "{\"arenas\": [{\"id\": 0, \"name\": 5}], \"buffers\": [{\"id\": \"" + std::string("x\x7f\xc2\x9b") +
          "\"}]}",
      "{\"arenas\": [{\"id\": \"" + std::string("x\x7f\xc2\x9b") + "\"}], \"buffers\": []}",
      "{\"arenas\": [], \"buffers\": [], \"k\": \"" + nasty,
      "{\"arenas\": [], \"buffers\": [" + nasty + "]}",
  };
  for (const auto& text : texts) {
    const std::string shown = json_errors_of(text);
    INFO(shown);
    for (unsigned char c : shown) {
      CHECK((c >= 0x20 || c == '\n'));
      CHECK(c != 0x7f);
      CHECK(c != 0x9b);
      CHECK(c != 0xc2);  // the first byte of every C1 control in UTF-8
    }
  }
  // A raw C0 control (and a lone byte) in a string is a syntax error.
  CHECK(json_contains(json_errors_of(texts[0]),
                      "p.json:1:18: error: invalid JSON: syntax error while parsing object key - "
                      "invalid string: control character U+0001 (SOH) must be escaped"));
  CHECK(json_contains(json_errors_of("{\"arenas\": [], \"buffers\": [], \"k\x7f\xc2\x9b\": 1}"),
                      "/k<U+007F><U+009B>: unknown field 'k<U+007F><U+009B>'"));
  CHECK(json_contains(json_errors_of(texts[2]), "found the string \"x<U+007F><U+009B>\""));
}

// The model's one rule for "no capacity": capacity == always_fitting_capacity
// (what the readers and make_problem set, what plan() reads as "minimise").
// A written problem leaves such a capacity out, so re-planning the file asks
// the same question.
TEST_CASE("json: an always-fitting capacity is never written as if it were the user's") {
  auto csv = read_csv("id,lower,upper,size\na,0,2,40\nb,1,3,24\nc,3,5,64\n", {}, "s.csv");
  REQUIRE(csv);
  Placement pl{{Addr{0}, Addr{40}, Addr{0}}};
  const std::string text = json_problem_text(csv.file->problem, &pl);  // what `plan -o out.json` writes
  CHECK_FALSE(json_contains(text, "capacity"));
  auto back = read_json_problem(text, "out.json");
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  CHECK(pto_mem::test::first_difference(csv.file->problem, back.file->problem) == "");
  CHECK(back.file->no_capacity == std::vector<bool>{true});

  // A capacity of the user's own is written, and so is a reserved window.
  Problem p = csv.file->problem;
  p.arenas[0].capacity = 128;
  p.arenas[0].reserved = {{0, 8}};
  CHECK(json_contains(json_problem_text(p), "\"capacity\": 128"));
  p.arenas[0].capacity = always_fitting_capacity(p, 0);  // the window counts in the always-fitting capacity
  const std::string windowed = json_problem_text(p);
  CHECK_FALSE(json_contains(windowed, "capacity"));
  auto again = read_json_problem(windowed);
  REQUIRE_MESSAGE(again, dump(again.diagnostics));
  CHECK(pto_mem::test::first_difference(p, again.file->problem) == "");
}
