//! CEL through the `cel` crate (the interpreter kube's CEL validation uses).

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use cel::objects::{Key, Map as CelMap};
use cel::{Context, Program, Value as Cel};
use serde_json::{Map, Number, Value};

/// The stack the parser runs on: it recurses per nesting level, and a long
/// expression (the sample estate's transform) outgrows a 2 MiB thread stack
/// in a debug build; an overflow would abort the process.
const PARSE_STACK: usize = 16 * 1024 * 1024;
/// Compiled expressions kept per thread (all dropped when it is full).
const CACHED_PROGRAMS: usize = 256;

thread_local! {
    static PROGRAMS: RefCell<HashMap<String, Rc<Program>>> = RefCell::new(HashMap::new());
}

/// `source` compiled, from this thread's cache when it was compiled before
/// (a scrape evaluates one transform per item).
fn program(source: &str) -> Result<Rc<Program>, String> {
    if let Some(program) = PROGRAMS.with(|cache| cache.borrow().get(source).cloned()) {
        return Ok(program);
    }
    let program = Rc::new(
        stacker::grow(PARSE_STACK, || Program::compile(source))
            .map_err(|e| format!("invalid CEL expression {source:?}: {e}"))?,
    );
    PROGRAMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHED_PROGRAMS {
            cache.clear();
        }
        cache.insert(source.to_owned(), program.clone());
    });
    Ok(program)
}

/// Whether `source` compiles, for checks on write (nothing is evaluated).
pub fn compile(source: &str) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| program(source).map(|_| ())))
        .unwrap_or_else(|_| Err(format!("invalid CEL expression {source:?}")))
}

pub fn evaluate(source: &str, env: &Map<String, Value>) -> Result<Value, String> {
    evaluate_each(&[source], env)
        .pop()
        .unwrap_or_else(|| Err(format!("CEL expression {source:?} could not be evaluated")))
}

/// Each of `sources` over one `env`, converted to CEL once for all of them
/// (the notification engine holds every rule's filter against each event).
pub fn evaluate_each(sources: &[&str], env: &Map<String, Value>) -> Vec<Result<Value, String>> {
    let mut context = Context::default();
    for (name, value) in env {
        context.add_variable_from_value(name.as_str(), from_json(value));
    }
    sources
        .iter()
        .map(|source| {
            let run = || {
                let result = program(source)?
                    .execute(&context)
                    .map_err(|e| format!("CEL expression {source:?} failed: {e}"))?;
                to_json(&result)
            };
            // The interpreter is a third-party parser run on user input; a panic in it
            // must not take the check run (or the scheduler) down with it.
            catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| {
                Err(format!("CEL expression {source:?} could not be evaluated"))
            })
        })
        .collect()
}

/// JSON integers become CEL `int` (not `uint`), so `code == 200` holds.
fn from_json(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Cel::Int(i),
            (None, Some(u)) => Cel::UInt(u),
            _ => Cel::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(items) => Cel::List(Arc::new(items.iter().map(from_json).collect())),
        Value::Object(fields) => Cel::Map(CelMap {
            map: Arc::new(
                fields
                    .iter()
                    .map(|(k, v)| (Key::String(Arc::new(k.clone())), from_json(v)))
                    .collect::<HashMap<_, _>>(),
            ),
        }),
    }
}

fn to_json(value: &Cel) -> Result<Value, String> {
    Ok(match value {
        Cel::Null => Value::Null,
        Cel::Bool(b) => Value::Bool(*b),
        Cel::Int(i) => Value::from(*i),
        Cel::UInt(u) => Value::from(*u),
        Cel::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Cel::String(s) => Value::String(s.to_string()),
        Cel::Bytes(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
        Cel::List(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Cel::Map(map) => Value::Object(
            map.map
                .iter()
                .map(|(k, v)| Ok((k.to_string(), to_json(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        Cel::Duration(d) => Value::String(format!("{}s", d.num_milliseconds() as f64 / 1000.0)),
        Cel::Timestamp(t) => Value::String(t.to_rfc3339()),
        other => {
            return Err(format!(
                "a CEL {} cannot be used as a result",
                other.type_of()
            ));
        }
    })
}
