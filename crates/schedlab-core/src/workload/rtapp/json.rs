//! A small JSON reader with the grammar rt-app accepts: json-c's non-strict tokener
//! (`json_tokener.c`, json-c 0.13 to 0.18, as `json_object_from_file()` uses it).
//!
//! What json-c accepts beyond RFC 8259, and this reader too:
//! - comments wherever whitespace may be: `/* ... */` and `// ...` to the end of the line (a `/`
//!   followed by anything else is an error);
//! - a trailing comma before `}` or `]`;
//! - strings and keys in single quotes;
//! - `true`, `false`, `null`, `NaN` and `Infinity` in any letter case, and `-Infinity`;
//! - numbers with leading zeros; an integer out of range saturates (json-c clamps to `INT64_MIN`/
//!   `INT64_MAX`); a number with `.`, `e` or `E` is a double, whatever its value;
//! - raw control characters inside strings;
//! - anything after the first complete value (json-c stops there and ignores the rest).
//!
//! Objects keep their keys in file order, as json-c's `lh_table` iterates them, and a duplicate
//! key behaves as `json_object_object_add()` makes it: the value is replaced **in place**, so the
//! key keeps the position of its first occurrence and the value of its last.
//!
//! Nesting is limited to [`MAX_DEPTH`] levels (json-c's `JSON_TOKENER_DEFAULT_DEPTH`). Errors give
//! the line and column (1-based, in characters) where reading stopped.

use std::fmt;

/// Deepest nesting of arrays and objects (json-c's `JSON_TOKENER_DEFAULT_DEPTH`).
pub const MAX_DEPTH: usize = 32;

/// A JSON value; objects are ordered lists of distinct keys.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The json-c type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a double",
            Value::Str(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

/// Where and why reading stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Reads the first JSON value of `text`.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut r = Reader {
        text,
        s: text.as_bytes(),
        pos: 0,
    };
    r.skip_ws()?;
    if r.pos >= r.s.len() {
        return Err(r.error("the file has no JSON value"));
    }
    // json-c stops after the first complete value and ignores what follows.
    r.value(0)
}

struct Reader<'a> {
    text: &'a str,
    s: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: impl Into<String>) -> ParseError {
        let pos = self.pos.min(self.s.len());
        let before = &self.text[..floor_char_boundary(self.text, pos)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        ParseError {
            line,
            column: before[line_start..].chars().count() + 1,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// Skips whitespace (json-c's `is_ws_char`: space, tab, CR, LF) and comments.
    fn skip_ws(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => {
                    let start = self.pos;
                    match self.s.get(self.pos + 1) {
                        Some(b'*') => {
                            self.pos += 2;
                            loop {
                                match self.peek() {
                                    None => {
                                        self.pos = start;
                                        return Err(self.error("this /* comment never ends"));
                                    }
                                    Some(b'*') if self.s.get(self.pos + 1) == Some(&b'/') => {
                                        self.pos += 2;
                                        break;
                                    }
                                    Some(_) => self.pos += 1,
                                }
                            }
                        }
                        Some(b'/') => {
                            while !matches!(self.peek(), None | Some(b'\n')) {
                                self.pos += 1;
                            }
                        }
                        _ => return Err(self.error("expected a comment after '/'")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        let Some(c) = self.peek() else {
            return Err(self.error("unexpected end of the file: a value is missing"));
        };
        match c {
            b'{' | b'[' if depth + 1 >= MAX_DEPTH => Err(self.error(format!(
                "nesting deeper than {MAX_DEPTH} levels (json-c's limit)"
            ))),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' | b'\'' => Ok(Value::Str(self.string()?)),
            b'-' | b'0'..=b'9' => self.number(),
            b't' | b'T' | b'f' | b'F' | b'n' | b'N' | b'i' | b'I' => self.literal(),
            _ => Err(self.error(format!(
                "unexpected character '{}': expected a value",
                self.char_at()
            ))),
        }
    }

    fn char_at(&self) -> char {
        self.text[floor_char_boundary(self.text, self.pos)..]
            .chars()
            .next()
            .unwrap_or(' ')
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1; // '{'
        let mut fields: Vec<(String, Value)> = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(fields));
        }
        loop {
            match self.peek() {
                Some(b'"' | b'\'') => {}
                None => return Err(self.error("unexpected end of the file inside an object")),
                Some(_) => {
                    return Err(self.error(format!(
                        "unexpected character '{}': expected a quoted key or '}}'",
                        self.char_at()
                    )))
                }
            }
            let key = self.string()?;
            self.skip_ws()?;
            if self.peek() != Some(b':') {
                return Err(self.error(format!("expected ':' after the key \"{key}\"")));
            }
            self.pos += 1;
            self.skip_ws()?;
            let value = self.value(depth + 1)?;
            // json_object_object_add(): a key already present keeps its place, takes the new value.
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => fields.push((key, value)),
            }
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Value::Object(fields));
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(fields));
                }
                None => return Err(self.error("unexpected end of the file inside an object")),
                Some(_) => {
                    return Err(self.error(format!(
                        "unexpected character '{}': expected ',' or '}}'",
                        self.char_at()
                    )))
                }
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(Value::Array(items));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                None => return Err(self.error("unexpected end of the file inside an array")),
                Some(_) => {
                    return Err(self.error(format!(
                        "unexpected character '{}': expected ',' or ']'",
                        self.char_at()
                    )))
                }
            }
        }
    }

    /// A string in double or single quotes, starting at the quote.
    fn string(&mut self) -> Result<String, ParseError> {
        let quote = self.s[self.pos];
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            match self.peek() {
                None => {
                    self.pos = start;
                    return Err(self.error("this string never ends"));
                }
                Some(c) if c == quote => {
                    out.push_str(&self.text[run..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.text[run..self.pos]);
                    self.pos += 1;
                    let esc = self.peek();
                    self.pos += 1;
                    match esc {
                        Some(b'"') => out.push('"'),
                        Some(b'\'') => out.push('\''),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape in a string"));
                        }
                    }
                    run = self.pos;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.s.get(self.pos..self.pos + 4);
        let v = digits
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok());
        match v {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => Err(self.error("\\u must be followed by four hex digits")),
        }
    }

    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let hi = self.hex4()?;
        if (0xd800..0xdc00).contains(&hi) && self.s.get(self.pos..self.pos + 2) == Some(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let lo = self.hex4()?;
            if (0xdc00..0xe000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                return Ok(char::from_u32(c).unwrap_or('\u{fffd}'));
            }
            self.pos = save;
        }
        // A lone surrogate becomes U+FFFD, as json-c writes its UTF-8 replacement.
        Ok(char::from_u32(hi).unwrap_or('\u{fffd}'))
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') && matches!(self.s.get(self.pos + 1), Some(b'i' | b'I')) {
            self.pos += 1;
            return match self.literal()? {
                Value::Float(f) => Ok(Value::Float(-f)),
                _ => {
                    self.pos = start;
                    Err(self.error("invalid number"))
                }
            };
        }
        // json-c's json_number_chars.
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
        ) {
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        if text.contains(['.', 'e', 'E']) {
            // json-c trims a dangling exponent ("123e+" reads as 123.0).
            let trimmed = text.trim_end_matches(['e', 'E', '+', '-']);
            return match trimmed.parse::<f64>() {
                Ok(f) => Ok(Value::Float(f)),
                Err(_) => {
                    self.pos = start;
                    Err(self.error(format!("invalid number '{text}'")))
                }
            };
        }
        let (neg, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            self.pos = start;
            return Err(self.error(format!("invalid number '{text}'")));
        }
        // Saturate as json-c does with ERANGE in non-strict mode.
        let v = digits.bytes().fold(0i64, |acc, b| {
            let d = (b - b'0') as i64;
            if neg {
                acc.saturating_mul(10).saturating_sub(d)
            } else {
                acc.saturating_mul(10).saturating_add(d)
            }
        });
        Ok(Value::Int(v))
    }

    /// `true`, `false`, `null`, `NaN`, `Infinity`, in any letter case.
    fn literal(&mut self) -> Result<Value, ParseError> {
        const WORDS: [(&str, Value); 5] = [
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("null", Value::Null),
            ("nan", Value::Float(f64::NAN)),
            ("infinity", Value::Float(f64::INFINITY)),
        ];
        let rest = &self.s[self.pos..];
        for (word, v) in WORDS {
            if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes())
            {
                self.pos += word.len();
                return Ok(v);
            }
        }
        Err(self.error(format!(
            "unexpected character '{}': expected a value",
            self.char_at()
        )))
    }
}

/// The largest char boundary at or below `i`.
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: &Value) -> &[(String, Value)] {
        match v {
            Value::Object(o) => o,
            _ => panic!("not an object: {v:?}"),
        }
    }

    #[test]
    fn json_c_extensions_are_accepted() {
        let v = parse(
            "// head\n{ /* c */ 'a' : 1, \"b\": [1, 2,], \"c\": TRUE, \"d\": Null, 'e': 'x\"y',\
             \"f\": 1.5e3, \"g\": 007, \"h\": -Infinity, } trailing junk",
        )
        .unwrap();
        let o = obj(&v);
        let keys: Vec<&str> = o.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "e", "f", "g", "h"]);
        assert_eq!(o[1].1, Value::Array(vec![Value::Int(1), Value::Int(2)]));
        assert_eq!(o[2].1, Value::Bool(true));
        assert_eq!(o[3].1, Value::Null);
        assert_eq!(o[4].1, Value::Str("x\"y".into()));
        assert_eq!(o[5].1, Value::Float(1500.0));
        assert_eq!(o[6].1, Value::Int(7));
        assert_eq!(o[7].1, Value::Float(f64::NEG_INFINITY));
    }

    #[test]
    fn a_duplicate_key_keeps_its_first_place_and_its_last_value() {
        let v = parse(r#"{"run": 1, "sleep": 2, "run": 3}"#).unwrap();
        assert_eq!(
            obj(&v),
            &[
                ("run".to_string(), Value::Int(3)),
                ("sleep".to_string(), Value::Int(2))
            ]
        );
    }

    #[test]
    fn strings_decode_escapes_and_utf8() {
        let v = parse(r#""t\u00e9\n\ud83d\ude00 é""#).unwrap();
        assert_eq!(v, Value::Str("té\n😀 é".into()));
        assert_eq!(parse("99999999999999999999").unwrap(), Value::Int(i64::MAX));
    }

    #[test]
    fn errors_give_line_and_column() {
        let e = parse("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3), "{e}");
        let e = parse("{\"a\": [1, 2}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 12), "{e}");
        let e = parse("{\"é\": x}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 7), "{e}");
        let e = parse("{ /* open").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3), "{e}");
        assert!(parse("{\"a\": / 1}").is_err());
        assert!(parse("  ").is_err());
        assert!(parse("{a: 1}").is_err());
        let deep = "[".repeat(40);
        assert!(parse(&deep).unwrap_err().message.contains("nesting"));
    }
}
