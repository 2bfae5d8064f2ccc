import { describe, expect, it } from 'vitest';
import { CHECK_TYPES, checkType, checkTypeLabels, preselectType } from './checkTypes';

describe('the check type catalogue', () => {
  it('holds the 31 types of the spec, sorted by label', () => {
    expect(CHECK_TYPES.map((t) => t.label)).toEqual([
      'Alert Manager',
      'AWS Config',
      'AWS Config Rule',
      'AWS S3',
      'Azure DevOps',
      'Cloud Watch',
      'Custom',
      'DNS',
      'Dynatrace',
      'EC2',
      'Elasticsearch',
      'Exec',
      'Folder',
      'GCS',
      'GitHub',
      'HTTP',
      'ICMP Ping',
      'JMeter',
      'JUnit',
      'Kubernetes',
      'Kubernetes Namespace',
      'LDAP',
      'Mission Control Catalog',
      'Mongo DB',
      'Pod',
      'Prometheus',
      'Redis',
      'SFTP',
      'SMB',
      'SQL Query',
      'TCP',
    ]);
  });

  it('gives a form only to HTTP, Exec, Alert Manager, Elasticsearch, Redis, Mongo, ICMP, Folder and TCP', () => {
    expect(
      CHECK_TYPES.filter((t) => t.form)
        .map((t) => t.id)
        .sort(),
    ).toEqual(['alertmanager', 'elasticsearch', 'exec', 'folder', 'http', 'icmp', 'mongodb', 'redis', 'tcp']);
  });

  it('links every type to its documentation', () => {
    for (const t of CHECK_TYPES) expect(t.docs).toMatch(/^https:\/\/canarychecker\.io\/reference/);
    expect(checkType('http').docs).toBe('https://canarychecker.io/reference/http');
  });

  it('starts new checks from the CRD keys; Redis with database 0', () => {
    expect(checkType('http').template).toEqual({ http: [{}] });
    expect(checkType('redis').template).toEqual({ redis: [{ db: 0 }] });
    expect(checkType('icmp').template).toEqual({ icmp: [{}] });
    expect(checkType('mongodb').template).toEqual({ mongodb: [{}] });
    expect(checkType('gcs').template).toEqual({ folder: [{ path: 'gcs://bucket/path', gcpConnection: {} }] });
    expect(checkType('custom').template).toEqual({});
  });
});

describe('preselectType', () => {
  it('takes the first key other than schedule', () => {
    expect(preselectType({ schedule: '@every 1m', http: [{}] }).id).toBe('http');
    expect(preselectType({ dns: [{}], http: [{}] }).id).toBe('dns');
    expect(preselectType({ schedule: '@hourly', mysql: [{}] }).id).toBe('sql');
    // The icon is the editor's own field, as the schedule is (jsonb puts it before longer keys).
    expect(preselectType({ icon: 'x', redis: [{}] }).id).toBe('redis');
  });

  it('falls back to Custom when that key is no check type, even with a check list after it', () => {
    expect(preselectType({ interval: 30, http: [{}] }).id).toBe('custom');
    expect(preselectType({ owner: 'x', redis: [{}] }).id).toBe('custom');
    expect(preselectType({ env: {}, tcp: [{}] }).id).toBe('custom');
    expect(preselectType({ restic: [{}], http: [{}] }).id).toBe('custom');
  });

  it('falls back to Custom without a key other than schedule', () => {
    expect(preselectType({ schedule: '@hourly' }).id).toBe('custom');
    expect(preselectType({}).id).toBe('custom');
    expect(preselectType({ webhook: { name: 'hook' } }).id).toBe('custom');
    expect(preselectType(null).id).toBe('custom');
    expect(preselectType([]).id).toBe('custom');
  });

  it('finds unknown ids as Custom', () => {
    expect(checkType('nope').id).toBe('custom');
  });
});

describe('checkTypeLabels', () => {
  it('names the check lists of a spec, not its settings', () => {
    expect(checkTypeLabels({ schedule: '@hourly', env: {}, http: [{}], icmp: [{}], postgres: [], mysql: [], restic: [] })).toEqual([
      'HTTP',
      'ICMP Ping',
      'SQL Query',
      'restic',
    ]);
    expect(checkTypeLabels({ webhook: { name: 'w' } })).toEqual(['webhook']);
    expect(checkTypeLabels(undefined)).toEqual([]);
  });
});
