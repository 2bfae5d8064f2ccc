import type { ResourceKind } from '../../../components/resource-editor/ResourceEditor';
import { DEFAULT_TOPOLOGY_SCHEDULE, TOPOLOGY_SPEC_HELPER, TOPOLOGY_SPEC_SCHEMA, topologyColumns } from '../../integrations/topologySpec';
import { ComponentIcon } from '../shared/ComponentIcon';

/** The icon names the picker offers: one per look the topology cards know. */
const ICONS = [
  'kubernetes',
  'aws',
  'azure',
  'gcp',
  'cloud',
  'git',
  'postgres',
  'mysql',
  'database',
  'redis',
  'http',
  'dns',
  'network',
  'server',
];

const render = (name: string) => <ComponentIcon icon={name} type={null} />;

/** A topology in the generic resource editor: namespaced, its icon and
 * schedule in its spec, the spec checked against the Topology CRD's schema. */
export const TOPOLOGY_KIND: ResourceKind = {
  id: 'topology',
  schema: TOPOLOGY_SPEC_SCHEMA,
  hasNamespace: true,
  icons: { choices: ICONS.map((name) => ({ name, icon: render(name) })), render },
  defaultSchedule: `The default, ${DEFAULT_TOPOLOGY_SCHEDULE}`,
  columns: topologyColumns,
  specHelper: TOPOLOGY_SPEC_HELPER,
};
