import { describe, expect, expectTypeOf, it } from 'vitest';
import { url, type Selected } from './db';

describe('data API query strings', () => {
  it('reads every column unless told, filters and orders by name', () => {
    expect(url('teams', { deleted_at: 'is.null', order: 'name.asc', limit: undefined })).toBe(
      '/api/db/teams?deleted_at=is.null&order=name.asc',
    );
  });

  it('selects the columns and embeds, all columns beside embeds', () => {
    expect(decodeURIComponent(url('teams', { columns: ['id', 'name'], id: 'eq.1' }))).toBe('/api/db/teams?select=id,name&id=eq.1');
    expect(decodeURIComponent(url('teams', { embed: { created_by: ['id', 'name'] } }))).toBe('/api/db/teams?select=*,created_by(id,name)');
    expect(decodeURIComponent(url('team_members', { columns: [], embed: { person: ['id'] } }))).toBe(
      '/api/db/team_members?select=person(id)',
    );
  });

  it('types a row by its relation, columns and embeds', () => {
    // An embedded row may be missing (null); only the selected columns are there.
    type Row = Selected<'teams', 'id', { created_by: readonly ['name'] }>;
    expectTypeOf<Row['id']>().toEqualTypeOf<string>();
    expectTypeOf<Row['created_by']>().toEqualTypeOf<{ name: string } | null>();
    expectTypeOf<Row>().not.toHaveProperty('name');
    expectTypeOf<Selected<'teams', 'id', { team_members: readonly ['person_id'] }>['team_members']>().toEqualTypeOf<
      { person_id: string }[]
    >();
  });
});
