import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { e2eDatabaseUrl } from './env';

/** The seed fixtures of `store::testing`, as `quarterdeck-seed` takes them. */
type Subject = { person: string } | { email: string } | { team: string };

export interface SeedRun {
  secsAgo: number;
  passed: boolean;
  durationMs: number;
  message?: string;
  error?: string;
}

export interface SeedCheck {
  name: string;
  type: string;
  status?: 'healthy' | 'unhealthy';
  labels?: Record<string, string>;
  description?: string;
  endpoint?: string;
  spec?: unknown;
  severity?: string;
  /** The agent that runs the check; the local instance when unset. */
  agent?: string;
  lastRunSecsAgo?: number;
  transitionedSecsAgo?: number;
  /** A year away when unset, so the engine leaves the check as seeded. */
  nextRunInSecs?: number;
  runs?: SeedRun[];
  /** Roll the runs up into hourly rows, as the engine does. */
  rollUpRuns?: boolean;
  /** This hour's rollup: every run in latency bucket `bucket` (at most 1.25^bucket ms). */
  hourly?: { passed: number; failed: number; bucket: number };
}

export interface SeedJob {
  name: string;
  status: string;
  resourceType?: string;
  resourceId?: string;
  durationMillis: number;
  details?: unknown;
  successCount?: number;
  errorCount?: number;
  at: Date;
}

/**
 * A catalog under `prefix`: `items` items named `${prefix}${index}` of `types` (item i of
 * `types[i % types.length]`), health cycling healthy/unhealthy/warning/unknown (i % 4), status
 * Running/Pending/Failed/Stopped/Succeeded (i % 5), tags account-(i % 3), cluster-(i % 2),
 * namespace ns-(i % 5), env production/staging/development ((i / 3) % 3), labels app-(i % 10) and
 * team payments/search/platform (i % 3); `changes` changes and `insights` insights (at most 6) per
 * item; a hub (item 0) linked with items 1..related (even: hub -> item, odd: item -> hub); a chain of
 * `parents` extra items `${prefix}chain-${level}` (root first, external id = name); the last `deleted`
 * items soft-deleted; optionally a scraper `${prefix}scraper` owning them; `checks` (ids) related to the hub.
 * Replaces an earlier world of the same prefix; remove it with `remove` `catalog`.
 */
export interface SeedCatalogWorld {
  prefix: string;
  types: string[];
  items: number;
  changes?: number;
  insights?: number;
  related?: number;
  parents?: number;
  deleted?: number;
  scraper?: boolean;
  /** The scraper's source; UI when unset. */
  scraperSource?: string;
  checks?: string[];
  /** A person recorded as the author of every third change. */
  createdBy?: string;
}

export interface SeededItem {
  id: string;
  name: string;
  type: string;
}

/**
 * A topology under `prefix`, written as the topology engine writes it: the topology `${prefix}topology`
 * (schedule `@every 10m`, `source`) and its root component of that name (owner `${prefix}team`) with four
 * children: `${prefix}api` (Service, healthy, memory 50 %, CPU, headline Version 1.4.2, owner
 * `${prefix}team`, check `${prefix}check-passing`), `${prefix}db` (Database, unhealthy, memory 80 %, check
 * `${prefix}check-failing`, config items `${prefix}config-0` and `-1` with three open insights: security
 * critical, reliability medium, cost low), `${prefix}big` (Cluster with `children` Pods `${prefix}big-${i}`:
 * health healthy/healthy/warning/unhealthy (i % 4), memory 30/80/95 % (i % 3); check `${prefix}check-big`,
 * config item `${prefix}config-2` with a resolved insight only) and `${prefix}hidden` (hidden, healthy);
 * plus `bulk` Nodes `${prefix}bulk-${j}` in a full tree of `depth` levels counting the root (default 4).
 * Health and status rolled up (root and big: warning). Labels: `world` = prefix everywhere; `env`
 * `production` on the root, api, big, even pods and even bulk nodes, `staging` elsewhere (an access scope
 * `{tags: {world: prefix, env: 'production'}}` selects that subset). `runs` job history rows
 * (`TopologyRun`, 10 minutes apart from now, every third FAILED). Replaces an earlier world of the same
 * prefix; remove it with `remove` `topologies` (also its canary, config items and team).
 */
export interface SeedTopologyWorld {
  prefix: string;
  /** Pods under `${prefix}big`; 5 when unset. */
  children?: number;
  bulk?: number;
  depth?: number;
  source?: Source;
  runs?: number;
}

export interface SeededComponent {
  id: string;
  name: string;
  /** Rolled up. */
  health: 'healthy' | 'unhealthy' | 'warning' | 'unknown';
}

type Source = 'UI' | 'KubernetesCRD';
type Id = { id: string };

interface Fixtures {
  'drop-database': { args: { name: string }; ids: Record<string, never> };
  agent: { args: { name: string }; ids: Id };
  permission: { args: { name?: string; subject: Subject; object: string; action: string; deny?: boolean }; ids: Id };
  'access-scopes': {
    args: { name: string; subject: Subject; resources: string[]; scopes: unknown[]; source?: Source }[];
    ids: { ids: string[] };
  };
  /** Replaces a canary of the same namespace and name. */
  canary: {
    args: { name: string; namespace?: string; labels?: Record<string, string>; spec?: unknown; source?: Source; checks?: SeedCheck[] };
    ids: { id: string; checks: string[] };
  };
  component: { args: { name: string; type?: string; icon?: string; check?: string }; ids: Id };
  'config-item': { args: { name: string; configClass: string; type: string; check?: string }; ids: Id };
  topology: { args: { name: string; namespace?: string; spec?: unknown; source?: Source }; ids: Id };
  'incident-rule': { args: { name: string; namespace?: string; spec?: unknown; source?: Source }; ids: Id };
  property: { args: { name: string; value: string }; ids: Record<string, never> };
  'job-history': { args: SeedJob[]; ids: { ids: string[] } };
  /** `items`: the first 20 items by index (the hub first); `chain`: root first. */
  'catalog-world': {
    args: SeedCatalogWorld;
    ids: { hub: string; items: SeededItem[]; chain: SeededItem[]; scraper: string | null };
  };
  /** `bigChildren` and `bulk`: the first 20 each; `checks`: passing (api), failing (db), big's;
   * `configs`: db's two, big's one; `runs`: newest first. */
  'topology-world': {
    args: SeedTopologyWorld;
    ids: {
      topology: string;
      root: SeededComponent;
      api: SeededComponent;
      db: SeededComponent;
      big: SeededComponent;
      hidden: SeededComponent;
      bigChildren: SeededComponent[];
      bulk: SeededComponent[];
      team: string;
      canary: string;
      checks: string[];
      configs: string[];
      runs: string[];
    };
  };
  /** Playbooks `${prefix}restart` (UI, parameters), `${prefix}crd` (KubernetesCRD), `${prefix}approve`
   * (UI, approval by `approver`) and `${prefix}on-component` (UI, on the component `${prefix}component`)
   * in category `${prefix}ops`, the config item `${prefix}config` the first two run on,
   * and runs started by `startedBy`: restart completed and failed, approve twice pending approval.
   * Replaces an earlier world of the same prefix. */
  'playbook-world': {
    args: { prefix: string; approver: string; startedBy: string };
    ids: {
      config: string;
      component: string;
      restart: string;
      crd: string;
      approve: string;
      completedRun: string;
      failedRun: string;
      toApproveRun: string;
      toCancelRun: string;
    };
  };
  /** Config items `${prefix}config` and `${prefix}other`; rules `${prefix}webhook` (UI, config.unhealthy to a URL,
   * repeat 4h) and `${prefix}crd` (KubernetesCRD, check.failed to a connection), neither matching any resource;
   * the silence `${prefix}silence` (config and children, a day); sends of the webhook rule about the config, newest
   * first: failed, pending, sent, silenced, repeat-suppressed, inhibited; one sent about the other item.
   * Replaces an earlier world of the same prefix. */
  'notification-world': {
    args: { prefix: string };
    ids: { config: string; other: string; webhook: string; crd: string; silence: string };
  };
  /** Deletes the seeded rows whose name starts with `prefix`. */
  remove: {
    args: {
      what:
        | 'canaries'
        | 'access_scopes'
        | 'permissions'
        | 'properties'
        | 'job_history'
        | 'catalog'
        | 'topologies'
        | 'incident_rules'
        | 'notifications';
      prefix: string;
    };
    ids: { removed: number };
  };
}

const bin = process.env.QD_SEED_BIN ?? fileURLToPath(new URL('../../target/debug/quarterdeck-seed', import.meta.url));

/** Seeds the e2e database (or `databaseUrl`) with one fixture; answers the ids it created. */
export function seed<F extends keyof Fixtures>(
  fixture: F,
  args: Fixtures[F]['args'],
  databaseUrl = e2eDatabaseUrl(),
): Promise<Fixtures[F]['ids']> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--database-url', databaseUrl, fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) =>
      reject(new Error(`${bin}: ${e.message} (build it: cargo build -p quarterdeck-store --features testing --bin quarterdeck-seed)`)),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as Fixtures[F]['ids']);
      else reject(new Error(`seed ${fixture} failed (${code}): ${err.trim()}`));
    });
    child.stdin.end(JSON.stringify(args));
  });
}
