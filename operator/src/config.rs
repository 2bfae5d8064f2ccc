use std::net::SocketAddr;

use quarterdeck_runtime::LogArgs;
use quarterdeck_store::DatabaseArgs;

/// Every setting of `quarterdeck-operator`, as a flag and an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "quarterdeck-operator", version, about = "Quarterdeck operator")]
pub struct Config {
    /// Address of the admin endpoints (/livez, /readyz).
    #[arg(
        long,
        env = "QUARTERDECK_ADMIN_LISTEN",
        default_value = "127.0.0.1:8081"
    )]
    pub admin_listen: SocketAddr,

    #[command(flatten)]
    pub database: DatabaseArgs,

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
