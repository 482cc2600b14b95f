/** The only environment the test harness passes on to the processes it starts. */
export function inheritedEnv(): Record<string, string> {
  const { PATH = '/usr/bin:/bin', HOME = '/tmp' } = process.env;
  return { PATH, HOME };
}

/**
 * Whether the test run compiled the services (GW_TEST_SERVICES=compiled, set for the int tests
 * beside their global setup that compiles them): the gateways then run each service's `dist/`.
 */
export function runsCompiledServices(): boolean {
  return process.env.GW_TEST_SERVICES === 'compiled';
}
