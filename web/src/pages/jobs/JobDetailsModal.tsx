import { CodeBlock, CodeBlockCode, Modal, ModalBody, ModalHeader, Tab, TabTitleText, Tabs } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import type { DetailsTab, TextTable } from './jobHistory';

function DetailsTable({ label, table }: { label: string; table: TextTable }) {
  return (
    <Table aria-label={label} variant="compact">
      <Thead>
        <Tr>
          {table.columns.map((c) => (
            <Th key={c}>{c}</Th>
          ))}
        </Tr>
      </Thead>
      <Tbody>
        {table.rows.map((row, i) => (
          <Tr key={i}>
            {row.map((cell, j) => (
              <Td key={j} dataLabel={table.columns[j]} modifier="breakWord">
                {cell}
              </Td>
            ))}
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
}

function TabBody({ tab }: { tab: DetailsTab }) {
  if (tab.key !== 'errors') return <DetailsTable label={tab.title} table={tab.table} />;
  if (tab.errors.kind === 'text') {
    return (
      <CodeBlock>
        <CodeBlockCode>{tab.errors.text}</CodeBlockCode>
      </CodeBlock>
    );
  }
  return (
    <>
      {tab.byType && <DetailsTable label="Errors by type" table={tab.byType} />}
      <DetailsTable label="Errors" table={tab.errors.table} />
    </>
  );
}

/** 'Details for job {name}': a tab for each of errors, scrape summary and
 * reconcile summary that has content (the caller opens it only if one has). */
export function JobDetailsModal({ name, tabs, onClose }: { name: string; tabs: DetailsTab[]; onClose(): void }) {
  const [active, setActive] = useState<string | number>(tabs[0]?.key ?? '');
  return (
    <Modal variant="large" isOpen onClose={onClose} aria-labelledby="job-details-title">
      <ModalHeader title={`Details for job ${name}`} labelId="job-details-title" />
      <ModalBody>
        <Tabs activeKey={active} onSelect={(_e, key) => setActive(key)} aria-label="Job details" mountOnEnter>
          {tabs.map((tab) => (
            <Tab key={tab.key} eventKey={tab.key} title={<TabTitleText>{tab.title}</TabTitleText>}>
              <TabBody tab={tab} />
            </Tab>
          ))}
        </Tabs>
      </ModalBody>
    </Modal>
  );
}
