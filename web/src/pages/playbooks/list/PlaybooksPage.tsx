import { Button, Content, Flex, FlexItem, PageSection, Title, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { CrdBadge } from '../../../components/Labels';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { sourceLabel } from '../../../lib/source';
import { NEW_PLAYBOOK_PATH, RUNS_PATH, playbookPath } from '../paths';
import { PlaybookIcon } from '../PlaybookIcon';
import { RunPlaybookButton } from '../run/RunPlaybookButton';
import { usePlaybooksData, type Category } from './usePlaybooksData';

function CategoryTable({ category }: { category: Category }) {
  const name = category.name || 'Uncategorized';
  return (
    <section aria-label={name} className="pf-v6-u-mb-lg">
      <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-sm">
        {name}
      </Title>
      <Table aria-label={`${name} playbooks`} variant="compact">
        <Thead>
          <Tr>
            <Th width={30}>Playbook</Th>
            <Th>Description</Th>
            <Th width={15}>Source</Th>
            <Th screenReaderText="Actions" />
          </Tr>
        </Thead>
        <Tbody>
          {category.playbooks.map((p) => (
            <Tr key={p.id}>
              <Td dataLabel="Playbook">
                <PlaybookIcon icon={p.icon} /> <Link to={playbookPath(p.id)}>{p.title}</Link>
              </Td>
              <Td dataLabel="Description">{p.description}</Td>
              <Td dataLabel="Source">{p.source === 'KubernetesCRD' ? <CrdBadge source={p.source} /> : sourceLabel(p.source)}</Td>
              <Td isActionCell>
                <RunPlaybookButton playbook={p} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </section>
  );
}

function Playbooks() {
  const query = usePlaybooksData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  useTopBar('Playbooks', query.refetch, query.isFetching);
  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <Button variant="secondary" onClick={() => navigate(RUNS_PATH)}>
              Runs
            </Button>
          </ToolbarItem>
          {authorizer.can('playbooks', 'write') && (
            <ToolbarItem>
              <Button icon={<PlusIcon />} onClick={() => navigate(NEW_PLAYBOOK_PATH)}>
                Create Playbook
              </Button>
            </ToolbarItem>
          )}
        </ToolbarContent>
      </Toolbar>
      {query.isLoading ? (
        <PageSpinner />
      ) : query.error ? (
        <ErrorPanel error={query.error} title="Failed to load playbooks" />
      ) : query.data?.length ? (
        <Flex direction={{ default: 'column' }}>
          {query.data.map((c) => (
            <FlexItem key={c.name}>
              <CategoryTable category={c} />
            </FlexItem>
          ))}
        </Flex>
      ) : (
        <Content component="p">No data available</Content>
      )}
    </PageSection>
  );
}

/** The playbooks by category, each with Run for users who may run them. */
export default function PlaybooksPage() {
  return (
    <RequireAccess resource="playbooks" feature="playbooks">
      <Playbooks />
    </RequireAccess>
  );
}
