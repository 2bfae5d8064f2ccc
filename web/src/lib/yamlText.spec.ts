import { expect, it } from 'vitest';
import { parseYamlObject, toYamlText } from './yamlText';

it('parses mappings; empty text is an empty object', () => {
  expect(parseYamlObject('a: 1\nb:\n  - x\n')).toEqual({ value: { a: 1, b: ['x'] } });
  expect(parseYamlObject('')).toEqual({ value: {} });
  expect(parseYamlObject('  \n')).toEqual({ value: {} });
  expect(parseYamlObject('# only a comment')).toEqual({ value: {} });
});

it('reports parse errors on one line with their position', () => {
  expect(parseYamlObject('a: [1')).toEqual({
    error: 'Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 6',
  });
  expect(parseYamlObject('a: 1\na: 2')).toEqual({ error: 'Map keys must be unique at line 2, column 1' });
  expect(parseYamlObject('\t- a').error).toMatch(/^Tabs are not allowed as indentation at line 1/);
});

it('refuses YAML that is not a mapping', () => {
  expect(parseYamlObject('- 1\n- 2').error).toBe('Must be a YAML mapping (key: value pairs)');
  expect(parseYamlObject('just text').error).toBe('Must be a YAML mapping (key: value pairs)');
});

it('writes objects back as YAML, and nothing for an empty one', () => {
  expect(toYamlText({ a: 1, b: ['x'] })).toBe('a: 1\nb:\n  - x\n');
  expect(toYamlText({})).toBe('');
  expect(toYamlText(null)).toBe('');
  expect(parseYamlObject(toYamlText({ nested: { deep: [1, 'two'] } }))).toEqual({ value: { nested: { deep: [1, 'two'] } } });
});

it('quotes what YAML 1.1 readers (kubectl, Helm, Flux) would take for booleans or numbers', () => {
  const text = toYamlText({ on: ['push'], namespace: 'yes', mode: '0777', at: '1:20', n: 'n', size: '1e3', count: 5 });
  expect(text).toContain('"on":');
  for (const quoted of ['"yes"', '"0777"', '"1:20"', '"n": "n"', '"1e3"']) expect(text).toContain(quoted);
  expect(text).toContain('count: 5');
  expect(parseYamlObject(text).value).toEqual({ on: ['push'], namespace: 'yes', mode: '0777', at: '1:20', n: 'n', size: '1e3', count: 5 });
});
