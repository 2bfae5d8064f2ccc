import { readOnlyMessage } from '../../lib/source';

export const READ_ONLY_MESSAGE = readOnlyMessage('KubernetesCRD');
