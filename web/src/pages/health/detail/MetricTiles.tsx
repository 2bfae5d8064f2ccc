import {
  Card,
  CardBody,
  CardTitle,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Gallery,
} from '@patternfly/react-core';
import type { ReactNode } from 'react';
import { DateTime } from '../../../components/DateTime';
import { SimpleSelect } from '../../../components/Selects';
import { formatLatency, uptimePercent } from '../../../lib/healthFormat';
import { TIME_RANGES, isTimeRange, type TimeRange } from '../checkTimeRange';
import type { CheckSummary } from './useCheckDetailData';

const RANGE_OPTIONS = TIME_RANGES.map((r) => ({ value: r, label: r }));
const PERCENTILES = [
  ['95%', 'p95'],
  ['97%', 'p97'],
  ['99%', 'p99'],
] as const;

/** A titled figure; a region named by its title. */
function Tile({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card id={`check-tile-${id}`} component="section" aria-labelledby={`check-tile-${id}-title`} isCompact>
      <CardTitle>{title}</CardTitle>
      <CardBody>{children}</CardBody>
    </Card>
  );
}

/** Uptime, latency percentiles, severity, run times and the range they cover. */
export function MetricTiles({
  check,
  range,
  onRangeChange,
}: {
  check: CheckSummary;
  range: TimeRange;
  onRangeChange(range: TimeRange): void;
}) {
  const { passed, failed } = check.uptime;
  return (
    <Gallery hasGutter minWidths={{ default: '10rem' }} className="qd-check-tiles">
      <Tile id="uptime" title="Uptime">
        <div className="qd-check-figure">{uptimePercent(passed, failed)}</div>
        <div>
          {passed} passed, {failed} failed
        </div>
      </Tile>
      <Tile id="latency" title="Latency">
        <DescriptionList isHorizontal isCompact isFluid>
          {PERCENTILES.map(([label, key]) => (
            <DescriptionListGroup key={key}>
              <DescriptionListTerm>{label}</DescriptionListTerm>
              <DescriptionListDescription>{formatLatency(check.latency[key])}</DescriptionListDescription>
            </DescriptionListGroup>
          ))}
        </DescriptionList>
      </Tile>
      <Tile id="severity" title="Severity">
        {check.severity || '-'}
      </Tile>
      <Tile id="last-run" title="Last Run">
        <DateTime value={check.last_runtime} />
      </Tile>
      <Tile id="transitioned" title="Transitioned">
        <DateTime value={check.last_transition_time} />
      </Tile>
      <Tile id="next-run" title="Next Run">
        <DateTime value={check.next_runtime} />
      </Tile>
      <Tile id="time-range" title="Time Range">
        <SimpleSelect label="Time Range" options={RANGE_OPTIONS} value={range} onChange={(v) => isTimeRange(v) && onRangeChange(v)} />
      </Tile>
    </Gallery>
  );
}
