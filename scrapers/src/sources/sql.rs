//! Source type `sql`: runs `query` on the database `connection` names (a
//! `connection://namespace/name` or a URL, `$(username)`/`$(password)` filled
//! from `username`/`password`) and gives one item per row, the row as a JSON
//! object: the checks' row conversion for PostgreSQL and MySQL/MariaDB, the
//! connections crate's TDS client (`quarterdeck_connections::mssql`) for SQL Server.

use std::time::Duration;

use quarterdeck_checks::sql_rows;
use quarterdeck_connections::mssql::{self, AddressCredentials, Client, Target};
use quarterdeck_crds::common::EnvVar;
use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use super::credentials::{connection, env_var, scrub};
use crate::model::{RawItem, ScrapeError, SourceOutput};
use crate::run::Context;

/// One entry of a ScrapeConfig's `sql` list (the common fields are the pipeline's).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SqlSpec {
    connection: Option<String>,
    url: Option<String>,
    driver: Option<String>,
    #[serde(default)]
    query: String,
    username: Option<EnvVar>,
    password: Option<EnvVar>,
    /// Mission Control's form of the credentials (`auth: {username, password}`).
    #[serde(default)]
    auth: Auth,
}

#[derive(Debug, Default, Deserialize)]
struct Auth {
    username: Option<EnvVar>,
    password: Option<EnvVar>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Driver {
    Postgres,
    Mysql,
    SqlServer,
}

impl Driver {
    fn named(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" | "pgx" => Some(Self::Postgres),
            "mysql" | "mariadb" => Some(Self::Mysql),
            "sqlserver" | "mssql" => Some(Self::SqlServer),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::Mysql => "mysql",
            Self::SqlServer => "sqlserver",
        }
    }
}

pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    let spec = SqlSpec::deserialize(spec).map_err(|e| spec_error("sql", e.to_string()))?;
    if spec.query.trim().is_empty() {
        return Err(spec_error("query", "a sql scraper needs a query".into()));
    }
    let mut secrets = Vec::new();
    let (url, mut username, mut password) = target(ctx, &spec).await?;
    secrets.extend(password.clone());
    if let Some(var) = spec.username.as_ref().or(spec.auth.username.as_ref()) {
        username = Some(env_var(ctx, var).await?);
    }
    if let Some(var) = spec.password.as_ref().or(spec.auth.password.as_ref()) {
        let value = env_var(ctx, var).await?;
        secrets.push(value.clone());
        password = Some(value);
    }
    let driver = driver(&spec, &url)?;
    if driver == Driver::SqlServer {
        return sql_server(ctx, &url, &spec.query, username, password, secrets).await;
    }
    let url = database_url(&url, username.as_deref(), password.as_deref())
        .map_err(|message| spec_error("connection", message))?;
    if let Some(password) = url.password() {
        secrets.push(password.to_owned());
    }
    let scrubbed = |text: &str| scrub(text, secrets.iter().map(String::as_str));
    let server = format!(
        "{}:{}",
        url.host_str().unwrap_or("localhost"),
        url.port()
            .map_or_else(|| default_port(driver).to_string(), |p| p.to_string())
    );
    let rows = within(
        ctx.timeout,
        driver,
        &server,
        query(driver, &url, &spec.query),
    )
    .await
    .map_err(|e| match e {
        ScrapeError::Source(message) => ScrapeError::Source(scrubbed(&message)),
        other => other,
    })?;
    Ok(one_item_per_row(rows, driver, &server))
}

fn one_item_per_row(rows: Vec<Map<String, Value>>, driver: Driver, server: &str) -> SourceOutput {
    let source = format!("{} {server}", driver.name());
    SourceOutput {
        items: rows
            .into_iter()
            .map(|row| RawItem {
                config: Value::Object(row),
                source: Some(source.clone()),
                ..RawItem::default()
            })
            .collect(),
        errors: Vec::new(),
    }
}

/// The driver `driver` names, else the one the address's scheme names (`jdbc:` aside).
fn driver(spec: &SqlSpec, address: &str) -> Result<Driver, ScrapeError> {
    if let Some(name) = spec.driver.as_deref().filter(|d| !d.trim().is_empty()) {
        return Driver::named(name).ok_or_else(|| unknown_driver(name));
    }
    let address = address.trim();
    let address = address.strip_prefix("jdbc:").unwrap_or(address);
    let scheme = match address.split_once("://") {
        Some((scheme, _)) => scheme.to_ascii_lowercase(),
        None => Url::parse(address)
            .map_err(|e| spec_error("connection", format!("invalid URL: {e}")))?
            .scheme()
            .to_owned(),
    };
    Driver::named(&scheme).ok_or_else(|| {
        spec_error(
            "driver",
            format!(
                "the URL's scheme {scheme:?} names no driver: set driver to postgres, mysql or sqlserver"
            ),
        )
    })
}

fn unknown_driver(name: &str) -> ScrapeError {
    spec_error(
        "driver",
        format!("unknown driver {name:?}: use postgres, mysql or sqlserver"),
    )
}

/// SQL Server through the TDS client: the address's own credentials, else
/// the connection's or the spec's; `trustServerCertificate=true` in the
/// address accepts a self-signed certificate.
async fn sql_server(
    ctx: &Context,
    address: &str,
    sql: &str,
    username: Option<String>,
    password: Option<String>,
    mut secrets: Vec<String>,
) -> Result<SourceOutput, ScrapeError> {
    let is_url = address.contains("://");
    let fill = |text: Option<&str>| {
        let text = text.unwrap_or_default();
        if is_url {
            percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        } else {
            text.to_owned()
        }
    };
    let address = address
        .replace("$(username)", &fill(username.as_deref()))
        .replace("$(password)", &fill(password.as_deref()));
    let address_error = |e: mssql::Error| spec_error("connection", e.to_string());
    let target = Target::parse(&address).map_err(address_error)?;
    let own = AddressCredentials::parse(&address).map_err(address_error)?;
    let username = own
        .username
        .or(username)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| {
            spec_error(
                "connection",
                "SQL Server needs a username: in the connection, the URL or username".into(),
            )
        })?;
    let password = own.password.or(password).unwrap_or_default();
    secrets.push(password.clone());
    let server = format!("{}:{}", target.host, target.port);
    let rows = within(ctx.timeout, Driver::SqlServer, &server, async {
        let mut client = Client::connect(&target, &username, &password, false, ctx.timeout)
            .await
            .map_err(mssql_error)?;
        client.query(sql).await.map_err(mssql_error)
    })
    .await
    .map_err(|e| match e {
        ScrapeError::Source(message) => {
            ScrapeError::Source(scrub(&message, secrets.iter().map(String::as_str)))
        }
        other => other,
    })?;
    Ok(one_item_per_row(rows, Driver::SqlServer, &server))
}

fn mssql_error(e: mssql::Error) -> ScrapeError {
    match e {
        mssql::Error::Timeout { after, during } => {
            ScrapeError::Timeout(format!("{} {during}", humantime::format_duration(after)))
        }
        other => ScrapeError::Source(other.to_string()),
    }
}

/// The URL and credentials of `connection` (or `url`): a named connection's, or the URL given.
async fn target(
    ctx: &Context,
    spec: &SqlSpec,
) -> Result<(String, Option<String>, Option<String>), ScrapeError> {
    let given = spec
        .connection
        .as_deref()
        .or(spec.url.as_deref())
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| spec_error("connection", "a sql scraper needs a connection".into()))?;
    // A SQL Server address need not parse as a URL (`host:1433;database=db`,
    // `Server=…;Database=…`); connection names hold neither `://` nor `=`.
    let is_url = Url::parse(given).is_ok_and(|u| u.scheme() != "connection")
        || given
            .split_once("://")
            .is_some_and(|(scheme, _)| scheme != "connection")
        || given.contains('=');
    if is_url {
        return Ok((given.to_owned(), None, None));
    }
    let named = connection(ctx, given).await?;
    let url = named
        .url
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| ScrapeError::Source(format!("connection {given:?} has no URL")))?;
    Ok((url, named.username, named.password))
}

/// The URL with `$(username)` / `$(password)` filled in, or the credentials set
/// as its user info when it has none (as the checks do).
fn database_url(raw: &str, username: Option<&str>, password: Option<&str>) -> Result<Url, String> {
    let templated = raw.contains("$(username)") || raw.contains("$(password)");
    let encode = |text: Option<&str>| {
        percent_encoding::utf8_percent_encode(
            text.unwrap_or_default(),
            percent_encoding::NON_ALPHANUMERIC,
        )
        .to_string()
    };
    let text = raw
        .replace("$(username)", &encode(username))
        .replace("$(password)", &encode(password));
    let mut url = Url::parse(&text).map_err(|e| format!("invalid URL: {e}"))?;
    if !templated {
        if let Some(user) = username.filter(|u| !u.is_empty() && url.username().is_empty()) {
            url.set_username(user)
                .map_err(|()| "the URL cannot carry a username".to_owned())?;
        }
        if let Some(password) = password.filter(|_| url.password().is_none()) {
            url.set_password(Some(password))
                .map_err(|()| "the URL cannot carry a password".to_owned())?;
        }
    }
    Ok(url)
}

async fn query(
    driver: Driver,
    url: &Url,
    sql: &str,
) -> Result<Vec<Map<String, Value>>, ScrapeError> {
    // SQL Server has its own path (`sql_server`) before a URL is parsed.
    let rows = if driver == Driver::Mysql {
        sql_rows::mysql(url.as_str(), sql).await
    } else {
        sql_rows::postgres(url.as_str(), sql).await
    };
    rows.map_err(|e| ScrapeError::Source(e.to_string()))
}

async fn within<T>(
    limit: Duration,
    driver: Driver,
    server: &str,
    work: impl Future<Output = Result<T, ScrapeError>>,
) -> Result<T, ScrapeError> {
    tokio::time::timeout(limit, work).await.map_err(|_| {
        ScrapeError::Timeout(format!(
            "{} querying {} at {server}",
            humantime::format_duration(limit),
            driver.name()
        ))
    })?
}

fn default_port(driver: Driver) -> u16 {
    match driver {
        Driver::Postgres => 5432,
        Driver::Mysql => 3306,
        Driver::SqlServer => 1433,
    }
}

fn spec_error(field: &str, message: String) -> ScrapeError {
    ScrapeError::Spec {
        field: field.into(),
        message,
    }
}
