import {
  Bullseye,
  CodeBlock,
  CodeBlockCode,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  EmptyState,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Spinner,
  Tab,
  TabTitleText,
  Tabs,
} from '@patternfly/react-core';
import { useMemo, type ReactNode } from 'react';
import { DateTime } from '../../../components/DateTime';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { AttachEvidenceButton } from '../../incidents/link/AttachEvidenceButton';
import { ConfigLink } from '../shared/ConfigLink';
import { changeLines } from './diff';
import { DiffViewer } from './DiffViewer';
import { useChange } from './useChangesData';
import './changes.css';

function isEmptyJson(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <CodeBlock aria-label={label}>
      <CodeBlockCode className="qd-json">{JSON.stringify(value, null, 2)}</CodeBlockCode>
    </CodeBlock>
  );
}

function Field({ term, children }: { term: string; children: ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{children || '-'}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

/** The item a change belongs to, as the feed's row named it. */
export interface ChangeItem {
  config_id: string;
  name?: string | null;
  type?: string | null;
}

/** 'Change details': the change's fields and summary, then tabs for its diff
 * (unified or side by side), details and patches, each when it has content. */
export function ChangeDetails({ id, item, onClose }: { id: string; item?: ChangeItem; onClose(): void }) {
  const change = useChange(id);
  const row = change.data;
  const lines = useMemo(() => (row ? changeLines(row) : []), [row]);

  let body: ReactNode;
  if (change.isLoading) {
    body = (
      <Bullseye>
        <Spinner size="lg" aria-label="Loading" />
      </Bullseye>
    );
  } else if (change.error) {
    body = <ErrorPanel error={change.error} />;
  } else if (!row) {
    body = <EmptyState titleText="No details found" headingLevel="h3" variant="sm" />;
  } else {
    const tabs = [
      lines.length > 0 && (
        <Tab key="diff" eventKey="diff" title={<TabTitleText>Diff</TabTitleText>}>
          <DiffViewer lines={lines} />
        </Tab>
      ),
      !isEmptyJson(row.details) && (
        <Tab key="details" eventKey="details" title={<TabTitleText>Details</TabTitleText>}>
          <Json value={row.details} label="Details" />
        </Tab>
      ),
      !isEmptyJson(row.patches) && (
        <Tab key="patches" eventKey="patches" title={<TabTitleText>Patches</TabTitleText>}>
          <Json value={row.patches} label="Patches" />
        </Tab>
      ),
    ].filter(Boolean);
    body = (
      <>
        <DescriptionList isCompact isHorizontal columnModifier={{ default: '2Col' }} aria-label="Change">
          <Field term="Config">
            <ConfigLink id={row.config_id} name={item?.config_id === row.config_id ? item.name : undefined} type={item?.type} />
          </Field>
          <Field term="Change type">{row.change_type}</Field>
          <Field term="Severity">{row.severity}</Field>
          <Field term="Source">{row.source}</Field>
          <Field term="Created by">{row.external_created_by ?? row.created_by}</Field>
          <Field term="Count">{row.count}</Field>
          <Field term="First observed">
            <DateTime value={row.first_observed} />
          </Field>
          <Field term="Created">
            <DateTime value={row.created_at} />
          </Field>
          <Field term="Summary">{row.summary}</Field>
        </DescriptionList>
        {tabs.length > 0 ? (
          <Tabs aria-label="Change details" mountOnEnter defaultActiveKey={(tabs[0] as { key: string }).key}>
            {tabs}
          </Tabs>
        ) : (
          <EmptyState titleText="No details found" headingLevel="h3" variant="sm" />
        )}
      </>
    );
  }

  return (
    <Modal variant="large" isOpen onClose={onClose} aria-labelledby="qd-change-title">
      <ModalHeader title="Change details" labelId="qd-change-title" />
      <ModalBody>{body}</ModalBody>
      {row && (
        <ModalFooter>
          <AttachEvidenceButton subject={{ type: 'config_change', config_change_id: row.id, config_id: row.config_id }} />
        </ModalFooter>
      )}
    </Modal>
  );
}
