//! Prints the OpenAPI document: `cargo run -p quarterdeck-api --bin openapi > console-api/openapi.json`.

fn main() {
    print!("{}", quarterdeck_api::openapi::document());
}
