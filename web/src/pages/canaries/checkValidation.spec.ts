import { describe, expect, it } from 'vitest';
import { newCanaryForm, type CanaryForm } from './checkSpec';
import { CHECK_TYPES, checkType } from './checkTypes';
import { MESSAGES, NAME_KEY, specProblems, validateCanary } from './checkValidation';

const form = (spec: CanaryForm['spec'], name = 'web'): CanaryForm => ({ ...newCanaryForm(), name, spec });

describe('validateCanary', () => {
  it('requires the name and the fields each form requires', () => {
    expect(validateCanary(form({ http: [{}] }, ' '), checkType('http'))).toEqual({
      [NAME_KEY]: 'This field is required',
      url: 'This field is required',
    });
    expect(validateCanary(form({ exec: [{ script: '' }] }), checkType('exec'))).toEqual({ script: MESSAGES.required });
    expect(validateCanary(form({ elasticsearch: [{ url: 'u' }] }), checkType('elasticsearch'))).toEqual({
      index: MESSAGES.required,
      query: MESSAGES.required,
    });
    expect(validateCanary(form({ redis: [{ db: 0 }] }), checkType('redis'))).toEqual({ addr: MESSAGES.required });
    expect(validateCanary(form({ icmp: [{}] }), checkType('icmp'))).toEqual({ endpoint: MESSAGES.required });
    expect(validateCanary(form({ tcp: [{}] }), checkType('tcp'))).toEqual({ endpoint: MESSAGES.required });
    expect(validateCanary(form({ folder: [{}] }), checkType('folder'))).toEqual({ path: MESSAGES.required });
    expect(validateCanary(form({ alertmanager: [{}] }), checkType('alertmanager'))).toEqual({ host: MESSAGES.required });
    expect(validateCanary(form({ mongodb: [{}] }), checkType('mongodb'))).toEqual({});
  });

  it('accepts an alias for the HTTP url', () => {
    expect(validateCanary(form({ http: [{ endpoint: 'https://x' }] }), checkType('http'))).toEqual({});
  });

  it('says when a number is not one, or below its minimum', () => {
    const errors = validateCanary(form({ http: [{ url: 'https://x', thresholdMillis: 'fast', maxSSLExpiry: -1 }] }), checkType('http'));
    expect(errors).toEqual({ thresholdMillis: 'This field must be a number', maxSSLExpiry: 'This field must be at least 0' });
    expect(validateCanary(form({ icmp: [{ endpoint: 'h', packetCount: 2.5 }] }), checkType('icmp'))).toEqual({
      packetCount: MESSAGES.number,
    });
  });

  it('checks only the chosen folder connection and nested filters', () => {
    const folder = { path: '/data', smbConnection: { port: 'x' }, filter: { regex: '.*' } };
    expect(validateCanary(form({ folder: [folder] }), checkType('folder'))).toEqual({ 'smbConnection.port': MESSAGES.number });
  });

  it('ignores hidden fields and YAML-only types', () => {
    expect(validateCanary(form({ http: [{ url: 'x', method: 'GET' }] }), checkType('http'))).toEqual({});
    expect(validateCanary(form({ dns: [{ anything: true }] }), checkType('dns'))).toEqual({});
    expect(validateCanary(form({}, ''), checkType('custom'))).toEqual({ [NAME_KEY]: MESSAGES.required });
  });
});

describe('specProblems', () => {
  it('accepts what the forms write and every type starts from', () => {
    const http = {
      name: 'web',
      url: 'https://example.com/health',
      method: 'POST',
      body: '{"ping": true}',
      headers: [{ name: 'Accept', value: 'application/json' }],
      ntlm: true,
      username: { value: 'svc' },
      password: { value: 'secret' },
      responseCodes: [200, 201],
      thresholdMillis: 1500,
      icon: 'http',
      test: { expr: 'code == 200' },
    };
    expect(specProblems(form({ http: [http] }))).toEqual([]);
    const folder = { path: '/data', awsConnection: { region: 'eu-west-1', skipTLSVerify: true }, filter: { regex: '.*' } };
    expect(specProblems(form({ folder: [folder], redis: [{ addr: 'r:6379', db: 0 }] }))).toEqual([]);
    for (const type of CHECK_TYPES) expect(specProblems(form(type.template))).toEqual([]);
  });

  it('names a misspelt field or a value of the wrong type by its path', () => {
    expect(specProblems(form({ htpp: [{ url: 'x' }] }))).toEqual(['htpp: unknown field']);
    expect(specProblems(form({ dns: [{ query: 'example.com', qeury: 'x' }] }))).toEqual(['dns[0].qeury: unknown field']);
    expect(specProblems(form({ tcp: [{ endpoint: 'db:5432', thresholdMillis: 'fast' }] }))).toEqual([
      'tcp[0].thresholdMillis: must be a whole number',
    ]);
    expect(specProblems(form({ interval: '30s', http: {} }))).toEqual(['interval: must be a whole number', 'http: must be a list']);
  });
});
