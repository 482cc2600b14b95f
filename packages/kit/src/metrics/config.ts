import { loadConfig, serviceEnv } from '../config.js';

/** Read by the service lifecycle for every service alike (each service's schema lists it too, through serviceEnv). */
export function loadMetricsConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig({ METRICS_ADDR: serviceEnv.METRICS_ADDR }, source);
}
