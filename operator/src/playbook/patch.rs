//! gitops `patches`: a jq expression applied to a JSON file (`jq`) or to
//! every document of a YAML file (`yq`), with jaq, a jq implementation in
//! Rust. yq's path assignments (`.a.b = 1`, `|=`, `+=`, `del(.x)`, `select`)
//! are jq's; yq-only functions and operators (`load`, `eval`, `*` merging
//! maps, `... comments`, `style`) are not there. The expression must give
//! one value. YAML comments, anchors and quoting styles are not kept: each
//! document is written out again. `env`, `now` and `input` are not
//! defined: a patch sees only its file.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use serde::Deserialize;

/// Functions a patch may not call: they read the operator's environment
/// and clock or more input. (`halt` ends the expression as an error.)
const HIDDEN: &[&str] = &["env", "now", "input", "inputs", "input_filename"];

/// `expression` applied to the JSON text `json`, written back with two-space indentation.
pub(crate) fn jq(json: &str, expression: &str) -> Result<String, String> {
    let input = jaq_json::read::parse_single(json.as_bytes())
        .map_err(|e| format!("the file is not JSON: {e}"))?;
    let output = apply(input, expression)?;
    let mut text = pretty(&output)?;
    text.push('\n');
    Ok(text)
}

/// `expression` applied to every document of the YAML text `yaml`.
pub(crate) fn yq(yaml: &str, expression: &str) -> Result<String, String> {
    let mut documents = Vec::new();
    for document in yaml_serde::Deserializer::from_str(yaml) {
        let value = yaml_serde::Value::deserialize(document)
            .map_err(|e| format!("the file is not YAML: {e}"))?;
        let json =
            serde_json::to_string(&value).map_err(|e| format!("the file is not YAML: {e}"))?;
        let input = jaq_json::read::parse_single(json.as_bytes())
            .map_err(|e| format!("the file is not YAML jq can read: {e}"))?;
        let output = apply(input, expression)?;
        let value: yaml_serde::Value = serde_json::from_str(&output.to_string())
            .map_err(|e| format!("the result is not YAML: {e}"))?;
        documents.push(yaml_serde::to_string(&value).map_err(|e| format!("writing YAML: {e}"))?);
    }
    if documents.is_empty() {
        return Err("the file holds no YAML document".into());
    }
    Ok(documents.join("---\n"))
}

/// Written as jq writes it with two-space indentation, keys in their order.
fn pretty(value: &Val) -> Result<String, String> {
    let pp = jaq_json::write::Pp {
        indent: Some("  ".to_owned()),
        sep_space: true,
        ..jaq_json::write::Pp::default()
    };
    let mut out = Vec::new();
    jaq_json::write::write(&mut out, &pp, 0, value).map_err(|e| format!("the result: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("the result: {e}"))
}

fn apply(input: Val, expression: &str) -> Result<Val, String> {
    let program = File {
        code: expression,
        path: (),
    };
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(|(name, _, _)| !HIDDEN.contains(name));
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(&arena, program)
        .map_err(|errors| format!("invalid expression: {}", describe_load(&errors)))?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let names: Vec<String> = errors
                .iter()
                .flat_map(|(_, undefined)| undefined.iter())
                .map(|(name, kind)| format!("undefined {} {name}", kind.as_str()))
                .collect();
            format!("invalid expression: {}", names.join(", "))
        })?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut outputs = filter.id.run((ctx, input));
    let first = match outputs.next() {
        None => return Err("the expression gives no value".into()),
        Some(Ok(value)) => value,
        Some(Err(exception)) => return Err(failure(exception)),
    };
    if outputs.next().is_some() {
        return Err("the expression gives more than one value".into());
    }
    Ok(first)
}

fn failure(exception: jaq_core::Exn<'_, Val>) -> String {
    match exception.get_err() {
        Ok(error) => format!("the expression failed: {error}"),
        Err(_) => "the expression stopped without a value".into(),
    }
}

fn describe_load(errors: &jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut said = Vec::new();
    for (_, error) in errors {
        match error {
            Error::Io(problems) => said.extend(problems.iter().map(|(_, e)| e.clone())),
            Error::Lex(problems) => said.extend(
                problems
                    .iter()
                    .map(|(expected, at)| format!("expected {} at {at:?}", expected.as_str())),
            ),
            Error::Parse(problems) => said.extend(
                problems
                    .iter()
                    .map(|(expected, at)| format!("expected {} at {at:?}", expected.as_str())),
            ),
        }
    }
    said.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jq_sets_paths_and_keeps_the_order_of_keys() {
        let out = jq(
            r#"{"b": 1, "a": {"x": [1, 2]}}"#,
            ".a.x += [3] | .c = \"new\"",
        )
        .unwrap();
        assert_eq!(
            out,
            "{\n  \"b\": 1,\n  \"a\": {\n    \"x\": [\n      1,\n      2,\n      3\n    ]\n  },\n  \"c\": \"new\"\n}\n"
        );
    }

    #[test]
    fn yq_patches_every_document() {
        let out = yq(
            "kind: Deployment\nspec:\n  replicas: 1\n---\nkind: Service\nspec:\n  replicas: 1\n",
            "(select(.kind == \"Deployment\") | .spec.replicas) = 3 | del(.spec.missing)",
        )
        .unwrap();
        assert_eq!(
            out,
            "kind: Deployment\nspec:\n  replicas: 3\n---\nkind: Service\nspec:\n  replicas: 1\n"
        );
    }

    #[test]
    fn what_a_patch_cannot_do_is_an_error() {
        assert!(jq("{}", "env").unwrap_err().contains("undefined"));
        assert_eq!(
            jq("{}", "halt").unwrap_err(),
            "the expression stopped without a value"
        );
        assert!(jq("{}", "now").unwrap_err().contains("undefined"));
        assert!(
            jq("{}", ".a[")
                .unwrap_err()
                .starts_with("invalid expression")
        );
        assert_eq!(
            jq("{}", "empty").unwrap_err(),
            "the expression gives no value"
        );
        assert_eq!(
            jq("{}", "1, 2").unwrap_err(),
            "the expression gives more than one value"
        );
        assert!(jq("{}", "error(\"no\")").unwrap_err().contains("no"));
        assert!(
            jq("not json", ".")
                .unwrap_err()
                .starts_with("the file is not JSON")
        );
    }
}
