//! Prints the OpenAPI document: `cargo run -p quarterdeck-api --bin openapi > console-api/openapi.json`.
#![allow(clippy::print_stdout)] // a command-line tool: stdout is its output

fn main() {
    print!("{}", quarterdeck_api::openapi::document());
}
