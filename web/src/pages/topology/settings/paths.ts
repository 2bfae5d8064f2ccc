export const TOPOLOGY_SETTINGS_PATH = '/settings/topology';
export const topologySettingsPath = (id: string) => `${TOPOLOGY_SETTINGS_PATH}/${id}`;
/** Where the user goes after updating or deleting a topology (spec part 2, 2.5). */
export const AFTER_WRITE_PATH = '/settings/integrations';
