use anyhow::Context;
use clap::Parser;
use quarterdeck_operator::{Config, hardening, run};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    hardening::forbid_inspection().context("making the process non-dumpable")?;
    quarterdeck_runtime::return_large_blocks();
    let config = Config::parse();
    config.log.init()?;
    run(config).await
}
