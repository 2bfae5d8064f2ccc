export const READ_ONLY_MESSAGE = 'Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.';
