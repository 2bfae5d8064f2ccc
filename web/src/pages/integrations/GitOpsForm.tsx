import {
  Alert,
  ClipboardCopyButton,
  CodeBlock,
  CodeBlockAction,
  CodeBlockCode,
  Content,
  Form,
  FormGroup,
  Spinner,
  Tab,
  TabTitleText,
  Tabs,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useCopyToClipboard } from '../../app/clipboard';
import { FieldError } from '../../components/FieldError';
import { YamlField } from '../../components/YamlField';
import { parseYamlObject } from '../../lib/yamlText';
import { previewProblems, useGitOpsPreview, type GitOpsOption } from './useGitOpsData';

export const GITOPS_NAMESPACE = 'quarterdeck';
export const GITOPS_WARNING = 'You will need to have Kubernetes chart installed in flux to use this option.';

function CodePreview({ id, label, code }: { id: string; label: string; code: string }) {
  const [copied, setCopied] = useState(false);
  const copyToClipboard = useCopyToClipboard();
  const copy = () => void copyToClipboard(code).then(setCopied);
  return (
    <CodeBlock
      actions={
        <CodeBlockAction>
          <ClipboardCopyButton
            id={`${id}-copy`}
            textId={`${id}-code`}
            aria-label={`Copy ${label}`}
            variant="plain"
            onClick={copy}
            exitDelay={copied ? 1500 : 600}
            onTooltipHidden={() => setCopied(false)}
          >
            {copied ? 'Copied' : 'Copy to clipboard'}
          </ClipboardCopyButton>
        </CodeBlockAction>
      }
    >
      <CodeBlockCode id={`${id}-code`}>{code}</CodeBlockCode>
    </CodeBlock>
  );
}

/** A GitOps option: Namespace and Values in, a Flux manifest and Helm CLI
 * commands out. The server checks the values against the option's schema. */
export function GitOpsForm({ option }: { option: GitOpsOption }) {
  const [namespace, setNamespace] = useState(GITOPS_NAMESPACE);
  const [values, setValues] = useState('');
  const [tab, setTab] = useState<string | number>('flux');
  const parsed = parseYamlObject(values);
  const { preview, pending } = useGitOpsPreview(option.id, namespace, parsed.value);
  const problems = pending ? undefined : previewProblems(preview.error);
  const otherError = preview.error && !pending && !problems ? errorMessage(preview.error) : undefined;
  const valueErrors = parsed.error !== undefined ? [parsed.error] : (problems?.values ?? []);
  const result = !preview.error && parsed.value ? preview.data : undefined;
  const warning = result?.warning || GITOPS_WARNING;

  const output = (id: string, label: string, code: string | undefined) => (
    <div className="pf-v6-u-pt-md">
      <Alert isInline isPlain variant="warning" title={warning} className="pf-v6-u-mb-md" />
      {code !== undefined ? (
        <CodePreview id={id} label={label} code={code} />
      ) : preview.isFetching || pending ? (
        <Spinner size="lg" aria-label="Loading preview" />
      ) : (
        <Content component="p" className="pf-v6-u-color-200">
          The preview appears once the namespace and values are valid.
        </Content>
      )}
    </div>
  );

  return (
    <>
      <Form onSubmit={(e) => e.preventDefault()}>
        <FormGroup label="Namespace" fieldId="gitops-namespace" isRequired>
          <TextInput
            id="gitops-namespace"
            value={namespace}
            validated={problems?.namespace ? 'error' : 'default'}
            onChange={(_e, v) => setNamespace(v)}
          />
          <FieldError text={problems?.namespace} />
        </FormGroup>
        <YamlField
          id="gitops-values"
          label="Values"
          value={values}
          onChange={setValues}
          errors={valueErrors}
          rows={8}
          helper={`YAML values for the ${option.chart} chart, checked against its schema`}
        />
      </Form>
      {otherError && <Alert isInline variant="danger" title={otherError} className="pf-v6-u-mt-md" />}
      <Tabs activeKey={tab} onSelect={(_e, key) => setTab(key)} aria-label="Preview" className="pf-v6-u-mt-lg">
        <Tab eventKey="flux" title={<TabTitleText>Flux</TabTitleText>}>
          {output('gitops-flux', 'Flux manifest', result?.flux)}
        </Tab>
        <Tab eventKey="helm" title={<TabTitleText>Helm CLI</TabTitleText>}>
          {output('gitops-helm', 'Helm commands', result?.helm)}
        </Tab>
      </Tabs>
    </>
  );
}
