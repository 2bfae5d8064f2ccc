import { FormGroup, FormSection } from '@patternfly/react-core';
import { MultiSelect, SimpleSelect } from '../../components/Selects';
import type { JsonObject } from '../../lib/yamlText';
import { formFields, type Field, type Input } from './checkFields';
import { setMethod, setPath, valueText } from './checkSpec';
import { InputField, PairsField, fieldId, type UpdateItem } from './CheckInputs';
import { AuthField, ConnectionField, ScriptField } from './CheckSelectors';
import { IconPicker } from '../../components/resource-editor/IconPicker';
import { CHECK_ICONS, renderCheckIcon } from './checkIcons';

interface Props {
  /** The spec key of the form type, e.g. `http`. */
  typeKey: string;
  item: JsonObject;
  update: UpdateItem;
  isDisabled: boolean;
  /** The message to show for a field now (touched or submitted), if any. */
  errorOf(path: string): string | undefined;
  touch(path: string): void;
  /** What the check is named when its name is left blank. */
  defaultName: string;
}

/** The Form tab of a form-type check. */
export function CheckForm({ typeKey, item, update, isDisabled, errorOf, touch, defaultName }: Props) {
  const renderInput = (field: Input) => (
    <InputField
      key={field.path}
      field={field}
      item={item}
      update={update}
      isDisabled={isDisabled}
      error={errorOf(field.path)}
      onBlur={() => touch(field.path)}
      placeholder={field.path === 'name' ? defaultName : undefined}
    />
  );

  const render = (field: Field, index: number) => {
    switch (field.kind) {
      case 'select':
        return (
          <FormGroup key={field.path} label={field.label} fieldId={fieldId(field.path)}>
            <SimpleSelect
              id={fieldId(field.path)}
              label={field.label}
              options={field.options.map((o) => ({ value: o, label: o }))}
              value={valueText(item[field.path])}
              placeholder={field.options[0]}
              isDisabled={isDisabled}
              onChange={(v) => update((i) => (field.path === 'method' ? setMethod(i, v) : setPath(i, field.path, v)))}
            />
          </FormGroup>
        );
      case 'codes': {
        const chosen = Array.isArray(item[field.path]) ? (item[field.path] as unknown[]).map(String) : [];
        const options = [...new Set([...field.options, ...chosen])].map((o) => ({ value: o, label: o }));
        return (
          <FormGroup key={field.path} label={field.label} fieldId={fieldId(field.path)}>
            <MultiSelect
              id={fieldId(field.path)}
              label={field.label}
              options={options}
              values={chosen}
              placeholder="Any successful response"
              isDisabled={isDisabled}
              onToggle={(code) => {
                const next = chosen.includes(code) ? chosen.filter((c) => c !== code) : [...chosen, code];
                update((i) => setPath(i, field.path, next.length ? next.map(Number).sort((a, b) => a - b) : undefined));
              }}
            />
          </FormGroup>
        );
      }
      case 'pairs':
        return <PairsField key={field.path} field={field} item={item} update={update} isDisabled={isDisabled} />;
      case 'auth':
        return <AuthField key="auth" field={field} item={item} update={update} isDisabled={isDisabled} renderInput={renderInput} />;
      case 'script':
        return <ScriptField key={field.path} field={field} item={item} update={update} isDisabled={isDisabled} />;
      case 'connection':
        return (
          <ConnectionField key="connection" field={field} item={item} update={update} isDisabled={isDisabled} renderInput={renderInput} />
        );
      case 'icon':
        return (
          <FormGroup key={field.path} label={field.label} fieldId={fieldId(field.path)}>
            <IconPicker
              id={fieldId(field.path)}
              label={field.label}
              choices={CHECK_ICONS}
              render={renderCheckIcon}
              value={valueText(item.icon)}
              isDisabled={isDisabled}
              onChange={(v) => update((i) => setPath(i, field.path, v))}
            />
          </FormGroup>
        );
      case 'group':
        return (
          <FormSection key={`group-${index}`} title={field.label} titleElement="h3">
            {field.fields.map(renderInput)}
          </FormSection>
        );
      default:
        return field.when && !field.when(item) ? null : renderInput(field);
    }
  };

  return <>{formFields(typeKey).map(render)}</>;
}
