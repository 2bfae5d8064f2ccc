import type { IconChoice } from '../../components/resource-editor/IconPicker';
import type { Option } from '../../components/Selects';
import { CheckIcon } from '../health/detail/CheckIcon';

/** The icon names offered for a canary and its check: those the Health
 * page's CheckIcon shows with a look of their own. */
const NAMES = ['http', 'tcp', 'dns', 'icmp', 'exec', 'postgres', 'mysql', 'redis', 'sql', 'folder', 'prometheus', 'kubernetes'];

/** How an icon name looks on the Health page (a heartbeat when it knows none). */
export const renderCheckIcon = (name: string) => <CheckIcon icon={name} type="" />;

export const CHECK_ICONS: readonly IconChoice[] = NAMES.map((name) => ({ name, icon: renderCheckIcon(name) }));

/** The check item's icon choices as the IconPicker lists them (None, the
 * names, the current value when it is another): that picker names its toggle
 * 'Icon', which the canary's own picker already is. */
export function checkIconOptions(value: string): Option[] {
  const names = value && !NAMES.includes(value) ? [...NAMES, value] : NAMES;
  return [{ value: '', label: 'None' }, ...names.map((name) => ({ value: name, label: name, icon: renderCheckIcon(name) }))];
}
