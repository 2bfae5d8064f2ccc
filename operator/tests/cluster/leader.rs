//! Two replicas and a real Lease: failover when the leader dies, a leader cut
//! off from the API server stepping down before its lease expires, its fence
//! refused once the standby took over, a brief outage that does not end a
//! term, and the check engines of both replicas sharing the slots.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{DeleteParams, PostParams};
use kube::{Api, Client};
use quarterdeck_crds::Canary;
use quarterdeck_store::crd::{self, ApplyError, Row, Table, Takeover, Value};
use quarterdeck_store::fence::Fence;
use serde_json::json;
use sqlx::PgPool;
use tokio::net::{TcpListener, TcpStream};

use crate::harness::{Cluster, LEASE_DURATION, Operator, SERIAL, eventually, live};

fn canary(ns: &str, name: &str) -> Canary {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"schedule": "@every 1s", "http": [{"name": name, "url": "http://127.0.0.1:9/"}]},
    }))
    .expect("a Canary")
}

async fn holder(cluster: &Cluster) -> (Option<String>, i32) {
    let leases: Api<Lease> = Api::namespaced(cluster.admin.clone(), &cluster.ns);
    let spec = leases
        .get(&cluster.service_account())
        .await
        .expect("the Lease")
        .spec
        .unwrap_or_default();
    (spec.holder_identity, spec.lease_transitions.unwrap_or(0))
}

/// Whether the row of the canary `name` is live.
async fn canary_live(pool: &PgPool, ns: &str, name: &str) -> bool {
    sqlx::query_scalar(
        "SELECT count(*) > 0 FROM canaries WHERE namespace = $1 AND name = $2 AND deleted_at IS NULL",
    )
    .bind(ns)
    .bind(name)
    .fetch_one(pool)
    .await
    .expect("canary row")
}

/// The holder and generation of the fence of `lease`.
async fn leadership(pool: &PgPool, lease: &str) -> (String, i64) {
    sqlx::query_as("SELECT holder, generation FROM operator_leadership WHERE lease = $1")
        .bind(lease)
        .fetch_one(pool)
        .await
        .expect("the fence was taken")
}

async fn canary_id(pool: &PgPool, ns: &str, name: &str) -> uuid::Uuid {
    sqlx::query_scalar("SELECT id FROM canaries WHERE namespace = $1 AND name = $2")
        .bind(ns)
        .bind(name)
        .fetch_one(pool)
        .await
        .expect("canary id")
}

async fn delete_and_wait(canaries: &Api<Canary>, pool: &PgPool, ns: &str, name: &str) {
    canaries
        .delete(name, &DeleteParams::default())
        .await
        .expect("delete");
    eventually(&format!("{name} gone with its row"), || async {
        canaries.get_opt(name).await.expect("get").is_none() && !canary_live(pool, ns, name).await
    })
    .await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_standby_takes_over_within_the_lease_duration(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("failover").await;
    let ns = cluster.ns.as_str();
    let client = cluster.operator_client().await;
    let start = |identity: &str| {
        Operator::start(client.clone(), pool.clone(), cluster.config(identity, "1s"))
            .with_checks(client.clone(), pool.clone())
    };
    let first = start("first");
    eventually("a leader", || async { first.leads() }).await;
    let second = start("second");
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    canaries
        .create(&PostParams::default(), &canary(ns, "one"))
        .await
        .expect("create");
    eventually("the first canary", || async {
        canary_live(&pool, ns, "one").await
    })
    .await;
    // Due now, rather than within the first minute a new check waits.
    sqlx::query(
        "UPDATE checks SET next_runtime = now() WHERE canary_id IN (SELECT id FROM canaries WHERE namespace = $1)",
    )
    .bind(ns)
    .execute(&pool)
    .await
    .expect("due now");
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(holder(&cluster).await.0.as_deref(), Some("first"));
    assert!(
        first.leads() && !second.leads(),
        "exactly one replica leads"
    );

    // The leader dies without releasing the lease; the standby waits for it to expire.
    let killed = Instant::now();
    let killed_at = chrono::Utc::now();
    first.kill();
    eventually("the standby to lead", || async { second.leads() }).await;
    let took = killed.elapsed();
    let led_at = chrono::Utc::now();
    println!(
        "failover: the standby led {} ms after the leader died (lease {LEASE_DURATION:?}, renew 200ms)",
        took.as_millis()
    );
    assert!(
        took <= LEASE_DURATION + Duration::from_secs(3),
        "failover took {took:?}"
    );
    let (holder_identity, transitions) = holder(&cluster).await;
    assert_eq!(holder_identity.as_deref(), Some("second"));
    assert!(transitions >= 1);

    canaries
        .create(&PostParams::default(), &canary(ns, "two"))
        .await
        .expect("create");
    eventually("the second canary", || async {
        canary_live(&pool, ns, "two").await
    })
    .await;
    eventually(
        "a run of the first canary's check under the new leader",
        || async { runs_of_one(&pool, ns).await.iter().any(|t| *t > led_at) },
    )
    .await;
    delete_and_wait(&canaries, &pool, ns, "one").await;
    // Several resyncs later, nothing has brought the row back.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!canary_live(&pool, ns, "one").await, "the row came back");
    assert_eq!(live(&pool, "canaries", ns).await, 1);

    // The check of `one` ran through the failover, once per slot.
    let times = runs_of_one(&pool, ns).await;
    assert!(
        times.iter().any(|t| *t < killed_at) && times.iter().any(|t| *t > led_at),
        "runs before the kill at {killed_at} and after the failover at {led_at}: {times:?}"
    );
    // The first run is the one made due by hand, off the schedule's grid.
    for pair in times[1..].windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap > chrono::Duration::milliseconds(700),
            "a check ran twice in one slot: {times:?}"
        );
    }

    // A clean shutdown releases the lease at once.
    second.shutdown().await;
    assert_eq!(holder(&cluster).await.0, None);
}

/// When the check of the canary `one` of `ns` ran, in order.
async fn runs_of_one(pool: &PgPool, ns: &str) -> Vec<chrono::DateTime<chrono::Utc>> {
    sqlx::query_scalar(
        "SELECT s.time FROM check_statuses s JOIN checks c ON c.id = s.check_id \
         JOIN canaries k ON k.id = c.canary_id WHERE k.namespace = $1 AND k.name = 'one' ORDER BY s.time",
    )
    .bind(ns)
    .fetch_all(pool)
    .await
    .expect("results")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_leader_cut_off_from_the_api_server_steps_down_before_its_lease_expires(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("partition").await;
    let ns = cluster.ns.as_str();
    let mut config = cluster.operator_kube_config().await;
    let partition = Partition::start(&config.cluster_url).await;
    config.cluster_url = partition.url.parse().expect("a URL");
    let first = Operator::start(
        Client::try_from(config).expect("a client"),
        pool.clone(),
        cluster.config("first", "2s"),
    );
    eventually("a leader", || async { first.leads() }).await;
    let second = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("second", "2s"),
    );
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    canaries
        .create(&PostParams::default(), &canary(ns, "one"))
        .await
        .expect("create");
    eventually("the canary's row", || async {
        canary_live(&pool, ns, "one").await
    })
    .await;

    // Requests of the leader now hang, as over a dead network: it must
    // stop reconciling before the standby may take over.
    let cut = Instant::now();
    partition.cut();
    eventually("the standby to lead", || async { second.leads() }).await;
    println!(
        "partition: the standby led {} ms after the leader was cut off",
        cut.elapsed().as_millis()
    );
    assert!(!first.leads(), "two leaders: the cut-off one still leads");
    delete_and_wait(&canaries, &pool, ns, "one").await;
    // The old leader's resync (2 s) would write the row again from its cache.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(
        !canary_live(&pool, ns, "one").await,
        "the old leader brought the row back"
    );
    second.shutdown().await;
    first.kill();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_cut_off_leaders_fence_is_refused_once_the_standby_takes_over(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("fence").await;
    let ns = cluster.ns.as_str();
    let lease = cluster.service_account();
    let mut config = cluster.operator_kube_config().await;
    let partition = Partition::start(&config.cluster_url).await;
    config.cluster_url = partition.url.parse().expect("a URL");
    let first = Operator::start(
        Client::try_from(config).expect("a client"),
        pool.clone(),
        cluster.config("first", "2s"),
    );
    eventually("a leader", || async { first.leads() }).await;
    let (holder, first_generation) = leadership(&pool, &lease).await;
    assert_eq!(holder, "first");
    let second = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("second", "2s"),
    );
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    canaries
        .create(&PostParams::default(), &canary(ns, "one"))
        .await
        .expect("create");
    eventually("the canary's row", || async {
        canary_live(&pool, ns, "one").await
    })
    .await;
    let id = canary_id(&pool, ns, "one").await;

    partition.cut();
    eventually("the standby to lead", || async { second.leads() }).await;
    let (holder, generation) = leadership(&pool, &lease).await;
    assert_eq!(holder, "second");
    assert!(
        generation > first_generation,
        "the takeover did not move the fence on"
    );
    delete_and_wait(&canaries, &pool, ns, "one").await;

    // Whatever the cut-off leader still had in flight, its writes carry the
    // old generation: the database refuses to bring the row back, and to
    // delete a live one.
    let stale = Fence {
        lease: lease.clone(),
        generation: first_generation,
    };
    let row = Row {
        table: Table::Canaries,
        id,
        name: "one".into(),
        namespace: ns.into(),
        columns: vec![("spec", Value::Json(json!({"schedule": "@every 1s"})))],
        checks: Vec::new(),
    };
    let revived = crd::apply(&pool, &row, Some(&stale), Takeover::Labelled).await;
    assert!(matches!(revived, Err(ApplyError::Fenced)), "{revived:?}");
    assert!(
        !canary_live(&pool, ns, "one").await,
        "the stale write revived the row"
    );
    canaries
        .create(&PostParams::default(), &canary(ns, "two"))
        .await
        .expect("create");
    eventually("the new leader's row", || async {
        canary_live(&pool, ns, "two").await
    })
    .await;
    let two = canary_id(&pool, ns, "two").await;
    let deleted = crd::soft_delete(&pool, Table::Canaries, two, Some(&stale)).await;
    assert!(matches!(deleted, Err(ApplyError::Fenced)), "{deleted:?}");
    assert!(
        canary_live(&pool, ns, "two").await,
        "the stale delete went through"
    );
    second.shutdown().await;
    first.kill();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_brief_outage_of_the_api_server_does_not_end_the_term(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("blip").await;
    let ns = cluster.ns.as_str();
    let lease = cluster.service_account();
    let mut kube_config = cluster.operator_kube_config().await;
    let partition = Partition::start(&kube_config.cluster_url).await;
    kube_config.cluster_url = partition.url.parse().expect("a URL");
    let mut config = cluster.config("first", "10m");
    // A renew deadline far beyond the outage, even on a busy machine; calls
    // give up quickly, so the outage fails several rounds.
    config.lease_duration = Duration::from_secs(40);
    config.lease_renew_deadline = Some(Duration::from_secs(30));
    config.lease_call_timeout = Duration::from_millis(300);
    let first = Operator::start(
        Client::try_from(kube_config).expect("a client"),
        pool.clone(),
        config,
    );
    eventually("a leader", || async { first.leads() }).await;
    let (_, generation) = leadership(&pool, &lease).await;
    let leases: Api<Lease> = Api::namespaced(cluster.admin.clone(), &cluster.ns);
    let version = || async {
        leases
            .get(&lease)
            .await
            .expect("the Lease")
            .metadata
            .resource_version
    };

    partition.cut();
    // A renewal already on its way when the cut came lands first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = version().await;
    // Every Lease call now goes unanswered; rounds fail one after another.
    let outage = Instant::now();
    while outage.elapsed() < Duration::from_secs(3) || partition.attempts() < 3 {
        assert!(first.leads(), "a failed round ended the term");
        assert!(
            outage.elapsed() < Duration::from_secs(20),
            "the leader made no new Lease calls during the outage"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(version().await, before, "a renewal got through the outage");
    partition.heal();
    eventually("a renewal after the outage", || async {
        version().await != before
    })
    .await;
    assert!(first.leads());
    assert_eq!(
        leadership(&pool, &lease).await,
        ("first".to_owned(), generation),
        "a new term (new fence, restarted controllers) began"
    );
    // The same controllers go on reconciling once their watches reconnect.
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    canaries
        .create(&PostParams::default(), &canary(ns, "after"))
        .await
        .expect("create");
    eventually("the canary's row", || async {
        canary_live(&pool, ns, "after").await
    })
    .await;
    first.shutdown().await;
    assert_eq!(holder(&cluster).await.0, None);
}

/// A TCP forwarder to the API server that can be cut: from then on it
/// forwards nothing and answers nothing, holding every connection open, until
/// it heals and closes them (as a reset network would).
struct Partition {
    url: String,
    cut_tx: tokio::sync::watch::Sender<bool>,
    /// Connections opened while cut.
    attempts: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Partition {
    async fn start(server: &http::Uri) -> Partition {
        let upstream = format!(
            "{}:{}",
            server.host().expect("a host"),
            server.port_u16().unwrap_or(443)
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("https://{}", listener.local_addr().expect("address"));
        let (cut_tx, cut_rx) = tokio::sync::watch::channel(false);
        let attempts = Arc::new(AtomicUsize::new(0));
        let counted = attempts.clone();
        let task = tokio::spawn(async move {
            // Dropped with this task, and with it every connection.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                let upstream = upstream.clone();
                let mut cut_rx = cut_rx.clone();
                let counted = counted.clone();
                connections.spawn(async move {
                    let already_cut = *cut_rx.borrow();
                    let cut = if already_cut {
                        counted.fetch_add(1, Ordering::SeqCst);
                        true
                    } else {
                        let Ok(mut server) = TcpStream::connect(&upstream).await else {
                            return;
                        };
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => false,
                            cut = cut_rx.wait_for(|cut| *cut) => cut.is_ok(),
                        }
                    };
                    if cut {
                        // Unanswered until healed; then closed.
                        let _ = cut_rx.wait_for(|cut| !*cut).await;
                    }
                });
            }
        });
        Partition {
            url,
            cut_tx,
            attempts,
            task,
        }
    }

    fn cut(&self) {
        let _ = self.cut_tx.send(true);
    }

    fn heal(&self) {
        let _ = self.cut_tx.send(false);
    }

    fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }
}

impl Drop for Partition {
    fn drop(&mut self) {
        self.task.abort();
    }
}
