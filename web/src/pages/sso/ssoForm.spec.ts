import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, bodyOf, formField, formOf } from './ssoForm';

describe('the single sign-on provider form', () => {
  it('turns the form into the API body and back', () => {
    const body = bodyOf({
      ...EMPTY_FORM,
      slug: 'corp',
      label: ' Corp ',
      issuer: 'https://id.example.com',
      clientId: 'qd',
      clientSecret: 's3cret',
      scopes: 'openid  email groups',
      defaultRole: 'viewer',
      mappings: [
        { group: 'admins', target: 'role:admin' },
        { group: 'sre', target: 'team:5b1e' },
        { group: '', target: 'role:editor' },
      ],
    });
    expect(body).toEqual({
      slug: 'corp',
      label: 'Corp',
      issuer: 'https://id.example.com',
      client_id: 'qd',
      client_secret: 's3cret',
      scopes: ['openid', 'email', 'groups'],
      groups_claim: 'groups',
      create_people: false,
      default_role: 'viewer',
      enabled: true,
      mappings: [
        { group: 'admins', role: 'admin' },
        { group: 'sre', team: '5b1e' },
      ],
    });
    const form = formOf({
      ...body,
      id: 'x',
      client_id: 'qd',
      client_secret_set: true,
      scopes: body.scopes ?? [],
      groups_claim: body.groups_claim ?? null,
      create_people: false,
      default_role: 'viewer',
      enabled: true,
      mappings: body.mappings ?? [],
      redirect_uri: 'https://qd.example.com/api/auth/sso/corp/callback',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    });
    expect(form.clientSecret).toBe('');
    expect(bodyOf(form).client_secret).toBeUndefined();
    expect(form.mappings).toEqual([
      { group: 'admins', target: 'role:admin' },
      { group: 'sre', target: 'team:5b1e' },
    ]);
  });

  it('maps the server field names onto the form', () => {
    expect(formField('client_id')).toBe('clientId');
    expect(formField('mappings[0].role')).toBe('mappings');
    expect(formField('issuer')).toBe('issuer');
  });
});
