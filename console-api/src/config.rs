use std::net::SocketAddr;
use std::time::Duration;

use quarterdeck_runtime::LogArgs;
use quarterdeck_store::DatabaseArgs;

/// The default of `--chart-repository-url`.
pub const DEFAULT_CHART_REPOSITORY_URL: &str = "https://charts.quarterdeck.dev";

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

    /// Address of the Prometheus `/metrics` listener, unauthenticated and
    /// apart from the public port; when unset, no metrics are served.
    #[arg(long, env = "QUARTERDECK_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Directory of the built web console (`npm run build` in web/); when
    /// it has no index.html, only the API is served.
    #[arg(long, env = "QUARTERDECK_WEB_DIR", default_value = "web/dist")]
    pub web_dir: std::path::PathBuf,

    /// On SIGTERM, how long requests in flight (streams included) may take
    /// to finish after the listener closed; then they are cut. Keep it under
    /// the pod's termination grace period.
    #[arg(long, env = "QUARTERDECK_SHUTDOWN_GRACE", default_value = "20s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: std::time::Duration,

    #[command(flatten)]
    pub database: DatabaseArgs,

    /// Password of the admin created on first start (admin@localhost).
    /// Used only when that person does not exist yet; when unset, a random
    /// password is generated and logged once.
    #[arg(long, env = "QUARTERDECK_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,

    #[command(flatten)]
    pub auth: AuthSettings,

    /// The Helm chart repository the Add Integration previews install
    /// charts from (`helm repo add`, Flux HelmRepository).
    #[arg(long, env = "QUARTERDECK_CHART_REPOSITORY_URL", default_value = DEFAULT_CHART_REPOSITORY_URL)]
    pub chart_repository_url: String,

    #[command(flatten)]
    pub kube_proxy: KubeProxySettings,

    /// How long one health summary, or one changes search's total, is
    /// shared between callers who see the same rows (the Health page's
    /// refreshes, paging through changes); 0s computes every request.
    #[arg(long, env = "QUARTERDECK_SUMMARY_CACHE_TTL", default_value = "1s", value_parser = humantime::parse_duration)]
    pub summary_cache_ttl: Duration,

    /// How long trying a connection (`POST /api/connection/test/{id}`) may take.
    #[arg(long, env = "QUARTERDECK_CONNECTION_TEST_TIMEOUT", default_value = "15s", value_parser = humantime::parse_duration)]
    pub connection_test_timeout: Duration,

    #[command(flatten)]
    pub connection_keys: quarterdeck_connections::keyring::KeyArgs,

    #[command(flatten)]
    pub log: LogArgs,

    #[command(subcommand)]
    pub command: Option<crate::rotate_key::Command>,
}

/// Sign-in, sessions and links.
#[derive(Debug, Clone, clap::Args)]
pub struct AuthSettings {
    /// The address users reach the console at; links point there, and
    /// cookies are marked Secure when it is https.
    #[arg(
        long,
        env = "QUARTERDECK_PUBLIC_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub public_url: String,

    /// The origin security keys and passkeys work at, when not the public
    /// URL's: WebAuthn needs a domain name (not an IP address) over https,
    /// or http://localhost. Its host is the relying party ID keys are made for.
    #[arg(long, env = "QUARTERDECK_WEBAUTHN_ORIGIN")]
    pub webauthn_origin: Option<String>,

    /// How long a browser session lasts.
    #[arg(long, env = "QUARTERDECK_SESSION_LIFETIME", default_value = "24h", value_parser = humantime::parse_duration)]
    pub session_lifetime: Duration,

    /// How long a sign-in flow may take before it expires (410); also how
    /// long a single sign-on may take at the provider.
    #[arg(long, env = "QUARTERDECK_LOGIN_FLOW_LIFETIME", default_value = "15m", value_parser = humantime::parse_duration)]
    pub login_flow_lifetime: Duration,

    /// How long invitation and password-reset links stay valid.
    #[arg(long, env = "QUARTERDECK_LINK_LIFETIME", default_value = "7d", value_parser = humantime::parse_duration)]
    pub link_lifetime: Duration,

    /// How long a mailed recovery or verification code (and its flow) stays valid.
    #[arg(long, env = "QUARTERDECK_IDENTITY_CODE_LIFETIME", default_value = "15m", value_parser = humantime::parse_duration)]
    pub identity_code_lifetime: Duration,

    /// How recent a browser sign-in must be to change the password; older
    /// sessions are sent to sign in again (403 `session_refresh_required`).
    #[arg(long, env = "QUARTERDECK_PRIVILEGED_SESSION_MAX_AGE", default_value = "15m", value_parser = humantime::parse_duration)]
    pub privileged_session_max_age: Duration,

    /// Accept HTTP Basic authentication with an email and password (Basic
    /// with user `token` and bearer tokens are always accepted).
    #[arg(long, env = "QUARTERDECK_BASIC_AUTH_PASSWORDS", default_value_t = true, action = clap::ArgAction::Set)]
    pub basic_auth_passwords: bool,

    /// Failed sign-ins allowed per account from one client address within
    /// the window; the owner at another address can still sign in.
    #[arg(
        long,
        env = "QUARTERDECK_LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS",
        default_value_t = 5
    )]
    pub max_failures_per_account_address: i64,

    /// Failed sign-ins allowed per account from all addresses together
    /// within the window (against guessing spread over many addresses).
    #[arg(
        long,
        env = "QUARTERDECK_LOGIN_MAX_FAILURES_PER_ACCOUNT",
        default_value_t = 100
    )]
    pub max_failures_per_account: i64,

    /// Failed sign-ins allowed per client address within the window.
    #[arg(
        long,
        env = "QUARTERDECK_LOGIN_MAX_FAILURES_PER_ADDRESS",
        default_value_t = 20
    )]
    pub max_failures_per_address: i64,

    /// The window failed sign-ins are counted in.
    #[arg(long, env = "QUARTERDECK_LOGIN_FAILURE_WINDOW", default_value = "15m", value_parser = humantime::parse_duration)]
    pub failure_window: Duration,

    /// Take the client address from X-Forwarded-For (behind a trusted proxy only).
    #[arg(long, env = "QUARTERDECK_TRUST_PROXY_HEADERS")]
    pub trust_proxy_headers: bool,

    /// Publishes health: `/view/health` and the health summary answer
    /// visitors who are not signed in, with every live check. Off by default.
    #[arg(long, env = "QUARTERDECK_PUBLIC_HEALTH", default_value_t = false, action = clap::ArgAction::Set)]
    pub public_health: bool,

    /// How long the access token of a downloaded kubeconfig is valid.
    #[arg(long, env = "QUARTERDECK_KUBECONFIG_TOKEN_LIFETIME", default_value = "90d", value_parser = humantime::parse_duration)]
    pub kubeconfig_token_lifetime: Duration,
}

/// The Kubernetes proxy at `/kubeproxy`.
#[derive(Debug, Clone, clap::Args)]
pub struct KubeProxySettings {
    /// Serve `/kubeproxy` when a cluster is found (in-cluster service
    /// account, `KUBECONFIG` or `~/.kube/config`).
    #[arg(long = "kube-proxy", env = "QUARTERDECK_KUBE_PROXY", default_value_t = true, action = clap::ArgAction::Set)]
    pub enabled: bool,

    /// Kubernetes user impersonated for callers with read on kubernetes-proxy.
    #[arg(
        long = "kube-proxy-reader-user",
        env = "QUARTERDECK_KUBE_PROXY_READER_USER",
        default_value = "quarterdeck-reader"
    )]
    pub reader_user: String,

    /// Kubernetes user impersonated for callers with update on kubernetes-proxy.
    #[arg(
        long = "kube-proxy-writer-user",
        env = "QUARTERDECK_KUBE_PROXY_WRITER_USER",
        default_value = "quarterdeck-writer"
    )]
    pub writer_user: String,
}

impl Default for KubeProxySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            reader_user: "quarterdeck-reader".into(),
            writer_user: "quarterdeck-writer".into(),
        }
    }
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            public_url: "http://127.0.0.1:8080".into(),
            webauthn_origin: None,
            session_lifetime: Duration::from_secs(24 * 3600),
            login_flow_lifetime: Duration::from_secs(15 * 60),
            link_lifetime: Duration::from_secs(7 * 24 * 3600),
            identity_code_lifetime: Duration::from_secs(15 * 60),
            privileged_session_max_age: Duration::from_secs(15 * 60),
            basic_auth_passwords: true,
            max_failures_per_account_address: 5,
            max_failures_per_account: 100,
            max_failures_per_address: 20,
            failure_window: Duration::from_secs(15 * 60),
            trust_proxy_headers: false,
            kubeconfig_token_lifetime: Duration::from_secs(90 * 24 * 3600),
            public_health: false,
        }
    }
}

impl AuthSettings {
    pub fn secure_cookies(&self) -> bool {
        self.public_url.starts_with("https://")
    }

    /// Whom security keys are made for; why they cannot be used when the
    /// console's origin does not allow them.
    pub fn relying_party(&self) -> Result<crate::webauthn::RelyingParty, String> {
        crate::webauthn::RelyingParty::of_origin(
            self.webauthn_origin.as_deref().unwrap_or(&self.public_url),
        )
    }

    /// The failed sign-in limits.
    pub fn login_limits(&self) -> quarterdeck_store::login::Limits {
        quarterdeck_store::login::Limits {
            per_account_address: self.max_failures_per_account_address,
            per_account: self.max_failures_per_account,
            per_address: self.max_failures_per_address,
            window: self.failure_window,
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
