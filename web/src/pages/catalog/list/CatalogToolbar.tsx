import { Switch, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { useState } from 'react';
import { FilterItem, MultiSelectFilter } from '../../../components/FilterItem';
import { SearchBox } from '../../../components/SearchBox';
import { MultiSelect, SimpleSelect, type Option } from '../../../components/Selects';
import { NULL_AGENT_ID } from '../../../lib/healthFormat';
import type { Agent } from './catalogFilter';
import { HEALTHS, type CatalogParams } from './catalogParams';
import { toggled } from '../../../lib/selection';
import { SEARCH_HINT } from './catalogSearch';
import { useKeyValues } from './useCatalogData';

const HEALTH_OPTIONS: Option[] = HEALTHS.map((h) => ({ value: h, label: h[0]?.toUpperCase() + h.slice(1) }));

/** The search box with the grammar's hint below it. */
function CatalogSearch({ value, onChange }: { value: string; onChange(value: string): void }) {
  return (
    <div>
      <SearchBox label="Search config items" describedBy="qd-catalog-hint" placeholder="Search" value={value} onChange={onChange} />
      <div id="qd-catalog-hint" className="qd-catalog-hint">
        {SEARCH_HINT}
      </div>
    </div>
  );
}

/** Labels or tags to choose from, fetched when the select is first used. */
function KeyValueSelect({
  relation,
  label,
  values,
  onChange,
}: {
  relation: 'config_labels' | 'config_tags';
  label: string;
  values: string[];
  onChange(values: string[]): void;
}) {
  const [wanted, setWanted] = useState(false);
  const choices = useKeyValues(relation, wanted);
  const options = [...new Set([...values, ...(choices.data ?? [])])].map((v) => ({ value: v, label: v }));
  return (
    <span onFocusCapture={() => setWanted(true)} onPointerEnter={() => setWanted(true)}>
      <MultiSelect label={label} placeholder="All" options={options} values={values} onToggle={(v) => onChange(toggled(values, v))} />
    </span>
  );
}

export interface CatalogToolbarProps {
  params: CatalogParams;
  update(patch: Partial<CatalogParams>): void;
  statuses: readonly string[];
  agents: readonly Agent[];
  showDeleted: boolean;
}

/** The search box and the filters: health, status, agent, labels, tags and show deleted. */
export function CatalogToolbar({ params, update, statuses, agents, showDeleted }: CatalogToolbarProps) {
  const statusOptions = [...new Set([...params.status, ...statuses])].map((s) => ({ value: s, label: s }));
  const agentOptions: Option[] = [
    { value: '', label: 'All' },
    { value: NULL_AGENT_ID, label: 'local' },
    ...agents.map((a) => ({ value: a.id, label: a.name })),
  ];
  return (
    <Toolbar>
      <ToolbarContent>
        <ToolbarItem className="qd-catalog-search">
          <CatalogSearch value={params.q} onChange={(q) => update({ q })} />
        </ToolbarItem>
      </ToolbarContent>
      <ToolbarContent>
        <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
          <MultiSelectFilter label="Health" options={HEALTH_OPTIONS} values={params.health} onChange={(health) => update({ health })} />
          <MultiSelectFilter label="Status" options={statusOptions} values={params.status} onChange={(status) => update({ status })} />
          <FilterItem label="Agent">
            <SimpleSelect
              label="Filter by agent"
              options={agentOptions}
              value={params.agent ?? ''}
              onChange={(v) => update({ agent: v || undefined })}
            />
          </FilterItem>
          <FilterItem label="Labels">
            <KeyValueSelect
              relation="config_labels"
              label="Filter by labels"
              values={params.labels}
              onChange={(labels) => update({ labels })}
            />
          </FilterItem>
          <FilterItem label="Tags">
            <KeyValueSelect relation="config_tags" label="Filter by tags" values={params.tags} onChange={(tags) => update({ tags })} />
          </FilterItem>
          <ToolbarItem>
            <Switch
              id="qd-catalog-show-deleted"
              label="Show deleted"
              isChecked={showDeleted}
              onChange={(_e, checked) => update({ showDeleted: checked })}
            />
          </ToolbarItem>
        </ToolbarGroup>
      </ToolbarContent>
    </Toolbar>
  );
}
