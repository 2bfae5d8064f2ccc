use clap::Parser;
use quarterdeck_api::{Config, rotate_key, serve};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    quarterdeck_runtime::return_large_blocks();
    let config = Config::parse();
    config.log.init()?;
    match &config.command {
        Some(command) => Ok(rotate_key::run(&config, command, &mut std::io::stdout()).await?),
        None => serve(config).await,
    }
}
