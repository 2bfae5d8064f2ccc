//! Shared by the tests: render and expect success, or render and expect an error's text.
#![allow(dead_code)] // each test file uses its part

use quarterdeck_templates::render;
use serde_json::Value;

#[track_caller]
pub fn rendered(source: &str, data: &Value) -> String {
    render(source, data).unwrap_or_else(|e| panic!("{source}: {e}"))
}

#[track_caller]
pub fn failure(source: &str, data: &Value) -> String {
    match render(source, data) {
        Ok(out) => panic!("{source} rendered {} bytes: {:.200}", out.len(), out),
        Err(e) => e.to_string(),
    }
}
