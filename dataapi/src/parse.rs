//! The PostgREST query-string grammar, parsed into an AST. Pure: nothing
//! here knows the schema; names are checked against it when SQL is built.

use super::error::{RestError, echo};

/// Deepest nesting of `and(...)`/`or(...)`.
pub const MAX_LOGIC_DEPTH: usize = 8;
/// Deepest nesting of embedded relations in `select`.
pub const MAX_EMBED_DEPTH: usize = 5;
/// Most values in one `in.(...)` list.
pub const MAX_IN_LIST: usize = 5_000;
/// Most conditions (filters and logic nodes) in one request.
pub const MAX_CONDITIONS: usize = 200;
/// Most items across the whole `select`, embeds included.
pub const MAX_SELECT_ITEMS: usize = 300;
/// Longest query string accepted.
pub const MAX_QUERY_LENGTH: usize = 64 * 1024;

/// A parsed query string.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// `None` when `select` is absent (same as `select=*`).
    pub select: Option<Vec<SelectItem>>,
    /// Top-level conditions, ANDed.
    pub filters: Vec<Condition>,
    pub order: Vec<OrderTerm>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

/// A column, optionally followed by a JSON path (`labels->>team`, `spec->a->b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub column: String,
    pub path: Vec<PathStep>,
}

/// One `->key` (JSON) or `->>key` (text) step; only the last step may be text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStep {
    pub key: String,
    pub text: bool,
}

impl Field {
    /// The key an unaliased field gets in the output: its last path key or its column.
    pub fn default_key(&self) -> &str {
        self.path.last().map_or(&self.column, |s| &s.key)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SelectItem {
    Star,
    Field {
        alias: Option<String>,
        field: Field,
    },
    Embed {
        alias: Option<String>,
        name: String,
        /// `!hint` parts: a foreign-key column or constraint, or `inner`/`left`.
        hints: Vec<String>,
        select: Vec<SelectItem>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    In,
    Is,
    /// Contains (`@>`), for arrays and JSON.
    Cs,
    /// Contained in (`<@`), for arrays and JSON.
    Cd,
    /// Overlaps (`&&`), for arrays.
    Ov,
}

impl Op {
    fn from_name(name: &str) -> Option<Op> {
        Some(match name {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "like" => Op::Like,
            "ilike" => Op::Ilike,
            "in" => Op::In,
            "is" => Op::Is,
            "cs" => Op::Cs,
            "cd" => Op::Cd,
            "ov" => Op::Ov,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Op::Eq => "eq",
            Op::Neq => "neq",
            Op::Gt => "gt",
            Op::Gte => "gte",
            Op::Lt => "lt",
            Op::Lte => "lte",
            Op::Like => "like",
            Op::Ilike => "ilike",
            Op::In => "in",
            Op::Is => "is",
            Op::Cs => "cs",
            Op::Cd => "cd",
            Op::Ov => "ov",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A value as written (for like/ilike, `*` already turned into `%`).
    Scalar(String),
    List(Vec<String>),
    Is(IsValue),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logic {
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Filter {
        field: Field,
        negate: bool,
        op: Op,
        value: Operand,
    },
    Logic {
        negate: bool,
        logic: Logic,
        items: Vec<Condition>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
    First,
    Last,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTerm {
    pub field: Field,
    pub desc: bool,
    pub nulls: Option<Nulls>,
}

/// What the `Prefer` header asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prefer {
    pub representation: bool,
    pub count: bool,
}

/// `Prefer: return=representation, count=exact`. Unknown preferences are
/// ignored, as PostgREST does by default; `count=planned|estimated` are
/// answered exactly.
pub fn parse_prefer(header: &str) -> Prefer {
    let mut prefer = Prefer::default();
    for token in header.split(',').map(str::trim) {
        match token.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("return", "representation")) => prefer.representation = true,
            Some(("return", _)) => prefer.representation = false,
            Some(("count", "exact" | "planned" | "estimated")) => prefer.count = true,
            _ => {}
        }
    }
    prefer
}

/// A `Range: first-last` header (`items=` prefix allowed; `last` optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub first: u64,
    pub last: Option<u64>,
}

pub fn parse_range(header: &str) -> Result<Range, RestError> {
    let spec = header.trim();
    let spec = spec.strip_prefix("items=").unwrap_or(spec);
    let (first, last) = spec
        .split_once('-')
        .ok_or_else(|| RestError::range(header))?;
    let number = |s: &str| -> Result<u64, RestError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(RestError::range(header));
        }
        s.parse().map_err(|_| RestError::range(header))
    };
    let first = number(first.trim())?;
    let last = match last.trim() {
        "" => None,
        l => Some(number(l)?),
    };
    if last.is_some_and(|l| l < first) {
        return Err(RestError::range(header));
    }
    Ok(Range { first, last })
}

/// Parses a raw (still percent-encoded) query string.
pub fn parse_query(raw: &str) -> Result<Query, RestError> {
    if raw.len() > MAX_QUERY_LENGTH {
        return Err(RestError::new(414, "PGRST100", "query string too long"));
    }
    let mut query = Query::default();
    let mut budget = Budget::default();
    let mut seen = Vec::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(key)?;
        let value = decode(value)?;
        match key.as_str() {
            "select" | "order" | "limit" | "offset" => {
                if seen.contains(&key) {
                    return Err(RestError::unsupported(format!(
                        "'{key}' may be given only once"
                    )));
                }
                seen.push(key.clone());
            }
            _ => {}
        }
        match key.as_str() {
            "select" => query.select = Some(parse_select(&value, 0, &mut budget)?),
            "order" => query.order = parse_order(&value)?,
            "limit" => query.limit = Some(parse_count("limit", &value)?),
            "offset" => query.offset = Some(parse_count("offset", &value)?),
            "or" | "and" | "not.or" | "not.and" => {
                let negate = key.starts_with("not.");
                let logic = if key.ends_with("or") {
                    Logic::Or
                } else {
                    Logic::And
                };
                let inner = value
                    .strip_prefix('(')
                    .and_then(|v| v.strip_suffix(')'))
                    .ok_or_else(|| RestError::parse("logic tree", &value))?;
                budget.condition()?;
                let items = parse_logic_items(inner, 1, &mut budget)?;
                query.filters.push(Condition::Logic {
                    negate,
                    logic,
                    items,
                });
            }
            "columns" | "on_conflict" => {
                return Err(RestError::unsupported(format!("'{key}' is not supported")));
            }
            _ => {
                let column = key.split("->").next().unwrap_or_default();
                if column.contains('.') {
                    return Err(RestError::unsupported(format!(
                        "filters and modifiers on embedded resources are not supported: '{}'",
                        echo(&key)
                    )));
                }
                let field = parse_field(&key)?;
                budget.condition()?;
                let (negate, op, value) = parse_operation(&value)?;
                query.filters.push(Condition::Filter {
                    field,
                    negate,
                    op,
                    value,
                });
            }
        }
    }
    Ok(query)
}

/// Counts conditions and select items against their limits.
#[derive(Default)]
struct Budget {
    conditions: usize,
    select_items: usize,
}

impl Budget {
    fn condition(&mut self) -> Result<(), RestError> {
        self.conditions += 1;
        if self.conditions > MAX_CONDITIONS {
            return Err(RestError::unsupported(format!(
                "too many filters (at most {MAX_CONDITIONS})"
            )));
        }
        Ok(())
    }

    fn select_item(&mut self) -> Result<(), RestError> {
        self.select_items += 1;
        if self.select_items > MAX_SELECT_ITEMS {
            return Err(RestError::unsupported(format!(
                "too many select items (at most {MAX_SELECT_ITEMS})"
            )));
        }
        Ok(())
    }
}

/// Percent-decoding with `+` as a space; the result must be UTF-8.
fn decode(raw: &str) -> Result<String, RestError> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| RestError::parse("percent-encoding", raw))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    let text = String::from_utf8(out).map_err(|_| {
        RestError::unsupported("query string is not valid UTF-8 once percent-decoded")
    })?;
    if text.contains('\0') {
        return Err(RestError::unsupported("query string contains a NUL byte"));
    }
    Ok(text)
}

fn parse_count(what: &str, value: &str) -> Result<u64, RestError> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RestError::parse(what, value));
    }
    value.parse().map_err(|_| RestError::parse(what, value))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `column` or `column->key->>key`.
pub fn parse_field(text: &str) -> Result<Field, RestError> {
    let (column, rest) = match text.find("->") {
        Some(at) => (&text[..at], &text[at..]),
        None => (text, ""),
    };
    if column.is_empty() || !column.chars().all(is_name_char) {
        return Err(RestError::parse("field", text));
    }
    let mut path = Vec::new();
    let mut rest = rest;
    while !rest.is_empty() {
        let (text_step, after) = if let Some(after) = rest.strip_prefix("->>") {
            (true, after)
        } else if let Some(after) = rest.strip_prefix("->") {
            (false, after)
        } else {
            return Err(RestError::parse("JSON path", text));
        };
        let end = after.find("->").unwrap_or(after.len());
        let key = &after[..end];
        if key.is_empty() || path.last().is_some_and(|s: &PathStep| s.text) {
            return Err(RestError::parse("JSON path", text));
        }
        path.push(PathStep {
            key: key.to_owned(),
            text: text_step,
        });
        rest = &after[end..];
    }
    if path.len() > 16 {
        return Err(RestError::unsupported("JSON path too deep"));
    }
    Ok(Field {
        column: column.to_owned(),
        path,
    })
}

/// `[not.]op.value` of a top-level filter.
fn parse_operation(text: &str) -> Result<(bool, Op, Operand), RestError> {
    let (negate, rest) = match text.strip_prefix("not.") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (op_name, value) = rest
        .split_once('.')
        .ok_or_else(|| RestError::parse("filter", text))?;
    let op = Op::from_name(op_name).ok_or_else(|| {
        RestError::new(
            400,
            "PGRST100",
            format!("unknown operator '{}'", echo(op_name)),
        )
    })?;
    Ok((negate, op, parse_operand(op, value)?))
}

fn parse_operand(op: Op, value: &str) -> Result<Operand, RestError> {
    Ok(match op {
        Op::In => Operand::List(parse_list(value)?),
        Op::Is => Operand::Is(match value.to_ascii_lowercase().as_str() {
            "null" => IsValue::Null,
            "not_null" => IsValue::NotNull,
            "true" => IsValue::True,
            "false" => IsValue::False,
            "unknown" => IsValue::Unknown,
            _ => return Err(RestError::parse("'is' value", value)),
        }),
        Op::Like | Op::Ilike => Operand::Scalar(value.replace('*', "%")),
        _ => Operand::Scalar(value.to_owned()),
    })
}

/// `(a,b,"quoted, value")`: items split on commas outside double quotes;
/// inside quotes `\"` and `\\` are escapes.
fn parse_list(text: &str) -> Result<Vec<String>, RestError> {
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| RestError::parse("'in' list", text))?;
    let mut items = Vec::new();
    if inner.is_empty() {
        return Ok(items);
    }
    let mut chars = inner.chars().peekable();
    loop {
        let mut item = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('\\') => match chars.next() {
                        Some(c) => item.push(c),
                        None => return Err(RestError::parse("'in' list", text)),
                    },
                    Some('"') => break,
                    Some(c) => item.push(c),
                    None => return Err(RestError::parse("'in' list", text)),
                }
            }
            match chars.next() {
                None => {
                    items.push(item);
                    break;
                }
                Some(',') => {}
                Some(_) => return Err(RestError::parse("'in' list", text)),
            }
        } else {
            let mut ended = true;
            for c in chars.by_ref() {
                if c == ',' {
                    ended = false;
                    break;
                }
                if c == '"' || c == '(' || c == ')' {
                    return Err(RestError::parse("'in' list", text));
                }
                item.push(c);
            }
            if ended {
                items.push(item);
                break;
            }
        }
        items.push(item);
        if items.len() > MAX_IN_LIST {
            return Err(RestError::unsupported(format!(
                "'in' list too long (at most {MAX_IN_LIST} values)"
            )));
        }
    }
    if items.len() > MAX_IN_LIST {
        return Err(RestError::unsupported(format!(
            "'in' list too long (at most {MAX_IN_LIST} values)"
        )));
    }
    Ok(items)
}

/// Splits on commas at parenthesis depth 0, outside double quotes.
fn split_top(text: &str, what: &str) -> Result<Vec<String>, RestError> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for c in text.chars() {
        if quoted {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                current.push(c);
            }
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| RestError::parse(what, text))?;
                current.push(c);
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if quoted || depth != 0 {
        return Err(RestError::parse(what, text));
    }
    parts.push(current);
    Ok(parts)
}

/// The items of `or=(...)`/`and=(...)` (without the outer parentheses).
fn parse_logic_items(
    text: &str,
    depth: usize,
    budget: &mut Budget,
) -> Result<Vec<Condition>, RestError> {
    if depth > MAX_LOGIC_DEPTH {
        return Err(RestError::unsupported(format!(
            "logic trees nest at most {MAX_LOGIC_DEPTH} levels"
        )));
    }
    let mut items = Vec::new();
    for part in split_top(text, "logic tree")? {
        budget.condition()?;
        items.push(parse_logic_item(&part, depth, budget)?);
    }
    Ok(items)
}

fn parse_logic_item(text: &str, depth: usize, budget: &mut Budget) -> Result<Condition, RestError> {
    let (negate, body) = match text.strip_prefix("not.") {
        Some(rest) if rest.starts_with("and(") || rest.starts_with("or(") => (true, rest),
        _ => (false, text),
    };
    for (prefix, logic) in [("and(", Logic::And), ("or(", Logic::Or)] {
        if let Some(rest) = body.strip_prefix(prefix) {
            let inner = rest
                .strip_suffix(')')
                .ok_or_else(|| RestError::parse("logic tree", text))?;
            return Ok(Condition::Logic {
                negate,
                logic,
                items: parse_logic_items(inner, depth + 1, budget)?,
            });
        }
    }
    // field.[not.]op.value; the field ends at the first '.' after any JSON path.
    let dot = text
        .find('.')
        .ok_or_else(|| RestError::parse("logic tree", text))?;
    let field = parse_field(&text[..dot])?;
    let rest = &text[dot + 1..];
    let (negate, rest) = match rest.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (op_name, value) = rest
        .split_once('.')
        .ok_or_else(|| RestError::parse("logic tree", text))?;
    let op = Op::from_name(op_name).ok_or_else(|| {
        RestError::new(
            400,
            "PGRST100",
            format!("unknown operator '{}'", echo(op_name)),
        )
    })?;
    let value = if op != Op::In {
        unquote(value)?
    } else {
        value.to_owned()
    };
    Ok(Condition::Filter {
        field,
        negate,
        op,
        value: parse_operand(op, &value)?,
    })
}

/// A value of a logic tree: `"a,b"` is unquoted (with `\` escapes); a bare
/// value may not contain the tree's syntax characters.
fn unquote(value: &str) -> Result<String, RestError> {
    if let Some(inner) = value.strip_prefix('"') {
        let inner = inner
            .strip_suffix('"')
            .ok_or_else(|| RestError::parse("quoted value", value))?;
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(
                    chars
                        .next()
                        .ok_or_else(|| RestError::parse("quoted value", value))?,
                ),
                '"' => return Err(RestError::parse("quoted value", value)),
                c => out.push(c),
            }
        }
        return Ok(out);
    }
    if value.contains(['(', ')', '"']) {
        return Err(RestError::parse("logic tree value", value));
    }
    Ok(value.to_owned())
}

fn parse_select(
    text: &str,
    depth: usize,
    budget: &mut Budget,
) -> Result<Vec<SelectItem>, RestError> {
    if depth > MAX_EMBED_DEPTH {
        return Err(RestError::unsupported(format!(
            "embedded resources nest at most {MAX_EMBED_DEPTH} levels"
        )));
    }
    let mut items = Vec::new();
    for part in split_top(text, "select")? {
        budget.select_item()?;
        items.push(parse_select_item(part.trim(), depth, budget)?);
    }
    Ok(items)
}

fn parse_select_item(
    text: &str,
    depth: usize,
    budget: &mut Budget,
) -> Result<SelectItem, RestError> {
    if text == "*" {
        return Ok(SelectItem::Star);
    }
    if text.is_empty() {
        return Err(RestError::parse("select", text));
    }
    if text.starts_with("...") {
        return Err(RestError::unsupported(
            "spread embeds ('...') are not supported",
        ));
    }
    if text.contains("::") {
        return Err(RestError::unsupported(format!(
            "casts are not supported: '{}'",
            echo(text)
        )));
    }
    let (alias, rest) = match text.split_once(':') {
        Some((alias, rest)) => {
            if alias.is_empty() || !alias.chars().all(is_name_char) {
                return Err(RestError::parse("select alias", text));
            }
            (Some(alias.to_owned()), rest)
        }
        None => (None, text),
    };
    if let Some(open) = rest.find('(') {
        let inner = rest[open + 1..]
            .strip_suffix(')')
            .ok_or_else(|| RestError::parse("select", text))?;
        let mut parts = rest[..open].split('!');
        let name = parts.next().unwrap_or_default();
        if name.is_empty() || !name.chars().all(is_name_char) {
            return Err(RestError::parse("embedded resource", text));
        }
        let hints: Vec<String> = parts.map(str::to_owned).collect();
        if hints.len() > 2
            || hints
                .iter()
                .any(|h| h.is_empty() || !h.chars().all(is_name_char))
        {
            return Err(RestError::parse("embed hint", text));
        }
        let select = if inner.trim().is_empty() {
            vec![SelectItem::Star]
        } else {
            parse_select(inner, depth + 1, budget)?
        };
        return Ok(SelectItem::Embed {
            alias,
            name: name.to_owned(),
            hints,
            select,
        });
    }
    if rest.contains([')', '!', '"']) {
        return Err(RestError::parse("select", text));
    }
    Ok(SelectItem::Field {
        alias,
        field: parse_field(rest)?,
    })
}

/// `order=col.desc.nullslast,col2`.
fn parse_order(text: &str) -> Result<Vec<OrderTerm>, RestError> {
    let mut terms = Vec::new();
    for part in text.split(',') {
        if part.contains('(') {
            return Err(RestError::unsupported(
                "ordering by embedded resources is not supported",
            ));
        }
        let mut pieces: Vec<&str> = part.split('.').collect();
        let mut nulls = None;
        if pieces.len() > 1 {
            match pieces.last().copied() {
                Some("nullsfirst") => nulls = Some(Nulls::First),
                Some("nullslast") => nulls = Some(Nulls::Last),
                _ => {}
            }
            if nulls.is_some() {
                pieces.pop();
            }
        }
        let mut desc = false;
        if pieces.len() > 1 {
            match pieces.last().copied() {
                Some("asc") => {
                    pieces.pop();
                }
                Some("desc") => {
                    desc = true;
                    pieces.pop();
                }
                _ => {}
            }
        }
        let field_text = pieces.join(".");
        if field_text.contains('.') && !field_text.contains("->") {
            return Err(RestError::parse("order", part));
        }
        terms.push(OrderTerm {
            field: parse_field(&field_text)?,
            desc,
            nulls,
        });
    }
    Ok(terms)
}

#[cfg(test)]
mod tests;
