import {
  Badge,
  EmptyState,
  Label,
  LabelGroup,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Tab,
  TabTitleText,
  Tabs,
  Title,
} from '@patternfly/react-core';
import type { UseQueryResult } from '@tanstack/react-query';
import { Suspense, lazy, useEffect, useState } from 'react';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { DEFAULT_TIME_RANGE, defaultTimeRange, isTimeRange, type TimeRange } from '../checkTimeRange';
import { checkTitle } from '../../../lib/healthFormat';
import './checkDetail.css';
import { PlaybooksMenu } from '../../playbooks/run/PlaybooksMenu';
import { CheckIcon } from './CheckIcon';
import { DetailFooter } from './DetailFooter';
import { HistoryTab } from './HistoryTab';
import { Loading } from './Loading';
import { MetricTiles } from './MetricTiles';
import { RelationshipsTab } from './RelationshipsTab';
import { SpecTab } from './SpecTab';
import { useCheckDetailData, type CheckMetrics, type CheckSummary, type HistoryFilter } from './useCheckDetailData';
import { useTallScreen } from './useTallScreen';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

// The charting code loads only when a chart shows.
const HealthChart = lazy(() => import('./HealthChart'));

type TabKey = 'history' | 'graph' | 'spec' | 'relationships';

function Chart({ metrics, title }: { metrics: UseQueryResult<CheckMetrics>; title: string }) {
  if (metrics.error) return <ErrorPanel error={metrics.error} />;
  if (!metrics.data) return metrics.isFetching ? <Loading /> : <EmptyState titleText="No data available" headingLevel="h3" variant="xs" />;
  return (
    <Suspense fallback={<Loading />}>
      <HealthChart metrics={metrics.data} title={title} />
    </Suspense>
  );
}

/** Namespace, endpoint, agent and a deleted marker, under the title. */
function Subtitle({ check, agent }: { check: CheckSummary; agent: string | undefined }) {
  return (
    <span className="qd-check-subtitle">
      {check.namespace && (
        <Label isCompact color="blue">
          {check.namespace}
        </Label>
      )}
      {check.endpoint && <span>{check.endpoint}</span>}
      {agent && <span>Agent: {agent}</span>}
      {check.deleted_at && (
        <Label isCompact color="red">
          Deleted
        </Label>
      )}
    </span>
  );
}

function CheckLabels({ labels }: { labels: Record<string, unknown> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return null;
  return (
    <LabelGroup aria-label="Labels" numLabels={3} collapsedText="+${remaining} more" expandedText="Show less">
      {entries.map(([key, value]) => (
        <Label key={key} isCompact>
          {key}: {String(value)}
        </Label>
      ))}
    </LabelGroup>
  );
}

function withRange(params: URLSearchParams, range: TimeRange): URLSearchParams {
  const next = new URLSearchParams(params);
  next.set('timeRange', range);
  return next;
}

function CheckDetail({ checkId }: { checkId: string }) {
  const [params, setParams] = useLiveSearchParams();
  const asked = params.get('timeRange');
  const range: TimeRange = isTimeRange(asked) ? asked : DEFAULT_TIME_RANGE;
  const [filter, setFilter] = useState<HistoryFilter>({ page: 1 });
  const [tab, setTab] = useState<TabKey>('history');
  const tall = useTallScreen();
  const activeTab = tall && tab === 'graph' ? 'history' : tab;
  const data = useCheckDetailData(checkId, range, filter, tall || activeTab === 'graph');
  const { check } = data;
  const lastRuntime = check?.last_runtime;
  const known = Boolean(check);

  const setRange = (next: TimeRange) => {
    setParams((prev) => withRange(prev, next));
    setFilter((f) => ({ ...f, page: 1 }));
  };

  // Without a range in the URL, the check opens with one that covers its last run.
  useEffect(() => {
    if (!isTimeRange(asked) && known) setParams((prev) => withRange(prev, defaultTimeRange(lastRuntime)), { replace: true });
  }, [asked, known, lastRuntime, setParams]);

  const close = () =>
    setParams((prev) => {
      const next = withRange(prev, DEFAULT_TIME_RANGE);
      next.delete('checkId');
      return next;
    });

  const title = check ? checkTitle(check) : 'Check details';
  const relationships = data.relationships.data;
  const relationshipCount = (relationships?.components.length ?? 0) + (relationships?.configs.length ?? 0);

  let body;
  if (data.summary.isLoading) {
    body = <Loading />;
  } else if (data.summary.error) {
    body = <ErrorPanel error={data.summary.error} />;
  } else if (!check) {
    body = <EmptyState titleText="No details found" headingLevel="h2" variant="sm" />;
  } else {
    body = (
      <>
        <CheckLabels labels={check.labels} />
        <MetricTiles check={check} range={range} onRangeChange={setRange} />
        {tall && (
          <section aria-labelledby="check-health-overview" className="qd-check-section">
            <Title headingLevel="h2" size="md" id="check-health-overview">
              Health Overview
            </Title>
            <Chart metrics={data.metrics} title={`Health Overview of ${title}`} />
          </section>
        )}
        <Tabs activeKey={activeTab} onSelect={(_e, key) => setTab(key as TabKey)} aria-label="Check details" mountOnEnter>
          <Tab eventKey="history" title={<TabTitleText>History</TabTitleText>}>
            <HistoryTab history={data.history} filter={filter} onFilterChange={setFilter} />
          </Tab>
          {!tall && (
            <Tab eventKey="graph" title={<TabTitleText>Graph</TabTitleText>}>
              <Chart metrics={data.metrics} title={`Graph of ${title}`} />
            </Tab>
          )}
          <Tab eventKey="spec" title={<TabTitleText>Spec</TabTitleText>}>
            <SpecTab canary={data.canary} />
          </Tab>
          <Tab
            eventKey="relationships"
            title={
              <TabTitleText>
                Relationships <Badge isRead>{relationshipCount}</Badge>
              </TabTitleText>
            }
          >
            <RelationshipsTab relationships={data.relationships} />
          </Tab>
        </Tabs>
      </>
    );
  }

  return (
    <Modal isOpen onClose={close} className="qd-check-detail" aria-labelledby="check-detail-title">
      <ModalHeader
        labelId="check-detail-title"
        title={
          <>
            {check && <CheckIcon icon={check.icon} type={check.type} />} {title}
          </>
        }
        description={check && <Subtitle check={check} agent={data.agent.data?.name} />}
      />
      <ModalBody>{body}</ModalBody>
      <ModalFooter>
        <DetailFooter check={check} canary={data.canary.data} runNow={data.runNow} />
        {check?.id && <PlaybooksMenu target={{ check_id: check.id }} />}
      </ModalFooter>
    </Modal>
  );
}

/** The check detail dialog (decisions, section 11), opened by ?checkId=. */
export default function CheckDetailModal({ checkId }: { checkId: string }) {
  return <CheckDetail key={checkId} checkId={checkId} />;
}
