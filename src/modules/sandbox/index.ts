export { sandboxRoutes, type SandboxDeps } from './sandbox.routes.js';
export { triggerSampleEvent } from './trigger.service.js';
