//! Long answers: lists come a page at a time (`limit`, and `cursor` from the
//! previous page's `nextCursor`), and any answer past [`MAX_CHARS`] is cut
//! with a note saying what was left out and how to get it.

use serde_json::{Value, json};

use super::tools::Args;

/// Items a page holds unless `limit` says otherwise.
const DEFAULT_LIMIT: u32 = 20;
/// Most items a page holds.
pub(super) const MAX_LIMIT: u32 = 100;
/// How far a cursor may go: past it, narrow the search.
const MAX_OFFSET: u32 = 10_000;
/// Most characters of one answer.
pub(super) const MAX_CHARS: usize = 40_000;

#[derive(Debug, Clone, Copy)]
pub(super) struct Page {
    pub offset: u32,
    pub limit: u32,
}

impl Page {
    pub fn of(args: &Args) -> Result<Self, String> {
        let limit = args.number("limit")?.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(format!("limit: must be 1 to {MAX_LIMIT}"));
        }
        let offset = match args.string("cursor")? {
            None => 0,
            Some(cursor) => cursor
                .parse::<u32>()
                .ok()
                .filter(|o| *o <= MAX_OFFSET)
                .ok_or_else(|| {
                    format!("cursor: {cursor:?} is not a cursor this server gave (pass nextCursor as it came)")
                })?,
        };
        if offset + limit > MAX_OFFSET {
            return Err(format!(
                "cursor: the first {MAX_OFFSET} results are as far as paging goes; narrow the search"
            ));
        }
        Ok(Self { offset, limit })
    }

    /// Rows to fetch from the start to know this page and whether more follow.
    pub fn window(self) -> u32 {
        self.offset + self.limit + 1
    }

    /// This page of `rows` (all rows from the start, as [`Page::window`] fetched).
    pub fn of_all(self, rows: Vec<Value>) -> Value {
        let more = rows.len() > (self.offset + self.limit) as usize;
        let items = rows
            .into_iter()
            .skip(self.offset as usize)
            .take(self.limit as usize)
            .collect();
        self.answer(items, more)
    }

    /// This page, from rows fetched from `offset` with one more than `limit`.
    pub fn of_rows(self, mut rows: Vec<Value>) -> Value {
        let more = rows.len() > self.limit as usize;
        rows.truncate(self.limit as usize);
        self.answer(rows, more)
    }

    /// A page's answer: `items`, `nextCursor` when more follow, and a note
    /// when items were left out to keep the answer short.
    fn answer(self, mut items: Vec<Value>, more: bool) -> Value {
        let mut left_out = 0;
        while items.len() > 1 && json_len(&Value::Array(items.clone())) > MAX_CHARS {
            items.pop();
            left_out += 1;
        }
        let next = self.offset + items.len() as u32;
        let mut answer = json!({ "items": items });
        if more || left_out > 0 {
            answer["nextCursor"] = json!(next.to_string());
        }
        if left_out > 0 {
            answer["note"] = json!(format!(
                "truncated: {left_out} more items of this page left out to keep the answer short; pass nextCursor (or a smaller limit) for them"
            ));
        }
        answer
    }
}

fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map(|s| s.len()).unwrap_or(0)
}

/// The text of an answer, cut at [`MAX_CHARS`] with a note.
pub(super) fn text(value: &Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    if text.len() <= MAX_CHARS {
        return text;
    }
    let mut cut = MAX_CHARS;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n... truncated: {} of {} characters shown; ask for less (a smaller limit, or one item by id)",
        &text[..cut],
        cut,
        text.len()
    )
}
