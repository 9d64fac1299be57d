export { describeObject, kubectlAvailable, parseObjects, renderOverlay, type K8sObject } from './render.ts';
export { schemaErrors, validateSchemas } from './schemas.ts';
export { isPinnedImage, policyViolations, PUBLIC_PATHS } from './policy.ts';
