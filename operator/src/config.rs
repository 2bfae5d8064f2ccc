use std::net::SocketAddr;
use std::path::PathBuf;

use quarterdeck_runtime::LogArgs;
use quarterdeck_store::DatabaseArgs;
use quarterdeck_store::crd::Takeover;

/// Every setting of `quarterdeck-operator`, as a flag and an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "quarterdeck-operator", version, about = "Quarterdeck operator")]
pub struct Config {
    /// Address of the admin endpoints (/metrics, /livez, /readyz).
    #[arg(
        long,
        env = "QUARTERDECK_ADMIN_LISTEN",
        default_value = "127.0.0.1:8081"
    )]
    pub admin_listen: SocketAddr,

    /// Reconcile the manifests in this folder instead of watching a cluster.
    #[arg(long, env = "QUARTERDECK_FROM_DIR")]
    pub from_dir: Option<PathBuf>,

    /// Run only the background work (health checks), reconciling nothing:
    /// for replicas that add check capacity, or a machine without a cluster.
    #[arg(long, env = "QUARTERDECK_ENGINE_ONLY", conflicts_with = "from_dir")]
    pub engine_only: bool,

    /// With --from-dir: keep running and re-apply when the folder changes.
    #[arg(long, env = "QUARTERDECK_WATCH", requires = "from_dir")]
    pub watch: bool,

    /// With --from-dir: fail a manifest that has fields its kind does not
    /// define (like `kubectl --validate=strict`) instead of warning.
    #[arg(long, env = "QUARTERDECK_STRICT", requires = "from_dir")]
    pub strict: bool,

    /// Let a custom resource take over a console-created row of the same
    /// namespace and name even when that row does not ask for adoption.
    #[arg(long, env = "QUARTERDECK_ADOPT_CONSOLE_ROWS")]
    pub adopt_console_rows: bool,

    /// Objects of one kind reconciled at once.
    #[arg(
        long,
        env = "QUARTERDECK_RECONCILE_CONCURRENCY",
        default_value_t = 4,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub reconcile_concurrency: u16,

    /// With --watch: how often the folder is checked for changes.
    #[arg(long, env = "QUARTERDECK_WATCH_INTERVAL", default_value = "2s", value_parser = humantime::parse_duration)]
    pub watch_interval: std::time::Duration,

    /// On SIGTERM, how long runs in flight (checks, scrapes, topologies,
    /// playbook runs) may take to finish before the rest is given back for
    /// another replica or the next start to take over. Keep it under the
    /// pod's termination grace period.
    #[arg(long, env = "QUARTERDECK_SHUTDOWN_GRACE", default_value = "20s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: std::time::Duration,

    /// Name of the Lease that elects the leader among replicas.
    #[arg(
        long,
        env = "QUARTERDECK_LEASE_NAME",
        default_value = "quarterdeck-operator"
    )]
    pub lease_name: String,

    /// Namespace of the Lease (the operator's own namespace in a cluster).
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub lease_namespace: String,

    /// This replica's identity in the Lease and in Events (the pod name).
    #[arg(long, env = "POD_NAME")]
    pub identity: Option<String>,

    /// How long followers wait, from the last change of the Lease they saw,
    /// before they take it over (client-go's lease duration).
    #[arg(long, env = "QUARTERDECK_LEASE_DURATION", default_value = "15s", value_parser = humantime::parse_duration)]
    pub lease_duration: std::time::Duration,

    /// How long the leader keeps leading without a successful renewal;
    /// shorter than the lease duration (default: two thirds of it).
    #[arg(long, env = "QUARTERDECK_LEASE_RENEW_DEADLINE", value_parser = humantime::parse_duration)]
    pub lease_renew_deadline: Option<std::time::Duration>,

    /// How often the leader renews the Lease and followers try to take it
    /// (client-go's retry period); shorter than the renew deadline.
    #[arg(long, env = "QUARTERDECK_LEASE_RENEW", default_value = "2s", value_parser = humantime::parse_duration)]
    pub lease_renew: std::time::Duration,

    /// How long one Lease call (get, create, replace) may take.
    #[arg(long, env = "QUARTERDECK_LEASE_CALL_TIMEOUT", default_value = "2s", value_parser = humantime::parse_duration)]
    pub lease_call_timeout: std::time::Duration,

    /// Periodic re-sync of every resource.
    #[arg(long, env = "QUARTERDECK_RESYNC", default_value = "10m", value_parser = humantime::parse_duration)]
    pub resync: std::time::Duration,

    /// How often the leader writes the results (status, uptime, latency) into
    /// the status of Kubernetes canaries whose figures changed.
    #[arg(long, env = "QUARTERDECK_CANARY_STATUS_INTERVAL", default_value = "30s", value_parser = humantime::parse_duration)]
    pub canary_status_interval: std::time::Duration,

    #[command(flatten)]
    pub checks: CheckArgs,

    #[command(flatten)]
    pub scrapes: ScrapeArgs,

    #[command(flatten)]
    pub topologies: TopologyArgs,

    #[command(flatten)]
    pub playbooks: PlaybookArgs,

    /// Open incidents from incident rules, and resolve and close them when
    /// their resource recovers, in this process (every replica takes a share).
    #[arg(long = "incident-rules", env = "QUARTERDECK_INCIDENT_RULES", default_value_t = true, action = clap::ArgAction::Set)]
    pub incident_rules: bool,

    #[command(flatten)]
    pub notifications: NotificationArgs,

    /// The keys that decrypt connections' secret values for checks.
    #[command(flatten)]
    pub connection_keys: quarterdeck_connections::keyring::KeyArgs,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub log: LogArgs,
}

/// The health check engine.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    /// Run health checks in this process (every replica takes a share).
    #[arg(long = "checks", env = "QUARTERDECK_CHECKS", default_value_t = true, action = clap::ArgAction::Set)]
    pub enabled: bool,

    /// Checks running at once in this process.
    #[arg(
        long = "check-concurrency",
        env = "QUARTERDECK_CHECK_CONCURRENCY",
        default_value_t = 200
    )]
    pub concurrency: usize,

    /// Timeout of checks whose spec sets none.
    #[arg(long = "check-timeout", env = "QUARTERDECK_CHECK_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub timeout: std::time::Duration,

    /// How long raw check results are kept.
    #[arg(long = "check-retention", env = "QUARTERDECK_CHECK_RETENTION", default_value = "7d", value_parser = humantime::parse_duration)]
    pub retention: std::time::Duration,

    /// How long hourly rollups of check results are kept (daily ones stay).
    #[arg(long = "check-hourly-retention", env = "QUARTERDECK_CHECK_HOURLY_RETENTION", default_value = "90d", value_parser = humantime::parse_duration)]
    pub hourly_retention: std::time::Duration,

    /// How often old check results are pruned.
    #[arg(long = "check-prune-every", env = "QUARTERDECK_CHECK_PRUNE_EVERY", default_value = "1h", value_parser = humantime::parse_duration)]
    pub prune_every: std::time::Duration,

    /// Database connections of the check engine, a pool of its own beside
    /// the controllers' (--db-max-connections), so neither starves the other.
    #[arg(
        long = "check-db-connections",
        env = "QUARTERDECK_CHECK_DB_CONNECTIONS",
        default_value_t = 8,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub db_connections: u32,

    /// The user scripts (exec checks) run as when the operator runs as root; never root itself.
    #[arg(
        long = "script-user",
        env = "QUARTERDECK_SCRIPT_USER",
        default_value = "nobody"
    )]
    pub script_user: String,
}

/// The scrape engine (the catalog's ScrapeConfigs).
#[derive(Debug, Clone, clap::Args)]
pub struct ScrapeArgs {
    /// Run ScrapeConfigs in this process (every replica takes a share).
    #[arg(long = "scrapes", env = "QUARTERDECK_SCRAPES", default_value_t = true, action = clap::ArgAction::Set)]
    pub scrapes: bool,

    /// ScrapeConfigs running at once in this process.
    #[arg(
        long = "scrape-concurrency",
        env = "QUARTERDECK_SCRAPE_CONCURRENCY",
        default_value_t = 4,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub scrape_concurrency: u16,

    /// Limit of a scrape whose ScrapeConfig sets no `timeout`.
    #[arg(long = "scrape-timeout", env = "QUARTERDECK_SCRAPE_TIMEOUT", default_value = "30m", value_parser = humantime::parse_duration)]
    pub scrape_timeout: std::time::Duration,

    /// How often the catalog's retention (each ScrapeConfig's `retention`) is applied.
    #[arg(long = "catalog-retention-every", env = "QUARTERDECK_CATALOG_RETENTION_EVERY", default_value = "1h", value_parser = humantime::parse_duration)]
    pub retention_every: std::time::Duration,
}

/// The topology engine (Topologies' component trees).
#[derive(Debug, Clone, clap::Args)]
pub struct TopologyArgs {
    /// Build topologies in this process (every replica takes a share).
    #[arg(long = "topologies", env = "QUARTERDECK_TOPOLOGIES", default_value_t = true, action = clap::ArgAction::Set)]
    pub topologies: bool,

    /// Topologies building at once in this process.
    #[arg(
        long = "topology-concurrency",
        env = "QUARTERDECK_TOPOLOGY_CONCURRENCY",
        default_value_t = 2,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub topology_concurrency: u16,

    /// Limit of one topology run, lookups included.
    #[arg(long = "topology-timeout", env = "QUARTERDECK_TOPOLOGY_TIMEOUT", default_value = "5m", value_parser = humantime::parse_duration)]
    pub topology_timeout: std::time::Duration,
}

/// The notification engine.
#[derive(Debug, Clone, clap::Args)]
pub struct NotificationArgs {
    /// Deliver notifications in this process (every replica takes a share of
    /// the events and of the sends).
    #[arg(long = "notifications", env = "QUARTERDECK_NOTIFICATIONS", default_value_t = true, action = clap::ArgAction::Set)]
    pub notifications: bool,

    /// The longest wait between two looks at the events and the due sends.
    #[arg(id = "notification_poll", long = "notification-poll", env = "QUARTERDECK_NOTIFICATION_POLL", default_value = "1s", value_parser = humantime::parse_duration)]
    pub poll: std::time::Duration,

    /// Attempts at a send before it is recorded as failed.
    #[arg(
        id = "notification_attempts",
        long = "notification-attempts",
        env = "QUARTERDECK_NOTIFICATION_ATTEMPTS",
        default_value_t = 4,
        value_parser = clap::value_parser!(i32).range(1..)
    )]
    pub attempts: i32,

    /// The delay before a failed send's first retry; each later one doubles it.
    #[arg(id = "notification_backoff", long = "notification-backoff", env = "QUARTERDECK_NOTIFICATION_BACKOFF", default_value = "10s", value_parser = humantime::parse_duration)]
    pub backoff: std::time::Duration,

    /// The time one send may take.
    #[arg(id = "notification_send_timeout", long = "notification-send-timeout", env = "QUARTERDECK_NOTIFICATION_SEND_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub send_timeout: std::time::Duration,

    /// Sends delivered at once per process.
    #[arg(
        id = "notification_concurrency",
        long = "notification-concurrency",
        env = "QUARTERDECK_NOTIFICATION_CONCURRENCY",
        default_value_t = 20,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub concurrency: u16,

    /// The e-mail connection (`namespace/name`) that sends to people, teams'
    /// members and e-mail addresses.
    #[arg(
        long = "notification-mail-connection",
        env = "QUARTERDECK_NOTIFICATION_MAIL_CONNECTION"
    )]
    pub mail_connection: Option<String>,
}

/// The playbook engine.
#[derive(Debug, Clone, clap::Args)]
pub struct PlaybookArgs {
    /// Run playbooks in this process (every replica takes a share).
    #[arg(long = "playbooks", env = "QUARTERDECK_PLAYBOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    pub playbooks: bool,

    /// Playbook runs running at once in this process.
    #[arg(
        id = "playbook_concurrency",
        long = "playbook-concurrency",
        env = "QUARTERDECK_PLAYBOOK_CONCURRENCY",
        default_value_t = 20,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub concurrency: u16,

    /// How long a replica holds a run it claimed without renewing it; another
    /// replica takes over (retries or fails the running action) after it.
    #[arg(long = "playbook-lease", env = "QUARTERDECK_PLAYBOOK_LEASE", default_value = "30s", value_parser = humantime::parse_duration)]
    pub lease: std::time::Duration,

    /// Start playbook runs from playbooks' `on` events (config, component,
    /// canary) and schedules in this process (every replica takes a share).
    #[arg(long = "playbook-triggers", env = "QUARTERDECK_PLAYBOOK_TRIGGERS", default_value_t = true, action = clap::ArgAction::Set)]
    pub triggers: bool,

    /// How long an event of the event queue that no consumer took is kept.
    #[arg(long = "event-queue-retention", env = "QUARTERDECK_EVENT_QUEUE_RETENTION", default_value = "1d", value_parser = humantime::parse_duration)]
    pub event_retention: std::time::Duration,

    /// How long a failed event (no attempts left) is kept after its last attempt.
    #[arg(long = "event-queue-failed-retention", env = "QUARTERDECK_EVENT_QUEUE_FAILED_RETENTION", default_value = "7d", value_parser = humantime::parse_duration)]
    pub failed_event_retention: std::time::Duration,

    /// Where `github` actions call GitHub's REST API (GitHub Enterprise
    /// Server's `https://HOST/api/v3`; tests point it at a local server).
    #[arg(
        long = "playbook-github-api",
        env = "QUARTERDECK_PLAYBOOK_GITHUB_API",
        default_value = "https://api.github.com",
        hide = true
    )]
    pub github_api: String,

    /// Where `azureDevopsPipeline` actions call Azure DevOps' REST API (an
    /// Azure DevOps Server's collection URL; tests point it at a local server).
    #[arg(
        long = "playbook-azure-devops-api",
        env = "QUARTERDECK_PLAYBOOK_AZURE_DEVOPS_API",
        default_value = "https://dev.azure.com",
        hide = true
    )]
    pub azure_devops_api: String,
}

impl Config {
    /// Which console rows a resource of the same namespace and name takes over.
    pub fn takeover(&self) -> Takeover {
        if self.adopt_console_rows {
            Takeover::Any
        } else {
            Takeover::Labelled
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        super::Config::command().debug_assert();
    }
}
