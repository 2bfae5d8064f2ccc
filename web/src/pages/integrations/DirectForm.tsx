import type { ComponentType } from 'react';
import type { DirectType } from '../../lib/integrations';
import type { DirectFormProps } from './formParts';
import { LogBackendForm } from './LogBackendForm';
import { ScraperForm } from './ScraperForm';
import { TopologyForm } from './TopologyForm';

const FORMS: Record<DirectType, ComponentType<DirectFormProps>> = {
  topology: TopologyForm,
  scraper: ScraperForm,
  logging_backend: LogBackendForm,
};

/** The form of a direct integration type, for adding (modal) or editing (page). */
export function DirectForm({ type, ...props }: DirectFormProps & { type: DirectType }) {
  const Form = FORMS[type];
  return <Form {...props} />;
}
