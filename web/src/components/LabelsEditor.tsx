import { Button, Split, SplitItem, TextInput } from '@patternfly/react-core';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import TrashIcon from '@patternfly/react-icons/dist/esm/icons/trash-icon';
import type { LabelRow } from '../lib/integrations';
import { FieldError } from './FieldError';

interface Props {
  rows: readonly LabelRow[];
  onChange(rows: LabelRow[]): void;
  isDisabled?: boolean;
  error?: string;
  /** What a row is, capitalised: 'Label' (the default), 'Header'. */
  noun?: string;
  /** What a row's key is called: 'key' (the default), 'name'. */
  keyName?: string;
}

/** Key/value rows ('Label 1 key', 'Label 1 value', 'Remove label 1', 'Add label'). */
export function LabelsEditor({ rows, onChange, isDisabled, error, noun = 'Label', keyName = 'key' }: Props) {
  const lower = noun.toLowerCase();
  const set = (index: number, part: keyof LabelRow, value: string) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, [part]: value } : row)));
  return (
    <>
      {rows.map((row, index) => (
        <Split hasGutter key={index} className="pf-v6-u-mb-sm">
          <SplitItem isFilled>
            <TextInput
              aria-label={`${noun} ${index + 1} ${keyName}`}
              placeholder={keyName}
              value={row.key}
              isDisabled={isDisabled}
              onChange={(_e, v) => set(index, 'key', v)}
            />
          </SplitItem>
          <SplitItem isFilled>
            <TextInput
              aria-label={`${noun} ${index + 1} value`}
              placeholder="value"
              value={row.value}
              isDisabled={isDisabled}
              onChange={(_e, v) => set(index, 'value', v)}
            />
          </SplitItem>
          {!isDisabled && (
            <SplitItem>
              <Button
                variant="plain"
                aria-label={`Remove ${lower} ${index + 1}`}
                icon={<TrashIcon />}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              />
            </SplitItem>
          )}
        </Split>
      ))}
      {!isDisabled && (
        <Button variant="link" isInline icon={<PlusCircleIcon />} onClick={() => onChange([...rows, { key: '', value: '' }])}>
          Add {lower}
        </Button>
      )}
      <FieldError text={error} />
    </>
  );
}
