// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { ConnectionForm } from './ConnectionForm';
import { EMAIL, POSTGRES } from './fixtures';

afterEach(cleanup);

const stored = {
  name: 'pg',
  namespace: 'default',
  fields: { url: { value: 'postgres://db' }, username: { value: 'app' }, password: { set: true } },
};

function renderForm(props: Partial<Parameters<typeof ConnectionForm>[0]> = {}) {
  const onSubmit = vi.fn();
  render(
    <ConnectionForm type={POSTGRES} readOnly={false} isBusy={false} serverErrors={{}} onSubmit={onSubmit} onCancel={vi.fn()} {...props} />,
  );
  return onSubmit;
}

it('shows "This field is required" under each missing field and sends nothing', () => {
  const onSubmit = renderForm();
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(screen.getAllByText('This field is required')).toHaveLength(4);
  expect(onSubmit).not.toHaveBeenCalled();
  expect((screen.getByLabelText(/^Namespace/) as HTMLInputElement).value).toBe('default');
});

it('offers the three value sources for a secret and sends a secret key reference', () => {
  const onSubmit = renderForm();
  fireEvent.change(screen.getByLabelText(/^Name(?!space)/), { target: { value: 'pg' } });
  fireEvent.change(screen.getByLabelText(/^URL/), { target: { value: 'postgres://db' } });
  fireEvent.change(screen.getByLabelText(/^Username/), { target: { value: 'app' } });
  const sources = screen.getByRole('group', { name: 'Password value source' });
  expect([...sources.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Static value', 'Secret key', 'ConfigMap key']);
  fireEvent.click(screen.getByRole('button', { name: 'Secret key' }));
  fireEvent.change(screen.getByLabelText('Password Secret name'), { target: { value: 'pg-secret' } });
  fireEvent.change(screen.getByLabelText('Password Secret key'), { target: { value: 'password' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit).toHaveBeenCalledWith({
    name: 'pg',
    namespace: 'default',
    type: 'postgres',
    fields: {
      url: { value: 'postgres://db' },
      username: { value: 'app' },
      password: { valueFrom: { secretKeyRef: { name: 'pg-secret', key: 'password' } } },
    },
  });
});

it('shows a stored secret as "Value set" with Replace, never its value', () => {
  const onSubmit = renderForm({ stored });
  expect(screen.getByText('Value set')).toBeTruthy();
  expect(document.querySelector('input[type=password]')).toBeNull();
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit.mock.calls[0]?.[0].fields).not.toHaveProperty('password');
  fireEvent.click(screen.getByRole('button', { name: 'Replace Password' }));
  fireEvent.change(screen.getByLabelText(/^Password\s*\*?$/), { target: { value: 'rotated' } });
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit.mock.calls[1]?.[0].fields.password).toEqual({ value: 'rotated' });
});

it("shows the server's problems under their fields", () => {
  renderForm({ stored, serverErrors: { url: 'Must be a postgres:// URL' } });
  expect(screen.getByText('Must be a postgres:// URL')).toBeTruthy();
});

it('is read-only without Save for rows from elsewhere', () => {
  renderForm({ stored, readOnly: true });
  expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Replace Password' })).toBeNull();
  expect((screen.getByLabelText(/^URL/) as HTMLInputElement).disabled).toBe(true);
});

it('fills defaults, a select and a checkbox', () => {
  renderForm({ type: EMAIL });
  expect((screen.getByLabelText(/^Port/) as HTMLInputElement).value).toBe('587');
  expect(screen.getByRole('button', { name: 'Encryption' }).textContent).toBe('Auto');
  expect((screen.getByRole('checkbox', { name: 'Insecure TLS' }) as HTMLInputElement).checked).toBe(false);
});
