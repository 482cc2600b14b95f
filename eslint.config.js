// Type-aware lint (the rules in CONTRIBUTING.md). One TypeScript program from the root
// tsconfig.json serves every file, so a full run stays fast.
//
// Boundaries are per-folder `no-restricted-imports` overrides. In a flat config a later block
// replaces an earlier block's options for the same rule, so each block that sets it lists every
// pattern that still applies to its files.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const SERVICES = readdirSync(new URL('./services', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The only workspace packages a service may import (CONTRIBUTING.md, Layout). */
const ALLOWED_GW = ['@gw/kit', '@gw/proto', '@gw/testkit'];

const NO_OTHER_SERVICE = [
  {
    group: ['@gw/*', ...ALLOWED_GW.map((name) => `!${name}`)],
    message:
      'Import only @gw/kit, @gw/proto and @gw/testkit, never a service (CONTRIBUTING.md, Layout): ask it over gRPC or NATS.',
  },
  {
    regex: String.raw`^(\.\./){2,}(services/)?(${SERVICES.join('|')})/(src|test)(/|$)`,
    message: 'A service never imports another service (CONTRIBUTING.md, Layout): ask it over gRPC or NATS.',
  },
];

const ENV_MESSAGE = 'Read the environment only in config.ts, once, with zod (CONTRIBUTING.md, Layout).';
const NO_ENV_IMPORT = [
  { name: 'node:process', importNames: ['env'], message: ENV_MESSAGE },
  { name: 'process', importNames: ['env'], message: ENV_MESSAGE },
];

const NO_DOMAIN_IO = {
  group: [
    'pg',
    'pg/*',
    'drizzle-orm',
    'drizzle-orm/*',
    '@grpc/*',
    'nats',
    'nats/*',
    'ioredis',
    'ioredis/*',
    'bullmq',
    'bullmq/*',
    'node:net',
    'net',
    'node:fs',
    'node:fs/*',
    'fs',
    'fs/*',
  ],
  message:
    'The domain does no I/O: receive a port (store, clock, events) in deps instead (CONTRIBUTING.md, Layout).',
};

/**
 * The codes a transport may raise itself (CONTRIBUTING.md, Errors): what it sees at its boundary,
 * input it cannot read, a path it does not serve, a hop without the internal token, a dependency
 * it calls that does not answer. Every other code is a rule's, chosen in the domain.
 */
const BOUNDARY_CODES = [
  'InvalidRequest',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'RequestTimeout',
  'NotFound',
  'Unauthenticated',
  'Unavailable',
];
const CODE_MESSAGE = `A transport raises only ${BOUNDARY_CODES.join(', ')}, written as ErrorCode.<name>; every other code is chosen in the domain, and anything caught goes through the kit's toAppError (CONTRIBUTING.md, Errors).`;

/** The domain receives its adapters as ports; it never reaches for them (CONTRIBUTING.md, Layout). */
const NO_DOMAIN_ADAPTERS = {
  regex: String.raw`^(\.\./)+(transport|store)(/|$)`,
  message:
    'The domain never imports the transport or the store: declare a port in domain/ports/ and let main.ts hand the adapter in (CONTRIBUTING.md, Layout).',
};

const restrictedImports = (patterns) => ['error', { paths: NO_ENV_IMPORT, patterns }];

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.start/**',
      '**/.data/**',
      '**/coverage/**',
      'packages/proto/src/gen/**',
      // The browser app has its own TypeScript program (DOM, JSX): `npm run typecheck` checks it.
      'packages/console/src/**',
      'packages/console/vite.config.ts',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Practical relaxations of strictTypeChecked.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unnecessary-condition': [
        'error',
        { allowConstantLoopConditions: 'only-allowed-literals' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'all'],
      'no-console': 'error',
    },
  },
  // Plain JS (scripts, this file): linted without type information.
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  // process.env only in config.ts (CONTRIBUTING.md, Layout).
  {
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: ENV_MESSAGE }],
    },
  },
  // main.ts may hand process.env to its config loader and do nothing else with it
  // (`const config = loadConfig(process.env)` is the first line of main.ts).
  // Admin commands (services/*/src/cli/*.ts) are entry points too.
  {
    files: ['services/*/src/main.ts', 'packages/*/src/main.ts', 'services/*/src/cli/*.ts'],
    rules: {
      'no-restricted-properties': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.name='process'][property.name='env']:not(CallExpression[callee.name=/^load[A-Za-z]*Config$/] > MemberExpression.arguments)",
          message: `${ENV_MESSAGE} main.ts may only pass process.env to its load…Config function.`,
        },
      ],
    },
  },
  // A service imports packages only (packages never import services either).
  {
    files: ['services/**/*.ts', 'packages/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': restrictedImports(NO_OTHER_SERVICE),
    },
  },
  // The proxy enters no request context: on Node 20 the first one switches on a promise hook for
  // every promise of the process (CONTRIBUTING.md, Metrics and logs). The base rule, which no
  // other block sets for services, so the boundaries above keep their own.
  {
    files: ['services/proxy/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@gw/kit',
              importNames: ['runWithContext'],
              message:
                'The proxy passes its request id explicitly, never through a request context (CONTRIBUTING.md, Metrics and logs).',
            },
          ],
        },
      ],
    },
  },
  // The domain does no I/O (CONTRIBUTING.md, Layout).
  {
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictedImports([
        ...NO_OTHER_SERVICE,
        NO_DOMAIN_IO,
        NO_DOMAIN_ADAPTERS,
      ]),
    },
  },
  // Transports choose only boundary codes (CONTRIBUTING.md, Errors).
  {
    files: ['services/*/src/transport/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `NewExpression[callee.name='AppError']:not([arguments.0.object.name='ErrorCode'][arguments.0.property.name=/^(${BOUNDARY_CODES.join('|')})$/])`,
          message: CODE_MESSAGE,
        },
      ],
    },
  },
  // A store answers with results; only the domain turns them into an AppError (CONTRIBUTING.md, Layout).
  {
    files: ['services/*/src/store/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='AppError']",
          message:
            'A store answers with results (a row, undefined, a refusal such as name_taken); only the domain turns them into an AppError (CONTRIBUTING.md, Layout).',
        },
      ],
    },
  },
  // console only in scripts and benchmarks: services log through pino (CONTRIBUTING.md, Metrics and logs).
  {
    files: ['scripts/**', 'bench/**', 'packages/*/scripts/**'],
    rules: { 'no-console': 'off' },
  },
  // Tests may assert through `!` and handle loosely typed values.
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
