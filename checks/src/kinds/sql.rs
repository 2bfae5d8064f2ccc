//! `postgres` and `mysql`: runs `query` (default `SELECT 1`) and checks the row count.

use std::time::Instant;

use quarterdeck_crds::canary::SqlCheck;
use serde_json::json;

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::sql_rows::{mysql, postgres};
use crate::units::millis;

#[derive(Clone, Copy)]
pub(crate) enum Driver {
    Postgres,
    Mysql,
}

pub(super) async fn probe(
    driver: Driver,
    check: SqlCheck,
    resolver: &Resolver,
) -> Result<Probe, CheckError> {
    let endpoint = resolver.endpoint(&check.connection, None).await?;
    let url = endpoint.database_url(&resolver.scrubber)?;
    let query = check
        .query
        .clone()
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| "SELECT 1".to_owned());
    let started = Instant::now();
    let rows = match driver {
        Driver::Postgres => postgres(url.as_str(), &query).await?,
        Driver::Mysql => mysql(url.as_str(), &query).await?,
    };
    let elapsed = started.elapsed();

    let count = rows.len();
    let mut probe = Probe::new(
        format!("{count} rows in {}ms", millis(elapsed)),
        json!({"rows": rows, "count": count, "elapsed": millis(elapsed)}),
    );
    // 0 is the CRD's "unset".
    if let Some(expected) = check
        .results
        .and_then(|r| usize::try_from(r).ok())
        .filter(|r| *r > 0)
        && count != expected
    {
        probe.fail(format!(
            "the query returned {count} rows, expected {expected}"
        ));
    }
    if count == 0 && check.meta.mark_fail_on_empty == Some(true) {
        probe.fail("the query returned no rows");
    }
    Ok(probe)
}
