//! One struct per connection type, its fields read typed from their text
//! values, and `ConnectionType`, the list of them. The table below is the one
//! place a type's fields are written: the form, the validation at save, where
//! each value is stored and the console's generated catalogue all come from it.
//!
//! A field's key is a column (`url`, `username`, `password`, `certificate`,
//! `insecureTls`) or else a property. `String` and the numbers are required
//! (a default fills them when left empty), `Option`s and `bool` are optional;
//! `u16` is a port (1..65535), `u32` a whole number of 0 or more.

use std::collections::BTreeMap;

use crate::catalogue::{Field, FromField, Kind};
use crate::form::FieldErrors;

/// A type's values as text by field key: what a form sent, or what a stored
/// or resolved connection holds (secrets present, in whatever form).
pub type Values = BTreeMap<String, String>;

fn read<T: FromField>(field: &Field, values: &Values, errors: &mut FieldErrors) -> T {
    match T::from_field(field, values.get(field.key).map(String::as_str)) {
        Ok(value) => value,
        Err(message) => {
            errors.insert(field.key, message);
            T::default()
        }
    }
}

macro_rules! opt {
    () => {
        None
    };
    ($value:expr) => {
        Some($value)
    };
}

macro_rules! field {
    ($key:literal, $ty:ty, $kind:ident, $label:literal, $(default $default:literal)?
     $(options [$($option:literal),*])? $(help $help:literal)? $(multiline $multiline:literal)?) => {
        &Field {
            key: $key,
            label: $label,
            kind: Kind::$kind,
            required: <$ty as FromField>::REQUIRED,
            default: opt!($($default)?),
            options: &[$($($option),*)?],
            help: opt!($($help)?),
            multiline: matches!(opt!($($multiline)?), Some(true)),
            bounds: <$ty as FromField>::BOUNDS,
        }
    };
}

macro_rules! connection_types {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $id:literal $title:literal [$($flag:ident)?] {
            $($key:literal $field:ident: $ty:ty = $kind:ident $label:literal $({ $($extra:tt)* })?;)*
        }
    )*) => {
        $(
            $(#[doc = $doc])*
            #[derive(Debug, Clone, Default, PartialEq, Eq)]
            pub struct $variant {
                $(pub $field: $ty,)*
            }

            impl $variant {
                pub const FIELDS: &'static [Field] =
                    &[$(*field!($key, $ty, $kind, $label, $($($extra)*)?),)*];

                /// The typed values, or every field's error.
                #[allow(unused_variables, unused_mut)]
                pub fn parse(values: &Values) -> Result<Self, FieldErrors> {
                    let mut errors = FieldErrors::default();
                    let parsed = Self {
                        $($field: read(field!($key, $ty, $kind, $label, $($($extra)*)?), values, &mut errors),)*
                    };
                    if errors.is_empty() { Ok(parsed) } else { Err(errors) }
                }
            }
        )*

        /// Every connection type.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ConnectionType {
            $($variant,)*
        }

        impl ConnectionType {
            /// Every type, sorted by title as the console lists them.
            pub const ALL: &'static [ConnectionType] = &[$(Self::$variant,)*];

            /// The type's id, the `type` column.
            pub const fn id(self) -> &'static str {
                match self { $(Self::$variant => $id,)* }
            }

            /// The human title.
            pub const fn title(self) -> &'static str {
                match self { $(Self::$variant => $title,)* }
            }

            /// A type that only sends notifications.
            pub const fn notification_only(self) -> bool {
                match self { $(Self::$variant => flag!(notification $($flag)?),)* }
            }

            /// Hidden from the list of types to add (JMeter).
            pub const fn hidden(self) -> bool {
                match self { $(Self::$variant => flag!(hidden $($flag)?),)* }
            }

            /// The form's fields, in order.
            pub const fn fields(self) -> &'static [Field] {
                match self { $(Self::$variant => $variant::FIELDS,)* }
            }

            /// Checks `values` as this type's struct reads them.
            pub fn check(self, values: &Values) -> Result<(), FieldErrors> {
                match self { $(Self::$variant => $variant::parse(values).map(drop),)* }
            }
        }
    };
}

macro_rules! flag {
    (notification notification) => {
        true
    };
    (hidden hidden) => {
        true
    };
    ($wanted:ident $($flag:ident)?) => {
        false
    };
}

impl ConnectionType {
    /// The type with this id.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.id() == id)
    }

    /// A notification type whose `url` the model builds from its fields.
    pub fn has_composite_url(self) -> bool {
        self.notification_only() && self != Self::GenericWebhook
    }

    /// The keys of the values kept encrypted at rest: the secret fields, and
    /// the composite URL, which holds tokens.
    pub fn encrypted_keys(self) -> impl Iterator<Item = &'static str> {
        let url = self.has_composite_url().then_some("url");
        self.fields()
            .iter()
            .filter(|field| field.is_secret())
            .map(|field| field.key)
            .chain(url)
    }
}

connection_types! {
    Anthropic "anthropic" "Anthropic" [] {
        "url" url: Option<String> = Text "Base URL";
        "password" api_key: String = Secret "API Key";
        "model" model: Option<String> = Text "Model";
    }
    Aws "aws" "AWS" [] {
        "url" endpoint: Option<String> = Text "Endpoint";
        "region" region: Option<String> = Text "Region";
        "profile" profile: Option<String> = Text "Profile";
        "username" access_key: Option<String> = Secret "Access Key";
        "password" secret_key: Option<String> = Secret "Secret Key";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Azure "azure" "Azure" [] {
        "username" client_id: String = Text "Client ID";
        "password" client_secret: String = Secret "Client Secret";
        "tenantId" tenant_id: String = Text "Tenant ID";
    }
    AzureDevops "azure_devops" "Azure DevOps" [] {
        "organization" organization: String = Text "Organization";
        "password" token: String = Secret "Personal Access Token";
    }
    Discord "discord" "Discord" [notification] {
        "webhookId" webhook_id: String = Text "Webhook ID";
        "password" token: String = Secret "Token";
    }
    Dynatrace "dynatrace" "Dynatrace" [] {
        "url" host: String = Text "Host";
        "password" api_key: String = Secret "API Key";
        "scheme" scheme: String = Select "Scheme" { default "https" options ["https", "http"] };
    }
    Elasticsearch "elasticsearch" "Elasticsearch" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Email "email" "Email" [notification] {
        "host" host: String = Text "Host";
        "port" port: u16 = Number "Port" { default "587" };
        "from" from: String = Text "From Address";
        "fromName" from_name: String = Text "From Name";
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
        "encryption" encryption: String = Select "Encryption Method" { default "Auto" options ["None", "ExplicitTLS", "ImplicitTLS", "Auto"] };
        "auth" auth: String = Select "SMTP Auth Method" { default "Unknown" options ["None", "Plain", "CRAMMD5", "Unknown", "OAuth2"] };
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Folder "folder" "Folder" [] {
        "url" path: String = Text "Path";
    }
    GenericWebhook "generic_webhook" "Generic Webhook" [notification] {
        "url" url: String = Text "URL";
        "contentType" content_type: String = Text "Content Type" { default "application/json" };
        "method" method: String = Select "Request Method" { default "POST" options ["POST", "GET"] };
        "messageKey" message_key: String = Text "Message Key" { default "message" };
        "titleKey" title_key: String = Text "Title Key" { default "title" };
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Git "git" "Git" [] {
        "url" url: String = Text "URL";
        "auth" auth: String = Select "Authentication" {
            default "basic" options ["basic", "ssh"]
            help "Basic uses the username and password, SSH the private key"
        };
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
        "certificate" ssh_key: Option<String> = Secret "SSH Private Key" { multiline true };
        "ref" reference: String = Text "Ref" { default "main" };
    }
    Github "github" "GitHub" [] {
        "url" url: Option<String> = Text "API URL";
        "password" token: String = Secret "Personal Access Token";
    }
    Gitlab "gitlab" "GitLab" [] {
        "url" url: Option<String> = Text "API URL";
        "password" token: String = Secret "Personal Access Token";
    }
    GoogleChat "google_chat" "Google Chat" [notification] {
        "webhookName" webhook_name: String = Text "Webhook Name" { help "The space's id, as in spaces/<id>" };
        "key" key: String = Secret "Key";
        "password" token: String = Secret "Token";
    }
    GoogleCloud "google_cloud" "Google Cloud" [] {
        "url" endpoint: String = Text "Endpoint";
        "certificate" credentials: String = Secret "Credentials" { help "The service account's JSON key" multiline true };
    }
    Gcs "gcs" "Google Cloud Storage" [] {
        "url" endpoint: String = Text "Endpoint";
        "certificate" credentials: String = Secret "Credentials" { help "The service account's JSON key" multiline true };
    }
    Http "http" "HTTP" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Ifttt "ifttt" "IFTTT" [notification] {
        "password" webhook_id: String = Secret "Webhook ID";
    }
    Jmeter "jmeter" "JMeter" [hidden] {
        "url" host: String = Text "Host";
        "port" port: Option<u16> = Number "Port";
    }
    Kubernetes "kubernetes" "Kubernetes" [] {
        "certificate" kubeconfig: Option<String> = Secret "Kubeconfig" { help "Left empty, the cluster Quarterdeck runs in" multiline true };
    }
    Ldap "ldap" "LDAP" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Matrix "matrix" "Matrix" [notification] {
        "host" host: String = Text "Host";
        "username" user: Option<String> = Text "User";
        "password" password: String = Secret "Password or Access Token";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Mattermost "mattermost" "Mattermost" [notification] {
        "host" host: String = Text "Host";
        "username" username: Option<String> = Text "Username";
        "password" token: String = Secret "Token";
        "channel" channel: Option<String> = Text "Channel";
    }
    Teams "teams" "Microsoft Teams" [notification] {
        "group" group: Option<String> = Text "Group";
        "tenant" tenant: String = Text "Tenant";
        "altId" alt_id: String = Text "Alt ID";
        "groupOwner" group_owner: String = Text "Group Owner";
        "host" host: String = Text "Host" { default "outlook.office.com" };
    }
    Mongo "mongo" "MongoDB" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Mysql "mysql" "MySQL" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
    }
    Ntfy "ntfy" "Ntfy" [notification] {
        "host" host: String = Text "Host" { default "ntfy.sh" };
        "topic" topic: String = Text "Topic";
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS" { help "Use http instead of https" };
    }
    Ollama "ollama" "Ollama" [] {
        "url" url: String = Text "URL";
        "password" api_key: String = Secret "API Key";
        "model" model: Option<String> = Text "Model";
    }
    Openai "openai" "OpenAI" [] {
        "url" url: Option<String> = Text "URL";
        "password" api_key: String = Secret "API Key";
        "model" model: Option<String> = Text "Model";
    }
    Opsgenie "opsgenie" "OpsGenie" [notification] {
        "host" host: String = Text "Host" { default "api.opsgenie.com" };
        "port" port: u16 = Number "Port" { default "443" };
        "password" api_key: String = Secret "API Key";
    }
    Postgres "postgres" "PostgreSQL" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
    }
    Prometheus "prometheus" "Prometheus" [] {
        "url" url: String = Text "URL";
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Pushbullet "pushbullet" "Pushbullet" [notification] {
        "password" token: String = Secret "Token";
        "targets" targets: String = Text "Targets" { help "Devices, #channels or e-mail addresses, separated by commas" };
    }
    Pushover "pushover" "Pushover" [notification] {
        "username" user: String = Text "User";
        "password" token: String = Secret "Token";
    }
    Redis "redis" "Redis" [] {
        "url" url: String = Text "URL";
        "db" db: u32 = Number "Database";
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Restic "restic" "Restic" [] {
        "url" repository: String = Text "Repository URL";
        "password" password: String = Secret "Password";
        "awsConnectionName" aws_connection_name: String = Text "AWS Connection Name";
        "username" access_key: String = Secret "Access Key";
        "secretKey" secret_key: String = Secret "Secret Key";
    }
    Rocketchat "rocketchat" "Rocket.Chat" [notification] {
        "host" host: String = Text "Host";
        "port" port: u16 = Number "Port";
        "username" username: Option<String> = Text "Username";
        "tokenA" token_a: String = Secret "Token A";
        "password" token_b: String = Secret "Token B";
        "channel" channel: String = Text "Channel";
    }
    S3 "s3" "S3" [] {
        "bucket" bucket: String = Text "Bucket";
        "url" endpoint: Option<String> = Text "Endpoint";
        "region" region: Option<String> = Text "Region";
        "profile" profile: Option<String> = Text "Profile";
        "username" access_key: Option<String> = Secret "Access Key";
        "password" secret_key: Option<String> = Secret "Secret Key";
        "insecureTls" insecure_tls: bool = Boolean "Insecure TLS";
    }
    Sftp "sftp" "SFTP" [] {
        "url" host: String = Text "Host";
        "port" port: u16 = Number "Port" { default "22" };
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
    }
    Slack "slack" "Slack" [notification] {
        "channel" channel: String = Text "Channel";
        "password" token: String = Secret "Bot Token";
        "botName" bot_name: Option<String> = Text "Bot Name";
    }
    Smb "smb" "SMB" [] {
        "url" server: String = Text "Server";
        "port" port: u16 = Number "Port" { default "445" };
        "share" share: String = Text "Share";
        "username" username: Option<String> = Text "Username";
        "password" password: Option<String> = Secret "Password";
    }
    SqlServer "sql_server" "SQL Server" [] {
        "url" url: String = Text "URL";
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
    }
    Telegram "telegram" "Telegram" [notification] {
        "password" token: String = Secret "Token";
        "chats" chats: String = Text "Chats" { help "Chat ids or @channels, separated by commas" };
    }
    Windows "windows" "Windows" [] {
        "username" username: String = Text "Username";
        "password" password: String = Secret "Password";
        "domain" domain: Option<String> = Text "Domain";
    }
    ZulipChat "zulip_chat" "Zulip" [notification] {
        "host" host: String = Text "Host";
        "username" bot_email: Option<String> = Text "Bot E-mail";
        "password" bot_key: String = Secret "Bot Key";
    }
}
