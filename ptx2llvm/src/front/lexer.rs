//! Tokens of PTX source text.
//!
//! Newlines are not significant in PTX except for the `.loc`/`.file` directives, whose
//! arity is fixed, so the lexer drops all whitespace and comments.

use logos::Logos;
use std::fmt;

#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum Token {
    /// A directive or modifier: `.reg`, `.u32`, `.L2::cache_hint`, `.shared::cta`.
    #[regex(r"\.[A-Za-z0-9_][A-Za-z0-9_$]*(::[A-Za-z0-9_]+)*", |lex| lex.slice().to_string())]
    Dot(String),
    /// Identifiers, registers (`%r1`, `%tid`) and labels (`$L__BB0_2`).
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+|%", |lex| lex.slice().to_string(), priority = 3)]
    Ident(String),
    #[token("_", priority = 10)]
    Underscore,
    /// `0f3F800000`: the bits of an f32. Any other number of digits is an error token
    /// (rather than `0` followed by an identifier).
    #[regex(r"0[fF][0-9a-fA-F]+", |lex| hex_bits(lex.slice(), 8).map(|b| b as u32), priority = 10)]
    F32Bits(u32),
    /// `0d3FF0000000000000`: the bits of an f64.
    #[regex(r"0[dD][0-9a-fA-F]+", |lex| hex_bits(lex.slice(), 16), priority = 10)]
    F64Bits(u64),
    /// Integer literals: decimal, hex, octal, binary, with an optional `U` suffix.
    #[regex(r"0[xX][0-9a-fA-F]+U?", |lex| parse_int(lex.slice(), 16, 2))]
    #[regex(r"0[bB][01]+U?", |lex| parse_int(lex.slice(), 2, 2))]
    #[regex(r"0[0-7]+U?", |lex| parse_int(lex.slice(), 8, 1))]
    #[regex(r"[1-9][0-9]*U?|0U?", |lex| parse_int(lex.slice(), 10, 0))]
    Int(IntLit),
    /// Decimal floating-point literals (`1.5`, `2e10`); PTX reads them as f64.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice().parse::<f64>().ok().map(f64::to_bits))]
    Float(u64),
    #[regex(r#""([^"\\\n]|\\.)*""#, |lex| { let s = lex.slice(); s[1..s.len()-1].to_string() })]
    Str(String),
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("=")]
    Eq,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("?")]
    Question,
    #[token("@")]
    At,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<=")]
    LtEq,
    #[token(">=")]
    GtEq,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    /// A character the lexer does not know; reported by the parser.
    Error(String),
}

/// An integer literal: its value (two's complement bits) and whether it was written unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub unsigned: bool,
}

/// The bits of a `0f`/`0d` literal, which must have exactly `digits` hex digits.
fn hex_bits(text: &str, digits: usize) -> Option<u64> {
    let hex = &text[2..];
    if hex.len() != digits {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

fn parse_int(text: &str, radix: u32, prefix: usize) -> Option<IntLit> {
    let unsigned = text.ends_with('U');
    let digits = &text[prefix..text.len() - unsigned as usize];
    let digits = if digits.is_empty() { "0" } else { digits };
    u64::from_str_radix(digits, radix).ok().map(|value| IntLit { value, unsigned })
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Dot(s) | Token::Ident(s) => write!(f, "{s}"),
            Token::Underscore => write!(f, "_"),
            Token::F32Bits(b) => write!(f, "0f{b:08X}"),
            Token::F64Bits(b) => write!(f, "0d{b:016X}"),
            Token::Int(i) => write!(f, "{}", i.value),
            Token::Float(b) => write!(f, "{}", f64::from_bits(*b)),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Error(s) => write!(f, "{s}"),
            t => {
                let s = match t {
                    Token::LBrace => "{",
                    Token::RBrace => "}",
                    Token::LParen => "(",
                    Token::RParen => ")",
                    Token::LBracket => "[",
                    Token::RBracket => "]",
                    Token::Semi => ";",
                    Token::Comma => ",",
                    Token::Colon => ":",
                    Token::Plus => "+",
                    Token::Minus => "-",
                    Token::Star => "*",
                    Token::Slash => "/",
                    Token::Bang => "!",
                    Token::Tilde => "~",
                    Token::Lt => "<",
                    Token::Gt => ">",
                    Token::Eq => "=",
                    Token::Amp => "&",
                    Token::Pipe => "|",
                    Token::Caret => "^",
                    Token::Question => "?",
                    Token::At => "@",
                    Token::Shl => "<<",
                    Token::Shr => ">>",
                    Token::EqEq => "==",
                    Token::NotEq => "!=",
                    Token::LtEq => "<=",
                    Token::GtEq => ">=",
                    Token::AndAnd => "&&",
                    Token::OrOr => "||",
                    _ => "?",
                };
                write!(f, "{s}")
            }
        }
    }
}

/// Splits source text into tokens with byte spans. Text that is no token becomes
/// `Token::Error` (see `describe_invalid`).
pub fn lex(source: &str) -> Vec<(Token, std::ops::Range<usize>)> {
    let mut tokens: Vec<(Token, std::ops::Range<usize>)> = Vec::new();
    let mut lexer = Token::lexer(source).spanned();
    while let Some((tok, span)) = lexer.next() {
        match tok {
            // A `/*` that reaches here was never closed (a closed comment is skipped):
            // the rest of the input is inside the comment.
            Ok(Token::Star) if matches!(tokens.last(), Some((Token::Slash, prev)) if prev.end == span.start) => {
                let (_, prev) = tokens.pop().expect("the `/` just matched");
                let start = prev.start;
                tokens.push((Token::Error(source[start..].to_string()), start..source.len()));
                break;
            }
            Ok(t) => tokens.push((t, span)),
            Err(()) => tokens.push((Token::Error(source[span.clone()].to_string()), span)),
        }
    }
    tokens
}

/// Why a piece of text that became `Token::Error` is not a token.
pub fn describe_invalid(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or("");
    let lower = text.to_ascii_lowercase();
    if text.starts_with("/*") {
        "unterminated `/*` comment".to_string()
    } else if text.starts_with('"') {
        format!("unterminated string `{first_line}`")
    } else if lower.starts_with("0f") {
        format!("`{text}` is not an f32 literal: `0f` takes exactly 8 hex digits")
    } else if lower.starts_with("0d") {
        format!("`{text}` is not an f64 literal: `0d` takes exactly 16 hex digits")
    } else if text.starts_with(|c: char| c.is_ascii_digit()) {
        format!("integer literal `{text}` does not fit in 64 bits")
    } else if first_line.contains('`') {
        format!("unexpected character '{first_line}'")
    } else {
        format!("unexpected character `{first_line}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Token> {
        lex(s).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn instruction_tokens() {
        let t = kinds("@!%p1 ld.global.L1::no_allocate.v4.f32 {%f1,_}, [%rd1+-4]; // c");
        assert_eq!(t[0], Token::At);
        assert_eq!(t[1], Token::Bang);
        assert_eq!(t[2], Token::Ident("%p1".into()));
        assert_eq!(t[3], Token::Ident("ld".into()));
        assert_eq!(t[5], Token::Dot(".L1::no_allocate".into()));
        assert!(t.contains(&Token::Underscore));
        assert!(t.contains(&Token::Minus));
    }

    #[test]
    fn literals() {
        assert_eq!(kinds("0f3F800000"), vec![Token::F32Bits(0x3F80_0000)]);
        assert_eq!(kinds("0d3FF0000000000000"), vec![Token::F64Bits(0x3FF0_0000_0000_0000)]);
        assert_eq!(kinds("0x10U"), vec![Token::Int(IntLit { value: 16, unsigned: true })]);
        assert_eq!(kinds("017"), vec![Token::Int(IntLit { value: 15, unsigned: false })]);
        assert_eq!(kinds("1.5"), vec![Token::Float(1.5f64.to_bits())]);
        assert_eq!(kinds("$Lt_0_1026:")[0], Token::Ident("$Lt_0_1026".into()));
    }
}
