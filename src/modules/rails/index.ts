export { RailRegistry, type OutcomeReport, type PaymentOutcomeSink, type PaymentRail, type RailScope } from './rail.js';
export { SandboxRail } from './sandbox-rail.js';
