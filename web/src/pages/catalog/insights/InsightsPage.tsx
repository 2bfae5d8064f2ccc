import { PageSection } from '@patternfly/react-core';
import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTopBar } from '../../../app/topBar';
import { RequireAccess } from '../../../components/RequireAccess';
import { InsightsView } from './InsightsView';
import { INSIGHTS_KEY } from './useInsightsData';
import { CatalogNav } from '../shared/CatalogNav';

function Insights() {
  const client = useQueryClient();
  const refresh = useCallback(() => client.invalidateQueries({ queryKey: INSIGHTS_KEY }), [client]);
  useTopBar('Config Insights', refresh, useIsFetching({ queryKey: INSIGHTS_KEY }) > 0);
  return (
    <PageSection>
      <CatalogNav />
      <InsightsView />
    </PageSection>
  );
}

/** The insights (analyses) of every config item the caller sees (decision 60). */
export default function InsightsPage() {
  return (
    <RequireAccess resource="database" feature="config">
      <Insights />
    </RequireAccess>
  );
}
