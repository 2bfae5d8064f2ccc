import { Button, Form, FormGroup, FormSelect, FormSelectOption, Popover, Slider, Switch } from '@patternfly/react-core';
import SlidersHIcon from '@patternfly/react-icons/dist/esm/icons/sliders-h-icon';
import { useMemo } from 'react';
import { DATE_FORMATS, DATE_FORMAT_LABELS, type DateFormat } from '../lib/format';
import { timeZoneOptions } from '../lib/timezones';
import { CARD_WIDTH, PAGE_SIZES, REFRESH_RATES, usePreference, type RefreshRate } from './preferences';

/** A typed width inside the slider's range, on its step. */
function snapCardWidth(width: number): number {
  const clamped = Math.min(CARD_WIDTH.max, Math.max(CARD_WIDTH.min, Number.isFinite(width) ? width : CARD_WIDTH.min));
  return CARD_WIDTH.min + Math.round((clamped - CARD_WIDTH.min) / CARD_WIDTH.step) * CARD_WIDTH.step;
}

/** The popover's form; mounted only while open, so the zone list is built then. */
function PreferencesForm() {
  const [format, setFormat] = usePreference('dateTimeFormat');
  const [zone, setZone] = usePreference('displayTimezone');
  const [pageSize, setPageSize] = usePreference('pageSize');
  const [showDeleted, setShowDeleted] = usePreference('showDeleted');
  const [refreshRate, setRefreshRate] = usePreference('refreshRate');
  const [cardWidth, setCardWidth] = usePreference('topologyCardWidth');
  const zones = useMemo(() => timeZoneOptions(), []);
  return (
    <Form onSubmit={(e) => e.preventDefault()}>
      <FormGroup label="Date/time format" fieldId="pref-date-format">
        <FormSelect id="pref-date-format" value={format} onChange={(_e, v) => setFormat(v as DateFormat)}>
          {DATE_FORMATS.map((f) => (
            <FormSelectOption key={f} value={f} label={DATE_FORMAT_LABELS[f]} />
          ))}
        </FormSelect>
      </FormGroup>
      <FormGroup label="Display timezone" fieldId="pref-timezone">
        <FormSelect id="pref-timezone" value={zone} onChange={(_e, v) => setZone(v)}>
          {zones.map((z) => (
            <FormSelectOption key={z.value} value={z.value} label={z.label} />
          ))}
        </FormSelect>
      </FormGroup>
      <FormGroup label="Table page size" fieldId="pref-page-size">
        <FormSelect id="pref-page-size" value={pageSize} onChange={(_e, v) => setPageSize(Number(v))}>
          {PAGE_SIZES.map((n) => (
            <FormSelectOption key={n} value={n} label={String(n)} />
          ))}
        </FormSelect>
      </FormGroup>
      <FormGroup label="Refresh rate" fieldId="pref-refresh-rate">
        <FormSelect id="pref-refresh-rate" value={refreshRate} onChange={(_e, v) => setRefreshRate(v as RefreshRate)}>
          {REFRESH_RATES.map((rate) => (
            <FormSelectOption key={rate} value={rate} label={rate || 'None'} />
          ))}
        </FormSelect>
      </FormGroup>
      <FormGroup label="Card width" fieldId="pref-card-width">
        <Slider
          id="pref-card-width"
          thumbAriaLabel="Card width"
          value={cardWidth}
          min={CARD_WIDTH.min}
          max={CARD_WIDTH.max}
          step={CARD_WIDTH.step}
          showBoundaries
          isInputVisible
          inputValue={cardWidth}
          inputLabel="px"
          inputAriaLabel="Card width in pixels"
          onChange={(_e, value, inputValue, setInput) => {
            const width = snapCardWidth(inputValue ?? value);
            setInput?.(width);
            setCardWidth(width);
          }}
        />
      </FormGroup>
      <FormGroup fieldId="pref-show-deleted">
        <Switch id="pref-show-deleted" label="Show deleted items" isChecked={showDeleted} onChange={(_e, v) => setShowDeleted(v)} />
      </FormGroup>
    </Form>
  );
}

/** Display preferences, kept in this browser (decisions 8.1 and 8.2). */
export function PreferencesPopover() {
  return (
    <Popover aria-label="Preferences" headerContent="Preferences" bodyContent={<PreferencesForm />} position="bottom-end" minWidth="22rem">
      <Button variant="plain" aria-label="Preferences" icon={<SlidersHIcon />} />
    </Popover>
  );
}
