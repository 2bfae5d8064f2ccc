import { Button, Card, CardBody, CardHeader, CardTitle, FormGroup, Split, SplitItem, TextArea, TextInput } from '@patternfly/react-core';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import TrashIcon from '@patternfly/react-icons/dist/esm/icons/trash-icon';
import { FieldError } from '../../components/FieldError';
import { MultiSelect, type Option } from '../../components/Selects';
import type { ScopeForm } from '../../lib/accessScope';

interface Props {
  index: number;
  scope: ScopeForm;
  agents: readonly Option[];
  error?: string;
  canRemove: boolean;
  isDisabled: boolean;
  onChange(scope: ScopeForm): void;
  onRemove(): void;
}

/** One scope: tags as key/value rows, agents, and names one per line. */
export function ScopeEditor({ index, scope, agents, error, canRemove, isDisabled, onChange, onRemove }: Props) {
  const n = index + 1;
  const setTag = (row: number, part: 'key' | 'value', value: string) =>
    onChange({ ...scope, tags: scope.tags.map((t, i) => (i === row ? { ...t, [part]: value } : t)) });
  return (
    <Card isCompact className="qd-scope-card" aria-label={`Scope ${n}`}>
      <CardHeader
        actions={
          canRemove && !isDisabled
            ? {
                actions: <Button variant="plain" aria-label={`Remove scope ${n}`} icon={<TrashIcon />} onClick={onRemove} />,
                hasNoOffset: true,
              }
            : undefined
        }
      >
        <CardTitle>Scope {n}</CardTitle>
      </CardHeader>
      <CardBody>
        <FormGroup label="Tags" fieldId={`scope-${n}-tags`} role="group">
          {scope.tags.map((tag, row) => (
            <Split hasGutter key={row}>
              <SplitItem isFilled>
                <TextInput
                  aria-label={`Scope ${n} tag ${row + 1} key`}
                  placeholder="key"
                  value={tag.key}
                  isDisabled={isDisabled}
                  onChange={(_e, v) => setTag(row, 'key', v)}
                />
              </SplitItem>
              <SplitItem isFilled>
                <TextInput
                  aria-label={`Scope ${n} tag ${row + 1} value`}
                  placeholder="value"
                  value={tag.value}
                  isDisabled={isDisabled}
                  onChange={(_e, v) => setTag(row, 'value', v)}
                />
              </SplitItem>
              <SplitItem>
                <Button
                  variant="plain"
                  aria-label={`Remove scope ${n} tag ${row + 1}`}
                  icon={<TrashIcon />}
                  isDisabled={isDisabled}
                  onClick={() => onChange({ ...scope, tags: scope.tags.filter((_, i) => i !== row) })}
                />
              </SplitItem>
            </Split>
          ))}
          <Button
            variant="link"
            icon={<PlusCircleIcon />}
            isDisabled={isDisabled}
            aria-label={`Add tag to scope ${n}`}
            onClick={() => onChange({ ...scope, tags: [...scope.tags, { key: '', value: '' }] })}
          >
            Add tag
          </Button>
        </FormGroup>
        <FormGroup label="Agents" fieldId={`scope-${n}-agents`}>
          <MultiSelect
            id={`scope-${n}-agents`}
            label={`Scope ${n} agents`}
            options={agents}
            values={scope.agents}
            isDisabled={isDisabled}
            placeholder="Any agent"
            onToggle={(id) =>
              onChange({ ...scope, agents: scope.agents.includes(id) ? scope.agents.filter((a) => a !== id) : [...scope.agents, id] })
            }
          />
        </FormGroup>
        <FormGroup label="Names" fieldId={`scope-${n}-names`}>
          <TextArea
            id={`scope-${n}-names`}
            aria-label={`Scope ${n} names`}
            placeholder="One name per line; * for all"
            value={scope.names}
            isDisabled={isDisabled}
            resizeOrientation="vertical"
            onChange={(_e, v) => onChange({ ...scope, names: v })}
          />
        </FormGroup>
        <FieldError text={error} />
      </CardBody>
    </Card>
  );
}
