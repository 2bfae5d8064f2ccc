import { EmptyState } from '@patternfly/react-core';
import { Chart, ChartAxis, ChartGroup, ChartLine, ChartScatter, ChartVoronoiContainer } from '@patternfly/react-charts/victory';
import { useEffect, useRef, useState } from 'react';
import { formatLatency } from '../../../lib/healthFormat';
import type { CheckMetrics } from './useCheckDetailData';

const HEIGHT = 240;
const PASSED = 'var(--pf-t--global--icon--color--status--success--default, #3d7317)';
const FAILED = 'var(--pf-t--global--icon--color--status--danger--default, #b1380b)';
const LINE = 'var(--pf-t--global--color--brand--default, #0066cc)';
const TWO_DAYS_MS = 2 * 86_400_000;

interface Point {
  x: Date;
  y: number;
  passed: number;
  failed: number;
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayOnly = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The width of an element, following its resizes. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.getBoundingClientRect().width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** Latency over time, each point coloured by whether any run in it failed. */
export default function HealthChart({ metrics, title }: { metrics: CheckMetrics; title: string }) {
  const [ref, width] = useWidth();
  const points: Point[] = metrics.series.flatMap((p) =>
    p.duration === null || p.duration === undefined ? [] : [{ x: new Date(p.time), y: p.duration, passed: p.passed, failed: p.failed }],
  );
  const span = (points.at(-1)?.x.getTime() ?? 0) - (points[0]?.x.getTime() ?? 0);
  const tickFormat = span > TWO_DAYS_MS ? dayOnly : timeOnly;

  return (
    <div ref={ref} className="qd-check-chart">
      {points.length === 0 ? (
        <EmptyState titleText="No data available" headingLevel="h3" variant="xs" />
      ) : (
        width > 0 && (
          <Chart
            ariaTitle={title}
            ariaDesc="Latency of the check's runs over time; red points include failed runs"
            width={width}
            height={HEIGHT}
            padding={{ top: 20, right: 30, bottom: 70, left: 70 }}
            domainPadding={{ y: [0, 12] }}
            scale={{ x: 'time', y: 'linear' }}
            legendData={[
              { name: 'Passed', symbol: { fill: PASSED } },
              { name: 'Failed', symbol: { fill: FAILED } },
            ]}
            legendPosition="bottom"
            containerComponent={
              <ChartVoronoiContainer
                constrainToVisibleArea
                voronoiBlacklist={['latency-line']}
                labels={({ datum }: { datum: Point }) =>
                  `${full.format(datum.x)}: ${formatLatency(datum.y)}, ${datum.passed} passed, ${datum.failed} failed`
                }
              />
            }
          >
            <ChartAxis tickFormat={(t: Date) => tickFormat.format(t)} fixLabelOverlap />
            <ChartAxis dependentAxis showGrid tickFormat={(t: number) => formatLatency(t)} />
            <ChartGroup>
              <ChartLine name="latency-line" data={points} style={{ data: { stroke: LINE, strokeWidth: 1 } }} />
              <ChartScatter
                data={points}
                size={3}
                style={{ data: { fill: ({ datum }: { datum?: Point }) => (datum && datum.failed > 0 ? FAILED : PASSED) } }}
              />
            </ChartGroup>
          </Chart>
        )
      )}
    </div>
  );
}
