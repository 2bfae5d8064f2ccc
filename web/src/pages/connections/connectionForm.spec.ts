import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import { initialForm, isSecret, offeredTypes, requestBody, serverFieldErrors, validate, type SecretState } from './connectionForm';

// The spec's texts.
const REQUIRED = 'This field is required';
const NOT_A_NUMBER = 'This field must be a number';
import { AWS, EMAIL, JMETER, POSTGRES } from './fixtures';

const secret = (form: ReturnType<typeof initialForm>, key: string) => form.fields[key] as SecretState;

describe('type list', () => {
  it('sorts by title, hides JMeter and searches titles', () => {
    expect(offeredTypes([POSTGRES, JMETER, EMAIL, AWS]).map((t) => t.id)).toEqual(['aws', 'email', 'postgres']);
    expect(offeredTypes([POSTGRES, JMETER, EMAIL, AWS], 'POST').map((t) => t.id)).toEqual(['postgres']);
  });
});

describe('a new connection', () => {
  it('starts in namespace default with the defaults', () => {
    const form = initialForm(EMAIL);
    expect(form.namespace).toBe('default');
    expect(form.fields.port).toBe('587');
    expect(form.fields.encryption).toBe('Auto');
    expect(form.fields.insecureTls).toBe(false);
    expect(isSecret(form.fields.password)).toBe(true);
  });

  it('says "This field is required" under every missing required field', () => {
    const form = { ...initialForm(POSTGRES), namespace: ' ' };
    expect(validate(POSTGRES, form)).toEqual({
      name: REQUIRED,
      namespace: REQUIRED,
      url: REQUIRED,
      username: REQUIRED,
      password: REQUIRED,
    });
  });

  it('refuses a number that is not one', () => {
    const form = initialForm(EMAIL);
    form.name = 'mail';
    form.fields.host = 'smtp';
    form.fields.port = 'x';
    expect(validate(EMAIL, form)).toEqual({ port: NOT_A_NUMBER });
  });

  it('sends typed values: numbers, booleans, and a secret as a static value or a key reference', () => {
    const form = initialForm(EMAIL);
    form.name = ' mail ';
    form.fields.host = 'smtp.example.com';
    form.fields.insecureTls = true;
    form.fields.password = { ...secret(form, 'password'), value: 's3cret' };
    expect(requestBody(EMAIL, form)).toEqual({
      name: 'mail',
      namespace: 'default',
      type: 'email',
      fields: {
        host: { value: 'smtp.example.com' },
        port: { value: 587 },
        password: { value: 's3cret' },
        encryption: { value: 'Auto' },
        insecureTls: { value: true },
      },
    });
    form.fields.password = { ...secret(form, 'password'), source: 'configmap', ref: { name: 'mail', key: 'pass' } };
    expect(requestBody(EMAIL, form).fields.password).toEqual({ valueFrom: { configMapKeyRef: { name: 'mail', key: 'pass' } } });
    form.fields.password = { ...secret(form, 'password'), source: 'secret', ref: { name: 'mail', key: '' } };
    expect(validate(EMAIL, form)).toEqual({ password: REQUIRED });
  });
});

describe('a stored connection', () => {
  const stored = {
    name: 'pg',
    namespace: 'ops',
    fields: {
      url: { value: 'postgres://db' },
      username: { valueFrom: { secretKeyRef: { name: 'pg', key: 'user' } } },
      password: { set: true },
    },
  };

  it('shows a static secret as set, never its value, and keeps it unless replaced', () => {
    const form = initialForm(POSTGRES, stored);
    expect(secret(form, 'password')).toMatchObject({ source: 'static', stored: true, value: '' });
    expect(validate(POSTGRES, form)).toEqual({});
    const body = requestBody(POSTGRES, form);
    expect(body.fields).not.toHaveProperty('password');
    form.fields.password = { ...secret(form, 'password'), stored: false, value: 'new' };
    expect(requestBody(POSTGRES, form).fields.password).toEqual({ value: 'new' });
  });

  it('keeps a reference as a reference', () => {
    const form = initialForm(POSTGRES, stored);
    expect(requestBody(POSTGRES, form).fields.username).toEqual({ valueFrom: { secretKeyRef: { name: 'pg', key: 'user' } } });
  });
});

it("reads a 400's problems by field", () => {
  const error = new ApiError(400, { error: 'invalid', fields: { url: REQUIRED, port: NOT_A_NUMBER } });
  expect(serverFieldErrors(error)).toEqual({ url: REQUIRED, port: NOT_A_NUMBER });
  expect(serverFieldErrors(new ApiError(409, { error: 'exists' }))).toEqual({});
});
