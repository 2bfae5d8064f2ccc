import { usePreference } from '../app/preferences';
import { formatDateTime } from '../lib/format';
import { BROWSER_ZONE } from '../lib/timezones';

/** A date in the user's preferred format and zone; it follows changes to
 * either. The full timestamp shows on hover. */
export function DateTime({ value }: { value: string | null | undefined }) {
  const [format] = usePreference('dateTimeFormat');
  const [zone] = usePreference('displayTimezone');
  const timeZone = zone === BROWSER_ZONE ? undefined : zone;
  const text = formatDateTime(value, format, timeZone);
  if (!text) return null;
  return (
    <time dateTime={value ?? undefined} title={format === 'timestamp' ? undefined : formatDateTime(value, 'timestamp', timeZone)}>
      {text}
    </time>
  );
}
