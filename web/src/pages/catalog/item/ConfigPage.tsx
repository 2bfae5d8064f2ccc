import { Badge, EmptyState, PageSection, Tab, TabTitleText, Tabs } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { ChangesView } from '../changes/ChangesView';
import { InsightsView } from '../insights/InsightsView';
import { ChecksTab } from './ChecksTab';
import { ConfigHeader } from './ConfigHeader';
import { ConfigTab } from './ConfigTab';
import { locate, TABS, tabPath, type TabKey } from './configTabs';
import { PlaybooksTab } from './PlaybooksTab';
import { RelationshipsTab } from './relationships/RelationshipsTab';
import { useConfigData, type ConfigCounts } from './useConfigData';

const VIEW_KEY = 'view';

function NoDetails() {
  return <EmptyState titleText="No details found" headingLevel="h2" variant="sm" />;
}

function ConfigItem() {
  const { id = '', '*': rest } = useParams();
  const location = locate(rest);
  const active = 'tab' in location ? location.tab : 'view' in location ? VIEW_KEY : undefined;
  const navigate = useNavigate();
  const { authorizer } = useSession();
  const data = useConfigData(id, active === 'config');
  const { row, header, counts } = data;
  useTopBar(row ? `Catalog: ${row.name ?? row.id}` : 'Catalog', header.refetch, header.isFetching);

  if (header.isLoading) return <PageSpinner />;
  if (header.error)
    return (
      <PageSection>
        <ErrorPanel error={header.error} />
      </PageSection>
    );
  if (!row)
    return (
      <PageSection>
        <NoDetails />
      </PageSection>
    );

  const tabs = TABS.filter((t) => !('needs' in t) || authorizer.can(t.needs, 'read'));
  const content = (key: TabKey) => {
    switch (key) {
      case 'config':
        return <ConfigTab config={data.config} />;
      case 'changes':
        return <ChangesView configId={row.id} />;
      case 'insights':
        return <InsightsView configId={row.id} />;
      case 'relationships':
        return <RelationshipsTab configId={row.id} />;
      case 'playbooks':
        return <PlaybooksTab configId={row.id} />;
      case 'checks':
        return <ChecksTab configId={row.id} />;
    }
  };
  const count = (name?: keyof ConfigCounts) => {
    const n = name && counts?.[name];
    return typeof n === 'number' ? (
      <>
        {' '}
        <Badge isRead>{n}</Badge>
      </>
    ) : null;
  };
  const shown = active !== undefined && (active === VIEW_KEY || tabs.some((t) => t.key === active));

  return (
    <>
      <PageSection>
        <ConfigHeader row={row} parents={data.parents} />
      </PageSection>
      <PageSection>
        <Tabs
          activeKey={shown ? active : 'none'}
          onSelect={(_e, key) => key !== active && navigate(tabPath(row.id, String(key)))}
          aria-label="Config item"
          mountOnEnter
          unmountOnExit
        >
          {[
            ...tabs.map((t) => (
              <Tab
                key={t.key}
                eventKey={t.key}
                title={
                  <TabTitleText>
                    {t.title}
                    {count('count' in t ? t.count : undefined)}
                  </TabTitleText>
                }
              >
                <div className="pf-v6-u-pt-md">{content(t.key)}</div>
              </Tab>
            )),
            'view' in location && (
              // Views arrive with their own issue; until then no view has details.
              <Tab key={VIEW_KEY} eventKey={VIEW_KEY} title={<TabTitleText>View</TabTitleText>}>
                <div className="pf-v6-u-pt-md">
                  <NoDetails />
                </div>
              </Tab>
            ),
          ]}
        </Tabs>
        {!shown && (
          <div className="pf-v6-u-pt-md">
            <NoDetails />
          </div>
        )}
      </PageSection>
    </>
  );
}

/** A config item's page, `/catalog/{id}/{tab}`: the header and the tabs, the
 * tab being the rest of the path so deep links and the back button work. */
export default function ConfigPage() {
  return (
    <RequireAccess resource="database" feature="config">
      <ConfigItem />
    </RequireAccess>
  );
}
