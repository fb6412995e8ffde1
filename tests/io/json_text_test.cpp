#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "pto_mem/io/json_text.hpp"

using pto_mem::json_text;
using oj = nlohmann::ordered_json;

TEST_CASE("json text: short containers stay on one line, long ones break per member") {
  oj doc = {{"name", "x"}, {"list", oj::array()}};
  for (int i = 0; i < 30; ++i) doc["list"].push_back(oj{{"id", i}, {"offset", i * 64}});
  const std::string text = json_text(doc);
  CHECK(text.starts_with("{\n  \"name\": \"x\",\n  \"list\": [\n    {\"id\": 0, \"offset\": 0},\n"));
  CHECK(text.ends_with("    {\"id\": 29, \"offset\": 1856}\n  ]\n}\n"));
  CHECK(oj::parse(text) == doc);
  CHECK(json_text(oj{{"a", 1}}) == "{\"a\": 1}\n");
  CHECK(json_text(oj::array()) == "[]\n");
}

TEST_CASE("json text: a scalar longer than the width is written whole") {
  const std::string long_text(300, 'm');
  oj doc = {{"diagnostics", {{{"message", long_text}}}}};
  const std::string text = json_text(doc, 40);
  CHECK(oj::parse(text) == doc);
  CHECK(text.find(long_text) != std::string::npos);
  CHECK(json_text(oj(long_text), 10) == "\"" + long_text + "\"\n");
}

TEST_CASE("json text: bytes that are not UTF-8 are replaced, not thrown") {
  oj doc = {{"id", std::string("a\xff"
                               "b")}};
  std::string text;
  CHECK_NOTHROW(text = json_text(doc));
  CHECK(text ==
        "{\"id\": \"a\xEF\xBF\xBD"
        "b\"}\n");
}
