import {
  ActionGroup,
  Alert,
  Button,
  Checkbox,
  Content,
  Flex,
  FlexItem,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  PageSection,
  TextArea,
  TextInput,
  Title,
} from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { FieldError } from '../../components/FieldError';
import { RequireAccess } from '../../components/RequireAccess';
import { SEARCH_DEBOUNCE_MS, SearchBox } from '../../components/SearchBox';
import { useDebounced } from '../../app/useDebounced';
import { SimpleSelect } from '../../components/Selects';
import {
  SELECTORS_SYNTAX,
  SILENCES_PATH,
  SILENCE_DURATIONS,
  SILENCE_TARGETS,
  isSilenceTarget,
  parseSelectors,
  silenceBody,
  silenceFieldErrors,
  type SilenceDuration,
  type SilenceErrors,
  type SilenceForm,
  type SilenceTarget,
} from './notificationModel';
import { HistoryTable } from './HistoryTable';
import { useCreateSilence, useSilencePreview, useSilenceTarget, useSilenceTargets } from './useNotificationsData';

function AddSilence() {
  const [search] = useSearchParams();
  const type = search.get('resourceType');
  const [form, setForm] = useState<SilenceForm>({
    name: '',
    description: '',
    targetType: isSilenceTarget(type) ? type : 'check',
    targetId: search.get('resourceId') ?? '',
    recursive: false,
    filter: '',
    selectors: '',
    duration: '1d',
  });
  const [errors, setErrors] = useState<SilenceErrors>({});
  const [targetSearch, setTargetSearch] = useState('');
  const targets = useSilenceTargets(form.targetType, targetSearch);
  const chosen = useSilenceTarget(form.targetType, form.targetId);
  const create = useCreateSilence();
  const previewFilter = useDebounced(form.filter.trim(), SEARCH_DEBOUNCE_MS);
  const previewSelectors = parseSelectors(useDebounced(form.selectors, SEARCH_DEBOUNCE_MS));
  const preview = useSilencePreview(
    form.targetId,
    previewFilter,
    'selectors' in previewSelectors ? previewSelectors.selectors : null,
    form.recursive && form.targetType !== 'check',
  );
  // The server's word on the filter and selectors as the preview reads them, under their fields.
  const previewErrors = preview.error instanceof ApiError ? silenceFieldErrors(preview.error.fieldProblems) : {};
  const fieldError = (key: 'filter' | 'selectors') =>
    errors[key] ?? previewErrors[key] ?? (key === 'selectors' && 'error' in previewSelectors ? previewSelectors.error : undefined);
  const toast = useToast();
  const navigate = useNavigate();
  useTopBar('Add silence');
  const set = <K extends keyof SilenceForm>(key: K, value: SilenceForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const options = [...(chosen.data ?? []), ...(targets.data ?? []).filter((t) => t.id !== form.targetId)].map((t) => ({
    value: t.id,
    label: t.name ?? t.id,
  }));
  const submit = () => {
    const checked = silenceBody(form);
    if ('errors' in checked) return setErrors(checked.errors);
    setErrors({});
    create.mutate(checked.body, {
      onSuccess: () => (toast.success(`${checked.body.name} created successfully`), navigate(SILENCES_PATH)),
      onError: (e) => {
        if (e instanceof ApiError) setErrors(silenceFieldErrors(e.fieldProblems));
        toast.error(errorMessage(e));
      },
    });
  };
  return (
    <PageSection>
      <Form
        aria-label="Silence"
        maxWidth="48rem"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <FormGroup label="Name" fieldId="silence-name" isRequired>
          <TextInput
            id="silence-name"
            value={form.name}
            validated={errors.name ? 'error' : 'default'}
            onChange={(_e, v) => set('name', v)}
          />
          <FieldError text={errors.name} />
        </FormGroup>
        <FormGroup label="Description" fieldId="silence-description">
          <TextArea id="silence-description" value={form.description} onChange={(_e, v) => set('description', v)} />
        </FormGroup>
        <FormGroup label="Resource" fieldId="silence-resource" role="group">
          <Flex>
            <FlexItem>
              <SimpleSelect
                label="Resource type"
                options={SILENCE_TARGETS}
                value={form.targetType}
                onChange={(v) => setForm((f) => ({ ...f, targetType: v as SilenceTarget, targetId: '' }))}
              />
            </FlexItem>
            <FlexItem>
              <SearchBox label="Find resource" value={targetSearch} onChange={setTargetSearch} />
            </FlexItem>
            <FlexItem grow={{ default: 'grow' }}>
              <SimpleSelect
                label="Resource"
                placeholder="Any resource"
                options={[{ value: '', label: 'Any resource' }, ...options]}
                value={form.targetId}
                isInvalid={Boolean(errors.target)}
                onChange={(v) => set('targetId', v)}
              />
            </FlexItem>
          </Flex>
          {form.targetType !== 'check' && (
            <Checkbox
              id="silence-recursive"
              label="Also silence its children"
              isChecked={form.recursive}
              onChange={(_e, v) => set('recursive', v)}
            />
          )}
          <FieldError text={errors.target} />
        </FormGroup>
        <FormGroup label="Filter" fieldId="silence-filter">
          <TextInput
            id="silence-filter"
            value={form.filter}
            placeholder="CEL, e.g. check.name.startsWith('db-')"
            validated={errors.target || fieldError('filter') ? 'error' : 'default'}
            onChange={(_e, v) => set('filter', v)}
          />
          <FieldError text={fieldError('filter')} />
        </FormGroup>
        <FormGroup label="Selectors" fieldId="silence-selectors">
          <TextArea
            id="silence-selectors"
            className="pf-v6-u-font-family-monospace"
            value={form.selectors}
            rows={3}
            resizeOrientation="vertical"
            spellCheck={false}
            placeholder={'- types: [Kubernetes::Deployment]\n  namespace: default'}
            aria-describedby="silence-selectors-helper"
            validated={errors.target || fieldError('selectors') ? 'error' : 'default'}
            onChange={(_e, v) => set('selectors', v)}
          />
          <FormHelperText>
            <HelperText id="silence-selectors-helper">
              {fieldError('selectors') ? (
                <HelperTextItem variant="error">{fieldError('selectors')}</HelperTextItem>
              ) : (
                <HelperTextItem>{SELECTORS_SYNTAX}</HelperTextItem>
              )}
            </HelperText>
          </FormHelperText>
        </FormGroup>
        <FormGroup label="Duration" fieldId="silence-duration">
          <SimpleSelect
            id="silence-duration"
            label="Duration"
            options={SILENCE_DURATIONS}
            value={form.duration}
            onChange={(v) => set('duration', v as SilenceDuration)}
          />
        </FormGroup>
        <ActionGroup>
          <Button type="submit" isLoading={create.isPending} isDisabled={create.isPending}>
            Save
          </Button>
          <Button variant="link" onClick={() => navigate(SILENCES_PATH)}>
            Cancel
          </Button>
        </ActionGroup>
      </Form>
      <Title headingLevel="h2" size="md" className="pf-v6-u-mt-lg">
        Notifications it would have silenced
      </Title>
      {preview.data ? (
        <>
          <Content component="p">
            {preview.data.results.length === 1 ? '1 notification' : `${preview.data.results.length} notifications`} since{' '}
            <DateTime value={preview.data.since} />
          </Content>
          {preview.data.errors.map((e) => (
            <Alert key={e} variant="warning" isInline isPlain title={e} />
          ))}
        </>
      ) : (
        !preview.isLoading && (
          <Content component="p">Choose a resource, write a filter or selectors to see what it would have silenced.</Content>
        )
      )}
      {(preview.data || preview.isLoading || preview.error) && (
        <HistoryTable
          query={{ data: preview.data && { rows: preview.data.results }, isLoading: preview.isLoading, error: preview.error }}
          label="Notifications the silence would have matched"
        />
      )}
    </PageSection>
  );
}

/** A new silence: its resource (and children), CEL filter or resource selectors, and how long it lasts. */
export default function SilenceAddPage() {
  return (
    <RequireAccess resource="notifications" access="write" feature="settings.notifications">
      <AddSilence />
    </RequireAccess>
  );
}
