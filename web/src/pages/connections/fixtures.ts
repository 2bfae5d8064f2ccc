/** Connection types in the catalogue's shape, for the specs beside this file. */
import type { ConnectionTypeInfo } from '../../api/connections.gen';

export const POSTGRES: ConnectionTypeInfo = {
  id: 'postgres',
  title: 'PostgreSQL',
  notificationOnly: false,
  hidden: false,
  fields: [
    { key: 'url', label: 'URL', kind: 'text', required: true },
    { key: 'username', label: 'Username', kind: 'text', required: true },
    { key: 'password', label: 'Password', kind: 'secret', required: true },
  ],
};

export const EMAIL: ConnectionTypeInfo = {
  id: 'email',
  title: 'Email',
  notificationOnly: true,
  hidden: false,
  fields: [
    { key: 'host', label: 'Host', kind: 'text', required: true },
    { key: 'port', label: 'Port', kind: 'number', required: false, default: 587 },
    { key: 'password', label: 'Password', kind: 'secret', required: false },
    {
      key: 'encryption',
      label: 'Encryption',
      kind: 'select',
      required: false,
      default: 'Auto',
      options: ['None', 'ExplicitTLS', 'ImplicitTLS', 'Auto'],
    },
    { key: 'insecureTls', label: 'Insecure TLS', kind: 'boolean', required: false },
  ],
};

export const JMETER: ConnectionTypeInfo = {
  id: 'jmeter',
  title: 'JMeter',
  notificationOnly: false,
  hidden: true,
  fields: [{ key: 'url', label: 'Host', kind: 'text', required: true }],
};

export const AWS: ConnectionTypeInfo = { id: 'aws', title: 'AWS', notificationOnly: false, hidden: false, fields: [] };
