export * from './types';
export { HttpConnector } from './http';
export { SandboxCardConnector, SANDBOX_CARDS } from './sandbox-card';
export { SandboxPayoutConnector } from './sandbox-payout';
export { connectorFor, registerConnector } from './registry';
