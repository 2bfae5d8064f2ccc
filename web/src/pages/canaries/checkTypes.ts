/** The check types of the check editor (decision 12.2): the tiles of
 * its grid, which spec keys each one edits, and which have a form. Spec keys
 * are the Canary CRD's (crds/src/canary). */
import type { JsonObject } from '../../lib/yamlText';

export interface CheckType {
  id: string;
  label: string;
  /** The spec keys that make a canary this type; a form edits the first
   * item of the first one. Empty for types that have no key of their own. */
  keys: readonly string[];
  /** Edited with fields (tabs Form and Code) rather than YAML only. */
  form: boolean;
  docs: string;
  /** The spec a new check of this type starts from. */
  template: JsonObject;
}

export const CUSTOM = 'custom';

const REFERENCE = 'https://canarychecker.io/reference';

function type(id: string, label: string, keys: readonly string[], form: boolean, page?: string, item: JsonObject = {}): CheckType {
  const template = keys[0] ? { [keys[0]]: [item] } : {};
  return { id, label, keys, form, docs: page ? `${REFERENCE}/${page}` : REFERENCE, template };
}

/** GCS, SMB and SFTP are folder checks on a URL of that scheme. */
function folderOn(id: string, label: string, page: string, path: string, connection: string): CheckType {
  return { id, label, keys: [], form: false, docs: `${REFERENCE}/${page}`, template: { folder: [{ path, [connection]: {} }] } };
}

const TYPES: readonly CheckType[] = [
  type('http', 'HTTP', ['http'], true, 'http'),
  type('awsConfigRule', 'AWS Config Rule', ['awsConfigRule'], false, 'aws-config-rule'),
  type('awsConfig', 'AWS Config', ['awsConfig'], false, 'aws-config'),
  type('github', 'GitHub', ['github'], false),
  type('ec2', 'EC2', ['ec2'], false, 'ec2'),
  type('ldap', 'LDAP', ['ldap'], false, 'ldap'),
  type('pod', 'Pod', ['pod'], false, 'pod'),
  type('exec', 'Exec', ['exec'], true, 'exec'),
  type('alertmanager', 'Alert Manager', ['alertmanager'], true, 'alert-manager'),
  type('cloudwatch', 'Cloud Watch', ['cloudwatch'], false, 'cloudwatch'),
  type('elasticsearch', 'Elasticsearch', ['elasticsearch'], true, 'elasticsearch'),
  type('redis', 'Redis', ['redis'], true, 'redis', { db: 0 }),
  type('mongodb', 'Mongo DB', ['mongodb'], true, 'mongo'),
  type('dns', 'DNS', ['dns'], false, 'dns'),
  type('icmp', 'ICMP Ping', ['icmp'], true, 'icmp'),
  folderOn('gcs', 'GCS', 'gcs-bucket', 'gcs://bucket/path', 'gcpConnection'),
  type('s3', 'AWS S3', ['s3'], false, 's3-bucket'),
  folderOn('smb', 'SMB', 'smb', 'smb://server/share/path', 'smbConnection'),
  folderOn('sftp', 'SFTP', 'sftp', 'sftp://host/path', 'sftpConnection'),
  type('folder', 'Folder', ['folder'], true, 'folder'),
  type('prometheus', 'Prometheus', ['prometheus'], false, 'prometheus'),
  type('kubernetes', 'Kubernetes', ['kubernetes'], false, 'kubernetes'),
  type('sql', 'SQL Query', ['postgres', 'mysql', 'mssql'], false, 'postgres'),
  type('catalog', 'Mission Control Catalog', ['catalog'], false, 'configdb'),
  type('azureDevops', 'Azure DevOps', ['azureDevops'], false, 'azure-devops'),
  type('jmeter', 'JMeter', ['jmeter'], false, 'jmeter'),
  type('junit', 'JUnit', ['junit'], false, 'junit'),
  type('dynatrace', 'Dynatrace', ['dynatrace'], false),
  type('namespace', 'Kubernetes Namespace', ['namespace'], false, 'kubernetes'),
  type('tcp', 'TCP', ['tcp'], true, 'tcp'),
  type(CUSTOM, 'Custom', [], false),
];

/** The tiles, sorted alphabetically by label. */
export const CHECK_TYPES: readonly CheckType[] = [...TYPES].sort((a, b) => a.label.localeCompare(b.label, 'en'));

export function checkType(id: string): CheckType {
  return CHECK_TYPES.find((t) => t.id === id) ?? customType();
}

function customType(): CheckType {
  return CHECK_TYPES.find((t) => t.id === CUSTOM) as CheckType;
}

/** Canary settings beside the check lists (not check types). */
const SETTINGS = new Set([
  'schedule',
  'interval',
  'icon',
  'severity',
  'owner',
  'resultMode',
  'env',
  'agentSelector',
  'retries',
  'replicas',
]);

/** Spec keys that are the resource's own fields in the editor (spec 3.4), not its spec. */
const RESOURCE_FIELDS = new Set(['schedule', 'icon']);

/** The type of an existing canary (decision 12.3): the one owning its first
 * spec key other than schedule (and icon, a field of its own here); Custom
 * when that key is no type's (a canary setting such as `interval`, or an
 * unknown list). */
export function preselectType(spec: unknown): CheckType {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return customType();
  const first = Object.keys(spec).find((key) => !RESOURCE_FIELDS.has(key));
  return (first && CHECK_TYPES.find((t) => t.keys.includes(first))) || customType();
}

/** The check types a canary's spec holds, for the list: labels of known keys,
 * other check lists by their key. */
export function checkTypeLabels(spec: unknown): string[] {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return [];
  const labels: string[] = [];
  for (const [key, value] of Object.entries(spec)) {
    if (SETTINGS.has(key) || (!Array.isArray(value) && key !== 'webhook')) continue;
    const label = CHECK_TYPES.find((t) => t.keys.includes(key))?.label ?? key;
    if (!labels.includes(label)) labels.push(label);
  }
  return labels;
}

/** The schedules the editor offers; any other value can be typed. */
export const EDITOR_SCHEDULES = [
  '@every 30s',
  '@every 1m',
  '@every 5m',
  '@every 30m',
  '@hourly',
  '@every 6h',
  '@daily',
  '@weekly',
] as const;
