import type { ResourceFormProps } from '../../components/resource-editor/formFields';
import type { DirectIntegrationRow } from './useIntegrationData';

/** What the edit page and the Add Integration modal give a direct form. */
export type DirectFormProps = ResourceFormProps<DirectIntegrationRow>;
