import { ActionGroup, Alert, Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';
import type { Schemas } from '../api/client';

type UiNode = Schemas['UiNode'];
type UiText = Schemas['UiText'];

const AUTOCOMPLETE: Record<string, string> = {
  identifier: 'username',
  email: 'email',
  first_name: 'given-name',
  last_name: 'family-name',
  totp_code: 'one-time-code',
  code: 'one-time-code',
};

interface Props {
  /** The flow's messages, shown on top. */
  messages: UiText[];
  nodes: UiNode[];
  values: Record<string, string>;
  onChange(name: string, value: string): void;
  /** Submits one method's fields. */
  onSubmit(method: string, fields: Record<string, string>): void;
  isSubmitting: boolean;
  /** `current-password` when signing in, `new-password` when choosing one. */
  passwordAutoComplete: 'current-password' | 'new-password';
}

function isInput(node: UiNode): boolean {
  return ['text', 'email', 'password'].includes(node.attributes.type);
}

/** A self-service flow's form as the server describes it: one form per
 * method (the password; an authenticator code and a backup code; a mailed
 * code), each sending its own fields, with messages under the fields. */
export function FlowForm({ messages, nodes, values, onChange, onSubmit, isSubmitting, passwordAutoComplete }: Props) {
  const groups = [...new Set(nodes.filter((n) => n.group !== 'default').map((n) => n.group))];
  return (
    <>
      {messages.map((m, i) => (
        <Alert key={`${m.id}-${i}`} isInline isPlain variant={m.type === 'error' ? 'danger' : 'info'} title={m.text} />
      ))}
      {groups.map((group) => {
        const inputs = nodes.filter((n) => n.group === group && isInput(n));
        const button = nodes.find((n) => n.group === group && n.attributes.type === 'submit');
        const method = typeof button?.attributes.value === 'string' ? button.attributes.value : group;
        return (
          <Form
            key={group}
            aria-label={button?.meta?.label?.text ?? group}
            onSubmit={(event) => {
              event.preventDefault();
              onSubmit(method, Object.fromEntries(inputs.map((n) => [n.attributes.name, values[n.attributes.name] ?? ''])));
            }}
          >
            {inputs.map((node) => {
              const name = node.attributes.name;
              const type = node.attributes.type === 'password' ? 'password' : node.attributes.type === 'email' ? 'email' : 'text';
              return (
                <FormGroup key={name} label={node.meta?.label?.text ?? name} fieldId={`flow-${name}`} isRequired={node.attributes.required}>
                  <TextInput
                    id={`flow-${name}`}
                    name={name}
                    type={type}
                    autoComplete={type === 'password' ? passwordAutoComplete : (AUTOCOMPLETE[name] ?? 'off')}
                    isRequired={node.attributes.required}
                    validated={node.messages?.some((m) => m.type === 'error') ? 'error' : 'default'}
                    value={values[name] ?? ''}
                    onChange={(_e, value) => onChange(name, value)}
                  />
                  {node.messages?.length ? (
                    <FormHelperText>
                      <HelperText>
                        {node.messages.map((m) => (
                          <HelperTextItem key={m.id} variant={m.type === 'error' ? 'error' : 'default'}>
                            {m.text}
                          </HelperTextItem>
                        ))}
                      </HelperText>
                    </FormHelperText>
                  ) : null}
                </FormGroup>
              );
            })}
            <ActionGroup>
              <Button
                type="submit"
                variant={group === groups[0] ? 'primary' : 'secondary'}
                isBlock
                isLoading={isSubmitting}
                isDisabled={isSubmitting}
              >
                {button?.meta?.label?.text ?? 'Submit'}
              </Button>
            </ActionGroup>
          </Form>
        );
      })}
    </>
  );
}
