/** A config item's properties as the header shows them: a name, a value
 * (text or number with its unit) and links. Scrapers write them as a list of
 * `{name, label, text, value, unit, links[{label, url}]}`. */
export interface Property {
  name: string;
  value: string;
  links: { label: string; url: string }[];
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : JSON.stringify(value);
}

/** Only http(s) links: a property comes from scraped data and must not carry
 * a `javascript:` URL into a link. */
function safeUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

export function propertiesOf(properties: unknown): Property[] {
  if (!Array.isArray(properties)) return [];
  return properties.flatMap((p): Property[] => {
    if (!p || typeof p !== 'object') return [];
    const row = p as Record<string, unknown>;
    const name = text(row.label) || text(row.name);
    const raw = row.text ?? row.value;
    const unit = text(row.unit);
    const value = text(raw) && unit ? `${text(raw)} ${unit}` : text(raw);
    const links = (Array.isArray(row.links) ? row.links : []).flatMap((l: unknown) => {
      const link = (l ?? {}) as Record<string, unknown>;
      const url = safeUrl(link.url);
      return url ? [{ label: text(link.label) || text(link.text) || url, url }] : [];
    });
    return name && (value || links.length > 0) ? [{ name, value, links }] : [];
  });
}
