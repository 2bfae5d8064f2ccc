use clap::Parser;
use quarterdeck_operator::{Config, run};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    config.log.init()?;
    run(config).await
}
