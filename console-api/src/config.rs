use std::net::SocketAddr;

use quarterdeck_runtime::LogArgs;
use quarterdeck_store::DatabaseArgs;

/// Every setting of `quarterdeck-api`, as a flag and an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "quarterdeck-api",
    version,
    about = "Quarterdeck console API and web server"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "QUARTERDECK_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    #[command(flatten)]
    pub database: DatabaseArgs,

    /// Password of the admin created on first start (admin@localhost).
    /// Used only when that person does not exist yet; when unset, a random
    /// password is generated and logged once.
    #[arg(long, env = "QUARTERDECK_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,

    #[command(flatten)]
    pub log: LogArgs,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        super::Config::command().debug_assert();
    }
}
