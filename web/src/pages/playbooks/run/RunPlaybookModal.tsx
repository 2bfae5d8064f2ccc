import {
  Alert,
  Button,
  Content,
  Form,
  FormGroup,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Spinner,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useToast } from '../../../app/toast';
import { useDebounced } from '../../../app/useDebounced';
import { SimpleSelect } from '../../../components/Selects';
import { formProblems, initialValues, requestParams, type ParamValue } from '../parameters';
import { playbookPath, runPath, runsPath } from '../paths';
import type { RunTarget } from '../playbookApi';
import { ParameterField } from './ParameterField';
import { targetOf, useRunPlaybookData, type SpecSelector, type TargetKind } from './useRunPlaybookData';

/** The playbook to run: its id, title and, to pick a resource in the dialog, its spec. */
export interface PlaybookToRun {
  id: string;
  title: string;
  spec?: unknown;
}

const KIND_LABELS: Record<TargetKind, string> = { configs: 'Config item', components: 'Component', checks: 'Health check' };

/** The kinds of resource the playbook's selectors name, with their selectors. */
function targetKinds(spec: unknown): [TargetKind, SpecSelector[]][] {
  const s = (spec ?? {}) as Partial<Record<TargetKind, unknown>>;
  return (['configs', 'components', 'checks'] as const).flatMap((k) => {
    const selectors = s[k];
    return Array.isArray(selectors) && selectors.length > 0 ? [[k, selectors as SpecSelector[]] as [TargetKind, SpecSelector[]]] : [];
  });
}

interface Props {
  playbook: PlaybookToRun;
  /** The check, component or config item it runs on; picked in the dialog when absent. */
  target?: RunTarget;
  onClose(): void;
}

/** The Run Playbook dialog (spec part 2, 2.9): the resource, the parameters, Run. */
export function RunPlaybookModal({ playbook, target, onClose }: Props) {
  const navigate = useNavigate();
  const toast = useToast();
  const kinds = targetKinds(playbook.spec);
  const needsResource = !target && kinds.length > 0;
  const [kind, setKind] = useState<TargetKind | undefined>(kinds[0]?.[0]);
  const [picked, setPicked] = useState('');
  const [term, setTerm] = useState('');
  const debouncedTerm = useDebounced(term, 300);
  const selectors = kinds.find(([k]) => k === kind)?.[1] ?? [];
  const chosen: RunTarget | undefined = target ?? (needsResource ? (picked && kind ? targetOf(kind, picked) : undefined) : {});
  const { params, resources, run } = useRunPlaybookData({
    playbookId: playbook.id,
    target: chosen,
    pick: needsResource && kind ? { kind, selectors, term: debouncedTerm } : undefined,
  });
  const defs = params.data ?? [];
  const formKey = JSON.stringify(chosen ?? null) + String(params.dataUpdatedAt);
  const [edited, setEdited] = useState<{ key: string; values: Record<string, ParamValue>; touched: Set<string> }>();
  const current = edited?.key === formKey ? edited : { key: formKey, values: initialValues(defs), touched: new Set<string>() };
  const problems = formProblems(defs, current.values);
  const invalid = Object.keys(problems).length > 0;
  const ready = chosen !== undefined && params.isSuccess;
  const canRun = ready && !invalid && Boolean(playbook.id) && !run.isPending;

  const change = (name: string, value: ParamValue) =>
    setEdited({ key: formKey, values: { ...current.values, [name]: value }, touched: new Set(current.touched).add(name) });

  const submit = () => {
    if (!canRun || !chosen) return;
    run.mutate(
      { id: playbook.id, ...chosen, params: requestParams(defs, current.values) },
      {
        onSuccess: (answer) => {
          onClose();
          navigate(runPath(answer.run_id));
        },
        onError: (e) => toast.error(errorMessage(e)),
      },
    );
  };

  let body;
  if (chosen === undefined) body = <Content component="p">Please select a resource to see the parameters.</Content>;
  else if (params.isLoading) body = <Spinner size="lg" aria-label="Loading parameters" />;
  else if (params.error) body = <Alert isInline variant="danger" title={errorMessage(params.error)} />;
  else if (defs.length === 0) body = <Content component="p">No parameters for this playbook.</Content>;
  else
    body = defs.map((p) => (
      <ParameterField
        key={p.name}
        param={p}
        value={current.values[p.name]}
        error={current.touched.has(p.name) ? problems[p.name] : undefined}
        onChange={(v) => change(p.name, v)}
      />
    ));

  return (
    <Modal isOpen variant="medium" onClose={onClose} aria-labelledby="run-playbook-title">
      <ModalHeader
        title={`Run Playbook: ${playbook.title}`}
        labelId="run-playbook-title"
        description={
          <>
            <Link to={playbookPath(playbook.id)}>Playbook</Link> · <Link to={runsPath(playbook.id)}>Runs</Link>
          </>
        }
      />
      <ModalBody>
        <Form
          id="run-playbook-form"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          {needsResource && (
            <>
              {kinds.length > 1 && (
                <FormGroup label="Resource type" fieldId="run-kind">
                  <SimpleSelect
                    id="run-kind"
                    label="Resource type"
                    options={kinds.map(([k]) => ({ value: k, label: KIND_LABELS[k] }))}
                    value={kind ?? ''}
                    onChange={(v) => (setKind(v as TargetKind), setPicked(''))}
                  />
                </FormGroup>
              )}
              <FormGroup label="Resource" fieldId="run-resource" isRequired>
                <TextInput
                  id="run-resource-search"
                  aria-label="Search resources"
                  placeholder="Search by name"
                  value={term}
                  onChange={(_e, v) => setTerm(v)}
                  className="pf-v6-u-mb-sm"
                />
                <SimpleSelect
                  id="run-resource"
                  label="Resource"
                  placeholder={resources.isLoading ? 'Loading…' : 'Select a resource'}
                  options={(resources.data ?? []).map((r) => ({
                    value: r.id,
                    label: r.name ?? r.id,
                    description: [r.type, r.namespace].filter(Boolean).join(' · ') || undefined,
                  }))}
                  value={picked}
                  onChange={setPicked}
                />
              </FormGroup>
            </>
          )}
          {body}
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="run-playbook-form" isDisabled={!canRun} isLoading={run.isPending}>
          Run
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}
