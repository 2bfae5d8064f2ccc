import { Checkbox, FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea, TextInput } from '@patternfly/react-core';
import { MultiSelect, SimpleSelect } from '../../../components/Selects';
import { isMultiline, labelOf, listOptions, typeOf, type ParamValue, type PlaybookParameter } from '../parameters';
import { usePickerOptions } from './useRunPlaybookData';
import { toggled } from '../../../lib/selection';

interface Props {
  param: PlaybookParameter;
  value: ParamValue | undefined;
  /** Shown once the field was touched or a run was tried. */
  error?: string;
  onChange(value: ParamValue): void;
}

const HINTS: Partial<Record<string, string>> = {
  bytes: 'A size with Mi, Gi or Ti, e.g. 512Mi',
  millicores: 'CPU in millicores, e.g. 500m',
  duration: 'e.g. 30s, 5m, 1h30m',
};

function Picker({ param, value, onChange, isInvalid }: Props & { isInvalid: boolean }) {
  const type = typeOf(param);
  const options = usePickerOptions(type).data ?? [];
  const label = labelOf(param);
  if (type === 'configs') {
    const values = Array.isArray(value) ? value : [];
    return (
      <MultiSelect
        id={`param-${param.name}`}
        label={label}
        options={options}
        values={values}
        isInvalid={isInvalid}
        onToggle={(v) => onChange(toggled(values, v))}
      />
    );
  }
  return (
    <SimpleSelect
      id={`param-${param.name}`}
      label={label}
      options={options}
      value={typeof value === 'string' ? value : ''}
      isInvalid={isInvalid}
      onChange={onChange}
    />
  );
}

/** One parameter's input, by its type. */
export function ParameterField(props: Props) {
  const { param, value, error, onChange } = props;
  const type = typeOf(param);
  const id = `param-${param.name}`;
  const label = labelOf(param);
  const text = typeof value === 'string' ? value : '';
  const validated = error ? 'error' : 'default';
  if (type === 'checkbox') {
    return <Checkbox id={id} label={label} description={param.description} isChecked={value === true} onChange={(_e, v) => onChange(v)} />;
  }
  let input;
  switch (type) {
    case 'list':
      input = (
        <SimpleSelect id={id} label={label} options={listOptions(param)} value={text} isInvalid={Boolean(error)} onChange={onChange} />
      );
      break;
    case 'check':
    case 'component':
    case 'config':
    case 'configs':
    case 'people':
    case 'team':
      input = <Picker {...props} isInvalid={Boolean(error)} />;
      break;
    case 'code':
      input = (
        <TextArea
          id={id}
          className="pf-v6-u-font-family-monospace"
          rows={8}
          spellCheck={false}
          value={text}
          validated={validated}
          onChange={(_e, v) => onChange(v)}
        />
      );
      break;
    default:
      input =
        type === 'text' && isMultiline(param) ? (
          <TextArea id={id} rows={4} value={text} validated={validated} onChange={(_e, v) => onChange(v)} />
        ) : (
          <TextInput
            id={id}
            type={type === 'secret' ? 'password' : 'text'}
            autoComplete="off"
            value={text}
            validated={validated}
            onChange={(_e, v) => onChange(v)}
          />
        );
  }
  const hint = param.description ?? HINTS[type];
  return (
    <FormGroup label={label} fieldId={id} isRequired={param.required}>
      {input}
      {(error || hint) && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant={error ? 'error' : 'default'}>{error ?? hint}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
    </FormGroup>
  );
}
