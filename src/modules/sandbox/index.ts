export { advanceSandboxClock, simulatePayment, type SandboxDeps, type SimulateInput } from './sandbox.service.js';
export { triggerSampleEvent } from './trigger.service.js';
