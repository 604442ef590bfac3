export * from './types';
export { HttpConnector } from './http';
export { connectorFor, registerConnector } from './registry';
