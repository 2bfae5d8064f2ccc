//! The functions a template can call: Go's builtins and the Sprig-like set (table in lib.rs).

mod builtin;
mod convert;
mod date;
mod printf;
mod sprig;

use crate::value::Val;

pub(crate) use convert::{int_arg, list_arg, str_arg};

/// Why a call failed: Go reports argument types without "error calling".
pub(crate) enum FnError {
    /// A wrong argument type (`wrong type for value; expected string; got int`).
    Arg(String),
    /// The function itself failed (`error calling div: integer divide by zero`).
    Call(String),
}

pub(crate) type FnResult = Result<Val, FnError>;

pub(crate) fn fail<T>(message: impl Into<String>) -> Result<T, FnError> {
    Err(FnError::Call(message.into()))
}

type Func = fn(&[Val]) -> FnResult;

/// Name, least and most arguments (`None`: any number), implementation.
const FUNCS: &[(&str, usize, Option<usize>, Func)] = &[
    // Go's builtins (and, or are evaluated lazily by the executor).
    ("not", 1, Some(1), builtin::not),
    ("len", 1, Some(1), builtin::len),
    ("index", 1, None, builtin::index),
    ("slice", 1, None, builtin::slice),
    ("print", 0, None, builtin::print),
    ("printf", 1, None, printf::printf),
    ("println", 0, None, builtin::println),
    ("eq", 1, None, builtin::eq),
    ("ne", 2, Some(2), builtin::ne),
    ("lt", 2, Some(2), builtin::lt),
    ("le", 2, Some(2), builtin::le),
    ("gt", 2, Some(2), builtin::gt),
    ("ge", 2, Some(2), builtin::ge),
    ("html", 0, None, builtin::html),
    ("js", 0, None, builtin::js),
    ("urlquery", 0, None, builtin::urlquery),
    // Sprig: defaults and logic.
    ("default", 1, None, sprig::default),
    ("empty", 1, Some(1), sprig::empty),
    ("coalesce", 0, None, sprig::coalesce),
    ("ternary", 3, Some(3), sprig::ternary),
    // Strings.
    ("upper", 1, Some(1), sprig::upper),
    ("lower", 1, Some(1), sprig::lower),
    ("title", 1, Some(1), sprig::title),
    ("trim", 1, Some(1), sprig::trim),
    ("trimPrefix", 2, Some(2), sprig::trim_prefix),
    ("trimSuffix", 2, Some(2), sprig::trim_suffix),
    ("trimAll", 2, Some(2), sprig::trim_all),
    ("contains", 2, Some(2), sprig::contains),
    ("hasPrefix", 2, Some(2), sprig::has_prefix),
    ("hasSuffix", 2, Some(2), sprig::has_suffix),
    ("replace", 3, Some(3), sprig::replace),
    ("repeat", 2, Some(2), sprig::repeat),
    ("substr", 3, Some(3), sprig::substr),
    ("trunc", 2, Some(2), sprig::trunc),
    ("abbrev", 2, Some(2), sprig::abbrev),
    ("quote", 0, None, sprig::quote),
    ("squote", 0, None, sprig::squote),
    ("cat", 0, None, sprig::cat),
    ("indent", 2, Some(2), sprig::indent),
    ("nindent", 2, Some(2), sprig::nindent),
    ("join", 2, Some(2), sprig::join),
    ("split", 2, Some(2), sprig::split),
    ("splitList", 2, Some(2), sprig::split_list),
    ("toString", 1, Some(1), sprig::to_string),
    // Encodings.
    ("toJson", 1, Some(1), sprig::to_json),
    ("toPrettyJson", 1, Some(1), sprig::to_pretty_json),
    ("fromJson", 1, Some(1), sprig::from_json),
    ("toYaml", 1, Some(1), sprig::to_yaml),
    ("b64enc", 1, Some(1), sprig::b64enc),
    ("b64dec", 1, Some(1), sprig::b64dec),
    ("sha256sum", 1, Some(1), sprig::sha256sum),
    // Lists and dictionaries.
    ("list", 0, None, sprig::list),
    ("dict", 0, None, sprig::dict),
    ("get", 2, Some(2), sprig::get),
    ("set", 3, Some(3), sprig::set),
    ("keys", 1, None, sprig::keys),
    ("hasKey", 2, Some(2), sprig::has_key),
    ("pluck", 1, None, sprig::pluck),
    ("first", 1, Some(1), sprig::first),
    ("last", 1, Some(1), sprig::last),
    ("uniq", 1, Some(1), sprig::uniq),
    ("sortAlpha", 1, Some(1), sprig::sort_alpha),
    // Numbers.
    ("add", 0, None, sprig::add),
    ("sub", 2, Some(2), sprig::sub),
    ("mul", 1, None, sprig::mul),
    ("div", 2, Some(2), sprig::div),
    ("mod", 2, Some(2), sprig::modulo),
    ("max", 1, None, sprig::max),
    ("min", 1, None, sprig::min),
    ("int", 1, Some(1), sprig::int),
    ("int64", 1, Some(1), sprig::int),
    ("float64", 1, Some(1), sprig::float64),
    ("atoi", 1, Some(1), sprig::atoi),
    // Dates and durations.
    ("now", 0, Some(0), date::now),
    ("date", 2, Some(2), date::date),
    ("toDate", 2, Some(2), date::to_date),
    ("unixEpoch", 1, Some(1), date::unix_epoch),
    ("duration", 1, Some(1), date::duration),
    ("humanizeDuration", 1, Some(1), date::humanize_duration),
    // Regular expressions and identifiers.
    ("regexMatch", 2, Some(2), sprig::regex_match),
    ("regexFind", 2, Some(2), sprig::regex_find),
    ("regexReplaceAll", 3, Some(3), sprig::regex_replace_all),
    ("uuidv4", 0, Some(0), sprig::uuidv4),
];

pub(crate) fn is_defined(name: &str) -> bool {
    name == "and" || name == "or" || FUNCS.iter().any(|(n, ..)| *n == name)
}

/// Calls a function with evaluated arguments; the error is the message Go would give.
pub(crate) fn call(name: &str, args: &[Val]) -> Result<Val, String> {
    let Some((_, least, most, f)) = FUNCS.iter().find(|(n, ..)| *n == name) else {
        return Err(format!("{name:?} is not a defined function"));
    };
    let got = args.len();
    match most {
        Some(most) if least == most && got != *most => {
            return Err(format!(
                "wrong number of args for {name}: want {most} got {got}"
            ));
        }
        Some(most) if got > *most => {
            return Err(format!(
                "wrong number of args for {name}: want at most {most} got {got}"
            ));
        }
        _ if got < *least => {
            return Err(format!(
                "wrong number of args for {name}: want at least {least} got {got}"
            ));
        }
        _ => {}
    }
    f(args).map_err(|e| match e {
        FnError::Arg(m) => m,
        FnError::Call(m) => format!("error calling {name}: {m}"),
    })
}

/// The names, for the crate's documentation test.
#[cfg(test)]
pub(crate) fn names() -> Vec<&'static str> {
    FUNCS
        .iter()
        .map(|(n, ..)| *n)
        .chain(["and", "or"])
        .collect()
}
