import {
  ActionGroup,
  Button,
  Form,
  FormGroup,
  Icon,
  Split,
  SplitItem,
  Tab,
  TabTitleIcon,
  TabTitleText,
  Tabs,
  TextInput,
  Title,
} from '@patternfly/react-core';
import ExclamationCircleIcon from '@patternfly/react-icons/dist/esm/icons/exclamation-circle-icon';
import ExternalLinkAltIcon from '@patternfly/react-icons/dist/esm/icons/external-link-alt-icon';
import { useState } from 'react';
import { DeleteButton } from '../../components/ConfirmDialog';
import { FieldError } from '../../components/FieldError';
import { IconPicker } from '../../components/resource-editor/IconPicker';
import type { JsonObject } from '../../lib/yamlText';
import {
  applyCode,
  canaryForm,
  checkItem,
  chooseType,
  codeText,
  labelsText,
  newCanaryForm,
  parseCode,
  parseLabels,
  withCheckItem,
  type CanaryForm,
  type CanaryRow,
} from './checkSpec';
import { checkType, preselectType, type CheckType } from './checkTypes';
import { CHECK_ICONS, renderCheckIcon } from './checkIcons';
import { NAME_KEY, specProblems, validateCanary } from './checkValidation';
import { CheckForm } from './CheckForm';
import { CheckTypeGrid } from './CheckTypeGrid';
import { CodeField } from './CodeField';
import { ScheduleField } from './ScheduleField';

interface Props {
  /** The canary being edited; none when creating. */
  row?: CanaryRow;
  readOnly: boolean;
  isBusy: boolean;
  onSubmit(form: CanaryForm, type: CheckType): void;
  onDelete(): Promise<unknown>;
  /** Leaves the editor (Back from the type grid). */
  onLeave(): void;
}

const CODE_HELPER = 'YAML or JSON; text that does not parse is ignored';

/** The Health Check editor (decisions, section 12): a grid of check
 * types, then the chosen type's editor under the resource's own fields. */
export function CanaryEditor({ row, readOnly, isBusy, onSubmit, onDelete, onLeave }: Props) {
  const [form, setForm] = useState(() => (row ? canaryForm(row) : newCanaryForm()));
  const [typeId, setTypeId] = useState(() => (row ? preselectType(row.spec).id : undefined));
  const [tab, setTab] = useState<string | number>('form');
  const [submitted, setSubmitted] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());

  if (typeId === undefined) {
    return (
      <>
        <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-md">
          Choose a check type
        </Title>
        <CheckTypeGrid
          onChoose={(type) => {
            setForm((f) => chooseType(f, type, row?.spec));
            setTypeId(type.id);
            setTab('form');
            setSubmitted(false);
            setTouched(new Set());
          }}
        />
        <div className="pf-v6-u-mt-lg">
          <Button variant="secondary" onClick={onLeave}>
            Back
          </Button>
        </div>
      </>
    );
  }

  const type = checkType(typeId);
  const key = type.form ? type.keys[0] : undefined;
  const errors = validateCanary(form, type);
  const problems = specProblems(form);
  const errorOf = (path: string) => (submitted || touched.has(path) ? errors[path] : undefined);
  const touch = (path: string) => setTouched((t) => (t.has(path) ? t : new Set([...t, path])));
  const setSpecCode = (value: JsonObject) => setForm((f) => applyCode(f, value));
  const specField = (label: string) => (
    <CodeField
      id="canary-spec"
      label={label}
      initial={codeText(form)}
      parse={parseCode}
      onChange={setSpecCode}
      helper={CODE_HELPER}
      errors={problems}
      isDisabled={readOnly}
      rows={16}
    />
  );
  const nameError = errorOf(NAME_KEY);

  return (
    <Form
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        if (Object.keys(errors).length === 0) onSubmit(form, type);
        // The problems show on the form, not in the code.
        else setTab('form');
      }}
    >
      <Split hasGutter>
        <SplitItem isFilled>
          <Title headingLevel="h2" size="lg">
            {type.label}
          </Title>
        </SplitItem>
        <SplitItem>
          <Button
            variant="link"
            isInline
            component="a"
            href={type.docs}
            target="_blank"
            rel="noreferrer"
            icon={<ExternalLinkAltIcon />}
            iconPosition="end"
          >
            {type.label} documentation
          </Button>
        </SplitItem>
      </Split>
      <FormGroup label="Name" fieldId="canary-name" isRequired>
        <TextInput
          id="canary-name"
          value={form.name}
          isDisabled={Boolean(row) || readOnly}
          validated={nameError ? 'error' : 'default'}
          onBlur={() => touch(NAME_KEY)}
          onChange={(_e, name) => setForm((f) => ({ ...f, name }))}
        />
        <FieldError text={nameError} />
      </FormGroup>
      <FormGroup label="Namespace" fieldId="canary-namespace">
        <TextInput
          id="canary-namespace"
          value={form.namespace}
          placeholder="default"
          isDisabled={Boolean(row) || readOnly}
          onChange={(_e, namespace) => setForm((f) => ({ ...f, namespace }))}
        />
      </FormGroup>
      <FormGroup label="Icon" fieldId="canary-icon">
        <IconPicker
          id="canary-icon"
          choices={CHECK_ICONS}
          render={renderCheckIcon}
          value={form.icon}
          isDisabled={readOnly}
          onChange={(icon) => setForm((f) => ({ ...f, icon }))}
        />
      </FormGroup>
      <CodeField
        id="canary-labels"
        label="Labels"
        initial={labelsText(form.labels)}
        parse={parseLabels}
        onChange={(labels) => setForm((f) => ({ ...f, labels }))}
        helper='JSON, e.g. {"team": "payments"}; text that does not parse is ignored'
        isDisabled={readOnly}
        rows={3}
      />
      <ScheduleField value={form.schedule} isDisabled={readOnly} onChange={(schedule) => setForm((f) => ({ ...f, schedule }))} />
      {key ? (
        <Tabs activeKey={tab} onSelect={(_e, k) => setTab(k)} aria-label="Check editor" mountOnEnter unmountOnExit>
          <Tab eventKey="form" title={<TabTitleText>Form</TabTitleText>}>
            <div className="pf-v6-u-pt-md pf-v6-l-stack pf-m-gutter">
              <CheckForm
                typeKey={key}
                item={checkItem(form.spec, key)}
                update={(change) => setForm((f) => ({ ...f, spec: withCheckItem(f.spec, key, change(checkItem(f.spec, key))) }))}
                isDisabled={readOnly}
                errorOf={errorOf}
                touch={touch}
                defaultName={form.name}
              />
            </div>
          </Tab>
          <Tab
            eventKey="code"
            title={
              <>
                {problems.length > 0 && (
                  <TabTitleIcon>
                    <Icon status="danger">
                      <ExclamationCircleIcon />
                    </Icon>
                  </TabTitleIcon>
                )}
                <TabTitleText>Code{problems.length > 0 && <span className="pf-v6-screen-reader">, has problems</span>}</TabTitleText>
              </>
            }
          >
            <div className="pf-v6-u-pt-md">{specField('Spec')}</div>
          </Tab>
        </Tabs>
      ) : (
        specField('Specs')
      )}
      <ActionGroup>
        {!readOnly && (
          <Button type="submit" isLoading={isBusy} isDisabled={isBusy || problems.length > 0}>
            {row ? 'Update' : 'Save'}
          </Button>
        )}
        {row && !readOnly && (
          <DeleteButton
            title="Delete resource"
            message="Are you sure you want to delete this resource?"
            isDisabled={isBusy}
            onConfirm={onDelete}
          />
        )}
        <Button variant="secondary" onClick={() => setTypeId(undefined)}>
          Back
        </Button>
      </ActionGroup>
    </Form>
  );
}
