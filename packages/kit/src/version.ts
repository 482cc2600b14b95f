/** The running system version, reported by GET /dashboard/conf and on every log line. */
export const SYSTEM_VERSION = '0.1.0';
