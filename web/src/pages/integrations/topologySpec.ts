import type { SpecSchema } from '../../components/resource-editor/specSchema';
import type { JsonObject } from '../../lib/yamlText';

/** The Topology CRD's `spec` schema (charts/quarterdeck/crds/topologies.quarterdeck.dev.yaml,
 * generated from the `crds` crate; a unit test keeps the two equal): what the
 * console's topology forms check a spec against before saving it. */
export const TOPOLOGY_SPEC_SCHEMA: SpecSchema = {
  properties: {
    components: {
      description: 'Child components (nested, with lookups and forEach), kept as written.',
      items: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      type: 'array',
    },
    configs: {
      description: 'Catalog items linked to the root.',
      items: {
        description: "Selects catalog items: the fields of every selector plus the catalog's own keys.",
        properties: {
          agent: {
            description: 'Agent id or name; `self` selects resources without an agent.',
            nullable: true,
            type: 'string',
          },
          cache: {
            description: 'Cache directive: `no-cache`, `no-store` or `max-age=<duration>`.',
            nullable: true,
            type: 'string',
          },
          class: {
            description: 'Config class, e.g. `Deployment`.',
            nullable: true,
            type: 'string',
          },
          external_id: {
            description: 'Id of the item in the system it was scraped from.',
            nullable: true,
            type: 'string',
          },
          fieldSelector: {
            nullable: true,
            type: 'string',
          },
          health: {
            description: 'Comma-separated health values.',
            nullable: true,
            type: 'string',
          },
          id: {
            nullable: true,
            type: 'string',
          },
          includeDeleted: {
            nullable: true,
            type: 'boolean',
          },
          labelSelector: {
            nullable: true,
            type: 'string',
          },
          limit: {
            format: 'int64',
            nullable: true,
            type: 'integer',
          },
          name: {
            nullable: true,
            type: 'string',
          },
          namespace: {
            nullable: true,
            type: 'string',
          },
          scope: {
            description: 'Parent of the resource: scraper for configs, canary for checks, topology for components.',
            nullable: true,
            type: 'string',
          },
          search: {
            nullable: true,
            type: 'string',
          },
          statuses: {
            items: {
              type: 'string',
            },
            nullable: true,
            type: 'array',
          },
          tagSelector: {
            nullable: true,
            type: 'string',
          },
          tags: {
            additionalProperties: {
              type: 'string',
            },
            description: 'Tags the item must have.',
            nullable: true,
            type: 'object',
          },
          type: {
            description: 'Config type, e.g. `Kubernetes::Pod`.',
            nullable: true,
            type: 'string',
          },
          types: {
            items: {
              type: 'string',
            },
            nullable: true,
            type: 'array',
          },
        },
        type: 'object',
      },
      nullable: true,
      type: 'array',
    },
    groupBy: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    healthExpr: {
      description: "CEL expression giving the root's health.",
      nullable: true,
      type: 'string',
    },
    icon: {
      nullable: true,
      type: 'string',
    },
    id: {
      description: 'External id of the root component: a string or a template.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    label: {
      nullable: true,
      type: 'string',
    },
    owner: {
      nullable: true,
      type: 'string',
    },
    properties: {
      description: 'Properties shown on the root, kept as written.',
      items: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      type: 'array',
    },
    push: {
      description: 'Where the result is pushed (an upstream instance), kept as written.',
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    schedule: {
      description: 'Defaults to `@every 10m`.',
      nullable: true,
      type: 'string',
    },
    statusExpr: {
      description: "CEL expression giving the root's status.",
      nullable: true,
      type: 'string',
    },
    text: {
      nullable: true,
      type: 'string',
    },
    tooltip: {
      nullable: true,
      type: 'string',
    },
    type: {
      description: 'Type of the root component.',
      nullable: true,
      type: 'string',
    },
  },
  type: 'object',
};

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
