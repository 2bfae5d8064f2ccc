import type { SsoProvider, SsoProviderInput } from './useSsoProvidersData';

/** One mapping row of the form: a group and `role:NAME` or `team:ID`. */
export interface MappingRow {
  group: string;
  target: string;
}

export interface SsoForm {
  slug: string;
  label: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  groupsClaim: string;
  createPeople: boolean;
  defaultRole: string;
  enabled: boolean;
  mappings: MappingRow[];
}

export const EMPTY_FORM: SsoForm = {
  slug: '',
  label: '',
  issuer: '',
  clientId: '',
  clientSecret: '',
  scopes: 'openid email profile',
  groupsClaim: 'groups',
  createPeople: false,
  defaultRole: '',
  enabled: true,
  mappings: [],
};

/** The form of a stored provider (the secret is never shown: blank keeps it). */
export function formOf(p: SsoProvider): SsoForm {
  return {
    slug: p.slug,
    label: p.label,
    issuer: p.issuer,
    clientId: p.client_id,
    clientSecret: '',
    scopes: p.scopes.join(' '),
    groupsClaim: p.groups_claim ?? '',
    createPeople: p.create_people,
    defaultRole: p.default_role ?? '',
    enabled: p.enabled,
    mappings: p.mappings.map((m) => ({ group: m.group, target: m.role ? `role:${m.role}` : `team:${m.team ?? ''}` })),
  };
}

/** The body the API takes; a blank secret is left out (kept when editing). */
export function bodyOf(form: SsoForm): SsoProviderInput {
  const body: SsoProviderInput = {
    slug: form.slug.trim(),
    label: form.label.trim(),
    issuer: form.issuer.trim(),
    client_id: form.clientId.trim(),
    scopes: form.scopes.split(/\s+/).filter(Boolean),
    groups_claim: form.groupsClaim.trim() || null,
    create_people: form.createPeople,
    default_role: (form.defaultRole || null) as SsoProviderInput['default_role'],
    enabled: form.enabled,
    mappings: form.mappings
      .filter((m) => m.group.trim() && m.target)
      .map((m) => {
        const [kind, value] = [m.target.slice(0, 5), m.target.slice(5)];
        return kind === 'role:'
          ? { group: m.group.trim(), role: value as NonNullable<SsoProviderInput['default_role']> }
          : { group: m.group.trim(), team: value };
      }),
  };
  if (form.clientSecret) body.client_secret = form.clientSecret;
  return body;
}

/** The form field a server's `field` names. */
export function formField(field: string): string {
  if (field.startsWith('mappings')) return 'mappings';
  return { client_id: 'clientId', client_secret: 'clientSecret', groups_claim: 'groupsClaim', default_role: 'defaultRole' }[field] ?? field;
}
