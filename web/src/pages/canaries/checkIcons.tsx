import type { IconChoice } from '../../components/resource-editor/IconPicker';
import { CHECK_ICON_NAMES, CheckIcon } from '../health/detail/CheckIcon';

/** How an icon name looks on the Health page (a heartbeat when it knows none). */
export const renderCheckIcon = (name: string) => <CheckIcon icon={name} type="" />;

/** The icon names offered for a canary and its check: those the Health
 * page's CheckIcon shows with a look of their own. */
export const CHECK_ICONS: readonly IconChoice[] = CHECK_ICON_NAMES.map((name) => ({ name, icon: renderCheckIcon(name) }));
