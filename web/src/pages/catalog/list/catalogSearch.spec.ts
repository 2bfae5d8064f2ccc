import { expect, test } from 'vitest';
import { parseSearch } from './catalogSearch';

test('the hint example: name, type and a list of healths', () => {
  expect(parseSearch('name=grafana type=Kubernetes::Deployment health=healthy,unhealthy')).toEqual({
    names: [['grafana']],
    types: ['Kubernetes::Deployment'],
    health: ['healthy', 'unhealthy'],
    tags: {},
    labels: {},
    text: '',
  });
});

test('free text is what the name contains; terms and text mix in any order', () => {
  const terms = parseSearch('web status=Running api');
  expect(terms.text).toBe('web api');
  expect(terms.status).toEqual(['Running']);
});

test('tag. and label. keys, and unknown keys as tags', () => {
  const terms = parseSearch('tag.env=prod label.app.kubernetes.io/name=web namespace=default,kube-system');
  expect(terms.tags).toEqual({ env: ['prod'], namespace: ['default', 'kube-system'] });
  expect(terms.labels).toEqual({ 'app.kubernetes.io/name': ['web'] });
});

test('a key given twice narrows to the values in both', () => {
  expect(parseSearch('health=healthy,warning health=warning').health).toEqual(['warning']);
  expect(parseSearch('env=a,b env=c').tags).toEqual({ env: [] });
  expect(parseSearch('name=a name=b').names).toEqual([['a'], ['b']]);
});

test('quoted values keep their spaces; a term still being typed is ignored', () => {
  const terms = parseSearch('name="my app" type=');
  expect(terms.names).toEqual([['my app']]);
  expect(terms.types).toBeUndefined();
});

test('health values are case-insensitive; agent names are kept as typed', () => {
  const terms = parseSearch('HEALTH=Healthy agent=Edge-1');
  expect(terms.health).toEqual(['healthy']);
  expect(terms.agents).toEqual(['Edge-1']);
});

test('keys that would reach the object prototype are dropped', () => {
  expect(Object.keys(parseSearch('__proto__=x tag.constructor=y').tags)).toEqual([]);
});
