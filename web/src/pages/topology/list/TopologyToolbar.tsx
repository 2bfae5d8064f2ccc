import { Switch, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { FilterItem, MultiSelectFilter } from '../../../components/FilterItem';
import { SearchBox } from '../../../components/SearchBox';
import { SimpleSelect, type Option } from '../../../components/Selects';
import { healthLabel } from '../shared/health';
import type { TopologyResponse } from '../shared/types';
import { HEALTHS, type TopologyParams } from './topologyParams';

export type Facets = Pick<TopologyResponse, 'types' | 'teams' | 'tags'>;

/** The chosen values first, then the offered ones not chosen (a filter's own
 * answer lacks the values it excludes, so the chosen ones stay choosable). */
function options(chosen: readonly string[], offered: readonly string[]): Option[] {
  return [...new Set([...chosen, ...[...offered].sort((a, b) => a.localeCompare(b))])].map((v) => ({ value: v, label: v }));
}

const HEALTH_OPTIONS: Option[] = HEALTHS.map((h) => ({ value: h, label: healthLabel(h) }));

/** The filters: type, health, team, labels, owner and show hidden components. */
export function TopologyToolbar({
  params,
  update,
  facets,
}: {
  params: TopologyParams;
  update(patch: Partial<TopologyParams>): void;
  facets: Facets;
}) {
  const labels = Object.entries(facets.tags).flatMap(([key, values]) => values.map((value) => `${key}=${value}`));
  const teams: Option[] = [{ value: '', label: 'All' }, ...options(params.team ? [params.team] : [], facets.teams)];
  return (
    <Toolbar>
      <ToolbarContent>
        <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
          <MultiSelectFilter
            label="Type"
            options={options(params.types, facets.types)}
            values={params.types}
            onChange={(types) => update({ types })}
          />
          <MultiSelectFilter label="Health" options={HEALTH_OPTIONS} values={params.health} onChange={(health) => update({ health })} />
          <FilterItem label="Team">
            <SimpleSelect label="Filter by team" options={teams} value={params.team} onChange={(team) => update({ team })} />
          </FilterItem>
          <MultiSelectFilter
            label="Labels"
            options={options(params.labels, labels)}
            values={params.labels}
            onChange={(labels) => update({ labels })}
          />
          <FilterItem label="Owner">
            <SearchBox label="Filter by owner" placeholder="Owner" value={params.owner} onChange={(owner) => update({ owner })} />
          </FilterItem>
          <ToolbarItem>
            <Switch
              id="qd-topology-show-hidden"
              label="Show hidden components"
              isChecked={params.showHidden}
              onChange={(_e, showHidden) => update({ showHidden })}
            />
          </ToolbarItem>
        </ToolbarGroup>
      </ToolbarContent>
    </Toolbar>
  );
}
