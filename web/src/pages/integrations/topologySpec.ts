// The chart's CRD, generated from the crds crate: the one copy of the schema.
import crdYaml from '../../../../charts/quarterdeck/crds/topologies.quarterdeck.dev.yaml?raw';
import { crdSpecSchema } from '../../components/resource-editor/specSchema';
import type { JsonObject } from '../../lib/yamlText';

/** What the console's topology forms check a spec against before saving it. */
export const TOPOLOGY_SPEC_SCHEMA = crdSpecSchema(crdYaml);

/** Topologies run every 10 minutes unless their spec says otherwise. */
export const DEFAULT_TOPOLOGY_SCHEDULE = '@every 10m';

/** Help under a topology's Spec field. */
export const TOPOLOGY_SPEC_HELPER = `YAML: type, icon, schedule (default ${DEFAULT_TOPOLOGY_SCHEDULE}), components, properties, configs, …`;

/** The spec is where a topology's `schedule` and `icon` live (the engine reads
 * them there); the `schedule` column mirrors the spec's, as the operator writes
 * it for a Topology resource, for the lists. */
export function topologyColumns(spec: JsonObject): { schedule: string } {
  return { schedule: typeof spec.schedule === 'string' && spec.schedule ? spec.schedule : DEFAULT_TOPOLOGY_SCHEDULE };
}
