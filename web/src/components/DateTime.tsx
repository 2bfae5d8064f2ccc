import { readPreference } from '../app/preferences';
import { formatDateTime } from '../lib/format';

/** A date in the user's preferred format and zone. */
export function DateTime({ value }: { value: string | null | undefined }) {
  const zone = readPreference('displayTimezone');
  const text = formatDateTime(value, readPreference('dateTimeFormat'), zone === 'Browser' ? undefined : zone);
  return text ? <time dateTime={value ?? undefined}>{text}</time> : null;
}
