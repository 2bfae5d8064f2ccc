/** Feature flags: a feature is disabled when the property `{feature}.disable`
 * is 'true'; some settings pages inherit from their main feature. */

export interface Property {
  name: string;
  value: string | null;
}

const INHERITS: Record<string, string> = {
  'settings.config_scraper': 'config',
  'settings.topology': 'topology',
  'settings.health': 'health',
  'settings.job_history': 'health',
};

export function disabledFeatures(properties: readonly Property[]): Set<string> {
  const disabled = new Set<string>();
  for (const p of properties) {
    if (p.name.endsWith('.disable') && (p.value ?? '').trim().toLowerCase() === 'true') {
      disabled.add(p.name.slice(0, -'.disable'.length));
    }
  }
  return disabled;
}

export function isFeatureEnabled(disabled: ReadonlySet<string>, feature: string): boolean {
  if (disabled.has(feature)) return false;
  const parent = INHERITS[feature];
  return parent === undefined || !disabled.has(parent);
}
