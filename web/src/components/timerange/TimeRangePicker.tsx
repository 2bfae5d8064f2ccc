import {
  ActionGroup,
  Button,
  DatePicker,
  Flex,
  FlexItem,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  Menu,
  MenuContent,
  MenuGroup,
  MenuItem,
  MenuList,
  MenuToggle,
  Popover,
  Split,
  SplitItem,
  TimePicker,
  Title,
} from '@patternfly/react-core';
import OutlinedClockIcon from '@patternfly/react-icons/dist/esm/icons/outlined-clock-icon';
import { useState, type FormEvent } from 'react';
import {
  QUICK_RANGES,
  RELATIVE_RANGES,
  addRecentRange,
  isQuickRange,
  localDate,
  localTime,
  parseLocal,
  readRecentRanges,
  timeRangeLabel,
  writeRecentRanges,
  type AbsoluteRange,
  type TimeRange,
} from './timeRange';

const START_TIME = '00:00';
const END_TIME = '23:59';

function DateTimeField({
  id,
  label,
  date,
  time,
  onDate,
  onTime,
}: {
  id: string;
  label: string;
  date: string;
  time: string;
  onDate(value: string): void;
  onTime(value: string): void;
}) {
  return (
    <FormGroup label={label} fieldId={`${id}-date`} role="group">
      <Split hasGutter>
        <SplitItem>
          <DatePicker
            id={`${id}-date`}
            aria-label={`${label} date`}
            buttonAriaLabel={`Toggle ${label} calendar`}
            value={date}
            placeholder="YYYY-MM-DD"
            onChange={(_e, value) => onDate(value)}
          />
        </SplitItem>
        <SplitItem>
          <TimePicker
            aria-label={`${label} time`}
            time={time}
            is24Hour
            placeholder="HH:MM"
            width="7rem"
            onChange={(_e, value) => onTime(value)}
          />
        </SplitItem>
      </Split>
    </FormGroup>
  );
}

/** From and To, each a calendar date and a time in the browser's zone. */
function AbsoluteRangeForm({ value, onSubmit }: { value: TimeRange; onSubmit(range: AbsoluteRange): void }) {
  const initial = value.type === 'absolute' ? { from: new Date(value.from), to: new Date(value.to) } : undefined;
  const [fromDate, setFromDate] = useState(initial ? localDate(initial.from) : '');
  const [fromTime, setFromTime] = useState(initial ? localTime(initial.from) : START_TIME);
  const [toDate, setToDate] = useState(initial ? localDate(initial.to) : '');
  const [toTime, setToTime] = useState(initial ? localTime(initial.to) : END_TIME);
  const from = parseLocal(fromDate, fromTime);
  const to = parseLocal(toDate, toTime);
  const reversed = Boolean(from && to && from > to);

  const clear = () => {
    setFromDate('');
    setFromTime(START_TIME);
    setToDate('');
    setToTime(END_TIME);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (from && to && !reversed) onSubmit({ type: 'absolute', from: from.toISOString(), to: to.toISOString() });
  };

  return (
    <Form onSubmit={submit} aria-label="Absolute time range">
      <Title headingLevel="h3" size="md">
        Absolute time range
      </Title>
      <DateTimeField id="qd-range-from" label="From" date={fromDate} time={fromTime} onDate={setFromDate} onTime={setFromTime} />
      <DateTimeField id="qd-range-to" label="To" date={toDate} time={toTime} onDate={setToDate} onTime={setToTime} />
      {reversed && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant="error">From must be before To</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
      <ActionGroup>
        <Button type="submit" isDisabled={!from || !to || reversed}>
          Submit
        </Button>
        <Button variant="link" onClick={clear}>
          Clear
        </Button>
      </ActionGroup>
    </Form>
  );
}

function RangeMenu({
  label,
  items,
  selected,
  onSelect,
}: {
  label: string;
  items: readonly { id: string; label: string }[];
  selected?: string;
  onSelect(id: string): void;
}) {
  return (
    <Menu isPlain isScrollable selected={selected} onSelect={(_e, id) => onSelect(String(id))}>
      <MenuContent maxMenuHeight="30rem">
        <MenuGroup label={label} labelHeadingLevel="h3">
          <MenuList aria-label={label}>
            {items.map((item) => (
              <MenuItem key={item.id} itemId={item.id} isSelected={item.id === selected}>
                {item.label}
              </MenuItem>
            ))}
          </MenuList>
        </MenuGroup>
      </MenuContent>
    </Menu>
  );
}

const RELATIVE_ITEMS = RELATIVE_RANGES.map((r) => ({ id: r.range, label: r.label }));
const QUICK_ITEMS = QUICK_RANGES.map((name) => ({ id: name, label: name }));

/** The shared time-range picker: an absolute range (with the five most
 * recently used ones), relative ranges and quick ranges. */
export function TimeRangePicker({ value, onChange }: { value: TimeRange; onChange(range: TimeRange): void }) {
  const [isOpen, setOpen] = useState(false);
  const [recent, setRecent] = useState(readRecentRanges);
  const label = timeRangeLabel(value);

  const choose = (range: TimeRange) => {
    setOpen(false);
    onChange(range);
  };
  const chooseAbsolute = (range: AbsoluteRange) => {
    const next = addRecentRange(recent, range);
    setRecent(next);
    writeRecentRanges(next);
    choose(range);
  };
  const recentItems = recent.map((r, i) => ({ id: String(i), label: timeRangeLabel(r) }));

  const body = (
    <Flex spaceItems={{ default: 'spaceItemsLg' }} flexWrap={{ default: 'nowrap' }} alignItems={{ default: 'alignItemsFlexStart' }}>
      <FlexItem>
        <AbsoluteRangeForm value={value} onSubmit={chooseAbsolute} />
        {recentItems.length > 0 && (
          <RangeMenu
            label="Recently used absolute ranges"
            items={recentItems}
            selected={recentItems.find((r) => r.label === label)?.id}
            onSelect={(id) => {
              const range = recent[Number(id)];
              if (range) chooseAbsolute(range);
            }}
          />
        )}
      </FlexItem>
      <FlexItem>
        <RangeMenu
          label="Relative time ranges"
          items={RELATIVE_ITEMS}
          selected={value.type === 'relative' ? value.range : undefined}
          onSelect={(range) => choose({ type: 'relative', range })}
        />
      </FlexItem>
      <FlexItem>
        <RangeMenu
          label="Other quick ranges"
          items={QUICK_ITEMS}
          selected={value.type === 'mapped' ? value.display : undefined}
          onSelect={(name) => isQuickRange(name) && choose({ type: 'mapped', display: name })}
        />
      </FlexItem>
    </Flex>
  );

  return (
    <Popover
      aria-label="Time range"
      isVisible={isOpen}
      shouldOpen={() => setOpen(true)}
      shouldClose={() => setOpen(false)}
      position="bottom-end"
      hasAutoWidth
      maxWidth="none"
      showClose={false}
      bodyContent={body}
    >
      <MenuToggle icon={<OutlinedClockIcon />} isExpanded={isOpen} aria-label={`Time range: ${label}`}>
        {label}
      </MenuToggle>
    </Popover>
  );
}
