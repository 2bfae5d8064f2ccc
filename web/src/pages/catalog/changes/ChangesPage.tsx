import { PageSection } from '@patternfly/react-core';
import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTopBar } from '../../../app/topBar';
import { RequireAccess } from '../../../components/RequireAccess';
import { ChangesView } from './ChangesView';
import { CHANGES_KEY } from './useChangesData';
import { CatalogNav } from '../shared/CatalogNav';

function Changes() {
  const client = useQueryClient();
  const refresh = useCallback(() => client.invalidateQueries({ queryKey: CHANGES_KEY }), [client]);
  useTopBar('Config Changes', refresh, useIsFetching({ queryKey: CHANGES_KEY }) > 0);
  return (
    <PageSection>
      <CatalogNav />
      <ChangesView />
    </PageSection>
  );
}

/** The changes feed over every config item the caller sees (decision 60). */
export default function ChangesPage() {
  return (
    <RequireAccess resource="database" feature="config">
      <Changes />
    </RequireAccess>
  );
}
