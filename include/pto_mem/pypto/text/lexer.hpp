// Tokens of the tile-IR text: Python-style lines with
// INDENT / DEDENT from leading spaces, `#` comments, implicit line joining
// inside brackets and after a backslash. The lexer is pull-based so a
// 100k-statement file is never held as a token vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/pypto/ir/location.hpp"

namespace pto_mem::pypto {

enum class TokenKind : std::uint8_t { Name, Int, Float, String, Op, Newline, Indent, Dedent, End, Error };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;  ///< the source text (quotes included for strings); the message for Error
  Loc loc;

  [[nodiscard]] bool is(TokenKind k) const noexcept { return kind == k; }
  /// Operators are one or two characters: compare them without memcmp (hot).
  [[nodiscard]] bool is_op(std::string_view op) const noexcept {
    return kind == TokenKind::Op && text.size() == op.size() && text[0] == op[0] &&
           (op.size() == 1 || text[1] == op[1]);
  }
  [[nodiscard]] bool is_name(std::string_view n) const noexcept {
    return kind == TokenKind::Name && text == n;
  }
};

/// How a token is named in "expected X, found Y".
[[nodiscard]] inline std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Name: return "'" + std::string(t.text) + "'";
    case TokenKind::Int:
    case TokenKind::Float: return "number " + std::string(t.text);
    case TokenKind::String: return "string " + std::string(t.text.substr(0, 40));
    case TokenKind::Op: return "'" + std::string(t.text) + "'";
    case TokenKind::Newline: return "end of line";
    case TokenKind::Indent: return "an indented block";
    case TokenKind::Dedent: return "end of block";
    case TokenKind::End: return "end of input";
    case TokenKind::Error: return "invalid input";
  }
  return "?";
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) { indents_.push_back(0); }
  Lexer(const Lexer&) = delete;  // Error tokens point into the lexer
  Lexer& operator=(const Lexer&) = delete;

  /// The next token; after an Error or End token, End forever.
  Token next() {
    for (;;) {
      if (done_) return Token{TokenKind::End, {}, here()};
      if (pending_dedents_ > 0) {
        --pending_dedents_;
        return make(TokenKind::Dedent, {}, here());
      }
      if (at_line_start_ && depth_ == 0) {
        if (auto t = indentation()) return *t;
      }
      skip_blanks();
      if (pos_ >= src_.size()) return finish();
      const Loc loc = here();
      const char c = src_[pos_];
      if (c == '\n' || c == '\r') {
        consume_newline();
        if (depth_ > 0) continue;  // implicit line joining
        at_line_start_ = true;
        return make(TokenKind::Newline, {}, loc);
      }
      if (is_name_start(c)) return name(loc);
      if (is_digit(c) || (c == '.' && pos_ + 1 < src_.size() && is_digit(src_[pos_ + 1]))) return number(loc);
      if (c == '"' || c == '\'') return string(loc);
      return op(loc);
    }
  }

 private:
  static bool is_name_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
  static bool is_name_char(char c) noexcept { return is_name_start(c) || is_digit(c); }
  static bool is_hex(char c) noexcept {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  [[nodiscard]] Loc here() const noexcept {
    return Loc{line_, static_cast<std::uint32_t>(pos_ - line_begin_ + 1)};
  }
  Token make(TokenKind k, std::string_view text, Loc loc) {
    last_ = k;
    return Token{k, text, loc};
  }
  Token fail(std::string message, Loc loc) {
    done_ = true;
    error_ = std::move(message);
    return make(TokenKind::Error, error_, loc);
  }
  void consume_newline() {
    if (src_[pos_] == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
    line_begin_ = pos_;
  }
  void skip_blanks() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
      } else if (c == '\\' && pos_ + 1 < src_.size() && (src_[pos_ + 1] == '\n' || src_[pos_ + 1] == '\r')) {
        ++pos_;
        consume_newline();
      } else {
        break;
      }
    }
  }

  // At the start of a logical line: skip blank and comment-only lines, then
  // compare the indentation with the stack; nullopt when it is unchanged.
  std::optional<Token> indentation() {
    for (;;) {
      std::size_t p = pos_;
      std::size_t width = 0;
      while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) {
        if (src_[p] == '\t') {
          pos_ = p;
          return fail("tabs are not allowed in indentation; indent with spaces", here());
        }
        ++width;
        ++p;
      }
      if (p >= src_.size()) {
        pos_ = p;
        return finish();
      }
      if (src_[p] == '#') {
        while (p < src_.size() && src_[p] != '\n' && src_[p] != '\r') ++p;
      }
      if (p < src_.size() && (src_[p] == '\n' || src_[p] == '\r')) {
        pos_ = p;
        consume_newline();
        continue;
      }
      if (p >= src_.size()) {
        pos_ = p;
        return finish();
      }
      pos_ = p;
      at_line_start_ = false;
      const Loc loc = here();
      if (width > indents_.back()) {
        indents_.push_back(width);
        return make(TokenKind::Indent, {}, loc);
      }
      if (width < indents_.back()) {
        int n = 0;
        while (width < indents_.back()) {
          indents_.pop_back();
          ++n;
        }
        if (width != indents_.back()) return fail("unindent does not match any outer indentation level", loc);
        pending_dedents_ = n - 1;
        return make(TokenKind::Dedent, {}, loc);
      }
      return std::nullopt;  // same level: no token
    }
  }

  // End of input: close the last line and every open block.
  Token finish() {
    const Loc loc = here();
    if (last_ != TokenKind::Newline && last_ != TokenKind::Dedent && last_ != TokenKind::End &&
        last_ != TokenKind::Indent) {
      at_line_start_ = true;
      return make(TokenKind::Newline, {}, loc);
    }
    if (indents_.size() > 1) {
      indents_.pop_back();
      return make(TokenKind::Dedent, {}, loc);
    }
    done_ = true;
    return make(TokenKind::End, {}, loc);
  }

  Token name(Loc loc) {
    const std::size_t b = pos_;
    while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
    return make(TokenKind::Name, src_.substr(b, pos_ - b), loc);
  }

  Token number(Loc loc) {
    const std::size_t b = pos_;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size() && (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X')) {
      pos_ += 2;
      const std::size_t digits = pos_;
      while (pos_ < src_.size() && is_hex(src_[pos_])) ++pos_;
      if (pos_ == digits) return fail("hexadecimal literal needs digits after '0x'", loc);
      if (pos_ < src_.size() && is_name_char(src_[pos_])) return fail("invalid hexadecimal literal", loc);
      return make(TokenKind::Int, src_.substr(b, pos_ - b), loc);
    }
    bool is_float = false;
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    if (pos_ < src_.size() && src_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      const std::size_t digits = pos_;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
      if (pos_ == digits) return fail("exponent of a number needs digits", loc);
    }
    if (pos_ < src_.size() && is_name_char(src_[pos_]))
      return fail("invalid number '" + std::string(src_.substr(b, pos_ - b + 1)) + "'", loc);
    return make(is_float ? TokenKind::Float : TokenKind::Int, src_.substr(b, pos_ - b), loc);
  }

  Token string(Loc loc) {
    const std::size_t b = pos_;
    const char quote = src_[pos_];
    if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote)
      return long_string(loc, quote);
    ++pos_;
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == quote) {
        ++pos_;
        return make(TokenKind::String, src_.substr(b, pos_ - b), loc);
      }
      if (c == '\n' || c == '\r') break;
      if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n' && src_[pos_ + 1] != '\r') ++pos_;
      ++pos_;
    }
    return fail("unterminated string literal (strings end on the line they start)", loc);
  }

  // A triple-quoted string (a docstring) may span lines.
  Token long_string(Loc loc, char quote) {
    const std::size_t b = pos_;
    pos_ += 3;
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == quote && pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote) {
        pos_ += 3;
        return make(TokenKind::String, src_.substr(b, pos_ - b), loc);
      }
      if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n' && src_[pos_ + 1] != '\r') {
        pos_ += 2;
      } else if (c == '\n' || c == '\r') {
        consume_newline();
      } else {
        ++pos_;
      }
    }
    return fail(std::string("unterminated triple-quoted string: close it with ") + quote + quote + quote,
                loc);
  }

  Token op(Loc loc) {
    const char c = src_[pos_];
    const char d = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
    bool two = false;
    switch (c) {
      case '/': two = d == '/'; break;
      case '<': two = d == '<' || d == '='; break;
      case '>': two = d == '>' || d == '='; break;
      case '=': two = d == '='; break;
      case '!': two = d == '='; break;
      case '-': two = d == '>'; break;
      case '*': two = d == '*'; break;
      default: break;
    }
    if (two) {
      pos_ += 2;
      return make(TokenKind::Op, src_.substr(pos_ - 2, 2), loc);
    }
    static constexpr std::string_view one = "()[]{},:=.@+-*/%&|^~<>";
    if (one.find(c) == std::string_view::npos) {
      const unsigned char u = static_cast<unsigned char>(c);
      std::string shown;
      if (u >= 0x20 && u < 0x7f) {
        shown = std::string("'") + c + "'";
      } else {
        static constexpr char hex[] = "0123456789abcdef";
        shown = std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
      }
      return fail("unexpected character " + shown, loc);
    }
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    ++pos_;
    return make(TokenKind::Op, src_.substr(pos_ - 1, 1), loc);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  std::size_t line_begin_ = 0;
  std::uint32_t line_ = 1;
  std::size_t depth_ = 0;
  bool at_line_start_ = true;
  bool done_ = false;
  int pending_dedents_ = 0;
  TokenKind last_ = TokenKind::Newline;
  std::vector<std::size_t> indents_;
  std::string error_;  // an Error token's text points here; the lexer stops after it
};

}  // namespace pto_mem::pypto
