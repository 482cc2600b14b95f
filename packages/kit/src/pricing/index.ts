export * from './sections.js';
export * from './parse-override.js';
export * from './default-prices.js';
export * from './merge.js';
export * from './lookup.js';
export * from './fallback.js';
export * from './price-event.js';
