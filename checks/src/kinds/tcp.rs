//! `tcp`: opens a TCP connection to `endpoint` (`host:port`).

use std::time::Instant;

use quarterdeck_crds::canary::TcpCheck;
use serde_json::json;
use tokio::net::TcpStream;

use super::check_threshold;
use crate::error::CheckError;
use crate::outcome::Probe;
use crate::units::millis;

pub(super) async fn probe(check: TcpCheck) -> Result<Probe, CheckError> {
    let endpoint = check
        .endpoint
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| CheckError::new("a tcp check needs an endpoint (host:port)"))?;
    let target = endpoint.trim().trim_start_matches("tcp://");
    let started = Instant::now();
    TcpStream::connect(target)
        .await
        .map_err(|e| CheckError::from_err(format!("connect to {target}"), &e))?;
    let elapsed = started.elapsed();
    let mut probe = Probe::new(
        format!("connected to {target} in {}ms", millis(elapsed)),
        json!({"endpoint": target, "connected": true, "elapsed": millis(elapsed)}),
    );
    check_threshold(&mut probe, elapsed, check.threshold_millis);
    Ok(probe)
}
