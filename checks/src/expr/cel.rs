//! CEL through the `cel` crate (the interpreter kube's CEL validation uses).

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::collections::HashMap;
use std::sync::Arc;

use cel::objects::{Key, Map as CelMap};
use cel::{Context, Program, Value as Cel};
use serde_json::{Map, Number, Value};

pub fn evaluate(source: &str, env: &Map<String, Value>) -> Result<Value, String> {
    let run = || {
        let program = Program::compile(source)
            .map_err(|e| format!("invalid CEL expression {source:?}: {e}"))?;
        let mut context = Context::default();
        for (name, value) in env {
            context.add_variable_from_value(name.as_str(), from_json(value));
        }
        let result = program
            .execute(&context)
            .map_err(|e| format!("CEL expression {source:?} failed: {e}"))?;
        to_json(&result)
    };
    // The interpreter is a third-party parser run on user input; a panic in it
    // must not take the check run (or the scheduler) down with it.
    catch_unwind(AssertUnwindSafe(run))
        .unwrap_or_else(|_| Err(format!("CEL expression {source:?} could not be evaluated")))
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
