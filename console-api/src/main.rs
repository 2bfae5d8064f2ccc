use clap::Parser;
use quarterdeck_api::{Config, serve};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    config.log.init()?;
    serve(config).await
}
