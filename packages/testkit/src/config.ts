/** The only environment the test harness passes on to the processes it starts. */
export function inheritedEnv(): Record<string, string> {
  const { PATH = '/usr/bin:/bin', HOME = '/tmp' } = process.env;
  return { PATH, HOME };
}
