export * from './api.js';
export * from './gateway.js';
export * from './ports.js';
export * from './postgres.js';
export * from './process.js';
export * from './redis.js';
export * from './nats.js';
export * from './smtp-sink.js';
