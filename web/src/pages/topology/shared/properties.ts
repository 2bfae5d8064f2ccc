import type { Property } from './types';

/** Byte sizes from B to YB in 1024 steps (spec part 2, constants). */
const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];

/** At most two decimals, none when whole: 1.5, 2, 0.33. */
function decimal(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** 1536 -> '1.5 KB'. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${decimal(value)} ${BYTE_UNITS[unit]}`;
}

/** 250 -> '250m'; a core or more reads in cores, 1500 -> '1.5'. */
export function formatMillicores(millicores: number): string {
  return Math.abs(millicores) < 1000 ? `${decimal(millicores)}m` : decimal(millicores / 1000);
}

/** A number in its unit: bytes and millicores scaled, anything else written after it. */
export function formatValue(value: number, unit: string | null | undefined): string {
  switch ((unit ?? '').toLowerCase()) {
    case 'bytes':
      return formatBytes(value);
    case 'millicores':
    case 'millicore':
      return formatMillicores(value);
    case '':
      return decimal(value);
    case '%':
    case 'percent':
      return `${decimal(value)}%`;
    default:
      return `${decimal(value)} ${unit}`;
  }
}

/** What a property is called: its label, else its name. */
export function propertyName(property: Property): string {
  return property.label || property.name || '';
}

/** What a property shows: its text, else its value in its unit ('' when neither). */
export function propertyText(property: Property): string {
  if (property.text) return property.text;
  if (typeof property.value === 'number') return formatValue(property.value, property.unit);
  return '';
}

export interface Gauge {
  /** value / max, in percent, unclamped. */
  percent: number;
  /** The bar's width in percent: clamped between 5 and 100. */
  width: number;
  color: 'green' | 'orange' | 'red';
  /** '1.5 GB / 4 GB'. */
  text: string;
}

/** The memory-usage bar of the spec (part 2 section 2.11), for any property
 * with a value and a positive max: green up to 75 percent, orange above 75,
 * red above 90, width clamped between 5 and 100 percent. */
export function gaugeOf(property: Property): Gauge | undefined {
  const { value, max, min } = property;
  if (typeof value !== 'number' || typeof max !== 'number') return undefined;
  const low = typeof min === 'number' ? min : 0;
  if (max <= low) return undefined;
  const percent = ((value - low) / (max - low)) * 100;
  return {
    percent,
    width: Math.min(100, Math.max(5, percent)),
    color: percent > 90 ? 'red' : percent > 75 ? 'orange' : 'green',
    text: `${formatValue(value, property.unit)} / ${formatValue(max, property.unit)}`,
  };
}

/** Properties a card shows: headline ones first, then by `order` (unordered
 * last), otherwise as written; `hidden` ones and those with nothing to show
 * are left out. */
export function cardProperties(properties: readonly Property[] | null | undefined): Property[] {
  return (properties ?? [])
    .map((property, index) => ({ property, index }))
    .filter(({ property }) => property.type !== 'hidden' && (propertyText(property) !== '' || gaugeOf(property)))
    .sort(
      (a, b) =>
        Number(!!b.property.headline) - Number(!!a.property.headline) ||
        (a.property.order ?? Infinity) - (b.property.order ?? Infinity) ||
        a.index - b.index,
    )
    .map(({ property }) => property);
}
