import { Bullseye, EmptyState, Spinner, ToggleGroup, ToggleGroupItem, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { ErrorPanel } from '../../../../components/ErrorPanel';
import { SimpleSelect } from '../../../../components/Selects';
import { RelationshipsGraph } from './RelationshipsGraph';
import { RelationshipsList } from './RelationshipsList';
import { DEPTHS, DIRECTIONS, type Direction } from './relationshipsParams';
import { useRelationshipsData } from './useRelationshipsData';
import { useRelationshipsParams } from './useRelationshipsParams';

const DIRECTION_LABELS: Record<Direction, string> = { incoming: 'Incoming', outgoing: 'Outgoing', both: 'Both' };
const DEPTH_OPTIONS = DEPTHS.map((d) => ({ value: String(d), label: d === 1 ? '1 hop' : `${d} hops` }));

/** The item's related configs, walked the chosen way up to the chosen depth,
 * as a graph centred on the item or as a list; all of it in the URL. */
export function RelationshipsTab({ configId }: { configId: string }) {
  const [params, update] = useRelationshipsParams();
  const { item, related } = useRelationshipsData(configId, params.direction, params.depth);
  const rows = related.data ?? [];

  let body;
  if (related.isLoading) {
    body = (
      <Bullseye>
        <Spinner size="lg" aria-label="Loading" />
      </Bullseye>
    );
  } else if (related.error) {
    body = <ErrorPanel error={related.error} />;
  } else if (rows.length === 0) {
    body = <EmptyState titleText="No data available" headingLevel="h3" variant="sm" />;
  } else if (params.view === 'list') {
    body = <RelationshipsList related={rows} />;
  } else {
    const root = item.data ?? { id: configId, name: null, type: '', health: null };
    body = <RelationshipsGraph root={root} related={rows} />;
  }

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <ToggleGroup aria-label="Direction" isCompact>
              {DIRECTIONS.map((d) => (
                <ToggleGroupItem
                  key={d}
                  text={DIRECTION_LABELS[d]}
                  buttonId={`qd-rel-direction-${d}`}
                  isSelected={params.direction === d}
                  onChange={() => update({ direction: d })}
                />
              ))}
            </ToggleGroup>
          </ToolbarItem>
          <ToolbarItem>
            <SimpleSelect
              label="Depth"
              options={DEPTH_OPTIONS}
              value={String(params.depth)}
              onChange={(v) => update({ depth: Number(v) })}
            />
          </ToolbarItem>
          <ToolbarItem>
            <ToggleGroup aria-label="View" isCompact>
              <ToggleGroupItem
                text="Graph"
                buttonId="qd-rel-view-graph"
                isSelected={params.view === 'graph'}
                onChange={() => update({ view: 'graph' })}
              />
              <ToggleGroupItem
                text="List"
                buttonId="qd-rel-view-list"
                isSelected={params.view === 'list'}
                onChange={() => update({ view: 'list' })}
              />
            </ToggleGroup>
          </ToolbarItem>
          {rows.length > 0 && (
            <ToolbarItem alignSelf="center">{rows.length === 1 ? '1 related item' : `${rows.length} related items`}</ToolbarItem>
          )}
        </ToolbarContent>
      </Toolbar>
      {body}
    </>
  );
}
