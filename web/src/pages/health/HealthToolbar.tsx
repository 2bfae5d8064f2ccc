import { Badge, Button, ToggleGroup, ToggleGroupItem, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import FilterIcon from '@patternfly/react-icons/dist/esm/icons/filter-icon';
import { FilterItem } from '../../components/FilterItem';
import { SearchBox } from '../../components/SearchBox';
import { SimpleSelect, type Option } from '../../components/Selects';
import { TIME_RANGES, timeRangeLabel } from './checkTimeRange';
import type { LabelChoice } from './healthFilter';
import { LABEL_PREFIX, NO_GROUP, type HealthParams } from './healthParams';
import type { UpdateHealthParams } from './useHealthParams';

const GROUP_OPTIONS: Option[] = [
  { value: NO_GROUP, label: 'No Grouping' },
  { value: 'canary_name', label: 'Group Name' },
  { value: 'name', label: 'Name' },
  { value: 'description', label: 'Description' },
  { value: 'type', label: 'Type' },
];
const TAB_OPTIONS: Option[] = [
  { value: 'namespace', label: 'Namespace' },
  { value: 'agent', label: 'Agent' },
];
const TIME_RANGE_OPTIONS: Option[] = TIME_RANGES.map((range) => ({ value: range, label: timeRangeLabel(range) }));

const labelOptions = (choices: readonly LabelChoice[]) =>
  choices.map((c) => ({ value: LABEL_PREFIX + c.key, label: c.key, description: 'Label' }));

interface HealthToolbarProps {
  params: HealthParams;
  update: UpdateHealthParams;
  choices: readonly LabelChoice[];
  /** The filter sidebar's toggle, on narrow screens. */
  filters?: { count: number; onToggle(): void };
}

/** Search, grouping, tabs, time range and layout. */
export function HealthToolbar({ params, update, choices, filters }: HealthToolbarProps) {
  const labels = labelOptions(choices);
  return (
    <Toolbar>
      <ToolbarContent>
        {filters && (
          <ToolbarItem>
            <Button variant="secondary" icon={<FilterIcon />} onClick={filters.onToggle}>
              Filters <Badge isRead>{filters.count}</Badge>
            </Button>
          </ToolbarItem>
        )}
        <ToolbarItem>
          <SearchBox
            label="Search checks"
            placeholder="Search by name, description, or endpoint"
            value={params.query}
            onChange={(query) => update({ query })}
          />
        </ToolbarItem>
        <FilterItem label="Group By">
          <SimpleSelect
            label="Group By"
            options={[...GROUP_OPTIONS, ...labels]}
            value={params.groupBy}
            onChange={(groupBy) => update({ groupBy })}
          />
        </FilterItem>
        <FilterItem label="Tab By">
          <SimpleSelect
            label="Tab By"
            options={[...TAB_OPTIONS, ...labels]}
            value={params.tabBy}
            onChange={(tabBy) => update({ tabBy, tab: undefined })}
          />
        </FilterItem>
        <ToolbarItem>
          <SimpleSelect
            label="Time range"
            options={TIME_RANGE_OPTIONS}
            value={params.timeRange}
            onChange={(range) => update({ timeRange: range as HealthParams['timeRange'] })}
          />
        </ToolbarItem>
        <ToolbarItem>
          <ToggleGroup isCompact aria-label="Layout">
            <ToggleGroupItem text="Table" isSelected={params.layout === 'table'} onChange={() => update({ layout: 'table' })} />
            <ToggleGroupItem text="Cards" isSelected={params.layout === 'card'} onChange={() => update({ layout: 'card' })} />
          </ToggleGroup>
        </ToolbarItem>
      </ToolbarContent>
    </Toolbar>
  );
}
