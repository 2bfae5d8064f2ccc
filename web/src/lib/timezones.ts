/** Display timezone choices: 'Browser' first (the default), then the zones the
 * browser knows, sorted by their current UTC offset and then by name. */

export const BROWSER_ZONE = 'Browser';

export interface ZoneOption {
  value: string;
  label: string;
}

/** Minutes east of UTC of a zone at an instant, from its 'GMT+05:30' name. */
export function zoneOffsetMinutes(timeZone: string, at: Date): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')
      ?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function timeZoneOptions(zones: readonly string[] = supportedZones(), at: Date = new Date()): ZoneOption[] {
  const sorted = zones
    .map((zone) => ({ zone, offset: zoneOffsetMinutes(zone, at) }))
    .sort((a, b) => a.offset - b.offset || a.zone.localeCompare(b.zone));
  return [
    { value: BROWSER_ZONE, label: BROWSER_ZONE },
    ...sorted.map(({ zone, offset }) => ({ value: zone, label: `(${offsetLabel(offset)}) ${zone}` })),
  ];
}

function supportedZones(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : [...zones, 'UTC'];
}
