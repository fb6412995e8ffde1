// The name rule (io/id_text.hpp, docs/formats.md) as a property over random
// byte strings: a reader accepts an id exactly when it is well-formed UTF-8
// without controls and noncharacters (decided here by the Unicode table of
// well-formed byte sequences, independently of the library's decoder), a
// refusal names line and column, and every accepted id comes back unchanged
// through CSV and JSON and appears verbatim in an SVG that a small XML
// checker written here finds well formed.
#include <doctest/doctest.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/svg.hpp"

using namespace pto_mem;

namespace {

/// Code points of `s` when it is well-formed UTF-8 (Unicode Table 3-7).
std::optional<std::vector<std::uint32_t>> well_formed(const std::string& s) {
  std::vector<std::uint32_t> out;
  const auto u = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(s[k])); };
  const auto in = [](unsigned v, unsigned lo, unsigned hi) { return v >= lo && v <= hi; };
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned b0 = u(i);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b0 <= 0x7F)
      n = 1;
    else if (in(b0, 0xC2, 0xDF))
      n = 2;
    else if (b0 == 0xE0) {
      n = 3;
      lo = 0xA0;
    } else if (in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF))
      n = 3;
    else if (b0 == 0xED) {
      n = 3;
      hi = 0x9F;
    } else if (b0 == 0xF0) {
      n = 4;
      lo = 0x90;
    } else if (in(b0, 0xF1, 0xF3))
      n = 4;
    else if (b0 == 0xF4) {
      n = 4;
      hi = 0x8F;
    } else
      return std::nullopt;
    if (i + n > s.size()) return std::nullopt;
    if (n >= 2 && !in(u(i + 1), lo, hi)) return std::nullopt;
    for (std::size_t k = 2; k < n; ++k)
      if (!in(u(i + k), 0x80, 0xBF)) return std::nullopt;
    std::uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (u(i + k) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

bool acceptable(const std::string& s) {
  const auto cps = well_formed(s);
  if (!cps || cps->empty()) return false;
  for (std::uint32_t c : *cps) {
    if (c <= 0x1F || (c >= 0x7F && c <= 0x9F)) return false;                   // controls
    if ((c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFF) >= 0xFFFE) return false;  // noncharacters
  }
  return true;
}

std::string utf8(std::uint32_t c) {  // any value up to 0x1FFFFF, surrogates included
  std::string s;
  if (c < 0x80)
    s += static_cast<char>(c);
  else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

/// Random bytes biased to what breaks formats: separators, markup, escapes,
/// controls, C1, noncharacters, surrogates, overlong forms, stray bytes.
std::string random_id(std::mt19937_64& rng) {
  static const std::vector<std::uint32_t> tricky = {
      0x00,   0x09,   0x0A,   0x0D,   0x1F,    0x7F,    0x80,     0x9F,    0xA0,
      0xE9,   0xD7FF, 0xD800, 0xDFFF, 0xE000,  0xFDCF,  0xFDD0,   0xFDEF,  0xFDF0,
      0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1FFFE, 0x10FFFF, 0x110000};
  static const std::string ascii = "abcXYZ019 ,\"'<>&;#\\/-_.:=?{}[]%";
  std::string s;
  const std::size_t pieces = 1 + rng() % 6;
  for (std::size_t k = 0; k < pieces; ++k) {
    switch (rng() % 7) {
      case 0:
      case 1:
      case 2: s += ascii[rng() % ascii.size()]; break;
      case 3: s += utf8(tricky[rng() % tricky.size()]); break;
      case 4: s += utf8(static_cast<std::uint32_t>(rng() % 0x30000)); break;
      case 5: s += static_cast<char>(0x80 + rng() % 0x80); break;  // a stray or lead byte
      default: s += "\xC0\xAF"; break;                             // an overlong '/'
    }
  }
  return s;
}

std::string csv_field(const std::string& s) {  // RFC 4180, written here
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string json_string(const std::string& s) {  // escapes what JSON requires, bytes otherwise raw
  std::string q = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      q += std::string("\\") + c;
    else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      q += buf;
    } else
      q += c;
  }
  return q + "\"";
}

/// A small XML 1.0 well-formedness check (elements, attributes, comments,
/// character and entity references); the text content, unescaped, goes to
/// `text`. Enough for the SVG we write; not a general parser.
class XmlCheck {
 public:
  explicit XmlCheck(const std::string& doc) : d_(doc) {}
  bool ok(std::string& text) {
    const auto cps = well_formed(d_);
    if (!cps) return why("not UTF-8");
    for (std::uint32_t c : *cps)
      if ((c < 0x20 && c != 0x9 && c != 0xA && c != 0xD) || c == 0xFFFE || c == 0xFFFF)
        return why("not an XML character");
    std::vector<std::string> open;
    bool root_seen = false;
    while (i_ < d_.size()) {
      if (d_.compare(i_, 4, "<!--") == 0) {
        const auto e = d_.find("-->", i_ + 4);
        if (e == std::string::npos) return why("unclosed comment");
        i_ = e + 3;
      } else if (d_.compare(i_, 2, "<?") == 0) {
        const auto e = d_.find("?>", i_);
        if (e == std::string::npos) return why("unclosed declaration");
        i_ = e + 2;
      } else if (d_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        const std::string n = name();
        skip_ws();
        if (n.empty() || open.empty() || open.back() != n || !eat('>')) return why("bad end tag " + n);
        open.pop_back();
      } else if (d_[i_] == '<') {
        ++i_;
        const std::string n = name();
        if (n.empty()) return why("bad start tag");
        if (open.empty() && root_seen) return why("two roots");
        root_seen = true;
        while (true) {
          skip_ws();
          if (eat('>')) {
            open.push_back(n);
            break;
          }
          if (d_.compare(i_, 2, "/>") == 0) {
            i_ += 2;
            break;
          }
          const std::string a = name();
          skip_ws();
          if (a.empty() || !eat('=')) return why("bad attribute in " + n);
          skip_ws();
          if (i_ >= d_.size() || (d_[i_] != '"' && d_[i_] != '\'')) return why("unquoted attribute");
          const char quote = d_[i_++];
          std::string value;
          while (i_ < d_.size() && d_[i_] != quote) {
            if (d_[i_] == '<') return why("< in an attribute");
            if (d_[i_] == '&') {
              if (!reference(value)) return why("bad reference in an attribute");
            } else {
              value += d_[i_++];
            }
          }
          if (!eat(quote)) return why("unclosed attribute");
          text += value + '\n';
        }
      } else {
        if (open.empty() && d_[i_] != ' ' && d_[i_] != '\n' && d_[i_] != '\t' && d_[i_] != '\r')
          return why("text outside the root");
        if (d_[i_] == '&') {
          if (!reference(text)) return why("bad reference in text");
        } else {
          if (d_.compare(i_, 3, "]]>") == 0) return why("]]> in text");
          text += d_[i_++];
        }
      }
    }
    return open.empty() && root_seen ? true : why("unbalanced");
  }
  std::string reason;

 private:
  bool why(std::string r) {
    reason = std::move(r) + " at byte " + std::to_string(i_);
    return false;
  }
  bool eat(char c) {
    if (i_ < d_.size() && d_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void skip_ws() {
    while (i_ < d_.size() && (d_[i_] == ' ' || d_[i_] == '\n' || d_[i_] == '\t' || d_[i_] == '\r')) ++i_;
  }
  std::string name() {
    const std::size_t b = i_;
    while (i_ < d_.size() && (std::isalnum(static_cast<unsigned char>(d_[i_])) || d_[i_] == '-' ||
                              d_[i_] == '_' || d_[i_] == ':' || d_[i_] == '.'))
      ++i_;
    return d_.substr(b, i_ - b);
  }
  bool reference(std::string& out) {
    const auto e = d_.find(';', i_);
    if (e == std::string::npos) return false;
    const std::string r = d_.substr(i_ + 1, e - i_ - 1);
    i_ = e + 1;
    if (r == "amp")
      out += '&';
    else if (r == "lt")
      out += '<';
    else if (r == "gt")
      out += '>';
    else if (r == "quot")
      out += '"';
    else if (r == "apos")
      out += '\'';
    else if (r.size() > 1 && r[0] == '#') {
      const bool hex = r[1] == 'x';
      const std::string digits = r.substr(hex ? 2 : 1);
      if (digits.empty()) return false;
      for (char c : digits)
        if (!(hex ? std::isxdigit(static_cast<unsigned char>(c))
                  : std::isdigit(static_cast<unsigned char>(c))))
          return false;
      const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
      if ((cp < 0x20 && cp != 9 && cp != 10 && cp != 13) || cp == 0xFFFE || cp == 0xFFFF || cp > 0x10FFFF ||
          (cp >= 0xD800 && cp <= 0xDFFF))
        return false;
      out += utf8(static_cast<std::uint32_t>(cp));
    } else {
      return false;
    }
    return true;
  }
  const std::string& d_;
  std::size_t i_ = 0;
};

}  // namespace

TEST_CASE("names: the readers accept exactly the rule, and accepted ids survive CSV, JSON and SVG") {
  std::mt19937_64 rng(20261201);
  int accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string id = random_id(rng);
    const bool valid = acceptable(id);
    CAPTURE(id);
    CAPTURE(valid);

    const auto csv = read_csv("id,lower,upper,size\n" + csv_field(id) + ",0,1,4\n", {}, "p.csv");
    CHECK(csv.file.has_value() == valid);
    if (csv.file) {
      REQUIRE(csv.file->problem.buffers.size() == 1);
      CHECK(csv.file->problem.buffers[0].name == id);
    } else {
      REQUIRE(!csv.diagnostics.empty());
      REQUIRE(csv.diagnostics[0].location);
      CHECK(csv.diagnostics[0].location->line >= 2);
      CHECK(csv.diagnostics[0].location->column >= 1);
    }

    const auto json = read_json_problem(R"({"arenas": [{"id": 0}], "buffers": [{"id": )" + json_string(id) +
                                            R"(, "size": 4, "arena": 0, "lifetime": [0, 1]}]})",
                                        "p.json");
    CHECK(json.file.has_value() == valid);
    if (json.file) {
      CHECK(json.file->problem.buffers[0].name == id);
    } else {
      REQUIRE(!json.diagnostics.empty());
      REQUIRE(json.diagnostics[0].location);
      CHECK(json.diagnostics[0].location->line >= 1);
    }
    if (!valid) {
      ++refused;
      continue;
    }
    ++accepted;

    // Two buffers, so that a mangled id would also show up as a duplicate.
    Problem p;
    p.arenas.push_back({0, "arena0", 64, {}});
    p.buffers.push_back({id, 4, 1, 0, {0, 2}});
    p.buffers.push_back({id + "\xC3\xA9", 4, 1, 0, {1, 3}});  // id + U+00E9
    Placement pl;
    pl.offsets = {Addr{0}, Addr{4}};

    const auto out_csv = to_csv(p, &pl);
    const std::string why = out_csv.diagnostics.empty() ? std::string() : out_csv.diagnostics[0].message;
    REQUIRE_MESSAGE(out_csv.text.has_value(), why);
    const auto back_csv = read_csv(*out_csv.text);
    REQUIRE(back_csv.file);
    CHECK(back_csv.file->problem.buffers[0].name == p.buffers[0].name);
    CHECK(back_csv.file->problem.buffers[1].name == p.buffers[1].name);

    const auto back_json = read_json_problem(json_problem_text(p, &pl));
    REQUIRE(back_json.file);
    CHECK(back_json.file->problem.buffers[0].name == p.buffers[0].name);
    CHECK(back_json.file->problem.buffers[1].name == p.buffers[1].name);

    const std::string svg = svg_memory_map(p, pl);
    XmlCheck xml(svg);
    std::string text;
    CHECK_MESSAGE(xml.ok(text), xml.reason);
    CHECK(text.find(p.buffers[1].name) != std::string::npos);
  }
  // The generator reaches both sides of the rule often.
  CHECK(accepted > 300);
  CHECK(refused > 300);
}

TEST_CASE("names: a refused id is named with its file, line and column") {
  const auto tab = read_json_problem(
      "{\"arenas\": [{\"id\": 0}],\n \"buffers\": [{\"id\": \"a\\tb\", \"size\": 4, \"arena\": 0, "
      "\"lifetime\": [0, 1]}]}",
      "t.json");
  REQUIRE_FALSE(tab.file);
  CHECK(format(tab.diagnostics[0]).starts_with("t.json:2:21: error: /buffers/0/id: buffer id"));
  CHECK(tab.diagnostics[0].message.find("control character U+0009") != std::string::npos);
  const auto bytes = read_csv("id,lower,upper,size\nok,0,1,4\nab\xFF,0,1,4\n", {}, "b.csv");
  REQUIRE_FALSE(bytes.file);
  CHECK(format(bytes.diagnostics[0]).starts_with("b.csv:3:3: error: id"));
  CHECK(bytes.diagnostics[0].message.find("0xFF is not valid UTF-8") != std::string::npos);
  const auto nonchar = read_csv("id,lower,upper,size\n\"x,\xEF\xBF\xBE\",0,1,4\n", {}, "n.csv");
  REQUIRE_FALSE(nonchar.file);
  CHECK(nonchar.diagnostics[0].message.find("noncharacter U+FFFE") != std::string::npos);
  // Quoting carries commas and quotes in CSV ids.
  const auto quoted = read_csv("id,lower,upper,size\n\"a,\"\"b\"\"\",0,1,4\n");
  REQUIRE(quoted.file);
  CHECK(quoted.file->problem.buffers[0].name == "a,\"b\"");
  const auto bad_quote = read_csv("id,lower,upper,size\na\"b,0,1,4\n", {}, "q.csv");
  REQUIRE_FALSE(bad_quote.file);
  CHECK(format(bad_quote.diagnostics[0]).starts_with("q.csv:2:2: error: a quote inside an unquoted field"));
}
