import { expect, it } from 'vitest';
import { FRONTEND_VERSION, versionLine } from './version';

it('names both versions, and NA for a back end that did not say', () => {
  expect(versionLine('0.1.0')).toBe(`frontend ${FRONTEND_VERSION} backend 0.1.0`);
  expect(versionLine(undefined)).toBe(`frontend ${FRONTEND_VERSION} backend NA`);
  expect(versionLine('')).toBe(`frontend ${FRONTEND_VERSION} backend NA`);
});
