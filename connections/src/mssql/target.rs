//! Where to sign in, from the address forms people paste.

use super::Error;

/// `sqlserver://host:port;database=db`, `sqlserver://host:1433/db`,
/// `jdbc:sqlserver://…;databaseName=db`, `host,port`, and
/// `Server=tcp:host,port;Database=db;…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub database: Option<String>,
    pub trust_server_certificate: bool,
}

/// The credentials an address itself carries: `user:password@` in a URL, or
/// `User ID=`/`Password=` in a connection string. Deliberately not `Debug`.
#[derive(Default)]
pub struct AddressCredentials {
    pub username: Option<String>,
    pub password: Option<String>,
}

impl Target {
    pub fn parse(raw: &str) -> Result<Self, Error> {
        let Split {
            server,
            params,
            path_database,
            ..
        } = split(raw)?;
        let address = server.strip_prefix("tcp:").unwrap_or(&server);
        let (host, port) = match address.rsplit_once([',', ':']) {
            Some((host, port)) => (
                host,
                Some(
                    port.trim()
                        .parse::<u16>()
                        .map_err(|_| invalid("the port is not a number"))?,
                ),
            ),
            None => (address, None),
        };
        let (host, instance) = match host.split_once('\\') {
            Some((host, instance)) => (host, Some(instance)),
            None => (host, None),
        };
        let port = match (port, instance) {
            (Some(port), _) => port,
            (None, Some(_)) => {
                return Err(invalid(
                    "a named instance needs its port (host:port): finding it through the SQL Server Browser is not supported",
                ));
            }
            (None, None) => 1433,
        };
        let host = host.trim();
        if host.is_empty() {
            return Err(invalid("no host"));
        }
        let param = |names: &[&str]| param(&params, names);
        let database = param(&["database", "databasename", "initial catalog"])
            .or(path_database)
            .filter(|db| !db.is_empty());
        let trust_server_certificate = param(&["trustservercertificate"])
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "1"));
        Ok(Self {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            database,
            trust_server_certificate,
        })
    }
}

impl AddressCredentials {
    /// What `raw` says; a URL's user info is percent-decoded.
    pub fn parse(raw: &str) -> Result<Self, Error> {
        let split = split(raw)?;
        let decode = |text: &str| {
            percent_encoding::percent_decode_str(text)
                .decode_utf8_lossy()
                .into_owned()
        };
        let (user_info_name, user_info_password) = match split.user_info.as_deref() {
            Some(info) => match info.split_once(':') {
                Some((name, password)) => (Some(decode(name)), Some(decode(password))),
                None => (Some(decode(info)), None),
            },
            None => (None, None),
        };
        Ok(Self {
            username: user_info_name
                .or_else(|| param(&split.params, &["user id", "uid", "user", "username"]))
                .filter(|u| !u.is_empty()),
            password: user_info_password.or_else(|| param(&split.params, &["password", "pwd"])),
        })
    }
}

struct Split {
    server: String,
    params: Vec<(String, String)>,
    path_database: Option<String>,
    user_info: Option<String>,
}

fn split(raw: &str) -> Result<Split, Error> {
    let raw = raw.trim();
    let raw = raw.strip_prefix("jdbc:").unwrap_or(raw);
    let (server, params) = if let Some((_, rest)) = raw.split_once("://") {
        let mut parts = rest.split([';', '?', '&']);
        let authority = parts.next().unwrap_or_default();
        (authority.to_owned(), pairs(parts))
    } else if raw.contains('=') {
        let params = pairs(raw.split(';'));
        let server = params
            .iter()
            .find(|(k, _)| {
                matches!(
                    k.as_str(),
                    "server" | "data source" | "address" | "addr" | "network address"
                )
            })
            .map(|(_, v)| v.clone())
            .ok_or_else(|| invalid("no Server= in the connection string"))?;
        (server, params)
    } else {
        (raw.to_owned(), Vec::new())
    };
    let (user_info, server) = match server.rsplit_once('@') {
        Some((info, server)) => (Some(info.to_owned()), server.to_owned()),
        None => (None, server),
    };
    let (server, path_database) = match server.split_once('/') {
        Some((address, db)) => (
            address.to_owned(),
            Some(db.to_owned()).filter(|db| !db.is_empty()),
        ),
        None => (server, None),
    };
    Ok(Split {
        server,
        params,
        path_database,
        user_info,
    })
}

fn param(params: &[(String, String)], names: &[&str]) -> Option<String> {
    params
        .iter()
        .find(|(k, _)| names.contains(&k.as_str()))
        .map(|(_, v)| v.clone())
}

/// `key=value` parameters, keys lowercased.
fn pairs<'a>(parts: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    parts
        .filter_map(|part| part.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect()
}

/// Never echoes the address itself: it may hold a password.
fn invalid(message: &str) -> Error {
    Error::Address(message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_common_address_forms() {
        let t = |raw: &str| Target::parse(raw).unwrap();
        let with = |host: &str, port, db: Option<&str>, trust| Target {
            host: host.into(),
            port,
            database: db.map(str::to_owned),
            trust_server_certificate: trust,
        };
        assert_eq!(
            t("sqlserver://db.example:1444;database=sales"),
            with("db.example", 1444, Some("sales"), false)
        );
        assert_eq!(
            t("sqlserver://db.example/sales"),
            with("db.example", 1433, Some("sales"), false)
        );
        assert_eq!(
            t("jdbc:sqlserver://db.example:1433;databaseName=sales;trustServerCertificate=true"),
            with("db.example", 1433, Some("sales"), true)
        );
        assert_eq!(t("db.example,1500"), with("db.example", 1500, None, false));
        assert_eq!(
            t("Server=tcp:db.example,1433;Initial Catalog=sales;User ID=x;Password=y"),
            with("db.example", 1433, Some("sales"), false)
        );
        assert_eq!(
            t("sqlserver://sa:secret@db.example:1433?database=sales&TrustServerCertificate=yes"),
            with("db.example", 1433, Some("sales"), true)
        );
        let named = Target::parse(r"db.example\SQLEXPRESS").unwrap_err();
        assert!(named.to_string().contains("named instance"), "{named}");
    }

    #[test]
    fn reads_the_credentials_an_address_carries() {
        let c = AddressCredentials::parse("sqlserver://sa:p%40ss%3Bw@db.example:1433").unwrap();
        assert_eq!(c.username.as_deref(), Some("sa"));
        assert_eq!(c.password.as_deref(), Some("p@ss;w"));
        let c = AddressCredentials::parse("Server=db.example;User ID=app;Password=y").unwrap();
        assert_eq!(c.username.as_deref(), Some("app"));
        assert_eq!(c.password.as_deref(), Some("y"));
        let c = AddressCredentials::parse("sqlserver://db.example/sales").unwrap();
        assert!(c.username.is_none() && c.password.is_none());
    }
}
