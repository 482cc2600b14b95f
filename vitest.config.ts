import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` runs the `*.test.ts` files beside the code, with no I/O; `int` runs
 * `*.int.test.ts` against real stores and processes, one file at a time, with the services
 * compiled once per run. `vitest run` runs both; `--project unit` or `--project int` picks one.
 * In both, the files of a worker share its process (`isolate: false`): loading the same modules
 * again for every file was most of what the unit project cost, and minutes of the int project's.
 * So a test file leaves nothing behind: no environment variable, fake clock, timer, listener or
 * server of its own.
 */
const ALWAYS_EXCLUDED = ['**/node_modules/**', '**/dist/**', '**/.start/**', '**/.data/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'packages/*/{src,test}/**/*.test.ts',
            'services/*/{src,test}/**/*.test.ts',
            'scripts/**/*.test.ts',
            'deploy/test/**/*.test.ts',
          ],
          exclude: [...ALWAYS_EXCLUDED, '**/*.int.test.ts'],
          isolate: false,
        },
      },
      {
        test: {
          name: 'int',
          include: [
            '{packages,services}/*/{src,test}/**/*.int.test.ts',
            'scripts/**/*.int.test.ts',
            'deploy/test/**/*.int.test.ts',
          ],
          exclude: ALWAYS_EXCLUDED,
          // The gateways these tests start run the services compiled, built once per run here.
          globalSetup: ['packages/testkit/src/build-for-int-tests.ts'],
          env: { GW_TEST_SERVICES: 'compiled' },
          fileParallelism: false,
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
