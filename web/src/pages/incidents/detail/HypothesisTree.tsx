import { Button, Checkbox, Flex, FlexItem, FormGroup, Label, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FieldError } from '../../../components/FieldError';
import { FormModal } from '../../../components/FormModal';
import { SimpleSelect } from '../../../components/Selects';
import {
  DEFAULT_HYPOTHESIS_STATUS,
  HYPOTHESIS_STATUSES,
  HYPOTHESIS_TYPES,
  childType,
  evidenceHref,
  hypothesisTree,
  labelOf,
  type TreeNode,
} from '../incidentModel';
import type { EvidenceRow, HypothesisRow, IncidentData } from './useIncidentData';

/** Adds a hypothesis under `parent` (a root one without), of the type the tree gives it. */
function AddHypothesisModal({
  data,
  parent,
  type,
  onClose,
}: {
  data: IncidentData;
  parent?: HypothesisRow;
  type: string;
  onClose(): void;
}) {
  const toast = useToast();
  const [title, setTitle] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const error = submitted && !title.trim() ? 'Title is required' : undefined;
  const submit = () => {
    setSubmitted(true);
    if (!title.trim()) return;
    data.addHypothesis.mutate(
      { title: title.trim(), type, status: DEFAULT_HYPOTHESIS_STATUS, parent_id: parent?.id ?? null },
      { onSuccess: onClose, onError: (e) => toast.error(errorMessage(e)) },
    );
  };
  return (
    <FormModal
      id="add-hypothesis-form"
      title={parent ? `Add to ${parent.title}` : 'Add hypothesis'}
      onClose={onClose}
      onSubmit={submit}
      actions={
        <Button type="submit" form="add-hypothesis-form" isLoading={data.addHypothesis.isPending} isDisabled={data.addHypothesis.isPending}>
          Add
        </Button>
      }
    >
      <FormGroup label="Title" isRequired fieldId="hypothesis-title">
        <TextInput id="hypothesis-title" value={title} onChange={(_e, v) => setTitle(v)} validated={error ? 'error' : 'default'} />
        <FieldError text={error} />
      </FormGroup>
      <FormGroup label="Type" fieldId="hypothesis-type">
        <span id="hypothesis-type">{labelOf(HYPOTHESIS_TYPES, type)}</span>
      </FormGroup>
    </FormModal>
  );
}

function evidenceName(e: EvidenceRow): string {
  return (
    e.check?.name ??
    e.config?.name ??
    (e.config_change ? `${e.config_change.change_type}${e.config_change.summary ? `: ${e.config_change.summary}` : ''}` : undefined) ??
    e.component?.name ??
    e.type
  );
}

function Evidence({ evidence, data }: { evidence: EvidenceRow; data: IncidentData }) {
  const { authorizer } = useSession();
  const toast = useToast();
  const canWrite = authorizer.can('evidences', 'write');
  const name = evidenceName(evidence);
  const href = evidenceHref(evidence, evidence.config_change?.config_id);
  const set = (changes: { done?: boolean; definition_of_done?: boolean }) =>
    data.updateEvidence.mutate({ evidence: evidence.id, changes }, { onError: (e) => toast.error(errorMessage(e)) });
  return (
    <li aria-label={`Evidence ${name}`}>
      <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }}>
        <FlexItem>
          <Label isCompact>{evidence.type}</Label>
        </FlexItem>
        <FlexItem>{href ? <Link to={href}>{name}</Link> : name}</FlexItem>
        {evidence.description && <FlexItem>{evidence.description}</FlexItem>}
        <FlexItem>
          <Checkbox
            id={`dod-${evidence.id}`}
            label="Definition of done"
            aria-label={`Definition of done: ${name}`}
            isChecked={evidence.definition_of_done}
            isDisabled={!canWrite}
            onChange={(_e, checked) => set({ definition_of_done: checked })}
          />
        </FlexItem>
        {evidence.definition_of_done && (
          <FlexItem>
            <Checkbox
              id={`done-${evidence.id}`}
              label="Done"
              aria-label={`Done: ${name}`}
              isChecked={evidence.done}
              isDisabled={!canWrite}
              onChange={(_e, checked) => set({ done: checked })}
            />
          </FlexItem>
        )}
      </Flex>
    </li>
  );
}

function Hypothesis({ node, data, onAdd }: { node: TreeNode<HypothesisRow>; data: IncidentData; onAdd(parent: HypothesisRow): void }) {
  const { authorizer } = useSession();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const h = node.item;
  const canWrite = authorizer.can('incident', 'write');
  const child = childType(h.type);
  const evidences = (data.evidences.data ?? []).filter((e) => e.hypothesis_id === h.id);
  return (
    <li aria-label={`Hypothesis ${h.title}`} className="qd-hypothesis">
      <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }}>
        <FlexItem>
          <Label isCompact color="blue">
            {labelOf(HYPOTHESIS_TYPES, h.type)}
          </Label>
        </FlexItem>
        <FlexItem>
          <strong>{h.title}</strong>
        </FlexItem>
        <FlexItem>
          {canWrite ? (
            <SimpleSelect
              label={`Status of ${h.title}`}
              options={HYPOTHESIS_STATUSES}
              value={h.status}
              onChange={(status) =>
                data.updateHypothesis.mutate({ hypothesis: h.id, changes: { status } }, { onError: (e) => toast.error(errorMessage(e)) })
              }
            />
          ) : (
            <Label isCompact>{labelOf(HYPOTHESIS_STATUSES, h.status)}</Label>
          )}
        </FlexItem>
        {canWrite && (
          <>
            {child && (
              <FlexItem>
                <Button variant="link" isInline aria-label={`Add to ${h.title}`} onClick={() => onAdd(h)}>
                  Add {labelOf(HYPOTHESIS_TYPES, child).toLowerCase()}
                </Button>
              </FlexItem>
            )}
            <FlexItem>
              <Button variant="link" isInline isDanger aria-label={`Delete ${h.title}`} onClick={() => setConfirming(true)}>
                Delete
              </Button>
            </FlexItem>
          </>
        )}
      </Flex>
      {evidences.length > 0 && (
        <ul className="qd-evidences" aria-label={`Evidences of ${h.title}`}>
          {evidences.map((e) => (
            <Evidence key={e.id} evidence={e} data={data} />
          ))}
        </ul>
      )}
      {node.children.length > 0 && (
        <ul className="qd-hypotheses">
          {node.children.map((child) => (
            <Hypothesis key={child.item.id} node={child} data={data} onAdd={onAdd} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        isOpen={confirming}
        title="Delete hypothesis"
        message={`Delete ${h.title}, with its evidences, comments and the hypotheses under it?`}
        isBusy={data.deleteHypothesis.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          data.deleteHypothesis.mutate(h.id, {
            onError: (e) => toast.error(errorMessage(e)),
            onSettled: () => setConfirming(false),
          })
        }
      />
    </li>
  );
}

/** Root, factor and solution hypotheses, each with its evidences. */
export function HypothesisTree({ data }: { data: IncidentData }) {
  const { authorizer } = useSession();
  const [adding, setAdding] = useState<{ parent?: HypothesisRow } | null>(null);
  const tree = hypothesisTree(data.hypotheses.data ?? []);
  return (
    <>
      {tree.length === 0 ? (
        <p>No hypotheses yet.</p>
      ) : (
        <ul className="qd-hypotheses" aria-label="Hypotheses">
          {tree.map((node) => (
            <Hypothesis key={node.item.id} node={node} data={data} onAdd={(parent) => setAdding({ parent })} />
          ))}
        </ul>
      )}
      {authorizer.can('incident', 'write') && (
        <Button variant="secondary" className="pf-v6-u-mt-sm" onClick={() => setAdding({})}>
          Add hypothesis
        </Button>
      )}
      {adding && (
        <AddHypothesisModal
          data={data}
          parent={adding.parent}
          type={childType(adding.parent?.type) ?? 'root'}
          onClose={() => setAdding(null)}
        />
      )}
    </>
  );
}
