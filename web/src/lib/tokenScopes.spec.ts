import { describe, expect, it } from 'vitest';
import { TOKEN_OBJECTS, actionsOf, isValidTokenName, levelOf, levelsFor, mcpSetupActions, presetActions, toGrants } from './tokenScopes';

describe('presets', () => {
  it('MCP setup: mcp at Admin, read on the rest', () => {
    const mcp = mcpSetupActions();
    expect(levelOf('mcp', mcp.mcp)).toBe('Admin');
    for (const o of TOKEN_OBJECTS.filter((o) => o !== 'mcp')) expect(levelOf(o, mcp[o])).toBe('Read');
  });
  it('Read: read everywhere, wildcard on mcp', () => {
    const read = presetActions('Read');
    expect(read.mcp).toEqual(['*']);
    for (const o of TOKEN_OBJECTS.filter((o) => o !== 'mcp')) expect(read[o]).toEqual(['read']);
  });
  it('Write: read and create, so no mcp (its only action is the wildcard)', () => {
    const write = presetActions('Write');
    expect(write.canaries).toEqual(['read', 'create']);
    expect(write.playbooks).toEqual(['read', 'create']);
    expect(write.mcp).toEqual([]);
  });
  it('Admin: all actions, playbook run and approve only under playbooks', () => {
    const admin = presetActions('Admin');
    expect(admin.catalog).toEqual(['read', 'create', 'update', 'delete']);
    expect(admin.playbooks).toEqual(['read', 'create', 'update', 'delete', 'playbook:run', 'playbook:approve']);
    expect(admin.notification).not.toContain('playbook:run');
    expect(admin.mcp).toEqual(['*']);
  });
});

describe('levels', () => {
  it('offers per-object levels', () => {
    expect(levelsFor('mcp').map((l) => l.level)).toEqual(['None', 'Admin']);
    expect(levelsFor('playbooks').map((l) => l.level)).toEqual(['None', 'Read', 'Run', 'Approve', 'Write']);
    expect(levelsFor('canaries').map((l) => l.level)).toEqual(['None', 'Read', 'Write', 'Admin']);
  });
  it('maps levels to actions and back', () => {
    expect(actionsOf('playbooks', 'Approve')).toEqual(['read', 'playbook:run', 'playbook:approve']);
    expect(actionsOf('catalog', 'Admin')).toEqual(['read', 'create', 'update', 'delete']);
    expect(levelOf('catalog', ['create', 'read'])).toBe('Write');
    expect(levelOf('playbooks', ['read', 'create'])).toBeUndefined();
    expect(levelOf('mcp', [])).toBe('None');
  });
});

it('builds grants for objects with actions', () => {
  const actions = { ...presetActions('Read'), catalog: [], playbooks: ['read', 'playbook:run'] };
  expect(toGrants(actions)).toEqual([
    { object: 'mcp', action: '*' },
    { object: 'canaries', action: 'read' },
    { object: 'application', action: 'read' },
    { object: 'playbooks', action: 'read,playbook:run' },
    { object: 'notification', action: 'read' },
  ]);
  expect(toGrants(actions, 'u1')[0]).toEqual({ subject: 'u1', object: 'mcp', action: '*' });
});

it('requires a token name', () => {
  expect(isValidTokenName('  ')).toBe(false);
  expect(isValidTokenName(' ci ')).toBe(true);
});
