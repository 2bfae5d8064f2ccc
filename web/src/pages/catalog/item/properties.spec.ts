import { describe, expect, it } from 'vitest';
import { propertiesOf } from './properties';

describe('propertiesOf', () => {
  it('shows a name, a value with its unit and safe links', () => {
    expect(
      propertiesOf([
        { name: 'cpu', value: 2, unit: 'cores' },
        {
          name: 'url',
          label: 'Console',
          text: 'open',
          links: [{ label: 'AWS', url: 'https://aws.example/x' }, { url: 'javascript:alert(1)' }],
        },
        { name: 'empty' },
        'junk',
      ]),
    ).toEqual([
      { name: 'cpu', value: '2 cores', links: [] },
      { name: 'Console', value: 'open', links: [{ label: 'AWS', url: 'https://aws.example/x' }] },
    ]);
    expect(propertiesOf(null)).toEqual([]);
    expect(propertiesOf({ a: 1 })).toEqual([]);
  });
});
