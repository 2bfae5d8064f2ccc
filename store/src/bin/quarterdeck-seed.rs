//! Seeds a test database with one fixture of `quarterdeck_store::testing` and
//! prints the ids it created as JSON, for the browser tests:
//! `quarterdeck-seed --database-url URL canary '{"name": "web", ...}'`
//! (the arguments come from standard input when not given).
#![allow(
    clippy::print_stdout,
    reason = "the ids on standard output are the answer"
)]

use std::io::Read;

use anyhow::Context;
use clap::{Parser, ValueEnum};
use quarterdeck_store::testing::{self, SpecTable};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use sqlx::postgres::PgPoolOptions;
use uuid::Uuid;

#[derive(Parser)]
#[command(about = "Seeds a Quarterdeck test database with one fixture and prints the ids as JSON")]
struct Args {
    /// The database to seed (for create-database and drop-database: any database of the server).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,

    fixture: Fixture,

    /// The fixture's arguments as JSON; read from standard input when absent.
    arguments: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Fixture {
    CreateDatabase,
    DropDatabase,
    Agent,
    Person,
    Team,
    Permission,
    AccessScopes,
    Canary,
    Component,
    ConfigItem,
    Topology,
    IncidentRule,
    Property,
    JobHistory,
    CatalogWorld,
    TopologyWorld,
    PlaybookWorld,
    NotificationWorld,
    Remove,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

#[derive(Deserialize)]
struct Team {
    name: String,
    #[serde(default)]
    members: Vec<Uuid>,
}

#[derive(Deserialize)]
struct Property {
    name: String,
    value: String,
}

#[derive(Deserialize)]
struct Remove {
    what: testing::Seeded,
    prefix: String,
}

fn parse<T: DeserializeOwned>(arguments: &str) -> anyhow::Result<T> {
    serde_json::from_str(arguments).context("the fixture's arguments")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let arguments = match args.arguments {
        Some(arguments) => arguments,
        None => {
            let mut read = String::new();
            std::io::stdin()
                .read_to_string(&mut read)
                .context("reading the arguments from standard input")?;
            read
        }
    };
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect(&args.database_url)
        .await
        .context("connecting to the database")?;
    let a = arguments.as_str();
    let answer: Value = match args.fixture {
        Fixture::CreateDatabase => {
            testing::create_database(&pool, &parse::<Named>(a)?.name).await?;
            json!({})
        }
        Fixture::DropDatabase => {
            testing::drop_database(&pool, &parse::<Named>(a)?.name).await?;
            json!({})
        }
        Fixture::Agent => json!({ "id": testing::agent(&pool, &parse::<Named>(a)?.name).await? }),
        Fixture::Person => json!({ "id": testing::person(&pool, &parse(a)?).await? }),
        Fixture::Team => {
            let team: Team = parse(a)?;
            json!({ "id": testing::team(&pool, &team.name, &team.members).await? })
        }
        Fixture::Permission => json!({ "id": testing::permission(&pool, &parse(a)?).await? }),
        Fixture::AccessScopes => {
            json!({ "ids": testing::access_scopes(&pool, &parse::<Vec<_>>(a)?).await? })
        }
        Fixture::Canary => serde_json::to_value(testing::canary(&pool, &parse(a)?).await?)?,
        Fixture::Component => json!({ "id": testing::component(&pool, &parse(a)?).await? }),
        Fixture::ConfigItem => json!({ "id": testing::config_item(&pool, &parse(a)?).await? }),
        Fixture::Topology => {
            json!({ "id": testing::spec_row(&pool, SpecTable::Topologies, &parse(a)?).await? })
        }
        Fixture::IncidentRule => {
            json!({ "id": testing::spec_row(&pool, SpecTable::IncidentRules, &parse(a)?).await? })
        }
        Fixture::Property => {
            let property: Property = parse(a)?;
            testing::property(&pool, &property.name, &property.value).await?;
            json!({})
        }
        Fixture::JobHistory => {
            json!({ "ids": testing::job_history(&pool, &parse::<Vec<_>>(a)?).await? })
        }
        Fixture::CatalogWorld => {
            serde_json::to_value(testing::catalog_world(&pool, &parse(a)?).await?)?
        }
        Fixture::TopologyWorld => {
            serde_json::to_value(testing::topology_world(&pool, &parse(a)?).await?)?
        }
        Fixture::PlaybookWorld => {
            serde_json::to_value(testing::playbook_world(&pool, &parse(a)?).await?)?
        }
        Fixture::NotificationWorld => {
            serde_json::to_value(testing::notification_world(&pool, &parse(a)?).await?)?
        }
        Fixture::Remove => {
            let remove: Remove = parse(a)?;
            json!({ "removed": testing::remove(&pool, remove.what, &remove.prefix).await? })
        }
    };
    pool.close().await;
    println!("{answer}");
    Ok(())
}
