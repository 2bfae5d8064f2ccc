import { describe, expect, it } from 'vitest';
import { MESSAGES, formProblems, initialValue, paramProblem, requestParams, type PlaybookParameter } from './parameters';

const p = (over: Partial<PlaybookParameter>): PlaybookParameter => ({ name: 'x', ...over });

describe('paramProblem', () => {
  it('asks for required values, blank text counting as none', () => {
    expect(paramProblem(p({ required: true }), '')).toBe(MESSAGES.required);
    expect(paramProblem(p({ required: true }), '  ')).toBe(MESSAGES.required);
    expect(paramProblem(p({ type: 'bytes', required: true }), '')).toBe('This field is required');
    expect(paramProblem(p({ type: 'millicores', required: true }), '')).toBe('This field is required');
    expect(paramProblem(p({}), '')).toBeUndefined();
    expect(paramProblem(p({ type: 'checkbox', required: true }), false)).toBeUndefined();
  });

  it('reads bytes in Mi, Gi or Ti (Mi by default) within min and max', () => {
    const bytes = p({ type: 'bytes', properties: { min: '64Mi', max: '4Gi' } });
    expect(paramProblem(bytes, '512Mi')).toBeUndefined();
    expect(paramProblem(bytes, '512')).toBeUndefined();
    expect(paramProblem(bytes, '2Gi')).toBeUndefined();
    expect(paramProblem(bytes, '32Mi')).toBe('Must be at least 64Mi');
    expect(paramProblem(bytes, '1Ti')).toBe('Must be at most 4Gi');
    expect(paramProblem(bytes, '1GB')).toBe(MESSAGES.bytes);
  });

  it('takes millicores with the suffix m, bounds as numbers or with m', () => {
    const cpu = p({ type: 'millicores', properties: { min: 100, max: '2000m' } });
    expect(paramProblem(cpu, '500m')).toBeUndefined();
    expect(paramProblem(cpu, '500')).toBe(MESSAGES.millicores);
    expect(paramProblem(cpu, '50m')).toBe('Must be at least 100');
    expect(paramProblem(cpu, '2500m')).toBe('Must be at most 2000m');
  });

  it('checks multiline text by its lengths and regex, but not by format', () => {
    const text = p({ properties: { multiline: true, minLength: 5, maxLength: 8, regex: '[a-z\\n]+', format: 'dns1123' } });
    expect(paramProblem(text, 'abc')).toBe('Must be at least 5 characters');
    expect(paramProblem(text, 'abcdefghi')).toBe('Must be at most 8 characters');
    expect(paramProblem(text, 'abcDEF')).toBe('Must match the pattern [a-z\\n]+');
    expect(paramProblem(text, 'abc\ndef')).toBeUndefined();
  });

  it('checks dns1123 and number formats of one-line text', () => {
    const dns = p({ properties: { format: 'dns1123' } });
    expect(paramProblem(dns, 'my-app.prod')).toBeUndefined();
    expect(paramProblem(dns, 'My-App')).toBe(MESSAGES.dns1123);
    expect(paramProblem(dns, '-app')).toBe(MESSAGES.dns1123);
    expect(paramProblem(dns, 'app.-x')).toBe(MESSAGES.dns1123);
    const n = p({ properties: { format: 'number', min: 1, max: 10 } });
    expect(paramProblem(n, 'ten')).toBe(MESSAGES.number);
    expect(paramProblem(n, '11')).toBe('Must be at most 10');
    expect(paramProblem(n, '3')).toBeUndefined();
  });

  it('checks durations and code by its language', () => {
    expect(paramProblem(p({ type: 'duration' }), '1h30m')).toBeUndefined();
    expect(paramProblem(p({ type: 'duration' }), 'soon')).toBe(MESSAGES.duration);
    expect(paramProblem(p({ type: 'code', properties: { language: 'json' } }), '{"a":')).toBe('Must be valid JSON');
    expect(paramProblem(p({ type: 'code', properties: { language: 'yaml' } }), 'a: [1')).toBe('Must be valid YAML');
    expect(paramProblem(p({ type: 'code', properties: { language: 'yaml' } }), 'a: 1')).toBeUndefined();
  });
});

describe('defaults and values', () => {
  it('writes a code default that is an object in its language', () => {
    expect(initialValue(p({ type: 'code', default: { a: 1 }, properties: { language: 'yaml' } }))).toBe('a: 1\n');
    expect(initialValue(p({ type: 'code', default: { a: 1 }, properties: { language: 'json' } }))).toBe('{\n  "a": 1\n}');
    expect(initialValue(p({ type: 'checkbox', default: 'true' }))).toBe(true);
    expect(initialValue(p({ type: 'configs', default: 'id-1' }))).toEqual(['id-1']);
    expect(initialValue(p({ default: 3 }))).toBe('3');
  });

  it('sends checkboxes as text, bytes with their unit, and leaves out empty values', () => {
    const params = [p({ name: 'ok', type: 'checkbox' }), p({ name: 'mem', type: 'bytes' }), p({ name: 'note' })];
    expect(requestParams(params, { ok: false, mem: '512', note: '' })).toEqual({ ok: 'false', mem: '512Mi' });
  });

  it('lists each invalid parameter by name', () => {
    const params = [p({ name: 'a', required: true }), p({ name: 'b', type: 'bytes' })];
    expect(formProblems(params, { a: '', b: '1x' })).toEqual({ a: MESSAGES.required, b: MESSAGES.bytes });
    expect(formProblems(params, { a: 'x', b: '1Gi' })).toEqual({});
  });
});
