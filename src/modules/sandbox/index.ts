export { SandboxService, type SandboxServiceDeps, type SimulateInput } from './sandbox.service.js';
