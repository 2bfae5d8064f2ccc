/** The fields of the check forms, by check type.
 * Paths are inside the edited check item; dots make nested objects. */
import type { JsonObject } from '../../lib/yamlText';
import type { ConnectionTypeId } from '../connections/useConnectionsData';

export type AuthKind = 'none' | 'basic' | 'ntlm' | 'ntlmv2';

export interface Input {
  /** `env` and `secret` hold an EnvVar (`{value}`); `secret` is masked. */
  kind: 'text' | 'multiline' | 'number' | 'list' | 'env' | 'secret' | 'checkbox';
  path: string;
  label: string;
  required?: boolean;
  /** Numbers: the least value allowed. */
  min?: number;
  placeholder?: string;
  helper?: string;
  /** An older name of the same field, read when the field is unset and
   * dropped once it is written. */
  alias?: string;
  /** Shown only while this holds for the item. */
  when?: (item: JsonObject) => boolean;
  /** A `connection://namespace/name` field offering saved connections of these types. */
  connectionTypes?: readonly ConnectionTypeId[];
}

export interface Choice {
  kind: 'select' | 'codes';
  path: string;
  label: string;
  options: readonly string[];
}

/** Key/value rows: a list of `{name, value}` (headers) or a map (filters). */
export interface Pairs {
  kind: 'pairs';
  path: string;
  label: string;
  shape: 'list' | 'map';
}

/** The Authentication selector over the item's username, password and NTLM flags. */
export interface Auth {
  kind: 'auth';
  kinds: readonly AuthKind[];
}

/** A Test, Display or Transform expression. */
export interface Script {
  kind: 'script';
  path: 'test' | 'display' | 'transform';
  label: string;
  helper: string;
}

export interface Group {
  kind: 'group';
  label: string;
  fields: readonly Input[];
}

export interface FolderConnection {
  kind: 'connection';
  label: string;
  options: readonly ConnectionOption[];
}

export interface ConnectionOption {
  id: string;
  label: string;
  key: string;
  fields: readonly Input[];
}

/** The check item's icon, picked from the check icons. */
export interface IconField {
  kind: 'icon';
  path: 'icon';
  label: string;
}

export type Field = Input | Choice | Pairs | Auth | Script | Group | FolderConnection | IconField;

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** HTTP response codes offered. */
export const RESPONSE_CODES = ['200', '201', '202', '204', '301', '302', '401', '404', '500', '502', '503'] as const;

export const AUTH_LABELS: Record<AuthKind, string> = { none: 'None', basic: 'Basic', ntlm: 'NTLM', ntlmv2: 'NTLMv2' };

/** Script kinds and the key each is stored under (crds/src/common.rs Template). */
export const SCRIPT_KINDS = [
  { id: 'none', label: 'None' },
  { id: 'template', label: 'Go Template' },
  { id: 'javascript', label: 'Javascript' },
  { id: 'expr', label: 'Expr' },
  { id: 'jsonPath', label: 'JSONPath' },
] as const;
export type ScriptKind = (typeof SCRIPT_KINDS)[number]['id'];

const text = (path: string, label: string, extra: Partial<Input> = {}): Input => ({ kind: 'text', path, label, ...extra });
const number = (path: string, label: string, extra: Partial<Input> = {}): Input => ({ kind: 'number', path, label, min: 0, ...extra });
const env = (path: string, label: string): Input => ({ kind: 'env', path, label });
const secret = (path: string, label: string): Input => ({ kind: 'secret', path, label });
const connection = (path: string, types: readonly ConnectionTypeId[]): Input =>
  text(path, 'Connection', { connectionTypes: types, helper: 'A saved connection supplies the URL and credentials' });
const threshold = number('thresholdMillis', 'Threshold (ms)', { helper: 'Fails when a run takes longer' });

const BASIC: Auth = { kind: 'auth', kinds: ['none', 'basic'] };

/** Body only for methods that send one; no method means GET. */
const sendsBody = (item: JsonObject) => item.method === 'POST' || item.method === 'PUT';

export const FOLDER_CONNECTIONS: readonly ConnectionOption[] = [
  {
    id: 'aws',
    label: 'AWS',
    key: 'awsConnection',
    fields: [
      connection('awsConnection.connection', ['aws', 's3']),
      text('awsConnection.region', 'Region'),
      text('awsConnection.endpoint', 'Endpoint'),
      text('awsConnection.objectPath', 'Object path'),
      env('awsConnection.accessKey', 'Access key'),
      secret('awsConnection.secretKey', 'Secret key'),
      { kind: 'checkbox', path: 'awsConnection.skipTLSVerify', label: 'Skip TLS verify' },
      { kind: 'checkbox', path: 'awsConnection.usePathStyle', label: 'Use path style' },
    ],
  },
  {
    id: 'gcp',
    label: 'GCP',
    key: 'gcpConnection',
    fields: [
      connection('gcpConnection.connection', ['google_cloud', 'gcs']),
      text('gcpConnection.endpoint', 'Endpoint'),
      secret('gcpConnection.credentials', 'Credentials'),
    ],
  },
  {
    id: 'sftp',
    label: 'SFTP',
    key: 'sftpConnection',
    fields: [
      connection('sftpConnection.connection', ['sftp']),
      text('sftpConnection.host', 'Host'),
      number('sftpConnection.port', 'Port', { placeholder: '22' }),
      env('sftpConnection.username', 'Username'),
      secret('sftpConnection.password', 'Password'),
    ],
  },
  {
    id: 'smb',
    label: 'SMB',
    key: 'smbConnection',
    fields: [
      connection('smbConnection.connection', ['smb']),
      number('smbConnection.port', 'Port', { placeholder: '445' }),
      text('smbConnection.domain', 'Domain'),
      text('smbConnection.workstation', 'Workstation'),
      text('smbConnection.sharename', 'Share name'),
      text('smbConnection.searchPath', 'Search path'),
      env('smbConnection.username', 'Username'),
      secret('smbConnection.password', 'Password'),
    ],
  },
];

/** The fields of each form type, between the common head and tail. */
const TYPE_FIELDS: Record<string, readonly Field[]> = {
  http: [
    text('url', 'URL', { required: true, alias: 'endpoint', placeholder: 'https://example.com/health' }),
    connection('connection', ['http']),
    { kind: 'select', path: 'method', label: 'Method', options: METHODS },
    { kind: 'multiline', path: 'body', label: 'Body', when: sendsBody },
    { kind: 'pairs', path: 'headers', label: 'Headers', shape: 'list' },
    { kind: 'auth', kinds: ['none', 'basic', 'ntlm', 'ntlmv2'] },
    { kind: 'codes', path: 'responseCodes', label: 'Response codes', options: RESPONSE_CODES },
    threshold,
    text('responseContent', 'Response content', { helper: 'Fails unless the body contains this' }),
    number('maxSSLExpiry', 'Max SSL expiry (days)', { helper: 'Fails when the certificate expires sooner' }),
  ],
  exec: [{ kind: 'multiline', path: 'script', label: 'Script', required: true, helper: 'Shell script; passes when it exits 0' }],
  alertmanager: [
    text('host', 'Host', { required: true, placeholder: 'http://alertmanager:9093' }),
    BASIC,
    { kind: 'list', path: 'alerts', label: 'Alerts', helper: 'Comma separated alert names' },
    { kind: 'pairs', path: 'filters', label: 'Filters', shape: 'map' },
    { kind: 'list', path: 'ignore', label: 'Ignore', helper: 'Comma separated alert names' },
  ],
  elasticsearch: [
    text('url', 'URL', { required: true }),
    connection('connection', ['elasticsearch']),
    text('index', 'Index', { required: true }),
    { kind: 'multiline', path: 'query', label: 'Query', required: true },
    number('results', 'Results', { helper: 'Expected number of hits' }),
    BASIC,
  ],
  redis: [
    text('addr', 'Address', { required: true, placeholder: 'host:port' }),
    connection('connection', ['redis']),
    number('db', 'Database', { placeholder: '0' }),
    BASIC,
  ],
  mongodb: [connection('connection', ['mongo']), text('url', 'URL', { placeholder: 'mongodb://host:27017' }), BASIC],
  icmp: [
    text('endpoint', 'Host', { required: true }),
    number('packetCount', 'Packet count'),
    number('packetLossThreshold', 'Packet loss threshold (%)'),
    threshold,
  ],
  tcp: [text('endpoint', 'Endpoint', { required: true, placeholder: 'host:port' }), threshold],
  folder: [
    text('path', 'Folder path', { required: true, placeholder: '/data, s3://bucket/path, gcs://…, smb://…, sftp://…' }),
    text('minAge', 'Min age', { placeholder: '1h' }),
    text('maxAge', 'Max age', { placeholder: '24h' }),
    number('minCount', 'Min count'),
    number('maxCount', 'Max count'),
    text('minSize', 'Min size', { placeholder: '10Mi' }),
    text('maxSize', 'Max size'),
    text('availableSize', 'Available size'),
    text('totalSize', 'Total size'),
    {
      kind: 'group',
      label: 'Filter',
      fields: [
        text('filter.minAge', 'Filter min age'),
        text('filter.maxAge', 'Filter max age'),
        text('filter.minSize', 'Filter min size'),
        text('filter.maxSize', 'Filter max size'),
        text('filter.regex', 'Filter regex'),
      ],
    },
    { kind: 'connection', label: 'Connection', options: FOLDER_CONNECTIONS },
  ],
};

const HEAD: readonly Field[] = [
  text('name', 'Check name', { helper: 'Defaults to the name above' }),
  { kind: 'icon', path: 'icon', label: 'Check icon' },
  text('description', 'Description'),
  text('schedule', 'Check schedule', { helper: "Cron or @every 1m30s; empty runs it on the canary's schedule" }),
];

const TAIL: readonly Field[] = [
  { kind: 'script', path: 'test', label: 'Test', helper: 'Passes when it evaluates to true' },
  { kind: 'script', path: 'display', label: 'Display', helper: 'Customises the message shown for a result' },
  { kind: 'script', path: 'transform', label: 'Transform', helper: 'Transforms the response' },
];

/** Every field of a form type's check, in order; none for other types. */
export function formFields(key: string): readonly Field[] {
  const own = TYPE_FIELDS[key];
  return own ? [...HEAD, ...own, ...TAIL] : [];
}
