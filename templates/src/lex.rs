//! Splits a template into text and the tokens inside `{{ }}`, the way Go's `text/template/parse`
//! lexer does: `{{- ` and ` -}}` trim the neighbouring text's white space, `{{/* */}}` is a comment.

use crate::TemplateError;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Text(String),
    LeftDelim,
    RightDelim,
    Space,
    /// `.name`
    Field(String),
    /// `$` or `$name`
    Variable(String),
    Dot,
    Ident(String),
    Keyword(Keyword),
    Str(String),
    /// An integer or floating point literal, as written.
    Number(String),
    /// A character constant: its code point.
    Char(i64),
    Bool(bool),
    Nil,
    LParen,
    RParen,
    Pipe,
    Declare,
    Assign,
    Comma,
    Eof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keyword {
    If,
    Else,
    End,
    Range,
    With,
    Define,
    Template,
    Block,
    Break,
    Continue,
}

impl Keyword {
    fn from_word(word: &str) -> Option<Keyword> {
        Some(match word {
            "if" => Keyword::If,
            "else" => Keyword::Else,
            "end" => Keyword::End,
            "range" => Keyword::Range,
            "with" => Keyword::With,
            "define" => Keyword::Define,
            "template" => Keyword::Template,
            "block" => Keyword::Block,
            "break" => Keyword::Break,
            "continue" => Keyword::Continue,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Keyword::If => "if",
            Keyword::Else => "else",
            Keyword::End => "end",
            Keyword::Range => "range",
            Keyword::With => "with",
            Keyword::Define => "define",
            Keyword::Template => "template",
            Keyword::Block => "block",
            Keyword::Break => "break",
            Keyword::Continue => "continue",
        }
    }
}

/// A token and the byte offset it starts at.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) pos: usize,
}

const LEFT: &str = "{{";
const RIGHT: &str = "}}";

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

pub(crate) fn lex(src: &str) -> Result<Vec<Token>, TemplateError> {
    Lexer {
        src,
        pos: 0,
        tokens: Vec::new(),
        trim_next_text: false,
        paren_depth: 0,
    }
    .run()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    tokens: Vec<Token>,
    trim_next_text: bool,
    paren_depth: usize,
}

impl Lexer<'_> {
    fn err(&self, pos: usize, message: impl Into<String>) -> TemplateError {
        TemplateError::at(self.src, pos, message)
    }

    fn push(&mut self, tok: Tok, pos: usize) {
        self.tokens.push(Token { tok, pos });
    }

    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn run(mut self) -> Result<Vec<Token>, TemplateError> {
        loop {
            let start = self.pos;
            let next_delim = self.rest().find(LEFT).map(|i| i + self.pos);
            let end = next_delim.unwrap_or(self.src.len());
            let mut text = &self.src[start..end];
            if self.trim_next_text {
                text = text.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8));
                self.trim_next_text = false;
            }
            let Some(delim) = next_delim else {
                if !text.is_empty() {
                    self.push(Tok::Text(text.to_string()), start);
                }
                self.push(Tok::Eof, self.src.len());
                return Ok(self.tokens);
            };
            let after = &self.src[delim + LEFT.len()..];
            let trim_left =
                after.len() >= 2 && after.as_bytes()[0] == b'-' && is_space(after.as_bytes()[1]);
            if trim_left {
                text = text.trim_end_matches(|c: char| c.is_ascii() && is_space(c as u8));
            }
            if !text.is_empty() {
                self.push(Tok::Text(text.to_string()), start);
            }
            self.pos = delim + LEFT.len() + if trim_left { 2 } else { 0 };
            // A comment is the whole action: `{{/* ... */}}`, with optional trim markers.
            let after_marker = self
                .rest()
                .trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8));
            if after_marker.starts_with("/*") {
                self.pos = self.src.len() - after_marker.len();
                self.comment(delim)?;
                continue;
            }
            self.push(Tok::LeftDelim, delim);
            self.paren_depth = 0;
            self.inside_action(delim)?;
        }
    }

    fn comment(&mut self, delim: usize) -> Result<(), TemplateError> {
        let Some(close) = self.rest().find("*/") else {
            return Err(self.err(delim, "unclosed comment"));
        };
        self.pos += close + 2;
        if let Some(len) = self.right_delim_len() {
            self.pos += len;
            Ok(())
        } else {
            Err(self.err(delim, "comment ends before closing delimiter"))
        }
    }

    /// The length of the right delimiter at the current position, trim marker included, and
    /// whether it trims the following text (recorded in `trim_next_text`).
    fn right_delim_len(&mut self) -> Option<usize> {
        let rest = self.rest().as_bytes();
        if rest.len() >= 1 + 1 + RIGHT.len()
            && is_space(rest[0])
            && rest[1] == b'-'
            && self.rest()[2..].starts_with(RIGHT)
        {
            self.trim_next_text = true;
            return Some(2 + RIGHT.len());
        }
        if self.rest().starts_with(RIGHT) {
            return Some(RIGHT.len());
        }
        None
    }

    fn inside_action(&mut self, delim: usize) -> Result<(), TemplateError> {
        loop {
            let start = self.pos;
            if let Some(len) = self.right_delim_len() {
                if self.paren_depth > 0 {
                    return Err(self.err(start, "unclosed left paren"));
                }
                self.push(Tok::RightDelim, start);
                self.pos += len;
                return Ok(());
            }
            let Some(c) = self.rest().chars().next() else {
                return Err(self.err(delim, "unclosed action"));
            };
            match c {
                c if c.is_ascii() && is_space(c as u8) => {
                    let n = self
                        .rest()
                        .find(|c: char| !(c.is_ascii() && is_space(c as u8)))
                        .unwrap_or(self.rest().len());
                    // The last space before "-}}" belongs to the trim marker (n > 1 here: a
                    // single one was matched by right_delim_len above).
                    self.pos += if self.rest()[n..].starts_with("-}}") {
                        n - 1
                    } else {
                        n
                    };
                    self.push(Tok::Space, start);
                }
                '=' => self.single(Tok::Assign),
                ':' => {
                    if self.rest().starts_with(":=") {
                        self.pos += 2;
                        self.push(Tok::Declare, start);
                    } else {
                        return Err(self.err(start, "expected :="));
                    }
                }
                '|' => self.single(Tok::Pipe),
                ',' => self.single(Tok::Comma),
                '(' => {
                    self.paren_depth += 1;
                    self.single(Tok::LParen);
                }
                ')' => {
                    if self.paren_depth == 0 {
                        return Err(self.err(start, "unexpected right paren"));
                    }
                    self.paren_depth -= 1;
                    self.single(Tok::RParen);
                }
                '"' => {
                    let s = self.quoted(start)?;
                    self.push(Tok::Str(s), start);
                }
                '`' => {
                    let Some(end) = self.rest()[1..].find('`') else {
                        return Err(self.err(start, "unterminated raw quoted string"));
                    };
                    let s = self.rest()[1..1 + end].to_string();
                    self.pos += end + 2;
                    self.push(Tok::Str(s), start);
                }
                '\'' => {
                    let c = self.char_constant(start)?;
                    self.push(Tok::Char(c), start);
                }
                '$' => {
                    self.pos += 1;
                    let name = self.word();
                    self.push(Tok::Variable(format!("${name}")), start);
                }
                '.' => {
                    let next = self.rest()[1..].chars().next();
                    if next.is_some_and(|c| c.is_ascii_digit()) {
                        self.number(start)?;
                    } else if next.is_some_and(is_alnum) {
                        self.pos += 1;
                        let name = self.word();
                        self.push(Tok::Field(name), start);
                    } else {
                        self.single(Tok::Dot);
                    }
                }
                '+' | '-' | '0'..='9' => self.number(start)?,
                c if is_alnum(c) => {
                    let word = self.word();
                    let tok = match word.as_str() {
                        "true" => Tok::Bool(true),
                        "false" => Tok::Bool(false),
                        "nil" => Tok::Nil,
                        w => match Keyword::from_word(w) {
                            Some(k) => Tok::Keyword(k),
                            None => Tok::Ident(word),
                        },
                    };
                    self.push(tok, start);
                }
                c => {
                    return Err(self.err(start, format!("unrecognized character in action: {c:?}")));
                }
            }
        }
    }

    fn single(&mut self, tok: Tok) {
        let start = self.pos;
        self.pos += 1;
        self.push(tok, start);
    }

    fn word(&mut self) -> String {
        let n = self
            .rest()
            .find(|c: char| !is_alnum(c))
            .unwrap_or(self.rest().len());
        let w = self.rest()[..n].to_string();
        self.pos += n;
        w
    }

    fn number(&mut self, start: usize) -> Result<(), TemplateError> {
        let rest = self.rest();
        let mut n = 0;
        let bytes = rest.as_bytes();
        if n < bytes.len() && (bytes[n] == b'+' || bytes[n] == b'-') {
            n += 1;
        }
        let hex = rest[n..].starts_with("0x") || rest[n..].starts_with("0X");
        while n < bytes.len() {
            let c = bytes[n];
            let exponent = if hex { b"pP" } else { b"eE" };
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                n += 1;
                if exponent.contains(&c)
                    && n < bytes.len()
                    && (bytes[n] == b'+' || bytes[n] == b'-')
                {
                    n += 1;
                }
            } else {
                break;
            }
        }
        let text = &rest[..n];
        if text == "+" || text == "-" {
            return Err(self.err(start, format!("bad number syntax: {text:?}")));
        }
        let text = text.to_string();
        self.pos += n;
        self.push(Tok::Number(text), start);
        Ok(())
    }

    fn quoted(&mut self, start: usize) -> Result<String, TemplateError> {
        let rest = &self.rest()[1..];
        let mut out = String::new();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += 1 + i + 1;
                    return Ok(out);
                }
                '\n' => break,
                '\\' => {
                    let Some((_, e)) = chars.next() else { break };
                    out.push(self.escape(e, &mut chars, start, '"')?);
                }
                c => out.push(c),
            }
        }
        Err(self.err(start, "unterminated quoted string"))
    }

    fn char_constant(&mut self, start: usize) -> Result<i64, TemplateError> {
        let rest = &self.rest()[1..];
        let mut chars = rest.char_indices();
        let value = match chars.next() {
            Some((_, '\\')) => {
                let Some((_, e)) = chars.next() else {
                    return Err(self.err(start, "unterminated character constant"));
                };
                self.escape(e, &mut chars, start, '\'')?
            }
            Some((_, '\'')) | None => return Err(self.err(start, "malformed character constant")),
            Some((_, c)) => c,
        };
        match chars.next() {
            Some((i, '\'')) => {
                self.pos += 1 + i + 1;
                Ok(i64::from(u32::from(value)))
            }
            _ => Err(self.err(start, "unterminated character constant")),
        }
    }

    fn escape(
        &self,
        e: char,
        chars: &mut std::str::CharIndices<'_>,
        start: usize,
        quote: char,
    ) -> Result<char, TemplateError> {
        let mut hex = |n: usize, radix: u32| -> Result<char, TemplateError> {
            let mut v: u32 = 0;
            for _ in 0..n {
                let d = chars
                    .next()
                    .and_then(|(_, c)| c.to_digit(radix))
                    .ok_or_else(|| self.err(start, "invalid syntax in quoted string"))?;
                v = v * radix + d;
            }
            char::from_u32(v).ok_or_else(|| self.err(start, "invalid syntax in quoted string"))
        };
        Ok(match e {
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            '\\' => '\\',
            'x' => hex(2, 16)?,
            'u' => hex(4, 16)?,
            'U' => hex(8, 16)?,
            '0'..='7' => {
                let rest: u32 = {
                    let a = chars.next().and_then(|(_, c)| c.to_digit(8));
                    let b = chars.next().and_then(|(_, c)| c.to_digit(8));
                    match (a, b) {
                        (Some(a), Some(b)) => a * 8 + b,
                        _ => return Err(self.err(start, "invalid syntax in quoted string")),
                    }
                };
                let v = e.to_digit(8).unwrap_or(0) * 64 + rest;
                char::from_u32(v)
                    .ok_or_else(|| self.err(start, "invalid syntax in quoted string"))?
            }
            c if c == quote => c,
            _ => return Err(self.err(start, "invalid syntax in quoted string")),
        })
    }
}
