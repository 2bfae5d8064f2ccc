import { describe, expect, it } from 'vitest';
import { formatOf, toJsonText, toYamlText } from './configText';

describe('config text', () => {
  it('is YAML unless the URL asks for JSON', () => {
    expect(formatOf(null)).toBe('YAML');
    expect(formatOf('json')).toBe('JSON');
    expect(formatOf('yaml')).toBe('YAML');
  });

  it('writes both formats', () => {
    expect(toJsonText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(toYamlText({ a: 'on' })).toBe('a: "on"\n');
    expect(toJsonText(undefined)).toBe('');
  });
});
